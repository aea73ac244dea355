//! php-vcr cassettes, YAML (its default storage) or JSON (`setStorage('json')`).
//!
//! A top-level list of records `{request, response, index}` (`Cassette::record`):
//! - `request` (`Request::toArray`, empty keys dropped): `method`, `url` (query included),
//!   `headers` (a map; `Host` added by php-vcr), `body` (the raw string), `post_fields` (a
//!   map, read as the body when there is no `body`), `post_files`;
//! - `response` (`Response::toArray`): `status: {code, message, http_version?}` (`code` an
//!   integer, or a string in older files), `headers` (a value or a list of values per name),
//!   `body`, and `curl_info`, curl's whole `getinfo()` (not read: it is scanned as text);
//! - a body is base64 exactly when php-vcr's own rule says so: the `Content-Type` holds
//!   `application/x-gzip` or `Content-Transfer-Encoding` is `binary`; any other body is the
//!   raw string (there is no flag);
//! - php-vcr's encrypted storage writes field values as `vcr:enc:v1:<base64>`: such a value
//!   is ciphertext, not read as a header or body (it stays in what the leak check scans as
//!   text).
//!
//! The YAML storage (Symfony's `Dumper::dump([$recording], 4)`, appended) opens each record
//! with a `-` alone on its line, four-space indents, `{  }` for an empty map and flow lists
//! for multi-valued headers. The cassette file is named exactly as the test names it, with no
//! extension unless the name has one: discovery sniffs such files under php-vcr's default
//! `tests/fixtures/` (`super::sniff::EXTENSIONLESS_FOLDERS`), and under the folder a
//! project's PHPUnit bootstrap names (`VCR::configure()->setCassettePath(...)`, read by
//! `cassette_paths`).

use std::path::Path;

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::At;
use super::{Body, Header, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// The prefix of a value php-vcr's encrypted storage wrote.
const ENCRYPTED: &str = "vcr:enc:v1:";

/// Whether the document is a php-vcr cassette: a list whose first record has a `request`
/// with a `url` and a `response` whose `status` is a mapping (`{code, message}`).
pub(super) fn matches(root: &Node) -> bool {
    root.as_seq()
        .and_then(<[Node]>::first)
        .is_some_and(|first| {
            let request = first.get("request");
            let status = first.get("response").and_then(|r| r.get("status"));
            request.is_some_and(|r| r.get("url").is_some() && r.get("uri").is_none())
                && status.is_some_and(|s| s.as_map().is_some())
        })
}

/// Reads a php-vcr cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    super::walk::root_cassette(root, FORMAT, interaction)
}

fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("request")?;
    let response = item.need("response")?;
    let request_headers = headers(&request)?;
    let body = match request.get("body") {
        Some(body) => body_of(&body, &request_headers)?,
        None => request.get("post_fields").map(|fields| fields.body_data()),
    };
    let response_headers = headers(&response)?;
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need("method")?.into_field()?,
            url: request.need("url")?.into_field()?,
            headers: request_headers,
            body,
        },
        response: Some(Response {
            status: response
                .get("status")
                .map(|s| s.status_code())
                .transpose()?,
            body: match response.get("body") {
                Some(body) => body_of(&body, &response_headers)?,
                None => None,
            },
            headers: response_headers,
        }),
        recorded_at: None,
    })
}

/// A message's headers, but those the encrypted storage wrote.
fn headers(message: &At<'_>) -> Result<Vec<Header>, ReadError> {
    let mut headers = message.headers_in("headers")?;
    headers.retain(|h| !h.value.text.starts_with(ENCRYPTED));
    Ok(headers)
}

/// A body as `Response::fromArray` reads it: base64 when the headers say the body is gzip or
/// binary, else the string itself; nothing for an encrypted one.
fn body_of(body: &At<'_>, headers: &[Header]) -> Result<Option<Body>, ReadError> {
    if body
        .node
        .as_str()
        .is_some_and(|text| text.starts_with(ENCRYPTED))
    {
        return Ok(None);
    }
    let says = |name: &str, what: &str| {
        headers.iter().any(|h| {
            h.name.eq_ignore_ascii_case(name) && h.value.text.to_ascii_lowercase().contains(what)
        })
    };
    if says("content-type", "application/x-gzip") || says("content-transfer-encoding", "binary") {
        body.body_base64()
    } else {
        body.body_bytes()
    }
}

