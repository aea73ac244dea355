//! DVR cassettes (Swift, venmo/DVR): `JSONSerialization` with `.prettyPrinted`.
//!
//! `{name, interactions: [{request: {method, url, headers?, body?}, response: {url, status,
//! headers, body?}, recorded_at}]}`, `recorded_at` in seconds since the Unix epoch (a
//! number), keys in no fixed order, `/` written `\/`.
//!
//! A body is stored as `Interaction.encodeBody` chose from the message's `Content-Type`
//! (`body`, which Vinyl shares): `text/*` as a string, `application/json` as the JSON value
//! itself (read as data), anything else as base64 with no flag (read as bytes, stored
//! `["base64"]`; a string that is not base64 is read as text).
//!
//! A new recording is written to `~/Desktop/DVR/` and added to the test target by hand: the
//! cassettes are found where the project keeps them, by their shape.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{self, At, base64_bytes};
use super::{Body, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a DVR cassette: `name` beside `interactions` whose first item's
/// response has a `url` (OkReplay's tapes have `name` too, and a `uri` in their requests).
pub(super) fn matches(root: &Node) -> bool {
    let Some(items) = root.get("interactions").and_then(Node::as_seq) else {
        return false;
    };
    root.get("name").is_some()
        && items.first().is_none_or(|first| {
            first.get("recorded").is_none()
                && first
                    .get("response")
                    .is_some_and(|r| r.get("url").is_some() && r.get("status").is_some())
        })
}

/// Reads a DVR cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    walk::cassette(root, FORMAT, "interactions", |item| {
        let mut interaction = exchange(item)?;
        interaction.recorded_at = item
            .get("recorded_at")
            .map(|r| r.into_field())
            .transpose()?;
        Ok(interaction)
    })
}

/// A `{request, response}` pair as DVR and Vinyl write it.
pub(super) fn exchange(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("request")?;
    let response = item.need("response")?;
    let request_headers = request.headers_in("headers")?;
    let response_headers = response.headers_in("headers")?;
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need("method")?.into_field()?,
            url: request.need("url")?.into_field()?,
            body: request
                .get("body")
                .map_or(Ok(None), |b| body(&b, &request_headers))?,
            headers: request_headers,
        },
        response: Some(Response {
            status: response.get("status").map(|s| s.status()).transpose()?,
            body: response
                .get("body")
                .map_or(Ok(None), |b| body(&b, &response_headers))?,
            headers: response_headers,
        }),
        recorded_at: None,
    })
}

/// A body as `decodeBody` reads it: JSON data as data; a string as text when the
/// `Content-Type` is `text/*` or `application/json`, else as base64 (as text when it is
/// none).
pub(super) fn body(b: &At<'_>, headers: &[Header]) -> Result<Option<Body>, ReadError> {
    if b.node.as_scalar().is_none() {
        return Ok(Some(b.body_data()));
    }
    let content_type = super::first_header(headers, "content-type").unwrap_or("");
    let lower = content_type.trim_start().to_ascii_lowercase();
    if lower.starts_with("text/") || lower.starts_with("application/json") {
        return b.body_bytes();
    }
    let field = b.field()?;
    match base64_bytes(&field.text) {
        Some(bytes) if !bytes.is_empty() => Ok(Some(Body::Bytes {
            field,
            bytes,
            stored: vec!["base64"],
        })),
        Some(_) => Ok(None),
        None => b.body_bytes(),
    }
}

