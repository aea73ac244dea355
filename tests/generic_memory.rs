//! `[[cassettes]]` JSONL logs are read line by line in every command (issue 12): on a log
//! larger than a memory bound, the peak RSS of `verify`, `normalize --check`, `normalize`
//! (which rewrites it) and `rehash` (which re-keys it) stays under the bound. A test binary
//! of its own, so that the only children measured are this test's.

use crate::common;

use std::io::Write as _;

use common::TestDir;

/// The bound on each run's peak RSS (the debug build takes 19 MiB for a log of three lines).
const BOUND: u64 = 28 << 20;

/// The log's size: larger than the bound, so that a command holding it whole cannot stay
/// under it; its lines long, so that the debug build reads it in seconds.
const LOG: usize = 32 << 20;

const CONFIG: &str = r#"
[[cassettes]]
glob = "vcr/*.jsonl"
format = "jsonl"
hash-field = "/request_hash"
key = "/request"
digest = "sha256"
hex-length = 16
write = "compact"
"#;

/// A log of about `size` bytes whose lines (of about 4 KB) carry their right hashes (set by
/// `vcr rehash` on a hundred distinct requests, then repeated with other turns, which are
/// not hashed), a leak near the end, and as its last line a stale hash written with spaces:
/// something for each command to find and rewrite. Returns its path relative to `t` and its
/// line count.
fn large_log(t: &TestDir, size: usize) -> (String, usize) {
    let rel = "vcr/agent.jsonl";
    let mut seed = String::new();
    for i in 0..100 {
        seed.push_str(&format!(
            r#"{{"request_hash":"0000000000000000","turn":0,"request":{{"model":"m","messages":[{{"role":"user","content":"step {i}: open the file and run the tests"}}]}},"response":{{"stop_reason":"end_turn","text":"done {i}: {}"}}}}"#,
            "the agent reads the file and runs the tests; ".repeat(90)
        ));
        seed.push('\n');
    }
    t.write(rel, &seed);
    t.vcr(&["rehash"]).code(0);
    let seed = t.read(rel);
    let lines: Vec<&str> = seed.lines().collect();
    let mut file = std::io::BufWriter::new(std::fs::File::create(t.path(rel)).unwrap());
    let (mut written, mut count) = (0, 0);
    while written < size {
        let line =
            lines[count % lines.len()].replacen("\"turn\":0", &format!("\"turn\":{count}"), 1);
        file.write_all(line.as_bytes()).unwrap();
        file.write_all(b"\n").unwrap();
        written += line.len() + 1;
        count += 1;
    }
    file.write_all(
        br#"{"request_hash":"0000000000000000","turn":1,"request":{"model":"m","messages":[]},"response":{"text":"see /home/alice/app"}}"#,
    )
    .unwrap();
    file.write_all(b"\n{ \"request_hash\" : \"1\", \"request\" : {} }\n")
        .unwrap();
    (rel.to_owned(), count + 2)
}

#[test]
fn every_command_reads_a_log_larger_than_the_memory_bound_within_it() {
    let t = TestDir::new();
    t.write("vcr.toml", CONFIG);
    let (rel, lines) = large_log(&t, LOG);
    let size = std::fs::metadata(t.path(&rel)).unwrap().len();
    for (args, code, says) in [
        (&["verify", "--format", "json"][..], 1, "\"name/stale\""),
        (&["normalize", "--check"], 1, "1 of 1 cassette would change"),
        (&["normalize"], 0, "1 of 1 cassette normalized"),
        (&["rehash"], 0, "re-keyed"),
    ] {
        let (got, stdout, peak) = t.vcr_measured(args, &[]);
        assert_eq!(got, code, "{args:?}: {stdout}");
        assert!(stdout.contains(says), "{args:?}: {stdout}");
        assert!(
            peak < BOUND,
            "{args:?}: peak {} MiB for a log of {} MiB",
            peak >> 20,
            size >> 20
        );
    }
    // What the runs found and wrote: the leak and both stale hashes at their lines; then the
    // last line compact, and its hash (and the leak line's) set.
    let text = t.read(&rel);
    assert_eq!(text.lines().count(), lines);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("{\"request_hash\":\""), "{last}");
    assert_ne!(last, "{\"request_hash\":\"1\",\"request\":{}}");
    t.vcr(&["verify"]).code(1).stdout_has("1 error");
}
