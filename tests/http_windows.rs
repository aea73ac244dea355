//! A HAR, a YAML cassette or a nock cassette too large to build whole is read a window of
//! interactions at a time (issues 25 and 43): `verify`, `normalize` and `diff` must say and
//! write exactly what they do when the file is read at once. The testing hook
//! `VCR_TEST_HTTP_WINDOW=1` makes every interaction a window of its own, so small files take
//! the windowed path, and each command's output is compared with the default run's, where
//! these files are read whole.

use crate::common;

use common::recorders::{Recorder, record};
use common::scenario::Scenario;
use common::{TestDir, finding_fields};
use serde_json::json;

/// Every entry its own window.
const WINDOWED: [(&str, &str); 1] = [("VCR_TEST_HTTP_WINDOW", "1")];

/// A UUID a server hands out in entry 0 and a client sends back in entry 1: replay keeps it.
const HANDED_OUT: &str = "3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b";
/// A UUID the client made up (entry 2), echoed by a later response only.
const MADE_UP: &str = "9b1e7c44-2f3a-4d8e-b5c6-7a8f9e0d1c2b";

/// An Anthropic key, built at run time.
fn key(tail: &str) -> String {
    let body = "Zq8Vw3Lm5Tk6Ry1HpXc2Nb4Md7Gf9Jh0Ks3Lq6Wt8Ey1Ru4Io7Pa".repeat(2);
    ["sk", "ant", "api03", &format!("{body}{tail}")].join("-")
}

