//! The generic reader: any JSON or YAML document whose records hold a request and a response,
//! read by field names and shapes rather than by a list of formats (issue 39).
//!
//! Beyond the recorders vcr knows by name, teams record with tools of every ecosystem, and
//! most write the same thing: records that pair a request (a method, a URL or a path,
//! headers, a body) with a response (a status, headers, a body). This reader finds such
//! records wherever they are (the document itself, a list of them, or a list a few levels
//! down: `Entries`, `imposters[].stubs`, `data.pairs`), and reads each by its keys, compared
//! without case, `_` or `-`:
//! - a record is a mapping with a request-like key (`request`, `req`, `httpRequest`) and a
//!   response-like key (`response`, `res`, `httpResponse`), or Azure's flat `RequestUri` +
//!   `StatusCode`, or mountebank's `predicates` + `responses[].is`;
//! - the URL is `url`, `uri`, `requestUri` or `href`, or `scheme`, `host` (`destination`)
//!   and `path` put together, with a `query` (a string, a mapping of names to values, or
//!   `{name, value}` pairs) added;
//! - headers are a mapping of names to a value, a list of values or a matcher object
//!   (`{"equalTo": ...}`, `{"matches": ...}`, `{"exactMatch": ...}`), or a list of
//!   `{name, value}` / `{name, values}` pairs or `[name, value]` lists;
//! - a body is text, data kept as it is (a JSON object the recorder parsed), base64 when a
//!   flag says so (`base64Body`, `body_base64`, `encodedBody: true`, `"base64": true`,
//!   `encoding: base64`, mountebank's `_mode: binary`), or a typed body (MockServer's
//!   `{type: JSON, json}`, `{type: STRING, string}`, `{type: BINARY, base64Bytes}`).
//!
//! Nothing here is ever a `parse` error: a document that only looked like records is linted
//! as text ([`Recorder::identified`] is false). A cassette read so is named `generic HTTP`,
//! or the recorder's own name where its markers are certain (`NAMED`): MockServer
//! (`httpRequest` beside `httpResponse`), mountebank (`imposters` whose stubs hold
//! `predicates` and `responses`) and Azure's test-proxy (`Entries` of `RequestUri` and
//! `StatusCode` beside `Variables`), each with its matching and its filters in its own words.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{Filtered, Format, Head, How, RecordMode, RecordRun, Recorder};
use super::walk::{At, base64_bytes};
use super::{
    Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars,
};

/// How deep records are looked for: the document, a list in it, a list in each of its
/// items (mountebank's `imposters[].stubs[]`, Hoverfly-like `data.pairs`).
const MAX_DEPTH: usize = 4;

/// A key without case, `_` or `-`: `RequestUri`, `request_uri` and `request-uri` are one.
fn norm(key: &str) -> String {
    key.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The first value of `at` (a mapping) whose key is one of `keys` ([`norm`]ed), not null.
fn find<'n>(at: &At<'n>, keys: &[&str]) -> Option<At<'n>> {
    let entries = at.node.as_map()?;
    for want in keys {
        for (key, value) in entries {
            if let Some(k) = key.as_scalar()
                && !value.is_null()
                && norm(&k.text) == *want
            {
                return at.get(&k.text);
            }
        }
    }
    None
}

/// [`find`] on a bare node.
fn has(node: &Node, keys: &[&str]) -> bool {
    node.as_map().is_some_and(|entries| {
        entries.iter().any(|(k, v)| {
            !v.is_null()
                && k.as_scalar()
                    .is_some_and(|k| keys.contains(&norm(&k.text).as_str()))
        })
    })
}

/// The value of `node`'s key `key` ([`norm`]ed).
fn get<'n>(node: &'n Node, keys: &[&str]) -> Option<&'n Node> {
    node.as_map()?.iter().find_map(|(k, v)| {
        (k.as_scalar().is_some_and(|k| keys.contains(&norm(&k.text).as_str())) && !v.is_null())
            .then_some(v)
    })
}

const REQUEST: &[&str] = &["request", "req", "httprequest"];
const RESPONSE: &[&str] = &["response", "res", "httpresponse"];
const METHOD: &[&str] = &["method", "requestmethod", "verb", "methods"];
const URL: &[&str] = &["url", "uri", "requesturi", "href", "fullurl"];
const PATH: &[&str] = &["path", "urlpath", "pathname"];
const HOST: &[&str] = &["host", "destination", "hostname", "authority"];
const QUERY: &[&str] = &[
    "query",
    "querystring",
    "querystringparameters",
    "queryparameters",
    "queryparams",
    "queryparam",
    "params",
];
const HEADERS: &[&str] = &[
    "headers",
    "requestheaders",
    "responseheaders",
    "header",
    "headerswithmatchers",
];
const STATUS: &[&str] = &["status", "statuscode", "code", "responsestatus"];
const BODY: &[&str] = &["body", "requestbody", "responsebody", "content", "data"];
const BASE64_BODY: &[&str] = &["base64body", "bodybase64", "base64bytes", "base64data"];
/// The keys of a matcher object that hold the value matched.
const MATCHED: &[&str] = &[
    "equalto",
    "exactmatch",
    "value",
    "values",
    "pattern",
    "string",
    "matches",
    "globmatch",
    "regexmatch",
    "contains",
    "equals",
    "json",
];

