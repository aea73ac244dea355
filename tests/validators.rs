//! Issue 24: vcr's machine-readable outputs pass their own validators. SARIF goes through
//! Microsoft's `sarif-multitool validate` (npm `@microsoft/sarif-multitool`, pinned in
//! `tests/validators/`), installed under Cargo's `target/tmp` by `npm ci` when its lock file
//! changed. Where npm cannot install it the test says so on stderr and passes, unless
//! `VCR_REQUIRE_VALIDATORS=1` (CI sets it).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::TestDir;

const REQUIRE: &str = "VCR_REQUIRE_VALIDATORS";

/// The folder the validators are installed in, or `None` after saying why on stderr.
fn validators() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validators");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validators");
    let lock = std::fs::read(here.join("package-lock.json")).unwrap();
    let installed = dir.join("installed.lock");
    if std::fs::read(&installed).ok().as_deref() != Some(&lock[..]) {
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["package.json", "package-lock.json"] {
            std::fs::copy(here.join(file), dir.join(file)).unwrap();
        }
        let ci = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .output();
        let failed = match ci {
            Ok(out) if out.status.success() => None,
            Ok(out) => Some(String::from_utf8_lossy(&out.stderr).trim().to_owned()),
            Err(e) => Some(format!("no npm: {e}")),
        };
        if let Some(why) = failed {
            if std::env::var(REQUIRE).as_deref() == Ok("1") {
                panic!("{REQUIRE}=1 and the validators could not be installed: {why}");
            }
            let _ = writeln!(
                std::io::stderr(),
                "skipped: the output validators could not be installed (npm ci in tests/validators): {why}"
            );
            return None;
        }
        std::fs::write(&installed, &lock).unwrap();
    }
    Some(dir)
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
