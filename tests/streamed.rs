//! Message fixtures read an `output` item at a time agree with the same fixtures read as one
//! whole value (issue 12): `verify`, `normalize --check` and `normalize` report and write the
//! same, byte for byte, with and without the testing hook `VCR_TEST_WHOLE_VALUES=1`, on
//! fixtures built from real Claude Code transcripts of the corpus and on broken variants of
//! them.

use crate::common;

use std::path::Path;

use common::{TestDir, corpus};

const WHOLE: &[(&str, &str)] = &[("VCR_TEST_WHOLE_VALUES", "1")];

/// The transcripts (JSONL, one entry a line) of the corpus's Claude Code repositories.
fn transcripts() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for repo in [
        "daaain__claude-code-log",
        "simonw__claude-code-transcripts",
        "marot__spotter",
    ] {
        let Some(root) = corpus(repo) else { continue };
        collect_jsonl(&root, &mut out);
    }
    out
}

fn collect_jsonl(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(std::fs::read(&path).unwrap());
        }
    }
}

/// A message fixture (compact) whose `output` items are a transcript's entries, as written.
fn fixture_of(transcript: &[u8]) -> Option<String> {
    // The first 128 KB of entries of each: the largest transcript (2.7 MB) adds nothing the
    // others lack but time in the debug build.
    let mut size = 0;
    let items: Vec<&str> = (transcript.split(|&b| b == b'\n'))
        .filter_map(|line| std::str::from_utf8(line).ok())
        .map(str::trim)
        .filter(|line| vcr_json::parse(line.as_bytes()).is_ok())
        .take_while(|line| {
            size += line.len();
            size <= 128 << 10
        })
        .collect();
    (!items.is_empty()).then(|| {
        format!(
            r#"{{"input":["what changed?",[{{"type":"text","text":"look at /home/ann/app"}}]],"output":[{},{STREAM_EVENTS}]}}"#,
            items.join(",")
        )
    })
}

/// Stream events, which a canonical file's items are taken as they stand for unless a check
/// needs them built: a delta holding a key (a leak to point at), an `error` event (a recorded
/// error), escapes and numbers the writer keeps, array-index and empty members (issue 12).
const STREAM_EVENTS: &str = concat!(
    r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"key sk-ant-api03-Zq8xN4vB7mK2pL9sR5tW1yC6dF3gH0jE and\ttab \u0001 é"}}},"#,
    r#"{"type":"stream_event","event":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}},"#,
    r#"{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":12,"ratio":0.5,"big":12345678901234567890,"neg":-3}}},"#,
    r#"{"type":"stream_event","event":{"type":"ping","b":{},"c":[],"2":"x","d":[1,[true,null]]}},"#,
    r#"{"type":"stream_event","event":{"type":"message_stop"},"ttftMs":358}"#,
);

