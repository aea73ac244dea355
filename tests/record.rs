//! `vcr record` driven by real harnesses: a Python harness that writes raw fixtures (machine
//! paths, random UUIDs), `--only` with green and failing runs, SIGINT sent to vcr while the
//! command runs, and vcr killed with SIGKILL mid-run.

use crate::common;

use common::{TestDir, api_error_fixture, fixture};
use serde_json::Value;

/// A harness in the style of Claude Code's VCR, without its dehydration: each "test" calls
/// the model once with a prompt naming a file of the working directory; in record mode
/// (`VCR_RECORD=1`, else it fails as Claude Code does in CI) it writes the raw recording, with
/// a random uuid and request id, under the name of the raw input.
const RAW_HARNESS: &str = r#"
import hashlib, json, os, sys, uuid

cwd = os.getcwd()
prompts = sys.argv[1:]
if os.environ.get("VCR_RECORD") != "1":
    print("Anthropic API fixture missing: fixtures/x.json. Re-run tests with VCR_RECORD=1", file=sys.stderr)
    sys.exit(1)
os.makedirs("fixtures", exist_ok=True)
for prompt in prompts:
    content = prompt.replace("CWD", cwd)
    name = hashlib.sha1(json.dumps(content, ensure_ascii=False).encode()).hexdigest()[:6]
    value = {"input": [content], "output": [{
        "uuid": str(uuid.uuid4()),
        "requestId": "req_" + uuid.uuid4().hex,
        "timestamp": "2026-11-30T10:00:00.000Z",
        "message": {"id": "msg_01", "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "done: " + content, "citations": []}]},
        "type": "assistant"}]}
    path = "fixtures/%s.json" % name
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
    fd = os.open(os.environ["VCR_USAGE_LOG"], os.O_WRONLY | os.O_APPEND)
    os.write(fd, (json.dumps({"path": path, "event": "write"}) + "\n").encode())
    os.close(fd)
    print("recorded", path)
"#;

/// The cassette `RAW_HARNESS` should end as for `prompt`, after normalize and rehash.
fn expected(prompt: &str) -> (String, String) {
    let content = prompt.replace("CWD", "[CWD]");
    fixture(
        &[&serde_json::to_string(&content).unwrap()],
        &format!("done: {content}"),
    )
}

#[test]
fn raw_recordings_end_normalized_and_correctly_named() {
    let t = TestDir::new();
    t.write("harness.py", RAW_HARNESS);
    let prompts = ["fix CWD/src/main.rs", "explain CWD/README.md"];
    let run = t.vcr(&[&["record", "--", "python3", "harness.py"][..], &prompts].concat());
    run.code(0).stdout_has("recorded fixtures/");
    let mut want = std::collections::BTreeMap::new();
    for prompt in prompts {
        let (name, text) = expected(prompt);
        run.stdout_has(&format!("added fixtures/{name}"));
        want.insert(format!("fixtures/{name}"), text.into_bytes());
    }
    run.stdout_has("recorded: 2 added, 0 changed, 0 removed, 0 unchanged; 0 errors");
    assert_eq!(
        t.files("fixtures"),
        want,
        "normalized, re-keyed, nothing else left"
    );
    t.vcr(&["verify"]).code(0);
    t.vcr(&["normalize", "--check"]).code(0);
}

#[test]
fn json_output_keeps_stdout_one_document() {
    let t = TestDir::new();
    t.write("harness.py", RAW_HARNESS);
    let run = t.vcr(&[
        "record",
        "--format",
        "json",
        "--",
        "python3",
        "harness.py",
        "p CWD",
    ]);
    let doc = run.code(0).json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["command"], "record");
    assert_eq!(doc["summary"]["added"], 1);
    assert_eq!(doc["summary"]["exit_code"], 0);
    assert!(
        doc["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "recorded" && e["change"] == "added")
    );
    assert!(
        run.stderr.contains("recorded fixtures/"),
        "the harness's stdout went to stderr"
    );
}

#[test]
fn configured_record_env_replaces_the_default() {
    let t = TestDir::new();
    t.write(
        "vcr.toml",
        "[record]\nenv = { MY_HARNESS_MODE = \"record\" }\n",
    );
    t.write(
        "harness.sh",
        "test \"$MY_HARNESS_MODE\" = record && test -z \"$VCR_RECORD\" && test -z \"$DSH_SNAPSHOT\"\n",
    );
    t.vcr(&["record", "--", "sh", "harness.sh"])
        .code(0)
        .stdout_has("recorded: 0 added");
    t.write("vcr.toml", "");
    // Without it, an empty tree gets both seeds' variables.
    t.write(
        "harness.sh",
        "test \"$VCR_RECORD\" = 1 && test \"$DSH_SNAPSHOT\" = record\n",
    );
    t.vcr(&["record", "--", "sh", "harness.sh"]).code(0);
}

#[test]
fn verbose_output_masks_secrets_in_the_record_env() {
    // Regression: `-v` printed every `[record] env` value as it is, into CI logs.
    let key = format!("sk-ant-api03-{}", "Zq7XvB2mKp9LwR4tYc8NdF3hJs6GaT1uEo5i");
    let t = TestDir::new();
    t.write(
        "vcr.toml",
        format!("[record]\nenv = {{ HARNESS_KEY = \"{key}\", MODE = \"record\" }}\n"),
    );
    let run = t.vcr(&["-v", "record", "--", "true"]);
    run.code(0)
        .stderr_has("MODE=record")
        .stderr_has("HARNESS_KEY=sk-ant-a");
    assert!(!run.stderr.contains(&key), "{}", run.stderr);
}

#[test]
fn errors_in_what_was_recorded_exit_1() {
    let t = TestDir::new();
    t.write("harness.py", RAW_HARNESS);
    // A prompt carrying a live-looking key: recorded, normalized, and reported by verify.
    let key = format!("sk-ant-api03-{}AA", "x7Kq2Lm9Pz4Rt8Vw".repeat(6));
    let run = t.vcr(&[
        "record",
        "--",
        "python3",
        "harness.py",
        &format!("use {key}"),
    ]);
    run.code(1).stdout_has("leak/secret").stdout_has("1 added");
    assert!(!run.stdout.contains(&key), "the secret is masked");
}

/// `record --format json` printed a document without the findings of its check of what it
/// recorded: they were kept for an output that never came. They are events of the document.
#[test]
fn record_json_carries_the_findings_of_what_it_recorded() {
    let t = TestDir::new();
    t.write("harness.py", RAW_HARNESS);
    let key = format!("sk-ant-api03-{}AA", "x7Kq2Lm9Pz4Rt8Vw".repeat(6));
    let run = t.vcr(&[
        "record",
        "--format",
        "json",
        "--",
        "python3",
        "harness.py",
        &format!("use {key}"),
    ]);
    run.code(1);
    let doc = run.json();
    let findings: Vec<&Value> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "finding")
        .collect();
    assert!(
        findings
            .iter()
            .any(|f| f.to_string().contains("leak/secret")),
        "{doc:#}"
    );
    assert!(!run.stdout.contains(&key), "the secret is masked");
}

