// Polly (node-http adapter, fs persister): records (`mode: 'record'`) or replays
// (`mode: 'replay'`) the scenario into `<CASSETTE_DIR>/<scenario name>_<hash>/recording.har`.
//
// Usage: node polly.js record|replay SCENARIO.json CASSETTE_DIR
'use strict';

const { Polly } = require('@pollyjs/core');
const NodeHttpAdapter = require('@pollyjs/adapter-node-http');
const FSPersister = require('@pollyjs/persister-fs');
const scenario = require('./scenario');

Polly.register(NodeHttpAdapter);
Polly.register(FSPersister);

async function main([mode, scenarioPath, cassetteDir]) {
  const s = scenario.load(scenarioPath);
  const polly = new Polly(s.name, {
    adapters: ['node-http'],
    persister: 'fs',
    persisterOptions: { fs: { recordingsDir: cassetteDir } },
    mode: { record: 'record', replay: 'replay' }[mode],
    recordIfMissing: false,
    // An API error is an answer to record too (the `vcr diff` tests record a 429).
    recordFailedRequests: true,
    logLevel: 'silent',
  });
  const problems = await scenario.run(s);
  await polly.stop();
  scenario.report(problems);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
