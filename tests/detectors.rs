//! Every leak detector against its committed true- and false-positive vectors
//! (`tests/vectors/detectors.jsonl`).

use serde::Deserialize;
use vcr_lint::Scanner;

#[derive(Deserialize)]
struct Case {
    detector: String,
    found: bool,
    text: String,
    note: String,
}

#[test]
fn every_detector_finds_what_it_should_and_nothing_else() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/detectors.jsonl");
    let cases: Vec<Case> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let scanner = Scanner::new(&[]);
    let mut failures = Vec::new();
    for case in &cases {
        let hits = scanner.scan(case.text.as_bytes());
        let found = hits.iter().any(|h| h.detector == case.detector);
        if found != case.found {
            failures.push(format!(
                "{} {} on {:?} ({}): hits {:?}",
                case.detector,
                if case.found { "missed" } else { "cried wolf" },
                case.text,
                case.note,
                hits.iter()
                    .map(|h| (h.detector, h.text.as_str()))
                    .collect::<Vec<_>>()
            ));
        }
        // Masks never reveal a secret whole.
        // (A private key is shown by its BEGIN line, which is not secret.)
        for hit in hits
            .iter()
            .filter(|h| h.family == vcr_lint::LeakFamily::Secret && h.detector != "private-key")
        {
            assert!(
                !hit.masked.contains(hit.text.trim()) || hit.text.len() < 8,
                "{} unmasked: {}",
                hit.detector,
                hit.masked
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // Every detector has at least one true and one false positive vector.
    for detector in [
        "anthropic-key",
        "openai-key",
        "aws-access-key",
        "github-token",
        "google-api-key",
        "slack-token",
        "stripe-live-key",
        "jwt",
        "private-key",
        "url-credentials",
        "credential-field",
        "credential-header",
        "credential-parameter",
        "user-home",
        "root-home",
        "temp-dir",
        "uuid",
        "timestamp",
        "email",
    ] {
        for found in [true, false] {
            assert!(
                cases
                    .iter()
                    .any(|c| c.detector == detector && c.found == found),
                "{detector} lacks a {} vector",
                if found {
                    "true-positive"
                } else {
                    "false-positive"
                }
            );
        }
    }
}
