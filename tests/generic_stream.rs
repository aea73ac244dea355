//! `[[cassettes]]` JSONL logs read line by line agree with the same logs read whole (issue
//! 12): `verify`, `normalize --check`, `normalize`, `rehash --dry-run` and `rehash` report and
//! write the same, byte for byte, with and without the testing hook
//! `VCR_TEST_WHOLE_VALUES=1`, on generated logs (stale hashes, lines the writer would write
//! otherwise, leaks, recorded errors, CRLF, a last line without its newline, blank lines, a
//! broken line, a log larger than a leak-scan chunk) and on logs made of the corpus's JSON
//! lines. A streamed `rehash` killed at any step leaves every log whole.

use crate::common;

use std::path::Path;

use common::{TestDir, corpus};

const WHOLE: &[(&str, &str)] = &[("VCR_TEST_WHOLE_VALUES", "1")];

/// Three entries: a compact JS writer keyed by a pointer, a Python writer keyed by a template
/// that reads the file name and folder, and one that keeps the bytes as they are.
const CONFIG: &str = r#"
[[cassettes]]
glob = "js/*.jsonl"
format = "jsonl"
hash-field = "/request_hash"
key = "/request"
digest = "sha256"
hex-length = 16
write = "compact"

[[cassettes]]
glob = "py/*.jsonl"
format = "jsonl"
hash-field = "/meta/hash"
key-template = "{dir}:{name.1}:{/request/url|url-path}:{/request/body|json}"
serialization = "python"
digest = "sha1"
hex-length = 12
write = "compact"

[[cassettes]]
glob = "keep/*.jsonl"
format = "jsonl"
hash-field = "/request_hash"
key = "/request"
digest = "sha256"
hex-length = 16
"#;

/// A record of the `js` and `keep` entries, its hash still to be set by `rehash`.
fn js_record(i: usize, text: &str) -> String {
    format!(
        r#"{{"request_hash":"0000000000000000","turn":{i},"request":{{"model":"m","messages":[{{"role":"user","content":"step {i}: {text}"}}]}},"response":{{"stop_reason":"end_turn","text":"done {i} é ✓"}}}}"#
    )
}

/// A record of the `py` entry.
fn py_record(i: usize, text: &str) -> String {
    format!(
        r#"{{"meta":{{"hash":"000000000000","n":{i}}},"request":{{"url":"https://api.example.com/v1/chat?x={i}","body":"{{\"q\": \"{text}\", \"n\": {i}.0}}"}},"response":{{"status":200,"body":{{"text":"ok {i} ü"}}}}}}"#
    )
}

fn log(records: impl Iterator<Item = String>) -> String {
    records.map(|r| r + "\n").collect()
}

const REQUEST: &str = r#""request":{"#;
const RESPONSE: &str = r#""response":{"#;

