//! `vcr diff` on HTTP cassettes written by the recorders themselves (issue 10): vcrpy and
//! Polly record an agent's run against a fake LLM API (`tests/common/llm.rs`: OpenAI chat
//! completions as JSON and as a stream, Anthropic messages as a stream, a models list),
//! then record it again changed, or unchanged but with new ids; `vcr diff` compares the
//! recordings as folders, against a git revision, and as git's textconv driver. A second
//! run (`llm::providers`) calls Gemini, Vertex, Bedrock (Converse JSON and stream, InvokeModel
//! stream), Ollama, Cohere, Azure, OpenAI's legacy completions and image generation, IBM's
//! chat, a search API and embeddings,
//! re-recorded with the models bumped in the URL and again with changed behaviour (issue 23).
//!
//! What a reviewer must see: the tool call whose argument changed, the stop reason that
//! changed, the status that became a rate limit, each call paired with its counterpart
//! although the re-recording made them in another order, the verdict; and never the API
//! key the requests carried.
//!
//! A recorder that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1`.

use crate::common;

use common::llm::{self, Version};
use common::recorders::{Recorded, Recorder, record};
use common::{Run, TestDir, git};
use serde_json::Value;

macro_rules! recorder_tests {
    ($($module:ident: $recorder:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn a_rerecording_shows_what_the_model_did_differently() {
                super::a_rerecording_shows_what_the_model_did_differently($recorder);
            }

            #[test]
            fn a_rerecording_with_new_ids_only_is_the_same_behaviour() {
                super::a_rerecording_with_new_ids_only_is_the_same_behaviour($recorder);
            }

            #[test]
            fn every_provider_rerecorded() {
                super::every_provider_rerecorded($recorder);
            }

            #[test]
            fn diff_rev_and_textconv_in_a_git_repository() {
                super::diff_rev_and_textconv_in_a_git_repository($recorder);
            }
        }
    )*};
}

recorder_tests! {
    vcrpy: Recorder::Vcrpy;
    polly: Recorder::Polly;
}

/// Records each version of the agent's run with `recorder`; `None` when it is not
/// installed.
fn recordings(recorder: Recorder, versions: &[Version]) -> Option<Vec<Recorded>> {
    versions
        .iter()
        .map(|v| record(recorder, llm::agent(*v)))
        .collect()
}

/// Copies the cassettes of `recorded` into `t` under `dir`; returns their paths relative
/// to `dir`.
fn place(t: &TestDir, dir: &str, recorded: &Recorded) -> Vec<String> {
    let files = recorded.dir.files("");
    let cassettes = recorded.cassettes();
    assert_eq!(cassettes.len(), 1, "{cassettes:?}");
    for rel in &cassettes {
        let target = if dir.is_empty() {
            rel.clone()
        } else {
            format!("{dir}/{rel}")
        };
        t.write(&target, &files[rel]);
    }
    cassettes
}

/// Every output must mask the API keys the recordings sent.
#[track_caller]
fn assert_masked(run: &Run) {
    for version in [Version::First, Version::Changed, Version::Again] {
        let key = llm::query_key(version);
        let tail = &key[12..];
        assert!(
            !run.stdout.contains(tail) && !run.stderr.contains(tail),
            "the API key is shown:\n{}{}",
            run.stdout,
            run.stderr
        );
    }
}

/// The change lines the changed recording must show: named by call, paired across the new
/// order (the Anthropic call moved from #3 to #1).
const CHANGED: [&str; 5] = [
    "#4 GET /v1/models: status 200 -> 429",
    "#2 POST /v1/chat/completions: get_weather(Paris): arguments changed (unit)",
    "#3 POST /v1/chat/completions: stop reason stop -> length",
    "#3 POST /v1/chat/completions: request message 2 changed",
    "interactions reordered: ",
];

