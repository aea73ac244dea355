#!/usr/bin/env node
// Generates the committed test vectors in tests/vectors/ with node as the oracle.
//
//   node tests/oracle/gen.js            rewrite tests/vectors/*.jsonl
//   node tests/oracle/gen.js --print F  print one vector file to stdout (used by the tests)
//
// Every expected value comes from node itself: JSON.parse / JSON.stringify, crypto's SHA-1,
// and the seed's dehydration and writer as transcribed in seed.js.
'use strict';
const fs = require('fs');
const path = require('path');
const { dehydrateValue, writeFixture, sha1 } = require('./seed.js');

// A small deterministic PRNG (mulberry32) so the random cases are the same on every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- JSON.stringify(JSON.parse)
const JSON_CASES = [
  ['numbers', '[1.0, -0, -0.0, 1E+21, 1e21, 1e20, 0.000001, 0.0000001, 1e-7, 123456789012345678901234, 9007199254740993, 1.7976931348623157e308, 5e-324, 1e400, -1e400, 1e-400, 0.1, 100, 1.5e300, 2.5E-3, 1E2, 123.456e2, -5e-7, 4.35, 0.30000000000000004]'],
  ['escapes', String.raw`"\" \\ \/ \b \f \n \r \t \u0000 \u001f \u007f \u0080 \u2028 \u2029 \ufeff"`],
  ['astral and pairs', String.raw`["😀", "\ud83d\ude00", "\uD83D\uDE00", "𝄞 music"]`],
  ['lone surrogates', String.raw`["\ud800", "\udc00", "a\ud800b", "\udc00\ud800", "\ud800\ud800\udc00", "\udbff"]`],
  ['non-ascii', '"héllo wörld 日本語 ﷽ \u{10ffff}"'],
  ['index keys', '{"b":1,"2":2,"a":3,"0":4,"10":5,"01":6,"-1":7,"4294967294":8,"4294967295":9,"1.5":10}'],
  ['duplicate keys', '{"a":1,"b":2,"a":3,"c":{"x":1,"x":[2]}}'],
  ['proto key', '{"__proto__":{"x":1},"constructor":2}'],
  ['empty containers', '{"a":[],"b":{},"c":[[],{}],"d":[{}]}'],
  ['whitespace', ' \t\n\r{ "a" :\n [ 1 ,2 ] } \n'],
  ['deep', '[[[[[[[[[[{"a":[[[[{"b":"c"}]]]]}]]]]]]]]]]'],
  ['scalars', '[true,false,null,"",0]'],
  ['top string', '"hello"'],
  ['top number', '1.0'],
  ['message', '[{"type":"text","text":"hello"}]'],
  ['tool use', '[{"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"[CWD]/src/a.ts","limit":100}}]'],
];

const STRING_ATOMS = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f',
  '\u00e9', '\u2028', '\u2029', '\ufeff', '\u00a0', '\u0085', '😀', '\ud800', '\udfff', '日', '{', '}', '[CWD]', '0'];

function randomString(r) {
  let s = '';
  const n = Math.floor(r() * 8);
  for (let i = 0; i < n; i++) s += STRING_ATOMS[Math.floor(r() * STRING_ATOMS.length)];
  return s;
}

function randomNumberText(r) {
  const forms = [
    () => String(Math.floor(r() * 1000)),
    () => `-${Math.floor(r() * 1e6)}`,
    () => `${Math.floor(r() * 100)}.${Math.floor(r() * 1000)}`,
    () => `${Math.floor(r() * 10)}e${Math.floor(r() * 40) - 20}`,
    () => `${Math.floor(r() * 10)}.${Math.floor(r() * 100)}E+${Math.floor(r() * 30)}`,
    () => `${Math.floor(r() * 1e9)}${Math.floor(r() * 1e9)}${Math.floor(r() * 1e9)}`,
    () => '0.0',
    () => '-0',
  ];
  return forms[Math.floor(r() * forms.length)]();
}