/// Issue 11: a recording without an API key, whose fixture holds Claude Code's "Invalid API
/// key" message, used to pass `record` with "0 errors". It is a `recorded/error` error in
/// `record` and a warning in `verify`.
#[test]
fn a_recorded_api_error_fails_record_and_warns_in_verify() {
    let t = TestDir::new();
    let (name, text) = api_error_fixture(&["\"say pong\""], "Invalid API key · Please run /login");
    t.write("recorded.json", &text);
    t.write(
        "harness.sh",
        format!("mkdir -p fixtures && cp recorded.json fixtures/{name}\n"),
    );
    let run = t.vcr(&["record", "--", "sh", "harness.sh"]);
    run.code(1)
        .stdout_has(&format!("added fixtures/{name}"))
        .stdout_has("recorded/error")
        .stdout_has("authentication (Claude Code's API error message, \"Invalid API key\")")
        .stdout_has("1 added, 0 changed, 0 removed, 0 unchanged; 1 error");
    t.vcr(&["verify"])
        .code(0)
        .stdout_has("recorded/error")
        .stdout_has("0 errors, 1 warning");
}

/// A dsh snapshot suite in record mode without an API key, as DeepSeek-Harness runs it: the
/// provider call fails with `MISSING_CREDENTIAL`, `LlmRuntime` records the failure as the
/// call's `finish` chunk, the scenario's assertions (on the snapshot files) pass, and the
/// suite writes the scrubbed session log and the expected stdout into the scenario folder.
const DSH_NO_KEY_HARNESS: &str = r#"
import json, os
assert os.environ.get("DSH_SNAPSHOT") == "record", "not in record mode"
failure = {"message": "llm-deepseek: no API key for provider route \"deepseek-official\"; store DEEPSEEK_API_KEY through the credentials service (the web Models page writes it), or export DEEPSEEK_API_KEY in the launching environment", "code": "MISSING_CREDENTIAL"}
rows = [
    {"type": "session", "version": 0, "id": "{{sessionId}}", "createdAt": 0, "cwd": "{{cwd}}", "delegationDepth": 0},
    {"type": "turn/start", "data": {"turn": 1}},
    {"type": "step/start", "data": {"turn": 1, "step": 1}},
    {"type": "user/message", "data": {"content": [{"type": "text", "text": "say pong"}], "source": {"kind": "user"}, "role": "user", "id": "{{sessionId}}"}, "surfaceOp": "append"},
    {"type": "request/header", "data": {"header": {"config": {"provider": "deepseek-official", "model": "deepseek-v4-flash"}, "system": "{{system}}", "tools": "{{tools}}"}, "reason": "initial"}},
    {"type": "assistant/chunk", "data": {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": {"kind": "error", "failure": failure}}}},
    {"type": "step/end", "data": {"turn": 1, "step": 1}},
    {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "error", "error": failure}}},
]
folder = "tests/snapshots/missing-key"
with open(folder + "/session.jsonl", "w") as f:
    f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
