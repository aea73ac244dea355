//! `vcr prune` driven by real test runs: usage logs, harnesses (shell and Python) that write
//! `VCR_USAGE_LOG`, a harness that only opens files, a real git repository for the
//! tracked/untracked split, and every case where pruning must be refused.

use crate::common;

use std::path::Path;

use common::{Run, TestDir, fixture, git, isolate_git};

fn vcr(t: &TestDir, args: &[&str]) -> Run {
    let mut cmd = t.command(args, &[]);
    isolate_git(&mut cmd);
    Run::from(cmd.output().unwrap())
}

/// Four message fixtures and a token count; returns their paths relative to the root.
fn tree(t: &TestDir) -> Vec<String> {
    let mut names = Vec::new();
    for i in 0..4 {
        let (name, text) = fixture(&[&format!("\"prompt {i}\"")], &format!("answer {i}"));
        t.write(&format!("fixtures/{name}"), text);
        names.push(format!("fixtures/{name}"));
    }
    t.write(
        "fixtures/token-count-0123456789ab.json",
        "{\n  \"tokenCount\": 7\n}",
    );
    names.push("fixtures/token-count-0123456789ab.json".into());
    names
}

/// A tree in a git repository where every cassette is committed.
fn repo() -> (TestDir, Vec<String>) {
    let t = TestDir::new();
    let names = tree(&t);
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-q", "-m", "cassettes"]);
    (t, names)
}

#[test]
fn from_logs_dry_run_lists_and_delete_removes_tracked_orphans_only() {
    let (t, names) = repo();
    // A cassette recorded but never committed: git cannot bring it back.
    let (untracked, text) = fixture(&["\"scratch\""], "scratch");
    t.write(&format!("fixtures/{untracked}"), text);
    // Two CI shards: a plain path, and a JSON record with an absolute path.
    t.write("shard1.log", format!("{}\n", names[0]));
    t.write(
        "shard2.log",
        format!(
            "{{\"path\": \"{}\", \"event\": \"hit\"}}\n{{\"path\": \"{}\", \"event\": \"write\"}}\n",
            t.path(&names[1]).display(),
            names[4]
        ),
    );
    let before = t.files("fixtures");
    let logs = ["--usage-log", "shard1.log", "--usage-log", "shard2.log"];

    let dry = vcr(&t, &[&["prune"][..], &logs].concat());
    dry.code(0)
        .stdout_has(&format!("orphan {}", names[2]))
        .stdout_has(&format!("orphan {}", names[3]))
        .stdout_has(&format!("untracked orphan fixtures/{untracked}"))
        .stdout_has("3 orphans (")
        .stdout_has("of 6 cassettes no test read")
        .stdout_has("1 orphan not tracked by git");
    assert!(!dry.stdout.contains(&format!("orphan {}\n", names[0])));
    assert_eq!(t.files("fixtures"), before, "a dry run deletes nothing");

    let json = vcr(&t, &[&["prune", "--format", "json"][..], &logs].concat());
    let doc = json.code(0).json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["summary"]["orphans"], 3);
    assert_eq!(doc["summary"]["untracked"], 1);
    let total: u64 = [&names[2], &names[3], &format!("fixtures/{untracked}")]
        .iter()
        .map(|p| std::fs::metadata(t.path(p)).unwrap().len())
        .sum();
    assert_eq!(doc["summary"]["bytes"], total);

    let delete = vcr(&t, &[&["prune", "--delete"][..], &logs].concat());
    delete
        .code(0)
        .stdout_has(&format!("deleted {}", names[2]))
        .stdout_has("deleted 2 orphans")
        .stdout_has("1 orphan not tracked by git, kept");
    assert!(!t.exists(&names[2]) && !t.exists(&names[3]));
    assert!(t.exists(&names[0]) && t.exists(&names[1]) && t.exists(&names[4]));
    assert!(t.exists(&format!("fixtures/{untracked}")));
    assert!(!t.exists(".vcr/journal.json"));

    vcr(
        &t,
        &[&["prune", "--delete", "--include-untracked"][..], &logs].concat(),
    )
    .code(0)
    .stdout_has(&format!("deleted fixtures/{untracked}"));
    assert!(!t.exists(&format!("fixtures/{untracked}")));
    assert_eq!(t.files("fixtures").len(), 3);
}

#[test]
fn verify_with_the_same_log_reports_the_same_orphans() {
    let (t, names) = repo();
    t.write("usage.log", format!("{}\n{}\n", names[0], names[4]));
    let verify = vcr(
        &t,
        &["verify", "--usage-log", "usage.log", "--format", "json"],
    );
    let doc = verify.code(0).json();
    let mut from_verify: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "orphan")
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    from_verify.sort();
    let prune = vcr(
        &t,
        &["prune", "--usage-log", "usage.log", "--format", "json"],
    );
    let doc = prune.code(0).json();
    let mut from_prune: Vec<String> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "orphan")
        .map(|e| e["path"].as_str().unwrap().to_owned())
        .collect();
    from_prune.sort();
    let mut expected = vec![names[1].clone(), names[2].clone(), names[3].clone()];
    expected.sort();
    assert_eq!(from_verify, expected);
    assert_eq!(from_prune, from_verify);
}

