//! go-vcr cassettes (YAML, written by yaml.v2 or yaml.v3).
//!
//! Every version keeps `interactions`, each a `request` (`url`, `method`, `headers` of name to
//! a list of values, `body`, `form`) and a `response` (`body`, `headers`, `status` as
//! `"200 OK"`, `code`, `duration`). go-vcr 1 and 2 write `version: 1` (the first releases
//! wrote no version), go-vcr 3 and 4 write `version: 2`, which adds an `id` per interaction,
//! `proto`, `content_length`, `host` and the like (none of them needed here).
//!
//! `form` is what Go's `ParseForm` made of the request: the URL's query parameters, plus the
//! body's fields for a form post. It is read as the body ([`Body::Data`]) only when the
//! recorded `body` is empty and the form holds a field the URL's query does not: then it is
//! the only record of what was posted.

use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, is_json,
    top_level,
};
use super::walk::{self, At};
use super::{Body, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a go-vcr cassette: `interactions` under `version: 2`, or whose
/// first request has a `url` (vcrpy's has a `uri`) or whose first response has a `code`.
pub(super) fn matches(root: &Node) -> bool {
    let Some(items) = root.get("interactions").and_then(Node::as_seq) else {
        return false;
    };
    if root.get("version").and_then(Node::as_str) == Some("2") {
        return true;
    }
    items.first().is_some_and(|first| {
        let request = first.get("request");
        let go_url = request.is_some_and(|r| r.get("url").is_some() && r.get("uri").is_none());
        go_url || first.get("response").and_then(|r| r.get("code")).is_some()
    })
}

/// Reads a go-vcr cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    walk::cassette(root, FORMAT, "interactions", interaction)
}

/// Reads one interaction from its item (whole, or in windows: `windows`).
pub(super) fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("request")?;
    let response = item.need("response")?;
    let url = request.need("url")?.into_field()?;
    let mut body = request.get("body").map_or(Ok(None), |b| b.body_bytes())?;
    if body.is_none() {
        body = request
            .get("form")
            .and_then(|form| posted_form(&form, &url.text));
    }
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need("method")?.into_field()?,
            url,
            headers: request.headers_in("headers")?,
            body,
        },
        response: Some(Response {
            status: match (response.get("code"), response.get("status")) {
                (Some(code), _) => Some(code.status()?),
                (None, Some(status)) => Some(status.status()?),
                (None, None) => None,
            },
            headers: response.headers_in("headers")?,
            body: response.get("body").map_or(Ok(None), |b| b.body_bytes())?,
        }),
        recorded_at: None,
    })
}

/// The form as the request's body, if it holds a field the URL's query does not.
fn posted_form(form: &At<'_>, url: &str) -> Option<Body> {
    let entries = form.node.as_map()?;
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let in_query = |name: &str| {
        query
            .split('&')
            .any(|pair| pair.split('=').next().is_some_and(|k| k == name))
    };
    entries
        .iter()
        .any(|(k, _)| k.as_scalar().is_some_and(|k| !in_query(&k.text)))
        .then(|| form.body_data())
}

/// go-vcr.
pub struct GoVcr;

/// go-vcr's [`Format`].
pub const FORMAT: Format = Format::new(&GoVcr);

impl Recorder for GoVcr {
    fn name(&self) -> &'static str {
        "go-vcr"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("interactions")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `version: 1` or `version: 2` beside `interactions`, in YAML (go-vcr writes no JSON).
    fn identified(&self, text: &str) -> bool {
        !is_json(text)
            && top_level(text, "interactions:")
            && (top_level(text, "version: 1") || top_level(text, "version: 2"))
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url"]
    }

    fn dialect(&self) -> Dialect {
        Dialect::GoYaml
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        match what {
            Filtered::Query { name, placeholder } => Some(format!(
                "a go-vcr recorder.SetMatcher that compares URLs with `{name}` set to \"{placeholder}\""
            )),
            Filtered::Header { .. } => None,
            Filtered::Body => {
                Some("a go-vcr recorder.SetMatcher that ignores the scrubbed body fields".into())
            }
        }
    }

