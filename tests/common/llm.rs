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

/// The calls of an agent that uses every other provider the provider layer reads, and an
/// API that is no model (issue 23), recorded as `version` says into the cassette named
/// `providers`:
///
/// - Gemini `generateContent` (the model in the URL), asking for a `get_weather` call;
/// - Vertex AI `generateContent` (project and location in the URL) answering in text;
/// - Bedrock Converse (JSON) and `converse-stream` (an AWS event stream), each a tool call;
/// - Ollama `/api/chat`, streamed as JSON lines;
/// - a search API whose answer ends with a `weather_result` object, its key sorting after
///   more than 450 characters of the answer's shape;
/// - an embeddings call;
/// - OpenAI responses, and an OAuth token endpoint;
/// - then Azure, Cohere, legacy completions, Bedrock InvokeModel, citations, an assistant,
///   Titan, Whisper, image generation, thinking, DeepSeek and IBM's chat (streamed).
///
/// [`Version::Again`] bumps the Gemini and Bedrock models (in the URL), moves the Vertex
/// call to another location, changes only whitespace in Vertex's text and gets other
/// embedding values: the same behaviour. [`Version::Changed`] asks Gemini for `fahrenheit`,
/// has Bedrock answer in text without its tool call, the stream call another city, Ollama
/// call a tool, the search answer lose `weather_result`, the responses call search the web
/// first (a built-in tool) and the token endpoint refuse the client (401): behaviour
/// changes.
pub fn providers(version: Version) -> Scenario {
    let changed = version == Version::Changed;
    let again = version == Version::Again;
    let question = json!({"role": "user", "parts": [{"text": QUESTION}]});

    let gemini_model = if again {
        "gemini-2.5-flash"
    } else {
        "gemini-2.0-flash"
    };
    let arguments = if changed {
        json!({"city": "Paris", "unit": "fahrenheit"})
    } else {
        json!({"city": "Paris"})
    };
    let gemini = post(
        "gemini",
        &format!("/v1beta/models/{gemini_model}:generateContent"),
        &[("x-goog-api-key", "GEMINI_API_KEY")],
        json!({"contents": [question.clone()],
            "systemInstruction": {"parts": [{"text": "You are a weather agent."}]},
            "tools": [{"functionDeclarations": [{"name": "get_weather"}]}]}),
        json_reply(
            200,
            &json!({"candidates": [{"content": {"role": "model", "parts": [
                    {"functionCall": {"name": "get_weather", "args": arguments}}]},
                    "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 7,
                    "totalTokenCount": 47},
                "modelVersion": gemini_model}),
        ),
    );

    let location = if again { "europe-west4" } else { "us-central1" };
    let vertex_version = if again { "v1beta1" } else { "v1" };
    let mut searches = vec!["weather Paris"];
    if changed {
        searches.push("Paris forecast tomorrow");
    }
    // Again, the same words with other spaces: not a rewording.
    let forecast = if again {
        "It is 18°C  and sunny\nin Paris. "
    } else {
        "It is 18°C and sunny in Paris."
    };
    let vertex = post(
        "vertex",
        &format!(
            "/{vertex_version}/projects/vcr-tests/locations/{location}/publishers/google/models/gemini-2.0-flash:generateContent"
        ),
        &[("Authorization", "Bearer GOOGLE_ACCESS_TOKEN")],
        json!({"contents": [question, {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
                "response": {"temperature": "18°C"}}}]}]}),
        json_reply(
            200,
            &json!({"candidates": [{"content": {"role": "model", "parts": [{"text": forecast}]},
                    "finishReason": "STOP", "index": 0,
                    "groundingMetadata": {"webSearchQueries": searches}}],
                "usageMetadata": {"promptTokenCount": 52, "candidatesTokenCount": 11},
                "modelVersion": "gemini-2.0-flash"}),
        ),
    );

    // boto3 sends the model id's `:` percent-encoded.
    let bedrock_model = if again {
        "anthropic.claude-3-5-haiku-20241022-v1%3A0"
    } else {
        "anthropic.claude-3-haiku-20240307-v1%3A0"
    };
    let mut content = vec![json!({"text": "Let me check the weather."})];
    if !changed {
        content.push(
            json!({"toolUse": {"toolUseId": format!("tooluse_{}", Ids::new().next("")),
            "name": "get_weather", "input": {"city": "Paris"}}}),
        );
    }
    let converse_body = json!({"messages": [{"role": "user", "content": [{"text": QUESTION}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather"}}]}});
    let bedrock = post(
        "bedrock",
        &format!("/model/{bedrock_model}/converse"),
        &[(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/bedrock",
        )],
        converse_body.clone(),
        json_reply(
            200,
            &json!({"output": {"message": {"role": "assistant", "content": content}},
                "stopReason": if changed { "end_turn" } else { "tool_use" },
                "usage": {"inputTokens": 30, "outputTokens": 21, "totalTokens": 51},
                "metrics": {"latencyMs": 612}}),
        ),
    );

    let city = if changed { "Lyon" } else { "Paris" };
    let stream_events = [
        ("messageStart", json!({"role": "assistant"})),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"text": "Checking."}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 0})),
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 1, "start": {"toolUse": {
                "toolUseId": format!("tooluse_{}", Ids::new().next("")), "name": "get_weather"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\": "}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": format!("\"{city}\"}}")}}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 1})),
        ("messageStop", json!({"stopReason": "tool_use"})),
        (
            "metadata",
            json!({"usage": {"inputTokens": 30, "outputTokens": 25}, "metrics": {"latencyMs": 700}}),
        ),
    ];
    let bedrock_stream = post(
        "bedrock-stream",
        &format!("/model/{bedrock_model}/converse-stream"),
        &[(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/bedrock",
        )],
        converse_body,
        Reply {
            status: 200,
            headers: vec![(
                "Content-Type".into(),
                "application/vnd.amazon.eventstream".into(),
            )],
            body: event_stream(&stream_events),
        },
    );

    let mut lines = vec![
        json!({"model": "llama3.2", "created_at": "2026-01-05T10:00:00Z",
            "message": {"role": "assistant", "content": "Let me "}, "done": false}),
        json!({"model": "llama3.2", "created_at": "2026-01-05T10:00:01Z",
            "message": {"role": "assistant", "content": "look."}, "done": false}),
    ];
    if changed {
        lines.push(
            json!({"model": "llama3.2", "created_at": "2026-01-05T10:00:02Z",
            "message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
            "done": false}),
        );
    }
    lines.push(
        json!({"model": "llama3.2", "created_at": "2026-01-05T10:00:03Z",
        "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
        "prompt_eval_count": 26, "eval_count": 9}),
    );
    let ollama = post(
        "ollama",
        "/api/chat",
        &[],
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": QUESTION}]}),
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/x-ndjson".into())],
            body: lines
                .iter()
                .map(|l| format!("{l}\n"))
                .collect::<String>()
                .into_bytes(),
        },
    );

    let mut answer = json!({
        "search_metadata": {"id": Ids::new().next(""), "status": "Success",
            "json_endpoint": "https://serp.example/searches/1.json",
            "created_at": "2026-01-05 10:00:00 UTC", "processed_at": "2026-01-05 10:00:00 UTC",
            "google_url": "https://www.google.com/search?q=weather+paris",
            "raw_html_file": "https://serp.example/searches/1.html", "total_time_taken": 1.2},
        "search_parameters": {"engine": "google", "q": "weather paris", "google_domain": "google.com",
            "device": "desktop", "hl": "en", "gl": "fr", "location_requested": "Paris",
            "location_used": "Paris,France"},
        "search_information": {"organic_results_state": "Results for exact spelling",
            "query_displayed": "weather paris", "total_results": 1_230_000,
            "time_taken_displayed": 0.41},
        "organic_results": [{"position": 1, "title": "Paris weather", "link": "https://weather.example/paris",
            "displayed_link": "weather.example", "snippet": "Sunny, 18°C", "source": "Weather"}],
    });
    if !changed {
        answer["weather_result"] = json!({"temperature": "18", "unit": "Celsius", "weather": "Sunny", "location": "Paris"});
    }
    let search = Exchange::new(
        "search",
        "GET",
        "/search.json?engine=google&q=weather%20paris",
        &[],
        None,
        json_reply(200, &answer),
    );

    let embedding: Vec<f64> = (0..8)
        .map(|i| f64::from(i) / if again { 10.0 } else { 7.0 })
        .collect();
    let embeddings = post(
        "embeddings",
        "/v1/embeddings",
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        // Again, the client names a default it left out: how the request is written.
        if again {
            json!({"model": "text-embedding-3-small", "input": QUESTION, "encoding_format": "float"})
        } else {
            json!({"model": "text-embedding-3-small", "input": QUESTION})
        },
        json_reply(
            200,
            &json!({"object": "list", "data": [{"object": "embedding", "index": 0,
            "embedding": embedding}], "model": "text-embedding-3-small",
            "usage": if again {
                json!({"prompt_tokens": 7, "total_tokens": 7, "prompt_audio_seconds": 0})
            } else {
                json!({"prompt_tokens": 7, "total_tokens": 7})
            }}),
        ),
    );

    // Changed, the model searched the web first (a built-in tool: a tool call all the same).
    let mut output = Vec::new();
    if changed {
        output.push(
            json!({"type": "web_search_call", "id": Ids::new().next("ws_"),
            "status": "completed", "action": {"type": "search", "query": "weather Paris"}}),
        );
    }
    output.push(
        json!({"type": "message", "id": Ids::new().next("msg_"), "role": "assistant",
        "status": "completed", "content": [{"type": "output_text", "text": "Sunny, 18°C.",
            "annotations": []}]}),
    );
    let responses = post(
        "responses",
        "/v1/responses",
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        json!({"model": "gpt-4.1-mini", "input": QUESTION, "tools": [{"type": "web_search"}]}),
        json_reply(
            200,
            &json!({"id": Ids::new().next("resp_"), "object": "response", "status": "completed",
                "model": "gpt-4.1-mini-2025-04-14", "output": output,
                "usage": {"input_tokens": 20, "output_tokens": 6, "total_tokens": 26}}),
        ),
    );

    // A token endpoint: plumbing, whose body does not decide, but whose status does (changed,
    // the client is refused).
    let token = post(
        "token",
        "/oauth2/token",
        &[],
        json!({"grant_type": "client_credentials", "scope": "weather"}),
        if changed {
            json_reply(401, &json!({"error": "invalid_client"}))
        } else {
            json_reply(
                200,
                &json!({"access_token": Ids::new().next("at-"), "token_type": "Bearer",
                    "expires_in": 3600}),
            )
        },
    );

    let more = more_providers(version);
    let mut exchanges = vec![
        gemini,
        vertex,
        bedrock,
        bedrock_stream,
        ollama,
        search,
        embeddings,
        responses,
        token,
    ];
    exchanges.extend(more);
    Scenario {
        name: "providers",
        exchanges,
        secrets: Vec::new(),
    }
}

