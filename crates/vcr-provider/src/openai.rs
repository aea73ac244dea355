//! OpenAI chat completions, the responses API and legacy completions, JSON and streamed; the
//! OpenAI-compatible APIs (DeepSeek, Azure OpenAI, proxies and gateways) speak chat
//! completions. Also speech to text and image generation, whose words are a transcript and a
//! rewritten prompt.

use vcr_json::{Object, Value};

use super::{
    ModelCall, Payload, ToolUse, Usage, count_field, index_key, items, str_field, text_parts, tool,
    tool_from_text,
};

use crate::api::{Api, Keys, Provider, no_shape};

/// OpenAI chat completions (`/v1/chat/completions`, and Azure's and proxies' paths ending in
/// `/chat/completions`); by shape, an answer whose `object` is `chat.completion(.chunk)`.
pub(crate) static CHAT: Api = Api {
    id: "open-ai-chat",
    name: "OpenAI chat completions",
    by_path: |ask| {
        ask.path
            .ends_with("/chat/completions")
            .then_some(Provider(&CHAT))
    },
    by_shape: |ask| {
        ask.field("object")
            .is_some_and(|o| o.starts_with("chat.completion"))
    },
    read: |payload, _| chat(payload),
    messages: |_| Keys::new("", "messages"),
};

/// The OpenAI responses API (`/v1/responses`).
pub(crate) static RESPONSES: Api = Api {
    id: "open-ai-responses",
    name: "OpenAI responses",
    by_path: |ask| {
        (ask.path.ends_with("/responses") && (ask.has("input") || ask.request.is_none()))
            .then_some(Provider(&RESPONSES))
    },
    by_shape: |ask| {
        ask.field("object") == Some("response")
            || (matches!(ask.payload, Payload::Events(_))
                && ask
                    .field("type")
                    .is_some_and(|t| t.starts_with("response.")))
    },
    read: |payload, _| responses(payload),
    messages: |_| Keys::new("instructions", "input"),
};

/// OpenAI's legacy completions (`/v1/completions`: a `prompt`, `choices[].text`).
pub(crate) static COMPLETIONS: Api = Api {
    id: "open-ai-completions",
    name: "OpenAI completions",
    by_path: |ask| {
        (ask.path.ends_with("/completions") && ask.has("prompt")).then_some(Provider(&COMPLETIONS))
    },
    by_shape: |ask| ask.field("object") == Some("text_completion"),
    read: |payload, _| completions(payload),
    messages: |_| Keys::new("", "prompt"),
};

/// OpenAI's speech to text (`/audio/transcriptions`, `/audio/translations`).
pub(crate) static AUDIO: Api = Api {
    id: "open-ai-audio",
    name: "OpenAI audio",
    by_path: |ask| {
        ask.path_ends(&["/audio/transcriptions", "/audio/translations"])
            .then_some(Provider(&AUDIO))
    },
    by_shape: no_shape,
    read: |payload, _| transcription(payload),
    messages: |_| Keys::new("", "prompt"),
};

/// OpenAI's image generation (`/images/generations`): the prompt the model rewrote
/// (`revised_prompt`) is its text.
pub(crate) static IMAGES: Api = Api {
    id: "open-ai-images",
    name: "OpenAI images",
    by_path: |ask| {
        ask.path
            .ends_with("/images/generations")
            .then_some(Provider(&IMAGES))
    },
    by_shape: no_shape,
    read: |payload, _| images(payload),
    messages: |_| Keys::new("", "prompt"),
};

/// OpenAI usage: `prompt_tokens` / `completion_tokens` (chat) or `input_tokens` /
/// `output_tokens` (responses), cached prompt tokens as cache reads.
fn openai_usage(o: &Object<'_>) -> Usage {
    let cached = ["prompt_tokens_details", "input_tokens_details"]
        .iter()
        .find_map(|k| count_field(o.get(k)?.as_object()?, "cached_tokens"));
    Usage {
        input: count_field(o, "prompt_tokens").or_else(|| count_field(o, "input_tokens")),
        output: count_field(o, "completion_tokens").or_else(|| count_field(o, "output_tokens")),
        cache_read: cached,
        cache_write: None,
    }
}

