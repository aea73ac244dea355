//! Cassettes moved aside for re-recording, and how they come back.
//!
//! `vcr record --only` moves the chosen cassettes to `.vcr/stash/<run>/<path>` so the harness
//! records them again. Before the first move, a manifest (`.vcr/stash/manifest.json`) names
//! every cassette and its stash path; the moves themselves go through the journal
//! ([`super::journal`]), so they complete or roll back as one. While the manifest exists the
//! stash is live, and [`Store::unstash`] ends it: each stashed cassette goes back to its
//! name if the name is free. A name that is taken was re-recorded: after a green run the old
//! copy is dropped (the new recording replaces it), otherwise it is kept in the stash and
//! reported, never deleted. The manifest goes last, and every step is one rename or removal
//! that a second pass skips once done, so `unstash` killed at any point is finished by the
//! next mutating command (which calls it through recovery).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::journal::{Applied, Move};
use super::{ContentHash, Store, StoreError, io, rename_noreplace};

/// The live stash, as its manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    version: u32,
    /// The run's folder under `.vcr/stash/`.
    run: String,
    /// Cassettes moved aside, relative to the project root.
    entries: Vec<String>,
}

/// How `unstash` treats a stashed cassette whose name was taken by a new recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    /// The run was green: the new recording replaces the old copy, which is removed.
    Drop,
    /// The run failed or was interrupted: the old copy stays in the stash.
    Keep,
}

/// What became of one stashed cassette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unstashed {
    /// It went back to its name: nothing recorded it again.
    Restored {
        /// The cassette, relative to the project root.
        path: String,
    },
    /// It was recorded again; the old copy was removed.
    Replaced {
        /// The cassette.
        path: String,
    },
    /// It was recorded again by a run that did not succeed; the old copy was kept.
    Kept {
        /// The cassette.
        path: String,
        /// Where the old copy is, relative to the project root.
        stash: String,
    },
}

impl Store {
    fn stash_dir(&self) -> PathBuf {
        self.state.join("stash")
    }

    fn manifest_path(&self) -> PathBuf {
        self.stash_dir().join("manifest.json")
    }

    /// Whether a stash is live (an unfinished `record`).
    pub fn has_stash(&self) -> bool {
        self.manifest_path().exists()
    }

    /// How many cassettes a live stash holds (0 when none is live), for read-only commands,
    /// which report it instead of finishing it. Reads through no symbolic link.
    pub fn stashed(&self) -> usize {
        let linked = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
        if linked(&self.state) || linked(&self.stash_dir()) {
            return 0;
        }
        let Some(manifest) = fs::read_to_string(self.manifest_path())
            .ok()
            .and_then(|text| serde_json::from_str::<Manifest>(&text).ok())
        else {
            return 0;
        };
        let run_dir = self.stash_dir().join(&manifest.run);
        manifest
            .entries
            .iter()
            .filter(|rel| super::taken(&run_dir.join(rel)))
            .count()
    }

    /// Moves `cassettes` (absolute paths, with the hash of what the caller read) aside under
    /// `.vcr/stash/`. Call with the lock held, after recovery (a live stash is an error). A
    /// cassette that changed since it was read stays where it is, listed in the result.
    pub fn stash(&self, cassettes: &[(PathBuf, ContentHash)]) -> Result<Applied, StoreError> {
        if self.has_stash() {
            return Err(StoreError::Conflict {
                journal: self.manifest_path(),
                message: "a stash is already live; run any mutating command to finish it".into(),
            });
        }
        let run = format!(
            "{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let manifest = Manifest {
            version: 1,
            entries: cassettes.iter().map(|(p, _)| self.rel(p)).collect(),
            run,
        };
        let run_dir = self.state_dir(&["stash"])?.join(&manifest.run);
        let mut moves = Vec::with_capacity(cassettes.len());
        for (rel, (from, read)) in manifest.entries.iter().zip(cassettes) {
            let to = run_dir.join(rel);
            let dir = super::parent(&to);
            fs::create_dir_all(dir).map_err(io("create", dir))?;
            moves.push(Move {
                from: from.clone(),
                to: Some(to),
                new: None,
                read: *read,
            });
        }
        self.write_manifest(&manifest)?;
        self.apply_moves("record", &moves)
    }