with open(folder + "/stdout.expected.jsonl", "w") as f:
    f.write(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}, separators=(",", ":")) + "\n")
print("1 passed")
"#;

#[test]
fn a_dsh_call_recorded_without_an_api_key_fails_record() {
    let t = TestDir::new();
    t.write("harness.py", DSH_NO_KEY_HARNESS);
    t.write(
        "tests/snapshots/missing-key/input.json",
        r#"{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"prompt","text":"say pong"}]}"#,
    );
    // An empty tree gets both record variables; the harness needs `DSH_SNAPSHOT=record`.
    let run = t.vcr(&["record", "--", "python3", "harness.py"]);
    run.code(1)
        .stdout_has("added tests/snapshots/missing-key/session.jsonl")
        .stdout_has(
            "model call 1 (turn/step 1/1) is a recorded API error, not an answer: \
             authentication (`MISSING_CREDENTIAL`)",
        )
        .stdout_has("1 error");
    t.vcr(&["verify"]).code(0).stdout_has("0 errors, 1 warning");
}

/// Three committed-looking cassettes for the `--only` tests.
fn three() -> (TestDir, [(String, String); 3]) {
    let t = TestDir::new();
    let cassettes = [
        fixture(&["\"alpha\""], "old alpha"),
        fixture(&["\"beta\""], "old beta"),
        fixture(&["\"gamma\""], "old gamma"),
    ];
    for (name, text) in &cassettes {
        t.write(&format!("fixtures/{name}"), text);
    }
    (t, cassettes)
}

#[test]
fn only_re_records_the_chosen_and_puts_back_what_was_not_recorded() {
    let (t, [a, b, c]) = three();
    let new_a = fixture(&["\"alpha\""], "new alpha").1;
    // The harness checks the chosen cassettes are gone, records `a` anew, and leaves `b`.
    t.write("new_a.json", &new_a);
    t.write(
        "harness.sh",
        format!(
            "set -e\ntest ! -e fixtures/{a} && test ! -e fixtures/{b} && test -e fixtures/{c}\ncp new_a.json fixtures/{a}\n",
            a = a.0,
            b = b.0,
            c = c.0
        ),
    );
    let only = format!("fixtures/{{{},{}}}", a.0, b.0);
    let run = t.vcr(&["record", "--only", &only, "--", "sh", "harness.sh"]);
    run.code(0)
        .stdout_has(&format!("moved aside fixtures/{}", a.0))
        .stdout_has(&format!("changed fixtures/{}", a.0))
        .stdout_has(&format!("kept fixtures/{} (not recorded again", b.0))
        .stdout_has("recorded: 0 added, 1 changed, 0 removed, 1 unchanged, 1 not recorded again");
    assert_eq!(t.read(&format!("fixtures/{}", a.0)), new_a);
    assert_eq!(t.read(&format!("fixtures/{}", b.0)), b.1);
    assert_eq!(t.read(&format!("fixtures/{}", c.0)), c.1);
    assert!(!t.exists(".vcr/stash/manifest.json"));
    assert_eq!(
        std::fs::read_dir(t.path(".vcr/stash")).unwrap().count(),
        0,
        "stash emptied"
    );

    t.vcr(&["record", "--only", "fixtures/nothing*", "--", "true"])
        .code(2)
        .stderr_has("no cassette matches");
}

