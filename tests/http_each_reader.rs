//! Each reader of issue 39 (php-vcr, ExVCR, R's vcr, WireMock, Hoverfly, govcr, DVR, Vinyl,
//! OkReplay, EasyVCR, responses, httpmock, httpreplay), one row per recorder, through the
//! commands that act on what a recorder matches and replays:
//!
//! - `normalize`'s `replay` note: a scrub that changes what the recorder matches a request on
//!   by default says so, once, in the recorder's own words (its filter hook or match rule),
//!   and a credential only in the response says nothing;
//! - `diff` of two folders: a copy is identical, a changed value the same behaviour, a
//!   changed status a behaviour change;
//! - `prune`: a run that reads one of two cassettes leaves the other the one orphan, and the
//!   recorder's own message for a request it has no recording for makes the run partial.
//!
//! Each row is a cassette of its recorder's shape (cut down from `tests/formats/`, whose
//! README names the public repository each comes from; WireMock's, Hoverfly's, R's vcr's and
//! responses' from what the recorders write in `tests/recorders_new.rs` and
//! `tests/http_hoverfly.rs`), with two markers: `@Q@`, in the request's query, and `@R@`,
//! only in the response (`@R64@`: base64 of `{"token":"@R@"}`, for the formats that keep a
//! body as base64). The miss messages are each recorder's, as its reader's `misses` rules
//! quote them from its sources.

use crate::common;

use base64::Engine as _;
use serde_json::Value;

use common::TestDir;
use common::scenario::planted_token;

/// One recorder's cassette.
struct Row {
    /// The format's name as `verify` counts it.
    format: &'static str,
    /// Where the cassette is written (its recorder's default folder where it has one).
    path: &'static str,
    text: &'static str,
    /// The query parameter `@Q@` is the value of.
    param: &'static str,
    /// Part of the note's setting: the recorder's own words. `None`: the recorder does not
    /// match on the query by default, so no note is due.
    setting: Option<&'static str>,
    /// Where a second cassette of the recorder is written, for `prune`.
    other: &'static str,
    /// What the recorder says when a replay finds no recording for a request.
    miss: &'static str,
}

