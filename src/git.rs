//! What vcr asks git: the staged files and their staged contents.
//!
//! `--staged` checks what is about to be committed, which is the index, not the working
//! file (a file can be staged and then edited). Contents are read with one
//! `git cat-file --batch` for all files, not one process per file.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A git command that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    /// git could not be started.
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// git said no (not a repository, ...).
    #[error("`git {command}` failed: {stderr}")]
    Failed {
        /// The arguments.
        command: String,
        /// What git printed.
        stderr: String,
    },
    /// git's output was not what was asked for.
    #[error("unexpected output from `git {command}`")]
    Output {
        /// The arguments.
        command: String,
    },
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(GitError::Spawn)?;
    if !output.status.success() {
        return Err(GitError::Failed {
            command: args.join(" "),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    Ok(output.stdout)
}

/// The top folder of the repository holding `dir`.
pub fn toplevel(dir: &Path) -> Result<PathBuf, GitError> {
    let out = git(dir, &["rev-parse", "--show-toplevel"])?;
    let path = String::from_utf8_lossy(&out)
        .trim_end_matches(['\n', '\r'])
        .to_owned();
    Ok(std::fs::canonicalize(&path).unwrap_or_else(|_| PathBuf::from(path)))
}

/// The staged contents of every file added, copied, modified or renamed in the index,
/// by absolute path. Deleted files are not included: there is nothing to check.
pub fn staged(dir: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, GitError> {
    let top = toplevel(dir)?;
    let names = git(
        &top,
        &[
            "diff",
            "--cached",
            "--name-only",
            "-z",
            "--diff-filter=ACMR",
        ],
    )?;
    let names: Vec<&[u8]> = names.split(|&b| b == 0).filter(|n| !n.is_empty()).collect();
    let mut out = BTreeMap::new();
    if names.is_empty() {
        return Ok(out);
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(GitError::Spawn)?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let requests: Vec<u8> = names
        .iter()
        .flat_map(|name| [b":".as_slice(), name, b"\n"].concat())
        .collect();
    // Write from another thread so a large answer cannot block on a full request pipe.
    let writer = std::thread::spawn(move || stdin.write_all(&requests));
    let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
    let command = || GitError::Output {
        command: "cat-file --batch".into(),
    };
    for name in &names {
        let mut header = String::new();
        reader.read_line(&mut header).map_err(GitError::Spawn)?;
        // "<sha> blob <size>\n", or "<name> missing\n".
        let size: usize = header
            .trim_end()
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(command)?;
        let mut content = vec![0; size + 1];
        reader.read_exact(&mut content).map_err(GitError::Spawn)?;
        content.pop(); // the newline after each object
        let path = top.join(String::from_utf8_lossy(name).as_ref());
        out.insert(path, content);
    }
    let _ = writer.join();
    let status = child.wait().map_err(GitError::Spawn)?;
    if !status.success() {
        return Err(command());
    }
    Ok(out)
}
