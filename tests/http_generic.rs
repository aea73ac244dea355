//! The generic reader (issue 39): records of requests and responses read by their shapes,
//! named after their recorder where its markers are certain.
//!
//! mountebank records the `placed` scenario itself (credentials no detector knows by their
//! shape, found only by their place: an `Authorization` header, a `token` field, an
//! `access_token` query parameter) through a `proxyAlways` imposter and `mb save`; `vcr
//! verify` finds each by a walk of the tree and named, `vcr normalize` replaces them in the
//! stubs' predicates and says mountebank matches on them, and mountebank answers from the
//! scrubbed file a test that sends the placeholders.
//!
//! MockServer and Azure's test-proxy cannot record here: their files are written from the
//! shapes of real ones, with values of our own:
//! - MockServer: n8n-io/n8n, commit 98c7dba83628bb722e1f315de32fd899dd970096,
//!   `packages/testing/playwright/expectations/chat-hub/1766027608058-api.anthropic.com-GET-_v1_models-2ef5ce20.json`
//!   (a recorded expectation: `httpRequest`, `httpResponse` with a typed JSON body and its
//!   `rawBytes`, `times` and `timeToLive` unlimited);
//! - Azure test-proxy: Azure/azure-sdk-assets, commit 0389b6ee2fd79405fa764c599d6636921897b6b7,
//!   `python/sdk/appconfiguration/azure-appconfiguration-provider/tests/recordings/aio/test_async_snapshots.pyTestSnapshotProviderIntegrationtest_load_provider_with_snapshot_not_found.json`
//!   (`Entries` of `RequestUri`, `RequestHeaders`, `StatusCode`, ... beside `Variables`).
//!
//! Each scrubbed file must still be strict JSON (serde_json) holding the placeholders.

use crate::common;

use common::TestDir;
use common::recorders::{Recorder, record, replay};
use common::scenario::Scenario;
use serde_json::Value;