    /// Ends the live stash, if any (see the module docs). Call with the lock held, after
    /// [`Store::recover`].
    pub fn unstash(&self, replaced: Replaced) -> Result<Option<Vec<Unstashed>>, StoreError> {
        let path = self.manifest_path();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("read", &path)(e)),
        };
        let manifest: Manifest = serde_json::from_str(&text)
            .ok()
            .filter(|m: &Manifest| m.version == 1)
            .ok_or_else(|| StoreError::Journal {
                path: path.clone(),
                message: "not a stash manifest of this vcr".into(),
            })?;
        let run_dir = self.stash_dir().join(&manifest.run);
        let mut done = Vec::new();
        let mut kept_any = false;
        for rel in &manifest.entries {
            let original = self.root.join(rel);
            let stashed = run_dir.join(rel);
            self.check_target(&original)?;
            self.check_target(&stashed)?;
            if !stashed.exists() {
                continue; // never moved (the journal rolled back), or handled by an earlier pass
            }
            if !super::taken(&original) && self.restore(&stashed, &original)? {
                done.push(Unstashed::Restored { path: rel.clone() });
            } else if replaced == Replaced::Drop || same_bytes(&stashed, &original) {
                self.remove(&stashed)?;
                done.push(Unstashed::Replaced { path: rel.clone() });
            } else {
                kept_any = true;
                done.push(Unstashed::Kept {
                    path: rel.clone(),
                    stash: self.rel(&stashed),
                });
            }
        }
        if !kept_any {
            remove_empty_dirs(&run_dir);
        }
        self.step().map_err(io("remove", &path))?;
        fs::remove_file(&path).map_err(io("remove", &path))?;
        Ok(Some(done))
    }

    /// Puts a stashed cassette back under its name unless a file took the name meanwhile
    /// (then false: the name's new file is the newer recording). The fault hook counts it.
    fn restore(&self, stashed: &Path, original: &Path) -> Result<bool, StoreError> {
        if let Some(dir) = original.parent() {
            fs::create_dir_all(dir).map_err(io("create", dir))?;
        }
        self.step().map_err(io("rename", stashed))?;
        match rename_noreplace(stashed, original) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => return Err(io("rename", stashed)(e)),
        }
        super::sync_dir(super::parent(original))?;
        Ok(true)
    }

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), StoreError> {
        self.state_dir(&["stash"])?;
        let mut text = serde_json::to_vec_pretty(manifest).expect("manifest serializes");
        text.push(b'\n');
        self.write_file(&self.manifest_path(), &text)
    }
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    matches!((fs::read(a), fs::read(b)), (Ok(a), Ok(b)) if a == b)
}

/// Removes `dir` and the empty folders under it (what is not empty stays).
pub fn remove_empty_dirs(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_dirs(&entry.path());
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_names_come_back_taken_ones_are_kept_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let store = Store::new(&root);
        fs::create_dir_all(root.join("fixtures")).unwrap();
        for name in ["a", "b", "c"] {
            fs::write(root.join("fixtures").join(name), name).unwrap();
        }
        let _lock = store.lock().unwrap();
        let paths: Vec<PathBuf> = ["a", "b", "c"]
            .iter()
            .map(|n| root.join("fixtures").join(n))
            .collect();
        let read: Vec<_> = paths
            .iter()
            .map(|p| (p.clone(), ContentHash::of_file(p).unwrap()))
            .collect();
        assert_eq!(store.stash(&read).unwrap(), Applied::default());
        assert_eq!(store.stashed(), 3);
        assert!(paths.iter().all(|p| !p.exists()));
        fs::write(root.join("fixtures/b"), "new b").unwrap();
        fs::write(root.join("fixtures/c"), "c").unwrap();
        let done = store.unstash(Replaced::Keep).unwrap().unwrap();
        assert_eq!(
            done[0],
            Unstashed::Restored {
                path: "fixtures/a".into()
            }
        );
        let Unstashed::Kept { stash, .. } = &done[1] else {
            panic!("{done:?}")
        };
        assert_eq!(fs::read_to_string(root.join(stash)).unwrap(), "b");
        assert_eq!(
            done[2],
            Unstashed::Replaced {
                path: "fixtures/c".into()
            }
        );
        assert_eq!(fs::read_to_string(root.join("fixtures/a")).unwrap(), "a");
        assert_eq!(
            fs::read_to_string(root.join("fixtures/b")).unwrap(),
            "new b"
        );
        assert!(!store.has_stash());
        assert_eq!(store.unstash(Replaced::Keep).unwrap(), None);
    }
}
