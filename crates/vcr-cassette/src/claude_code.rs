//! Claude Code's VCR fixtures (`fixtures/<6hex>(-<6hex>)*.json`, `fixtures/token-count-<12hex>.json`).
//!
//! A message fixture is `{"input": [...], "output": [...]}`, written by
//! `JSON.stringify(value, null, 2)` with no trailing newline and named by the SHA-1 of each
//! `input` element. Dehydration touches exactly the fields Claude Code 2.1.88 touches
//! (`mapMessages` on the input side, `mapAssistantMessage` on the output side); everything
//! else, notably the raw `stream_event` items, is kept verbatim. The stored `input` is already
//! mapped, so only its string leaves are rewritten: the lodash quirk that turns arrays of
//! scalars into index-keyed objects is never applied a second time.
//!
//! Token-count fixtures are `{"tokenCount": n}`; their key is not stored, so they are parsed
//! and formatted but never renamed.

use sha1::{Digest, Sha1};

use crate::api_error::{self, ApiErrorKind, RecordedError};
use crate::rules::{RuleError, RuleSet, Scope};
use vcr_json::{Object, Str, Value};

mod stream;
pub use stream::{Message, Stored, stream_message};

/// Which Claude Code release's writer to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Version {
    /// 2.1.88, the reference: assistant items are `uuid, requestId, timestamp, message, type`.
    #[default]
    #[serde(rename = "2.1.88")]
    V2_1_88,
    /// 2.1.195: error fields kept between `timestamp` and `message`, base64 images in the
    /// input replaced by `[IMAGE_DATA]`.
    #[serde(rename = "2.1.195")]
    V2_1_195,
}

/// The two file kinds of a Claude Code fixture folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `<6hex>(-<6hex>)*.json`: a recorded model call, named by its input.
    Message,
    /// `token-count-<12hex>.json`: a recorded token count.
    TokenCount,
}