    fn tools(&self) -> &'static [&'static str] {
        &["go-vcr"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "the recorder's mode in the test code: `recorder.New` records a missing cassette (`ModeRecording` in go-vcr 1, `ModeRecordOnce` from 2 on)",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        // `requested interaction not found` (`Requested` in 1.x) and `cassette not found`
        // (v2 and later) name no cassette.
        &[MissRule {
            headline: r"(?i:requested interaction not found)|\bcassette not found\b",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::walk::testing::assert_read_error;
    use crate::http::{Body, HttpCassette};
    use vcr_doc::{Node, yaml};

    #[track_caller]
    fn read_yaml(text: &str) -> HttpCassette {
        let root = yaml::parse(text).unwrap();
        assert!(matches(&root), "not go-vcr: {text}");
        read(&root).unwrap()
    }

    fn text_body(body: Option<&Body>) -> &[u8] {
        match body {
            Some(Body::Bytes { bytes, stored, .. }) if stored.is_empty() => bytes,
            other => panic!("not a text body: {other:?}"),
        }
    }

    /// As go-vcr 4 writes it through yaml.v3 (`version: 2`, four-space indent).
    const V2: &str = "---
version: 2
interactions:
    - id: 0
      request:
        proto: HTTP/1.1
        proto_major: 1
        proto_minor: 1
        content_length: 13
        transfer_encoding: []
        trailer: {}
        host: api.example.com
        remote_addr: \"\"
        request_uri: \"\"
        body: '{\"name\":\"x\"}'
        form: {}
        headers:
            Authorization:
                - Bearer tok-123
        url: https://api.example.com/v1/things?page=2
        method: POST
      response:
        proto: HTTP/2.0
        proto_major: 2
        proto_minor: 0
        transfer_encoding: []
        trailer: {}
        content_length: -1
        uncompressed: true
        body: \"{\\\"id\\\":\\\"t-1\\\"}\\n\"
        headers:
            Content-Type:
                - application/json
        status: 201 Created
        code: 201
        duration: 151.2ms
";

    #[test]
    fn reads_version_2() {
        let cassette = read_yaml(V2);
        let i = &cassette.interactions[0];
        assert_eq!(i.path, "interactions[0]");
        assert_eq!(i.request.method.text, "POST");
        assert_eq!(i.request.url.path, "interactions[0].request.url");
        assert_eq!(
            i.request.url.text,
            "https://api.example.com/v1/things?page=2"
        );
        let auth = &i.request.headers[0];
        assert_eq!(
            auth.value.path,
            "interactions[0].request.headers.Authorization[0]"
        );
        assert!(V2[auth.value.at.unwrap() as usize..].starts_with("Bearer tok-123\n"));
        assert_eq!(text_body(i.request.body.as_ref()), br#"{"name":"x"}"#);
        let response = i.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        assert_eq!(text_body(response.body.as_ref()), b"{\"id\":\"t-1\"}\n");
        assert_eq!(i.recorded_at, None);
    }

    /// go-vcr 1 and 2 (`version: 1`), and the first releases (no version); the status alone
    /// when `code` is missing.
    #[test]
    fn reads_version_1_and_none() {
        for version in ["version: 1\n", ""] {
            let text = format!(
                "---\n{version}interactions:\n- request:\n    body: \"\"\n    form: {{}}\n    headers: {{}}\n    url: http://127.0.0.1:8080/\n    method: GET\n  response:\n    body: ok\n    headers: {{}}\n    status: 404 Not Found\n    duration: \"\"\n"
            );
            let cassette = read_yaml(&text);
            let i = &cassette.interactions[0];
            assert_eq!(i.request.url.text, "http://127.0.0.1:8080/");
            assert_eq!(i.request.body, None);
            assert_eq!(i.response.as_ref().unwrap().status, Some(404));
        }
    }

    /// `form` is the request's body only when it is not just the URL's query.
    #[test]
    fn reads_a_posted_form_as_the_body() {
        #[track_caller]
        fn case(url: &str, form: &str, posted: bool) {
            let text = format!(
                "version: 1\ninteractions:\n- request:\n    body: \"\"\n    form:\n{form}    headers: {{}}\n    url: {url}\n    method: POST\n  response:\n    body: \"\"\n    code: 200\n"
            );
            let body = &read_yaml(&text).interactions[0].request.body;
            match body {
                Some(Body::Data { path, node }) if posted => {
                    assert_eq!(path, "interactions[0].request.form");
                    assert!(node.get("client_secret").is_some());
                }
                None if !posted => {}
                other => panic!("{url}: {other:?}"),
            }
        }
        let secret = "        client_secret:\n        - s3cr3t\n";
        case("https://auth.example.com/token", secret, true);
        case(
            "https://auth.example.com/token?client_secret=s3cr3t",
            secret,
            false,
        );
        case(
            "https://api.example.com/k8s?name=default&order_by=created_at_asc",
            "        name:\n        - default\n        order_by:\n        - created_at_asc\n",
            false,
        );
    }

    #[test]
    fn matches_by_structure() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            let root: Node = yaml::parse(text).unwrap();
            assert_eq!(matches(&root), expected, "{text}");
        }
        case(V2, true);
        case("version: 2\ninteractions: []\n", true);
        case(
            "version: 1\ninteractions:\n- request:\n    url: http://x/\n    method: GET\n  response: {}\n",
            true,
        );
        case(
            "interactions:\n- request: {method: GET}\n  response:\n    code: 200\n",
            true,
        );
        // vcrpy: `uri`, `status: {code}`.
        case(
            "interactions:\n- request:\n    uri: http://x/\n    method: GET\n  response:\n    status: {code: 200}\nversion: 1\n",
            false,
        );
        case("interactions: []\nversion: 1\n", false);
        case("http_interactions: []\n", false);
        case("version: 2\n", false);
    }

    #[test]
    fn names_missing_and_malformed_fields() {
        let case = |text: &str, message: &str, at: &str| {
            assert_read_error(read, text, message, at);
        };
        case(
            "version: 2\ninteractions:\n    - id: 0\n      request:\n        method: GET\n      response:\n        code: 200\n",
            "interactions[0].request has no `url`",
            "method: GET",
        );
        case(
            "version: 2\ninteractions:\n    - id: 0\n      request:\n        method: GET\n        url: http://x/\n",
            "interactions[0] has no `response`",
            "id: 0",
        );
        case(
            "version: 2\ninteractions:\n    - request:\n        method: GET\n        url: http://x/\n      response:\n        status: teapot\n",
            "interactions[0].response.status is not an HTTP status: `teapot`",
            "teapot",
        );
    }
}
