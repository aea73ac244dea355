// The seed's own logic, transcribed from Claude Code 2.1.88 `src/services/vcr.ts`
// (`dehydrateValue`, `mapMessages`, `mapValuesDeep`, `mapAssistantMessage`, the fixture
// name) so that node's JavaScript engine, not our reading of it, decides the expected bytes.
// Only the platform test is a parameter instead of `process.platform`.
'use strict';
const crypto = require('crypto');

function dehydrateValue(s, m) {
  if (typeof s !== 'string') return s;
  const cwd = m.cwd;
  const configHome = m.configHome;
  let s1 = s
    .replace(/num_files="\d+"/g, 'num_files="[NUM]"')
    .replace(/duration_ms="\d+"/g, 'duration_ms="[DURATION]"')
    .replace(/cost_usd="\d+"/g, 'cost_usd="[COST]"')
    .replaceAll(configHome, '[CONFIG_HOME]')
    .replaceAll(cwd, '[CWD]')
    .replace(/Available commands:.+/, 'Available commands: [COMMANDS]');
  if (m.platform === 'win32') {
    const cwdFwd = cwd.replaceAll('\\', '/');
    const configHomeFwd = configHome.replaceAll('\\', '/');
    const cwdJsonEscaped = JSON.stringify(cwd).slice(1, -1);
    const configHomeJsonEscaped = JSON.stringify(configHome).slice(1, -1);
    s1 = s1
      .replaceAll(cwdJsonEscaped, '[CWD]')
      .replaceAll(configHomeJsonEscaped, '[CONFIG_HOME]')
      .replaceAll(cwdFwd, '[CWD]')
      .replaceAll(configHomeFwd, '[CONFIG_HOME]');
  }
  s1 = s1
    .replace(/\[CWD\][^\s"'<>]*/g, (match) => match.replaceAll('\\\\', '/').replaceAll('\\', '/'))
    .replace(/\[CONFIG_HOME\][^\s"'<>]*/g, (match) => match.replaceAll('\\\\', '/').replaceAll('\\', '/'));
  if (s1.includes('Files modified by user:')) return 'Files modified by user: [FILES]';
  return s1;
}

// lodash isPlainObject / mapValues, for the values JSON can hold.
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function mapValues(obj, fn) {
  const out = {};
  if (obj == null) return out;
  for (const key of Object.keys(Object(obj))) out[key] = fn(Object(obj)[key], key, obj);
  return out;
}
function mapValuesDeep(obj, f) {
  return mapValues(obj, (val, key, o) =>
    Array.isArray(val) ? val.map((x) => mapValuesDeep(x, f))
      : isPlainObject(val) ? mapValuesDeep(val, f)
        : f(val, key, o));
}

function mapMessages(contents, f) {
  return contents.map((c) => {
    if (typeof c === 'string') return f(c);
    return c.map((b) => {
      switch (b.type) {
        case 'tool_result':
          if (typeof b.content === 'string') return { ...b, content: f(b.content) };
          if (Array.isArray(b.content)) {
            return {
              ...b,
              content: b.content.map((x) => x.type === 'text' ? { ...x, text: f(x.text) } : x.type === 'image' ? x : undefined),
            };
          }
          return b;
        case 'text': return { ...b, text: f(b.text) };
        case 'tool_use': return { ...b, input: mapValuesDeep(b.input, f) };
        case 'image': return b;
        default: return undefined;
      }
    });
  });
}

function mapAssistantMessage(msg, f, index) {
  return {
    uuid: `UUID-${index}`,
    requestId: 'REQUEST_ID',
    timestamp: msg.timestamp,
    message: {
      ...msg.message,
      content: msg.message.content.map((b) => {
        switch (b.type) {
          case 'text': return { ...b, text: f(b.text), citations: b.citations || [] };
          case 'tool_use': return { ...b, input: mapValuesDeep(b.input, f) };
          default: return b;
        }
      }).filter(Boolean),
    },
    type: 'assistant',
  };
}

function mapMessage(m, f, index) {
  return m.type === 'assistant' ? mapAssistantMessage(m, f, index) : m;
}

const sha1 = (s) => crypto.createHash('sha1').update(s).digest('hex');

// What `withStreamingVCR` writes for a call whose API message contents are `contents` and
// whose generator yielded `items`: [file name, file text].
function writeFixture(contents, items, machine) {
  const f = (s) => dehydrateValue(s, machine);
  const input = mapMessages(contents, f);
  const name = `${input.map((c) => sha1(JSON.stringify(c)).slice(0, 6)).join('-')}.json`;
  const text = JSON.stringify({ input, output: items.map((m, i) => mapMessage(m, f, i)) }, null, 2);
  return [name, text];
}

module.exports = { dehydrateValue, writeFixture, sha1 };