/// Whether `node` is a request-like object: a mapping with a method, a URL or a path.
fn is_request(node: &Node) -> bool {
    has(node, METHOD) || has(node, URL) || has(node, PATH)
}

/// Whether `node` is a response-like object: a mapping with a status, or a body with headers.
fn is_response(node: &Node) -> bool {
    has(node, STATUS) || (has(node, HEADERS) && (has(node, BODY) || has(node, BASE64_BODY)))
}

/// The shape of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `{request, response}` objects.
    Pair,
    /// Azure's flat entry: `RequestUri`, `RequestMethod`, ..., `StatusCode`, `Response*`.
    Flat,
    /// mountebank's stub: `predicates` and `responses[].is`.
    Stub,
}

/// The shape of `node`, if it is a record.
fn record_shape(node: &Node) -> Option<Shape> {
    node.as_map()?;
    if let (Some(request), Some(response)) = (get(node, REQUEST), get(node, RESPONSE))
        && is_request(request)
        && is_response(response)
    {
        return Some(Shape::Pair);
    }
    if has(node, &["requesturi"]) && has(node, &["statuscode"]) {
        return Some(Shape::Flat);
    }
    // A stub without predicates answers every request.
    let responses = node.get("responses").and_then(Node::as_seq);
    if node.get("predicates").is_none_or(|p| p.as_seq().is_some())
        && responses.is_some_and(|r| r.iter().any(|r| r.get("is").is_some()))
    {
        return Some(Shape::Stub);
    }
    None
}

/// The records of the document, each with its shape: the root itself, or the items of the
/// lists found within [`MAX_DEPTH`] levels that hold records.
fn records<'n>(root: &At<'n>) -> Vec<(At<'n>, Shape)> {
    let mut found = Vec::new();
    collect(root, 0, &mut found);
    found
}

fn collect<'n>(at: &At<'n>, depth: usize, found: &mut Vec<(At<'n>, Shape)>) {
    if let Some(shape) = record_shape(at.node) {
        found.push((at.clone(), shape));
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    if at.node.as_seq().is_some() {
        if let Ok(items) = at.items() {
            for item in items {
                collect(&item, depth + 1, found);
            }
        }
    } else if let Some(entries) = at.node.as_map() {
        for (key, value) in entries {
            if value.as_map().is_none() && value.as_seq().is_none() {
                continue;
            }
            if let Some(key) = key.as_scalar()
                && let Some(child) = at.get(&key.text)
            {
                collect(&child, depth + 1, found);
            }
        }
    }
}

/// The pairs of keys a record's request and response are written under, as they are
/// spelt: what a head of text must show for the document to be read for records.
const KEY_PAIRS: &[(&str, &str)] = &[
    ("request", "response"),
    ("Request", "Response"),
    ("req", "res"),
    ("httpRequest", "httpResponse"),
    ("RequestUri", "StatusCode"),
];

/// Whether `text` (a file's head) writes both keys of one of [`KEY_PAIRS`] as keys: quoted
/// and followed by `:` (JSON), or starting a line, after its indentation and a list's `- `,
/// and followed by `:` (YAML). A few searches of a head: as cheap as the other sniffs.
pub(super) fn shows_records(text: &str) -> bool {
    // Every request key holds `req` or `Req`: most files hold neither, and are done with in
    // two searches.
    let finder = |needle: &str| memchr::memmem::find(text.as_bytes(), needle.as_bytes());
    if finder("req").is_none() && finder("Req").is_none() {
        return false;
    }
    KEY_PAIRS
        .iter()
        .any(|(request, response)| writes_key(text, request) && writes_key(text, response))
}

/// Whether `text` writes `key` as a key (see [`shows_records`]).
fn writes_key(text: &str, key: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, key.as_bytes()).any(|at| {
        let before = &bytes[..at];
        let after = &bytes[at + key.len()..];
        let (quoted, after) = match (before.last(), after.first()) {
            (Some(b'"'), Some(b'"')) => (true, &after[1..]),
            (Some(b'\''), Some(b'\'')) => (true, &after[1..]),
            _ => (false, after),
        };
        let colon = after.trim_ascii_start().first() == Some(&b':');
        let starts_line = || {
            let line = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(before, |i| &before[i + 1..]);
            let line = if quoted { &line[..line.len() - 1] } else { line };
            line.iter().all(|&b| matches!(b, b' ' | b'-' | b'\t' | b'{' | b','))
        };
        colon && (quoted || starts_line())
    })
}

