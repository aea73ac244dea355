//! The LLM APIs, read once: an HTTP interaction becomes a model call (its provider, model,
//! request messages, text, tool calls with their arguments as JSON, server-run tools, stop
//! reason or API error, token usage), whoever recorded it.
//!
//! A cassette stores an API's own words. What the agent did lives in them, spelled a different
//! way by each provider: OpenAI chat completions and responses (and the OpenAI-compatible
//! APIs: DeepSeek, Azure, proxies), Anthropic messages, Gemini and Vertex
//! `generateContent`, Bedrock Converse, Ollama, Cohere, IBM's text generation; each as JSON or
//! as a server-sent event stream. One module per provider turns its request and response
//! into the same [`ModelCall`] and declares its [`Api`], one line of the [`APIS`] table;
//! [`read`] tells the provider ([`detect`]: by the URL path, else by the bodies' shape behind
//! a proxy or a gateway) and calls it. `vcr diff` pairs and compares
//! the calls this layer reads, and never looks inside a provider's JSON itself.
//!
//! Nothing here prints, and nothing here knows a cassette format: the caller hands over the
//! method, the URL path, the request body as JSON and the decoded response body.
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod anthropic;
mod api;
mod bedrock;
mod call;
mod cohere;
mod gemini;
mod ibm;
mod ollama;
mod openai;

pub use anthropic::{call_from_messages, call_from_stream};
pub use api::{Api, Provider};
pub use call::{
    ModelCall, ToolUse, Usage, count_field, shorten, sorted_compact, sorted_entries, str_field,
};

use vcr_cassette::http::body::{Content, Decoded};
use vcr_doc::{Node, NodeValue, Style};
use vcr_json::{Num, Object, Str, Value};

/// What [`read`] makes of a model call's interaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The API it called.
    pub provider: Provider,
    /// What the model answered.
    pub call: ModelCall,
    /// The request's messages, system instructions first (as a message of role `system`).
    pub messages: Vec<Message>,
}

/// One request message of a model call.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message as JSON, with the ids an API hands out (and thinking signatures) blanked:
    /// two recordings of one conversation send equal values.
    pub value: Value<'static>,
    /// The message in a few words: its role, then its text, or its tool calls and results.
    pub summary: String,
}

/// Reads an interaction as a model call: `None` when it calls none of the APIs this layer
/// knows. `path` is the URL's path, `request` the request body when it is JSON, `payload`
/// the response body, `status` the response status when one was recorded.
pub fn read(
    method: &str,
    path: &str,
    request: Option<&Value<'_>>,
    payload: &Payload<'_>,
    status: Option<u16>,
) -> Option<Read> {
    let provider = detect(method, path, request, payload)?;
    let messages = request
        .map(|v| request_messages(provider, v))
        .unwrap_or_default();
    let mut call = (provider.0.read)(payload, path);
    if call.model.is_none() {
        // Bedrock names the model in the URL only (`/model/<id>/invoke`).
        call.model = model_in_path(path);
    }
    if call.model.is_none() {
        // An error answer, or a stream cut short, still says which model was asked.
        call.model = request
            .and_then(Value::as_object)
            .and_then(|o| str_field(o, "model"));
    }
    if let Some(status) = status.filter(|s| *s >= 400) {
        call.stop_reason = Some(error_word(status, payload));
    }
    Some(Read {
        provider,
        call,
        messages,
    })
}

/// Every LLM API whose calls are read as model calls, in the order [`detect`] tries them by
/// path (then by shape, in the same order). Each is declared by its provider's module.
pub static APIS: &[&Api] = &[
    &openai::CHAT,
    &gemini::API,
    &openai::RESPONSES,
    &anthropic::API,
    &bedrock::CONVERSE,
    &ollama::API,
    &openai::COMPLETIONS,
    &openai::AUDIO,
    &openai::IMAGES,
    &ibm::API,
    &bedrock::INVOKE,
    &cohere::API,
];

/// A document node as a JSON value: YAML plain scalars that JSON would read as a number,
/// a boolean or null become one; every other scalar is a string.
pub fn json_value(node: &Node) -> Value<'static> {
    match &node.value {
        NodeValue::Scalar(s) => {
            if s.style == Style::Plain && s.tag.is_none() {
                if node.is_null() {
                    return Value::Null;
                }
                match s.text.as_str() {
                    "true" => return Value::Bool(true),
                    "false" => return Value::Bool(false),
                    text if matches!(vcr_json::parse(text.as_bytes()), Ok(Value::Number(_))) => {
                        return Value::Number(Num(text.to_owned().into()));
                    }
                    _ => {}
                }
            }
            Value::String(Str::new(s.text.clone()))
        }
        NodeValue::Seq(items) => Value::Array(items.iter().map(json_value).collect()),
        NodeValue::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = k.as_scalar().map_or_else(String::new, |s| s.text.clone());
                    (Str::new(key), json_value(v))
                })
                .collect(),
        ),
    }
}

