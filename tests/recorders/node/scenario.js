// The scenario every node recorder test performs, sent with `http.request` (what Polly's
// node-http adapter and nock intercept). A scenario file (written by the Rust test, see
// tests/common/scenario.rs) names the server's base URL and lists the requests, each with the
// answer the client must see. `run` sends them in order and returns what went wrong; with
// `{ jsonByValue: true }` a JSON body that comes back reformatted is the same body (talkback
// keeps a JSON body as a value in its tape and replays it pretty-printed).
'use strict';

const fs = require('fs');
const http = require('http');
const zlib = require('zlib');

function load(path) {
  return JSON.parse(fs.readFileSync(path, 'utf8'));
}

function send(base, r) {
  return new Promise((resolve, reject) => {
    const body = r.body === null ? undefined : Buffer.from(r.body, 'utf8');
    const headers = Object.fromEntries(r.headers);
    if (body) headers['Content-Length'] = String(body.length);
    const req = http.request(base + r.target, { method: r.method, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// Whether two texts are the same JSON value, members in the same order.
function sameJson(a, b) {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

function check(r, res, { jsonByValue = false } = {}) {
  const expect = r.expect;
  const problems = [];
  if (res.status !== expect.status) {
    problems.push(`${r.name}: status ${res.status}, expected ${expect.status}`);
  }
  for (const [name, value] of Object.entries(expect.headers)) {
    const got = [].concat(res.headers[name] ?? []).join(', ');
    if (got !== value) problems.push(`${r.name}: header ${name} is ${JSON.stringify(got)}, expected ${JSON.stringify(value)}`);
  }
  // node never undoes a Content-Encoding.
  let body = res.body;
  if (body[0] === 0x1f && body[1] === 0x8b) body = zlib.gunzipSync(body);
  const text = body.toString('utf8');
  if (text !== expect.body && !(jsonByValue && sameJson(text, expect.body))) {
    problems.push(`${r.name}: body ${JSON.stringify(text)}, expected ${JSON.stringify(expect.body)}`);
  }
  return problems;
}

async function run(scenario, options = {}) {
  const problems = [];
  for (const r of scenario.requests) {
    try {
      problems.push(...check(r, await send(scenario.base, r), options));
    } catch (e) {
      problems.push(`${r.name}: ${e.message}`);
    }
  }
  return problems;
}

// Prints the problems on stderr and sets the exit code.
function report(problems) {
  for (const p of problems) console.error(p);
  process.exitCode = problems.length ? 1 : 0;
}

module.exports = { load, run, report };
