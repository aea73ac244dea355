//! What vcr asks git: the staged files and their staged contents.
//!
//! `--staged` checks what is about to be committed, which is the index, not the working
//! file (a file can be staged and then edited). A staged file whose bytes on disk are its
//! index blob is read from disk; the others, and a revision's files, with one
//! `git cat-file --batch` for all of them, not one process per file.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::store::ContentHash;

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
///
/// Found without git where git would find it the same way (a hook pays for every process
/// it starts, issue 44): the nearest folder at or above `dir` that holds `.git`, a folder or
/// the file a worktree or a submodule has. Where git's own variables move the repository
/// or bound the search, or `dir` is inside a `.git` folder, git is asked.
pub fn toplevel(dir: &Path) -> Result<PathBuf, GitError> {
    if let Some(top) = toplevel_by_marker(dir) {
        return Ok(top);
    }
    let out = git(dir, &["rev-parse", "--show-toplevel"])?;
    let path = String::from_utf8_lossy(&out)
        .trim_end_matches(['\n', '\r'])
        .to_owned();
    Ok(std::fs::canonicalize(&path).unwrap_or_else(|_| PathBuf::from(path)))
}

/// The variables with which git finds a repository elsewhere than by `.git` upward.
const DISCOVERY_VARIABLES: [&str; 4] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
];