/// Recognises a Claude Code fixture by its file name.
///
/// `.json` alone is the name the harness gives a call with no messages.
pub fn classify(file_name: &str) -> Option<FileKind> {
    let stem = file_name.strip_suffix(".json")?;
    if let Some(hash) = stem.strip_prefix("token-count-") {
        return (hash.len() == 12 && is_lower_hex(hash)).then_some(FileKind::TokenCount);
    }
    if stem.is_empty() {
        return Some(FileKind::Message);
    }
    stem.split('-')
        .all(|segment| segment.len() == 6 && is_lower_hex(segment))
        .then_some(FileKind::Message)
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A value that is valid JSON but not the shape of its kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}` {problem}")]
pub struct SchemaError {
    /// Where in the document, as a JavaScript-style path (`output[3].message`).
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
    /// Byte offset of the offending value, when known.
    pub offset: Option<usize>,
}

fn schema(
    field: impl Into<String>,
    problem: impl Into<String>,
    offset: Option<usize>,
) -> SchemaError {
    SchemaError {
        field: field.into(),
        problem: problem.into(),
        offset,
    }
}

/// Where to point for a problem with `key` of `object`: the value when it has a position,
/// else the key, else the object itself.
fn at(object: &Object<'_>, key: &str) -> Option<usize> {
    object
        .get(key)
        .and_then(Value::source_offset)
        .or_else(|| object.key_span(key).map(|s| s.start as usize))
        .or_else(|| Value::Object(object.clone()).source_offset())
}

/// "found a number", for messages.
fn found(value: &Value<'_>) -> String {
    format!("found {}", value.type_name())
}

/// Checks the `input` of a message fixture: an array of strings and block arrays.
pub fn check_input(value: &Value<'_>) -> Result<(), SchemaError> {
    let Value::Object(root) = value else {
        return Err(schema(
            "(root)",
            format!(
                "must be an object with `input` and `output`, {}",
                found(value)
            ),
            value.source_offset(),
        ));
    };
    let input = match root.get("input") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(schema(
                "input",
                format!("must be an array, {}", found(other)),
                at(root, "input"),
            ));
        }
        None => return Err(schema("input", "is missing", value.source_offset())),
    };
    for (i, item) in input.iter().enumerate() {
        let offset = || item.source_offset().or_else(|| at(root, "input"));
        match item {
            Value::String(_) => {}
            Value::Array(blocks) => {
                if let Some((j, block)) = blocks
                    .iter()
                    .enumerate()
                    .find(|(_, b)| !matches!(b, Value::Object(_) | Value::Null))
                {
                    return Err(schema(
                        format!("input[{i}][{j}]"),
                        format!("must be a content block object, {}", found(block)),
                        block.source_offset().or_else(offset),
                    ));
                }
            }
            other => {
                return Err(schema(
                    format!("input[{i}]"),
                    format!(
                        "must be a string or an array of content blocks, {}",
                        found(other)
                    ),
                    offset(),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that `value` is a message fixture: an object with an `input` array (of strings and
/// block arrays) and an `output` array of objects.
pub fn check_message(value: &Value<'_>) -> Result<(), SchemaError> {
    check_input(value)?;
    let root = value.as_object().expect("check_input accepts objects only");
    let output = match root.get("output") {
        Some(Value::Array(items)) => items,
        Some(Value::Object(_)) => {
            return Err(schema(
                "output",
                "is a single object: this is the old 0.2.x fixture shape, re-record it",
                root.key_span("output").map(|s| s.start as usize),
            ));
        }
        Some(other) => {
            return Err(schema(
                "output",
                format!("must be an array, {}", found(other)),
                at(root, "output"),
            ));
        }
        None => return Err(schema("output", "is missing", value.source_offset())),
    };
    let output_offset = || at(root, "output");
    for (i, item) in output.iter().enumerate() {
        check_output_item(i, item, &output_offset)?;
    }
    Ok(())
}

/// The checks [`check_message`] makes of item `i` of `output`; `output_offset` is where the
/// `output` field is, for an item without a position of its own.
pub fn check_output_item(
    i: usize,
    item: &Value<'_>,
    output_offset: &dyn Fn() -> Option<usize>,
) -> Result<(), SchemaError> {
    let Value::Object(object) = item else {
        return Err(schema(
            format!("output[{i}]"),
            format!("must be an object, {}", found(item)),
            item.source_offset().or_else(output_offset),
        ));
    };
    if object.get("type").and_then(Value::as_str) != Some("assistant") {
        return Ok(());
    }
    let message = match object.get("message") {
        Some(Value::Object(message)) => message,
        Some(other) => {
            return Err(schema(
                format!("output[{i}].message"),
                format!("must be an object, {}", found(other)),
                at(object, "message"),
            ));
        }
        None => {
            return Err(schema(
                format!("output[{i}].message"),
                "is missing",
                item.source_offset(),
            ));
        }
    };
    match message.get("content") {
        Some(Value::Array(_)) => Ok(()),
        Some(other) => Err(schema(
            format!("output[{i}].message.content"),
            format!("must be an array, {}", found(other)),
            at(message, "content"),
        )),
        None => Err(schema(
            format!("output[{i}].message.content"),
            "is missing",
            at(object, "message"),
        )),
    }
}

/// Checks that `value` is a token-count fixture: `{"tokenCount": number | null}`.
pub fn check_token_count(value: &Value<'_>) -> Result<(), SchemaError> {
    let Value::Object(root) = value else {
        return Err(schema(
            "(root)",
            format!("must be an object with `tokenCount`, {}", found(value)),
            value.source_offset(),
        ));
    };
    match root.get("tokenCount") {
        Some(Value::Number(_) | Value::Null) => Ok(()),
        Some(other) => Err(schema(
            "tokenCount",
            format!("must be a number or null, {}", found(other)),
            at(root, "tokenCount"),
        )),
        None => Err(schema("tokenCount", "is missing", value.source_offset())),
    }
}

/// The calls a message fixture recorded as API errors (`recorded/error`), in `output` order.
///
/// Claude Code writes a failed call into `output` in three shapes:
///
/// - an assistant message created by `getAssistantMessageFromError`
///   (`services/api/errors.ts`). Its model is `<synthetic>` and it has one text block. 2.1.195
///   keeps `isApiErrorMessage` and the `error` code (`rate_limit`, `authentication_failed`,
///   ...). 2.1.88's `mapAssistantMessage` drops both, so there the text tells: the constant
///   prefixes of `errors.ts` (`API Error: Request rejected (429)`, `API Error: 500 ...`,
///   `Invalid API key`, `Credit balance is too low`, `Repeated 529 Overloaded errors`, ...);
/// - a `SystemAPIErrorMessage` (`{"type":"system","subtype":"api_error"}`) that `withRetry`
///   yields before each retry. Its `error` is the SDK's `APIError` as JSON, `{status,
///   headers, requestID, error: <the body>}`;
/// - a raw `stream_event` whose event is the API's `error` event (`{"type":"error","error":
///   {"type":"overloaded_error",...}}`). The Anthropic SDK throws on that event rather than
///   yielding it, so 2.1.88 never writes one, but a recorder that keeps raw events does.
///
/// Client timeouts, connection errors and the test's own business (prompt too long, bad
/// request, max tokens) are not recorded errors (see [`crate::api_error`]).
pub fn recorded_errors(value: &Value<'_>) -> Vec<RecordedError> {
    let Some(output) = value
        .as_object()
        .and_then(|o| o.get("output"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    (output.iter().enumerate())
        .filter_map(|(i, item)| recorded_error(i, item))
        .collect()
}

/// The recorded error item `i` of `output` is, if it is one (see [`recorded_errors`]).
pub fn recorded_error(i: usize, item: &Value<'_>) -> Option<RecordedError> {
    let object = item.as_object()?;
    let text = |o: &Object<'_>, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    let found = match object.get("type").and_then(Value::as_str) {
        Some("system") if text(object, "subtype").as_deref() == Some("api_error") => {
            retried_error(object)
        }
        Some("assistant") => assistant_error(object),
        Some("stream_event") => object
            .get("event")
            .and_then(Value::as_object)
            .filter(|e| e.get("type").and_then(Value::as_str) == Some("error"))
            .and_then(|event| event.get("error"))
            .and_then(api_error::body_code)
            .and_then(|code| {
                let kind = ApiErrorKind::from_code(code)?;
                Some((kind, format!("an `error` stream event, `{code}`")))
            }),
        _ => None,
    };
    let (kind, detail) = found?;
    Some(RecordedError {
        kind,
        pointer: format!("/output/{i}"),
        offset: item.source_offset(),
        detail,
    })
}

/// A `SystemAPIErrorMessage`: the status and body of the `APIError` it carries (or, in
/// later releases, of its `errorDetail`).
fn retried_error(item: &Object<'_>) -> Option<(ApiErrorKind, String)> {
    let error = item.get("error").and_then(Value::as_object);
    let status = error
        .and_then(|e| api_error::number(e, "status"))
        .or_else(|| {
            item.get("errorDetail")
                .and_then(Value::as_object)
                .and_then(|d| api_error::number(d, "status"))
        });
    let code = error
        .and_then(|e| e.get("error"))
        .and_then(api_error::body_code);
    let kind = code
        .and_then(ApiErrorKind::from_code)
        .or_else(|| status.and_then(ApiErrorKind::from_status))?;
    let attempt = match (
        api_error::number(item, "retryAttempt"),
        api_error::number(item, "maxRetries"),
    ) {
        (Some(a), Some(m)) => format!(", retry {a} of {m}"),
        _ => String::new(),
    };
    Some((
        kind,
        format!(
            "a retry notice, {}{attempt}",
            api_error::detail(status, code)
        ),
    ))
}

/// The constant starts of `getAssistantMessageFromError`'s texts that name a recorded error
/// (`services/api/errors.ts`), with their kind. `API Error: <status>` is read separately.
const ERROR_TEXTS: [(&str, ApiErrorKind); 11] = [
    ("API Error: Request rejected (429)", ApiErrorKind::RateLimit),
    (
        "Please run /login · API Error",
        ApiErrorKind::Authentication,
    ),
    (
        "Failed to authenticate. API Error",
        ApiErrorKind::Authentication,
    ),
    ("Invalid API key · ", ApiErrorKind::Authentication),
    (
        "Not logged in · Please run /login",
        ApiErrorKind::Authentication,
    ),
    ("OAuth token revoked · ", ApiErrorKind::Authentication),
    ("Authentication error · ", ApiErrorKind::Authentication),
    (
        "Your account does not have access to Claude",
        ApiErrorKind::Authentication,
    ),
    ("Credit balance is too low", ApiErrorKind::Billing),
    ("Repeated 529 Overloaded errors", ApiErrorKind::Server),
    ("Opus is experiencing high load", ApiErrorKind::RateLimit),
];

/// An assistant item that is Claude Code's API error message.
fn assistant_error(item: &Object<'_>) -> Option<(ApiErrorKind, String)> {
    let flagged = matches!(item.get("isApiErrorMessage"), Some(Value::Bool(true)));
    let message = item.get("message").and_then(Value::as_object)?;
    let synthetic = message.get("model").and_then(Value::as_str) == Some("<synthetic>");
    if !flagged && !synthetic {
        return None;
    }
    if let Some(code) = item.get("error").and_then(Value::as_str)
        && let Some(kind) = ApiErrorKind::from_code(code)
    {
        return Some((kind, format!("Claude Code's API error message, `{code}`")));
    }
    let text = message
        .get("content")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.first())
        .and_then(Value::as_object)
        .and_then(|block| block.get("text"))
        .and_then(Value::as_str)?;
    let (kind, quoted) = match ERROR_TEXTS
        .iter()
        .find(|(start, _)| text.starts_with(start))
    {
        Some(&(start, kind)) => (kind, start.trim_end_matches([' ', '·']).to_owned()),
        None => {
            let status = text.strip_prefix("API Error: ")?.get(..3)?;
            let kind = ApiErrorKind::from_status(status.parse().ok()?)?;
            (kind, format!("API Error: {status}"))
        }
    };
    Some((
        kind,
        format!("Claude Code's API error message, \"{quoted}\""),
    ))
}

/// The message fixture's file name for its `input` elements, as the harness computes it:
/// `sha1(JSON.stringify(input[i])).slice(0, 6)` joined by `-`, plus `.json`.
pub fn message_name(input: &[Value<'_>]) -> String {
    let mut name = String::with_capacity(input.len() * 7 + 5);
    let mut buf = Vec::new();
    for (i, element) in input.iter().enumerate() {
        if i > 0 {
            name.push('-');
        }
        name.push_str(&segment(element, &mut buf));
    }
    name.push_str(".json");
    name
}

/// The name segment of one input message: `sha1(JSON.stringify(message))[..6]`.
pub fn message_segment(message: &Value<'_>) -> String {
    segment(message, &mut Vec::new())
}

fn segment(message: &Value<'_>, buf: &mut Vec<u8>) -> String {
    buf.clear();
    vcr_json::write_compact(message, buf);
    hex_prefix(&Sha1::digest(&buf[..]), 6)
}

/// The first `len` lowercase hex digits of a digest.
pub(crate) fn hex_prefix(digest: &[u8], len: usize) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(len);
    for b in digest {
        if out.len() >= len {
            break;
        }
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 0xF)] as char);
    }
    out.truncate(len);
    out
}

