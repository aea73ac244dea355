//! google-cloud-go's httpreplay logs (and its standalone copy,
//! `github.com/google/go-replayers/httpreplay`): `json.MarshalIndent`, usually named
//! `testdata/<Test>.replay`.
//!
//! `{Initial (base64), Version: "0.2", Converter: {ScrubBody, ClearHeaders,
//! RemoveRequestHeaders, RemoveResponseHeaders, ClearParams, RemoveParams}, Entries: [{ID,
//! Request: {Method, URL, Header, MediaType, BodyParts, Trailer}, Response: {StatusCode,
//! Proto, Header, Body, Trailer}}]}` (`Entries` is `null` for none). Bodies are Go's
//! `[]byte`, so base64; the response's is kept as the server sent it (gzip stays gzip). A
//! request body is split into `BodyParts` (one per part of a multipart body): one part is
//! read as the body; several are read joined by a line break, stored `["base64", "parts"]`,
//! which a scrub does not rewrite. Version `0.1` kept `Request.Body` instead. The
//! converter's patterns and the `CLEARED` it writes for cleared values are the recorder's.
//!
//! grpcreplay writes binary `.replay` files (`RPCReplay`) too: they are no JSON, and stay
//! text.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{At, base64_bytes};
use super::{Body, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is an httpreplay log: `Initial`, `Version` and `Entries` (a list,
/// or null).
pub(super) fn matches(root: &Node) -> bool {
    root.get("Initial").is_some()
        && root.get("Version").is_some()
        && root
            .get("Entries")
            .is_some_and(|e| e.is_null() || e.as_seq().is_some())
}

/// Reads an httpreplay log.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let at = At::root(root, FORMAT);
    let interactions = match at.get("Entries") {
        Some(entries) => entries
            .items()?
            .iter()
            .map(entry)
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

fn entry(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("Request")?;
    let body = match request.get("BodyParts") {
        Some(parts) => body_parts(&parts)?,
        None => request.get("Body").map_or(Ok(None), |b| b.body_base64())?,
    };
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need("Method")?.into_field()?,
            url: request.need("URL")?.into_field()?,
            headers: request.headers_in("Header")?,
            body,
        },
        response: match item.get("Response") {
            Some(response) => Some(Response {
                status: response.get("StatusCode").map(|s| s.status()).transpose()?,
                headers: response.headers_in("Header")?,
                body: response.get("Body").map_or(Ok(None), |b| b.body_base64())?,
            }),
            None => None,
        },
        recorded_at: None,
    })
}

/// One part is the body; several are joined (and not rewritten by a scrub).
fn body_parts(parts: &At<'_>) -> Result<Option<Body>, ReadError> {
    let parts = parts.items()?;
    match &parts[..] {
        [] => Ok(None),
        [one] => one.body_base64(),
        [first, ..] => {
            let mut bytes = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                let text = part.field()?.text;
                let decoded = base64_bytes(&text)
                    .ok_or_else(|| part.error(format!("{} is not valid base64", part.path)))?;
                if i > 0 {
                    bytes.push(b'\n');
                }
                bytes.extend(decoded);
            }
            Ok(Some(Body::Bytes {
                field: first.field()?,
                bytes,
                stored: vec!["base64", "parts"],
            }))
        }
    }
}

/// httpreplay.
pub struct Httpreplay;

/// httpreplay's [`Format`].
pub const FORMAT: Format = Format::new(&Httpreplay);

