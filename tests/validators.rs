//! Issue 24: vcr's machine-readable outputs pass their own validators. SARIF goes through
//! Microsoft's `sarif-multitool validate` (npm `@microsoft/sarif-multitool`); every command's
//! `--format json` document, in every outcome, through `schema/output.schema.json` with ajv
//! (`tests/validators/schema.js`). Both are pinned in `tests/validators/` and installed under
//! Cargo's `target/tmp` by `npm ci` when the lock file changed. Where npm cannot install them
//! the tests say so on stderr and pass, unless `VCR_REQUIRE_VALIDATORS=1` (CI sets it).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{TestDir, git};

const REQUIRE: &str = "VCR_REQUIRE_VALIDATORS";

/// The folder the validators are installed in, or `None` after saying why on stderr.
///
/// The tests of this file run on parallel threads and all need the same `node_modules`:
/// `npm ci` deletes that folder before it fills it, so a second install running beside the
/// first removes modules the first test is already using (CI saw `Cannot find module` and
/// npm's `ENOENT`). The install therefore runs once per test process, the first caller's
/// thread doing it while the others wait for its outcome.
fn validators() -> Option<PathBuf> {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match INSTALLED.get_or_init(install) {
        Ok(dir) => Some(dir.clone()),
        Err(why) => {
            if std::env::var(REQUIRE).as_deref() == Ok("1") {
                panic!("{REQUIRE}=1 and the validators could not be installed: {why}");
            }
            common::skip(&format!(
                "the output validators could not be installed (npm ci in tests/validators): {why}"
            ));
            None
        }
    }
}

/// Installs the pinned validators under Cargo's `target/tmp` unless the lock file they were
/// installed from is the current one; the error is npm's own account of why it could not.
fn install() -> Result<PathBuf, String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validators");
    let lock = std::fs::read(here.join("package-lock.json")).unwrap();
    let installed = dir.join("installed.lock");
    if std::fs::read(&installed).ok().as_deref() == Some(&lock[..]) {
        return Ok(dir);
    }
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(here.join(file), dir.join(file)).unwrap();
    }
    let out = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("no npm: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    std::fs::write(&installed, &lock).unwrap();
    Ok(dir)
}

/// `sarif-multitool validate` on `log`: its error and warning lines (it exits 0 either way).
fn sarif_problems(validators: &Path, log: &Path) -> Vec<String> {
    let out = Command::new(validators.join("node_modules/.bin/sarif-multitool"))
        .args(["validate", "--max-file-size-in-kb", "1000000"])
        .arg(log)
        .output()
        .expect("sarif-multitool runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Analysis completed successfully"),
        "sarif-multitool did not complete:\n{text}"
    );
    text.lines()
        .filter(|l| l.contains(": error ") || l.contains(": warning "))
        .map(str::to_owned)
        .collect()
}

/// A vcrpy cassette with a key in its `Authorization` header.
fn keyed_cassette() -> &'static str {
    "interactions:\n- request:\n    body: null\n    headers:\n      Authorization:\n      - Bearer sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k\n    method: GET\n    uri: https://api.openai.com/v1/models\n  response:\n    body:\n      string: '{\"home\": \"/home/janedoe/app\"}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
}

