//! The scrub itself (issue 25): a cassette built from the input, in one of the formats the
//! recorders write (vcrpy YAML, Ruby VCR JSON, nock JSON, an httprr trace), with credentials
//! of real shapes planted in headers, query strings, JSON bodies and text bodies around text
//! the input chooses; then `scrub` with the default set. When the scrub succeeds and says
//! nothing is left, the result reads back as a cassette of the same format with the same
//! number of interactions, holds none of the planted credentials, and every length the format
//! records is true (a `Content-Length` that gave the body's length, httprr's record lengths,
//! which the read-back checks).
#![no_main]

mod default_scrub;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use vcr_cassette::http::{self, Body};

/// Reads the input a byte at a time; past its end, zeros.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }

    /// Up to `max` characters of plain text (letters, digits, a few separators): text that
    /// needs no quoting in any of the formats, so the cassette is always well-formed.
    fn text(&mut self, max: usize) -> String {
        const ALPHABET: &[u8] =
            b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.";
        let n = self.byte() as usize % (max + 1);
        (0..n)
            .map(|_| ALPHABET[self.byte() as usize % ALPHABET.len()] as char)
            .collect::<String>()
            .trim()
            .to_owned()
    }

    /// A credential of a real shape, its body drawn from the input (never a run of one
    /// character, which would read as a placeholder).
    fn credential(&mut self) -> String {
        const BODY: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        let kind = self.0.first().copied().unwrap_or(0) % 4;
        let mut body = |n: usize| -> String {
            (0..n)
                .map(|i| BODY[(self.byte() as usize + i * 7) % BODY.len()] as char)
                .collect()
        };
        match kind {
            0 => format!("sk-proj-{}", body(40)),
            1 => format!("ghp_{}", body(36)),
            2 => format!("AKIA{}", body(16).to_ascii_uppercase()),
            _ => format!("sk-ant-api03-{}", body(40)),
        }
    }
}

struct Exchange {
    path: String,
    query_key: Option<String>,
    auth: Option<String>,
    request_body: String,
    response_body: String,
}