/// Text of a chat message's `content`: a string, or its text parts joined.
fn content_text(content: Option<&Value<'_>>) -> String {
    match content {
        Some(Value::String(s)) => s.as_str().to_owned(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.as_object()?.get("text")?.as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// A tool call being assembled from stream deltas.
#[derive(Default)]
struct PartialTool {
    index: String,
    name: String,
    arguments: String,
}

/// An OpenAI chat completion, JSON or streamed (`chat.completion.chunk` deltas; tool call
/// deltas assembled by their `index`).
pub(super) fn chat(payload: &Payload<'_>) -> ModelCall {
    let mut call = ModelCall::default();
    let mut tools: Vec<PartialTool> = Vec::new();
    for o in payload.objects() {
        model_and_usage(&mut call, o);
        let Some(choice) = choice_of(o) else { continue };
        if let Some(stop) = str_field(choice, "finish_reason") {
            call.stop_reason = Some(stop);
        }
        let Some(message) = choice
            .get("message")
            .or_else(|| choice.get("delta"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        call.text.push_str(&content_text(message.get("content")));
        // DeepSeek's (and OpenRouter's) reasoning beside the answer.
        if let Some(reasoning) = message
            .get("reasoning_content")
            .or_else(|| message.get("reasoning"))
            .and_then(Value::as_str)
        {
            call.thinking.push_str(reasoning);
        }
        if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
            call.text.push_str(refusal);
        }
        let calls = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .unwrap_or(&[]);
        for (position, delta) in calls.iter().enumerate() {
            let Some(delta) = delta.as_object() else {
                continue;
            };
            // Streamed deltas name their tool call by `index`; a JSON message lists them.
            let index = delta.get("index").map_or_else(
                || format!("@{position}"),
                |v| String::from_utf8_lossy(&vcr_json::to_compact(v)).into_owned(),
            );
            let at = match tools.iter().position(|t| t.index == index) {
                Some(at) => at,
                None => {
                    tools.push(PartialTool {
                        index,
                        ..PartialTool::default()
                    });
                    tools.len() - 1
                }
            };
            let function = delta
                .get("function")
                .or_else(|| delta.get("custom"))
                .and_then(Value::as_object);
            if let Some(f) = function {
                if let Some(name) = str_field(f, "name") {
                    tools[at].name.push_str(&name);
                }
                if let Some(arguments) = f
                    .get("arguments")
                    .or_else(|| f.get("input"))
                    .and_then(Value::as_str)
                {
                    tools[at].arguments.push_str(arguments);
                }
            }
        }
        // The legacy single `function_call`.
        if let Some(f) = message.get("function_call").and_then(Value::as_object) {
            if tools.last().is_none_or(|t| t.index != "function_call") {
                tools.push(PartialTool {
                    index: "function_call".to_owned(),
                    ..PartialTool::default()
                });
            }
            let t = tools.last_mut().expect("pushed above");
            if let Some(name) = str_field(f, "name") {
                t.name.push_str(&name);
            }
            if let Some(arguments) = f.get("arguments").and_then(Value::as_str) {
                t.arguments.push_str(arguments);
            }
        }
    }
    call.tools = tools
        .iter()
        .map(|t| tool_from_text(&t.name, &t.arguments))
        .collect();
    call
}

/// A completion chunk's model (the first one named) and usage (the last one given).
fn model_and_usage(call: &mut ModelCall, o: &Object<'_>) {
    if call.model.is_none() {
        call.model = str_field(o, "model").filter(|m| !m.is_empty());
    }
    if let Some(usage) = o.get("usage").and_then(Value::as_object) {
        call.usage = openai_usage(usage);
    }
}

/// The first choice of a chat completion (`index` 0, else the first listed): the call's
/// answer when several were asked for (`n` > 1).
fn choice_of<'a>(o: &'a Object<'_>) -> Option<&'a Object<'a>> {
    let choices = o.get("choices")?.as_array()?;
    choices
        .iter()
        .filter_map(Value::as_object)
        .find(|c| count_field(c, "index").unwrap_or(0) == 0)
}

/// A response of the OpenAI responses API, JSON or streamed (`response.*` events: the
/// final `response.completed` when it was recorded, else the output items and deltas).
pub(super) fn responses(payload: &Payload<'_>) -> ModelCall {
    let objects = payload.objects();
    if let Payload::Json(value) = payload
        && let Some(o) = value.as_object()
    {
        return response_call(o);
    }
    // The last event that carries the whole response (`response.completed`,
    // `response.incomplete`, `response.failed`) says everything.
    let finished = objects.iter().rev().find_map(|e| {
        let kind = e.get("type").and_then(Value::as_str)?;
        matches!(
            kind,
            "response.completed" | "response.incomplete" | "response.failed"
        )
        .then(|| e.get("response")?.as_object())
        .flatten()
    });
    if let Some(response) = finished {
        return response_call(response);
    }
    // Cut short: what the output items and deltas say.
    let mut call = ModelCall::default();
    let mut items: Vec<(String, Value<'static>)> = Vec::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut arguments: Vec<(String, String)> = Vec::new();
    let append = |list: &mut Vec<(String, String)>, index: String, text: &str| match list
        .iter_mut()
        .find(|(i, _)| *i == index)
    {
        Some((_, t)) => t.push_str(text),
        None => list.push((index, text.to_owned())),
    };
    for e in &objects {
        let index = index_key(e, "output_index");
        match e.get("type").and_then(Value::as_str) {
            Some("response.created" | "response.in_progress") => {
                if let Some(r) = e.get("response").and_then(Value::as_object) {
                    call.model = str_field(r, "model");
                }
            }
            Some("response.output_item.added" | "response.output_item.done") => {
                if let Some(item) = e.get("item") {
                    let item = item.clone().into_owned();
                    match items.iter_mut().find(|(i, _)| *i == index) {
                        Some((_, old)) => *old = item,
                        None => items.push((index, item)),
                    }
                }
            }
            Some("response.output_text.delta") => {
                append(
                    &mut texts,
                    index,
                    e.get("delta").and_then(Value::as_str).unwrap_or(""),
                );
            }
            Some("response.function_call_arguments.delta") => append(
                &mut arguments,
                index,
                e.get("delta").and_then(Value::as_str).unwrap_or(""),
            ),
            _ => {}
        }
    }
    let mut text = String::new();
    for (index, item) in &items {
        let Some(o) = item.as_object() else { continue };
        let streamed = |list: &[(String, String)]| {
            list.iter()
                .find(|(i, _)| i == index)
                .map(|(_, t)| t.clone())
        };
        match str_field(o, "type").as_deref() {
            Some("message") => {
                let done = output_text(o);
                text.push_str(&if done.is_empty() {
                    streamed(&texts).unwrap_or_default()
                } else {
                    done
                });
            }
            Some("function_call") => {
                let name = str_field(o, "name").unwrap_or_default();
                let done = str_field(o, "arguments").unwrap_or_default();
                let args = if done.is_empty() {
                    streamed(&arguments).unwrap_or_default()
                } else {
                    done
                };
                call.tools.push(tool_from_text(&name, &args));
            }
            Some("reasoning") => call.thinking.push_str(&text_parts(o, "summary")),
            Some(other) => {
                if let Some(tool) = builtin_tool(other, o) {
                    call.tools.push(tool);
                }
            }
            None => {}
        }
    }
    call.text = text;
    call
}

/// The call a whole response object describes.
fn response_call(o: &Object<'_>) -> ModelCall {
    let mut call = ModelCall {
        model: str_field(o, "model"),
        ..ModelCall::default()
    };
    if let Some(usage) = o.get("usage").and_then(Value::as_object) {
        call.usage = openai_usage(usage);
    }
    call.stop_reason = match str_field(o, "status").as_deref() {
        Some("incomplete") => Some(
            o.get("incomplete_details")
                .and_then(Value::as_object)
                .and_then(|d| str_field(d, "reason"))
                .map_or_else(|| "incomplete".to_owned(), |r| format!("incomplete: {r}")),
        ),
        Some(status) => Some(status.to_owned()),
        None => None,
    };
    for item in items(o, "output") {
        match str_field(item, "type").as_deref() {
            Some("message") => call.text.push_str(&output_text(item)),
            Some("function_call") => call.tools.push(tool(item, "name", "arguments")),
            Some("custom_tool_call") => call.tools.push(tool(item, "name", "input")),
            Some("reasoning") => call.thinking.push_str(&text_parts(item, "summary")),
            Some(other) => call.tools.extend(builtin_tool(other, item)),
            None => {}
        }
    }
    call
}

/// The text of a responses API `message` item: its `output_text` (and `refusal`) parts.
fn output_text(item: &Object<'_>) -> String {
    item.get("content")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|p| {
            p.get("text")
                .or_else(|| p.get("refusal"))
                .and_then(Value::as_str)
        })
        .collect::<Vec<_>>()
        .join("")
}

/// A built-in tool the responses API ran (`web_search_call`, `file_search_call`,
/// `code_interpreter_call`, `mcp_call`, ...): named by its type (an MCP call by its tool),
/// its action or arguments as the input.
fn builtin_tool(kind: &str, item: &Object<'_>) -> Option<ToolUse> {
    if !kind.ends_with("_call") {
        return None;
    }
    if kind == "mcp_call" {
        return Some(tool(item, "name", "arguments"));
    }
    let input = item
        .get("action")
        .or_else(|| item.get("queries"))
        .or_else(|| item.get("code"))
        .or_else(|| item.get("arguments"));
    Some(ToolUse::from_input(kind, input))
}

/// A legacy completion (`/v1/completions`), JSON or streamed (`text_completion` chunks): the
/// first choice's text, its finish reason, the usage.
pub(super) fn completions(payload: &Payload<'_>) -> ModelCall {
    let mut call = ModelCall::default();
    for o in payload.objects() {
        model_and_usage(&mut call, o);
        let Some(choice) = choice_of(o) else { continue };
        call.text
            .push_str(choice.get("text").and_then(Value::as_str).unwrap_or(""));
        if let Some(stop) = str_field(choice, "finish_reason") {
            call.stop_reason = Some(stop);
        }
    }
    call
}

/// A transcription or translation (`/audio/transcriptions`): its `text` (JSON, verbose JSON)
/// or the body itself (`response_format=text`).
pub(super) fn transcription(payload: &Payload<'_>) -> ModelCall {
    let text = match payload {
        Payload::Text(text) => (*text).to_owned(),
        _ => payload
            .objects()
            .first()
            .and_then(|o| str_field(o, "text"))
            .unwrap_or_default(),
    };
    ModelCall {
        text,
        ..ModelCall::default()
    }
}

/// An image generation answer: the prompts the model rewrote (`data[].revised_prompt`), the
/// only words it wrote; the images themselves are data.
pub(super) fn images(payload: &Payload<'_>) -> ModelCall {
    let text: Vec<String> = payload
        .objects()
        .iter()
        .flat_map(|o| items(o, "data"))
        .filter_map(|image| str_field(image, "revised_prompt"))
        .collect();
    ModelCall {
        text: text.join("\n\n"),
        ..ModelCall::default()
    }
}