#[test]
fn sarif_passes_the_sarif_validator_in_every_outcome() {
    let Some(validators) = validators() else {
        return;
    };
    let t = TestDir::new();
    let out = tempfile::tempdir().unwrap();
    let validate = |name: &str, args: &[&str], code: i32| {
        let run = t.vcr(args);
        run.code(code);
        let log = out.path().join(format!("{name}.sarif"));
        std::fs::write(&log, &run.stdout).unwrap();
        let problems = sarif_problems(&validators, &log);
        assert!(
            problems.is_empty(),
            "{name}: the SARIF log does not validate:\n{}\n{}",
            problems.join("\n"),
            run.stdout
        );
        run.json()
    };

    // A clean run.
    t.write(
        "tests/cassettes/test_clean.yaml",
        keyed_cassette().replace(
            "Bearer sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k",
            "Bearer REDACTED",
        ),
    );
    t.write(
        "tests/cassettes/test_clean.yaml",
        t.read("tests/cassettes/test_clean.yaml")
            .replace("/home/janedoe/app", "[HOME]/app"),
    );
    validate("clean", &["verify", "--format", "sarif"], 0);

    // Findings in files named as pytest names parametrized tests, with spaces and non-ASCII.
    for name in [
        "tests/cassettes/test_models[openai-gpt 4].yaml",
        "tests/cassettes/test_café[x#1%].yaml",
    ] {
        t.write(name, keyed_cassette());
    }
    let log = validate("findings", &["verify", "--format", "sarif"], 1);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 4, "{results:?}");
    let uris: Vec<&str> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        uris.contains(&"tests/cassettes/test_models%5Bopenai-gpt%204%5D.yaml"),
        "{uris:?}"
    );
    assert!(
        uris.contains(&"tests/cassettes/test_caf%C3%A9%5Bx%231%25%5D.yaml"),
        "{uris:?}"
    );
    // Every finding placed in its file has a region.
    for r in results {
        assert!(
            r["locations"][0]["physicalLocation"]["region"]["startLine"].is_u64(),
            "{r}"
        );
    }
    assert!(
        log["runs"][0]["tool"]["driver"]["informationUri"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://"))
    );

    // A cassette that does not parse is a finding; a path that cannot be read, a failed
    // invocation whose run went on.
    t.write(
        "tests/cassettes/test_broken.yaml",
        "interactions:\n- request: [\n",
    );
    validate("unparsed", &["verify", "--format", "sarif"], 1);
    let log = validate(
        "unreadable",
        &[
            "verify",
            "--format",
            "sarif",
            "tests/cassettes",
            "tests/gone.yaml",
        ],
        2,
    );
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    std::fs::remove_file(t.path("tests/cassettes/test_broken.yaml")).unwrap();

    // A run that could not start.
    t.write("vcr.toml", "[verify]\ntexts = 1\n");
    let log = validate("not-started", &["verify", "--format", "sarif"], 2);
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
}

