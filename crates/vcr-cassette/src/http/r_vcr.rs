//! R's vcr (rOpenSci) cassettes, YAML (or JSON with `serialize_with = "json"`).
//!
//! They share Ruby VCR's `http_interactions`, each `{request: {method, uri, body?,
//! headers?}, response: {status, headers, body}, recorded_at}`, but not its shapes:
//! - vcr 2 writes `recorded_with: VCR-vcr/2.x` once, the status as an integer, and a body as
//!   one of `string` (text), `raw_gzip` (base64 of R's `memCompress(type = "gzip")`, which is
//!   a zlib stream, RFC 1950; read as its inflated bytes, stored `["base64", "zlib"]`),
//!   `fields` (a form's fields, read as data) or `on_disk` (a path under `write_disk_path`:
//!   no body here);
//! - vcr 1 writes `recorded_with: vcr/1.x, webmockr/...` in every interaction, the status as
//!   `{status_code: '404', message, explanation}`, and a body as `{encoding, file, string}`
//!   (with `file: yes`, `string` is the path of a file on disk: no body here) or
//!   `base64_string`.
//!
//! `recorded_at` is `2025-09-04 10:23:03` (vcr 2) or with ` GMT` (vcr 1).

use std::io::Read as _;
use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{self, At, base64_bytes};
use super::{Body, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a cassette of R's vcr: `http_interactions` beside vcr's own
/// `recorded_with` (`VCR-vcr/` or `vcr/`), or whose first interaction has vcr 1's own
/// `recorded_with` or a status that is not Ruby VCR's `{code, message}` (an integer, or
/// `{status_code, ...}`). Judged by keys and shapes, so that a window's first item tells it
/// too.
pub(super) fn matches(root: &Node) -> bool {
    let Some(items) = root.get("http_interactions").and_then(Node::as_seq) else {
        return false;
    };
    let ours = |node: Option<&Node>| {
        node.and_then(Node::as_str)
            .is_some_and(|w| w.starts_with("VCR-vcr/") || w.starts_with("vcr/"))
    };
    if ours(root.get("recorded_with")) {
        return true;
    }
    items.first().is_some_and(|first| {
        let status = first.get("response").and_then(|r| r.get("status"));
        first.get("recorded_with").is_some()
            || status.is_some_and(|s| s.as_scalar().is_some() || s.get("status_code").is_some())
    })
}

/// Reads a cassette of R's vcr.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    walk::cassette(root, FORMAT, "http_interactions", interaction)
}

fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("request")?;
    let response = item.need("response")?;
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need("method")?.into_field()?,
            url: request.need("uri")?.into_field()?,
            headers: request.headers_in("headers")?,
            body: request.get("body").map_or(Ok(None), |b| body(&b))?,
        },
        response: Some(Response {
            status: response
                .get("status")
                .map(|s| status(&s))
                .transpose()?
                .flatten(),
            headers: response.headers_in("headers")?,
            body: response.get("body").map_or(Ok(None), |b| body(&b))?,
        }),
        recorded_at: item
            .get("recorded_at")
            .map(|r| r.into_field())
            .transpose()?,
    })
}

/// vcr 2's integer, or vcr 1's `{status_code, message, explanation}`.
fn status(status: &At<'_>) -> Result<Option<u16>, ReadError> {
    match status.get("status_code") {
        Some(code) => code.status().map(Some),
        // crul's status without its code (`{category: Success, reason: OK, message:
        // 'Success: (200) OK'}`, as early vcr versions wrote it): the code is in the
        // message, which R vcr loads as it stands.
        None if status.node.as_map().is_some() => Ok(status
            .get("message")
            .and_then(|m| m.node.as_scalar().map(|s| s.text.to_string()))
            .and_then(|m| code_in(&m))),
        None => status.status().map(Some),
    }
}

/// The status code written inside a message (`Success: (200) OK`).
fn code_in(message: &str) -> Option<u16> {
    let open = message.find('(')?;
    let close = message[open..].find(')')? + open;
    message[open + 1..close].trim().parse().ok()
}

/// A body in any of the shapes of either version (a bare string too).
fn body(b: &At<'_>) -> Result<Option<Body>, ReadError> {
    if b.node.as_map().is_none() {
        return b.body_bytes();
    }
    if let Some(raw) = b.get("raw_gzip") {
        return raw_gzip_body(&raw);
    }
    if let Some(fields) = b.get("fields") {
        return Ok(Some(fields.body_data()));
    }
    if b.has("on_disk") || b.get("file").is_some_and(|f| is_yes(f.node)) {
        // The body is a file elsewhere; its path is scanned as text.
        return Ok(None);
    }
    if let Some(base64) = b.get("base64_string") {
        return base64.body_base64();
    }
    match b.get("string") {
        Some(string) => string.body_bytes(),
        None => Ok(None),
    }
}

