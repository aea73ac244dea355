#!/usr/bin/env node
// Node reference for bench/run: the seed's rules applied to a Claude Code fixture tree, as
// Claude Code 2.1.88's VCR would apply them, to time `vcr normalize` and `vcr rehash` against.
//
// usage: node bench/normalize.js [--rehash] TREE
//
// Without --rehash (normalize): every fixture in TREE/fixtures is parsed and written back the
// way the seed's writer writes it. Message fixtures get `mapMessages(input, dehydrateValue)`
// on `input` and `mapMessage(item, dehydrateValue, index)` on each assistant item of `output`
// (`uuid: "UUID-<index>"`, `requestId: "REQUEST_ID"`, the seed's key order, other top-level
// fields dropped, `text` blocks dehydrated with `citations` kept or `[]`, `tool_use` inputs
// through `mapValuesDeep`); stream events and other items stay verbatim. Token-count fixtures
// are re-serialised. The text is `JSON.stringify(value, null, 2)` (no trailing newline), and a
// file is written only when its bytes change, as `vcr normalize` does. Names are not changed.
//
// With --rehash: every message fixture is named by the seed's scheme,
//   mapMessages(input, dehydrateValue).map(c => sha1(JSON.stringify(c)).slice(0, 6)).join('-')
// and renamed when its name differs. When the rules change the key material, the file is written
// under its new name with that `input` (the rest as stored) as `JSON.stringify(v, null, 2)`, as
// the harness would have written it and as `vcr rehash` does. Token-count fixtures cannot be
// re-keyed from their contents and are left alone.
//
// The rules' machine values are what vcr uses: [CWD] is $VCR_CWD, else TREE (the parent of
// fixtures/, where the harness ran); [CONFIG_HOME] is ($CLAUDE_CONFIG_DIR or ~/.claude), NFC.
// Unix rules only (no win32 step). Single-threaded and synchronous on purpose, like the seed.
// It prints one line, "<changed> of <total> fixtures rewritten" or "... re-keyed", and exits 0
// (2 on an unreadable tree).
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const MESSAGE_FIXTURE = /^[0-9a-f]{6}(-[0-9a-f]{6})*\.json$/;
const TOKEN_COUNT = /^token-count-[0-9a-f]{12}\.json$/;

function sha1(s) {
  return crypto.createHash('sha1').update(s).digest('hex');
}

