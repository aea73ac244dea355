//! Re-recordings that `vcr diff` misjudged before issue 42, as scenarios real recorders
//! record against the test's server (`tests/diff_rerecord.rs` compares them).
//!
//! - [`vendor`]: an observability vendor's own API client under test, every call to the
//!   vendor's API host (the test writes `https://api.datadoghq.com` over the server's URL in
//!   the recorded files). [`Take::Again`] works on new objects (a monitor id that grew, a
//!   dashboard's `abc-def-ghi` id, a team a test named `tf-test-` and ten made-up letters)
//!   and escapes its URLs another way (`%40` as `@`, `%3A` and `%2C` as `:` and `,`): the
//!   same behaviour. [`Take::Drifted`] asks the same and gets a monitor that gained a key and
//!   a user whose `handle` became `null`: the API's responses changed under the caller.
//! - [`observed`]: an agent's model call beside a log intake (`/api/v2/logs` on the vendor's
//!   intake host, written over after recording). [`Take::Again`] sends one log more and gets
//!   `200` where it got `202`: telemetry, not what the agent did. [`Take::Drifted`] has the
//!   intake refuse the key (`403`): a status class change decides wherever it happens.
//! - [`structured`]: a model asked for JSON. [`Take::Again`] answers the same JSON inside a
//!   Markdown code fence (reworded text); [`Take::Drifted`] fences JSON of other keys (a
//!   shape change).
//! - [`fixed`]: answers that are the same bytes on every recording (a fixed `Date` too), so
//!   that two recordings differ only in what the recorder writes about them (Ruby VCR's
//!   `recorded_at`, a HAR's `startedDateTime` and timings): identical.

use serde_json::{Value, json};

use super::scenario::{Exchange, Scenario};
use super::server::Reply;

/// Which recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    First,
    Again,
    Drifted,
}

/// The observability vendor's API host the tests write over the server's URL.
pub const VENDOR_HOST: &str = "https://api.datadoghq.com";
/// Its log intake host.
pub const INTAKE_HOST: &str = "https://http-intake.logs.datadoghq.com";
/// The model API's host.
pub const MODEL_HOST: &str = "https://api.openai.com";

fn reply(status: u16, body: &Value) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

fn json_request(
    name: &'static str,
    method: &'static str,
    target: &str,
    body: Option<Value>,
    answer: Reply,
) -> Exchange {
    let headers: &[(&str, &str)] = if body.is_some() {
        &[
            ("Content-Type", "application/json"),
            ("DD-API-KEY", "<DD_API_KEY>"),
        ]
    } else {
        &[("DD-API-KEY", "<DD_API_KEY>")]
    };
    Exchange::new(
        name,
        method,
        target,
        headers,
        body.map(|b| b.to_string()),
        answer,
    )
}

/// The vendor's API client test (see the module documentation).
pub fn vendor(take: Take) -> Scenario {
    let again = take == Take::Again;
    let drifted = take == Take::Drifted;
    let monitor_id: u64 = if again { 1_234_890 } else { 1_234_567 };
    let dashboard = if again { "xk2-9pq-wmt" } else { "abc-d3f-ghi" };
    let team = if again {
        "tf-test-hbxrtqmnsd"
    } else {
        "tf-test-kqzvtmwplr"
    };
    let mut monitor = json!({"id": monitor_id, "name": format!("{team} disk"),
        "type": "metric alert", "message": "Disk is full", "overall_state": "No Data",
        "tags": ["env:prod", "team:ai"]});
    if drifted {
        // The vendor added a field to its monitors; the client asked the same.
        monitor["draft_status"] = json!("published");
    }
    let user = json!({"data": {"type": "users", "id": "7f2b", "attributes": {
        "email": "dana@example.com",
        "handle": if drifted { Value::Null } else { json!("dana@example.com") },
        "disabled": false}}});
    let user_target = if again {
        "/api/v2/users/dana@example.com"
    } else {
        "/api/v2/users/dana%40example.com"
    };
    let search_target = if again {
        "/api/v1/monitor/search?query=tag:env:prod,team:ai&page=0"
    } else {
        "/api/v1/monitor/search?page=0&query=tag%3Aenv%3Aprod%2Cteam%3Aai"
    };
    let exchanges = vec![
        json_request(
            "create",
            "POST",
            "/api/v1/monitor",
            Some(
                json!({"name": format!("{team} disk"), "type": "metric alert",
                "query": "avg(last_5m):avg:system.disk.in_use{*} > 0.9"}),
            ),
            reply(200, &monitor),
        ),
        json_request(
            "read",
            "GET",
            &format!("/api/v1/monitor/{monitor_id}"),
            None,
            reply(200, &monitor),
        ),
        json_request(
            "dashboard",
            "GET",
            &format!("/api/v1/dashboard/{dashboard}"),
            None,
            reply(
                200,
                &json!({"id": dashboard, "title": "Disks", "widgets": []}),
            ),
        ),
        json_request("user", "GET", user_target, None, reply(200, &user)),
        json_request(
            "search",
            "GET",
            search_target,
            None,
            reply(
                200,
                &json!({"monitors": [{"id": monitor_id, "name": format!("{team} disk")}],
                    "metadata": {"page": 0, "total_count": 1}}),
            ),
        ),
        json_request(
            "team",
            "PUT",
            &format!("/api/v2/teams/{team}"),
            Some(json!({"data": {"type": "team", "attributes": {"name": team}}})),
            reply(
                200,
                &json!({"data": {"type": "team", "id": team, "attributes": {"name": team}}}),
            ),
        ),
        json_request(
            "delete",
            "DELETE",
            &format!("/api/v1/monitor/{monitor_id}"),
            None,
            reply(200, &json!({"deleted_monitor_id": monitor_id})),
        ),
    ];
    Scenario {
        name: "vendor",
        exchanges,
        secrets: Vec::new(),
    }
}