/// Whether the document holds records of requests and responses.
pub(super) fn matches(root: &Node) -> bool {
    !records(&At::root(root, FORMAT)).is_empty()
}

/// Reads the records of `root`, named as [`named`] says.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let format = named(root);
    let at = At::root(root, format);
    let mut interactions = Vec::new();
    for (record, shape) in records(&at) {
        match shape {
            Shape::Pair => {
                let request = find(&record, REQUEST).expect("a record has a request");
                let response = find(&record, RESPONSE).expect("a record has a response");
                interactions.push(Interaction {
                    path: record_path(&record),
                    request: request_of(&request)?,
                    response: Some(response_of(&response)?),
                    recorded_at: recorded_at(&record)?,
                });
            }
            Shape::Flat => interactions.push(Interaction {
                path: record_path(&record),
                request: request_of(&record)?,
                response: Some(flat_response(&record)?),
                recorded_at: None,
            }),
            Shape::Stub => interactions.extend(stub(&record)?),
        }
    }
    Ok(HttpCassette {
        format,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// A record's path (`record` for the document itself).
fn record_path(record: &At<'_>) -> String {
    if record.path.is_empty() {
        "record".to_owned()
    } else {
        record.path.clone()
    }
}

/// When the record was made, where it says so as text.
fn recorded_at(record: &At<'_>) -> Result<Option<Field>, ReadError> {
    match find(record, &["recordedat", "recorded", "startedatetime", "timestamp"]) {
        Some(at) if super::is_string(at.node) => Ok(Some(at.into_field()?)),
        _ => Ok(None),
    }
}

/// A field the record does not write: no place in the file.
fn absent(at: &At<'_>, what: &str, text: &str) -> Field {
    Field {
        text: text.to_owned(),
        at: None,
        path: if at.path.is_empty() {
            what.to_owned()
        } else {
            format!("{}.{what}", at.path)
        },
    }
}

/// The single value a field holds: a scalar, a matcher object's value, or a list's first.
fn single<'n>(at: &At<'n>) -> Option<At<'n>> {
    if at.node.as_scalar().is_some() {
        return Some(at.clone());
    }
    if at.node.as_seq().is_some() {
        return at.items().ok()?.into_iter().find_map(|item| single(&item));
    }
    find(at, MATCHED).and_then(|v| single(&v))
}

/// Every value a field holds: a scalar, each item of a list, a matcher object's value(s).
fn values<'n>(at: &At<'n>, depth: usize) -> Vec<At<'n>> {
    if at.node.as_scalar().is_some() {
        return vec![at.clone()];
    }
    if depth > 3 {
        return Vec::new();
    }
    if at.node.as_seq().is_some() {
        return at
            .items()
            .unwrap_or_default()
            .iter()
            .flat_map(|item| values(item, depth + 1))
            .collect();
    }
    match find(at, MATCHED) {
        Some(value) => values(&value, depth + 1),
        None => Vec::new(),
    }
}

/// Name-value pairs held as a mapping (`{name: value | [values] | matcher}`) or a list of
/// `{name, value(s)}` objects or `[name, value]` lists: each value with its name.
fn pairs<'n>(at: &At<'n>) -> Vec<(String, At<'n>)> {
    let mut out = Vec::new();
    if let Some(entries) = at.node.as_map() {
        for (key, _) in entries {
            let Some(name) = key.as_scalar().map(|k| k.text.clone()) else {
                continue;
            };
            if let Some(value) = at.get(&name) {
                for v in values(&value, 0) {
                    out.push((name.clone(), v));
                }
            }
        }
        return out;
    }
    for item in at.items().unwrap_or_default() {
        if let Some(name) = find(&item, &["name", "key"]).and_then(|n| single(&n)) {
            let name = name.node.as_scalar().map_or(String::new(), |s| s.text.clone());
            let value = find(&item, &["value", "values", "matchers", "matcher"]);
            for v in value.iter().flat_map(|v| values(v, 0)) {
                out.push((name.clone(), v));
            }
        } else if let Some([name, _]) = item.node.as_seq()
            && let Some(name) = name.as_scalar().map(|s| s.text.clone())
            && let Some(value) = item.items().ok().and_then(|i| i.into_iter().nth(1))
        {
            for v in values(&value, 0) {
                out.push((name.clone(), v));
            }
        }
    }
    out
}

/// Headers from name-value pairs.
fn headers_of(at: Option<At<'_>>) -> Result<Vec<Header>, ReadError> {
    let Some(at) = at else {
        return Ok(Vec::new());
    };
    if super::is_string(at.node) {
        return Ok(Vec::new());
    }
    pairs(&at)
        .into_iter()
        .map(|(name, value)| {
            Ok(Header {
                name,
                value: value.into_field()?,
            })
        })
        .collect()
}

