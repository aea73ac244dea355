// nock.back: records (mode `record`) or replays (mode `lockdown`: recorded answers only, no
// network) the scenario into `<CASSETTE_DIR>/<scenario name>.json`. The request headers are
// recorded too (`enable_reqheaders_recording`: without it a nock fixture holds none).
//
// Usage: node nock_back.js record|replay SCENARIO.json CASSETTE_DIR
'use strict';

const fs = require('fs');
const nock = require('nock');
const scenario = require('./scenario');

async function main([mode, scenarioPath, cassetteDir]) {
  const s = scenario.load(scenarioPath);
  fs.mkdirSync(cassetteDir, { recursive: true });
  nock.back.fixtures = cassetteDir;
  nock.back.setMode({ record: 'record', replay: 'lockdown' }[mode]);
  const { nockDone } = await nock.back(`${s.name}.json`, {
    recorder: { enable_reqheaders_recording: true },
  });
  const problems = await scenario.run(s);
  nockDone();
  scenario.report(problems);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
