#!/usr/bin/env node
// Node reference implementation of the seed's fixture naming, for bench/run.
//
// usage: node bench/naming.js TREE
//
// Reads every message fixture in TREE/fixtures (names matching
// /^[0-9a-f]{6}(-[0-9a-f]{6})*\.json$/), parses it, and names it as Claude Code's VCR does:
//   input.map(c => sha1(JSON.stringify(c)).slice(0, 6)).join('-') + '.json'
// It prints "<matching> of <total> names match" and exits 0 (2 on an unreadable tree).
// Single-threaded and synchronous on purpose, like the seed.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const MESSAGE_FIXTURE = /^[0-9a-f]{6}(-[0-9a-f]{6})*\.json$/;

function sha1(s) {
  return crypto.createHash('sha1').update(s).digest('hex');
}

function main() {
  const tree = process.argv[2];
  if (!tree) {
    process.stderr.write('usage: node naming.js TREE\n');
    process.exit(2);
  }
  const dir = path.join(tree, 'fixtures');
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    process.stderr.write(`naming.js: cannot read ${dir}: ${e.message}\n`);
    process.exit(2);
  }
  let total = 0;
  let matching = 0;
  for (const name of names) {
    if (!MESSAGE_FIXTURE.test(name)) continue;
    total++;
    const fixture = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    const computed = fixture.input.map(c => sha1(JSON.stringify(c)).slice(0, 6)).join('-') + '.json';
    if (computed === name) matching++;
  }
  process.stdout.write(`${matching} of ${total} names match\n`);
}

main();