/// A request-like object (or Azure's flat entry, whose keys say `Request`).
fn request_of(request: &At<'_>) -> Result<Request, ReadError> {
    let method = match find(request, METHOD).and_then(|m| single(&m)) {
        Some(method) => method.into_field()?,
        None => absent(request, "method", "ANY"),
    };
    let mut url = match find(request, URL).and_then(|u| single(&u)) {
        Some(url) => url.into_field()?,
        None => match find(request, PATH).and_then(|p| single(&p)) {
            Some(path) => {
                let mut field = path.into_field()?;
                let host = find(request, HOST).and_then(|h| single(&h));
                if let Some(host) = host.and_then(|h| h.field().ok()) {
                    let scheme = find(request, &["scheme", "protocol"])
                        .and_then(|s| single(&s))
                        .and_then(|s| s.field().ok())
                        .map_or_else(|| "https".to_owned(), |s| s.text);
                    field.text = format!("{scheme}://{}{}", host.text, field.text);
                }
                field
            }
            None => absent(request, "url", "/"),
        },
    };
    if let Some(query) = find(request, QUERY) {
        let added: Vec<String> = if super::is_string(query.node) {
            let text = query.field()?.text;
            if text.is_empty() { Vec::new() } else { vec![text] }
        } else {
            let mut added = Vec::new();
            for (name, value) in pairs(&query) {
                added.push(format!("{name}={}", value.field()?.text));
            }
            added
        };
        if !added.is_empty() && !url.text.contains('?') {
            url.text = format!("{}?{}", url.text, added.join("&"));
        }
    }
    let headers = headers_of(find(request, &["headers", "requestheaders", "header", "headerswithmatchers"]))?;
    let body = body_of(request, &["body", "requestbody"], &["base64body", "bodybase64"])?;
    Ok(Request {
        method,
        url,
        headers,
        body,
    })
}

/// A response-like object.
fn response_of(response: &At<'_>) -> Result<Response, ReadError> {
    Ok(Response {
        status: status_of(find(response, STATUS))?,
        headers: headers_of(find(response, &["headers", "responseheaders", "header"]))?,
        body: body_of(response, &["body", "responsebody", "content"], BASE64_BODY)?,
    })
}

/// Azure's flat entry: its `Response*` keys and `StatusCode`.
fn flat_response(entry: &At<'_>) -> Result<Response, ReadError> {
    Ok(Response {
        status: status_of(find(entry, &["statuscode"]))?,
        headers: headers_of(find(entry, &["responseheaders"]))?,
        body: body_of(entry, &["responsebody"], &[])?,
    })
}

/// A status: a number, `200 OK`, or `{code}`; `None` for anything else (nothing to lint).
fn status_of(at: Option<At<'_>>) -> Result<Option<u16>, ReadError> {
    let Some(at) = at else {
        return Ok(None);
    };
    let at = match find(&at, &["code", "statuscode"]) {
        Some(code) => code,
        None => at,
    };
    if at.node.as_scalar().is_none() {
        return Ok(None);
    }
    Ok(at.status().ok())
}

/// The body under one of `keys` of `holder`, or base64 under one of `base64_keys`.
fn body_of(holder: &At<'_>, keys: &[&str], base64_keys: &[&str]) -> Result<Option<Body>, ReadError> {
    if let Some(b64) = find(holder, base64_keys)
        && b64.node.as_scalar().is_some()
    {
        return base64_or_text(&b64);
    }
    let Some(body) = find(holder, keys) else {
        return Ok(None);
    };
    let flagged = flagged_base64(holder);
    body_value(&body, flagged)
}

/// Whether the object holding a body says the body is base64.
fn flagged_base64(holder: &At<'_>) -> bool {
    let flag = |keys: &[&str]| find(holder, keys).is_some_and(|f| super::is_true(f.node));
    let says = |keys: &[&str], words: &[&str]| {
        find(holder, keys)
            .and_then(|f| f.node.as_scalar().map(|s| s.text.to_ascii_lowercase()))
            .is_some_and(|v| words.contains(&v.as_str()))
    };
    flag(&["encodedbody", "base64", "isbase64", "base64encoded", "isbase64encoded"])
        || says(&["encoding", "bodyencoding", "mode"], &["base64", "binary"])
}

/// A body: text (base64 when `base64`), a typed body, or data kept as it is.
fn body_value(body: &At<'_>, base64: bool) -> Result<Option<Body>, ReadError> {
    if body.node.as_scalar().is_some() {
        if !super::is_string(body.node) {
            return Ok(Some(body.body_data()));
        }
        return if base64 {
            base64_or_text(body)
        } else {
            body.body_bytes()
        };
    }
    if body.node.as_map().is_some() {
        // MockServer's typed bodies, and a body object with its own encoding flag.
        let kind = find(body, &["type"])
            .and_then(|t| t.node.as_scalar().map(|s| s.text.to_ascii_uppercase()));
        match kind.as_deref() {
            Some("JSON") => {
                if let Some(json) = find(body, &["json"]) {
                    return body_value(&json, false);
                }
            }
            Some("STRING" | "XML" | "REGEX" | "JSON_SCHEMA") => {
                if let Some(text) = find(body, &["string", "xml", "regex", "jsonschema"]) {
                    return body_value(&text, false);
                }
            }
            Some("BINARY") => {
                if let Some(bytes) = find(body, &["base64bytes", "rawbytes"]) {
                    return base64_or_text(&bytes);
                }
            }
            _ => {}
        }
        let flagged = flagged_base64(body);
        if let Some(inner) = find(body, &["string", "text", "data", "base64string"])
            && inner.node.as_scalar().is_some()
        {
            let base64 = flagged || find(body, &["base64string"]).is_some();
            return body_value(&inner, base64);
        }
    }
    Ok(Some(body.body_data()))
}

