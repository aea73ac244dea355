//! Anthropic messages, JSON and streamed. Claude Code's fixtures store the same messages and
//! stream events, so its reader (`vcr diff` on a fixture) calls [`call_from_messages`] and
//! [`call_from_stream`] too.

use vcr_json::{Object, Value};

use super::{ModelCall, Payload, ToolUse, Usage, count_field, index_key, str_field};

use crate::api::{Api, Keys, Provider};

/// Anthropic messages (`/v1/messages`); by shape, an assistant `message` or a stream's
/// `message_start`.
pub(crate) static API: Api = Api {
    id: "anthropic",
    name: "Anthropic messages",
    by_path: |ask| {
        (ask.path.ends_with("/messages") && ask.has("messages")).then_some(Provider(&API))
    },
    by_shape: |ask| {
        (ask.field("type") == Some("message") && ask.field("role") == Some("assistant"))
            || ask.field("type") == Some("message_start")
    },
    read: |payload, _| messages(payload),
    messages: |_| Keys::new("system", "messages"),
};

/// An Anthropic message, JSON or streamed (the existing readers of Claude Code's
/// assistant items and stream events).
pub(super) fn messages(payload: &Payload<'_>) -> ModelCall {
    let objects = payload.objects();
    match payload {
        Payload::Events(_) => call_from_stream(&objects),
        _ => {
            let messages: Vec<&Object<'_>> = objects
                .into_iter()
                .filter(|o| o.get("type").and_then(Value::as_str) == Some("message"))
                .collect();
            call_from_messages(&messages)
        }
    }
}

/// The call Anthropic messages recorded (a fixture's assistant items, or one Messages API
/// response): text and tool-use blocks in order, the first model, the last stop reason,
/// the last usage.
pub fn call_from_messages(assistants: &[&Object<'_>]) -> ModelCall {
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
                Some("thinking") => call
                    .thinking
                    .push_str(&str_field(block, "thinking").unwrap_or_default()),
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
pub fn call_from_stream(events: &[&Object<'_>]) -> ModelCall {
    let mut call = ModelCall::default();
    let mut blocks: Vec<StreamBlock> = Vec::new();
    for event in events {
        let index = index_key(event, "index");
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
                    b.text = str_field(start, "text")
                        .or_else(|| str_field(start, "thinking"))
                        .unwrap_or_default();
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
                        Some("thinking_delta") => {
                            b.text.push_str(
                                delta.get("thinking").and_then(Value::as_str).unwrap_or(""),
                            );
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
            "thinking" => call.thinking.push_str(&b.text),
            "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                let parsed = (!b.partial_json.is_empty())
                    .then(|| vcr_json::parse(b.partial_json.as_bytes()).ok())
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

/// Anthropic usage fields over `base`: a later event's fields replace earlier ones.
fn anthropic_usage(o: &Object<'_>, base: Usage) -> Usage {
    Usage {
        input: count_field(o, "input_tokens").or(base.input),
        output: count_field(o, "output_tokens").or(base.output),
        cache_read: count_field(o, "cache_read_input_tokens").or(base.cache_read),
        cache_write: count_field(o, "cache_creation_input_tokens").or(base.cache_write),
    }
}
