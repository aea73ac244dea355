//! dsh scenarios as a user checks them: `vcr verify` and `vcr normalize` on real folders.
//!
//! Mutation tests copy the example tree, break one scenario one way, and expect exactly the
//! one finding the break deserves. The harness's own scenarios (the shared corpus) must
//! verify without a parse, schema or dsh error and be normal already.

use crate::common;

use std::path::Path;

use common::TestDir;
use serde_json::Value;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/dsh");
const SNAPSHOTS: &str = "tests/snapshots";

fn example() -> TestDir {
    TestDir::copy_of(Path::new(EXAMPLE))
}

fn verify_json(t: &TestDir) -> Value {
    t.vcr(&["verify", "--format", "json"]).json()
}

/// `(id, path)` of every error finding.
fn errors(doc: &Value) -> Vec<(String, String)> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn only_error<'a>(doc: &'a Value, id: &str, path: &str) -> &'a Value {
    let found = errors(doc);
    assert_eq!(found, [(id.to_owned(), path.to_owned())], "{doc:#}");
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "error")
        .unwrap()
}

fn edit(t: &TestDir, rel: &str, f: impl FnOnce(String) -> String) {
    let text = t.read(rel);
    let changed = f(text.clone());
    assert_ne!(text, changed, "the edit of {rel} changed nothing");
    t.write(rel, changed);
}

#[test]
fn the_example_scenarios_verify_and_show_their_scripts() {
    let t = example();
    let run = t.vcr(&["verify", "-v"]);
    run.code(0)
        .stdout_has("scenario tests/snapshots/read-and-fix: 1 session, 2 model calls derived")
        // The unfinished call is covered by the bare `hang` override.
        .stdout_has("scenario tests/snapshots/cancel: 1 session, 1 model call derived")
        // Two derived calls, and the patch at 2 appends a third.
        .stdout_has("scenario tests/snapshots/goal: 1 session, 3 model calls derived");
    t.vcr(&["normalize", "--check"]).code(0);
}

