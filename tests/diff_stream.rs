//! `vcr diff` on dsh scenarios read a call at a time agrees with the scenarios read whole
//! (issue 12): the same report, byte for byte, with and without the testing hook
//! `VCR_TEST_WHOLE_VALUES=1` (which keeps the whole-file path), on generated scenarios with
//! overrides, child logs, changed, added and removed calls and broken lines, and on the
//! harness's own scenarios of the corpus with changes made to them.

use crate::common;

use std::path::Path;

use common::{Run, TestDir, corpus, git};

const WHOLE: &[(&str, &str)] = &[("VCR_TEST_WHOLE_VALUES", "1")];

/// Runs `vcr diff ARGS` streamed and whole; asserts both say the same and returns it.
#[track_caller]
fn both(t: &TestDir, args: &[&str]) -> Run {
    let mut full = vec!["diff"];
    full.extend_from_slice(args);
    let streamed = t.vcr(&full);
    let whole = t.vcr_with(&full, WHOLE);
    assert_eq!(streamed.code, whole.code, "{args:?}: {}", streamed.stderr);
    assert_eq!(
        streamed.stdout, whole.stdout,
        "{args:?}: stdout differs (left: streamed)"
    );
    assert_eq!(
        streamed.stderr, whole.stderr,
        "{args:?}: stderr differs (left: streamed)"
    );
    streamed
}

