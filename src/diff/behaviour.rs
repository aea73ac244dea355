//! What a cassette says the agent did: per recorded model call, its text, its tool calls
//! with their key arguments, its stop reason, model and token usage, plus the request side
//! (one hash per input message).
//!
//! This is the view a reviewer needs of a re-recording: an agent's correctness lies in its
//! tool-call sequence, not in its wording or in the JSON around it. Claude Code fixtures are
//! read from their `assistant` items, or, when a harness kept only the raw stream, from the
//! Anthropic SSE events reassembled; dsh scenarios from the replay script the harness derives
//! from the session logs, overrides applied. Nothing here prints: [`Behaviour::textconv`]
//! returns the readable summary as a string.

use std::fmt::Write as _;

use serde::Serialize;

use crate::json::{self, Object, Value};
use crate::kind::claude_code;
use crate::kind::dsh;

/// The kinds of cassettes `vcr diff` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A Claude Code message fixture (`<6hex>(-<6hex>)*.json`).
    ClaudeCode,
    /// A Claude Code token-count fixture (`token-count-<12hex>.json`).
    TokenCount,
    /// A dsh scenario folder (or, for `--textconv`, one session log).
    Dsh,
    /// An HTTP cassette (vcrpy, Ruby VCR, go-vcr, HAR, httprr, nock, talkback): its
    /// interactions, the LLM calls among them read as model calls.
    Http,
}

impl Kind {
    /// How reports name the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::ClaudeCode => "claude-code",
            Kind::TokenCount => "token-count",
            Kind::Dsh => "dsh",
            Kind::Http => "http",
        }
    }
}

/// Why a cassette's behaviour could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BehaviourError {
    /// The file is not JSON (or a line of a log is not).
    #[error("{file}: not valid JSON: {message}")]
    Parse {
        /// The file, as the caller named it.
        file: String,
        /// What the parser said.
        message: String,
    },
    /// The file is JSON of a shape its kind does not have.
    #[error("{file}: {message}")]
    Schema {
        /// The file, as the caller named it.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The file is an HTTP cassette that does not parse.
    #[error("{file}:{line}:{column}: not a readable {format} cassette: {message}")]
    Unreadable {
        /// The file, as the caller named it.
        file: String,
        /// The recorder whose format it looks like.
        format: &'static str,
        /// What the reader said.
        message: String,
        /// 1-based line of the problem (in the decompressed text of a `.gz` cassette).
        line: usize,
        /// 1-based column.
        column: usize,
    },
}

/// Token usage of one or more model calls. Fields the recording lacks are `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Input (prompt) tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// Tokens read from the prompt cache.
    pub cache_read: Option<u64>,
    /// Tokens written to the prompt cache.
    pub cache_write: Option<u64>,
}

impl Usage {
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    pub(super) fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (label, value) in [
            ("input", self.input),
            ("output", self.output),
            ("cache read", self.cache_read),
            ("cache write", self.cache_write),
        ] {
            if let Some(value) = value {
                parts.push(format!("{label} {value}"));
            }
        }
        parts.join(", ")
    }
}

/// The sum of two usages; a field is known when either side knows it.
impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        Usage {
            input: add(self.input, other.input),
            output: add(self.output, other.output),
            cache_read: add(self.cache_read, other.cache_read),
            cache_write: add(self.cache_write, other.cache_write),
        }
    }
}

/// One tool call a model call made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUse {
    /// The tool's name (`Read`, `Bash`, `read`, ...).
    pub name: String,
    /// The most telling string argument, shortened (`src/a.ts`, `npm test`), if any.
    pub key: Option<String>,
    /// The arguments as compact JSON (`JSON.stringify` of the input object).
    pub input: String,
    /// The top-level arguments, name and compact value, in the recorded order.
    #[serde(skip)]
    pub arguments: Vec<(String, String)>,
}

impl ToolUse {
    /// `Read(src/a.ts)`, `Bash(npm test)`, `TodoWrite()`.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.key.as_deref().unwrap_or(""))
    }

    pub(super) fn from_input(name: &str, input: Option<&Value<'_>>) -> ToolUse {
        let (input_text, arguments, key) = match input {
            Some(value) => {
                let arguments = value
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| (k.as_str().to_owned(), argument_text(v)))
                            .collect()
                    })
                    .unwrap_or_default();
                let mut input = String::new();
                sorted_compact(value, &mut input);
                (input, arguments, value.as_object().and_then(key_argument))
            }
            None => (String::new(), Vec::new(), None),
        };
        ToolUse {
            name: name.to_owned(),
            key,
            input: input_text,
            arguments,
        }
    }
}

/// An argument's value for people: strings as they are, anything else as compact JSON.
fn argument_text(value: &Value<'_>) -> String {
    match value {
        Value::String(s) => s.as_str().to_owned(),
        other => String::from_utf8_lossy(&json::to_compact(other)).into_owned(),
    }
}