/// php-vcr.
pub struct PhpVcr;

/// php-vcr's [`Format`].
pub const FORMAT: Format = Format::new(&PhpVcr);

impl Recorder for PhpVcr {
    fn name(&self) -> &'static str {
        "php-vcr"
    }

    /// A list whose first record's `request` has a `url` and whose `response` a `status`
    /// or curl's `curl_info` (a `-` alone on a line opens it in YAML).
    fn sniff(&self, head: &Head<'_>) -> bool {
        head.list
            && head.has_under("request", "url")
            && (head.has_under("response", "status") || head.has_under("response", "curl_info"))
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `curl_info`, curl's `getinfo()` that php-vcr alone records.
    fn identified(&self, text: &str) -> bool {
        has(text, "curl_info:") || has(text, "\"curl_info\"")
    }

    /// `Configuration::getRequestMatchers` with none enabled: all of them.
    fn default_match_on(&self) -> &'static [&'static str] {
        &[
            "method",
            "url",
            "host",
            "headers",
            "body",
            "post_fields",
            "query_string",
            "soap_operation",
        ]
    }

    fn dialect(&self) -> Dialect {
        Dialect::Symfony
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        // `VCR_BEFORE_PLAYBACK` is dispatched with the live request before it is matched.
        let listener = "a php-vcr listener on `VCREvents::VCR_BEFORE_PLAYBACK`";
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "{listener} that sets `{name}` to \"{placeholder}\" in the request's URL (`$event->getRequest()->setUrl(...)`)"
            ),
            Filtered::Header { name } => format!(
                "{listener} that sets the `{name}` header as the cassette holds it (`$event->getRequest()->setHeader('{name}', ...)`), or `VCR::configure()->enableRequestMatchers([...])` without `headers`"
            ),
            Filtered::Body => format!(
                "{listener} that writes the same placeholders in the request body (`setBody`, `setPostFields`), or `VCR::configure()->enableRequestMatchers([...])` without `body` and `post_fields`"
            ),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["php-vcr"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "`VCR::configure()->setMode(...)` in the test bootstrap: `new_episodes`, the default, records what a cassette does not hold",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        // `Videorecorder::handleRequest`'s `LogicException`, then `Cassette: <name>`.
        &[MissRule {
            headline: r"The request does not match a previously recorded request and the 'mode' is set to '",
            names: MissNames::Below {
                name: r"^\s*Cassette: (.+?)\s*$",
                list: None,
                none: None,
                within: 10,
            },
        }]
    }
}

/// The folders (relative to the project root, `/`-separated) that the PHP source `php`, the
/// file at `file_dir` (relative to the root, `""` for the root), sets as php-vcr's cassette
/// path: each `setCassettePath(...)` whose argument is a string literal (relative to the
/// folder PHPUnit runs in, the root), `__DIR__ . '/x'` (relative to the file's folder) or
/// `dirname(__DIR__) . '/x'`. Anything else (a variable, a constant, a path that leaves the
/// root or is absolute) is no folder: a guess would make discovery sniff files that no
/// recorder wrote.
pub fn cassette_paths(php: &str, file_dir: &str) -> Vec<String> {
    const CALL: &str = "setCassettePath(";
    let mut out = Vec::new();
    let mut rest = php;
    while let Some(at) = rest.find(CALL) {
        rest = &rest[at + CALL.len()..];
        let arg = rest.split(')').next().unwrap_or_default();
        // `dirname(__DIR__)` holds a `)`: take the argument up to the next one after it.
        let arg = if arg.trim_start().starts_with("dirname(__DIR__") {
            rest.splitn(3, ')').take(2).collect::<Vec<_>>().join(")")
        } else {
            arg.to_owned()
        };
        if let Some(folder) = cassette_path(&arg, file_dir)
            && !out.contains(&folder)
        {
            out.push(folder);
        }
    }
    out
}