/// Every command's JSON document in the outcomes it has (clean, findings or changes, a file
/// or path it could not use, a run that could not start, a usage error, the listings), each
/// validated against `schema/output.schema.json`.
#[test]
fn every_json_document_matches_the_schema() {
    let Some(validators) = validators() else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mut documents: Vec<PathBuf> = Vec::new();
    let mut keep = |name: &str, run: common::Run, code: i32| {
        run.code(code);
        let path = out.path().join(format!("{name}.json"));
        std::fs::write(&path, &run.stdout).unwrap();
        documents.push(path);
    };

    // A Claude Code tree in git, then changed: a fixture not normalized, one under a stale
    // name, one with a leaked home folder.
    let t = TestDir::example("claude-code");
    git(&t.path(""), &["init", "-q"]);
    git(&t.path(""), &["add", "-A"]);
    git(&t.path(""), &["commit", "-qm", "Record"]);
    keep("verify-clean", t.vcr(&["verify", "--format", "json"]), 0);
    keep(
        "list-detectors",
        t.vcr(&["verify", "--format", "json", "--list-detectors"]),
        0,
    );
    keep(
        "show-files",
        t.vcr(&["verify", "--format", "json", "--show-files"]),
        0,
    );
    keep(
        "diff-identical",
        t.vcr(&["diff", "--format", "json", "--rev", "HEAD"]),
        0,
    );
    let fixture = "fixtures/661cf4.json";
    let text = t.read(fixture);
    t.write(
        fixture,
        text.replacen("{\n", "{\n\n", 1).replacen(
            "\"text\": \"",
            "\"text\": \"/home/alice/shop/cart.ts ",
            1,
        ),
    );
    std::fs::rename(
        t.path("fixtures/661cf4-3a0997-fbb16d.json"),
        t.path("fixtures/aaaaaa-3a0997-fbb16d.json"),
    )
    .unwrap();
    // In this order: each run sees what the one before it left.
    t.write("usage.log", "fixtures/661cf4.json\n");
    let runs: &[(&str, &[&str], i32)] = &[
        ("verify-findings", &["verify"], 1),
        (
            "verify-missing-path",
            &["verify", "fixtures", "gone.json"],
            2,
        ),
        ("normalize-check", &["normalize", "--check", "--diff"], 1),
        ("rehash-dry-run", &["rehash", "--dry-run"], 0),
        ("diff-changed", &["diff", "--rev", "HEAD"], 1),
        ("diff-unreadable", &["diff", "old", "new"], 2),
        // Without a terminal nothing is asked: the renamed fixture is left undecided.
        ("review", &["review", "--accept-same-behaviour"], 1),
        ("review-range", &["review", "--rev", "HEAD..HEAD"], 2),
        ("normalize", &["normalize"], 0),
        ("rehash", &["rehash"], 0),
        ("prune", &["prune", "--usage-log", "usage.log"], 0),
        ("prune-no-log", &["prune", "--usage-log", "gone.log"], 2),
        ("record", &["record", "--", "true"], 0),
        ("record-failing", &["record", "--", "false"], 1),
    ];
    for (name, args, code) in runs {
        let mut args = args.to_vec();
        args.splice(1..1, ["--format", "json"]);
        keep(name, t.vcr(&args), *code);
    }
    for command in [
        "verify",
        "normalize",
        "rehash",
        "diff",
        "review",
        "prune",
        "record",
    ] {
        keep(
            &format!("{command}-usage-error"),
            t.vcr(&[command, "--format", "json", "--no-such-flag"]),
            2,
        );
    }
    t.write("vcr.toml", "[verify]\ntexts = 1\n");
    for command in ["verify", "normalize", "rehash"] {
        keep(
            &format!("{command}-not-started"),
            t.vcr(&[command, "--format", "json"]),
            2,
        );
    }

    // An HTTP cassette scrubbed, with what the recorder matches by.
    let h = TestDir::new();
    h.write("tests/cassettes/test_models.yaml", keyed_cassette());
    keep("verify-http", h.vcr(&["verify", "--format", "json"]), 1);
    keep(
        "normalize-http",
        h.vcr(&["normalize", "--format", "json"]),
        0,
    );

    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/output.schema.json");
    let run = Command::new("node")
        .env("NODE_PATH", validators.join("node_modules"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators/schema.js"))
        .arg(&schema)
        .args(&documents)
        .output()
        .expect("node runs the schema validator");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "documents that do not match the schema:\n{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        said.contains(&format!("{} valid, 0 invalid", documents.len())),
        "{said}"
    );

    // The schema holds each command to its one shape: `verify`'s old error document, which
    // had the other commands' shape, and an event with a field no event has, are refused.
    let wrong = out.path().join("wrong.json");
    for document in [
        r#"{"version": 1, "command": "verify", "error": {"message": "x"}, "events": []}"#,
        r#"{"version": 1, "command": "rehash", "events": [{"type": "renamed", "from": "a", "to": "b", "done": true, "rewritten": false, "why": 1}]}"#,
    ] {
        std::fs::write(&wrong, document).unwrap();
        let run = Command::new("node")
            .env("NODE_PATH", validators.join("node_modules"))
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators/schema.js"))
            .arg(&schema)
            .arg(&wrong)
            .output()
            .unwrap();
        assert!(!run.status.success(), "the schema accepts {document}");
    }
}

/// Every event `type` the library can emit has its place in the schema: a variant added to
/// `Event` without one fails here, whether or not a test makes it.
#[test]
fn the_schema_knows_every_event() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("crates/vcr-ops/src/event.rs")).unwrap();
    let body = source
        .split("pub enum Event<'a> {")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .unwrap();
    let variants: Vec<String> = body
        .lines()
        .filter_map(|line| {
            let name = line.strip_prefix("    ")?;
            let end = name.find([' ', '(', ','])?;
            let name = &name[..end];
            name.starts_with(|c: char| c.is_ascii_uppercase())
                .then_some(name)
        })
        .map(|name| {
            let mut snake = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            snake
        })
        .collect();
    assert!(variants.len() >= 20, "{variants:?}");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("schema/output.schema.json")).unwrap(),
    )
    .unwrap();
    let known: Vec<&str> = schema["$defs"]["event"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["properties"]["type"]["const"].as_str())
        .collect();
    for variant in &variants {
        assert!(
            known.contains(&variant.as_str()),
            "schema/output.schema.json has no event of type `{variant}`"
        );
    }
    assert_eq!(
        known.len(),
        variants.len(),
        "{known:?} against {variants:?}"
    );
}
