//! The talkback reader: one JSON5 tape per interaction.
//!
//! A tape is `{meta: {createdAt, host, reqHumanReadable, resHumanReadable, reqUncompressed,
//! resUncompressed, ...}, req: {url, method, headers, body}, res: {status, headers, body}}`,
//! written by `JSON5.stringify(tape, null, 4)` and often edited by hand (comments, unquoted
//! keys, single quotes, trailing commas). The request's `url` is a path: the host is
//! `meta.host`. A body is read as talkback's `TapeRenderer.prepareBody` reads it:
//! - an object (or any non-string value) is the JSON data talkback parsed (kept as data);
//! - a string is text when `meta.<req|res>HumanReadable` is true and the body is not
//!   compressed (`meta.<req|res>Uncompressed`, or no `content-encoding` header): with
//!   `*Uncompressed`, talkback stored the decompressed text and compresses it again on
//!   replay, so the text is what the client saw although the header says gzip;
//! - any other string is base64 (stored `["base64"]`). A string that is not base64 is read
//!   as text: talkback would replay garbage for it, but it is what a person wrote by hand
//!   and what a linter must see.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{Filtered, Format, Head, How, RecordMode, RecordRun, Recorder, has};
use super::walk::{At, base64_bytes};
use super::{
    Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars,
};

/// Whether the document is a talkback tape: a mapping with `meta` and `req` mappings.
pub(super) fn matches(root: &Node) -> bool {
    let is_map = |key| root.get(key).is_some_and(|n| n.as_map().is_some());
    is_map("meta") && is_map("req")
}

/// Reads a talkback tape.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let root = At::root(root, FORMAT);
    let meta = root.need("meta")?;
    let req = root.need("req")?;
    let url = req.need("url")?.into_field()?;
    let url = match meta.get("host") {
        Some(host) => Field {
            text: format!("{}{}", host.field()?.text.trim_end_matches('/'), url.text),
            ..url
        },
        None => url,
    };
    let headers = message_headers(&req)?;
    let body = message_body(&meta, "req", &req, &headers)?;
    let request = Request {
        method: req.need("method")?.into_field()?,
        url,
        headers,
        body,
    };
    let response = match root.get("res") {
        Some(res) => {
            let headers = message_headers(&res)?;
            Some(Response {
                status: res.get("status").map(|s| s.status()).transpose()?,
                body: message_body(&meta, "res", &res, &headers)?,
                headers,
            })
        }
        None => None,
    };
    Ok(HttpCassette {
        format: FORMAT,
        interactions: vec![Interaction {
            path: "tape".to_owned(),
            request,
            response,
            recorded_at: meta.get("createdAt").map(|c| c.into_field()).transpose()?,
        }],
        compressed: false,
        outside: Vec::new(),
    })
}

/// The headers of `req` or `res`: a value (requests) or a list of values (responses) per
/// name.
fn message_headers(message: &At<'_>) -> Result<Vec<Header>, ReadError> {
    match message.get("headers") {
        Some(map) => map.headers(),
        None => Ok(Vec::new()),
    }
}

/// The body of `req` or `res` (`prefix`), as `prepareBody` reads it.
fn message_body(
    meta: &At<'_>,
    prefix: &str,
    message: &At<'_>,
    headers: &[Header],
) -> Result<Option<Body>, ReadError> {
    let Some(body) = message.get("body") else {
        return Ok(None);
    };
    if !super::is_string(body.node) {
        return Ok(Some(Body::Data {
            path: body.path.clone(),
            node: body.node.clone(),
        }));
    }
    let flag = |name: &str| {
        meta.get(&format!("{prefix}{name}"))
            .is_some_and(|f| super::is_true(f.node))
    };
    let plain = flag("Uncompressed")
        || super::first_header(headers, "content-encoding")
            .is_none_or(|v| matches!(v, "" | "identity"));
    let field = body.field()?;
    let text = flag("HumanReadable") && plain;
    if !text
        && !field.text.is_empty()
        && let Some(bytes) = base64_bytes(&field.text)
    {
        return Ok(Some(Body::Bytes {
            field,
            bytes,
            stored: vec!["base64"],
        }));
    }
    Ok(Some(Body::text(field)))
}

/// Whether a text that is not strict JSON looks like a talkback tape: after comments and
/// white space it opens an object whose first key is `meta` (quoted or not), as talkback
/// writes every tape (`{meta, req, res}`). A tape cut short is still a tape, so its error is
/// a `parse` error; a JSON Lines log whose lines hold `meta` or `createdAt` somewhere is not.
pub(super) fn looks_like(text: &str) -> bool {
    let Some(object) = skip_blank(text).strip_prefix('{') else {
        return false;
    };
    let key = skip_blank(object);
    let key = match key.chars().next() {
        Some(q @ ('"' | '\'')) => key[1..]
            .strip_prefix("meta")
            .and_then(|k| k.strip_prefix(q)),
        _ => key.strip_prefix("meta"),
    };
    key.is_some_and(|after| skip_blank(after).starts_with(':'))
}

