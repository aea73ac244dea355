//! Amazon Bedrock Converse: `/model/<id>/converse` (JSON) and `/model/<id>/converse-stream`
//! (an AWS event stream: binary frames, each a JSON event named by its `:event-type`
//! header). InvokeModel (`/model/<id>/invoke`, `invoke-with-response-stream`) carries the
//! model's own API instead (Anthropic messages for Claude): its stream's chunks are
//! unwrapped here, and the calls read by that API's reader.

use vcr_json::{Object, Str, Value};

use super::{
    ModelCall, Payload, Usage, count_field, index_key, items, object_at, str_field, text_parts,
    tool, tool_from_text,
};

use crate::api::{Api, Keys, Provider, no_shape};

/// Amazon Bedrock Converse (`/model/<id>/converse`, `converse-stream`); by shape, a
/// `stopReason` beside `output.message`.
pub(crate) static CONVERSE: Api = Api {
    id: "bedrock-converse",
    name: "Bedrock Converse",
    by_path: |ask| {
        ask.path_ends(&["/converse", "/converse-stream"])
            .then_some(Provider(&CONVERSE))
    },
    by_shape: |ask| {
        ask.first().is_some_and(|first| {
            first.contains_key("stopReason")
                && first
                    .get("output")
                    .and_then(Value::as_object)
                    .is_some_and(|o| o.contains_key("message"))
        })
    },
    read: converse,
    messages: |_| Keys::new("system", "messages"),
};

/// Bedrock InvokeModel (`/invoke`, `/invoke-with-response-stream`) of a model whose API is
/// its own (Titan, Nova, Llama, Mistral, Cohere); Claude's is Anthropic messages, told by
/// `anthropic_version` in the request or a `message` answer.
pub(crate) static INVOKE: Api = Api {
    id: "bedrock-invoke",
    name: "Bedrock InvokeModel",
    by_path: |ask| {
        if !ask.path_ends(&["/invoke", "/invoke-with-response-stream"]) {
            return None;
        }
        let first_type = ask.field("type");
        let anthropic =
            ask.has("anthropic_version") || matches!(first_type, Some("message" | "message_start"));
        Some(if anthropic {
            Provider(&crate::anthropic::API)
        } else {
            Provider(&INVOKE)
        })
    },
    by_shape: no_shape,
    read: |payload, _| invoke(payload),
    messages: |o| {
        let list = ["messages", "prompt", "inputText"]
            .into_iter()
            .find(|k| o.contains_key(k))
            .unwrap_or("prompt");
        Keys::new("system", list)
    },
};

/// A Bedrock Converse answer: `output.message.content` (`text` and `toolUse` blocks),
/// `stopReason`, `usage`.
pub(super) fn converse(payload: &Payload<'_>, path: &str) -> ModelCall {
    let mut call = ModelCall {
        // Bedrock names the model in the URL only.
        model: super::model_in_path(path),
        ..ModelCall::default()
    };
    if let Payload::Events(events) = payload {
        stream(events, &mut call);
        return call;
    }
    let Some(o) = payload.objects().into_iter().next() else {
        return call;
    };
    call.stop_reason = str_field(o, "stopReason");
    if let Some(usage) = o.get("usage").and_then(Value::as_object) {
        call.usage = usage_of(usage);
    }
    let message = object_at(o, &["output", "message"]);
    for block in message.into_iter().flat_map(|m| items(m, "content")) {
        if let Some(text) = block.get("text").and_then(Value::as_str) {
            call.text.push_str(text);
        } else if let Some(cited) = block.get("citationsContent").and_then(Value::as_object) {
            // Text with its sources: the text is the answer all the same.
            call.text.push_str(&text_parts(cited, "content"));
        } else if let Some(tool_use) = block.get("toolUse").and_then(Value::as_object) {
            call.tools.push(tool(tool_use, "name", "input"));
        }
    }
    call
}

