//! ExVCR cassettes (Elixir): one JSON list, written by `JSX.encode!` + `JSX.prettify!`.
//!
//! Each item is `{request, response}` (`ExVCR.Request`, `ExVCR.Response`):
//! - `request`: `url`, `method` (lowercase), `headers` (a proplist: a JSON object, or `[]`
//!   when empty), `body` (the request body as a string), `options` (the adapter's options,
//!   functions removed: a map, or `[]`), `request_body`;
//! - `response`: `type` (`"ok"` or `"error"`, whose `body` is the reason), `status_code` (an
//!   integer, `null` for an error, or httpc's `["HTTP/1.1", 200, "OK"]`), `headers`, `body`,
//!   and in newer versions `binary`: a body that is not valid UTF-8 is stored as
//!   `Base64(:erlang.term_to_binary(body))`. A binary's term is `131, 109`, a 32-bit length,
//!   then the bytes; such a body is read as those bytes (stored `["base64", "erlang"]`), any
//!   other term as the term's bytes, which are judged as bytes and never decoded further.
//!
//! hackney sends `options.basic_auth` (`[user, password]`) as an `Authorization` header;
//! the password is read as that header, at its place in `options`, so that it is judged as a
//! credential (`filter_request_options("basic_auth")` writes `"***"` instead).
//!
//! Hand-written stubs (`custom: true`, in `fixture/custom_cassettes/`) hold only a request
//! `url` (maybe a `~r/.../` pattern) and `method`, and a response: a request without a
//! method matches any, and is read with an empty one.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{At, base64_bytes};
use super::{
    Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars,
};

/// The external term format's version byte, and the tag of a binary.
const TERM: u8 = 131;
const BINARY_EXT: u8 = 109;

/// Whether the document is an ExVCR cassette: a list whose first item's `request` has a
/// `url` (no `uri`) and whose `response` has a `status_code` or a `type`.
pub(super) fn matches(root: &Node) -> bool {
    root.as_seq()
        .and_then(<[Node]>::first)
        .is_some_and(|first| {
            let url = first
                .get("request")
                .is_some_and(|r| r.get("url").is_some() && r.get("uri").is_none());
            let response = first.get("response");
            url && response
                .is_some_and(|r| r.get("status_code").is_some() || r.get("type").is_some())
        })
}

/// Reads an ExVCR cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    super::walk::root_cassette(root, FORMAT, interaction)
}

fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("request")?;
    let response = item.need("response")?;
    let mut headers = request.headers_in("headers")?;
    if let Some(options) = request.get("options") {
        headers.extend(basic_auth(&options)?);
    }
    let method = match request.get("method") {
        Some(method) => method.into_field()?,
        None => Field {
            text: String::new(),
            at: None,
            path: format!("{}.method", request.path),
        },
    };
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method,
            url: request.need("url")?.into_field()?,
            headers,
            body: request.get("body").map_or(Ok(None), |b| b.body_bytes())?,
        },
        response: Some(Response {
            status: response
                .get("status_code")
                .map(|s| status(&s))
                .transpose()?,
            headers: response.headers_in("headers")?,
            body: response_body(&response)?,
        }),
        recorded_at: None,
    })
}

/// `status_code`: an integer, or httpc's `[version, code, reason]`.
fn status(status: &At<'_>) -> Result<u16, ReadError> {
    match status.node.as_seq() {
        Some(_) => match status.items()?.get(1) {
            Some(code) => code.status(),
            None => Err(status.error(format!("{} is not an HTTP status", status.path))),
        },
        None => status.status(),
    }
}

/// The password of `options.basic_auth` (`[user, password]`, or the `"***"` a filter
/// wrote), as the `Authorization` header hackney makes of it.
fn basic_auth(options: &At<'_>) -> Result<Option<Header>, ReadError> {
    let Some(auth) = options.get("basic_auth") else {
        return Ok(None);
    };
    let password = match auth.node.as_seq() {
        Some(_) => match auth.items()?.into_iter().nth(1) {
            Some(password) => password,
            None => return Ok(None),
        },
        None => auth,
    };
    if password.node.as_scalar().is_none() {
        return Ok(None);
    }
    Ok(Some(Header {
        name: "Authorization".to_owned(),
        value: password.into_field()?,
    }))
}

