//! `vcr diff` as a reviewer runs it: the real binary on real trees in temporary folders, a
//! real git repository for `--rev`, and git itself driving `--textconv`.

use crate::common;

use std::path::Path;

use common::{Run, TestDir, git};
use serde_json::{Value, json};

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn read(path: &str) -> Value {
    tool(
        "toolu_01",
        "Read",
        json!({"file_path": format!("[CWD]/{path}")}),
    )
}

fn edit(path: &str, new: &str) -> Value {
    tool(
        "toolu_02",
        "Edit",
        json!({"file_path": format!("[CWD]/{path}"), "old_string": "a", "new_string": new}),
    )
}

fn bash(command: &str) -> Value {
    tool(
        "toolu_03",
        "Bash",
        json!({"command": command, "description": "Run it"}),
    )
}

/// One recorded call as Claude Code's streaming path stores it: the raw SSE events, then
/// (unless `stream_only`) one assistant item per content block, the last one carrying the
/// stop reason and the final usage.
fn output(blocks: &[Value], stop: &str, tokens: (u64, u64), stream_only: bool) -> Vec<Value> {
    let model = "claude-sonnet-4-5-20250929";
    let mut items = vec![
        json!({"type": "stream_event", "event": {"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": null, "usage": {"input_tokens": tokens.0, "output_tokens": 1}}}, "ttftMs": 500}),
    ];
    for (index, block) in blocks.iter().enumerate() {
        let event = |event: Value| json!({"type": "stream_event", "event": event});
        if block["type"] == "text" {
            items.push(event(json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
            let t = block["text"].as_str().unwrap();
            let (a, b) = t.split_at(t.len() / 2);
            for part in [a, b] {
                items.push(event(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": part}})));
            }
        } else {
            items.push(event(json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})));
            let input = block["input"].to_string();
            let (a, b) = input.split_at(input.len() / 2);
            for part in [a, b] {
                items.push(event(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": part}})));
            }
        }
        items.push(event(json!({"type": "content_block_stop", "index": index})));
    }
    items.push(json!({"type": "stream_event", "event": {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": tokens.1}}}));
    items.push(json!({"type": "stream_event", "event": {"type": "message_stop"}}));
    if !stream_only {
        for (i, block) in blocks.iter().enumerate() {
            let last = i + 1 == blocks.len();
            items.push(json!({"uuid": format!("UUID-{}", items.len()), "requestId": "REQUEST_ID",
                "timestamp": "2026-11-30T10:00:00.000Z", "message": {"id": "msg_01", "type": "message",
                "role": "assistant", "model": model, "content": [block],
                "stop_reason": if last { json!(stop) } else { Value::Null },
                "usage": {"input_tokens": tokens.0, "output_tokens": if last { tokens.1 } else { 1 }}},
                "type": "assistant"}));
        }
    }
    items
}

/// A message fixture in the writer's canonical form, and the name the harness gives it
/// (computed by the crate's own naming, which the node oracle tests hold to the seed).
fn cassette(input: &[Value], output: Vec<Value>) -> (String, String) {
    let text = json!({"input": input, "output": output}).to_string();
    let parsed = vcr_json::parse(text.as_bytes()).unwrap();
    let name = vcr_cassette::claude_code::message_name(vcr_cassette::claude_code::input(&parsed));
    (
        name,
        String::from_utf8(vcr_json::to_pretty(&parsed)).unwrap(),
    )
}

const PROMPT: &str = "The test in [CWD]/src/a.test.ts fails. Fix it.";

/// Writes a cassette under `dir/fixtures/` and returns its path relative to `dir`.
fn put(t: &TestDir, dir: &str, input: &[Value], output: Vec<Value>) -> String {
    let (name, text) = cassette(input, output);
    let folder = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    t.write(&format!("{folder}fixtures/{name}"), text);
    format!("fixtures/{name}")
}

fn diff(t: &TestDir, args: &[&str]) -> Run {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    t.vcr(&all)
}

#[test]
fn a_changed_tool_call_is_a_behaviour_change() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let old_blocks = [
        text("I will fix it."),
        read("src/a.ts"),
        edit("src/a.ts", "b"),
    ];
    let new_blocks = [text("I will fix it."), read("src/a.ts"), bash("npm test")];
    let rel = put(
        &t,
        "old",
        &input,
        output(&old_blocks, "tool_use", (100, 40), false),
    );
    let same = put(
        &t,
        "new",
        &input,
        output(&new_blocks, "tool_use", (100, 40), false),
    );
    assert_eq!(rel, same, "one prompt, one name");
    diff(&t, &["old", "new"])
        .code(1)
        .stdout_has(&format!("behaviour change {rel} (claude-code): tool calls changed"))
        .stdout_has("tool calls `Read(src/a.ts) -> Edit(src/a.ts)` became `Read(src/a.ts) -> Bash(npm test)`")
        .stdout_has("1 cassette compared: 1 behaviour change");

    // The same tools with other arguments are a behaviour change too.
    let other = [
        text("I will fix it."),
        read("src/a.ts"),
        edit("src/a.ts", "c"),
    ];
    put(
        &t,
        "new",
        &input,
        output(&other, "tool_use", (100, 40), false),
    );
    diff(&t, &["old", "new"])
        .code(1)
        .stdout_has("behaviour change")
        .stdout_has("Edit(src/a.ts): arguments changed (new_string)");
}

#[test]
fn a_changed_stop_reason_is_a_behaviour_change() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let blocks = [text("Done: the test passes now.")];
    put(
        &t,
        "old",
        &input,
        output(&blocks, "end_turn", (100, 40), false),
    );
    let rel = put(
        &t,
        "new",
        &input,
        output(&blocks, "max_tokens", (100, 40), false),
    );
    let run = diff(&t, &["old", "new"]);
    run.code(1)
        .stdout_has(&format!("behaviour change {rel}"))
        .stdout_has("stop reason end_turn -> max_tokens");
    assert!(!run.stdout.contains("tool calls"), "{}", run.stdout);
}

#[test]
fn text_only_rewording_is_reworded_and_still_exits_1() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let old = [
        text("I will look at the cart total first."),
        read("src/a.ts"),
    ];
    let new = [
        text("Let me look at the cart total first."),
        read("src/a.ts"),
    ];
    put(
        &t,
        "old",
        &input,
        output(&old, "tool_use", (100, 40), false),
    );
    let rel = put(
        &t,
        "new",
        &input,
        output(&new, "tool_use", (100, 44), false),
    );
    diff(&t, &["old", "new"])
        .code(1)
        .stdout_has(&format!("reworded {rel} (claude-code): text reworded ("))
        .stdout_has(
            "\"I will look at the cart total first.\" -> \"Let me look at the cart total first.\"",
        )
        .stdout_has("usage: output 40 -> 44 (+10.0%)");
    let doc = diff(&t, &["old", "new", "--format", "json"]).code(1).json();
    let entry = &doc["events"][0];
    assert_eq!(entry["verdict"], "reworded", "{doc:#}");
    assert_eq!(entry["status"], "modified");
    let similarity = entry["changes"][0]["similarity"].as_u64().unwrap();
    assert!((50..100).contains(&similarity), "{entry}");
}

/// `--fail-on` gates CI on the difference that matters: a re-recording whose text only was
/// reworded passes `--fail-on behaviour` and fails `reworded`; one whose usage only changed
/// (same behaviour) fails only the default, `any`; a behaviour change fails all three.
#[test]
fn fail_on_chooses_which_differences_exit_1() {
    let input = [json!(PROMPT)];
    let cases = [
        (
            "reworded",
            output(
                &[text("I will look."), read("src/a.ts")],
                "tool_use",
                (100, 40),
                false,
            ),
            output(
                &[text("Let me look."), read("src/a.ts")],
                "tool_use",
                (100, 40),
                false,
            ),
            [0, 1, 1],
        ),
        (
            "same behaviour",
            output(&[read("src/a.ts")], "tool_use", (100, 40), false),
            output(&[read("src/a.ts")], "tool_use", (100, 52), false),
            [0, 0, 1],
        ),
        (
            "behaviour change",
            output(&[read("src/a.ts")], "tool_use", (100, 40), false),
            output(&[bash("npm test")], "tool_use", (100, 40), false),
            [1, 1, 1],
        ),
    ];
    for (verdict, old, new, codes) in cases {
        let t = TestDir::new();
        put(&t, "old", &input, old);
        put(&t, "new", &input, new);
        diff(&t, &["old", "new"]).code(1).stdout_has(verdict);
        for (level, code) in ["behaviour", "reworded", "any"].into_iter().zip(codes) {
            diff(&t, &["old", "new", "--fail-on", level])
                .code(code)
                .stdout_has(verdict);
        }
    }
}

/// Text that differs only in whitespace is formatting: the same behaviour, never "0%
/// similar" rewording.
#[test]
fn whitespace_only_text_is_no_rewording() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    put(
        &t,
        "old",
        &input,
        output(&[text("Done. All tests pass.")], "end_turn", (10, 4), false),
    );
    let rel = put(
        &t,
        "new",
        &input,
        output(
            &[text("Done.\n\nAll tests pass.\n")],
            "end_turn",
            (10, 4),
            false,
        ),
    );
    let run = diff(&t, &["old", "new"]);
    run.code(1).stdout_has(&format!("same behaviour {rel}"));
    assert!(!run.stdout.contains("reworded"), "{}", run.stdout);
    assert!(!run.stdout.contains("% similar"), "{}", run.stdout);
}

#[test]
fn identical_trees_exit_0_whatever_the_formatting() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let blocks = [text("Done."), bash("npm test")];
    let rel = put(
        &t,
        "old",
        &input,
        output(&blocks, "tool_use", (10, 4), false),
    );
    // The same value written compactly: canonically identical.
    let compact: Value = serde_json::from_str(&t.read(&format!("old/{rel}"))).unwrap();
    t.write(&format!("new/{rel}"), compact.to_string());
    diff(&t, &["old", "new"])
        .code(0)
        .stdout_has("1 cassette compared: all identical");
    diff(&t, &["-v", "old", "new"])
        .code(0)
        .stdout_has(&format!("identical {rel}"));

    // A changed id alone is a difference, with the same behaviour.
    t.write(
        &format!("new/{rel}"),
        t.read(&format!("old/{rel}")).replace("msg_01", "msg_02"),
    );
    diff(&t, &["old", "new"])
        .code(1)
        .stdout_has(&format!("same behaviour {rel}"))
        .stdout_has("values changed (ids, timestamps, data or formatting)");
}

#[test]
fn a_rekeyed_cassette_is_paired_with_its_old_self_and_names_the_changed_message() {
    let t = TestDir::new();
    let turn = vec![text("I will read it."), read("src/a.ts")];
    let result = |content: &str| json!([{"type": "tool_result", "tool_use_id": "toolu_01", "content": content}]);
    let old_input = [json!(PROMPT), json!(turn), result("export const a = 1;")];
    let new_input = [json!(PROMPT), json!(turn), result("export const a = 2;")];
    let blocks = [text("Now I edit it."), edit("src/a.ts", "b")];
    let old = put(
        &t,
        "old",
        &old_input,
        output(&blocks, "tool_use", (100, 40), false),
    );
    let new = put(
        &t,
        "new",
        &new_input,
        output(&blocks, "tool_use", (100, 40), false),
    );
    assert_ne!(old, new);
    // The first call of the conversation is on both sides under one name.
    let first = put(
        &t,
        "old",
        &old_input[..1],
        output(&[read("src/a.ts")], "tool_use", (50, 9), false),
    );
    put(
        &t,
        "new",
        &new_input[..1],
        output(&[read("src/a.ts")], "tool_use", (50, 9), false),
    );
    // And an unrelated call is removed, another added.
    let gone = put(
        &t,
        "old",
        &[json!("unrelated prompt")],
        output(&[text("Hi.")], "end_turn", (5, 2), false),
    );

    let run = diff(&t, &["old", "new"]);
    run.code(1)
        .stdout_has(&format!(
            "re-keyed, same behaviour {old} -> {new} (claude-code): input[2] changed"
        ))
        .stdout_has("request: input[2] changed")
        .stdout_has(&format!("removed {gone}"))
        .stdout_has("3 cassettes compared: 1 same behaviour, 1 re-keyed, 1 removed, 1 identical");
    assert!(
        !run.stdout.contains(&format!("added {new}")),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains(&first),
        "identical ones are quiet: {}",
        run.stdout
    );

    let doc = diff(&t, &["old", "new", "--format", "json"]).code(1).json();
    let entry = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["status"] == "re-keyed")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(entry["path"], new.as_str());
    assert_eq!(entry["old_path"], old.as_str());
    assert_eq!(entry["changed_message"], 2);
}

#[test]
fn added_and_removed_cassettes_are_listed_with_their_calls() {
    let t = TestDir::new();
    let kept = put(
        &t,
        "old",
        &[json!("keep")],
        output(&[text("Kept.")], "end_turn", (5, 2), false),
    );
    put(
        &t,
        "new",
        &[json!("keep")],
        output(&[text("Kept.")], "end_turn", (5, 2), false),
    );
    let removed = put(
        &t,
        "old",
        &[json!("old prompt")],
        output(&[read("src/old.ts")], "tool_use", (5, 2), false),
    );
    let added = put(
        &t,
        "new",
        &[json!("a new prompt"), json!([text("x")]), json!("more")],
        output(
            &[read("src/a.ts"), bash("npm test")],
            "tool_use",
            (5, 2),
            false,
        ),
    );
    t.write(
        "new/fixtures/token-count-0123456789ab.json",
        "{\n  \"tokenCount\": 42\n}",
    );
    t.write("new/notes.json", "not a cassette");
    let run = diff(&t, &["old", "new"]);
    run.code(1)
        .stdout_has(&format!("added {added} (claude-code): 1 model call"))
        .stdout_has("    Read(src/a.ts) -> Bash(npm test) (tool_use)")
        .stdout_has(&format!("removed {removed} (claude-code): 1 model call"))
        .stdout_has("    Read(src/old.ts) (tool_use)")
        .stdout_has("added fixtures/token-count-0123456789ab.json (token-count): token count 42")
        .stdout_has("4 cassettes compared: 2 added, 1 removed, 1 identical");
    assert!(!run.stdout.contains(&kept), "{}", run.stdout);
    assert!(!run.stdout.contains("notes.json"), "{}", run.stdout);
}

#[test]
fn stream_event_only_fixtures_are_reassembled() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let old = [text("Reading the file."), read("src/a.ts")];
    let new = [text("Running the tests."), bash("npm test")];
    put(&t, "old", &input, output(&old, "tool_use", (300, 20), true));
    let rel = put(&t, "new", &input, output(&new, "end_turn", (300, 25), true));
    assert!(!t.read(&format!("new/{rel}")).contains("\"uuid\""));
    diff(&t, &["old", "new"])
        .code(1)
        .stdout_has("tool calls `Read(src/a.ts)` became `Bash(npm test)`")
        .stdout_has("stop reason tool_use -> end_turn")
        .stdout_has("\"Reading the file.\" -> \"Running the tests.\"")
        .stdout_has("usage: output 20 -> 25 (+25.0%)");
    diff(&t, &["--textconv", &format!("new/{rel}")])
        .code(0)
        .stdout_has(
            "  text:\n    Running the tests.\n  tool: Bash(npm test)\n    command: npm test\n",
        );
}

