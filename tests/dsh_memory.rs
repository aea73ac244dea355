//! `vcr verify` reads a dsh session log line by line (issue 12): on a log twice as large
//! as a memory bound, the child's peak RSS stays under the bound. (Its own test binary, so
//! that the only children measured are this test's.)

mod common;

use std::io::Write as _;

use common::TestDir;

const BOUND_KIB: i64 = 28 << 10;

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

#[test]
fn verify_reads_a_log_twice_the_memory_bound_within_it() {
    let t = TestDir::new();
    t.write("snapshots/big/input.json", "{}\n");
    let path = t.path("snapshots/big/session.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    file.write_all(br#"{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"{{cwd}}","delegationDepth":0}"#)
        .unwrap();
    file.write_all(b"\n").unwrap();
    let mut block = Vec::new();
    let mut turn = 0;
    let mut size = 0;
    while size < (BOUND_KIB as usize) * 1024 * 2 {
        block.clear();
        turn += 1;
        step(turn, &mut block);
        file.write_all(&block).unwrap();
        size += block.len();
    }
    // A leak near the end, so the scan is seen to reach it.
    file.write_all(
        br#"{"type":"user/message","data":{"content":[{"type":"text","text":"/home/alice/app"}]}}"#,
    )
    .unwrap();
    file.write_all(b"\n").unwrap();
    drop(file);

    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    assert_eq!(findings[0]["id"], "leak/path");
    assert_eq!(findings[0]["line"], turn * 11 + 2);

    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    assert!(
        usage.ru_maxrss < BOUND_KIB,
        "peak {} KiB for a log of {} MiB",
        usage.ru_maxrss,
        size >> 20
    );
}
