//! The dsh library (`vcr_cassette::dsh`) through its public API: hand-written logs for every
//! rule, one-mutation-one-finding tests on a small valid scenario, and the harness's own
//! scenarios (the shared corpus, when present), which must all check clean.

use crate::common::skip;

use std::path::{Path, PathBuf};

use vcr_cassette::dsh::{
    self, OverrideKind, Problem, Role, check_override, check_scenario, check_scenario_files,
    derive_script, normalize_session, parse_session, placeholder_errors, read_session,
};

// ---------------------------------------------------------------------------------------
// Building logs

const HEADER: &str = r#"{"type":"session","version":0,"id":"s-main","createdAt":1000,"cwd":"{{cwd}}","delegationDepth":0}"#;

/// Lines joined into a log that ends with a newline.
fn log(lines: &[&str]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// An `assistant/chunk` row.
fn chunk(turn: u32, step: u32, chunk: &str) -> String {
    format!(
        r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":{step},"chunk":{chunk}}}}}"#
    )
}

fn finish(turn: u32, step: u32, kind: &str) -> String {
    chunk(
        turn,
        step,
        &format!(r#"{{"type":"finish","reason":{{"kind":"{kind}"}}}}"#),
    )
}

fn text_start(turn: u32, step: u32) -> String {
    chunk(
        turn,
        step,
        r#"{"type":"block-start","index":0,"blockType":"text"}"#,
    )
}

/// A small valid primary log: turn 1 step 1 writes text (a packed row) and calls a tool,
/// turn 1 step 2 answers. Two calls.
fn primary_lines() -> Vec<String> {
    vec![
        HEADER.to_owned(),
        r#"{"type":"turn/start","data":{"turn":1}}"#.to_owned(),
        text_start(1, 1),
        r#"{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[3,4],"texts":["Let"," me"," look"]}}"#.to_owned(),
        chunk(1, 1, r#"{"type":"block-end","index":0,"block":{"type":"text","text":"Let me look"}}"#),
        chunk(1, 1, r#"{"type":"block-start","index":1,"blockType":"tool-call"}"#),
        r#"{"type":"tool-call-chunks","data":{"turn":1,"step":1,"index":1,"id":"call_1","name":"read","dt":[0,0],"args":["{\"file","_path\":","\"a.txt\"}"]}}"#.to_owned(),
        chunk(1, 1, r#"{"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_1","name":"read","arguments":"{\"file_path\":\"a.txt\"}"}}"#),
        chunk(1, 1, r#"{"type":"usage","usage":{"inputTokens":100,"outputTokens":7}}"#),
        finish(1, 1, "tool-calls"),
        r#"{"type":"tool/result","data":{"turn":1,"step":1,"content":"hello"}}"#.to_owned(),
        text_start(1, 2),
        chunk(1, 2, r#"{"type":"text-delta","index":0,"text":"Done."}"#),
        chunk(1, 2, r#"{"type":"block-end","index":0,"block":{"type":"text","text":"Done."}}"#),
        finish(1, 2, "stop"),
        r#"{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}"#.to_owned(),
    ]
}

fn primary() -> String {
    let lines = primary_lines();
    log(&lines.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A child log: two inherited events of an unfinished parent call (`seedLength` 2), then one
/// call of its own.
fn child(id: &str, created_at: u64) -> String {
    let header = format!(
        r#"{{"type":"session","version":0,"id":"{id}","createdAt":{created_at},"cwd":"{{{{cwd}}}}","parentSession":"s-main","seedLength":2,"origin":"subagent","delegationDepth":1}}"#
    );
    log(&[
        &header,
        &text_start(1, 1),
        &chunk(
            1,
            1,
            r#"{"type":"text-delta","index":0,"text":"inherited, unfinished"}"#,
        ),
        &text_start(2, 1),
        &chunk(2, 1, r#"{"type":"text-delta","index":0,"text":"child"}"#),
        &finish(2, 1, "stop"),
    ])
}

/// Runs the scenario check on named files.
fn scenario(files: &[(&str, &str)]) -> dsh::ScenarioReport {
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_bytes())).collect();
    check_scenario(&files, "snap", None)
}

fn ids(problems: &[Problem]) -> Vec<&'static str> {
    problems.iter().map(|p| p.id.as_str()).collect()
}

#[track_caller]
fn one(problems: &[Problem], id: &str) -> Problem {
    assert_eq!(
        problems.len(),
        1,
        "expected exactly one {id} problem, got {problems:#?}"
    );
    assert_eq!(problems[0].id.as_str(), id, "{problems:#?}");
    problems[0].clone()
}

// ---------------------------------------------------------------------------------------
// Parsing (B.2)

#[test]
fn projected_rows_get_seq_as_a_running_count_and_time_zero() {
    let text = primary();
    let session = parse_session(text.as_bytes(), "s.jsonl").unwrap();
    assert_eq!(session.header.id, "s-main");
    assert_eq!(session.header.line, 1);
    let seqs: Vec<i64> = session.events.iter().map(|e| e.seq).collect();
    // 14 plain rows and two packed rows of 3 members each.
    assert_eq!(seqs, (0..19).collect::<Vec<_>>());
    // `time` is 0 where missing; packed members add their `dt` gaps to it.
    let times: Vec<i64> = session.events.iter().map(|e| e.time).collect();
    assert_eq!(times[2..5], [0, 3, 7]);
    assert!(times[..2].iter().chain(&times[5..]).all(|&t| t == 0));
    let packed: Vec<usize> = session
        .events
        .iter()
        .filter(|e| e.packed)
        .map(|e| e.line)
        .collect();
    assert_eq!(packed, [4, 4, 4, 7, 7, 7]);
}

#[test]
fn stored_envelopes_are_kept_and_packed_times_add_up() {
    let text = log(&[
        HEADER,
        r#"{"type":"turn/start","seq":7,"time":50,"data":{"turn":1}}"#,
        r#"{"type":"text-chunks","seq0":8,"time0":60,"data":{"turn":1,"step":1,"index":0,"dt":[5,0,2],"texts":["a","b","c","d"]}}"#,
        r#"{"type":"turn/end","data":{"turn":1}}"#,
    ]);
    let session = parse_session(text.as_bytes(), "s.jsonl").unwrap();
    let envelope: Vec<(i64, i64)> = session.events.iter().map(|e| (e.seq, e.time)).collect();
    assert_eq!(
        envelope,
        [(7, 50), (8, 60), (9, 65), (10, 65), (11, 67), (5, 0)]
    );
    let chunk = session.events[1].data().unwrap().get("chunk").unwrap();
    assert_eq!(
        String::from_utf8(vcr_json::to_compact(chunk)).unwrap(),
        r#"{"type":"text-delta","index":0,"text":"a"}"#
    );
}

#[test]
fn tool_call_rows_expand_with_and_without_a_name() {
    let text = log(&[
        HEADER,
        r#"{"type":"tool-call-chunks","data":{"turn":2,"step":1,"index":0,"id":"c","dt":[0],"args":["{","}"]}}"#,
        r#"{"type":"tool-call-chunks","data":{"turn":2,"step":1,"index":0,"id":"c","name":"bash","dt":[1],"args":["{","}"]}}"#,
    ]);
    let session = parse_session(text.as_bytes(), "s.jsonl").unwrap();
    let chunks: Vec<String> = session
        .events
        .iter()
        .map(|e| {
            String::from_utf8(vcr_json::to_compact(
                e.data().unwrap().get("chunk").unwrap(),
            ))
            .unwrap()
        })
        .collect();
    assert_eq!(
        chunks,
        [
            r#"{"type":"tool-call-delta","index":0,"id":"c","argumentsDelta":"{"}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","argumentsDelta":"}"}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","name":"bash","argumentsDelta":"{"}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","name":"bash","argumentsDelta":"}"}"#,
        ]
    );
}

#[test]
fn blank_lines_crlf_and_a_missing_final_newline_are_read_as_the_harness_reads_them() {
    let lines = primary_lines();
    let mut text = lines.join("\r\n");
    text.insert_str(HEADER.len() + 2, "\r\n   \r\n");
    let original = primary();
    let plain = parse_session(original.as_bytes(), "a").unwrap();
    let odd = parse_session(text.as_bytes(), "b").unwrap();
    assert_eq!(plain.events.len(), odd.events.len());
    assert_eq!(plain.events[0].line, 2);
    assert_eq!(odd.events[0].line, 4);
}

#[test]
fn invalid_json_and_non_objects_are_parse_problems_with_line_and_column() {
    let text = log(&[
        HEADER,
        r#"{"type":"turn/start","data":{"turn":1},}"#,
        "[1,2]",
        "{}",
    ]);
    let problems = parse_session(text.as_bytes(), "s.jsonl").unwrap_err();
    assert_eq!(ids(&problems), ["parse", "parse"]);
    assert_eq!(problems[0].line, Some(2));
    assert_eq!(problems[0].column, Some(40));
    assert!(
        problems[0]
            .message
            .starts_with("session snapshot line 2 contains invalid JSON: "),
        "{}",
        problems[0].message
    );
    assert_eq!(
        problems[1].message,
        "session snapshot line 3 must be a JSON object"
    );
    assert_eq!((problems[1].line, problems[1].column), (Some(3), Some(1)));
    assert_eq!(problems[1].file, "s.jsonl");
}

#[track_caller]
fn malformed(row: &str, why: &str) {
    let text = log(&[HEADER, row]);
    let problems = parse_session(text.as_bytes(), "s.jsonl").unwrap_err();
    let p = one(&problems, "schema");
    let tag = row.split('"').nth(3).unwrap();
    assert_eq!(
        p.message,
        format!("session snapshot line 2: malformed {tag} storage row: {why}")
    );
    assert_eq!(p.line, Some(2));
}

#[test]
fn packed_rows_are_validated_exactly() {
    let t = |data: &str| format!(r#"{{"type":"text-chunks","data":{data}}}"#);
    let ok = r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}"#;
    malformed(
        &format!(r#"{{"type":"text-chunks","seq":0,"data":{ok}}}"#),
        "envelope must be exactly {type, seq0, time0, data}",
    );
    malformed(
        r#"{"type":"text-chunks"}"#,
        "envelope must be exactly {type, seq0, time0, data}",
    );
    malformed(
        &format!(r#"{{"type":"text-chunks","seq0":-1,"data":{ok}}}"#),
        "seq0 must be a non-negative safe integer",
    );
    malformed(
        &format!(r#"{{"type":"text-chunks","time0":1.5,"data":{ok}}}"#),
        "time0 must be a safe integer",
    );
    malformed(&t("null"), "data must be an object");
    malformed(
        &t("[]"),
        "data must be exactly {turn, step, index, dt, texts}",
    );
    malformed(
        &t(r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"],"extra":1}"#),
        "data must be exactly {turn, step, index, dt, texts}",
    );
    malformed(
        &t(r#"{"turn":"1","step":1,"index":0,"dt":[1],"texts":["a","b"]}"#),
        "turn/step/index must be numbers",
    );
    malformed(
        &t(r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}"#),
        "texts must be a non-empty string array",
    );
    malformed(
        &t(r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a",2]}"#),
        "texts must be a non-empty string array",
    );
    malformed(
        &t(r#"{"turn":1,"step":1,"index":0,"dt":[0.5],"texts":["a","b"]}"#),
        "dt must be an array of safe integers",
    );
    malformed(
        &t(r#"{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b"]}"#),
        "dt length 2 does not match 2 members",
    );
    malformed(
        &t(r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["a","b"]}"#),
        "dt length 0 does not match 2 members",
    );
    malformed(
        &format!(r#"{{"type":"text-chunks","seq0":9007199254740991,"data":{ok}}}"#),
        "member seqs must stay safe integers",
    );
    malformed(
        &format!(r#"{{"type":"text-chunks","time0":9007199254740991,"data":{ok}}}"#),
        "member times must stay safe integers",
    );
    malformed(
        r#"{"type":"tool-call-chunks","data":{"turn":1,"step":1,"index":0,"dt":[1],"args":["a","b"]}}"#,
        "data must be exactly {turn, step, index, id, name?, dt, args}",
    );
    malformed(
        r#"{"type":"tool-call-chunks","data":{"turn":1,"step":1,"index":0,"id":"c","name":null,"dt":[1],"args":["a","b"]}}"#,
        "id (and name when present) must be strings",
    );
    malformed(
        r#"{"type":"reasoning-chunks","data":{"turn":1,"step":1,"index":0,"dt":[1],"args":["a","b"]}}"#,
        "data must be exactly {turn, step, index, dt, texts}",
    );
}

/// Reads `header` followed by one finished call in `role`, checks the problems (id and a
/// piece of the message, in order) and that the events were read all the same.
#[track_caller]
fn header_case(role: Role, header: &str, want: &[(&str, &str)]) -> dsh::Header {
    let text = log(&[header, &text_start(1, 1), &finish(1, 1, "stop")]);
    let read = read_session(text.as_bytes(), "s.jsonl", role);
    let got: Vec<(&str, &str)> = read
        .problems
        .iter()
        .map(|p| (p.id.as_str(), p.message.as_str()))
        .collect();
    assert_eq!(got.len(), want.len(), "{header}: {got:#?}");
    for ((id, message), (want_id, piece)) in got.iter().zip(want) {
        assert_eq!(id, want_id, "{header}: {got:#?}");
        assert!(message.contains(piece), "{header}: {message}");
    }
    // A header problem does not stop the events (issue 11).
    let log = read.log;
    assert!(read.unread.is_empty(), "{header}");
    assert_eq!(log.events.len(), 2, "{header}");
    log.header
}

const CHILD: Role = Role::Child { ordered: true };
const ONLY_CHILD: Role = Role::Child { ordered: false };

#[test]
fn a_header_replay_cannot_use_is_an_error() {
    // Issue 11: errors for exactly what llm-replay needs.
    header_case(
        Role::Primary,
        r#"{"type":"session","version":0,"#,
        &[("parse", "session header (line 1) is not valid JSON")],
    );
    header_case(Role::Primary, "null", &[("schema", "is `null`")]);
    header_case(
        Role::Primary,
        r#"{"type":"turn/start","data":{"turn":1}}"#,
        &[(
            "schema",
            "line 1 is a `turn/start` row where the session header belongs",
        )],
    );
    let child = |rest: &str| {
        format!(
            r#"{{"type":"session","version":0,"id":"c","cwd":"{{{{cwd}}}}","delegationDepth":1{rest}}}"#
        )
    };
    // Siblings are bound in `createdAt` order: a child without it is ordered as 0.
    header_case(
        CHILD,
        &child(""),
        &[("schema", "`createdAt` must be a number: llm-replay binds")],
    );
    header_case(
        CHILD,
        &child(r#","createdAt":5,"seedLength":"2""#),
        &[("schema", "replays the events this child inherited")],
    );
    let h = header_case(
        CHILD,
        &child(r#","createdAt":5,"seedLength":-1"#),
        &[("schema", "a negative count takes events from the end")],
    );
    assert_eq!((h.id.as_str(), h.created_at, h.seed_length), ("c", 5.0, 0));
}

#[test]
fn what_only_the_session_store_needs_is_a_persistence_finding() {
    // Issue 11: the persistence layer's rules, each a separate, named finding.
    let store = |header: &str, pieces: &[&str]| {
        let want: Vec<(&str, &str)> = pieces.iter().map(|p| ("dsh/persistence", *p)).collect();
        header_case(Role::Primary, header, &want)
    };
    let h = store(
        r#"{"type":"session","id":"x","createdAt":1,"delegationDepth":0}"#,
        &["`version` must be a number (0)"],
    );
    assert_eq!(h.version, None);
    store(
        r#"{"type":"session","version":3,"id":"x","createdAt":1,"delegationDepth":0}"#,
        &["`version` is 3: session \"x\" uses log format v3, but this harness reads only v0"],
    );
    store(
        r#"{"type":"session","version":0,"id":"x","createdAt":1}"#,
        &["`delegationDepth` is missing: the harness's session store would refuse this log"],
    );
    for depth in ["-1", "1.5", "\"0\"", "-0", "null"] {
        store(
            &format!(
                r#"{{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":{depth}}}"#
            ),
            &["`delegationDepth` must be a non-negative integer"],
        );
    }
    for created in ["-0", "1.5", "-5"] {
        store(
            &format!(
                r#"{{"type":"session","version":0,"id":"x","createdAt":{created},"delegationDepth":0}}"#
            ),
            &["`createdAt` must be a non-negative integer"],
        );
    }
    store(
        r#"{"version":0,"id":7,"createdAt":"1","delegationDepth":0,"cwd":1,"parentSession":2,"origin":"parent","agentPreset":3,"seedLength":"4","sandboxMode":"x"}"#,
        &[
            "`type` must be \"session\"",
            "`id` must be a string",
            "`createdAt` must be a non-negative integer",
            "`seedLength` must be a non-negative integer",
            "`cwd` must be a string",
            "`parentSession` must be a string",
            "`agentPreset` must be a string",
            "`origin` must be \"subagent\"",
            "`sandboxMode` is a retired policy baseline field",
        ],
    );
    store(r#"[1]"#, &["is not a JSON object"]);
    let text = format!("\n{}", log(&[HEADER]));
    let read = read_session(text.as_bytes(), "s.jsonl", Role::Primary);
    let p = one(&read.problems, "dsh/persistence");
    assert!(
        p.message
            .starts_with("blank lines before the session header (line 2)")
    );

    // What replay needs of a child, only the store needs of the primary or of an only child.
    header_case(
        ONLY_CHILD,
        r#"{"type":"session","version":0,"id":"c","delegationDepth":1}"#,
        &[(
            "dsh/persistence",
            "`createdAt` must be a non-negative integer",
        )],
    );
    for seed in ["\"2\"", "-1"] {
        store(
            &format!(
                r#"{{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0,"seedLength":{seed}}}"#
            ),
            &["`seedLength` must be a non-negative integer"],
        );
    }
    // `slice` truncates a fraction: replay works, the store refuses.
    let h = header_case(
        CHILD,
        r#"{"type":"session","version":0,"id":"c","createdAt":1,"delegationDepth":1,"seedLength":1.5}"#,
        &[(
            "dsh/persistence",
            "`seedLength` must be a non-negative integer",
        )],
    );
    assert_eq!(h.seed_length, 1);
}

#[test]
fn well_formed_headers_have_no_problems() {
    for (role, header) in [
        (Role::Primary, HEADER.to_owned()),
        (CHILD, child("c-1", 2000).lines().next().unwrap().to_owned()),
        // Unknown keys are fine: later releases add fields.
        (
            Role::Primary,
            r#"{"type":"session","version":0,"id":"x","createdAt":1,"agentPreset":"p","origin":"subagent","future":true,"delegationDepth":2}"#.to_owned(),
        ),
    ] {
        header_case(role, &header, &[]);
    }
    let p = one(&parse_session(b"\n\n", "s.jsonl").unwrap_err(), "schema");
    assert!(
        p.message.starts_with("the session log is empty"),
        "{}",
        p.message
    );
}

#[test]
fn parse_session_fails_only_on_what_replay_cannot_read() {
    let without_depth = log(&[r#"{"type":"session","version":0,"id":"x","createdAt":1}"#]);
    assert!(parse_session(without_depth.as_bytes(), "s.jsonl").is_ok());
    let null = log(&["null"]);
    let problems = parse_session(null.as_bytes(), "s.jsonl").unwrap_err();
    assert_eq!(ids(&problems), ["schema"]);
}

// ---------------------------------------------------------------------------------------
// Deriving the script (B.4)

fn derive(text: &str, skip: usize) -> dsh::DerivedScript {
    let session = parse_session(text.as_bytes(), "s.jsonl").unwrap();
    derive_script(&session, skip, "s.jsonl")
}

#[test]
fn each_finish_closes_a_call_and_calls_keep_their_chunks() {
    let script = derive(&primary(), 0);
    assert!(script.unfinished.is_empty() && script.problems.is_empty());
    let keys: Vec<&str> = script.calls.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["1/1", "1/2"]);
    assert_eq!(script.calls[0].chunks.len(), 12);
    assert_eq!(script.calls[0].line, 3);
    let summary = script.calls[0].summary();
    assert_eq!(summary.text, "Let me look");
    assert_eq!(summary.finish.as_deref(), Some("tool-calls"));
    assert_eq!(summary.tool_calls.len(), 1);
    assert_eq!(summary.tool_calls[0].name, "read");
    assert_eq!(summary.tool_calls[0].arguments, r#"{"file_path":"a.txt"}"#);
    let usage = summary.usage.unwrap();
    assert_eq!(
        String::from_utf8(vcr_json::to_compact(&usage)).unwrap(),
        r#"{"inputTokens":100,"outputTokens":7}"#
    );
    assert_eq!(script.calls[1].summary().text, "Done.");
}

#[test]
fn retries_sharing_a_turn_and_step_are_separate_calls() {
    let text = log(&[
        HEADER,
        &text_start(2, 1),
        &finish(2, 1, "error"),
        &text_start(2, 1),
        &finish(2, 1, "stop"),
    ]);
    let script = derive(&text, 0);
    assert_eq!(script.calls.len(), 2);
    assert_eq!(script.calls[1].line, 4);
}

#[test]
fn every_unfinished_call_is_collected_with_its_key_and_line() {
    let text = log(&[
        HEADER,
        &text_start(1, 1),     // 2: 1/1, closed by a new key
        &text_start(1, 2),     // 3
        &finish(1, 2, "stop"), // 4
        &text_start(2, 1),     // 5: 2/1, ends the log
        &chunk(2, 1, r#"{"type":"text-delta","index":0,"text":"x"}"#), // 6
    ]);
    let script = derive(&text, 0);
    assert_eq!(script.calls.len(), 1);
    let found: Vec<(&str, usize, usize, usize)> = script
        .unfinished
        .iter()
        .map(|u| (u.key.as_str(), u.at, u.line, u.last_line))
        .collect();
    assert_eq!(found, [("1/1", 0, 2, 2), ("2/1", 1, 5, 6)]);
    assert_eq!(
        script.unfinished[0].message(),
        "llm-replay: model call 1/1 ended without a finish chunk (a thrown stream); this scenario \
         needs a replay.override.json sidecar"
    );
}

#[test]
fn a_stream_call_compaction_summary_becomes_a_call() {
    let summary = r#"{"type":"compaction/summary","data":{"llmStreamCall":true,"rawOutput":[{"type":"text","text":"Summary."}],"usage":{"inputTokens":20,"outputTokens":4},"summary":"Summary."}}"#;
    let text = log(&[
        HEADER,
        &text_start(1, 1),
        summary,
        &text_start(1, 1),
        &finish(1, 1, "stop"),
    ]);
    let script = derive(&text, 0);
    // The summary closes the open group (unfinished) and is a call of its own.
    assert_eq!(script.unfinished.len(), 1);
    assert_eq!(script.calls.len(), 2);
    let call = &script.calls[0];
    assert!(call.compaction);
    let chunks: Vec<String> = call
        .chunks
        .iter()
        .map(|c| String::from_utf8(vcr_json::to_compact(&c.value)).unwrap())
        .collect();
    assert_eq!(
        chunks,
        [
            r#"{"type":"block-start","index":0,"blockType":"text"}"#,
            r#"{"type":"block-end","index":0,"block":{"type":"text","text":"Summary."}}"#,
            r#"{"type":"usage","usage":{"inputTokens":20,"outputTokens":4}}"#,
            r#"{"type":"finish","reason":{"kind":"stop"}}"#,
        ]
    );
    assert_eq!(call.summary().text, "Summary.");

    let plain = r#"{"type":"compaction/summary","data":{"summary":"s"}}"#;
    assert!(derive(&log(&[HEADER, plain]), 0).calls.is_empty());

    let broken = r#"{"type":"compaction/summary","data":{"llmStreamCall":true,"summary":"s"}}"#;
    let script = derive(&log(&[HEADER, broken]), 0);
    let p = one(&script.problems, "schema");
    assert_eq!(
        p.message,
        "llm-replay: compaction/summary marks an LLM stream call without rawOutput"
    );
    assert_eq!(p.line, Some(2));
}

#[test]
fn an_assistant_chunk_without_a_chunk_is_a_schema_problem() {
    let text = log(&[
        HEADER,
        r#"{"type":"assistant/chunk","data":{"turn":1,"step":1}}"#,
    ]);
    let script = derive(&text, 0);
    let p = one(&script.problems, "schema");
    assert!(p.message.contains("`data.chunk`"), "{}", p.message);
}

#[test]
fn a_child_is_derived_after_its_seed() {
    let text = child("s-child", 2000);
    assert_eq!(derive(&text, 0).unfinished.len(), 1);
    let script = derive(&text, 2);
    assert!(script.unfinished.is_empty());
    assert_eq!(script.calls.len(), 1);
    assert_eq!(derive(&text, 99).calls.len(), 0);
}

#[test]
fn keys_print_as_javascript_templates() {
    let text = log(&[
        HEADER,
        r#"{"type":"assistant/chunk","data":{"step":1.0,"chunk":{"type":"text-delta","index":0,"text":"x"}}}"#,
    ]);
    assert_eq!(derive(&text, 0).unfinished[0].key, "undefined/1");
}

// ---------------------------------------------------------------------------------------
// Overrides (B.5)

#[track_caller]
fn override_problem(doc: &str, len: usize, message: &str) -> Problem {
    let check = check_override(doc.as_bytes(), "snap/replay.override.json", Some(len));
    let p = one(&check.problems, "dsh/override");
    assert_eq!(p.message, message);
    p
}

fn invalid(detail: &str) -> String {
    format!("llm-replay: invalid override snap/replay.override.json: {detail}")
}

#[test]
fn valid_overrides_say_what_they_cover() {
    let bare = r#"[{"kind":"hang","readyFile":".ready"},{"kind":"throw","chunks":[],"message":"m","code":"C"}]"#;
    let check = check_override(bare.as_bytes(), "o", Some(5));
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    assert_eq!(check.kind, Some(OverrideKind::Bare { len: 2 }));
    let patches = r#"{"patches":[{"at":2,"entry":{"kind":"chunks","chunks":[{"type":"finish","reason":{"kind":"stop"}}]}},{"at":0,"entry":{"kind":"hang"}}]}"#;
    let check = check_override(patches.as_bytes(), "o", Some(2));
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    assert_eq!(check.kind, Some(OverrideKind::Patches { ats: vec![2, 0] }));
}

#[test]
fn override_documents_are_validated_with_the_harness_messages() {
    override_problem(
        r#"{"patch":[]}"#,
        1,
        &invalid("document must be a ReplayEntry[] or { patches: [...] }"),
    );
    override_problem(
        r#""x""#,
        1,
        &invalid("document must be a ReplayEntry[] or { patches: [...] }"),
    );
    override_problem(r#"[3]"#, 1, &invalid("entry 0 must be an object"));
    override_problem(
        r#"[{"kind":"stream"}]"#,
        1,
        &invalid(r#"entry 0 has unknown kind "stream""#),
    );
    override_problem(
        r#"[{"chunks":[]}]"#,
        1,
        &invalid("entry 0 has unknown kind undefined"),
    );
    override_problem(
        r#"[{"kind":"chunks"}]"#,
        1,
        &invalid("entry 0 has invalid chunks-entry fields"),
    );
    override_problem(
        r#"[{"kind":"chunks","chunks":{}}]"#,
        1,
        &invalid("entry 0 chunks must be an array"),
    );
    override_problem(
        r#"[{"kind":"chunks","chunks":[{"type":"finish"},{"type":"stop"}]}]"#,
        1,
        &invalid("entry 0.chunks[1] must have a known StreamChunk type"),
    );
    override_problem(
        r#"[{"kind":"throw","chunks":[],"message":"m"}]"#,
        1,
        &invalid("entry 0 has invalid throw-entry fields"),
    );
    override_problem(
        r#"[{"kind":"throw","chunks":[],"message":"","code":"C"}]"#,
        1,
        &invalid("entry 0 message must be a non-empty string"),
    );
    override_problem(
        r#"[{"kind":"throw","chunks":[],"message":"m","code":7}]"#,
        1,
        &invalid("entry 0 code must be a non-empty string"),
    );
    override_problem(
        r#"[{"kind":"hang","status":1}]"#,
        1,
        &invalid("entry 0 has invalid hang-entry fields"),
    );
    override_problem(
        r#"[{"kind":"hang","readyFile":""}]"#,
        1,
        &invalid("entry 0 readyFile must be a non-empty string"),
    );
    override_problem(
        r#"{"patches":[{"at":0}]}"#,
        1,
        &invalid("patch 0 must contain exactly at and entry"),
    );
    override_problem(
        r#"{"patches":[{"at":-1,"entry":{"kind":"hang"}}]}"#,
        1,
        &invalid("patch 0 at must be a non-negative safe integer"),
    );
    override_problem(
        r#"{"patches":[{"at":0.5,"entry":{"kind":"hang"}}]}"#,
        1,
        &invalid("patch 0 at must be a non-negative safe integer"),
    );
    override_problem(
        r#"{"patches":[{"at":0,"entry":{"kind":"hang"}},{"at":1,"entry":[]}]}"#,
        1,
        &invalid("patch 1.entry must be an object"),
    );
    override_problem(
        r#"{"patches":[{"at":0,"entry":{"kind":"chunks","chunks":[1]}}]}"#,
        1,
        &invalid("patch 0.entry.chunks[0] must have a known StreamChunk type"),
    );
}

#[test]
fn patch_indexes_must_be_in_range_and_unique() {
    let hang = r#"{"kind":"hang"}"#;
    // `at == length` appends.
    let doc = format!(r#"{{"patches":[{{"at":2,"entry":{hang}}}]}}"#);
    assert!(
        check_override(doc.as_bytes(), "o", Some(2))
            .problems
            .is_empty()
    );
    let doc = format!(r#"{{"patches":[{{"at":3,"entry":{hang}}}]}}"#);
    override_problem(
        &doc,
        2,
        "llm-replay: override patch index 3 out of range (derived script has 2 call(s); == length \
         appends): snap/replay.override.json",
    );
    let doc = format!(r#"{{"patches":[{{"at":1,"entry":{hang}}},{{"at":1.0,"entry":{hang}}}]}}"#);
    override_problem(
        &doc,
        2,
        "llm-replay: duplicate override patch index 1: snap/replay.override.json",
    );
    // Without a derived length only duplicates can be told.
    let doc = format!(r#"{{"patches":[{{"at":9,"entry":{hang}}}]}}"#);
    assert!(
        check_override(doc.as_bytes(), "o", None)
            .problems
            .is_empty()
    );
}

#[test]
fn override_problems_point_at_the_offending_entry() {
    let doc = "[\n  { \"kind\": \"hang\" },\n  { \"kind\": \"wait\" }\n]\n";
    let p = override_problem(doc, 1, &invalid(r#"entry 1 has unknown kind "wait""#));
    assert_eq!((p.line, p.column), (Some(3), Some(5)));
    let p = check_override(b"[\n  {\"kind\": ", "o", None).problems;
    assert_eq!(ids(&p), ["parse"]);
    assert_eq!(p[0].line, Some(2));
}

#[test]
fn every_invalid_entry_is_reported() {
    let check = check_override(
        br#"[{"kind":"x"},{"kind":"hang"},{"kind":"y"}]"#,
        "o",
        Some(0),
    );
    assert_eq!(ids(&check.problems), ["dsh/override", "dsh/override"]);
}

// ---------------------------------------------------------------------------------------
// {{fromRequest:PATTERN}} (B.6)

fn placeholders(text: &str) -> Vec<String> {
    placeholder_errors(&vcr_json::Str::new(text))
}

#[test]
fn from_request_placeholders_follow_the_terminator_rule() {
    assert!(placeholders("{\"goal_id\":\"{{fromRequest:goal-[0-9a-f-]+}}\"}").is_empty());
    // The last two braces of a run terminate: the pattern is `[0-9a-f]{4}`.
    assert!(placeholders("id {{fromRequest:[0-9a-f]{4}}} end").is_empty());
    // JavaScript syntax regress accepts and Rust's regex does not.
    assert!(placeholders("{{fromRequest:(?<=id=)\\w+}}").is_empty());
    assert!(placeholders("{{fromRequest:(a)\\1}}").is_empty());
    assert!(placeholders("no placeholder {{cwd}}").is_empty());
    assert_eq!(
        placeholders("x {{fromRequest:goal-[0-9]+"),
        [r#"llm-replay: fromRequest placeholder is unterminated in "x {{fromRequest:goal-[0-9]+""#]
    );
    assert_eq!(
        placeholders("{{fromRequest:(?<}}"),
        [
            r#"llm-replay: fromRequest has an invalid pattern "(?<": SyntaxError: Invalid regular expression: /(?</g: Invalid token at named capture group identifier"#
        ]
    );
    // Every invalid pattern of a string, then the unterminated tail.
    let errors = placeholders("{{fromRequest:a**}} {{fromRequest:[}} {{fromRequest:x");
    assert_eq!(errors.len(), 3);
    assert!(errors[2].contains("unterminated"));
}

// ---------------------------------------------------------------------------------------
// The file set (B.1)

#[test]
fn child_logs_must_be_contiguous_from_one() {
    assert!(
        check_scenario_files(
            &["session.jsonl", "session.1.jsonl", "session.2.jsonl"],
            false
        )
        .is_empty()
    );
    let p = check_scenario_files(
        &[
            "session.jsonl",
            "session.1.jsonl",
            "session.3.jsonl",
            "session.expected.jsonl",
        ],
        false,
    );
    let p = one(&p, "missing");
    assert_eq!(p.file, "session.2.jsonl");
    let p = check_scenario_files(&["session.jsonl", "session.4.jsonl"], false);
    let p = one(&p, "missing");
    assert!(
        p.message
            .starts_with("`session.1.jsonl` to `session.3.jsonl` are missing"),
        "{}",
        p.message
    );
}

#[test]
fn the_primary_log_is_required_only_where_the_harness_reads_it() {
    let p = check_scenario_files(&["replay.override.json", "input.json"], false);
    assert_eq!(one(&p, "missing").file, "session.jsonl");
    let p = check_scenario_files(&["session.1.jsonl", "stdout.expected.jsonl"], true);
    assert_eq!(one(&p, "missing").file, "session.jsonl");
    assert!(
        check_scenario_files(
            &["replay.override.json", "stream-json.expected.jsonl"],
            true
        )
        .is_empty()
    );
    assert!(check_scenario_files(&["ui.expected.md"], false).is_empty());
    assert!(!dsh::is_scenario_dir(&["ui.expected.md", "seed.jsonl"]));
    assert!(dsh::is_scenario_dir(&["replay.override.json"]));
}

// ---------------------------------------------------------------------------------------
// Normalization (B.9)

#[test]
fn normalize_strips_envelopes_tokenizes_cwd_and_writes_compact_lines() {
    let header = r#"{"type": "session", "version":0,"id":"x","createdAt":1}"#;
    let text = format!(
        "{header}\r\n\n{{\"type\":\"turn/start\",\"seq\":3,\"time\":9, \"data\":{{\"cwd\":\"/work/run/a\",\"n\":1.0}}}}\r\n\
         {{\"type\":\"text-chunks\",\"seq0\":4,\"time0\":9,\"data\":{{\"turn\":1,\"step\":1,\"index\":0,\"dt\":[0],\"texts\":[\"/work/run2\",\"b\"]}}}}"
    );
    let normal = normalize_session(text.as_bytes(), "s", Some("/work/run/")).unwrap();
    let expected = format!(
        "{header}\n{{\"type\":\"turn/start\",\"data\":{{\"cwd\":\"{{{{cwd}}}}/a\",\"n\":1}}}}\n\
         {{\"type\":\"text-chunks\",\"data\":{{\"turn\":1,\"step\":1,\"index\":0,\"dt\":[0],\"texts\":[\"/work/run2\",\"b\"]}}}}\n"
    );
    assert_eq!(String::from_utf8(normal.clone()).unwrap(), expected);
    assert_eq!(
        normalize_session(&normal, "s", Some("/work/run")).unwrap(),
        normal
    );
    assert_eq!(
        normalize_session(primary().as_bytes(), "s", None).unwrap(),
        primary().as_bytes()
    );
    let p = normalize_session(b"{\"type\":\"session\"}\nnope\n", "s", None).unwrap_err();
    assert_eq!(ids(&p), ["parse"]);
}

// ---------------------------------------------------------------------------------------
// One scenario, one mutation, one finding

fn files(overrides: &[(&str, Option<String>)]) -> Vec<(String, String)> {
    let mut files = vec![
        ("session.jsonl".to_owned(), primary()),
        ("session.1.jsonl".to_owned(), child("s-b", 3000)),
        ("session.2.jsonl".to_owned(), child("s-a", 2000)),
        ("input.json".to_owned(), r#"{"steps":[]}"#.to_owned()),
        ("stdout.expected.jsonl".to_owned(), String::new()),
    ];
    for (name, content) in overrides {
        files.retain(|(n, _)| n != name);
        if let Some(content) = content {
            files.push(((*name).to_owned(), content.clone()));
        }
    }
    files
}

fn check(files: &[(String, String)]) -> dsh::ScenarioReport {
    let named: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    scenario(&named)
}

/// The primary log with line `index` (0-based) replaced, or removed with `None`.
fn primary_with(index: usize, line: Option<&str>) -> String {
    let mut lines = primary_lines();
    match line {
        Some(l) => lines[index] = l.to_owned(),
        None => {
            lines.remove(index);
        }
    }
    log(&lines.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn the_valid_scenario_checks_clean_and_counts_its_calls() {
    let report = check(&files(&[]));
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!((report.sessions, report.calls), (3, 4));
    let order: Vec<&str> = report.scripts.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(order, ["s-main", "s-a", "s-b"]);
    assert_eq!(report.scripts[0].file, "snap/session.jsonl");
}

#[track_caller]
fn mutation(overrides: &[(&str, Option<String>)], id: &str) -> Problem {
    one(&check(&files(overrides)).problems, id)
}

#[test]
fn mutation_drop_a_finish() {
    let p = mutation(
        &[("session.jsonl", Some(primary_with(9, None)))],
        "dsh/unfinished-call",
    );
    assert_eq!(p.file, "snap/session.jsonl");
    assert_eq!(p.line, Some(3));
    assert!(
        p.message
            .starts_with("llm-replay: model call 1/1 ended without a finish chunk")
    );
}

#[test]
fn mutation_drop_a_finish_in_a_child() {
    let text = child("s-a", 2000).replace(&finish(2, 1, "stop"), &text_start(2, 1));
    let p = mutation(&[("session.2.jsonl", Some(text))], "dsh/unfinished-call");
    assert_eq!(p.file, "snap/session.2.jsonl");
    assert!(
        p.message.ends_with(
            "(overrides apply only to the primary session.jsonl: re-record the scenario)"
        )
    );
}

#[test]
fn mutation_bad_packed_row_dt_length() {
    let row = r#"{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[3],"texts":["Let"," me"," look"]}}"#;
    let p = mutation(
        &[("session.jsonl", Some(primary_with(3, Some(row))))],
        "schema",
    );
    assert_eq!(
        p.message,
        "session snapshot line 4: malformed text-chunks storage row: dt length 1 does not match 3 members"
    );
    assert_eq!(p.line, Some(4));
}

#[test]
fn mutation_invalid_json_line() {
    let p = mutation(
        &[("session.jsonl", Some(primary_with(1, Some("{\"type\":"))))],
        "parse",
    );
    assert_eq!(p.line, Some(2));
}

#[test]
fn mutation_override_patch_past_the_script() {
    let doc = r#"{"patches":[{"at":3,"entry":{"kind":"hang"}}]}"#.to_owned();
    let p = mutation(&[("replay.override.json", Some(doc))], "dsh/override");
    assert_eq!(
        p.message,
        "llm-replay: override patch index 3 out of range (derived script has 2 call(s); == length \
         appends): snap/replay.override.json"
    );
    assert_eq!((p.line, p.column), (Some(1), Some(14)));
}

#[test]
fn mutation_duplicate_patch_index() {
    let doc = "{\"patches\":[\n{\"at\":1,\"entry\":{\"kind\":\"hang\"}},\n{\"at\":1,\"entry\":{\"kind\":\"hang\"}}\n]}".to_owned();
    let p = mutation(&[("replay.override.json", Some(doc))], "dsh/override");
    assert_eq!(
        p.message,
        "llm-replay: duplicate override patch index 1: snap/replay.override.json"
    );
    assert_eq!(p.line, Some(3));
}

#[test]
fn mutation_unknown_entry_kind() {
    let doc = r#"[{"kind":"chunks","chunks":[]},{"kind":"sleep"}]"#.to_owned();
    let p = mutation(&[("replay.override.json", Some(doc))], "dsh/override");
    assert_eq!(
        p.message,
        r#"llm-replay: invalid override snap/replay.override.json: entry 1 has unknown kind "sleep""#
    );
}

#[test]
fn mutation_unterminated_from_request() {
    let line = chunk(
        1,
        2,
        r#"{"type":"text-delta","index":0,"text":"id {{fromRequest:goal-[0-9]+"}"#,
    );
    let p = mutation(
        &[("session.jsonl", Some(primary_with(12, Some(&line))))],
        "dsh/from-request",
    );
    assert_eq!(p.line, Some(13));
    assert_eq!(p.column, Some(99));
    assert_eq!(
        p.message,
        r#"llm-replay: fromRequest placeholder is unterminated in "id {{fromRequest:goal-[0-9]+""#
    );
}

#[test]
fn mutation_invalid_js_regex_in_an_override() {
    let doc = r#"[{"kind":"chunks","chunks":[{"type":"text-delta","index":0,"text":"{{fromRequest:(?<}}"}]}]"#.to_owned();
    let p = mutation(&[("replay.override.json", Some(doc))], "dsh/from-request");
    assert!(
        p.message
            .starts_with(r#"llm-replay: fromRequest has an invalid pattern "(?<": "#),
        "{}",
        p.message
    );
    assert_eq!(p.file, "snap/replay.override.json");
}

#[test]
fn mutation_gap_in_children() {
    let p = mutation(
        &[
            ("session.1.jsonl", None),
            ("session.3.jsonl", Some(child("s-c", 4000))),
        ],
        "missing",
    );
    assert_eq!(p.file, "snap/session.1.jsonl");
}

#[test]
fn mutation_patches_without_a_primary_log() {
    let doc = r#"{"patches":[{"at":0,"entry":{"kind":"hang"}}]}"#.to_owned();
    let p = mutation(
        &[("session.jsonl", None), ("replay.override.json", Some(doc))],
        "missing",
    );
    assert_eq!(p.file, "snap/session.jsonl");
}

#[test]
fn a_bare_override_covers_unfinished_primary_calls_and_needs_no_log() {
    let bare = r#"[{"kind":"throw","chunks":[],"message":"boom","code":"E"}]"#.to_owned();
    let report = check(&files(&[
        ("session.jsonl", Some(primary_with(9, None))),
        ("replay.override.json", Some(bare.clone())),
    ]));
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.scripts[0].calls, 1);
    let report = check(&files(&[
        ("session.jsonl", None),
        ("replay.override.json", Some(bare)),
    ]));
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.scripts[0].file, "snap/replay.override.json");
}

#[test]
fn a_bare_override_means_the_primary_log_is_never_derived() {
    let broken = r#"{"type":"compaction/summary","data":{"llmStreamCall":true}}"#;
    let bare = r#"[{"kind":"hang"}]"#.to_owned();
    let text = primary_with(10, Some(broken));
    let p = mutation(&[("session.jsonl", Some(text.clone()))], "schema");
    assert_eq!(p.line, Some(11));
    let report = check(&files(&[
        ("session.jsonl", Some(text)),
        ("replay.override.json", Some(bare)),
    ]));
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
}

#[test]
fn patches_do_not_cover_an_unfinished_call() {
    // The harness derives the whole primary script before applying patches, and an
    // unfinished call throws there: a patch at its index does not help.
    let doc = r#"{"patches":[{"at":0,"entry":{"kind":"hang"}}]}"#.to_owned();
    let p = mutation(
        &[
            ("session.jsonl", Some(primary_with(9, None))),
            ("replay.override.json", Some(doc)),
        ],
        "dsh/unfinished-call",
    );
    assert_eq!(p.line, Some(3));
}

#[test]
fn a_patched_call_counts_once_and_an_append_adds_one() {
    let doc = r#"{"patches":[{"at":0,"entry":{"kind":"hang"}},{"at":2,"entry":{"kind":"hang"}}]}"#;
    let report = check(&files(&[("replay.override.json", Some(doc.to_owned()))]));
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.scripts[0].calls, 3);
}

#[test]
fn an_unnormalized_log_is_reported_when_asked_with_a_cwd() {
    let text = primary_with(
        1,
        Some(r#"{"type":"turn/start","seq":1,"data":{"turn":1}}"#),
    );
    let named = [("session.jsonl", text.as_bytes())];
    let report = check_scenario(&named, "", Some("/work/run"));
    let p = one(&report.problems, "format/unnormalized");
    assert_eq!((p.file.as_str(), p.line), ("session.jsonl", Some(2)));
}

// ---------------------------------------------------------------------------------------
// The harness's own scenarios

fn corpus() -> Option<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    let dir = root.join("deepseek-ai__deepseek-harness");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip(&format!(
            "no dsh corpus at {} (the shared corpus is absent)",
            dir.display()
        ));
        None
    }
}

/// Every folder under `dir`, depth first, in name order.
fn folders(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    for entry in entries {
        out.push(entry.clone());
        folders(&entry, out);
    }
}

fn read_folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_scenario_checks_clean() {
    let Some(root) = corpus() else { return };
    let mut dirs = Vec::new();
    folders(&root, &mut dirs);
    let (mut scenarios, mut sessions, mut calls, mut with_log) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    for dir in dirs {
        let files = read_folder(&dir);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        if !dsh::is_scenario_dir(&names) {
            // Expected files alone (web ARIA snapshots, headless suites) need no log.
            assert!(
                check_scenario_files(&names, false).is_empty(),
                "{}",
                dir.display()
            );
            continue;
        }
        scenarios += 1;
        with_log += usize::from(names.contains(&"session.jsonl"));
        let named: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        let rel = dir
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let report = check_scenario(&named, &rel, None);
        sessions += report.sessions;
        calls += report.calls;
        eprintln!(
            "{rel}: {} session(s), {} call(s) {:?}",
            report.sessions,
            report.calls,
            report.scripts.iter().map(|s| s.calls).collect::<Vec<_>>()
        );
        problems.extend(report.problems);
    }
    eprintln!(
        "corpus: {scenarios} scenarios ({with_log} with session.jsonl), {sessions} sessions, {calls} calls, {} problems",
        problems.len()
    );
    // Replay reads every log; the harness's session store would refuse the 20 headers that
    // lack `delegationDepth` (authored and web scenarios), which is a warning (issue 11).
    let (store, replay): (Vec<Problem>, Vec<Problem>) = problems
        .into_iter()
        .partition(|p| p.id.as_str() == "dsh/persistence");
    assert!(replay.is_empty(), "{replay:#?}");
    assert_eq!(store.len(), 20, "{store:#?}");
    assert!(
        store
            .iter()
            .all(|p| p.message.contains("`delegationDepth` is missing")),
        "{store:#?}"
    );
    assert_eq!(with_log, 109);
}

#[test]
fn every_corpus_session_log_is_already_normal() {
    let Some(root) = corpus() else { return };
    let mut dirs = vec![root.clone()];
    folders(&root, &mut dirs);
    let mut logs = 0;
    for dir in dirs {
        for (name, bytes) in read_folder(&dir) {
            if !(name.starts_with("session") && name.ends_with(".jsonl")) {
                continue;
            }
            logs += 1;
            let normal = normalize_session(&bytes, &name, None)
                .unwrap_or_else(|p| panic!("{}/{name}: {p:#?}", dir.display()));
            assert!(normal == bytes, "{}/{name} is not normal", dir.display());
        }
    }
    eprintln!("corpus: {logs} session logs already normal");
    assert!(logs >= 135);
}

// ---------------------------------------------------------------------------------------
// Recorded API errors (issue 11)

/// A primary log whose one call failed the way the harness records a provider failure:
/// `LlmRuntime.stream()` turns it into a terminal `finish` with `reason.kind` "error" and the
/// `LlmFailure` (`message`, `code`, `status`?), then the turn ends in error. These are the
/// events of the harness's `missing-credential` scenario, scrubbed as its snapshot suite
/// scrubs session logs (no `seq`/`time`).
fn failed_call(failure: &str) -> String {
    log(&[
        HEADER,
        r#"{"type":"turn/start","data":{"turn":1}}"#,
        r#"{"type":"step/start","data":{"turn":1,"step":1}}"#,
        r#"{"type":"user/message","data":{"content":[{"type":"text","text":"say pong"}],"source":{"kind":"user"},"role":"user","id":"m-1"},"surfaceOp":"append"}"#,
        r#"{"type":"request/header","data":{"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"},"system":"{{system}}","tools":"{{tools}}"},"reason":"initial"}}"#,
        &format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":1,"step":1,"chunk":{{"type":"finish","reason":{{"kind":"error","failure":{failure}}}}}}}}}"#
        ),
        r#"{"type":"step/end","data":{"turn":1,"step":1}}"#,
        &format!(
            r#"{{"type":"turn/end","data":{{"turn":1,"reason":{{"kind":"error","error":{failure}}}}}}}"#
        ),
    ])
}

const MISSING_CREDENTIAL: &str = r#"{"message":"llm-deepseek: no API key for provider route \"deepseek-official\"; store DEEPSEEK_API_KEY through the credentials service (the web Models page writes it), or export DEEPSEEK_API_KEY in the launching environment","code":"MISSING_CREDENTIAL"}"#;

#[test]
fn a_call_that_failed_on_the_provider_is_a_recorded_error() {
    let report = scenario(&[("session.jsonl", &failed_call(MISSING_CREDENTIAL))]);
    let p = one(&report.problems, "recorded/error");
    assert_eq!(p.file, "snap/session.jsonl");
    assert_eq!(p.line, Some(6));
    assert_eq!(
        p.message,
        "model call 1 (turn/step 1/1) is a recorded API error, not an answer: authentication \
         (`MISSING_CREDENTIAL`); record it again with a working API key"
    );
    for (failure, kind) in [
        (
            r#"{"message":"429 Too Many Requests","code":"RATE_LIMIT","status":429,"providerRetryAfterMs":2000}"#,
            "rate limit (HTTP 429, `RATE_LIMIT`)",
        ),
        (
            r#"{"message":"upstream 503","code":"SERVER","status":503}"#,
            "server error (HTTP 503, `SERVER`)",
        ),
        (
            r#"{"message":"insufficient balance","code":"QUOTA","status":402}"#,
            "billing (HTTP 402, `QUOTA`)",
        ),
        (
            r#"{"message":"simulated provider error (HTTP 401)","code":"AUTH"}"#,
            "authentication (`AUTH`)",
        ),
        // A code the harness does not classify still has its HTTP status.
        (
            r#"{"message":"forbidden","code":"HTTP_403","status":403}"#,
            "authentication (HTTP 403, `HTTP_403`)",
        ),
    ] {
        let report = scenario(&[("session.jsonl", &failed_call(failure))]);
        let p = one(&report.problems, "recorded/error");
        assert!(p.message.contains(kind), "{}", p.message);
    }
    // What a scenario tests on purpose, and failures that are not the provider's answer.
    for failure in [
        r#"{"message":"context window exceeded","code":"CONTEXT_WINDOW_EXCEEDED","status":400}"#,
        r#"{"message":"empty","code":"EMPTY_RESPONSE"}"#,
        r#"{"message":"idle","code":"TIMEOUT"}"#,
        r#"{"message":"terminated","code":"TRANSPORT"}"#,
        r#"{"message":"bad","code":"INVALID_REQUEST","status":400}"#,
    ] {
        let report = scenario(&[("session.jsonl", &failed_call(failure))]);
        assert!(
            report.problems.is_empty(),
            "{failure}: {:#?}",
            report.problems
        );
    }
    let aborted = failed_call(MISSING_CREDENTIAL).replace(
        r#""kind":"error","failure""#,
        r#""kind":"aborted","failure""#,
    );
    assert!(scenario(&[("session.jsonl", &aborted)]).problems.is_empty());
}

#[test]
fn calls_an_override_replaces_are_not_recorded_errors() {
    let log = failed_call(r#"{"message":"simulated provider error (HTTP 401)","code":"AUTH"}"#);
    // The harness's `error-finish` scenario: a bare override throws the error on purpose.
    let bare = r#"[{ "kind": "throw", "chunks": [], "message": "simulated provider error (HTTP 401)", "code": "AUTH" }]"#;
    let report = scenario(&[("session.jsonl", &log), ("replay.override.json", bare)]);
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    let patch = r#"{"patches":[{"at":0,"entry":{"kind":"chunks","chunks":[{"type":"finish","reason":{"kind":"stop"}}]}}]}"#;
    let report = scenario(&[("session.jsonl", &log), ("replay.override.json", patch)]);
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    // A child's calls are always derived, and checked.
    let child_log = failed_call(MISSING_CREDENTIAL).replacen(
        HEADER,
        r#"{"type":"session","version":0,"id":"c","createdAt":2,"cwd":"{{cwd}}","parentSession":"s-main","origin":"subagent","delegationDepth":1}"#,
        1,
    );
    let report = scenario(&[
        ("session.jsonl", &primary()),
        ("session.1.jsonl", &child_log),
    ]);
    let p = one(&report.problems, "recorded/error");
    assert_eq!(p.file, "snap/session.1.jsonl");
}

// ---------------------------------------------------------------------------------------
// No problem hides another (issue 11)

#[test]
fn rows_the_harness_cannot_read_hide_no_other_check() {
    let mut lines = primary_lines();
    // Line 4, a packed row of call 1, is malformed; call 1 holds an unterminated
    // placeholder; call 2 never finished.
    lines[3] = lines[3].replace(r#""dt":[3,4]"#, r#""dt":[3]"#);
    lines[4] = lines[4].replace("Let me look", "Let me look {{fromRequest:goal-");
    lines.retain(|l| !l.contains(r#""step":2,"chunk":{"type":"finish""#));
    let text = log(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let report = scenario(&[("session.jsonl", &text)]);
    let got: Vec<(&str, Option<usize>)> = report
        .problems
        .iter()
        .map(|p| (p.id.as_str(), p.line))
        .collect();
    assert_eq!(
        got,
        [
            ("schema", Some(4)),
            ("dsh/unfinished-call", Some(12)),
            ("dsh/from-request", Some(5)),
        ],
        "{:#?}",
        report.problems
    );

    // A row that may have been a call's `finish` leaves that call unjudged, and the script's
    // length unjudged by the override.
    let mut lines = primary_lines();
    let finish = lines
        .iter()
        .position(|l| l.contains(r#""kind":"tool-calls""#))
        .unwrap();
    lines[finish] = lines[finish].replacen('{', "", 1);
    let text = log(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let patch = r#"{"patches":[{"at":5,"entry":{"kind":"hang"}}]}"#;
    let report = scenario(&[("session.jsonl", &text), ("replay.override.json", patch)]);
    assert_eq!(ids(&report.problems), ["parse"], "{:#?}", report.problems);
    assert_eq!(report.problems[0].line, Some(finish + 1));
}
