//! Issue 42: what `vcr diff` misjudged on real re-recordings of projects it had not seen,
//! each cause recorded by the real recorders (`tests/common/rerecord.rs`) and compared
//! through the binary.
//!
//! - A vendor's own API client, every call to an observability vendor's host: judged as any
//!   API (its response keys and types decide), never taken for telemetry by its domain.
//!   Re-recorded on new objects, it pairs every call: ids in paths (a number that grew,
//!   `abc-def-ghi`, a made-up name) and URLs escaped another way are the same request.
//! - A response that only gained a key under the same request is said to be schema drift
//!   (still a behaviour change).
//! - Telemetry beside an agent's model call does not decide, but its status class does.
//! - A JSON answer that only gained a Markdown code fence is reworded; fenced JSON of other
//!   keys is a shape change.
//! - A request the server did not react to (a parameter it ignores dropped, a search query
//!   fixed, answered with the same shape) is how the call was written, not what it did; a
//!   user name a scrub replaced in a path, and a new id inside a longer query value, pair.
//! - Two recordings of the very same exchanges (only the recorder's metadata differs) are
//!   identical.
//!
//! A recorder that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1`.

use crate::common;

use common::recorders::{Recorded, Recorder, record};
use common::rerecord::{self, INTAKE_HOST, MODEL_HOST, Take, VENDOR_HOST};
use common::{Run, TestDir};
use serde_json::Value;

macro_rules! recorder_tests {
    ($($module:ident: $recorder:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn telemetry_beside_the_work_decides_only_by_its_status_class() {
                super::telemetry_beside_the_work_decides_only_by_its_status_class($recorder);
            }

            #[test]
            fn a_code_fence_around_the_same_json_is_reworded() {
                super::a_code_fence_around_the_same_json_is_reworded($recorder);
            }

            #[test]
            fn the_same_exchanges_recorded_again_are_identical() {
                super::the_same_exchanges_recorded_again_are_identical($recorder);
            }
        }
    )*};
}

recorder_tests! {
    vcrpy: Recorder::Vcrpy;
    go_vcr: Recorder::GoVcr;
    ruby_vcr: Recorder::RubyVcr;
    polly: Recorder::Polly;
}

/// The vendor's API, recorded by the recorders whose clients send a URL as they are given it
/// (node's `http` escapes `:` and `,` in a query itself, so Polly's recording could not show
/// another escaping).
mod vendor_api {
    use super::*;

    #[test]
    fn vcrpy() {
        a_vendors_own_api_is_judged_as_any_api_and_its_ids_pair(Recorder::Vcrpy);
    }

    #[test]
    fn go_vcr() {
        a_vendors_own_api_is_judged_as_any_api_and_its_ids_pair(Recorder::GoVcr);
    }

    #[test]
    fn ruby_vcr() {
        a_vendors_own_api_is_judged_as_any_api_and_its_ids_pair(Recorder::RubyVcr);
    }
}

/// Requests the server did not react to, recorded by the recorders whose clients send a
/// URL as they are given it (as `vendor_api`).
mod unreacted {
    use super::*;

    #[test]
    fn vcrpy() {
        a_request_the_server_did_not_react_to_is_the_same_behaviour(Recorder::Vcrpy);
    }

    #[test]
    fn go_vcr() {
        a_request_the_server_did_not_react_to_is_the_same_behaviour(Recorder::GoVcr);
    }

    #[test]
    fn ruby_vcr() {
        a_request_the_server_did_not_react_to_is_the_same_behaviour(Recorder::RubyVcr);
    }
}

/// Writes the one cassette of `recorded` into `t` at `dir/<its path>`, its URLs moved by
/// `moves` (`(path prefix, host)`) from the test server's to where they would have gone,
/// and every other mention of the server's address (a `Host` header) to the first host.
/// Returns the cassette's path under `dir`.
fn place(t: &TestDir, dir: &str, recorded: &Recorded, moves: &[(&str, &str)]) -> String {
    let cassettes = recorded.cassettes();
    assert_eq!(cassettes.len(), 1, "{cassettes:?}");
    let rel = cassettes[0].clone();
    let mut text = String::from_utf8(recorded.dir.files("")[&rel].clone()).unwrap();
    for (prefix, host) in moves {
        text = rerecord::moved(&text, &recorded.base_url, prefix, host);
    }
    let address = recorded.base_url.trim_start_matches("http://");
    let first = moves[0].1.trim_start_matches("https://");
    text = text.replace(address, first);
    t.write(&format!("{dir}/{rel}"), &text);
    rel
}