#[test]
fn a_call_without_finish_is_reported_with_its_turn_and_step() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/read-and-fix/session.jsonl");
    edit(&t, &rel, |text| {
        text.lines()
            .filter(|l| !l.contains(r#""type":"finish","reason":{"kind":"tool-calls"}"#))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    let doc = verify_json(&t);
    let finding = only_error(&doc, "dsh/unfinished-call", &rel);
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("1/1"), "{message}");
    assert!(message.contains("replay.override.json"), "{message}");
    assert!(finding["line"].as_u64().is_some(), "{finding}");
}

/// Issue 11: a header llm-replay cannot read used to stop every other check of its scenario
/// (an unfinished call went unreported). Now each break is its own finding.
#[test]
fn a_broken_header_hides_no_other_check_of_its_scenario() {
    let t = example();
    let dir = format!("{SNAPSHOTS}/goal");
    let log = format!("{dir}/session.jsonl");
    edit(&t, &log, |text| {
        let body: Vec<&str> = text.lines().skip(1).collect();
        let mut out =
            String::from("{\"type\":\"session\",\"version\":0,\"id\":\"snapshot-goal\",\n");
        for line in body {
            if line.contains(r#""step":2,"chunk":{"type":"finish""#) {
                continue; // call 2 never finished
            }
            let line = line
                .replace(
                    r#"\"title\":\"ship it\""#,
                    r#"\"title\":\"{{fromRequest:goal-\""#,
                )
                .replace("Goal created.", "Goal created in /home/alice/notes.");
            out.push_str(&line);
            out.push('\n');
        }
        out
    });
    t.write(
        &format!("{dir}/session.2.jsonl"),
        concat!(
            r#"{"type":"session","version":0,"id":"c2","createdAt":1785000200001,"cwd":"{{cwd}}","parentSession":"snapshot-goal","delegationDepth":1}"#,
            "\n",
            r#"{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}"#,
            "\n"
        ),
    );
    let doc = verify_json(&t);
    let mut found = errors(&doc);
    found.sort();
    let overrides = format!("{dir}/replay.override.json");
    // The placeholder and the home folder are each in a delta and in its `block-end`.
    let mut want = vec![
        ("dsh/from-request".to_owned(), log.clone()),
        ("dsh/from-request".to_owned(), log.clone()),
        ("dsh/override".to_owned(), overrides.clone()),
        ("dsh/unfinished-call".to_owned(), log.clone()),
        ("leak/path".to_owned(), log.clone()),
        ("leak/path".to_owned(), log.clone()),
        ("missing".to_owned(), format!("{dir}/session.1.jsonl")),
        ("parse".to_owned(), log.clone()),
    ];
    want.sort();
    assert_eq!(found, want, "{doc:#}");
    // The override was checked against the script derived past the broken header.
    let message = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "dsh/override")
        .unwrap()["message"]
        .clone();
    assert_eq!(
        message,
        format!(
            "llm-replay: override patch index 2 out of range (derived script has 1 call(s); == length appends): {overrides}"
        )
    );
}

/// Issue 11: `version` is not read by llm-replay and `delegationDepth` is required by the
/// harness's session store: both are `dsh/persistence` warnings, which `[verify.severity]`
/// can raise.
#[test]
fn header_fields_only_the_session_store_needs_are_persistence_warnings() {
    let t = example();
    let log = format!("{SNAPSHOTS}/read-and-fix/session.jsonl");
    edit(&t, &log, |text| {
        text.replacen(r#""version":0,"#, "", 1)
            .replacen(r#","delegationDepth":0"#, "", 1)
    });
    let run = t.vcr(&["verify", "--format", "json"]);
    let doc = run.code(0).json();
    assert_eq!(
        common::finding_fields(&doc, &["id", "severity", "line"]),
        ["dsh/persistence warning 1", "dsh/persistence warning 1"],
        "{doc:#}"
    );
    let text = serde_json::to_string(&doc).unwrap();
    assert!(text.contains("`version` must be a number (0)"), "{text}");
    assert!(text.contains("`delegationDepth` is missing"), "{text}");
    t.write(
        "vcr.toml",
        "[verify.severity]\n\"dsh/persistence\" = \"error\"\n",
    );
    t.vcr(&["verify"]).code(1).stdout_has("dsh/persistence");
}

#[test]
fn an_override_patch_past_the_script_is_the_harness_error() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/goal/replay.override.json");
    edit(&t, &rel, |text| text.replace(r#""at": 2"#, r#""at": 3"#));
    let doc = verify_json(&t);
    let finding = only_error(&doc, "dsh/override", &rel);
    assert_eq!(
        finding["message"],
        format!(
            "llm-replay: override patch index 3 out of range (derived script has 2 call(s); == length appends): {rel}"
        )
    );
}

#[test]
fn override_entries_are_checked_with_exact_keys() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/cancel/replay.override.json");
    edit(&t, &rel, |text| {
        text.replace(r#""kind": "hang""#, r#""kind": "stall""#)
    });
    let doc = verify_json(&t);
    // The override no longer covers the cut stream: that is reported too, but the override
    // problem names the harness's message.
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "dsh/override")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(
        finding["message"],
        format!("llm-replay: invalid override {rel}: entry 0 has unknown kind \"stall\"")
    );
    assert_eq!(finding["line"], 2, "{finding}");
}

#[test]
fn an_unterminated_from_request_placeholder_is_found_before_the_test_runs() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/goal/replay.override.json");
    edit(&t, &rel, |text| {
        text.replacen("goal-[0-9a-f-]+}}", "goal-[0-9a-f-]+}", 1)
    });
    let doc = verify_json(&t);
    let finding = only_error(&doc, "dsh/from-request", &rel);
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.starts_with("llm-replay: fromRequest placeholder is unterminated in "),
        "{message}"
    );
}

#[test]
fn a_from_request_pattern_is_compiled_as_javascript() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/goal/replay.override.json");
    // Valid in JavaScript (a lookbehind), so not an error.
    edit(&t, &rel, |text| {
        text.replace("goal-[0-9a-f-]+}}", "(?<=id )goal-[0-9a-f-]+}}")
    });
    assert_eq!(errors(&verify_json(&t)), []);
    // An unclosed group is invalid in JavaScript.
    edit(&t, &rel, |text| text.replace("(?<=id )", "(goal"));
    let doc = verify_json(&t);
    let finding = &doc["findings"].as_array().unwrap()[0];
    assert_eq!(finding["id"], "dsh/from-request", "{doc:#}");
    assert!(
        finding["message"].as_str().unwrap().starts_with(
            "llm-replay: fromRequest has an invalid pattern \"(goalgoal-[0-9a-f-]+\": "
        ),
        "{finding}"
    );
}

