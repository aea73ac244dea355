//! A fake LLM API for the `vcr diff` tests (issue 10): an agent's run as real recorders
//! record it, in three versions.
//!
//! The agent asks OpenAI chat completions for a tool call (JSON), sends the tool's result
//! back and streams the answer (SSE), asks Anthropic messages to list files (SSE, a text
//! block and a `Bash` tool call), and lists the models (`GET /v1/models?api_key=...`, not a
//! model call). Every recording gets fresh completion ids and timestamps, as a real API
//! hands out.
//!
//! - [`Version::First`]: the run as first recorded.
//! - [`Version::Changed`]: re-recorded after a change: the Anthropic call comes first, the
//!   weather tool call asks for another `unit` (so the next request differs too), the
//!   streamed answer stops at `length` instead of `stop`, and listing the models is rate
//!   limited (`429`).
//! - [`Version::Again`]: re-recorded with nothing changed but the ids, the timestamps, a
//!   rotated API key in the query, the order the JSON keys are written in (the tool call's
//!   arguments, the models list), a query on the Anthropic call (`?beta=true`) and an OAuth
//!   token response without its `id_token`: the same behaviour (issue 23).

use std::time::SystemTime;

use serde_json::{Value, json};

use super::scenario::{Exchange, Scenario};
use super::server::Reply;

/// Which recording of the agent's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    First,
    Changed,
    Again,
}

/// The API key each version sends in the models query: a made-up OpenAI project key,
/// which every output of `vcr diff` must mask.
pub fn query_key(version: Version) -> String {
    let body = match version {
        Version::First | Version::Changed => "Qz7RvX2mKp9LwT4yHc8NdF3jBs6GaU1eWo5iZt0qMv4Rk8Wd",
        Version::Again => "Hn3VbQ8wEr5TyU2iOp7AsD4fGh1JkL9zXc6VbN0mYs2Tq7Pe",
    };
    format!("sk-proj-{body}")
}

/// The question of the first call.
pub const QUESTION: &str = "What's the weather in Paris?";

