//! WireMock's mappings read by structure (issue 39): WireMock itself records the `placed`
//! scenario (credentials no detector knows by their shape: an `Authorization` header, a
//! `token` field, an `access_token` query parameter) through its record API into
//! `src/test/resources/{mappings,__files}`, with no `vcr.toml`.
//!
//! `vcr verify` finds each credential by its place, named on the command line as pre-commit
//! names files and by a walk of the tree; `vcr normalize` replaces them in the matchers and
//! says that WireMock matches on them; the stubs then still load in WireMock and answer a
//! test that sends the placeholders. A body kept under `__files/` is read through its
//! mapping and written back there; WireMock.Net's PascalCase mappings (no recorder runs
//! here) are read from their documented shape, with planted values.

use crate::common;

use common::TestDir;
use common::recorders::{Recorder, record, replay, written};
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

/// Where each planted credential of the `placed` scenario is, as part of its pointer.
const PLACES: [(&str, &str); 3] = [
    ("Authorization header", "Authorization"),
    ("token field", "/token"),
    ("access_token query parameter", "access_token"),
];

#[test]
fn verify_finds_placed_credentials_named_and_by_walk_and_normalize_keeps_the_stubs_loadable() {
    let Some(mut recorded) = record(Recorder::WireMock, Scenario::placed()) else {
        return;
    };
    let mappings: Vec<String> = recorded
        .cassettes()
        .into_iter()
        .filter(|c| c.contains("/mappings/"))
        .collect();
    assert_eq!(mappings.len(), 2, "{:?}", recorded.cassettes());

    // By a walk of the tree, no configuration: every mapping read as WireMock's.
    let run = recorded.dir.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["WireMock"], 2, "{doc:#}");
    let secrets = findings(&doc, "leak/secret");
    for (label, place) in PLACES {
        assert!(
            secrets
                .iter()
                .any(|(p, line)| p.contains(place) && *line > 0),
            "no leak/secret at the {label} ({place}): {doc:#}"
        );
    }
    for (label, secret) in &recorded.scenario.secrets {
        assert!(
            !run.stdout.contains(secret.as_str()),
            "{label} shown unmasked"
        );
    }

    // Named, as pre-commit names staged files: the same findings.
    let mut named = vec!["verify", "--format", "json"];
    named.extend(mappings.iter().map(String::as_str));
    let run = recorded.dir.vcr(&named);
    run.code(1);
    assert_eq!(findings(&run.json(), "leak/secret"), secrets);

    // The scrub: the values are gone, the matchers hold the placeholders, and it says that
    // WireMock matches on them, in WireMock's words.
    let run = recorded.dir.vcr(&["normalize", "--format", "json"]);
    let doc = run.json();
    let affected: Vec<&Value> = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .collect();
    assert!(
        affected.iter().any(|e| e["what"]
            .as_str()
            .is_some_and(|w| w.contains("Authorization"))
            && e["setting"]
                .as_str()
                .is_some_and(|s| s.contains("captureHeaders"))),
        "no replay note for the Authorization matcher: {}",
        run.stdout
    );
    assert!(
        affected.iter().any(|e| e["what"]
            .as_str()
            .is_some_and(|w| w.contains("access_token"))),
        "no replay note for the query: {}",
        run.stdout
    );
    let files = recorded.dir.files("src/test/resources");
    let mut texts = String::new();
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        if name.ends_with(".json") {
            serde_json::from_slice::<Value>(bytes)
                .unwrap_or_else(|e| panic!("{name} is no longer JSON: {e}\n{text}"));
        }
        texts.push_str(&text);
    }
    for (label, secret) in &recorded.scenario.secrets {
        assert!(
            !texts.contains(secret.as_str()),
            "the {label} is still there"
        );
    }
    // WireMock records the query as `queryParameters` matchers (`hasExactly`), which the
    // scrub rewrites where they stand.
    let placeholders = [
        "\"equalTo\" : \"Bearer REDACTED_AUTHORIZATION\"",
        "REDACTED_TOKEN",
        "\"equalTo\" : \"REDACTED_ACCESS_TOKEN\"",
    ];
    for placeholder in placeholders {
        assert!(texts.contains(placeholder), "no {placeholder} in:\n{texts}");
    }
    recorded.dir.vcr(&["verify"]).code(0);

    // WireMock loads the scrubbed stubs and answers a test that sends the placeholders.
    let pairs: Vec<(String, String)> = recorded
        .scenario
        .secrets
        .iter()
        .zip([
            "REDACTED_AUTHORIZATION",
            "REDACTED_TOKEN",
            "REDACTED_ACCESS_TOKEN",
        ])
        .map(|((_, secret), placeholder)| (secret.clone(), placeholder.to_owned()))
        .collect();
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    recorded.scenario = recorded.scenario.clone().replacing(&pairs);
    let run = replay(&recorded);
    assert_eq!(
        run.code,
        Some(0),
        "WireMock did not answer from the scrubbed stubs:\n{}{}",
        run.stdout,
        run.stderr
    );
}