fn a_rerecording_shows_what_the_model_did_differently(recorder: Recorder) {
    let Some(runs) = recordings(recorder, &[Version::First, Version::Changed]) else {
        return;
    };
    let t = TestDir::new();
    let rel = place(&t, "old", &runs[0]).remove(0);
    place(&t, "new", &runs[1]);

    let run = t.vcr(&["diff", "old", "new"]);
    run.code(1);
    let out = &run.stdout;
    assert!(
        out.lines()
            .next()
            .unwrap()
            .starts_with(&format!("behaviour change {rel} (http): ")),
        "{out}"
    );
    for line in CHANGED {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(line)),
            "lacks {line:?}:\n{out}"
        );
    }
    // The Anthropic call is paired with itself although it moved, nothing was added or
    // removed, and the tool the server ran is a tool call (issue 23).
    assert!(
        out.lines().any(|l| l.trim_start()
            == "#1 POST /v1/messages: tool calls `Bash(ls -la)` became `Bash(ls -la) -> bash_code_execution(pwd)`"),
        "{out}"
    );
    assert!(!out.contains("interaction added"), "{out}");
    assert!(!out.contains("interaction removed"), "{out}");
    assert!(out.contains("text reworded"), "{out}");
    assert_masked(&run);

    let run = t.vcr(&["diff", "old", "new", "--format", "json"]);
    run.code(1);
    assert_masked(&run);
    let doc = run.json();
    let entry = &doc["events"][0];
    assert_eq!(entry["kind"], "http", "{doc:#}");
    assert_eq!(entry["status"], "modified");
    assert_eq!(entry["verdict"], "behaviour_change");
    let changes = entry["changes"].as_array().unwrap();
    let find = |what: &str| -> &Value {
        changes
            .iter()
            .find(|c| c["what"] == what)
            .unwrap_or_else(|| panic!("no {what} change in {doc:#}"))
    };
    let arguments = find("tool_arguments");
    assert_eq!(arguments["tool"], "get_weather(Paris)");
    assert_eq!(arguments["arguments"], serde_json::json!(["unit"]));
    assert_eq!(arguments["call"], "#2 POST /v1/chat/completions");
    let stop = find("stop_reason");
    assert_eq!(
        (&stop["old"], &stop["new"]),
        (&"stop".into(), &"length".into())
    );
    let status = find("status");
    assert_eq!((&status["old"], &status["new"]), (&200.into(), &429.into()));
    let usage = find("usage");
    assert_eq!(
        (&usage["old"]["output"], &usage["new"]["output"]),
        (&71.into(), &75.into())
    );

    let run = t.vcr(&["diff", "old", "new", "--full"]);
    run.code(1);
    assert!(run.stdout.contains("@@"), "{}", run.stdout);
    assert_masked(&run);

    // Two files, their kind told by their content.
    let (old_file, new_file) = (format!("old/{rel}"), format!("new/{rel}"));
    let run = t.vcr(&["diff", &old_file, &new_file]);
    run.code(1);
    for line in CHANGED {
        assert!(
            run.stdout.lines().any(|l| l.trim_start().starts_with(line)),
            "lacks {line:?}:\n{}",
            run.stdout
        );
    }
    assert_masked(&run);
}

fn a_rerecording_with_new_ids_only_is_the_same_behaviour(recorder: Recorder) {
    let Some(runs) = recordings(recorder, &[Version::First, Version::Again]) else {
        return;
    };
    let t = TestDir::new();
    let rel = place(&t, "old", &runs[0]).remove(0);
    place(&t, "new", &runs[1]);
    assert_ne!(
        t.read(&format!("old/{rel}")),
        t.read(&format!("new/{rel}")),
        "the recordings differ in ids and timestamps"
    );
    let run = t.vcr(&["diff", "old", "new"]);
    // Different contents: exit 1, whatever the verdict.
    run.code(1);
    assert!(
        run.stdout
            .lines()
            .next()
            .unwrap()
            .starts_with(&format!("same behaviour {rel} (http): ")),
        "{}",
        run.stdout
    );
    for noise in ["tool", "stop reason", "status", "reordered", "interaction"] {
        assert!(!run.stdout.contains(noise), "{noise}: {}", run.stdout);
    }
    assert_masked(&run);
    let doc = t.vcr(&["diff", "old", "new", "--format", "json"]).json();
    assert_eq!(doc["events"][0]["verdict"], "same_behaviour", "{doc:#}");
    assert_eq!(doc["summary"]["same_behaviour"], 1, "{doc:#}");
    // Reported, not deciding (issue 23): the model call's new query, the token response
    // that lost its `id_token`.
    let changes = doc["events"][0]["changes"].as_array().unwrap();
    let has = |what: &str, flag: &str| {
        changes
            .iter()
            .any(|c| c["what"] == what && c[flag] == Value::Bool(true))
    };
    assert!(has("url", "model_call"), "{doc:#}");
    assert!(has("body_shape", "plumbing"), "{doc:#}");
}