/// The variants of a canonical log (its lines as `rehash` and `normalize` left them), each
/// as (name, contents).
fn variants(clean: &str, large: bool) -> Vec<(&'static str, Vec<u8>)> {
    let lines: Vec<&str> = clean.lines().collect();
    let join = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let edit = |at: usize, f: &dyn Fn(&str) -> String| {
        let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        out[at] = f(&out[at]);
        out
    };
    let mut out = vec![
        ("clean", clean.as_bytes().to_vec()),
        ("crlf", clean.replace('\n', "\r\n").into_bytes()),
        (
            "crlf-spaced",
            join(&edit(3, &|l| l.replacen(':', ": ", 1)))
                .replace('\n', "\r\n")
                .into_bytes(),
        ),
        ("no-final-newline", clean.trim_end().as_bytes().to_vec()),
        ("blank-lines", {
            let mut v = edit(2, &|l| format!("{l}\n\n  \t\n\r"));
            v.insert(0, String::new());
            join(&v).into_bytes()
        }),
        (
            "spaced",
            join(&edit(4, &|l| l.replace(",", " , "))).into_bytes(),
        ),
        (
            "number-and-escape",
            join(&edit(1, &|l| {
                l.replacen(RESPONSE, r#""response":{"n":1.0,"m":-0,"s":"\u00e9\/","#, 1)
            }))
            .into_bytes(),
        ),
        (
            "stale",
            join(&edit(2, &|l| l.replacen(REQUEST, r#""request":{"z":1,"#, 1))).into_bytes(),
        ),
        ("stale-then-broken", {
            let mut v = edit(1, &|l| l.replacen(REQUEST, r#""request":{"z":1,"#, 1));
            v[5] = v[5][..v[5].len() / 2].to_owned();
            join(&v).into_bytes()
        }),
        ("not-an-object", join(&edit(3, &|_| "[1, 2]".into())).into_bytes()),
        (
            "hash-not-a-string",
            join(&edit(2, &|l| {
                l.replacen("\"request_hash\":\"", "\"request_hash\":1,\"x\":\"", 1)
                    .replacen("\"hash\":\"", "\"hash\":2,\"y\":\"", 1)
            }))
            .into_bytes(),
        ),
        (
            "leaks",
            join(&edit(2, &|l| {
                l.replacen(
                    REQUEST,
                    r#""request":{"cwd":"/home/alice/app/main.ts","#,
                    1,
                )
                .replacen(
                    RESPONSE,
                    r#""response":{"k":"sk-ant-api03-Zq8xN4vB7mK2pL9sR5tW1yC6dF3gH0jE","t":"trace 5f0c8e2a-1b3d-4c6e-9f70-8a1b2c3d4e5f at /Users/bob/x","#,
                    1,
                )
            }))
            .into_bytes(),
        ),
        (
            "recorded-error",
            join(&edit(4, &|l| {
                l.replacen(
                    r#""stop_reason":"end_turn""#,
                    r#""status":529,"body":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                    1,
                )
                .replacen(r#""status":200"#, r#""status":429"#, 1)
            }))
            .into_bytes(),
        ),
        ("empty", Vec::new()),
        ("only-newline", b"\n".to_vec()),
        ("invalid-utf8", {
            let mut v = clean.as_bytes().to_vec();
            let at = clean.find("done").unwrap_or(0);
            v[at] = 0xff;
            v
        }),
    ];
    // Larger than a chunk of the leak scan (1 MiB), with leaks on both sides of the cut.
    let mut big = String::new();
    while big.len() < (1 << 20) + (64 << 10) {
        for (i, line) in lines.iter().enumerate() {
            if (big.len() / 50_000 + i).is_multiple_of(61) {
                big.push_str(&line.replacen(RESPONSE, r#""response":{"p":"/home/carol/work","#, 1));
            } else {
                big.push_str(line);
            }
            big.push('\n');
        }
    }
    if large {
        out.push(("large", big.into_bytes()));
    }
    out
}

/// A tree of logs under each entry: canonical ones (hashes set by `rehash`, lines written by
/// `normalize`, both read whole) and their variants.
fn tree() -> TestDir {
    let t = TestDir::new();
    t.write("vcr.toml", CONFIG);
    let texts = ["list the files", "open a.ts", "run the tests", "fix b.ts"];
    let js = log((0..12).map(|i| js_record(i, texts[i % 4])));
    let py = log((0..12).map(|i| py_record(i, texts[i % 4])));
    for (dir, text) in [("js", &js), ("py", &py), ("keep", &js)] {
        t.write(&format!("{dir}/base_log.jsonl"), text);
    }
    t.vcr_with(&["rehash"], WHOLE).code(0);
    t.vcr_with(&["normalize"], WHOLE).code(0);
    for dir in ["js", "py", "keep"] {
        let clean = t.read(&format!("{dir}/base_log.jsonl"));
        // One large log is enough, and the debug build reads it slowly.
        for (name, contents) in variants(&clean, dir == "js") {
            t.write(&format!("{dir}/{name}_log.jsonl"), contents);
        }
    }
    t
}

#[track_caller]
fn same_runs(t: &TestDir, args: &[&str]) -> String {
    let streamed = t.vcr(args);
    let whole = t.vcr_with(args, WHOLE);
    assert_eq!(streamed.code, whole.code, "{args:?}: {}", streamed.stderr);
    assert_eq!(streamed.stdout, whole.stdout, "{args:?}");
    assert_eq!(streamed.stderr, whole.stderr, "{args:?}");
    streamed.stdout
}

/// `args` on two copies of `t`, streamed and whole: the same report and the same files.
#[track_caller]
fn same_writes(t: &TestDir, args: &[&str]) -> TestDir {
    let streamed = TestDir::copy_of(&t.path(""));
    let whole = TestDir::copy_of(&t.path(""));
    let a = streamed.vcr(args);
    let b = whole.vcr_with(args, WHOLE);
    assert_eq!(
        (a.code, &a.stdout),
        (b.code, &b.stdout),
        "{args:?}: {}",
        a.stderr
    );
    assert_eq!(streamed.files(""), whole.files(""), "{args:?}");
    streamed
}

/// Every command, streamed and whole, on `t`: reports and resulting bytes compared; then
/// `verify` on what `rehash` wrote.
fn agree(t: &TestDir) {
    let verify = same_runs(t, &["verify", "--format", "json"]);
    assert!(verify.contains("\"findings\""), "{verify}");
    same_runs(t, &["normalize", "--check", "--format", "json"]);
    same_runs(t, &["rehash", "--dry-run", "--format", "json"]);
    same_writes(t, &["normalize", "--format", "json"]);
    let rehashed = same_writes(t, &["rehash", "--format", "json"]);
    same_runs(&rehashed, &["verify", "--format", "json"]);
}

#[test]
fn every_command_agrees_with_the_whole_log_path() {
    let t = tree();
    // The variants hold what they were made to hold (the test must not pass on empty logs).
    let doc: serde_json::Value = t.vcr(&["verify", "--format", "json"]).json();
    let ids: std::collections::BTreeSet<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    for id in [
        "name/stale",
        "format/unnormalized",
        "format/line-endings",
        "parse",
        "schema",
        "leak/secret",
        "leak/path",
        "leak/uuid",
        "recorded/error",
    ] {
        assert!(ids.contains(id), "no `{id}` among {ids:?}");
    }
    agree(&t);
}

/// Logs whose records hold the corpus's JSON lines as they are written (escapes, spacing,
/// non-ASCII text, machine paths, ids), under the three entries.
#[test]
fn logs_of_the_corpus_lines_agree_with_the_whole_log_path() {
    let Some(root) = corpus("") else { return };
    let mut files = Vec::new();
    collect_jsonl(&root, &mut files);
    files.sort();
    let t = TestDir::new();
    t.write("vcr.toml", CONFIG);
    let mut budget = 256usize << 10;
    let mut n = 0;
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let mut js = String::new();
        let mut py = String::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let Ok(text) = std::str::from_utf8(line) else {
                continue;
            };
            let text = text.trim_end_matches('\r');
            if text.len() > 64 << 10 || vcr_json::parse(text.as_bytes()).is_err() {
                continue;
            }
            js.push_str(&format!(
                r#"{{"request_hash":"0000000000000000","request":{{"line":{i}}},"response":{text}}}"#
            ));
            js.push('\n');
            py.push_str(&format!(
                r#"{{"meta":{{"hash":"000000000000"}},"request":{{"url":"/l/{i}","body":""}},"response":{text}}}"#
            ));
            py.push('\n');
        }
        if js.is_empty() || js.len() > budget {
            continue;
        }
        budget -= js.len();
        n += 1;
        for (dir, text) in [("js", &js), ("py", &py), ("keep", &js)] {
            t.write(&format!("{dir}/c{n:03}_log.jsonl"), text);
        }
    }
    assert!(n > 10, "the corpus gave {n} logs");
    // Every hash stale; then set, so that the lines' own leaks, escapes and spacing are what
    // is left to find.
    agree(&t);
    t.vcr_with(&["rehash"], WHOLE);
    same_runs(&t, &["verify", "--format", "json"]);
    same_writes(&t, &["normalize", "--format", "json"]);
}

fn collect_jsonl(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// `rehash` re-keys logs through the journal as it did when it read them whole: killed before
/// each of its changes to the tree, every log is left whole (its old bytes or its re-keyed
/// ones, never a part) and the next run finishes the job, with the bytes the whole-log path
/// writes.
#[cfg(unix)]
#[test]
fn a_streamed_rehash_killed_at_every_step_is_finished_by_the_next_run() {
    let build = || {
        let t = TestDir::new();
        t.write("vcr.toml", CONFIG);
        let texts = ["list the files", "open a.ts", "run the tests"];
        for n in 0..3 {
            let mut log = log((0..40).map(|i| js_record(i, texts[(i + n) % 3])));
            if n == 2 {
                // Without a trailing newline and with CRLF: kept as they are.
                log = log.trim_end().replace('\n', "\r\n");
            }
            t.write(&format!("js/l{n}_log.jsonl"), log);
        }
        // The other entries select something: an empty log each.
        t.write("py/empty_log.jsonl", "");
        t.write("keep/empty_log.jsonl", "");
        t
    };
    let expected = {
        let t = build();
        t.vcr_with(&["rehash"], WHOLE).code(0);
        t.files("js")
    };
    let originals = build().files("js");
    assert!(originals.iter().all(|(rel, old)| expected[rel] != *old));
    let mut steps = 0;
    loop {
        let t = build();
        let run = t.vcr_with(&["rehash"], &[("VCR_FAULT_KILL_AFTER", &steps.to_string())]);
        if run.code == Some(0) {
            assert_eq!(t.files("js"), expected);
            break;
        }
        assert_eq!(run.code, None, "step {steps}: {}", run.stderr);
        let present: Vec<Vec<u8>> = t.files("js").into_values().collect();
        for (rel, old) in &originals {
            assert!(
                present.contains(old) || present.contains(&expected[rel]),
                "step {steps}: {rel} was lost"
            );
        }
        t.vcr(&["rehash"]).code(0);
        assert_eq!(t.files("js"), expected, "step {steps}: after the next run");
        assert!(!t.exists(".vcr/journal.json"));
        steps += 1;
        assert!(steps < 100, "the fault hook never let a run finish");
    }
    assert!(steps > 6, "only {steps} steps: the hook is not counting");
}
