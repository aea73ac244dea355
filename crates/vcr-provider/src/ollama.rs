//! Ollama's `/api/chat` and `/api/generate`, JSON and streamed (one JSON object per line).

use vcr_json::Value;

use super::{ModelCall, Payload, count_field, function_tools, str_field};

/// An Ollama answer: `/api/chat`'s `message` (its `content` and `tool_calls`) or
/// `/api/generate`'s `response`, `done_reason`, the token counts.
pub(super) fn chat(payload: &Payload<'_>) -> ModelCall {
    let mut call = ModelCall::default();
    for o in payload.objects() {
        if let Some(model) = str_field(o, "model") {
            call.model = Some(model);
        }
        if let Some(stop) = str_field(o, "done_reason") {
            call.stop_reason = Some(stop);
        }
        if let Some(n) = count_field(o, "prompt_eval_count") {
            call.usage.input = Some(n);
        }
        if let Some(n) = count_field(o, "eval_count") {
            call.usage.output = Some(n);
        }
        if let Some(text) = o.get("response").and_then(Value::as_str) {
            call.text.push_str(text);
        }
        let Some(message) = o.get("message").and_then(Value::as_object) else {
            continue;
        };
        if let Some(text) = message.get("content").and_then(Value::as_str) {
            call.text.push_str(text);
        }
        call.tools.extend(function_tools(message));
    }
    call
}