/// The text after a byte-order mark, white space and JavaScript comments.
fn skip_blank(mut text: &str) -> &str {
    loop {
        text = text.trim_start_matches('\u{feff}').trim_start();
        if let Some(rest) = text.strip_prefix("//") {
            text = rest.find('\n').map_or("", |i| &rest[i..]);
        } else if let Some(rest) = text.strip_prefix("/*") {
            text = rest.find("*/").map_or("", |i| &rest[i + 2..]);
        } else {
            return text;
        }
    }
}

/// talkback's JSON5 tapes.
pub struct Talkback;

/// talkback's [`Format`].
pub const FORMAT: Format = Format::new(&Talkback);

impl Recorder for Talkback {
    fn name(&self) -> &'static str {
        "talkback"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        looks_like(head.text)
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// A tape's `meta`, with the `createdAt` talkback stamps.
    fn identified(&self, text: &str) -> bool {
        looks_like(text) && has(text, "createdAt")
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "body"]
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        matches!(what, Filtered::Body).then(|| {
            "talkback's requestDecorator writing the same placeholders in the body, or ignoreBody"
                .into()
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["talkback"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "talkback's `record` option: `RecordMode.NEW`, the default, records a request it has no tape for",
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::testing::assert_error;
    use vcr_doc::from_json;

    #[track_caller]
    fn tape(text: &str) -> Interaction {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not a tape: {text}");
        let mut cassette = read(&root).unwrap();
        assert_eq!(cassette.interactions.len(), 1);
        cassette.interactions.remove(0)
    }

    /// A tape with `meta` entries, request headers and body, response headers and body.
    fn with(
        meta: &str,
        req_headers: &str,
        req_body: &str,
        res_headers: &str,
        res_body: &str,
    ) -> String {
        format!(
            r#"{{"meta":{{"createdAt":"2024-01-02T03:04:05.000Z","host":"https://api.example.test"{meta}}},
"req":{{"url":"/users/me?x=1","method":"POST","headers":{{{req_headers}}},"body":{req_body}}},
"res":{{"status":200,"headers":{{{res_headers}}},"body":{res_body}}}}}"#
        )
    }

    #[test]
    fn matches_a_mapping_with_meta_and_req() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(
                matches(&from_json(text.as_bytes()).unwrap()),
                expected,
                "{text}"
            );
        }
        case(r#"{"meta":{},"req":{},"res":{}}"#, true);
        case(r#"{"meta":{"createdAt":"x"},"req":{"url":"/"}}"#, true);
        case(r#"{"meta":"x","req":{},"res":{}}"#, false);
        case(r#"{"req":{},"res":{}}"#, false);
        case(r#"[{"meta":{},"req":{}}]"#, false);
    }

    #[test]
    fn reads_a_tape_with_paths_and_offsets() {
        let text = with(
            r#","reqHumanReadable":true,"resHumanReadable":true"#,
            r#""authorization":"Bearer abc""#,
            r#""{\"q\":1}""#,
            r#""content-type":["application/json"],"set-cookie":["a=1","b=2"]"#,
            r#"{"ok":true}"#,
        );
        let tape = tape(&text);
        let at = |needle: &str| Some(text.find(needle).unwrap() as u32);
        assert_eq!(tape.path, "tape");
        assert_eq!(
            tape.request.url,
            Field {
                text: "https://api.example.test/users/me?x=1".into(),
                at: at(r#""/users"#),
                path: "req.url".into(),
            }
        );
        assert_eq!(tape.request.method.path, "req.method");
        assert_eq!(
            tape.request.headers,
            [Header {
                name: "authorization".into(),
                value: Field {
                    text: "Bearer abc".into(),
                    at: at(r#""Bearer"#),
                    path: "req.headers.authorization".into()
                }
            }]
        );
        assert!(matches!(
            &tape.request.body,
            Some(Body::Bytes { bytes, stored, field }) if bytes == br#"{"q":1}"# && stored.is_empty() && field.path == "req.body"
        ));
        let response = tape.response.unwrap();
        assert_eq!(response.status, Some(200));
        let paths: Vec<&str> = response
            .headers
            .iter()
            .map(|h| h.value.path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "res.headers.content-type[0]",
                "res.headers.set-cookie[0]",
                "res.headers.set-cookie[1]"
            ]
        );
        assert!(matches!(
            &response.body,
            Some(Body::Data { path, node }) if path == "res.body" && node.get("ok").is_some()
        ));
        assert_eq!(
            tape.recorded_at,
            Some(Field {
                text: "2024-01-02T03:04:05.000Z".into(),
                at: at(r#""2024"#),
                path: "meta.createdAt".into(),
            })
        );
    }

    #[test]
    fn reads_bodies_as_talkbacks_prepare_body_does() {
        #[track_caller]
        fn case(meta: &str, res_headers: &str, res_body: &str, bytes: &[u8], stored: &[&str]) {
            let tape = tape(&with(meta, "", "\"\"", res_headers, res_body));
            match tape.response.unwrap().body {
                Some(Body::Bytes {
                    bytes: got,
                    stored: got_stored,
                    field,
                }) => {
                    assert_eq!(
                        (&got[..], &got_stored[..]),
                        (bytes, stored),
                        "{meta} {res_headers} {res_body}"
                    );
                    assert_eq!(field.path, "res.body");
                }
                other => panic!("{meta} {res_body}: {other:?}"),
            }
        }
        let human = r#","resHumanReadable":true"#;
        let gzip = r#""content-encoding":["gzip"]"#;
        // Human readable and not compressed: text.
        case(human, "", r#""aGk=""#, b"aGk=", &[]);
        // Not human readable: base64.
        case("", "", r#""aGk=""#, b"hi", &["base64"]);
        // Human readable, but the body is gzip and talkback did not store it uncompressed:
        // base64.
        case(human, gzip, r#""aGk=""#, b"hi", &["base64"]);
        // Stored uncompressed by talkback: the text the client saw.
        case(
            r#","resHumanReadable":true,"resUncompressed":true"#,
            gzip,
            r#""aGk=""#,
            b"aGk=",
            &[],
        );
        // `identity` is no compression.
        case(
            human,
            r#""content-encoding":["identity"]"#,
            r#""aGk=""#,
            b"aGk=",
            &[],
        );
        // Not base64 although talkback would decode it: the text a person wrote.
        case("", "", r#""{\"token\":\"t\"}""#, br#"{"token":"t"}"#, &[]);
        case("", "", r#""""#, b"", &[]);
    }

    #[test]
    fn a_missing_field_is_an_error_at_its_holder() {
        #[track_caller]
        fn case(text: &str, message: &str, at: &str) {
            let root = from_json(text.as_bytes()).unwrap();
            assert!(matches(&root), "{text}");
            assert_error(&read(&root).unwrap_err(), text, FORMAT, message, at);
        }
        case(
            r#"{"meta":{"host":"h"},"req":{"method":"GET"}}"#,
            "req has no `url`",
            r#""method""#,
        );
        case(
            r#"{"meta":{"host":"h"},"req":{"url":"/"},"res":{}}"#,
            "req has no `method`",
            r#""url""#,
        );
        case(
            r#"{"meta":{"host":"h"},"req":{"url":"/","method":"GET","headers":"x"}}"#,
            "req.headers is not a list",
            r#""x""#,
        );
        case(
            r#"{"meta":{"host":"h"},"req":{"url":"/","method":"GET"},"res":{"status":"x"}}"#,
            "res.status is not an HTTP status: `x`",
            r#""x""#,
        );
    }

    #[test]
    fn looks_like_a_tape_by_its_keys() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(looks_like(text), expected, "{text}");
        }
        case(
            "// comment\n{\n  \"meta\": {}, \"req\": {}, \"res\": {},\n}",
            true,
        );
        case(
            "/* a\n b */ { // tape\n meta : {createdAt: '2017'}, req: {url: '/'}}",
            true,
        );
        case("\u{feff}{'meta' : {}, 'req': {}, 'res': {}}", true);
        // Cut short after `createdAt`: still a tape, so it is a `parse` error.
        case(
            "{\n \"meta\": {\n  \"createdAt\": \"2017-09-10\",\n\n}",
            true,
        );
        case("{\"req\": {}, \"res\": {}, \"meta\": {}}", false);
        case(
            "{\"metadata\": {}, \"request\": {}, \"response\": {}}",
            false,
        );
        case("{\"a\": \"meta: req: res:\"}", false);
        case("{meta_data: 1, req: 2, res: 3}", false);
        case("{\"meta': {}}", false);
        case("[{meta: {}, req: {}, res: {}}]", false);
        case("meta:\n  createdAt: x\nreq: {}\nres: {}\n", false);
        // A JSON Lines log with `createdAt` and `meta` in its lines (dsh's session logs).
        case(
            "{\"type\":\"session\",\"createdAt\":1}\n{\"type\":\"x\",\"meta\":{}}\n",
            false,
        );
        case("// only a comment", false);
    }
}