/// Arguments that tell what a tool call is about, most telling first: the file it reads or
/// edits, the command it runs, the pattern it searches, the page it fetches.
const KEY_ARGUMENTS: [&str; 10] = [
    "file_path",
    "path",
    "notebook_path",
    "command",
    "cmd",
    "pattern",
    "url",
    "query",
    "prompt",
    "description",
];

/// Longest key argument shown; longer ones end with `…`.
const KEY_LEN: usize = 48;

/// The key argument of a tool input: the first of [`KEY_ARGUMENTS`] that is a string, else
/// the first string argument; the recording folder placeholder is dropped from paths so
/// that `[CWD]/src/a.ts` reads `src/a.ts`.
fn key_argument(input: &Object<'_>) -> Option<String> {
    // Else the string of the first key in sorted order: the order a model wrote the keys in
    // is not a different call.
    let value = KEY_ARGUMENTS
        .iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
        .or_else(|| {
            sorted_entries(input)
                .into_iter()
                .find_map(|(_, v)| v.as_str())
        })?;
    let value = ["[CWD]/", "{{cwd}}/"]
        .iter()
        .find_map(|p| value.strip_prefix(p))
        .unwrap_or(value);
    Some(shorten(value, KEY_LEN))
}

/// The leaves of a skeleton [`shape`] wrote, as `path: type` lines (`answer_box.title:
/// string`, `items[]: number`), sorted: what two shapes differ by, said by key. Text before
/// the skeleton (`json `) is skipped; a skeleton that does not parse gives nothing.
pub(super) fn shape_leaves(shape: &str) -> Vec<String> {
    fn value(s: &[u8], at: &mut usize, path: &str, out: &mut Vec<String>) -> Option<()> {
        match s.get(*at)? {
            b'{' => {
                *at += 1;
                if s.get(*at) == Some(&b'}') {
                    *at += 1;
                    out.push(format!("{path}: {{}}"));
                    return Some(());
                }
                loop {
                    // A key: a JSON string, escapes skipped.
                    if s.get(*at)? != &b'"' {
                        return None;
                    }
                    let start = *at + 1;
                    *at += 1;
                    while *s.get(*at)? != b'"' {
                        *at += if s[*at] == b'\\' { 2 } else { 1 };
                    }
                    let key = String::from_utf8_lossy(&s[start..*at]).into_owned();
                    *at += 1;
                    if s.get(*at)? != &b':' {
                        return None;
                    }
                    *at += 1;
                    let inner = if path.is_empty() {
                        key
                    } else {
                        format!("{path}.{key}")
                    };
                    value(s, at, &inner, out)?;
                    match s.get(*at)? {
                        b',' => *at += 1,
                        b'}' => {
                            *at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                *at += 1;
                let inner = format!("{path}[]");
                if s.get(*at) == Some(&b']') {
                    *at += 1;
                    out.push(format!("{inner}: (empty)"));
                    return Some(());
                }
                loop {
                    value(s, at, &inner, out)?;
                    match s.get(*at)? {
                        b'|' => *at += 1,
                        b']' => {
                            *at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            _ => {
                let start = *at;
                while s.get(*at).is_some_and(u8::is_ascii_alphabetic) {
                    *at += 1;
                }
                let kind = std::str::from_utf8(&s[start..*at]).ok()?;
                out.push(if path.is_empty() {
                    kind.to_owned()
                } else {
                    format!("{path}: {kind}")
                });
                Some(())
            }
        }
    }
    let Some(start) = shape.find(['{', '[']) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut at = start;
    if value(shape.as_bytes(), &mut at, "", &mut out).is_none() {
        return Vec::new();
    }
    out.sort();
    out.dedup();
    out
}

/// The first line of `text`, at most `max` characters, with `…` where it was cut, secrets
/// masked. Masking comes first: a key cut short no longer matches its detector, so masking
/// the excerpt afterwards would print the part of the key that was kept.
pub fn shorten(text: &str, max: usize) -> String {
    static MASKER: std::sync::OnceLock<crate::lint::Scanner> = std::sync::OnceLock::new();
    let masked = MASKER
        .get_or_init(|| crate::lint::Scanner::new(&[]))
        .mask(text);
    let trimmed = masked.trim();
    let first = trimmed.lines().next().unwrap_or("");
    let cut = first.chars().count() > max || first.len() < trimmed.len();
    let mut out: String = first.chars().take(max).collect();
    if cut {
        out.push('…');
    }
    out
}

/// One recorded model call.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelCall {
    /// Where the call is: empty for a Claude Code fixture (one call per file), the session
    /// log and the call's number in it for dsh (`session.jsonl #2`).
    pub label: String,
    /// The text the model wrote, text blocks joined by blank lines.
    pub text: String,
    /// The tool calls, in order.
    pub tools: Vec<ToolUse>,
    /// The stop reason (`end_turn`, `tool_use`, `max_tokens`; dsh: `stop`, `tool-calls`, ...;
    /// an override's `throw <code>` or `hang`).
    pub stop_reason: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// Its token usage.
    pub usage: Usage,
}

impl ModelCall {
    /// `Read(src/a.ts) -> Edit(src/a.ts)`, or `(no tool calls)`.
    pub fn tool_sequence(&self) -> String {
        if self.tools.is_empty() {
            return "(no tool calls)".to_owned();
        }
        self.tools
            .iter()
            .map(ToolUse::signature)
            .collect::<Vec<_>>()
            .join(" -> ")
    }

    /// The shape of the text when it is structured output (a JSON object or array): keys
    /// and value types, not values, so rewording inside it is not a shape change.
    pub fn output_shape(&self) -> Option<String> {
        let text = self.text.trim();
        if !(text.starts_with('{') || text.starts_with('[')) {
            return None;
        }
        let value = json::parse(text.as_bytes()).ok()?;
        let mut out = String::new();
        shape(&value, &mut out);
        Some(out)
    }

    /// One line: tool sequence, stop reason, text.
    pub fn one_line(&self) -> String {
        let mut line = String::new();
        if !self.label.is_empty() {
            let _ = write!(line, "{}: ", self.label);
        }
        if self.tools.is_empty() {
            let _ = write!(line, "\"{}\"", shorten(&self.text, 60));
        } else {
            line.push_str(&self.tool_sequence());
        }
        if let Some(stop) = &self.stop_reason {
            let _ = write!(line, " ({stop})");
        }
        line
    }
}

/// An object's entries in key order: JSON objects do not order their keys, so neither does
/// a comparison of them.
fn sorted_entries<'o, 'a>(object: &'o Object<'a>) -> Vec<(&'o json::Str<'a>, &'o Value<'a>)> {
    let mut entries: Vec<_> = object.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// `value` as compact JSON with every object's keys sorted: tool arguments compared as JSON,
/// so the same arguments written in another key order are the same call.
pub(super) fn sorted_compact(value: &Value<'_>, out: &mut String) {
    match value {
        Value::Object(o) => {
            out.push('{');
            for (i, (k, v)) in sorted_entries(o).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&String::from_utf8_lossy(&json::to_compact(&Value::String(
                    k.clone(),
                ))));
                out.push(':');
                sorted_compact(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                sorted_compact(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&String::from_utf8_lossy(&json::to_compact(other))),
    }
}

/// A type skeleton of a JSON value: `{"a":string,"b":[number]}`, keys sorted: JSON objects
/// do not order their keys, so a re-recording that wrote them in another order has the same
/// shape.
pub(super) fn shape(value: &Value<'_>, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(_) => out.push_str("boolean"),
        Value::Number(_) => out.push_str("number"),
        Value::String(_) => out.push_str("string"),
        Value::Array(items) => {
            // Items of one shape are shown once: the length of a list is not its shape.
            let mut seen: Vec<String> = Vec::new();
            for item in items {
                let mut s = String::new();
                shape(item, &mut s);
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            let _ = write!(out, "[{}]", seen.join("|"));
        }
        Value::Object(o) => {
            out.push('{');
            for (i, (k, v)) in sorted_entries(o).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(
                    out,
                    "{}:",
                    String::from_utf8_lossy(&json::to_compact(&Value::String(k.clone())))
                );
                shape(v, out);
            }
            out.push('}');
        }
    }
}

/// One message of the request, for the request side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestMessage {
    /// `sha1(JSON.stringify(message))`, first 6 hex digits: Claude Code's name segment.
    pub hash: String,
    /// What the message is, shortened: its text, or its block kinds.
    pub summary: String,
}

/// What a cassette recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Behaviour {
    /// The cassette's kind.
    pub kind: Kind,
    /// The request messages (Claude Code input; dsh user messages).
    pub request: Vec<RequestMessage>,
    /// The model calls, in replay order.
    pub calls: Vec<ModelCall>,
    /// The session logs of a dsh scenario, in script order.
    pub sessions: Vec<String>,
    /// A token-count fixture's count, as JavaScript prints it.
    pub token_count: Option<String>,
    /// An HTTP cassette's recorder (`vcrpy`, `HAR`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// An HTTP cassette's interactions in file order; the LLM calls among them point into
    /// `calls`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exchanges: Vec<super::http::Exchange>,
}

impl Behaviour {
    pub(super) fn new(kind: Kind) -> Behaviour {
        Behaviour {
            kind,
            request: Vec::new(),
            calls: Vec::new(),
            sessions: Vec::new(),
            token_count: None,
            format: None,
            exchanges: Vec::new(),
        }
    }

    /// The total usage of all calls.
    pub fn usage(&self) -> Usage {
        self.calls
            .iter()
            .fold(Usage::default(), |sum, c| sum + c.usage)
    }

    /// Reads a Claude Code message fixture. `file` names it in errors.
    pub fn claude_code(bytes: &[u8], file: &str) -> Result<Behaviour, BehaviourError> {
        let value = parse(bytes, file)?;
        claude_code::check_message(&value).map_err(|e| BehaviourError::Schema {
            file: file.to_owned(),
            message: e.to_string(),
        })?;
        let mut behaviour = Behaviour::new(Kind::ClaudeCode);
        behaviour.request = claude_code::input(&value)
            .iter()
            .map(|m| RequestMessage {
                hash: claude_code::message_segment(m),
                summary: message_summary(m),
            })
            .collect();
        let output = value
            .as_object()
            .and_then(|o| o.get("output"))
            .and_then(Value::as_array)
            .unwrap_or(&[]);
        behaviour.calls.push(call_from_output(output));
        Ok(behaviour)
    }

    /// Reads a Claude Code token-count fixture.
    pub fn token_count(bytes: &[u8], file: &str) -> Result<Behaviour, BehaviourError> {
        let value = parse(bytes, file)?;
        claude_code::check_token_count(&value).map_err(|e| BehaviourError::Schema {
            file: file.to_owned(),
            message: e.to_string(),
        })?;
        let mut behaviour = Behaviour::new(Kind::TokenCount);
        behaviour.token_count = value
            .as_object()
            .and_then(|o| o.get("tokenCount"))
            .and_then(|v| match v {
                Value::Number(n) => Some(dsh::js_number(&n.0)),
                _ => None,
            });
        Ok(behaviour)
    }

    /// Reads a dsh scenario from its files (`(name, bytes)`, names relative to the folder):
    /// the primary script (with `replay.override.json` applied), then each child's, in
    /// child-number order. `dir` is put in front of file names in errors.
    pub fn dsh(files: &[(&str, &[u8])], dir: &str) -> Result<Behaviour, BehaviourError> {
        let mut behaviour = Behaviour::new(Kind::Dsh);
        let display = |name: &str| {
            if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            }
        };
        let find = |wanted: &str| files.iter().find(|(n, _)| *n == wanted).map(|f| f.1);
        let mut logs: Vec<(u64, &str, &[u8])> = files
            .iter()
            .filter_map(|&(name, bytes)| {
                if name == dsh::PRIMARY {
                    Some((0, name, bytes))
                } else {
                    dsh::child_index(name).map(|n| (n, name, bytes))
                }
            })
            .collect();
        logs.sort_by_key(|&(n, _, _)| n);
        let override_doc = match find(dsh::REPLAY_OVERRIDE) {
            Some(bytes) => Some(parse(bytes, &display(dsh::REPLAY_OVERRIDE))?),
            None => None,
        };
        if logs.first().is_none_or(|l| l.0 != 0)
            && let Some(doc) = &override_doc
        {
            // A bare override without a log is the whole primary script.
            behaviour.sessions.push(dsh::REPLAY_OVERRIDE.to_owned());
            behaviour.calls = apply_override(Vec::new(), doc, dsh::REPLAY_OVERRIDE);
        }
        for (n, name, bytes) in logs {
            let session = dsh_session(bytes, &display(name), name)?;
            behaviour.sessions.push(name.to_owned());
            behaviour.request.extend(session.request);
            let calls = match (&override_doc, n) {
                (Some(doc), 0) => apply_override(session.calls, doc, name),
                _ => session.calls,
            };
            behaviour.calls.extend(calls);
        }
        Ok(behaviour)
    }

    /// Reads one dsh session log on its own (for `--textconv`): its derived script, no
    /// override, no seed skipped.
    pub fn dsh_log(bytes: &[u8], file: &str) -> Result<Behaviour, BehaviourError> {
        let session = dsh_session(bytes, file, "")?;
        let mut behaviour = Behaviour::new(Kind::Dsh);
        behaviour.request = session.request;
        behaviour.calls = session.calls;
        Ok(behaviour)
    }

    /// Reads one file whose kind is told by its content (two files compared, or textconv,
    /// where git names the file after a temporary): a message fixture, a token count, a dsh
    /// session log, an HTTP cassette. `None` when it is none of them.
    pub fn detect(bytes: &[u8], file: &str) -> Option<Result<Behaviour, BehaviourError>> {
        if let Ok(value) = json::parse(bytes) {
            if let Some(o) = value.as_object() {
                if o.contains_key("input") && o.contains_key("output") {
                    return Some(Behaviour::claude_code(bytes, file));
                }
                if o.contains_key("tokenCount") && o.len() == 1 {
                    return Some(Behaviour::token_count(bytes, file));
                }
            }
        } else if let Some(first) = bytes
            .split(|&b| b == b'\n')
            .find(|l| !l.iter().all(u8::is_ascii_whitespace))
            && let Ok(header) = json::parse(first)
            && header
                .as_object()
                .and_then(|o| o.get("type"))
                .and_then(Value::as_str)
                == Some("session")
        {
            return Some(Behaviour::dsh_log(bytes, file));
        }
        Behaviour::http(std::path::Path::new(file), bytes, file).transpose()
    }

    /// Reads an HTTP cassette (any format [`crate::kind::http::read`] knows; `path` is
    /// where its sidecar files are, `file` names it in errors): `Ok(None)` when the bytes
    /// are no HTTP cassette.
    pub fn http(
        path: &std::path::Path,
        bytes: &[u8],
        file: &str,
    ) -> Result<Option<Behaviour>, BehaviourError> {
        super::http::behaviour(path, bytes, file)
    }

    /// The readable behaviour summary `vcr diff --textconv` prints: stable, one fact per
    /// line, so that a line diff of two summaries is a behaviour diff. Text and arguments
    /// appear in full (a change must never vanish from the summary); the caller masks
    /// secrets.
    pub fn textconv(&self) -> String {
        let mut out = String::new();
        let kind = match self.kind {
            Kind::ClaudeCode => "claude-code message fixture",
            Kind::TokenCount => "claude-code token-count fixture",
            Kind::Dsh if self.sessions.is_empty() => "dsh session log",
            Kind::Dsh => "dsh scenario",
            Kind::Http => {
                super::http::textconv(self, &mut out);
                return out;
            }
        };
        let _ = writeln!(out, "{kind}");
        if let Some(count) = &self.token_count {
            let _ = writeln!(out, "token count: {count}");
        }
        if !self.sessions.is_empty() {
            let _ = writeln!(out, "sessions: {}", self.sessions.join(", "));
        }
        if self.kind != Kind::TokenCount {
            let n = self.request.len();
            let _ = writeln!(out, "request: {n} message{}", if n == 1 { "" } else { "s" });
        }
        for (i, m) in self.request.iter().enumerate() {
            let _ = writeln!(out, "  [{i}] {} {}", m.hash, m.summary);
        }
        for (i, call) in self.calls.iter().enumerate() {
            let label = if call.label.is_empty() || call.label == format!("#{}", i + 1) {
                format!("model call {}", i + 1)
            } else {
                format!("model call {} ({})", i + 1, call.label)
            };
            let _ = writeln!(out, "{label}");
            call.write_summary(&mut out, "  ");
        }
        out
    }
}

impl ModelCall {
    /// The call's facts for the textconv summary, one per line, each line starting with
    /// `indent`: model, stop reason, usage, text, tool calls with every argument.
    pub(super) fn write_summary(&self, out: &mut String, indent: &str) {
        if let Some(model) = &self.model {
            let _ = writeln!(out, "{indent}model: {model}");
        }
        if let Some(stop) = &self.stop_reason {
            let _ = writeln!(out, "{indent}stop: {stop}");
        }
        if !self.usage.is_empty() {
            let _ = writeln!(out, "{indent}usage: {}", self.usage.describe());
        }
        if !self.text.is_empty() {
            let _ = writeln!(out, "{indent}text:");
            for line in self.text.lines() {
                let _ = writeln!(out, "{indent}  {line}");
            }
        }
        for tool in &self.tools {
            let _ = writeln!(out, "{indent}tool: {}", tool.signature());
            for (name, value) in &tool.arguments {
                let value = value.replace('\n', "\\n");
                let _ = writeln!(out, "{indent}  {name}: {value}");
            }
        }
    }
}

pub(super) fn parse<'a>(bytes: &'a [u8], file: &str) -> Result<Value<'a>, BehaviourError> {
    json::parse(bytes).map_err(|e| BehaviourError::Parse {
        file: file.to_owned(),
        message: e.to_string(),
    })
}

/// A request message in a few words: its text, or the kinds of its blocks with the tool
/// calls' signatures.
fn message_summary(message: &Value<'_>) -> String {
    match message {
        Value::String(s) => format!("\"{}\"", shorten(s, 80)),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| {
                let o = b.as_object();
                let get = |k: &str| o.and_then(|o| o.get(k));
                match get("type").and_then(Value::as_str) {
                    Some("text") => format!(
                        "text \"{}\"",
                        shorten(get("text").and_then(Value::as_str).unwrap_or(""), 60)
                    ),
                    Some("tool_use") => format!(
                        "tool_use {}",
                        ToolUse::from_input(
                            get("name").and_then(Value::as_str).unwrap_or(""),
                            get("input")
                        )
                        .signature()
                    ),
                    Some("tool_result") => {
                        let content = match get("content") {
                            Some(Value::String(s)) => shorten(s, 40),
                            _ => String::new(),
                        };
                        format!("tool_result \"{content}\"")
                    }
                    Some(other) => other.to_owned(),
                    None => "null".to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.type_name().to_owned(),
    }
}

/// The call a fixture's `output` recorded: from its assistant items when there are any,
/// else from its stream events.
fn call_from_output(output: &[Value<'_>]) -> ModelCall {
    let item_type = |v: &Value<'_>| {
        v.as_object()
            .and_then(|o| o.get("type"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let assistants: Vec<&Object<'_>> = output
        .iter()
        .filter(|v| item_type(v).as_deref() == Some("assistant"))
        .filter_map(|v| v.as_object()?.get("message")?.as_object())
        .collect();
    if assistants.is_empty() {
        let events: Vec<&Object<'_>> = output
            .iter()
            .filter(|v| item_type(v).as_deref() == Some("stream_event"))
            .filter_map(|v| v.as_object()?.get("event")?.as_object())
            .collect();
        return call_from_stream(&events);
    }
    call_from_messages(&assistants)
}

/// The call Anthropic messages recorded (a fixture's assistant items, or one Messages API
/// response): text and tool-use blocks in order, the first model, the last stop reason,
/// the last usage.
pub(super) fn call_from_messages(assistants: &[&Object<'_>]) -> ModelCall {
    let mut call = ModelCall::default();
    let mut texts = Vec::new();
    for message in assistants {
        if call.model.is_none() {
            call.model = str_field(message, "model");
        }
        if let Some(stop) = str_field(message, "stop_reason") {
            call.stop_reason = Some(stop);
        }
        for block in message
            .get("content")
            .and_then(Value::as_array)
            .unwrap_or(&[])
        {
            let Some(block) = block.as_object() else {
                continue;
            };
            match block.get("type").and_then(Value::as_str) {
                Some("text") => texts.push(str_field(block, "text").unwrap_or_default()),
                // A tool the server ran (`server_tool_use`: code execution, web search) or
                // an MCP server's is a tool call as the client's are.
                Some("tool_use" | "server_tool_use" | "mcp_tool_use") => {
                    call.tools.push(ToolUse::from_input(
                        &str_field(block, "name").unwrap_or_default(),
                        block.get("input"),
                    ));
                }
                _ => {}
            }
        }
    }
    // The last assistant item carries the final usage (`message_delta` filled it in).
    if let Some(usage) = assistants
        .iter()
        .rev()
        .find_map(|m| m.get("usage").and_then(Value::as_object))
    {
        call.usage = anthropic_usage(usage, Usage::default());
    }
    call.text = texts.join("\n\n");
    call
}

/// A content block while a stream is reassembled.
#[derive(Default)]
struct StreamBlock {
    index: String,
    kind: String,
    text: String,
    name: String,
    partial_json: String,
    input: Option<Value<'static>>,
}

/// Reassembles a call from raw Anthropic SSE events: `message_start` (model, input usage),
/// `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`),
/// `message_delta` (stop reason, final usage).
pub(super) fn call_from_stream(events: &[&Object<'_>]) -> ModelCall {
    let mut call = ModelCall::default();
    let mut blocks: Vec<StreamBlock> = Vec::new();
    for event in events {
        let index = event
            .get("index")
            .map(|v| String::from_utf8_lossy(&json::to_compact(v)).into_owned())
            .unwrap_or_default();
        let block_at = |blocks: &mut Vec<StreamBlock>| -> usize {
            match blocks.iter().position(|b| b.index == index) {
                Some(at) => at,
                None => {
                    blocks.push(StreamBlock {
                        index: index.clone(),
                        ..StreamBlock::default()
                    });
                    blocks.len() - 1
                }
            }
        };
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(message) = event.get("message").and_then(Value::as_object) {
                    call.model = str_field(message, "model");
                    if let Some(usage) = message.get("usage").and_then(Value::as_object) {
                        call.usage = anthropic_usage(usage, call.usage);
                    }
                }
            }
            Some("content_block_start") => {
                let at = block_at(&mut blocks);
                if let Some(start) = event.get("content_block").and_then(Value::as_object) {
                    let b = &mut blocks[at];
                    b.kind = str_field(start, "type").unwrap_or_default();
                    b.text = str_field(start, "text").unwrap_or_default();
                    b.name = str_field(start, "name").unwrap_or_default();
                    b.input = start.get("input").cloned().map(Value::into_owned);
                }
            }
            Some("content_block_delta") => {
                let at = block_at(&mut blocks);
                if let Some(delta) = event.get("delta").and_then(Value::as_object) {
                    let b = &mut blocks[at];
                    match delta.get("type").and_then(Value::as_str) {
                        Some("text_delta") => {
                            b.text
                                .push_str(delta.get("text").and_then(Value::as_str).unwrap_or(""));
                        }
                        Some("input_json_delta") => b.partial_json.push_str(
                            delta
                                .get("partial_json")
                                .and_then(Value::as_str)
                                .unwrap_or(""),
                        ),
                        _ => {}
                    }
                }
            }
            Some("message_delta") => {
                if let Some(stop) = event
                    .get("delta")
                    .and_then(Value::as_object)
                    .and_then(|d| str_field(d, "stop_reason"))
                {
                    call.stop_reason = Some(stop);
                }
                if let Some(usage) = event.get("usage").and_then(Value::as_object) {
                    call.usage = anthropic_usage(usage, call.usage);
                }
            }
            _ => {}
        }
    }
    let mut texts = Vec::new();
    for b in blocks {
        match b.kind.as_str() {
            "text" => texts.push(b.text),
            "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                let parsed = (!b.partial_json.is_empty())
                    .then(|| json::parse(b.partial_json.as_bytes()).ok())
                    .flatten();
                let input = parsed.as_ref().or(b.input.as_ref());
                call.tools.push(ToolUse::from_input(&b.name, input));
            }
            _ => {}
        }
    }
    call.text = texts.join("\n\n");
    call
}

pub(super) fn str_field(o: &Object<'_>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_owned)
}

pub(super) fn count_field(o: &Object<'_>, key: &str) -> Option<u64> {
    match o.get(key) {
        Some(Value::Number(n)) => {
            let f = n.as_f64();
            (f >= 0.0 && f.is_finite()).then_some(f as u64)
        }
        _ => None,
    }
}

/// Anthropic usage fields over `base`: a later event's fields replace earlier ones.
fn anthropic_usage(o: &Object<'_>, base: Usage) -> Usage {
    Usage {
        input: count_field(o, "input_tokens").or(base.input),
        output: count_field(o, "output_tokens").or(base.output),
        cache_read: count_field(o, "cache_read_input_tokens").or(base.cache_read),
        cache_write: count_field(o, "cache_creation_input_tokens").or(base.cache_write),
    }
}

/// dsh usage (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`).
fn dsh_usage(value: Option<&Value<'_>>) -> Usage {
    let Some(o) = value.and_then(Value::as_object) else {
        return Usage::default();
    };
    Usage {
        input: count_field(o, "inputTokens"),
        output: count_field(o, "outputTokens"),
        cache_read: count_field(o, "cacheReadTokens"),
        cache_write: count_field(o, "cacheWriteTokens"),
    }
}

/// What one dsh session log contributes.
struct Session {
    request: Vec<RequestMessage>,
    calls: Vec<ModelCall>,
}

/// A session log's script, one call per entry, each labelled `<name> #<n>`, with the model
/// of the latest `request/header` before it; and its user messages.
fn dsh_session(bytes: &[u8], file: &str, name: &str) -> Result<Session, BehaviourError> {
    let log = dsh::parse_session(bytes, file).map_err(|problems| BehaviourError::Schema {
        file: file.to_owned(),
        message: problems.first().map_or_else(
            || "unreadable session log".to_owned(),
            |p| p.message.clone(),
        ),
    })?;
    let skip = if name.is_empty() || name == dsh::PRIMARY {
        0
    } else {
        log.header.seed_length
    };
    let mut models: Vec<(usize, String)> = Vec::new();
    let mut request = Vec::new();
    for event in log.events.iter().skip(skip) {
        let Some(data) = event.data() else { continue };
        match event.event_type() {
            Some("request/header") => {
                if let Some(model) = header_model(data) {
                    models.push((event.line, model));
                }
            }
            Some("user/message") => {
                let content = user_content(data);
                let text = content
                    .as_array()
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|b| b.as_object()?.get("text")?.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                request.push(RequestMessage {
                    hash: claude_code::message_segment(&content),
                    summary: format!("\"{}\"", shorten(&text, 80)),
                });
            }
            _ => {}
        }
    }
    let derived = dsh::derive_script(&log, skip, file);
    let calls = derived
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| model_call(call, name, i, models.iter()))
        .collect();
    Ok(Session { request, calls })
}

/// A derived call as [`Behaviour::dsh`] shows it: its summary, `<log> #<n>`, and the model of
/// the latest `request/header` at or before its first line (`models`: line and model, in
/// file order).
pub(super) fn model_call<'m>(
    call: &dsh::Call,
    name: &str,
    i: usize,
    models: impl DoubleEndedIterator<Item = &'m (usize, String)>,
) -> ModelCall {
    let mut model_call = summary_call(&call.summary());
    model_call.label = label(name, i);
    model_call.model = models
        .rev()
        .find(|(line, _)| *line <= call.line)
        .map(|(_, m)| m.clone());
    model_call
}

/// The model a `request/header` event's data names (`header.config.model`).
pub(super) fn header_model(data: &Object<'_>) -> Option<String> {
    data.get("header")
        .and_then(Value::as_object)
        .and_then(|h| h.get("config"))
        .and_then(Value::as_object)
        .and_then(|c| str_field(c, "model"))
}

/// The content of a `user/message` event's data (`null` when it has none), whose hash is
/// the request message's.
pub(super) fn user_content<'a>(data: &Object<'a>) -> Value<'a> {
    data.get("content").cloned().unwrap_or(Value::Null)
}

pub(super) fn label(name: &str, i: usize) -> String {
    if name.is_empty() {
        format!("#{}", i + 1)
    } else {
        format!("{name} #{}", i + 1)
    }
}

/// A dsh call summary as a [`ModelCall`] (no label or model yet).
pub(super) fn summary_call(summary: &dsh::CallSummary) -> ModelCall {
    ModelCall {
        label: String::new(),
        text: summary.text.clone(),
        tools: summary
            .tool_calls
            .iter()
            .map(|t| {
                let parsed = json::parse(t.arguments.as_bytes()).ok();
                let mut tool = ToolUse::from_input(&t.name, parsed.as_ref());
                if parsed.is_none() {
                    // Arguments that are not JSON are still arguments: compare them raw.
                    tool.input.clone_from(&t.arguments);
                }
                tool
            })
            .collect(),
        stop_reason: summary.finish.clone(),
        model: None,
        usage: dsh_usage(summary.usage.as_ref()),
    }
}

/// The primary script after `replay.override.json` (B.5): a bare array replaces it, patches
/// replace or append entries. An entry that is not a valid `ReplayEntry` is left out here;
/// `vcr verify` reports it.
pub(super) fn apply_override(
    mut calls: Vec<ModelCall>,
    doc: &Value<'_>,
    name: &str,
) -> Vec<ModelCall> {
    match doc {
        Value::Array(entries) => {
            calls = entries.iter().filter_map(override_call).collect();
        }
        Value::Object(o) => {
            let patches = o.get("patches").and_then(Value::as_array).unwrap_or(&[]);
            for patch in patches {
                let Some(patch) = patch.as_object() else {
                    continue;
                };
                let at = count_field(patch, "at").map(|a| a as usize);
                let entry = patch.get("entry").and_then(override_call);
                if let (Some(at), Some(mut entry)) = (at, entry) {
                    if let Some(old) = calls.get(at) {
                        entry.model.clone_from(&old.model);
                    }
                    if at < calls.len() {
                        calls[at] = entry;
                    } else if at == calls.len() {
                        calls.push(entry);
                    }
                }
            }
        }
        _ => {}
    }
    for (i, call) in calls.iter_mut().enumerate() {
        let base = label(name, i);
        call.label = if call.label == "override" {
            format!("{base}, override")
        } else {
            base
        };
    }
    calls
}

/// One override entry as a call (labelled `override` until numbered).
pub(super) fn override_call(entry: &Value<'_>) -> Option<ModelCall> {
    let o = entry.as_object()?;
    let chunks: Vec<dsh::Chunk> = o
        .get("chunks")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|c| dsh::Chunk {
            value: c.clone().into_owned(),
            line: 0,
            offset: 0,
        })
        .collect();
    let call = dsh::Call {
        key: String::new(),
        line: 0,
        chunks,
        compaction: false,
    };
    let mut model_call = summary_call(&call.summary());
    match o.get("kind").and_then(Value::as_str)? {
        "chunks" => {}
        "throw" => {
            model_call.stop_reason = Some(format!(
                "throw {}",
                o.get("code").and_then(Value::as_str).unwrap_or("")
            ));
        }
        "hang" => model_call.stop_reason = Some("hang".to_owned()),
        _ => return None,
    }
    model_call.label = "override".to_owned();
    Some(model_call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn key(input: &str, expected: Option<&str>) {
        let value = json::parse(input.as_bytes()).unwrap();
        assert_eq!(
            key_argument(value.as_object().unwrap()).as_deref(),
            expected,
            "{input}"
        );
    }

    #[test]
    fn key_arguments_are_the_most_telling_string() {
        key(
            r#"{"file_path":"[CWD]/src/a.ts","old_string":"x"}"#,
            Some("src/a.ts"),
        );
        key(
            r#"{"description":"Run","command":"npm test"}"#,
            Some("npm test"),
        );
        key(r#"{"todos":[],"mode":"fast"}"#, Some("fast"));
        key(r#"{"n":1}"#, None);
        key(r#"{"path":"{{cwd}}/src/cart.ts"}"#, Some("src/cart.ts"));
    }

    #[test]
    fn shorten_masks_a_secret_before_cutting_it() {
        // Regression: the excerpt was masked after the cut, when the key no longer matched.
        let key = format!("sk-ant-api03-{}", "Zq7XvB2mKp9LwR4tYc8NdF3hJs6GaT1uEo5i");
        let text = format!("Here is the thing you asked about, set KEY={key} and go");
        let short = shorten(&text, 60);
        assert!(!short.contains("Zq7X"), "{short}");
        assert!(short.contains("KEY=sk-ant-a"), "{short}");
    }

    #[test]
    fn shorten_cuts_at_the_first_line_and_length() {
        assert_eq!(shorten("abc", 5), "abc");
        assert_eq!(shorten("abcdefgh", 5), "abcde…");
        assert_eq!(shorten("ab\ncd", 5), "ab…");
    }

    #[test]
    fn structured_output_shape_ignores_values_and_list_lengths() {
        let call = |text: &str| ModelCall {
            text: text.to_owned(),
            ..ModelCall::default()
        };
        assert_eq!(
            call(r#"{"ok":true,"items":[{"id":1},{"id":2}]}"#).output_shape(),
            call(r#"{"ok":false,"items":[{"id":7}]}"#).output_shape()
        );
        assert_ne!(
            call(r#"{"ok":true}"#).output_shape(),
            call(r#"{"ok":"yes"}"#).output_shape()
        );
        assert_eq!(call("plain text").output_shape(), None);
    }

    #[test]
    fn stream_events_are_reassembled() {
        let output = r#"[
          {"type":"stream_event","event":{"type":"message_start","message":{"model":"m1","usage":{"input_tokens":10,"output_tokens":1}}}},
          {"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}},
          {"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}},
          {"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}},
          {"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}},
          {"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"comm"}}},
          {"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"and\":\"ls\"}"}}},
          {"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}}
        ]"#;
        let value = json::parse(output.as_bytes()).unwrap();
        let call = call_from_output(value.as_array().unwrap());
        assert_eq!(call.text, "Hello");
        assert_eq!(call.tool_sequence(), "Bash(ls)");
        assert_eq!(call.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(call.model.as_deref(), Some("m1"));
        assert_eq!(call.usage.input, Some(10));
        assert_eq!(call.usage.output, Some(7));
    }
}
