//! HTTP cassettes written by the recorders themselves (issue 9): vcrpy, pytest-recording,
//! pytest-vcr, Ruby VCR with webmock, go-vcr, Polly, nock and talkback record two scenarios
//! against a server the test starts (`tests/common/scenario.rs`), replay them with the server
//! stopped, and `vcr verify` reads what they wrote, with no `vcr.toml`: it finds them by
//! their content (issue 21; `tests/recorder_folders.rs` moves them to other folders).
//!
//! `*::records_and_replays` prove the cassettes are real: the recorder's own replay answers
//! every request from them. `*::verify_*` hold `vcr verify` to the issue: each planted
//! credential is a `leak/secret` at a readable place, home folders are `leak/path` by who
//! sent them, UUIDs and timestamps in responses are no findings, and the clean scenario has
//! none at all.
//!
//! A recorder that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1` (CI sets it; `tests/recorders/install` installs them).

use crate::common;

use std::time::{Duration, UNIX_EPOCH};

use common::recorders::{Recorded, Recorder, record, replay, replay_with};
use common::scenario::{ECHOED_HOME, RESPONSE_HOME, Scenario};
use common::server::{http_date, iso_date_time};
use serde_json::Value;

macro_rules! recorder_tests {
    ($($module:ident: $recorder:expr, $cassette:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn records_and_replays() {
                super::records_and_replays($recorder, $cassette);
            }

            #[test]
            fn verify_finds_each_planted_leak() {
                super::verify_finds_each_planted_leak($recorder);
            }

            #[test]
            fn verify_finds_nothing_in_the_clean_scenario() {
                super::verify_finds_nothing_in_the_clean_scenario($recorder);
            }
        }
    )*};
}

// Each recorder's own naming: `*` stands for Polly's hash of the recording name and for
// talkback's tape number (a time in ms).
recorder_tests! {
    vcrpy: Recorder::Vcrpy, "cassettes/leaky.yaml";
    pytest_recording: Recorder::PytestRecording, "tests/cassettes/test_scenario/test_scenario.yaml";
    pytest_vcr: Recorder::PytestVcr, "tests/cassettes/test_scenario.yaml";
    ruby_vcr: Recorder::RubyVcr, "cassettes/leaky.yml";
    go_vcr: Recorder::GoVcr, "cassettes/leaky.yaml";
    polly: Recorder::Polly, "cassettes/leaky_*/recording.har";
    nock: Recorder::Nock, "cassettes/leaky.json";
    talkback: Recorder::Talkback, "cassettes/unnamed-*.json5";
}