/// A model call's answer: the chat completion whose message says `content`.
fn chat_answer(content: &str) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1_733_241_578,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
            "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29}})
}

fn chat(question: &str, content: &str) -> Exchange {
    Exchange::new(
        "chat",
        "POST",
        "/v1/chat/completions",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer OPENAI_API_KEY"),
        ],
        Some(
            json!({"model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": question}]})
            .to_string(),
        ),
        reply(200, &chat_answer(content)),
    )
}

/// An agent's model call and its log intake (see the module documentation).
pub fn observed(take: Take) -> Scenario {
    let log = |name: &'static str, message: &str, status: u16| {
        json_request(
            name,
            "POST",
            "/api/v2/logs",
            Some(json!([{"message": message, "service": "agent"}])),
            reply(status, &json!({})),
        )
    };
    let mut exchanges = vec![
        chat("Say hi.", "Hi!"),
        log(
            "log",
            "answered",
            match take {
                Take::First => 202,
                Take::Again => 200,
                Take::Drifted => 403,
            },
        ),
    ];
    if take == Take::Again {
        exchanges.push(log("log-again", "done", 202));
    }
    Scenario {
        name: "observed",
        exchanges,
        secrets: Vec::new(),
    }
}

/// A model asked for JSON (see the module documentation).
pub fn structured(take: Take) -> Scenario {
    let content = match take {
        Take::First => "{\"city\": \"Paris\", \"temperature\": 18}",
        Take::Again => "```json\n{\"city\": \"Paris\", \"temperature\": 18}\n```",
        Take::Drifted => "```json\n{\"city\": \"Paris\", \"temp_c\": 18}\n```",
    };
    Scenario {
        name: "structured",
        exchanges: vec![chat("The weather in Paris, as JSON.", content)],
        secrets: Vec::new(),
    }
}

/// A catalogue API's client, re-recorded with requests the server did not react to (see
/// the module documentation): `Again` drops a query parameter the server ignores (the same
/// answer), fixes a search query (the same shape of answer, other values), asks for a user
/// whose name a scrub replaced in the path, and tags an object with a new id inside a
/// longer query value; `Drifted` asks another endpoint and gets another shape of answer.
pub fn queried(take: Take) -> Scenario {
    let again = take == Take::Again;
    let drifted = take == Take::Drifted;
    let collections = json!({"items": [{"id": "C1-POCLOUD", "title": "Sea surface"}],
        "hits": 1});
    let collections_target = match take {
        Take::First => "/api/search/collections?has_granules=true&provider=POCLOUD&page_size=20",
        Take::Again => "/api/search/collections?provider=POCLOUD&page_size=20",
        Take::Drifted => "/api/search/granules?provider=POCLOUD&page_size=20",
    };
    let collections_answer = if drifted {
        json!({"feed": {"entry": [{"granule": "G1"}]}})
    } else {
        collections
    };
    let user_target = if again {
        "/api/users/REDACTED"
    } else {
        "/api/users/dana"
    };
    let instance = if again {
        "3cec27d7-193f-4ca6-81e5-c8cf243bbe91"
    } else {
        "79881e36-70c2-42f1-978b-a5966ca82894"
    };
    let tags_target =
        format!("/api/tags?attached_to=crn:v1:public:is:a/c56c::instance:02q7_{instance}&offset=0");
    let (shows_target, show) = match take {
        Take::First => (
            "/api/shows?q=the%20daily%20show%20(with%20jon%20stewart",
            json!({"name": "The Daily Show", "rating": {"average": 8.7}, "weight": 97}),
        ),
        Take::Again => (
            "/api/shows?q=the%20daily%20show%20(with%20jon%20stewart)",
            json!({"name": "The Daily Show", "rating": {"average": 8.8}, "weight": 99}),
        ),
        Take::Drifted => (
            "/api/shows?q=the%20daily%20show&embed=episodes",
            json!({"name": "The Daily Show", "rating": {"average": 8.8}, "weight": 99,
                "_embedded": {"episodes": []}}),
        ),
    };
    let exchanges = vec![
        json_request(
            "collections",
            "GET",
            collections_target,
            None,
            reply(200, &collections_answer),
        ),
        json_request(
            "user",
            "GET",
            user_target,
            None,
            reply(200, &json!({"uid": "dana", "country": "France"})),
        ),
        json_request(
            "tags",
            "GET",
            &tags_target,
            None,
            reply(200, &json!({"items": ["env:prod"]})),
        ),
        json_request("shows", "GET", shows_target, None, reply(200, &show)),
    ];
    Scenario {
        name: "queried",
        exchanges,
        secrets: Vec::new(),
    }
}

/// Answers that are the same bytes on every recording (see the module documentation).
pub fn fixed() -> Scenario {
    let mut answer = reply(200, &chat_answer("Hi!"));
    answer
        .headers
        .push(("Date".into(), "Tue, 02 Dec 2025 10:00:00 GMT".into()));
    let mut exchange = chat("Say hi.", "Hi!");
    exchange.reply = answer;
    Scenario {
        name: "fixed",
        exchanges: vec![exchange],
        secrets: Vec::new(),
    }
}

/// `text` with the server's URL `base` written as `host` in the URLs of the requests whose
/// path starts with `prefix`: where the recorded calls would have gone.
pub fn moved(text: &str, base: &str, prefix: &str, host: &str) -> String {
    text.replace(&format!("{base}{prefix}"), &format!("{host}{prefix}"))
}
