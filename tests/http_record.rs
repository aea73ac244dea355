//! `vcr record` on trees of HTTP cassettes (issue 21): the recorders are put in record mode
//! where that can be done from outside the test code, and a run that could not have
//! recorded is never a success.
//!
//! pytest-recording replays only unless pytest is given `--record-mode`, so a `vcr record --
//! pytest` that did not pass it would replay, record nothing and claim so: these tests run
//! the real plugin (from `tests/recorders/install`) against the test server. nock reads
//! `NOCK_BACK_MODE` when it loads: a real node process shows the mode nock took. httprr has
//! no switch vcr can set, so a run over its cassettes that recorded nothing is an error that
//! says what to pass.

use crate::common;

use std::process::Command;

use common::TestDir;
use common::recorders::{Recorder, available, installed, programs, python};
use common::scenario::Scenario;
use common::server::{Received, Server};

/// The pytest-recording project of `tests/recorders/python`: one test under
/// `@pytest.mark.vcr`, its cassette `tests/cassettes/test_scenario/test_scenario.yaml`.
fn pytest_project() -> TestDir {
    let t = TestDir::new();
    for file in ["scenario.py", "test_scenario.py"] {
        let source = programs().join("python").join(file);
        t.write(&format!("tests/{file}"), std::fs::read(source).unwrap());
    }
    t
}

const CASSETTE: &str = "tests/cassettes/test_scenario/test_scenario.yaml";

/// Runs `vcr args... -- python -m pytest ...` in `t` over `scenario` (`args` ending in `--`:
/// through `sh -c`): against a
/// fresh server, or, given the URL of one that is gone, with nothing listening there (only
/// a cassette can answer). Returns the run, the scenario's URL and what the server received.
fn record_with_pytest(
    t: &TestDir,
    scenario: &Scenario,
    args: &[&str],
    gone: Option<&str>,
) -> (common::Run, String, Vec<Received>) {
    let harness = TestDir::new();
    let server = gone
        .is_none()
        .then(|| Server::start_with(scenario.answers()));
    let base_url = match &server {
        Some(server) => server.base_url(),
        None => gone.unwrap().to_owned(),
    };
    harness.write("scenario.json", scenario.to_json(&base_url));
    let pytest = format!(
        "{} -m pytest -q -p no:cacheprovider tests/test_scenario.py",
        python().display()
    );
    let mut argv: Vec<&str> = args.to_vec();
    // `sh -c` stands for a runner (`make test`, `tox`): pytest is not the command itself.
    match args.last() {
        Some(&"--") => argv.extend(["sh", "-c", &pytest]),
        _ => {
            argv.push("--");
            argv.extend(pytest.split(' '));
        }
    }
    let scenario_file = harness.path("scenario.json");
    let mut cmd = t.command(
        &argv,
        &[
            ("RECORDER_SCENARIO", scenario_file.to_str().unwrap()),
            ("PYTHONDONTWRITEBYTECODE", "1"),
        ],
    );
    without_proxy(&mut cmd);
    let run = common::Run::from(cmd.output().unwrap());
    let received = server.map(Server::stop).unwrap_or_default();
    (run, base_url, received)
}

/// The server is on 127.0.0.1: no proxy may stand between.
fn without_proxy(cmd: &mut Command) {
    for key in ["http_proxy", "https_proxy", "all_proxy"] {
        cmd.env_remove(key).env_remove(key.to_ascii_uppercase());
    }
}