/// The response body: text, or with `binary: true` the base64 of its Erlang term.
fn response_body(response: &At<'_>) -> Result<Option<Body>, ReadError> {
    let Some(body) = response.get("body") else {
        return Ok(None);
    };
    // An error's reason as ExVCR stores a term (`["conn_failed", ["error", "nxdomain"]]`
    // for a failed connection): data, which ExVCR loads, never a `parse` error.
    if body.node.as_scalar().is_none() && !body.node.is_null() {
        return Ok(Some(body.body_data()));
    }
    if !response
        .get("binary")
        .is_some_and(|b| super::is_true(b.node))
    {
        return body.body_bytes();
    }
    let field = body.field()?;
    let term = base64_bytes(&field.text)
        .ok_or_else(|| body.error(format!("{} is not valid base64", body.path)))?;
    let (bytes, stored) = match binary_of(&term) {
        Some(bytes) => (bytes.to_vec(), vec!["base64", "erlang"]),
        None => (term, vec!["base64"]),
    };
    Ok(Some(Body::Bytes {
        field,
        bytes,
        stored,
    }))
}

/// The bytes of an Erlang binary in the external term format (`131, 109, length, bytes`);
/// `None` for any other term.
fn binary_of(term: &[u8]) -> Option<&[u8]> {
    let [TERM, BINARY_EXT, a, b, c, d, rest @ ..] = term else {
        return None;
    };
    (u32::from_be_bytes([*a, *b, *c, *d]) as usize == rest.len()).then_some(rest)
}

/// `:erlang.term_to_binary(bytes)` of a binary: what a scrubbed body stored as
/// `["base64", "erlang"]` is written back as (before its base64).
pub fn term_to_binary(bytes: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(bytes.len()).ok()?;
    let mut term = Vec::with_capacity(bytes.len() + 6);
    term.extend([TERM, BINARY_EXT]);
    term.extend(len.to_be_bytes());
    term.extend(bytes);
    Some(term)
}

/// ExVCR.
pub struct ExVcr;

/// ExVCR's [`Format`].
pub const FORMAT: Format = Format::new(&ExVcr);