/// A mapping whose body WireMock keeps under `__files/` (the shape of hub4j/github-api's
/// recordings, with values of our own): a credential in the body file is found through its
/// mapping and scrubbed in that file, the mapping untouched; the body file named alone is
/// linted as text.
#[test]
fn a_body_under_files_is_read_through_its_mapping_and_scrubbed_there() {
    let dir = TestDir::new();
    let token = "Zq7fK2mWx9RtL4pBvN8cHs3JdYe6GaUo";
    dir.write(
        "src/test/resources/wiremock/mappings/1-user.json",
        r#"{
  "id": "6c3a8a52-1f0e-4c59-9a3e-2f1b7d2c9e01",
  "name": "user",
  "request": { "url": "/user", "method": "GET" },
  "response": {
    "status": 200,
    "bodyFileName": "1-user.json",
    "headers": { "Content-Type": "application/json; charset=utf-8" }
  },
  "uuid": "6c3a8a52-1f0e-4c59-9a3e-2f1b7d2c9e01",
  "persistent": true,
  "insertionIndex": 1
}"#,
    );
    let body = format!("{{\n  \"login\": \"dana\",\n  \"access_token\": \"{token}\"\n}}");
    dir.write("src/test/resources/wiremock/__files/1-user.json", &body);

    let run = dir.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["WireMock"], 1, "{doc:#}");
    let secrets = findings(&doc, "leak/secret");
    assert!(
        secrets
            .iter()
            .any(|(p, _)| p.contains("bodyFileName") && p.contains("access_token")),
        "{doc:#}"
    );

    // Named alone, the body file is no cassette: linted as text, and the token found.
    let run = dir.vcr(&[
        "verify",
        "--format",
        "json",
        "src/test/resources/wiremock/__files/1-user.json",
    ]);
    run.code(1);

    let mapping_before = dir.read("src/test/resources/wiremock/mappings/1-user.json");
    dir.vcr(&["normalize"]).code(0);
    let body_after = dir.read("src/test/resources/wiremock/__files/1-user.json");
    assert!(!body_after.contains(token), "{body_after}");
    serde_json::from_str::<Value>(&body_after).unwrap();
    assert_eq!(
        dir.read("src/test/resources/wiremock/mappings/1-user.json"),
        mapping_before
    );
    dir.vcr(&["verify"]).code(0);
}

/// WireMock.Net's proxy recordings keep the caller's `Authorization` as a matcher's
/// `Pattern` (OctopusDeploy/Octopus.TeamCitySharp, branch `mattr/rsb/wire-mock`, commit
/// c3df0146db09214f9b193222f10c2568fde44a7f,
/// `src/Tests/IntegrationTests/wiremock/__admin/mappings/proxy_mapping_GET_app_rest_bearertoken.json`:
/// its shape, with values of our own). No WireMock.Net runs here: the scrubbed file must
/// still be strict JSON with the placeholder in the pattern.
#[test]
fn dotnet_mappings_are_read_and_scrubbed_in_their_patterns() {
    let dir = TestDir::new();
    let secret = "hT4nQ8wLz2VbK6pR9sXyC3mJ";
    let rel = "wiremock/__admin/mappings/Proxy Mapping for _GET_app_rest.json";
    let text = format!(
        r#"{{
  "Guid": "5e50cd00-6d77-424a-8d8e-4980f0c1ea47",
  "UpdatedAt": "2025-01-01T01:45:29.565168Z",
  "Title": "Proxy Mapping for GET /app/rest",
  "Priority": -2000000,
  "Request": {{
    "Path": {{ "Matchers": [ {{ "Name": "WildcardMatcher", "Pattern": "/app/rest", "IgnoreCase": false }} ] }},
    "Methods": [ "GET" ],
    "Headers": [
      {{ "Name": "Authorization", "Matchers": [ {{ "Name": "WildcardMatcher", "Pattern": "Bearer {secret}", "IgnoreCase": true }} ], "IgnoreCase": true }}
    ]
  }},
  "Response": {{ "StatusCode": 200, "Body": "ok", "Headers": {{ "Content-Type": "text/plain" }} }}
}}"#
    );
    dir.write(rel, &text);
    let run = dir.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["WireMock"], 1, "{doc:#}");
    assert!(
        findings(&doc, "leak/secret")
            .iter()
            .any(|(p, line)| p.contains("Pattern") && p.contains("Authorization") && *line == 10),
        "{doc:#}"
    );
    let run = dir.vcr(&["normalize", "--format", "json"]);
    assert!(
        run.stdout.contains("ExcludedHeaders"),
        "WireMock.Net's own setting: {}",
        run.stdout
    );
    let after = dir.read(rel);
    assert!(!after.contains(secret));
    let value: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        value["Request"]["Headers"][0]["Matchers"][0]["Pattern"],
        "Bearer REDACTED_AUTHORIZATION"
    );
}

