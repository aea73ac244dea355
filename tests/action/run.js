// Runs a composite action's steps as GitHub's runner does (tests/action.rs):
//
//   node run.js ACTION_DIR INPUTS.json > REPORT.json
//
// The inputs are the workflow's `with:` (strings); the environment is the job's, with the
// variables GitHub sets (GITHUB_EVENT_PATH, GITHUB_EVENT_NAME, GITHUB_STEP_SUMMARY,
// GITHUB_WORKSPACE, RUNNER_TEMP, ...). Each step's `if:` is evaluated (`success()` unless it
// says otherwise), `${{ }}` expressions in `env:`, `with:` and `working-directory` are filled
// in from `inputs`, `github` (the event payload under `github.event`), `steps` and `env`; a
// `run:` step runs in bash as GitHub runs it (`bash --noprofile --norc -eo pipefail`), with
// fresh GITHUB_OUTPUT, GITHUB_PATH and GITHUB_ENV files read back after it; a `uses:` step is
// not run (it is another action), only reported with its evaluated `with:`. The report lists
// every step (ran, skipped, exit code, outputs) and the action's outputs.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");
const YAML = require("yaml");

const [actionDir, inputsFile] = process.argv.slice(2);
const action = YAML.parse(fs.readFileSync(path.join(actionDir, "action.yml"), "utf8"));
if (action.runs.using !== "composite") {
  throw new Error("not a composite action");
}
const given = JSON.parse(fs.readFileSync(inputsFile, "utf8"));
for (const name of Object.keys(given)) {
  if (!(name in action.inputs)) {
    throw new Error(`the action has no input ${name}`);
  }
}

const env = { ...process.env };
const github = {
  event_name: env.GITHUB_EVENT_NAME,
  event: env.GITHUB_EVENT_PATH ? JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, "utf8")) : {},
  token: env.GITHUB_TOKEN || "",
  repository: env.GITHUB_REPOSITORY || "",
  action_path: actionDir,
  action_ref: env.VCR_TEST_ACTION_REF || "",
  action_repository: env.VCR_TEST_ACTION_REPOSITORY || "",
  workspace: env.GITHUB_WORKSPACE,
  server_url: env.GITHUB_SERVER_URL || "https://github.com",
  api_url: env.GITHUB_API_URL || "https://api.github.com",
};
const steps = {};
const context = () => ({ inputs, github, steps, env });

// Expressions: literals, property paths, ==, !=, !, &&, ||, parentheses, and the status
// functions; what action.yml uses.
function evaluate(text, failed) {
  const tokens = text.match(/'(?:[^']|'')*'|==|!=|&&|\|\||[()!]|[A-Za-z_][\w.-]*(?:\(\))?|\d+/g) || [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  function or() {
    let left = and();
    while (peek() === "||") { next(); const right = and(); left = truthy(left) ? left : right; }
    return left;
  }
  function and() {
    let left = compare();
    while (peek() === "&&") { next(); const right = compare(); left = truthy(left) ? right : left; }
    return left;
  }
  function compare() {
    let left = unary();
    while (peek() === "==" || peek() === "!=") {
      const op = next();
      const right = unary();
      const equal = String(left ?? "").toLowerCase() === String(right ?? "").toLowerCase();
      left = op === "==" ? equal : !equal;
    }
    return left;
  }
  function unary() {
    if (peek() === "!") { next(); return !truthy(unary()); }
    return primary();
  }
  function primary() {
    const token = next();
    if (token === "(") { const value = or(); next(); return value; }
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (token === "true" || token === "false") return token === "true";
    if (/^\d+$/.test(token)) return Number(token);
    if (token === "always()") return true;
    if (token === "success()") return !failed;
    if (token === "failure()") return failed;
    if (token === "cancelled()") return false;
    let value = context();
    for (const key of token.split(".")) value = value == null ? undefined : value[key];
    return value;
  }
  const value = or();
  if (at !== tokens.length) throw new Error(`cannot read the expression ${text}`);
  return value;
}