// JSON text with escapes chosen at random, so the input is not already canonical.
function randomText(r, depth) {
  const pick = r();
  if (depth > 3 || pick < 0.35) {
    const k = Math.floor(r() * 5);
    if (k === 0) return randomNumberText(r);
    if (k === 1) return ['true', 'false', 'null'][Math.floor(r() * 3)];
    return quote(r, randomString(r));
  }
  if (pick < 0.65) {
    const n = Math.floor(r() * 4);
    const items = [];
    for (let i = 0; i < n; i++) items.push(randomText(r, depth + 1));
    return `[${items.join(r() < 0.5 ? ',' : ' , ')}]`;
  }
  const n = Math.floor(r() * 5);
  const entries = [];
  const keys = ['a', 'b', 'type', 'text', '0', '1', '7', '10', '01', 'é', '', 'input'];
  for (let i = 0; i < n; i++) {
    const key = r() < 0.8 ? keys[Math.floor(r() * keys.length)] : randomString(r);
    entries.push(`${quote(r, key)}:${randomText(r, depth + 1)}`);
  }
  return `{${entries.join(',')}}`;
}

// Writes a string literal, escaping characters in one of several equivalent ways.
function quote(r, s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    if (c === '"' || c === '\\' || code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else if (r() < 0.15) {
      out += `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`;
    } else if (c === '/' && r() < 0.5) {
      out += '\\/';
    } else {
      out += c;
    }
  }
  return `${out}"`;
}

function jsonVectors() {
  const r = rng(20261202);
  const cases = JSON_CASES.slice();
  for (let i = 0; i < 400; i++) cases.push([`random ${i}`, randomText(r, 0)]);
  return cases.map(([name, text]) => {
    const value = JSON.parse(text);
    const compact = JSON.stringify(value);
    return { name, text, compact, pretty: JSON.stringify(value, null, 2), sha1: sha1(compact) };
  });
}

// ---------------------------------------------------------------- dehydrateValue
const MACHINES = [
  { cwd: '/home/alice/work/app', configHome: '/home/alice/.claude', platform: 'linux' },
  { cwd: '/Users/Bob Smith/dev/my proj', configHome: '/Users/Bob Smith/.claude', platform: 'darwin' },
  { cwd: 'C:\\Users\\carol\\src\\app', configHome: 'C:\\Users\\carol\\.claude', platform: 'win32' },
];

const DEHYDRATE_STRINGS = [
  'plain text',
  'see {cwd}/src/index.ts and {config}/settings.json',
  '{config}',
  '{cwd}/{cwd}',
  'num_files="12" duration_ms="3400" cost_usd="7" cost_usd="0.12" num_files=""',
  'num_files="١٢"',
  'Available commands: /help, /clear\nnext line\nAvailable commands: again',
  'Available commands: a\u2028b',
  'Available commands: a\rb',
  'Available commands:',
  'x Available commands: y',
  '[CWD]\\src\\\\win\\path "quoted\\back" [CWD]\\a<b>\\c',
  '[CWD]\\a\ufeff\\b [CWD]\\c\u0085\\d [CWD]\\e\u00a0\\f [CWD]\\g\u2003\\h',
  '[CONFIG_HOME]\\\\x\\y',
  'prefix Files modified by user: a.ts, b.ts',
  'Files modified by user:',
  '{cwd-json}\\\\src\\\\x',
  '{cwd-fwd}/src/y',
  '{config-json}\\\\agents',
  '</system-reminder> a/b/c',
  'unicode {cwd}/é/😀/\u2028tail',
];

function fill(template, m) {
  const json = (s) => JSON.stringify(s).slice(1, -1);
  return template
    .replaceAll('{cwd-json}', json(m.cwd))
    .replaceAll('{config-json}', json(m.configHome))
    .replaceAll('{cwd-fwd}', m.cwd.replaceAll('\\', '/'))
    .replaceAll('{cwd}', m.cwd)
    .replaceAll('{config}', m.configHome);
}

function dehydrateVectors() {
  const out = [];
  for (const machine of MACHINES) {
    for (const template of DEHYDRATE_STRINGS) {
      const input = fill(template, machine);
      out.push({ machine, input, output: dehydrateValue(input, machine) });
    }
  }
  return out;
}