/// The stubs a WireMock user writes by hand for [`Scenario::stub_matchers`]: each matches
/// on a credential (a `url`'s query, a `queryParameters` matcher, an `Authorization`
/// matcher, `bodyPatterns` with `equalToJson`, `equalTo` and `contains`), and the answers
/// repeat some of them (`jsonBody`, a text `body`, a body under `__files/`).
fn matcher_stubs(dir: &TestDir, secrets: &[(&str, String)]) {
    let values: Vec<&str> = secrets.iter().map(|(_, s)| s.as_str()).collect();
    let [
        token,
        api_key,
        bearer,
        password,
        client_secret,
        refresh,
        access,
    ] = values[..]
    else {
        panic!("{secrets:?}")
    };
    let json = r#"{ "Content-Type": "application/json" }"#;
    let stubs = [
        (
            "items",
            format!(
                r#"{{ "request": {{ "method": "GET", "url": "/v1/items?token={token}&page=2" }},
  "response": {{ "status": 200, "headers": {json},
    "jsonBody": {{ "items": [1, 2], "next": "/v1/items?token={token}&page=3" }} }} }}"#
            ),
        ),
        (
            "search",
            format!(
                r#"{{ "request": {{ "method": "GET", "urlPath": "/v1/search",
    "queryParameters": {{ "api_key": {{ "equalTo": "{api_key}" }} }} }},
  "response": {{ "status": 200, "headers": {json},
    "body": "{{\"api_key\":\"{api_key}\",\"hits\":0}}" }} }}"#
            ),
        ),
        (
            "whoami",
            format!(
                r#"{{ "request": {{ "method": "GET", "urlPath": "/v1/whoami",
    "headers": {{ "Authorization": {{ "equalTo": "Bearer {bearer}" }} }} }},
  "response": {{ "status": 200, "headers": {json}, "bodyFileName": "whoami.json" }} }}"#
            ),
        ),
        (
            "login",
            format!(
                r#"{{ "request": {{ "method": "POST", "urlPath": "/v1/login",
    "bodyPatterns": [ {{ "equalToJson": "{{\"username\":\"dana\",\"password\":\"{password}\"}}" }} ] }},
  "response": {{ "status": 200, "headers": {json}, "jsonBody": {{ "ok": true }} }} }}"#
            ),
        ),
        (
            "token",
            format!(
                r#"{{ "request": {{ "method": "POST", "urlPath": "/oauth/token",
    "bodyPatterns": [ {{ "equalTo": "grant_type=client_credentials&client_secret={client_secret}" }} ] }},
  "response": {{ "status": 200, "headers": {json},
    "jsonBody": {{ "access_token": "{access}", "expires_in": 3600 }} }} }}"#
            ),
        ),
        (
            "refresh",
            format!(
                r#"{{ "request": {{ "method": "POST", "urlPath": "/oauth/refresh",
    "bodyPatterns": [ {{ "contains": "refresh_token={refresh}" }} ] }},
  "response": {{ "status": 200, "headers": {json}, "jsonBody": {{ "ok": true }} }} }}"#
            ),
        ),
    ];
    for (name, stub) in stubs {
        dir.write(&format!("src/test/resources/mappings/{name}.json"), stub);
    }
    dir.write(
        "src/test/resources/__files/whoami.json",
        format!(r#"{{"login":"dana","session_token":"{bearer}"}}"#),
    );
}

