//! What the documentation promises (issue 11): the README's demo works as pasted, twice; its
//! snippets hold nothing a user would have to invent; `vcr --generate` prints what the
//! repository ships in `man/` and `completions/`; the man pages have the sections a man page
//! is expected to have, with value names in their synopses and true environment variables.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, TestDir};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README and every page of `docs/`, one after another: what a user reads.
fn readme() -> String {
    let mut text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(page).unwrap());
    }
    text
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

/// The documentation's first ```` ```info ```` block that holds `text`.
fn readme_block(info: &str, text: &str) -> String {
    code_blocks(&readme())
        .into_iter()
        .find(|(i, body)| i == info && body.contains(text))
        .map(|(_, body)| body)
        .unwrap_or_else(|| panic!("the README has no {info} block with {text:?}"))
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
    let demo = readme_block("sh", "examples/claude-code-raw");
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
            .arg(&demo)
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

/// The README's local pre-commit hook runs the command the shipped hook runs: the shipped
/// one through `dist/pre-commit-hook`, which builds vcr with `--locked` and runs `vcr verify`
/// on the files it is given.
#[test]
fn the_readme_pre_commit_hook_matches_the_shipped_one() {
    let local = readme_block("yaml", "repo: local");
    let shipped = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    for key in ["id: vcr-verify", "require_serial: true"] {
        assert!(local.contains(key), "the README's hook lacks `{key}`");
        assert!(shipped.contains(key), "the shipped hook lacks `{key}`");
    }
    assert!(local.contains("entry: vcr verify"));
    assert!(shipped.contains("entry: dist/pre-commit-hook\n  language: script"));
    let script = std::fs::read_to_string(repo().join("dist/pre-commit-hook")).unwrap();
    assert!(script.contains("cargo install --locked "), "{script}");
    assert!(script.contains("exec \"$vcr\" verify \"$@\""), "{script}");
}

#[test]
fn generate_prints_what_the_repository_ships() {
    for (what, file) in [
        ("man", "man/vcr.1"),
        ("complete-bash", "completions/vcr.bash"),
        ("complete-zsh", "completions/_vcr"),
        ("complete-fish", "completions/vcr.fish"),
        ("complete-powershell", "completions/_vcr.ps1"),
    ] {
        let run = vcr(&["--generate", what]);
        run.code(0);
        let shipped = std::fs::read_to_string(repo().join(file)).unwrap();
        assert!(
            run.stdout == shipped,
            "`vcr --generate {what}` differs from {file}"
        );
    }
    // Every subcommand's page, for a user who installed the binary alone.
    for entry in std::fs::read_dir(repo().join("man")).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let Some(sub) = file.strip_prefix("vcr-").and_then(|f| f.strip_suffix(".1")) else {
            continue;
        };
        let run = vcr(&["--generate", "man", sub]);
        run.code(0);
        assert!(
            run.stdout == man_page(&file),
            "`vcr --generate man {sub}` differs from man/{file}"
        );
    }
    vcr(&["--generate", "complete-bash", "verify"])
        .code(2)
        .stderr_has("takes no subcommand");
    vcr(&["--generate", "man", "verify", "--staged"])
        .code(2)
        .stderr_has("takes no subcommand");
    // A subcommand is still required without --generate.
    vcr(&["-q"]).code(2).stderr_has("requires a subcommand");
}

fn man_page(name: &str) -> String {
    std::fs::read_to_string(repo().join("man").join(name)).unwrap()
}