/// The fixture and broken or unusual variants of it, each as (name suffix, contents).
fn variants(compact: &str) -> Vec<(&'static str, Vec<u8>)> {
    let value = vcr_json::parse(compact.as_bytes()).unwrap();
    let pretty = String::from_utf8(vcr_json::to_pretty(&value)).unwrap();
    let mut out = vec![
        ("compact", compact.as_bytes().to_vec()),
        ("pretty", pretty.clone().into_bytes()),
        ("crlf", pretty.replace('\n', "\r\n").into_bytes()),
        ("cut", pretty.as_bytes()[..pretty.len() * 2 / 3].to_vec()),
        ("trailing", format!("{pretty}\n{{}}").into_bytes()),
    ];
    // The pretty form with one stream event written otherwise than the writer would: a number
    // (`12.0`), an escape (`\u00e9`), a space; each a format difference inside an item.
    let tweak = |from: &str, to: &str| {
        assert!(pretty.contains(from), "{from}");
        pretty.replacen(from, to, 1).into_bytes()
    };
    out.push((
        "number",
        tweak("\"output_tokens\": 12", "\"output_tokens\": 12.0"),
    ));
    out.push(("escape", tweak(" é\"", " \\u00e9\"")));
    out.push(("space", tweak("\"message_stop\"\n", "\"message_stop\" \n")));
    let swap = |from: &str, to: &str| compact.replacen(from, to, 1).into_bytes();
    // Shapes: a non-object item, an assistant item without its content, output first, a
    // repeated or array-index top-level key (read whole), output not an array.
    out.push(("item", swap(r#""output":["#, r#""output":[5,"#)));
    out.push((
        "no-content",
        swap(
            r#""type":"assistant","message":{"#,
            r#""type":"assistant","message":{"content":7,"#,
        ),
    ));
    let first_item = &compact[compact.find(r#""output":["#).unwrap() + 10..];
    out.push((
        "output-first",
        format!(
            r#"{{"output":[{first_item}],"input":["what changed?"]}}"#,
            first_item = &first_item[..first_item.len() - 2]
        )
        .into_bytes(),
    ));
    out.push((
        "repeated",
        format!(r#"{}, "output": []}}"#, &compact[..compact.len() - 1]).into_bytes(),
    ));
    out.push(("index-key", swap(r#"{"input""#, r#"{"7": 1, "input""#)));
    out.push((
        "not-array",
        swap(r#""output":["#, r#""output":{"a":["#)
            .iter()
            .copied()
            .chain(*b"}")
            .collect(),
    ));
    out.push(("bad-input", swap(r#""input":["#, r#""input":[1,"#)));
    out
}

/// A tree of message fixtures from the corpus and the variants, named as fixtures are.
fn tree() -> Option<TestDir> {
    let transcripts = transcripts();
    if transcripts.is_empty() {
        return None;
    }
    let t = TestDir::new();
    let mut n = 0u32;
    for transcript in &transcripts {
        let Some(compact) = fixture_of(transcript) else {
            continue;
        };
        for (_, contents) in variants(&compact) {
            n += 1;
            t.write(&format!("fixtures/{:06x}.json", 0xa00000 + n), contents);
        }
    }
    assert!(n > 20, "the corpus gave {n} fixtures");
    Some(t)
}

#[track_caller]
fn same_runs(t: &TestDir, args: &[&str]) {
    let streamed = t.vcr(args);
    let whole = t.vcr_with(args, WHOLE);
    assert_eq!(streamed.code, whole.code, "{args:?}: {}", streamed.stderr);
    assert_eq!(streamed.stdout, whole.stdout, "{args:?}");
    assert_eq!(streamed.stderr, whole.stderr, "{args:?}");
}

#[test]
fn verify_and_normalize_check_agree_with_the_whole_value_path() {
    let Some(t) = tree() else { return };
    same_runs(&t, &["verify", "--format", "json"]);
    same_runs(&t, &["normalize", "--check", "--format", "json"]);
    // The fixtures as `normalize` leaves them (canonical, named or not): compared equal.
    let normalized = TestDir::copy_of(&t.path(""));
    normalized.vcr_with(&["normalize"], WHOLE);
    same_runs(&normalized, &["verify", "--format", "json"]);
    same_runs(&normalized, &["normalize", "--check", "--format", "json"]);
    // Stream events dehydrated on request.
    normalized.write(
        "vcr.toml",
        "[claude-code]\ndehydrate-stream-events = true\n",
    );
    same_runs(&normalized, &["verify", "--format", "json"]);
    same_runs(&normalized, &["normalize", "--check", "--format", "json"]);
}

#[test]
fn normalize_writes_the_same_bytes_as_the_whole_value_path() {
    let Some(t) = tree() else { return };
    for config in ["", "[claude-code]\ndehydrate-stream-events = true\n"] {
        t.write("vcr.toml", config);
        let streamed = TestDir::copy_of(&t.path(""));
        let whole = TestDir::copy_of(&t.path(""));
        let a = streamed.vcr(&["normalize", "--format", "json"]);
        let b = whole.vcr_with(&["normalize", "--format", "json"], WHOLE);
        assert_eq!((a.code, &a.stdout), (b.code, &b.stdout), "{config}");
        assert_eq!(streamed.files(""), whole.files(""), "{config}");
        assert!(a.stdout.contains("\"written\":true") || a.stdout.contains("\"written\": true"));
    }
}
