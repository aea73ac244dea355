//! Cohere: chat v1 (`/v1/chat`: `text`, `tool_calls` with `parameters`, `finish_reason`;
//! streamed as JSON lines of `event_type`s), chat v2 (`/v2/chat`: a `message` of content
//! parts and `tool_calls` as OpenAI's; streamed as `content-delta`, `tool-call-*` and
//! `message-end` events) and generate (`/v1/generate`: `generations`).

use vcr_json::{Object, Value};

use super::{
    ModelCall, Payload, ToolUse, Usage, count_field, function_tools, index_key, items, object_at,
    str_field, text_parts, tool_from_text,
};

use crate::api::{Api, Keys, no_path};

/// Cohere chat (v1 and v2) and generate: told by shape on their paths, which other APIs
/// share (`/v1/chat`).
pub(crate) static API: Api = Api {
    id: "cohere",
    name: "Cohere",
    by_path: no_path,
    by_shape: |ask| {
        ask.path_ends(&["/v1/chat", "/v2/chat", "/v1/generate"])
            && ask.first().is_some_and(|first| {
                [
                    "generation_id",
                    "generations",
                    "event_type",
                    "finish_reason",
                ]
                .iter()
                .any(|k| first.contains_key(k))
            })
    },
    read: |payload, _| chat(payload),
    // v1: the history, then this turn's `message`; v2: `messages`.
    messages: |o| {
        let list = if o.contains_key("messages") {
            "messages"
        } else {
            "chat_history"
        };
        Keys {
            system: "preamble",
            list,
            turn: Some("message"),
        }
    },
};

/// A Cohere answer, JSON or streamed, in any of its three APIs.
pub(super) fn chat(payload: &Payload<'_>) -> ModelCall {
    let mut call = ModelCall::default();
    // v2 tool calls arrive in pieces, by `index`: (index, name, arguments).
    let mut pieces: Vec<(String, String, String)> = Vec::new();
    for o in payload.objects() {
        if let Some(stop) = str_field(o, "finish_reason") {
            call.stop_reason = Some(stop);
        }
        if let Some(usage) = o
            .get("usage")
            .or_else(|| o.get("meta"))
            .and_then(Value::as_object)
        {
            let tokens = usage
                .get("tokens")
                .or_else(|| usage.get("billed_units"))
                .and_then(Value::as_object)
                .unwrap_or(usage);
            call.usage = Usage {
                input: count_field(tokens, "input_tokens"),
                output: count_field(tokens, "output_tokens"),
                ..Usage::default()
            };
        }
        match str_field(o, "event_type")
            .or_else(|| str_field(o, "type"))
            .as_deref()
        {
            // v1 stream: the pieces of text, then the whole response.
            Some("text-generation") => {
                call.text
                    .push_str(o.get("text").and_then(Value::as_str).unwrap_or(""));
                continue;
            }
            Some("stream-end") => {
                if let Some(response) = o.get("response").and_then(Value::as_object) {
                    if let Some(stop) = str_field(response, "finish_reason") {
                        call.stop_reason = Some(stop);
                    }
                    v1_tools(response, &mut call);
                }
                continue;
            }
            // v2 stream.
            Some("content-delta") => {
                let text = object_at(o, &["delta", "message", "content"])
                    .and_then(|c| c.get("text"))
                    .and_then(Value::as_str);
                call.text.push_str(text.unwrap_or(""));
                continue;
            }
            Some("tool-call-start" | "tool-call-delta") => {
                let index = index_key(o, "index");
                let function = object_at(o, &["delta", "message", "tool_calls", "function"]);
                let at = match pieces.iter().position(|p| p.0 == index) {
                    Some(at) => at,
                    None => {
                        pieces.push((index, String::new(), String::new()));
                        pieces.len() - 1
                    }
                };
                if let Some(f) = function {
                    pieces[at]
                        .1
                        .push_str(&str_field(f, "name").unwrap_or_default());
                    pieces[at]
                        .2
                        .push_str(f.get("arguments").and_then(Value::as_str).unwrap_or(""));
                }
                continue;
            }
            Some("message-end") => {
                if let Some(stop) = o
                    .get("delta")
                    .and_then(Value::as_object)
                    .and_then(|d| str_field(d, "finish_reason"))
                {
                    call.stop_reason = Some(stop);
                }
                continue;
            }
            _ => {}
        }
        // v1 chat JSON.
        if let Some(text) = o.get("text").and_then(Value::as_str) {
            call.text.push_str(text);
        }
        v1_tools(o, &mut call);
        // v2 chat JSON.
        if let Some(message) = o.get("message").and_then(Value::as_object) {
            call.text.push_str(&text_parts(message, "content"));
            call.tools.extend(function_tools(message));
        }
        // Generate: the first generation's text.
        if let Some(first) = o
            .get("generations")
            .and_then(Value::as_array)
            .and_then(|g| g.first())
            .and_then(Value::as_object)
        {
            call.text
                .push_str(first.get("text").and_then(Value::as_str).unwrap_or(""));
            if let Some(stop) = str_field(first, "finish_reason") {
                call.stop_reason = Some(stop);
            }
        }
    }
    call.tools.extend(
        pieces
            .iter()
            .map(|(_, name, args)| tool_from_text(name, args)),
    );
    call
}

/// Chat v1's `tool_calls`: each a `name` and its `parameters`.
fn v1_tools(o: &Object<'_>, call: &mut ModelCall) {
    for t in items(o, "tool_calls") {
        if t.contains_key("parameters") {
            call.tools.push(ToolUse::from_input(
                &str_field(t, "name").unwrap_or_default(),
                t.get("parameters"),
            ));
        }
    }
}