fn examples_dsh() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dsh/tests/snapshots")
}

#[test]
fn a_dsh_scenario_change_is_read_from_the_derived_script() {
    let t = TestDir::copy_of(&examples_dsh());
    let copy = TestDir::copy_of(&examples_dsh());
    let log = "read-and-fix/session.jsonl";
    copy.write(
        log,
        copy.read(log)
            .replace("\"name\":\"read\"", "\"name\":\"grep\""),
    );
    let old = t.root.to_str().unwrap();
    let new = copy.root.to_str().unwrap();
    diff(&t, &[old, new])
        .code(1)
        .stdout_has("behaviour change read-and-fix (dsh): tool calls changed")
        .stdout_has("session.jsonl #1: tool calls `read(src/cart.ts)` became `grep(src/cart.ts)`")
        .stdout_has("3 cassettes compared: 1 behaviour change, 2 identical");

    // An override's patched entry is part of the script: changing it is a change.
    let over = "goal/replay.override.json";
    copy.write(
        over,
        copy.read(over).replace("goal_complete", "goal_abandon"),
    );
    diff(&t, &[old, new])
        .code(1)
        .stdout_has("behaviour change goal (dsh)")
        .stdout_has("tool calls `goal_complete(")
        .stdout_has("became `goal_abandon(");
}

