//! The WireMock reader: stub mappings, as WireMock (Java) and WireMock.Net write them.
//!
//! A WireMock root folder holds `mappings/*.json` (the stubs) and `__files/` (bodies kept
//! apart). A mapping file is one stub `{id, name, request, response, uuid, persistent,
//! insertionIndex, ...}` or a whole server's export `{"mappings": [...]}`; each stub is one
//! interaction, read from what it matches and what it answers:
//! - the request: `method` (`ANY` when absent); the URL from `url`, `urlPath`, `urlPattern`,
//!   `urlPathPattern` or `urlPathTemplate`, with the `queryParameters` matchers added as its
//!   query; `headers` and `cookies` as matchers (`{"Authorization": {"equalTo": "token
//!   ..."}}`), each matcher's value a header (a cookie as `Cookie: name=value`);
//!   `basicAuthCredentials`' password as an `Authorization` header; the body from the first
//!   of `bodyPatterns` that holds one (`equalToJson` as text or as the JSON data it is,
//!   `equalTo`, `equalToXml`, `binaryEqualTo` as base64);
//! - the response: `status` (200 when absent), `headers` (a value or a list of values), and
//!   one of `body` (text, or WireMock 4's `{data | base64Data | filePath}`), `jsonBody` (kept
//!   as data), `base64Body` (stored `["base64"]`) or `bodyFileName`, a file under the root's
//!   `__files/` (stored `["file"]`, the field being the name's scalar; a name WireMock would
//!   resolve as a template, or a file that is not there, is no body: nothing to read).
//!
//! WireMock.Net writes PascalCase: `Request: {Path: {Matchers: [{Name, Pattern}]}, Methods,
//! Params, Headers: [{Name, Matchers}], Cookies, Body: {Matcher}}`, `Response: {StatusCode,
//! Headers, Body | BodyAsJson | BodyAsBytes}`.
//!
//! A value a recorded stub matches on (its URL, a captured header, its body pattern) is a
//! matcher: a scrub that replaces it changes what WireMock matches, and says so; the same
//! value where the response repeats it is replaced with it (the scrub's sweep of every scalar).

use std::path::{Path, PathBuf};

use vcr_doc::Node;

use super::recorder::{Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun};
use super::recorder::{Recorder, has};
use super::walk::At;
use super::{
    Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars,
};

/// The request keys that name the URL a Java stub matches, in WireMock's order of precedence.
const URL_KEYS: &[&str] = &[
    "url",
    "urlPath",
    "urlPattern",
    "urlPathPattern",
    "urlPathTemplate",
];

/// The keys of a Java matcher object that hold the value matched (`{"equalTo": "x"}`).
const OPERATORS: &[&str] = &[
    "equalTo",
    "equalToIgnoreCase",
    "contains",
    "matches",
    "doesNotMatch",
    "doesNotContain",
    "equalToJson",
    "equalToXml",
    "binaryEqualTo",
    "matchesJsonPath",
    "matchesXPath",
    "before",
    "after",
    "equalToDateTime",
];

/// Whether `node` is a Java stub: a `request` mapping that names a method or a URL, a
/// `response` mapping, and a mark only WireMock writes (its ids, `persistent`,
/// `insertionIndex`, `priority`, a scenario; a body kept as `bodyFileName`, `base64Body` or
/// `jsonBody`; `bodyPatterns`, `queryParameters`, a URL key other than `url`; a header
/// matcher object).
fn is_stub(node: &Node) -> bool {
    let (Some(request), Some(response)) = (node.get("request"), node.get("response")) else {
        return false;
    };
    if request.as_map().is_none() || response.as_map().is_none() {
        return false;
    }
    let has_any = |node: &Node, keys: &[&str]| keys.iter().any(|k| node.get(k).is_some());
    if !has_any(request, URL_KEYS) && request.get("method").is_none() {
        return false;
    }
    let matcher_header = request
        .get("headers")
        .and_then(Node::as_map)
        .is_some_and(|h| h.iter().any(|(_, v)| is_matcher(v)));
    has_any(
        node,
        &[
            "uuid",
            "id",
            "persistent",
            "insertionIndex",
            "priority",
            "scenarioName",
        ],
    ) || has_any(
        response,
        &[
            "bodyFileName",
            "base64Body",
            "jsonBody",
            "fixedDelayMilliseconds",
            "proxyBaseUrl",
            "fault",
        ],
    ) || has_any(
        request,
        &[
            "bodyPatterns",
            "queryParameters",
            "urlPath",
            "urlPattern",
            "urlPathPattern",
            "urlPathTemplate",
            "basicAuthCredentials",
        ],
    ) || matcher_header
}

