//! HTTP cassettes are found where the recorders put them, with no `vcr.toml` (issue 21).
//!
//! Each recorder records the leaky scenario (`tests/common/scenario.rs`: credentials planted
//! in headers, query, bodies, a gzip response and a cookie) into the folder its documentation
//! uses by default (vcrpy and the pytest plugins `cassettes/`, Ruby VCR
//! `spec/fixtures/vcr_cassettes/`, go-vcr and nock back `fixtures/`, Polly `recordings/`,
//! talkback `tapes/`), and into a folder no convention names ([`UNUSUAL`]). Then, with no
//! configuration at all, the three ways `vcr` meets a cassette must each find a credential in
//! it: `vcr verify` over the whole tree (CI), `vcr verify FILE` from the repository's root
//! (the pre-commit hook), and `vcr verify --staged` in a git repository where only that file
//! is staged (a hook of one's own). The clean scenario, recorded into the default folder,
//! passes all three.
//!
//! Every recording is replayed with the server stopped before it is checked: the recorder
//! itself finds and answers from what it wrote, so the folder and the files are the
//! recorder's, not a guess at them. A recorder that is not installed is skipped with a
//! message on stderr, unless `VCR_REQUIRE_RECORDERS=1` (CI sets it; `tests/recorders/install`
//! installs them). httprr is not among them: see `tests/recorders/install`.

use crate::common;

use common::recorders::{Recorded, Recorder, record_into, replay};
use common::scenario::Scenario;
use common::{Run, git, vcr_at};
use serde_json::Value;

/// A folder named by no recorder's convention, and by none of `vcr`'s.
const UNUSUAL: &str = "qa/golden/http-snapshots";

macro_rules! folder_tests {
    ($($module:ident: $recorder:expr, in $folder:expr, writes $cassette:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn finds_the_leak_in_the_default_folder() {
                super::finds_the_leak($recorder, $folder, Some($cassette));
            }

            #[test]
            fn finds_the_leak_in_an_unusual_folder() {
                super::finds_the_leak($recorder, UNUSUAL, None);
            }

            #[test]
            fn passes_the_clean_scenario_in_the_default_folder() {
                super::passes_the_clean_scenario($recorder, $folder);
            }
        }
    )*};
}

// Each recorder's default folder, and the file it writes there for the leaky scenario (`*`
// stands for Polly's hash of the recording name and talkback's tape number, a time in ms).
folder_tests! {
    vcrpy: Recorder::Vcrpy, in "cassettes", writes "cassettes/leaky.yaml";
    pytest_recording: Recorder::PytestRecording, in "tests/cassettes",
        writes "tests/cassettes/test_scenario/test_scenario.yaml";
    pytest_vcr: Recorder::PytestVcr, in "tests/cassettes",
        writes "tests/cassettes/test_scenario.yaml";
    ruby_vcr: Recorder::RubyVcr, in "spec/fixtures/vcr_cassettes",
        writes "spec/fixtures/vcr_cassettes/leaky.yml";
    go_vcr: Recorder::GoVcr, in "fixtures", writes "fixtures/leaky.yaml";
    polly: Recorder::Polly, in "recordings", writes "recordings/leaky_*/recording.har";
    nock: Recorder::Nock, in "fixtures", writes "fixtures/leaky.json";
    talkback: Recorder::Talkback, in "tapes", writes "tapes/unnamed-*.json5";
}

/// Records `scenario` into `folder` and replays it with the server stopped, which must pass
/// and change nothing; `None` when the recorder is not installed.
fn record_and_replay(recorder: Recorder, scenario: Scenario, folder: &str) -> Option<Recorded> {
    let recorded = record_into(recorder, scenario, folder)?;
    assert!(
        !recorded.cassettes().is_empty(),
        "{} wrote nothing into {folder}: {:?}",
        recorder.name(),
        recorded.dir.files("").keys().collect::<Vec<_>>()
    );
    assert!(!recorded.dir.exists("vcr.toml"));
    let before = recorded.dir.files("");
    let run = replay(&recorded);
    assert_eq!(
        run.code,
        Some(0),
        "{} could not replay from {folder}: {run:?}",
        recorder.name()
    );
    assert!(
        recorded.dir.files("") == before,
        "{} changed the project when replaying",
        recorder.name()
    );
    Some(recorded)
}