#[test]
fn rev_compares_a_git_revision_with_the_working_tree() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let changed = put(
        &t,
        "app",
        &input,
        output(
            &[text("Reading first."), read("src/a.ts")],
            "tool_use",
            (10, 4),
            false,
        ),
    );
    let deleted = put(
        &t,
        "app",
        &[json!("gone")],
        output(&[text("Bye.")], "end_turn", (1, 1), false),
    );
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "record"]);
    let app = t.path("app");
    let vcr = |args: &[&str]| Run::from(common::vcr_command(&app, args, &[]).output().unwrap());

    vcr(&["diff", "--rev", "HEAD"])
        .code(0)
        .stdout_has("2 cassettes compared: all identical");

    put(
        &t,
        "app",
        &input,
        output(
            &[text("Reading it first."), read("src/a.ts")],
            "tool_use",
            (10, 4),
            false,
        ),
    );
    std::fs::remove_file(app.join(&deleted)).unwrap();
    let added = put(
        &t,
        "app",
        &[json!("new")],
        output(&[bash("ls")], "tool_use", (1, 1), false),
    );
    vcr(&["diff", "--rev", "HEAD"])
        .code(1)
        .stdout_has(&format!("reworded {changed}"))
        .stdout_has(&format!("removed {deleted}"))
        .stdout_has(&format!("added {added}"));
    // PATHs limit both sides; nothing was checked out or staged.
    vcr(&["diff", "--rev", "HEAD", &changed])
        .code(1)
        .stdout_has("1 cassette compared: 1 reworded");
    assert!(git(&t.root, &["status", "--porcelain"]).contains("app/fixtures/"));
    vcr(&["diff", "--rev", "no-such-rev"])
        .code(2)
        .stderr_has("`no-such-rev` is not a revision");
}

