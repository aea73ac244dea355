//! `vcr verify` reads a dsh session log line by line (issue 12): its peak RSS on a log of
//! 56 MiB is within a few MiB of its peak on a log of 4 MiB. (Its own test binary, as the
//! other memory tests are.)

use crate::common;

use std::io::Write as _;

use common::TestDir;

/// The log whose peak is the baseline: what the binary needs whatever the log.
const SMALL: usize = 4 << 20;

/// The log measured: 14 times as large.
const LARGE: usize = 56 << 20;

/// How much more the large log may take than the small one. The peak was 1.5 to 2.4 MiB
/// higher; a run that held a quarter of the log would take 14 MiB more. An absolute bound
/// (28 MiB) failed once the binary alone took 27: what the test is about is growth.
const GROWTH: u64 = 8 << 20;

/// One model call of a projected log, numbered by `turn`: the shapes the harness records.
fn step(turn: usize, out: &mut Vec<u8>) {
    let lines = [
        format!(r#"{{"type":"turn/start","data":{{"turn":{turn}}}}}"#),
        format!(r#"{{"type":"step/start","data":{{"turn":{turn},"step":1}}}}"#),
        r#"{"type":"request/header","data":{"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"},"system":"{{system}}","tools":"{{tools}}"},"reason":"change"}}"#.to_owned(),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"block-start","index":0,"blockType":"text"}}}}}}"#
        ),
        format!(
            r#"{{"type":"text-chunks","data":{{"turn":{turn},"step":1,"index":0,"dt":[1,2],"texts":["the agent ","reads the file ","and runs the tests"]}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"text-delta","index":0,"text":" again"}}}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"block-end","index":0,"block":{{"type":"text","text":"the agent reads the file and runs the tests again"}}}}}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"usage","usage":{{"inputTokens":1200,"outputTokens":40}}}}}}}}"#
        ),
        format!(
            r#"{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"finish","reason":{{"kind":"stop"}}}}}}}}"#
        ),
        format!(r#"{{"type":"step/end","data":{{"turn":{turn},"step":1}}}}"#),
        format!(
            r#"{{"type":"turn/end","data":{{"turn":{turn},"reason":{{"kind":"completed"}}}}}}"#
        ),
    ];
    for line in lines {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
}

/// Writes a session log of at least `size` bytes under `t` with a machine path on its
/// last line; returns its size and the line of the path.
fn write_log(t: &TestDir, size: usize) -> (usize, usize) {
    let path = t.path("snapshots/big/session.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    file.write_all(br#"{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"{{cwd}}","delegationDepth":0}"#)
        .unwrap();
    file.write_all(b"\n").unwrap();
    let mut block = Vec::new();
    let mut turn = 0;
    let mut written = 0;
    while written < size {
        block.clear();
        turn += 1;
        step(turn, &mut block);
        file.write_all(&block).unwrap();
        written += block.len();
    }
    // A leak near the end, so the scan is seen to reach it.
    file.write_all(
        br#"{"type":"user/message","data":{"content":[{"type":"text","text":"/home/alice/app"}]}}"#,
    )
    .unwrap();
    file.write_all(b"\n").unwrap();
    (written, turn * 11 + 2)
}

#[test]
fn verify_reads_a_large_log_in_the_memory_of_a_small_one() {
    let mut peaks = Vec::new();
    for size in [SMALL, LARGE] {
        let t = TestDir::new();
        t.write("snapshots/big/input.json", "{}\n");
        let (size, line) = write_log(&t, size);
        let (code, stdout, peak) = t.vcr_measured(&["verify", "--format", "json"], &[]);
        assert_eq!(code, 1, "{stdout}");
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let findings = doc["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{doc:#}");
        assert_eq!(findings[0]["id"], "leak/path");
        assert_eq!(findings[0]["line"], line);
        eprintln!("vcr verify, a log of {size} bytes: peak {} KiB", peak >> 10);
        peaks.push((size, peak));
    }
    let [(_, small), (size, large)] = peaks[..] else {
        unreachable!("two runs")
    };
    assert!(
        large < small + GROWTH,
        "peak {} KiB for a log of {} MiB, {} KiB for one of {} MiB",
        large >> 10,
        size >> 20,
        small >> 10,
        SMALL >> 20
    );
    // Whatever the binary needs, a run that read the log whole would take more than it.
    assert!(large < size as u64, "peak {} KiB", large >> 10);
}
