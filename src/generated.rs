//! The completions in `completions/` and the man pages in `man/` are generated from the clap
//! definition; this test fails when they are stale.
//!
//! Regenerate with `VCR_REGENERATE=1 cargo test --bin vcr generated`.

use std::path::{Path, PathBuf};

use clap_complete::Shell;

use crate::generate::{completion, man_pages};

/// Every generated file with its expected contents, relative to the repository root: what
/// `vcr --generate` prints comes from the same functions.
fn generated_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "vcr.bash"),
        (Shell::Zsh, "_vcr"),
        (Shell::Fish, "vcr.fish"),
        (Shell::PowerShell, "_vcr.ps1"),
    ] {
        files.push((Path::new("completions").join(name), completion(shell)));
    }
    for (name, page) in man_pages() {
        files.push((Path::new("man").join(name), page));
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
