//! `vcr verify` as a user runs it: the real binary on real trees in temporary folders, in a
//! real git repository for `--staged`, and over the shared third-party corpus when present.
//!
//! Every secret planted here is assembled at run time from random-looking characters, so
//! this file holds nothing a secret scanner (vcr's own included) would flag.

use crate::common;

use std::path::Path;

use common::{Run, TestDir, api_error_fixture, fixture, git, isolate_git, vcr_command};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// Helpers

/// Writes a message fixture under the name the harness gives it; returns its path.
fn cassette(t: &TestDir, inputs: &[&str], answer: &str) -> String {
    let (name, text) = fixture(inputs, answer);
    let rel = format!("fixtures/{name}");
    t.write(&rel, text);
    rel
}

/// A string as an `input` element (user content given as a string).
fn said(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// Runs `vcr verify --format json args...`; returns the run and its document.
fn verify_json(t: &TestDir, args: &[&str]) -> (Run, Value) {
    let mut all = vec!["verify", "--format", "json"];
    all.extend_from_slice(args);
    let run = t.vcr(&all);
    let doc = run.json();
    (run, doc)
}

fn findings(doc: &Value) -> &[Value] {
    doc["findings"].as_array().expect("findings is an array")
}

/// The findings with `id`.
fn with_id<'a>(doc: &'a Value, id: &str) -> Vec<&'a Value> {
    findings(doc).iter().filter(|f| f["id"] == id).collect()
}