/// The `input` elements of a checked message fixture.
pub fn input<'v, 'a>(value: &'v Value<'a>) -> &'v [Value<'a>] {
    value
        .as_object()
        .and_then(|o| o.get("input"))
        .and_then(Value::as_array)
        .unwrap_or(&[])
}

/// Applies the rules of `scope` to the string leaves of a stored `input` element: string
/// content, `text` blocks, `tool_result` strings and text parts, and `tool_use` input leaves.
/// Anything else in the input is left alone. Returns whether anything changed; the error is
/// a user rule that was stopped.
pub fn dehydrate_input_element(
    element: &mut Value<'_>,
    rules: &RuleSet,
    scope: Scope,
    version: Version,
) -> Result<bool, RuleError> {
    match element {
        Value::String(s) => apply(s, rules, scope),
        Value::Array(blocks) => {
            let mut changed = false;
            for block in blocks.iter_mut().filter_map(Value::as_object_mut) {
                changed |= dehydrate_input_block(block, rules, scope, version)?;
            }
            Ok(changed)
        }
        _ => Ok(false),
    }
}

fn dehydrate_input_block(
    block: &mut Object<'_>,
    rules: &RuleSet,
    scope: Scope,
    version: Version,
) -> Result<bool, RuleError> {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => match block.get_mut("text") {
            Some(Value::String(text)) => apply(text, rules, scope),
            _ => Ok(false),
        },
        Some("tool_result") => match block.get_mut("content") {
            Some(Value::String(content)) => apply(content, rules, scope),
            Some(Value::Array(parts)) => {
                let mut changed = false;
                let texts = parts
                    .iter_mut()
                    .filter_map(Value::as_object_mut)
                    .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"));
                for part in texts {
                    if let Some(Value::String(text)) = part.get_mut("text") {
                        changed |= apply(text, rules, scope)?;
                    }
                }
                Ok(changed)
            }
            _ => Ok(false),
        },
        Some("tool_use") => match block.get_mut("input") {
            Some(input) => dehydrate_leaves(input, rules, scope),
            None => Ok(false),
        },
        Some("image") if version == Version::V2_1_195 => match block.get_mut("source") {
            Some(Value::Object(source))
                if source.get("type").and_then(Value::as_str) == Some("base64")
                    && source.get("data").and_then(Value::as_str) != Some("[IMAGE_DATA]") =>
            {
                source.insert(Str::new("data"), Value::string("[IMAGE_DATA]"));
                Ok(true)
            }
            _ => Ok(false),
        },
        _ => Ok(false),
    }
}