/// An InvokeModel answer in its model's own API, JSON or streamed: Titan (`results[]` with
/// `outputText` and `completionReason`; streamed, each chunk's `outputText`), Nova (the
/// Converse shape), Llama (`generation`, `stop_reason`), Mistral (`outputs[]` with `text`
/// and `stop_reason`), Cohere (`generations[]`, `finish_reason`).
pub(super) fn invoke(payload: &Payload<'_>) -> ModelCall {
    let objects = payload.objects();
    if let [o] = objects.as_slice()
        && o.contains_key("output")
    {
        return converse(payload, "");
    }
    let mut call = ModelCall::default();
    let stop = |o: &Object<'_>| {
        ["completionReason", "stop_reason", "finish_reason"]
            .iter()
            .find_map(|k| str_field(o, k))
    };
    for o in objects {
        let first = |key: &str| {
            o.get(key)
                .and_then(Value::as_array)
                .and_then(|items| items.first())
                .and_then(Value::as_object)
        };
        let answer = first("results")
            .or_else(|| first("outputs"))
            .or_else(|| first("generations"))
            .unwrap_or(o);
        for key in ["outputText", "generation", "text"] {
            if let Some(text) = answer.get(key).and_then(Value::as_str) {
                call.text.push_str(text);
                break;
            }
        }
        if let Some(reason) = stop(answer).or_else(|| stop(o)) {
            call.stop_reason = Some(reason);
        }
        let input =
            count_field(o, "inputTextTokenCount").or_else(|| count_field(o, "prompt_token_count"));
        let output =
            count_field(answer, "tokenCount").or_else(|| count_field(o, "generation_token_count"));
        if input.is_some() || output.is_some() {
            call.usage = Usage {
                input: input.or(call.usage.input),
                output: output.or(call.usage.output),
                ..call.usage
            };
        }
    }
    call
}

/// Converse's token counts.
fn usage_of(usage: &Object<'_>) -> Usage {
    Usage {
        input: count_field(usage, "inputTokens"),
        output: count_field(usage, "outputTokens"),
        cache_read: count_field(usage, "cacheReadInputTokens"),
        cache_write: count_field(usage, "cacheWriteInputTokens"),
    }
}