#[test]
fn a_gap_in_child_logs_is_missing() {
    let t = example();
    let dir = format!("{SNAPSHOTS}/read-and-fix");
    let primary = t.read(&format!("{dir}/session.jsonl"));
    t.write(&format!("{dir}/session.2.jsonl"), &primary);
    let doc = verify_json(&t);
    let finding = only_error(&doc, "missing", &format!("{dir}/session.1.jsonl"));
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("session.1.jsonl"),
        "{finding}"
    );
}

#[test]
fn broken_lines_are_parse_and_schema_findings_with_their_line() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/read-and-fix/session.jsonl");
    edit(&t, &rel, |text| {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines[2] = lines[2].replacen('}', "", 1);
        lines.join("\n") + "\n"
    });
    let doc = verify_json(&t);
    let finding = only_error(&doc, "parse", &rel);
    assert_eq!(finding["line"], 3, "{finding}");

    let t = example();
    edit(&t, &rel, |text| {
        text.replace(r#""dt":[12,9,11]"#, r#""dt":[12,9]"#)
    });
    let doc = verify_json(&t);
    let finding = only_error(&doc, "schema", &rel);
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("malformed text-chunks storage row"),
        "{finding}"
    );
}

#[test]
fn machine_paths_where_the_harness_writes_cwd_are_leaks_and_ids_are_not() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/read-and-fix/session.jsonl");
    edit(&t, &rel, |text| {
        text.replacen(r#""cwd":"{{cwd}}""#, r#""cwd":"/home/dana/work/app""#, 1)
    });
    let doc = verify_json(&t);
    let finding = only_error(&doc, "leak/path", &rel);
    assert_eq!(finding["line"], 1, "{finding}");
    assert_eq!(finding["pointer"], "/0/cwd", "{finding}");
    // The example's message ids are UUIDs the harness keeps: no finding at all.
    assert!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["id"] != "leak/uuid"),
        "{doc:#}"
    );
}

#[test]
fn a_temporary_folder_in_the_header_cwd_is_an_error_and_in_a_tool_call_a_warning() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/read-and-fix/session.jsonl");
    edit(&t, &rel, |text| {
        text.replacen(r#""cwd":"{{cwd}}""#, r#""cwd":"/tmp/dsh-snap-Q2x""#, 1)
    });
    let doc = verify_json(&t);
    let finding = only_error(&doc, "leak/path", &rel);
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("where the harness writes {{cwd}}"),
        "{finding}"
    );
    let t = example();
    edit(&t, &rel, |text| {
        text.replace("{{cwd}}/src/cart.ts", "/tmp/dsh-snap-Q2x/src/cart.ts")
    });
    let doc = verify_json(&t);
    assert_eq!(errors(&doc), [], "{doc:#}");
    assert!(doc["summary"]["warnings"].as_u64().unwrap() >= 1, "{doc:#}");
}

#[test]
fn normalize_strips_envelopes_and_tokenizes_the_recording_folder() {
    let t = example();
    let rel = format!("{SNAPSHOTS}/read-and-fix/session.jsonl");
    let canonical = t.read(&rel);
    // What a runtime log looks like before it is committed: seq/time envelopes, the
    // generated working folder, packed rows with seq0/time0.
    let runtime: String = canonical
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let line = line.replace("{{cwd}}", "/var/run/dsh-snap-7Qx");
            if i == 0 {
                return format!("{}\n", line.replace("/var/run/dsh-snap-7Qx", "{{cwd}}"));
            }
            let envelope = if line.contains("-chunks\"") {
                format!(r#"{{"seq0":{i},"time0":{},"#, 1000 + i)
            } else {
                format!(r#"{{"seq":{i},"time":{},"#, 1000 + i)
            };
            format!("{}{}\n", envelope, &line[1..])
        })
        .collect();
    t.write(&rel, &runtime);
    t.write("vcr.toml", "[dsh]\ncwd = \"/var/run/dsh-snap-7Qx\"\n");
    let doc = verify_json(&t);
    let kinds: Vec<(String, String)> = errors(&doc);
    assert!(
        kinds.contains(&("format/unnormalized".to_owned(), rel.clone())),
        "{doc:#}"
    );
    t.vcr(&["normalize", "--check"]).code(1);
    t.vcr(&["normalize"]).code(0);
    assert_eq!(t.read(&rel), canonical);
    t.vcr(&["verify"]).code(0);
}