/// The rest of [`providers`], in order:
///
/// - Azure OpenAI chat: again at `//openai/...` (the double slash a base URL with a trailing
///   slash makes) with another `api-version`;
/// - Cohere chat v2, its `Content-Type` redacted by a recording filter: a tool call, changed
///   an answer in text;
/// - OpenAI legacy completions: changed, cut at `length`;
/// - Bedrock `invoke-with-response-stream` of Claude (Anthropic events in base64 chunks):
///   changed, another city in the tool call;
/// - Bedrock Converse answering with citations: changed, other words;
/// - an assistant read by its id, which every recording makes anew;
/// - Azure, changed, answering nothing;
/// - Bedrock InvokeModel of Titan: changed, cut at `LENGTH`;
/// - a Whisper transcription: changed, other words;
/// - an image generation: again, the request names the model it defaulted to;
/// - Anthropic with thinking, and DeepSeek's reasoner: changed, the same answers after other
///   thoughts;
/// - again, a trace exported to `/v1/traces/ingest` (telemetry) after the rest.
fn more_providers(version: Version) -> Vec<Exchange> {
    let changed = version == Version::Changed;
    let again = version == Version::Again;
    let question = json!({"role": "user", "content": QUESTION});

    let azure = post(
        "azure",
        &format!(
            "{}/openai/deployments/gpt-4o/chat/completions?api-version={}",
            if again { "/" } else { "" },
            if again { "2024-10-21" } else { "2024-02-01" }
        ),
        &[("api-key", "AZURE_OPENAI_API_KEY")],
        json!({"messages": [question]}),
        json_reply(
            200,
            &json!({"id": Ids::new().next("chatcmpl-"), "object": "chat.completion",
                "model": "gpt-4o-2024-08-06", "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant",
                        "content": if changed { "" } else { "Sunny, 18°C." }}}]}),
        ),
    );

    let message = if changed {
        json!({"role": "assistant", "content": [{"type": "text", "text": "It is sunny."}]})
    } else {
        json!({"role": "assistant", "tool_plan": "I will look it up.", "tool_calls": [{
            "id": Ids::new().next("get_weather_"), "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]})
    };
    let mut cohere = post(
        "cohere",
        "/v2/chat",
        &[("Authorization", "Bearer CO_API_KEY")],
        json!({"model": "command-r-plus", "messages": [question]}),
        json_reply(
            200,
            &json!({"id": Ids::new().next(""), "message": message,
                "finish_reason": if changed { "COMPLETE" } else { "TOOL_CALL" },
                "usage": {"tokens": {"input_tokens": 30, "output_tokens": 12}}}),
        ),
    );
    cohere.reply.headers = vec![("Content-Type".into(), "**REDACTED**".into())];

    let completions = post(
        "completions",
        "/v1/completions",
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        json!({"model": "gpt-3.5-turbo-instruct", "prompt": "Say it is sunny.", "max_tokens": 8}),
        json_reply(
            200,
            &json!({"id": Ids::new().next("cmpl-"), "object": "text_completion",
                "model": "gpt-3.5-turbo-instruct", "choices": [{"index": 0, "logprobs": null,
                    "text": "It is sunny.",
                    "finish_reason": if changed { "length" } else { "stop" }}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}}),
        ),
    );

    let city = if changed { "Nice" } else { "Paris" };
    let chunk = |event: Value| {
        use base64::Engine as _;
        (
            "chunk",
            json!({"bytes": base64::engine::general_purpose::STANDARD.encode(event.to_string())}),
        )
    };
    let invoke_events = [
        chunk(
            json!({"type": "message_start", "message": {"id": Ids::new().next("msg_bdrk_"),
            "type": "message", "role": "assistant", "model": "claude-3-5-sonnet-20240620",
            "content": [], "usage": {"input_tokens": 20, "output_tokens": 1}}}),
        ),
        chunk(json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": Ids::new().next("toolu_bdrk_"),
                "name": "get_weather", "input": {}}})),
        chunk(json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": format!("{{\"city\": \"{city}\"}}")}})),
        chunk(json!({"type": "content_block_stop", "index": 0})),
        chunk(
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 17}}),
        ),
        chunk(json!({"type": "message_stop"})),
    ];
    let invoke = post(
        "invoke-stream",
        "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke-with-response-stream",
        &[(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/bedrock",
        )],
        json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 100,
            "messages": [question]}),
        Reply {
            status: 200,
            headers: vec![(
                "Content-Type".into(),
                "application/vnd.amazon.eventstream".into(),
            )],
            body: event_stream(&invoke_events),
        },
    );

    let cited = if changed {
        "a dummy PDF file"
    } else {
        "Dummy PDF file"
    };
    let citations = post(
        "citations",
        "/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse",
        &[(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/bedrock",
        )],
        json!({"messages": [{"role": "user", "content": [{"text": "What is the title?"}]}]}),
        json_reply(
            200,
            &json!({"output": {"message": {"role": "assistant", "content": [
                    {"text": "The title is "},
                    {"citationsContent": {"content": [{"text": cited}],
                        "citations": [{"location": {"documentPage": {"documentIndex": 0,
                            "start": 1, "end": 2}}}]}}]}},
                "stopReason": "end_turn",
                "usage": {"inputTokens": 40, "outputTokens": 9, "totalTokens": 49}}),
        ),
    );

    let assistant_id = Ids::new().next("asst_");
    let assistant = Exchange::new(
        "assistant",
        "GET",
        &format!("/v1/assistants/{assistant_id}"),
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        None,
        json_reply(
            200,
            &json!({"id": assistant_id, "object": "assistant", "model": "gpt-4o",
                "name": "Weather", "tools": [{"type": "function"}]}),
        ),
    );

    let titan = post(
        "titan",
        "/model/amazon.titan-text-express-v1/invoke",
        &[(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/bedrock",
        )],
        json!({"inputText": "Say hello.", "textGenerationConfig": {"maxTokenCount": 10}}),
        json_reply(
            200,
            &json!({"inputTextTokenCount": 3, "results": [{"tokenCount": 6,
                "outputText": "Hello! How are you?",
                "completionReason": if changed { "LENGTH" } else { "FINISH" }}]}),
        ),
    );

    let boundary = "vcr-test-boundary";
    let whisper = Exchange::new(
        "whisper",
        "POST",
        "/v1/audio/transcriptions",
        &[
            (
                "Content-Type",
                &format!("multipart/form-data; boundary={boundary}"),
            ),
            ("Authorization", "Bearer OPENAI_API_KEY"),
        ],
        Some(format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp3\"\r\nContent-Type: audio/mpeg\r\n\r\nID3 audio\r\n--{boundary}--\r\n"
        )),
        json_reply(
            200,
            &json!({"text": if changed { "Concierge, and it's ignoring." } else { "Concecia, and it's in Noring." }}),
        ),
    );

    // The prompt the image model rewrote is its words (issue 42): reworded when changed; a
    // new image's URL is data.
    let revised = if changed {
        "A sea otter in an apron stirring a pot of pasta on a stove."
    } else {
        "A sea otter in a chef's hat cooking pasta in a small kitchen."
    };
    let images = post(
        "images",
        "/v1/images/generations",
        &[("Authorization", "Bearer OPENAI_API_KEY")],
        json!({"model": "dall-e-3", "prompt": "A sea otter cooking pasta", "size": "1024x1024"}),
        json_reply(
            200,
            &json!({"created": Ids::new().now, "data": [{"revised_prompt": revised,
                "url": format!("https://images.example/{}.png", Ids::new().next(""))}]}),
        ),
    );

    // Changed, the same answer after other thoughts.
    let thought = if changed {
        "The user wants a greeting; a short one will do."
    } else {
        "A greeting is asked for. Keep it short."
    };
    let thinking = post(
        "thinking",
        "/v1/messages",
        &[
            ("x-api-key", "<API_KEY>"),
            ("anthropic-version", "2023-06-01"),
        ],
        json!({"model": "claude-sonnet-4-5", "max_tokens": 2048,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "messages": [{"role": "user", "content": "Say hello."}]}),
        json_reply(
            200,
            &json!({"id": Ids::new().next("msg_01"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5-20250929", "content": [
                    {"type": "thinking", "thinking": thought,
                        "signature": Ids::new().next("EqQB")},
                    {"type": "text", "text": "Hello!"}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 12, "output_tokens": 30}}),
        ),
    );

    let reasoning = if changed {
        "Paris in spring: mild. Answer briefly."
    } else {
        "The user asks about Paris weather; answer briefly."
    };
    let deepseek = post(
        "deepseek",
        "/chat/completions",
        &[("Authorization", "Bearer DEEPSEEK_API_KEY")],
        json!({"model": "deepseek-reasoner", "messages": [question]}),
        json_reply(
            200,
            &json!({"id": Ids::new().next(""), "object": "chat.completion",
                "model": "deepseek-reasoner", "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Mild and sunny.",
                        "reasoning_content": reasoning}}]}),
        ),
    );

    // IBM's chat, streamed (issue 42): a model call whose stop reason and text are read
    // from its `results`; changed, the answer ran into its token limit.
    let (pieces, last_stop) = if changed {
        (
            ["Paris: sunny, ", "18°C, light wind from the"],
            "max_tokens",
        )
    } else {
        (["It is sunny ", "and 18°C in Paris."], "eos_token")
    };
    let generated = |text: &str, count: u64, stop: &str| {
        json!({"id": "7f4c", "model_id": "ibm/granite-3-8b-instruct",
            "created_at": "2025-01-07T10:00:00.000Z", "results": [{"generated_text": text,
                "generated_token_count": count, "input_token_count": 0, "stop_reason": stop,
                "seed": if again { 2 } else { 1 }}]})
    };
    let ibm = post(
        "ibm",
        "/v2/text/chat_stream?version=2024-01-10",
        &[("Authorization", "Bearer IBM_API_KEY")],
        json!({"model_id": "ibm/granite-3-8b-instruct",
            "messages": [{"role": "user", "content": QUESTION}], "parameters": {}}),
        sse_reply(
            &[
                generated("", 0, "not_finished"),
                generated(pieces[0], 4, "not_finished"),
                generated(pieces[1], 11, last_stop),
            ],
            false,
        ),
    );

    let mut out = vec![
        azure,
        cohere,
        completions,
        invoke,
        citations,
        assistant,
        titan,
        whisper,
        images,
        thinking,
        deepseek,
        ibm,
    ];
    if again {
        out.push(post(
            "traces",
            "/v1/traces/ingest",
            &[("Authorization", "Bearer OPENAI_API_KEY")],
            json!({"data": [{"object": "trace.span", "id": Ids::new().next("span_")}]}),
            Reply {
                status: 204,
                headers: Vec::new(),
                body: Vec::new(),
            },
        ));
    }
    out
}