/// Whether a scalar is R's `TRUE` as its yaml package writes it (`yes`) or reads it.
fn is_yes(node: &Node) -> bool {
    node.as_scalar().is_some_and(|s| {
        s.style == vcr_doc::Style::Plain
            && matches!(
                s.text.as_str(),
                "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "y" | "Y" | "on" | "On" | "ON"
            )
    })
}

/// `raw_gzip`: base64 (wrapped) of what `memDecompress(type = "gzip")` undoes: a zlib
/// stream (what vcr's `memCompress` writes), read as the bytes it inflates to, or gzip
/// (found in rgbif's fixtures), read as the gzip bytes, which every reader undoes as it
/// undoes a gzip body.
fn raw_gzip_body(raw: &At<'_>) -> Result<Option<Body>, ReadError> {
    let field = raw.field()?;
    let compressed = base64_bytes(&field.text)
        .ok_or_else(|| raw.error(format!("{} is not valid base64", raw.path)))?;
    if super::body::is_gzip(&compressed) {
        return Ok(Some(Body::Bytes {
            field,
            bytes: compressed,
            stored: vec!["base64"],
        }));
    }
    let mut bytes = Vec::new();
    flate2::read::ZlibDecoder::new(&compressed[..])
        // As much as a compressed cassette may inflate to.
        .take(64 << 20)
        .read_to_end(&mut bytes)
        .map_err(|e| raw.error(format!("{} is not a zlib stream: {e}", raw.path)))?;
    if bytes.is_empty() {
        return Ok(None);
    }
    Ok(Some(Body::Bytes {
        field,
        bytes,
        stored: vec!["base64", "zlib"],
    }))
}

/// R's `memCompress(bytes, type = "gzip")`: a zlib stream, what a scrubbed body stored as
/// `["base64", "zlib"]` is written back as (before its base64).
pub fn mem_compress(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, bytes)?;
    encoder.finish()
}

/// R's vcr.
pub struct RVcr;

/// R's vcr's [`Format`].
pub const FORMAT: Format = Format::new(&RVcr);