/// Gemini, Vertex, Bedrock (JSON and event stream) and Ollama calls, a search API and
/// embeddings (`llm::providers`), recorded again (issue 23).
fn every_provider_rerecorded(recorder: Recorder) {
    let versions = [Version::First, Version::Again, Version::Changed];
    let Some(runs) = versions
        .iter()
        .map(|v| record(recorder, llm::providers(*v)))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let t = TestDir::new();
    for (run, dir) in runs.iter().zip(["first", "again", "changed"]) {
        place(&t, dir, run);
    }
    let changes = |new: &str| -> (String, Vec<Value>) {
        let doc = t.vcr(&["diff", "first", new, "--format", "json"]).json();
        let entry = &doc["events"][0];
        assert_eq!(entry["kind"], "http", "{doc:#}");
        let verdict = entry["verdict"].as_str().unwrap().to_owned();
        (verdict, entry["changes"].as_array().unwrap().clone())
    };
    let messages = |changes: &[Value]| -> Vec<String> {
        changes
            .iter()
            .map(|c| c["message"].as_str().unwrap().to_owned())
            .collect()
    };

    // The models bumped in the URL, Vertex's location moved, Vertex's text respaced, other
    // embedding values: every call paired with its counterpart, the model compared as the
    // model; nothing reworded, added or removed.
    // Nor do Vertex's API version, Azure's double slash and `api-version`, a usage counter
    // the embeddings answer gained, the id of the assistant read, or a trace exported to a
    // tracing API after the rest (reported, not deciding).
    let (verdict, found) = changes("again");
    let shown = messages(&found);
    assert_eq!(verdict, "same_behaviour", "{shown:#?}");
    let whats: Vec<&str> = found.iter().map(|c| c["what"].as_str().unwrap()).collect();
    assert_eq!(
        whats,
        [
            "body_shape",
            "interaction_added",
            "model",
            "model",
            "model",
            "origin"
        ],
        "{shown:#?}"
    );
    // A request that names a default it left out: reported, how the call was written.
    assert_eq!(
        shown[0],
        "#7 POST /v1/embeddings: request body shape - -> {encoding_format: string}"
    );
    assert_eq!(
        shown[1],
        "interaction added: #22 POST /v1/traces/ingest -> 204 (authentication or telemetry: not what the agent did)"
    );
    assert_eq!(found[1]["plumbing"], true);
    let found = &found[2..];
    assert_eq!(
        (&found[0]["old"], &found[0]["new"]),
        (&"gemini-2.0-flash".into(), &"gemini-2.5-flash".into())
    );
    for (change, call) in found[1..3].iter().zip(["converse", "converse-stream"]) {
        assert!(
            change["call"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/{call}")),
            "{shown:#?}"
        );
        assert_eq!(
            (&change["old"], &change["new"]),
            (
                &"anthropic.claude-3-haiku-20240307-v1:0".into(),
                &"anthropic.claude-3-5-haiku-20241022-v1:0".into()
            )
        );
    }
    // CI gates on what the agent did: a same-behaviour re-recording passes.
    t.vcr(&["diff", "first", "again"]).code(1);
    t.vcr(&["diff", "first", "again", "--fail-on", "reworded"])
        .code(0);
    t.vcr(&["diff", "first", "again", "--fail-on", "behaviour"])
        .code(0);

    // What the agent did differently, per provider; and the search answer's lost key, past
    // more than 450 characters of its shape, named.
    let (verdict, found) = changes("changed");
    let shown = messages(&found);
    assert_eq!(verdict, "behaviour_change", "{shown:#?}");
    for expected in [
        "#6 GET /search.json: response body shape {weather_result.location: string, weather_result.temperature: string, weather_result.unit: string, weather_result.weather: string} -> -",
        "#1 POST /v1beta/models/gemini-2.0-flash:generateContent: get_weather(Paris): arguments changed (unit)",
        "#3 POST /model/anthropic.claude-3-haiku-20240307-v1%3A0/converse: tool calls `get_weather(Paris)` became `(no tool calls)`",
        "#3 POST /model/anthropic.claude-3-haiku-20240307-v1%3A0/converse: stop reason tool_use -> end_turn",
        "#4 POST /model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream: tool calls `get_weather(Paris)` became `get_weather(Lyon)`",
        "#5 POST /api/chat: tool calls `(no tool calls)` became `get_weather(Paris)`",
        "#8 POST /v1/responses: tool calls `(no tool calls)` became `web_search_call(weather Paris)`",
        "#9 POST /oauth2/token: status 200 -> 401",
        // The searches that grounded Gemini's answer are the Google Search tool's calls.
        "#2 POST /v1/projects/vcr-tests/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent: tool calls `google_search(weather Paris)` became `google_search(weather Paris) -> google_search(Paris forecast tomorrow)`",
        // Cohere, its JSON read although a filter redacted its `Content-Type`.
        "#11 POST /v2/chat: tool calls `get_weather(Paris)` became `(no tool calls)`",
        "#11 POST /v2/chat: stop reason TOOL_CALL -> COMPLETE",
        "#12 POST /v1/completions: stop reason stop -> length",
        // Claude through Bedrock's InvokeModel stream: Anthropic's events in the chunks.
        "#13 POST /model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke-with-response-stream: tool calls `get_weather(Paris)` became `get_weather(Nice)`",
        // Cited text is text.
        "#14 POST /model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse: text reworded (83% similar): \"The title is Dummy PDF file\" -> \"The title is a dummy PDF file\"",
        // An answer that vanished is not a rewording.
        "#10 POST /openai/deployments/gpt-4o/chat/completions: answer \"Sunny, 18°C.\" became nothing",
        "#16 POST /model/amazon.titan-text-express-v1/invoke: stop reason FINISH -> LENGTH",
        "#17 POST /v1/audio/transcriptions: text reworded (62% similar): \"Concecia, and it's in Noring.\" -> \"Concierge, and it's ignoring.\"",
        // IBM's chat, streamed (issue 42).
        "#21 POST /v2/text/chat_stream: stop reason eos_token -> max_tokens",
        // The prompt an image model rewrote is its words (issue 42).
        "#18 POST /v1/images/generations: text reworded (65% similar): \"A sea otter in a chef's hat cooking pasta in a small kitchen…\" -> \"A sea otter in an apron stirring a pot of pasta on a stove.\"",
        // The same answer after other thoughts: the model's words changed.
        "#19 POST /v1/messages: thinking reworded (41% similar), the answer the same",
        "#20 POST /chat/completions: thinking reworded (46% similar), the answer the same",
    ] {
        assert!(
            shown.iter().any(|m| m == expected),
            "lacks {expected:?}: {shown:#?}"
        );
    }
    // The token endpoint's body, refused, changed shape too: reported, but its status is
    // what decides.
    assert!(
        found
            .iter()
            .any(|c| c["what"] == "body_shape" && c["plumbing"] == true),
        "{shown:#?}"
    );
    assert_eq!(shown.len(), 25, "{shown:#?}");
    t.vcr(&["diff", "first", "changed", "--fail-on", "behaviour"])
        .code(1);

    // Only the embedding's values changed, by hand: said as such, never as ids, timestamps
    // or formatting.
    let rel = runs[0].cassettes().remove(0);
    let text = t.read(&format!("first/{rel}"));
    let third = (2.0_f64 / 7.0).to_string();
    assert_eq!(text.matches(&third).count(), 1, "{text}");
    t.write(&format!("edited/{rel}"), text.replace(&third, "0.5"));
    let run = t.vcr(&["diff", "first", "edited"]);
    run.code(1);
    assert!(
        run.stdout.starts_with(&format!(
            "same behaviour {rel} (http): values changed, same shape"
        )),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("only ids"), "{}", run.stdout);
}

fn diff_rev_and_textconv_in_a_git_repository(recorder: Recorder) {
    let Some(runs) = recordings(recorder, &[Version::First, Version::Changed]) else {
        return;
    };
    let t = TestDir::new();
    let rel = place(&t, "", &runs[0]).remove(0);
    t.write(".gitattributes", "cassettes/** diff=vcr\n");
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "record"]);
    place(&t, "", &runs[1]);

    let run = t.vcr(&["diff", "--rev", "HEAD"]);
    run.code(1);
    let out = &run.stdout;
    assert!(
        out.starts_with(&format!("behaviour change {rel} (http): ")),
        "{out}"
    );
    for line in CHANGED {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(line)),
            "lacks {line:?}:\n{out}"
        );
    }
    assert_masked(&run);

    let driver = format!("'{}' diff --textconv", env!("CARGO_BIN_EXE_vcr"));
    let shown = git(
        &t.root,
        &[
            "-c",
            &format!("diff.vcr.textconv={driver}"),
            "diff",
            "--",
            &rel,
        ],
    );
    for line in [
        "-  stop: stop",
        "+  stop: length",
        "-    unit: celsius",
        "+    unit: fahrenheit",
    ] {
        assert!(shown.lines().any(|l| l == line), "lacks {line:?}:\n{shown}");
    }
    assert!(
        shown.contains("OpenAI chat completions") && shown.contains("Anthropic messages"),
        "{shown}"
    );
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("+interaction 4: GET ") && l.ends_with(" -> 429")),
        "{shown}"
    );
    let key = llm::query_key(Version::First);
    assert!(
        !shown.contains(&key[12..]),
        "the API key is shown:\n{shown}"
    );
}

