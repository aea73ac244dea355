//! vcrpy cassettes (and pytest-recording's, which are vcrpy's), YAML or JSON.
//!
//! Shapes read, as recorders wrote them:
//! - current: `interactions:` (+ `version: 1`), each `{request, response}`; a request has
//!   `method`, `uri`, `headers` (name to a list of values, or to one value; dd-trace-py's
//!   `!!python/object/apply:multidict...` keys read as data), `body` (null, a string,
//!   `!!binary` base64, or `{string: ...}`); a response `status: {code, message}`, `headers`,
//!   `body: {string: ...}`. vcrpy's old httpx stub wrote `content` and `status_code` instead.
//! - pydantic-ai's serializer: `parsed_body` (the JSON body as YAML) beside or instead of
//!   `body`, read as [`Body::Data`] (it wins when both are present: it is what pydantic-ai's
//!   loader turns back into the body).
//! - pydantic-ai's realtime WebSocket cassettes: `kind: message` items with `direction` and
//!   `data`. A message is not an HTTP exchange; each is read as an interaction of its own so
//!   the linter sees what it carries: a `sent` message is a request body (it left the
//!   machine), a `received` one a response body, under the method `WEBSOCKET` and an empty URL
//!   (neither is in the file: their `at` is `None`).
//! - the old format: a top-level list of `{request, response}`; requests with `protocol`,
//!   `host`, `port`, `path` (the URL is built from them, default ports left out), headers as
//!   a `frozenset` of pairs, response headers as `name: value` lines.
//! - langchain-aws's gzip YAML: `requests:` and `responses:` lists, read pairwise.

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
    is_json, top_level,
};
use super::walk::{self, At};
use super::{Body, Field, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// Whether the document is a vcrpy cassette: `interactions` (empty, or the first an HTTP
/// interaction or a WebSocket message) that are not go-vcr's, the old top-level list of
/// `{request, response}` whose request has a `method`, or langchain-aws's `requests` /
/// `responses`. The first item decides; a later one that lacks a field is an error.
///
/// Not vcrpy: pydantic-ai's xAI cassettes (`.xai.yaml`, `interactions` of gRPC
/// `request_sample` / `response_sample`), which stay text.
pub(super) fn matches(root: &Node) -> bool {
    if let Some(items) = root.as_seq() {
        return items.first().is_some_and(|i| {
            i.get("response").is_some()
                && i.get("request").is_some_and(|r| r.get("method").is_some())
        });
    }
    if root.get("requests").and_then(Node::as_seq).is_some()
        && root.get("responses").and_then(Node::as_seq).is_some()
    {
        return true;
    }
    let Some(items) = root.get("interactions").and_then(Node::as_seq) else {
        return false;
    };
    let http_or_message = items
        .first()
        .is_none_or(|i| i.get("request").is_some() || i.get("kind").is_some());
    http_or_message && !super::go_vcr::matches(root)
}

/// Reads a vcrpy cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let at = At::root(root, FORMAT);
    let interactions = if root.as_seq().is_some() {
        at.items()?
            .iter()
            .map(interaction)
            .collect::<Result<_, _>>()?
    } else if let (Some(requests), Some(responses)) = (at.get("requests"), at.get("responses")) {
        pairwise(&requests, &responses)?
    } else {
        return walk::cassette(root, FORMAT, "interactions", interaction);
    };
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// Reads one interaction from its item (whole, or in windows: `windows`).
pub(super) fn interaction(item: &At<'_>) -> Result<Interaction, ReadError> {
    if !item.has("request") && item.has("kind") {
        return message(item);
    }
    Ok(Interaction {
        path: item.path.clone(),
        request: request(&item.need("request")?)?,
        response: Some(response(&item.need("response")?)?),
        recorded_at: None,
    })
}

/// langchain-aws: the `i`-th request was answered by the `i`-th response.
fn pairwise(requests: &At<'_>, responses: &At<'_>) -> Result<Vec<Interaction>, ReadError> {
    let requests = requests.items()?;
    let mut responses = responses.items()?.into_iter();
    let mut out = Vec::with_capacity(requests.len());
    for item in &requests {
        out.push(Interaction {
            path: item.path.clone(),
            request: request(item)?,
            response: responses.next().map(|r| response(&r)).transpose()?,
            recorded_at: None,
        });
    }
    if let Some(extra) = responses.next() {
        return Err(extra.error(format!("{} answers no request", extra.path)));
    }
    Ok(out)
}

fn request(r: &At<'_>) -> Result<Request, ReadError> {
    let url = match r.get("uri") {
        Some(uri) => uri.into_field()?,
        None if r.has("host") => old_url(r)?,
        None => r.need("uri")?.into_field()?,
    };
    Ok(Request {
        method: r.need("method")?.into_field()?,
        url,
        headers: r.headers_in("headers")?,
        body: match r.get("parsed_body") {
            Some(parsed) => Some(parsed.body_data()),
            // aiohttp's recorded `data=` mapping or a list: what the client sent, parsed.
            None => match r.get("body") {
                Some(b) if b.node.as_seq().is_some() => Some(b.body_data()),
                Some(b)
                    if b.node.as_map().is_some_and(|m| !m.is_empty())
                        && b.node.get("string").is_none() =>
                {
                    Some(b.body_data())
                }
                Some(b) => body(&b)?,
                None => None,
            },
        },
    })
}

/// The URL of an old-format request, from its parts (not one scalar of the file).
fn old_url(r: &At<'_>) -> Result<Field, ReadError> {
    let protocol = r.get("protocol").map(|p| p.into_field()).transpose()?;
    let protocol = protocol.as_ref().map_or("http", |p| p.text.as_str());
    let host = r.need("host")?.into_field()?;
    let path = r.need("path")?.into_field()?;
    let port = r.get("port").map(|p| p.into_field()).transpose()?;
    let port = match port.as_ref().map(|p| p.text.as_str()) {
        Some("80") if protocol == "http" => String::new(),
        Some("443") if protocol == "https" => String::new(),
        Some(port) => format!(":{port}"),
        None => String::new(),
    };
    Ok(Field {
        text: format!("{protocol}://{}{port}{}", host.text, path.text),
        at: None,
        path: r.path.clone(),
    })
}

fn response(r: &At<'_>) -> Result<Response, ReadError> {
    let status = match r.get("status") {
        Some(status) => Some(status.status_code()?),
        None => r.get("status_code").map(|code| code.status()).transpose()?,
    };
    let body = if let Some(parsed) = r.get("parsed_body") {
        Some(parsed.body_data())
    } else if let Some(b) = r.get("body") {
        body(&b)?
    } else if let Some(content) = r.get("content") {
        // vcrpy's old httpx stub: the text the client read.
        content.body_bytes()?
    } else {
        None
    };
    Ok(Response {
        status,
        headers: r.headers_in("headers")?,
        body,
    })
}

/// A body: a string, `!!binary`, `{string: ...}` holding either, or a mapping without
/// `string` (data a project's hooks keep: `{data: ...}`).
fn body(b: &At<'_>) -> Result<Option<Body>, ReadError> {
    match b.node.as_map() {
        None => b.body_bytes(),
        Some([]) => Ok(None),
        Some(_) => match b.node.get("string") {
            Some(string) if string.is_null() => Ok(None),
            Some(_) => b.need("string")?.body_bytes(),
            // A project's own hooks may keep a body as data (Cloud Custodian's Azure tests
            // write `body: {data: {...}}` and turn it back into text on replay): what the
            // suite loads is judged as the data it holds, never a `parse` error.
            None => Ok(Some(match b.get("data") {
                Some(data) => data.body_data(),
                None => b.body_data(),
            })),
        },
    }
}

/// A pydantic-ai realtime WebSocket message.
fn message(item: &At<'_>) -> Result<Interaction, ReadError> {
    let kind = item.need("kind")?.into_field()?;
    if kind.text != "message" {
        return Err(item.error(format!(
            "{} is neither an HTTP interaction nor a WebSocket message (`kind: {}`)",
            item.path, kind.text
        )));
    }
    let direction = item.need("direction")?.into_field()?;
    let data = item.need("data")?;
    let body = match data.node.as_scalar() {
        Some(_) => data.body_bytes()?,
        None => Some(data.body_data()),
    };
    let synthetic = |text: &str| Field {
        text: text.to_owned(),
        at: None,
        path: item.path.clone(),
    };
    let sent = match direction.text.as_str() {
        "sent" => true,
        "received" => false,
        other => {
            return Err(item.error(format!(
                "{} has `direction: {other}` (`sent` or `received` expected)",
                item.path
            )));
        }
    };
    let (sent_body, received_body) = if sent { (body, None) } else { (None, body) };
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: synthetic("WEBSOCKET"),
            url: synthetic(""),
            headers: Vec::new(),
            body: sent_body,
        },
        response: (!sent).then_some(Response {
            status: None,
            headers: Vec::new(),
            body: received_body,
        }),
        recorded_at: None,
    })
}

