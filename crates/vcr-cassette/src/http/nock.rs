//! The nock reader: nock back cassettes and the nock recorder's `output_objects` JSON.
//!
//! A cassette is a list of definitions, each `{scope, method, path, body, status, response,
//! rawHeaders | headers, reqheaders, responseIsBinary}`, which is what `nock.define()` reads:
//! - the URL is `scope` (`https://api.github.com:443`) then `path`; its field sits at the
//!   `path` scalar (which holds the query) and its text is the whole URL;
//! - `body` (the request's) and `response` are text, or JSON data the recorder parsed
//!   (kept as data, with positions);
//! - a binary response (`responseIsBinary: true`) is hex, and a content-encoded one (gzip,
//!   br) is a list of hex chunks, one per chunk the server sent: decoded to the bytes on
//!   the wire, stored `["hex"]`;
//! - response headers are `rawHeaders`, a flat `[name, value, name, value, ...]` list as
//!   Node's `res.rawHeaders` holds them, or a `headers` mapping (octokit/fixtures'
//!   normalized form), a value being a string, a number or a list;
//! - request headers, when recorded, are the `reqheaders` mapping.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{Filtered, Format, Head, How, RecordMode, RecordRun, Recorder, has};
use super::walk::At;
use super::{
    Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars,
};

/// Whether the document is a nock cassette: a list of mappings, one of which has a `scope`
/// that is an `http:` or `https:` origin beside a `method` or a `path`.
pub(super) fn matches(root: &Node) -> bool {
    let Some(items) = root.as_seq() else {
        return false;
    };
    let is_definition = |item: &Node| {
        item.get("scope")
            .and_then(Node::as_str)
            .is_some_and(|s| s.starts_with("http://") || s.starts_with("https://"))
            && (item.get("method").is_some() || item.get("path").is_some())
    };
    items.iter().all(|item| item.as_map().is_some()) && items.iter().any(is_definition)
}

/// Reads a nock cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    super::walk::root_cassette(root, FORMAT, interaction)
}

pub(super) fn interaction(def: &At<'_>) -> Result<Interaction, ReadError> {
    let scope = def.need("scope")?.into_field()?.text;
    let path = def.need("path")?.into_field()?;
    let url = Field {
        text: format!("{scope}{}", path.text),
        ..path
    };
    let request = Request {
        method: def.need("method")?.into_field()?,
        url,
        headers: match def.get("reqheaders") {
            Some(map) => map.headers()?,
            None => Vec::new(),
        },
        body: def.get("body").map(|b| text_or_data(&b)).transpose()?,
    };
    let mut headers = match def.get("rawHeaders") {
        Some(raw) if raw.node.as_map().is_some() => raw.headers()?,
        Some(raw) => raw_headers(&raw)?,
        None => Vec::new(),
    };
    if let Some(map) = def.get("headers") {
        headers.extend(map.headers()?);
    }
    let status = def.get("status").map(|s| s.status()).transpose()?;
    let body = match def.get("response") {
        Some(response) => Some(response_body(def, &response, &headers)?),
        None => None,
    };
    Ok(Interaction {
        path: def.path.clone(),
        request,
        response: Some(Response {
            status,
            headers,
            body,
        }),
        recorded_at: None,
    })
}

/// Node's `rawHeaders`: names and values alternating.
fn raw_headers(raw: &At<'_>) -> Result<Vec<Header>, ReadError> {
    let items = raw.items()?;
    if items.len() % 2 != 0 {
        return Err(raw.error(format!(
            "{} has a name without a value (an odd number of items)",
            raw.path
        )));
    }
    items
        .chunks_exact(2)
        .map(|pair| {
            Ok(Header {
                name: pair[0].field()?.text,
                value: pair[1].field()?,
            })
        })
        .collect()
}

/// A string as text bytes, anything else as the data the recorder parsed.
fn text_or_data(node: &At<'_>) -> Result<Body, ReadError> {
    if super::is_string(node.node) {
        let field = node.field()?;
        return Ok(Body::text(field));
    }
    Ok(Body::Data {
        path: node.path.clone(),
        node: node.node.clone(),
    })
}

/// The response body: hex when binary, hex chunks when content-encoded (as nock replays
/// them), else text or data.
fn response_body(def: &At<'_>, response: &At<'_>, headers: &[Header]) -> Result<Body, ReadError> {
    let binary = def
        .get("responseIsBinary")
        .is_some_and(|b| super::is_true(b.node));
    if binary {
        let field = response.field()?;
        let bytes = super::decode_hex(&field.text).ok_or_else(|| {
            let path = &response.path;
            response.error(format!(
                "{path} is not hex, although `responseIsBinary` is true"
            ))
        })?;
        return Ok(Body::Bytes {
            field,
            bytes,
            stored: vec!["hex"],
        });
    }
    if content_encoded(headers)
        && let Some(body) = hex_chunks(response)?
    {
        return Ok(body);
    }
    text_or_data(response)
}

