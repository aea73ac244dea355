// WireMock standalone (the jar the `wiremock` npm package bundles, run with `java -jar`), a
// recording proxy. Record: WireMock starts on `<CASSETTE_DIR>` as its root folder, its record
// API (`POST /__admin/recordings/start` with `targetBaseUrl`, the scenario's server) proxies
// the scenario's requests and keeps them, and `POST /__admin/recordings/stop` writes one stub
// mapping a request, `<CASSETTE_DIR>/mappings/<path words>-<id>.json`, with the bodies it
// extracts (a text over 512 bytes, any binary one) in `<CASSETTE_DIR>/__files/`. The request's
// `Authorization` and `Content-Type` headers are captured (`captureHeaders`), so a stub
// matches on them. Replay: WireMock starts on the same root folder, no proxy, and answers
// from the mappings alone (a request no stub matches gets a 404).
//
// Usage: node wiremock.js record|replay SCENARIO.json CASSETTE_DIR
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const scenario = require('./scenario');

// The standalone jar inside the npm package.
function jar() {
  const build = path.join(path.dirname(require.resolve('wiremock/package.json')), 'build');
  const name = fs.readdirSync(build).find((f) => /^wiremock-standalone-.*\.jar$/.test(f));
  if (!name) throw new Error(`no wiremock-standalone jar in ${build}`);
  return path.join(build, name);
}

// Starts WireMock on any free port (tests run in parallel) with `rootDir` as its root folder;
// resolves once it says which port it listens on.
function start(rootDir) {
  const java = spawn('java', ['-jar', jar(), '--port', '0', '--root-dir', rootDir, '--disable-banner'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const port = /^port:\s+(\d+)/m.exec(output);
      if (port) {
        java.stdout.off('data', onData);
        java.stdout.resume();
        resolve({ java, base: `http://127.0.0.1:${port[1]}` });
      }
    };
    java.stdout.on('data', onData);
    java.stderr.on('data', (chunk) => {
      output += chunk;
    });
    java.on('error', reject);
    java.on('exit', (code) => reject(new Error(`WireMock exited (${code}) before it listened:\n${output}`)));
  });
}

async function admin(base, method, route, body) {
  const res = await fetch(`${base}/__admin/${route}`, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /__admin/${route}: ${res.status} ${text}`);
  return text;
}

// `POST /__admin/shutdown`, then waits for the JVM to exit.
async function stop({ java, base }) {
  const exited = new Promise((resolve) => java.once('exit', resolve));
  await admin(base, 'POST', 'shutdown');
  await exited;
}

async function main([mode, scenarioPath, cassetteDir]) {
  const s = scenario.load(scenarioPath);
  if (!['record', 'replay'].includes(mode)) throw new Error(`unknown mode ${mode}`);
  fs.mkdirSync(cassetteDir, { recursive: true });
  const wiremock = await start(cassetteDir);
  let problems;
  try {
    if (mode === 'record') {
      await admin(wiremock.base, 'POST', 'recordings/start', {
        targetBaseUrl: s.base,
        captureHeaders: { Authorization: {}, 'Content-Type': {} },
        // A text body over 512 bytes (the scenario's event stream) goes to `__files/`, the
        // others stay in their mapping.
        extractBodyCriteria: { textSizeThreshold: '512', binarySizeThreshold: '0' },
      });
    }
    problems = await scenario.run({ ...s, base: wiremock.base });
    if (mode === 'record') await admin(wiremock.base, 'POST', 'recordings/stop');
  } finally {
    await stop(wiremock);
  }
  scenario.report(problems);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
