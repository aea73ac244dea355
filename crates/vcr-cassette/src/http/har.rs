//! The HAR 1.2 reader: Polly.js `recording.har` (JSON, or YAML as sourcegraph/cody writes
//! it), Playwright's HAR with `_file` sidecars, and any browser's export.
//!
//! A HAR is `log.entries[]`, each a `request` (`method`, absolute `url`, `headers` as
//! `{name, value}` pairs, `postData`) and a `response` (`status`, `headers`, `content`),
//! stamped with `startedDateTime`. The recorders add their own shapes, all read here:
//! - Polly.js 1 to 3 wrote a header's values as a list (`value: ["*/*"]`);
//! - Polly.js keeps a content-encoded (gzip, br) response as the JSON text of a list of its
//!   chunks: base64 with `encoding: base64` (Polly 4 and later), hex before that; the bytes
//!   are the chunks decoded and joined, stored as `["json", "base64"]` or `["json", "hex"]`;
//! - cody stores a JSON request body already parsed, in `postData.textJSON` (read as data);
//! - Playwright stores a body in a file beside the HAR, named by `_file`: it is read as the
//!   body (stored `["file"]`, the field being the `_file` scalar). The name must stay inside
//!   the HAR's folder (no `..`, no absolute path, no link out of it) and name a regular file,
//!   so a cassette can neither make `vcr` read elsewhere nor block it on a pipe.
//!
//! `queryString` and `cookies` repeat what the URL and the `Cookie` / `Set-Cookie` headers
//! say, and are not read.

use std::path::{Component, Path};

use vcr_doc::{Node, NodeValue};
use vcr_json::Part;