/// An AWS event stream (`application/vnd.amazon.eventstream`) of `events`: each a frame with
/// `:event-type`, `:content-type` and `:message-type` headers and its JSON payload. The JSON
/// is padded with spaces so that every byte of the two lengths is ASCII, and the CRCs are
/// left zero: the recorders' test clients compare answers as UTF-8 text, and `vcr` does not
/// check the CRCs (the client that made the recording did).
fn event_stream(events: &[(&str, Value)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, payload) in events {
        let mut headers = Vec::new();
        for (name, value) in [
            (":event-type", *kind),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ] {
            headers.push(name.len() as u8);
            headers.extend_from_slice(name.as_bytes());
            headers.push(7);
            headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
            headers.extend_from_slice(value.as_bytes());
        }
        let mut payload = payload.to_string();
        let ascii = |n: usize| (n as u32).to_be_bytes().iter().all(|b| *b < 0x80);
        while !ascii(16 + headers.len() + payload.len()) {
            payload.push(' ');
        }
        assert!(ascii(headers.len()), "{headers:?}");
        out.extend_from_slice(&((16 + headers.len() + payload.len()) as u32).to_be_bytes());
        out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&headers);
        out.extend_from_slice(payload.as_bytes());
        out.extend_from_slice(&[0; 4]);
    }
    out
}