#[test]
fn only_with_a_failing_command_brings_the_old_cassettes_back() {
    let (t, [a, b, c]) = three();
    let before = t.files("fixtures");
    t.write(
        "harness.sh",
        format!(
            "test ! -e fixtures/{} || exit 9\necho 'FAIL 1 test' >&2\nexit 4\n",
            a.0
        ),
    );
    let run = t.vcr(&["record", "--only", "fixtures/*", "--", "sh", "harness.sh"]);
    run.code(4)
        .stderr_has("FAIL 1 test")
        .stderr_has("the test command exited with code 4")
        .stderr_has(&format!("put back fixtures/{}", a.0));
    assert!(!run.stderr.contains("left behind"), "{}", run.stderr);
    assert_eq!(t.files("fixtures"), before, "every old cassette is back");

    // A failing run that did record one again: the new file stays where the harness put
    // it, and the old copy is kept in the stash, never deleted.
    let new_b = fixture(&["\"beta\""], "new beta").1;
    t.write("new_b.json", &new_b);
    t.write(
        "harness.sh",
        format!("cp new_b.json fixtures/{}\nexit 1\n", b.0),
    );
    let run = t.vcr(&["record", "--only", "fixtures/*", "--", "sh", "harness.sh"]);
    run.code(1)
        .stderr_has(&format!("kept: fixtures/{}", b.0))
        .stderr_has(&format!(
            "left behind: fixtures/{} (changed by the run that did not succeed; not normalized, \
             re-keyed or verified)",
            b.0
        ))
        .stdout_has("1 file left as the run wrote it");
    assert_eq!(t.read(&format!("fixtures/{}", b.0)), new_b);
    assert_eq!(t.read(&format!("fixtures/{}", a.0)), a.1);
    assert_eq!(t.read(&format!("fixtures/{}", c.0)), c.1);
    let kept: Vec<_> = walk(&t.path(".vcr/stash"))
        .into_iter()
        .filter(|p| p.ends_with(&b.0))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), b.1);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Waits until `path` exists (the harness is running).
