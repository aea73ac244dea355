//! No crash, no hang, on any input (issue 11): patterns that come from recorded data and
//! from `vcr.toml` are bounded, with the real binary on real trees.
//!
//! Before: a pattern nested 10,000 groups deep in a `[[rule]]`, a `[[verify.allow]]` regex or
//! a `{{fromRequest:...}}` placeholder overflowed the stack (exit 134), and the rule `(a+)+b`
//! ran for hours on a fixture holding forty `a`s.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{Run, TestDir};

const CLAUDE_CODE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/claude-code");
const DSH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/dsh");
const FIXTURE: &str = "fixtures/661cf4.json";

/// A pattern nested 10,000 groups deep.
fn deep() -> String {
    format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000))
}

/// The Claude Code example with forty `a`s in the first fixture's prompt.
fn forty_as() -> TestDir {
    let t = TestDir::copy_of(Path::new(CLAUDE_CODE));
    let text = t.read(FIXTURE);
    let changed = text.replace("Fix it.", &format!("Fix it. {}", "a".repeat(40)));
    assert_ne!(text, changed);
    t.write(FIXTURE, changed);
    t
}

fn rule(id: &str, regex: &str) -> String {
    format!("[[rule]]\nid = {id:?}\nregex = {regex:?}\nreplace = \"[X]\"\n")
}

