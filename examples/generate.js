#!/usr/bin/env node
// Writes the example trees with the seed's own writer (tests/oracle/seed.js):
//   examples/claude-code/      what Claude Code's VCR commits: dehydrated, canonical
//   examples/claude-code-raw/  the same calls from a harness that skipped dehydration,
//                              recorded in a container whose working directory was /workspace/app
// Run `node examples/generate.js` from the repository root after a format change.
'use strict';
const fs = require('fs');
const path = require('path');
const { writeFixture, sha1 } = require('../tests/oracle/seed.js');

const machine = { cwd: '/workspace/app', configHome: '/workspace/.claude', platform: 'linux' };
const cwd = machine.cwd;

function streamOf(id, blocks, stop, usage) {
  const events = [{ type: 'stream_event', event: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } }, ttftMs: 612 }];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      events.push({ type: 'stream_event', event: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const part of b.text.match(/.{1,24}/gs)) {
        events.push({ type: 'stream_event', event: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } } });
      }
    } else {
      events.push({ type: 'stream_event', event: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } } });
      events.push({ type: 'stream_event', event: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } } });
    }
    events.push({ type: 'stream_event', event: { type: 'content_block_stop', index } });
  });
  events.push({ type: 'stream_event', event: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } } });
  events.push({ type: 'stream_event', event: { type: 'message_stop' } });
  // One assistant item per content block; the last one carries the final usage.
  blocks.forEach((b, i) => {
    const last = i === blocks.length - 1;
    events.push({
      type: 'assistant', uuid: `9f8e7d6c-5b4a-4392-8a1b-0c9d8e7f6a5${i}`, requestId: 'req_011CVXkz7d4R2mYqg3Lw8aPn', timestamp: `2026-11-30T09:14:0${i}.418Z`,
      message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [b], stop_reason: last ? stop : null, stop_sequence: null, usage: last ? usage : { input_tokens: usage.input_tokens, output_tokens: 1 } },
    });
  });
  return events;
}

const prompt = `The test in ${cwd}/src/cart.test.ts fails since yesterday. Fix it.`;
const read = { type: 'tool_use', id: 'toolu_01HJ7mZk3fQp9Wd2Lx5Rn8Ty', name: 'Read', input: { file_path: `${cwd}/src/cart.ts` } };
const edit = { type: 'tool_use', id: 'toolu_01PqR4sT6uV8wX0yZ2aB4cD6', name: 'Edit', input: { file_path: `${cwd}/src/cart.ts`, old_string: 'return items.reduce((sum, i) => sum + i.price, 0);', new_string: 'return items.reduce((sum, i) => sum + i.price * i.quantity, 0);' } };
const bash = { type: 'tool_use', id: 'toolu_01EfG8hI0jK2lM4nO6pQ8rS0', name: 'Bash', input: { command: 'npm test -- src/cart.test.ts', description: 'Run the cart tests' } };

const turns = [];
const msgs = [prompt];
turns.push([msgs.slice(), streamOf('msg_01A1b2C3d4E5f6G7h8I9j0K1', [{ type: 'text', text: 'I will look at the cart total first.' }, read], 'tool_use', { input_tokens: 5210, output_tokens: 64 })]);
msgs.push([{ type: 'text', text: 'I will look at the cart total first.' }, read]);
msgs.push([{ type: 'tool_result', tool_use_id: read.id, content: `     1\texport function total(items: Item[]): number {\n     2\t  return items.reduce((sum, i) => sum + i.price, 0);\n     3\t}\n<system-reminder>num_files="12" in ${cwd}</system-reminder>` }]);
turns.push([msgs.slice(), streamOf('msg_01L2m3N4o5P6q7R8s9T0u1V2', [{ type: 'text', text: `total() ignores the quantity. I will fix ${cwd}/src/cart.ts.` }, edit], 'tool_use', { input_tokens: 5480, output_tokens: 131 })]);
msgs.push([{ type: 'text', text: `total() ignores the quantity. I will fix ${cwd}/src/cart.ts.` }, edit]);
msgs.push([{ type: 'tool_result', tool_use_id: edit.id, content: `The file ${cwd}/src/cart.ts has been updated.` }]);
turns.push([msgs.slice(), streamOf('msg_01W3x4Y5z6A7b8C9d0E1f2G3', [bash], 'tool_use', { input_tokens: 5702, output_tokens: 48 })]);
msgs.push([bash]);
msgs.push([{ type: 'tool_result', tool_use_id: bash.id, content: ' PASS  src/cart.test.ts\n  total\n    ✓ multiplies by quantity (3 ms)\n\nTests: 4 passed, 4 total' }]);
turns.push([msgs.slice(), streamOf('msg_01H4i5J6k7L8m9N0o1P2q3R4', [{ type: 'text', text: 'Fixed: total() now multiplies each price by its quantity, and the cart tests pass.' }], 'end_turn', { input_tokens: 5790, output_tokens: 27 })]);

function write(dir, files) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'fixtures'), { recursive: true });
  for (const [name, text] of files) fs.writeFileSync(path.join(dir, 'fixtures', name), text);
}

const root = __dirname;
const tokenKey = JSON.stringify({ messages: [{ role: 'user', content: prompt.replaceAll(cwd, '[CWD]') }], tools: [] });
const tokenName = `token-count-${sha1(JSON.stringify(tokenKey)).slice(0, 12)}.json`;
const token = [tokenName, JSON.stringify({ tokenCount: 5210 }, null, 2)];
write(path.join(root, 'claude-code'), [...turns.map(([c, items]) => writeFixture(c, items, machine)), token]);
write(path.join(root, 'claude-code-raw'), [...turns.map(([c, items]) => [
  `${c.map((x) => sha1(JSON.stringify(x)).slice(0, 6)).join('-')}.json`,
  JSON.stringify({ input: c, output: items }, null, 2),
]), token]);
fs.writeFileSync(path.join(root, 'claude-code-raw', 'vcr.toml'),
  '# This tree was recorded in a container whose working directory was /workspace/app.\n' +
  '# Tell vcr, so that `vcr normalize` can turn those paths into [CWD].\n' +
  '[claude-code]\ncwd = "/workspace/app"\nconfig-home = "/workspace/.claude"\n');