/// One model call of a generated log.
#[derive(Clone)]
struct Call {
    turn: usize,
    /// A `request/header` naming this model before the call.
    model: Option<&'static str>,
    /// A `user/message` before the call.
    user: Option<String>,
    text: String,
    /// `(name, arguments as JSON)`.
    tool: Option<(&'static str, String)>,
    finish: &'static str,
    tokens: (u64, u64),
    /// Text deltas as one packed `text-chunks` row.
    packed: bool,
}

fn call(turn: usize, text: &str) -> Call {
    Call {
        turn,
        model: (turn % 4 == 1).then_some("deepseek-v4-flash"),
        user: (turn % 3 == 1).then(|| format!("step {turn}: fix the cart")),
        text: text.to_owned(),
        tool: (turn.is_multiple_of(2)).then(|| {
            (
                "read",
                format!(r#"{{"path":"{{{{cwd}}}}/src/f{turn}.ts","limit":{turn}}}"#),
            )
        }),
        finish: if turn.is_multiple_of(2) {
            "tool-calls"
        } else {
            "stop"
        },
        tokens: (1000 + turn as u64 * 7, 20 + turn as u64),
        packed: turn.is_multiple_of(3),
    }
}

fn calls(n: usize) -> Vec<Call> {
    (1..=n)
        .map(|turn| call(turn, &format!("I will look at part {turn} of the cart")))
        .collect()
}

fn js(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// A session log: the header (with `extra` header fields), then each call's rows.
fn log(calls: &[Call], extra: &str) -> String {
    let mut out = format!(
        r#"{{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"{{{{cwd}}}}","delegationDepth":0{extra}}}"#
    );
    out.push('\n');
    let mut row = |line: String| {
        out.push_str(&line);
        out.push('\n');
    };
    for c in calls {
        let ts = format!(r#""turn":{},"step":1"#, c.turn);
        let chunk = |chunk: String| {
            format!(r#"{{"type":"assistant/chunk","data":{{{ts},"chunk":{chunk}}}}}"#)
        };
        row(format!(
            r#"{{"type":"turn/start","data":{{"turn":{}}}}}"#,
            c.turn
        ));
        if let Some(user) = &c.user {
            row(format!(
                r#"{{"type":"user/message","data":{{"content":[{{"type":"text","text":{}}}]}}}}"#,
                js(user)
            ));
        }
        if let Some(model) = c.model {
            row(format!(
                r#"{{"type":"request/header","data":{{"header":{{"config":{{"provider":"deepseek-official","model":"{model}"}}}},"reason":"change"}}}}"#
            ));
        }
        row(chunk(
            r#"{"type":"block-start","index":0,"blockType":"text"}"#.to_owned(),
        ));
        let (head, tail) = c.text.split_at(c.text.len() / 2);
        if c.packed {
            row(format!(
                r#"{{"type":"text-chunks","data":{{{ts},"index":0,"dt":[3],"texts":[{},{}]}}}}"#,
                js(head),
                js(tail)
            ));
        } else {
            for part in [head, tail] {
                row(chunk(format!(
                    r#"{{"type":"text-delta","index":0,"text":{}}}"#,
                    js(part)
                )));
            }
        }
        row(chunk(format!(
            r#"{{"type":"block-end","index":0,"block":{{"type":"text","text":{}}}}}"#,
            js(&c.text)
        )));
        if let Some((name, args)) = &c.tool {
            row(chunk(format!(
                r#"{{"type":"block-end","index":1,"block":{{"type":"tool-call","id":"call_{}","name":"{name}","arguments":{}}}}}"#,
                c.turn,
                js(args)
            )));
        }
        row(chunk(format!(
            r#"{{"type":"usage","usage":{{"inputTokens":{},"outputTokens":{}}}}}"#,
            c.tokens.0, c.tokens.1
        )));
        row(chunk(format!(
            r#"{{"type":"finish","reason":{{"kind":"{}"}}}}"#,
            c.finish
        )));
        row(format!(
            r#"{{"type":"turn/end","data":{{"turn":{},"reason":{{"kind":"completed"}}}}}}"#,
            c.turn
        ));
    }
    out
}

/// An override entry answering with `text`.
fn entry(text: &str) -> String {
    format!(
        r#"{{"kind":"chunks","chunks":[{{"type":"text-delta","index":0,"text":{}}},{{"type":"finish","reason":{{"kind":"stop"}}}}]}}"#,
        js(text)
    )
}

/// Replaces the `n`-th (1-based) line of `text`.
fn with_line(text: &str, n: usize, line: &str) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    lines[n - 1] = line;
    lines.join("\n")
}

/// The old and new trees: one scenario folder per case.
fn scenarios(old: &TestDir, new: &TestDir) {
    let base = calls(9);
    let put = |t: &TestDir, dir: &str, files: &[(&str, String)]| {
        for (name, text) in files {
            t.write(&format!("{dir}/{name}"), text);
        }
    };
    let same = |dir: &str, files: &[(&str, String)]| {
        put(old, dir, files);
        put(new, dir, files);
    };
    let pair = |dir: &str, old_files: &[(&str, String)], new_files: &[(&str, String)]| {
        put(old, dir, old_files);
        put(new, dir, new_files);
    };

    same("identical", &[("session.jsonl", log(&base, ""))]);

    // Tool, arguments, text, stop reason, model and usage of a few calls.
    let mut changed = base.clone();
    changed[1].tool = Some(("grep", r#"{"pattern":"total"}"#.to_owned()));
    changed[3].tool = Some((
        "read",
        r#"{"path":"{{cwd}}/src/f4.ts","limit":99}"#.to_owned(),
    ));
    changed[4].text = "I will look at part five of the cart".to_owned();
    changed[6].finish = "length";
    changed[8].model = Some("deepseek-v4-pro");
    changed[7].tokens.0 += 500;
    pair(
        "changed",
        &[("session.jsonl", log(&base, ""))],
        &[("session.jsonl", log(&changed, ""))],
    );

    let mut reworded = base.clone();
    reworded[2].text = "Let me look at part 3 of the cart".to_owned();
    pair(
        "reworded",
        &[("session.jsonl", log(&base, ""))],
        &[("session.jsonl", log(&reworded, ""))],
    );

    // The same calls under other header ids: only the bytes differ.
    pair(
        "same-behaviour",
        &[("session.jsonl", log(&base, ""))],
        &[(
            "session.jsonl",
            log(&base, "").replacen(r#""id":"s""#, r#""id":"t""#, 1),
        )],
    );

    pair(
        "added-calls",
        &[("session.jsonl", log(&base, ""))],
        &[("session.jsonl", log(&calls(12), ""))],
    );
    pair(
        "removed-calls",
        &[("session.jsonl", log(&base, ""))],
        &[("session.jsonl", log(&calls(5), ""))],
    );
    let mut asked = base.clone();
    asked[3].user = Some("step 4: also fix the tax".to_owned());
    pair(
        "request",
        &[("session.jsonl", log(&base, ""))],
        &[("session.jsonl", log(&asked, ""))],
    );

    // Overrides: a bare array, and patches replacing and appending (the new log has one call
    // more, so the appending patch replaces there).
    pair(
        "override-bare",
        &[
            ("session.jsonl", log(&base, "")),
            (
                "replay.override.json",
                format!("[{},{}]", entry("a"), entry("b")),
            ),
        ],
        &[
            ("session.jsonl", log(&changed, "")),
            (
                "replay.override.json",
                format!("[{},{}]", entry("a"), entry("c")),
            ),
        ],
    );
    let patches = format!(
        r#"{{"patches":[{{"at":1,"entry":{}}},{{"at":9,"entry":{}}},{{"at":10,"entry":{}}},{{"at":9,"entry":{}}}]}}"#,
        entry("p"),
        entry("q"),
        entry("r"),
        entry("s")
    );
    pair(
        "override-patches",
        &[
            ("session.jsonl", log(&base, "")),
            ("replay.override.json", patches.clone()),
        ],
        &[
            ("session.jsonl", log(&calls(10), "")),
            ("replay.override.json", patches.clone()),
        ],
    );
    pair(
        "override-only",
        &[("replay.override.json", format!("[{}]", entry("a")))],
        &[("replay.override.json", patches.clone())],
    );
    pair(
        "override-broken",
        &[
            ("session.jsonl", log(&base, "")),
            ("replay.override.json", "[{".to_owned()),
        ],
        &[("session.jsonl", log(&base, ""))],
    );

    // Children after their seed: the first four events are the parent's.
    let child = |calls: &[Call]| log(calls, r#","parentSession":"s","seedLength":4"#);
    let mut child_changed = base.clone();
    child_changed[5].tool = Some(("bash", r#"{"command":"npm test"}"#.to_owned()));
    pair(
        "children",
        &[
            ("session.jsonl", log(&calls(3), "")),
            ("session.1.jsonl", child(&base)),
            ("session.2.jsonl", child(&calls(4))),
        ],
        &[
            ("session.jsonl", log(&calls(3), "")),
            ("session.1.jsonl", child(&child_changed)),
            ("session.3.jsonl", child(&calls(2))),
        ],
    );

    // Broken lines: the first error of the old side wins, then the new side's.
    let good = log(&base, "");
    let bad_json = with_line(&good, 7, r#"{"type":"assistant/chunk","data":"#);
    let bad_row = with_line(&good, 12, "[1,2]");
    let bad_packed = with_line(
        &good,
        30,
        r#"{"type":"text-chunks","data":{"turn":3,"step":1,"index":0,"dt":[],"texts":["a","b"]}}"#,
    );
    same("broken-same", &[("session.jsonl", bad_json.clone())]);
    pair(
        "broken-old",
        &[("session.jsonl", bad_json.clone())],
        &[("session.jsonl", good.clone())],
    );
    pair(
        "broken-new",
        &[("session.jsonl", good.clone())],
        &[("session.jsonl", bad_packed.clone())],
    );
    pair(
        "broken-both",
        &[("session.jsonl", bad_row.clone())],
        &[("session.jsonl", bad_json.clone())],
    );
    pair(
        "broken-child",
        &[
            ("session.jsonl", good.clone()),
            ("session.1.jsonl", child(&base)),
        ],
        &[
            ("session.jsonl", good.clone()),
            ("session.1.jsonl", with_line(&child(&base), 9, "nope")),
        ],
    );
    pair(
        "empty",
        &[("session.jsonl", String::new())],
        &[("session.jsonl", good.clone())],
    );
    put(old, "removed", &[("session.jsonl", good.clone())]);
    put(new, "added", &[("session.jsonl", log(&changed, ""))]);
    put(new, "added-broken", &[("session.jsonl", bad_row)]);
}

#[test]
fn generated_scenarios_diff_the_same_streamed_and_whole() {
    let (old, new) = (TestDir::new(), TestDir::new());
    scenarios(&old, &new);
    let (o, n) = (old.root.to_str().unwrap(), new.root.to_str().unwrap());
    let run = both(&old, &[o, n]);
    run.code(2)
        .stdout_has("behaviour change changed (dsh)")
        .stdout_has("session.jsonl #2: tool calls `read(src/f2.ts)` became `grep(total)`")
        .stdout_has("reworded reworded (dsh)")
        .stdout_has("same behaviour same-behaviour (dsh)")
        .stdout_has("session.jsonl #10, override")
        .stderr_has("session snapshot line 7 contains invalid JSON");
    let doc = both(&old, &[o, n, "--format", "json"]).json();
    assert_eq!(doc["summary"]["errors"], 8, "{}\n{doc:#}", run.stderr);
    both(&old, &[o, n, "--full"]);
    // A scenario on its own, as the whole tree: the exit code is that case's.
    for dir in ["override-patches", "broken-new"] {
        both(&old, &[&format!("{o}/{dir}"), &format!("{n}/{dir}")]);
    }
    // Two log files, their kinds told by their contents: pairs of logs of the two trees, a
    // log of one line, and a log against a file that is none.
    old.write("one-line.jsonl", log(&[], ""));
    old.write("not-a-log.json", r#"{"tokenCount":3}"#);
    let mut files: Vec<String> = ["changed", "request", "broken-old", "broken-new", "empty"]
        .iter()
        .map(|dir| format!("{dir}/session.jsonl"))
        .collect();
    files.push("children/session.1.jsonl".to_owned());
    for file in &files {
        let (a, b) = (format!("{o}/{file}"), format!("{n}/{file}"));
        both(&old, &[&a, &b]);
        both(&old, &[&a, &b, "--full", "--format", "json"]);
    }
    let changed = format!("{n}/changed/session.jsonl");
    for other in ["one-line.jsonl", "not-a-log.json"] {
        let other = format!("{o}/{other}");
        both(&old, &[&other, &changed]);
        both(&old, &[&changed, &other]);
    }
    both(&old, &[&changed, &changed]).code(0);
}

#[test]
fn a_revision_diffs_the_same_streamed_and_whole() {
    let (t, new) = (TestDir::new(), TestDir::new());
    scenarios(&t, &new);
    // A log over a megabyte stays in git until it is compared.
    let mut long = calls(1500);
    t.write("big/session.jsonl", log(&long, ""));
    long[700].finish = "length";
    new.write("big/session.jsonl", log(&long, ""));
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "recorded"]);
    for entry in std::fs::read_dir(&t.root).unwrap().flatten() {
        if entry.file_name() != ".git" {
            std::fs::remove_dir_all(entry.path()).unwrap();
        }
    }
    let mut files = Vec::new();
    logs(&new.root, &mut files);
    for path in files {
        let rel = path.strip_prefix(&new.root).unwrap();
        t.write(rel.to_str().unwrap(), std::fs::read(&path).unwrap());
    }
    both(&t, &["--rev", "HEAD"])
        .code(2)
        .stdout_has("session.jsonl #701: stop reason stop -> length");
    both(&t, &["--rev", "HEAD", "--format", "json", "big", "changed"]).code(1);
}

/// A changed copy of a log: every third model call's finish reason, every fourth log's
/// first text, a line dropped from every fifth, a broken line in every seventh.
fn mutate(text: &str, i: usize) -> String {
    let mut text = text.to_owned();
    if i.is_multiple_of(3) {
        text = text.replacen(r#""kind":"stop""#, r#""kind":"length""#, 1);
    }
    if i.is_multiple_of(4) {
        text = text.replacen(r#""text":""#, r#""text":"Now, "#, 1);
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let mut lines: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    if i.is_multiple_of(5) && lines.len() > 4 {
        lines.remove(lines.len() / 2);
    }
    if i.is_multiple_of(7) && lines.len() > 3 {
        lines.insert(2, "{\"type\":".to_owned());
    }
    lines.join("\n")
}

fn logs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            logs(&path, out);
        } else if vcr_cassette::dsh::is_scenario_file(&name) {
            out.push(path);
        }
    }
}

#[test]
fn the_harness_scenarios_diff_the_same_streamed_and_whole() {
    let Some(root) = corpus("deepseek-ai__deepseek-harness") else {
        return;
    };
    let copy = TestDir::copy_of(&root);
    let mut files = Vec::new();
    logs(&copy.root, &mut files);
    assert!(files.len() > 50, "{} scenario files", files.len());
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        std::fs::write(path, mutate(&text, i)).unwrap();
    }
    let (o, n) = (root.to_str().unwrap(), copy.root.to_str().unwrap());
    let run = both(&copy, &[o, n]);
    run.stdout_has("behaviour change");
    both(&copy, &[o, n, "--format", "json"]);
    // Unchanged: every scenario identical.
    both(&copy, &[o, o]).code(0);
}