// ---------------------------------------------------------------- the seed's writer
function recordedCall(r, m, n) {
  const cwd = m.cwd;
  const fwd = cwd.replaceAll('\\', '/');
  const contents = [
    `Fix the failing test in ${cwd}${m.platform === 'win32' ? '\\' : '/'}src${m.platform === 'win32' ? '\\' : '/'}app.ts`,
    [
      { type: 'text', text: 'I will read the file.' },
      { type: 'tool_use', id: `toolu_0${n}`, name: 'Read', input: { file_path: `${fwd}/src/app.ts`, options: { limit: 200 + n } } },
    ],
    [
      { type: 'tool_result', tool_use_id: `toolu_0${n}`, content: `     1\texport const x = ${n};\n<system-reminder>num_files="4"</system-reminder>` },
      { type: 'text', text: `Files modified by user: ${cwd}/a.ts` },
    ],
    [
      { type: 'tool_result', tool_use_id: 'toolu_9', content: [{ type: 'text', text: `Available commands: /a /b in ${m.configHome}` }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] },
    ],
  ].slice(0, 1 + (n % 4));
  const msgId = `msg_01${n}${Math.floor(r() * 1e9)}`;
  const items = [
    { type: 'stream_event', event: { type: 'message_start', message: { id: msgId, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: 1200 + n, output_tokens: 1 } } }, ttftMs: 420 + n },
    { type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `Looking at ${cwd}` } } },
    { type: 'stream_event', event: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } } },
    {
      type: 'assistant', uuid: '4b6f2a1e-9d3c-4f5a-8b7e-1c2d3e4f5a6b', requestId: `req_011CS${n}`, timestamp: '2026-11-30T10:00:00.000Z', costUSD: 0.0123, durationMs: 2300,
      message: {
        id: msgId, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
        content: [
          { type: 'text', text: `I found the bug in ${cwd}/src/app.ts (num_files="3").` },
          { type: 'tool_use', id: `toolu_1${n}`, name: 'Edit', input: { file_path: `${cwd}/src/app.ts`, old_string: 'x = 1', new_string: 'x = 2', nested: { dir: `${m.configHome}/agents` } } },
          { type: 'text', text: 'cited', citations: null },
        ],
        stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 1200, output_tokens: 42 },
      },
    },
    { type: 'system', subtype: 'api_error', level: 'error', error: { status: 529 }, retryInMs: 500, timestamp: '2026-11-30T10:00:01.000Z', uuid: '5c6d7e8f-0a1b-4c2d-9e3f-4a5b6c7d8e9f' },
  ];
  return { contents, items };
}

function fixtureVectors() {
  const r = rng(7);
  const out = [];
  MACHINES.forEach((machine, mi) => {
    for (let n = 0; n < 4; n++) {
      const { contents, items } = recordedCall(r, machine, mi * 4 + n);
      const [seedName, seedText] = writeFixture(contents, items, machine);
      // What a harness that forgot to dehydrate would have written: raw values, 4-space
      // indent, a trailing newline, named after the raw input.
      const raw = JSON.stringify({ input: contents, output: items }, null, 4) + '\n';
      const rawName = `${contents.map((c) => sha1(JSON.stringify(c)).slice(0, 6)).join('-')}.json`;
      out.push({ machine, rawName, raw, seedName, seedText });
    }
  });
  return out;
}

const FILES = {
  'json.jsonl': jsonVectors,
  'dehydrate.jsonl': dehydrateVectors,
  'fixtures.jsonl': fixtureVectors,
};

function render(file) {
  return FILES[file]().map((v) => JSON.stringify(v)).join('\n') + '\n';
}

const dir = path.join(__dirname, '..', 'vectors');
if (process.argv[2] === '--print') {
  process.stdout.write(render(process.argv[3]));
} else {
  for (const file of Object.keys(FILES)) fs.writeFileSync(path.join(dir, file), render(file));
}