#[test]
fn a_shell_harness_writing_the_usage_log() {
    let (t, names) = repo();
    // Each lookup is one append (`>>` opens with O_APPEND), as parallel workers do it.
    t.write(
        "test.sh",
        format!(
            "set -e\ntest -n \"$VCR_USAGE_LOG\"\necho \"{}\" >> \"$VCR_USAGE_LOG\"\necho '{{\"path\":\"{}\",\"event\":\"hit\"}}' >> \"$VCR_USAGE_LOG\"\necho all green\n",
            names[0], names[1]
        ),
    );
    let run = vcr(&t, &["prune", "--delete", "--", "sh", "test.sh"]);
    run.code(0)
        .stdout_has("all green")
        .stdout_has("deleted 3 orphans");
    assert!(t.exists(&names[0]) && t.exists(&names[1]));
    assert!(!t.exists(&names[2]) && !t.exists(&names[3]) && !t.exists(&names[4]));
}

#[test]
fn a_python_harness_writing_the_usage_log_from_parallel_workers() {
    let (t, names) = repo();
    t.write(
        "test.py",
        format!(
            r#"
import json, os, sys
from multiprocessing import Pool

def lookup(path):
    # One write per line, with O_APPEND: lines from parallel workers never interleave.
    fd = os.open(os.environ["VCR_USAGE_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (json.dumps({{"path": path, "event": "hit"}}) + "\n").encode())
    os.close(fd)
    with open(path) as f:
        json.load(f)

if __name__ == "__main__":
    with Pool(3) as pool:
        pool.map(lookup, {used:?})
    print("3 passed")
"#,
            used = [&names[0], &names[2], &names[4]]
        ),
    );
    let run = vcr(&t, &["prune", "--", "python3", "test.py"]);
    run.code(0)
        .stdout_has("3 passed")
        .stdout_has(&format!("orphan {}", names[1]))
        .stdout_has(&format!("orphan {}", names[3]))
        .stdout_has("2 orphans");
}

#[test]
fn a_harness_that_only_opens_files_is_seen_through_inotify() {
    if !cfg!(target_os = "linux") {
        common::skip("file-open watching (inotify) exists on Linux only");
        return;
    }
    let (t, names) = repo();
    // No usage log at all: the harness just reads two cassettes.
    t.write(
        "test.sh",
        format!(
            "cat \"{}\" > /dev/null\nhead -c 10 \"{}\" > /dev/null\n",
            names[1], names[3]
        ),
    );
    let run = vcr(&t, &["prune", "--delete", "--", "sh", "test.sh"]);
    run.code(0).stdout_has("deleted 3 orphans");
    assert!(t.exists(&names[1]) && t.exists(&names[3]));
    assert!(!t.exists(&names[0]) && !t.exists(&names[2]) && !t.exists(&names[4]));
}

/// Runs `prune --delete` and checks it refused: exit 2, the reason said, nothing deleted.
#[track_caller]
fn refused(t: &TestDir, args: &[&str], reason: &str) {
    let before = t.files("");
    let run = vcr(t, &[&["prune", "--delete"][..], args].concat());
    run.code(2)
        .stderr_has(reason)
        .stderr_has("nothing was pruned");
    assert!(!run.stdout.contains("deleted"), "{}", run.stdout);
    assert_eq!(t.files(""), before, "a refused prune deletes nothing");
}

#[test]
fn refuses_after_a_failing_or_interrupted_command() {
    let (t, names) = repo();
    t.write(
        "fail.sh",
        format!("echo \"{}\" >> \"$VCR_USAGE_LOG\"\nexit 3\n", names[0]),
    );
    refused(
        &t,
        &["--", "sh", "fail.sh"],
        "the test command exited with code 3",
    );
    t.write(
        "killed.sh",
        format!(
            "echo \"{}\" >> \"$VCR_USAGE_LOG\"\nkill -TERM $$\n",
            names[0]
        ),
    );
    refused(&t, &["--", "sh", "killed.sh"], "was ended by signal 15");
    // A dry run refuses too: its list would be wrong.
    vcr(&t, &["prune", "--", "sh", "fail.sh"]).code(2);
}

#[test]
fn refuses_when_a_lookup_missed() {
    let (t, names) = repo();
    t.write(
        "miss.log",
        format!(
            "{}\n{{\"path\": \"fixtures/abcdef.json\", \"event\": \"miss\"}}\n",
            names[0]
        ),
    );
    refused(
        &t,
        &["--usage-log", "miss.log"],
        "looked for 1 cassette it did not find (fixtures/abcdef.json)",
    );
    // The seeds' missing-fixture messages in the output count as misses, even from a
    // command that exits 0: Claude Code's ...
    t.write(
        "cc.sh",
        format!(
            "echo \"{}\" >> \"$VCR_USAGE_LOG\"\necho \"Error: Anthropic API fixture missing: $PWD/fixtures/0a1b2c.json. Re-run tests with VCR_RECORD=1, then commit the result.\" >&2\n",
            names[0]
        ),
    );
    refused(&t, &["--", "sh", "cc.sh"], "(fixtures/0a1b2c.json)");
    // ... and llm-replay's.
    t.write(
        "dsh.sh",
        format!(
            "echo \"{}\" >> \"$VCR_USAGE_LOG\"\necho 'llm-replay: fixture not found: tests/snapshots/a/session.jsonl \u{2014} run `pnpm run test:snapshot:record` first'\n",
            names[0]
        ),
    );
    refused(
        &t,
        &["--", "sh", "dsh.sh"],
        "(tests/snapshots/a/session.jsonl)",
    );
}

#[test]
fn refuses_empty_or_foreign_sources() {
    let (t, _) = repo();
    t.write("empty.log", "");
    refused(
        &t,
        &["--usage-log", "empty.log"],
        "name none of the 5 cassettes",
    );
    // A log written in another checkout: absolute paths outside this root.
    t.write("other.log", "/elsewhere/app/fixtures/0a1b2c.json\n");
    refused(
        &t,
        &["--usage-log", "other.log"],
        "(the sources name e.g. `/elsewhere/app/fixtures/0a1b2c.json`)",
    );
    // A harness that logs nothing and opens nothing.
    refused(&t, &["--", "true"], "name none of the 5 cassettes");
    // No source at all is a usage error.
    vcr(&t, &["prune"])
        .code(2)
        .stderr_has("give --usage-log FILE");
    // An unreadable log is an error, not an empty source.
    vcr(&t, &["prune", "--usage-log", "nope.log"])
        .code(2)
        .stderr_has("cannot read usage log");
}

/// Regression (issue 11): outside a git repository nothing can bring a deleted cassette
/// back, so every cassette counts as untracked and deleting needs `--include-untracked`.
#[test]
fn outside_git_deleting_needs_include_untracked() {
    let t = TestDir::new();
    let names = tree(&t);
    t.write("usage.log", format!("{}\n", names[0]));
    let run = vcr(&t, &["prune", "--delete", "--usage-log", "usage.log"]);
    run.code(0)
        .stdout_has("deleted 0 orphans")
        .stdout_has("4 orphans outside a git repository, kept (nothing could bring them back; --include-untracked deletes them too)");
    assert_eq!(t.files("fixtures").len(), 5, "nothing deleted");
    vcr(
        &t,
        &[
            "prune",
            "--delete",
            "--include-untracked",
            "--usage-log",
            "usage.log",
        ],
    )
    .code(0)
    .stdout_has("deleted 4 orphans");
    assert_eq!(t.files("fixtures").len(), 1);
}

#[test]
fn a_dsh_scenario_is_used_and_pruned_as_a_whole() {
    let t = TestDir::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dsh"));
    let snapshots = "tests/snapshots";
    let scenarios: Vec<String> = std::fs::read_dir(t.path(snapshots))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(scenarios.len() >= 2, "{scenarios:?}");
    // The harness read one scenario's primary log; every other scenario is an orphan.
    let used = &scenarios[0];
    t.write("usage.log", format!("{snapshots}/{used}/session.jsonl\n"));
    let run = vcr(
        &t,
        &[
            "prune",
            "--delete",
            "--include-untracked",
            "--usage-log",
            "usage.log",
        ],
    );
    run.code(0);
    assert!(t.path(&format!("{snapshots}/{used}")).is_dir());
    for gone in &scenarios[1..] {
        run.stdout_has(&format!("deleted {snapshots}/{gone}"));
        assert!(
            !t.path(&format!("{snapshots}/{gone}")).exists(),
            "{gone} is removed whole"
        );
    }
    // What is left verifies without a `missing` scenario.
    vcr(&t, &["verify", "--usage-log", "usage.log"]).code(0);
}

/// HTTP cassettes in the recorders' folders are selected by default (issue 9), but a run of
/// the LLM harness never reads them: `prune --delete` must not take them for orphans.
#[test]
fn http_cassettes_are_never_pruned() {
    let (t, names) = repo();
    let vcrpy = "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://api.example.org/v1/models\n  response:\n    body:\n      string: '{}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n";
    t.write("tests/cassettes/test_models.yaml", vcrpy);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-q", "-m", "an HTTP cassette"]);
    t.write("usage.log", format!("{}\n{}\n", names[0], names[1]));
    let run = vcr(&t, &["prune", "--delete", "--usage-log", "usage.log"]);
    run.code(0).stdout_has(&format!("deleted {}", names[2]));
    assert!(!run.stdout.contains("test_models.yaml"), "{}", run.stdout);
    assert!(t.exists("tests/cassettes/test_models.yaml"));
    // `verify` reads it all the same.
    let verify = vcr(&t, &["verify", "tests/cassettes/test_models.yaml"]);
    verify.code(0).stdout_has("1 vcrpy read as HTTP cassettes");
}

/// In a monorepo, a suite's test command runs in its own folder (where its harness logs
/// paths from), `prune PATH` judges that suite's cassettes only, and a run that read one
/// folder's cassettes says so before it lists the other suites' as orphans (issue 21).
#[test]
fn a_suites_run_is_judged_in_its_own_folder() {
    let t = TestDir::new();
    t.write("vcr.toml", "");
    let mut suites = Vec::new();
    for suite in ["a", "b"] {
        let mut names = Vec::new();
        for i in 0..2 {
            let (name, text) = fixture(&[&format!("\"{suite} {i}\"")], &format!("answer {i}"));
            t.write(&format!("pkg/{suite}/fixtures/{name}"), text);
            names.push(name);
        }
        suites.push(names);
    }
    // Suite a's harness, run from its folder, logs the one cassette it reads relative to it.
    t.write(
        "pkg/a/test.sh",
        format!(
            "set -e\necho \"fixtures/{}\" >> \"$VCR_USAGE_LOG\"\n",
            suites[0][0]
        ),
    );
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "."]);
    git(&t.root, &["commit", "-q", "-m", "suites"]);
    let run = |args: &[&str]| {
        let mut cmd = t.command_in("pkg/a", args, &[]);
        isolate_git(&mut cmd);
        Run::from(cmd.output().unwrap())
    };
    let alone = run(&["prune", ".", "--", "sh", "test.sh"]);
    alone
        .code(0)
        .stdout_has(&format!("pkg/a/fixtures/{}", suites[0][1]))
        .stdout_has("1 orphan");
    assert!(!alone.stdout.contains("pkg/b/"), "{}", alone.stdout);
    assert!(
        !alone.stderr.contains("note: the run read"),
        "{}",
        alone.stderr
    );
    // The whole tree against one suite's run: the note comes first, then every orphan.
    let whole = run(&["prune", "--format", "json", "--", "sh", "test.sh"]);
    whole
        .code(0)
        .stderr_has("note: the run read cassettes under `pkg/a/fixtures/` only; 2 orphans listed below lie outside it");
    let doc = whole.json();
    assert_eq!(
        doc["summary"]["partial_run"],
        serde_json::json!({"folder": "pkg/a/fixtures", "outside": 2}),
        "{doc}"
    );
    assert_eq!(doc["summary"]["orphans"], 3, "{doc}");
}

