//! How every command fails (issue 11): each error path that can be reached from the command
//! line, run through the real binary on real trees. The message says its cause once (no
//! `...: No such file or directory (os error 2): No such file or directory (os error 2)`).

mod common;

use common::{Run, TestDir, fixture, vcr_command};

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
