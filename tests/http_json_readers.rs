//! The HAR, nock, talkback and httprr readers on the real cassettes of the shared corpus
//! (issue 9): every file that one of these recorders wrote is read by structure, as that
//! format, without a read error. The corpus is read in place; without it the test says so
//! on stderr and passes.

use crate::common;

use std::collections::BTreeMap;

use vcr_cassette::http::{self, Format};

/// The format a corpus file was written in, judged by where it is and what it is named
/// (never by its content, which is what the readers are tested on), for the formats of this
/// test; `None` for every other file.
fn expected(rel: &str) -> Option<Format> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.ends_with(".har") || name.ends_with(".har.yaml") {
        Some(http::har::FORMAT)
    } else if name.ends_with(".httprr") || name.ends_with(".httprr.gz") {
        Some(http::httprr::FORMAT)
    } else if (rel.starts_with("nock__nock/") || rel.starts_with("octokit__fixtures/"))
        && name.ends_with(".json")
    {
        Some(http::nock::FORMAT)
    } else if rel.starts_with("ijpiantanida__talkback/") && name.ends_with(".json5") {
        Some(http::talkback::FORMAT)
    } else {
        None
    }
}

/// Files of these formats that are broken on purpose, and what the reader must say.
const BROKEN: &[(&str, Format, &str)] = &[(
    // talkback's own test of a tape that does not parse: `"createdAt": ...,` then `}`.
    "ijpiantanida__talkback/test/tapes/malformed-tape.json",
    http::talkback::FORMAT,
    "",
)];

#[test]
fn corpus_cassettes_of_har_nock_talkback_and_httprr_are_read_by_structure() {
    let Some(root) = common::corpus("") else {
        return;
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = std::fs::read(entry.path()).unwrap();
        let got = http::read(entry.path(), &bytes);
        let broken = BROKEN.iter().find(|(path, ..)| *path == rel);
        match (expected(&rel), got, broken) {
            (_, Err(e), Some((_, format, _))) if e.format == *format => {
                *counts
                    .entry(format!("{} (broken on purpose)", format.name()))
                    .or_default() += 1;
            }
            (_, got, Some(_)) => {
                failures.push(format!("{rel}: broken on purpose, read as {got:?}"));
            }
            (Some(format), Ok(Some(cassette)), None) if cassette.format == format => {
                let key = if format == http::har::FORMAT && rel.ends_with(".yaml") {
                    "HAR (YAML)".to_owned()
                } else if format == http::httprr::FORMAT && cassette.compressed {
                    "httprr (gzip)".to_owned()
                } else {
                    format.name().to_owned()
                };
                *counts.entry(key).or_default() += 1;
                let interactions = cassette.interactions.len();
                *counts
                    .entry(format!("{} interactions", format.name()))
                    .or_default() += interactions;
                check_fields(&rel, &bytes, &cassette, &mut failures);
                check_bodies(&rel, &cassette, &mut counts, &mut failures);
            }
            (Some(format), Ok(Some(cassette)), None) => failures.push(format!(
                "{rel}: expected {}, read as {}",
                format.name(),
                cassette.format.name()
            )),
            (Some(format), Ok(None), None) => {
                failures.push(format!("{rel}: expected {}, not recognised", format.name()));
            }
            (expected, Err(e), None) if mine(e.format) || expected.is_some() => {
                failures.push(format!("{rel}: {} at byte {}", e.message, e.offset));
            }
            (None, Ok(Some(cassette)), None) if mine(cassette.format) => failures.push(format!(
                "{rel}: read as {}, which this test does not expect",
                cassette.format.name()
            )),
            _ => {}
        }
    }
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!("read by structure: {counts:#?}\n"),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        counts.len() > 4,
        "the corpus holds none of these formats: {counts:?}"
    );
}

fn mine(format: Format) -> bool {
    [
        http::har::FORMAT,
        http::nock::FORMAT,
        http::talkback::FORMAT,
        http::httprr::FORMAT,
    ]
    .contains(&format)
}

/// Every field the reader kept points at its text in the file: a JSON string's offset at
/// its opening quote, anything else at the text itself (decompressed files excepted).
fn check_fields(
    rel: &str,
    bytes: &[u8],
    cassette: &http::HttpCassette,
    failures: &mut Vec<String>,
) {
    if cassette.compressed {
        return;
    }
    let text = String::from_utf8_lossy(bytes);
    let mut check = |field: &http::Field| {
        let Some(at) = field.at else { return };
        let at = at as usize;
        let rest = text.get(at..).unwrap_or_default();
        // A quoted or block scalar starts with its indicator; then comes the text, up to
        // its first character that could have been escaped or folded.
        let plain: String = field
            .text
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "-_/.:;,=*()".contains(*c))
            .take(16)
            .collect();
        let ok = rest.starts_with(&plain)
            || (rest.starts_with(['"', '\'', '|', '>'])
                && rest[1..].trim_start().starts_with(&plain));
        if !ok {
            failures.push(format!(
                "{rel}: {} at byte {at} holds `{}`, not `{}`",
                field.path,
                rest.chars().take(20).collect::<String>(),
                field.text.chars().take(20).collect::<String>()
            ));
        }
    };
    for interaction in &cassette.interactions {
        let request = &interaction.request;
        check(&request.method);
        for header in &request.headers {
            check(&header.value);
        }
        if let Some(response) = &interaction.response {
            for header in &response.headers {
                check(&header.value);
            }
        }
        if let Some(at) = &interaction.recorded_at {
            check(at);
        }
    }
}