/// `vcr diff first <new> --format json`: the one entry.
fn entry(t: &TestDir, new: &str) -> Value {
    let run = t.vcr(&["diff", "first", new, "--format", "json"]);
    let doc = run.json();
    let events = doc["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{doc:#}");
    events[0].clone()
}

fn messages(entry: &Value) -> Vec<String> {
    entry["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["message"].as_str().unwrap().to_owned())
        .collect()
}

fn takes(
    recorder: Recorder,
    scenario: fn(Take) -> common::scenario::Scenario,
) -> Option<Vec<Recorded>> {
    [Take::First, Take::Again, Take::Drifted]
        .into_iter()
        .map(|take| record(recorder, scenario(take)))
        .collect()
}

/// Records the three takes of `scenario` with `recorder` and places each one's cassette in
/// `first`, `again` and `drifted` of a new test folder, its URLs moved by `moves` (see
/// [`place`]); `None` when the recorder is not installed.
fn placed(
    recorder: Recorder,
    scenario: fn(Take) -> common::scenario::Scenario,
    moves: &[(&str, &str)],
) -> Option<TestDir> {
    let runs = takes(recorder, scenario)?;
    let t = TestDir::new();
    for (run, dir) in runs.iter().zip(["first", "again", "drifted"]) {
        place(&t, dir, run, moves);
    }
    Some(t)
}

fn a_vendors_own_api_is_judged_as_any_api_and_its_ids_pair(recorder: Recorder) {
    let Some(t) = placed(recorder, rerecord::vendor, &[("/api", VENDOR_HOST)]) else {
        return;
    };
    // New objects and other escapes: every call paired with its counterpart, nothing added
    // or removed, no request URL changed.
    let again = entry(&t, "again");
    let shown = messages(&again);
    assert_eq!(again["verdict"], "same_behaviour", "{shown:#?}");
    for noise in ["interaction", "URL", "body shape", "telemetry"] {
        assert!(
            !shown.iter().any(|m| m.contains(noise)),
            "{noise}: {shown:#?}"
        );
    }
    // The vendor's responses changed under the same requests: a behaviour change, its keys
    // and types named, the added key said to be schema drift, and nothing taken for
    // telemetry although every call goes to an observability vendor's host.
    let drifted = entry(&t, "drifted");
    let shown = messages(&drifted);
    assert_eq!(drifted["verdict"], "behaviour_change", "{shown:#?}");
    assert!(
        shown.iter().any(|m| m.starts_with("#2 GET /api/v1/monitor/1234567: response body shape - -> {draft_status: string} (keys added, the request the same: the API's responses grew)")),
        "{shown:#?}"
    );
    // (WebMock, under Ruby VCR, records `%40` as `@`.)
    assert!(
        shown.iter().any(|m| m.starts_with("#4 GET /api/v2/users/dana")
            && m.ends_with("response body shape {data.attributes.handle: string} -> {data.attributes.handle: null}")),
        "{shown:#?}"
    );
    assert!(!shown.iter().any(|m| m.contains("telemetry")), "{shown:#?}");
    let changes = drifted["changes"].as_array().unwrap();
    assert!(changes.iter().any(|c| c["drift"] == true), "{shown:#?}");
    assert!(
        changes.iter().all(|c| c.get("plumbing").is_none()),
        "{shown:#?}"
    );
    t.vcr(&["diff", "first", "drifted", "--fail-on", "behaviour"])
        .code(1);
    t.vcr(&["diff", "first", "again", "--fail-on", "behaviour"])
        .code(0);
}

fn telemetry_beside_the_work_decides_only_by_its_status_class(recorder: Recorder) {
    let moves = [("/v1/chat", MODEL_HOST), ("/api/v2/logs", INTAKE_HOST)];
    let Some(t) = placed(recorder, rerecord::observed, &moves) else {
        return;
    };
    let again = entry(&t, "again");
    let shown = messages(&again);
    assert_eq!(again["verdict"], "same_behaviour", "{shown:#?}");
    assert!(
        shown.iter().any(
            |m| m.starts_with("interaction added: #3 POST /api/v2/logs -> 202")
                && m.ends_with("(authentication or telemetry: not what the agent did)")
        ),
        "{shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|m| m == "#2 POST /api/v2/logs: status 202 -> 200"),
        "{shown:#?}"
    );
    let drifted = entry(&t, "drifted");
    let shown = messages(&drifted);
    assert_eq!(drifted["verdict"], "behaviour_change", "{shown:#?}");
    assert_eq!(drifted["reason"], "status changed", "{shown:#?}");
}

fn a_code_fence_around_the_same_json_is_reworded(recorder: Recorder) {
    let Some(t) = placed(recorder, rerecord::structured, &[("/v1", MODEL_HOST)]) else {
        return;
    };
    let again = entry(&t, "again");
    let shown = messages(&again);
    assert_eq!(again["verdict"], "reworded", "{shown:#?}");
    assert!(
        !shown.iter().any(|m| m.contains("structured output")),
        "{shown:#?}"
    );
    let drifted = entry(&t, "drifted");
    let shown = messages(&drifted);
    assert_eq!(drifted["verdict"], "behaviour_change", "{shown:#?}");
    assert!(
        shown.iter().any(|m| m
            == "#1 POST /v1/chat/completions: structured output shape {\"city\":string,\"temperature\":number} -> {\"city\":string,\"temp_c\":number}"),
        "{shown:#?}"
    );
}

fn the_same_exchanges_recorded_again_are_identical(recorder: Recorder) {
    let Some(first) = record(recorder, rerecord::fixed()) else {
        return;
    };
    // Recorded a second later: what the recorder writes about the recording differs.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let Some(second) = record(recorder, rerecord::fixed()) else {
        return;
    };
    let t = TestDir::new();
    let rel = place(&t, "first", &first, &[("/v1", MODEL_HOST)]);
    place(&t, "again", &second, &[("/v1", MODEL_HOST)]);
    let (a, b) = (
        t.read(&format!("first/{rel}")),
        t.read(&format!("again/{rel}")),
    );
    if a == b {
        // go-vcr and vcrpy keep no time of their own: nothing differs to be told apart.
        assert!(matches!(recorder, Recorder::GoVcr | Recorder::Vcrpy), "{a}");
    }
    let run: Run = t.vcr(&["diff", "first", "again", "-v"]);
    run.code(0);
    assert!(
        run.stdout.starts_with(&format!("identical {rel} (http)")),
        "{}",
        run.stdout
    );
    assert_eq!(entry(&t, "again")["verdict"], "identical");
}