/// A content-encoded response as nock records it: a list of hex strings (or one hex
/// string). `None` when it is not that.
fn hex_chunks(response: &At<'_>) -> Result<Option<Body>, ReadError> {
    let chunks = match response.node.as_seq() {
        Some(_) => response.items()?,
        None => vec![response.clone()],
    };
    let Some(first) = chunks.first() else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    for chunk in &chunks {
        if !super::is_string(chunk.node) {
            return Ok(None);
        }
        match super::decode_hex(&chunk.field()?.text) {
            Some(decoded) => bytes.extend_from_slice(&decoded),
            None => return Ok(None),
        }
    }
    Ok(Some(Body::Bytes {
        field: first.field()?,
        bytes,
        stored: vec!["hex"],
    }))
}

/// Whether a response header says the body is content-encoded (nock's own test: a
/// non-empty `Content-Encoding`).
fn content_encoded(headers: &[Header]) -> bool {
    super::first_header(headers, "content-encoding").is_some_and(|v| !v.is_empty())
}

/// nock (nock back, and the recorder's `output_objects`).
pub struct Nock;

/// nock's [`Format`].
pub const FORMAT: Format = Format::new(&Nock);

/// nock back's mode variable, read when nock loads.
const NOCK_BACK_MODE: &str = "NOCK_BACK_MODE";