#[test]
fn rev_reads_from_git_what_changed_and_from_the_working_tree_what_did_not() {
    let t = TestDir::new();
    let said = |words: &str| output(&[text(words)], "end_turn", (1, 1), false);
    let edited = put(&t, "", &[json!("edited")], said("Before."));
    let untracked = put(&t, "", &[json!("untracked")], said("Same."));
    let restored = put(&t, "", &[json!("restored")], said("Same again."));
    let kept = put(&t, "", &[json!("kept")], said("Kept."));
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "record"]);
    // Edited in the working tree: git lists it, its old side is read from git.
    put(&t, "", &[json!("edited")], said("After."));
    // No longer tracked, the same bytes on disk: git lists it as deleted, so its old side is
    // read from git too, and the two are identical.
    git(&t.root, &["rm", "-q", "--cached", &untracked]);
    // Changed and staged, then put back on disk: the working tree is what HEAD had.
    let original = std::fs::read(t.path(&restored)).unwrap();
    put(&t, "", &[json!("restored")], said("Changed."));
    git(&t.root, &["add", &restored]);
    std::fs::write(t.path(&restored), &original).unwrap();
    let run = t.vcr(&["diff", "--rev", "HEAD", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    let status = |path: &str| {
        doc["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == path)
            .map(|c| c["verdict"].as_str().unwrap().to_owned())
    };
    assert_eq!(status(&edited).as_deref(), Some("reworded"), "{doc:#}");
    assert_eq!(status(&untracked).as_deref(), Some("identical"), "{doc:#}");
    assert_eq!(status(&restored).as_deref(), Some("identical"), "{doc:#}");
    assert_eq!(status(&kept).as_deref(), Some("identical"), "{doc:#}");
    t.vcr(&["diff", "--rev", "HEAD"])
        .code(1)
        .stdout_has("4 cassettes compared: 1 reworded, 3 identical");
    // What the two trees give compared as folders: HEAD's exported, and the working tree.
    let head = TestDir::new();
    for path in [&edited, &untracked, &restored, &kept] {
        head.write(path, git(&t.root, &["show", &format!("HEAD:{path}")]));
    }
    let exported = head.path("fixtures");
    t.vcr(&["diff", exported.to_str().unwrap(), "fixtures"])
        .code(1)
        .stdout_has("4 cassettes compared: 1 reworded, 3 identical");
}

#[test]
fn textconv_makes_git_diff_show_behaviour() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let rel = put(
        &t,
        "",
        &input,
        output(
            &[read("src/a.ts"), edit("src/a.ts", "b")],
            "tool_use",
            (10, 4),
            false,
        ),
    );
    t.write(".gitattributes", "fixtures/*.json diff=vcr\n");
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "record"]);
    put(
        &t,
        "",
        &input,
        output(
            &[read("src/a.ts"), bash("npm test")],
            "end_turn",
            (10, 4),
            false,
        ),
    );

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
        "-  stop: tool_use",
        "+  stop: end_turn",
        "-  tool: Edit(src/a.ts)",
        "+  tool: Bash(npm test)",
        "+    command: npm test",
        " model call 1",
    ] {
        assert!(shown.lines().any(|l| l == line), "lacks {line:?}:\n{shown}");
    }
    assert!(
        !shown.contains("\"stream_event\""),
        "raw JSON shown:\n{shown}"
    );
    // Without the driver git shows the JSON: the driver is what made the difference.
    let plain = git(&t.root, &["diff", "--", &rel]);
    assert!(plain.contains("\"partial_json\""), "{plain}");
}