#[test]
fn man_pages_have_the_expected_sections_and_value_names() {
    let pages: Vec<String> = std::fs::read_dir(repo().join("man"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(pages.len() >= 7, "{pages:?}");
    for name in &pages {
        let page = man_page(name);
        let sections: &[&str] = if name == "vcr.1" {
            &[
                "NAME",
                "SYNOPSIS",
                "DESCRIPTION",
                "OPTIONS",
                "SUBCOMMANDS",
                "\"EXIT STATUS\"",
                "ENVIRONMENT",
                "FILES",
                "EXAMPLES",
                "\"SEE ALSO\"",
            ]
        } else {
            &[
                "NAME",
                "SYNOPSIS",
                "DESCRIPTION",
                "OPTIONS",
                "\"EXIT STATUS\"",
                "EXAMPLES",
                "\"SEE ALSO\"",
            ]
        };
        let mut at = 0;
        for section in sections {
            let header = format!("\n.SH {section}\n");
            let found = page[at..]
                .find(&header)
                .unwrap_or_else(|| panic!("{name} lacks {section} (in order)"));
            at += found + header.len();
        }
        // Every option that takes a value shows it in the synopsis.
        let synopsis = page
            .split("\n.SH SYNOPSIS\n")
            .nth(1)
            .and_then(|s| s.split("\n.SH ").next())
            .unwrap();
        for option in ["-C", "--config", "--color", "--platform"] {
            let escaped = option.replace('-', "\\-");
            assert!(
                synopsis.contains(&format!("\\fB{escaped}\\fR <\\fI")),
                "{name}: `{option}` has no value name in the synopsis:\n{synopsis}"
            );
        }
    }
    assert!(man_page("vcr-verify.1").contains("[\\fB\\-\\-format\\fR <\\fIFORMAT\\fR>]"));
    assert!(man_page("vcr-record.1").contains("\\-\\- <\\fICMD\\fR>..."));
}

/// Every variable the ENVIRONMENT section names is one vcr reads or sets.
#[test]
fn the_man_page_environment_is_true() {
    let page = man_page("vcr.1");
    let section = page
        .split("\n.SH ENVIRONMENT\n")
        .nth(1)
        .and_then(|s| s.split("\n.SH ").next())
        .unwrap();
    let mut sources = String::new();
    let roots = [repo().join("src"), repo().join("crates")];
    for entry in roots.iter().flat_map(walkdir::WalkDir::new) {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "rs") {
            sources.push_str(&std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    let mut names = Vec::new();
    for line in section.lines() {
        if let Some(term) = line
            .strip_prefix("\\fB")
            .and_then(|l| l.strip_suffix("\\fR"))
        {
            names.extend(term.split(", ").map(str::to_owned));
        }
    }
    assert!(names.len() >= 9, "{names:?}");
    for name in names {
        assert!(
            sources.contains(&format!("\"{name}\"")),
            "the man page names `{name}`, which vcr never reads or sets"
        );
    }
}

/// The words of a shell command line, quotes removed (`'...'`, `"..."`).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}

/// Every `vcr` command in the shell blocks of the README and `docs/` runs as written, in a
/// copy of the example tree under git: it may find something, or fail for want of what the
/// reader has (a usage log, a test command), but it is never a usage error. A command that
/// uses a shell variable is taken with the loop's first value (`for c in verify ...`), or the
/// tree it runs in (the demo's `$demo`).
#[test]
fn every_documented_command_is_one_vcr_takes() {
    let mut commands = Vec::new();
    for (info, body) in code_blocks(&readme()) {
        if info != "sh" {
            continue;
        }
        let body = body.replace("\\\n", " ");
        for line in body.lines() {
            let line = line.trim();
            if line.starts_with('#') {
                continue;
            }
            // The loop variable of `for c in a b ...; do ... $c ...`: its first value.
            let first_value = line
                .split_once("for ")
                .and_then(|(_, rest)| rest.split_once(" in "))
                .and_then(|(_, values)| values.split_whitespace().next())
                .map(str::to_owned);
            // A comment ends the line (none of the commands has a `#` of its own).
            let line = line.split(" #").next().unwrap_or_default();
            for part in line.split(['&', ';', '|']) {
                let words = shell_words(part);
                let Some(at) = words.iter().position(|w| w == "vcr") else {
                    continue;
                };
                if at > 0 && !matches!(words[0].as_str(), "do" | "exec" | "then") {
                    continue;
                }
                let mut args = Vec::new();
                let mut skip_next = false;
                for word in &words[at + 1..] {
                    if std::mem::take(&mut skip_next) {
                        continue;
                    }
                    if word.starts_with('>') || word.starts_with("2>") {
                        skip_next = word == ">" || word == ">>" || word == "2>";
                        continue;
                    }
                    // A variable: the loop's first value, else the folder the demo made (here,
                    // the tree the command runs in).
                    let word = match (&first_value, word.strip_prefix('$')) {
                        (Some(value), Some(_)) => value.clone(),
                        (None, Some(_)) => ".".to_owned(),
                        _ => word.clone(),
                    };
                    args.push(word);
                }
                commands.push(args);
            }
        }
    }
    assert!(commands.len() >= 15, "{commands:?}");
    for args in &commands {
        let t = TestDir::copy_of(&repo().join("examples/claude-code"));
        common::git(&t.root, &["init", "-q"]);
        common::git(&t.root, &["add", "-A"]);
        common::git(&t.root, &["commit", "-qm", "Record"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vcr"));
        for (key, _) in std::env::vars() {
            if key.starts_with("VCR_") {
                cmd.env_remove(key);
            }
        }
        let run = Run::from(cmd.args(&args).current_dir(&t.root).output().unwrap());
        assert!(
            !run.stderr.contains("Usage:") && !run.stderr.contains("unexpected argument"),
            "`vcr {}` is not a command vcr takes:\n{}",
            args.join(" "),
            run.stderr
        );
    }
}

/// A file that does not parse: `verify` reports a `parse` finding and exits 1, the commands
/// that rewrite or rename it exit 2, and every doc that gives exit codes says the same.
#[test]
fn every_doc_gives_the_same_exit_code_for_a_file_that_does_not_parse() {
    let t = TestDir::new();
    t.write("fixtures/0123ab.json", "{\"a\": ");
    t.vcr(&["verify"]).code(1).stdout_has("error    parse ");
    t.vcr(&["normalize"]).code(2);
    t.vcr(&["rehash"]).code(2);

    let read = |rel: &str| std::fs::read_to_string(repo().join(rel)).unwrap();
    let commands = read("docs/commands.md");
    let row = |code: &str| {
        commands
            .lines()
            .find(|l| l.starts_with(&format!("| {code} |")))
            .unwrap_or_else(|| panic!("docs/commands.md has no exit code {code}"))
            .to_owned()
    };
    assert!(row("1").contains("a file that does not parse is one, `parse`"));
    assert!(row("2").contains("`verify` reports such a file as a `parse` finding, exit 1"));
    let verify = read("docs/verify.md");
    let parse = verify
        .lines()
        .find(|l| l.starts_with("| `parse` |"))
        .unwrap();
    assert!(parse.contains("so `verify` exits 1"), "{parse}");
    assert!(man_page("vcr.1").contains("a file that does not parse is one: parse"));
    assert!(man_page("vcr-verify.1").contains("a file that does not parse among them"));
    assert!(man_page("vcr-normalize.1").contains("could not be read or parsed"));
}

/// The README's install section says which ways work from a clone today and which only
/// once a release is published, so that a new user does not try the second kind first.
#[test]
fn the_readme_install_section_puts_what_works_today_first() {
    let readme = readme();
    let start = readme.find("## Install\n").expect("an Install section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let today = section
        .find("**From a clone, today.**")
        .expect("the ways that work from a clone");
    let later = section
        .find("**After a release is published**")
        .expect("the ways that need a release");
    assert!(today < later, "what works today comes first");
    let (now, after) = section.split_at(later);
    for works in [
        "cargo install --locked --path .",
        "maturin build --release",
        "target/wheels/vcr_cassettes-*.whl",
        "dist/release",
    ] {
        assert!(now.contains(works), "the clone's ways lack `{works}`");
    }
    for needs_a_release in [
        "install vcr-cassettes",
        "cargo binstall",
        "pre-commit mirror",
    ] {
        assert!(
            !now.contains(needs_a_release) && after.contains(needs_a_release),
            "`{needs_a_release}` needs a release and is said so"
        );
    }
    // The wheel the section tells to build is where it says, with the name it gives.
    let pyproject = std::fs::read_to_string(repo().join("pyproject.toml")).unwrap();
    assert!(pyproject.contains("name = \"vcr-cassettes\""));
    assert!(pyproject.contains("bindings = \"bin\""));
}