/// Whether `text` holds `key` followed by a number (`"recorded_at" : 1500000000.5`), as
/// `JSONSerialization` writes it.
pub(super) fn number_after(text: &str, key: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), key.as_bytes()).any(|at| {
        let rest = text[at + key.len()..].trim_start();
        rest.strip_prefix(':')
            .is_some_and(|v| v.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// DVR.
pub struct Dvr;

/// DVR's [`Format`].
pub const FORMAT: Format = Format::new(&Dvr);

impl Recorder for Dvr {
    fn name(&self) -> &'static str {
        "DVR"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("name") && head.has("interactions")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// JSON whose `recorded_at` is a number, beside `interactions`.
    fn identified(&self, text: &str) -> bool {
        super::recorder::is_json(text)
            && has(text, "\"interactions\"")
            && number_after(text, "\"recorded_at\"")
    }

    /// `Cassette.interactionForRequest`: method, URL and body (`headersToCheck` adds
    /// headers).
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "body"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "the test sending \"{placeholder}\" as `{name}` (DVR compares URLs whole and has no filter)"
            ),
            Filtered::Header { name } => {
                format!("leaving `{name}` out of DVR's `headersToCheck`")
            }
            Filtered::Body => {
                "the test sending the same placeholders in its body (DVR compares bodies whole)"
                    .into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["DVR"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "a `Session` records a cassette it cannot find (`recordingEnabled`, the default) into its `outputDirectory` (`~/Desktop/DVR/`), to be added to the test target by hand",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[MissRule {
            headline: r"\[DVR\] (?:Invalid request\. The request was not found in the cassette|Recording is disabled)",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, number_after, read};
    use crate::http::testing::{bytes, headers};
    use crate::http::{Body, HttpCassette};
    use vcr_doc::from_json;

    #[track_caller]
    fn read_text(text: &str) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not DVR: {text}");
        read(&root).unwrap()
    }

    /// As `JSONSerialization` writes it (from contentful.swift's recordings): keys in any
    /// order, `\/`, a JSON body, a base64 body for a vendor type, a text body.
    #[test]
    fn reads_dvr_cassettes() {
        let text = r#"{
  "interactions" : [
    {
      "recorded_at" : 1500000000.123,
      "request" : {
        "method" : "GET",
        "url" : "https:\/\/cdn.example.com\/spaces\/abc?access_token=q7Lm2Xv9",
        "headers" : {"Authorization" : "Bearer 0123abcd"}
      },
      "response" : {
        "body" : "eyJzeXMiOnsiaWQiOiJhYmMifX0=",
        "status" : 200,
        "url" : "https:\/\/cdn.example.com\/spaces\/abc",
        "headers" : {"Content-Type" : "application\/vnd.contentful.delivery.v1+json"}
      }
    },
    {
      "request" : {"method" : "POST", "url" : "https:\/\/api.example.com\/t", "headers" : {"Content-Type" : "application\/json"}, "body" : {"password" : "s3cr3t-pa55"}},
      "response" : {"url" : "https:\/\/api.example.com\/t", "status" : 401, "headers" : {"Content-Type" : "text\/plain"}, "body" : "denied"},
      "recorded_at" : 1500000001
    }
  ],
  "name" : "testFetchSpace"
}"#;
        let cassette = read_text(text);
        let [first, second] = &cassette.interactions[..] else {
            panic!("two interactions expected");
        };
        assert_eq!(
            first.request.url.text,
            "https://cdn.example.com/spaces/abc?access_token=q7Lm2Xv9"
        );
        assert_eq!(
            headers(&first.request.headers),
            [(
                "Authorization",
                "Bearer 0123abcd",
                "interactions[0].request.headers.Authorization"
            )]
        );
        assert_eq!(first.recorded_at.as_ref().unwrap().text, "1500000000.123");
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        let (body, stored, _) = bytes(response.body.as_ref());
        assert_eq!(body, br#"{"sys":{"id":"abc"}}"#);
        assert_eq!(stored, ["base64"]);
        assert!(
            matches!(&second.request.body, Some(Body::Data { path, .. }) if path == "interactions[1].request.body")
        );
        let (body, stored, _) = bytes(second.response.as_ref().unwrap().body.as_ref());
        assert_eq!((body, stored), (&b"denied"[..], &[][..]));
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
        case(r#"{"name": "a", "interactions": []}"#, true);
        // vcrpy, and OkReplay's tapes read from YAML.
        case(
            r#"{"interactions": [{"request": {"method": "GET", "uri": "u"}, "response": {"status": {"code": 200}}}], "version": 1}"#,
            false,
        );
        case(
            r#"{"name": "t", "interactions": [{"recorded": "2017-06-02T17:39:12.384Z", "request": {"method": "GET", "uri": "u"}, "response": {"status": 200}}]}"#,
            false,
        );
        assert!(number_after(
            r#"{"recorded_at" : 1500000000.1}"#,
            "\"recorded_at\""
        ));
        assert!(!number_after(
            r#"{"recorded_at" : "2017"}"#,
            "\"recorded_at\""
        ));
    }
}
