//! The leak judge of issue 41 on cassettes written by a real recorder: each leak class the
//! issue found passing (a key split across Bedrock event frames and SSE deltas, STS
//! credentials as JSON and XML, sessions after logins that send no `password`, a short hex
//! token, a ticket URL, a Basic key with no password, a key in a multipart part sent in
//! base64) is an error, and each false-error class (an unknown scheme before words and the
//! cookie answered to it, test words, a value that describes itself, a pagination cursor, an
//! object's id in a `PUT`, a password of words, documented example credentials) is none. The
//! bodies are served by the tests' server and recorded by vcrpy.

use crate::common;

use common::recorders::{Recorder, record};
use common::scenario::Scenario;

/// The error findings of `vcr verify --format json` on the recorded cassettes.
fn errors(recorded: &common::recorders::Recorded) -> (Vec<serde_json::Value>, String) {
    let run = recorded.dir.vcr(&["verify", "--format", "json"]);
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let doc = run.json();
    let errors: Vec<serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .cloned()
        .collect();
    (errors, run.stdout.clone())
}

#[test]
fn each_leak_class_of_issue_41_is_an_error() {
    let scenario = Scenario::judge41();
    let Some(recorded) = record(Recorder::Vcrpy, scenario.clone()) else {
        return;
    };
    let (errors, output) = errors(&recorded);
    let cassette = &recorded.cassettes()[0];
    let text = recorded.dir.read(cassette);
    for (what, secret) in &scenario.secrets {
        // A Basic credential is shown as written: base64 of `key:`.
        let basic = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(format!("{secret}:"))
        };
        // Each is reported where it is (by its masked start, since outputs never show it).
        let shown = errors.iter().any(|f| {
            let masked = f["match"].as_str().unwrap_or_default();
            let head: String = masked.chars().take_while(|&c| c != '…').collect();
            let head = head.rsplit(' ').next().unwrap_or_default();
            head.len() >= 2
                && (secret.starts_with(head) || basic.starts_with(head))
                && f["message"].is_string()
        });
        assert!(shown, "{what} not reported: {errors:#?}");
        assert!(!output.contains(secret.as_str()), "{what} printed");
        assert!(
            text.contains(secret.as_str())
                || *what == "a key split across Bedrock event frames"
                || *what == "a key split across SSE deltas"
                || *what == "a Basic key with no password"
                || what.ends_with("(hidden)"),
            "{what} not recorded"
        );
    }
    // Every reason names the fact that decided.
    assert!(
        errors
            .iter()
            .all(|f| f["reason"].as_str().is_some_and(|r| !r.is_empty())),
        "{errors:#?}"
    );
}

#[test]
fn each_false_error_class_of_issue_41_is_no_error() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::judge41_clean()) else {
        return;
    };
    let (errors, _) = errors(&recorded);
    assert!(errors.is_empty(), "{errors:#?}");
}