/// Whether `node` is a Java matcher object: a mapping with one of [`OPERATORS`].
fn is_matcher(node: &Node) -> bool {
    node.as_map().is_some() && OPERATORS.iter().any(|op| node.get(op).is_some())
}

/// Whether `node` is a WireMock.Net stub: `Request` and `Response` mappings, the request
/// naming its `Path`, `Url` or `Methods`, the response its `StatusCode` or a body.
fn is_net_stub(node: &Node) -> bool {
    let (Some(request), Some(response)) = (node.get("Request"), node.get("Response")) else {
        return false;
    };
    request.as_map().is_some()
        && response.as_map().is_some()
        && ["Path", "Url", "Methods"]
            .iter()
            .any(|k| request.get(k).is_some())
        && ["StatusCode", "Body", "BodyAsJson", "BodyAsBytes", "BodyAsFile"]
            .iter()
            .any(|k| response.get(k).is_some())
}

/// Whether the document is a WireMock mapping file: one stub (Java or .NET), a whole
/// server's `{"mappings": [...]}`, or a list of WireMock.Net stubs (its admin API's export).
pub(super) fn matches(root: &Node) -> bool {
    if is_stub(root) || is_net_stub(root) {
        return true;
    }
    if let Some(items) = root.get("mappings").and_then(Node::as_seq) {
        return !items.is_empty() && items.iter().all(|i| is_stub(i) || is_net_stub(i));
    }
    root.as_seq()
        .is_some_and(|items| !items.is_empty() && items.iter().all(is_net_stub))
}

/// Reads a mapping file at `path`, whose `__files/` holds the bodies kept apart (`replaced`:
/// those a scrub rewrote, read from there instead).
pub(super) fn read(root: &Node, path: &Path, replaced: &Sidecars) -> Result<HttpCassette, ReadError> {
    let at = At::root(root, FORMAT);
    let files = Files { path, replaced };
    let stubs = if let Some(list) = at.get("mappings") {
        list.items()?
    } else if root.as_seq().is_some() {
        at.items()?
    } else {
        vec![At::placed(root, FORMAT, String::new())]
    };
    let interactions = stubs
        .iter()
        .map(|stub| {
            let mut interaction = if stub.has("Request") {
                net_stub(stub)?
            } else {
                stub_of(stub, &files)?
            };
            if interaction.path.is_empty() {
                "mapping".clone_into(&mut interaction.path);
            }
            Ok(interaction)
        })
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// Where the bodies kept apart are read from.
struct Files<'a> {
    /// The mapping file.
    path: &'a Path,
    /// Bodies a scrub rewrote, by their `bodyFileName`.
    replaced: &'a Sidecars,
}

/// The path of `key` below `at` (`at` itself when it is the root).
fn below(at: &At<'_>, key: &str) -> String {
    if at.path.is_empty() {
        key.to_owned()
    } else {
        format!("{}.{key}", at.path)
    }
}

/// A field the stub does not write (a method it leaves to `ANY`): no place in the file.
fn absent(at: &At<'_>, key: &str, text: &str) -> Field {
    Field {
        text: text.to_owned(),
        at: None,
        path: below(at, key),
    }
}