/// vcrpy, and the pytest plugins that drive it (pytest-recording, pytest-vcr).
pub struct Vcrpy;

/// vcrpy's [`Format`].
pub const FORMAT: Format = Format::new(&Vcrpy);

impl Recorder for Vcrpy {
    fn name(&self) -> &'static str {
        "vcrpy"
    }

    fn known_as(&self) -> &'static str {
        "vcrpy and pytest-recording"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        if head.list {
            head.has("request") && head.has("response")
        } else {
            head.has("interactions") || head.has("requests")
        }
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    /// `version: 1` beside `interactions` (vcrpy writes both), or langchain-aws's `requests`
    /// and `responses`.
    fn identified(&self, text: &str) -> bool {
        if is_json(text) {
            (has(text, "\"interactions\"")
                && (has(text, "\"version\": 1") || has(text, "\"version\":1")))
                || (has(text, "\"requests\"") && has(text, "\"responses\""))
        } else {
            (top_level(text, "interactions:") && top_level(text, "version: 1"))
                || (top_level(text, "requests:") && top_level(text, "responses:"))
        }
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "scheme", "host", "port", "path", "query"]
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => {
                format!("vcrpy's filter_query_parameters=[(\"{name}\", \"{placeholder}\")]")
            }
            Filtered::Header { name } => {
                format!("vcrpy's filter_headers=[(\"{name}\", <its placeholder>)]")
            }
            Filtered::Body => "vcrpy's filter_post_data_parameters with the same names and placeholders, or a match_on without `body`".into(),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["vcrpy"]
    }

    fn declared(&self, run: &RecordRun<'_>) -> Option<&'static str> {
        pytest_plugin(run).map(|_| "vcrpy")
    }

    fn record_mode(&self, _: &'static str, run: &RecordRun<'_>) -> RecordMode {
        let Some(plugin) = pytest_plugin(run) else {
            return RecordMode::only(
                "vcrpy",
                How::InCode(
                    "vcrpy's `record_mode` (in `use_cassette` or `vcr.VCR`): `once`, its default, records a missing cassette",
                ),
            );
        };
        let (option, once) = plugin.option();
        let mut mode = RecordMode::only(plugin.name(), How::Given(option.to_owned()));
        let in_addopts = (run.env)(PYTEST_ADDOPTS).is_some_and(|a| a.contains(option));
        if run.names(option) || in_addopts {
            return mode;
        }
        if runs_pytest(run.argv) {
            mode.args.push(once.to_owned());
            mode.how = How::Set(format!("`{once}` added to the command"));
        } else {
            // pytest reads this variable wherever it is started from.
            let addopts = match (run.env)(PYTEST_ADDOPTS) {
                Some(given) if !given.trim().is_empty() => format!("{given} {once}"),
                _ => once.to_owned(),
            };
            mode.env.push((PYTEST_ADDOPTS.to_owned(), addopts));
            mode.how = How::Set(format!("`{once}` added to `{PYTEST_ADDOPTS}`"));
        }
        mode
    }

    fn misses(&self) -> &'static [MissRule] {
        &[
            // Up to vcrpy 8: the path in the headline, as Python's repr.
            MissRule {
                headline: r#"Can't overwrite existing cassette \((?:'([^']+)'|"([^"]+)")\)"#,
                names: MissNames::Headline,
            },
            // vcrpy 9: the headline, the request, then `Cassette: <file>`, under pytest's `E`.
            MissRule {
                headline: r"Can't play back this request:",
                names: MissNames::Below {
                    name: r"^(?:E\s+)?\s*Cassette: (.+?)\s*$",
                    list: None,
                    none: None,
                    within: 40,
                },
            },
        ]
    }
}