/// `mapValuesDeep(value, dehydrateValue)` on an already-mapped value: every string leaf.
fn dehydrate_leaves(
    value: &mut Value<'_>,
    rules: &RuleSet,
    scope: Scope,
) -> Result<bool, RuleError> {
    let mut changed = Ok(false);
    value.for_each_string_mut(&mut |s| {
        if let Ok(so_far) = changed {
            changed = apply(s, rules, scope).map(|c| c | so_far);
        }
    });
    changed
}

/// Rewrites one string; returns whether it changed.
fn apply(s: &mut Str<'_>, rules: &RuleSet, scope: Scope) -> Result<bool, RuleError> {
    if let std::borrow::Cow::Owned(new) = rules.apply(s.as_str(), scope)?
        && new != s.as_str()
    {
        s.set(new);
        return Ok(true);
    }
    Ok(false)
}

/// Applies the key rules to every `input` element; returns whether anything changed.
///
/// This is what `vcr rehash` does before computing the name: the output is left alone.
pub fn dehydrate_input(
    value: &mut Value<'_>,
    rules: &RuleSet,
    version: Version,
) -> Result<bool, RuleError> {
    let mut changed = false;
    if let Some(Value::Array(items)) = value.as_object_mut().and_then(|o| o.get_mut("input")) {
        for element in items {
            changed |= dehydrate_input_element(element, rules, Scope::Key, version)?;
        }
    }
    Ok(changed)
}

