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

use vcr_cassette::claude_code;
use vcr_cassette::dsh;
use vcr_json::{Object, Value};
pub(super) use vcr_provider::{
    ModelCall, ToolUse, Usage, call_from_messages, call_from_stream, count_field, shorten,
    sorted_entries, str_field,
};

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
                    String::from_utf8_lossy(&vcr_json::to_compact(&Value::String(k.clone())))
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
    pub fn detect(
        bytes: &[u8],
        file: &str,
        options: &vcr_cassette::http::ReadOptions,
    ) -> Option<Result<Behaviour, BehaviourError>> {
        if let Ok(value) = vcr_json::parse(bytes) {
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
            && let Ok(header) = vcr_json::parse(first)
            && header
                .as_object()
                .and_then(|o| o.get("type"))
                .and_then(Value::as_str)
                == Some("session")
        {
            return Some(Behaviour::dsh_log(bytes, file));
        }
        Behaviour::http(std::path::Path::new(file), bytes, file, options).transpose()
    }

    /// Reads an HTTP cassette (any format [`vcr_cassette::http::read`] knows; `path` is
    /// where its sidecar files are, `file` names it in errors): `Ok(None)` when the bytes
    /// are no HTTP cassette.
    pub fn http(
        path: &std::path::Path,
        bytes: &[u8],
        file: &str,
        options: &vcr_cassette::http::ReadOptions,
    ) -> Result<Option<Behaviour>, BehaviourError> {
        super::http::behaviour(path, bytes, file, options)
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
            write_summary(call, &mut out, "  ");
        }
        out
    }
}

/// The shape of a model call's text when it is structured output (a JSON object or array): keys
/// and value types, not values, so rewording inside it is not a shape change. A Markdown code
/// fence around the JSON (`` ```json ... ``` ``) is text, not shape: the same value fenced or
/// not has one shape, and the fence that came or went is reworded text (issue 42).
pub(super) fn output_shape(call: &ModelCall) -> Option<String> {
    let text = unfenced(&call.text);
    if !(text.starts_with('{') || text.starts_with('[')) {
        return None;
    }
    let value = vcr_json::parse(text.as_bytes()).ok()?;
    let mut out = String::new();
    shape(&value, &mut out);
    Some(out)
}

/// A text without the Markdown code fence that wraps it whole (`` ```json ``, `` ``` ``, any
/// info string of one word), trimmed; the text trimmed when it has none.
fn unfenced(text: &str) -> &str {
    let text = text.trim();
    let Some(body) = text
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
    else {
        return text;
    };
    match body.split_once('\n') {
        Some((info, inner))
            if info
                .trim()
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'+')) =>
        {
            inner.trim()
        }
        _ => text,
    }
}

/// A model call's facts for the textconv summary, one per line, each line starting with
/// `indent`: model, stop reason, usage, text, tool calls with every argument.
pub(super) fn write_summary(call: &ModelCall, out: &mut String, indent: &str) {
    if let Some(model) = &call.model {
        let _ = writeln!(out, "{indent}model: {model}");
    }
    if let Some(stop) = &call.stop_reason {
        let _ = writeln!(out, "{indent}stop: {stop}");
    }
    if !call.usage.is_empty() {
        let _ = writeln!(out, "{indent}usage: {}", call.usage.describe());
    }
    if !call.text.is_empty() {
        let _ = writeln!(out, "{indent}text:");
        for line in call.text.lines() {
            let _ = writeln!(out, "{indent}  {line}");
        }
    }
    for tool in &call.tools {
        let _ = writeln!(out, "{indent}tool: {}", tool.signature());
        for (name, value) in &tool.arguments {
            let value = value.replace('\n', "\\n");
            let _ = writeln!(out, "{indent}  {name}: {value}");
        }
    }
}

pub(super) fn parse<'a>(bytes: &'a [u8], file: &str) -> Result<Value<'a>, BehaviourError> {
    vcr_json::parse(bytes).map_err(|e| BehaviourError::Parse {
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
        thinking: String::new(),
        tools: summary
            .tool_calls
            .iter()
            .map(|t| {
                let parsed = vcr_json::parse(t.arguments.as_bytes()).ok();
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

    #[test]
    fn structured_output_shape_ignores_values_and_list_lengths() {
        let call = |text: &str| ModelCall {
            text: text.to_owned(),
            ..ModelCall::default()
        };
        assert_eq!(
            output_shape(&call(r#"{"ok":true,"items":[{"id":1},{"id":2}]}"#)),
            output_shape(&call(r#"{"ok":false,"items":[{"id":7}]}"#))
        );
        assert_ne!(
            output_shape(&call(r#"{"ok":true}"#)),
            output_shape(&call(r#"{"ok":"yes"}"#))
        );
        assert_eq!(output_shape(&call("plain text")), None);
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
        let value = vcr_json::parse(output.as_bytes()).unwrap();
        let call = call_from_output(value.as_array().unwrap());
        assert_eq!(call.text, "Hello");
        assert_eq!(call.tool_sequence(), "Bash(ls)");
        assert_eq!(call.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(call.model.as_deref(), Some("m1"));
        assert_eq!(call.usage.input, Some(10));
        assert_eq!(call.usage.output, Some(7));
    }
}