/// Records the leaky scenario, replays it with the server stopped (which rewrites nothing),
/// then replays it from a cassette with one answer changed and without that cassette, which
/// must both fail: the replay answers come from the cassette and are checked.
fn records_and_replays(recorder: Recorder, cassette: &str) {
    let Some(recorded) = record(recorder, Scenario::leaky()) else {
        return;
    };
    let cassettes = recorded.cassettes();
    // One cassette for the scenario; talkback writes a tape per request.
    let expected = if recorder == Recorder::Talkback {
        recorded.scenario.exchanges.len()
    } else {
        1
    };
    assert_eq!(cassettes.len(), expected, "{cassettes:?}");
    let (head, tail) = cassette.split_once('*').unwrap_or((cassette, ""));
    assert!(
        cassettes
            .iter()
            .all(|c| c.starts_with(head) && c.ends_with(tail)),
        "{} wrote {cassettes:?}, expected {cassette}",
        recorder.name()
    );
    let files = recorded.dir.files("");
    let host = recorded.base_url.trim_start_matches("http://");
    for cassette in &cassettes {
        let text = String::from_utf8_lossy(&files[cassette]);
        assert!(
            text.contains(host),
            "the cassette names the server:\n{text}"
        );
    }
    // The cassette with the `models` answer, which says `system`.
    let cassette = cassettes
        .iter()
        .find(|c| String::from_utf8_lossy(&files[*c]).contains("system"))
        .expect("a cassette holds the models answer");
    let text = String::from_utf8_lossy(&files[cassette]).into_owned();

    let before = recorded.dir.files("");
    replay(&recorded).code(0);
    assert!(
        recorded.dir.files("") == before,
        "{} changed the project when replaying",
        recorder.name()
    );

    // One recorded answer changed (same length, so no header disagrees): the replay says so.
    let tampered = text.replace("system", "sistem");
    assert_ne!(tampered, text);
    recorded.dir.write(cassette, &tampered);
    let run = replay(&recorded);
    assert_ne!(
        run.code,
        Some(0),
        "{} replayed a changed answer",
        recorder.name()
    );
    assert!(
        run.stderr.contains("models: body") || run.stdout.contains("models: body"),
        "{} replay did not name the changed answer:\n{}{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );

    std::fs::remove_file(recorded.dir.path(cassette)).unwrap();
    let run = replay(&recorded);
    assert_ne!(
        run.code,
        Some(0),
        "{} replayed without its cassette:\n{}{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );
}

/// Runs `vcr verify --format json` over the project the recorder wrote into, with no
/// `vcr.toml`: the cassettes are found by their content (issue 21).
fn verify(recorded: &Recorded) -> (common::Run, Value) {
    let run = recorded.dir.vcr(&["verify", "--format", "json"]);
    let doc = run.json();
    (run, doc)
}

/// A finding's `pointer`, lower-cased (recorders spell header names differently), with
/// nock's keys read as the side they belong to (`reqheaders`, a definition's `path` and
/// `body` are the request's, `rawHeaders` the response's), and talkback's `req` and `res`
/// spelled out.
fn pointer(f: &Value) -> String {
    let pointer = f["pointer"].as_str().unwrap_or("").to_ascii_lowercase();
    let pointer = match pointer.split_once('.') {
        Some(("req", rest)) => format!("request.{rest}"),
        Some(("res", rest)) => format!("response.{rest}"),
        _ => pointer,
    };
    pointer
        .replace("reqheaders", "request.headers")
        .replace("rawheaders", "response.headers")
        .replace("].path", "].request.path")
        .replace("].body", "].request.body")
}

fn verify_finds_each_planted_leak(recorder: Recorder) {
    let Some(recorded) = record(recorder, Scenario::leaky()) else {
        return;
    };
    let (run, doc) = verify(&recorded);
    let findings = doc["findings"].as_array().expect("findings").clone();
    let context = format!("{} cassette, findings:\n{doc:#}", recorder.name());
    run.code(1);
    assert_read_by_structure(&doc, recorder);

    // Where each planted credential is, as parts of the finding's readable path.
    let places: [(&str, &[&str]); 8] = [
        ("Authorization header", &["request", "authorization"]),
        ("x-api-key header", &["request", "x-api-key"]),
        ("api_key query parameter", &["request", "api_key"]),
        ("password field", &["request", "password"]),
        ("client_secret field", &["request", "client_secret"]),
        ("secret field beside app_id", &["request", "app/secret"]),
        (
            "access_token in the gzip response",
            &["response", "access_token"],
        ),
        ("session cookie", &["response", "set-cookie"]),
    ];
    assert_eq!(places.len(), recorded.scenario.secrets.len());
    for (label, parts) in places {
        assert!(
            recorded.scenario.secrets.iter().any(|(l, _)| *l == label),
            "{label}"
        );
        let found = findings
            .iter()
            .find(|f| f["id"] == "leak/secret" && parts.iter().all(|p| pointer(f).contains(p)));
        let Some(found) = found else {
            panic!("no leak/secret for the {label} (a pointer with {parts:?}) in the {context}");
        };
        assert_eq!(found["severity"], "error", "{label}: {context}");
        assert!(
            found["line"].as_u64().is_some(),
            "{label} has no line: {context}"
        );
    }
    for (label, secret) in &recorded.scenario.secrets {
        assert!(
            !run.stdout.contains(secret.as_str()),
            "the {label} is shown unmasked: {context}"
        );
    }

    // Home folders: the one the request sent is an error there and where the response echoes
    // it; the one only the response holds is an error too, as the recorders recorded against
    // the tests' server on this machine (a server elsewhere makes it a warning: the unit
    // tests of the judge).
    let paths: Vec<&Value> = findings.iter().filter(|f| f["id"] == "leak/path").collect();
    let path_at = |severity: &str, parts: &[&str]| {
        paths.iter().any(|f| {
            f["severity"] == severity
                && f["line"].as_u64().is_some()
                && parts.iter().all(|p| pointer(f).contains(p))
        })
    };
    assert!(
        path_at("error", &["request", "/path"]),
        "{ECHOED_HOME} in the request: {context}"
    );
    assert!(
        path_at("error", &["response", "saved_as"]),
        "{ECHOED_HOME} echoed in the response: {context}"
    );
    assert!(
        path_at("error", &["response", "processed_by"]),
        "{RESPONSE_HOME} only in the response of a server on this machine: {context}"
    );

    // The job's UUID, `x-request-id` and timestamps, the SSE chunks' ids and `created`: none
    // is in what the recorders match requests by.
    let volatile: Vec<&Value> = findings
        .iter()
        .filter(|f| f["id"] == "leak/uuid" || f["id"] == "leak/timestamp")
        .collect();
    assert!(volatile.is_empty(), "{volatile:#?}\nin the {context}");
}

/// Every file the recorder wrote was read by structure, as the recorder's format: the JSON
/// summary counts them per format (issue 9).
fn assert_read_by_structure(doc: &Value, recorder: Recorder) {
    let formats = doc["summary"]["http"]
        .as_object()
        .unwrap_or_else(|| panic!("no per-format counts in the summary: {doc:#}"));
    let read: u64 = formats.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(read, doc["summary"]["files"].as_u64().unwrap(), "{doc:#}");
    let expected = match recorder {
        Recorder::Vcrpy | Recorder::PytestRecording | Recorder::PytestVcr => "vcrpy",
        Recorder::RubyVcr => "Ruby VCR",
        Recorder::GoVcr => "go-vcr",
        Recorder::Polly => "HAR",
        Recorder::Nock => "nock",
        Recorder::Talkback => "talkback",
        Recorder::RVcr => "R vcr",
        Recorder::Responses => "responses",
        Recorder::Httpretty => "HTTPretty",
        Recorder::WireMock | Recorder::Mountebank => {
            unreachable!("vcr reads no {} cassette yet", recorder.name())
        }
    };
    assert!(
        formats.contains_key(expected),
        "{} read as {formats:?}",
        recorder.name()
    );
}

fn verify_finds_nothing_in_the_clean_scenario(recorder: Recorder) {
    let Some(recorded) = record(recorder, Scenario::clean()) else {
        return;
    };
    let (run, doc) = verify(&recorded);
    assert_read_by_structure(&doc, recorder);
    assert_eq!(
        doc["findings"],
        Value::Array(Vec::new()),
        "placeholders only, in the {} cassette",
        recorder.name()
    );
    run.code(0);
}

#[test]
fn the_test_server_writes_dates_as_http_and_iso_8601_do() {
    let at = UNIX_EPOCH + Duration::from_secs(1_796_311_178);
    assert_eq!(http_date(at), "Thu, 03 Dec 2026 15:19:38 GMT");
    assert_eq!(iso_date_time(at), "2026-12-03T15:19:38Z");
    assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
    let leap_day = UNIX_EPOCH + Duration::from_secs(951_782_400);
    assert_eq!(http_date(leap_day), "Tue, 29 Feb 2000 00:00:00 GMT");
    assert_eq!(iso_date_time(leap_day), "2000-02-29T00:00:00Z");
}

/// A key redacted by hand as `- [REDACTED]` (a YAML list, not the text `[REDACTED]`) in a
/// request header: vcrpy loads the cassette and replays it, so `verify` reads it instead of
/// calling it a `parse` error, and finds nothing in it.
#[test]
fn a_hand_redaction_vcrpy_replays_is_no_parse_error() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::clean()) else {
        return;
    };
    let cassettes = recorded.cassettes();
    assert_eq!(cassettes.len(), 1, "{cassettes:?}");
    let rel = &cassettes[0];
    let text = recorded.dir.read(rel);
    let edited = text.replace("- Bearer OPENAI_API_KEY", "- [REDACTED]");
    assert_ne!(edited, text, "the recorded Authorization header:\n{text}");
    recorded.dir.write(rel, &edited);

    let run = replay(&recorded);
    assert_eq!(
        run.code,
        Some(0),
        "vcrpy replays the hand-redacted cassette:\n{}{}",
        run.stdout,
        run.stderr
    );
    let (run, doc) = verify(&recorded);
    run.code(0);
    assert!(!run.stdout.contains("parse"), "{}", run.stdout);
    assert_eq!(doc["findings"].as_array().unwrap().len(), 0, "{doc:#}");
    assert_eq!(doc["summary"]["http"]["vcrpy"], 1, "{doc:#}");
    // And `normalize` leaves it as the hand wrote it.
    recorded.dir.vcr(&["normalize", "--check"]).code(0);
}