/// Counts the bodies by how the cassette stored them, and checks that a gzip response whose
/// stored encoding was undone (base64, hex, Polly's chunk lists) decodes to gzip bytes.
fn check_bodies(
    rel: &str,
    cassette: &http::HttpCassette,
    counts: &mut BTreeMap<String, usize>,
    failures: &mut Vec<String>,
) {
    let name = cassette.format.name();
    for interaction in &cassette.interactions {
        let response = interaction.response.as_ref();
        let bodies = [
            (
                "request",
                &interaction.request.body,
                &interaction.request.headers,
            ),
            (
                "response",
                response.map_or(&None, |r| &r.body),
                response.map_or(&interaction.request.headers, |r| &r.headers),
            ),
        ];
        for (side, body, headers) in bodies {
            let kind = match body {
                None => "none".to_owned(),
                Some(http::Body::Data { .. }) => "data".to_owned(),
                Some(http::Body::Bytes {
                    stored,
                    bytes,
                    field,
                }) => {
                    let gzip = headers.iter().any(|h| {
                        h.name.eq_ignore_ascii_case("content-encoding") && h.value.text == "gzip"
                    });
                    if side == "response"
                        && gzip
                        && !stored.is_empty()
                        && !bytes.is_empty()
                        && !bytes.starts_with(&[0x1f, 0x8b])
                    {
                        failures.push(format!(
                            "{rel}: {} ({}) is not gzip although its response says so",
                            field.path,
                            stored.join(", ")
                        ));
                    }
                    if stored.is_empty() {
                        "text".to_owned()
                    } else {
                        stored.join("+")
                    }
                }
            };
            *counts
                .entry(format!("{name} {side} bodies: {kind}"))
                .or_default() += 1;
        }
    }
}

/// Reads `text` (at `path`) through the content dispatch.
#[track_caller]
fn read(path: &std::path::Path, bytes: &[u8]) -> http::HttpCassette {
    http::read(path, bytes)
        .unwrap_or_else(|e| panic!("{}: {e} at {}", path.display(), e.offset))
        .unwrap_or_else(|| panic!("{}: not recognised", path.display()))
}

/// The text of `text` at a field's offset.
fn at<'t>(text: &'t str, field: &http::Field) -> &'t str {
    &text[field.at.unwrap() as usize..]
}

// Regression (issue 9): talkback's own tapes open with a `//` comment line, which the
// dispatch took for "not JSON" and left as text.
#[test]
fn a_talkback_tape_that_opens_with_a_comment_is_read_as_json5() {
    let text = "// recorded by talkback\n{\n    meta: {\n        createdAt: '2024-01-02T03:04:05.000Z',\n        host: 'https://api.example.test',\n        reqHumanReadable: true,\n    },\n    req: {\n        url: '/v1/me',\n        method: 'GET',\n        headers: {\n            authorization: 'Bearer abc',\n        },\n        body: '',\n    },\n    res: {\n        status: 200,\n        headers: {'content-type': ['application/json']},\n        body: {ok: true},\n    },\n}\n";
    let cassette = read(std::path::Path::new("tapes/me.json5"), text.as_bytes());
    assert_eq!(cassette.format, http::talkback::FORMAT);
    let tape = &cassette.interactions[0];
    assert_eq!(tape.request.url.text, "https://api.example.test/v1/me");
    assert!(at(text, &tape.request.url).starts_with("'/v1/me'"));
    let auth = &tape.request.headers[0].value;
    assert_eq!(
        (auth.text.as_str(), auth.path.as_str()),
        ("Bearer abc", "req.headers.authorization")
    );
    assert!(at(text, auth).starts_with("'Bearer abc'"));
    assert!(matches!(
        &tape.response.as_ref().unwrap().body,
        Some(http::Body::Data { path, .. }) if path == "res.body"
    ));
    assert!(at(text, tape.recorded_at.as_ref().unwrap()).starts_with("'2024-01-02"));
}

#[test]
fn a_tape_cut_short_is_a_talkback_parse_error() {
    let text = "{\n    \"meta\": {\n        \"createdAt\": \"2017-09-10T23:19:27.010Z\",\n\n}";
    let e = http::read(std::path::Path::new("t.json"), text.as_bytes()).unwrap_err();
    assert_eq!(e.format, http::talkback::FORMAT);
    assert!(e.offset <= text.len(), "{e:?}");
}