/// The findings of `doc` with `id`, as `(pointer, line)`.
fn findings(doc: &Value, id: &str) -> Vec<(String, u64)> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["id"] == id)
        .map(|f| {
            (
                f["pointer"].as_str().unwrap_or("").to_owned(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// The `replay_affected` events of a `normalize --format json` run.
fn replay_notes(doc: &Value) -> Vec<(String, String)> {
    doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .map(|e| {
            (
                e["what"].as_str().unwrap_or("").to_owned(),
                e["setting"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// Asserts that `verify` finds a `leak/secret` with a line at each of `places` (parts of
/// the pointer), by a walk of the tree and with `named` files named, and counts the files
/// read as `format`; shows no secret of `secrets`.
#[track_caller]
fn assert_found(
    dir: &TestDir,
    named: &[&str],
    format: &str,
    count: u64,
    places: &[&str],
    secrets: &[&str],
) {
    let mut walked = None;
    for args in [
        vec!["verify", "--format", "json"],
        [&["verify", "--format", "json"][..], named].concat(),
    ] {
        let run = dir.vcr(&args);
        run.code(1);
        let doc = run.json();
        assert_eq!(doc["summary"]["http"][format], count, "{args:?}: {doc:#}");
        assert_eq!(
            doc["summary"]["as_text"].as_u64().unwrap_or(0),
            0,
            "{doc:#}"
        );
        assert!(findings(&doc, "parse").is_empty(), "{doc:#}");
        let found = findings(&doc, "leak/secret");
        for place in places {
            assert!(
                found.iter().any(|(p, line)| p.contains(place) && *line > 0),
                "{args:?}: no leak/secret at {place}: {doc:#}"
            );
        }
        for secret in secrets {
            assert!(!run.stdout.contains(secret), "{secret} shown unmasked");
        }
        match &walked {
            None => walked = Some(found),
            Some(walked) => assert_eq!(&found, walked, "named and walked differ"),
        }
    }
}

#[test]
fn mountebank_stubs_are_read_scrubbed_and_still_answer() {
    let Some(mut recorded) = record(Recorder::Mountebank, Scenario::placed()) else {
        return;
    };
    let secrets: Vec<String> = recorded
        .scenario
        .secrets
        .iter()
        .map(|(_, s)| s.clone())
        .collect();
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    assert_found(
        &recorded.dir,
        &["cassettes/mb.json"],
        "mountebank",
        1,
        &["Authorization", "/token", "access_token"],
        &secrets,
    );

    let run = recorded.dir.vcr(&["normalize", "--format", "json"]);
    let notes = replay_notes(&run.json());
    for what in ["Authorization", "access_token", "request body"] {
        assert!(
            notes
                .iter()
                .any(|(w, s)| w.contains(what) && s.contains("predicateGenerators")),
            "no replay note in mountebank's words for {what}: {notes:?}"
        );
    }
    let text = recorded.dir.read("cassettes/mb.json");
    serde_json::from_str::<Value>(&text).expect("still JSON");
    for secret in &secrets {
        assert!(!text.contains(secret), "{secret} is still there");
    }
    recorded.dir.vcr(&["verify"]).code(0);

    // mountebank answers from the scrubbed stubs a test that sends the placeholders.
    let placeholders = [
        "REDACTED_AUTHORIZATION",
        "REDACTED_TOKEN",
        "REDACTED_ACCESS_TOKEN",
    ];
    for placeholder in placeholders {
        assert!(text.contains(placeholder), "no {placeholder} in:\n{text}");
    }
    let pairs: Vec<(&str, &str)> = secrets.iter().copied().zip(placeholders).collect();
    recorded.scenario = recorded.scenario.clone().replacing(&pairs);
    let run = replay(&recorded);
    assert_eq!(
        run.code,
        Some(0),
        "mountebank did not answer from the scrubbed stubs:\n{}{}",
        run.stdout,
        run.stderr
    );
}

/// A random run of letters and digits, different on every run, that no detector knows.
fn token(len: usize) -> String {
    use std::hash::BuildHasher;
    let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789";
    let state = std::collections::hash_map::RandomState::new();
    (0..len)
        .map(|i| alphabet[(state.hash_one(i) % alphabet.len() as u64) as usize] as char)
        .collect()
}

#[test]
fn mockserver_expectations_are_read_by_name_and_scrubbed() {
    let dir = TestDir::new();
    let (bearer, access, secret) = (token(40), token(32), token(28));
    let rel = "packages/testing/playwright/expectations/chat-hub/1766027608058-api.example.com-POST-_v1_links-2ef5ce20.json";
    dir.write(
        rel,
        format!(
            r#"{{
	"httpRequest": {{
		"method": "POST",
		"path": "/v1/links",
		"queryStringParameters": {{
			"access_token": ["{access}"]
		}},
		"headers": {{
			"Authorization": ["Bearer {bearer}"],
			"Content-Type": ["application/json"]
		}},
		"body": {{
			"type": "JSON",
			"json": {{"account": "dana", "client_secret": "{secret}"}}
		}}
	}},
	"httpResponse": {{
		"statusCode": 201,
		"reasonPhrase": "Created",
		"headers": {{
			"Content-Type": ["application/json"]
		}},
		"body": {{
			"contentType": "application/json",
			"type": "JSON",
			"json": {{"linked": true}}
		}}
	}},
	"id": "7c4d1b8e-2f3a-4e5b-9c6d-0a1b2c3d4e5f",
	"priority": 0,
	"timeToLive": {{
		"unlimited": true
	}},
	"times": {{
		"unlimited": true
	}}
}}"#
        ),
    );
    assert_found(
        &dir,
        &[rel],
        "MockServer",
        1,
        &["Authorization", "access_token", "client_secret"],
        &[&bearer, &access, &secret],
    );
    let run = dir.vcr(&["normalize", "--format", "json"]);
    let notes = replay_notes(&run.json());
    assert!(
        notes
            .iter()
            .any(|(w, s)| w.contains("Authorization") && s.contains("httpRequest")),
        "{notes:?}"
    );
    let text = dir.read(rel);
    let value: Value = serde_json::from_str(&text).expect("still JSON");
    assert_eq!(
        value["httpRequest"]["headers"]["Authorization"][0],
        "Bearer REDACTED_AUTHORIZATION"
    );
    assert_eq!(
        value["httpRequest"]["queryStringParameters"]["access_token"][0],
        "REDACTED_ACCESS_TOKEN"
    );
    for s in [&bearer, &access, &secret] {
        assert!(!text.contains(s.as_str()));
    }
    dir.vcr(&["verify"]).code(0);
}

#[test]
fn azure_test_proxy_recordings_are_read_by_name_and_scrubbed() {
    let dir = TestDir::new();
    let (bearer, access, secret) = (token(40), token(32), token(28));
    let rel = "sdk/keyvault/tests/recordings/test_secrets.pyTestSecretstest_get.json";
    dir.write(
        rel,
        format!(
            r#"{{
  "Entries": [
    {{
      "RequestUri": "https://vault.example.net/secrets/db?api-version=7.6&access_token={access}",
      "RequestMethod": "POST",
      "RequestHeaders": {{
        "Accept": "application/json",
        "Authorization": "Bearer {bearer}",
        "Content-Type": "application/json"
      }},
      "RequestBody": {{
        "password": "{secret}"
      }},
      "StatusCode": 200,
      "ResponseHeaders": {{
        "Content-Type": "application/json; charset=utf-8",
        "x-ms-request-id": "5c3a1b2d-0e4f-4a6b-8c9d-7e6f5a4b3c2d"
      }},
      "ResponseBody": {{
        "id": "https://vault.example.net/secrets/db/1"
      }}
    }}
  ],
  "Variables": {{}}
}}
"#
        ),
    );
    assert_found(
        &dir,
        &[rel],
        "Azure test-proxy",
        1,
        &["Authorization", "access_token", "/password"],
        &[&bearer, &access, &secret],
    );
    let run = dir.vcr(&["normalize", "--format", "json"]);
    let notes = replay_notes(&run.json());
    // The test-proxy matches the URI: its query parameter is a replay note in its words.
    assert!(
        notes
            .iter()
            .any(|(w, s)| w.contains("access_token") && s.contains("add_uri_regex_sanitizer")),
        "{notes:?}"
    );
    let text = dir.read(rel);
    serde_json::from_str::<Value>(&text).expect("still JSON");
    for s in [&bearer, &access, &secret] {
        assert!(!text.contains(s.as_str()));
    }
    dir.vcr(&["verify"]).code(0);
}

/// A shape no recorder of vcr's writes, read by its field names: `generic HTTP`.
#[test]
fn records_of_an_unknown_recorder_are_generic_http() {
    let dir = TestDir::new();
    let (bearer, secret) = (token(40), token(24));
    let rel = "spec/recordings/login.yaml";
    dir.write(
        rel,
        format!(
            "calls:\n- req:\n    verb: POST\n    href: https://api.example.com/session\n    header:\n    - name: Authorization\n      value: Bearer {bearer}\n    body: '{{\"token\": \"{secret}\"}}'\n  res:\n    code: 200\n    header: []\n    body: ok\n"
        ),
    );
    assert_found(
        &dir,
        &[rel],
        "generic HTTP",
        1,
        &["Authorization", "token"],
        &[&bearer, &secret],
    );
    dir.vcr(&["normalize"]).code(0);
    let text = dir.read(rel);
    assert!(!text.contains(&bearer) && !text.contains(&secret), "{text}");
    dir.vcr(&["verify"]).code(0);
}

/// What only looks like records (a response with no status) is no `parse` error: it is
/// linted as text, and a credential in it still fails the gate.
#[test]
fn what_only_looks_like_records_is_linted_as_text() {
    let dir = TestDir::new();
    let bearer = token(40);
    dir.write(
        "data/notes.json",
        format!(
            r#"{{"request": {{"method": "GET", "headers": {{"Authorization": "Bearer {bearer}"}}}}, "response": {{"note": "pending"}}}}"#
        ),
    );
    let run = dir.vcr(&["verify", "--format", "json", "data/notes.json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["as_text"], 1, "{doc:#}");
    assert!(findings(&doc, "parse").is_empty(), "{doc:#}");
    assert!(!findings(&doc, "leak/secret").is_empty(), "{doc:#}");
}