const ROWS: &[Row] = &[
    Row {
        format: "php-vcr",
        path: "tests/fixtures/claims/create",
        text: "
-
    request:
        method: GET
        url: 'https://api.easypost.com/v2/claims?page=1&api_key=@Q@'
        headers:
            Host: api.easypost.com
            Accept: application/json
    response:
        status:
            code: 200
            message: OK
        headers:
            content-type: 'application/json; charset=utf-8'
        body: '{\"id\":\"clm_097c9f7b\",\"object\":\"Claim\",\"client_secret\":\"@R@\"}'
    index: 0
",
        param: "api_key",
        setting: Some("VCR_BEFORE_PLAYBACK"),
        other: "tests/fixtures/claims/list",
        miss: "The request does not match a previously recorded request and the 'mode' is set to 'none'. If you want to send the request anyway, make sure your 'mode' is set to 'new_episodes'.\n  Cassette: claims/list",
    },
    // ExVCR matches on the method, scheme, host, port and path by default: "By default,
    // query params are not used for matching" (parroty/exvcr's README, "Matching against
    // query params"; `match_requests_on: [:query]` adds them): a scrubbed query changes no
    // match.
    Row {
        format: "ExVCR",
        path: "fixture/vcr_cassettes/app#me.json",
        text: r#"[
  {
    "request": {
      "body": "",
      "headers": { "Accept": "application/json", "User-agent": "tentacat" },
      "method": "get",
      "options": [],
      "request_body": "",
      "url": "https://api.github.com/app?page=1&access_token=@Q@"
    },
    "response": {
      "binary": false,
      "body": "{\"id\":6615,\"token\":\"@R@\"}",
      "headers": { "Content-Type": "application/json; charset=utf-8" },
      "status_code": 200,
      "type": "ok"
    }
  }
]
"#,
        param: "access_token",
        setting: None,
        other: "fixture/vcr_cassettes/app#installations.json",
        miss: "Request did not match with any one in the current cassette: fixture/vcr_cassettes/app#installations.json.",
    },
    Row {
        format: "R vcr",
        path: "tests/fixtures/occurrences.yml",
        text: "http_interactions:
- request:
    method: get
    uri: https://api.gbif.org/v1/occurrence/search?limit=1&api_key=@Q@
    body:
      encoding: ''
      string: ''
    headers:
      Accept: application/json, text/xml, application/xml, */*
  response:
    status: 200
    headers:
      content-type: application/json
    body:
      encoding: ''
      file: no
      string: '{\"count\":1,\"token\":\"@R@\"}'
  recorded_at: 2025-09-04 10:23:03
recorded_with: VCR-vcr/2.0.0
",
        param: "api_key",
        setting: Some("filter_query_parameters"),
        other: "tests/fixtures/datasets.yml",
        miss: "Failed to find matching request in active cassette, \"datasets\"",
    },
    Row {
        format: "WireMock",
        path: "src/test/resources/mappings/v1_items-1.json",
        text: r#"{
  "id" : "f8dc1f92-234c-49fc-9ec3-02a886a738c6",
  "name" : "v1_items",
  "request" : {
    "url" : "/v1/items?page=1&api_key=@Q@",
    "method" : "GET"
  },
  "response" : {
    "status" : 200,
    "body" : "{\"token\":\"@R@\"}",
    "headers" : { "Content-Type" : "application/json" }
  },
  "uuid" : "f8dc1f92-234c-49fc-9ec3-02a886a738c6",
  "persistent" : true,
  "insertionIndex" : 1
}
"#,
        param: "api_key",
        setting: Some("queryParameters"),
        other: "src/test/resources/mappings/v1_users-2.json",
        miss: "Request was not matched",
    },
    Row {
        format: "Hoverfly",
        path: "simulations/items.json",
        text: r#"{
  "data": {
    "pairs": [
      {
        "request": {
          "path": [ { "matcher": "exact", "value": "/v1/items" } ],
          "method": [ { "matcher": "exact", "value": "GET" } ],
          "destination": [ { "matcher": "exact", "value": "api.example.com" } ],
          "scheme": [ { "matcher": "exact", "value": "https" } ],
          "query": {
            "page": [ { "matcher": "exact", "value": "1" } ],
            "api_key": [ { "matcher": "exact", "value": "@Q@" } ]
    },
          "body": [ { "matcher": "exact", "value": "" } ]
        },
        "response": {
          "status": 200,
          "body": "{\"token\":\"@R@\"}",
          "encodedBody": false,
          "headers": { "Content-Type": [ "application/json" ] },
          "templated": false
        }
      }
    ],
    "globalActions": { "delays": [], "delaysLogNormal": [] }
  },
  "meta": { "schemaVersion": "v5", "hoverflyVersion": "v1.5.0", "timeExported": "2023-01-01T00:00:00Z" }
}
"#,
        param: "api_key",
        setting: Some("glob"),
        other: "simulations/users.json",
        miss: "Could not find a match for request, create or record a valid matcher first",
    },
    Row {
        format: "govcr",
        path: "govcr-fixtures/ListRoles.cassette",
        text: r#"{
  "Name": "ListRoles",
  "Tracks": [
    {
      "Request": {
        "Method": "GET",
        "URL": {
          "Scheme": "http", "Opaque": "", "User": null, "Host": "localhost:8000",
          "Path": "/api/ipam/roles/", "RawPath": "", "ForceQuery": false,
          "RawQuery": "limit=50\u0026token=@Q@", "Fragment": "", "RawFragment": ""
    },
        "Header": { "Content-Type": [ "application/json" ] },
        "Body": ""
      },
      "Response": {
        "Status": "200 OK", "StatusCode": 200, "Proto": "HTTP/1.1", "ProtoMajor": 1, "ProtoMinor": 1,
        "Header": { "Content-Type": [ "application/json" ] },
        "Body": "@R64@",
        "ContentLength": 52, "TransferEncoding": null, "Trailer": null, "TLS": null
      },
      "ErrType": "",
      "ErrMsg": ""
    }
  ]
}
"#,
        param: "token",
        setting: Some("WithRequestMatchers"),
        other: "govcr-fixtures/ListSites.cassette",
        miss: "no track matched on cassette and offline mode is active",
    },
    Row {
        format: "DVR",
        path: "Tests/ContentfulTests/DVRRecordings/testFetchSpace.json",
        text: r#"{
  "interactions" : [
    {
      "recorded_at" : 1503485390.5163,
      "request" : {
        "method" : "GET",
        "url" : "https:\/\/cdn.contentful.com\/spaces\/cfexampleapi\/?locale=en&access_token=@Q@",
        "headers" : { "X-Contentful-User-Agent" : "sdk contentful.swift\/0.10.2" }
    },
      "response" : {
        "body" : "@R64@",
        "status" : 200,
        "url" : "https:\/\/cdn.contentful.com\/spaces\/cfexampleapi\/",
        "headers" : { "Content-Type" : "application\/vnd.contentful.delivery.v1+json" }
      }
    }
  ],
  "name" : "testFetchSpace"
}
"#,
        param: "access_token",
        setting: Some("DVR compares URLs whole"),
        other: "Tests/ContentfulTests/DVRRecordings/testFetchEntries.json",
        miss: "[DVR] Invalid request. The request was not found in the cassette.",
    },
    Row {
        format: "Vinyl",
        path: "SwiftNIOMockExampleUITests/Recordings/testGET.json",
        text: r#"[
  {
    "request" : {
      "method" : "GET",
      "url" : "http:\/\/localhost:8080\/items?page=1&api_key=@Q@",
      "headers" : { "Accept" : "application\/json" }
    },
    "response" : {
      "url" : "http:\/\/localhost:8080\/items",
      "status" : 200,
      "headers" : { "Content-Type" : "application\/json" },
      "body" : { "token" : "@R@" }
    }
  }
]
"#,
        param: "api_key",
        setting: Some("requestAttributes"),
        other: "SwiftNIOMockExampleUITests/Recordings/testPOST.json",
        miss: "No 🎶 recorded and matchable with request: GET http://localhost:8080/users",
    },
    Row {
        format: "OkReplay",
        path: "src/test/resources/okreplay/tapes/rest_conversation_tape.yaml",
        text: "!tape
name: rest conversation tape
interactions:
- recorded: 2012-10-21T14:04:39.797Z
  request:
    method: GET
    uri: http://freeside.co/thing/1?page=1&api_key=@Q@
    headers:
      Accept: '*/*'
      Host: freeside.co
  response:
    status: 200
    headers:
      Content-Type: application/json
    body: '{\"token\":\"@R@\"}'
",
        param: "api_key",
        setting: Some("MatchRules.method"),
        other: "src/test/resources/okreplay/tapes/users_tape.yaml",
        miss: "no matching request found on tape 'users tape'",
    },
    Row {
        format: "EasyVCR",
        path: "src/test/cassettes/refund/get_next_page.json",
        text: r#"[
  {
    "recordedAt": 1723823872,
    "request": {
      "body": "",
      "method": "GET",
      "headers": { "Accept-Charset": [ "UTF-8" ] },
      "uri": "https://api.easypost.com/v2/refunds?page_size\u003d5\u0026api_key\u003d@Q@"
    },
    "response": {
      "body": "{\n  \"refunded\": false,\n  \"token\": \"@R@\"\n}",
      "httpVersion": null,
      "headers": { "content-type": [ "application/json; charset\u003dutf-8" ] },
      "status": { "code": 200, "message": "OK" },
      "uri": "https://api.easypost.com/v2/refunds"
    },
    "duration": 334
  }
]
"#,
        param: "api_key",
        setting: Some("ByFullUrl()"),
        other: "src/test/cassettes/refund/all.json",
        miss: "No interaction found for request GET https://api.easypost.com/v2/refunds/all",
    },
    Row {
        format: "responses",
        path: "cassettes/items.yaml",
        text: "responses:
- response:
    auto_calculate_content_length: false
    body: '{\"token\": \"@R@\"}'
    content_type: application/json
    headers: {}
    method: GET
    status: 200
    url: https://api.example.com/v1/items?page=1&api_key=@Q@
",
        param: "api_key",
        setting: Some("_add_from_file"),
        other: "cassettes/users.yaml",
        miss: "Connection refused by Responses - the call doesn't match any registered mock.",
    },
    Row {
        format: "httpmock",
        path: "tests/recordings/items_1796626844.yaml",
        text: "when:
  path: /v1/items
  method: GET
  query_param:
  - name: page
    value: '1'
  - name: api_key
    value: @Q@
then:
  status: 200
  header:
  - name: content-type
    value: application/json
  body: '{\"token\":\"@R@\"}'
",
        param: "api_key",
        setting: Some("query_param"),
        other: "tests/recordings/users_1796626845.yaml",
        miss: "Request did not match any route or mock",
    },
    Row {
        format: "httpreplay",
        path: "blob/testdata/TestKeys/startwithdigit.replay",
        text: r#"{
  "Initial": "AQAAAA7hTghqKR11MAAA",
  "Version": "0.2",
  "Converter": {
    "ScrubBody": null,
    "ClearHeaders": [ "^X-Amz-Date$", "^User-Agent$" ],
    "RemoveRequestHeaders": [ "^Authorization$", "^Proxy-Authorization$" ],
    "RemoveResponseHeaders": null,
    "ClearParams": null,
    "RemoveParams": null
  },
  "Entries": [
    {
      "ID": "a07efe5b5492083b",
      "Request": {
        "Method": "GET",
        "URL": "https://go-cloud-testing-2.s3.us-west-1.amazonaws.com/weird-keys12345?x-id=GetObject\u0026access_token=@Q@",
        "Header": { "User-Agent": [ "CLEARED" ] },
        "MediaType": "",
        "BodyParts": []
    },
      "Response": {
        "StatusCode": 200, "Proto": "HTTP/1.1", "ProtoMajor": 1, "ProtoMinor": 1,
        "Header": { "Content-Type": [ "application/json" ] },
        "Body": "@R64@"
      }
    }
  ]
}
"#,
        param: "access_token",
        setting: Some("RemoveQueryParams"),
        other: "blob/testdata/TestKeys/startwithletter.replay",
        miss: "no matching request for GET https://go-cloud-testing-2.s3.us-west-1.amazonaws.com/a",
    },
];

