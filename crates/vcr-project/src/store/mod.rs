//! Writing to the tree without ever losing a file.
//!
//! Every write goes to a temporary file in the target's own folder, is flushed to disk, takes
//! the original's permissions, and is renamed over the target: a reader sees the old file or
//! the new one, never half of one. Multi-file renames go through a journal under `.vcr/`
//! ([`journal`]) so that a run killed at any instant is completed by the next one. Writes are
//! refused outside the project root and through symbolic links.
//!
//! Mutating commands hold an exclusive lock on `.vcr/lock` while they work, and only under it
//! do they recover an interrupted operation or remove the temporary files a killed run left.
//!
//! A plan applies only to what it read: every write and move carries the [`ContentHash`] of
//! the bytes the plan was made from, and a file that changed since (an editor saved it, `git
//! checkout` replaced it) is left as it is and reported, never overwritten with a rewrite of
//! its old contents.

pub mod journal;
pub mod stash;

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sha1::{Digest, Sha1};

use crate::tree::{LinkCheck, TEMP_PREFIX, lexical_absolute, link_in};

/// A failed store operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A file system call failed.
    #[error("cannot {op} {}", path.display())]
    Io {
        /// What was being done (`write`, `rename`, ...).
        op: &'static str,
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The target is outside the project root.
    #[error("refusing to write {}: outside the project root", path.display())]
    Outside {
        /// The file.
        path: PathBuf,
    },
    /// The target or a folder on the way is a symbolic link.
    #[error("refusing to write {}: the path goes through a symbolic link", path.display())]
    Symlink {
        /// The file.
        path: PathBuf,
    },
    /// Another vcr holds the lock.
    #[error("another vcr is working on this project (lock {} is held); try again when it is done", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// The journal of an interrupted run cannot be read.
    #[error("cannot read the journal {}: {message}; move it aside to continue (the files it names are listed in it)", path.display())]
    Journal {
        /// The journal.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The file changed after the plan read it, so it was left as it is.
    #[error("{} changed during the run, not {action}", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
        /// What was not done to it (`rewritten`, `renamed`, ...).
        action: &'static str,
    },
    /// `.vcr/` or a folder in it is a symbolic link: vcr would write somewhere else.
    #[error("refusing to use {}: it is a symbolic link, and vcr keeps its journal, stash and lock only in a real folder of the project; replace it with a folder", path.display())]
    StateLink {
        /// The link.
        path: PathBuf,
    },
    /// Finishing an interrupted run would overwrite or lose a file, so it stopped.
    #[error("cannot finish the interrupted run recorded in {}: {message}", journal.display())]
    Conflict {
        /// The journal.
        journal: PathBuf,
        /// What is in the way.
        message: String,
    },
}

fn io<'p>(op: &'static str, path: &'p Path) -> impl FnOnce(std::io::Error) -> StoreError + 'p {
    move |source| StoreError::Io {
        op,
        path: path.to_owned(),
        source,
    }
}

/// The SHA-1 of a file's bytes: what a plan remembers of each file it read, so that it can
/// tell at apply time whether the file still holds what it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentHash([u8; 20]);

impl ContentHash {
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> ContentHash {
        ContentHash(Sha1::digest(bytes).into())
    }

    /// The hash of the file at `path` as it is now, read in pieces (a log of gigabytes is
    /// hashed in constant memory).
    pub fn of_file(path: &Path) -> std::io::Result<ContentHash> {
        let mut file = File::open(path)?;
        let mut hasher = Sha1::new();
        let mut buf = vec![0u8; 64 << 10];
        loop {
            match std::io::Read::read(&mut file, &mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(ContentHash(hasher.finalize().into()))
    }

    /// A hash computed elsewhere (a reader that hashed the bytes as they passed).
    pub fn from_bytes(hash: [u8; 20]) -> ContentHash {
        ContentHash(hash)
    }

    /// Lowercase hex, as the journal stores it.
    pub fn to_hex(self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses [`ContentHash::to_hex`]'s output.
    pub fn from_hex(text: &str) -> Option<ContentHash> {
        if text.len() != 40 || !text.is_ascii() {
            return None;
        }
        let mut out = [0u8; 20];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(ContentHash(out))
    }
}

/// What the fault hook does when its step comes (see [`Store::with_fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Abort the process, as `kill -9` would.
    Kill,
    /// Fail that change and every later one with "no space left on device".
    Fail,
}

/// The project's store: the root it may write under and vcr's state folder.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    state: PathBuf,
    fault: Option<(Fault, Arc<AtomicUsize>)>,
    barrier: Option<PathBuf>,
}

/// The exclusive lock of a mutating command; released when dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

impl Store {
    /// A store for the project at `root` (absolute, canonical).
    pub fn new(root: &Path) -> Store {
        Store {
            root: root.to_owned(),
            state: root.join(".vcr"),
            fault: None,
            barrier: None,
        }
    }