/// The dry run's closing line gives the command that deletes what it listed: the same
/// paths and test command after `--` (`--delete` alone has no usage and exits 2). The test
/// runs that line through a shell, as a user pastes it.
#[test]
fn the_dry_run_hint_is_a_command_that_works() {
    let (t, names) = repo();
    let harness = format!(
        "echo {} >> \"$VCR_USAGE_LOG\"; echo '{}' >> \"$VCR_USAGE_LOG\"",
        names[0], names[4]
    );
    let dry = vcr(&t, &["prune", "fixtures", "--", "sh", "-c", &harness]);
    dry.code(0).stdout_has("3 orphans (");
    let hint = dry
        .stdout
        .lines()
        .last()
        .and_then(|line| line.split('`').nth(1))
        .unwrap_or_else(|| panic!("no command in:\n{}", dry.stdout))
        .to_owned();
    assert!(
        hint.starts_with("vcr prune --delete fixtures -- sh -c 'echo "),
        "{hint}"
    );

    let bin = Path::new(env!("CARGO_BIN_EXE_vcr")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut sh = std::process::Command::new("sh");
    sh.args(["-c", &hint])
        .current_dir(&t.root)
        .env("PATH", path);
    for (key, _) in std::env::vars() {
        if key.starts_with("VCR_") {
            sh.env_remove(key);
        }
    }
    isolate_git(&mut sh);
    let delete = Run::from(sh.output().unwrap());
    delete.code(0).stdout_has("deleted 3 orphans");
    assert!(!t.exists(&names[1]) && !t.exists(&names[2]) && !t.exists(&names[3]));
    assert!(t.exists(&names[0]) && t.exists(&names[4]));
}
