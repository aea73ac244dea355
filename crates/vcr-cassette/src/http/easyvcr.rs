//! EasyVCR cassettes (EasyPost's recorder for C# and Java): a JSON list of interactions, in
//! two casings.
//!
//! - C# (Newtonsoft, PascalCase): `{Duration, RecordedAt, Request: {Body, BodyContentType,
//!   ContentHeaders, Method, RequestHeaders, Uri}, Response: {Body, BodyContentType,
//!   ContentHeaders, HttpVersion, ResponseHeaders, Status: {Code, Message}}}`; the headers of
//!   a message are its `ContentHeaders` and its `RequestHeaders` or `ResponseHeaders`.
//! - Java (Gson, camelCase): `{recordedAt (seconds since the epoch), duration, request:
//!   {body, method, headers: {name: [values]}, uri}, response: {body, httpVersion, headers,
//!   status: {code, message}, uri}}`, with `=` written `\u003d` and HttpURLConnection's status
//!   line under the header name `"null"`.
//!
//! Bodies are text (decompressed by the client); there is no base64 path.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::At;
use super::{Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// The variable EasyVCR reads its mode from, over the test code's.
const EASYVCR_MODE: &str = "EASYVCR_MODE";

/// The keys of one casing.
struct Keys {
    recorded_at: &'static str,
    duration: &'static str,
    request: &'static str,
    response: &'static str,
    method: &'static str,
    uri: &'static str,
    body: &'static str,
    /// The headers of a request, then of a response: each a list of keys whose maps are
    /// joined.
    request_headers: &'static [&'static str],
    response_headers: &'static [&'static str],
    status: &'static str,
    code: &'static str,
}

const CSHARP: Keys = Keys {
    recorded_at: "RecordedAt",
    duration: "Duration",
    request: "Request",
    response: "Response",
    method: "Method",
    uri: "Uri",
    body: "Body",
    request_headers: &["ContentHeaders", "RequestHeaders"],
    response_headers: &["ContentHeaders", "ResponseHeaders"],
    status: "Status",
    code: "Code",
};

const JAVA: Keys = Keys {
    recorded_at: "recordedAt",
    duration: "duration",
    request: "request",
    response: "response",
    method: "method",
    uri: "uri",
    body: "body",
    request_headers: &["headers"],
    response_headers: &["headers"],
    status: "status",
    code: "code",
};

/// The casing of an item, if it is an EasyVCR interaction: a request and a response beside
/// a recording time or a duration.
fn casing(item: &Node) -> Option<&'static Keys> {
    [&CSHARP, &JAVA].into_iter().find(|keys| {
        item.get(keys.request).is_some()
            && item.get(keys.response).is_some()
            && (item.get(keys.recorded_at).is_some() || item.get(keys.duration).is_some())
    })
}

/// Whether the document is an EasyVCR cassette: a list whose first item is an EasyVCR
/// interaction, in either casing.
pub(super) fn matches(root: &Node) -> bool {
    root.as_seq()
        .and_then(<[Node]>::first)
        .is_some_and(|first| casing(first).is_some())
}

/// Reads an EasyVCR cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let at = At::root(root, FORMAT);
    let keys = root
        .as_seq()
        .and_then(<[Node]>::first)
        .and_then(casing)
        .unwrap_or(&CSHARP);
    let interactions = at
        .items()?
        .iter()
        .map(|item| interaction(item, keys))
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

fn interaction(item: &At<'_>, keys: &Keys) -> Result<Interaction, ReadError> {
    let request = item.need(keys.request)?;
    let response = item.need(keys.response)?;
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need(keys.method)?.into_field()?,
            url: request.need(keys.uri)?.into_field()?,
            headers: headers(&request, keys.request_headers)?,
            body: request
                .get(keys.body)
                .map_or(Ok(None), |b| b.body_bytes())?,
        },
        response: Some(Response {
            status: match response.get(keys.status) {
                Some(status) => status.get(keys.code).map(|c| c.status()).transpose()?,
                None => None,
            },
            headers: headers(&response, keys.response_headers)?,
            body: response
                .get(keys.body)
                .map_or(Ok(None), |b| b.body_bytes())?,
        }),
        recorded_at: item
            .get(keys.recorded_at)
            .map(|r| r.into_field())
            .transpose()?,
    })
}

/// The headers under each of `keys`, joined; a list of values per name or one value.
fn headers(message: &At<'_>, keys: &[&str]) -> Result<Vec<Header>, ReadError> {
    let mut out = Vec::new();
    for key in keys {
        out.extend(message.headers_in(key)?);
    }
    Ok(out)
}

/// EasyVCR.
pub struct EasyVcr;

/// EasyVCR's [`Format`].
pub const FORMAT: Format = Format::new(&EasyVcr);

impl Recorder for EasyVcr {
    fn name(&self) -> &'static str {
        "EasyVCR"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.list
            && ((head.has("Request") && (head.has("RecordedAt") || head.has("Duration")))
                || (head.has("request") && (head.has("recordedAt") || head.has("duration"))))
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// C#'s `RecordedAt` beside `BodyContentType`, or Java's `recordedAt` beside
    /// `httpVersion`.
    fn identified(&self, text: &str) -> bool {
        (has(text, "\"RecordedAt\"") && has(text, "\"BodyContentType\""))
            || (has(text, "\"recordedAt\"") && has(text, "\"httpVersion\""))
    }

