//! IBM's text generation APIs: watsonx.ai (`/ml/v1/text/generation`) and IBM Generative AI
//! (`/v2/text/generation`, `/v2/text/chat`), JSON or streamed (`..._stream`, server-sent
//! events). Both answer with `results`, each a `generated_text`, its `stop_reason`
//! (`max_tokens`, `eos_token`, `stop_sequence`; `not_finished` on every event of a stream but
//! the last) and token counts; a stream's events each carry the next piece of the text.

use vcr_json::Value;

use super::{ModelCall, Payload, count_field, items, str_field};

use crate::api::{Api, Keys, Provider, no_shape};

/// IBM's text generation and chat (watsonx.ai `/ml/v1/text/generation`, IBM Generative AI
/// `/v2/text/generation`, `/v2/text/chat` and their streams); watsonx.ai's chat answers in
/// OpenAI's words (`choices`) and is read as OpenAI chat.
pub(crate) static API: Api = Api {
    id: "ibm",
    name: "IBM text generation",
    by_path: |ask| {
        if !ask.path_ends(&PATHS) {
            return None;
        }
        let objects = ask.objects();
        if objects.iter().any(|o| o.contains_key("choices")) {
            return Some(Provider(&crate::openai::CHAT));
        }
        (ask.has("model_id") || objects.iter().any(|o| is_answer(o))).then_some(Provider(&API))
    },
    by_shape: no_shape,
    read: |payload, _| generation(payload),
    messages: |o| {
        let list = if o.contains_key("messages") {
            "messages"
        } else {
            "input"
        };
        Keys::new("", list)
    },
};

/// The paths of IBM's text generation calls, without their version prefix.
pub(super) const PATHS: [&str; 4] = [
    "/text/generation",
    "/text/generation_stream",
    "/text/chat",
    "/text/chat_stream",
];

/// Whether a response object is one of IBM's answers: a `results` list of generated texts.
pub(super) fn is_answer(o: &vcr_json::Object<'_>) -> bool {
    items(o, "results")
        .next()
        .is_some_and(|r| r.contains_key("generated_text"))
}

/// An IBM answer, JSON or streamed: the first result's text (a stream's pieces joined), its
/// last stop reason that is not `not_finished`, the model, the token counts summed over the
/// events (a stream counts each piece once, the input on its first event).
pub(super) fn generation(payload: &Payload<'_>) -> ModelCall {
    let mut call = ModelCall::default();
    let mut input = None;
    let mut output = None;
    for o in payload.objects() {
        if let Some(model) = str_field(o, "model_id") {
            call.model = Some(model);
        }
        // Moderation events of a stream carry no `results`.
        let Some(result) = items(o, "results").next() else {
            continue;
        };
        if let Some(text) = result.get("generated_text").and_then(Value::as_str) {
            call.text.push_str(text);
        }
        if let Some(stop) = str_field(result, "stop_reason").filter(|s| s != "not_finished") {
            call.stop_reason = Some(stop);
        }
        if let Some(n) = count_field(result, "input_token_count") {
            input = Some(input.unwrap_or(0) + n);
        }
        // A stream's events count the tokens generated so far; a whole answer counts them once.
        if let Some(n) = count_field(result, "generated_token_count") {
            output = Some(output.map_or(n, |o: u64| o.max(n)));
        }
    }
    call.usage.input = input;
    call.usage.output = output;
    call
}
