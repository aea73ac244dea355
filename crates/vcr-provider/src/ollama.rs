//! Ollama's `/api/chat` and `/api/generate`, JSON and streamed (one JSON object per line).

use vcr_json::Value;

use super::{ModelCall, Payload, count_field, function_tools, str_field};

use crate::api::{Api, Keys, Provider};

/// Ollama's `/api/chat` and `/api/generate`, JSON and streamed; by shape, `done` beside
/// `model`.
pub(crate) static API: Api = Api {
    id: "ollama",
    name: "Ollama",
    by_path: |ask| {
        ask.path_ends(&["/api/chat", "/api/generate"])
            .then_some(Provider(&API))
    },
    by_shape: |ask| {
        ask.first()
            .is_some_and(|o| o.contains_key("done") && o.contains_key("model"))
    },
    read: |payload, _| chat(payload),
    messages: |o| {
        let list = if o.contains_key("messages") {
            "messages"
        } else {
            "prompt"
        };
        Keys::new("system", list)
    },
};

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