/// [`toplevel`] by the `.git` marker, or `None` where only git can tell.
fn toplevel_by_marker(dir: &Path) -> Option<PathBuf> {
    if DISCOVERY_VARIABLES
        .iter()
        .any(|name| std::env::var_os(name).is_some())
    {
        return None;
    }
    let dir = std::fs::canonicalize(dir).ok()?;
    if dir.components().any(|c| c.as_os_str() == ".git") {
        return None;
    }
    dir.ancestors()
        .find(|folder| folder.join(".git").exists())
        .map(Path::to_path_buf)
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
/// by absolute path. Deleted files are not included: there is nothing to check, nor are
/// submodules (a commit of another repository, no file).
///
/// One `git diff --cached --raw` names each staged file with its blob id. A working file
/// whose bytes hash to that id is the staged contents (the usual case: staged and not edited
/// since), and is read from disk; only the others are read from git, through one
/// `git cat-file --batch` (issue 44: each process is paid on every commit).
pub fn staged(dir: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, GitError> {
    match start_staged(dir) {
        Some(started) => started?.finish(),
        None => PendingStaged::spawn(toplevel(dir)?)?.finish(),
    }
}

/// [`staged`] begun: `git diff --cached --raw` started, where the top folder is known without
/// git (`None` where only git can tell, see [`toplevel`]; [`staged`] then asks it).
///
/// A pre-commit hook pays for every millisecond before git starts, and a thread may wait
/// some for a core on a busy machine: the caller starts git on its own thread, at once, and
/// finishes on another while it does other work (issue 44).
pub fn start_staged(dir: &Path) -> Option<Result<PendingStaged, GitError>> {
    toplevel_by_marker(dir).map(PendingStaged::spawn)
}

/// The arguments of the one `git diff` that [`staged`] starts.
const STAGED_DIFF: [&str; 6] = [
    "diff",
    "--cached",
    "--raw",
    "-z",
    "--no-abbrev",
    "--diff-filter=ACMR",
];

/// A `git diff --cached --raw` running for [`staged`] ([`start_staged`]).
#[derive(Debug)]
pub struct PendingStaged {
    top: PathBuf,
    child: std::process::Child,
}

impl PendingStaged {
    fn spawn(top: PathBuf) -> Result<PendingStaged, GitError> {
        let child = Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(STAGED_DIFF)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::Spawn)?;
        Ok(PendingStaged { top, child })
    }

    /// Waits for git, and reads the staged contents ([`staged`]).
    pub fn finish(self) -> Result<BTreeMap<PathBuf, Vec<u8>>, GitError> {
        let PendingStaged { top, child } = self;
        let output = child.wait_with_output().map_err(GitError::Spawn)?;
        if !output.status.success() {
            return Err(GitError::Failed {
                command: STAGED_DIFF.join(" "),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        staged_contents(&top, &output.stdout)
    }
}

/// The staged contents of what `git diff --cached --raw` printed, in the repository at `top`.
fn staged_contents(top: &Path, raw: &[u8]) -> Result<BTreeMap<PathBuf, Vec<u8>>, GitError> {
    let entries = parse_raw(raw).ok_or_else(|| GitError::Output {
        command: "diff --cached --raw".into(),
    })?;
    let mut out = BTreeMap::new();
    let mut from_git = Vec::new();
    for entry in entries {
        if entry.mode == "160000" {
            continue;
        }
        let path = top.join(String::from_utf8_lossy(entry.path).as_ref());
        if entry.mode != "120000"
            && let Ok(bytes) = std::fs::read(&path)
            && ContentHash::from_hex(entry.id) == Some(blob_id(&bytes))
        {
            out.insert(path, bytes);
        } else {
            from_git.push((path, entry.id.as_bytes().to_vec()));
        }
    }
    let (paths, requests): (Vec<PathBuf>, Vec<Vec<u8>>) = from_git.into_iter().unzip();
    for (path, content) in paths.into_iter().zip(cat_blobs(top, requests)?) {
        out.insert(path, content);
    }
    Ok(out)
}

/// One record of `git diff --raw -z --no-abbrev`: the new side's mode, blob id and path.
#[derive(Debug, PartialEq, Eq)]
struct RawEntry<'a> {
    mode: &'a str,
    id: &'a str,
    path: &'a [u8],
}

/// The records of `git diff --raw -z --no-abbrev` output: `:<old mode> <new mode> <old id>
/// <new id> <status>` then the path, or for a rename or copy (`R<score>`, `C<score>`) the
/// old path and the new one, each ended by NUL. `None` when the output has another shape.
fn parse_raw(raw: &[u8]) -> Option<Vec<RawEntry<'_>>> {
    let mut fields = raw.split(|&b| b == 0);
    let mut out = Vec::new();
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let meta = std::str::from_utf8(meta.strip_prefix(b":")?).ok()?;
        let parts: Vec<&str> = meta.split(' ').collect();
        let [_, mode, _, id, status] = parts.as_slice() else {
            return None;
        };
        let mut path = fields.next()?;
        if status.starts_with(['R', 'C']) {
            path = fields.next()?;
        }
        out.push(RawEntry { mode, id, path });
    }
    Some(out)
}

/// The id git gives `bytes` as a blob: the SHA-1 of `blob <size>\0` and the bytes. In a
/// SHA-256 repository no id is 40 hex digits, and every staged file is read from git.
fn blob_id(bytes: &[u8]) -> ContentHash {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    ContentHash::from_bytes(hasher.finalize().into())
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

/// A `git cat-file` batch (`--batch` or `--batch-check`) being fed its requests, one a line.
struct Batch {
    child: std::process::Child,
    reader: BufReader<std::process::ChildStdout>,
    /// Writes the requests from another thread, so that a large answer cannot block on a
    /// full request pipe.
    writer: std::thread::JoinHandle<std::io::Result<()>>,
}

impl Batch {
    fn start(top: &Path, mode: &str, requests: Vec<Vec<u8>>) -> Result<Batch, GitError> {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(top)
            .args(["cat-file", mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(GitError::Spawn)?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let input: Vec<u8> = requests
            .into_iter()
            .flat_map(|r| [r, b"\n".to_vec()].concat())
            .collect();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let reader = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Batch {
            child,
            reader,
            writer,
        })
    }
}

/// The contents of the objects named by `requests` (`:path` for the index, an object id, or
/// `REV:path`), in order, through one `git cat-file --batch`.
fn cat_blobs(top: &Path, requests: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, GitError> {
    let mut out = Vec::with_capacity(requests.len());
    if requests.is_empty() {
        return Ok(out);
    }
    let count = requests.len();
    let Batch {
        mut child,
        mut reader,
        writer,
    } = Batch::start(top, "--batch", requests)?;
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
    /// The working tree's file at the same path, which git says is unchanged since the
    /// revision: not read from git at all ([`Against::WorkingTree`]).
    Unchanged,
}

/// What the revision read by [`tree_at`] is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// Another revision: every file is read from git.
    Revision,
    /// The working tree: the files git finds unchanged (`git diff REV`, which trusts the
    /// index's record of each file's size and time as `git status` does) are not read from
    /// git, only named ([`RevFile::Unchanged`]).
    WorkingTree,
}

/// The files of the tree at revision `rev` under `pathspecs` (relative to the top folder
/// `top`; none means the whole tree), as `(path relative to top, file)` in path order: the
/// contents of each file of at most [`INLINE_BLOB`] bytes, the object of each larger one,
/// or, against the working tree, [`RevFile::Unchanged`] for a file git finds unchanged.
/// Read through git, never checked out: `ls-tree`, then, against the working tree, one
/// `diff --raw`, and for the files left to read one `cat-file --batch-check` (their sizes) and
/// one `cat-file --batch`. A run where nothing changed starts two git processes, and reads
/// no blob (issue 44). Symbolic links and submodules are left out: vcr never follows links.
pub fn tree_at(
    top: &Path,
    rev: &str,
    pathspecs: &[String],
    against: Against,
) -> Result<Vec<(String, RevFile)>, GitError> {
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree"];
    if against == Against::Revision {
        args.push("-l");
    }
    args.extend([rev, "--"]);
    args.extend(pathspecs.iter().map(String::as_str));
    let listing = git(top, &args).map_err(|e| {
        // A bad revision is named as such, not by git's words for a failed listing.
        let verify = format!("{rev}^{{tree}}");
        match git(top, &["rev-parse", "--verify", "--quiet", &verify]) {
            Ok(_) => e,
            Err(_) => GitError::Failed {
                command: format!("rev-parse --verify {rev}"),
                stderr: format!("`{rev}` is not a revision of this repository"),
            },
        }
    })?;
    let changed = match against {
        Against::Revision => None,
        Against::WorkingTree => {
            let mut args = vec![
                "diff",
                "--raw",
                "-z",
                "--no-abbrev",
                "--no-renames",
                rev,
                "--",
            ];
            args.extend(pathspecs.iter().map(String::as_str));
            let raw = git(top, &args)?;
            let entries = parse_raw(&raw).ok_or_else(|| GitError::Output {
                command: "diff --raw".into(),
            })?;
            Some(
                entries
                    .into_iter()
                    .map(|e| e.path.to_vec())
                    .collect::<std::collections::HashSet<Vec<u8>>>(),
            )
        }
    };
    let output = || GitError::Output {
        command: "ls-tree".into(),
    };
    let mut files = Vec::new();
    // (index in `files`, object id, size if known) of each file to read from git.
    let mut unread: Vec<(usize, String, Option<u64>)> = Vec::new();
    for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // "<mode> <type> <object>[ <size, padded>]\t<path>"
        let tab = record.iter().position(|&b| b == b'\t').ok_or_else(output)?;
        let meta = String::from_utf8_lossy(&record[..tab]);
        let mut fields = meta.split_ascii_whitespace();
        let (mode, kind, object) = (fields.next(), fields.next(), fields.next());
        if kind != Some("blob") || mode == Some("120000") {
            continue;
        }
        let id = object.ok_or_else(output)?.to_owned();
        let size = match against {
            Against::Revision => Some(
                fields
                    .next()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(output)?,
            ),
            Against::WorkingTree => None,
        };
        let name = &record[tab + 1..];
        let path = String::from_utf8_lossy(name).into_owned();
        let unchanged = changed
            .as_ref()
            .is_some_and(|changed| !changed.contains(name) && top.join(&path).is_file());
        if unchanged {
            files.push((path, RevFile::Unchanged));
        } else {
            unread.push((files.len(), id, size));
            files.push((path, RevFile::Contents(Vec::new())));
        }
    }
    if unread.iter().any(|(_, _, size)| size.is_none()) {
        let ids: Vec<Vec<u8>> = unread
            .iter()
            .map(|(_, id, _)| id.as_bytes().to_vec())
            .collect();
        for ((_, _, size), found) in unread.iter_mut().zip(blob_sizes(top, ids)?) {
            *size = Some(found);
        }
    }
    let mut inline = Vec::new();
    for (at, id, size) in unread {
        let size = size.ok_or_else(output)?;
        if size > INLINE_BLOB {
            files[at].1 = RevFile::Object { id, size };
        } else {
            inline.push((at, id.into_bytes()));
        }
    }
    let (at, requests): (Vec<usize>, Vec<Vec<u8>>) = inline.into_iter().unzip();
    for (at, bytes) in at.into_iter().zip(cat_blobs(top, requests)?) {
        files[at].1 = RevFile::Contents(bytes);
    }
    Ok(files)
}

/// The sizes of the objects `ids`, in order, through one `git cat-file --batch-check`.
fn blob_sizes(top: &Path, ids: Vec<Vec<u8>>) -> Result<Vec<u64>, GitError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let command = || GitError::Output {
        command: "cat-file --batch-check".into(),
    };
    let count = ids.len();
    let Batch {
        mut child,
        reader,
        writer,
    } = Batch::start(top, "--batch-check", ids)?;
    let mut sizes = Vec::with_capacity(count);
    for line in reader.lines().take(count) {
        let line = line.map_err(GitError::Spawn)?;
        // "<id> blob <size>", or "<id> missing".
        sizes.push(
            line.rsplit(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(command)?,
        );
    }
    let _ = writer.join();
    if !child.wait().map_err(GitError::Spawn)?.success() || sizes.len() != count {
        return Err(command());
    }
    Ok(sizes)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_records_give_the_new_side_of_each_change() {
        let z = "0".repeat(40);
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let raw = format!(
            ":000000 100644 {z} {a} A\0new file.json\0\
             :100644 100644 {a} {b} R087\0old/x.yaml\0new/x.yaml\0\
             :160000 160000 {a} {b} M\0sub\0"
        );
        let entries = parse_raw(raw.as_bytes()).unwrap();
        assert_eq!(
            entries,
            [
                RawEntry {
                    mode: "100644",
                    id: &a,
                    path: b"new file.json"
                },
                RawEntry {
                    mode: "100644",
                    id: &b,
                    path: b"new/x.yaml"
                },
                RawEntry {
                    mode: "160000",
                    id: &b,
                    path: b"sub"
                },
            ]
        );
        assert_eq!(parse_raw(b"").unwrap(), []);
        assert!(
            parse_raw(b"new file.json\0").is_none(),
            "--name-only is no raw output"
        );
    }

    #[test]
    fn blob_ids_are_gits() {
        // git itself is the oracle: `git hash-object --stdin` hashes what it is given.
        for bytes in [
            &b""[..],
            b"hello\n",
            b"{\n  \"a\": 1\n}",
            &[0u8, 255, 10, 13][..],
        ] {
            let mut child = Command::new("git")
                .args(["hash-object", "--stdin"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("git runs");
            child.stdin.take().unwrap().write_all(bytes).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success());
            assert_eq!(
                blob_id(bytes).to_hex(),
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
    }

    #[test]
    fn the_top_folder_is_found_by_its_marker_as_git_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        let init = Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["init", "-q"])
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .status()
            .unwrap();
        assert!(init.success());
        if DISCOVERY_VARIABLES
            .iter()
            .any(|v| std::env::var_os(v).is_some())
        {
            // Run inside a hook: git is asked, as it must be; nothing to compare.
            return;
        }
        assert_eq!(toplevel_by_marker(&top.join("a/b")), Some(top.clone()));
        assert_eq!(toplevel(&top.join("a/b")).unwrap(), top);
        // Inside `.git`, only git knows (it says there is no work tree there).
        assert_eq!(toplevel_by_marker(&top.join(".git")), None);
        // A worktree's `.git` is a file.
        std::fs::create_dir_all(top.join("w")).unwrap();
        std::fs::write(top.join("w/.git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(toplevel_by_marker(&top.join("w")), Some(top.join("w")));
    }

    /// git run in a temp repository, with no user configuration and no hook's variables.
    fn git_in(top: &Path, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(top)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// A new repository in a temp dir, and its top folder; `None` inside a hook, where only
    /// git finds the repository (`staged` is tested there).
    fn new_repository() -> Option<(tempfile::TempDir, PathBuf)> {
        if DISCOVERY_VARIABLES
            .iter()
            .any(|v| std::env::var_os(v).is_some())
        {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        git_in(&top, &["init", "-q"]);
        Some((dir, top))
    }

    #[test]
    fn staged_started_early_reads_the_index_as_staged_does() {
        let Some((_dir, top)) = new_repository() else {
            return;
        };
        std::fs::create_dir_all(top.join("fixtures")).unwrap();
        std::fs::write(top.join("fixtures/a.json"), "{\"a\": 1}\n").unwrap();
        std::fs::write(top.join("fixtures/b.json"), "{\"b\": 1}\n").unwrap();
        git_in(&top, &["add", "-A"]);
        // Edited after it was staged: the staged bytes are git's, not the file's.
        std::fs::write(top.join("fixtures/b.json"), "{\"b\": 2}\n").unwrap();
        let started = start_staged(&top.join("fixtures"))
            .expect("the top folder is found by its marker")
            .unwrap();
        let files = started.finish().unwrap();
        assert_eq!(files, staged(&top.join("fixtures")).unwrap());
        let want: BTreeMap<PathBuf, Vec<u8>> = [
            (top.join("fixtures/a.json"), b"{\"a\": 1}\n".to_vec()),
            (top.join("fixtures/b.json"), b"{\"b\": 1}\n".to_vec()),
        ]
        .into_iter()
        .collect();
        assert_eq!(files, want);
        // Inside `.git` only git can tell where the top folder is: nothing is started.
        assert!(start_staged(&top.join(".git")).is_none());
    }

    #[test]
    fn staged_started_early_names_the_command_git_refused() {
        let Some((_dir, top)) = new_repository() else {
            return;
        };
        std::fs::write(top.join(".git/index"), "not an index").unwrap();
        let error = start_staged(&top).unwrap().unwrap().finish().unwrap_err();
        match error {
            GitError::Failed { command, stderr } => {
                assert_eq!(
                    command,
                    "diff --cached --raw -z --no-abbrev --diff-filter=ACMR"
                );
                assert!(stderr.contains("index"), "git's own words: {stderr}");
            }
            other => panic!("not git's refusal: {other:?}"),
        }
    }
}