use super::recorder::{Filtered, Format, Head, How, RecordMode, RecordRun, Recorder, has};
use super::walk::{At, base64_bytes};
use super::windows::Windows;
use super::{Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a HAR log: a mapping whose `log` is a mapping with `entries`.
pub(super) fn matches(root: &Node) -> bool {
    root.get("log")
        .is_some_and(|log| log.as_map().is_some() && log.get("entries").is_some())
}

/// Reads a HAR log; `path` is the file, whose folder holds Playwright's `_file` sidecars
/// (those `replaced` names are taken from it instead).
pub(super) fn read(
    root: &Node,
    path: &Path,
    replaced: &Sidecars,
) -> Result<HttpCassette, ReadError> {
    let root = At::root(root, FORMAT);
    let folder = path.parent().unwrap_or(Path::new(""));
    let interactions = root
        .need("log")?
        .need("entries")?
        .items()?
        .iter()
        .map(|entry| interaction(entry, &Beside { folder, replaced }))
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// Reads a JSON HAR, `{"log": {..., "entries": [...]}}`, a window of entries at a time (see
/// [`super::read_windows`]): the entries are parsed one by one, each run of them whose text
/// reaches `window` bytes goes to `visit` as a cassette of its own, and what no window holds
/// (the other fields of `log`, the syntax between windows) goes last, as a cassette without
/// interactions. With `keep`, each goes with the documents of its entries (the last with the
/// other fields'). The number of cassettes given, or `Ok(None)` when the text is no such HAR
/// or does not stream in `JSON.parse`'s order: what `visit` was given is then void.
pub(super) fn read_windows(
    text: &str,
    path: &Path,
    replaced: &Sidecars,
    window: usize,
    keep: bool,
    visit: &mut dyn FnMut(HttpCassette, Vec<Node>),
) -> Result<Option<usize>, ReadError> {
    let beside = Beside {
        folder: path.parent().unwrap_or(Path::new("")),
        replaced,
    };
    let bytes = text.as_bytes();
    let reader = |entry: &At<'_>| interaction(entry, &beside);
    let mut windows = Windows::new(text, window, keep, visit).of(FORMAT, "log.entries", &reader);
    // The fields beside the entries, each as a mapping of its one key, for what the last
    // cassette's `outside` holds.
    let mut rest: Vec<Node> = Vec::new();
    let mut only_log = true;
    let mut begun = false;
    let mut field = |name: vcr_json::Str<'_>, value: &vcr_json::Value<'_>| {
        let field = super::field_nodes(name, value, bytes);
        rest.push(Node::new(NodeValue::Map(vec![field])));
    };
    let streamed = vcr_json::parse_streamed_at(bytes, &["log", "entries"], false, &mut |part| {
        match part {
            Part::Field(name, value) => {
                only_log = false;
                field(name, &value);
            }
            Part::Nested(name, value) => field(name, &value),
            Part::Begin(_) => begun = true,
            Part::Item(value, span) => {
                let entry = vcr_doc::from_value_in(&value, bytes);
                windows.item(entry, (span.start, span.end), |_| None);
            }
            Part::Canonical(..) | Part::End => {}
        }
        true
    });
    match streamed {
        Err(e) => return super::windows::not_json(text, &e),
        Ok(vcr_json::Streamed::Whole) => return Ok(None),
        Ok(vcr_json::Streamed::Done) if !begun || !only_log => return Ok(None),
        Ok(vcr_json::Streamed::Done) => {}
    }
    windows.finish(rest)
}

/// Where a HAR's sidecars are: its folder, and the ones a scrub is about to write.
struct Beside<'a> {
    folder: &'a Path,
    replaced: &'a Sidecars,
}

fn interaction(entry: &At<'_>, beside: &Beside<'_>) -> Result<Interaction, ReadError> {
    let request = entry.need("request")?;
    let response = entry.need("response")?;
    let request = Request {
        method: request.need("method")?.into_field()?,
        url: request.need("url")?.into_field()?,
        headers: headers(&request)?,
        body: match request.get("postData") {
            Some(post) => post_body(&post, beside)?,
            None => None,
        },
    };
    let headers = headers(&response)?;
    let body = match response.get("content") {
        Some(content) => content_body(&content, &headers, beside)?,
        None => None,
    };
    let response = Response {
        status: status(&response.need("status")?)?,
        headers,
        body,
    };
    Ok(Interaction {
        path: entry.path.clone(),
        request,
        response: Some(response),
        recorded_at: entry
            .get("startedDateTime")
            .map(|at| at.field())
            .transpose()?,
    })
}

/// A request's or response's `headers`: `{name, value}` pairs, a value being a string or
/// (Polly.js before 4) a list of strings.
fn headers(message: &At<'_>) -> Result<Vec<Header>, ReadError> {
    let Some(list) = message.get("headers") else {
        return Ok(Vec::new());
    };
    let mut headers = Vec::new();
    for pair in list.items()? {
        let name = pair.need("name")?.into_field()?.text;
        // Polly writes a header whose value was `undefined` without `value` (JSON drops
        // it) and loads it so: a header with nothing in it, not a `parse` error.
        let Some(value) = pair.get("value") else {
            headers.push(Header {
                name,
                value: Field {
                    text: String::new(),
                    at: None,
                    path: pair.path.clone(),
                },
            });
            continue;
        };
        let values = match value.node.as_seq() {
            Some(_) => value.items()?,
            None => vec![value],
        };
        for value in values {
            headers.push(Header {
                name: name.clone(),
                value: value.field()?,
            });
        }
    }
    Ok(headers)
}

/// A request's `postData`: its `text`, its `_file` sidecar, cody's parsed `textJSON`, or,
/// when none is there, its form `params`.
fn post_body(post: &At<'_>, beside: &Beside<'_>) -> Result<Option<Body>, ReadError> {
    if let Some(file) = post.get("_file") {
        return sidecar(&file, beside).map(Some);
    }
    if let Some(text) = post.get("text") {
        return stored_text(post, &text).map(Some);
    }
    for key in ["textJSON", "params"] {
        if let Some(data) = post.get(key) {
            if data.node.as_seq().is_some_and(<[Node]>::is_empty) {
                continue;
            }
            return Ok(Some(Body::Data {
                path: data.path.clone(),
                node: data.node.clone(),
            }));
        }
    }
    Ok(None)
}

/// A response's `content`: its `_file` sidecar or its `text` (base64 with `encoding:
/// base64`; Polly.js's list of chunks when the response is content-encoded).
fn content_body(
    content: &At<'_>,
    headers: &[Header],
    beside: &Beside<'_>,
) -> Result<Option<Body>, ReadError> {
    if let Some(file) = content.get("_file") {
        return sidecar(&file, beside).map(Some);
    }
    let Some(text) = content.get("text") else {
        return Ok(None);
    };
    if content_encoded(headers)
        && let Some(body) = polly_chunks(content, &text)?
    {
        return Ok(Some(body));
    }
    stored_text(content, &text).map(Some)
}

/// A `text` scalar as bytes: decoded when its holder says `encoding: base64`.
fn stored_text(holder: &At<'_>, text: &At<'_>) -> Result<Body, ReadError> {
    let field = text.field()?;
    if !is_base64(holder)? {
        return Ok(Body::text(field));
    }
    // Text that is no base64 although `encoding` says so (EasyPost's Polly HARs hold their
    // JSON that way): Polly hands the text to node's `Buffer.from(text, 'base64')`, which
    // never refuses, and the file loads. What a reader sees there, and what can leak, is the
    // text as stored.
    let Some(bytes) = base64_bytes(&field.text) else {
        return Ok(Body::text(field));
    };
    Ok(Body::Bytes {
        field,
        bytes,
        stored: vec!["base64"],
    })
}

/// Whether `encoding: base64` is set (HAR names no other encoding; an unknown one leaves the
/// text as it is).
fn is_base64(holder: &At<'_>) -> Result<bool, ReadError> {
    match holder.get("encoding") {
        Some(encoding) => Ok(encoding.field()?.text.eq_ignore_ascii_case("base64")),
        None => Ok(false),
    }
}

/// Polly.js's content-encoded body: the JSON text of a list of chunks, base64 (with
/// `encoding: base64`) or hex (older Polly). `None` when the text is not such a list.
fn polly_chunks(content: &At<'_>, text: &At<'_>) -> Result<Option<Body>, ReadError> {
    let field = text.field()?;
    if !field.text.trim_start().starts_with('[') {
        return Ok(None);
    }
    let Ok(vcr_json::Value::Array(chunks)) = vcr_json::parse(field.text.as_bytes()) else {
        return Ok(None);
    };
    let base64 = is_base64(content)?;
    let mut bytes = Vec::new();
    for chunk in &chunks {
        let vcr_json::Value::String(chunk) = chunk else {
            return Ok(None);
        };
        let decoded = if base64 {
            base64_bytes(chunk.as_str())
        } else {
            super::decode_hex(chunk.as_str())
        };
        match decoded {
            Some(decoded) => bytes.extend_from_slice(&decoded),
            None => return Ok(None),
        }
    }
    Ok(Some(Body::Bytes {
        field,
        bytes,
        stored: vec!["json", if base64 { "base64" } else { "hex" }],
    }))
}

/// Whether the headers name a `Content-Encoding` other than `identity`.
fn content_encoded(headers: &[Header]) -> bool {
    super::first_header(headers, "content-encoding")
        .is_some_and(|v| !matches!(v.trim(), "" | "identity"))
}

/// Playwright's body in a file beside the HAR, named by the `_file` scalar `file`.
fn sidecar(file: &At<'_>, beside: &Beside<'_>) -> Result<Body, ReadError> {
    let field = file.field()?;
    let name = Path::new(&field.text);
    let inside = !field.text.is_empty()
        && name
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(file.error(format!(
            "{} names `{}`, which is not a file in the HAR's folder",
            file.path, field.text
        )));
    }
    let bytes = match beside.replaced.get(&field.text) {
        Some(bytes) => bytes.clone(),
        None => super::read_inside(beside.folder, name).map_err(|e| {
            file.error(format!(
                "{} names `{}`, which cannot be read beside the HAR: {e}",
                file.path, field.text
            ))
        })?,
    };
    Ok(Body::Bytes {
        field,
        bytes,
        stored: vec!["file"],
    })
}