/// An id each run makes, kept by an older recording in a query parameter (`filesessionid`, as a data-lake SDK sends) that
/// the project now tells vcrpy to filter: vcrpy filters the requests a cassette holds as it
/// loads them, so a run with another id replays, and the id is no `leak/uuid` once the
/// project's sources filter the parameter (issue 41). Without the filter, the same
/// cassette does not replay a new id, and the finding names the parameter.
#[test]
fn an_id_in_a_query_parameter_the_project_filters_is_no_finding() {
    const RECORDED: &str = "3f6c1a9e-7b24-4d8e-9a51-c0e27b9d4f18";
    const NEXT_RUN: &str = "b81d6e02-5c3f-4a97-8e1b-2d9f7a64c035";
    let mut scenario = Scenario::clean();
    scenario.exchanges[0].target = format!("/v1/models?page=2&filesessionid={RECORDED}");
    let Some(mut recorded) = record(Recorder::Vcrpy, scenario) else {
        return;
    };
    let (run, doc) = verify(&recorded);
    run.code(1);
    let ids: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "leak/uuid" && f["severity"] == "error")
        .map(|f| format!("{} {}", f["pointer"], f["match"]))
        .collect();
    assert_eq!(
        ids,
        [format!(
            "\"interactions[0].request.uri ?filesessionid\" \"{RECORDED}\""
        )],
        "{doc:#}"
    );

    // The next run sends another id: vcrpy replays it only when told to filter the parameter.
    recorded.scenario.exchanges[0].target = format!("/v1/models?page=2&filesessionid={NEXT_RUN}");
    let run = replay(&recorded);
    assert_ne!(
        run.code,
        Some(0),
        "replayed a new id with no filter: {run:?}"
    );
    let run = replay_with(
        &recorded,
        serde_json::json!({"query": [["filesessionid", "LEASE"]]}),
    );
    assert_eq!(
        run.code,
        Some(0),
        "vcrpy did not replay with the filter: {run:?}"
    );

    // The project's sources say so, as a test module configures vcrpy.
    recorded.dir.write(
        "tests/conftest.py",
        "import vcr\n\nmy_vcr = vcr.VCR(\n    filter_query_parameters=['filesessionid'],\n)\n",
    );
    let (run, doc) = verify(&recorded);
    run.code(0);
    assert_eq!(doc["findings"].as_array().unwrap().len(), 0, "{doc:#}");
}