/// The pytest plugins that write vcrpy cassettes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plugin {
    PytestRecording,
    PytestVcr,
}

impl Plugin {
    fn name(self) -> &'static str {
        match self {
            Plugin::PytestRecording => "pytest-recording",
            Plugin::PytestVcr => "pytest-vcr",
        }
    }

    /// The option that sets the record mode, and the value that records what is missing.
    fn option(self) -> (&'static str, &'static str) {
        match self {
            Plugin::PytestRecording => ("--record-mode", "--record-mode=once"),
            Plugin::PytestVcr => ("--vcr-record", "--vcr-record=once"),
        }
    }
}

/// The options pytest adds to its command line, wherever it is started from (`tox`, `make`).
const PYTEST_ADDOPTS: &str = "PYTEST_ADDOPTS";

/// Whether `argv` runs pytest itself (`pytest`, `py.test`, `python -m pytest`, behind a
/// runner such as `uv run` or `poetry run`), so an option added at its end reaches pytest.
fn runs_pytest(argv: &[String]) -> bool {
    argv.iter().enumerate().any(|(i, word)| {
        let name = Path::new(word)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        matches!(name, "pytest" | "py.test") || (word == "pytest" && i > 0 && argv[i - 1] == "-m")
    })
}

/// The files that declare a Python project's dependencies and pytest plugins.
const DECLARATIONS: &[&str] = &[
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "pytest.ini",
    "Pipfile",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "requirements.txt",
    "requirements-dev.txt",
    "requirements-test.txt",
    "dev-requirements.txt",
    "test-requirements.txt",
    "conftest.py",
];

