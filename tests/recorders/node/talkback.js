// talkback, a recording HTTP proxy: the scenario's requests are sent to talkback, which
// forwards each one to the scenario's server and saves it as a tape (`record: NEW`), or
// answers it from a tape alone (`record: DISABLED`, where a request no tape matches gets a
// 404). Tapes are talkback's own: `<CASSETTE_DIR>/unnamed-<time in ms>.json5`, one per request.
// talkback keeps a JSON body as a value and replays it pretty-printed, so JSON answers are
// checked by value.
//
// Usage: node talkback.js record|replay SCENARIO.json CASSETTE_DIR
'use strict';

const talkback = require('talkback');
const scenario = require('./scenario');

async function main([mode, scenarioPath, cassetteDir]) {
  const s = scenario.load(scenarioPath);
  const { RecordMode, FallbackMode } = talkback.Options;
  const proxy = talkback({
    host: s.base,
    path: cassetteDir,
    port: 0, // any free port: tests run in parallel
    record: { record: RecordMode.NEW, replay: RecordMode.DISABLED }[mode],
    fallbackMode: FallbackMode.NOT_FOUND,
    silent: true,
    summary: false,
    // Changes nothing, but with a response decorator set talkback gives a replayed body its
    // own `Content-Length`; without one, a gzip body it stored uncompressed is sent with the
    // length of the uncompressed text, and the client waits for bytes that never come.
    responseDecorator: (tape) => tape,
  });
  const server = await proxy.start();
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const problems = await scenario.run({ ...s, base }, { jsonByValue: true });
  await new Promise((resolve) => proxy.close(resolve));
  scenario.report(problems);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