#[cfg(unix)]
fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn sigint_to_vcr_reaches_the_command_and_cassettes_come_back() {
    let (t, [a, ..]) = three();
    let before = t.files("fixtures");
    t.write(
        "harness.sh",
        "trap 'echo interrupted > got-int; exit 130' INT\ntouch started\nwhile :; do sleep 0.05; done\n",
    );
    let child = t
        .command(
            &["record", "--only", "fixtures/*", "--", "sh", "harness.sh"],
            &[],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for(&t.path("started"));
    assert!(
        !t.exists(&format!("fixtures/{}", a.0)),
        "moved aside while running"
    );
    signal(child.id(), "INT");
    let run = common::Run::from(child.wait_with_output().unwrap());
    run.code(130)
        .stderr_has("signal 2")
        .stderr_has(&format!("put back fixtures/{}", a.0));
    assert_eq!(
        t.read("got-int"),
        "interrupted\n",
        "the command got the SIGINT"
    );
    assert_eq!(t.files("fixtures"), before);
}

#[cfg(unix)]
#[test]
fn vcr_killed_mid_run_is_recovered_by_the_next_mutating_command() {
    let (t, [a, b, _]) = three();
    let before = t.files("fixtures");
    t.write(
        "harness.sh",
        "echo $$ > harness.pid\ntouch started\nsleep 30\n",
    );
    let mut child = t
        .command(
            &["record", "--only", "fixtures/*", "--", "sh", "harness.sh"],
            &[],
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for(&t.path("started"));
    signal(child.id(), "KILL");
    child.wait().unwrap();
    // The orphaned test command would sleep on; end it as a CI runner would.
    signal(t.read("harness.pid").trim().parse().unwrap(), "TERM");
    assert!(!t.exists(&format!("fixtures/{}", a.0)));
    assert!(t.exists(".vcr/stash/manifest.json"));
    // A read-only command leaves the stash alone but says the tree is not whole (regression,
    // issue 11); a mutating one finishes it.
    t.vcr(&["normalize", "--check"])
        .code(2)
        .stderr_has("an interrupted `vcr record` left 3 cassettes in `.vcr/stash/`");
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("an interrupted `vcr record` left 3 cassettes in `.vcr/stash/`");
    t.vcr(&["normalize"])
        .code(0)
        .stderr_has(&format!("put back fixtures/{}", a.0))
        .stderr_has(&format!("put back fixtures/{}", b.0));
    assert_eq!(t.files("fixtures"), before);
    assert!(!t.exists(".vcr/stash/manifest.json"));
}

/// A dsh snapshot suite in record mode, as DeepSeek-Harness's `acp-snapshot` suite writes a
/// scenario: the scrubbed session log, `stdout.expected.jsonl` through Vitest's
/// `toMatchFileSnapshot` under `--update`, and, for a header-pinning scenario, the class
/// pin's `system-prompt.expected.md`, which lives in the pinning scenario's folder. With
/// `FAIL_AFTER_LOG` set, it fails after writing the log and the expected output of `b`.
const DSH_SUITE: &str = r#"
import json, os, sys
assert os.environ.get("DSH_SNAPSHOT") == "record", "not in record mode"
def log(folder, text):
    rows = [
        {"type": "session", "version": 0, "id": "{{sessionId}}", "createdAt": 0, "cwd": "{{cwd}}", "delegationDepth": 0},
        {"type": "assistant/chunk", "data": {"turn": 1, "step": 1, "chunk": {"type": "block-start", "index": 0, "blockType": "text"}}},
        {"type": "assistant/chunk", "data": {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": text}}},
        {"type": "assistant/chunk", "data": {"turn": 1, "step": 1, "chunk": {"type": "block-end", "index": 0, "block": {"type": "text", "text": text}}}},
        {"type": "assistant/chunk", "data": {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": {"kind": "stop"}}}},
    ]
    with open(folder + "/session.jsonl", "w") as f:
        f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
def expected(folder, text):
    with open(folder + "/stdout.expected.jsonl", "w") as f:
        f.write(json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"text": text}}, separators=(",", ":")) + "\n")
root = "tests/snapshots/"
log(root + "b", "pong, again")
expected(root + "b", "pong, again")
if os.environ.get("FAIL_AFTER_LOG"):
    print("FAIL snapshot: b matches the expected outputs", file=sys.stderr)
    sys.exit(1)
with open(root + "a/system-prompt.expected.md", "w") as f:
    f.write("You are a coding agent, version 2.\n")
log(root + "c", "first words")
expected(root + "c", "first words")
"#;

/// Two recorded scenarios (`a` pins the header class's system prompt) and a new one, `c`,
/// whose folder so far holds only its hand-written `input.json`.
fn dsh_suite() -> TestDir {
    let t = TestDir::new();
    t.write("harness.py", DSH_SUITE);
    for name in ["a", "b"] {
        let dir = format!("tests/snapshots/{name}");
        t.write(
            &format!("{dir}/input.json"),
            r#"{"steps":[{"op":"prompt","text":"ping"}]}"#,
        );
        t.write(
            &format!("{dir}/session.jsonl"),
            concat!(
                r#"{"type":"session","version":0,"id":"{{sessionId}}","createdAt":0,"cwd":"{{cwd}}","delegationDepth":0}"#,
                "\n",
                r#"{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}"#,
                "\n"
            ),
        );
        t.write(
            &format!("{dir}/stdout.expected.jsonl"),
            "{\"jsonrpc\":\"2.0\"}\n",
        );
    }
    t.write(
        "tests/snapshots/a/system-prompt.expected.md",
        "You are a coding agent.\n",
    );
    let input = "tests/snapshots/c/input.json";
    t.write(input, r#"{"steps":[{"op":"prompt","text":"hello"}]}"#);
    // Written well before the run, as a hand-written input is.
    let file = std::fs::File::options()
        .write(true)
        .open(t.path(input))
        .unwrap();
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    t
}

/// Issue 11: `record` listed only the cassettes. A dsh suite also rewrites expected outputs
/// beside them, one even in another scenario's folder, and they belong in the same review.
#[test]
fn record_lists_the_other_files_the_run_wrote_beside_the_cassettes() {
    let t = dsh_suite();
    let run = t.vcr(&["record", "--", "python3", "harness.py"]);
    run.code(0)
        .stdout_has("changed tests/snapshots/b/session.jsonl")
        .stdout_has("added tests/snapshots/c/session.jsonl")
        .stdout_has("also changed tests/snapshots/b/stdout.expected.jsonl")
        .stdout_has("also changed tests/snapshots/a/system-prompt.expected.md")
        .stdout_has("also added tests/snapshots/c/stdout.expected.jsonl")
        .stdout_has("recorded: 1 added, 1 changed, 0 removed, 1 unchanged; 3 other files beside them; 0 errors");
    // Inputs the run did not write are not listed, whether their folder is old or new.
    assert!(!run.stdout.contains("input.json"), "{}", run.stdout);
    assert!(!run.stdout.contains("a/stdout.expected"), "{}", run.stdout);

    // In JSON: one event per file, and the count in the summary.
    let t = dsh_suite();
    let doc = t
        .vcr(&["record", "--format", "json", "--", "python3", "harness.py"])
        .code(0)
        .json();
    assert_eq!(doc["summary"]["touched"], 3, "{doc:#}");
    let touched: Vec<(&str, &str)> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "touched")
        .map(|e| (e["path"].as_str().unwrap(), e["change"].as_str().unwrap()))
        .collect();
    assert_eq!(
        touched,
        [
            ("tests/snapshots/a/system-prompt.expected.md", "changed"),
            ("tests/snapshots/b/stdout.expected.jsonl", "changed"),
            ("tests/snapshots/c/stdout.expected.jsonl", "added"),
        ]
    );
}

/// Issue 11: after a failed run, `record` said only that nothing was normalized. The files
/// the run rewrote before failing stay as it wrote them, and are now listed.
#[test]
fn a_failed_run_lists_the_files_it_left_behind() {
    let t = dsh_suite();
    let before = t.read("tests/snapshots/b/session.jsonl");
    let run = t.vcr_with(
        &["record", "--", "python3", "harness.py"],
        &[("FAIL_AFTER_LOG", "1")],
    );
    run.code(1)
        .stderr_has(
            "left behind: tests/snapshots/b/session.jsonl (changed by the run that did not \
             succeed; not normalized, re-keyed or verified)",
        )
        .stderr_has(
            "left behind: tests/snapshots/b/stdout.expected.jsonl (changed by the run that did \
             not succeed)",
        )
        .stdout_has(
            "not recorded: the test command exited with code 1; 2 files left as the run wrote them",
        );
    assert_ne!(t.read("tests/snapshots/b/session.jsonl"), before);
    assert!(!run.stderr.contains("snapshots/a/"), "{}", run.stderr);

    // A harness in Claude Code's style writes each fixture with one plain write at its final
    // name; killed mid-write, it leaves a truncated file behind.
    let t = TestDir::new();
    t.write(
        "harness.sh",
        "mkdir -p fixtures\nprintf '{\\n  \"input\": [\\n    \"hel' > fixtures/a1f2fb.json\nexit 3\n",
    );
    let run = t.vcr(&["record", "--format", "json", "--", "sh", "harness.sh"]);
    let doc = run.code(3).json();
    assert_eq!(doc["summary"]["left_behind"], 1, "{doc:#}");
    let left: Vec<&Value> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "left_behind")
        .collect();
    assert_eq!(left.len(), 1, "{doc:#}");
    assert_eq!(left[0]["path"], "fixtures/a1f2fb.json");
    assert_eq!(left[0]["change"], "added");
    assert_eq!(left[0]["cassette"], true);
}