/// The pytest plugin the project of `run` declares, or names in a `conftest.py` of its
/// folder or its `tests` folder; `None` when it names neither. Which plugin writes a vcrpy
/// cassette is read from the files that declare it: both write the same cassettes and use
/// the same `@pytest.mark.vcr` marker, so their own names are the evidence.
fn pytest_plugin(run: &RecordRun<'_>) -> Option<Plugin> {
    for folder in run.declaring_folders() {
        for name in DECLARATIONS {
            let Ok(text) = std::fs::read_to_string(folder.join(name)) else {
                continue;
            };
            // The distribution's name, or its module's.
            for plugin in [Plugin::PytestRecording, Plugin::PytestVcr] {
                let dist = plugin.name();
                let module = dist.replace('-', "_");
                if text.contains(dist) || text.contains(&module) {
                    return Some(plugin);
                }
            }
        }
    }
    None
}

/// The query parameters a project's Python source tells vcrpy to filter
/// (`filter_query_parameters=[...]` given to `vcr.VCR`, `use_cassette` or
/// `@pytest.mark.vcr`, or as the `"filter_query_parameters"` entry of pytest-recording's
/// `vcr_config`). vcrpy applies its filters to every request a cassette holds when it loads
/// the cassette, as well as to each request it matches (`Cassette.append` runs
/// `before_record_request` on both), so a parameter named here takes no part in matching,
/// whatever an older recording kept of it. A list named by a variable is read where the
/// same source assigns it; each entry is a name or a `(name, replacement)` pair, whose
/// first string is the name.
pub fn filtered_query_parameters(source: &str) -> Vec<String> {
    setting_names(source, "filter_query_parameters")
}

/// The request headers a Python source tells vcrpy to filter (`filter_headers`, in the same
/// places as [`filtered_query_parameters`]), lower-cased: vcrpy removes them (or writes the
/// replacement a pair gives) before the request is written, so a request the cassette shows
/// without `Authorization` may have carried one.
pub fn filtered_headers(source: &str) -> Vec<String> {
    let mut names: Vec<String> = setting_names(source, "filter_headers")
        .into_iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The names a vcrpy setting `key` lists wherever a source sets it (see
/// [`filtered_query_parameters`]), sorted, without repeats.
fn setting_names(source: &str, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in source.match_indices(key) {
        let before = source[..at].chars().next_back();
        let after = source[at + key.len()..].chars().next();
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            continue;
        }
        let rest = source[at + key.len()..].trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '"' | '\'' | ':' | '=')
        });
        let list = if rest.starts_with(['[', '(']) {
            Some(rest)
        } else {
            let name: &str = &rest[..rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len())];
            (!name.is_empty()).then(|| assigned_list(source, name)).flatten()
        };
        if let Some(list) = list {
            out.extend(first_strings(list));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text from the `[` or `(` that `source` assigns to `name` (`NAME = [...]`), if it does.
fn assigned_list<'s>(source: &'s str, name: &str) -> Option<&'s str> {
    source.match_indices(name).find_map(|(at, _)| {
        let before = source[..at].chars().next_back();
        if before.is_some_and(is_ident) {
            return None;
        }
        let rest = source[at + name.len()..].trim_start_matches([' ', '\t']);
        let rest = rest.strip_prefix('=')?;
        if rest.starts_with('=') {
            return None;
        }
        let rest = rest.trim_start();
        rest.starts_with(['[', '(']).then_some(rest)
    })
}