impl Recorder for RVcr {
    fn name(&self) -> &'static str {
        "R vcr"
    }

    fn known_as(&self) -> &'static str {
        "R's vcr (rOpenSci)"
    }

    /// `http_interactions` with one of vcr's own words in the head (`recorded_with` comes
    /// last in vcr 2, so a long cassette shows its shapes instead).
    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list
            && head.has("http_interactions")
            && [
                "vcr/",
                "status_code:",
                "raw_gzip:",
                "file: no",
                "explanation:",
            ]
            .iter()
            .any(|word| has(head.text, word))
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `recorded_with: VCR-vcr/...` (vcr 2) or `recorded_with: vcr/..., webmockr/...`
    /// (vcr 1), quoted or not, in YAML or JSON.
    fn identified(&self, text: &str) -> bool {
        ["VCR-vcr/", "vcr/"].iter().any(|version| {
            [
                "recorded_with: ",
                "recorded_with: '",
                "recorded_with: \"",
                "\"recorded_with\": \"",
                "\"recorded_with\":\"",
            ]
            .iter()
            .any(|key| has(text, &format!("{key}{version}")))
        })
    }

    /// vcr 2's `"default"`: method and URI, and the body (`body_json` for JSON).
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "uri", "body"]
    }

    /// vcr 1 (`recorded_with: vcr/...` in every interaction, so in the first) matched the
    /// method and URI only, although it recorded every request's body.
    fn match_on_in(&self, head: &[u8]) -> &'static [&'static str] {
        let head = &head[..head.len().min(1 << 16)];
        let v1 = [
            "recorded_with: vcr/",
            "recorded_with: 'vcr/",
            "\"recorded_with\": \"vcr/",
        ]
        .iter()
        .any(|marker| memchr::memmem::find(head, marker.as_bytes()).is_some());
        if v1 {
            &["method", "uri"]
        } else {
            self.default_match_on()
        }
    }

    /// R's yaml package reads YAML 1.1's booleans and `y`/`n` too, as Psych does.
    fn dialect(&self) -> Dialect {
        Dialect::Psych
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "vcr_configure(filter_query_parameters = list({name} = c(<the real value>, \"{placeholder}\")))"
            ),
            Filtered::Header { name } => format!(
                "vcr_configure(filter_request_headers = list(\"{name}\" = <the placeholder>))"
            ),
            Filtered::Body => "vcr_configure(filter_sensitive_data = list(\"<placeholder>\" = <the real value>)) for each value".into(),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["R vcr"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "`record` in `vcr_configure()` or `use_cassette()`: `\"once\"`, the default, records a missing cassette",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[
            // vcr 2 (`vcr_unhandled`): the cassette's name, quoted.
            MissRule {
                headline: r#"Failed to find matching request in active cassette, "([^"]+)""#,
                names: MissNames::Headline,
            },
            // vcr 1, as Ruby VCR words it but for the name: the cassette is listed below.
            MissRule {
                headline: "An HTTP request has been made that vcr does not know how to handle",
                names: MissNames::Below {
                    name: r"^\s*- ([^:\s].*?)\s*$",
                    list: Some("vcr is currently using the following cassette"),
                    none: Some("There is currently no cassette in use"),
                    within: 40,
                },
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, mem_compress, read};
    use crate::http::testing::{bytes, headers};
    use crate::http::{Body, HttpCassette};
    use vcr_doc::yaml;

    #[track_caller]
    fn read_yaml(text: &str) -> HttpCassette {
        let root = yaml::parse(text).unwrap();
        assert!(matches(&root), "not R's vcr: {text}");
        read(&root).unwrap()
    }

    /// As early vcr versions wrote crul's status: `{category, reason, message}` without
    /// `status_code`, the code only in the message. R vcr loads it: read, never a `parse`
    /// error, the code taken from the message, or none.
    #[test]
    fn reads_a_status_without_its_code() {
        let text = "http_interactions:
- request:
    method: get
    uri: https://api.example.com/journal?key=x
  response:
    status:
      category: Success
      reason: OK
      message: 'Success: (200) OK'
    headers:
      status: HTTP/1.1 200 OK
    body:
      encoding: UTF-8
      string: ok
  recorded_at: 2019-01-01 10:00:00 GMT
  recorded_with: vcr/0.2.2, webmockr/0.3.0
- request:
    method: get
    uri: https://api.example.com/journal?key=y
  response:
    status:
      category: Success
      reason: OK
    headers: {}
    body:
      encoding: UTF-8
      string: ok
  recorded_at: 2019-01-01 10:00:00 GMT
  recorded_with: vcr/0.2.2, webmockr/0.3.0
";
        let cassette = read_yaml(text);
        let statuses: Vec<Option<u16>> = cassette
            .interactions
            .iter()
            .map(|i| i.response.as_ref().and_then(|r| r.status))
            .collect();
        assert_eq!(statuses, [Some(200), None]);
    }

    /// As vcr 2 writes it (from rgbif's fixtures): an integer status, `raw_gzip`, no request
    /// body, `recorded_with` at the end.
    #[test]
    fn reads_vcr_2() {
        let text = "http_interactions:
- request:
    method: DELETE
    uri: https://api.gbif.org/v1/occurrence/download/request/0025653
  response:
    status: 204
    headers:
      status: HTTP/1.1 204 No Content
    body:
      raw_gzip: eJwDAAAAAAE=
  recorded_at: 2025-09-04 10:23:03
- request:
    method: POST
    uri: https://api.example.com/token
    body:
      fields:
        password: s3cr3t-pa55
  response:
    status: 401
    headers: {}
    body:
      raw_gzip: eJxzDQqyMjSwKi1OLVJIyU8tVsjLL1FIrcgsLtHjAgCDWAk/
  recorded_at: 2025-09-04 10:23:04
recorded_with: VCR-vcr/2.0.0
";
        let cassette = read_yaml(text);
        let [first, second] = &cassette.interactions[..] else {
            panic!("two interactions expected");
        };
        assert_eq!(first.request.method.text, "DELETE");
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(204));
        // An empty zlib stream: no body.
        assert_eq!(response.body, None);
        assert_eq!(
            first.recorded_at.as_ref().unwrap().text,
            "2025-09-04 10:23:03"
        );
        assert!(
            matches!(&second.request.body, Some(Body::Data { path, .. }) if path == "http_interactions[1].request.body.fields")
        );
        let (body, stored, field) = bytes(second.response.as_ref().unwrap().body.as_ref());
        assert_eq!(body, b"ERR:10:user does not exist.\n");
        assert_eq!(stored, ["base64", "zlib"]);
        assert_eq!(field.path, "http_interactions[1].response.body.raw_gzip");
    }

    /// As vcr 1 writes it (the Debian package's 1.2.0): `recorded_with` in every
    /// interaction, `{status_code, message, explanation}`, `{encoding, file, string}`.
    #[test]
    fn reads_vcr_1() {
        let text = "http_interactions:
- request:
    method: get
    uri: http://127.0.0.1/v1/models?api_key=k7Qw2Rt9
    body:
      encoding: ''
      string: ''
    headers:
      Accept: application/json, text/xml, application/xml, */*
      Authorization: Bearer sk-proj-abc
  response:
    status:
      status_code: '200'
      message: OK
      explanation: Request fulfilled, document follows
    headers:
      content-type: application/json
    body:
      encoding: ''
      file: no
      string: '{\"data\":[]}'
  recorded_at: 2026-12-07 08:40:00 GMT
  recorded_with: vcr/1.2.0, webmockr/0.8.2
- request:
    method: get
    uri: http://127.0.0.1/big.zip
    body:
      encoding: ''
      string: ''
  response:
    status:
      status_code: '200'
    body:
      encoding: ''
      file: yes
      string: /tmp/RtmpX/big.zip
  recorded_at: 2026-12-07 08:40:01 GMT
  recorded_with: vcr/1.2.0, webmockr/0.8.2
";
        let cassette = read_yaml(text);
        let first = &cassette.interactions[0];
        assert_eq!(first.request.body, None);
        assert_eq!(
            headers(&first.request.headers)[1],
            (
                "Authorization",
                "Bearer sk-proj-abc",
                "http_interactions[0].request.headers.Authorization"
            )
        );
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert_eq!(bytes(response.body.as_ref()).0, br#"{"data":[]}"#);
        // A body kept in a file of its own.
        assert_eq!(
            cassette.interactions[1].response.as_ref().unwrap().body,
            None
        );
    }

    /// `raw_gzip` may hold gzip too (rgbif's `dataset_search_new_params.yml`), which
    /// `memDecompress(type = "gzip")` undoes as well: read as the gzip bytes.
    #[test]
    fn a_raw_gzip_body_in_gzip_is_read() {
        use base64::Engine as _;
        let gzip = crate::http::compress(b"{\"ok\":true}").unwrap();
        let text = format!(
            "http_interactions:\n- request:\n    method: GET\n    uri: https://x/\n  response:\n    status: 200\n    body:\n      raw_gzip: {}\n  recorded_at: 2025-11-13 09:00:00\n",
            base64::engine::general_purpose::STANDARD.encode(&gzip)
        );
        let cassette = read_yaml(&text);
        let (body, stored, _) = bytes(
            cassette.interactions[0]
                .response
                .as_ref()
                .unwrap()
                .body
                .as_ref(),
        );
        assert_eq!((body, stored), (&gzip[..], &["base64"][..]));
    }

    #[test]
    fn vcr_1_matched_less_than_vcr_2() {
        use crate::http::Recorder as _;
        let v1 = b"http_interactions:\n- request:\n    method: get\n  recorded_with: vcr/1.2.0, webmockr/0.8.2\n";
        let v2 = b"http_interactions:\n- request:\n    method: GET\nrecorded_with: VCR-vcr/2.0.0\n";
        assert_eq!(super::RVcr.match_on_in(v1), ["method", "uri"]);
        assert_eq!(super::RVcr.match_on_in(v2), ["method", "uri", "body"]);
    }

    #[test]
    fn zlib_round_trips() {
        let packed = mem_compress(b"Request failed [401]. User not authorized.\n").unwrap();
        assert_eq!(&packed[..2], [0x78, 0x9c]);
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&packed[..]), &mut out)
            .unwrap();
        assert_eq!(out, b"Request failed [401]. User not authorized.\n");
    }

    #[test]
    fn matches_by_structure() {
        let case = |text: &str, expected: bool| {
            assert_eq!(matches(&yaml::parse(text).unwrap()), expected, "{text}");
        };
        case(
            "http_interactions: []\nrecorded_with: VCR-vcr/2.0.0\n",
            true,
        );
        case(
            "http_interactions:\n- request: {}\n  response:\n    status: 200\n",
            true,
        );
        // Ruby VCR.
        case("http_interactions: []\nrecorded_with: VCR 6.2.0\n", false);
        case(
            "http_interactions:\n- request: {}\n  response:\n    status:\n      code: 200\n      message: OK\nrecorded_with: VCR 6.2.0\n",
            false,
        );
    }
}