/// Brings a checked message fixture to what Claude Code's writer would have written: key
/// rules on `input`, payload rules and `mapAssistantMessage` on the assistant items of
/// `output`, everything else verbatim. Returns whether the key material changed.
pub fn normalize_message(
    value: &mut Value<'_>,
    rules: &RuleSet,
    version: Version,
) -> Result<bool, RuleError> {
    let key_changed = dehydrate_input(value, rules, version)?;
    let Some(Value::Array(items)) = value.as_object_mut().and_then(|o| o.get_mut("output")) else {
        return Ok(key_changed);
    };
    for (index, item) in items.iter_mut().enumerate() {
        map_output_item(index, item, rules, version)?;
    }
    Ok(key_changed)
}

/// What [`normalize_message`] does to item `index` of `output`: `mapAssistantMessage` on
/// an assistant item, nothing to the others.
pub fn map_output_item(
    index: usize,
    item: &mut Value<'_>,
    rules: &RuleSet,
    version: Version,
) -> Result<(), RuleError> {
    if let Value::Object(object) = item
        && object.get("type").and_then(Value::as_str) == Some("assistant")
    {
        let old = std::mem::take(object);
        *object = map_assistant_message(old, index, rules, version)?;
    }
    Ok(())
}

/// Applies the payload rules to every string leaf of the `event` of each `stream_event` item
/// of `output`; returns whether anything changed.
///
/// Claude Code stores stream events raw, so by default they are left with the seed's bytes.
/// This is what `[claude-code] dehydrate-stream-events = true` asks for instead: a cwd or
/// config home in a delta would otherwise stay in a tree whose every other field is
/// dehydrated. Each string is rewritten on its own, so a path split across two deltas is
/// not replaced (and `vcr verify` still reports what remains of it).
pub fn dehydrate_stream_events(value: &mut Value<'_>, rules: &RuleSet) -> Result<bool, RuleError> {
    let Some(Value::Array(items)) = value.as_object_mut().and_then(|o| o.get_mut("output")) else {
        return Ok(false);
    };
    let mut changed = false;
    for item in items {
        changed |= dehydrate_stream_event(item, rules)?;
    }
    Ok(changed)
}

/// What [`dehydrate_stream_events`] does to one item of `output`.
pub fn dehydrate_stream_event(item: &mut Value<'_>, rules: &RuleSet) -> Result<bool, RuleError> {
    match item.as_object_mut() {
        Some(item) if item.get("type").and_then(Value::as_str) == Some("stream_event") => {
            match item.get_mut("event") {
                Some(event) => dehydrate_leaves(event, rules, Scope::Payload),
                None => Ok(false),
            }
        }
        _ => Ok(false),
    }
}

/// Top-level fields 2.1.195 keeps between `timestamp` and `message`.
const ERROR_FIELDS_2_1_195: [&str; 5] = [
    "isApiErrorMessage",
    "apiError",
    "error",
    "errorDetails",
    "healsDistinctCarrier",
];

/// `mapAssistantMessage(msg, dehydrateValue, index)`: deterministic ids, the seed's key
/// order, other top-level fields dropped, content blocks mapped.
fn map_assistant_message<'a>(
    mut msg: Object<'a>,
    index: usize,
    rules: &RuleSet,
    version: Version,
) -> Result<Object<'a>, RuleError> {
    let mut out = Object::new();
    out.insert(Str::new("uuid"), Value::string(format!("UUID-{index}")));
    out.insert(Str::new("requestId"), Value::string("REQUEST_ID"));
    // A key holding `undefined` is not written; a stored file never has one, so a missing
    // key stays missing.
    if let Some(timestamp) = msg.remove("timestamp") {
        out.insert(Str::new("timestamp"), timestamp);
    }
    if version == Version::V2_1_195 {
        for field in ERROR_FIELDS_2_1_195 {
            if let Some(value) = msg.remove(field) {
                out.insert(Str::new(field), value);
            }
        }
    }
    let mut message = match msg.remove("message") {
        Some(Value::Object(message)) => message,
        _ => Object::new(),
    };
    if let Some(Value::Array(blocks)) = message.get_mut("content") {
        let old = std::mem::take(blocks);
        *blocks = old
            .into_iter()
            .map(|block| map_output_block(block, rules))
            .filter(|block| block.as_ref().is_ok_and(Value::is_truthy) || block.is_err())
            .collect::<Result<_, _>>()?;
    }
    out.insert(Str::new("message"), Value::Object(message));
    out.insert(Str::new("type"), Value::string("assistant"));
    Ok(out)
}