/// Files that may be HTTP cassettes by their names and are not (a `package.json`, a CI
/// workflow) are left out, changed or not; one that is a cassette and does not parse is an
/// error naming its line, and the run goes on.
#[test]
fn yaml_and_json_that_are_no_cassettes_are_left_out_and_broken_cassettes_named() {
    let t = TestDir::new();
    for (side, version) in [("old", "1.0.0"), ("new", "1.1.0")] {
        t.write(
            &format!("{side}/package.json"),
            format!("{{\"name\": \"app\", \"version\": \"{version}\"}}"),
        );
        t.write(
            &format!("{side}/config/ci.yml"),
            format!("on: push\nname: ci {version}\n"),
        );
    }
    let cassette = |status: u16| {
        format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/v1/items\n  response:\n    body:\n      string: '{{\"items\": []}}'\n    headers: {{}}\n    status:\n      code: {status}\n      message: OK\nversion: 1\n"
        )
    };
    t.write("old/cassettes/items.yaml", cassette(200));
    t.write("new/cassettes/items.yaml", cassette(503));
    t.write("old/cassettes/broken.yaml", cassette(200));
    t.write(
        "new/cassettes/broken.yaml",
        "interactions:\n- request: [unclosed\nversion: 1\n",
    );
    let run = t.vcr(&["diff", "old", "new", "--format", "json"]);
    run.code(2);
    let doc = run.json();
    let events = doc["events"].as_array().unwrap();
    let paths: Vec<&str> = events.iter().filter_map(|e| e["path"].as_str()).collect();
    assert!(
        !paths
            .iter()
            .any(|p| p.contains("package.json") || p.contains("ci.yml")),
        "{doc:#}"
    );
    let items = events
        .iter()
        .find(|e| e["path"] == "cassettes/items.yaml")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(items["verdict"], "behaviour_change", "{doc:#}");
    assert_eq!(
        items["changes"][0]["message"],
        "#1 GET /v1/items: status 200 -> 503"
    );
    let broken = events
        .iter()
        .find(|e| e["path"] == "new/cassettes/broken.yaml")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(broken["id"], "parse", "{doc:#}");
    assert_eq!(broken["line"], 3, "{doc:#}");
}
