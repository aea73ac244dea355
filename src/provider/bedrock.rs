//! Amazon Bedrock Converse (`/model/<id>/converse`), JSON.

use crate::json::Value;
use crate::kind::http::body;

use super::{ModelCall, Payload, Usage, count_field, str_field, tool};

/// A Bedrock Converse answer: `output.message.content` (`text` and `toolUse` blocks),
/// `stopReason`, `usage`.
pub(super) fn converse(payload: &Payload, path: &str) -> ModelCall {
    let mut call = ModelCall {
        // Bedrock names the model in the URL only.
        model: path
            .split('/')
            .skip_while(|s| *s != "model")
            .nth(1)
            .map(body::percent_decode),
        ..ModelCall::default()
    };
    let Some(o) = payload.objects().into_iter().next() else {
        return call;
    };
    call.stop_reason = str_field(o, "stopReason");
    if let Some(usage) = o.get("usage").and_then(Value::as_object) {
        call.usage = Usage {
            input: count_field(usage, "inputTokens"),
            output: count_field(usage, "outputTokens"),
            cache_read: count_field(usage, "cacheReadInputTokens"),
            cache_write: count_field(usage, "cacheWriteInputTokens"),
        };
    }
    let content = o
        .get("output")
        .and_then(Value::as_object)
        .and_then(|out| out.get("message"))
        .and_then(Value::as_object)
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .unwrap_or(&[]);
    for block in content.iter().filter_map(Value::as_object) {
        if let Some(text) = block.get("text").and_then(Value::as_str) {
            call.text.push_str(text);
        } else if let Some(tool_use) = block.get("toolUse").and_then(Value::as_object) {
            call.tools.push(tool(tool_use, "name", "input"));
        }
    }
    call
}