/// The output side of `mapAssistantMessage`'s content mapping.
fn map_output_block<'a>(mut block: Value<'a>, rules: &RuleSet) -> Result<Value<'a>, RuleError> {
    let Value::Object(object) = &mut block else {
        return Ok(block);
    };
    match object.get("type").and_then(Value::as_str) {
        Some("text") => {
            if let Some(Value::String(text)) = object.get_mut("text") {
                apply(text, rules, Scope::Payload)?;
            }
            // `citations: b.citations || []`: kept in place if truthy, else `[]` (appended
            // when absent).
            let keep = object.get("citations").is_some_and(Value::is_truthy);
            if !keep {
                object.insert(Str::new("citations"), Value::Array(Vec::new()));
            }
        }
        Some("tool_use") => {
            if let Some(input) = object.get_mut("input") {
                dehydrate_leaves(input, rules, Scope::Payload)?;
            }
        }
        _ => {}
    }
    Ok(block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Machine, Platform, claude_code};

    fn rules() -> RuleSet {
        RuleSet::new(claude_code(&Machine {
            cwd: "/home/u/proj".into(),
            config_home: "/home/u/.claude".into(),
            platform: Platform::Unix,
        }))
        .unwrap()
    }

    #[test]
    fn classifies_names() {
        assert_eq!(classify("a1f2fb.json"), Some(FileKind::Message));
        assert_eq!(classify("a1f2fb-0e9579.json"), Some(FileKind::Message));
        assert_eq!(classify(".json"), Some(FileKind::Message));
        assert_eq!(
            classify("token-count-e81e0bac9db2.json"),
            Some(FileKind::TokenCount)
        );
        assert_eq!(classify("A1F2FB.json"), None);
        assert_eq!(classify("a1f2f.json"), None);
        assert_eq!(classify("a1f2fb-.json"), None);
        assert_eq!(classify("token-count-e81e0bac9db.json"), None);
        assert_eq!(classify("package.json"), None);
    }

    #[test]
    fn names_match_the_seed_examples() {
        // formats.md A.2: "hello" -> a1f2fb, [{"type":"text","text":"hello"}] -> 0e9579.
        let v = vcr_json::parse(br#"["hello", [{"type":"text","text":"hello"}]]"#).unwrap();
        assert_eq!(message_name(v.as_array().unwrap()), "a1f2fb-0e9579.json");
        assert_eq!(message_name(&[]), ".json");
    }

    #[test]
    fn schema_errors_name_the_field() {
        let cases: [(&str, &str); 7] = [
            (
                "[]",
                "`(root)` must be an object with `input` and `output`, found an array",
            ),
            (r#"{"output":[]}"#, "`input` is missing"),
            (
                r#"{"input":{},"output":[]}"#,
                "`input` must be an array, found an object",
            ),
            (
                r#"{"input":[1],"output":[]}"#,
                "`input[0]` must be a string or an array of content blocks, found a number",
            ),
            (
                r#"{"input":[],"output":{"type":"assistant"}}"#,
                "`output` is a single object: this is the old 0.2.x fixture shape, re-record it",
            ),
            (
                r#"{"input":[],"output":[{"type":"assistant","message":{}}]}"#,
                "`output[0].message.content` is missing",
            ),
            (
                r#"{"input":[],"output":[3]}"#,
                "`output[0]` must be an object, found a number",
            ),
        ];
        for (text, message) in cases {
            let v = vcr_json::parse(text.as_bytes()).unwrap();
            assert_eq!(
                check_message(&v).unwrap_err().to_string(),
                message,
                "{text}"
            );
        }
    }

    #[test]
    fn assistant_items_are_rebuilt_in_the_seed_order() {
        let text = r#"{"input":["at /home/u/proj/a"],"output":[
            {"type":"stream_event","event":{"delta":{"text":"/home/u/proj"}}},
            {"type":"assistant","costUSD":1,"message":{"id":"m","content":[
                {"type":"text","text":"see /home/u/proj/x"},
                {"type":"text","citations":null,"text":"c"},
                {"type":"tool_use","input":{"path":"/home/u/proj/y","n":[1]}},
                0
            ],"usage":{}},"uuid":"0f0e","timestamp":"2026-01-01T00:00:00Z","requestId":"req_1"}
        ]}"#;
        let mut v = vcr_json::parse(text.as_bytes()).unwrap();
        check_message(&v).unwrap();
        normalize_message(&mut v, &rules(), Version::V2_1_88).unwrap();
        let expected = r#"{"input":["at [CWD]/a"],"output":[{"type":"stream_event","event":{"delta":{"text":"/home/u/proj"}}},{"uuid":"UUID-1","requestId":"REQUEST_ID","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","content":[{"type":"text","text":"see [CWD]/x","citations":[]},{"type":"text","citations":[],"text":"c"},{"type":"tool_use","input":{"path":"[CWD]/y","n":[1]}}],"usage":{}},"type":"assistant"}]}"#;
        assert_eq!(
            String::from_utf8(vcr_json::to_compact(&v)).unwrap(),
            expected
        );
    }

    #[test]
    fn stream_events_get_the_payload_rules_only_when_asked() {
        // Issue 11: `dehydrate-stream-events` rewrites the string leaves of each stream
        // event's `event` with the payload rules, and nothing else of the item.
        let text = r#"{"input":["x"],"output":[
            {"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"in /home/u/proj/a and /home/u/.claude/b"}},"ttftMs":12},
            {"type":"stream_event","event":{"delta":{"partial_json":"{\"path\": \"/home/u/proj/c\"}"},"n":[1,"/home/u/proj"]}},
            {"type":"other","event":{"text":"/home/u/proj"}},
            {"type":"stream_event","event":{"delta":{"text":"/home/u/pr"}}}
        ]}"#;
        let mut v = vcr_json::parse(text.as_bytes()).unwrap();
        let before = vcr_json::to_compact(&v);
        normalize_message(&mut v, &rules(), Version::V2_1_88).unwrap();
        assert_eq!(vcr_json::to_compact(&v), before, "off: the seed's bytes");
        assert!(dehydrate_stream_events(&mut v, &rules()).unwrap());
        let expected = r#"{"input":["x"],"output":[{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"in [CWD]/a and [CONFIG_HOME]/b"}},"ttftMs":12},{"type":"stream_event","event":{"delta":{"partial_json":"{\"path\": \"[CWD]/c\"}"},"n":[1,"[CWD]"]}},{"type":"other","event":{"text":"/home/u/proj"}},{"type":"stream_event","event":{"delta":{"text":"/home/u/pr"}}}]}"#;
        assert_eq!(
            String::from_utf8(vcr_json::to_compact(&v)).unwrap(),
            expected
        );
        assert!(
            !dehydrate_stream_events(&mut v, &rules()).unwrap(),
            "idempotent"
        );
    }

    #[test]
    fn version_2_1_195_keeps_error_fields_and_hides_images() {
        let text = r#"{"input":[[{"type":"image","source":{"type":"base64","data":"AAAA"}}]],"output":[
            {"type":"assistant","message":{"content":[]},"error":"overloaded","isApiErrorMessage":true}]}"#;
        let mut v = vcr_json::parse(text.as_bytes()).unwrap();
        normalize_message(&mut v, &rules(), Version::V2_1_195).unwrap();
        let expected = r#"{"input":[[{"type":"image","source":{"type":"base64","data":"[IMAGE_DATA]"}}]],"output":[{"uuid":"UUID-0","requestId":"REQUEST_ID","isApiErrorMessage":true,"error":"overloaded","message":{"content":[]},"type":"assistant"}]}"#;
        assert_eq!(
            String::from_utf8(vcr_json::to_compact(&v)).unwrap(),
            expected
        );
    }

    #[test]
    fn input_mapping_touches_only_the_seed_fields() {
        let text = r#"{"input":[[
            {"type":"text","text":"/home/u/proj"},
            {"type":"tool_result","content":[{"type":"text","text":"/home/u/proj"},{"type":"other","text":"/home/u/proj"}]},
            {"type":"tool_use","input":{"a":{"b":["/home/u/proj"]}},"name":"/home/u/proj"},
            {"type":"thinking","thinking":"/home/u/proj"}
        ]],"output":[]}"#;
        let mut v = vcr_json::parse(text.as_bytes()).unwrap();
        normalize_message(&mut v, &rules(), Version::V2_1_88).unwrap();
        let expected = r#"{"input":[[{"type":"text","text":"[CWD]"},{"type":"tool_result","content":[{"type":"text","text":"[CWD]"},{"type":"other","text":"/home/u/proj"}]},{"type":"tool_use","input":{"a":{"b":["[CWD]"]}},"name":"/home/u/proj"},{"type":"thinking","thinking":"/home/u/proj"}]],"output":[]}"#;
        assert_eq!(
            String::from_utf8(vcr_json::to_compact(&v)).unwrap(),
            expected
        );
    }
}

