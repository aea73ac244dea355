#!/usr/bin/env node
// The oracle of tests/js_regex.rs: what JavaScript makes of each pattern on each text.
//
// Reads one JSON case per line on stdin, {"pattern", "flags", "text", "replacement"}, and
// writes one JSON answer per line: {"exec": [match, group1, ...] | null, "all": the text
// after replace with the `g` flag, "first": after replace without it}, or {"error": message}
// when `new RegExp` throws. Groups that did not take part are null.
'use strict';
const readline = require('readline');

const lines = readline.createInterface({ input: process.stdin });
const out = [];
lines.on('line', (line) => {
  const { pattern, flags, text, replacement } = JSON.parse(line);
  let answer;
  try {
    const first = new RegExp(pattern, flags);
    const all = new RegExp(pattern, flags + 'g');
    const m = first.exec(text);
    answer = {
      exec: m === null ? null : Array.from(m, (g) => (g === undefined ? null : g)),
      all: text.replace(all, replacement),
      first: text.replace(first, replacement),
    };
  } catch (e) {
    answer = { error: String(e) };
  }
  out.push(JSON.stringify(answer));
});
lines.on('close', () => process.stdout.write(out.join('\n') + '\n'));