function truthy(value) {
  return !(value === false || value === 0 || value === "" || value == null);
}

function fill(text, failed) {
  if (typeof text !== "string") return text;
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr) => {
    const value = evaluate(expr.trim(), failed);
    return value == null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}

const inputs = {};
for (const [name, spec] of Object.entries(action.inputs || {})) {
  inputs[name] = name in given ? String(given[name]) : fill(String(spec.default ?? ""), false);
}

const report = { steps: [], outputs: {} };
let failed = false;
for (const [i, step] of action.runs.steps.entries()) {
  const id = step.id || `__${i}`;
  // As GitHub does: `success()` and the condition, unless it names a status function.
  let condition = step.if == null ? "success()" : String(step.if).replace(/^\$\{\{|\}\}$/g, "");
  if (!/\b(always|success|failure|cancelled)\(\)/.test(condition)) {
    condition = `success() && (${condition})`;
  }
  const entry = { name: step.name, id: step.id || null };
  if (!truthy(evaluate(condition, failed))) {
    entry.skipped = true;
    steps[id] = { outputs: {}, outcome: "skipped", conclusion: "skipped" };
    report.steps.push(entry);
    continue;
  }
  if (step.uses) {
    entry.uses = step.uses;
    entry.with = Object.fromEntries(Object.entries(step.with || {}).map(([k, v]) => [k, fill(v, failed)]));
    steps[id] = { outputs: {}, outcome: "success", conclusion: "success" };
    report.steps.push(entry);
    continue;
  }
  const files = fs.mkdtempSync(path.join(os.tmpdir(), "vcr-step-"));
  const output = path.join(files, "output");
  const addPath = path.join(files, "path");
  const addEnv = path.join(files, "env");
  for (const f of [output, addPath, addEnv]) fs.writeFileSync(f, "");
  const stepEnv = { ...env, GITHUB_ACTION_PATH: actionDir, GITHUB_OUTPUT: output, GITHUB_PATH: addPath, GITHUB_ENV: addEnv };
  for (const [k, v] of Object.entries(step.env || {})) stepEnv[k] = fill(String(v), failed);
  const script = path.join(files, "script.sh");
  fs.writeFileSync(script, fill(step.run, failed));
  const cwd = path.resolve(env.GITHUB_WORKSPACE, fill(step["working-directory"] || ".", failed));
  const ran = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
    cwd,
    env: stepEnv,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  entry.exit = ran.status;
  entry.stdout = ran.stdout;
  entry.stderr = ran.stderr;
  process.stderr.write(`--- ${step.name}\n${ran.stdout}${ran.stderr}`);
  const outputs = {};
  const lines = fs.readFileSync(output, "utf8").split("\n");
  for (let k = 0; k < lines.length; k++) {
    const heredoc = lines[k].match(/^([^=<]+)<<(.+)$/);
    if (heredoc) {
      const body = [];
      while (++k < lines.length && lines[k] !== heredoc[2]) body.push(lines[k]);
      outputs[heredoc[1]] = body.join("\n");
    } else if (lines[k].includes("=")) {
      const at = lines[k].indexOf("=");
      outputs[lines[k].slice(0, at)] = lines[k].slice(at + 1);
    }
  }
  entry.outputs = outputs;
  for (const dir of fs.readFileSync(addPath, "utf8").split("\n").filter(Boolean).reverse()) {
    env.PATH = `${dir}${path.delimiter}${env.PATH}`;
  }
  for (const line of fs.readFileSync(addEnv, "utf8").split("\n").filter(Boolean)) {
    const at = line.indexOf("=");
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  const outcome = ran.status === 0 ? "success" : "failure";
  if (outcome === "failure") failed = true;
  steps[id] = { outputs, outcome, conclusion: outcome };
  report.steps.push(entry);
}
for (const [name, spec] of Object.entries(action.outputs || {})) {
  report.outputs[name] = fill(spec.value, failed);
}
report.failed = failed;
process.stdout.write(JSON.stringify(report, null, 2));