// Claude Code 2.1.88 `dehydrateValue` (formats.md A.5), steps 1-6, 8 and 9; step 7 is win32 only.
function dehydrator(cwd, configHome) {
  const separators = m => m.replaceAll('\\\\', '/').replaceAll('\\', '/');
  return function dehydrateValue(s) {
    if (typeof s !== 'string') return s;
    let r = s
      .replace(/num_files="\d+"/g, 'num_files="[NUM]"')
      .replace(/duration_ms="\d+"/g, 'duration_ms="[DURATION]"')
      .replace(/cost_usd="\d+"/g, 'cost_usd="[COST]"')
      .replaceAll(configHome, '[CONFIG_HOME]')
      .replaceAll(cwd, '[CWD]')
      .replace(/Available commands:.+/, 'Available commands: [COMMANDS]');
    r = r.replace(/\[CWD\][^\s"'<>]*/g, separators).replace(/\[CONFIG_HOME\][^\s"'<>]*/g, separators);
    if (r.includes('Files modified by user:')) return 'Files modified by user: [FILES]';
    return r;
  };
}

function isPlainObject(v) {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}

// lodash `mapValues` over an array-like string or an object's own keys, as mapValuesDeep uses it.
function mapValuesDeep(obj, f) {
  const out = {};
  let keys = [];
  if (typeof obj === 'string') keys = Array.from({ length: obj.length }, (_, i) => String(i));
  else if (obj !== null && typeof obj === 'object') keys = Object.keys(obj);
  for (const key of keys) {
    const val = obj[key];
    out[key] = Array.isArray(val) ? val.map(x => mapValuesDeep(x, f))
      : isPlainObject(val) ? mapValuesDeep(val, f)
      : f(val, key, obj);
  }
  return out;
}

// `mapMessages` (formats.md A.4), 2.1.88.
function mapMessages(messages, f) {
  return messages.map(c => {
    if (typeof c === 'string') return f(c);
    return c.map(b => {
      switch (b.type) {
        case 'tool_result':
          if (typeof b.content === 'string') return { ...b, content: f(b.content) };
          if (Array.isArray(b.content)) {
            return {
              ...b,
              content: b.content.map(x =>
                x.type === 'text' ? { ...x, text: f(x.text) } : x.type === 'image' ? x : undefined),
            };
          }
          return b;
        case 'text':
          return { ...b, text: f(b.text) };
        case 'tool_use':
          return { ...b, input: mapValuesDeep(b.input, f) };
        case 'image':
          return b;
        default:
          return undefined;
      }
    });
  });
}

// `mapAssistantMessage` (formats.md A.3), 2.1.88.
function mapAssistantMessage(msg, f, index) {
  const content = Array.isArray(msg.message && msg.message.content)
    ? msg.message.content.map(b => {
      if (b && b.type === 'text') return { ...b, text: f(b.text), citations: b.citations || [] };
      if (b && b.type === 'tool_use') return { ...b, input: mapValuesDeep(b.input, f) };
      return b;
    }).filter(Boolean)
    : undefined;
  return {
    uuid: `UUID-${index}`,
    requestId: 'REQUEST_ID',
    timestamp: msg.timestamp,
    message: { ...msg.message, content },
    type: 'assistant',
  };
}

function mapOutput(output, f) {
  return output.map((item, i) => (item && item.type === 'assistant' ? mapAssistantMessage(item, f, i) : item));
}

function main() {
  const args = process.argv.slice(2);
  const rehash = args[0] === '--rehash';
  const tree = rehash ? args[1] : args[0];
  if (!tree) {
    process.stderr.write('usage: node normalize.js [--rehash] TREE\n');
    process.exit(2);
  }
  const cwd = process.env.VCR_CWD || path.resolve(tree);
  const configHome = (process.env.CLAUDE_CONFIG_DIR ?? path.join(os.homedir(), '.claude')).normalize('NFC');
  const dehydrateValue = dehydrator(cwd, configHome);
  const dir = path.join(tree, 'fixtures');
  let names;
  try {
    names = fs.readdirSync(dir).sort();
  } catch (e) {
    process.stderr.write(`normalize.js: cannot read ${dir}: ${e.message}\n`);
    process.exit(2);
  }
  let total = 0;
  let changed = 0;
  for (const name of names) {
    const message = MESSAGE_FIXTURE.test(name);
    if (!message && (rehash || !TOKEN_COUNT.test(name))) continue;
    total++;
    const file = path.join(dir, name);
    const text = fs.readFileSync(file, 'utf8');
    const value = JSON.parse(text);
    if (rehash) {
      const key = mapMessages(value.input, dehydrateValue);
      const computed = key.map(c => sha1(JSON.stringify(c)).slice(0, 6)).join('-') + '.json';
      if (JSON.stringify(key) !== JSON.stringify(value.input)) {
        // The rules changed the key material: the harness would have written it so.
        fs.writeFileSync(path.join(dir, computed), JSON.stringify({ ...value, input: key }, null, 2));
        if (computed !== name) fs.unlinkSync(file);
        changed++;
      } else if (computed !== name) {
        fs.renameSync(file, path.join(dir, computed));
        changed++;
      }
      continue;
    }
    const out = message
      ? { ...value, input: mapMessages(value.input, dehydrateValue), output: mapOutput(value.output, dehydrateValue) }
      : value;
    const written = JSON.stringify(out, null, 2);
    if (written !== text) {
      fs.writeFileSync(file, written);
      changed++;
    }
  }
  process.stdout.write(`${changed} of ${total} fixtures ${rehash ? 're-keyed' : 'rewritten'}\n`);
}

main();