/// A `converse-stream` answer reassembled: `contentBlockStart` (a tool use's name),
/// `contentBlockDelta` (`text`, or a tool use's `input` JSON in pieces) by
/// `contentBlockIndex`, `messageStop` (the stop reason), `metadata` (usage).
fn stream(events: &[Value<'static>], call: &mut ModelCall) {
    /// A content block being reassembled: its index, tool name (none for text), text.
    struct Block {
        index: String,
        tool: Option<String>,
        text: String,
    }
    let mut blocks: Vec<Block> = Vec::new();
    for event in events.iter().filter_map(Value::as_object) {
        let Some((kind, data)) = event.iter().next() else {
            continue;
        };
        let Some(data) = data.as_object() else {
            continue;
        };
        let index = index_key(data, "contentBlockIndex");
        let at = |blocks: &mut Vec<Block>| match blocks.iter().position(|b| b.index == index) {
            Some(at) => at,
            None => {
                blocks.push(Block {
                    index: index.clone(),
                    tool: None,
                    text: String::new(),
                });
                blocks.len() - 1
            }
        };
        match kind.as_str() {
            "contentBlockStart" => {
                let name =
                    object_at(data, &["start", "toolUse"]).and_then(|t| str_field(t, "name"));
                let at = at(&mut blocks);
                blocks[at].tool = name;
            }
            "contentBlockDelta" => {
                let Some(delta) = data.get("delta").and_then(Value::as_object) else {
                    continue;
                };
                let piece = delta.get("text").and_then(Value::as_str).or_else(|| {
                    delta
                        .get("toolUse")
                        .and_then(Value::as_object)
                        .and_then(|t| t.get("input"))
                        .and_then(Value::as_str)
                });
                let at = at(&mut blocks);
                blocks[at].text.push_str(piece.unwrap_or(""));
            }
            "messageStop" => call.stop_reason = str_field(data, "stopReason"),
            "metadata" => {
                if let Some(usage) = data.get("usage").and_then(Value::as_object) {
                    call.usage = usage_of(usage);
                }
            }
            _ => {}
        }
    }
    for block in blocks {
        match block.tool {
            Some(name) => call.tools.push(tool_from_text(&name, &block.text)),
            None => call.text.push_str(&block.text),
        }
    }
}

/// The event a `chunk` of `invoke-with-response-stream` carries: its `bytes`, base64 of the
/// JSON the model's own API streams (an Anthropic `content_block_delta`, ...).
fn model_chunk(data: &Value<'_>) -> Option<Value<'static>> {
    use base64::Engine as _;
    let o = data.as_object()?;
    if o.len() > 2 {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(o.get("bytes")?.as_str()?)
        .ok()?;
    match vcr_json::parse(&bytes).ok()? {
        value @ Value::Object(_) => Some(value.into_owned()),
        _ => None,
    }
}

/// The events of an AWS event stream (`application/vnd.amazon.eventstream`), each as
/// `{"<:event-type>": <payload JSON>}` (a `chunk`'s base64 `bytes` unwrapped into the
/// model's own event); `None` unless the bytes are such frames from end to end. The frames
/// are read by the cassette's body decoding
/// ([`event_stream::frames`](vcr_cassette::http::body::event_stream::frames)), which the
/// judge reads them with too.
pub(super) fn event_stream(bytes: &[u8]) -> Option<Vec<Value<'static>>> {
    let frames = vcr_cassette::http::body::event_stream::frames(bytes)?;
    let mut events = Vec::with_capacity(frames.len());
    for frame in frames {
        let data = if frame.payload.is_empty() {
            Value::Object(Object::new())
        } else {
            vcr_json::parse(frame.payload).ok()?.into_owned()
        };
        match model_chunk(&data) {
            // `invoke-with-response-stream`: the model's own event, as its API streams it.
            Some(inner) => events.push(inner),
            None => {
                let mut event = Object::new();
                event.insert(Str::new(frame.kind.unwrap_or_default()), data);
                events.push(Value::Object(event));
            }
        }
    }
    Some(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One AWS event stream frame: an `:event-type` header (and a `:message-type` one, as
    /// AWS sends it), the JSON payload; the CRCs left zero, as the reader does not check
    /// them.
    pub(crate) fn frame(kind: &str, payload: &str) -> Vec<u8> {
        let mut headers = Vec::new();
        for (name, value) in [(":event-type", kind), (":message-type", "event")] {
            headers.push(name.len() as u8);
            headers.extend_from_slice(name.as_bytes());
            headers.push(7);
            headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
            headers.extend_from_slice(value.as_bytes());
        }
        let total = 16 + headers.len() + payload.len();
        let mut out = Vec::new();
        out.extend_from_slice(&(total as u32).to_be_bytes());
        out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&headers);
        out.extend_from_slice(payload.as_bytes());
        out.extend_from_slice(&[0; 4]);
        out
    }

    #[test]
    fn a_converse_stream_is_reassembled_from_its_frames() {
        let mut bytes = Vec::new();
        for (kind, payload) in [
            ("messageStart", r#"{"role":"assistant","p":"abc"}"#),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"text":"Let me "}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"text":"check."}}"#,
            ),
            (
                "contentBlockStart",
                r#"{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"get_weather"}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\": "}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"\"Paris\"}"}}}"#,
            ),
            ("messageStop", r#"{"stopReason":"tool_use"}"#),
            (
                "metadata",
                r#"{"usage":{"inputTokens":12,"outputTokens":30},"metrics":{"latencyMs":400}}"#,
            ),
        ] {
            bytes.extend(frame(kind, payload));
        }
        let events = event_stream(&bytes).expect("frames");
        assert_eq!(events.len(), 8);
        let call = converse(
            &Payload::Events(events),
            "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream",
        );
        assert_eq!(call.text, "Let me check.");
        assert_eq!(call.tool_sequence(), "get_weather(Paris)");
        assert_eq!(call.tools[0].input, r#"{"city":"Paris"}"#);
        assert_eq!(call.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!((call.usage.input, call.usage.output), (Some(12), Some(30)));
        assert_eq!(
            call.model.as_deref(),
            Some("anthropic.claude-3-haiku-20240307-v1:0")
        );

        // Bytes that are not frames from end to end are no event stream.
        assert!(event_stream(&bytes[..bytes.len() - 1]).is_none());
        assert!(event_stream(b"data: {}\n\n").is_none());
        assert!(event_stream(b"").is_none());
    }
}