/// `(id, severity)` of every finding, in report order.
fn kinds(doc: &Value) -> Vec<(String, String)> {
    findings(doc)
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pair(id: &str, severity: &str) -> (String, String) {
    (id.to_owned(), severity.to_owned())
}

/// Random-looking text from a fixed linear congruential sequence.
fn noise(seed: u64, len: usize, alphabet: &[u8]) -> String {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            alphabet[((x >> 33) % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Credentials that look real, built at run time.
struct Secrets {
    anthropic: String,
    aws: String,
    bearer: String,
    pem_body: String,
}

impl Secrets {
    fn new() -> Secrets {
        Secrets {
            anthropic: ["sk", "ant", "api03", &noise(1, 93, ALNUM)].join("-"),
            aws: ["AK", "IA", &noise(2, 16, UPPER)].concat(),
            bearer: noise(3, 40, ALNUM),
            pem_body: noise(4, 64, ALNUM),
        }
    }

    fn pem(&self) -> String {
        let label = ["RSA", "PRIVATE", "KEY"].join(" ");
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----",
            self.pem_body
        )
    }

    /// Every secret value, none of which may ever be printed whole.
    fn all(&self) -> [&str; 4] {
        [&self.anthropic, &self.aws, &self.bearer, &self.pem_body]
    }
}

#[track_caller]
fn assert_never_printed(run: &Run, secrets: &Secrets) {
    for secret in secrets.all() {
        assert!(
            !run.stdout.contains(secret) && !run.stderr.contains(secret),
            "a secret was printed whole:\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
}

/// `vcr -C <root>/<dir> args...` with git isolated as in [`git`].
fn vcr_in_repo(t: &TestDir, dir: &str, args: &[&str]) -> Run {
    let mut cmd = t.command_in(dir, args, &[]);
    isolate_git(&mut cmd);
    Run::from(cmd.output().unwrap())
}

// ---------------------------------------------------------------------------------------
// Clean trees and output shapes

#[test]
fn the_clean_example_passes_in_every_format() {
    let t = TestDir::example("claude-code");
    t.vcr(&["verify"])
        .code(0)
        .stdout_has("checked 5 files: 0 errors, 0 warnings");

    let (run, doc) = verify_json(&t, &[]);
    // The shape DESIGN.md pins, and nothing else, `version` first.
    assert!(
        run.stdout
            .starts_with("{\n  \"version\": 1,\n  \"findings\": ["),
        "{}",
        run.stdout
    );
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["findings", "summary", "version"]);
    assert_eq!(doc["version"], 1);
    assert_eq!(findings(&doc), &[] as &[Value]);
    assert_eq!(
        doc["summary"],
        serde_json::json!({"files": 5, "errors": 0, "warnings": 0})
    );

    let sarif = t.vcr(&["verify", "--format", "sarif"]);
    sarif.code(0);
    let log = sarif.json();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));

    let github = t.vcr(&["verify", "--format", "github"]);
    github.code(0);
    assert!(!github.stdout.contains("::"), "{}", github.stdout);
}

#[test]
fn the_raw_example_is_stale_and_unnormalized() {
    let t = TestDir::example("claude-code-raw");
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(doc["summary"]["files"], 5);
    assert_eq!(with_id(&doc, "name/stale").len(), 4, "{doc:#}");
    assert_eq!(with_id(&doc, "format/unnormalized").len(), 4, "{doc:#}");
    // What `vcr normalize` and `vcr rehash` make of it passes.
    t.vcr(&["normalize"]).code(0);
    t.vcr(&["rehash"]).code(0);
    t.vcr(&["verify"]).code(0);
}

// ---------------------------------------------------------------------------------------
// Key material and payload

#[test]
fn uuids_and_timestamps_fail_in_key_material_and_only_warn_in_payload() {
    let uuid = "3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f";
    let ts = "2025-03-04T05:06:07.123Z";

    // In the payload: warnings, which never fail the run.
    let t = TestDir::new();
    let rel = cassette(
        &t,
        &[&said("what happened?")],
        &format!("run {uuid} started at {ts}"),
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert_eq!(
        kinds(&doc),
        [
            pair("leak/uuid", "warning"),
            pair("leak/timestamp", "warning")
        ]
    );
    for f in findings(&doc) {
        assert_eq!(f["path"], rel.as_str());
        assert_eq!(f["pointer"], "/output/0/message/content/0/text");
    }
    assert_eq!(doc["summary"]["warnings"], 2);
    assert_eq!(doc["summary"]["errors"], 0);
    t.vcr(&["verify"])
        .code(0)
        .stdout_has("warning  leak/uuid")
        .stdout_has("checked 1 file: 0 errors, 2 warnings");

    // In the key material: errors, placed at the value.
    let t = TestDir::new();
    cassette(&t, &[&said(&format!("retry run {uuid} from {ts}"))], "ok");
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(
        kinds(&doc),
        [pair("leak/uuid", "error"), pair("leak/timestamp", "error")]
    );
    let found = &with_id(&doc, "leak/uuid")[0];
    assert_eq!(found["pointer"], "/input/0");
    // `    "retry run ` is 15 characters.
    assert_eq!(
        (found["line"].as_u64(), found["column"].as_u64()),
        (Some(3), Some(16))
    );
    assert!(
        found["message"].as_str().unwrap().contains("key material"),
        "{found}"
    );
    assert_eq!(found["match"], uuid);
}

#[test]
fn the_assistant_items_own_timestamp_is_not_a_finding() {
    let t = TestDir::new();
    let rel = cassette(&t, &[&said("hello")], "hi");
    // The fixture carries a recorded ISO timestamp on its assistant item, as Claude Code
    // writes it.
    assert!(
        t.read(&rel)
            .contains("\"timestamp\": \"2026-11-30T10:00:00.000Z\"")
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert_eq!(findings(&doc), &[] as &[Value], "{doc:#}");

    // The same date-time inside the message is payload: a warning.
    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "it is 2026-11-30T10:00:00.000Z");
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert_eq!(kinds(&doc), [pair("leak/timestamp", "warning")]);
}

// ---------------------------------------------------------------------------------------
// Secrets

#[test]
fn secrets_are_errors_and_are_never_printed_whole() {
    let s = Secrets::new();
    let t = TestDir::new();
    let answer = format!(
        "use {} or curl -H 'Authorization: Bearer {}' with {} and\n{}\n",
        s.anthropic,
        s.bearer,
        s.aws,
        s.pem()
    );
    let rel = cassette(&t, &[&said("set up the client")], &answer);

    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_never_printed(&run, &s);
    let secrets = with_id(&doc, "leak/secret");
    let detectors: Vec<&str> = secrets
        .iter()
        .map(|f| f["detector"].as_str().unwrap())
        .collect();
    assert_eq!(
        detectors,
        [
            "anthropic-key",
            "credential-field",
            "aws-access-key",
            "private-key"
        ],
        "{doc:#}"
    );
    for f in &secrets {
        assert_eq!(f["severity"], "error");
        assert_eq!(f["path"], rel.as_str());
        for field in ["line", "column", "message", "match", "pointer"] {
            assert!(!f[field].is_null(), "{field} missing in {f}");
        }
    }
    let anthropic = secrets[0]["match"].as_str().unwrap();
    assert!(
        anthropic.starts_with("sk-ant-") && anthropic.ends_with("(106 chars)"),
        "{anthropic}"
    );
    assert!(
        secrets[1]["match"].as_str().unwrap().starts_with("Bearer "),
        "{}",
        secrets[1]
    );
    assert!(
        secrets[1]["message"]
            .as_str()
            .unwrap()
            .contains("Authorization"),
        "{}",
        secrets[1]
    );

    for format in ["human", "sarif", "github"] {
        let run = t.vcr(&["verify", "--format", format]);
        run.code(1);
        assert_never_printed(&run, &s);
        assert!(
            run.stdout.contains("leak/secret"),
            "{format}: {}",
            run.stdout
        );
    }
}

#[test]
fn secrets_in_key_material_and_credential_fields_are_errors() {
    let s = Secrets::new();
    let t = TestDir::new();
    let tool_use = format!(
        r#"[{{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"fetch","input":{{"x-api-key":"{}"}}}}]"#,
        s.bearer
    );
    cassette(&t, &[&said("call the API"), &tool_use], "done");
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_never_printed(&run, &s);
    let secrets = with_id(&doc, "leak/secret");
    assert_eq!(secrets.len(), 1, "{doc:#}");
    assert_eq!(secrets[0]["pointer"], "/input/1/0/input/x-api-key");
    assert!(
        secrets[0]["message"]
            .as_str()
            .unwrap()
            .contains("`x-api-key`"),
        "{}",
        secrets[0]
    );
}

// ---------------------------------------------------------------------------------------
// What is never a finding

#[test]
fn placeholders_ids_and_hashes_are_never_findings() {
    let x = "X".repeat(40);
    let quiet = [
        "[CWD]/src/app.ts",
        "[CONFIG_HOME]/settings.json",
        "[UUID]",
        "[TIMESTAMP]",
        "[NUM]",
        "{{cwd}}/out",
        "UUID-3",
        "REQUEST_ID",
        "[REDACTED]",
        "<TOKEN>",
        "00000000-0000-0000-0000-000000000000",
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "toolu_01A09q90qw90lq917835lq9",
        "req_011CSHoEeqs5C35K2UUqR7Fy",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "sk-ant-...REDACTED",
        &format!("sk-ant-api03-{x}"),
        "Authorization: Bearer [REDACTED]",
        "x-api-key: <TOKEN>",
        "api_key=${ANTHROPIC_API_KEY}",
        "password: ********",
        "/usr/bin/env node",
        "/etc/hosts",
        "/home/USER/project",
        "2025-03-04",
    ]
    .join("\n");
    let t = TestDir::new();
    // In the key material, where UUIDs, timestamps and paths are errors, and in the payload.
    cassette(&t, &[&said(&quiet)], &quiet);
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert_eq!(findings(&doc), &[] as &[Value], "{doc:#}");
}

// ---------------------------------------------------------------------------------------
// Paths

#[test]
fn machine_paths_are_leaks_and_system_paths_are_not() {
    let t = TestDir::new();
    let answer = [
        "edited /home/alice/project/src/main.rs",
        "and /Users/bob/Library/Caches/x",
        r"and C:\Users\carol\repo\a.txt",
        "and C:/Users/dave/repo",
        "and /root/.ssh/config",
        "and /tmp/build-4711/out.log",
        "but not /usr/bin/env or /etc/hosts",
    ]
    .join("\n");
    let rel = cassette(&t, &[&said("where are the files?")], &answer);
    // The file holds the Windows path JSON-escaped.
    assert!(t.read(&rel).contains(r"C:\\Users\\carol\\repo"));
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let paths: Vec<(&str, &str, &str)> = with_id(&doc, "leak/path")
        .iter()
        .map(|f| {
            (
                f["detector"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["match"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            ("user-home", "error", "/home/a***/project/src/main.rs"),
            ("user-home", "error", "/Users/b***/Library/Caches/x"),
            ("user-home", "error", r"C:\\Users\\c***"),
            ("user-home", "error", "C:/Users/d***/repo"),
            ("root-home", "error", "/root/.ssh/config"),
            // A temporary folder in the payload is a warning.
            ("temp-dir", "warning", "/tmp/build-4711/out.log"),
        ],
        "{doc:#}"
    );
    assert_eq!(
        findings(&doc).len(),
        6,
        "system paths are not leaks: {doc:#}"
    );
    assert!(!run.stdout.contains("alice"), "user names are masked");

    // A temporary folder in the key material is an error.
    let t = TestDir::new();
    cassette(&t, &[&said("read /tmp/build-4711/out.log")], "ok");
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(kinds(&doc), [pair("leak/path", "error")]);
}

#[test]
fn leaks_in_raw_stream_events_say_that_normalize_cannot_fix_them() {
    let t = TestDir::example("claude-code");
    let rel = "fixtures/661cf4.json";
    let text = t.read(rel);
    assert!(text.contains("\"text\": \"I will look at the cart \""));
    t.write(
        rel,
        // The first occurrence is in a `content_block_delta` event.
        text.replacen(
            "I will look at the cart ",
            "I will look at /home/alice/cart ",
            1,
        ),
    );
    let (run, doc) = verify_json(&t, &[rel]);
    run.code(1);
    // Claude Code stores stream events as recorded: not a format problem, not a new name.
    assert_eq!(kinds(&doc), [pair("leak/path", "error")], "{doc:#}");
    let finding = &findings(&doc)[0];
    assert!(
        finding["pointer"]
            .as_str()
            .unwrap()
            .starts_with("/output/2/event/"),
        "{finding}"
    );
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("stores stream events as recorded"),
        "{finding}"
    );
}

/// Issue 11: a tree Claude Code dehydrated correctly still holds its cwd and config home in
/// the raw stream events. With `[claude-code] dehydrate-stream-events = true`, `normalize`
/// applies the payload rules to them and the tree passes; without it, nothing changes and
/// the finding says which setting would help.
#[test]
fn stream_events_get_the_rules_when_the_setting_asks() {
    let t = TestDir::example("claude-code");
    let rel = "fixtures/661cf4.json";
    let text = t.read(rel).replacen(
        "I will look at the cart ",
        "I will look at /home/alice/app/src/cart.ts and /home/alice/.claude/settings.json ",
        1,
    );
    t.write(rel, &text);
    let machine =
        "[claude-code]\ncwd = \"/home/alice/app\"\nconfig-home = \"/home/alice/.claude\"\n";

    // Off (the default): the seed's bytes stay, and the finding names the setting.
    t.write("vcr.toml", machine);
    t.vcr(&["normalize", "--check"]).code(0);
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(
        kinds(&doc),
        [pair("leak/path", "error"), pair("leak/path", "error")],
        "{doc:#}"
    );
    assert!(
        findings(&doc)[0]["message"]
            .as_str()
            .unwrap()
            .contains("dehydrate-stream-events = true"),
        "{doc:#}"
    );
    assert_eq!(t.read(rel), text);

    // On: verify wants the file normalized, normalize rewrites only the stream event, and
    // the tree passes under its old name.
    t.write(
        "vcr.toml",
        format!("{machine}dehydrate-stream-events = true\n"),
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert!(
        kinds(&doc).contains(&pair("format/unnormalized", "error")),
        "{doc:#}"
    );
    t.vcr(&["normalize"]).code(0);
    let normalized = t.read(rel);
    assert_eq!(
        normalized,
        text.replace("/home/alice/app", "[CWD]")
            .replace("/home/alice/.claude", "[CONFIG_HOME]")
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert_eq!(findings(&doc), &[] as &[Value], "{doc:#}");
    t.vcr(&["normalize", "--check"]).code(0);
}

#[test]
fn this_machines_folders_are_leaks() {
    let t = TestDir::new();
    t.write(
        "vcr.toml",
        "[claude-code]\nconfig-home = \"/opt/ci/claude-home\"\n",
    );
    cassette(
        &t,
        &[&said("hello")],
        "see /opt/ci/claude-home/settings.json",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let leaks = with_id(&doc, "leak/path");
    assert_eq!(leaks.len(), 1, "{doc:#}");
    assert!(
        leaks[0]["message"]
            .as_str()
            .unwrap()
            .contains("This machine's Claude config folder"),
        "{}",
        leaks[0]
    );
    // `vcr normalize` would dehydrate it, so the file is not normalized either.
    assert_eq!(with_id(&doc, "format/unnormalized").len(), 1, "{doc:#}");
}

// ---------------------------------------------------------------------------------------
// Names, parse, schema, format

#[test]
fn stale_names_say_that_rehash_fixes_them() {
    let t = TestDir::new();
    let (name, text) = fixture(&[&said("hello")], "hi");
    t.write("fixtures/abcdef.json", &text);
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(kinds(&doc), [pair("name/stale", "error")]);
    let message = findings(&doc)[0]["message"].as_str().unwrap();
    assert!(
        message.contains("vcr rehash") && message.contains(&name),
        "{message}"
    );
    t.vcr(&["rehash"]).code(0);
    t.vcr(&["verify"]).code(0);
}

#[test]
fn two_cassettes_with_one_key_collide() {
    let t = TestDir::new();
    let rel = cassette(&t, &[&said("hello")], "hi");
    let (_, other) = fixture(&[&said("hello")], "hello there");
    t.write("fixtures/123456.json", &other);
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let collisions = with_id(&doc, "name/collision");
    let paths: Vec<&str> = collisions
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["fixtures/123456.json", rel.as_str()]);
    // Each names the other.
    assert!(
        collisions[0]["message"]
            .as_str()
            .unwrap()
            .contains(rel.as_str())
    );
    assert!(
        collisions[1]["message"]
            .as_str()
            .unwrap()
            .contains("fixtures/123456.json")
    );
    assert_eq!(with_id(&doc, "name/stale").len(), 1, "{doc:#}");
}

#[test]
fn parse_and_schema_problems_say_where() {
    let t = TestDir::new();
    t.write(
        "fixtures/aaaaaa.json",
        "{\n  \"input\": [\n    \"x\"\n  ],\n  \"output\": [\n    oops\n  ]\n}",
    );
    t.write(
        "fixtures/bbbbbb.json",
        "{\n  \"input\": \"hello\",\n  \"output\": []\n}",
    );
    t.write(
        "fixtures/cccccc.json",
        "{\n  \"input\": [\n    \"hello\"\n  ],\n  \"output\": {\n    \"type\": \"assistant\"\n  }\n}",
    );
    t.write(
        "fixtures/token-count-0123456789ab.json",
        "{\n  \"tokenCount\": \"many\"\n}",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let by_path = |path: &str| -> Vec<&Value> {
        findings(&doc)
            .iter()
            .filter(|f| f["path"] == format!("fixtures/{path}"))
            .collect()
    };
    let parse = by_path("aaaaaa.json");
    assert_eq!(parse.len(), 1, "{doc:#}");
    assert_eq!(parse[0]["id"], "parse");
    assert_eq!(
        (parse[0]["line"].as_u64(), parse[0]["column"].as_u64()),
        (Some(6), Some(5))
    );

    let schema = by_path("bbbbbb.json");
    assert_eq!(schema.len(), 1, "{doc:#}");
    assert_eq!(schema[0]["id"], "schema");
    assert!(
        schema[0]["message"].as_str().unwrap().contains("input"),
        "{}",
        schema[0]
    );
    assert_eq!(schema[0]["line"], 2);

    let old = by_path("cccccc.json");
    assert_eq!(old[0]["id"], "schema");
    assert!(
        old[0]["message"].as_str().unwrap().contains("re-record"),
        "{}",
        old[0]
    );

    let count = by_path("token-count-0123456789ab.json");
    assert_eq!(count[0]["id"], "schema");
    assert!(
        count[0]["message"].as_str().unwrap().contains("tokenCount"),
        "{}",
        count[0]
    );

    // Human output: file:line:column style grouping with the id.
    t.vcr(&["verify"])
        .code(1)
        .stdout_has("fixtures/aaaaaa.json\n")
        .stdout_has("6:5  error    parse");
}

#[test]
fn unnormalized_files_and_crlf_line_endings() {
    let t = TestDir::new();
    let (name, text) = fixture(&[&said("hello")], "hi");
    // A trailing newline the harness's writer never adds.
    t.write(&format!("fixtures/{name}"), format!("{text}\n"));
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(kinds(&doc), [pair("format/unnormalized", "error")]);
    assert!(
        findings(&doc)[0]["message"]
            .as_str()
            .unwrap()
            .contains("vcr normalize")
    );

    // CRLF everywhere: one finding that says how to fix it, not "unnormalized".
    t.write(&format!("fixtures/{name}"), text.replace('\n', "\r\n"));
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(kinds(&doc), [pair("format/line-endings", "error")]);
    let message = findings(&doc)[0]["message"].as_str().unwrap();
    assert!(
        message.contains(".gitattributes") && message.contains("text eol=lf"),
        "{message}"
    );
    assert_eq!(findings(&doc)[0]["line"], 1);
}

// ---------------------------------------------------------------------------------------
// Formats

#[test]
fn sarif_and_github_annotations_locate_findings() {
    let s = Secrets::new();
    let t = TestDir::new();
    let rel = cassette(
        &t,
        &[&said("hello")],
        &format!("key {}\nid 3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f", s.aws),
    );
    let (_, doc) = verify_json(&t, &[]);
    let secret = with_id(&doc, "leak/secret")[0].clone();
    let (line, column) = (
        secret["line"].as_u64().unwrap(),
        secret["column"].as_u64().unwrap(),
    );

    let run = t.vcr(&["verify", "--format", "sarif"]);
    run.code(1);
    assert_never_printed(&run, &s);
    let log = run.json();
    assert_eq!(log["version"], "2.1.0");
    let run0 = &log["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "vcr");
    let results = run0["results"].as_array().unwrap();
    let levels: Vec<(&str, &str)> = results
        .iter()
        .map(|r| (r["ruleId"].as_str().unwrap(), r["level"].as_str().unwrap()))
        .collect();
    assert_eq!(levels, [("leak/secret", "error"), ("leak/uuid", "warning")]);
    for r in results {
        // The rule index points at the rule of the same id.
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run0["tool"]["driver"]["rules"][index]["id"], r["ruleId"]);
    }
    let location = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], rel.as_str());
    assert_eq!(location["region"]["startLine"], line);
    assert_eq!(location["region"]["startColumn"], column);

    let run = t.vcr(&["verify", "--format", "github"]);
    run.code(1);
    assert_never_printed(&run, &s);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "::error file={rel},line={line},col={column},title=vcr leak/secret::"
        )),
        "{}",
        run.stdout
    );
    assert!(lines[1].starts_with("::warning file="), "{}", run.stdout);
    assert!(lines[1].contains("title=vcr leak/uuid::"), "{}", run.stdout);
}

// ---------------------------------------------------------------------------------------
// Baselines

#[test]
fn a_baseline_accepts_todays_findings_wherever_their_lines_move() {
    let s = Secrets::new();
    let t = TestDir::new();
    t.write("vcr.toml", "[verify]\ntext = [\"cassettes/**/*.yaml\"]\n");
    let yaml = format!(
        "interactions:\n- request:\n    headers:\n      x-api-key:\n      - {}\n    method: GET\n    uri: https://api.example.com/v1\n  response:\n    body:\n      string: saved to /home/alice/out.txt\n    status:\n      code: 200\n",
        s.bearer
    );
    t.write("cassettes/legacy.yaml", &yaml);
    // A legacy JSON fixture: leaky and with a trailing newline.
    let (name, text) = fixture(&[&said("hello")], &format!("the key is {}", s.aws));
    let json_rel = format!("fixtures/{name}");
    t.write(&json_rel, format!("{text}\n"));

    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let today = findings(&doc).len();
    assert_eq!(today, 4, "{doc:#}");

    let write = t.vcr(&["verify", "--write-baseline", "vcr-baseline.json"]);
    write.code(0).stdout_has("wrote 4 findings to");
    let baseline = t.read("vcr-baseline.json");
    assert!(
        !baseline.contains("\"line\""),
        "no line numbers: {baseline}"
    );
    for secret in s.all() {
        assert!(!baseline.contains(secret), "{baseline}");
    }

    let (run, doc) = verify_json(&t, &["--baseline", "vcr-baseline.json"]);
    run.code(0);
    assert_eq!(findings(&doc), &[] as &[Value]);
    assert_eq!(doc["summary"]["accepted"], 4);
    t.vcr(&["verify", "--baseline", "vcr-baseline.json"])
        .code(0)
        .stdout_has("(4 accepted by the allowlist or baseline)");

    // Lines inserted above every finding: still the same findings.
    t.write(
        "cassettes/legacy.yaml",
        format!("# recorded by hand\n---\n{yaml}"),
    );
    t.write(&json_rel, format!("\n\n\n{text}\n"));
    let (run, doc) = verify_json(&t, &["--baseline", "vcr-baseline.json"]);
    run.code(0);
    assert_eq!(findings(&doc), &[] as &[Value], "{doc:#}");

    // Anything new still fails, and only it is reported.
    t.write(
        "cassettes/legacy.yaml",
        format!("# recorded by hand\n---\n{yaml}# {}\n", s.anthropic),
    );
    let (run, doc) = verify_json(&t, &["--baseline", "vcr-baseline.json"]);
    run.code(1);
    assert_never_printed(&run, &s);
    let new: Vec<&str> = findings(&doc)
        .iter()
        .map(|f| f["detector"].as_str().unwrap())
        .collect();
    assert_eq!(new, ["anthropic-key"]);

    // A baseline that is not one cannot be used.
    t.write("broken-baseline.json", "{\"version\": 1}");
    t.vcr(&["verify", "--baseline", "broken-baseline.json"])
        .code(2)
        .stderr_has("invalid baseline");
    t.vcr(&["verify", "--baseline", "nowhere.json"])
        .code(2)
        .stderr_has("cannot read baseline");
}

// ---------------------------------------------------------------------------------------
// Configuration

#[test]
fn allowlists_and_severities_from_vcr_toml() {
    let s = Secrets::new();
    let t = TestDir::new();
    let answer = format!(
        "see /home/alice/x and /home/bob/y at 2025-01-02T03:04:05Z for 3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f with {}",
        s.aws
    );
    let rel = cassette(&t, &[&said("hello")], &answer);
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(findings(&doc).len(), 5, "{doc:#}");

    t.write(
        "vcr.toml",
        format!(
            r#"[verify.severity]
"leak/timestamp" = "error"
"leak/uuid" = "off"

[[verify.allow]]
id = "leak/path"
match = "/home/alice"
reason = "a fixture about alice's machine"

[[verify.allow]]
id = "leak/secret"
detector = "aws-access-key"
paths = ["{rel}"]
"#
        ),
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(
        kinds(&doc),
        [pair("leak/path", "error"), pair("leak/timestamp", "error")],
        "{doc:#}"
    );
    assert_eq!(with_id(&doc, "leak/path")[0]["match"], "/home/b***/y");
    assert_eq!(doc["summary"]["accepted"], 2);

    // An allowlist entry for other files accepts nothing here; a family and a regex do.
    t.write(
        "vcr.toml",
        r#"[verify.severity]
"leak/path" = "warning"

[[verify.allow]]
id = "leak/secret"
paths = ["elsewhere/**"]

[[verify.allow]]
id = "leak/*"
regex = "^\\d{4}-\\d{2}"
"#,
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(
        kinds(&doc),
        [
            pair("leak/path", "warning"),
            pair("leak/path", "warning"),
            pair("leak/uuid", "warning"),
            pair("leak/secret", "error"),
        ],
        "{doc:#}"
    );
    assert_eq!(doc["summary"]["accepted"], 1);

    // Any finding id can be turned down, not only leaks.
    t.write("fixtures/abcdef.json", t.read(&rel));
    t.write(
        "vcr.toml",
        "[verify.severity]\n\"leak/secret\" = \"off\"\n\"leak/path\" = \"off\"\n\"name/stale\" = \"warning\"\n\"name/collision\" = \"off\"\n",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    let stale: Vec<&str> = with_id(&doc, "name/stale")
        .iter()
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert_eq!(stale, ["warning"], "{doc:#}");
    assert!(with_id(&doc, "name/collision").is_empty());
}

/// Issue 11: `[[verify.allow]] detector` is checked like `id`: a name vcr does not have, or a
/// detector that cannot produce the entry's id, would accept nothing without a word.
#[test]
fn an_allowlist_detector_must_exist_and_find_the_entrys_id() {
    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "see /home/alice/x");
    for (id, detector, error) in [
        (
            "leak/path",
            "nope",
            Some("names an unknown detector `nope`"),
        ),
        (
            "leak/path",
            "user-homes",
            Some("unknown detector `user-homes`"),
        ),
        (
            "leak/secret",
            "user-home",
            Some("detector `user-home` finds `leak/path`, not `leak/secret`"),
        ),
        (
            "name/stale",
            "uuid",
            Some("finds `leak/uuid`, not `name/stale`"),
        ),
        ("leak/path", "user-home", None),
        ("leak/*", "user-home", None),
        ("leak/path", "machine-path", None),
    ] {
        t.write(
            "vcr.toml",
            format!(
                "[[verify.allow]]\nid = \"leak/uuid\"\n\n[[verify.allow]]\nid = \"{id}\"\ndetector = \"{detector}\"\n"
            ),
        );
        let run = t.vcr(&["verify"]);
        match error {
            Some(error) => {
                run.code(2)
                    .stderr_has("`verify.allow[1]`")
                    .stderr_has(error);
            }
            None => {
                assert_eq!(
                    run.code,
                    Some(if detector == "user-home" { 0 } else { 1 }),
                    "{id} {detector}: {run:?}"
                );
            }
        }
    }
}

/// Issue 11: `-v` shows which detector found each leak, the name an allowlist takes.
#[test]
fn verbose_findings_name_their_detector() {
    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "see /home/alice/x");
    let quiet = t.vcr(&["verify"]);
    quiet.code(1).stdout_has("leak/path");
    assert!(!quiet.stdout.contains("[user-home]"), "{}", quiet.stdout);
    t.vcr(&["verify", "-v"]).code(1).stdout_has("[user-home]");
}

/// Issue 11: `--list-detectors` lists every detector a finding can name, with its finding
/// id, in text and JSON, without needing a working project; every name it lists is one an
/// allowlist accepts.
#[test]
fn list_detectors_names_every_detector_an_allowlist_takes() {
    let t = TestDir::new();
    t.write("vcr.toml", "this is not toml");
    let human = t.vcr(&["verify", "--list-detectors"]);
    human
        .code(0)
        .stdout_has("user-home")
        .stdout_has("leak/path");
    let doc = t
        .vcr(&["verify", "--list-detectors", "--format", "json"])
        .code(0)
        .json();
    assert_eq!(doc["version"], 1);
    let listed: Vec<(String, String)> = doc["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert!(!d["description"].as_str().unwrap().is_empty(), "{d}");
            (
                d["name"].as_str().unwrap().to_owned(),
                d["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // Every detector the committed vectors exercise is listed, and this machine's paths.
    let vectors = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/detectors.jsonl"),
    )
    .unwrap();
    for line in vectors.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["detector"].as_str().unwrap();
        assert!(
            listed.iter().any(|(n, _)| n == name),
            "{name} is not listed"
        );
    }
    assert!(listed.contains(&("machine-path".to_owned(), "leak/path".to_owned())));
    for (line, (name, _)) in human.stdout.lines().skip(1).zip(&listed) {
        assert!(line.starts_with(name.as_str()), "{line}");
    }

    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "hi");
    for (name, id) in &listed {
        t.write(
            "vcr.toml",
            format!("[[verify.allow]]\nid = \"{id}\"\ndetector = \"{name}\"\n"),
        );
        t.vcr(&["verify"]).code(0);
    }
}

#[test]
fn bad_verify_settings_stop_the_run() {
    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "hi");
    let cases = [
        (
            "[verify.severity]\n\"leak/bogus\" = \"error\"\n",
            "`verify.severity` names an unknown finding id `leak/bogus`",
        ),
        (
            "[[verify.allow]]\nid = \"secret\"\n",
            "`verify.allow[0]` names an unknown finding id `secret`",
        ),
        (
            "[[verify.allow]]\nid = \"nope/*\"\n",
            "`verify.allow[0]` names an unknown finding id `nope/*`",
        ),
        (
            "[verify.severity]\n\"leak/uuid\" = \"fatal\"\n",
            "unknown variant `fatal`",
        ),
        ("[verify]\ntexts = []\n", "unknown field `texts`"),
        (
            "[verify]\ntext = [\"a/{b\"]\n",
            "`verify.text`: invalid glob `a/{b`",
        ),
        (
            "[[verify.allow]]\nid = \"leak/path\"\nregex = \"(\"\n",
            "`verify.allow[0].regex` is invalid",
        ),
    ];
    for (config, message) in cases {
        t.write("vcr.toml", config);
        let run = t.vcr(&["verify"]);
        run.code(2).stderr_has(message);
        assert!(
            run.stderr.contains("vcr.toml"),
            "names the file: {}",
            run.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------
// Staged files, in a real git repository

#[test]
fn staged_checks_the_index_not_the_working_file() {
    let s = Secrets::new();
    let t = TestDir::new();
    git(&t.root, &["init", "-q"]);
    // Nothing staged: nothing to check.
    vcr_in_repo(&t, "", &["verify", "--staged"])
        .code(0)
        .stdout_has("nothing staged to check");

    let (name, clean) = fixture(&[&said("hello")], "hi");
    let (leaky_name, leaky) = fixture(&[&said("hello")], &format!("use {}", s.anthropic));
    assert_eq!(name, leaky_name, "the leak is in the payload: same key");
    let rel = format!("fixtures/{name}");

    // Staged leaky, working copy fixed: the commit would still leak.
    t.write(&rel, &leaky);
    t.write("README.md", "not a cassette\n");
    git(&t.root, &["add", "."]);
    t.write(&rel, &clean);
    let run = vcr_in_repo(&t, "", &["verify", "--staged", "--format", "json"]);
    run.code(1);
    assert_never_printed(&run, &s);
    let doc = run.json();
    assert_eq!(kinds(&doc), [pair("leak/secret", "error")]);
    assert_eq!(findings(&doc)[0]["path"], rel.as_str());
    assert_eq!(doc["summary"]["files"], 2, "README.md is linted as text");
    assert_eq!(doc["summary"]["as_text"], 1, "{doc}");
    vcr_in_repo(&t, "", &["verify"]).code(0);

    // Staged clean, working copy leaky: the commit is clean.
    git(&t.root, &["add", &rel]);
    t.write(&rel, &leaky);
    vcr_in_repo(&t, "", &["verify", "--staged"])
        .code(0)
        .stdout_has("checked 2 files: 0 errors");
    vcr_in_repo(&t, "", &["verify"]).code(1);
}

#[test]
fn staged_in_a_monorepo_checks_only_this_projects_cassettes() {
    let s = Secrets::new();
    let t = TestDir::new();
    git(&t.root, &["init", "-q"]);
    t.write("packages/agent/vcr.toml", "");
    let (name, leaky) = fixture(&[&said("hello")], &format!("use {}", s.aws));
    t.write(&format!("packages/agent/fixtures/{name}"), &leaky);
    // Staged elsewhere in the repository: another package's files.
    t.write("README.md", "the monorepo\n");
    t.write("packages/web/fixtures/000000.json", "{ not json");
    git(&t.root, &["add", "."]);

    // Regression: files staged outside the project were errors ("outside the project root",
    // exit 2), so the hook failed on every commit that touched another package.
    let run = vcr_in_repo(
        &t,
        "packages/agent/fixtures",
        &["verify", "--staged", "--format", "json"],
    );
    run.code(1);
    assert_never_printed(&run, &s);
    let doc = run.json();
    // The cassette, and the project's `vcr.toml` (staged, so judged, as text).
    assert_eq!(doc["summary"]["files"], 2, "{doc:#}");
    assert_eq!(doc["summary"]["as_text"], 1, "{doc:#}");
    assert_eq!(kinds(&doc), [pair("leak/secret", "error")]);
    // Named from the project root (where vcr.toml is), not the repository's.
    assert_eq!(findings(&doc)[0]["path"], format!("fixtures/{name}"));
}

#[test]
fn staged_outside_a_repository_cannot_run() {
    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "hi");
    let run = vcr_in_repo(&t, "", &["verify", "--staged"]);
    run.code(2).stderr_has("cannot read the staged files");
}

#[test]
fn staged_follows_renames_and_leaves_submodules_out() {
    let s = Secrets::new();
    let t = TestDir::new();
    git(&t.root, &["init", "-q"]);
    let (name, leaky) = fixture(&[&said("hello")], &format!("use {}", s.anthropic));
    t.write(&format!("old/fixtures/{name}"), &leaky);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "one"]);
    // A rename staged (git reports it as R100 with both paths): the new path is checked.
    git(&t.root, &["mv", "old", "new"]);
    // A submodule staged beside it (a repository committed inside this one: a gitlink, a
    // commit of another repository and no file). Regression: its id was asked of
    // `git cat-file`, which has no such object here, and the run failed.
    t.write("sub/README.md", "another repository\n");
    git(&t.root.join("sub"), &["init", "-q"]);
    git(&t.root.join("sub"), &["add", "."]);
    git(&t.root.join("sub"), &["commit", "-qm", "sub"]);
    git(&t.root, &["add", "sub"]);
    let run = vcr_in_repo(&t, "", &["verify", "--staged", "--format", "json"]);
    run.code(1);
    assert_never_printed(&run, &s);
    let doc = run.json();
    assert_eq!(kinds(&doc), [pair("leak/secret", "error")], "{doc:#}");
    assert_eq!(findings(&doc)[0]["path"], format!("new/fixtures/{name}"));
    assert_eq!(doc["summary"]["files"], 1, "{doc:#}");
}

#[test]
fn staged_in_a_pre_commit_hook_checks_what_the_commit_holds() {
    let s = Secrets::new();
    let t = TestDir::new();
    git(&t.root, &["init", "-q"]);
    let (name, clean) = fixture(&[&said("hello")], "hi");
    let (other, _) = fixture(&[&said("goodbye")], "bye");
    let (_, leaky) = fixture(&[&said("goodbye")], &format!("use {}", s.anthropic));
    t.write(&format!("fixtures/{name}"), &clean);
    t.write(&format!("fixtures/{other}"), &clean);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-qm", "one"]);
    let hook = t.root.join(".git/hooks/pre-commit");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nexec '{}' verify --staged\n",
            env!("CARGO_BIN_EXE_vcr")
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();
    let commit = |args: &[&str]| {
        let mut cmd = std::process::Command::new("git");
        isolate_git(&mut cmd);
        cmd.arg("-C")
            .arg(&t.root)
            .args([
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@example.com",
                "commit",
            ])
            .args(args)
            .output()
            .unwrap()
    };
    // The leaky fixture staged, then fixed in the working tree only: git runs the hook with
    // the index it is about to commit, and the hook blocks it.
    t.write(&format!("fixtures/{other}"), &leaky);
    git(&t.root, &["add", "."]);
    t.write(&format!("fixtures/{other}"), &clean);
    let out = commit(&["-qm", "leak"]);
    assert!(!out.status.success(), "the hook blocks the commit");
    let printed =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(printed.contains("leak/secret"), "{printed}");
    assert!(!printed.contains(&s.anthropic), "{printed}");
    // A commit of one path (`git commit PATH`: git builds a temporary index of HEAD plus
    // that path, named by GIT_INDEX_FILE) holds only the clean file: it goes through, though
    // the real index still holds the leak.
    let (_, edited) = fixture(&[&said("hello")], "hello there");
    t.write(&format!("fixtures/{name}"), &edited);
    let out = commit(&["-qm", "one path", &format!("fixtures/{name}")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------------------
// Text cassettes

#[test]
fn text_cassettes_selected_by_globs_are_linted_for_leaks() {
    let s = Secrets::new();
    let t = TestDir::new();
    t.write(
        "vcr.toml",
        "[verify]\ntext = [\"tests/cassettes/**/*.yaml\"]\n",
    );
    // A vcrpy cassette as pytest-recording writes it.
    let vcrpy = format!(
        r#"interactions:
- request:
    body: '{{"model": "claude-sonnet-4-5", "max_tokens": 1024}}'
    headers:
      anthropic-version:
      - '2023-06-01'
      authorization:
      - Bearer {bearer}
      x-api-key:
      - {key}
    method: POST
    uri: https://api.anthropic.com/v1/messages
  response:
    body:
      string: '{{"content": [{{"type": "text", "text": "saved to /home/alice/out.txt"}}]}}'
    headers:
      date:
      - Tue, 04 Mar 2025 05:06:07 GMT
      request-id:
      - req_011CSHoEeqs5C35K2UUqR7Fy
    status:
      code: 200
      message: OK
version: 1
"#,
        bearer = s.bearer,
        key = s.anthropic
    );
    t.write("tests/cassettes/test_client/test_messages.yaml", &vcrpy);
    // Redacted as vcrpy's filter_headers leaves it: nothing to report.
    t.write(
        "tests/cassettes/test_client/test_redacted.yaml",
        "interactions:\n- request:\n    headers:\n      authorization:\n      - DUMMY\n      x-api-key:\n      - '[REDACTED]'\n    method: GET\n    uri: https://api.anthropic.com/v1/models\n  response:\n    status:\n      code: 200\n",
    );
    // A Windows home folder written raw (single backslashes), as YAML keeps it.
    t.write(
        "tests/cassettes/test_client/test_windows.yaml",
        "cwd: C:\\Users\\erin\\proj\n",
    );
    // Not selected by the globs: never read.
    t.write(
        "tests/cassettes/notes.txt",
        format!("key {}\n", s.anthropic),
    );
    t.write("other/leak.yaml", format!("key: {}\n", s.anthropic));

    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_never_printed(&run, &s);
    assert_eq!(doc["summary"]["files"], 3);
    let seen: Vec<(&str, &str, u64, &str)> = findings(&doc)
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["detector"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
                f["match"].as_str().unwrap(),
            )
        })
        .collect();
    let path = "tests/cassettes/test_client/test_messages.yaml";
    let windows = "tests/cassettes/test_client/test_windows.yaml";
    let bearer = format!("Bearer {}…(40 chars)", &s.bearer[..8]);
    assert_eq!(
        seen,
        [
            (path, "credential-header", 8, bearer.as_str()),
            // A key under a credential header is reported as that header's value.
            (path, "credential-header", 10, "sk-ant-a…(106 chars)"),
            (path, "user-home", 15, "/home/a***/out.txt"),
            (windows, "user-home", 1, r"C:\Users\e***"),
        ],
        "{doc:#}"
    );
    // The vcrpy cassette among them is read by structure (issue 9): its findings have a
    // readable path, and the home folder only its response holds is a warning; the file of
    // no known format is linted as text, with no pointer and no parse finding.
    for f in findings(&doc) {
        assert_eq!(f["pointer"].is_null(), f["path"] == windows, "{f:#}");
    }
    let home = findings(&doc)
        .iter()
        .find(|f| f["path"] == path && f["detector"] == "user-home")
        .unwrap();
    assert_eq!(home["severity"], "warning");
    assert!(
        home["pointer"]
            .as_str()
            .unwrap()
            .starts_with("interactions[0].response.body.string")
    );

    // Named, or under a named folder, they are read too; a named file the globs do not
    // select is linted as text all the same (issue 39).
    let (run, doc) = verify_json(&t, &[path, "other/leak.yaml"]);
    run.code(1);
    assert_never_printed(&run, &s);
    assert_eq!(doc["summary"]["files"], 2);
    assert_eq!(doc["summary"]["as_text"], 1);
    assert_eq!(findings(&doc).len(), 4);
    assert!(
        findings(&doc)
            .iter()
            .any(|f| f["path"] == "other/leak.yaml")
    );
    let (run, doc) = verify_json(&t, &["tests"]);
    run.code(1);
    assert_eq!(doc["summary"]["files"], 3);
}

// ---------------------------------------------------------------------------------------
// Usage logs

#[test]
fn usage_logs_report_missing_and_orphaned_cassettes() {
    let t = TestDir::new();
    let a = cassette(&t, &[&said("a")], "A");
    let b = cassette(&t, &[&said("b")], "B");
    let c = cassette(&t, &[&said("c")], "C");
    let root = t.root.display().to_string();
    // A plain path, an absolute path, JSON hits and misses, a miss later written.
    t.write(
        "usage.log",
        format!(
            "{a}\n{root}/{b}\n{{\"path\": \"fixtures/ffffff.json\", \"event\": \"miss\"}}\n{{\"path\": \"fixtures/eeeeee.json\", \"event\": \"miss\"}}\n{{\"path\": \"fixtures/eeeeee.json\", \"event\": \"write\"}}\n"
        ),
    );
    let (run, doc) = verify_json(&t, &["--usage-log", "usage.log"]);
    run.code(1);
    let seen: Vec<(&str, &str, &str)> = findings(&doc)
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("orphan", "warning", c.as_str()),
            ("missing", "error", "fixtures/ffffff.json"),
        ],
        "{doc:#}"
    );

    // Orphans alone are warnings: the run passes.
    t.write(
        "usage.log",
        format!("{{\"path\": \"{a}\", \"event\": \"hit\"}}\n"),
    );
    let (run, doc) = verify_json(&t, &["--usage-log", "usage.log"]);
    run.code(0);
    let orphans: Vec<&str> = with_id(&doc, "orphan")
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(orphans, [b.as_str(), c.as_str()]);

    // Several logs combine.
    t.write("usage2.log", format!("{b}\n{c}\n"));
    let (run, doc) = verify_json(
        &t,
        &["--usage-log", "usage.log", "--usage-log", "usage2.log"],
    );
    run.code(0);
    assert_eq!(findings(&doc), &[] as &[Value]);

    // A log that cannot be read, or a cut line, stops the run.
    t.vcr(&["verify", "--usage-log", "nowhere.log"])
        .code(2)
        .stderr_has("cannot read usage log");
    t.write("cut.log", "{\"path\": \"fixtures/a");
    t.vcr(&["verify", "--usage-log", "cut.log"])
        .code(2)
        .stderr_has("cut.log:1: not a usage record");
}

// ---------------------------------------------------------------------------------------
// Selection and exit codes

#[test]
fn named_files_are_the_only_ones_read() {
    let t = TestDir::new();
    let good = cassette(&t, &[&said("hello")], "hi");
    t.write("fixtures/000000.json", "{ not json");
    t.vcr(&["verify"]).code(1);

    let (run, doc) = verify_json(&t, &[&good]);
    run.code(0);
    assert_eq!(doc["summary"]["files"], 1);
    assert_eq!(findings(&doc), &[] as &[Value]);

    let (run, doc) = verify_json(&t, &["fixtures/000000.json"]);
    run.code(1);
    assert_eq!(kinds(&doc), [pair("parse", "error")]);

    // From inside the fixtures folder, as a hook run there would pass them.
    let name = good.strip_prefix("fixtures/").unwrap();
    let run = t.vcr_in("fixtures", &["verify", name]);
    run.code(0).stdout_has("checked 1 file");
}

#[test]
fn it_exits_2_when_it_cannot_run() {
    let t = TestDir::new();
    cassette(&t, &[&said("hello")], "hi");
    t.vcr(&["verify", "fixtures/nope.json"])
        .code(2)
        .stderr_has("fixtures/nope.json: no such file or folder");
    // Findings do not hide it: still 2.
    t.write("fixtures/000000.json", "{ not json");
    t.vcr(&["verify", "fixtures/000000.json", "fixtures/nope.json"])
        .code(2);
    t.write("vcr.toml", "[verify\n");
    t.vcr(&["verify"]).code(2).stderr_has("invalid config file");
    t.vcr(&["--config", "missing.toml", "verify"])
        .code(2)
        .stderr_has("cannot read config file");
    t.vcr(&["verify", "--format", "xml"]).code(2);
}

/// Credential fields in bodies and secrets in comment lines are found as the searches issue
/// 12 replaced found them (testing hook `VCR_TEST_BYTE_SEARCH=1`): field names in any case,
/// across the 64 KB windows of a large body, and a credential no detector knows by shape, so
/// that only the field name makes the body worth reading.
#[test]
fn credential_fields_and_comments_are_found_as_the_bytewise_search_found_them() {
    let s = Secrets::new();
    let t = TestDir::new();
    t.write("vcr.toml", "[verify]\ntext = [\"cassettes/**/*.yaml\"]\n");
    let filler = "lorem ipsum dolor sit amet ".repeat(2_430);
    for (i, name) in ["bot_token", "Session_Token", "ACCESSTOKEN"]
        .iter()
        .enumerate()
    {
        let body = format!(
            r#"{{"notes": "{}", "{name}": "Zq8Vw3Lm{i}Tk6Ry1Hp"}}"#,
            &filler[..filler.len() - 40 * i]
        );
        let yaml = format!(
            "# the old key: {}\ninteractions:\n- request:\n    body: '{body}'\n    headers:\n      Content-Type:\n      - application/json\n    method: POST\n    uri: https://api.example.com/v1/login\n  response:\n    body:\n      string: ok\n    status:\n      code: 200\n",
            s.anthropic
        );
        t.write(&format!("cassettes/login_{i}.yaml"), &yaml);
    }
    let args = ["verify", "--format", "json"];
    let new = t.vcr(&args);
    let old = t.vcr_with(&args, &[("VCR_TEST_BYTE_SEARCH", "1")]);
    assert_eq!((&old.code, &old.stdout), (&new.code, &new.stdout));
    let doc = new.json();
    let fields = findings(&doc)
        .iter()
        .filter(|f| f["id"] == "leak/secret" && f["detector"] == "credential-field")
        .count();
    let comments = findings(&doc)
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("in a comment"))
        .count();
    assert_eq!((fields, comments), (3, 3), "{doc:#}");
}

// ---------------------------------------------------------------------------------------
// Real data

#[test]
fn the_corpus_verifies_without_crashing_and_finds_the_known_leaks() {
    let Some(corpus) = common::corpus("") else {
        return;
    };
    let config = TestDir::new();
    config.write(
        "vcr.toml",
        "[verify]\ntext = [\"**/*.yaml\", \"**/*.yml\", \"**/*.har\", \"**/*.httprr\", \"**/*.json\", \"**/*.jsonl\"]\n",
    );
    let config_path = config.path("vcr.toml");
    let args = [
        "--config",
        config_path.to_str().unwrap(),
        "verify",
        "--format",
        "json",
    ];
    let run = Run::from(vcr_command(&corpus, &args, &[]).output().unwrap());
    assert!(
        matches!(run.code, Some(0 | 1)),
        "exit {:?}: {}",
        run.code,
        run.stderr
    );
    // The searches issue 12 replaced, and every YAML document read through saphyr's events
    // as before issue 12 (testing hooks), find the same, byte for byte.
    for hook in ["VCR_TEST_BYTE_SEARCH", "VCR_TEST_YAML_EVENTS"] {
        let old = Run::from(
            vcr_command(&corpus, &args, &[(hook, "1")])
                .output()
                .unwrap(),
        );
        assert_eq!((old.code, &old.stderr), (run.code, &run.stderr));
        assert!(
            old.stdout == run.stdout,
            "the findings differ with {hook}=1"
        );
    }
    let doc = run.json();
    assert!(
        doc["summary"]["files"].as_u64().unwrap() > 1000,
        "{}",
        doc["summary"]
    );
    let any = |id: &str, path_has: &str, detector: &str, severity: &str| {
        findings(&doc).iter().any(|f| {
            f["id"] == id
                && f["path"].as_str().unwrap().contains(path_has)
                && f["detector"] == detector
                && f["severity"] == severity
        })
    };
    // The 64-character token in the Scaleway cassette, as a header and as a field.
    let scaleway = "scaleway__scaleway-cli/internal/namespaces/container/v1/testdata/test-container-logs-max-entries.cassette.yaml";
    let tokens: Vec<&Value> = findings(&doc)
        .iter()
        .filter(|f| f["path"] == scaleway && f["id"] == "leak/secret")
        .collect();
    assert!(
        tokens
            .iter()
            .any(|f| f["match"].as_str().unwrap().ends_with("(64 chars)")
                && f["message"].as_str().unwrap().contains("X-Token")),
        "{tokens:#?}"
    );
    // ... and never printed whole.
    let text = std::fs::read_to_string(corpus.join(scaleway)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.trim() == "X-Token:").unwrap();
    let token = lines[header + 1].trim().trim_start_matches("- ");
    assert_eq!(token.len(), 64);
    assert!(!run.stdout.contains(token), "the token was printed whole");

    // The home folders and the email in the spotter transcripts.
    assert!(any("leak/path", "marot__spotter/", "user-home", "error"));
    assert!(any(
        "leak/email",
        "marot__spotter/test/fixtures/transcripts/subagent.jsonl",
        "email",
        "warning"
    ));
    // A private key block in a Scaleway IoT cassette.
    assert!(any(
        "leak/secret",
        "scaleway__scaleway-cli/",
        "private-key",
        "error"
    ));
}

/// Issue 11: a fixture whose recorded answer is an API error (here a rate limit) passed
/// unnoticed. It is a `recorded/error` warning in `verify`, placed at the output item and
/// naming the kind of error; `[verify.severity]` can make it an error.
#[test]
fn a_recorded_api_error_is_a_warning_naming_its_kind() {
    let t = TestDir::new();
    let (name, text) = api_error_fixture(
        &[&said("summarize the log")],
        "API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit",
    );
    t.write(&format!("fixtures/{name}"), text);
    cassette(&t, &[&said("hello")], "Hi there.");
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert_eq!(kinds(&doc), [pair("recorded/error", "warning")], "{doc:#}");
    let finding = with_id(&doc, "recorded/error")[0];
    assert_eq!(finding["path"], format!("fixtures/{name}"));
    assert_eq!(finding["pointer"], "/output/0");
    assert_eq!(finding["line"], 7, "{finding}"); // the item's first key
    assert_eq!(
        finding["message"],
        "`/output/0` is a recorded API error, not an answer: rate limit (Claude Code's API error \
         message, \"API Error: Request rejected (429)\"); record it again once the rate limit \
         has passed"
    );
    t.write(
        "vcr.toml",
        "[verify.severity]\n\"recorded/error\" = \"error\"\n",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(kinds(&doc), [pair("recorded/error", "error")]);
}

// ---------------------------------------------------------------------------------------
// Expiry of HTTP cassettes (issue 9)

/// A Ruby VCR cassette recorded at `recorded_at` (an HTTP date, as Ruby VCR writes it).
fn ruby_cassette(recorded_at: &str) -> String {
    format!(
        "---\nhttp_interactions:\n- request:\n    method: get\n    uri: https://api.example.org/v1/models\n    body:\n      encoding: UTF-8\n      string: ''\n    headers:\n      Accept:\n      - \"*/*\"\n  response:\n    status:\n      code: 200\n      message: OK\n    headers:\n      Content-Type:\n      - application/json\n    body:\n      encoding: UTF-8\n      string: '{{\"data\": []}}'\n  recorded_at: {recorded_at}\nrecorded_with: VCR 6.2.0\n"
    )
}

#[test]
fn http_cassettes_older_than_max_age_are_expired() {
    let t = TestDir::new();
    t.write(
        "spec/cassettes/old.yml",
        ruby_cassette("Mon, 04 Mar 2024 05:06:07 GMT"),
    );
    let now = std::time::SystemTime::now();
    let recent = now - std::time::Duration::from_secs(3 * 86_400);
    t.write("spec/cassettes/new.yml", ruby_cassette(&http_date(recent)));

    // No limit: no expiry findings.
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert!(with_id(&doc, "expired").is_empty(), "{doc:#}");

    // With one, the old cassette is a warning that names its date; the new one is not.
    let (run, doc) = verify_json(&t, &["--max-age", "90d"]);
    run.code(0);
    let expired = with_id(&doc, "expired");
    assert_eq!(expired.len(), 1, "{doc:#}");
    assert_eq!(expired[0]["path"], "spec/cassettes/old.yml");
    assert_eq!(expired[0]["severity"], "warning");
    let message = expired[0]["message"].as_str().unwrap();
    assert!(message.contains("recorded on 2024-03-04"), "{message}");
    assert!(message.contains("maximum age of 90 days"), "{message}");

    // From the configuration too, and its severity can be raised.
    t.write(
        "vcr.toml",
        "[verify]\nmax-age = \"1w\"\n\n[verify.severity]\nexpired = \"error\"\n",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    assert_eq!(with_id(&doc, "expired").len(), 1, "{doc:#}");
    // The command line wins over the configuration.
    let (run, doc) = verify_json(&t, &["--max-age", "1d"]);
    run.code(1);
    assert_eq!(with_id(&doc, "expired").len(), 2, "{doc:#}");

    // An age that is not one is a usage error, from either place.
    t.vcr(&["verify", "--max-age", "soon"])
        .code(2)
        .stderr_has("--max-age: `soon` is not an age");
    t.write("vcr.toml", "[verify]\nmax-age = \"0d\"\n");
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("`verify.max-age`: `0d`: the age must be more than zero");
}

/// An HTTP date (`Mon, 04 Mar 2024 05:06:07 GMT`), computed with `date` so the test does not
/// use the code it checks.
fn http_date(at: std::time::SystemTime) -> String {
    let seconds = at.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let out = std::process::Command::new("date")
        .args([
            "-u",
            "-d",
            &format!("@{seconds}"),
            "+%a, %d %b %Y %H:%M:%S GMT",
        ])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A compressed cassette that inflates past any real one is not inflated in full: `vcr` reads
/// at most 64 MiB of it, instead of exhausting memory (issue 9), and holds those 64 MiB
/// once, whatever its trailer says (issue 12). It is a `parse` error, never a pass (issue 25).
#[test]
fn a_gzip_bomb_among_http_cassettes_is_not_inflated() {
    let t = TestDir::new();
    let bomb = t.path("tests/cassettes/bomb.yaml.gz");
    std::fs::create_dir_all(bomb.parent().unwrap()).unwrap();
    // 300 MiB of YAML that looks like a vcrpy cassette, compressed by Python's zlib a MiB at
    // a time (so that Python itself stays small).
    let made = std::process::Command::new("python3")
        .args([
            "-c",
            "import gzip,sys\nwith gzip.open(sys.argv[1], 'wb', 1) as f:\n    f.write(b'interactions:\\n')\n    for _ in range(300): f.write(b' ' * (1 << 20))",
        ])
        .arg(&bomb)
        .status()
        .expect("python3 runs");
    assert!(made.success());
    assert!(std::fs::metadata(&bomb).unwrap().len() < 2 << 20);
    // The same bomb with a trailer that says it inflates to nothing: the size read first is
    // then wrong, and no part of what is read may be copied into a larger one (issue 12).
    let mut liar = std::fs::read(&bomb).unwrap();
    let at = liar.len() - 4;
    liar[at..].copy_from_slice(&[0; 4]);
    std::fs::write(t.path("tests/cassettes/liar.yaml.gz"), liar).unwrap();
    let (code, stdout, peak) = t.vcr_measured(&["verify", "--format", "json"], &[]);
    assert_eq!(code, 1, "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["summary"]["files"], 2, "{doc:#}");
    let found = findings(&doc);
    assert_eq!(found.len(), 2, "{doc:#}");
    for f in found {
        assert_eq!(f["id"], "parse");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("inflates past 64 MiB"),
            "{f}"
        );
    }
    // The run stayed well below the 300 MiB the bomb would take inflated.
    assert!(peak < 200 << 20, "peak {} KiB", peak >> 10);
}

/// A cassette that records no time (vcrpy writes none, and this response has no `Date`) is
/// as old as the last commit that touched it (issue 9).
#[test]
fn a_cassette_without_a_recorded_time_is_as_old_as_its_last_commit() {
    let t = TestDir::new();
    let vcrpy = "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://api.example.org/v1/models\n  response:\n    body:\n      string: '{}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n";
    t.write("tests/cassettes/test_models.yaml", vcrpy);
    // Not committed: no time to judge by, no finding.
    let (run, doc) = verify_json(&t, &["--max-age", "30d"]);
    run.code(0);
    assert!(with_id(&doc, "expired").is_empty(), "{doc:#}");

    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    let mut commit = std::process::Command::new("git");
    isolate_git(&mut commit);
    let commit = commit
        .current_dir(&t.root)
        .args([
            "-c",
            "user.name=Tester",
            "-c",
            "user.email=tester@example.com",
            "commit",
            "-q",
            "-m",
            "recorded",
        ])
        .env("GIT_COMMITTER_DATE", "2023-01-02T03:04:05Z")
        .env("GIT_AUTHOR_DATE", "2023-01-02T03:04:05Z")
        .status()
        .unwrap();
    assert!(commit.success());
    let (run, doc) = verify_json(&t, &["--max-age", "30d"]);
    run.code(0);
    let expired = with_id(&doc, "expired");
    assert_eq!(expired.len(), 1, "{doc:#}");
    let message = expired[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("last committed on 2023-01-02"),
        "{message}"
    );
}

/// `[http] cassettes` with `match-on`: what the recorder matches requests by is where a UUID
/// breaks replay (issue 9). The first entry that selects a cassette decides.
#[test]
fn match_on_decides_where_uuids_count() {
    let t = TestDir::new();
    let uuid = "3f2b8c1e-9d4a-4e7b-a6c5-0f1e2d3c4b5a";
    let cassette = format!(
        "interactions:\n- request:\n    body: '{{\"idempotency_key\": \"{uuid}\"}}'\n    headers:\n      Content-Type:\n      - application/json\n    method: POST\n    uri: https://api.example.org/v1/jobs\n  response:\n    body:\n      string: '{{\"ok\": true}}'\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    t.write("spec/cassettes/jobs.yaml", &cassette);
    t.write("other/cassettes/jobs.yaml", &cassette);
    // vcrpy's default match-on leaves the body out: nothing to report.
    let (run, doc) = verify_json(&t, &[]);
    run.code(0);
    assert!(with_id(&doc, "leak/uuid").is_empty(), "{doc:#}");

    t.write(
        "vcr.toml",
        "[http]\ncassettes = [\n  { glob = \"spec/**\", match-on = [\"method\", \"uri\", \"body\"] },\n  \"other/**\",\n]\n",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let uuids = with_id(&doc, "leak/uuid");
    assert_eq!(uuids.len(), 1, "{doc:#}");
    assert_eq!(uuids[0]["path"], "spec/cassettes/jobs.yaml");
    assert_eq!(uuids[0]["severity"], "error");
    assert!(
        uuids[0]["pointer"]
            .as_str()
            .unwrap()
            .ends_with("request.body (json) /idempotency_key"),
        "{doc:#}"
    );

    // An entry before it that selects a file and says nothing: the recorder's defaults there.
    t.write("spec/more/jobs.yaml", &cassette);
    t.write(
        "vcr.toml",
        "[http]\ncassettes = [\n  \"spec/cassettes/**\",\n  { glob = \"spec/**\", match-on = [\"body\"] },\n]\n",
    );
    let (run, doc) = verify_json(&t, &[]);
    run.code(1);
    let uuids = with_id(&doc, "leak/uuid");
    assert_eq!(uuids.len(), 1, "{doc:#}");
    assert_eq!(uuids[0]["path"], "spec/more/jobs.yaml");

    // What cannot name a matcher, and globs that select nothing, are errors (a name vcr
    // does not know is a project's own matcher: tests/http_judge.rs).
    t.write(
        "vcr.toml",
        "[http]\ncassettes = [{ glob = \"spec/**\", match-on = [\"method\", \"uri body\"] }]\n",
    );
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("`http.cassettes[0].match-on`: `uri body` is no matcher's name");
    t.write(
        "vcr.toml",
        "[http]\ncassettes = [\"spec/**\", \"nowhere/**\"]\n",
    );
    t.vcr(&["verify"]).code(2).stderr_has("nowhere/**");
}

/// The report is the same whatever the number of threads, the calling thread's own share
/// included (one thread: it does every item; more: it takes items between batches), over
/// more files than the window of results held for order (issue 12).
#[test]
fn the_report_does_not_depend_on_the_number_of_threads() {
    let s = Secrets::new();
    let t = TestDir::new();
    for i in 0..700 {
        let answer = match i % 97 {
            0 => format!("the key is {}", s.anthropic),
            _ => format!("answer {i}"),
        };
        let rel = cassette(&t, &[&said(&format!("question {i}"))], &answer);
        if i % 101 == 5 {
            let stale = format!("fixtures/{i:06}-abcdef.json");
            std::fs::rename(t.path(&rel), t.path(&stale)).unwrap();
        }
    }
    let runs: Vec<Value> = ["1", "2", "5"]
        .iter()
        .map(|threads| {
            let run = t.vcr_with(
                &["verify", "--format", "json"],
                &[("RAYON_NUM_THREADS", threads)],
            );
            run.code(1).json()
        })
        .collect();
    assert_eq!(with_id(&runs[0], "leak/secret").len(), 8, "{:#}", runs[0]);
    assert_eq!(with_id(&runs[0], "name/stale").len(), 7, "{:#}", runs[0]);
    assert_eq!(runs[0]["summary"]["files"], 700);
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

/// Regression (issue 22): `-q` said "only errors" and still printed warnings. `-q` and
/// `--severity error` show errors only in the text and GitHub outputs; JSON keeps every
/// finding, and the counts do not change.
#[test]
fn quiet_and_severity_error_show_errors_only() {
    let t = TestDir::new();
    t.write(
        "cassettes/mixed.yaml",
        "interactions:\n- request:\n    body: null\n    headers:\n      Authorization:\n      - Bearer sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k\n    method: GET\n    uri: https://api.example.com/v1/me\n  response:\n    body:\n      string: '{\"email\": \"dana.reyes@corp-mail.net\"}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
    );
    let all = t.vcr(&["verify", "cassettes/mixed.yaml"]);
    all.code(1)
        .stdout_has("error")
        .stdout_has("warning  leak/email");
    for args in [
        &["verify", "-q", "cassettes/mixed.yaml"][..],
        &["verify", "--severity", "error", "cassettes/mixed.yaml"],
        &[
            "verify",
            "--severity",
            "error",
            "--format",
            "github",
            "cassettes/mixed.yaml",
        ],
    ] {
        let run = t.vcr(args);
        run.code(1).stdout_has("leak/secret");
        assert!(
            !run.stdout.contains("leak/email"),
            "{args:?}:\n{}",
            run.stdout
        );
    }
    let doc = t
        .vcr(&["verify", "-q", "--format", "json", "cassettes/mixed.yaml"])
        .json();
    assert_eq!(doc["summary"]["warnings"], 1, "{doc:#}");
    assert!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "leak/email"),
        "{doc:#}"
    );
    t.vcr(&["verify", "--severity", "error", "cassettes/mixed.yaml"])
        .stdout_has("1 error, 1 warning");
}