/// A scalar read as base64 (stored `["base64"]`), or as text when it is not base64.
fn base64_or_text(at: &At<'_>) -> Result<Option<Body>, ReadError> {
    let text = at.node.as_scalar().map_or("", |s| s.text.as_str());
    if text.is_empty() {
        return Ok(None);
    }
    match base64_bytes(text) {
        Some(_) => at.body_base64(),
        None => at.body_bytes(),
    }
}

/// A mountebank stub: its predicates merged into one request (each predicate names one or
/// more of `method`, `path`, `query`, `headers`, `body`), one interaction per `is` response.
fn stub(record: &At<'_>) -> Result<Vec<Interaction>, ReadError> {
    let mut method = None;
    let mut path = None;
    let mut query = Vec::new();
    let mut headers = Vec::new();
    let mut body = None;
    let predicates = match record.get("predicates") {
        Some(predicates) => predicates.items()?,
        None => Vec::new(),
    };
    for predicate in predicates {
        for op in ["equals", "deepEquals", "contains", "startsWith", "endsWith", "matches"] {
            let Some(fields) = predicate.get(op) else {
                continue;
            };
            if method.is_none() {
                method = fields.get("method").map(|m| m.into_field()).transpose()?;
            }
            if path.is_none() {
                path = fields.get("path").map(|p| p.into_field()).transpose()?;
            }
            if let Some(q) = fields.get("query") {
                for (name, value) in pairs(&q) {
                    query.push(format!("{name}={}", value.field()?.text));
                }
            }
            headers.extend(headers_of(fields.get("headers"))?);
            if body.is_none()
                && let Some(b) = fields.get("body")
            {
                body = body_value(&b, false)?;
            }
        }
    }
    let method = method.unwrap_or_else(|| absent(record, "predicates.method", "ANY"));
    let mut url = path.unwrap_or_else(|| absent(record, "predicates.path", "/"));
    if !query.is_empty() {
        url.text = format!("{}?{}", url.text, query.join("&"));
    }
    let request = Request {
        method,
        url,
        headers,
        body,
    };
    let mut out = Vec::new();
    for response in record.need("responses")?.items()? {
        let Some(is) = response.get("is") else {
            continue;
        };
        let binary = is
            .get("_mode")
            .and_then(|m| m.node.as_scalar().map(|s| s.text == "binary"))
            .unwrap_or(false);
        let body = match is.get("body") {
            Some(b) => body_value(&b, binary)?,
            None => None,
        };
        out.push(Interaction {
            path: response.path.clone(),
            request: request.clone(),
            response: Some(Response {
                status: status_of(is.get("statusCode"))?,
                headers: headers_of(is.get("headers"))?,
                body,
            }),
            recorded_at: None,
        });
    }
    Ok(out)
}

/// The recorders read through this reader, named where their markers are certain.
pub struct Generic {
    name: &'static str,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Generic,
    MockServer,
    Mountebank,
    Azure,
}

static GENERIC: Generic = Generic {
    name: "generic HTTP",
    kind: Kind::Generic,
};
static MOCKSERVER: Generic = Generic {
    name: "MockServer",
    kind: Kind::MockServer,
};
static MOUNTEBANK: Generic = Generic {
    name: "mountebank",
    kind: Kind::Mountebank,
};
static AZURE: Generic = Generic {
    name: "Azure test-proxy",
    kind: Kind::Azure,
};

/// The generic reader's [`Format`]: a cassette of no recorder's certain markers.
pub const FORMAT: Format = Format::new(&GENERIC);

/// The recorders this reader names by their markers, each a [`Format`] of its own.
pub const NAMED: [Format; 3] = [
    Format::new(&MOCKSERVER),
    Format::new(&MOUNTEBANK),
    Format::new(&AZURE),
];