#[test]
fn a_named_log_checks_its_whole_scenario() {
    let t = example();
    let dir = format!("{SNAPSHOTS}/goal");
    edit(&t, &format!("{dir}/replay.override.json"), |text| {
        text.replace(r#""at": 2"#, r#""at": 9"#)
    });
    // The pre-commit framework passes only the changed log; the override is its sibling.
    let run = t.vcr(&[
        "verify",
        "--format",
        "json",
        &format!("{dir}/session.jsonl"),
    ]);
    run.code(1);
    let doc = run.json();
    assert_eq!(
        errors(&doc),
        [(
            "dsh/override".to_owned(),
            format!("{dir}/replay.override.json")
        )]
    );
    // Another scenario's files are not read.
    t.vcr(&["verify", &format!("{SNAPSHOTS}/cancel/session.jsonl")])
        .code(0);
}

#[test]
fn the_harness_scenarios_verify_and_are_already_normal() {
    let Some(corpus) = common::corpus("deepseek-ai__deepseek-harness") else {
        return;
    };
    let run = common::vcr_command(&corpus, &["verify", "--format", "json", "-v"], &[])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let errors = errors(&doc);
    // The only errors are one true leak: a developer's home folder in an authored scenario.
    assert!(
        errors
            .iter()
            .all(|(id, path)| id == "leak/path" && path.contains("session-sandbox-root")),
        "{errors:?}"
    );
    assert!(doc["summary"]["files"].as_u64().unwrap() > 109, "{doc:#}");
    let run = common::vcr_command(&corpus, &["normalize", "--check"], &[])
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
}

/// Issue 11: the harness's own `missing-credential` scenario pins, in its expected output,
/// the session events of a call made without an API key. Turned into the session log that
/// the snapshot suite commits (the same events, without `seq` and `time`), they hold a
/// recorded error, which `verify` reports as a warning.
#[test]
fn the_harness_missing_credential_events_are_a_recorded_error() {
    let Some(corpus) = common::corpus("deepseek-ai__deepseek-harness") else {
        return;
    };
    let stream = std::fs::read_to_string(corpus.join(
        "examples/headless-agent/tests/snapshots/missing-credential/stream-json.expected.jsonl",
    ))
    .unwrap();
    let mut log = String::from(
        r#"{"type":"session","version":0,"id":"{{sessionId}}","createdAt":0,"cwd":"{{cwd}}","delegationDepth":0}"#,
    );
    log.push('\n');
    for line in stream.lines() {
        let value = vcr_json::parse(line.as_bytes()).unwrap();
        let Some(event) = value.as_object().and_then(|o| o.get("event")) else {
            continue;
        };
        let mut event = event.clone();
        let row = event.as_object_mut().unwrap();
        row.remove("seq");
        row.remove("time");
        log.push_str(&String::from_utf8(vcr_json::to_compact(&event)).unwrap());
        log.push('\n');
    }
    let t = TestDir::new();
    t.write("tests/snapshots/missing-credential/session.jsonl", &log);
    let doc = verify_json(&t);
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    assert_eq!(findings[0]["id"], "recorded/error");
    assert_eq!(findings[0]["severity"], "warning");
    assert_eq!(
        findings[0]["message"],
        "model call 1 (turn/step 1/1) is a recorded API error, not an answer: authentication \
         (`MISSING_CREDENTIAL`); record it again with a working API key"
    );
}

/// Regression (issue 11): a finding's message that quotes the file (here the whole string of
/// an unterminated placeholder) masks what the leak scan finds in it, as every output does.
#[test]
fn messages_quoting_the_file_mask_its_secrets() {
    let t = example();
    let body: String = (0..93)
        .map(|i| char::from(b"Zq7Kx2Lm9Pw4Rt6Yv8Bn3Hd5Jf1Gs0Ac"[(i * 7 + 3) % 32]))
        .collect();
    let secret = format!("{}-{}-{}{body}AA", "sk", "ant", "api03");
    let override_rel = format!("{SNAPSHOTS}/goal/replay.override.json");
    edit(&t, &override_rel, |text| {
        text.replacen(
            "{{fromRequest:goal-[0-9a-f-]+}}",
            &format!("{{{{fromRequest:goal- key {secret}"),
            1,
        )
    });
    for format in ["human", "json", "sarif", "github"] {
        let run = t.vcr(&["verify", "--format", format]);
        assert!(
            run.stdout
                .contains("fromRequest placeholder is unterminated"),
            "{}",
            run.stdout
        );
        assert!(
            !run.stdout.contains(&secret) && !run.stderr.contains(&secret),
            "{format} printed the key:\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
}