fn entry(url: &str, body: &str, headers: &[(&str, &str)], when: &str) -> serde_json::Value {
    let headers: Vec<_> = headers
        .iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect();
    json!({
        "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": headers,
                    "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "content-type", "value": "application/json"}],
                     "cookies": [],
                     "content": {"mimeType": "application/json", "size": body.len(), "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "startedDateTime": when, "time": 1, "cache": {},
        "timings": {"send": 0, "wait": 1, "receive": 0}
    })
}

/// A Polly.js HAR as it writes one (2-space JSON), with `entries` and what else `log` holds.
fn har(entries: Vec<serde_json::Value>, comment: Option<&str>) -> String {
    let mut log = json!({"_recordingName": "windows", "version": "1.2",
                         "creator": {"name": "Polly.JS", "version": "6.0.6"}});
    if let Some(comment) = comment {
        log["comment"] = json!(comment);
    }
    log["entries"] = json!(entries);
    log["pages"] = json!([]);
    serde_json::to_string_pretty(&json!({ "log": log })).unwrap() + "\n"
}

/// Entries whose judgement looks across interactions, and a credential in each place.
fn entries(secret: bool) -> Vec<serde_json::Value> {
    let when = "2024-01-01T00:00:00.000Z";
    // A `PUT` under an id the client made up: not an object the server already had.
    let mut made_up = entry(
        &format!("https://api.example.com/jobs/{MADE_UP}"),
        "{}",
        &[],
        when,
    );
    made_up["request"]["method"] = json!("PUT");
    // `201 Created`: the request made the object, under the id it chose (a `PUT` answered
    // `200` updated one the server had).
    made_up["response"]["status"] = json!(201);
    made_up["response"]["statusText"] = json!("Created");
    let mut entries = vec![
        entry(
            "https://api.example.com/servers",
            &json!({ "id": HANDED_OUT }).to_string(),
            &[],
            when,
        ),
        entry(
            &format!("https://api.example.com/servers/{HANDED_OUT}"),
            "{}",
            &[],
            when,
        ),
        made_up,
        entry(
            "https://api.example.com/echo",
            &json!({ "id": MADE_UP }).to_string(),
            &[],
            "2024-03-01T00:00:00.000Z",
        ),
    ];
    if secret {
        let bearer = format!("Bearer {}", key("A"));
        let mut last = entry(
            "https://api.example.com/me",
            "{}",
            &[("authorization", bearer.as_str())],
            when,
        );
        // In an entry, where no interaction looks.
        last["comment"] = json!(format!("rotated: {}", key("C")));
        entries.push(last);
    }
    entries
}

/// Runs `args` read whole and read in windows: the same exit code and output.
#[track_caller]
fn same_either_way(t: &TestDir, args: &[&str]) -> common::Run {
    let whole = t.vcr(args);
    let windowed = t.vcr_with(args, &WINDOWED);
    assert_eq!(
        (&windowed.code, &windowed.stdout, &windowed.stderr),
        (&whole.code, &whole.stdout, &whole.stderr),
        "{args:?}"
    );
    whole
}

#[test]
fn verify_reads_a_har_in_windows_as_it_reads_it_whole() {
    let t = TestDir::new();
    let comment = format!("the old key: {}", key("B"));
    t.write("recordings/rec.har", har(entries(true), Some(&comment)));
    let run = same_either_way(&t, &["verify", "--format", "json"]);
    run.code(1);
    // The id a response of an earlier window handed out is no finding; the made-up one is,
    // though a later response echoes it; the header's key, and the key in `log.comment`
    // (the part no window holds) are found.
    assert_eq!(
        finding_fields(&run.json(), &["id", "severity", "pointer"]),
        [
            "leak/secret error (outside the interactions)",
            "leak/uuid error log.entries[2].request.url",
            "leak/secret error (outside the interactions)",
            "leak/secret error log.entries[4].request.headers[0].value (authorization)",
        ]
    );
    // The recorded time is the latest of every window's.
    let run = same_either_way(&t, &["verify", "--max-age", "30d", "--format", "json"]);
    let expired: Vec<String> = finding_fields(&run.json(), &["id", "message"])
        .into_iter()
        .filter(|f| f.starts_with("expired"))
        .collect();
    assert_eq!(expired.len(), 1);
    assert!(expired[0].contains("recorded on 2024-03-01"), "{expired:?}");
    same_either_way(&t, &["verify", "--format", "sarif"]);
}

#[test]
fn a_har_that_does_not_stream_or_read_is_reported_as_it_is_whole() {
    let t = TestDir::new();
    // A top-level key beside `log` (the file is read whole after all), a repeated key in
    // `log`, an entry without its request, and JSON cut short.
    let good = har(entries(true), None);
    let body = good.trim_end().strip_suffix('}').unwrap().trim_end();
    let extra = format!("{body},\n  \"x\": 1\n}}\n");
    let repeated = good.replacen(
        "\"version\": \"1.2\"",
        "\"version\": \"1.2\", \"version\": \"1.1\"",
        1,
    );
    let broken = good.replacen("\"request\"", "\"requests\"", 3);
    let cut = &good[..good.len() * 2 / 3];
    for (name, text) in [
        ("extra", extra.as_str()),
        ("repeated", &repeated),
        ("broken", &broken),
        ("cut", cut),
    ] {
        t.write(&format!("recordings/{name}.har"), text);
    }
    let run = same_either_way(&t, &["verify", "--format", "json"]);
    let parse: Vec<String> = finding_fields(&run.json(), &["id", "path"])
        .into_iter()
        .filter(|f| f.starts_with("parse"))
        .collect();
    assert_eq!(
        parse,
        ["parse recordings/broken.har", "parse recordings/cut.har"],
        "{}",
        run.stdout
    );
}

#[test]
fn normalize_judges_a_har_in_windows_and_scrubs_it_as_it_does_whole() {
    // Nothing to scrub: the windowed judgement is the whole answer.
    let t = TestDir::new();
    t.write("recordings/clean.har", har(entries(false), None));
    same_either_way(&t, &["normalize", "--check"]).code(0);
    same_either_way(&t, &["normalize"]).code(0);
    // A credential: the same plan, the same file written.
    let whole = TestDir::new();
    let windowed = TestDir::new();
    for dir in [&whole, &windowed] {
        dir.write("recordings/rec.har", har(entries(true), None));
    }
    let check = same_either_way(&whole, &["normalize", "--check", "--diff"]);
    check.code(1);
    whole.vcr(&["normalize"]).code(0);
    windowed.vcr_with(&["normalize"], &WINDOWED).code(0);
    let scrubbed = whole.read("recordings/rec.har");
    assert_eq!(windowed.read("recordings/rec.har"), scrubbed);
    assert!(!scrubbed.contains(&key("A")) && scrubbed.contains("REDACTED"));
    same_either_way(&whole, &["verify", "--format", "json"]).code(1);
}

#[test]
fn rules_of_the_users_are_applied_to_every_window_as_to_the_whole_file() {
    // A query rule's value swept from an earlier entry's scalars, a header rule, a field rule.
    let tenant = "acme-tenant-4417-prod";
    let mut entries = entries(false);
    entries[0]["comment"] = json!("7f3a9c2e81d4b6f0");
    entries.push(entry(
        "https://api.example.com/files?cursor=7f3a9c2e81d4b6f0&page=2",
        &json!({"session_id": "s-88213-qq", "ok": true}).to_string(),
        &[("x-tenant", tenant)],
        "2024-01-01T00:00:00.000Z",
    ));
    let config =
        "[http.scrub]\nheaders = [\"x-tenant\"]\nquery = [\"cursor\"]\nfields = [\"session_id\"]\n";
    let whole = TestDir::new();
    let windowed = TestDir::new();
    for dir in [&whole, &windowed] {
        dir.write("vcr.toml", config);
        dir.write("recordings/rec.har", har(entries.clone(), None));
    }
    same_either_way(&whole, &["normalize", "--check", "--format", "json"]).code(1);
    whole.vcr(&["normalize"]).code(0);
    windowed.vcr_with(&["normalize"], &WINDOWED).code(0);
    let scrubbed = whole.read("recordings/rec.har");
    assert_eq!(windowed.read("recordings/rec.har"), scrubbed);
    for gone in [tenant, "7f3a9c2e81d4b6f0", "s-88213-qq"] {
        assert!(!scrubbed.contains(gone), "{gone} is still there");
    }
}

/// What needs only the recorder (`prune`, `record`) reads a large HAR a window at a time too,
/// and finds what a whole read finds: the format, or the error.
#[test]
fn the_format_of_a_har_read_in_windows_is_the_whole_reads() {
    use vcr_cassette::http;
    let path = std::path::Path::new("recordings/rec.har");
    let good = har(entries(true), None);
    let broken = good.replacen("\"request\"", "\"requests\"", 3);
    let whole: Vec<_> = [&good, &broken]
        .iter()
        .map(|text| http::read(path, text.as_bytes()).map(|c| c.map(|c| c.format)))
        .collect();
    // Every entry a window of its own, in this process only: the options are a value.
    let in_windows = http::ReadOptions {
        http_window: Some(1),
        ..http::ReadOptions::default()
    };
    let windowed: Vec<_> = [&good, &broken]
        .iter()
        .map(|text| http::format_of(path, text.as_bytes(), &in_windows))
        .collect();
    assert_eq!(windowed, whole);
    assert_eq!(windowed[0], Ok(Some(http::har::FORMAT)));
    assert!(windowed[1].is_err());
}

#[test]
fn diff_reads_two_hars_in_windows_as_it_reads_them_whole() {
    let t = TestDir::new();
    let mut newer = entries(false);
    newer[1]["response"]["status"] = json!(404);
    newer.push(entry(
        "https://api.example.com/more",
        "{\"n\": 1}",
        &[],
        "2024-05-01T00:00:00.000Z",
    ));
    t.write("old/rec.har", har(entries(false), None));
    t.write("new/rec.har", har(newer, None));
    let run = same_either_way(&t, &["diff", "old/rec.har", "new/rec.har"]);
    run.code(1);
    assert!(run.stdout.contains("404"), "{}", run.stdout);
    same_either_way(&t, &["diff", "--full", "old", "new"]);
}

/// What lies outside the interactions (a field a recorder does not read, here Ruby VCR's
/// `with`) is judged against every interaction, whatever window holds them: a password
/// outside two interactions is one finding, and one a later interaction sends (a leak of its
/// own) is no second one, read whole or in windows (the `http` fuzz target found the first).
#[test]
fn what_lies_outside_the_interactions_is_judged_against_every_window() {
    let t = TestDir::new();
    let exchange = |with: &str, body: &str| {
        format!(
            "- request:\n    method: post\n    uri: https://api.example.org/v1/login\n    with:\n      string: '{with}'\n    body:\n      encoding: UTF-8\n      string: '{body}'\n    headers: {{}}\n  response:\n    status:\n      code: 200\n      message: OK\n    headers: {{}}\n    body:\n      encoding: UTF-8\n      string: ok\n  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT\n"
        )
    };
    // Drawn, not typed: a password of words and a number is a test value (issue 41).
    let twice = r#"{"password": "Xk9vQ2mZ7wLp4Rt8-twice"}"#;
    let held = r#"{"password": "Xk9vQ2mZ7wLp4Rt8-held-later"}"#;
    let cassette = format!(
        "---\nhttp_interactions:\n{}{}{}recorded_with: VCR 6.2.0\n",
        exchange(held, "{}"),
        exchange(twice, "{}"),
        exchange(twice, held),
    );
    t.write("spec/cassettes/login.yml", &cassette);
    let run = same_either_way(&t, &["verify", "--format", "json"]);
    let outside: Vec<String> = finding_fields(&run.json(), &["id", "pointer", "message"])
        .into_iter()
        .filter(|f| f.contains("(outside the interactions)"))
        .collect();
    assert_eq!(outside.len(), 1, "{}", run.stdout);
    assert!(
        outside[0].contains("(once more in this file)"),
        "{outside:?}"
    );
    same_either_way(&t, &["normalize", "--check", "--diff"]);
}

/// vcrpy's JSON serializer: the interactions' array read an item at a time, judged and
/// scrubbed as the whole file is.
#[test]
fn a_json_vcrpy_cassette_reads_in_windows_as_it_reads_whole() {
    let interaction = |n: usize, auth: &str| {
        json!({
            "request": {"body": null, "headers": {"Authorization": [auth]}, "method": "GET",
                        "uri": format!("https://api.example.com/v1/items/{n}")},
            "response": {"body": {"string": "{\"ok\": true}"}, "headers": {},
                         "status": {"code": 200, "message": "OK"}}
        })
    };
    let secret = format!("Bearer {}", key("J"));
    let items: Vec<serde_json::Value> = (0..4)
        .map(|n| interaction(n, if n == 2 { &secret } else { "Bearer REDACTED" }))
        .collect();
    let text = serde_json::to_string_pretty(&json!({"interactions": items, "version": 1})).unwrap();
    let whole = TestDir::new();
    let windowed = TestDir::new();
    for dir in [&whole, &windowed] {
        dir.write("cassettes/items.json", &text);
    }
    let run = same_either_way(&whole, &["verify", "--format", "json"]);
    run.code(1);
    assert_eq!(
        finding_fields(&run.json(), &["id", "pointer"]),
        ["leak/secret interactions[2].request.headers.Authorization[0]"]
    );
    same_either_way(&whole, &["normalize", "--check", "--diff"]).code(1);
    whole.vcr(&["normalize"]).code(0);
    windowed.vcr_with(&["normalize"], &WINDOWED).code(0);
    assert_eq!(
        windowed.read("cassettes/items.json"),
        whole.read("cassettes/items.json")
    );
    assert!(!whole.read("cassettes/items.json").contains(&key("J")));
}

macro_rules! recorded_tests {
    ($($module:ident: $recorder:expr;)*) => {$(
        mod $module {
            #[test]
            fn a_recorded_cassette_reads_in_windows_as_it_reads_whole() {
                super::a_recorded_cassette_reads_in_windows_as_it_reads_whole($recorder);
            }
        }
    )*};
}

recorded_tests! {
    vcrpy: super::Recorder::Vcrpy;
    ruby_vcr: super::Recorder::RubyVcr;
    go_vcr: super::Recorder::GoVcr;
    nock: super::Recorder::Nock;
}

/// A cassette its recorder wrote (vcrpy, Ruby VCR, go-vcr in YAML; nock's JSON list of
/// definitions), with credentials in every place a recorder keeps them, read an
/// interaction at a time: `verify` finds what it finds
/// whole, `normalize` plans and writes the same bytes (whose replay `http_scrub` checks), and
/// `diff` says the same. One of 100,000 interactions took 14 times its size read whole.
fn a_recorded_cassette_reads_in_windows_as_it_reads_whole(recorder: Recorder) {
    let Some(recorded) = record(recorder, Scenario::leaky()) else {
        return;
    };
    let t = &recorded.dir;
    let folder = recorded.folder.as_str();
    let run = same_either_way(t, &["verify", "--format", "json"]);
    run.code(1);
    let secrets = finding_fields(&run.json(), &["id"])
        .into_iter()
        .filter(|f| f == "leak/secret")
        .count();
    assert!(secrets >= 6, "{}", run.stdout);
    same_either_way(t, &["verify", "--max-age", "30d", "--format", "json"]);
    same_either_way(t, &["normalize", "--check", "--diff"]).code(1);
    let before = t.files(folder);
    t.vcr(&["normalize"]).code(0);
    let whole = t.files(folder);
    assert_ne!(whole, before);
    for (rel, bytes) in &before {
        t.write(rel, bytes);
        t.write(&format!("before/{rel}"), bytes);
    }
    t.vcr_with(&["normalize"], &WINDOWED).code(0);
    assert_eq!(t.files(folder), whole);
    // Only credentials changed, which `diff` masks: identical either way.
    let run = same_either_way(t, &["diff", &format!("before/{folder}"), folder]);
    run.code(0);
    assert!(
        run.stdout.contains("compared: all identical"),
        "{}",
        run.stdout
    );
}

/// An httprr trace read a record at a time: judged and scrubbed as the whole trace is, each
/// record's `N M` line written again with its new lengths (issue 43: read whole, a trace of
/// 16,000 records took 19 times its size to scrub).
#[test]
fn an_httprr_trace_reads_in_windows_as_it_reads_whole() {
    let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
    let mut text = String::from("httprr trace v1\n");
    for n in 0..4 {
        let auth = if n == 2 {
            format!("Bearer {}", key("H"))
        } else {
            "Bearer REDACTED".to_owned()
        };
        let request = format!(
            "GET https://api.example.com/v1/items/{n} HTTP/1.1\r\nHost: api.example.com\r\n\
             Authorization: {auth}\r\n\r\n"
        );
        text.push_str(&format!(
            "{} {}\n{request}{response}",
            request.len(),
            response.len()
        ));
    }
    let whole = TestDir::new();
    let windowed = TestDir::new();
    for dir in [&whole, &windowed] {
        dir.write("testdata/items.httprr", &text);
    }
    let run = same_either_way(&whole, &["verify", "--format", "json"]);
    run.code(1);
    assert_eq!(
        finding_fields(&run.json(), &["id", "pointer"]),
        ["leak/secret [2].request.headers.Authorization"]
    );
    same_either_way(&whole, &["normalize", "--check", "--diff"]).code(1);
    whole.vcr(&["normalize"]).code(0);
    windowed.vcr_with(&["normalize"], &WINDOWED).code(0);
    let scrubbed = whole.read("testdata/items.httprr");
    assert_eq!(windowed.read("testdata/items.httprr"), scrubbed);
    assert!(!scrubbed.contains(&key("H")));
    // The scrubbed trace reads again, every record's lengths true.
    windowed.vcr(&["verify"]).code(0);
}
