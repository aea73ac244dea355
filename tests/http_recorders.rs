//! HTTP cassettes written by the recorders themselves (issue 9): vcrpy, pytest-recording,
//! Ruby VCR with webmock, go-vcr, Polly and nock record two scenarios against a server the
//! test starts (`tests/common/scenario.rs`) and replay them with the server stopped.
//!
//! `*::records_and_replays` prove the cassettes are real: the recorder's own replay answers
//! every request from them.
//!
//! A recorder that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1` (CI sets it; `tests/recorders/install` installs them).

mod common;

use std::time::{Duration, UNIX_EPOCH};

use common::recorders::{Recorder, record, replay};
use common::scenario::Scenario;
use common::server::{http_date, iso_date_time};

macro_rules! recorder_tests {
    ($($module:ident: $recorder:expr, $cassette:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn records_and_replays() {
                super::records_and_replays($recorder, $cassette);
            }
        }
    )*};
}

// Each recorder's own naming: `*` stands for Polly's hash of the recording name.
recorder_tests! {
    vcrpy: Recorder::Vcrpy, "cassettes/leaky.yaml";
    pytest_recording: Recorder::PytestRecording, "tests/cassettes/test_scenario/test_scenario.yaml";
    ruby_vcr: Recorder::RubyVcr, "cassettes/leaky.yml";
    go_vcr: Recorder::GoVcr, "cassettes/leaky.yaml";
    polly: Recorder::Polly, "cassettes/leaky_*/recording.har";
    nock: Recorder::Nock, "cassettes/leaky.json";
}

/// Records the leaky scenario, replays it with the server stopped (which rewrites nothing),
/// then replays it from a cassette with one answer changed and without its cassette, which
/// must both fail: the replay answers come from the cassette and are checked.
fn records_and_replays(recorder: Recorder, cassette: &str) {
    let Some(recorded) = record(recorder, Scenario::leaky()) else {
        return;
    };
    let cassettes = recorded.cassettes();
    assert_eq!(cassettes.len(), 1, "{cassettes:?}");
    let (head, tail) = cassette.split_once('*').unwrap_or((cassette, ""));
    assert!(
        cassettes[0].starts_with(head) && cassettes[0].ends_with(tail),
        "{} wrote {cassettes:?}, expected {cassette}",
        recorder.name()
    );
    let text = String::from_utf8_lossy(&recorded.dir.files("")[&cassettes[0]]).into_owned();
    let host = recorded.base_url.trim_start_matches("http://");
    assert!(
        text.contains(host),
        "the cassette names the server:\n{text}"
    );

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
    recorded.dir.write(&cassettes[0], &tampered);
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

    std::fs::remove_file(recorded.dir.path(&cassettes[0])).unwrap();
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