impl Recorder for ExVcr {
    fn name(&self) -> &'static str {
        "ExVCR"
    }

    /// A list whose first item's `request` has ExVCR's `request_body` or `options`, or whose
    /// `response` has a `status_code` (JSX sorts keys: the request's come first).
    fn sniff(&self, head: &Head<'_>) -> bool {
        head.list
            && head.has_under("request", "url")
            && (head.has_under("request", "request_body")
                || head.has_under("request", "options")
                || head.has_under("response", "status_code"))
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `JSX.decode!` (jsx, not strict) takes trailing commas and comments, which hand
    /// edits leave (edgurgel/tentacat's `issues/comments#filter_all.json`).
    fn loads_json5(&self, text: &str) -> bool {
        self.identified(text)
    }

    /// A `status_code` beside a request's `request_body` or `options`.
    fn identified(&self, text: &str) -> bool {
        has(text, "\"status_code\"") && (has(text, "\"request_body\"") || has(text, "\"options\""))
    }

    /// The URL without its query, and the method (`:query`, `:headers` and
    /// `:request_body` are opt-in through `match_requests_on`).
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "scheme", "host", "port", "path"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "ExVCR's `filter_sensitive_data(\"{name}=[^&]+\", \"{name}={placeholder}\")`, or `match_requests_on` without `:query`"
            ),
            Filtered::Header { name } => format!(
                "ExVCR's `filter_request_headers(\"{name}\")` when recording, or `match_requests_on` without `:headers`"
            ),
            Filtered::Body => "ExVCR's `filter_sensitive_data(<pattern>, <placeholder>)` for each value, or `match_requests_on` without `:request_body`".into(),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["ExVCR"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "`use_cassette` records a cassette whose file is missing (`strict_mode: true` refuses to)",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[
            // `ExVCR.RequestNotMatchError`, with the cassette's path.
            MissRule {
                headline: r"Request did not match with any one in the current cassette: (.+?)\.?\s*$",
                names: MissNames::Headline,
            },
            // Strict mode, where a cassette would be recorded.
            MissRule {
                headline: r"A matching cassette was not found for this request",
                names: MissNames::Nowhere,
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{binary_of, matches, read, term_to_binary};
    use crate::http::HttpCassette;
    use crate::http::testing::{bytes, headers};
    use vcr_doc::from_json;

    #[track_caller]
    fn read_text(text: &str) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not ExVCR: {text}");
        read(&root).unwrap()
    }

    /// An error as ExVCR stores its reason, a term (`["conn_failed", ["error", "nxdomain"]]`
    /// for ibrowse's failed connection): the body is that data, read, never a `parse` error.
    #[test]
    fn reads_an_error_whose_reason_is_a_term() {
        let text = r#"[
  {
    "request": {"body": "", "headers": [], "method": "get", "options": [], "request_body": "", "url": "http://invalid.example"},
    "response": {"body": ["conn_failed", ["error", "nxdomain"]], "headers": [], "status_code": null, "type": "error"}
  }
]"#;
        let cassette = read_text(text);
        let response = cassette.interactions[0].response.as_ref().unwrap();
        assert_eq!(response.status, None);
        assert!(
            matches!(&response.body, Some(crate::http::Body::Data { path, .. }) if path == "[0].response.body"),
            "{:?}",
            response.body
        );
    }

    /// As ExVCR writes it with hackney: sorted keys, a JSON-encoded request body, basic
    /// auth in `options`; a binary body; httpc's status list; an error.
    #[test]
    fn reads_exvcr_cassettes() {
        // `:erlang.term_to_binary(<<0xff, 0xfe, 0x41>>)`: 131, 109, length 3, the bytes.
        let text = r#"[
  {
    "request": {
      "body": "{\"token\":\"t0k3n\"}",
      "headers": {"Accept": "application/json", "Authorization": "***"},
      "method": "post",
      "options": {"recv_timeout": "infinity", "basic_auth": ["dana", "pa55-w0rd-x9"]},
      "request_body": "",
      "url": "https://api.example.com/v1/items?page=2"
    },
    "response": {
      "binary": true,
      "body": "g20AAAAD//5B",
      "headers": [],
      "status_code": 201,
      "type": "ok"
    }
  },
  {
    "request": {"body": "", "headers": [], "method": "get", "options": {"httpc_options": [], "http_options": []}, "url": "http://example.com"},
    "response": {"body": "<h1>hi</h1>", "headers": {"content-type": "text/html"}, "status_code": ["HTTP/1.1", 200, "OK"], "type": "ok"}
  },
  {
    "request": {"body": "", "headers": [], "method": "get", "options": [], "url": "http://invalid_url"},
    "response": {"body": "nxdomain", "headers": [], "status_code": null, "type": "error"}
  }
]"#;
        let cassette = read_text(text);
        let [first, second, third] = &cassette.interactions[..] else {
            panic!("three interactions expected");
        };
        assert_eq!(first.request.method.text, "post");
        assert_eq!(
            headers(&first.request.headers),
            [
                ("Accept", "application/json", "[0].request.headers.Accept"),
                ("Authorization", "***", "[0].request.headers.Authorization"),
                (
                    "Authorization",
                    "pa55-w0rd-x9",
                    "[0].request.options.basic_auth[1]"
                ),
            ]
        );
        let password = &first.request.headers[2].value;
        assert!(text[password.at.unwrap() as usize..].starts_with("\"pa55"));
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        let (body, stored, field) = bytes(response.body.as_ref());
        assert_eq!(body, [0xff, 0xfe, 0x41]);
        assert_eq!(stored, ["base64", "erlang"]);
        assert_eq!(field.path, "[0].response.body");
        assert_eq!(second.response.as_ref().unwrap().status, Some(200));
        assert_eq!(third.response.as_ref().unwrap().status, None);
        assert_eq!(
            bytes(third.response.as_ref().unwrap().body.as_ref()).0,
            b"nxdomain"
        );
    }

    /// A hand-written stub of `custom_cassettes/`: a URL pattern and no method.
    #[test]
    fn reads_custom_stubs() {
        let cassette = read_text(
            r#"[{"request": {"url": "~r/http://example.com/.+/abc/"}, "response": {"status_code": 200, "headers": {"Content-Type": "text/html"}, "body": "<h1>Custom Response</h1>"}}]"#,
        );
        let request = &cassette.interactions[0].request;
        assert_eq!(request.method.text, "");
        assert_eq!(request.method.at, None);
        assert_eq!(request.url.text, "~r/http://example.com/.+/abc/");
    }

    #[test]
    fn binaries_round_trip_and_other_terms_stay_terms() {
        let term = term_to_binary(b"\x1f\x8b\x08").unwrap();
        assert_eq!(term, [131, 109, 0, 0, 0, 3, 0x1f, 0x8b, 0x08]);
        assert_eq!(binary_of(&term), Some(&b"\x1f\x8b\x08"[..]));
        // A length that disagrees, a list, nothing.
        assert_eq!(binary_of(&[131, 109, 0, 0, 0, 4, 1, 2, 3]), None);
        assert_eq!(binary_of(&[131, 108, 0, 0, 0, 1, 97, 106]), None);
        assert_eq!(binary_of(&[]), None);
    }

    #[test]
    fn matches_by_structure() {
        let case = |text: &str, expected: bool| {
            assert_eq!(
                matches(&from_json(text.as_bytes()).unwrap()),
                expected,
                "{text}"
            );
        };
        case(
            r#"[{"request": {"url": "u"}, "response": {"status_code": null, "type": "error"}}]"#,
            true,
        );
        case(
            r#"[{"request": {"url": "u", "method": "GET"}, "response": {"status": {"code": 200}}}]"#,
            false,
        );
        case(
            r#"[{"request": {"uri": "u", "method": "GET"}, "response": {"status_code": 200}}]"#,
            false,
        );
        case(
            r#"{"request": {"url": "u"}, "response": {"status_code": 200}}"#,
            false,
        );
    }
}
