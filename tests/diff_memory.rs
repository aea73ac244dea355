//! `vcr diff` compares dsh scenarios a call at a time (issue 12): two versions of a log
//! differing in a few calls are compared in a peak memory that does not grow with the log,
//! the same for a log twice as long, and a large log in a git revision is read from git as
//! a stream. (A test binary of its own, so that the only children measured are its own.)

use crate::common;

use std::io::Write as _;
use std::path::Path;

use common::{TestDir, git};

/// The peak of a run, whatever the log's length: a few MiB above what the binary needs (the
/// bound of `tests/dsh_memory.rs`).
const BOUND: u64 = 28 << 20;

/// Lines of the shorter log (about 2.4 MB).
const LINES: usize = 20_000;

/// One model call of a projected log, numbered by `turn`, ending with `finish`.
fn step(turn: usize, finish: &str, out: &mut Vec<u8>) {
    let lines = [
        format!(r#"{{"type":"turn/start","data":{{"turn":{turn}}}}}"#),
        format!(
            r#"{{"type":"user/message","data":{{"content":[{{"type":"text","text":"step {turn}: run the tests"}}]}}}}"#
        ),
        r#"{"type":"request/header","data":{"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"},"system":"{{system}}","tools":"{{tools}}"},"reason":"change"}}"#.to_owned(),
        format!(
            r#"{{"type":"text-chunks","data":{{"turn":{turn},"step":1,"index":0,"dt":[1,2],"texts":["the agent ","reads the file ","and runs the tests"]}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"block-end","index":1,"block":{{"type":"tool-call","id":"call_{turn}","name":"bash","arguments":"{{\"command\":\"npm test -- {turn}\"}}"}}}}}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"usage","usage":{{"inputTokens":1200,"outputTokens":40}}}}}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"finish","reason":{{"kind":"{finish}"}}}}}}}}"#
        ),
        format!(
            r#"{{"type":"turn/end","data":{{"turn":{turn},"reason":{{"kind":"completed"}}}}}}"#
        ),
    ];
    for line in lines {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
}

/// Writes a session log of about `lines` lines to `path`; with `changed`, three calls
/// (near the start, the middle and the end) stop for another reason.
fn write_log(path: &Path, lines: usize, changed: bool) -> u64 {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    file.write_all(br#"{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"{{cwd}}","delegationDepth":0}"#)
        .unwrap();
    file.write_all(b"\n").unwrap();
    let turns = lines / 8;
    let mut block = Vec::new();
    for turn in 1..=turns {
        block.clear();
        let other = changed && [3, turns / 2, turns - 1].contains(&turn);
        step(
            turn,
            if other { "length" } else { "tool-calls" },
            &mut block,
        );
        file.write_all(&block).unwrap();
    }
    drop(file);
    std::fs::metadata(path).unwrap().len()
}

/// `VCR_DIFF_MEMORY_ENV=VAR=VALUE` runs the measured commands with that variable (to see the
/// test fail on the whole-file path: `VCR_DIFF_MEMORY_ENV=VCR_TEST_WHOLE_VALUES=1`).
fn extra_env() -> Vec<(String, String)> {
    std::env::var("VCR_DIFF_MEMORY_ENV")
        .ok()
        .and_then(|v| v.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())))
        .into_iter()
        .collect()
}

#[test]
fn a_log_twice_as_long_diffs_in_the_same_memory() {
    let env = extra_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut peaks = Vec::new();
    for lines in [LINES, 2 * LINES] {
        let t = TestDir::new();
        let size = write_log(&t.path("old/big/session.jsonl"), lines, false);
        write_log(&t.path("new/big/session.jsonl"), lines, true);
        let (code, stdout, peak) = t.vcr_measured(&["diff", "old", "new"], &env);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stdout.contains("behaviour change big (dsh): stop reason changed"),
            "{stdout}"
        );
        assert_eq!(
            stdout.matches("stop reason tool-calls -> length").count(),
            3
        );
        assert!(
            peak < BOUND,
            "peak {} MiB for two logs of {} MiB",
            peak >> 20,
            size >> 20
        );
        eprintln!(
            "vcr diff, two logs of {lines} lines ({size} bytes): peak {} KiB",
            peak >> 10
        );
        peaks.push(peak);
    }
    // Within 10%, and 1 MiB for the allocator's noise.
    assert!(
        peaks[1] <= peaks[0] + peaks[0] / 10 + (1 << 20),
        "peaks {} KiB, then {} KiB for twice the lines",
        peaks[0] >> 10,
        peaks[1] >> 10
    );
}

#[test]
fn a_large_log_in_a_revision_is_streamed_from_git() {
    let env = extra_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // The same two logs in two folders: the peak the revision's run is measured against.
    let folders = TestDir::new();
    write_log(&folders.path("old/big/session.jsonl"), 2 * LINES, false);
    write_log(&folders.path("new/big/session.jsonl"), 2 * LINES, true);
    let (code, stdout, on_disk) = folders.vcr_measured(&["diff", "old", "new"], &env);
    assert_eq!(code, 1, "{stdout}");

    let t = TestDir::new();
    let log = t.path("tests/snapshots/big/session.jsonl");
    let size = write_log(&log, 2 * LINES, false);
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "recorded"]);
    write_log(&log, 2 * LINES, true);
    let (code, stdout, peak) = t.vcr_measured(&["diff", "--rev", "HEAD"], &env);
    eprintln!(
        "vcr diff --rev HEAD, a log of {size} bytes: peak {} KiB (the same logs in folders: {} KiB)",
        peak >> 10,
        on_disk >> 10
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("behaviour change tests/snapshots/big (dsh): stop reason changed"),
        "{stdout}"
    );
    // Held whole, the log would add its own size.
    assert!(
        peak < BOUND && peak <= on_disk + (2 << 20),
        "peak {} KiB for a log of {} KiB in HEAD, {} KiB from folders",
        peak >> 10,
        size >> 10,
        on_disk >> 10
    );
}
