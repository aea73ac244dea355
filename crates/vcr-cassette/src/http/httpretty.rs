//! HTTPretty's recordings (Python, `httpretty.record(filename)`): `json.dumps(calls,
//! indent=4)`.
//!
//! A list of `{request: {uri, method, headers, body, querystring}, response: {status, body,
//! headers}}`. `querystring` is the URL's query parsed (`{name: [values]}`), a copy of what
//! the `uri` holds: it is not read (it is scanned as text, and a scrub replaces a value it
//! repeats). Bodies are text (`decode_utf8`; the response's is undone from gzip while
//! `Content-Encoding` stays in its headers); projects built on it (network-replay) store a
//! JSON body as the value itself, read as data.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::At;
use super::{Body, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is an HTTPretty recording: a list whose first item's request has a
/// `uri` and HTTPretty's `querystring`.
pub(super) fn matches(root: &Node) -> bool {
    root.as_seq()
        .and_then(<[Node]>::first)
        .and_then(|first| first.get("request"))
        .is_some_and(|r| r.get("uri").is_some() && r.get("querystring").is_some())
}

/// Reads an HTTPretty recording.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    super::walk::root_cassette(root, FORMAT, interaction)
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
            status: response.get("status").map(|s| s.status()).transpose()?,
            headers: response.headers_in("headers")?,
            body: response.get("body").map_or(Ok(None), |b| body(&b))?,
        }),
        recorded_at: None,
    })
}

/// Text, or a JSON value as the value itself.
fn body(b: &At<'_>) -> Result<Option<Body>, ReadError> {
    match b.node.as_scalar() {
        Some(_) => b.body_bytes(),
        None => Ok(Some(b.body_data())),
    }
}

/// HTTPretty.
pub struct Httpretty;

/// HTTPretty's [`Format`].
pub const FORMAT: Format = Format::new(&Httpretty);

impl Recorder for Httpretty {
    fn name(&self) -> &'static str {
        "HTTPretty"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.list && head.has_under("request", "querystring")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// A request's `querystring` beside its `uri`, in JSON.
    fn identified(&self, text: &str) -> bool {
        super::recorder::is_json(text) && has(text, "\"querystring\"") && has(text, "\"uri\"")
    }

    /// `playback` registers each URI with `match_querystring=False`: the method and the URL
    /// without its query. (The recorded status is not even replayed: 200 is.)
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "scheme", "host", "port", "path"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        match what {
            Filtered::Query { .. } => Some(
                "HTTPretty's `register_uri(..., match_querystring=False)`, what `playback` registers"
                    .into(),
            ),
            // `playback` compares neither headers nor bodies.
            Filtered::Header { .. } | Filtered::Body => None,
        }
    }

    fn tools(&self) -> &'static [&'static str] {
        &["HTTPretty"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::Cannot(
                "`with httpretty.record(filename):` around the test; `httpretty.playback(filename)` only replays",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        // `UnmockedError`, with `allow_net_connect=False` (else the request goes out).
        &[MissRule {
            headline: r"Failed to handle network request",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::Body;
    use crate::http::testing::{bytes, headers};
    use vcr_doc::from_json;

    /// As `httpretty.record` writes it (four-space indent), and network-replay's JSON body.
    #[test]
    fn reads_recordings() {
        let text = r#"[
    {
        "request": {
            "uri": "http://127.0.0.1:42433/v1/models?api_key=SzT4gfgx&page=2",
            "method": "GET",
            "headers": {"Authorization": "Bearer 0123abcd", "Host": "127.0.0.1:42433"},
            "body": "",
            "querystring": {"api_key": ["SzT4gfgx"], "page": ["2"]}
        },
        "response": {
            "status": 200,
            "body": "{\"data\":[]}",
            "headers": {"Content-Type": "application/json"}
        }
    },
    {
        "request": {"uri": "http://h/p", "method": "POST", "headers": {}, "body": {"password": "s3cr3t"}, "querystring": {}},
        "response": {"status": 201, "body": {"ok": true}, "headers": {}}
    }
]"#;
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let [first, second] = &cassette.interactions[..] else {
            panic!("two interactions expected");
        };
        assert_eq!(
            first.request.url.text,
            "http://127.0.0.1:42433/v1/models?api_key=SzT4gfgx&page=2"
        );
        assert_eq!(
            headers(&first.request.headers)[0].2,
            "[0].request.headers.Authorization"
        );
        assert_eq!(first.request.body, None);
        assert_eq!(
            bytes(first.response.as_ref().unwrap().body.as_ref()).0,
            br#"{"data":[]}"#
        );
        assert!(matches!(&second.request.body, Some(Body::Data { .. })));
        // A list without `querystring` (vcrpy's old layout, Vinyl) is not HTTPretty's.
        let other = r#"[{"request": {"uri": "u", "method": "GET"}, "response": {"status": 200}}]"#;
        assert!(!matches(&from_json(other.as_bytes()).unwrap()));
    }
}
