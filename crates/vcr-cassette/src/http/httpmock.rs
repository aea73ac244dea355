//! Rust httpmock's recordings (`recording.save(...)`, `record` feature): one mock per YAML
//! document, `---` between them (`serialize_mock_defs_to_yaml`).
//!
//! A document is `{when, then}` (`StaticMockDefinition`):
//! - `when`: `method`, `path`, `query_param: [{name, value}]`, `header: [{name, value}]`
//!   (only the request headers the recording rule named), `body` (text) or `body_base64`,
//!   `json_body`, and other matchers;
//! - `then`: `status`, `header: [{name, value}]`, `body` (UTF-8) or `body_base64`, `delay`.
//!
//! The request's URL is its `path` and `query_param`s, as the text `path?name=value&...`,
//! placed at the `path`: a scrub replaces a query value in the scalar that holds it.
//! Recordings land in `target/httpmock/recordings/<scenario>_<unix seconds>.yaml`, which git
//! usually ignores; `save_to` puts them anywhere.

use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, top_level,
};
use super::walk::At;
use super::{
    Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars,
};

/// Whether the document (the stream of documents, [`Recorder::documents`]) is an httpmock
/// recording: a list whose first item has `when` and `then`.
pub(super) fn matches(root: &Node) -> bool {
    root.as_seq()
        .and_then(<[Node]>::first)
        .is_some_and(|first| first.get("when").is_some() && first.get("then").is_some())
}

/// Reads an httpmock recording.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let interactions = At::root(root, FORMAT)
        .items()?
        .iter()
        .map(mock)
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

fn mock(item: &At<'_>) -> Result<Interaction, ReadError> {
    let when = item.need("when")?;
    let then = item.need("then")?;
    let method = match when.get("method") {
        Some(method) => method.into_field()?,
        None => Field {
            text: String::new(),
            at: None,
            path: format!("{}.method", when.path),
        },
    };
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method,
            url: url(&when)?,
            headers: pairs(&when, "header")?,
            body: body(&when)?,
        },
        response: Some(Response {
            status: then.get("status").map(|s| s.status()).transpose()?,
            headers: pairs(&then, "header")?,
            body: body(&then)?,
        }),
        recorded_at: None,
    })
}

/// `path` and the `query_param`s: `path?name=value&...`, at the `path`.
fn url(when: &At<'_>) -> Result<Field, ReadError> {
    let path = match when.get("path") {
        Some(path) => path.into_field()?,
        None => Field {
            text: String::new(),
            at: None,
            path: format!("{}.path", when.path),
        },
    };
    let params = pairs(when, "query_param")?;
    if params.is_empty() {
        return Ok(path);
    }
    let query: Vec<String> = params
        .iter()
        .map(|p| format!("{}={}", p.name, p.value.text))
        .collect();
    Ok(Field {
        text: format!("{}?{}", path.text, query.join("&")),
        ..path
    })
}

/// A list of `{name, value}` under `key`, as headers.
fn pairs(message: &At<'_>, key: &str) -> Result<Vec<Header>, ReadError> {
    let Some(list) = message.get(key) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for item in list.items()? {
        let name = item.need("name")?.field()?.text;
        let value = match item.get("value") {
            Some(value) => value.into_field()?,
            None => continue,
        };
        out.push(Header { name, value });
    }
    Ok(out)
}

/// `body` (text), `body_base64`, or `json_body` (data).
fn body(message: &At<'_>) -> Result<Option<Body>, ReadError> {
    if let Some(text) = message.get("body") {
        return text.body_bytes();
    }
    if let Some(base64) = message.get("body_base64") {
        return base64.body_base64();
    }
    Ok(message.get("json_body").map(|json| json.body_data()))
}

/// httpmock.
pub struct Httpmock;

/// httpmock's [`Format`].
pub const FORMAT: Format = Format::new(&Httpmock);

impl Recorder for Httpmock {
    fn name(&self) -> &'static str {
        "httpmock"
    }

    fn known_as(&self) -> &'static str {
        "httpmock (Rust) recordings"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("when") && head.has("then")
    }

    fn documents(&self, head: &str) -> bool {
        !super::recorder::is_json(head) && top_level(head, "when:") && top_level(head, "then:")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `when:` and `then:` at the top level of YAML.
    fn identified(&self, text: &str) -> bool {
        self.documents(text)
    }

    /// The `when` matchers as recorded.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "path", "query", "headers", "body"]
    }

    /// serde_yaml types no more plain scalars than PyYAML does.
    fn dialect(&self) -> Dialect {
        Dialect::PyYaml
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, .. } => format!(
                "an httpmock `when` without the `{name}` `query_param` matcher (delete it from the recording)"
            ),
            Filtered::Header { name } => format!(
                "recording without `record_request_header(\"{name}\")` (or deleting its `header` matcher from the recording)"
            ),
            Filtered::Body => {
                "an httpmock `when` without the exact `body` matcher (delete it from the recording)"
                    .into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["httpmock"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::Cannot(
                "`server.forward_to(...)` and `server.record(...)`, then `recording.save(...)`, in the test; `server.playback(...)` only replays",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        // The mock server's 404 body.
        &[MissRule {
            headline: "Request did not match any route or mock",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{FORMAT, matches, read};
    use crate::http::testing::{bytes, headers};
    use vcr_doc::yaml;

    /// As httpmock 0.8.3 saved a recording (`save_to`), two documents.
    const TEXT: &str = "when:
  path: /v1/items
  method: GET
  query_param:
  - name: api_key
    value: k7Qw2Rt9Lm4Zx8Vb
  - name: page
    value: '1'
  header:
  - name: authorization
    value: Bearer 0123abcd
then:
  status: 200
  header:
  - name: set-cookie
    value: session=abc123; HttpOnly
  body: '{\"items\":[]}'
---
when:
  path: /v1/blob
  method: POST
  body: hello
then:
  status: 201
  body_base64: AJ+Slv8=
";

    #[test]
    fn reads_every_document() {
        assert!(FORMAT.recorder().documents(TEXT));
        let root = yaml::parse_documents(TEXT).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let [first, second] = &cassette.interactions[..] else {
            panic!("two mocks expected");
        };
        assert_eq!(
            first.request.url.text,
            "/v1/items?api_key=k7Qw2Rt9Lm4Zx8Vb&page=1"
        );
        assert!(TEXT[first.request.url.at.unwrap() as usize..].starts_with("/v1/items\n"));
        assert_eq!(
            headers(&first.request.headers),
            [(
                "authorization",
                "Bearer 0123abcd",
                "[0].when.header[0].value"
            )]
        );
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert_eq!(headers(&response.headers)[0].0, "set-cookie");
        assert_eq!(bytes(second.request.body.as_ref()).0, b"hello");
        let (body, stored, _) = bytes(second.response.as_ref().unwrap().body.as_ref());
        assert_eq!(
            (body, stored),
            (&[0x00, 0x9f, 0x92, 0x96, 0xff][..], &["base64"][..])
        );
        // A YAML list that is not httpmock's, and JSON.
        assert!(
            !FORMAT
                .recorder()
                .documents("interactions:\n- request: {}\n")
        );
        assert!(!FORMAT.recorder().documents("{\"when\": 1, \"then\": 2}"));
    }
}
