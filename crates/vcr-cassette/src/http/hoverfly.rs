//! The Hoverfly reader: simulations, schema v1 to v5.
//!
//! A simulation is `{"data": {"pairs": [{request, response}], "globalActions": ...}, "meta":
//! {"schemaVersion": "v5", "hoverflyVersion", "timeExported"}}` (`hoverctl export`, or
//! hoverfly-java's capture under `src/test/resources/hoverfly/`). Each pair is one
//! interaction:
//! - the request's fields (`method`, `scheme`, `destination`, `path`, `query`, `body`) are
//!   plain strings in v1, matcher objects (`{"exactMatch": ...}`, `globMatch`, `regexMatch`,
//!   ...) in v2 to v4, and lists of matchers (`[{"matcher": "exact", "value": ...}]`) in v5;
//!   the URL is `scheme://destination` + `path` + `?query`, placed at the `path` scalar;
//!   the query is a string (v1 to v4) or a mapping of names to matchers (v5, v4's
//!   `queriesWithMatchers`); headers map a name to a list of values (v1 to v4), to matchers
//!   (v4's `headersWithMatchers`, v5);
//! - the response: `status`, `headers` (a name to a list of values), and `body`, which is
//!   base64 when `encodedBody` is true (the bytes as the server sent them, still gzip'd when
//!   `Content-Encoding` says so). A `bodyFile` is resolved by Hoverfly against a folder it is
//!   given at run time: it is not read.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun};
use super::recorder::{Recorder, has};
use super::walk::At;
use super::{Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// The keys of a v2 to v4 matcher object.
const MATCHERS: &[&str] = &[
    "exactMatch",
    "globMatch",
    "regexMatch",
    "jsonMatch",
    "jsonPartialMatch",
    "xmlMatch",
    "xpathMatch",
    "jsonPathMatch",
];

/// Whether the document is a simulation: `data.pairs` a list, and `meta.schemaVersion`
/// (which Hoverfly requires) or pairs of `request` and `response`.
pub(super) fn matches(root: &Node) -> bool {
    let Some(pairs) = root
        .get("data")
        .and_then(|d| d.get("pairs"))
        .and_then(Node::as_seq)
    else {
        return false;
    };
    let versioned = root
        .get("meta")
        .and_then(|m| m.get("schemaVersion"))
        .is_some();
    let paired = |p: &Node| p.get("request").is_some() && p.get("response").is_some();
    (versioned && pairs.iter().all(|p| p.as_map().is_some()))
        || (!pairs.is_empty() && pairs.iter().all(paired))
}

/// Reads a simulation.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let root = At::root(root, FORMAT);
    let interactions = root
        .need("data")?
        .need("pairs")?
        .items()?
        .iter()
        .map(pair)
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// The one value a request field holds: the string itself (v1), a matcher object's (v2 to
/// v4), or the first matcher's `value` (v5).
fn matched<'n>(field: &At<'n>) -> Result<Option<At<'n>>, ReadError> {
    if field.node.as_scalar().is_some() {
        return Ok(Some(field.clone()));
    }
    if field.node.as_seq().is_some() {
        for matcher in field.items()? {
            if let Some(value) = matcher.get("value")
                && value.node.as_scalar().is_some()
            {
                return Ok(Some(value));
            }
        }
        return Ok(None);
    }
    // A v2 to v4 matcher object, or one v5 matcher (`{"matcher": "exact", "value": ...}`).
    Ok(MATCHERS
        .iter()
        .chain(&["value"])
        .find_map(|key| field.get(key))
        .filter(|v| v.node.as_scalar().is_some()))
}

/// Every value a header or query parameter holds: each of a list of strings or of matchers,
/// or a matcher object's.
fn matched_all<'n>(field: &At<'n>) -> Result<Vec<At<'n>>, ReadError> {
    if field.node.as_seq().is_some() {
        let mut out = Vec::new();
        for item in field.items()? {
            if item.node.as_scalar().is_some() {
                out.push(item);
            } else if let Some(value) = matched(&item)? {
                out.push(value);
            }
        }
        return Ok(out);
    }
    Ok(matched(field)?.into_iter().collect())
}

/// The text of a request field, if it has one.
fn text_of(request: &At<'_>, key: &str) -> Result<Option<Field>, ReadError> {
    match request.get(key) {
        Some(field) => matched(&field)?.map(At::into_field).transpose(),
        None => Ok(None),
    }
}

