//! What the documentation promises (issue 11): the README's demo works as pasted, twice; its
//! snippets hold nothing a user would have to invent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, TestDir};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The fenced code blocks of a Markdown text: (info string, body).
fn code_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in markdown.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => blocks.push(open.take().unwrap()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// `vcr` with no `-C` and a clean environment, as a user runs it.
fn vcr(args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vcr"));
    for (key, _) in std::env::vars() {
        if key.starts_with("VCR_") || key == "NO_COLOR" {
            cmd.env_remove(key);
        }
    }
    Run::from(cmd.args(args).output().unwrap())
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_vcr"))
        .parent()
        .unwrap()
        .to_owned()
}

#[cfg(unix)]
#[test]
fn the_readme_demo_works_when_run_twice() {
    let blocks = code_blocks(&readme());
    let (_, demo) = blocks
        .iter()
        .find(|(info, body)| info == "sh" && body.contains("examples/claude-code-raw"))
        .expect("the README's repair demo");
    let tmp = TestDir::new();
    let before = TestDir::copy_of(&repo().join("examples/claude-code-raw")).files("");
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for round in 1..=2 {
        let output = Command::new("sh")
            .arg("-c")
            .arg(demo)
            .current_dir(repo())
            .env("PATH", &path)
            .env("TMPDIR", &tmp.root)
            .env("HOME", "/home/tester")
            .env_remove("VCR_CONFIG")
            .output()
            .unwrap();
        let run = Run::from(output);
        assert!(
            run.stdout.trim_end().ends_with("identical"),
            "round {round}: the demo did not end in `identical`:\n{}\n{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(
            std::fs::read_dir(&tmp.root).unwrap().count(),
            round,
            "each run works in a folder of its own"
        );
    }
    let after = TestDir::copy_of(&repo().join("examples/claude-code-raw")).files("");
    assert_eq!(before, after, "the demo changed the example tree");
}

#[test]
fn the_quick_start_says_what_verify_prints() {
    let run = vcr(&[
        "-C",
        &repo().join("examples/claude-code").to_string_lossy(),
        "verify",
    ]);
    run.code(0);
    let line = run.stdout.trim_end().lines().last().unwrap().to_owned();
    assert!(
        readme().contains(&format!("(`{line}`)")),
        "the README does not quote `{line}`"
    );
}

#[test]
fn readme_snippets_hold_no_placeholder_to_invent() {
    for (info, body) in code_blocks(&readme()) {
        for placeholder in ["OWNER", "path/to/", "<this repository", "your-org"] {
            assert!(
                !body.contains(placeholder),
                "a ```{info} block holds `{placeholder}`:\n{body}"
            );
        }
    }
}

/// The README's local pre-commit hook runs the command the shipped hook runs.
#[test]
fn the_readme_pre_commit_hook_matches_the_shipped_one() {
    let blocks = code_blocks(&readme());
    let (_, local) = blocks
        .iter()
        .find(|(info, body)| info == "yaml" && body.contains("repo: local"))
        .expect("the README's pre-commit configuration");
    let shipped = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    for key in [
        "id: vcr-verify",
        "entry: vcr verify",
        "require_serial: true",
    ] {
        assert!(local.contains(key), "the README's hook lacks `{key}`");
        assert!(shipped.contains(key), "the shipped hook lacks `{key}`");
    }
}