#[test]
fn pytest_recording_records_a_missing_cassette_and_records_again_with_only() {
    if !available(Recorder::PytestRecording) {
        return;
    }
    let t = pytest_project();
    // Where the plugin is declared, vcr knows which option puts it in record mode.
    t.write("requirements-dev.txt", "pytest-recording==0.15.0\n");
    let scenario = Scenario::clean();
    let (run, url, received) = record_with_pytest(&t, &scenario, &["record"], None);
    run.code(0)
        .stderr_has("note: pytest-recording: `--record-mode=once` added to the command")
        .stdout_has("recorded: 1 added");
    assert_eq!(received.len(), 3, "the run recorded against the server");
    assert!(t.exists(CASSETTE), "{:?}", t.files("tests").keys());

    // Again, with the server gone: the cassette is there, so pytest replays it.
    let (run, _, _) = record_with_pytest(&t, &scenario, &["record"], Some(&url));
    run.code(0).stdout_has("recorded: 0 added, 0 changed");

    // `--only` moves it aside: recorded again from a server.
    let (run, _, received) = record_with_pytest(
        &t,
        &scenario,
        &["record", "--only", "tests/cassettes/**"],
        None,
    );
    run.code(0);
    assert_eq!(received.len(), 3, "{}{}", run.stdout, run.stderr);
    assert!(t.exists(CASSETTE));

    // Behind a runner, the option goes to pytest through `PYTEST_ADDOPTS`.
    std::fs::remove_file(t.path(CASSETTE)).unwrap();
    let (run, _, received) = record_with_pytest(&t, &scenario, &["record", "--"], None);
    run.code(0)
        .stderr_has("`--record-mode=once` added to `PYTEST_ADDOPTS`")
        .stdout_has("recorded: 1 added");
    assert_eq!(received.len(), 3);
}

#[test]
fn pytest_recording_without_its_option_fails_instead_of_claiming_nothing_changed() {
    if !available(Recorder::PytestRecording) {
        return;
    }
    // The plugin is declared nowhere vcr looks: it cannot add the option, and the plugin's
    // default (`none`) cannot record the missing cassette. The run fails, and says so.
    let t = pytest_project();
    let scenario = Scenario::clean();
    let (run, _, received) = record_with_pytest(&t, &scenario, &["record"], None);
    assert_ne!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(received.is_empty(), "{received:?}");
    assert!(run.stderr.contains("not recorded") || run.stdout.contains("not recorded"));
}

#[test]
fn a_failed_run_over_go_vcr_cassettes_says_where_the_record_mode_is_set() {
    // `false` stands for a `go test` whose recorder replays only and failed on the cassette
    // `--only` moved aside.
    let t = TestDir::new();
    t.write(
        "fixtures/models.yaml",
        "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    body: \"\"\n    form: {}\n    headers: {}\n    url: https://api.example.com/v1/models\n    method: GET\n  response:\n    body: '{}'\n    headers: {}\n    status: 200 OK\n    code: 200\n    duration: 1ms\n",
    );
    t.vcr(&["record", "--only", "fixtures/*", "--", "false"])
        .code(1)
        .stderr_has("note: if go-vcr did not record a missing cassette, set its record mode: the recorder's mode in the test code");
    assert!(t.exists("fixtures/models.yaml"), "put back");
}

/// An httprr trace as httprr writes it: the magic line, then `N M` and a raw request of N
/// bytes and a raw response of M bytes.
fn httprr_trace() -> String {
    let request = "GET http://127.0.0.1/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
    format!(
        "httprr trace v1\n{} {}\n{request}{response}",
        request.len(),
        response.len()
    )
}

#[test]
fn httprr_needs_its_flag_and_a_run_that_recorded_nothing_says_so() {
    let t = TestDir::new();
    t.write("pkg/testdata/models.httprr", httprr_trace());
    // `true` stands for a `go test` that replayed: green, nothing written.
    let run = t.vcr(&["record", "--", "true"]);
    run.code(2)
        .stderr_has("warning: httprr (1 cassette such as `pkg/testdata/models.httprr`)")
        .stderr_has("nothing was recorded, and vcr could not put this recorder in record mode")
        .stderr_has("-httprecord=.");
    // The command names the flag: vcr trusts it, and nothing recorded is then an answer.
    t.vcr(&["record", "--", "true", "-httprecord=."])
        .code(0)
        .stdout_has("recorded: 0 added, 0 changed, 0 removed, 1 unchanged");
    // So does a `[record] env` of the project's own.
    t.write("vcr.toml", "[record]\nenv = { RECORD = \"1\" }\n");
    t.vcr(&["record", "--", "true"]).code(0);
}