impl Recorder for Httpreplay {
    fn name(&self) -> &'static str {
        "httpreplay"
    }

    fn known_as(&self) -> &'static str {
        "httpreplay (google-cloud-go, go-replayers)"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("Initial") && head.has("Version")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `Initial`, `Version` and `Entries`, as the log's writer names them.
    fn identified(&self, text: &str) -> bool {
        ["\"Initial\"", "\"Version\"", "\"Entries\""]
            .iter()
            .all(|key| has(text, key))
    }

    /// `requestsMatch`: method, URL, headers (but those the converter removes) and body.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "headers", "body"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        // The replayer applies the log's `Converter` to each live request before matching.
        Some(match what {
            Filtered::Query { name, .. } => format!(
                "recording again with httpreplay's `rec.RemoveQueryParams(\"{name}\")` (or `ClearQueryParams`), which the log's `Converter` also applies to live requests"
            ),
            Filtered::Header { name } => format!(
                "recording again with httpreplay's `rec.RemoveRequestHeaders(\"{name}\")` (or `ClearHeaders`), which the log's `Converter` also applies to live requests"
            ),
            Filtered::Body => {
                "recording again with go-replayers' `rec.ScrubBody(<regexp>)` for each value".into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["httpreplay"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::Cannot(
                "the test's own switch between `httpreplay.NewRecorder` and `NewReplayer` (go-cloud's `-record` flag)",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[
            MissRule {
                headline: r"no matching request for ",
                names: MissNames::Nowhere,
            },
            MissRule {
                headline: r"httpreplay: read log version \S+ but current version is \S+; re-record the log",
                names: MissNames::Nowhere,
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::testing::{bytes, headers};
    use vcr_doc::from_json;

    #[test]
    fn reads_logs() {
        // As go-replayers writes one (from go-cloud's s3blob testdata), with a multipart body.
        let text = r#"{
  "Initial": "AQAAAA7hTghqKR11MAAA",
  "Version": "0.2",
  "Converter": {"ScrubBody": null, "ClearHeaders": ["^X-Amz-Date$"], "RemoveRequestHeaders": ["^Authorization$"], "RemoveResponseHeaders": null, "ClearParams": null, "RemoveParams": null},
  "Entries": [
    {
      "ID": "a07efe5b5492083b",
      "Request": {
        "Method": "PUT",
        "URL": "https://bucket.s3.amazonaws.com/k?x-id=PutObject",
        "Header": {"X-Amz-Date": ["CLEARED"], "X-Api-Key": ["k7Qw2Rt9Lm4Zx8Vb"]},
        "MediaType": "text/plain",
        "BodyParts": ["aGVsbG8="]
      },
      "Response": {"StatusCode": 200, "Proto": "HTTP/1.1", "Header": {"Server": ["AmazonS3"]}, "Body": "eyJvayI6dHJ1ZX0="}
    },
    {
      "ID": "b1",
      "Request": {"Method": "POST", "URL": "https://storage.googleapis.com/upload", "Header": {}, "MediaType": "multipart/related", "BodyParts": ["eyJuYW1lIjoiayJ9", "aGVsbG8="]},
      "Response": {"StatusCode": 200, "Header": {}, "Body": ""}
    }
  ]
}"#;
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let [first, second] = &cassette.interactions[..] else {
            panic!("two entries expected");
        };
        assert_eq!(first.path, "Entries[0]");
        assert_eq!(
            headers(&first.request.headers)[1].2,
            "Entries[0].Request.Header.X-Api-Key[0]"
        );
        let (body, stored, field) = bytes(first.request.body.as_ref());
        assert_eq!((body, stored), (&b"hello"[..], &["base64"][..]));
        assert_eq!(field.path, "Entries[0].Request.BodyParts[0]");
        assert_eq!(
            bytes(first.response.as_ref().unwrap().body.as_ref()).0,
            br#"{"ok":true}"#
        );
        let (body, stored, _) = bytes(second.request.body.as_ref());
        assert_eq!(
            (body, stored),
            (&b"{\"name\":\"k\"}\nhello"[..], &["base64", "parts"][..])
        );
        assert_eq!(second.response.as_ref().unwrap().body, None);
        // No entries at all.
        let empty = from_json(
            br#"{"Initial": "AQ==", "Version": "0.2", "Converter": {}, "Entries": null}"#,
        )
        .unwrap();
        assert!(matches(&empty));
        assert!(read(&empty).unwrap().interactions.is_empty());
    }
}