/// A scrub of hand-written stubs (issue 39): each credential a stub matches on is replaced
/// by one placeholder in the matcher and wherever the answer repeats it (a `jsonBody`, a
/// text `body`, a body under `__files/`); every stub is still JSON, `normalize` says which
/// matchers changed (the test must now send the placeholder) and says nothing of the
/// `access_token` only an answer holds; and WireMock itself, serving the scrubbed stubs,
/// answers a test that sends the placeholders with the placeholders where it echoed the
/// credentials.
#[test]
fn a_scrub_changes_a_matcher_and_the_answer_repeating_it_together_and_wiremock_serves_it() {
    let scenario = Scenario::stub_matchers();
    let dir = TestDir::new();
    matcher_stubs(&dir, &scenario.secrets);

    let run = dir.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["WireMock"], 6, "{doc:#}");

    let run = dir.vcr(&["normalize", "--format", "json"]);
    run.code(0);
    let doc = run.json();
    let files = dir.files("src/test/resources");
    let mut texts = String::new();
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        serde_json::from_slice::<Value>(bytes)
            .unwrap_or_else(|e| panic!("{name} is no longer JSON: {e}\n{text}"));
        texts.push_str(&text);
        texts.push('\n');
    }
    for (label, secret) in &scenario.secrets {
        assert!(
            !texts.contains(secret.as_str()),
            "the {label} is still there:\n{texts}"
        );
    }

    // One placeholder for each credential, the same in the matcher and in the answer.
    let mapping = |name: &str| -> Value {
        serde_json::from_str(&dir.read(&format!("src/test/resources/mappings/{name}.json")))
            .unwrap()
    };
    let items = mapping("items");
    assert_eq!(
        items["request"]["url"],
        "/v1/items?token=REDACTED_TOKEN&page=2"
    );
    assert_eq!(
        items["response"]["jsonBody"]["next"],
        "/v1/items?token=REDACTED_TOKEN&page=3"
    );
    let search = mapping("search");
    assert_eq!(
        search["request"]["queryParameters"]["api_key"]["equalTo"],
        "REDACTED_API_KEY"
    );
    assert_eq!(
        search["response"]["body"],
        r#"{"api_key":"REDACTED_API_KEY","hits":0}"#
    );
    assert_eq!(
        mapping("whoami")["request"]["headers"]["Authorization"]["equalTo"],
        "Bearer REDACTED_AUTHORIZATION"
    );
    assert_eq!(
        dir.read("src/test/resources/__files/whoami.json"),
        r#"{"login":"dana","session_token":"REDACTED_AUTHORIZATION"}"#
    );
    assert_eq!(
        mapping("login")["request"]["bodyPatterns"][0]["equalToJson"],
        r#"{"username":"dana","password":"REDACTED_PASSWORD"}"#
    );
    assert_eq!(
        mapping("token")["request"]["bodyPatterns"][0]["equalTo"],
        "grant_type=client_credentials&client_secret=REDACTED_CLIENT_SECRET"
    );
    assert_eq!(
        mapping("refresh")["request"]["bodyPatterns"][0]["contains"],
        "refresh_token=REDACTED_REFRESH_TOKEN"
    );

    // A note for each changed matcher, in WireMock's words; none for the answers alone.
    let notes: Vec<(String, String, String)> = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or("").to_owned();
            (text("path"), text("what"), text("setting"))
        })
        .collect();
    let expected = [
        ("items", "query parameter `token`", "queryParameters"),
        ("login", "request body", "bodyPatterns"),
        ("refresh", "request body", "bodyPatterns"),
        ("search", "query parameter `api_key`", "queryParameters"),
        ("token", "request body", "bodyPatterns"),
        ("whoami", "request header `Authorization`", "captureHeaders"),
    ];
    assert_eq!(notes.len(), expected.len(), "{notes:#?}");
    for ((path, what, setting), (stub, expected_what, words)) in notes.iter().zip(expected) {
        assert_eq!(
            path,
            &format!("src/test/resources/mappings/{stub}.json"),
            "{notes:#?}"
        );
        assert_eq!(what, expected_what, "{notes:#?}");
        assert!(setting.contains(words), "{stub}: {setting}");
    }
    dir.vcr(&["verify"]).code(0);

    // WireMock serves the scrubbed stubs to a test that sends the placeholders, and its
    // answers hold them where they held the credentials.
    let placeholders = [
        "REDACTED_TOKEN",
        "REDACTED_API_KEY",
        "REDACTED_AUTHORIZATION",
        "REDACTED_PASSWORD",
        "REDACTED_CLIENT_SECRET",
        "REDACTED_REFRESH_TOKEN",
        "REDACTED_ACCESS_TOKEN",
    ];
    let pairs: Vec<(&str, &str)> = scenario
        .secrets
        .iter()
        .map(|(_, secret)| secret.as_str())
        .zip(placeholders)
        .collect();
    let sending = scenario.clone().replacing(&pairs);
    let Some(served) = written(
        Recorder::WireMock,
        sending,
        dir,
        common::recorders::WIREMOCK_DEFAULT_FOLDER,
    ) else {
        return;
    };
    let run = replay(&served);
    assert_eq!(
        run.code,
        Some(0),
        "WireMock did not answer from the scrubbed stubs:\n{}{}",
        run.stdout,
        run.stderr
    );
    // The stubs match on what they say: the credentials themselves get no answer now.
    let Some(served) = written(
        Recorder::WireMock,
        scenario,
        served.dir,
        common::recorders::WIREMOCK_DEFAULT_FOLDER,
    ) else {
        return;
    };
    let run = replay(&served);
    assert_ne!(run.code, Some(0), "WireMock answered the old credentials");
    for name in ["items", "search", "whoami", "login", "token", "refresh"] {
        assert!(
            run.stderr.contains(&format!("{name}: status 404")),
            "{name} was answered:\n{}",
            run.stderr
        );
    }
}