/// The diff-driver recipe of `docs/diff.md`, run as pasted with this `vcr` on PATH, reaches
/// cassettes in nested folders: `git diff` shows the behaviour summary for a fixture under
/// `packages/app/fixtures/`.
#[test]
fn the_documented_diff_driver_covers_nested_folders() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diff.md"))
        .unwrap();
    let recipe = docs
        .split("```sh\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .find(|block| block.contains("diff=vcr"))
        .expect("docs/diff.md's diff-driver recipe");
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let dir = "packages/app";
    let rel = format!(
        "{dir}/{}",
        put(
            &t,
            dir,
            &input,
            output(&[read("src/a.ts")], "tool_use", (10, 4), false),
        )
    );
    git(&t.root, &["init", "-q"]);
    let bin = Path::new(env!("CARGO_BIN_EXE_vcr")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut sh = std::process::Command::new("sh");
    common::isolate_git(&mut sh);
    let ran = sh
        .args(["-e", "-c", recipe])
        .current_dir(&t.root)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "record"]);
    put(
        &t,
        dir,
        &input,
        output(&[bash("npm test")], "end_turn", (10, 4), false),
    );
    let mut cmd = std::process::Command::new("git");
    common::isolate_git(&mut cmd);
    let shown = cmd
        .args(["diff", "--", &rel])
        .current_dir(&t.root)
        .env("PATH", &path)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.lines().any(|l| l == "+  stop: end_turn"),
        "the driver did not run for {rel}:\n{shown}"
    );
}