/// The strings of the Python list or tuple `list` opens: each item's, or a nested tuple's
/// first. Reading stops at the bracket that closes it, or at the end of `list`.
fn first_strings(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    // Whether the nested tuple at depth 2 already gave its string.
    let mut given = false;
    let mut chars = list.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '[' | '(' | '{' => {
                depth += 1;
                given = false;
            }
            ']' | ')' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            '#' => {
                // A comment runs to the end of its line.
                while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                    chars.next();
                }
            }
            '"' | '\'' => {
                let start = i + 1;
                let mut end = list.len();
                while let Some((j, d)) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        end = j;
                        break;
                    }
                }
                let text = &list[start..end.max(start)];
                if depth == 1 || (depth == 2 && !given) {
                    out.push(text.to_owned());
                    given = depth == 2;
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Plugin, filtered_headers, filtered_query_parameters, pytest_plugin, runs_pytest};
    use crate::http::recorder::RecordRun;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn pytest_is_recognised_behind_runners_only_as_the_program() {
        for line in [
            "pytest",
            "pytest tests -k llm",
            "py.test",
            "python -m pytest -x",
            "uv run pytest",
            "poetry run pytest tests",
            ".venv/bin/pytest",
        ] {
            assert!(runs_pytest(&words(line)), "{line}");
        }
        for line in [
            "tox -e py312",
            "make test",
            "python run_pytest.py",
            "npm test",
        ] {
            assert!(!runs_pytest(&words(line)), "{line}");
        }
    }

    #[test]
    fn the_plugin_is_read_from_the_nearest_declaration() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let suite = root.join("services/api");
        std::fs::create_dir_all(suite.join("tests")).unwrap();
        let no_env = |_: &str| None;
        let run = RecordRun {
            root,
            dir: &suite,
            argv: &[],
            env: &no_env,
        };
        assert_eq!(pytest_plugin(&run), None);
        std::fs::write(
            root.join("pyproject.toml"),
            "[dependency-groups]\ntest = [\"pytest-vcr>=1\"]\n",
        )
        .unwrap();
        assert_eq!(pytest_plugin(&run), Some(Plugin::PytestVcr));
        // The suite's own conftest.py is nearer than the root's declaration.
        std::fs::write(
            suite.join("tests/conftest.py"),
            "pytest_plugins = [\"pytest_recording\"]\n",
        )
        .unwrap();
        assert_eq!(pytest_plugin(&run), Some(Plugin::PytestRecording));
    }

    use super::{matches, read};
    use crate::http::walk::testing::assert_read_error;
    use crate::http::{Body, Field, Header, HttpCassette};
    use vcr_doc::{Node, from_json, yaml};

    fn yaml_doc(text: &str) -> Node {
        yaml::parse(text).unwrap()
    }

    #[track_caller]
    fn read_yaml(text: &str) -> HttpCassette {
        let root = yaml_doc(text);
        assert!(matches(&root), "not vcrpy: {text}");
        read(&root).unwrap()
    }

    /// The text at a field's position, for checking that `at` points at the scalar.
    fn source<'t>(text: &'t str, field: &Field) -> &'t str {
        &text[field.at.expect("a position") as usize..]
    }

    fn bytes(body: Option<&Body>) -> (&[u8], &[&'static str]) {
        match body {
            Some(Body::Bytes { bytes, stored, .. }) => (bytes, stored),
            other => panic!("not bytes: {other:?}"),
        }
    }

    /// As vcrpy 7 writes it with PyYAML's CDumper (sorted keys, width 80).
    const CURRENT: &str = "interactions:
- request:
    body: '{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there, this
      is long.\"}]}'
    headers:
      Authorization:
      - Bearer sk-test-123
      Content-Length:
      - '172'
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body:
      string: !!binary |
        H4sIAAAAAAAAA6tWyk0tLk5MT1WyUlAqLU4tUqoFAHQ0pMQTAAAA
    headers:
      Content-Encoding:
      - gzip
    status:
      code: 200
      message: OK
- request:
    body: null
    headers: {}
    method: GET
    uri: http://localhost:8000/health
  response:
    body:
      string: ''
    headers: {}
    status:
      code: 404
      message: Not Found
version: 1
";

    #[test]
    fn reads_the_current_format_with_paths_and_positions() {
        let cassette = read_yaml(CURRENT);
        assert_eq!(cassette.interactions.len(), 2);
        let first = &cassette.interactions[0];
        assert_eq!(first.path, "interactions[0]");
        assert_eq!(first.request.method.text, "POST");
        assert_eq!(first.request.url.path, "interactions[0].request.uri");
        assert!(source(CURRENT, &first.request.url).starts_with("https://api.openai.com/"));
        let auth = &first.request.headers[0];
        assert_eq!(auth.name, "Authorization");
        assert_eq!(auth.value.text, "Bearer sk-test-123");
        assert_eq!(
            auth.value.path,
            "interactions[0].request.headers.Authorization[0]"
        );
        assert!(source(CURRENT, &auth.value).starts_with("Bearer sk-test-123\n"));
        // A folded single-quoted body is one string.
        let (body, stored) = bytes(first.request.body.as_ref());
        assert!(stored.is_empty());
        assert_eq!(
            body,
            br#"{"model":"gpt-4o","messages":[{"role":"user","content":"Hello there, this is long."}]}"#
        );
        // `!!binary` is base64 undone, gzip still gzip.
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        let (body, stored) = bytes(response.body.as_ref());
        assert_eq!(stored, ["binary"]);
        assert!(body.starts_with(&[0x1f, 0x8b]));
        match &response.body {
            Some(Body::Bytes { field, .. }) => {
                assert_eq!(field.path, "interactions[0].response.body.string");
                assert!(source(CURRENT, field).starts_with("|\n        H4sI"));
            }
            other => panic!("{other:?}"),
        }
        // `body: null` and `string: ''` are no body.
        let second = &cassette.interactions[1];
        assert_eq!(second.request.body, None);
        assert_eq!(second.response.as_ref().unwrap().body, None);
        assert_eq!(second.response.as_ref().unwrap().status, Some(404));
    }

    /// vcrpy's JSON serializer (`serializer="json"`).
    #[test]
    fn reads_json_cassettes() {
        let text = r#"{
    "interactions": [
        {
            "request": {
                "body": {"string": "a=1"},
                "headers": {"x-api-key": ["k-123"]},
                "method": "POST",
                "uri": "https://example.com/a"
            },
            "response": {
                "body": {"string": "ok"},
                "headers": {},
                "status": {"code": 201, "message": "Created"}
            }
        }
    ],
    "version": 1
}"#;
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root));
        let cassette = read(&root).unwrap();
        let i = &cassette.interactions[0];
        assert_eq!(bytes(i.request.body.as_ref()).0, b"a=1");
        assert_eq!(
            i.request.headers[0].value.path,
            "interactions[0].request.headers.x-api-key[0]"
        );
        assert!(source(text, &i.request.headers[0].value).starts_with("\"k-123\""));
        assert_eq!(i.response.as_ref().unwrap().status, Some(201));
    }

    /// dd-trace-py: `multidict` keys and `!!binary` header values, read as data.
    #[test]
    fn reads_python_tagged_headers_as_data() {
        let text = "interactions:
- request:
    body: null
    headers:
      ? !!python/object/apply:multidict._multidict.istr
      - Authorization
      : - Bearer sk-live
      amz-sdk-request:
      - !!binary |
        YXR0ZW1wdD0x
    method: GET
    uri: https://example.com/
  response:
    body:
      string: ''
    headers: {}
    status:
      code: 200
      message: OK
version: 1
";
        let cassette = read_yaml(text);
        let headers = &cassette.interactions[0].request.headers;
        assert_eq!(
            headers
                .iter()
                .map(|h| (h.name.as_str(), h.value.text.as_str()))
                .collect::<Vec<_>>(),
            [
                ("Authorization", "Bearer sk-live"),
                ("amz-sdk-request", "attempt=1")
            ]
        );
        assert_eq!(
            headers[0].value.path,
            "interactions[0].request.headers.Authorization[0]"
        );
        assert!(source(text, &headers[1].value).starts_with("|\n        YXR0"));
    }

    /// A hand redaction that wrote `- [REDACTED]` (a YAML list) as a header's value: vcrpy
    /// loads it and replays it, so it is read, each scalar at its own place.
    #[test]
    fn reads_a_header_value_a_hand_edit_made_a_list() {
        let text = "interactions:
- request:
    body: null
    headers:
      Authorization:
      - [REDACTED]
      X-Other: {kept: sk-live}
    method: GET
    uri: https://example.com/
  response:
    body:
      string: ''
    headers: {}
    status:
      code: 200
      message: OK
version: 1
";
        let cassette = read_yaml(text);
        let headers = &cassette.interactions[0].request.headers;
        assert_eq!(
            headers
                .iter()
                .map(|h| (h.name.as_str(), h.value.text.as_str(), h.value.path.as_str()))
                .collect::<Vec<_>>(),
            [
                (
                    "Authorization",
                    "REDACTED",
                    "interactions[0].request.headers.Authorization[0][0]"
                ),
                (
                    "X-Other",
                    "sk-live",
                    "interactions[0].request.headers.X-Other.kept"
                )
            ]
        );
        assert!(source(text, &headers[0].value).starts_with("REDACTED]"));
    }

    /// pydantic-ai's serializer: `parsed_body` instead of `body`.
    #[test]
    fn reads_parsed_bodies_as_data() {
        let text = "interactions:
- request:
    headers:
      content-type:
      - application/json
    method: POST
    parsed_body:
      model: gpt-4o
    uri: https://api.openai.com/v1/chat/completions
  response:
    headers: {}
    parsed_body:
      choices:
      - message:
          content: Paris.
    status:
      code: 200
      message: OK
version: 1
";
        let cassette = read_yaml(text);
        let i = &cassette.interactions[0];
        match (&i.request.body, &i.response.as_ref().unwrap().body) {
            (Some(Body::Data { path, node }), Some(Body::Data { path: rpath, .. })) => {
                assert_eq!(path, "interactions[0].request.parsed_body");
                assert_eq!(node.get("model").and_then(Node::as_str), Some("gpt-4o"));
                assert_eq!(rpath, "interactions[0].response.parsed_body");
            }
            other => panic!("{other:?}"),
        }
    }

    /// pydantic-ai's realtime cassettes: a sent message is a request body, a received one a
    /// response body.
    #[test]
    fn reads_websocket_messages_as_interactions_of_their_own() {
        let text = "version: 1
interactions:
- kind: message
  direction: sent
  data:
    type: session.update
- kind: message
  direction: received
  data:
    type: session.created
";
        let cassette = read_yaml(text);
        let [sent, received] = &cassette.interactions[..] else {
            panic!("two messages expected");
        };
        assert_eq!(sent.request.method.text, "WEBSOCKET");
        assert_eq!(sent.request.method.at, None);
        assert!(
            matches!(&sent.request.body, Some(Body::Data { path, .. }) if path == "interactions[0].data")
        );
        assert!(sent.response.is_none());
        assert_eq!(received.request.body, None);
        let response = received.response.as_ref().unwrap();
        assert!(
            matches!(&response.body, Some(Body::Data { path, .. }) if path == "interactions[1].data")
        );
    }

    /// vcrpy before 1.0 (as its migration fixtures keep it), in YAML and JSON.
    #[test]
    fn reads_the_old_top_level_list() {
        let text = "- request: !!python/object:vcr.request.Request
    body: null
    headers: !!python/object/apply:__builtin__.frozenset
    - - !!python/tuple [accept, '*/*']
      - !!python/tuple [user-agent, python-requests/2.2.1]
    host: httpbin.org
    method: GET
    path: /ip
    port: 80
    protocol: http
  response:
    body: {string: !!python/unicode \"{}\"}
    headers: [!!python/unicode \"content-type: application/json\\r\\n\", \"date: Mon, 21 Apr 2014 23:06:09 GMT\\r\\n\"]
    status: {code: 200, message: OK}
";
        let cassette = read_yaml(text);
        let i = &cassette.interactions[0];
        assert_eq!(i.path, "[0]");
        assert_eq!(i.request.url.text, "http://httpbin.org/ip");
        assert_eq!(i.request.url.at, None);
        let names = |h: &[Header]| {
            h.iter()
                .map(|h| format!("{}={}", h.name, h.value.text))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&i.request.headers),
            ["accept=*/*", "user-agent=python-requests/2.2.1"]
        );
        let response = i.response.as_ref().unwrap();
        assert_eq!(
            names(&response.headers),
            [
                "content-type=application/json",
                "date=Mon, 21 Apr 2014 23:06:09 GMT"
            ]
        );

        let json = r#"[{"request": {"body": null, "protocol": "https", "method": "GET",
            "headers": {"accept": "*/*"}, "host": "example.com", "path": "/x", "port": 8443},
            "response": {"status": {"message": "OK", "code": 200}, "headers": [], "body": {"string": "{}"}}}]"#;
        let root = from_json(json.as_bytes()).unwrap();
        assert!(matches(&root));
        assert_eq!(
            read(&root).unwrap().interactions[0].request.url.text,
            "https://example.com:8443/x"
        );
    }

    /// vcrpy's old httpx stub, and old tornado cassettes' `(name, [values])` tuples.
    #[test]
    fn reads_old_response_shapes() {
        let text = "interactions:
- request:
    body: ''
    headers: {}
    method: GET
    uri: https://httpbin.org/gzip
  response:
    content: \"{\\n  \\\"gzipped\\\": true}\\n\"
    headers:
    - !!python/tuple
      - Vary
      - [Accept, Origin]
    http_version: HTTP/1.1
    status_code: 200
version: 1
";
        let cassette = read_yaml(text);
        let response = cassette.interactions[0].response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        assert_eq!(
            bytes(response.body.as_ref()).0,
            b"{\n  \"gzipped\": true}\n"
        );
        let values: Vec<_> = response
            .headers
            .iter()
            .map(|h| (h.name.as_str(), h.value.text.as_str()))
            .collect();
        assert_eq!(values, [("Vary", "Accept"), ("Vary", "Origin")]);
        assert_eq!(
            response.headers[1].value.path,
            "interactions[0].response.headers[0][1][1]"
        );
    }

    /// langchain-aws's serializer: two lists read pairwise.
    #[test]
    fn reads_requests_and_responses_pairwise() {
        let text = "requests:
- body: !!binary |
    eyJhIjogMX0=
  headers:
    authorization:
    - '**REDACTED**'
  method: POST
  uri: https://bedrock-runtime.us-west-2.amazonaws.com/model/m/converse
responses:
- body:
    string: !!binary |
      eyJvayI6IHRydWV9
  headers:
    Content-Type: application/json
  status:
    code: 200
    message: OK
";
        let cassette = read_yaml(text);
        let i = &cassette.interactions[0];
        assert_eq!(i.path, "requests[0]");
        assert_eq!(i.request.url.path, "requests[0].uri");
        assert_eq!(
            bytes(i.request.body.as_ref()),
            (&b"{\"a\": 1}"[..], &["binary"][..])
        );
        let response = i.response.as_ref().unwrap();
        assert_eq!(
            response.headers[0].value.path,
            "responses[0].headers.Content-Type"
        );
        assert_eq!(bytes(response.body.as_ref()).0, b"{\"ok\": true}");

        let extra = yaml_doc("requests: []\nresponses:\n- status: {code: 200}\n");
        let e = read(&extra).unwrap_err();
        assert_eq!(e.message, "responses[0] answers no request");
    }

    #[test]
    fn matches_by_structure() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            let root = if text.starts_with(['{', '[']) {
                from_json(text.as_bytes()).unwrap()
            } else {
                yaml_doc(text)
            };
            assert_eq!(matches(&root), expected, "{text}");
        }
        case(CURRENT, true);
        case("interactions: []\nversion: 1\n", true);
        case(
            "interactions:\n- kind: message\n  direction: sent\n  data: {}\n",
            true,
        );
        case(
            "- request: {method: GET, uri: 'http://x/'}\n  response: {}\n",
            true,
        );
        case("requests: []\nresponses: []\n", true);
        // go-vcr, Ruby VCR, the DataDog test agent's single interactions, pydantic-ai's xAI
        // gRPC samples, a list of other request/response records, HAR.
        case("version: 2\ninteractions: []\n", false);
        case(
            "version: 1\ninteractions:\n- request:\n    url: http://x/\n  response:\n    code: 200\n",
            false,
        );
        case("http_interactions: []\nrecorded_with: VCR 6.0.0\n", false);
        case(
            r#"{"request": {"method": "GET", "url": "http://x/"}, "response": {}}"#,
            false,
        );
        case(
            "interactions:\n- request_sample:\n    json: {}\n  response_sample:\n    json: {}\n",
            false,
        );
        case(
            r#"[{"endpoint": "/a", "request": {"args": {}}, "response": {}}]"#,
            false,
        );
        case(r#"{"log": {"entries": []}}"#, false);
        case("[]", false);
    }

    /// A file that is vcrpy but lacks a field: the error names the field and points at the
    /// mapping that lacks it.
    #[test]
    fn names_missing_and_malformed_fields() {
        let case = |text: &str, message: &str, at: &str| {
            assert_read_error(read, text, message, at);
        };
        let ok = "- request:\n    method: GET\n    uri: http://x/\n  response:\n    status: {code: 200}\n";
        case(
            &format!("interactions:\n{ok}- request:\n    method: GET\n  response: {{}}\n"),
            "interactions[1].request has no `uri`",
            "method: GET\n  response",
        );
        case(
            &format!("interactions:\n{ok}- response: {{}}\n"),
            "interactions[1] has no `request`",
            "response: {}",
        );
        case(
            "interactions:\n- request:\n    method: GET\n    uri: http://x/\n  response:\n    status: {code: OK}\n",
            "interactions[0].response.status.code is not an HTTP status: `OK`",
            "OK}",
        );
        case(
            "interactions:\n- request:\n    method: GET\n    uri: http://x/\n    body: !!binary '@@@'\n  response: {}\n",
            "interactions[0].request.body is not valid base64",
            "'@@@'",
        );
        case(
            "interactions:\n- request:\n    method: [GET]\n    uri: http://x/\n  response: {}\n",
            "interactions[0].request.method is not a single value",
            "[GET]",
        );
        case(
            "interactions:\n- kind: ping\n",
            "interactions[0] is neither an HTTP interaction nor a WebSocket message (`kind: ping`)",
            "kind: ping",
        );
    }
    #[test]
    fn filtered_query_parameters_are_read_from_every_way_a_project_writes_them() {
        let source = r#"
my_vcr = vcr.VCR(
    filter_headers=['authorization'],
    filter_query_parameters=['filesessionid', "leaseid"]  # ids a run makes
)

SECRET_PARAMS = [("api_key", "DUMMY"), ('token', 'XXX')]

@pytest.fixture(scope="module")
def vcr_config():
    return {"filter_query_parameters": SECRET_PARAMS, "match_on": ["method", "path"]}

@pytest.mark.vcr(filter_query_parameters=("sig",))
def test_it(): ...
my_filter_query_parameters = ["not_this"]
"#;
        assert_eq!(
            filtered_query_parameters(source),
            ["api_key", "filesessionid", "leaseid", "sig", "token"]
        );
        assert_eq!(filtered_headers(source), ["authorization"]);
        assert_eq!(
            filtered_headers("H = ['Authorization', ('Cookie', 'x')]\nvcr.VCR(filter_headers=H)"),
            ["authorization", "cookie"]
        );
        // A name that no list is assigned to, and no setting at all.
        assert!(filtered_query_parameters("vcr.VCR(filter_query_parameters=PARAMS)").is_empty());
        assert!(filtered_query_parameters("import vcr\n").is_empty());
    }
}