/// The agent's run, recorded as `version` says, into the cassette named `agent`.
pub fn agent(version: Version) -> Scenario {
    let mut ids = Ids::new();
    let unit = if version == Version::Changed {
        "fahrenheit"
    } else {
        "celsius"
    };
    // Again, the model writes the same arguments in another key order: the same call.
    let arguments = if version == Version::Again {
        format!(r#"{{"unit": "{unit}", "location": "Paris"}}"#)
    } else {
        json!({"location": "Paris", "unit": unit}).to_string()
    };
    let system = json!({"role": "system", "content": "You are a weather agent."});
    let user = json!({"role": "user", "content": QUESTION});

    let weather = post(
        "weather",
        "/v1/chat/completions",
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        json!({"model": "gpt-4o-mini", "messages": [system, user],
            "tools": [{"type": "function", "function": {"name": "get_weather"}}]}),
        json_reply(
            200,
            &json!({
                "id": ids.next("chatcmpl-"),
                "object": "chat.completion",
                "created": ids.now,
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
                    "message": {"role": "assistant", "content": null, "tool_calls": [{
                        "id": "call_weather_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": arguments}}]}}],
                "usage": {"prompt_tokens": 61, "completion_tokens": 18, "total_tokens": 79},
            }),
        ),
    );

    let temperature = if version == Version::Changed {
        "64°F"
    } else {
        "18°C"
    };
    let finish = if version == Version::Changed {
        "length"
    } else {
        "stop"
    };
    // Cut at `length`, the answer used more tokens.
    let completion = if version == Version::Changed { 16 } else { 12 };
    let answer_id = ids.next("chatcmpl-");
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": answer_id, "object": "chat.completion.chunk", "created": ids.now,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let answer_events = [
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": format!("It is {temperature}")}), None),
        chunk(json!({"content": " and sunny in Paris."}), None),
        chunk(json!({}), Some(finish)),
        json!({"id": answer_id, "object": "chat.completion.chunk", "created": ids.now,
            "model": "gpt-4o-mini-2024-07-18", "choices": [],
            "usage": {"prompt_tokens": 97, "completion_tokens": completion, "total_tokens": 97 + completion}}),
    ];
    let answer = post(
        "answer",
        "/v1/chat/completions",
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        json!({"model": "gpt-4o-mini", "stream": true,
        "stream_options": {"include_usage": true},
        "messages": [
            system, user,
            {"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_weather_1", "type": "function",
                "function": {"name": "get_weather", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "call_weather_1",
                "content": json!({"temperature": temperature, "sky": "sunny"}).to_string()},
        ]}),
        sse_reply(&answer_events, false),
    );

    let message_id = ids.next("msg_01");
    let files_events = [
        json!({"type": "message_start", "message": {"id": message_id, "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 412, "output_tokens": 2}}}),
        json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "I'll list "}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "the files."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use",
            "id": ids.next("toolu_01"), "name": "Bash", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"ls"}}),
        json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": " -la\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
    ];
    // Changed, the model also had the server run code (a server tool: a tool call all the
    // same, issue 23).
    let mut files_events = files_events.to_vec();
    if version == Version::Changed {
        files_events.extend([
            json!({"type": "content_block_start", "index": 2, "content_block": {
                "type": "server_tool_use", "id": ids.next("srvtoolu_01"),
                "name": "bash_code_execution", "input": {}}}),
            json!({"type": "content_block_delta", "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"pwd\"}"}}),
            json!({"type": "content_block_stop", "index": 2}),
        ]);
    }
    files_events.extend([
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
            "usage": {"output_tokens": 41}}),
        json!({"type": "message_stop"}),
    ]);
    // Again, the client asks the same call with a query (Anthropic's `?beta=true`): a change
    // of the request, not of what the agent did.
    let files = post(
        "files",
        if version == Version::Again {
            "/v1/messages?beta=true"
        } else {
            "/v1/messages"
        },
        &[
            ("x-api-key", "<API_KEY>"),
            ("anthropic-version", "2023-06-01"),
        ],
        json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
            "system": "You are a coding agent.",
            "messages": [{"role": "user", "content": "List the files here."}]}),
        sse_reply(&files_events, true),
    );

    let models_reply = if version == Version::Changed {
        json_reply(
            429,
            &json!({"error": {"message": "Rate limit reached", "type": "requests",
                "code": "rate_limit_exceeded"}}),
        )
    } else if version == Version::Again {
        // The same list with its keys written in another order: the same shape.
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"object":"list","data":[{"owned_by":"system","object":"model","id":"gpt-4o-mini"}]}"#.to_vec(),
        }
    } else {
        json_reply(
            200,
            &json!({"object": "list",
                "data": [{"id": "gpt-4o-mini", "object": "model", "owned_by": "system"}]}),
        )
    };
    let models = Exchange::new(
        "models",
        "GET",
        &format!("/v1/models?api_key={}&page=1", query_key(version)),
        &[],
        None,
        models_reply,
    );

    // An OAuth token fetched last, whose response lost its `id_token` when recorded again:
    // plumbing, which does not decide what the agent did.
    let token_body = if version == Version::Again {
        json!({"access_token": "at-again", "token_type": "Bearer", "expires_in": 3600})
    } else {
        json!({"access_token": "at-first", "token_type": "Bearer", "expires_in": 3600,
            "id_token": "it-first"})
    };
    let token = post(
        "token",
        "/oauth/token",
        &[],
        json!({"grant_type": "client_credentials"}),
        json_reply(200, &token_body),
    );

    let exchanges = match version {
        Version::First | Version::Again => vec![weather, answer, files, models, token],
        Version::Changed => vec![files, weather, answer, models, token],
    };
    Scenario {
        name: "agent",
        exchanges,
        secrets: vec![("api_key query parameter", query_key(version))],
    }
}

fn post(
    name: &'static str,
    target: &str,
    headers: &[(&str, &str)],
    body: Value,
    reply: Reply,
) -> Exchange {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    Exchange::new(name, "POST", target, &all, Some(body.to_string()), reply)
}

fn json_reply(status: u16, body: &Value) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

/// Server-sent events: each event's `data:` line (with its `event:` name, as Anthropic
/// sends them, when `named`), then OpenAI's `[DONE]` when not named.
fn sse_reply(events: &[Value], named: bool) -> Reply {
    let mut body = String::new();
    for e in events {
        if named {
            body.push_str(&format!("event: {}\n", e["type"].as_str().unwrap()));
        }
        body.push_str(&format!("data: {e}\n\n"));
    }
    if !named {
        body.push_str("data: [DONE]\n\n");
    }
    Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "text/event-stream".into())],
        body: body.into_bytes(),
    }
}

/// Ids and a creation time that differ on every recording, as an API's do.
struct Ids {
    state: u64,
    now: u64,
}

impl Ids {
    fn new() -> Ids {
        use std::hash::BuildHasher;
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap();
        Ids {
            state: std::collections::hash_map::RandomState::new().hash_one(now),
            now: now.as_secs(),
        }
    }

    /// `prefix` and 24 random letters and digits.
    fn next(&mut self, prefix: &str) -> String {
        const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut out = prefix.to_owned();
        for _ in 0..24 {
            self.state = self
                .state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            out.push(ALNUM[(self.state >> 33) as usize % ALNUM.len()] as char);
        }
        out
    }
}
