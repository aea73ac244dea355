//! Vinyl recordings (Swift, Velhotes/Vinyl): a JSON list of tracks written by
//! `JSONSerialization`.
//!
//! A track is `{request: {url, method, headers?, body?}, response: {url, status, headers,
//! body?}}`: no name, no time, no wrapper. Bodies are encoded as DVR encodes them
//! (`super::dvr::body`: `text/*` a string, `application/json` the JSON value, else base64).
//! The shape is weak on its own (nothing only Vinyl writes), so a Vinyl file that does not
//! read is linted as text, never a `parse` error.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder,
};
use super::walk::At;
use super::{HttpCassette, ReadError, Sidecars};

/// Whether the document is a vinyl: a list whose first track has a request `url` and a
/// response with a `url` and a `status` that is a number.
pub(super) fn matches(root: &Node) -> bool {
    root.as_seq()
        .and_then(<[Node]>::first)
        .is_some_and(|first| {
            let request = first.get("request");
            let response = first.get("response");
            request.is_some_and(|r| r.get("url").is_some())
                && response.is_some_and(|r| {
                    r.get("url").is_some()
                        && r.get("status").is_some_and(|s| s.as_scalar().is_some())
                })
        })
}

/// Reads a vinyl.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let interactions = At::root(root, FORMAT)
        .items()?
        .iter()
        .map(super::dvr::exchange)
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// Vinyl.
pub struct Vinyl;

/// Vinyl's [`Format`].
pub const FORMAT: Format = Format::new(&Vinyl);

impl Recorder for Vinyl {
    fn name(&self) -> &'static str {
        "Vinyl"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.list && head.has_under("response", "url") && head.has_under("response", "status")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// Nothing in a vinyl is Vinyl's alone.
    fn identified(&self, _: &str) -> bool {
        false
    }

    /// `.requestAttributes([.method, .url], playTracksUniquely: true)`.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, .. } => format!(
                "Vinyl's `.requestAttributes([.method, .path], ...)`, which leaves the query out, or a `.custom` matcher that ignores `{name}`"
            ),
            Filtered::Header { .. } => {
                "Vinyl's `.requestAttributes(...)` without `.headers`".into()
            }
            Filtered::Body => "Vinyl's `.requestAttributes(...)` without `.body`".into(),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["Vinyl"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "`TurntableConfiguration(recordingMode: .missingVinyl(recordingPath: ...))` records a missing vinyl; the default records nothing",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[MissRule {
            headline: r"No 🎶 recorded and matchable with request",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::testing::{bytes, headers};
    use vcr_doc::from_json;

    /// As SwiftNIOMock's recordings hold it.
    #[test]
    fn reads_vinyls() {
        let text = r#"[
  {
    "request" : {
      "method" : "POST",
      "url" : "http:\/\/localhost:8080\/login",
      "headers" : {"Content-Type" : "application\/json", "Cookie" : "sails.sid=s%3Aabc"},
      "body" : {"password" : "s3cr3t-pa55"}
    },
    "response" : {
      "url" : "http:\/\/localhost:8080\/login",
      "status" : 200,
      "headers" : {"Content-Type" : "text\/html; charset=utf-8"},
      "body" : "<p>ok<\/p>"
    }
  }
]"#;
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let i = &cassette.interactions[0];
        assert_eq!(i.path, "[0]");
        assert_eq!(i.request.url.text, "http://localhost:8080/login");
        assert_eq!(headers(&i.request.headers)[1].1, "sails.sid=s%3Aabc");
        assert_eq!(i.recorded_at, None);
        let response = i.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert_eq!(bytes(response.body.as_ref()).0, b"<p>ok</p>");
        // An empty vinyl, php-vcr's status mapping, DVR's wrapper.
        for other in [
            "[\n\n]",
            r#"[{"request": {"url": "u"}, "response": {"url": "u", "status": {"code": 200}}}]"#,
            r#"{"name": "a", "interactions": []}"#,
        ] {
            assert!(!matches(&from_json(other.as_bytes()).unwrap()), "{other}");
        }
    }
}