impl Recorder for Nock {
    fn name(&self) -> &'static str {
        "nock"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.list && head.has("scope")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// A `scope` that is an origin.
    fn identified(&self, text: &str) -> bool {
        has(text, "\"scope\": \"http") || has(text, "\"scope\":\"http")
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "body"]
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        match what {
            Filtered::Query { name, placeholder } => Some(format!(
                "nock's scope.filteringPath(/{name}=[^&]*/, \"{name}={placeholder}\")"
            )),
            Filtered::Header { .. } => None,
            Filtered::Body => {
                Some("nock's scope.filteringRequestBody writing the same placeholders".into())
            }
        }
    }

    fn tools(&self) -> &'static [&'static str] {
        &["nock"]
    }

    /// nock in a `package.json` of the run's folder or above it.
    fn declared(&self, run: &RecordRun<'_>) -> Option<&'static str> {
        run.declaring_folders()
            .iter()
            .any(|folder| {
                std::fs::read_to_string(folder.join("package.json"))
                    .is_ok_and(|text| text.contains("\"nock\""))
            })
            .then_some("nock")
    }

    fn record_mode(&self, tool: &'static str, run: &RecordRun<'_>) -> RecordMode {
        if (run.env)(NOCK_BACK_MODE).is_some() {
            return RecordMode::only(tool, How::Given(NOCK_BACK_MODE.to_owned()));
        }
        let mut mode = RecordMode::only(
            tool,
            How::Set(format!(
                "`{NOCK_BACK_MODE}=record` added to the environment"
            )),
        );
        mode.env
            .push((NOCK_BACK_MODE.to_owned(), "record".to_owned()));
        mode
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::testing::{assert_error, headers};
    use vcr_doc::from_json;

    #[track_caller]
    fn nock(text: &str) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not nock: {text}");
        read(&root).unwrap()
    }

    fn offset(text: &str, needle: &str) -> Option<u32> {
        Some(text.find(needle).unwrap_or_else(|| panic!("no {needle}")) as u32)
    }

    #[test]
    fn matches_lists_of_definitions_with_an_http_scope() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(
                matches(&from_json(text.as_bytes()).unwrap()),
                expected,
                "{text}"
            );
        }
        case(
            r#"[{"scope":"https://api.github.com:443","method":"get","path":"/"}]"#,
            true,
        );
        case(
            r#"[{"scope":"http://localhost:80","path":"/"},{"method":"GET"}]"#,
            true,
        );
        case(r#"[{"scope":"read","method":"GET","path":"/"}]"#, false);
        case(r#"[{"scope":"https://h.test"}]"#, false);
        case(r#"[{"scope":"https://h.test","path":"/"},3]"#, false);
        case(r#"[{"request":{"method":"GET"},"response":{}}]"#, false);
        case(r#"[]"#, false);
        case(r#"{"scope":"https://h.test","path":"/"}"#, false);
    }

    const RECORDED: &str = r#"[
  {"scope":"https://api.github.com:443","method":"post","path":"/repos?per_page=1",
   "body":{"name":"x","token":"t"},"status":201,"response":{"id":1},
   "rawHeaders":["Content-Type","application/json","Set-Cookie","a=1","Set-Cookie","b=2"],
   "reqheaders":{"authorization":"token abc","accept":["a","b"],"x-count":3},
   "responseIsBinary":false},
  {"scope":"http://h.test:80","method":"GET","path":"/","body":"","response":"plain",
   "headers":{"content-type":"text/plain","x-ratelimit-used":1}}
]"#;

    #[test]
    fn reads_definitions_with_paths_and_offsets() {
        let cassette = nock(RECORDED);
        let [first, second] = &cassette.interactions[..] else {
            panic!("{cassette:?}")
        };
        assert_eq!(first.path, "[0]");
        assert_eq!(
            first.request.url,
            Field {
                text: "https://api.github.com:443/repos?per_page=1".into(),
                at: offset(RECORDED, r#""/repos"#),
                path: "[0].path".into(),
            }
        );
        assert_eq!(first.request.method.path, "[0].method");
        assert_eq!(
            headers(&first.request.headers),
            [
                ("authorization", "token abc", "[0].reqheaders.authorization"),
                ("accept", "a", "[0].reqheaders.accept[0]"),
                ("accept", "b", "[0].reqheaders.accept[1]"),
                ("x-count", "3", "[0].reqheaders.x-count"),
            ]
        );
        assert_eq!(
            first.request.headers[0].value.at,
            offset(RECORDED, r#""token abc""#)
        );
        assert!(
            matches!(&first.request.body, Some(Body::Data { path, node }) if path == "[0].body" && node.get("token").is_some())
        );
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        assert_eq!(
            headers(&response.headers),
            [
                ("Content-Type", "application/json", "[0].rawHeaders[1]"),
                ("Set-Cookie", "a=1", "[0].rawHeaders[3]"),
                ("Set-Cookie", "b=2", "[0].rawHeaders[5]"),
            ]
        );
        assert!(matches!(&response.body, Some(Body::Data { path, .. }) if path == "[0].response"));

        assert_eq!(second.request.url.text, "http://h.test:80/");
        assert!(matches!(
            &second.request.body,
            Some(Body::Bytes { bytes, .. }) if bytes.is_empty()
        ));
        let response = second.response.as_ref().unwrap();
        assert_eq!(response.status, None);
        assert_eq!(
            headers(&response.headers),
            [
                ("content-type", "text/plain", "[1].headers.content-type"),
                ("x-ratelimit-used", "1", "[1].headers.x-ratelimit-used"),
            ]
        );
        assert!(matches!(
            &response.body,
            Some(Body::Bytes { bytes, stored, field }) if bytes == b"plain" && stored.is_empty() && field.path == "[1].response"
        ));
    }

    #[test]
    fn decodes_binary_and_content_encoded_responses_from_hex() {
        #[track_caller]
        fn case(extra: &str, expected: &[u8], stored: &[&str], path: &str) {
            let text =
                format!(r#"[{{"scope":"https://h.test:443","method":"GET","path":"/",{extra}}}]"#);
            let cassette = nock(&text);
            match &cassette.interactions[0].response.as_ref().unwrap().body {
                Some(Body::Bytes {
                    bytes,
                    stored: got,
                    field,
                }) => {
                    assert_eq!((&bytes[..], &got[..]), (expected, stored), "{extra}");
                    assert_eq!(field.path, path, "{extra}");
                }
                other => panic!("{extra}: {other:?}"),
            }
        }
        let gzip_head = [0x1f, 0x8b, 0x08, 0x00];
        case(
            r#""response":"1f8b0800","responseIsBinary":true"#,
            &gzip_head,
            &["hex"],
            "[0].response",
        );
        case(
            r#""response":["1f8b","0800"],"rawHeaders":["Content-Encoding","gzip"]"#,
            &gzip_head,
            &["hex"],
            "[0].response[0]",
        );
        case(
            r#""response":"1f8b0800","headers":{"content-encoding":"br"}"#,
            &gzip_head,
            &["hex"],
            "[0].response",
        );
        // Not content-encoded and not binary: a hex-looking string is text.
        case(r#""response":"cafe""#, b"cafe", &[], "[0].response");
        // Content-encoded, but not hex: the text as it is (nock would replay garbage).
        case(
            r#""response":"plain","headers":{"content-encoding":"gzip"}"#,
            b"plain",
            &[],
            "[0].response",
        );
    }

    #[test]
    fn a_missing_or_broken_field_is_an_error_at_its_holder() {
        #[track_caller]
        fn case(def: &str, message: &str, at: &str) {
            let text =
                format!(r#"[{{"scope":"https://h.test:443","method":"GET","path":"/"}},{def}]"#);
            let root = from_json(text.as_bytes()).unwrap();
            assert!(matches(&root), "{text}");
            assert_error(&read(&root).unwrap_err(), &text, FORMAT, message, at);
        }
        case(
            r#"{"method":"GET","path":"/"}"#,
            "[1] has no `scope`",
            r#""method""#,
        );
        case(
            r#"{"scope":"https://h.test","path":"/"}"#,
            "[1] has no `method`",
            r#""scope":"https://h.test","path""#,
        );
        case(
            r#"{"scope":"https://h.test","method":"GET","path":"/","rawHeaders":["A","1","B"]}"#,
            "[1].rawHeaders has a name without a value (an odd number of items)",
            r#""A""#,
        );
        case(
            r#"{"scope":"https://h.test","method":"GET","path":"/","response":"zz","responseIsBinary":true}"#,
            "[1].response is not hex, although `responseIsBinary` is true",
            r#""zz""#,
        );
        case(
            r#"{"scope":"https://h.test","method":"GET","path":"/","status":"x"}"#,
            "[1].status is not an HTTP status: `x`",
            r#""x""#,
        );
    }
}
