//! How every command fails (issue 11): each error path that can be reached from the command
//! line, run through the real binary on real trees. The message says its cause once (no
//! `...: No such file or directory (os error 2): No such file or directory (os error 2)`),
//! and with a machine-readable `--format` stdout is one document that carries the error,
//! never an empty stdout or a clean-looking document before exit 2.

use crate::common;

use std::path::Path;

use common::{Run, TestDir, fixture, git, vcr_command};
use serde_json::Value;

/// A project with one clean Claude Code fixture.
fn project() -> TestDir {
    let t = TestDir::new();
    let (name, text) = fixture(&[r#""hello""#], "hi");
    t.write(&format!("fixtures/{name}"), text);
    t
}

/// One way to fail: a tree, then a command line (`--format` is added after the subcommand).
struct Case {
    name: &'static str,
    tree: fn() -> TestDir,
    /// Global options, the subcommand, then its arguments.
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    /// Run in this folder of the tree (`-C`), which need not exist.
    dir: &'static str,
    /// Text the error must contain (its cause, said once).
    says: &'static str,
}

const COMMANDS: [&str; 7] = [
    "verify",
    "normalize",
    "rehash",
    "diff",
    "review",
    "record",
    "prune",
];

const fn case(name: &'static str, args: &'static [&'static str], says: &'static str) -> Case {
    Case {
        name,
        tree: project,
        args,
        env: &[],
        dir: "",
        says,
    }
}

fn cases() -> Vec<Case> {
    const NOENT: &str = "No such file or directory";
    vec![
        case(
            "missing config file",
            &["--config", "nope.toml", "verify"],
            NOENT,
        ),
        Case {
            dir: "not-there",
            ..case("missing -C folder", &["verify"], "no such directory")
        },
        Case {
            tree: || {
                let t = project();
                t.write(
                    "vcr.toml",
                    "[[rule]]\nid = \"x\"\nregex = \"(\"\nreplace = \"y\"\n",
                );
                t
            },
            ..case(
                "invalid regex in a rule",
                &["normalize"],
                "rule `x` has an invalid regex",
            )
        },
        Case {
            tree: || {
                let t = project();
                t.write("vcr.toml", "[claude-code]\ncwd = [\n");
                t
            },
            ..case(
                "config that is not TOML",
                &["rehash"],
                "invalid config file",
            )
        },
        Case {
            tree: || {
                let t = project();
                t.write("vcr.toml", "[verify.severity]\n\"leak/nope\" = \"off\"\n");
                t
            },
            ..case(
                "unknown finding id",
                &["verify"],
                "unknown finding id `leak/nope`",
            )
        },
        Case {
            env: &[("VCR_PLATFORM", "amiga")],
            ..case("bad environment variable", &["verify"], "VCR_PLATFORM")
        },
        case(
            "missing usage log",
            &["verify", "--usage-log", "nope.log"],
            NOENT,
        ),
        case(
            "usage log that is a folder",
            &["prune", "--usage-log", "fixtures"],
            "Is a directory",
        ),
        case(
            "missing baseline",
            &["verify", "--baseline", "nope.json"],
            NOENT,
        ),
        Case {
            tree: || {
                let t = project();
                t.write("baseline.json", "{");
                t
            },
            ..case(
                "invalid baseline",
                &["verify", "--baseline", "baseline.json"],
                "invalid baseline",
            )
        },
        case(
            "baseline written into a missing folder",
            &["verify", "--write-baseline", "no/such/dir/b.json"],
            NOENT,
        ),
        case(
            "test command that does not exist",
            &["record", "--", "/no/such/program"],
            NOENT,
        ),
        case("nothing to prune from", &["prune"], "nothing to prune from"),
        case(
            "staged outside a repository",
            &["verify", "--staged"],
            "git",
        ),
        Case {
            env: &[("PATH", "/no/such/bin")],
            ..case(
                "git that cannot run",
                &["verify", "--staged"],
                "cannot run git",
            )
        },
        case(
            "diff of missing files",
            &["diff", "a.json", "b.json"],
            "no such file",
        ),
        case("diff of one side", &["diff", "fixtures"], "give two files"),
        case(
            "diff of a revision outside git",
            &["diff", "--rev", "HEAD"],
            "git",
        ),
        case(
            "missing path",
            &["verify", "nope.json"],
            "no such file or folder",
        ),
        Case {
            tree: || {
                let t = project();
                t.write(".vcr", "not a folder");
                t
            },
            ..case("store that cannot be locked", &["normalize"], ".vcr")
        },
        Case {
            tree: || {
                let t = project();
                t.write("fixtures/a1f2fb.json", "{\"input\": [");
                t
            },
            ..case("unparsable cassette", &["normalize"], "a1f2fb.json")
        },
        Case {
            tree: || {
                // Two different cassettes with one key: rehash refuses the whole plan.
                let t = TestDir::new();
                let (_, one) = fixture(&[r#""same""#], "one");
                let (_, two) = fixture(&[r#""same""#], "two");
                t.write("fixtures/aaaaaa.json", one);
                t.write("fixtures/bbbbbb.json", two);
                t
            },
            ..case("collision", &["rehash"], "would all be named")
        },
        case("usage error", &["verify", "--bogus"], "--bogus"),
        case(
            "missing test command",
            &["record"],
            "required arguments were not provided",
        ),
    ]
}

/// The command line with `--format FORMAT` right after the subcommand.
fn with_format<'a>(args: &[&'a str], format: &'a str) -> Vec<&'a str> {
    let at = args
        .iter()
        .position(|a| COMMANDS.contains(a))
        .expect("a subcommand")
        + 1;
    let mut all = args.to_vec();
    all.splice(at..at, ["--format", format]);
    all
}

fn run(case: &Case, t: &TestDir, args: &[&str]) -> Run {
    let dir = t.path(case.dir);
    let output = vcr_command(&dir, args, case.env).output().unwrap();
    Run::from(output)
}

/// No `: `-separated part of an error line (longer than a word) appears twice in it.
#[track_caller]
fn assert_cause_said_once(case: &Case, stderr: &str) {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| ["error", "collision"].iter().any(|p| l.starts_with(p)))
        .collect();
    assert!(
        !lines.is_empty(),
        "{}: no error line in {stderr:?}",
        case.name
    );
    for line in lines {
        let parts: Vec<&str> = line.split(": ").map(str::trim).collect();
        for (i, part) in parts.iter().enumerate() {
            assert!(
                part.len() < 8 || !parts[i + 1..].contains(part),
                "{}: `{part}` is said twice in {line:?}",
                case.name
            );
        }
    }
    assert!(
        stderr.contains(case.says),
        "{}: stderr lacks {:?}: {stderr}",
        case.name,
        case.says
    );
}

#[test]
fn every_error_says_its_cause_once() {
    for case in cases() {
        let t = (case.tree)();
        let r = run(&case, &t, case.args);
        assert_eq!(r.code, Some(2), "{}: {r:?}", case.name);
        assert_cause_said_once(&case, &r.stderr);
    }
}

#[test]
fn a_json_run_that_fails_prints_one_document_with_the_error() {
    for case in cases() {
        let t = (case.tree)();
        let r = run(&case, &t, &with_format(case.args, "json"));
        assert_eq!(r.code, Some(2), "{}: {r:?}", case.name);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| {
            panic!(
                "{}: stdout is not one JSON document ({e}): {r:?}",
                case.name
            )
        });
        assert_eq!(doc["version"], 1, "{}", case.name);
        let message = doc["error"]["message"].as_str().unwrap_or_else(|| {
            panic!(
                "{}: exit 2 with a document without an error: {doc}",
                case.name
            )
        });
        assert!(
            message.contains(case.says),
            "{}: the error {message:?} lacks {:?}",
            case.name,
            case.says
        );
        let command = *case.args.iter().find(|a| COMMANDS.contains(a)).unwrap();
        if command == "verify" && doc["error"].get("problems").is_none() {
            // It could not start or go on: `verify`'s own shape whatever the outcome (issues
            // 24 and 43), with no finding and a summary of nothing checked.
            assert_eq!(
                doc["findings"],
                serde_json::json!([]),
                "{}: {doc}",
                case.name
            );
            assert!(doc.get("command").is_none(), "{}: {doc}", case.name);
            assert_eq!(
                doc["summary"],
                serde_json::json!({"files": 0, "errors": 0, "warnings": 0}),
                "{}: {doc}",
                case.name
            );
        } else if doc.get("summary").is_some() {
            // The run went on: the error lists what went wrong, in the command's own shape.
            let problems = doc["error"]["problems"].as_array().unwrap();
            assert!(!problems.is_empty(), "{}: {doc}", case.name);
            if command == "verify" {
                assert!(doc["findings"].is_array(), "{}: {doc}", case.name);
            } else {
                assert_eq!(doc["command"], command, "{}: {doc}", case.name);
            }
        } else {
            // It could not start or go on: the error document, no summary to misread.
            assert_eq!(doc["command"], command, "{}: {doc}", case.name);
            assert!(doc["events"].is_array(), "{}: {doc}", case.name);
            assert!(doc.get("findings").is_none(), "{}: {doc}", case.name);
        }
    }
}

#[test]
fn a_verify_run_that_fails_says_so_in_sarif_and_github_output() {
    for case in cases().iter().filter(|c| c.args.contains(&"verify")) {
        let t = (case.tree)();
        let r = run(case, &t, &with_format(case.args, "sarif"));
        assert_eq!(r.code, Some(2), "{}: {r:?}", case.name);
        let log: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{}: not SARIF ({e}): {r:?}", case.name));
        let invocation = &log["runs"][0]["invocations"][0];
        assert_eq!(
            invocation["executionSuccessful"], false,
            "{}: {log}",
            case.name
        );
        let said = invocation["toolExecutionNotifications"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["message"]["text"].as_str().unwrap().contains(case.says));
        assert!(
            said,
            "{}: no notification says {:?}: {log}",
            case.name, case.says
        );

        let r = run(case, &t, &with_format(case.args, "github"));
        assert_eq!(r.code, Some(2), "{}: {r:?}", case.name);
        assert!(
            r.stdout
                .lines()
                .any(|l| l.starts_with("::error ") && l.contains(case.says)),
            "{}: no ::error annotation says {:?}: {r:?}",
            case.name,
            case.says
        );
    }
}

#[test]
fn a_clean_sarif_run_is_a_successful_invocation() {
    let t = project();
    let r = t.vcr(&["verify", "--format", "sarif"]);
    r.code(0);
    let invocation = &r.json()["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert_eq!(
        invocation["toolExecutionNotifications"],
        serde_json::json!([])
    );
}

#[test]
fn a_json_document_of_a_run_without_errors_has_no_error() {
    let t = project();
    let doc = t.vcr(&["normalize", "--format", "json"]).code(0).json();
    assert!(doc.get("error").is_none(), "{doc}");
    assert!(doc["summary"].is_object(), "{doc}");
    let doc = t.vcr(&["verify", "--format", "json"]).code(0).json();
    assert!(doc.get("error").is_none(), "{doc}");
}

#[test]
fn staged_errors_in_a_repository_reach_the_document_too() {
    // `--staged` in a repository whose index cannot be read as git's.
    let t = project();
    git(&t.root, &["init", "-q"]);
    std::fs::write(t.path(".git/index"), "garbage").unwrap();
    let r = t.vcr(&["verify", "--staged", "--format", "json"]);
    r.code(2);
    let doc = r.json();
    assert!(
        doc["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot read the staged files")),
        "{doc}"
    );
    assert!(!Path::new(&t.path(".vcr/lock")).exists());
}
