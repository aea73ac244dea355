//! dsh session logs read line by line (issue 12): the streamed scenario check gives exactly
//! what the logs read whole give, on the harness's own scenarios and on logs with every kind
//! of line, and `vcr verify` on a log far larger than a memory bound stays within it.

use crate::common;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use common::TestDir;
use vcr_cassette::dsh::{
    self, Problem, Role, ScenarioReport, check_scenario, derive_script, normalize_session,
    read_session,
};

/// The scenario read from disk line by line, through a tiny buffer so that lines straddle
/// every refill.
fn streamed(dir: &Path, names: &[String]) -> ScenarioReport {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut open = |name: &str| -> std::io::Result<Box<dyn BufRead + '_>> {
        let file = std::fs::File::open(dir.join(name))?;
        Ok(Box::new(std::io::BufReader::with_capacity(7, file)))
    };
    dsh::check_scenario_streamed(&names, &mut open, "s", Some("/work/run")).unwrap()
}

/// The scenario read whole into memory.
fn whole(dir: &Path, names: &[String]) -> ScenarioReport {
    let files: Vec<(String, Vec<u8>)> = names
        .iter()
        .map(|n| {
            let bytes = if dsh::is_scenario_file(n) {
                std::fs::read(dir.join(n)).unwrap()
            } else {
                Vec::new()
            };
            (n.clone(), bytes)
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    check_scenario(&borrowed, "s", Some("/work/run"))
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// What the whole-file readers say of one log on their own: its read problems, its derived
/// call count and whether it is canonical, which the scenario check must agree with.
fn check_against_whole_file_readers(dir: &Path, name: &str, report: &ScenarioReport) {
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let file = format!("s/{name}");
    let role = if name == dsh::PRIMARY {
        Role::Primary
    } else {
        Role::Child {
            ordered: report.scripts.iter().filter(|s| !s.primary).count() > 1,
        }
    };
    let read = read_session(&bytes, &file, role);
    let mine: Vec<&Problem> = report.problems.iter().filter(|p| p.file == file).collect();
    for problem in &read.problems {
        assert!(
            mine.contains(&problem),
            "{file}: {problem:?} missing from the streamed check"
        );
    }
    let skip = if role == Role::Primary {
        0
    } else {
        read.log.header.seed_length
    };
    let derived = derive_script(&read.log, skip, &file);
    if role != Role::Primary {
        let script = report.scripts.iter().find(|s| s.file == file).unwrap();
        assert_eq!(script.calls, derived.calls.len(), "{file}");
    }
    let canonical = normalize_session(&bytes, &file, Some("/work/run"));
    let unnormalized = mine.iter().any(|p| p.id == dsh::ids::UNNORMALIZED);
    assert_eq!(
        unnormalized,
        canonical.is_ok_and(|c| c != bytes),
        "{file}: format/unnormalized"
    );
}

fn assert_same(dir: &Path) {
    let names = names(dir);
    let streamed = streamed(dir, &names);
    assert_eq!(streamed, whole(dir, &names), "{}", dir.display());
    for name in names.iter().filter(|n| dsh::is_scenario_file(n)) {
        if name != dsh::REPLAY_OVERRIDE {
            check_against_whole_file_readers(dir, name, &streamed);
        }
    }
}

fn scenario_dirs(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut has = false;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            scenario_dirs(&path, out);
        } else if dsh::is_scenario_file(&entry.file_name().to_string_lossy()) {
            has = true;
        }
    }
    if has {
        out.push(root.to_owned());
    }
}

#[test]
fn streamed_scenarios_of_the_corpus_match_the_whole_file_reader() {
    let Some(root) = common::corpus("deepseek-ai__deepseek-harness") else {
        return;
    };
    let mut dirs = Vec::new();
    scenario_dirs(&root, &mut dirs);
    assert!(dirs.len() > 50, "{} scenarios", dirs.len());
    for dir in dirs {
        assert_same(&dir);
    }
}

const HEADER: &str = r#"{"type":"session","version":0,"id":"abc","createdAt":1,"cwd":"{{cwd}}","delegationDepth":0}"#;

fn chunk(turn: u32, chunk: &str) -> String {
    format!(r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{chunk}}}}}"#)
}