#[test]
fn full_adds_the_canonical_diff_and_never_shows_a_secret() {
    // Built at run time so that this file holds no secret-shaped literal.
    let key = format!("sk-ant-api03-{}", "Zq7XvB2mKp9LwR4tYc8NdF3hJs6G");
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    put(
        &t,
        "old",
        &input,
        output(&[bash("echo hi")], "tool_use", (10, 4), false),
    );
    let rel = put(
        &t,
        "new",
        &input,
        output(
            &[bash(&format!("curl -H 'x-api-key: {key}' api"))],
            "tool_use",
            (10, 4),
            false,
        ),
    );
    let run = diff(&t, &["old", "new", "--full"]);
    run.code(1)
        .stdout_has(&format!("--- a/{rel}"))
        .stdout_has(&format!("+++ b/{rel}"))
        .stdout_has("sk-ant-a");
    assert!(!run.stdout.contains(&key), "{}", run.stdout);
    assert!(!run.stderr.contains(&key), "{}", run.stderr);
    let json = diff(&t, &["old", "new", "--full", "--format", "json"]);
    assert!(!json.stdout.contains(&key), "{}", json.stdout);
    assert!(
        json.json()["events"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("@@")
    );
    let textconv = diff(&t, &["--textconv", &format!("new/{rel}")]);
    textconv
        .code(0)
        .stdout_has("tool: Bash(curl -H 'x-api-key: sk-ant-a");
    assert!(!textconv.stdout.contains(&key), "{}", textconv.stdout);
}

#[test]
fn json_output_is_one_versioned_document() {
    let t = TestDir::new();
    let input = [json!(PROMPT)];
    let rel = put(
        &t,
        "old",
        &input,
        output(&[read("src/a.ts")], "tool_use", (10, 4), false),
    );
    put(
        &t,
        "new",
        &input,
        output(&[bash("npm test")], "tool_use", (10, 4), false),
    );
    let doc = diff(&t, &["old", "new", "--format", "json"]).code(1).json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["command"], "diff");
    let entry = &doc["events"][0];
    assert_eq!(entry["type"], "diff");
    assert_eq!(entry["path"], rel.as_str());
    assert_eq!(entry["kind"], "claude-code");
    assert_eq!(entry["status"], "modified");
    assert_eq!(entry["verdict"], "behaviour_change");
    assert_eq!(entry["reason"], "tool calls changed");
    let change = &entry["changes"][0];
    assert_eq!(change["what"], "tool_calls");
    assert_eq!(change["old"], "Read(src/a.ts)");
    assert_eq!(change["new"], "Bash(npm test)");
    assert!(change["message"].as_str().unwrap().contains("became"));
    let summary = &doc["summary"];
    for (key, n) in [
        ("cassettes", 1),
        ("behaviour_change", 1),
        ("identical", 0),
        ("added", 0),
        ("errors", 0),
    ] {
        assert_eq!(summary[key], n, "{key}: {summary}");
    }
}