/// What a response body holds for the parsers: one JSON document, or the JSON data of a
/// stream's events (`[DONE]` and other text left out).
pub enum Payload<'d> {
    /// No JSON: an empty body, a form, bytes.
    None,
    /// Text that is no JSON (a transcription asked for as `text`), as the body holds it.
    Text(&'d str),
    /// One JSON document.
    Json(Value<'static>),
    /// The JSON data of each event of a stream: server-sent events, JSON lines (Ollama), an
    /// AWS event stream (Bedrock's `converse-stream`, each event as `{"<event type>": data}`,
    /// the shape AWS's SDKs hand out).
    Events(Vec<Value<'static>>),
}

impl<'d> Payload<'d> {
    /// The payload of a body: `decoded` as the client saw it, `bytes` as stored (what a
    /// binary AWS event stream is read from).
    pub fn of(decoded: &'d Decoded, bytes: &[u8]) -> Payload<'d> {
        let frames = decoded
            .layers
            .contains(&vcr_cassette::http::body::EVENT_STREAM);
        if (frames || matches!(decoded.content, Content::Text(_) | Content::Binary(_)))
            && let Some(events) = bedrock::event_stream(bytes)
        {
            return Payload::Events(events);
        }
        match &decoded.content {
            Content::Text(text) => json_lines(text).map_or(Payload::Text(text), Payload::Events),
            Content::Json(node) => Payload::Json(json_value(node)),
            Content::Sse(events) => Payload::Events(
                events
                    .iter()
                    .filter_map(|e| match &e.data.content {
                        Content::Json(node) => Some(json_value(node)),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => Payload::None,
        }
    }

    /// The JSON objects it holds: the document (each item of a top-level array, as a
    /// Gemini stream without `alt=sse` is), or each event's data.
    pub fn objects(&self) -> Vec<&Object<'static>> {
        match self {
            Payload::None | Payload::Text(_) => Vec::new(),
            Payload::Json(Value::Array(items)) => {
                items.iter().filter_map(Value::as_object).collect()
            }
            Payload::Json(value) => value.as_object().into_iter().collect(),
            Payload::Events(events) => events.iter().filter_map(Value::as_object).collect(),
        }
    }
}

/// The model a path names after `model` (Bedrock's `/model/<id>/invoke`), decoded.
fn model_in_path(path: &str) -> Option<String> {
    path.split('/')
        .skip_while(|s| *s != "model")
        .nth(1)
        .filter(|s| !s.is_empty())
        .map(vcr_cassette::http::body::percent_decode)
}

/// A body of JSON lines, one object per line (Ollama's streams, `application/x-ndjson`):
/// `None` when a line that is not blank is no JSON object.
fn json_lines(text: &str) -> Option<Vec<Value<'static>>> {
    let mut events = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match vcr_json::parse(line.as_bytes()) {
            Ok(value @ Value::Object(_)) => events.push(value.into_owned()),
            _ => return None,
        }
    }
    (!events.is_empty()).then_some(events)
}

/// `path` with the model it names replaced by `{model}`: the segment after `models`,
/// `model`, `tunedModels` or `deployments`, up to a `:method` suffix
/// (`/v1beta/models/gemini-2.0-flash:generateContent` is
/// `/v1beta/models/{model}:generateContent`); and Vertex's project and location by
/// `{projects}` and `{locations}`.
pub fn operation(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut previous = "";
    for (i, segment) in path.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        if matches!(previous, "projects" | "locations") && !segment.is_empty() {
            // Vertex's project and region: where the call went, like its host, not which
            // call it is.
            out.push('{');
            out.push_str(previous);
            out.push('}');
        } else if matches!(previous, "models" | "model" | "tunedModels" | "deployments")
            && !segment.is_empty()
        {
            out.push_str("{model}");
            // A method (`:generateContent`), not a version inside a Bedrock id (`-v1:0`).
            if let Some(at) = segment
                .char_indices()
                .find(|&(i, c)| {
                    c == ':'
                        && segment[i + 1..]
                            .chars()
                            .next()
                            .is_some_and(|n| n.is_ascii_alphabetic())
                })
                .map(|(i, _)| i)
            {
                out.push_str(&segment[at..]);
            }
        } else {
            out.push_str(segment);
        }
        previous = segment;
    }
    out
}

/// `error 429 rate_limit_error`: an API error in the provider's words (OpenAI's and
/// Anthropic's `error.type` or `error.code`, Gemini's `error.status`).
pub fn error_word(status: u16, payload: &Payload<'_>) -> String {
    let kind = payload.objects().first().and_then(|o| {
        let error = o.get("error")?.as_object()?;
        ["type", "status", "code"]
            .iter()
            .find_map(|k| str_field(error, k))
    });
    match kind {
        Some(kind) => format!("error {status} {kind}"),
        None => format!("error {status}"),
    }
}

/// Which LLM API an interaction calls: by the path first, then by the bodies' shape. Every
/// call is a `POST` (a websocket message of a realtime session, which some recorders keep
/// as an interaction, is not one).
pub fn detect(
    method: &str,
    path: &str,
    request: Option<&Value<'_>>,
    payload: &Payload<'_>,
) -> Option<Provider> {
    if method != "POST" {
        return None;
    }
    let path = path.trim_end_matches('/');
    let ask = api::Ask::new(path, request.and_then(Value::as_object), payload);
    if let Some(provider) = APIS.iter().find_map(|api| (api.by_path)(&ask)) {
        return Some(provider);
    }
    // Behind a proxy or a gateway (Bedrock, Vertex, a company's LLM proxy): by shape.
    ask.first()?;
    APIS.iter()
        .find(|api| (api.by_shape)(&ask))
        .map(|api| Provider(api))
}

/// Values that differ between two recordings of one conversation (ids the API handed
/// out, signatures of thinking blocks): left out of the request messages' hashes.
const VOLATILE_FIELDS: [&str; 8] = [
    "id",
    "tool_call_id",
    "call_id",
    "tool_use_id",
    "signature",
    "encrypted_content",
    "thoughtSignature",
    "thought_signature",
];

fn without_ids(value: &mut Value<'_>) {
    match value {
        Value::Object(o) => {
            for (k, v) in o.iter_mut() {
                if VOLATILE_FIELDS.contains(&k.as_str()) && matches!(v, Value::String(_)) {
                    *v = Value::string("");
                } else {
                    without_ids(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_ids),
        _ => {}
    }
}

/// A model call's request messages, system instructions first (as a message of role
/// `system`): what pairs a call with its counterpart and tells where a prompt changed.
pub fn request_messages(provider: Provider, request: &Value<'_>) -> Vec<Message> {
    let Some(o) = request.as_object() else {
        return Vec::new();
    };
    let mut messages: Vec<Value<'static>> = Vec::new();
    let system = |text: &Value<'_>| {
        let mut m = Object::new();
        m.insert(Str::new("role"), Value::string("system"));
        m.insert(Str::new("content"), text.clone().into_owned());
        Value::Object(m)
    };
    let keys = (provider.0.messages)(o);
    let (system_key, list_key) = (keys.system, keys.list);
    if let Some(s) = o.get(system_key).filter(|v| !matches!(v, Value::Null)) {
        messages.push(system(s));
    }
    let user = |text: &str| {
        let mut m = Object::new();
        m.insert(Str::new("role"), Value::string("user"));
        m.insert(Str::new("content"), Value::string(text.to_owned()));
        Value::Object(m)
    };
    match o.get(list_key) {
        Some(Value::Array(items)) => messages.extend(items.iter().map(|m| m.clone().into_owned())),
        Some(Value::String(s)) => messages.push(user(s)),
        _ => {}
    }
    if let Some(turn) = keys.turn
        && let Some(Value::String(s)) = o.get(turn)
    {
        messages.push(user(s));
    }
    messages
        .into_iter()
        .map(|mut m| {
            let summary = message_summary(&m);
            without_ids(&mut m);
            Message { value: m, summary }
        })
        .collect()
}

/// A request message in a few words: its role, then its text, or its tool calls and
/// results (`user "Say hi"`, `assistant get_weather(Paris)`, `tool result "18°C"`).
fn message_summary(message: &Value<'_>) -> String {
    let Some(o) = message.as_object() else {
        return message.type_name().to_owned();
    };
    let role = str_field(o, "role")
        .or_else(|| str_field(o, "type"))
        .unwrap_or_else(|| "message".to_owned());
    let mut parts: Vec<String> = Vec::new();
    let text = |t: &str, parts: &mut Vec<String>| {
        if !t.trim().is_empty() {
            parts.push(format!("\"{}\"", shorten(t, 60)));
        }
    };
    let content = o.get("content").or_else(|| o.get("parts"));
    match content {
        Some(Value::String(s)) => text(s, &mut parts),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                let Some(b) = block.as_object() else {
                    continue;
                };
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    text(t, &mut parts);
                } else if let Some(call) = tool_of(b) {
                    parts.push(call.signature());
                } else if let Some(kind) = str_field(b, "type") {
                    parts.push(kind);
                } else if let Some(first) = b.iter().next() {
                    parts.push(first.0.as_str().to_owned());
                }
            }
        }
        _ => {}
    }
    parts.extend(function_tools(o).map(|t| t.signature()));
    if role == "function_call" {
        parts.push(tool(o, "name", "arguments").signature());
    } else if let Some(output) = o.get("output").and_then(Value::as_str) {
        text(output, &mut parts);
    }
    if parts.is_empty() {
        role
    } else {
        format!("{role} {}", parts.join(", "))
    }
}

/// A tool call block of a request message: Anthropic `tool_use` (and `server_tool_use`,
/// `mcp_tool_use`, tools a server ran), Gemini `functionCall`.
pub(crate) fn tool_of(block: &Object<'_>) -> Option<ToolUse> {
    if matches!(
        block.get("type").and_then(Value::as_str),
        Some("tool_use" | "server_tool_use" | "mcp_tool_use")
    ) {
        return Some(ToolUse::from_input(
            &str_field(block, "name").unwrap_or_default(),
            block.get("input"),
        ));
    }
    let call = block.get("functionCall")?.as_object()?;
    Some(ToolUse::from_input(
        &str_field(call, "name").unwrap_or_default(),
        call.get("args"),
    ))
}

/// The objects of the list under `key` in `o` (none when it is missing or no list): the
/// content blocks, choices, tool calls and parts every provider's answer is made of.
fn items<'o, 'v>(o: &'o Object<'v>, key: &str) -> impl Iterator<Item = &'o Object<'v>> {
    o.get(key)
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(Value::as_object)
}

/// The object at `keys` under `o`, a key a level (`["output", "message"]`): where the
/// providers nest an answer's parts.
fn object_at<'o, 'v>(o: &'o Object<'v>, keys: &[&str]) -> Option<&'o Object<'v>> {
    keys.iter().try_fold(o, |o, key| o.get(key)?.as_object())
}

/// The value of `key` as compact JSON (`0`, `"a"`), empty when there is none: what names the
/// part of a streamed answer a delta adds to.
fn index_key(o: &Object<'_>, key: &str) -> String {
    o.get(key)
        .map(|v| String::from_utf8_lossy(&vcr_json::to_compact(v)).into_owned())
        .unwrap_or_default()
}

/// The tool calls of a message's `tool_calls`, each a `function` with its `name` and
/// `arguments` (OpenAI chat's, and Ollama's and Cohere v2's that copy it).
fn function_tools<'o>(message: &'o Object<'_>) -> impl Iterator<Item = ToolUse> + 'o {
    items(message, "tool_calls")
        .filter_map(|t| t.get("function").and_then(Value::as_object))
        .map(|f| tool(f, "name", "arguments"))
}

/// The text parts of the list under `key` in `o`, joined: each part's `text`.
fn text_parts(o: &Object<'_>, key: &str) -> String {
    items(o, key)
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect()
}

/// A tool call whose arguments are a JSON text (OpenAI's `arguments`): read as the object
/// they hold, or kept raw when they are not JSON.
fn tool(o: &Object<'_>, name_key: &str, arguments_key: &str) -> ToolUse {
    let name = str_field(o, name_key).unwrap_or_default();
    match o.get(arguments_key) {
        Some(Value::String(text)) => tool_from_text(&name, text),
        other => ToolUse::from_input(&name, other),
    }
}

fn tool_from_text(name: &str, arguments: &str) -> ToolUse {
    let parsed = vcr_json::parse(arguments.as_bytes()).ok();
    let mut tool = ToolUse::from_input(name, parsed.as_ref());
    if parsed.is_none() {
        // Arguments that are not JSON (a stream cut short) are still arguments.
        arguments.clone_into(&mut tool.input);
    }
    tool
}