/// The `(interaction, what, setting)` of each `replay_affected` event of a `normalize
/// --format json` run.
fn notes(doc: &Value) -> Vec<(u64, String, String)> {
    doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .map(|e| {
            (
                e["interaction"].as_u64().unwrap_or(u64::MAX),
                e["what"].as_str().unwrap_or("").to_owned(),
                e["setting"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// The row's cassette with `query` for `@Q@` and `answer` for `@R@`.
fn plant(row: &Row, query: &str, answer: &str) -> String {
    let body = format!("{{\"token\":\"{answer}\"}}");
    let b64 = base64::engine::general_purpose::STANDARD.encode(body);
    row.text
        .replace("@Q@", query)
        .replace("@R64@", &b64)
        .replace("@R@", answer)
}

/// Writes `row` with `query` for `@Q@` and `answer` for `@R@`, checks that `verify` reads it
/// as the row's format, runs `normalize`, and returns its notes; `verify` then still reads
/// the file as the row's format, with nothing left to find.
fn scrub_with_notes(row: &Row, query: &str, answer: &str) -> Vec<(u64, String, String)> {
    let text = plant(row, query, answer);
    let dir = TestDir::new();
    dir.write(row.path, &text);
    let run = dir.vcr(&["verify", "--format", "json"]);
    let doc = run.json();
    assert_eq!(
        doc["summary"]["http"][row.format], 1,
        "{}: not read as its recorder's:\n{doc:#}",
        row.format
    );
    run.code(1);
    let run = dir.vcr(&["normalize", "--format", "json"]);
    run.code(0);
    let notes = notes(&run.json());
    let after = dir.read(row.path);
    for secret in [query, answer].into_iter().filter(|s| s.len() > 8) {
        assert!(
            !after.contains(secret),
            "{}: {secret} is still there:\n{after}",
            row.format
        );
    }
    let run = dir.vcr(&["verify", "--format", "json"]);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"][row.format], 1, "{doc:#}");
    run.code(0);
    notes
}

#[test]
fn a_scrubbed_query_says_what_the_recorder_matches_on_and_an_answer_alone_says_nothing() {
    for row in ROWS {
        let query = planted_token();
        let answer = planted_token();
        let notes = scrub_with_notes(row, &query, &answer);
        match row.setting {
            Some(setting) => {
                let [(interaction, what, said)] = &notes[..] else {
                    panic!("{}: one note expected, got {notes:#?}", row.format)
                };
                assert_eq!(*interaction, 0, "{}", row.format);
                assert_eq!(
                    what,
                    &format!("query parameter `{}`", row.param),
                    "{}",
                    row.format
                );
                assert!(
                    said.contains(setting),
                    "{}: the note does not say `{setting}`: {said}",
                    row.format
                );
            }
            None => assert!(notes.is_empty(), "{}: {notes:#?}", row.format),
        }
        // A harmless query: only the answer is scrubbed, and no match changes.
        let notes = scrub_with_notes(row, "2", &answer);
        assert!(notes.is_empty(), "{}: {notes:#?}", row.format);
    }
}

/// `vcr diff` of two folders, as a re-recording is reviewed: each recorder's cassette copied
/// is identical (exit 0); with a value of its answer changed it is the same behaviour; with
/// its status changed it is a behaviour change naming the status. Each is read as an HTTP
/// cassette (php-vcr's, without an extension, was left out of a folder's comparison).
#[test]
fn diff_gives_each_recorders_rerecording_its_verdict() {
    for row in ROWS {
        let old = plant(row, "1", "alpha-one");
        let dir = TestDir::new();
        dir.write(&format!("old/{}", row.path), &old);
        let cases = [
            ("copied", old.clone(), "identical"),
            (
                "a value changed",
                plant(row, "1", "omega-two"),
                "same_behaviour",
            ),
            (
                "the status changed",
                old.replace("200", "503"),
                "behaviour_change",
            ),
        ];
        for (label, new, verdict) in cases {
            dir.write(&format!("new/{}", row.path), &new);
            let run = dir.vcr(&["diff", "--format", "json", "old", "new"]);
            let doc = run.json();
            let context = format!("{} ({label}): {doc:#}", row.format);
            let entries: Vec<&Value> = doc["events"]
                .as_array()
                .expect("events")
                .iter()
                .filter(|e| e["type"] == "diff")
                .collect();
            run.code(if verdict == "identical" { 0 } else { 1 });
            let [entry] = entries[..] else {
                panic!("one cassette expected: {context}")
            };
            assert_eq!(entry["path"], row.path, "{context}");
            assert_eq!(entry["kind"], "http", "{context}");
            assert_eq!(entry["verdict"], verdict, "{context}");
            if verdict == "behaviour_change" {
                let changes = entry["changes"].as_array().expect("changes");
                assert!(
                    changes
                        .iter()
                        .any(|c| c["what"] == "status" && c["old"] == 200 && c["new"] == 503),
                    "{context}"
                );
            }
        }
    }
}

/// A Ruby VCR cassette: a recorder the runs below never use.
const RUBY_CASSETTE: &str = "---\nhttp_interactions:\n- request:\n    method: get\n    uri: http://example.com/\n    body:\n      encoding: UTF-8\n      string: ''\n    headers: {}\n  response:\n    status:\n      code: 200\n      message: OK\n    headers: {}\n    body:\n      encoding: UTF-8\n      string: ok\n  recorded_at: Tue, 01 Apr 2025 10:00:00 GMT\nrecorded_with: VCR 5.0.0\n";

/// `vcr prune` over two cassettes of each recorder and a Ruby VCR one, with a run that
/// reads one of the two (its file opens are what prune watches): the other is the one
/// orphan, and `--delete` removes it alone; a run that prints the recorder's own message
/// for a request with no recording, though it exits 0, is not green, and prune refuses.
#[test]
fn prune_lists_what_a_run_did_not_read_and_hears_each_recorders_miss() {
    for row in ROWS {
        let dir = TestDir::new();
        dir.write(row.path, plant(row, "1", "alpha-one"));
        dir.write(row.other, plant(row, "2", "omega-two"));
        dir.write("spec/cassettes/other_suite.yml", RUBY_CASSETTE);
        dir.write(".gitignore", ".vcr/\n");
        common::git(&dir.root, &["init", "-q"]);
        common::git(&dir.root, &["add", "-A"]);
        common::git(&dir.root, &["commit", "-q", "-m", "recorded"]);
        let reads = format!("cat '{}' > /dev/null", row.path);

        let run = dir.vcr(&["prune", "--format", "json", "--", "sh", "-c", &reads]);
        run.code(0);
        let doc = run.json();
        let orphans: Vec<&str> = doc["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["type"] == "orphan")
            .filter_map(|e| e["path"].as_str())
            .collect();
        assert_eq!(orphans, [row.other], "{}: {doc:#}", row.format);

        let missed = format!("{reads}; printf '%s\\n' \"$1\" >&2; exit 0");
        let run = dir.vcr(&[
            "prune", "--delete", "--", "sh", "-c", &missed, "sh", row.miss,
        ]);
        run.code(2);
        assert!(
            run.stderr.contains("it did not find") && run.stderr.contains("nothing was pruned"),
            "{}: {}",
            row.format,
            run.stderr
        );
        assert!(dir.exists(row.other), "{}", row.format);

        dir.vcr(&["prune", "--delete", "--", "sh", "-c", &reads])
            .code(0);
        assert!(!dir.exists(row.other), "{}", row.format);
        assert!(dir.exists(row.path), "{}", row.format);
        assert!(
            dir.exists("spec/cassettes/other_suite.yml"),
            "{}",
            row.format
        );
    }
}