/// One `setCassettePath` argument, as [`cassette_paths`] reads it.
fn cassette_path(arg: &str, file_dir: &str) -> Option<String> {
    let arg = arg.trim();
    let literal = |text: &str| {
        let text = text.trim();
        let quote = text.chars().next().filter(|q| *q == '\'' || *q == '"')?;
        let inner = text.strip_prefix(quote)?.strip_suffix(quote)?;
        (!inner.contains(quote) && !inner.contains('$') && !inner.contains('\\'))
            .then(|| inner.to_owned())
    };
    let (base, tail) = if let Some(tail) = arg.strip_prefix("__DIR__") {
        (file_dir.to_owned(), tail)
    } else if let Some(tail) = arg.strip_prefix("dirname(__DIR__)") {
        // The root's parent is outside the project.
        let parent = match file_dir.rsplit_once('/') {
            Some((parent, _)) => parent,
            None if file_dir.is_empty() => return None,
            None => "",
        };
        (parent.to_owned(), tail)
    } else {
        let path = literal(arg)?;
        if path.starts_with('/') {
            return None;
        }
        return normalized(&path);
    };
    let tail = literal(tail.trim_start().strip_prefix('.')?)?;
    normalized(&format!("{base}/{tail}"))
}

/// `path` with `.` and empty parts dropped and `..` applied; `None` when it leaves the root
/// or is the root itself.
fn normalized(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::{cassette_paths, matches, read};
    use crate::http::testing::{bytes, headers};
    use crate::http::{Body, HttpCassette};
    use vcr_doc::{from_json, yaml};

    #[track_caller]
    fn read_text(text: &str) -> HttpCassette {
        let root = if text.trim_start().starts_with('[') {
            from_json(text.as_bytes()).unwrap()
        } else {
            yaml::parse(text).unwrap()
        };
        assert!(matches(&root), "not php-vcr: {text}");
        read(&root).unwrap()
    }

    /// As php-vcr's YAML storage appends a record (Symfony's dumper: a leading empty line,
    /// `-` alone, four-space indents, flow lists, `{  }`).
    const YAML: &str = "
-
    request:
        method: POST
        url: 'https://api.example.com/v2/shipments?api_key=k7Qw2Rt9Lm4Zx8Vb'
        headers:
            Host: api.example.com
            Authorization: 'Basic dXNlcjpwYXNz'
            Content-Type: application/json
        body: '{\"password\":\"p4ss-w0rd-q7\"}'
    response:
        status:
            code: 201
            message: Created
        headers:
            x-proxied: ['intlb3nuq c0f5e722d1', 'extlb2nuq b6e1b5034c']
            Content-Type: 'application/json; charset=utf-8'
        body: '{\"id\":\"shp_1\"}'
        curl_info:
            url: 'https://api.example.com/v2/shipments?api_key=k7Qw2Rt9Lm4Zx8Vb'
            http_code: 201
            primary_ip: 203.0.113.9
    index: 0
-
    request:
        method: GET
        url: 'https://api.example.com/v2/files/1'
        headers:
            Host: api.example.com
    response:
        status:
            code: '200'
            message: OK
        headers:
            Content-Type: application/x-gzip
        body: H4sIAAAAAAAAA6tWyk0tLk5MT1WyUlAqLU4tUqoFAHQ0pMQTAAAA
        curl_info: {  }
    index: 0
";

    #[test]
    fn reads_the_yaml_storage() {
        let cassette = read_text(YAML);
        let [first, second] = &cassette.interactions[..] else {
            panic!("two records expected");
        };
        assert_eq!(first.path, "[0]");
        assert_eq!(first.request.method.text, "POST");
        assert_eq!(first.request.url.path, "[0].request.url");
        assert_eq!(
            headers(&first.request.headers)[1],
            (
                "Authorization",
                "Basic dXNlcjpwYXNz",
                "[0].request.headers.Authorization"
            )
        );
        let (body, stored, field) = bytes(first.request.body.as_ref());
        assert_eq!(body, br#"{"password":"p4ss-w0rd-q7"}"#);
        assert!(stored.is_empty());
        assert_eq!(field.path, "[0].request.body");
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        assert_eq!(
            headers(&response.headers)[..2],
            [
                (
                    "x-proxied",
                    "intlb3nuq c0f5e722d1",
                    "[0].response.headers.x-proxied[0]"
                ),
                (
                    "x-proxied",
                    "extlb2nuq b6e1b5034c",
                    "[0].response.headers.x-proxied[1]"
                ),
            ]
        );
        // A gzip body is base64, by php-vcr's rule on the `Content-Type`.
        let response = second.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        let (body, stored, _) = bytes(response.body.as_ref());
        assert!(body.starts_with(&[0x1f, 0x8b]));
        assert_eq!(stored, ["base64"]);
    }

    /// The JSON storage, as older php-vcr wrote it (`http_version`, a string `code`, escaped
    /// slashes), a form post, and a value the encrypted storage wrote.
    #[test]
    fn reads_the_json_storage() {
        let text = r#"[{
    "request": {
        "method": "POST",
        "url": "https:\/\/www.example.com\/oembed?format=json",
        "headers": {"Host": "www.example.com", "X-Api-Key": "vcr:enc:v1:bm9uY2VjaXBoZXI="},
        "post_fields": {"token": "t0k3n-v4lue-9"}
    },
    "response": {
        "status": {"http_version": "2", "code": "400", "message": ""},
        "headers": {"vary": ["X-Origin", "Referer"]},
        "body": "Bad Request"
    }
}]"#;
        let cassette = read_text(text);
        let i = &cassette.interactions[0];
        assert_eq!(
            i.request.url.text,
            "https://www.example.com/oembed?format=json"
        );
        assert_eq!(
            headers(&i.request.headers),
            [("Host", "www.example.com", "[0].request.headers.Host")]
        );
        assert!(
            matches!(&i.request.body, Some(Body::Data { path, .. }) if path == "[0].request.post_fields")
        );
        assert_eq!(i.response.as_ref().unwrap().status, Some(400));
    }

    #[test]
    fn matches_by_structure() {
        let case = |text: &str, expected: bool| {
            let root = if text.starts_with('[') {
                from_json(text.as_bytes()).unwrap()
            } else {
                yaml::parse(text).unwrap()
            };
            assert_eq!(matches(&root), expected, "{text}");
        };
        case(YAML, true);
        // vcrpy's old list (a `uri`), Vinyl (a status that is a number), ExVCR.
        case(
            r#"[{"request": {"method": "GET", "uri": "u"}, "response": {"status": {"code": 200}}}]"#,
            false,
        );
        case(
            r#"[{"request": {"method": "GET", "url": "u"}, "response": {"url": "u", "status": 200}}]"#,
            false,
        );
        case(
            r#"[{"request": {"url": "u", "options": []}, "response": {"status_code": 200}}]"#,
            false,
        );
        case("[]", false);
    }

    #[test]
    fn cassette_paths_are_read_from_set_cassette_path_calls() {
        let php = r#"<?php
require __DIR__ . '/../vendor/autoload.php';
\VCR\VCR::configure()->setCassettePath(__DIR__ . '/fixtures/vcr');
VCR::configure()
    ->setCassettePath( 'tests/cassettes' )
    ->setStorage('json');
VCR::configure()->setCassettePath(dirname(__DIR__) . "/spec/tapes/");
VCR::configure()->setCassettePath($path);
VCR::configure()->setCassettePath('/var/tmp/vcr');
VCR::configure()->setCassettePath('../elsewhere');
VCR::configure()->setCassettePath(__DIR__ . '/fixtures/vcr');
"#;
        assert_eq!(
            cassette_paths(php, "tests"),
            ["tests/fixtures/vcr", "tests/cassettes", "spec/tapes"]
        );
        assert_eq!(cassette_paths(php, ""), ["fixtures/vcr", "tests/cassettes"]);
        assert!(cassette_paths("<?php echo 1;", "tests").is_empty());
    }
}
