//! Hoverfly simulations read by structure (issue 39). No Hoverfly runs here: the files are
//! written from the shapes of real ones, with values of our own:
//! - schema v5 as hoverfly-java captures it (Jackson's `" : "`, matcher lists):
//!   larsthorup/hoverfly-capture-simulate, commit 0ce3f378cbd58ec6b31a7e735c5edc9a84438ff4,
//!   `src/test/resources/hoverfly/capture.json`;
//! - schema v1 with a gzip'd body kept as base64 (`encodedBody`): SpectoLabs/hoverfly-java,
//!   commit b43b3fe053f02d01ea4a8656f315d2606ab105a2,
//!   `src/test/resources/simulations/v1-simulation-with-recording.json`.
//!
//! Each plants credentials no detector knows by their shape (an `Authorization` header, a
//! `token` field, an `access_token` query parameter); `vcr verify` finds them by a walk and
//! named, `vcr normalize` replaces them in the matchers (and inside the gzip'd body, encoded
//! again) and says Hoverfly matches on them; the result is still strict JSON.

use crate::common;

use std::io::Write as _;

use base64::Engine as _;
use common::TestDir;
use serde_json::Value;

/// A random run of letters and digits, different on every run, that no detector knows.
fn token(len: usize) -> String {
    use std::hash::BuildHasher;
    let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789";
    let state = std::collections::hash_map::RandomState::new();
    (0..len)
        .map(|i| alphabet[(state.hash_one(i) % alphabet.len() as u64) as usize] as char)
        .collect()
}

fn secrets_found(dir: &TestDir, args: &[&str]) -> Vec<String> {
    let run = dir.vcr(args);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["Hoverfly"], 1, "{doc:#}");
    let findings = doc["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["id"] != "parse"), "{doc:#}");
    findings
        .iter()
        .filter(|f| f["id"] == "leak/secret" && f["line"].as_u64().is_some())
        .map(|f| f["pointer"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_v5_capture_is_read_by_its_matchers_and_scrubbed_in_them() {
    let dir = TestDir::new();
    let (bearer, access, secret) = (token(40), token(32), token(28));
    let rel = "src/test/resources/hoverfly/capture.json";
    dir.write(
        rel,
        format!(
            r#"{{
  "data" : {{
    "pairs" : [ {{
      "request" : {{
        "path" : [ {{ "matcher" : "exact", "value" : "/v1/links" }} ],
        "method" : [ {{ "matcher" : "exact", "value" : "POST" }} ],
        "destination" : [ {{ "matcher" : "exact", "value" : "api.example.com" }} ],
        "scheme" : [ {{ "matcher" : "exact", "value" : "https" }} ],
        "query" : {{ "access_token" : [ {{ "matcher" : "exact", "value" : "{access}" }} ] }},
        "headers" : {{ "Authorization" : [ {{ "matcher" : "exact", "value" : "Bearer {bearer}" }} ] }},
        "body" : [ {{ "matcher" : "json", "value" : "{{\"account\":\"dana\",\"token\":\"{secret}\"}}" }} ]
      }},
      "response" : {{
        "status" : 201,
        "body" : "{{\"linked\":true}}",
        "encodedBody" : false,
        "headers" : {{ "Content-Type" : [ "application/json" ], "Hoverfly" : [ "Was-Here" ] }},
        "templated" : false
      }}
    }} ],
    "globalActions" : {{ "delays" : [ ], "delaysLogNormal" : [ ] }}
  }},
  "meta" : {{
    "schemaVersion" : "v5",
    "hoverflyVersion" : "v1.1.3",
    "timeExported" : "2019-12-16T10:12:07+01:00"
  }}
}}"#
        ),
    );
    let walked = secrets_found(&dir, &["verify", "--format", "json"]);
    for place in ["Authorization", "access_token", "/token"] {
        assert!(
            walked.iter().any(|p| p.contains(place)),
            "{place}: {walked:?}"
        );
    }
    assert_eq!(
        secrets_found(&dir, &["verify", "--format", "json", rel]),
        walked
    );
    let run = dir.vcr(&["normalize", "--format", "json"]);
    let doc = run.json();
    let notes: Vec<&Value> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .collect();
    assert!(
        notes
            .iter()
            .any(|e| e["what"].as_str().unwrap().contains("Authorization")
                && e["setting"]
                    .as_str()
                    .unwrap()
                    .contains("--headers Authorization")),
        "{doc:#}"
    );
    let text = dir.read(rel);
    let value: Value = serde_json::from_str(&text).expect("still JSON");
    let request = &value["data"]["pairs"][0]["request"];
    assert_eq!(
        request["headers"]["Authorization"][0]["value"],
        "Bearer REDACTED_AUTHORIZATION"
    );
    assert_eq!(
        request["query"]["access_token"][0]["value"],
        "REDACTED_ACCESS_TOKEN"
    );
    for s in [&bearer, &access, &secret] {
        assert!(!text.contains(s.as_str()), "{text}");
    }
    dir.vcr(&["verify"]).code(0);
}

#[test]
fn a_v1_simulation_with_a_gzipped_base64_body_is_decoded_and_encoded_again() {
    let dir = TestDir::new();
    let access = token(36);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(format!("{{\"access_token\":\"{access}\",\"token_type\":\"bearer\"}}").as_bytes())
        .unwrap();
    let body = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
    let rel = "simulations/v1-simulation-with-recording.json";
    dir.write(
        rel,
        format!(
            r#"{{"data": {{"pairs": [{{"response": {{"status": 200, "body": "{body}", "encodedBody": true, "headers": {{"Content-Encoding": ["gzip"], "Content-Type": ["application/json"]}}}}, "request": {{"requestType": "recording", "path": "/oauth/token", "method": "POST", "destination": "auth.example.com", "scheme": "https", "query": "", "body": "grant_type=client_credentials", "headers": {{"Content-Type": ["application/x-www-form-urlencoded"]}}}}}}], "globalActions": {{"delays": []}}}}, "meta": {{"schemaVersion": "v1"}}}}"#
        ),
    );
    let found = secrets_found(&dir, &["verify", "--format", "json"]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("response.body") && p.contains("access_token")),
        "{found:?}"
    );
    dir.vcr(&["normalize"]).code(0);
    let value: Value = serde_json::from_str(&dir.read(rel)).expect("still JSON");
    let stored = value["data"]["pairs"][0]["response"]["body"]
        .as_str()
        .unwrap();
    let gzipped = base64::engine::general_purpose::STANDARD
        .decode(stored)
        .expect("still base64");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gzipped[..]), &mut text)
        .expect("still gzip");
    assert!(!text.contains(&access), "{text}");
    assert!(text.contains("REDACTED_ACCESS_TOKEN"), "{text}");
    dir.vcr(&["verify"]).code(0);
}