/// Every kind of line: placeholders, leaks, malformed packed rows, invalid JSON, a non-object,
/// a recorded error, blank lines, a huge line, an unfinished call, a compaction without
/// `rawOutput`, an envelope and the recording's cwd (unnormalized), non-ASCII text.
fn body() -> Vec<String> {
    vec![
        chunk(
            1,
            r#"{"type":"text-delta","index":0,"text":"é /home/alice/x.ts {{fromRequest:(}}"}"#,
        ),
        r#"{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b","c"]}}"#.to_owned(),
        r#"{"type":"text-chunks","seq0":3,"time0":4,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}}"#.to_owned(),
        "not json".to_owned(),
        "[1,2]".to_owned(),
        chunk(
            1,
            r#"{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"AUTH"}}}"#,
        ),
        String::new(),
        " \t".to_owned(),
        chunk(
            2,
            &format!(
                r#"{{"type":"text-delta","index":0,"text":"{}"}}"#,
                "long ".repeat(400_000)
            ),
        ),
        chunk(2, r#"{"type":"finish","reason":{"kind":"stop"}}"#),
        chunk(
            3,
            r#"{"type":"text-delta","index":0,"text":"{{fromRequest:a}} 550e8400-e29b-41d4-a716-446655440000"}"#,
        ),
        r#"{"type":"compaction/summary","data":{"llmStreamCall":true}}"#.to_owned(),
        r#"{"type":"user/message","seq":5,"time":9,"data":{"content":[{"type":"text","text":"in /work/run/a"}]}}"#.to_owned(),
    ]
}

#[test]
fn streamed_logs_with_every_kind_of_line_match_the_whole_file_reader() {
    let t = TestDir::new();
    let body = body();
    let clean: Vec<String> = body
        .iter()
        .filter(|l| l.starts_with("{\"type\":\"assistant"))
        .cloned()
        .collect();
    let cases: Vec<(&str, String)> = vec![
        ("lf", format!("{HEADER}\n{}\n", body.join("\n"))),
        ("crlf", format!("{HEADER}\r\n{}\r\n", body.join("\r\n"))),
        ("no-final-newline", format!("{HEADER}\n{}", body.join("\n"))),
        ("bom", format!("\u{feff}{HEADER}\n{}\n", body.join("\n"))),
        (
            "blank-first",
            format!("\n\n{HEADER}\n{}\n", clean.join("\n")),
        ),
        ("clean", format!("{HEADER}\n{}\n", clean.join("\n"))),
        ("empty", String::new()),
        ("header-only", HEADER.to_owned()),
    ];
    for (name, text) in &cases {
        for layout in ["primary", "children", "patched", "bare"] {
            let dir = format!("{name}-{layout}");
            t.write(&format!("{dir}/session.jsonl"), text);
            match layout {
                "children" => {
                    t.write(&format!("{dir}/session.1.jsonl"), text);
                    t.write(&format!("{dir}/session.3.jsonl"), text);
                }
                "patched" => {
                    t.write(
                        &format!("{dir}/replay.override.json"),
                        r#"{"patches":[{"at":0,"entry":{"kind":"hang"}},{"at":2,"entry":{"kind":"hang"}}]}"#,
                    );
                }
                "bare" => {
                    t.write(
                        &format!("{dir}/replay.override.json"),
                        r#"[{"kind":"hang"}]"#,
                    );
                }
                _ => {}
            }
            assert_same(&t.path(&dir));
        }
    }
}

/// `vcr normalize` streams a dsh log line by line (issue 12) and must do exactly what the
/// whole-file path does (which `--diff` still takes): the same files changed, the same
/// errors with their line and column, and byte for byte the same logs written, over every
/// kind of line and the corpus's scenarios.
#[test]
fn streamed_normalize_of_logs_matches_the_whole_file_path() {
    let streamed = TestDir::new();
    let whole = TestDir::new();
    let body = body();
    let cwd_line = r#"{"type":"user/message","data":{"content":[{"type":"text","text":"see /work/run/a and /work/run2"}]}}"#;
    let cases: Vec<(&str, String)> = vec![
        ("lf", format!("{HEADER}\n{}\n", body.join("\n"))),
        ("crlf", format!("{HEADER}\r\n{}\r\n", body.join("\r\n"))),
        ("no-final-newline", format!("{HEADER}\n{}", body.join("\n"))),
        ("bom", format!("\u{feff}{HEADER}\n{}\n", body.join("\n"))),
        (
            "envelope-and-cwd",
            format!("{HEADER}\n{}\n{cwd_line}\n", body[2]),
        ),
        ("clean", format!("{HEADER}\n{}\n", body[0])),
        ("empty", String::new()),
        ("header-only", HEADER.to_owned()),
    ];
    for t in [&streamed, &whole] {
        for (name, text) in &cases {
            t.write(&format!("snapshots/{name}/session.jsonl"), text);
        }
        if let Some(corpus) = common::corpus("deepseek-ai__deepseek-harness") {
            let mut dirs = Vec::new();
            scenario_dirs(&corpus, &mut dirs);
            for (i, dir) in dirs.iter().enumerate() {
                for name in names(dir) {
                    if name.starts_with("session") {
                        let bytes = std::fs::read(dir.join(&name)).unwrap();
                        t.write(&format!("snapshots/corpus{i}/{name}"), bytes);
                    }
                }
            }
        }
    }
    let events = |run: &common::Run| -> Vec<serde_json::Value> {
        let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let mut events = out["events"].as_array().unwrap().clone();
        for e in &mut events {
            e.as_object_mut().unwrap().remove("diff");
        }
        events
    };
    let a = streamed.vcr(&["normalize", "--check", "--format", "json"]);
    let b = whole.vcr(&["normalize", "--check", "--diff", "--format", "json"]);
    assert_eq!(a.code, b.code);
    assert_eq!(events(&a), events(&b));
    assert!(
        events(&a).iter().any(|e| e["type"] == "normalized"),
        "{}",
        a.stdout
    );
    let a = streamed.vcr(&["normalize", "--format", "json"]);
    let b = whole.vcr(&["normalize", "--diff", "--format", "json"]);
    assert_eq!(a.code, b.code);
    assert_eq!(events(&a), events(&b));
    assert_eq!(streamed.files("snapshots"), whole.files("snapshots"));
}