/// A Java stub.
fn stub_of(stub: &At<'_>, files: &Files<'_>) -> Result<Interaction, ReadError> {
    let request = stub.need("request")?;
    let response = stub.need("response")?;
    let method = match request.get("method") {
        Some(method) => method.into_field()?,
        None => absent(&request, "method", "ANY"),
    };
    let mut url = match URL_KEYS.iter().find_map(|k| request.get(k)) {
        Some(url) => url.into_field()?,
        None => absent(&request, "url", "/"),
    };
    if let Some(query) = request.get("queryParameters") {
        let mut pairs = Vec::new();
        for (name, matcher) in named(&query) {
            for value in matched(&matcher)? {
                pairs.push(format!("{name}={}", value.text));
            }
        }
        if !pairs.is_empty() {
            let join = if url.text.contains('?') { '&' } else { '?' };
            url.text = format!("{}{join}{}", url.text, pairs.join("&"));
        }
    }
    let mut headers = Vec::new();
    if let Some(map) = request.get("headers") {
        for (name, matcher) in named(&map) {
            for value in matched(&matcher)? {
                headers.push(Header {
                    name: name.clone(),
                    value,
                });
            }
        }
    }
    if let Some(map) = request.get("cookies") {
        for (name, matcher) in named(&map) {
            for value in matched(&matcher)? {
                headers.push(cookie(&name, value));
            }
        }
    }
    if let Some(password) = request
        .get("basicAuthCredentials")
        .and_then(|c| c.get("password"))
    {
        headers.push(Header {
            name: "Authorization".into(),
            value: password.into_field()?,
        });
    }
    let body = match request.get("bodyPatterns") {
        Some(patterns) => pattern_body(&patterns)?,
        None => None,
    };
    let status = match response.get("status") {
        Some(status) => status.status()?,
        None => 200,
    };
    let response_headers = response.headers_in("headers")?;
    let response_body = response_body(&response, files)?;
    Ok(Interaction {
        path: stub.path.clone(),
        request: Request {
            method,
            url,
            headers,
            body,
        },
        response: Some(Response {
            status: Some(status),
            headers: response_headers,
            body: response_body,
        }),
        recorded_at: None,
    })
}

/// The entries of a mapping by name (a header's, a query parameter's, a cookie's matcher).
fn named<'n>(map: &At<'n>) -> Vec<(String, At<'n>)> {
    let Some(entries) = map.node.as_map() else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(key, value)| {
            let name = key.as_scalar()?.text.clone();
            let path = below(map, &name);
            Some((name, At::placed(value, FORMAT, path)))
        })
        .collect()
}

/// The values a Java matcher holds: its operator's value (`{"equalTo": "x"}`), each of a
/// list of matchers (`hasExactly`, `includes`), or the scalar itself; none for `absent`.
fn matched(matcher: &At<'_>) -> Result<Vec<Field>, ReadError> {
    if super::is_string(matcher.node) {
        return Ok(vec![matcher.field()?]);
    }
    let mut out = Vec::new();
    for op in OPERATORS {
        if let Some(value) = matcher.get(op)
            && value.node.as_scalar().is_some()
        {
            out.push(value.into_field()?);
        }
    }
    for list in ["hasExactly", "includes", "and", "or"] {
        if let Some(items) = matcher.get(list) {
            for item in items.items()? {
                out.extend(matched(&item)?);
            }
        }
    }
    Ok(out)
}

/// A cookie's value as a `Cookie` header: `name=value`, placed at the value's scalar (a
/// scrub rewrites the scalar alone).
fn cookie(name: &str, value: Field) -> Header {
    Header {
        name: "Cookie".into(),
        value: Field {
            text: format!("{name}={}", value.text),
            ..value
        },
    }
}

/// The request body a stub matches: the first of its `bodyPatterns` that holds a whole body,
/// else the first part of one a `contains` pattern holds (`"refresh_token=..."`): what the
/// test must send, which a scrub changes as it changes a whole body, and says so.
fn pattern_body(patterns: &At<'_>) -> Result<Option<Body>, ReadError> {
    let items = patterns.items()?;
    if let Some(body) = whole_pattern_body(&items)? {
        return Ok(Some(body));
    }
    for pattern in &items {
        if let Some(value) = pattern.get("contains")
            && value.node.as_scalar().is_some()
        {
            return value.body_bytes();
        }
    }
    Ok(None)
}