    /// Testing hook: before the `steps`-th change to the file system (counting from 0), abort
    /// the process as `kill -9` would, or fail that change and all later ones as a full disk
    /// would. The crash-safety tests use it to stop a run at every possible point.
    pub fn with_fault(mut self, fault: Fault, steps: usize) -> Store {
        self.fault = Some((fault, Arc::new(AtomicUsize::new(steps))));
        self
    }

    /// Testing hook: before its first change to the tree (after the plan has read every file),
    /// the run creates `dir/reached` and waits until `dir/release` exists. The tests use it to
    /// change a cassette under a running command at the worst moment.
    pub fn with_barrier(mut self, dir: PathBuf) -> Store {
        self.barrier = Some(dir);
        self
    }

    /// Counts one change to the file system and lets the fault hook act on it.
    fn step(&self) -> std::io::Result<()> {
        let Some((fault, left)) = &self.fault else {
            return Ok(());
        };
        let before = left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_sub(1))
            })
            .unwrap_or(0);
        if before > 0 {
            return Ok(());
        }
        match fault {
            Fault::Kill => std::process::abort(),
            Fault::Fail => Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "no space left on device (simulated)",
            )),
        }
    }

    /// Waits at the testing barrier, if one is set (see [`Store::with_barrier`]).
    fn barrier(&self) {
        let Some(dir) = &self.barrier else { return };
        let _ = fs::write(dir.join("reached"), b"");
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !dir.join("release").exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path relative to the root, for messages and the journal.
    pub fn rel(&self, path: &Path) -> String {
        crate::tree::relative(&self.root, path)
    }

    /// Takes the project's exclusive lock, creating `.vcr/` (with a `.gitignore` that keeps
    /// it out of version control) if needed.
    pub fn lock(&self) -> Result<Lock, StoreError> {
        self.state_dir(&[])?;
        let ignore = self.state.join(".gitignore");
        if !ignore.exists() {
            fs::write(
                &ignore,
                "# vcr's journal, stash and lock: never commit them.\n*\n",
            )
            .map_err(io("write", &ignore))?;
        }
        let path = self.state.join("lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io("open", &path))?;
        match file.try_lock() {
            Ok(()) => Ok(Lock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(StoreError::Locked { path }),
            Err(fs::TryLockError::Error(source)) => Err(StoreError::Io {
                op: "lock",
                path,
                source,
            }),
        }
    }

    /// `.vcr/` and the folders `sub` under it, created where missing, each checked to be a
    /// real folder: a symbolic link there would have vcr write its journal, stash or lock
    /// wherever the link points, so it is refused before anything is created through it.
    pub(crate) fn state_dir(&self, sub: &[&str]) -> Result<PathBuf, StoreError> {
        let mut dir = self.state.clone();
        for i in 0..=sub.len() {
            if i > 0 {
                dir.push(sub[i - 1]);
            }
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(StoreError::StateLink { path: dir });
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::create_dir(&dir) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(io("create", &dir)(e)),
                },
                Err(e) => return Err(io("read", &dir)(e)),
            }
        }
        Ok(dir)
    }

    /// Checks that `path` is inside the root and that no existing part of it is a link.
    pub fn check_target(&self, path: &Path) -> Result<(), StoreError> {
        let absolute = lexical_absolute(path);
        let Ok(rel) = absolute.strip_prefix(&self.root) else {
            return Err(StoreError::Outside {
                path: path.to_owned(),
            });
        };
        if rel.as_os_str().is_empty() {
            return Err(StoreError::Outside {
                path: path.to_owned(),
            });
        }
        match link_in(&self.root, rel) {
            Err(LinkCheck::Link) => Err(StoreError::Symlink {
                path: path.to_owned(),
            }),
            Ok(()) | Err(LinkCheck::Missing) => Ok(()),
        }
    }

    /// Writes vcr's own files (journal, manifest) atomically: what is there is replaced.
    pub(crate) fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        self.check_target(path)?;
        let temp = self.write_temp(path, bytes, Some(path), "tmp")?;
        self.rename_temp(&temp, path)
    }

    /// Replaces the cassette at `path` with `bytes` atomically, keeping its permissions, but
    /// only if it still holds what the caller read (`read`): a file changed since is left as
    /// it is ([`StoreError::Changed`]).
    ///
    /// The check runs after the new contents are on disk, right before the rename, so the
    /// window in which a change can go unseen is the time between two system calls: POSIX
    /// offers no compare-and-swap of a file's contents, and moving the file aside first would
    /// let a concurrent reader (a test run) find it missing.
    pub fn replace_file(
        &self,
        path: &Path,
        bytes: &[u8],
        read: ContentHash,
    ) -> Result<(), StoreError> {
        self.replace_file_with(path, &mut |w| w.write_all(bytes), read)
    }

    fn rename_temp(&self, temp: &Path, path: &Path) -> Result<(), StoreError> {
        if let Err(e) = self.step().and_then(|()| fs::rename(temp, path)) {
            let _ = fs::remove_file(temp);
            return Err(StoreError::Io {
                op: "rename",
                path: path.to_owned(),
                source: e,
            });
        }
        sync_dir(parent(path))
    }

    /// Writes `bytes` to a new temporary file beside `beside`, flushed to disk, with the
    /// permissions of `mode_from` when it exists. Returns the temporary file's path.
    pub fn write_temp(
        &self,
        beside: &Path,
        bytes: &[u8],
        mode_from: Option<&Path>,
        tag: &str,
    ) -> Result<PathBuf, StoreError> {
        self.write_temp_with(beside, mode_from, tag, &mut |w| w.write_all(bytes))
    }

    /// Like [`Store::replace_file`], with the new contents written by `write` as they are
    /// made (a log rewritten line by line is never whole in memory).
    pub fn replace_file_with(
        &self,
        path: &Path,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
        read: ContentHash,
    ) -> Result<(), StoreError> {
        self.check_target(path)?;
        let temp = self.write_temp_with(path, Some(path), "tmp", write)?;
        self.barrier();
        if ContentHash::of_file(path).ok() != Some(read) {
            let _ = fs::remove_file(&temp);
            return Err(StoreError::Changed {
                path: path.to_owned(),
                action: "rewritten",
            });
        }
        self.rename_temp(&temp, path)
    }

    /// [`Store::write_temp`] with the contents written by `write` (buffered) as they are made.
    pub fn write_temp_with(
        &self,
        beside: &Path,
        mode_from: Option<&Path>,
        tag: &str,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<PathBuf, StoreError> {
        let dir = parent(beside);
        self.step().map_err(io("create a temporary file in", dir))?;
        let mut temp = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{tag}-"))
            .tempfile_in(dir)
            .map_err(io("create a temporary file in", dir))?;
        let written = {
            let mut buffered = std::io::BufWriter::new(temp.as_file_mut());
            write(&mut buffered).and_then(|()| buffered.flush())
        };
        written.map_err(io("write", temp.path()))?;
        let permissions = match mode_from.map(fs::metadata) {
            Some(Ok(meta)) => Some(meta.permissions()),
            _ => default_permissions(),
        };
        if let Some(permissions) = permissions {
            temp.as_file()
                .set_permissions(permissions)
                .map_err(io("set permissions of", temp.path()))?;
        }
        temp.as_file()
            .sync_all()
            .map_err(io("flush", temp.path()))?;
        let (_, path) = temp.keep().map_err(|e| StoreError::Io {
            op: "keep",
            path: e.file.path().to_owned(),
            source: e.error,
        })?;
        Ok(path)
    }

    /// Creates the file `path` with `bytes` atomically (its missing folders first), only if
    /// no file has that name: one that appeared since the caller looked is left as it is
    /// ([`StoreError::Changed`]). What brings back a cassette a re-recording removed.
    pub fn create_file(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        self.check_target(path)?;
        let dir = parent(path);
        if !dir.is_dir() {
            self.step().map_err(io("create", dir))?;
            fs::create_dir_all(dir).map_err(io("create", dir))?;
            // A folder made on the way may not be a link: check the path again.
            self.check_target(path)?;
        }
        let temp = self.write_temp(path, bytes, None, "tmp")?;
        if let Err(e) = self.step().and_then(|()| rename_noreplace(&temp, path)) {
            let _ = fs::remove_file(&temp);
            return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
                StoreError::Changed {
                    path: path.to_owned(),
                    action: "restored",
                }
            } else {
                StoreError::Io {
                    op: "rename",
                    path: path.to_owned(),
                    source: e,
                }
            });
        }
        sync_dir(dir)
    }

    /// Removes a file.
    pub fn remove(&self, path: &Path) -> Result<(), StoreError> {
        self.check_target(path)?;
        match self.step().and_then(|()| fs::remove_file(path)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::Io {
                op: "remove",
                path: path.to_owned(),
                source: e,
            }),
        }
    }

    /// Removes temporary files a killed run left beside cassettes (atomic-write and staged
    /// new contents; never `old` files, which may be the only copy of a cassette and belong
    /// to a journal). Call only while holding the lock. Returns what was removed.
    pub fn remove_stray_temps(&self, temps: &[PathBuf]) -> Result<Vec<PathBuf>, StoreError> {
        let mut removed = Vec::new();
        for path in temps {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let derived = [format!("{TEMP_PREFIX}tmp-"), format!("{TEMP_PREFIX}new-")]
                .iter()
                .any(|prefix| name.starts_with(prefix.as_str()));
            if derived && path.is_file() {
                self.remove(path)?;
                removed.push(path.clone());
            }
        }
        Ok(removed)
    }

    /// Where the journal of a multi-file operation lives.
    pub fn journal_path(&self) -> PathBuf {
        self.state.join("journal.json")
    }
}

