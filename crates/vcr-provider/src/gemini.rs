//! Gemini and Vertex AI `generateContent` and `streamGenerateContent`: one response, a JSON
//! array of them, or server-sent events (`alt=sse`).

use vcr_json::{Object, Str, Value};

use super::{
    ModelCall, Payload, ToolUse, Usage, count_field, items, object_at, str_field, tool_of,
};

use crate::api::{Api, Keys, Provider};

/// Gemini `generateContent` and `streamGenerateContent`; by shape, `candidates` answering
/// `contents`.
pub(crate) static API: Api = Api {
    id: "gemini",
    name: "Gemini generateContent",
    by_path: |ask| {
        (ask.path.contains(":generateContent") || ask.path.contains(":streamGenerateContent"))
            .then_some(Provider(&API))
    },
    by_shape: |ask| {
        ask.first().is_some_and(|o| o.contains_key("candidates")) && ask.has("contents")
    },
    read: |payload, _| generate_content(payload),
    messages: |o| {
        let system = if o.contains_key("system_instruction") {
            "system_instruction"
        } else {
            "systemInstruction"
        };
        Keys::new(system, "contents")
    },
};

/// A Gemini answer: one `GenerateContentResponse`, or a stream of them (a JSON array, or
/// server-sent events with `alt=sse`): text parts joined (thoughts left out), function
/// calls in order, code the server ran and the searches that grounded the answer as tool
/// calls, the last finish reason and usage.
pub(super) fn generate_content(payload: &Payload<'_>) -> ModelCall {
    let mut call = ModelCall::default();
    for o in payload.objects() {
        if let Some(model) = str_field(o, "modelVersion") {
            call.model = Some(model);
        }
        if let Some(usage) = o.get("usageMetadata").and_then(Value::as_object) {
            call.usage = Usage {
                input: count_field(usage, "promptTokenCount"),
                output: count_field(usage, "candidatesTokenCount"),
                cache_read: count_field(usage, "cachedContentTokenCount"),
                cache_write: None,
            };
        }
        let candidate = items(o, "candidates").find(|c| count_field(c, "index").unwrap_or(0) == 0);
        let Some(candidate) = candidate else { continue };
        if let Some(stop) = gemini_finish(candidate.get("finishReason")) {
            call.stop_reason = Some(stop);
        }
        let content = object_at(candidate, &["content"]);
        for part in content.into_iter().flat_map(|c| items(c, "parts")) {
            if part.get("thought").is_some_and(Value::is_truthy) {
                call.thinking
                    .push_str(part.get("text").and_then(Value::as_str).unwrap_or(""));
                continue;
            }
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                call.text.push_str(text);
            } else if let Some(tool) = tool_of(part) {
                call.tools.push(tool);
            } else if let Some(code) = part.get("executableCode") {
                // Code the server ran (the code execution tool): a tool call as the client's.
                call.tools
                    .push(ToolUse::from_input("code_execution", Some(code)));
            }
        }
        // The searches the Google Search tool ran to ground the answer: tool calls, as
        // OpenAI's `web_search_call` is.
        for query in object_at(candidate, &["groundingMetadata"])
            .and_then(|g| g.get("webSearchQueries"))
            .and_then(Value::as_array)
            .unwrap_or(&[])
            .iter()
            .filter(|q| q.as_str().is_some())
        {
            let mut input = Object::new();
            input.insert(Str::new("query"), query.clone().into_owned());
            call.tools.push(ToolUse::from_input(
                "google_search",
                Some(&Value::Object(input)),
            ));
        }
    }
    call
}

/// Gemini's finish reason: its name, also when the client asked for enums as numbers
/// (`$alt=json;enum-encoding=int`, as the Python SDK does).
fn gemini_finish(value: Option<&Value<'_>>) -> Option<String> {
    const NAMES: [&str; 10] = [
        "FINISH_REASON_UNSPECIFIED",
        "STOP",
        "MAX_TOKENS",
        "SAFETY",
        "RECITATION",
        "OTHER",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MALFORMED_FUNCTION_CALL",
    ];
    match value? {
        Value::String(s) => Some(s.as_str().to_owned()),
        Value::Number(n) => Some(
            n.0.parse::<usize>()
                .ok()
                .and_then(|i| NAMES.get(i))
                .map_or_else(|| n.0.to_string(), |name| (*name).to_owned()),
        ),
        _ => None,
    }
}