/// Runs the command, killing it (and failing) if it is not done within `limit`.
fn within(limit: Duration, mut cmd: Command) -> Run {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("vcr did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output: Output = child.wait_with_output().unwrap();
    Run::from(output)
}

#[test]
fn a_rule_nested_too_deep_is_a_configuration_error_naming_the_rule() {
    let t = TestDir::copy_of(Path::new(CLAUDE_CODE));
    t.write("vcr.toml", rule("deep", &deep()));
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("vcr.toml")
        .stderr_has("rule `deep` has a regex past vcr's limits")
        .stderr_has("the pattern nests groups 10000 deep");
}

/// The size limit counts what JavaScript's engine copies (a repetition whose minimum is 1 to
/// 5 is that many copies, so nested ones multiply), as docs/configuration.md says: past it, a
/// configuration error naming the rule; a large count such as `x{100001}` is a loop there, and
/// a linear-time automaton here, so it is no error and runs.
#[test]
fn the_size_limit_counts_what_unrolls_and_a_large_count_runs() {
    let t = forty_as();
    let nested = format!("{}a{}", "(?:".repeat(8), "){5}".repeat(8));
    t.write("vcr.toml", rule("nested", &nested));
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("rule `nested` has a regex past vcr's limits")
        .stderr_has("100000 units once unrolled");
    // 40 `a`s in the prompt: `a{40}` replaces them, `a{100001}` compiles and finds nothing.
    for (regex, changes) in [("a{40}", true), ("a{100001}", false)] {
        t.write("vcr.toml", rule("count", regex));
        let mut cmd = t.command(&["normalize", "--check"], &[]);
        cmd.current_dir(&t.root);
        let run = within(Duration::from_secs(60), cmd);
        run.code(if changes { 1 } else { 0 });
    }
}

#[test]
fn an_allow_regex_nested_too_deep_is_a_configuration_error_naming_the_entry() {
    let t = TestDir::copy_of(Path::new(CLAUDE_CODE));
    t.write(
        "vcr.toml",
        format!(
            "[[verify.allow]]\nid = \"leak/path\"\n\n[[verify.allow]]\nid = \"leak/path\"\nregex = {:?}\n",
            deep()
        ),
    );
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("vcr.toml")
        .stderr_has("`verify.allow[1].regex` is past vcr's limits")
        .stderr_has("nests groups 10000 deep");
}

#[test]
fn from_request_patterns_nested_too_deep_are_findings_in_their_place() {
    let t = TestDir::copy_of(Path::new(DSH));
    let placeholder = format!("{{{{fromRequest:{}}}}}", deep());
    // In an override...
    let override_rel = "tests/snapshots/goal/replay.override.json";
    let text = t.read(override_rel);
    t.write(override_rel, text.replacen("goal-[0-9a-f-]+", &deep(), 1));
    // ...and in a recorded call of a session log (line 8).
    let log_rel = "tests/snapshots/read-and-fix/session.jsonl";
    let text = t.read(log_rel);
    t.write(
        log_rel,
        text.replace(
            r#""text":"I will read the cart module first.""#,
            &format!(r#""text":"{placeholder}""#),
        ),
    );
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    let findings: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "dsh/from-request")
        .collect();
    assert_eq!(findings.len(), 2, "{doc:#}");
    for f in &findings {
        let message = f["message"].as_str().unwrap();
        assert!(
            message.starts_with("fromRequest pattern \"((((((((")
                && message.contains("...")
                && message.contains("is past vcr's limits: the pattern nests groups 10000 deep"),
            "{message}"
        );
        assert!(
            f["line"].as_u64().is_some() && f["column"].as_u64().is_some(),
            "{f}"
        );
    }
    assert_eq!(findings[0]["path"], override_rel);
    assert_eq!(findings[1]["path"], log_rel);
    assert_eq!(findings[1]["line"], 8);
}

#[test]
fn a_from_request_pattern_that_backtracks_is_only_compiled() {
    // vcr never matches a placeholder (there is no request to match it against): it only
    // compiles it, so `(a+)+b` cannot stall it whatever the log holds.
    let t = TestDir::copy_of(Path::new(DSH));
    let rel = "tests/snapshots/goal/replay.override.json";
    let text = t.read(rel);
    t.write(
        rel,
        text.replace("goal-[0-9a-f-]+", &format!("(a+)+b{}", "a".repeat(40))),
    );
    within(Duration::from_secs(60), t.command(&["verify"], &[])).code(0);
}

#[test]
fn a_catastrophic_rule_runs_in_linear_time() {
    let t = forty_as();
    t.write("vcr.toml", rule("catastrophic", "(a+)+b"));
    let run = within(Duration::from_secs(60), t.command(&["normalize"], &[]));
    run.code(0);
    // It never matched: the fixture is as it was, apart from its stale name.
    assert!(t.read(FIXTURE).contains(&"a".repeat(40)));
}

#[test]
fn a_backtracking_rule_that_runs_out_is_an_error_of_its_file_and_the_run_goes_on() {
    let t = forty_as();
    // The look-ahead needs backtracking, so this runs in regress, under the time limit (and
    // the linear prefilter, `a`, lets every string with an `a` through).
    t.write("vcr.toml", rule("runaway", "(?=(a+)+b)a"));
    let before = t.files("fixtures");
    let run = within(Duration::from_secs(60), t.command(&["normalize"], &[]));
    run.code(2)
        .stderr_has(&format!("{FIXTURE}: rule `runaway` was stopped: a match ran past the time limit of 1000 ms on a string of"))
        .stderr_has("[limit]");
    assert_eq!(t.files("fixtures"), before, "nothing was rewritten");
    // `verify` reports it the same way. (Files processed after the time ran out report that
    // the rule is not run again; which those are depends on the order of the parallel run.)
    let run = within(Duration::from_secs(60), t.command(&["verify"], &[]));
    run.code(2)
        .stderr_has(&format!("{FIXTURE}: rule `runaway` was stopped"));
}

#[test]
fn a_config_home_longer_than_a_path_is_a_configuration_error() {
    // The leak scanner looks for the config home in every file; a 3 MB one made its matcher
    // panic (exit 101).
    let t = TestDir::copy_of(Path::new(CLAUDE_CODE));
    t.write(
        "vcr.toml",
        format!(
            "[claude-code]\nconfig-home = \"/{}\"\n",
            "a".repeat(3_000_000)
        ),
    );
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("`[claude-code] config-home` is 3000001 bytes long; a path has at most 4096");
}