/// Renames `from` to `to` unless `to` exists (then [`std::io::ErrorKind::AlreadyExists`]),
/// atomically: a file that appears at `to` while vcr works is never overwritten.
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes());
        let (from_c, to_c) = (c(from)?, c(to)?);
        // SAFETY: both arguments are valid NUL-terminated paths that outlive the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from_c.as_ptr(),
                libc::AT_FDCWD,
                to_c.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        // Some file systems do not support the flag: fall through to links.
        if !matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
            return Err(err);
        }
    }
    // A hard link never replaces a file; the source goes once the link exists. (A crash in
    // between leaves two names for one file, which `place` in the journal recognises.)
    match fs::hard_link(from, to) {
        Ok(()) => fs::remove_file(from),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if fs::symlink_metadata(to).is_ok() => Err(std::io::ErrorKind::AlreadyExists.into()),
        // A file system without hard links: the best left is a check, then a rename.
        Err(_) => fs::rename(from, to),
    }
}

/// Whether anything (a file, a folder, a dangling link) has the name `path`.
pub(crate) fn taken(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Flushes a folder's entries (renames, removals) to disk.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io("flush", dir))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Permissions for a file that has no original: readable by all, writable by the owner
/// (`tempfile` would leave 0600).
fn default_permissions() -> Option<fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(fs::Permissions::from_mode(0o644))
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        (dir, Store::new(&root))
    }

    #[test]
    fn write_keeps_permissions_and_leaves_no_temp() {
        let (_dir, store) = store();
        let path = store.root().join("a.json");
        fs::write(&path, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        }
        store.write_file(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        let names: Vec<_> = fs::read_dir(store.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.json"]);
    }

    #[test]
    fn refuses_outside_and_through_links() {
        let (_dir, store) = store();
        let outside = store.root().parent().unwrap().join("x.json");
        assert!(matches!(
            store.write_file(&outside, b"x"),
            Err(StoreError::Outside { .. })
        ));
        let sneaky = store.root().join("../x.json");
        assert!(matches!(
            store.write_file(&sneaky, b"x"),
            Err(StoreError::Outside { .. })
        ));
        #[cfg(unix)]
        {
            let elsewhere = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(elsewhere.path(), store.root().join("link")).unwrap();
            let through = store.root().join("link/a.json");
            assert!(matches!(
                store.write_file(&through, b"x"),
                Err(StoreError::Symlink { .. })
            ));
            assert!(!elsewhere.path().join("a.json").exists());
            let target = store.root().join("real.json");
            fs::write(&target, "real").unwrap();
            std::os::unix::fs::symlink(&target, store.root().join("alias.json")).unwrap();
            let alias = store.root().join("alias.json");
            assert!(matches!(
                store.write_file(&alias, b"x"),
                Err(StoreError::Symlink { .. })
            ));
            assert_eq!(fs::read_to_string(&target).unwrap(), "real");
        }
    }

    #[test]
    fn lock_is_exclusive_and_ignored_by_git() {
        let (_dir, store) = store();
        let held = store.lock().unwrap();
        assert!(matches!(store.lock(), Err(StoreError::Locked { .. })));
        drop(held);
        store.lock().unwrap();
        let ignore = fs::read_to_string(store.root().join(".vcr/.gitignore")).unwrap();
        assert!(ignore.lines().any(|l| l == "*"));
    }

    #[test]
    fn stray_temps_are_removed_but_old_copies_kept() {
        let (_dir, store) = store();
        let tmp = store.root().join(".vcr-tmp-abc");
        let new = store.root().join(".vcr-new-abc");
        let old = store.root().join(".vcr-old-1-0");
        for p in [&tmp, &new, &old] {
            fs::write(p, "x").unwrap();
        }
        let removed = store
            .remove_stray_temps(&[tmp.clone(), new.clone(), old.clone()])
            .unwrap();
        assert_eq!(removed, [tmp.clone(), new.clone()]);
        assert!(!tmp.exists() && !new.exists() && old.exists());
    }
}