fn finds_the_leak(recorder: Recorder, folder: &str, expected: Option<&str>) {
    let Some(recorded) = record_and_replay(recorder, Scenario::leaky(), folder) else {
        return;
    };
    let cassettes = recorded.cassettes();
    if let Some(expected) = expected {
        let (head, tail) = expected.split_once('*').unwrap_or((expected, ""));
        assert!(
            cassettes
                .iter()
                .all(|c| c.starts_with(head) && c.ends_with(tail)),
            "{} wrote {cassettes:?}, expected {expected}",
            recorder.name()
        );
    }
    let files = recorded.dir.files("");
    let holds_a_secret = |rel: &String| {
        let text = String::from_utf8_lossy(&files[rel]);
        let secrets = &recorded.scenario.secrets;
        secrets
            .iter()
            .any(|(_, secret)| text.contains(secret.as_str()))
    };
    let leaky: Vec<&String> = cassettes.iter().filter(|c| holds_a_secret(c)).collect();
    // The file the hooks are shown: the one with the `Authorization` header (talkback writes
    // a tape per request).
    let (_, authorization) = &recorded.scenario.secrets[0];
    let named = cassettes
        .iter()
        .find(|c| String::from_utf8_lossy(&files[*c]).contains(authorization.as_str()))
        .unwrap_or_else(|| panic!("no cassette holds the Authorization header: {cassettes:?}"));
    let context = |how: &str| format!("{} cassette in {folder}, {how}", recorder.name());

    // CI: the whole tree, no configuration.
    let run = vcr_at(&recorded.dir.root, &["verify", "--format", "json"]);
    let doc = checked(&recorded, &run, 1, &context("vcr verify"));
    assert_read_as_cassettes(&doc, cassettes.len(), &context("vcr verify"));
    for cassette in &leaky {
        assert_leak_in(&doc, cassette, &context("vcr verify"));
    }

    // The pre-commit hook: `vcr verify FILE` from the repository's root.
    let run = vcr_at(&recorded.dir.root, &["verify", "--format", "json", named]);
    let doc = checked(&recorded, &run, 1, &context("vcr verify FILE"));
    assert_read_as_cassettes(&doc, 1, &context("vcr verify FILE"));
    assert_leak_in(&doc, named, &context("vcr verify FILE"));

    // A hook of one's own: `vcr verify --staged` with only that file staged.
    git(&recorded.dir.root, &["init", "-q"]);
    git(&recorded.dir.root, &["add", "--", named]);
    let run = vcr_at(
        &recorded.dir.root,
        &["verify", "--staged", "--format", "json"],
    );
    let doc = checked(&recorded, &run, 1, &context("vcr verify --staged"));
    assert_read_as_cassettes(&doc, 1, &context("vcr verify --staged"));
    assert_leak_in(&doc, named, &context("vcr verify --staged"));
}

fn passes_the_clean_scenario(recorder: Recorder, folder: &str) {
    let Some(recorded) = record_and_replay(recorder, Scenario::clean(), folder) else {
        return;
    };
    let cassettes = recorded.cassettes();
    let context = |how: &str| format!("{} clean cassette in {folder}, {how}", recorder.name());

    let run = vcr_at(&recorded.dir.root, &["verify", "--format", "json"]);
    let doc = checked(&recorded, &run, 0, &context("vcr verify"));
    assert_read_as_cassettes(&doc, cassettes.len(), &context("vcr verify"));
    assert_eq!(doc["findings"], Value::Array(Vec::new()), "{doc:#}");

    let mut args = vec!["verify", "--format", "json"];
    args.extend(cassettes.iter().map(String::as_str));
    let run = vcr_at(&recorded.dir.root, &args);
    let doc = checked(&recorded, &run, 0, &context("vcr verify FILE..."));
    assert_read_as_cassettes(&doc, cassettes.len(), &context("vcr verify FILE..."));

    git(&recorded.dir.root, &["init", "-q"]);
    git(&recorded.dir.root, &["add", "--", folder]);
    let run = vcr_at(
        &recorded.dir.root,
        &["verify", "--staged", "--format", "json"],
    );
    let doc = checked(&recorded, &run, 0, &context("vcr verify --staged"));
    assert_read_as_cassettes(&doc, cassettes.len(), &context("vcr verify --staged"));
}

/// The JSON document of a `vcr verify` run that exited `code`, which never shows a planted
/// credential unmasked.
fn checked(recorded: &Recorded, run: &Run, code: i32, context: &str) -> Value {
    assert_eq!(
        run.code,
        Some(code),
        "exit code of {context}:\n{}\n{}",
        run.stdout,
        run.stderr
    );
    for (label, secret) in &recorded.scenario.secrets {
        assert!(
            !run.stdout.contains(secret.as_str()) && !run.stderr.contains(secret.as_str()),
            "{context} shows the {label} unmasked:\n{}",
            run.stdout
        );
    }
    run.json()
}

/// The run read `count` files, each as an HTTP cassette of a format it knows (not as text,
/// not skipped as no cassette).
fn assert_read_as_cassettes(doc: &Value, count: usize, context: &str) {
    let by_format = doc["summary"]["http"]
        .as_object()
        .unwrap_or_else(|| panic!("{context}: no HTTP cassette read: {doc:#}"));
    let read: u64 = by_format.values().filter_map(Value::as_u64).sum();
    assert_eq!(read, count as u64, "{context}: {doc:#}");
    assert_eq!(doc["summary"]["files"], count, "{context}: {doc:#}");
}

/// `doc` has a `leak/secret` error in `cassette`, at a line.
fn assert_leak_in(doc: &Value, cassette: &str, context: &str) {
    let findings = doc["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(|f| f["id"] == "leak/secret"
            && f["severity"] == "error"
            && f["path"] == cassette
            && f["line"].as_u64().is_some()),
        "{context}: no leak/secret in {cassette}: {doc:#}"
    );
}
