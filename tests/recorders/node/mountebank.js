// mountebank (`mb`, the `@mbtest/mountebank` npm package), a recording proxy. Record: mb
// starts, an HTTP imposter whose one stub proxies to the scenario's server (`proxyAlways`,
// with predicate generators on the method, path, query, body and `Authorization` header)
// takes the scenario's requests, and `mb save --removeProxies` writes what the proxy learnt,
// one stub a request, to `<CASSETTE_DIR>/mb.json` (mb's export: `{"imposters": [...]}`, what
// `GET /imposters?replayable=true` gives). Replay: mb starts with that file as its
// `--configfile` (`--noParse`: a recorded body is no EJS template), so the imposter listens on
// the port it had when recording, and answers from the saved stubs alone (a request none
// matches gets mb's default answer, an empty 200). mb keeps a JSON body as a value and sends
// it pretty-printed, when proxying as when replaying, so JSON answers are checked by value.
//
// Usage: node mountebank.js record|replay SCENARIO.json CASSETTE_DIR
'use strict';

const { spawn, execFile } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const scenario = require('./scenario');

const MB = path.join(path.dirname(require.resolve('@mbtest/mountebank/package.json')), 'bin', 'mb');

// A port no one listens on now (mb takes a port number, not 0).
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Runs `mb COMMAND ARGS...` with its pid file in `work` (never the project's folder).
function mb(work, args) {
  return spawn(process.execPath, [MB, ...args, '--pidfile', path.join(work, 'mb.pid')], {
    cwd: work,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

// Starts mb on a free port, resolves once its API answers.
async function start(work, extra) {
  const port = await freePort();
  const child = mb(work, ['start', '--port', String(port), '--localOnly', '--nologfile', '--loglevel', 'warn', ...extra]);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  let exited = null;
  child.once('exit', (code) => (exited = code));
  const api = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (exited !== null) throw new Error(`mb exited (${exited}) before it listened:\n${output}`);
    try {
      const res = await fetch(`${api}/imposters`);
      if (res.ok) return { child, api, port, output: () => output };
    } catch {
      // not listening yet
    }
    if (tries > 600) throw new Error(`mb did not listen in 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop({ child }) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function api(base, method, route, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return JSON.parse(text);
}

function save(work, port, savefile) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [MB, 'save', '--port', String(port), '--savefile', savefile, '--removeProxies'],
      { cwd: work },
      (error, stdout, stderr) => (error ? reject(new Error(`mb save: ${error.message}\n${stdout}${stderr}`)) : resolve()),
    );
  });
}

async function main([mode, scenarioPath, cassetteDir]) {
  const s = scenario.load(scenarioPath);
  if (!['record', 'replay'].includes(mode)) throw new Error(`unknown mode ${mode}`);
  const savefile = path.resolve(cassetteDir, 'mb.json');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-'));
  let problems;
  let server;
  try {
    if (mode === 'record') {
      fs.mkdirSync(cassetteDir, { recursive: true });
      server = await start(work, []);
      const imposter = await api(server.api, 'POST', '/imposters', {
        protocol: 'http',
        name: s.name,
        stubs: [
          {
            responses: [
              {
                proxy: {
                  to: s.base,
                  mode: 'proxyAlways',
                  predicateGenerators: [
                    { matches: { method: true, path: true, query: true, body: true, headers: { Authorization: true } } },
                  ],
                },
              },
            ],
          },
        ],
      });
      problems = await scenario.run({ ...s, base: `http://127.0.0.1:${imposter.port}` }, { jsonByValue: true });
      await save(work, server.port, savefile);
    } else {
      const { imposters } = JSON.parse(fs.readFileSync(savefile, 'utf8'));
      server = await start(work, ['--configfile', savefile, '--noParse']);
      problems = await scenario.run({ ...s, base: `http://127.0.0.1:${imposters[0].port}` }, { jsonByValue: true });
    }
  } finally {
    if (server) await stop(server);
    fs.rmSync(work, { recursive: true, force: true });
  }
  scenario.report(problems);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
