//! The recordings of Python's `responses` (`responses._recorder`, 0.23 and later): YAML by
//! PyYAML's `yaml.dump`, keys sorted.
//!
//! `responses: [{response: {auto_calculate_content_length, body, content_type, headers?,
//! method, status, url}}]`: only the method and the URL of a request are kept, and of the
//! response its status, its headers but the usual ones (`Content-Type` has a field of its
//! own, read as the response's `Content-Type` header), and its body as decoded text. The
//! recorder keeps no request headers and no request body, so a credential there never
//! reaches the file; one in the URL's query does.

use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{self, At};
use super::{Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a `responses` recording: `responses`, a list whose first item is
/// a `response` with a `url` or a `method`.
pub(super) fn matches(root: &Node) -> bool {
    root.get("responses")
        .and_then(Node::as_seq)
        .is_some_and(|items| {
            items.first().is_none_or(|first| {
                first
                    .get("response")
                    .is_some_and(|r| r.get("url").is_some() || r.get("method").is_some())
            })
        })
}

/// Reads a `responses` recording.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    walk::cassette(root, FORMAT, "responses", interaction)
}

fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
    let response = item.need("response")?;
    let mut headers = response.headers_in("headers")?;
    if let Some(content_type) = response.get("content_type") {
        headers.push(Header {
            name: "Content-Type".to_owned(),
            value: content_type.into_field()?,
        });
    }
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: response.need("method")?.into_field()?,
            url: response.need("url")?.into_field()?,
            headers: Vec::new(),
            body: None,
        },
        response: Some(Response {
            status: response.get("status").map(|s| s.status()).transpose()?,
            body: response.get("body").map_or(Ok(None), |b| b.body_bytes())?,
            headers,
        }),
        recorded_at: None,
    })
}

/// `responses`' recorder.
pub struct Responses;

/// Its [`Format`].
pub const FORMAT: Format = Format::new(&Responses);

impl Recorder for Responses {
    fn name(&self) -> &'static str {
        "responses"
    }

    fn known_as(&self) -> &'static str {
        "responses' recorder (Python)"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("responses") && has(head.text, "- response:")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `auto_calculate_content_length`, which only `responses` writes.
    fn identified(&self, text: &str) -> bool {
        super::recorder::top_level(text, "responses:")
            && has(text, "auto_calculate_content_length:")
    }

    /// `responses.add(method, url)` from the file: the query is part of the URL compared.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url"]
    }

    fn dialect(&self) -> Dialect {
        Dialect::PyYaml
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        match what {
            Filtered::Query { name, placeholder } => Some(format!(
                "the test sending \"{placeholder}\" as `{name}` (`responses._add_from_file` registers the recorded URL, query included, and has no filter)"
            )),
            // Nothing of the request but its method and URL is recorded.
            Filtered::Header { .. } | Filtered::Body => None,
        }
    }

    fn tools(&self) -> &'static [&'static str] {
        &["responses"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::Cannot(
                "`@responses._recorder.record(file_path=...)` on the test; `responses._add_from_file(...)` only replays",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[MissRule {
            headline: r"Connection refused by Responses - the call doesn't match any registered mock",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::testing::{bytes, headers};
    use vcr_doc::yaml;

    /// As `responses` 0.26 writes it (PyYAML, keys sorted).
    #[test]
    fn reads_recordings() {
        let text = "responses:
- response:
    auto_calculate_content_length: false
    body: '{\"data\":[]}'
    content_type: application/json
    headers:
      Set-Cookie: session=bfRzckStHQuAi; Path=/; HttpOnly;
        SameSite=Lax
    method: GET
    status: 200
    url: http://127.0.0.1:46367/v1/models?api_key=UlFMhDtiKO5G&page=2
";
        let root = yaml::parse(text).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let i = &cassette.interactions[0];
        assert_eq!(i.path, "responses[0]");
        assert_eq!(i.request.method.text, "GET");
        assert_eq!(i.request.url.path, "responses[0].response.url");
        assert!(i.request.headers.is_empty());
        let response = i.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert_eq!(
            headers(&response.headers),
            [
                (
                    "Set-Cookie",
                    "session=bfRzckStHQuAi; Path=/; HttpOnly; SameSite=Lax",
                    "responses[0].response.headers.Set-Cookie"
                ),
                (
                    "Content-Type",
                    "application/json",
                    "responses[0].response.content_type"
                ),
            ]
        );
        assert_eq!(bytes(response.body.as_ref()).0, br#"{"data":[]}"#);
        assert!(!matches(&yaml::parse("responses:\n- 200\n").unwrap()));
    }
}