/// A response's `status`: `None` for a number outside `0..=65535` (a browser writes `-1` or
/// `0` for a request that got no response), an error for anything that is not a number.
fn status(status: &At<'_>) -> Result<Option<u16>, ReadError> {
    let text = status.field()?.text;
    let number: i64 = text
        .trim()
        .parse()
        .map_err(|_| status.error(format!("{} is not a number (`{text}`)", status.path)))?;
    Ok(u16::try_from(number).ok())
}

/// HAR 1.2: Polly.js (JSON or YAML), Playwright (with `_file` sidecars), browsers' exports.
pub struct Har;

/// HAR's [`Format`].
pub const FORMAT: Format = Format::new(&Har);

/// Polly finds a recorded entry by the `_id` it computed from the request when recording,
/// and computes it again from the live request: the stored request's values play no part.
const POLLY_MATCHES: &str = "nothing: Polly finds entries by the `_id` of the live request (if the test sends a placeholder at replay, leave that part out of matchRequestsBy)";

impl Recorder for Har {
    fn name(&self) -> &'static str {
        "HAR"
    }

    fn known_as(&self) -> &'static str {
        "HAR (Polly.js, Playwright)"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list
            && head.has("log")
            && (head.has_under("log", "entries") || head.has_under("log", "creator"))
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(
        &self,
        root: &Node,
        path: &Path,
        sidecars: &Sidecars,
    ) -> Result<HttpCassette, ReadError> {
        read(root, path, sidecars)
    }

    /// A `log` with its `creator` and `entries`, both of which HAR 1.2 requires.
    fn identified(&self, text: &str) -> bool {
        has(text, "log") && has(text, "creator") && has(text, "entries")
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "body"]
    }

    fn filter(&self, _: Filtered<'_>, tool: Option<&str>) -> Option<String> {
        (tool == Some("Polly")).then(|| POLLY_MATCHES.into())
    }

    /// Polly (whose entries carry the `_id` it matches by, under `creator.name` `Polly.JS`)
    /// or Playwright, by the HAR's `creator` near its start; `None` for a browser's export.
    fn tool(&self, text: &[u8]) -> Option<&'static str> {
        let head = String::from_utf8_lossy(&text[..text.len().min(4096)]);
        if head.contains("Polly.JS") || memchr::memmem::find(text, b"\"_id\"").is_some() {
            Some("Polly")
        } else if head.contains("Playwright") {
            Some("Playwright")
        } else if memchr::memmem::find(text, b"_id:").is_some() {
            // Polly's YAML HAR (sourcegraph/cody writes one).
            Some("Polly")
        } else {
            None
        }
    }

    fn tools(&self) -> &'static [&'static str] {
        &["Polly", "Playwright"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        let how = if tool == "Playwright" {
            How::Cannot(
                "Playwright records a HAR only with `update: true` in `routeFromHAR`; set it from a variable of your own and name that in vcr.toml (`[record] env`)",
            )
        } else {
            How::InCode(
                "Polly's `mode` and `recordIfMissing` (on by default: a missing recording is recorded)",
            )
        };
        RecordMode::only(tool, how)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::http::Field;
    use crate::http::testing::{assert_error, bytes, headers};
    use vcr_doc::from_json;

    /// Reads `text` as a HAR beside nothing (no sidecars).
    #[track_caller]
    fn har(text: &str) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not a HAR: {text}");
        read(&root, Path::new("nowhere/recording.har"), &Sidecars::new()).unwrap()
    }

    /// The error reading `text` as a HAR beside the files of `folder`.
    #[track_caller]
    fn error(text: &str, folder: &Path) -> ReadError {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not a HAR: {text}");
        read(&root, &folder.join("recording.har"), &Sidecars::new()).unwrap_err()
    }

    /// The field a scalar `needle` (as written, quotes included) makes at its offset.
    #[track_caller]
    fn field(text: &str, needle: &str, value: &str, path: &str) -> Field {
        let at = text
            .find(needle)
            .unwrap_or_else(|| panic!("no {needle} in {text}"));
        Field {
            text: value.to_owned(),
            at: Some(at as u32),
            path: path.to_owned(),
        }
    }

    #[test]
    fn matches_a_log_with_entries_only() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(
                matches(&from_json(text.as_bytes()).unwrap()),
                expected,
                "{text}"
            );
        }
        case(r#"{"log":{"entries":[]}}"#, true);
        case(
            r#"{"log":{"version":"1.2","creator":{},"entries":[{}]}}"#,
            true,
        );
        case(r#"{"log":{"entries":"broken"}}"#, true);
        case(r#"{"log":{"version":"1.2","pages":[]}}"#, false);
        case(r#"{"log":"entries"}"#, false);
        case(r#"{"entries":[]}"#, false);
        case(r#"[{"log":{"entries":[]}}]"#, false);
    }

    const POLLY: &str = r#"{"log":{"_recordingName":"r","creator":{"name":"Polly.JS"},"entries":[
 {"_id":"1","request":{"method":"POST","url":"https://api.example.test/v1/chat?key=abc",
   "headers":[{"name":"accept","value":["*/*","text/plain"]},{"name":"authorization","value":"Bearer xyz"}],
   "queryString":[{"name":"key","value":"abc"}],
   "postData":{"mimeType":"application/json","params":[],"text":"{\"q\":1}"}},
  "response":{"status":200,"statusText":"OK","headers":[{"name":"content-type","value":"application/json"}],
   "content":{"mimeType":"application/json","size":8,"text":"{\"a\":2}"}},
  "startedDateTime":"2024-05-01T10:00:00.000Z"},
 {"request":{"method":"GET","url":"https://api.example.test/","headers":[],"postData":{"mimeType":"text/plain"}},
  "response":{"status":-1,"headers":[],"content":{"size":0,"mimeType":"x-unknown"}}}
]}}"#;

    #[test]
    fn reads_polly_entries_with_paths_and_offsets() {
        let cassette = har(POLLY);
        assert_eq!(cassette.format, FORMAT);
        assert_eq!(cassette.interactions.len(), 2);
        let first = &cassette.interactions[0];
        assert_eq!(first.path, "log.entries[0]");
        let request = &first.request;
        assert_eq!(
            request.method,
            field(POLLY, r#""POST""#, "POST", "log.entries[0].request.method")
        );
        assert_eq!(request.url.text, "https://api.example.test/v1/chat?key=abc");
        assert_eq!(request.url.path, "log.entries[0].request.url");
        let headers = headers(&request.headers);
        assert_eq!(
            headers,
            [
                (
                    "accept",
                    "*/*",
                    "log.entries[0].request.headers[0].value[0]"
                ),
                (
                    "accept",
                    "text/plain",
                    "log.entries[0].request.headers[0].value[1]"
                ),
                (
                    "authorization",
                    "Bearer xyz",
                    "log.entries[0].request.headers[1].value"
                ),
            ]
        );
        assert_eq!(
            request.headers[2].value,
            field(
                POLLY,
                r#""Bearer xyz""#,
                "Bearer xyz",
                "log.entries[0].request.headers[1].value"
            )
        );
        let (body, stored, kept) = bytes(request.body.as_ref());
        assert_eq!((body, stored), (&b"{\"q\":1}"[..], &[][..]));
        assert_eq!(kept.path, "log.entries[0].request.postData.text");
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        let (body, stored, kept) = bytes(response.body.as_ref());
        assert_eq!((body, stored), (&b"{\"a\":2}"[..], &[][..]));
        assert_eq!(kept.path, "log.entries[0].response.content.text");
        assert_eq!(
            first.recorded_at,
            Some(field(
                POLLY,
                r#""2024-05-01"#,
                "2024-05-01T10:00:00.000Z",
                "log.entries[0].startedDateTime"
            ))
        );
        // No text in `postData` or `content`: no body; a failed request's `-1`: no status.
        let second = &cassette.interactions[1];
        assert_eq!(second.request.body, None);
        assert_eq!(second.response.as_ref().unwrap().body, None);
        assert_eq!(second.response.as_ref().unwrap().status, None);
        assert_eq!(second.recorded_at, None);
    }

    /// `{"log":{"entries":[ENTRY]}}` with a GET request and `response`.
    fn with_response(response: &str) -> String {
        format!(
            r#"{{"log":{{"entries":[{{"request":{{"method":"GET","url":"https://h.test/","headers":[]}},"response":{response}}}]}}}}"#
        )
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn decodes_base64_content_and_pollys_chunk_lists() {
        use base64::Engine as _;
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let gz = gzip(b"{\"token\":\"t\"}");
        let (a, b) = gz.split_at(7);
        let encoded = r#"[{"name":"content-encoding","value":"gzip"}]"#;
        #[track_caller]
        fn case(response: String, expected: &[u8], stored: &[&str]) {
            let cassette = har(&with_response(&response));
            let body = cassette.interactions[0]
                .response
                .as_ref()
                .unwrap()
                .body
                .as_ref();
            let (got, got_stored, field) = bytes(body);
            assert_eq!((got, got_stored), (expected, stored), "{response}");
            assert_eq!(field.path, "log.entries[0].response.content.text");
        }
        // Playwright and Polly 4+: a binary body in base64.
        case(
            format!(
                r#"{{"status":200,"content":{{"encoding":"base64","text":"{}"}}}}"#,
                b64(&gz)
            ),
            &gz,
            &["base64"],
        );
        // Polly 4+: a content-encoded body as a JSON list of base64 chunks.
        let chunks = format!(r#"[\"{}\",\"{}\"]"#, b64(a), b64(b));
        case(
            format!(
                r#"{{"status":200,"headers":{encoded},"content":{{"encoding":"base64","text":"{chunks}"}}}}"#
            ),
            &gz,
            &["json", "base64"],
        );
        // Polly 1 to 3: the same list in hex, without `encoding`.
        let chunks = format!(r#"[\"{}\",\"{}\"]"#, hex(a), hex(b));
        case(
            format!(
                r#"{{"status":200,"headers":{encoded},"content":{{"_isBinary":true,"text":"{chunks}"}}}}"#
            ),
            &gz,
            &["json", "hex"],
        );
        // A JSON list body that is not content-encoded is the text it is.
        case(
            r#"{"status":200,"content":{"text":"[\"ab\"]"}}"#.to_owned(),
            b"[\"ab\"]",
            &[],
        );
        // Content-encoded, but the list is not chunks: the text it is.
        case(
            format!(r#"{{"status":200,"headers":{encoded},"content":{{"text":"[\"not hex\"]"}}}}"#),
            b"[\"not hex\"]",
            &[],
        );
    }

    #[test]
    fn reads_codys_parsed_request_body_and_form_params_as_data() {
        #[track_caller]
        fn case(post: &str, expected: Option<(&str, &str)>) {
            let text = format!(
                r#"{{"log":{{"entries":[{{"request":{{"method":"POST","url":"https://h.test/","postData":{post}}},"response":{{"status":200}}}}]}}}}"#
            );
            let cassette = har(&text);
            let body = &cassette.interactions[0].request.body;
            match (body, expected) {
                (Some(Body::Data { path, node }), Some((want_path, key))) => {
                    assert_eq!(path, want_path);
                    let inner = match node.as_seq() {
                        Some(items) => &items[0],
                        None => node,
                    };
                    assert!(inner.get(key).is_some(), "{post}: {node:?}");
                }
                (None, None) => {}
                (got, _) => panic!("{post}: {got:?}"),
            }
        }
        case(
            r#"{"mimeType":"application/json","params":[],"textJSON":{"messages":[]}}"#,
            Some(("log.entries[0].request.postData.textJSON", "messages")),
        );
        case(
            r#"{"mimeType":"application/x-www-form-urlencoded","params":[{"name":"password","value":"p"}]}"#,
            Some(("log.entries[0].request.postData.params", "name")),
        );
        case(r#"{"mimeType":"text/plain","params":[]}"#, None);
    }

    #[test]
    fn a_missing_or_wrong_field_is_an_error_at_its_holder() {
        #[track_caller]
        fn case(text: &str, message: &str, at: &str) {
            let e = error(text, Path::new("nowhere"));
            assert_error(&e, text, FORMAT, message, at);
        }
        // An empty mapping has no offset of its own: the error is at its key.
        case(
            r#"{"log":{"entries":{}}}"#,
            "log.entries is not a list",
            r#""entries""#,
        );
        case(
            r#"{"log":{"entries":[{"response":{}}]}}"#,
            "log.entries[0] has no `request`",
            r#""response""#,
        );
        case(
            r#"{"log":{"entries":[{"request":{"method":"GET","headers":[]},"response":{"status":200}}]}}"#,
            "log.entries[0].request has no `url`",
            r#""method""#,
        );
        case(
            r#"{"log":{"entries":[{"request":{"method":"GET","url":"u"}}]}}"#,
            "log.entries[0] has no `response`",
            r#""request""#,
        );
        case(
            r#"{"log":{"entries":[{"request":{"method":"GET","url":"u","headers":[{"value":"v"}]},"response":{"status":200}}]}}"#,
            "log.entries[0].request.headers[0] has no `name`",
            r#""value""#,
        );
        case(
            r#"{"log":{"entries":[{"request":{"method":"GET","url":"u"},"response":{"status":"OK"}}]}}"#,
            "log.entries[0].response.status is not a number (`OK`)",
            r#""OK""#,
        );
    }

    /// Regression (issue 41): EasyPost's Polly HARs say `encoding: base64` over JSON text;
    /// Polly loads them (node's base64 decoder refuses nothing), so the text is the body, not
    /// a `parse` error.
    #[test]
    fn text_that_is_no_base64_under_encoding_base64_is_the_body() {
        let text = r#"{"log":{"entries":[{"request":{"method":"GET","url":"u"},"response":{"status":200,"content":{"encoding":"base64","mimeType":"application/json","text":"{\"mode\":\"test\"}"}}}]}}"#;
        let cassette = har(text);
        let body = cassette.interactions[0]
            .response
            .as_ref()
            .and_then(|r| r.body.as_ref())
            .expect("a body");
        match body {
            Body::Bytes { bytes, .. } => assert_eq!(bytes, br#"{"mode":"test"}"#),
            other => panic!("{other:?}"),
        }
    }

    /// A Playwright HAR whose response body is the sidecar `name`.
    fn playwright(name: &str) -> String {
        format!(
            r#"{{"log":{{"creator":{{"name":"Playwright"}},"entries":[{{"request":{{"method":"GET","url":"http://h.test/","headers":[]}},"response":{{"status":200,"headers":[],"content":{{"size":5,"mimeType":"text/html","_file":"{name}"}}}}}}]}}}}"#
        )
    }

    #[test]
    fn reads_playwrights_sidecar_file_as_the_body() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("75a3e1.html"), "hello").unwrap();
        let text = playwright("75a3e1.html");
        let root = from_json(text.as_bytes()).unwrap();
        let cassette = read(&root, &dir.path().join("recording.har"), &Sidecars::new()).unwrap();
        let body = &cassette.interactions[0].response.as_ref().unwrap().body;
        assert_eq!(
            body,
            &Some(Body::Bytes {
                field: field(
                    &text,
                    r#""75a3e1"#,
                    "75a3e1.html",
                    "log.entries[0].response.content._file"
                ),
                bytes: b"hello".to_vec(),
                stored: vec!["file"],
            })
        );
    }

    #[test]
    fn a_sidecar_outside_the_hars_folder_or_absent_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("har");
        std::fs::create_dir(&inner).unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
        std::fs::create_dir(inner.join("sub")).unwrap();
        #[track_caller]
        fn case(folder: &Path, name: &str, why: &str) {
            let text = playwright(name);
            let e = error(&text, folder);
            let head = format!("log.entries[0].response.content._file names `{name}`, which");
            assert!(e.message.starts_with(&head), "{name}: {e}");
            assert!(e.message.ends_with(why), "{name}: {e}");
            let quoted = format!("\"{name}\"");
            assert_error(&e, &text, FORMAT, &e.message, &quoted);
        }
        let outside = "is not a file in the HAR's folder";
        case(&inner, "../secret.txt", outside);
        case(&inner, "sub/../../secret.txt", outside);
        case(
            &inner,
            &dir.path().join("secret.txt").display().to_string(),
            outside,
        );
        case(&inner, "", outside);
        case(&inner, "missing.txt", "(os error 2)");
        case(&inner, "sub", "it is not a regular file");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), inner.join("link.txt"))
                .unwrap();
            case(&inner, "link.txt", "it resolves outside the folder it is read from");
            // A named pipe would block a reader that opened it: it is refused unopened.
            let fifo = inner.join("pipe");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                case(&inner, "pipe", "it is not a regular file");
            }
        }
    }
}