#[test]
fn a_gzip_httprr_trace_is_read_with_offsets_in_the_decompressed_text() {
    use std::io::Write as _;
    let request = "GET https://h.test/v1?key=k HTTP/1.1\r\nHost: h.test\r\n\r\n";
    let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    let text = format!(
        "httprr trace v1\n{} {}\n{request}{response}",
        request.len(),
        response.len()
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let cassette = read(
        std::path::Path::new("TestX.httprr.gz"),
        &gz.finish().unwrap(),
    );
    assert_eq!(
        (cassette.format, cassette.compressed),
        (http::httprr::FORMAT, true)
    );
    let interaction = &cassette.interactions[0];
    assert_eq!(interaction.path, "[0]");
    assert!(at(&text, &interaction.request.url).starts_with("https://h.test/v1?key=k HTTP"));
    let response = interaction.response.as_ref().unwrap();
    assert_eq!(response.status, Some(200));
    match &response.body {
        Some(http::Body::Bytes { bytes, field, .. }) => {
            assert_eq!(bytes, b"ok");
            assert_eq!(at(&text, field), "ok");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_har_in_yaml_is_read_with_the_positions_of_its_scalars() {
    let text = "log:\n  _recordingName: r\n  creator:\n    name: Polly.JS\n  entries:\n    - _id: a1\n      request:\n        headers:\n          - name: authorization\n            value: token\n              REDACTED_0123\n        method: POST\n        postData:\n          mimeType: application/json\n          params: []\n          textJSON:\n            model: m\n        url: https://h.test/.api/x?api-version=1\n      response:\n        content:\n          mimeType: text/plain\n          text: |\n            hello\n        headers: []\n        status: 200\n      startedDateTime: 2025-03-17T15:56:45.742Z\n";
    let cassette = read(
        std::path::Path::new("r/recording.har.yaml"),
        text.as_bytes(),
    );
    assert_eq!(cassette.format, http::har::FORMAT);
    let entry = &cassette.interactions[0];
    let auth = &entry.request.headers[0].value;
    assert_eq!(auth.text, "token REDACTED_0123");
    assert_eq!(auth.path, "log.entries[0].request.headers[0].value");
    assert!(at(text, auth).starts_with("token\n"));
    assert!(matches!(
        &entry.request.body,
        Some(http::Body::Data { path, node }) if path == "log.entries[0].request.postData.textJSON" && node.get("model").is_some()
    ));
    let response = entry.response.as_ref().unwrap();
    assert_eq!(response.status, Some(200));
    match &response.body {
        Some(http::Body::Bytes { bytes, field, .. }) => {
            assert_eq!(bytes, b"hello\n");
            // The block scalar's indicator, or (as `doc::yaml` places block scalars today)
            // its first line.
            let rest = at(text, field);
            assert!(
                rest.starts_with('|') || rest.starts_with("hello\n"),
                "{rest:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        entry.recorded_at.as_ref().unwrap().text,
        "2025-03-17T15:56:45.742Z"
    );
}

#[test]
fn a_broken_json_har_is_a_har_parse_error_at_its_offset() {
    let text = "{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"Polly.JS\"}, \"entries\": [{\"request\": }]}}";
    let e = http::read(std::path::Path::new("recording.har"), text.as_bytes()).unwrap_err();
    assert_eq!(e.format, http::har::FORMAT);
    assert_eq!(&text[e.offset..], "}]}}");
    // Without a HAR's own `creator`, it only looked like one: no cassette of a format vcr
    // reads, linted as text (issue 39).
    let text = "{\"log\": {\"entries\": [{\"request\": }]}}";
    assert_eq!(
        http::read(std::path::Path::new("recording.har"), text.as_bytes()),
        Ok(None)
    );
}

#[test]
fn a_playwright_har_reads_its_sidecar_through_the_dispatch() {
    let t = common::TestDir::new();
    t.write("har/0a1b.json", "{\"token\":\"t\"}");
    let text = r#"{"log":{"version":"1.2","creator":{"name":"Playwright"},"entries":[{"startedDateTime":"2024-01-01T00:00:00.000Z","request":{"method":"GET","url":"http://h.test/","headers":[]},"response":{"status":200,"headers":[],"content":{"size":13,"mimeType":"application/json","_file":"0a1b.json"}}}]}}"#;
    t.write("har/recording.har", text);
    let cassette = read(&t.path("har/recording.har"), text.as_bytes());
    match &cassette.interactions[0].response.as_ref().unwrap().body {
        Some(http::Body::Bytes { bytes, stored, .. }) => {
            assert_eq!(
                (&bytes[..], &stored[..]),
                (&b"{\"token\":\"t\"}"[..], &["file"][..])
            );
        }
        other => panic!("{other:?}"),
    }
    // The same HAR beside no sidecar: a read error naming the file.
    let e = http::read(&t.path("elsewhere/recording.har"), text.as_bytes()).unwrap_err();
    assert_eq!(e.format, http::har::FORMAT);
    assert!(e.message.contains("`0a1b.json`"), "{e}");
}