#[test]
fn two_files_are_compared_by_their_contents_whatever_their_names() {
    let t = TestDir::new();
    let (_, old) = cassette(
        &[json!(PROMPT)],
        output(&[read("src/a.ts")], "tool_use", (1, 1), false),
    );
    let (_, new) = cassette(
        &[json!(PROMPT)],
        output(&[read("src/b.ts")], "tool_use", (1, 1), false),
    );
    t.write("before.json", old).write("after.json", new);
    diff(&t, &["before.json", "after.json"])
        .code(1)
        .stdout_has("behaviour change before.json -> after.json (claude-code)")
        .stdout_has("tool calls `Read(src/a.ts)` became `Read(src/b.ts)`");
    diff(&t, &["before.json", "before.json"]).code(0);
}

#[test]
fn bad_usage_and_unreadable_cassettes_exit_2() {
    let t = TestDir::new();
    put(
        &t,
        "old",
        &[json!("x")],
        output(&[text("Hi.")], "end_turn", (1, 1), false),
    );
    t.write("new/fixtures/aaaaaa.json", "{\"input\": [");
    t.write("one.json", "{}");
    diff(&t, &["old"])
        .code(2)
        .stderr_has("give two files or two folders");
    diff(&t, &["old", "one.json"])
        .code(2)
        .stderr_has("both be files or both be folders");
    diff(&t, &["old", "missing"])
        .code(2)
        .stderr_has("missing: no such file or folder");
    diff(&t, &["old", "new"])
        .code(2)
        .stderr_has("new/fixtures/aaaaaa.json");
}

/// A fixture known by its name that git finds unchanged in the working tree is identical
/// without being read (issue 44: `diff --rev` parsed every unchanged fixture of a
/// repository to say so): one committed unreadable is reported as identical, as git says it
/// is, while the same bytes in a fixture that changed are read, and are a `parse` error.
#[test]
fn rev_takes_a_fixture_git_finds_unchanged_as_identical_without_reading_it() {
    let t = TestDir::new();
    put(
        &t,
        "",
        &[json!("kept")],
        output(&[text("Kept.")], "end_turn", (1, 1), false),
    );
    t.write("fixtures/aaaaaa.json", "{\"input\": [");
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "record"]);
    diff(&t, &["--rev", "HEAD"])
        .code(0)
        .stdout_has("2 cassettes compared: all identical");
    t.write("fixtures/aaaaaa.json", "{\"input\": [ ");
    diff(&t, &["--rev", "HEAD"])
        .code(2)
        .stderr_has("fixtures/aaaaaa.json");
}