/// The first of `patterns` that holds a whole body.
fn whole_pattern_body(patterns: &[At<'_>]) -> Result<Option<Body>, ReadError> {
    for pattern in patterns {
        if let Some(value) = pattern.get("binaryEqualTo") {
            return value.body_base64();
        }
        for op in ["equalToJson", "equalTo", "equalToXml"] {
            if let Some(value) = pattern.get(op) {
                return if value.node.as_scalar().is_some() {
                    value.body_bytes()
                } else {
                    Ok(Some(value.body_data()))
                };
            }
        }
    }
    Ok(None)
}

/// A Java stub's response body.
fn response_body(response: &At<'_>, files: &Files<'_>) -> Result<Option<Body>, ReadError> {
    if let Some(body) = response.get("body") {
        if body.node.as_map().is_none() {
            return body.body_bytes();
        }
        // WireMock 4's entity: `{format, compression, data | base64Data | filePath}`.
        if let Some(data) = body.get("data") {
            return if data.node.as_scalar().is_some() {
                data.body_bytes()
            } else {
                Ok(Some(data.body_data()))
            };
        }
        if let Some(data) = body.get("base64Data") {
            return data.body_base64();
        }
        if let Some(file) = body.get("filePath") {
            return file_body(&file, files);
        }
        return Ok(Some(body.body_data()));
    }
    if let Some(json) = response.get("jsonBody") {
        return Ok(Some(json.body_data()));
    }
    if let Some(base64) = response.get("base64Body") {
        return base64.body_base64();
    }
    if let Some(file) = response.get("bodyFileName") {
        return file_body(&file, files);
    }
    Ok(None)
}

/// A body kept under `__files/`, named by the scalar `file`. A name that leaves `__files/`
/// is an error; a template (`{{request.path.[1]}}.json`, resolved per request) or a file
/// that is not there is no body.
fn file_body(file: &At<'_>, files: &Files<'_>) -> Result<Option<Body>, ReadError> {
    let field = file.field()?;
    if field.text.contains("{{") {
        return Ok(None);
    }
    let name = Path::new(&field.text);
    let inside = !field.text.is_empty()
        && name.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
    if !inside {
        return Err(file.error(format!(
            "{} names `{}`, which is not a file under `__files/`",
            file.path, field.text
        )));
    }
    let bytes = match files.replaced.get(&field.text) {
        Some(bytes) => bytes.clone(),
        None => match super::read_inside(&files_root(files.path), name) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(file.error(format!(
                    "{} names `{}`, which cannot be read under `__files/`: {e}",
                    file.path, field.text
                )));
            }
        },
    };
    Ok(Some(Body::Bytes {
        field,
        bytes,
        stored: vec!["file"],
    }))
}

/// The `__files/` folder of the mapping file at `path`: beside the nearest `mappings/`
/// folder above it (WireMock reads mappings from its subfolders too), else beside the
/// mapping's own folder.
fn files_root(path: &Path) -> PathBuf {
    let folder = path.parent().unwrap_or(Path::new(""));
    let root = folder
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "mappings"))
        .and_then(Path::parent)
        .or_else(|| folder.parent())
        .unwrap_or(Path::new(""));
    root.join("__files")
}

/// A WireMock.Net stub.
fn net_stub(stub: &At<'_>) -> Result<Interaction, ReadError> {
    let request = stub.need("Request")?;
    let response = stub.need("Response")?;
    let method = match request.get("Methods") {
        Some(methods) => match methods.items()?.into_iter().next() {
            Some(first) => first.into_field()?,
            None => absent(&request, "Methods", "ANY"),
        },
        None => absent(&request, "Methods", "ANY"),
    };
    let path = ["Path", "Url"].iter().find_map(|k| request.get(k));
    let mut url = match path {
        Some(path) if super::is_string(path.node) => path.into_field()?,
        Some(path) => net_patterns(&path)?
            .into_iter()
            .next()
            .unwrap_or_else(|| absent(&path, "Matchers", "/")),
        None => absent(&request, "Path", "/"),
    };
    let mut pairs = Vec::new();
    for (name, values) in net_named(&request, "Params")? {
        pairs.extend(values.into_iter().map(|v| format!("{name}={}", v.text)));
    }
    if !pairs.is_empty() {
        let join = if url.text.contains('?') { '&' } else { '?' };
        url.text = format!("{}{join}{}", url.text, pairs.join("&"));
    }
    let mut headers = Vec::new();
    for (name, values) in net_named(&request, "Headers")? {
        headers.extend(values.into_iter().map(|value| Header {
            name: name.clone(),
            value,
        }));
    }
    for (name, values) in net_named(&request, "Cookies")? {
        headers.extend(values.into_iter().map(|value| cookie(&name, value)));
    }
    let body = match request.get("Body") {
        Some(body) => net_body_pattern(&body)?,
        None => None,
    };
    let status = match response.get("StatusCode") {
        Some(status) => status.status()?,
        None => 200,
    };
    let headers_out = response.headers_in("Headers")?;
    let body_out = if let Some(body) = response.get("Body") {
        body.body_bytes()?
    } else if let Some(json) = response.get("BodyAsJson") {
        Some(json.body_data())
    } else if let Some(bytes) = response.get("BodyAsBytes") {
        bytes.body_base64()?
    } else {
        None
    };
    Ok(Interaction {
        path: stub.path.clone(),
        request: Request {
            method,
            url,
            headers,
            body,
        },
        response: Some(Response {
            status: Some(status),
            headers: headers_out,
            body: body_out,
        }),
        recorded_at: None,
    })
}

