//! The completions in `completions/` and the man pages in `man/` are generated from the clap
//! definition; this test fails when they are stale.
//!
//! Regenerate with `VCR_REGENERATE=1 cargo test --bin vcr generated`.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

/// Every generated file with its expected contents, relative to the repository root.
fn generated_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "vcr.bash"),
        (Shell::Zsh, "_vcr"),
        (Shell::Fish, "vcr.fish"),
        (Shell::PowerShell, "_vcr.ps1"),
    ] {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "vcr", &mut out);
        files.push((Path::new("completions").join(name), out));
    }
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = vec![cmd.clone()];
    pages.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for page in pages {
        let man = clap_mangen::Man::new(page);
        let mut out = Vec::new();
        man.render(&mut out).expect("rendering to memory");
        files.push((Path::new("man").join(man.get_filename()), out));
    }
    files
}

#[test]
fn generated_files_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let regenerate = std::env::var_os("VCR_REGENERATE").is_some();
    let mut stale = Vec::new();
    for (rel, expected) in generated_files() {
        let path = root.join(&rel);
        if regenerate {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &expected).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&expected[..]) {
            stale.push(rel.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {}\nregenerate them with `VCR_REGENERATE=1 cargo test --bin vcr generated` and commit the result",
        stale.join(", ")
    );
}
