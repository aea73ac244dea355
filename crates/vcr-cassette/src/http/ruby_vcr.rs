//! Ruby VCR cassettes, YAML (Psych) or JSON.
//!
//! `http_interactions:` (+ `recorded_with: VCR x.y.z`), each with a `request` (`method`,
//! `uri`, `body`, `headers` of name to a list of values), a `response` (`status: {code,
//! message}`, `headers`, `body`, `http_version`) and `recorded_at`. A body is `{encoding,
//! string}`, `{encoding, base64_string}` (bytes that are not text in their encoding) or, in
//! hand-written and older files, a string; old Psych wrote bytes as `string: !binary |-`.
//! `recorded_with` has no place in the model and is not read.

use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{self, At};
use super::{Body, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a Ruby VCR cassette: a mapping with an `http_interactions` list.
pub(super) fn matches(root: &Node) -> bool {
    root.get("http_interactions")
        .and_then(Node::as_seq)
        .is_some()
}

/// Reads a Ruby VCR cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    walk::cassette(root, FORMAT, "http_interactions", interaction)
}

/// Reads one interaction from its item (whole, or in windows: `windows`).
pub(super) fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
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
                .map(|s| s.status_code())
                .transpose()?,
            headers: response.headers_in("headers")?,
            body: response.get("body").map_or(Ok(None), |b| body(&b))?,
        }),
        recorded_at: item
            .get("recorded_at")
            .map(|r| r.into_field())
            .transpose()?,
    })
}

/// `{encoding, string}`, `{encoding, base64_string}`, or a bare string.
fn body(b: &At<'_>) -> Result<Option<Body>, ReadError> {
    match b.node.as_map() {
        None => return b.body_bytes(),
        Some([]) => return Ok(None),
        Some(_) => {}
    }
    if let Some(base64) = b.get("base64_string") {
        return base64.body_base64();
    }
    match b.node.get("string") {
        Some(string) if string.is_null() => Ok(None),
        Some(_) => b.need("string")?.body_bytes(),
        None => Err(b.error(format!("{} has no `string`", b.path))),
    }
}

/// Ruby VCR.
pub struct RubyVcr;

/// Ruby VCR's [`Format`].
pub const FORMAT: Format = Format::new(&RubyVcr);

impl Recorder for RubyVcr {
    fn name(&self) -> &'static str {
        "Ruby VCR"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("http_interactions")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `recorded_with: VCR <version>` (R's vcr writes `vcr/1.2.0, webmockr/...`).
    fn identified(&self, text: &str) -> bool {
        [
            "recorded_with: VCR ",
            "recorded_with: 'VCR ",
            "recorded_with: \"VCR ",
            "\"recorded_with\": \"VCR ",
            "\"recorded_with\":\"VCR ",
        ]
        .iter()
        .any(|marker| has(text, marker))
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "uri"]
    }