/// `(name, value)` of each entry of the mapping under `key` of `at`.
fn entries<'n>(at: &At<'n>, key: &str) -> Result<Vec<(String, At<'n>)>, ReadError> {
    let Some(map) = at.get(key) else {
        return Ok(Vec::new());
    };
    let Some(items) = map.node.as_map() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (name, _) in items {
        let Some(name) = name.as_scalar().map(|s| s.text.clone()) else {
            continue;
        };
        if let Some(value) = map.get(&name) {
            for value in matched_all(&value)? {
                out.push((name.clone(), value));
            }
        }
    }
    Ok(out)
}

fn pair(pair: &At<'_>) -> Result<Interaction, ReadError> {
    let request = pair.need("request")?;
    let response = pair.need("response")?;
    let method = match text_of(&request, "method")? {
        Some(method) => method,
        None => Field {
            text: "ANY".into(),
            at: None,
            path: format!("{}.method", request.path),
        },
    };
    let scheme = text_of(&request, "scheme")?.map_or_else(|| "http".to_owned(), |f| f.text);
    let destination = text_of(&request, "destination")?.map(|f| f.text);
    let mut url = match text_of(&request, "path")? {
        Some(path) => path,
        None => Field {
            text: "/".into(),
            at: None,
            path: format!("{}.path", request.path),
        },
    };
    if let Some(host) = destination {
        url.text = format!("{scheme}://{host}{}", url.text);
    }
    let mut query = Vec::new();
    match request.get("query") {
        Some(q) if q.node.as_map().is_some() && MATCHERS.iter().all(|m| q.get(m).is_none()) => {
            for (name, value) in entries(&request, "query")? {
                query.push(format!("{name}={}", value.field()?.text));
            }
        }
        Some(q) => {
            if let Some(text) = matched(&q)?
                && let Ok(field) = text.field()
                && !field.text.is_empty()
            {
                query.push(field.text);
            }
        }
        None => {}
    }
    for (name, value) in entries(&request, "queriesWithMatchers")? {
        query.push(format!("{name}={}", value.field()?.text));
    }
    if !query.is_empty() {
        url.text = format!("{}?{}", url.text, query.join("&"));
    }
    let mut headers = Vec::new();
    for key in ["headers", "headersWithMatchers"] {
        for (name, value) in entries(&request, key)? {
            headers.push(Header {
                name,
                value: value.into_field()?,
            });
        }
    }
    let body = match request.get("body") {
        Some(body) => match matched(&body)? {
            Some(text) => text.body_bytes()?,
            None => None,
        },
        None => None,
    };
    let response_headers = response.headers_in("headers")?;
    let encoded = response
        .get("encodedBody")
        .is_some_and(|e| super::is_true(e.node));
    let response_body = match response.get("body") {
        Some(body) if encoded => body.body_base64()?,
        Some(body) => body.body_bytes()?,
        None => None,
    };
    Ok(Interaction {
        path: pair.path.clone(),
        request: Request {
            method,
            url,
            headers,
            body,
        },
        response: Some(Response {
            status: response.get("status").map(|s| s.status()).transpose()?,
            headers: response_headers,
            body: response_body,
        }),
        recorded_at: None,
    })
}

/// Hoverfly (`hoverctl export`, hoverfly-java's captures).
pub struct Hoverfly;

/// Hoverfly's [`Format`].
pub const FORMAT: Format = Format::new(&Hoverfly);