/// The `Pattern` (or each of `Patterns`) of each of `Matchers` under `at`.
fn net_patterns(at: &At<'_>) -> Result<Vec<Field>, ReadError> {
    let mut out = Vec::new();
    if let Some(matchers) = at.get("Matchers") {
        for matcher in matchers.items()? {
            if let Some(pattern) = matcher.get("Pattern")
                && pattern.node.as_scalar().is_some()
            {
                out.push(pattern.into_field()?);
            }
            if let Some(patterns) = matcher.get("Patterns") {
                for pattern in patterns.items()? {
                    if pattern.node.as_scalar().is_some() {
                        out.push(pattern.into_field()?);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The `[{Name, Matchers | Values}]` list under `key` of a WireMock.Net request: each name
/// with the values it matches.
fn net_named(request: &At<'_>, key: &str) -> Result<Vec<(String, Vec<Field>)>, ReadError> {
    let Some(list) = request.get(key) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for item in list.items()? {
        let Some(name) = item.get("Name").and_then(|n| n.field().ok()) else {
            continue;
        };
        let mut values = net_patterns(&item)?;
        if let Some(list) = item.get("Values") {
            for value in list.items()? {
                if value.node.as_scalar().is_some() {
                    values.push(value.into_field()?);
                }
            }
        }
        out.push((name.text, values));
    }
    Ok(out)
}

/// The request body a WireMock.Net stub matches: its `Matcher`'s (or first of `Matchers`')
/// pattern, as text, or as data when the pattern is JSON.
fn net_body_pattern(body: &At<'_>) -> Result<Option<Body>, ReadError> {
    let matcher = match body.get("Matcher") {
        Some(matcher) => matcher,
        None => match body.get("Matchers") {
            Some(list) => match list.items()?.into_iter().next() {
                Some(first) => first,
                None => return Ok(None),
            },
            None => return Ok(None),
        },
    };
    match matcher.get("Pattern") {
        Some(pattern) if pattern.node.as_scalar().is_some() => pattern.body_bytes(),
        Some(pattern) => Ok(Some(pattern.body_data())),
        None => Ok(None),
    }
}

/// WireMock (Java) and WireMock.Net.
pub struct WireMock;

/// WireMock's [`Format`].
pub const FORMAT: Format = Format::new(&WireMock);

impl Recorder for WireMock {
    fn name(&self) -> &'static str {
        "WireMock"
    }

    fn known_as(&self) -> &'static str {
        "WireMock (mappings and `__files/`, WireMock.Net)"
    }

    /// A stub's `request` beside its `response` (the request naming a method or a URL), a
    /// whole server's `mappings`, or WireMock.Net's `Request` and `Response`.
    fn sniff(&self, head: &Head<'_>) -> bool {
        let java = head.has("request")
            && head.has("response")
            && ["method", "url", "urlPath", "urlPattern", "urlPathPattern"]
                .iter()
                .any(|k| head.has_under("request", k));
        let export = !head.list && head.has("mappings") && has(head.text, "\"request\"");
        let net = head.has("Request") && head.has("Response");
        java || export || net
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, path: &Path, replaced: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root, path, replaced)
    }

    /// Where the body named `name` is: `__files/` beside the `mappings/` folder.
    fn sidecar(&self, cassette: &Path, name: &str) -> PathBuf {
        files_root(cassette).join(name)
    }

    /// The ids and flags WireMock's own writer puts in a stub (`uuid` and `persistent`,
    /// `insertionIndex`), or WireMock.Net's `Guid` with its `Matchers`.
    fn identified(&self, text: &str) -> bool {
        let java = has(text, "\"request\"")
            && (has(text, "\"insertionIndex\"")
                || (has(text, "\"uuid\"") && has(text, "\"persistent\"")));
        let net = has(text, "\"Guid\"") && has(text, "\"Request\"") && has(text, "\"Matchers\"");
        java || net
    }

    /// A recorded stub matches on its method, its URL, the headers the record spec captured
    /// and its body pattern: whatever the mapping states.
    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "headers", "body"]
    }

    fn filter(&self, what: Filtered<'_>, tool: Option<&str>) -> Option<String> {
        let net = tool == Some("WireMock.Net");
        Some(match (what, net) {
            (Filtered::Query { name, placeholder }, false) => format!(
                "the stub matching `urlPath` with a `queryParameters` matcher that ignores `{name}` (or the test sending `{name}={placeholder}`)"
            ),
            (Filtered::Query { name, placeholder }, true) => format!(
                "`ProxyAndRecordSettings.ExcludedParams` naming `{name}` when recording (or the test sending `{name}={placeholder}`)"
            ),
            (Filtered::Header { name }, false) => format!(
                "the stub's `{name}` header matcher relaxed (`matches`) or removed (record without it in `captureHeaders`), or the test sending the placeholder"
            ),
            (Filtered::Header { name }, true) => format!(
                "`ProxyAndRecordSettings.ExcludedHeaders` naming `{name}` when recording, or the test sending the placeholder"
            ),
            (Filtered::Body, _) => {
                "the stub's `bodyPatterns` ignoring the field (`equalToJson` with `${json-unit.ignore}`), or the test sending the placeholders".to_owned()
            }
        })
    }

    fn tool(&self, text: &[u8]) -> Option<&'static str> {
        let head = &text[..text.len().min(4096)];
        let net = memchr::memmem::find(head, b"\"Request\"").is_some();
        Some(if net { "WireMock.Net" } else { "WireMock" })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["WireMock", "WireMock.Net"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        let how = if tool == "WireMock.Net" {
            "WireMock.Net records as a proxy: `ProxyAndRecordSettings` with `SaveMapping` and `SaveMappingToFile`"
        } else {
            "WireMock records as a proxy: `POST /__admin/recordings/start` with the `targetBaseUrl`, then `/__admin/recordings/stop` (or `--proxy-all` with `--record-mappings`)"
        };
        RecordMode::only(tool, How::Cannot(how))
    }

    fn misses(&self) -> &'static [MissRule] {
        // The diff report of an unmatched request, the JUnit rule's verification error, a
        // server with no stubs, and WireMock.Net's 404: none names a mapping file.
        &[MissRule {
            headline: r"Request was not matched|requests? (?:was|were) unmatched by any stub mapping|there are no stub mappings in this WireMock instance|No matching mapping found",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::testing::{assert_error, headers};
    use vcr_doc::from_json;

    #[track_caller]
    fn wiremock_at(text: &str, path: &Path) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not WireMock: {text}");
        read(&root, path, &Sidecars::new()).unwrap()
    }

    #[track_caller]
    fn wiremock(text: &str) -> HttpCassette {
        wiremock_at(text, Path::new("nowhere/mappings/stub.json"))
    }

    fn offset(text: &str, needle: &str) -> Option<u32> {
        Some(text.find(needle).unwrap_or_else(|| panic!("no {needle}")) as u32)
    }

    #[test]
    fn matches_stubs_exports_and_dotnet_mappings_only() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            let root = from_json(text.as_bytes()).unwrap();
            assert_eq!(matches(&root), expected, "{text}");
        }
        case(
            r#"{"id":"1","request":{"url":"/a","method":"GET"},"response":{"status":200}}"#,
            true,
        );
        case(
            r#"{"request":{"urlPath":"/a"},"response":{"body":"x"}}"#,
            true,
        );
        case(
            r#"{"request":{"method":"GET","headers":{"A":{"equalTo":"b"}}},"response":{}}"#,
            true,
        );
        case(
            r#"{"mappings":[{"request":{"url":"/a","method":"GET"},"response":{"status":200},"uuid":"u"}]}"#,
            true,
        );
        case(
            r#"{"Guid":"g","Request":{"Path":"/a","Methods":["GET"]},"Response":{"StatusCode":200}}"#,
            true,
        );
        case(
            r#"[{"Request":{"Methods":["GET"]},"Response":{"Body":"x"}}]"#,
            true,
        );
        // A request and a response with no mark of WireMock's: the generic reader's.
        case(
            r#"{"request":{"method":"GET","url":"/a"},"response":{"status":200}}"#,
            false,
        );
        case(r#"{"mappings":{"properties":{}}}"#, false);
        case(r#"{"mappings":[]}"#, false);
        case(r#"[{"request":{"url":"/a"},"response":{}}]"#, false);
    }

    const RECORDED: &str = r#"{
  "id" : "f8dc1f92-234c-49fc-9ec3-02a886a738c6",
  "request" : {
    "url" : "/repos/o/r?per_page=1",
    "method" : "POST",
    "headers" : {
      "Authorization" : { "equalTo" : "token abcdefgh12345678" },
      "Accept" : { "hasExactly" : [ { "equalTo" : "a" }, { "contains" : "b" } ] }
    },
    "queryParameters" : { "access_token" : { "equalTo" : "q1w2e3r4t5" } },
    "cookies" : { "session" : { "matches" : "s3ss10n" } },
    "bodyPatterns" : [ { "equalToJson" : { "token" : "t" }, "ignoreExtraElements" : true } ]
  },
  "response" : {
    "status" : 201,
    "jsonBody" : { "id" : 1 },
    "headers" : { "Content-Type" : "application/json", "Vary" : [ "A", "B" ] }
  },
  "uuid" : "f8dc1f92-234c-49fc-9ec3-02a886a738c6",
  "persistent" : true,
  "insertionIndex" : 1
}"#;

    #[test]
    fn reads_a_stub_by_its_matchers_with_paths_and_offsets() {
        let cassette = wiremock(RECORDED);
        let [stub] = &cassette.interactions[..] else {
            panic!("{cassette:?}")
        };
        assert_eq!(stub.path, "mapping");
        assert_eq!(
            stub.request.url,
            Field {
                text: "/repos/o/r?per_page=1&access_token=q1w2e3r4t5".into(),
                at: offset(RECORDED, r#""/repos"#),
                path: "request.url".into(),
            }
        );
        assert_eq!(
            (stub.request.method.text.as_str(), stub.request.method.path.as_str()),
            ("POST", "request.method")
        );
        assert_eq!(
            headers(&stub.request.headers),
            [
                (
                    "Authorization",
                    "token abcdefgh12345678",
                    "request.headers.Authorization.equalTo"
                ),
                ("Accept", "a", "request.headers.Accept.hasExactly[0].equalTo"),
                ("Accept", "b", "request.headers.Accept.hasExactly[1].contains"),
                ("Cookie", "session=s3ss10n", "request.cookies.session.matches"),
            ]
        );
        assert_eq!(
            stub.request.headers[0].value.at,
            offset(RECORDED, r#""token abc"#)
        );
        assert_eq!(
            stub.request.headers[3].value.at,
            offset(RECORDED, r#""s3ss10n""#)
        );
        assert!(matches!(
            &stub.request.body,
            Some(Body::Data { path, node }) if path == "request.bodyPatterns[0].equalToJson" && node.get("token").is_some()
        ));
        let response = stub.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        assert_eq!(
            headers(&response.headers),
            [
                ("Content-Type", "application/json", "response.headers.Content-Type"),
                ("Vary", "A", "response.headers.Vary[0]"),
                ("Vary", "B", "response.headers.Vary[1]"),
            ]
        );
        assert!(
            matches!(&response.body, Some(Body::Data { path, .. }) if path == "response.jsonBody")
        );
    }

    #[test]
    fn reads_bodies_as_text_base64_and_files_under_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("src/test/resources");
        std::fs::create_dir_all(root.join("mappings/nested")).unwrap();
        std::fs::create_dir_all(root.join("__files")).unwrap();
        std::fs::write(root.join("__files/body-1.json"), b"{\"a\": 1}").unwrap();
        let text = r#"{"mappings": [
  {"request": {"method": "GET", "urlPath": "/a"}, "response": {"status": 200, "bodyFileName": "body-1.json"}},
  {"request": {"method": "GET", "urlPath": "/b"}, "response": {"base64Body": "aGk="}},
  {"request": {"method": "GET", "urlPath": "/c"}, "response": {"body": "plain"}},
  {"request": {"method": "GET", "urlPath": "/d"}, "response": {"bodyFileName": "{{request.path.[0]}}.json"}},
  {"request": {"method": "GET", "urlPath": "/e"}, "response": {"bodyFileName": "missing.json"}},
  {"request": {"method": "PUT", "urlPath": "/f", "bodyPatterns": [{"binaryEqualTo": "AAE="}]}, "response": {"body": {"format": "json", "data": {"x": 1}}}}
]}"#;
        let cassette = wiremock_at(text, &root.join("mappings/nested/export.json"));
        let bodies: Vec<_> = cassette
            .interactions
            .iter()
            .map(|i| i.response.as_ref().unwrap().body.clone())
            .collect();
        let bytes = |body: &Option<Body>| match body {
            Some(Body::Bytes {
                bytes,
                stored,
                field,
            }) => Some((bytes.clone(), stored.clone(), field.path.clone())),
            _ => None,
        };
        assert_eq!(
            bytes(&bodies[0]),
            Some((
                b"{\"a\": 1}".to_vec(),
                vec!["file"],
                "mappings[0].response.bodyFileName".into()
            ))
        );
        assert_eq!(
            bytes(&bodies[1]),
            Some((b"hi".to_vec(), vec!["base64"], "mappings[1].response.base64Body".into()))
        );
        assert_eq!(
            bytes(&bodies[2]),
            Some((b"plain".to_vec(), vec![], "mappings[2].response.body".into()))
        );
        assert_eq!(bodies[3], None, "a template is resolved per request");
        assert_eq!(bodies[4], None, "a file that is not there holds nothing");
        assert!(
            matches!(&bodies[5], Some(Body::Data { path, .. }) if path == "mappings[5].response.body.data")
        );
        assert!(matches!(
            &cassette.interactions[5].request.body,
            Some(Body::Bytes { bytes, stored, .. }) if bytes == &[0, 1] && stored == &["base64"]
        ));
        // The body file's place, for a scrub to write it back.
        assert_eq!(
            FORMAT
                .recorder()
                .sidecar(&root.join("mappings/nested/export.json"), "body-1.json"),
            root.join("__files/body-1.json")
        );
        // A name that leaves `__files/` is an error.
        let escape = r#"{"request": {"url": "/"}, "response": {"bodyFileName": "../secret"}, "uuid": "u"}"#;
        let root_node = from_json(escape.as_bytes()).unwrap();
        let e = read(&root_node, &root.join("mappings/x.json"), &Sidecars::new()).unwrap_err();
        assert_error(
            &e,
            escape,
            FORMAT,
            "response.bodyFileName names `../secret`, which is not a file under `__files/`",
            r#""../secret""#,
        );
    }

    #[test]
    fn reads_dotnet_mappings() {
        let text = r#"{
  "Guid": "5e50cd00-6d77-424a-8d8e-4980f0c1ea47",
  "Title": "Proxy Mapping for GET /app/rest",
  "Request": {
    "Path": { "Matchers": [ { "Name": "WildcardMatcher", "Pattern": "/app/rest" } ] },
    "Methods": [ "GET" ],
    "Params": [ { "Name": "access_token", "Matchers": [ { "Name": "ExactMatcher", "Pattern": "p4r4m" } ] } ],
    "Headers": [ { "Name": "Authorization", "Matchers": [ { "Name": "WildcardMatcher", "Pattern": "Bearer s3cr3t" } ] } ]
  },
  "Response": { "StatusCode": 200, "BodyAsBytes": "aGk=", "Headers": { "Set-Cookie": [ "a=1" ] } }
}"#;
        let cassette = wiremock(text);
        let stub = &cassette.interactions[0];
        assert_eq!(stub.request.method.text, "GET");
        assert_eq!(stub.request.url.text, "/app/rest?access_token=p4r4m");
        assert_eq!(
            headers(&stub.request.headers),
            [(
                "Authorization",
                "Bearer s3cr3t",
                "Request.Headers[0].Matchers[0].Pattern"
            )]
        );
        let response = stub.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert!(matches!(
            &response.body,
            Some(Body::Bytes { bytes, stored, .. }) if bytes == b"hi" && stored == &["base64"]
        ));
        assert_eq!(FORMAT.recorder().tool(text.as_bytes()), Some("WireMock.Net"));
        assert_eq!(FORMAT.recorder().tool(RECORDED.as_bytes()), Some("WireMock"));
    }

    #[test]
    fn its_own_marks_identify_it_and_the_head_shows_it() {
        let recorder = FORMAT.recorder();
        assert!(recorder.identified(RECORDED));
        assert!(!recorder.identified(r#"{"request": {"url": "/"}, "response": {}}"#));
        let head = |text: &str| {
            let mut head = Head {
                text,
                ..Head::default()
            };
            let root = from_json(text.as_bytes()).unwrap();
            for (key, value) in root.as_map().unwrap() {
                let key = key.as_str().unwrap().to_owned();
                for (child, _) in value.as_map().unwrap_or_default() {
                    head.nested
                        .push((key.clone(), child.as_str().unwrap().to_owned()));
                }
                head.top.push(key);
            }
            recorder.sniff(&head)
        };
        assert!(head(RECORDED));
        assert!(head(r#"{"mappings": [{"request": {"url": "/"}}]}"#));
        assert!(!head(r#"{"mappings": {"properties": {}}}"#));
        assert!(!head(r#"{"request": {"id": 1}, "response": {}}"#));
    }
}