fn exchange(input: &mut Input<'_>, planted: &mut Vec<String>) -> Exchange {
    let mut plant = |input: &mut Input<'_>| {
        let key = input.credential();
        planted.push(key.clone());
        key
    };
    let choice = input.byte();
    let path = input.text(12).replace([' ', '.'], "-");
    let query_key = (choice & 1 != 0).then(|| plant(input));
    let auth = (choice & 2 != 0).then(|| plant(input));
    let field = input.text(8);
    let request_body = if choice & 4 != 0 {
        format!(r#"{{"api_key": "{}", "note": "{field}"}}"#, plant(input))
    } else {
        format!(r#"{{"note": "{field}"}}"#)
    };
    let words = input.text(20);
    let response_body = if choice & 8 != 0 {
        format!("{words} your key is {} keep it", plant(input))
    } else {
        words
    };
    Exchange {
        path,
        query_key,
        auth,
        request_body,
        response_body,
    }
}

fn url(e: &Exchange) -> String {
    let mut url = format!("https://api.example.com/v1/{}", e.path);
    if let Some(key) = &e.query_key {
        url.push_str(&format!("?api_key={key}&page=2"));
    }
    url
}

fn json(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn vcrpy(exchanges: &[Exchange]) -> String {
    let mut out = String::from("interactions:\n");
    for e in exchanges {
        out.push_str(&format!(
            "- request:\n    body: {}\n    headers:\n",
            json(&e.request_body)
        ));
        if let Some(auth) = &e.auth {
            out.push_str(&format!("      Authorization:\n      - Bearer {auth}\n"));
        }
        out.push_str(&format!(
            "      Content-Type:\n      - application/json\n    method: POST\n    uri: {}\n  response:\n    body:\n      string: {}\n    headers:\n      Content-Length:\n      - '{}'\n    status:\n      code: 200\n      message: OK\n",
            url(e),
            json(&e.response_body),
            e.response_body.len()
        ));
    }
    out.push_str("version: 1\n");
    out
}

fn ruby_vcr(exchanges: &[Exchange]) -> String {
    let interactions: Vec<serde_json::Value> = exchanges
        .iter()
        .map(|e| {
            let mut headers = serde_json::json!({"Content-Type": ["application/json"]});
            if let Some(auth) = &e.auth {
                headers["Authorization"] = serde_json::json!([format!("Bearer {auth}")]);
            }
            serde_json::json!({
                "request": {"method": "post", "uri": url(e),
                    "body": {"encoding": "UTF-8", "string": e.request_body}, "headers": headers},
                "response": {"status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Length": [e.response_body.len().to_string()]},
                    "body": {"encoding": "UTF-8", "string": e.response_body}},
                "recorded_at": "Mon, 01 Jan 2024 00:00:00 GMT"
            })
        })
        .collect();
    serde_json::to_string_pretty(
        &serde_json::json!({"http_interactions": interactions, "recorded_with": "VCR 6.2.0"}),
    )
    .expect("serializes")
}

fn nock(exchanges: &[Exchange]) -> String {
    let items: Vec<serde_json::Value> = exchanges
        .iter()
        .map(|e| {
            let url = url(e);
            let path = url.trim_start_matches("https://api.example.com");
            let mut item = serde_json::json!({
                "scope": "https://api.example.com:443", "method": "POST", "path": path,
                "body": serde_json::from_str::<serde_json::Value>(&e.request_body).expect("json"),
                "status": 200, "response": e.response_body,
                "rawHeaders": ["Content-Length", e.response_body.len().to_string()]
            });
            if let Some(auth) = &e.auth {
                item["reqheaders"] = serde_json::json!({"authorization": format!("Bearer {auth}")});
            }
            item
        })
        .collect();
    serde_json::to_string_pretty(&items).expect("serializes")
}

fn httprr(exchanges: &[Exchange]) -> String {
    let mut out = String::from("httprr trace v1\n");
    for e in exchanges {
        let url = url(e);
        let mut request = format!("POST {url} HTTP/1.1\r\nHost: api.example.com\r\n");
        if let Some(auth) = &e.auth {
            request.push_str(&format!("Authorization: Bearer {auth}\r\n"));
        }
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
            e.request_body.len(),
            e.request_body
        ));
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{}",
            e.response_body.len(),
            e.response_body
        );
        out.push_str(&format!(
            "{} {}\n{request}{response}",
            request.len(),
            response.len()
        ));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let format = input.byte() % 4;
    let count = 1 + input.byte() as usize % 4;
    let mut planted = Vec::new();
    let exchanges: Vec<Exchange> = (0..count)
        .map(|_| exchange(&mut input, &mut planted))
        .collect();
    let (text, name) = match format {
        0 => (vcrpy(&exchanges), "cassette.yaml"),
        1 => (ruby_vcr(&exchanges), "cassette.json"),
        2 => (nock(&exchanges), "recording.json"),
        _ => (httprr(&exchanges), "trace.httprr"),
    };
    let path = Path::new("/nonexistent-vcr-fuzz").join(name);
    let cassette = match http::read(&path, text.as_bytes()) {
        Ok(Some(cassette)) => cassette,
        other => panic!("a built cassette reads: {other:?}\n{text}"),
    };
    let Ok(scrubbed) = default_scrub::scrub(&cassette, text.as_bytes()) else {
        // Refused, and left as it was: a scrub that cannot write a value faithfully says so.
        return;
    };
    if !scrubbed.remaining.is_empty() {
        return;
    }
    let new = match scrubbed.text {
        Some(new) => String::from_utf8(new).expect("the scrub writes text"),
        None => text.clone(),
    };
    let again = match http::read(&path, new.as_bytes()) {
        Ok(Some(again)) => again,
        other => panic!("the scrubbed cassette reads back: {other:?}\n{new}"),
    };
    assert_eq!(again.format, cassette.format);
    assert_eq!(
        again.interactions.len(),
        cassette.interactions.len(),
        "{new}"
    );
    // A key the judge reads as a placeholder (the input can spell `xxx` or `EXAMPLE` into
    // one) is not a leak, and rightly stays.
    let scanner = vcr_lint::Scanner::new(&[]);
    for key in planted
        .iter()
        .filter(|k| !scanner.scan(k.as_bytes()).is_empty())
    {
        assert!(!new.contains(key.as_str()), "{key} is still in\n{new}");
    }
    // Every Content-Length that gave its body's length still does.
    for (before, after) in cassette.interactions.iter().zip(&again.interactions) {
        let (Some(b), Some(a)) = (&before.response, &after.response) else {
            continue;
        };
        let length = |r: &http::Response| {
            let declared = r
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))?
                .value
                .text
                .trim()
                .parse::<usize>()
                .ok()?;
            let actual = match r.body.as_ref()? {
                Body::Bytes { bytes, .. } => bytes.len(),
                Body::Data { .. } => return None,
            };
            Some((declared, actual))
        };
        if let (Some((declared, actual)), Some((declared_after, actual_after))) =
            (length(b), length(a))
            && declared == actual
        {
            assert_eq!(
                declared_after, actual_after,
                "a true Content-Length went stale:\n{new}"
            );
        }
    }
});