/// The name of the document's recorder, where its markers are certain: MockServer's
/// `httpRequest` beside `httpResponse` in every record, mountebank's `imposters` whose items
/// hold `protocol` and `stubs`, Azure's `Entries` of `RequestUri` beside `Variables`.
fn named(root: &Node) -> Format {
    let mockserver = |n: &Node| n.get("httpRequest").is_some() && n.get("httpResponse").is_some();
    let is_mockserver = mockserver(root)
        || root
            .as_seq()
            .is_some_and(|items| !items.is_empty() && items.iter().all(mockserver));
    if is_mockserver {
        return NAMED[0];
    }
    let imposter = |n: &Node| n.get("protocol").is_some() && n.get("stubs").is_some();
    if root
        .get("imposters")
        .and_then(Node::as_seq)
        .is_some_and(|items| !items.is_empty() && items.iter().all(imposter))
        || imposter(root)
    {
        return NAMED[1];
    }
    if root.get("Variables").is_some()
        && root
            .get("Entries")
            .and_then(Node::as_seq)
            .is_some_and(|e| e.iter().all(|e| e.get("RequestUri").is_some()))
    {
        return NAMED[2];
    }
    FORMAT
}

impl Recorder for Generic {
    fn name(&self) -> &'static str {
        self.name
    }

    fn known_as(&self) -> &'static str {
        match self.kind {
            Kind::Generic => {
                "any JSON or YAML records of requests and responses (MockServer, mountebank and Azure's test-proxy by name)"
            }
            _ => self.name,
        }
    }

    /// A request-like and a response-like key anywhere in the head (`shows_records`),
    /// mountebank's `imposters`.
    fn sniff(&self, head: &Head<'_>) -> bool {
        head.has("imposters") || shows_records(head.text)
    }

    fn matches(&self, root: &Node) -> bool {
        self.kind == Kind::Generic && matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// Never: a document this reader does not read is linted as text.
    fn identified(&self, _: &str) -> bool {
        false
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        match self.kind {
            // What the file states is what is matched; a proxy-recorded expectation holds
            // method, path, query, headers and body.
            Kind::MockServer | Kind::Mountebank => &["method", "url", "headers", "body"],
            // `RecordMatcher(compareBodies: true)`: method, URI and body, and the headers
            // less those it ignores, which are where a run's ids and times are
            // (`x-ms-client-request-id`, `x-ms-date`, `traceparent`, ...): judged as unmatched.
            Kind::Azure => &["method", "uri", "body"],
            // An unknown recorder: what nearly every recorder matches by, and no more (a body
            // matcher is each recorder's own choice, and UUIDs and times count only where
            // requests are matched).
            Kind::Generic => &["method", "url"],
        }
    }

    /// Azure's .NET recorder before the test-proxy (`Microsoft.Azure.Test.HttpRecorder`,
    /// whose records hold `EncodedRequestUri` beside `RequestUri`) matches a request by its
    /// method and its URI (`SimpleRecordMatcher`, `PermissiveRecordMatcher`: the method and
    /// the encoded path and query), never by its body; the test-proxy compares bodies.
    fn match_on_in(&self, head: &[u8]) -> &'static [&'static str] {
        let head = &head[..head.len().min(1 << 16)];
        if self.kind == Kind::Azure
            && memchr::memmem::find(head, b"\"EncodedRequestUri\"").is_some()
        {
            &["method", "uri"]
        } else {
            self.default_match_on()
        }
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        match (self.kind, what) {
            (Kind::Generic, _) => None,
            (Kind::Azure, Filtered::Query { name, .. }) => Some(format!(
                "a test-proxy sanitizer for `{name}` (`add_uri_regex_sanitizer`) or a matcher that ignores it (`set_custom_default_matcher(ignored_query_parameters=\"{name}\")`)"
            )),
            (Kind::Azure, Filtered::Header { name }) => Some(format!(
                "a test-proxy sanitizer (`add_header_regex_sanitizer(key=\"{name}\")`) and the header among the matcher's `excluded_headers`"
            )),
            (Kind::Azure, Filtered::Body) => Some(
                "a test-proxy body sanitizer (`add_body_key_sanitizer`) and a matcher with `compare_bodies=False`".into(),
            ),
            (Kind::MockServer, Filtered::Query { name, .. }) => Some(format!(
                "the expectation's `queryStringParameters` matching `{name}` loosely (a regex or `optional`), or the test sending the placeholder"
            )),
            (Kind::MockServer, Filtered::Header { name }) => Some(format!(
                "the expectation's `{name}` header removed from `httpRequest` (or matched by a regex), or the test sending the placeholder"
            )),
            (Kind::MockServer, Filtered::Body) => Some(
                "the expectation's body matched `ONLY_MATCHING_FIELDS` or by a JSON schema, or the test sending the placeholders".into(),
            ),
            (Kind::Mountebank, Filtered::Query { name, .. }) => Some(format!(
                "the proxy's `predicateGenerators` leaving out the `{name}` query parameter, or the test sending the placeholder"
            )),
            (Kind::Mountebank, Filtered::Header { name }) => Some(format!(
                "the proxy's `predicateGenerators` leaving out the `{name}` header, or the test sending the placeholder"
            )),
            (Kind::Mountebank, Filtered::Body) => Some(
                "the proxy's `predicateGenerators` leaving out the body, or the test sending the placeholders".into(),
            ),
        }
    }

    /// None for records of no known recorder: `vcr record` cannot tell how it records.
    fn tool(&self, _: &[u8]) -> Option<&'static str> {
        (self.kind != Kind::Generic).then_some(self.name)
    }

    fn tools(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::Generic => &[],
            Kind::MockServer => &["MockServer"],
            Kind::Mountebank => &["mountebank"],
            Kind::Azure => &["Azure test-proxy"],
        }
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        let how = match self.kind {
            Kind::Azure => {
                "the SDK's test mode: `AZURE_TEST_MODE=Record` (.NET, Java), `TEST_MODE=record` (JS), `AZURE_TEST_RUN_LIVE=true` (Python), `AZURE_RECORD_MODE=record` (Go)"
            }
            Kind::MockServer => {
                "MockServer records what it proxies: forward through it, then retrieve `RECORDED_EXPECTATIONS` (or persist them with `mockserver.persistRecordedExpectations`)"
            }
            Kind::Mountebank => {
                "mountebank records through a proxy stub (`proxyOnce` or `proxyAlways`), then `mb save --removeProxies`"
            }
            Kind::Generic => "the recorder's own record mode",
        };
        RecordMode::only(tool, How::Cannot(how))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::testing::headers;
    use vcr_doc::{from_json, yaml};

    #[track_caller]
    fn generic(text: &str) -> HttpCassette {
        let root = if text.trim_start().starts_with(['{', '[']) {
            from_json(text.as_bytes()).unwrap()
        } else {
            yaml::parse(text).unwrap()
        };
        assert!(matches(&root), "no records: {text}");
        read(&root).unwrap()
    }

    #[test]
    fn records_are_found_by_shape_and_others_are_not() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(matches(&from_json(text.as_bytes()).unwrap()), expected, "{text}");
        }
        case(r#"{"request":{"method":"GET","url":"/"},"response":{"status":200}}"#, true);
        case(r#"[{"req":{"path":"/"},"res":{"statusCode":200}}]"#, true);
        case(r#"{"a":{"b":[{"httpRequest":{"path":"/"},"httpResponse":{"statusCode":1}}]}}"#, true);
        case(r#"{"Entries":[{"RequestUri":"https://h/","StatusCode":200}],"Variables":{}}"#, true);
        case(
            r#"{"imposters":[{"protocol":"http","stubs":[{"predicates":[],"responses":[{"is":{}}]}]}]}"#,
            true,
        );
        // A stub without predicates answers every request; one that only proxies holds no
        // recording.
        case(
            r#"{"imposters":[{"protocol":"http","stubs":[{"responses":[{"is":{"statusCode":200}}]}]}]}"#,
            true,
        );
        case(
            r#"{"imposters":[{"protocol":"http","stubs":[{"responses":[{"proxy":{"to":"http://h"}}]}]}]}"#,
            false,
        );
        // A request without a response, a response without a status, and other documents.
        case(r#"{"request":{"method":"GET"}}"#, false);
        case(r#"{"request":{"method":"GET"},"response":{"text":"x"}}"#, false);
        case(r#"{"name":"pkg","dependencies":{}}"#, false);
        case(r#"{"a":{"b":{"c":{"d":{"e":{"request":{"url":"/"},"response":{"status":1}}}}}}}"#, false);
    }

    #[test]
    fn reads_headers_in_every_shape_and_bodies_by_their_flags() {
        let text = r#"[
  {"request": {"method": "POST", "url": "https://h.test/a?x=1",
               "headers": {"Authorization": {"equalTo": "Bearer one"}, "Accept": ["a", "b"], "X-N": 3},
               "body": {"token": "t"}},
   "response": {"status": 201, "headers": [{"name": "Set-Cookie", "value": "s=1"}, ["X-Pair", "p"]],
                "body": "aGk=", "encodedBody": true}},
  {"request": {"method": "GET", "path": "/b", "host": "h.test", "scheme": "http",
               "query": {"access_token": ["q"]}, "headers": [{"name": "Cookie", "values": ["c=1"]}]},
   "response": {"status": {"code": 200}, "body": {"type": "BINARY", "base64Bytes": "AAE="}}}
]"#;
        let cassette = generic(text);
        assert_eq!(cassette.format, FORMAT);
        let [first, second] = &cassette.interactions[..] else {
            panic!("{cassette:?}")
        };
        assert_eq!(first.path, "[0]");
        assert_eq!(
            headers(&first.request.headers),
            [
                ("Authorization", "Bearer one", "[0].request.headers.Authorization.equalTo"),
                ("Accept", "a", "[0].request.headers.Accept[0]"),
                ("Accept", "b", "[0].request.headers.Accept[1]"),
                ("X-N", "3", "[0].request.headers.X-N"),
            ]
        );
        assert!(matches!(&first.request.body, Some(Body::Data { path, .. }) if path == "[0].request.body"));
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        assert_eq!(
            headers(&response.headers),
            [
                ("Set-Cookie", "s=1", "[0].response.headers[0].value"),
                ("X-Pair", "p", "[0].response.headers[1][1]"),
            ]
        );
        assert!(matches!(&response.body, Some(Body::Bytes { bytes, stored, .. }) if bytes == b"hi" && stored == &["base64"]));
        assert_eq!(second.request.url.text, "http://h.test/b?access_token=q");
        assert_eq!(second.request.url.path, "[1].request.path");
        assert_eq!(headers(&second.request.headers)[0].1, "c=1");
        let response = second.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert!(matches!(&response.body, Some(Body::Bytes { bytes, .. }) if bytes == &[0, 1]));
    }

    #[test]
    fn names_the_recorders_whose_markers_are_certain() {
        let mockserver = generic(
            r#"{"httpRequest":{"method":"GET","path":"/v1/models","headers":{"Authorization":["Bearer x"]}},"httpResponse":{"statusCode":200,"body":{"type":"JSON","json":{"a":1},"rawBytes":"eyJhIjoxfQ=="}},"times":{"unlimited":true}}"#,
        );
        assert_eq!(mockserver.format.name(), "MockServer");
        assert!(matches!(
            &mockserver.interactions[0].response.as_ref().unwrap().body,
            Some(Body::Data { path, .. }) if path == "httpResponse.body.json"
        ));
        let azure = generic(
            r#"{"Entries":[{"RequestUri":"https://h/a","RequestMethod":"GET","RequestHeaders":{"Authorization":"Sanitized"},"RequestBody":null,"StatusCode":200,"ResponseHeaders":{},"ResponseBody":{"value":1}}],"Variables":{}}"#,
        );
        assert_eq!(azure.format.name(), "Azure test-proxy");
        // The test-proxy compares bodies; the .NET recorder before it (`EncodedRequestUri`)
        // matches the method and the URI only.
        let proxy = br#"{"Entries":[{"RequestUri":"https://h/a","RequestMethod":"PUT"}],"Variables":{}}"#;
        let old = br#"{"Entries":[{"RequestUri":"https://h/a","EncodedRequestUri":"aA==","RequestMethod":"PUT"}],"Names":{},"Variables":{}}"#;
        assert_eq!(azure.format.match_on_in(proxy), ["method", "uri", "body"]);
        assert_eq!(azure.format.match_on_in(old), ["method", "uri"]);
        let entry = &azure.interactions[0];
        assert_eq!(entry.path, "Entries[0]");
        assert_eq!(entry.request.method.text, "GET");
        assert_eq!(entry.request.url.text, "https://h/a");
        assert_eq!(entry.response.as_ref().unwrap().status, Some(200));
        let mountebank = generic(
            r#"{"imposters":[{"protocol":"http","port":8000,"stubs":[{"predicates":[{"deepEquals":{"path":"/t"}},{"deepEquals":{"query":{"access_token":"q"}}},{"deepEquals":{"method":"GET"}},{"deepEquals":{"headers":{"Authorization":"Bearer z"}}}],"responses":[{"is":{"statusCode":200,"body":{"a":1},"_mode":"text"}},{"is":{"statusCode":201,"body":"aGk=","_mode":"binary"}}]}]}]}"#,
        );
        assert_eq!(mountebank.format.name(), "mountebank");
        let [one, two] = &mountebank.interactions[..] else {
            panic!("{mountebank:?}")
        };
        assert_eq!(one.request.url.text, "/t?access_token=q");
        assert_eq!(one.request.method.text, "GET");
        assert_eq!(headers(&one.request.headers)[0].1, "Bearer z");
        assert_eq!(two.path, "imposters[0].stubs[0].responses[1]");
        assert!(matches!(
            &two.response.as_ref().unwrap().body,
            Some(Body::Bytes { bytes, .. }) if bytes == b"hi"
        ));
    }

    #[test]
    fn reads_yaml_records_too() {
        let cassette = generic("- request:\n    method: GET\n    uri: /x\n  response:\n    status: 404\n    body: nope\n");
        assert_eq!(cassette.interactions[0].request.url.text, "/x");
    }

    #[test]
    fn a_head_shows_records_by_their_keys() {
        for text in [
            "{\"request\": {\"method\": \"GET\"}, \"response\": {",
            "calls:\n- req:\n    verb: POST\n  res:\n    code: 200\n",
            "[{\"httpRequest\" : {}, \"httpResponse\" : {}}]",
            "{\"Entries\": [{\"RequestUri\": \"x\", \"StatusCode\": 200",
        ] {
            assert!(shows_records(text), "{text}");
        }
        for text in [
            "{\"requestBody\": {}, \"responses\": {}}",
            "the request and the response: both words in prose",
            "{\"description\": \"request: response:\"}",
            "",
        ] {
            assert!(!shows_records(text), "{text}");
        }
    }

    #[test]
    fn is_never_identified() {
        assert!(!FORMAT.recorder().identified("{\"request\": {}, \"response\": {}}"));
    }
}
