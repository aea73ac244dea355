//! The recorders of issue 39 record and replay: WireMock (its record API in front of the
//! test's server, then its mappings served alone), R's vcr with crul, mountebank (a
//! `proxyAlways` imposter saved with `mb save --removeProxies`), responses' recorder and
//! HTTPretty. Each records the leaky scenario (`tests/common/scenario.rs`) into its default
//! layout, and its own replay, with the server stopped, must answer every request as the
//! server did (the recorder program checks each answer), from what it wrote: a changed
//! answer, or a missing file, fails it.
//!
//! These tests only prove that the recorders write real cassettes here; what `vcr` reads of
//! them is tested beside each reader (`tests/http_wiremock.rs`; mountebank's export in
//! `tests/http_generic.rs`; R's vcr's, responses' and HTTPretty's in
//! `tests/http_named_readers.rs`).
//!
//! HTTPretty records the leaky scenario without its gzip answer and its 201: it keeps a
//! gzip body undone under the compressed `Content-Length` (the client gets a short read, and
//! `playback` refuses the file it wrote), and `playback` answers every request with 200.
//!
//! A recorder that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1` (CI sets it; `tests/recorders/install` installs them).

use crate::common;

use common::recorders::{Recorder, record, replay};
use common::scenario::Scenario;

macro_rules! recorder_tests {
    ($($module:ident: $recorder:expr, $scenario:expr, writes [$($file:literal),+ $(,)?];)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn records_and_replays() {
                super::records_and_replays($recorder, $scenario, &[$($file),+]);
            }
        }
    )*};
}

// Each recorder's own naming: `*` stands for WireMock's stub ids.
recorder_tests! {
    wiremock: Recorder::WireMock, Scenario::leaky(), writes [
        "src/test/resources/__files/v1_chat_completions-*.txt",
        "src/test/resources/mappings/oauth_token-*.json",
        "src/test/resources/mappings/session-*.json",
        "src/test/resources/mappings/v1_chat_completions-*.json",
        "src/test/resources/mappings/v1_files-*.json",
        "src/test/resources/mappings/v1_jobs_latest-*.json",
        "src/test/resources/mappings/v1_models-*.json",
    ];
    r_vcr: Recorder::RVcr, Scenario::leaky(), writes ["tests/fixtures/leaky.yml"];
    mountebank: Recorder::Mountebank, Scenario::leaky(), writes ["cassettes/mb.json"];
    responses: Recorder::Responses, Scenario::leaky(), writes ["cassettes/leaky.yaml"];
    httpretty: Recorder::Httpretty, Scenario::leaky().without(&["token", "upload"]),
        writes ["cassettes/leaky.json"];
}

/// Whether `path` is `pattern`, where one `*` stands for any text without a `/`.
fn matches(pattern: &str, path: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == path,
        Some((head, tail)) => {
            path.len() >= head.len() + tail.len()
                && path.starts_with(head)
                && path.ends_with(tail)
                && !path[head.len()..path.len() - tail.len()].contains('/')
        }
    }
}

/// Records `scenario`, checks the recorder wrote `expected` (each pattern one file, nothing
/// else), replays it with the server stopped (which changes nothing in the project), then
/// replays it from files with one answer changed and without the file holding it, which must
/// both fail: the answers come from what the recorder wrote.
fn records_and_replays(recorder: Recorder, scenario: Scenario, expected: &[&str]) {
    let Some(recorded) = record(recorder, scenario) else {
        return;
    };
    let cassettes = recorded.cassettes();
    for pattern in expected {
        let found = cassettes.iter().filter(|c| matches(pattern, c)).count();
        assert_eq!(
            found,
            1,
            "{} wrote {cassettes:?}, expected one {pattern}",
            recorder.name()
        );
    }
    let unexpected: Vec<_> = cassettes
        .iter()
        .filter(|c| !expected.iter().any(|p| matches(p, c)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} wrote {unexpected:?} besides {expected:?}",
        recorder.name()
    );

    let before = recorded.dir.files("");
    let run = replay(&recorded);
    assert_eq!(
        run.code,
        Some(0),
        "{} did not replay:\nstdout:\n{}\nstderr:\n{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );
    assert!(
        recorded.dir.files("") == before,
        "{} changed the project when replaying",
        recorder.name()
    );

    // The file with the `models` answer, which says `system`: changed (same length, so no
    // header disagrees), the replay says so.
    let (cassette, text) = before
        .iter()
        .map(|(path, bytes)| (path, String::from_utf8_lossy(bytes)))
        .find(|(_, text)| text.contains("system"))
        .expect("a file holds the models answer");
    let tampered = text.replace("system", "sistem");
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
        "{} replayed without {cassette}:\n{}{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );
}