    fn dialect(&self) -> Dialect {
        Dialect::Psych
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "Ruby VCR's config.filter_sensitive_data(\"{placeholder}\") {{ <the real {name}> }}"
            ),
            Filtered::Header { .. } => {
                "Ruby VCR's config.filter_sensitive_data(<placeholder>) { <the real value> }".into()
            }
            Filtered::Body => "Ruby VCR's config.filter_sensitive_data(<placeholder>) { <the real value> } for each value".into(),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["Ruby VCR"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "`record:` in `VCR.configure`'s `default_cassette_options`: `:once`, the default, records a missing cassette",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        // The cassette is the first one listed below `VCR is currently using the following
        // cassette:` (the innermost, where it would record); none when `There is currently
        // no cassette in use`.
        &[MissRule {
            headline: "An HTTP request has been made that VCR does not know how to handle",
            names: MissNames::Below {
                name: r"^(?:E\s+)?\s*- ([^:\s].*?)\s*$",
                list: Some("currently using the following cassette"),
                none: Some("There is currently no cassette in use"),
                within: 200,
            },
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::walk::testing::assert_read_error;
    use crate::http::{Body, HttpCassette};
    use vcr_doc::{Node, from_json, yaml};

    #[track_caller]
    fn read_text(text: &str) -> HttpCassette {
        let root = if text.starts_with('{') {
            from_json(text.as_bytes()).unwrap()
        } else {
            yaml::parse(text).unwrap()
        };
        assert!(matches(&root), "not Ruby VCR: {text}");
        read(&root).unwrap()
    }

    fn bytes(body: Option<&Body>) -> (&[u8], &[&'static str], &str) {
        match body {
            Some(Body::Bytes {
                bytes,
                stored,
                field,
            }) => (bytes, stored, &field.path),
            other => panic!("not bytes: {other:?}"),
        }
    }

    /// As VCR 6 writes it through Psych.
    const PSYCH: &str = "---
http_interactions:
- request:
    method: post
    uri: https://api.anthropic.com/v1/messages
    body:
      encoding: UTF-8
      string: '{\"model\":\"claude-3-haiku\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello
        there\"}]}'
    headers:
      X-Api-Key:
      - sk-ant-test
      Content-Type:
      - application/json
  response:
    status:
      code: 200
      message: OK
    headers:
      Content-Encoding:
      - gzip
    body:
      encoding: ASCII-8BIT
      base64_string: |
        H4sIAAAAAAAAA6tWyk0tLk5MT1WyUlAqLU4tUqoFAHQ0pMQTAAAA
  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT
- request:
    method: get
    uri: https://api.anthropic.com/v1/models
    body:
      encoding: US-ASCII
      string: ''
    headers: {}
  response:
    status:
      code: 401
      message: Unauthorized
    headers: {}
    body:
      encoding: UTF-8
      string: |+
        event: error
        data: {\"type\":\"error\"}

  recorded_at: Mon, 01 Jan 2024 00:00:01 GMT
recorded_with: VCR 6.2.0
";

    #[test]
    fn reads_psych_cassettes() {
        let cassette = read_text(PSYCH);
        let [first, second] = &cassette.interactions[..] else {
            panic!("two interactions expected");
        };
        assert_eq!(first.path, "http_interactions[0]");
        assert_eq!(first.request.method.text, "post");
        assert_eq!(first.request.url.path, "http_interactions[0].request.uri");
        let key = &first.request.headers[0];
        assert_eq!(
            (key.name.as_str(), key.value.text.as_str()),
            ("X-Api-Key", "sk-ant-test")
        );
        assert_eq!(
            key.value.path,
            "http_interactions[0].request.headers.X-Api-Key[0]"
        );
        assert!(PSYCH[key.value.at.unwrap() as usize..].starts_with("sk-ant-test\n"));
        let (body, stored, path) = bytes(first.request.body.as_ref());
        assert_eq!(
            body,
            br#"{"model":"claude-3-haiku","messages":[{"role":"user","content":"Hello there"}]}"#
        );
        assert!(stored.is_empty());
        assert_eq!(path, "http_interactions[0].request.body.string");
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        let (body, stored, path) = bytes(response.body.as_ref());
        assert!(body.starts_with(&[0x1f, 0x8b]));
        assert_eq!(stored, ["base64"]);
        assert_eq!(path, "http_interactions[0].response.body.base64_string");
        let recorded = first.recorded_at.as_ref().unwrap();
        assert_eq!(recorded.text, "Mon, 01 Jan 2024 00:00:00 GMT");
        assert_eq!(recorded.path, "http_interactions[0].recorded_at");

        assert_eq!(second.request.body, None);
        let response = second.response.as_ref().unwrap();
        assert_eq!(response.status, Some(401));
        assert_eq!(
            bytes(response.body.as_ref()).0,
            b"event: error\ndata: {\"type\":\"error\"}\n\n"
        );
    }

    /// Older files: Psych's `!binary`, a bare string body, the non-specific `!` tag.
    #[test]
    fn reads_older_shapes() {
        let text = "---
http_interactions:
- request:
    method: get
    uri: http://example.com/
    body: ''
    headers: {}
  response:
    status:
      code: 200
      message: OK
    headers:
      Etag:
      - ! '\"24ec5\"'
    body:
      encoding: ASCII-8BIT
      string: !binary |-
        //79
    http_version: '1.1'
  recorded_at: Tue, 01 Nov 2011 04:49:54 GMT
recorded_with: VCR 2.0.0
";
        let cassette = read_text(text);
        let response = cassette.interactions[0].response.as_ref().unwrap();
        assert_eq!(response.headers[0].value.text, "\"24ec5\"");
        assert_eq!(bytes(response.body.as_ref()).0, [0xff, 0xfe, 0xfd]);
        assert_eq!(bytes(response.body.as_ref()).1, ["binary"]);
        assert_eq!(cassette.interactions[0].request.body, None);
    }

    /// The JSON serializer (also what http-rs/vcr-cassette reads).
    #[test]
    fn reads_json_cassettes() {
        let text = r#"{"http_interactions": [{"response": {"body": {"encoding": "UTF-8", "string": "Hello"},
            "http_version": null, "status": {"code": 200, "message": "OK"}, "headers": {"Date": ["Thu, 27 Oct 2011 06:16:31 GMT"]}},
            "request": {"uri": "http://localhost:7777/foo", "body": {"encoding": "UTF-8", "string": ""}, "method": "get", "headers": {}},
            "recorded_at": "Tue, 01 Nov 2011 04:58:44 GMT"}], "recorded_with": "VCR 2.0.0"}"#;
        let cassette = read_text(text);
        let i = &cassette.interactions[0];
        assert_eq!(i.request.url.text, "http://localhost:7777/foo");
        let response = i.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert_eq!(bytes(response.body.as_ref()).0, b"Hello");
        assert!(text[i.recorded_at.as_ref().unwrap().at.unwrap() as usize..].starts_with("\"Tue"));
    }

    #[test]
    fn matches_by_structure() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            let root: Node = yaml::parse(text).unwrap();
            assert_eq!(matches(&root), expected, "{text}");
        }
        case(PSYCH, true);
        case("http_interactions: []\n", true);
        case("interactions: []\nversion: 1\n", false);
        case("http_interactions: {}\n", false);
        case("- http_interactions: []\n", false);
    }

    #[test]
    fn names_missing_and_malformed_fields() {
        let case = |text: &str, message: &str, at: &str| {
            assert_read_error(read, text, message, at);
        };
        case(
            "http_interactions:\n- request:\n    uri: http://x/\n  response: {}\n",
            "http_interactions[0].request has no `method`",
            "uri: http://x/",
        );
        case(
            "http_interactions:\n- request: {method: get, uri: 'http://x/'}\n",
            "http_interactions[0] has no `response`",
            "request:",
        );
        case(
            "http_interactions:\n- request: {method: get, uri: 'http://x/'}\n  response:\n    body: {encoding: UTF-8}\n",
            "http_interactions[0].response.body has no `string`",
            "{encoding",
        );
        case(
            "http_interactions: {}\n",
            "http_interactions is not a list",
            "{}",
        );
    }
}
