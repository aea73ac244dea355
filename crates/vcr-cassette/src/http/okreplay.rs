//! OkReplay tapes (Android and JVM, airbnb/okreplay), and Betamax's for Java, whose format
//! OkReplay kept: SnakeYAML with the `!tape` document tag.
//!
//! `!tape`, `name`, `interactions: [{recorded, request: {method, uri, headers, body},
//! response: {status, headers, body}}]`; headers map a name to one value; a body is a string
//! (a `text/*` or `application/*` media type) or `!!binary` base64 (anything else, and every
//! body in older tapes). Tapes live in `src/test/resources/okreplay/tapes/` (Betamax:
//! `betamax/tapes/`), on Android in `src/androidTest/assets/tapes/<TestClass>/`.
//!
//! They share vcrpy's `interactions`, and were read and advised as vcrpy's before (issue 39):
//! the `recorded` time of each interaction and the `!tape` tag are OkReplay's.

use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder,
};
use super::walk::{self, At};
use super::{HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is an OkReplay tape: `interactions` whose first item has OkReplay's
/// `recorded` beside a `request`.
pub(super) fn matches(root: &Node) -> bool {
    root.get("interactions")
        .and_then(Node::as_seq)
        .and_then(<[Node]>::first)
        .is_some_and(|first| first.get("recorded").is_some() && first.get("request").is_some())
}

/// Reads an OkReplay tape.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    walk::cassette(root, FORMAT, "interactions", interaction)
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
            body: request.get("body").map_or(Ok(None), |b| b.body_bytes())?,
        },
        response: Some(Response {
            status: response.get("status").map(|s| s.status()).transpose()?,
            headers: response.headers_in("headers")?,
            body: response.get("body").map_or(Ok(None), |b| b.body_bytes())?,
        }),
        recorded_at: item.get("recorded").map(|r| r.into_field()).transpose()?,
    })
}

/// Whether `text` opens with the `!tape` tag.
fn tagged(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    text.lines()
        .find(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .is_some_and(|line| {
            let line = line.strip_prefix("--- ").unwrap_or(line).trim_end();
            line == "!tape" || line.starts_with("!tape ")
        })
}

/// OkReplay.
pub struct OkReplay;

/// OkReplay's [`Format`].
pub const FORMAT: Format = Format::new(&OkReplay);

impl Recorder for OkReplay {
    fn name(&self) -> &'static str {
        "OkReplay"
    }

    fn known_as(&self) -> &'static str {
        "OkReplay and Betamax (Java)"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        !head.list && head.has("interactions") && tagged(head.text)
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// The `!tape` tag that opens every tape.
    fn identified(&self, text: &str) -> bool {
        tagged(text)
    }

    /// `OkReplayConfig.DEFAULT_MATCH_RULE`: `MatchRules.method, MatchRules.uri`.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "uri"]
    }

    /// SnakeYAML resolves plain scalars as YAML 1.1 does, as PyYAML does.
    fn dialect(&self) -> Dialect {
        Dialect::PyYaml
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, .. } => format!(
                "OkReplay's `@OkReplay(match = {{MatchRules.method, MatchRules.host, MatchRules.path}})`, which leaves the query out, or a `MatchRule` of your own that ignores `{name}`"
            ),
            Filtered::Header { .. } => {
                "OkReplay's `@OkReplay(match = ...)` without `MatchRules.headers`".into()
            }
            Filtered::Body => {
                "OkReplay's `@OkReplay(match = ...)` without `MatchRules.body`".into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["OkReplay"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::Cannot(
                "`@OkReplay(mode = TapeMode.READ_WRITE)` (or `OkReplayConfig.Builder().defaultMode(TapeMode.READ_WRITE)`): the default, `READ_ONLY`, records nothing",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[
            // The interceptor's warning names the tape; its exception does not.
            MissRule {
                headline: r"no matching request found on tape '([^']+)'",
                names: MissNames::Headline,
            },
            MissRule {
                headline: "An HTTP request has been made that OkReplay does not know how to handle",
                names: MissNames::Nowhere,
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read, tagged};
    use crate::http::testing::{bytes, headers};
    use vcr_doc::yaml;

    /// As OkReplay writes a tape (SnakeYAML, `!tape`, `!!binary` for other media types);
    /// Android tapes indent their list.
    #[test]
    fn reads_tapes() {
        let text = "!tape
name: rest conversation tape
interactions:
- recorded: 2012-10-21T14:04:39.797Z
  request:
    method: POST
    uri: http://freeside.co/thing/1?api_key=k7Qw2Rt9
    headers:
      Authorization: Bearer 0123abcd
    body: '{\"name\":\"foo\"}'
  response:
    status: 201
    headers:
      Content-Type: application/octet-stream
    body: !!binary |-
      3q2+7w==
";
        let root = yaml::parse(text).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let i = &cassette.interactions[0];
        assert_eq!(
            i.request.url.text,
            "http://freeside.co/thing/1?api_key=k7Qw2Rt9"
        );
        assert_eq!(
            headers(&i.request.headers),
            [(
                "Authorization",
                "Bearer 0123abcd",
                "interactions[0].request.headers.Authorization"
            )]
        );
        assert_eq!(
            i.recorded_at.as_ref().unwrap().text,
            "2012-10-21T14:04:39.797Z"
        );
        let (body, stored, _) = bytes(i.response.as_ref().unwrap().body.as_ref());
        assert_eq!(
            (body, stored),
            (&[0xde, 0xad, 0xbe, 0xef][..], &["binary"][..])
        );
        let android = "!tape\nname: t\ninteractions:\n  - recorded: 2019-11-20T15:24:42.661Z\n    request:\n      method: GET\n      uri: https://api.example.com/x\n    response:\n      status: 404\n      body: ''\n";
        let root = yaml::parse(android).unwrap();
        assert!(matches(&root));
        assert_eq!(
            read(&root).unwrap().interactions[0]
                .response
                .as_ref()
                .unwrap()
                .status,
            Some(404)
        );
        assert!(tagged(android) && tagged("--- !tape\nname: t\n") && !tagged("interactions: []\n"));
        // vcrpy's interactions have no `recorded`.
        let vcrpy = yaml::parse(
            "interactions:\n- request: {method: GET, uri: u}\n  response: {}\nversion: 1\n",
        )
        .unwrap();
        assert!(!matches(&vcrpy));
    }
}
