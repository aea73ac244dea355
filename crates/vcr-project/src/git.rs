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
    #[error("cannot run git")]
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

/// When the last commit that touched `path` was made (committer time, seconds since the
/// epoch), if the file is in a git repository and committed.
pub fn last_commit_time(path: &Path) -> Option<i64> {
    let dir = path.parent()?;
    let name = path.file_name()?.to_str()?;
    let out = git(dir, &["log", "-1", "--format=%ct", "--", name]).ok()?;
    String::from_utf8(out).ok()?.trim().parse().ok()
}

/// The top folder of the repository holding `dir`.
pub fn toplevel(dir: &Path) -> Result<PathBuf, GitError> {
    let out = git(dir, &["rev-parse", "--show-toplevel"])?;
    let path = String::from_utf8_lossy(&out)
        .trim_end_matches(['\n', '\r'])
        .to_owned();
    Ok(std::fs::canonicalize(&path).unwrap_or_else(|_| PathBuf::from(path)))
}

/// The best common ancestor of two revisions (`git merge-base`), as a commit id: what a
/// range `A...B` compares `B` with, as a pull request's diff does.
pub fn merge_base(top: &Path, a: &str, b: &str) -> Result<String, GitError> {
    let out = git(top, &["merge-base", a, b]).map_err(|_| GitError::Failed {
        command: format!("merge-base {a} {b}"),
        stderr: format!("`{a}` and `{b}` have no common ancestor in this repository"),
    })?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
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
    let requests: Vec<Vec<u8>> = names
        .iter()
        .map(|name| [b":".as_slice(), name].concat())
        .collect();
    for (name, content) in names.iter().zip(cat_blobs(&top, requests)?) {
        let path = top.join(String::from_utf8_lossy(name).as_ref());
        out.insert(path, content);
    }
    Ok(out)
}

/// The files git tracks under `root` (absolute paths), or `None` when `root` is not in a
/// git repository: outside one, nothing is "untracked" (DESIGN, Git).
pub fn tracked(root: &Path) -> Result<Option<std::collections::BTreeSet<PathBuf>>, GitError> {
    // Asking git outside a repository fails with an error that depends on its version and
    // language; looking for `.git` first keeps "not a repository" apart from "git failed".
    if !root.ancestors().any(|dir| dir.join(".git").exists()) {
        return Ok(None);
    }
    let out = git(root, &["ls-files", "-z", "--cached"])?;
    Ok(Some(
        out.split(|&b| b == 0)
            .filter(|name| !name.is_empty())
            .map(|name| root.join(String::from_utf8_lossy(name).as_ref()))
            .collect(),
    ))
}

/// The contents of the objects named by `requests` (`:path` for the index, an object id, or
/// `REV:path`), in order, through one `git cat-file --batch`.
fn cat_blobs(top: &Path, requests: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, GitError> {
    let mut out = Vec::with_capacity(requests.len());
    if requests.is_empty() {
        return Ok(out);
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(GitError::Spawn)?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let count = requests.len();
    let input: Vec<u8> = requests
        .into_iter()
        .flat_map(|r| [r, b"\n".to_vec()].concat())
        .collect();
    // Write from another thread so a large answer cannot block on a full request pipe.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
    let command = || GitError::Output {
        command: "cat-file --batch".into(),
    };
    for _ in 0..count {
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
        out.push(content);
    }
    let _ = writer.join();
    let status = child.wait().map_err(GitError::Spawn)?;
    if !status.success() {
        return Err(command());
    }
    Ok(out)
}

/// Files of a revision larger than this are not read with the others but streamed from git
/// when their cassette is compared ([`open_blob`]): a session log of a hundred megabytes in
/// a revision must not sit whole in memory (issue 12), and every other file is read in one
/// `cat-file --batch`.
pub const INLINE_BLOB: u64 = 1 << 20;

/// A file of a revision, as [`tree_at`] returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevFile {
    /// Its contents (a file of at most [`INLINE_BLOB`] bytes).
    Contents(Vec<u8>),
    /// A larger file: its object, for [`open_blob`].
    Object {
        /// The blob's object id.
        id: String,
        /// Its size in bytes.
        size: u64,
    },
}

/// The files of the tree at revision `rev` under `pathspecs` (relative to the top folder
/// `top`; none means the whole tree), as `(path relative to top, file)` in path order: the
/// contents of each file of at most [`INLINE_BLOB`] bytes, the object of each larger one.
/// Read through git (`ls-tree`, then one `cat-file --batch`), never checked out. Symbolic
/// links and submodules are left out: vcr never follows links.
pub fn tree_at(
    top: &Path,
    rev: &str,
    pathspecs: &[String],
) -> Result<Vec<(String, RevFile)>, GitError> {
    // `--verify` first, so that a bad revision is named as such and not as an empty tree.
    git(
        top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{tree}}"),
        ],
    )
    .map_err(|_| GitError::Failed {
        command: format!("rev-parse --verify {rev}"),
        stderr: format!("`{rev}` is not a revision of this repository"),
    })?;
    let mut args = vec!["ls-tree", "-r", "-z", "-l", "--full-tree", rev, "--"];
    args.extend(pathspecs.iter().map(String::as_str));
    let listing = git(top, &args)?;
    let output = || GitError::Output {
        command: "ls-tree".into(),
    };
    let mut files = Vec::new();
    let mut inline = Vec::new();
    for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // "<mode> <type> <object> <size, padded>\t<path>"
        let tab = record.iter().position(|&b| b == b'\t').ok_or_else(output)?;
        let meta = String::from_utf8_lossy(&record[..tab]);
        let mut fields = meta.split_ascii_whitespace();
        let (mode, kind, object, size) =
            (fields.next(), fields.next(), fields.next(), fields.next());
        if kind != Some("blob") || mode == Some("120000") {
            continue;
        }
        let id = object.ok_or_else(output)?.to_owned();
        let size: u64 = size.and_then(|s| s.parse().ok()).ok_or_else(output)?;
        let path = String::from_utf8_lossy(&record[tab + 1..]).into_owned();
        if size > INLINE_BLOB {
            files.push((path, RevFile::Object { id, size }));
        } else {
            inline.push(id.as_bytes().to_vec());
            files.push((path, RevFile::Contents(Vec::new())));
        }
    }
    let mut contents = cat_blobs(top, inline)?.into_iter();
    for (_, file) in &mut files {
        if let RevFile::Contents(bytes) = file {
            *bytes = contents.next().ok_or_else(output)?;
        }
    }
    Ok(files)
}

/// The contents of the blob `id` as a stream (`git cat-file blob`), for a file too large to
/// hold ([`RevFile::Object`]).
pub fn open_blob(top: &Path, id: &str) -> Result<BlobReader, GitError> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["cat-file", "blob", id])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(GitError::Spawn)?;
    let stdout = child.stdout.take().expect("piped stdout");
    Ok(BlobReader {
        child,
        stdout,
        id: id.to_owned(),
        done: false,
    })
}

/// A blob read from `git cat-file blob` ([`open_blob`]): the end of its output is an error
/// when git failed; dropped before the end, git is stopped.
#[derive(Debug)]
pub struct BlobReader {
    child: std::process::Child,
    stdout: std::process::ChildStdout,
    id: String,
    done: bool,
}

impl Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.stdout.read(buf)?;
        if n == 0 && !buf.is_empty() && !self.done {
            self.done = true;
            if !self.child.wait()?.success() {
                return Err(std::io::Error::other(format!(
                    "`git cat-file blob {}` failed",
                    self.id
                )));
            }
        }
        Ok(n)
    }
}

impl Drop for BlobReader {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