#[cfg(test)]
mod recorded_error_tests {
    use super::*;

    /// An assistant item as 2.1.88's `mapAssistantMessage` writes the message that
    /// `createAssistantAPIErrorMessage` makes (`<synthetic>` model, empty usage, the text block
    /// with `citations` appended; `isApiErrorMessage` and `error` dropped).
    fn synthetic(text: &str) -> String {
        format!(
            r#"{{"uuid":"UUID-0","requestId":"REQUEST_ID","timestamp":"2026-11-30T10:00:00.000Z","message":{{"id":"4a2c0f3e-5b71-4c1e-9d0a-2f6e8b9c1d34","container":null,"model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","stop_sequence":"","type":"message","usage":{{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"content":[{{"type":"text","text":{},"citations":[]}}],"context_management":null}},"type":"assistant"}}"#,
            serde_json::to_string(text).unwrap()
        )
    }

    #[track_caller]
    fn case(items: &[String], want: &[(&str, ApiErrorKind, &str)]) {
        let text = format!(r#"{{"input":["hi"],"output":[{}]}}"#, items.join(","));
        let value = vcr_json::parse(text.as_bytes()).unwrap();
        let got = recorded_errors(&value);
        let got: Vec<(&str, ApiErrorKind, &str)> = got
            .iter()
            .map(|e| (e.pointer.as_str(), e.kind, e.detail.as_str()))
            .collect();
        assert_eq!(got, want, "{text}");
    }

    #[test]
    fn api_error_messages_of_2_1_88_are_told_by_their_text() {
        use ApiErrorKind::*;
        for (text, kind, quoted) in [
            (
                "API Error: Request rejected (429) · rate limited",
                RateLimit,
                "API Error: Request rejected (429)",
            ),
            (
                "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}",
                Server,
                "API Error: 500",
            ),
            (
                "Invalid API key · Please run /login",
                Authentication,
                "Invalid API key",
            ),
            (
                "Please run /login · API Error: 401 {\"type\":\"error\"}",
                Authentication,
                "Please run /login · API Error",
            ),
            (
                "Credit balance is too low",
                Billing,
                "Credit balance is too low",
            ),
            (
                "Repeated 529 Overloaded errors",
                Server,
                "Repeated 529 Overloaded errors",
            ),
        ] {
            let detail = format!("Claude Code's API error message, \"{quoted}\"");
            case(&[synthetic(text)], &[("/output/0", kind, &detail)]);
        }
        // The test's own business, the client's side, and the user: not recorded errors.
        for text in [
            "Prompt is too long",
            "Request timed out",
            "API Error: Connection error.",
            "API Error: 400 due to tool use concurrency issues.",
            "[Request interrupted by user]",
        ] {
            case(&[synthetic(text)], &[]);
        }
        // A real answer that talks about errors is an answer.
        let answer = synthetic("API Error: 500 is what the server said").replace(
            "\"model\":\"<synthetic>\"",
            "\"model\":\"claude-sonnet-4-5-20250929\"",
        );
        case(&[answer], &[]);
    }

    #[test]
    fn flagged_messages_retries_and_error_events_are_found() {
        use ApiErrorKind::*;
        // 2.1.195 keeps `isApiErrorMessage` and the `error` code.
        let flagged = synthetic("Not logged in · Please run /login").replacen(
            "\"message\":",
            "\"isApiErrorMessage\":true,\"error\":\"authentication_failed\",\"message\":",
            1,
        );
        // `withRetry`'s notice: the SDK's APIError as JSON (status, headers, requestID, error).
        let retry = r#"{"type":"system","subtype":"api_error","level":"error","error":{"status":529,"headers":{},"requestID":"req_011CV5J4YZo4J3KLTDZgDN7S","error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}},"retryInMs":1000,"retryAttempt":1,"maxRetries":10,"timestamp":"2026-11-30T10:00:00.000Z","uuid":"9b1d3c52-7e4f-4a60-8c2b-5d7e9f1a3b46"}"#.to_owned();
        let event = r#"{"type":"stream_event","event":{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}}"#.to_owned();
        let start = r#"{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}},"ttftMs":120}"#.to_owned();
        case(
            &[start, retry, flagged, event],
            &[
                (
                    "/output/1",
                    Server,
                    "a retry notice, HTTP 529, `overloaded_error`, retry 1 of 10",
                ),
                (
                    "/output/2",
                    Authentication,
                    "Claude Code's API error message, `authentication_failed`",
                ),
                (
                    "/output/3",
                    RateLimit,
                    "an `error` stream event, `rate_limit_error`",
                ),
            ],
        );
        // A connection failure has no status or body: it is not the provider's answer.
        case(
            &[r#"{"type":"system","subtype":"api_error","level":"error","error":{},"retryInMs":500,"retryAttempt":1,"maxRetries":10}"#.to_owned()],
            &[],
        );
    }
}