    /// `MatchRules.Default`: the method and the full URL.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, .. } => format!(
                "EasyVCR's `MatchRules` without `ByFullUrl()` and `ByQuery()` (`new MatchRules().ByMethod().ByBaseUrl().ByPath()`), or `ByCustomRule(...)` that ignores `{name}`"
            ),
            Filtered::Header { name } => {
                format!("EasyVCR's `MatchRules` without `ByHeader(\"{name}\")` and `ByHeaders()`")
            }
            Filtered::Body => {
                "EasyVCR's `MatchRules.ByBody(ignoredElements)` naming the scrubbed fields".into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["EasyVCR"]
    }

    /// `EASYVCR_MODE` overrides the mode the test code sets (but `Bypass`): `Auto` records
    /// what a cassette does not hold and replays the rest.
    fn record_mode(&self, tool: &'static str, run: &RecordRun<'_>) -> RecordMode {
        if (run.env)(EASYVCR_MODE).is_some() {
            return RecordMode::only(tool, How::Given(EASYVCR_MODE.to_owned()));
        }
        let mut mode = RecordMode::only(
            tool,
            How::Set(format!("`{EASYVCR_MODE}=Auto` added to the environment")),
        );
        mode.env.push((EASYVCR_MODE.to_owned(), "Auto".to_owned()));
        mode
    }

    fn misses(&self) -> &'static [MissRule] {
        // `VCRHandler`'s `VCRException`, which names the request, not the cassette.
        &[MissRule {
            headline: r"No interaction found for request \S+ \S+",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, read};
    use crate::http::testing::{bytes, headers};
    use vcr_doc::from_json;

    /// `vcr record` adds `EASYVCR_MODE=Auto` (record what a cassette lacks, replay the
    /// rest), unless the command's environment already sets the mode.
    #[test]
    fn record_sets_auto_mode_unless_the_command_does() {
        use crate::http::recorder::{How, RecordRun};
        let root = std::path::Path::new(".");
        let no_env = |_: &str| None;
        let run = RecordRun {
            root,
            dir: root,
            argv: &[],
            env: &no_env,
        };
        let mode = super::FORMAT.recorder().record_mode("EasyVCR", &run);
        assert_eq!(mode.env, [("EASYVCR_MODE".to_owned(), "Auto".to_owned())]);
        let given = |name: &str| (name == "EASYVCR_MODE").then(|| "Replay".to_owned());
        let run = RecordRun {
            root,
            dir: root,
            argv: &[],
            env: &given,
        };
        let mode = super::FORMAT.recorder().record_mode("EasyVCR", &run);
        assert!(mode.env.is_empty());
        assert!(matches!(mode.how, How::Given(ref name) if name == "EASYVCR_MODE"));
    }

    #[test]
    fn reads_both_casings() {
        let csharp = r#"[
  {
    "Duration": 291,
    "RecordedAt": "2025-03-24T15:11:07.609129-06:00",
    "Request": {
      "Body": "{\"password\":\"s3cr3t-pa55\"}",
      "BodyContentType": "Json",
      "ContentHeaders": {"Content-Type": "application/json; charset=utf-8"},
      "Method": "POST",
      "RequestHeaders": {"Authorization": "Bearer 0123abcd"},
      "Uri": "https://api.example.com/v2/shipments"
    },
    "Response": {
      "Body": "{}",
      "BodyContentType": "Json",
      "ContentHeaders": {"Content-Type": "application/json"},
      "HttpVersion": "1.1",
      "ResponseHeaders": {"x-proxied": "a,b"},
      "Status": {"Code": 422, "Message": "Unprocessable Entity"}
    }
  }
]"#;
        let root = from_json(csharp.as_bytes()).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let i = &cassette.interactions[0];
        assert_eq!(
            headers(&i.request.headers),
            [
                (
                    "Content-Type",
                    "application/json; charset=utf-8",
                    "[0].Request.ContentHeaders.Content-Type"
                ),
                (
                    "Authorization",
                    "Bearer 0123abcd",
                    "[0].Request.RequestHeaders.Authorization"
                ),
            ]
        );
        assert_eq!(
            bytes(i.request.body.as_ref()).0,
            br#"{"password":"s3cr3t-pa55"}"#
        );
        assert_eq!(i.response.as_ref().unwrap().status, Some(422));
        assert_eq!(
            i.recorded_at.as_ref().unwrap().text,
            "2025-03-24T15:11:07.609129-06:00"
        );

        let java = r#"[{"recordedAt": 1723823872, "request": {"body": "", "method": "GET", "headers": {"Authorization": ["Bearer 0123abcd"]}, "uri": "https://api.example.com/v2/refunds?%70%61%67%65\u003d%35"}, "response": {"body": "{}", "httpVersion": null, "headers": {"null": ["HTTP/1.1 200 OK"]}, "status": {"code": 200, "message": "OK"}, "uri": "https://api.example.com/v2/refunds"}, "duration": 12}]"#;
        let root = from_json(java.as_bytes()).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let i = &cassette.interactions[0];
        assert_eq!(
            i.request.url.text,
            "https://api.example.com/v2/refunds?%70%61%67%65=%35"
        );
        assert_eq!(i.request.body, None);
        assert_eq!(i.response.as_ref().unwrap().status, Some(200));
        assert_eq!(i.recorded_at.as_ref().unwrap().text, "1723823872");
        // vcrpy's old list has no time beside its request.
        let vcrpy = r#"[{"request": {"method": "GET", "uri": "u"}, "response": {"status": {"code": 200}}}]"#;
        assert!(!matches(&from_json(vcrpy.as_bytes()).unwrap()));
    }
}