#[test]
fn nock_takes_record_mode_from_the_variable_vcr_sets() {
    if !available(Recorder::Nock) {
        return;
    }
    let t = TestDir::new();
    t.write(
        "package.json",
        "{\n  \"devDependencies\": { \"nock\": \"14.0.9\" }\n}\n",
    )
    .write(
        "mode.js",
        "const nock = require('nock');\nconsole.log(`nock back mode: ${nock.back.currentMode}`);\n",
    );
    let node_modules = installed().join("node/node_modules");
    let node_path = node_modules.to_str().unwrap();
    t.vcr_with(
        &["record", "--", "node", "mode.js"],
        &[("NODE_PATH", node_path)],
    )
    .code(0)
    .stderr_has("note: nock: `NOCK_BACK_MODE=record` added to the environment")
    .stdout_has("nock back mode: record");
    // A mode the user set is theirs.
    t.vcr_with(
        &["record", "--", "node", "mode.js"],
        &[("NODE_PATH", node_path), ("NOCK_BACK_MODE", "wild")],
    )
    .code(0)
    .stdout_has("nock back mode: wild");
}

#[test]
fn record_scrubs_the_keys_the_suite_did_not_filter() {
    if !available(Recorder::PytestRecording) {
        return;
    }
    // A suite with no `filter_headers` of its own records its live keys as it sends them
    // (the scenario's keys stand for the ones a suite reads from its environment).
    let t = pytest_project();
    t.write("requirements-dev.txt", "pytest-recording==0.15.0\n");
    let scenario = Scenario::leaky();
    let (run, _, received) = record_with_pytest(&t, &scenario, &["record"], None);
    assert!(!received.is_empty(), "the run recorded against the server");
    // The home folder the server echoes is still an error finding (it is no secret to
    // replace), so the run exits 1; the keys are gone all the same.
    run.code(1)
        .stdout_has(&format!("scrubbed {CASSETTE}:"))
        .stdout_has("replay tests/cassettes/test_scenario/test_scenario.yaml: interaction 0: the recorder matches requests by the query parameter `api_key`")
        .stdout_has("; scrubbed ")
        .stdout_has(" (1 value the recorder matches requests by)");
    assert!(t.exists(CASSETTE));
    for (rel, bytes) in t.files("tests") {
        for text in crate::http_scrub::decoded_texts(&bytes) {
            for (place, secret) in &scenario.secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "the {place} is still in {rel} after `vcr record`"
                );
            }
        }
    }
    // The same rules as `normalize`: nothing more for it to do.
    t.vcr(&["normalize", "--check"]).code(0);

    // The JSON summary counts what was scrubbed.
    std::fs::remove_file(t.path(CASSETTE)).unwrap();
    let (run, url, _) = record_with_pytest(&t, &scenario, &["record", "--format", "json"], None);
    run.code(1);
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(out["summary"]["scrubbed"].as_u64().unwrap() >= 6, "{out:#}");
    assert_eq!(out["summary"]["replay_affected"], 1, "{out:#}");

    // pytest-recording replays what `record` kept, with the server gone, once the test
    // filters the scrubbed query parameter as the note says.
    let placeholders = [
        ("Authorization header", "REDACTED_AUTHORIZATION"),
        ("x-api-key header", "REDACTED_X_API_KEY"),
        ("api_key query parameter", "REDACTED_API_KEY"),
        ("access_token in the gzip response", "REDACTED_ACCESS_TOKEN"),
        ("session cookie", "REDACTED_SESSION"),
    ];
    let mut replayed = scenario.clone();
    for exchange in &mut replayed.exchanges {
        for (place, secret) in &scenario.secrets {
            let Some((_, placeholder)) = placeholders.iter().find(|(p, _)| p == place) else {
                continue;
            };
            exchange.seen = exchange.seen.replace(secret.as_str(), placeholder);
            for (_, value) in &mut exchange.reply.headers {
                *value = value.replace(secret.as_str(), placeholder);
            }
        }
    }
    let harness = TestDir::new();
    let mut file: serde_json::Value = serde_json::from_str(&replayed.to_json(&url)).unwrap();
    file["filters"] = serde_json::json!({ "query": [["api_key", "REDACTED_API_KEY"]] });
    harness.write("scenario.json", file.to_string());
    let mut pytest = Command::new(python());
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(["tests/test_scenario.py", "--record-mode=none"])
        .current_dir(t.path(""))
        .env("RECORDER_SCENARIO", harness.path("scenario.json"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    without_proxy(&mut pytest);
    let replay = common::Run::from(pytest.output().unwrap());
    assert_eq!(
        replay.code,
        Some(0),
        "pytest-recording did not replay what `vcr record` kept:\n{}{}",
        replay.stdout,
        replay.stderr
    );
}

#[test]
fn an_http_only_project_gets_no_claude_code_or_dsh_variable() {
    // What the harness saw, written where the test can read it.
    let harness = "env | grep -E '^(VCR_RECORD|DSH_SNAPSHOT)=' | sort > seen.txt; true";
    let t = TestDir::new();
    t.write(
        "tests/cassettes/test_api/test_models.yaml",
        "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://api.example.com/v1/models\n  response:\n    body:\n      string: '{}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
    );
    t.vcr(&["record", "--", "sh", "-c", harness]).code(0);
    assert_eq!(t.read("seen.txt"), "", "an HTTP-only tree");

    // Before its first cassette, a project that declares its recorder is HTTP-only too.
    let t = TestDir::new();
    t.write("requirements-dev.txt", "pytest-recording==0.15.0\n");
    t.vcr(&["record", "--", "sh", "-c", harness]).code(0);
    assert_eq!(t.read("seen.txt"), "", "a declared HTTP recorder");

    // A tree that shows no harness at all still gets both seeds' variables.
    let t = TestDir::new();
    t.vcr(&["record", "--", "sh", "-c", harness]).code(0);
    assert_eq!(t.read("seen.txt"), "DSH_SNAPSHOT=record\nVCR_RECORD=1\n");
}

#[test]
fn a_failed_record_run_leaves_its_cassettes_but_not_their_keys() {
    if !available(Recorder::PytestRecording) {
        return;
    }
    // The suite records, then the command fails (a later step of `make test`): what it
    // wrote stays for the user to look at, scrubbed of the keys no filter took out.
    let t = pytest_project();
    t.write("requirements-dev.txt", "pytest-recording==0.15.0\n");
    let scenario = Scenario::leaky();
    let server = Server::start_with(scenario.answers());
    let harness = TestDir::new();
    harness.write("scenario.json", scenario.to_json(&server.base_url()));
    let script = format!(
        "{} -m pytest -q -p no:cacheprovider tests/test_scenario.py; exit 3",
        python().display()
    );
    let scenario_file = harness.path("scenario.json");
    let mut cmd = t.command(
        &["record", "--", "sh", "-c", &script],
        &[
            ("RECORDER_SCENARIO", scenario_file.to_str().unwrap()),
            ("PYTHONDONTWRITEBYTECODE", "1"),
        ],
    );
    without_proxy(&mut cmd);
    let run = common::Run::from(cmd.output().unwrap());
    let received = server.stop();
    assert!(!received.is_empty(), "the run recorded against the server");
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, Some(3), "the command's own code:\n{said}");
    for words in [
        format!("scrubbed {CASSETTE}:"),
        format!("left behind: {CASSETTE} (added by the run"),
        "left as the run wrote it, but for ".to_owned(),
    ] {
        assert!(said.contains(&words), "{words:?} not in:\n{said}");
    }
    for (rel, bytes) in t.files("tests") {
        for text in crate::http_scrub::decoded_texts(&bytes) {
            for (place, secret) in &scenario.secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "the {place} is still in {rel} after a failed `vcr record`"
                );
            }
        }
    }
}