fn a_request_the_server_did_not_react_to_is_the_same_behaviour(recorder: Recorder) {
    let Some(t) = placed(recorder, rerecord::queried, &[("/api", VENDOR_HOST)]) else {
        return;
    };
    let again = entry(&t, "again");
    let shown = messages(&again);
    assert_eq!(again["verdict"], "same_behaviour", "{shown:#?}");
    assert!(
        !shown.iter().any(|m| m.contains("interaction")),
        "every call paired: {shown:#?}"
    );
    let alike: Vec<&String> = shown
        .iter()
        .filter(|m| m.ends_with("(answered alike)"))
        .collect();
    assert!(
        alike
            .iter()
            .any(|m| m.starts_with("#1 GET /api/search/collections"))
            && alike.iter().any(|m| m.starts_with("#4 GET /api/shows")),
        "{shown:#?}"
    );
    assert!(
        !shown.iter().any(|m| m.starts_with("#3 GET /api/tags")),
        "a new id inside a query value is the same request: {shown:#?}"
    );
    // Another endpoint, another shape of answer: what the client does changed.
    let drifted = entry(&t, "drifted");
    let shown = messages(&drifted);
    assert_eq!(drifted["verdict"], "behaviour_change", "{shown:#?}");
    assert!(
        shown
            .iter()
            .any(|m| m.starts_with("#4 GET /api/shows") && m.contains("response body shape")),
        "{shown:#?}"
    );
}
