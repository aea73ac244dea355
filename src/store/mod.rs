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

pub mod journal;
pub mod stash;

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The project's store: the root it may write under and vcr's state folder.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    state: PathBuf,
    fault: Option<Arc<AtomicUsize>>,
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
        }
    }

    /// Testing hook: abort the process, as a `kill -9` would, before the `steps`-th change to
    /// the file system. The crash-safety tests use it to stop a run at every possible point.
    pub fn with_fault_after(mut self, steps: usize) -> Store {
        self.fault = Some(Arc::new(AtomicUsize::new(steps)));
        self
    }

    /// Counts one change to the file system, aborting if the fault hook says so.
    fn step(&self) {
        if let Some(left) = &self.fault
            && left.fetch_sub(1, Ordering::SeqCst) == 0
        {
            std::process::abort();
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
        fs::create_dir_all(&self.state).map_err(io("create", &self.state))?;
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

    /// Replaces `path` with `bytes` atomically, keeping its permissions.
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        self.check_target(path)?;
        let temp = self.write_temp(path, bytes, Some(path), "tmp")?;
        self.step();
        if let Err(e) = fs::rename(&temp, path) {
            let _ = fs::remove_file(&temp);
            return Err(StoreError::Io {
                op: "rename",
                path: path.to_owned(),
                source: e,
            });
        }
        sync_dir(parent(path))?;
        Ok(())
    }

    /// Writes `bytes` to a new temporary file beside `beside`, flushed to disk, with the
    /// permissions of `mode_from` when it exists. Returns the temporary file's path.
    pub(crate) fn write_temp(
        &self,
        beside: &Path,
        bytes: &[u8],
        mode_from: Option<&Path>,
        tag: &str,
    ) -> Result<PathBuf, StoreError> {
        let dir = parent(beside);
        self.step();
        let mut temp = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{tag}-"))
            .tempfile_in(dir)
            .map_err(io("create a temporary file in", dir))?;
        temp.write_all(bytes).map_err(io("write", temp.path()))?;
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

    /// Removes a file.
    pub(crate) fn remove(&self, path: &Path) -> Result<(), StoreError> {
        self.check_target(path)?;
        self.step();
        match fs::remove_file(path) {
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
