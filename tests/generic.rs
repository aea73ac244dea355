//! Generic hashed cassettes (`[[cassettes]]`) through `verify`, `rehash` and `normalize`:
//! the DataDog test-agent naming and a JSONL log whose lines carry a `request_hash`.
//!
//! Expected names and hashes come from python3 running the harnesses' own recipes (the
//! example's `generate.py` and the one-liners below), never from vcr.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::TestDir;
use serde_json::Value;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/generic");
const ANTHROPIC: &str = "cassettes/anthropic";

fn example() -> TestDir {
    TestDir::copy_of(Path::new(EXAMPLE))
}

fn python(script: &str, input: &str) -> String {
    let output = Command::new("python3")
        .args(["-c", script, input])
        .output()
        .expect("python3 is needed as the oracle of the generic naming tests");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// The DataDog test agent's name for a cassette file, computed as the agent does.
fn datadog_name(file: &Path) -> String {
    python(
        r#"
import hashlib, json, os, re, sys, urllib.parse
path = sys.argv[1]
doc = json.load(open(path))
req = doc["request"]
provider = os.path.basename(os.path.dirname(path))
url = urllib.parse.urlsplit(req["url"])
p = url.path.lstrip("/") + ("?" + url.query if url.query else "")
body = json.loads(req["body"]) if req["body"] else {}
details = f"{provider}/{p}:{req['method']}:{json.dumps(body, sort_keys=True)}"
safe = re.sub(r"[^A-Za-z0-9.-]", "_", provider + "/" + p)
print(f"{safe}_{req['method'].lower()}_{hashlib.sha256(details.encode()).hexdigest()[:8]}.json")
"#,
        file.to_str().unwrap(),
    )
}

/// `sha256(JSON.stringify(line.request))[:16]` for each line of a JSONL log.
fn request_hashes(file: &Path) -> Vec<String> {
    python(
        r#"
import hashlib, json, sys
for line in open(sys.argv[1]):
    request = json.loads(line)["request"]
    text = json.dumps(request, separators=(",", ":"), ensure_ascii=False)
    print(hashlib.sha256(text.encode()).hexdigest()[:16])
"#,
        file.to_str().unwrap(),
    )
    .lines()
    .map(str::to_owned)
    .collect()
}

fn findings(t: &TestDir) -> Vec<(String, String, String)> {
    let doc: Value = t.vcr(&["verify", "--format", "json"]).json();
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn only_file(t: &TestDir, dir: &str) -> String {
    let names = names(t, dir);
    assert_eq!(names.len(), 1, "{names:?}");
    names.into_iter().next().unwrap()
}

/// The names of the files in `dir`.
fn names(t: &TestDir, dir: &str) -> Vec<String> {
    t.files(dir)
        .into_keys()
        .map(|rel| rel.rsplit('/').next().unwrap().to_owned())
        .collect()
}

#[test]
fn the_example_tree_is_clean_in_every_command() {
    let t = example();
    t.vcr(&["verify"])
        .code(0)
        .stdout_has("checked 4 files: 0 errors");
    t.vcr(&["normalize", "--check"]).code(0);
    let before = t.files("");
    t.vcr(&["rehash"]).code(0);
    assert_eq!(t.files(""), before);
}

#[test]
fn a_changed_request_body_is_stale_and_rehash_gives_the_agents_name() {
    let t = example();
    let old = only_file(&t, "cassettes/mistral");
    let rel = format!("cassettes/mistral/{old}");
    let text = t
        .read(&rel)
        .replace("Say hi in French.", "Say hi in Italian.");
    t.write(&rel, &text);
    assert_eq!(
        findings(&t),
        [("name/stale".into(), "error".into(), rel.clone())]
    );
    t.vcr(&["rehash"]).code(0);
    let new = only_file(&t, "cassettes/mistral");
    assert_ne!(new, old);
    assert_eq!(
        new,
        datadog_name(&t.path(&format!("cassettes/mistral/{new}")))
    );
    assert_eq!(t.read(&format!("cassettes/mistral/{new}")), text);
    t.vcr(&["verify"]).code(0);
}

#[test]
fn stale_line_hashes_are_found_by_line_and_rewritten_in_place() {
    let t = example();
    let rel = "vcr/agent.jsonl";
    let text = t.read(rel).replace("Open a.ts.", "Open b.ts.");
    t.write(rel, &text);
    let doc: Value = t.vcr(&["verify", "--format", "json"]).json();
    let stale: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "name/stale")
        .collect();
    assert_eq!(stale.len(), 1, "{doc:#}");
    assert_eq!(stale[0]["line"], 2, "{doc:#}");
    t.vcr(&["rehash"]).code(0);
    let after = t.read(rel);
    let hashes = request_hashes(&t.path(rel));
    assert!(after.contains(&format!("\"request_hash\":\"{}\"", hashes[1])));
    // Only the stale hash changed: every other byte is as it was.
    let old_hash = text.lines().nth(1).unwrap()[17..33].to_owned();
    assert_eq!(after, text.replace(&old_hash, &hashes[1]));
    t.vcr(&["verify"]).code(0);
}

#[test]
fn normalize_restores_the_writers_format() {
    let t = example();
    let name = only_file(&t, "cassettes/mistral");
    let rel = format!("cassettes/mistral/{name}");
    let pretty = t.read(&rel);
    let compacted = pretty.replace("\n", "").replace("  ", "");
    t.write(&rel, &compacted);
    assert_eq!(
        findings(&t),
        [("format/unnormalized".into(), "error".into(), rel.clone())]
    );
    t.vcr(&["normalize"]).code(0);
    assert_eq!(t.read(&rel), pretty);
}

#[test]
fn leaks_in_the_key_material_are_errors_and_in_the_response_warnings() {
    let t = example();
    let name = only_file(&t, "cassettes/mistral");
    let rel = format!("cassettes/mistral/{name}");
    let uuid = "5f0c8e2a-1b3d-4c6e-9f70-8a1b2c3d4e5f";
    let text = t
        .read(&rel)
        .replace("Salut !", &format!("Salut ! (trace {uuid})"));
    t.write(&rel, &text);
    assert_eq!(
        findings(&t),
        [("leak/uuid".into(), "warning".into(), rel.clone())]
    );
    // In the hashed body the same UUID is an error (and the name goes stale with it).
    let text = text.replace("Say hi in French.", &format!("Say hi to {uuid}."));
    t.write(&rel, &text);
    let found = findings(&t);
    assert!(
        found.contains(&("leak/uuid".into(), "error".into(), rel.clone())),
        "{found:?}"
    );
}

#[test]
fn two_cassettes_with_one_key_collide() {
    let t = example();
    let files = names(&t, ANTHROPIC);
    let first = t.read(&format!("{ANTHROPIC}/{}", files[0]));
    t.write(&format!("{ANTHROPIC}/{}", files[1]), &first);
    let found = findings(&t);
    assert!(
        found
            .iter()
            .any(|(id, _, path)| id == "name/collision" && path.contains(&files[1])),
        "{found:?}"
    );
    // rehash refuses to merge different files into one name, and moves nothing.
    let before = t.files("");
    let second = t.read(&format!("{ANTHROPIC}/{}", files[1]));
    assert_eq!(first, second);
    t.vcr(&["rehash"]);
    assert_eq!(t.files("").len(), before.len() - 1, "identical twins merge");
}

#[test]
fn a_bad_entry_stops_the_run_naming_it() {
    let t = example();
    let config = t
        .read("vcr.toml")
        .replace("hex-length = 16", "hex-length = 65");
    t.write("vcr.toml", &config);
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("`[[cassettes]]` entry")
        .stderr_has("hex-length");
}

/// Issue 11: a cassette whose recorded response is an API error (an HTTP 401 with the
/// provider's `authentication_error` body, an overloaded 529 in a JSONL log) is a
/// `recorded/error` warning at the response, naming the kind. A bad request is not.
#[test]
fn recorded_api_error_responses_are_warnings_at_the_response() {
    let t = example();
    let rel = format!("{ANTHROPIC}/anthropic_v1_messages_post_5e5ef2c4.json");
    let text = t.read(&rel);
    let failed = text
        .replace(
            r#""code": 200,
      "message": "OK""#,
            r#""code": 401,
      "message": "Unauthorized""#,
        )
        .replace(
            r#""string": "{\"type\": \"message\", \"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"4\"}], \"stop_reason\": \"end_turn\"}""#,
            r#""string": "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}""#,
        );
    assert_ne!(failed, text);
    t.write(&rel, &failed);
    let log = "vcr/agent.jsonl";
    let lines = t.read(log).replace(
        r#""response":{"stop_reason":"end_turn","text":"export const a = 1;"}"#,
        r#""response":{"status":529,"body":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}"#,
    );
    t.write(log, &lines);
    let run = t.vcr(&["verify", "--format", "json"]);
    let doc: Value = run.code(0).json();
    assert_eq!(
        common::finding_fields(&doc, &["id", "severity", "path", "pointer", "line"]),
        [
            format!("recorded/error warning {rel} /response 12"),
            format!("recorded/error warning {log} /1/response 2"),
        ],
        "{doc:#}"
    );
    assert_eq!(
        common::finding_fields(&doc, &["message"]),
        [
            "`/response` is a recorded API error, not an answer: authentication (HTTP 401, \
             `authentication_error`); record it again with a working API key",
            "`/1/response` is a recorded API error, not an answer: server error (HTTP 529, \
             `overloaded_error`); record it again once the provider answers",
        ]
    );
    // A 400 is the test's business (DataDog's corpus records two on purpose).
    t.write(
        &rel,
        failed
            .replace(r#""code": 401"#, r#""code": 400"#)
            .replace("authentication_error", "invalid_request_error"),
    );
    t.write(
        log,
        t.read(log)
            .replace("overloaded_error", "invalid_request_error")
            .replace(r#""status":529"#, r#""status":400"#),
    );
    t.vcr(&["verify"])
        .code(0)
        .stdout_has("0 errors, 0 warnings");
}