impl Recorder for Hoverfly {
    fn name(&self) -> &'static str {
        "Hoverfly"
    }

    fn known_as(&self) -> &'static str {
        "Hoverfly simulations (schema v1 to v5)"
    }

    /// `data` holding `pairs`.
    fn sniff(&self, head: &Head<'_>) -> bool {
        head.has_under("data", "pairs")
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `pairs` and the `schemaVersion` Hoverfly requires of every simulation.
    fn identified(&self, text: &str) -> bool {
        has(text, "\"pairs\"") && has(text, "\"schemaVersion\"")
    }

    /// A captured pair matches exactly on method, scheme, destination, path, query and body,
    /// and on the headers it was told to capture.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "headers", "body"]
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "the pair's `{name}` query matcher made a `glob` (`\"value\": \"*\"`), or the test sending `{name}={placeholder}`"
            ),
            Filtered::Header { name } => format!(
                "the pair's `{name}` header matcher removed (capture without `--headers {name}`) or made a `glob`, or the test sending the placeholder"
            ),
            Filtered::Body => {
                "the pair's body matcher made a `jsonPartial` or `glob` matcher, or the test sending the placeholders".into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["Hoverfly"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::Cannot(
                "Hoverfly captures in its own mode: `hoverctl mode capture`, then `hoverctl export SIMULATION.json` (hoverfly-java: `HoverflyRule.inCaptureMode`)",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[MissRule {
            headline: r"Could not find a match for request, create or record a valid matcher first",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Body;
    use crate::http::testing::headers;
    use vcr_doc::from_json;

    #[track_caller]
    fn hoverfly(text: &str) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not Hoverfly: {text}");
        read(&root).unwrap()
    }

    #[test]
    fn reads_every_schema_version() {
        let v1 = r#"{"data":{"pairs":[{"request":{"requestType":"recording","path":"/a","method":"GET","destination":"h.test","scheme":"http","query":"access_token=q","body":"","headers":{"Authorization":["Bearer one"]}},"response":{"status":200,"body":"ok","encodedBody":false,"headers":{"Content-Type":["text/plain"]}}}]},"meta":{"schemaVersion":"v1"}}"#;
        let v2 = r#"{"data":{"pairs":[{"request":{"path":{"exactMatch":"/a"},"method":{"exactMatch":"GET"},"destination":{"exactMatch":"h.test"},"scheme":{"exactMatch":"http"},"query":{"exactMatch":"access_token=q"},"body":{"exactMatch":""},"headers":{"Authorization":["Bearer one"]}},"response":{"status":200,"body":"ok","encodedBody":false,"headers":{}}}]},"meta":{"schemaVersion":"v2"}}"#;
        let v4 = r#"{"data":{"pairs":[{"request":{"path":{"exactMatch":"/a"},"method":{"exactMatch":"GET"},"destination":{"exactMatch":"h.test"},"scheme":{"exactMatch":"http"},"queriesWithMatchers":{"access_token":{"exactMatch":"q"}},"headersWithMatchers":{"Authorization":{"exactMatch":"Bearer one"}}},"response":{"status":200,"body":"ok"}}]},"meta":{"schemaVersion":"v4"}}"#;
        let v5 = r#"{"data":{"pairs":[{"request":{"path":[{"matcher":"exact","value":"/a"}],"method":[{"matcher":"exact","value":"GET"}],"destination":[{"matcher":"exact","value":"h.test"}],"scheme":[{"matcher":"exact","value":"http"}],"query":{"access_token":[{"matcher":"exact","value":"q"}]},"headers":{"Authorization":[{"matcher":"exact","value":"Bearer one"}]},"body":[{"matcher":"exact","value":""}]},"response":{"status":200,"body":"b2s=","encodedBody":true,"headers":{"Hoverfly":["Was-Here"]}}}]},"meta":{"schemaVersion":"v5","hoverflyVersion":"v1.3.0"}}"#;
        for text in [v1, v2, v4, v5] {
            let cassette = hoverfly(text);
            let pair = &cassette.interactions[0];
            assert_eq!(pair.path, "data.pairs[0]");
            assert_eq!(pair.request.method.text, "GET", "{text}");
            assert_eq!(pair.request.url.text, "http://h.test/a?access_token=q", "{text}");
            assert!(pair.request.url.path.starts_with("data.pairs[0].request.path"));
            let request_headers = headers(&pair.request.headers);
            assert_eq!(request_headers[0].0, "Authorization", "{text}");
            assert_eq!(request_headers[0].1, "Bearer one", "{text}");
            let response = pair.response.as_ref().unwrap();
            assert_eq!(response.status, Some(200));
            match &response.body {
                Some(Body::Bytes { bytes, .. }) => assert_eq!(bytes, b"ok", "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let v5 = hoverfly(v5);
        assert!(matches!(
            &v5.interactions[0].response.as_ref().unwrap().body,
            Some(Body::Bytes { stored, .. }) if stored == &["base64"]
        ));
        assert_eq!(
            v5.interactions[0].request.headers[0].value.path,
            "data.pairs[0].request.headers.Authorization[0].value"
        );
    }

    #[test]
    fn matches_simulations_only() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(matches(&from_json(text.as_bytes()).unwrap()), expected, "{text}");
        }
        case(r#"{"data":{"pairs":[]},"meta":{"schemaVersion":"v5"}}"#, true);
        case(r#"{"data":{"pairs":[{"request":{},"response":{}}]}}"#, true);
        case(r#"{"data":{"pairs":[]}}"#, false);
        case(r#"{"data":{"pairs":[1,2]}}"#, false);
        case(r#"{"data":[{"pairs":[]}]}"#, false);
    }
}
