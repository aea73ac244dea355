//! Crash-safe multi-file renames.
//!
//! A plan of moves (rename, rename with new contents, or delete a merged twin) is applied in
//! phases, with the journal `.vcr/journal.json` recording which phase the run is in:
//!
//! 1. the new contents are already in temporary files beside their targets (the caller wrote
//!    them); the journal is written in state `staging`;
//! 2. every source is renamed to a unique `.vcr-old-<run>-<i>` name in its folder, which frees
//!    every target name at once (so chains and cycles of renames just work);
//! 3. the journal moves to state `placing`; each target takes its new contents (or its old
//!    file, for a pure rename);
//! 4. the old copies of rewritten and deleted cassettes are removed, then the journal.
//!
//! Every step is a single rename or removal. A run killed at any instant leaves the journal
//! behind, and the next mutating command completes it: in `staging` it finishes the staging
//! if every source is still there as planned (else it puts the staged ones back), in
//! `placing` it places what is not placed yet. No cassette is lost, duplicated or left
//! half-written, because no file is ever modified in place.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::{Store, StoreError, io, parent, sync_dir};
use crate::tree::TEMP_PREFIX;

/// One move of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// The cassette as it is now.
    pub from: PathBuf,
    /// Where it goes; `None` removes it (a twin merged into an identical cassette).
    pub to: Option<PathBuf>,
    /// A temporary file beside `to` holding its new contents, if they change.
    pub new: Option<PathBuf>,
}

/// What recovering an interrupted run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// The interrupted run was completed.
    Completed {
        /// The command that was interrupted.
        command: String,
        /// How many moves its plan had.
        moves: usize,
    },
    /// The interrupted run was undone: its sources had changed since it started.
    RolledBack {
        /// The command that was interrupted.
        command: String,
        /// How many moves its plan had.
        moves: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum State {
    Staging,
    Placing,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JournalFile {
    version: u32,
    command: String,
    state: State,
    ops: Vec<JournalOp>,
}

/// A move as the journal records it; paths are relative to the project root.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JournalOp {
    from: String,
    to: Option<String>,
    old: String,
    new: Option<String>,
    /// SHA-1 of the source's bytes when the plan was made.
    sha1: String,
}

/// An op with absolute paths.
struct Op {
    from: PathBuf,
    to: Option<PathBuf>,
    old: PathBuf,
    new: Option<PathBuf>,
    sha1: String,
}

/// SHA-1 of a file's bytes, in hex.
fn file_sha1(path: &Path) -> Result<String, StoreError> {
    let bytes = fs::read(path).map_err(io("read", path))?;
    Ok(hex(&Sha1::digest(&bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Store {
    /// Applies a plan of moves crash-safely (see the module docs). Call with the lock held.
    pub fn apply_moves(&self, command: &str, moves: &[Move]) -> Result<(), StoreError> {
        if moves.is_empty() {
            return Ok(());
        }
        let run = format!(
            "{:x}{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        );
        let mut ops = Vec::with_capacity(moves.len());
        for (i, m) in moves.iter().enumerate() {
            self.check_target(&m.from)?;
            if let Some(to) = &m.to {
                self.check_target(to)?;
            }
            let old = parent(&m.from).join(format!("{TEMP_PREFIX}old-{run}-{i}"));
            ops.push(Op {
                sha1: file_sha1(&m.from)?,
                from: m.from.clone(),
                to: m.to.clone(),
                old,
                new: m.new.clone(),
            });
        }
        self.write_journal(command, State::Staging, &ops)?;
        for op in &ops {
            self.step();
            fs::rename(&op.from, &op.old).map_err(io("rename", &op.from))?;
        }
        self.sync_dirs(&ops)?;
        self.write_journal(command, State::Placing, &ops)?;
        self.place(&ops)
    }

    /// Completes (or, if its sources changed, undoes) a run that was interrupted. Call with
    /// the lock held, before planning anything.
    pub fn recover(&self) -> Result<Option<Recovery>, StoreError> {
        let path = self.journal_path();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("read", &path)(e)),
        };
        let journal: JournalFile =
            serde_json::from_str(&text).map_err(|e| StoreError::Journal {
                path: path.clone(),
                message: e.to_string(),
            })?;
        if journal.version != 1 {
            return Err(StoreError::Journal {
                path,
                message: format!("unknown journal version {}", journal.version),
            });
        }
        let ops = journal
            .ops
            .iter()
            .map(|op| self.absolute_op(op))
            .collect::<Result<Vec<_>, _>>()?;
        let command = journal.command.clone();
        let moves = ops.len();
        if journal.state == State::Staging {
            let can_finish = ops.iter().try_fold(true, |ok, op| {
                Ok::<_, StoreError>(
                    ok && (op.old.exists()
                        || (op.from.exists() && file_sha1(&op.from)? == op.sha1)),
                )
            })?;
            if !can_finish {
                self.roll_back(&ops)?;
                return Ok(Some(Recovery::RolledBack { command, moves }));
            }
            for op in &ops {
                if !op.old.exists() {
                    self.step();
                    fs::rename(&op.from, &op.old).map_err(io("rename", &op.from))?;
                }
            }
            self.sync_dirs(&ops)?;
            self.write_journal(&command, State::Placing, &ops)?;
        }
        self.place(&ops)?;
        Ok(Some(Recovery::Completed { command, moves }))
    }

    /// Phase 3 and 4: put every target in place, remove old copies, then the journal.
    fn place(&self, ops: &[Op]) -> Result<(), StoreError> {
        for op in ops {
            let Some(to) = &op.to else { continue };
            let source = op.new.as_ref().unwrap_or(&op.old);
            if !source.exists() {
                continue; // placed before the interruption
            }
            if to.exists() {
                return Err(StoreError::Conflict {
                    journal: self.journal_path(),
                    message: format!(
                        "{} exists and would be overwritten by {}",
                        self.rel(to),
                        self.rel(source)
                    ),
                });
            }
            self.step();
            fs::rename(source, to).map_err(io("rename", source))?;
        }
        self.sync_dirs(ops)?;
        for op in ops {
            if op.old.exists() {
                self.remove(&op.old)?;
            }
            if let Some(new) = &op.new
                && new.exists()
            {
                self.remove(new)?;
            }
        }
        self.step();
        let journal = self.journal_path();
        fs::remove_file(&journal).map_err(io("remove", &journal))?;
        sync_dir(parent(&journal))
    }

    /// Undoes a run interrupted while staging: staged sources go back to their names.
    fn roll_back(&self, ops: &[Op]) -> Result<(), StoreError> {
        for op in ops {
            if op.old.exists() {
                if op.from.exists() {
                    return Err(StoreError::Conflict {
                        journal: self.journal_path(),
                        message: format!(
                            "{} was staged as {} but a new file took its name",
                            self.rel(&op.from),
                            self.rel(&op.old)
                        ),
                    });
                }
                self.step();
                fs::rename(&op.old, &op.from).map_err(io("rename", &op.old))?;
            }
        }
        for op in ops {
            if let Some(new) = &op.new {
                self.remove(new)?;
            }
        }
        self.sync_dirs(ops)?;
        self.step();
        let journal = self.journal_path();
        fs::remove_file(&journal).map_err(io("remove", &journal))?;
        Ok(())
    }

    fn write_journal(&self, command: &str, state: State, ops: &[Op]) -> Result<(), StoreError> {
        let journal = JournalFile {
            version: 1,
            command: command.to_owned(),
            state,
            ops: ops
                .iter()
                .map(|op| JournalOp {
                    from: self.rel(&op.from),
                    to: op.to.as_deref().map(|p| self.rel(p)),
                    old: self.rel(&op.old),
                    new: op.new.as_deref().map(|p| self.rel(p)),
                    sha1: op.sha1.clone(),
                })
                .collect(),
        };
        let mut text = serde_json::to_vec_pretty(&journal).expect("journal serializes");
        text.push(b'\n');
        self.write_file(&self.journal_path(), &text)
    }

    fn absolute_op(&self, op: &JournalOp) -> Result<Op, StoreError> {
        let path = |rel: &str| -> Result<PathBuf, StoreError> {
            let path = self.root().join(rel);
            self.check_target(&path)?;
            Ok(path)
        };
        Ok(Op {
            from: path(&op.from)?,
            to: op.to.as_deref().map(path).transpose()?,
            old: path(&op.old)?,
            new: op.new.as_deref().map(path).transpose()?,
            sha1: op.sha1.clone(),
        })
    }

    fn sync_dirs(&self, ops: &[Op]) -> Result<(), StoreError> {
        let dirs: BTreeSet<&Path> = ops
            .iter()
            .flat_map(|op| [Some(&op.from), op.to.as_ref()])
            .flatten()
            .map(|p| parent(p))
            .collect();
        dirs.into_iter().try_for_each(sync_dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for (name, text) in files {
            fs::write(root.join(name), text).unwrap();
        }
        (dir, Store::new(&root))
    }

    fn listing(store: &Store) -> Vec<(String, String)> {
        let mut out: Vec<_> = fs::read_dir(store.root())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && !p.ends_with(".vcr"))
            .map(|p| (store.rel(&p), fs::read_to_string(&p).unwrap()))
            .collect();
        out.sort();
        out
    }

    fn mv(store: &Store, from: &str, to: &str) -> Move {
        Move {
            from: store.root().join(from),
            to: Some(store.root().join(to)),
            new: None,
        }
    }

    #[test]
    fn cycles_chains_rewrites_and_deletes() {
        let (_dir, store) = setup(&[("a", "A"), ("b", "B"), ("c", "C"), ("d", "D"), ("e", "E")]);
        let _lock = store.lock().unwrap();
        let new = store
            .write_temp(&store.root().join("x"), b"C2", None, "new")
            .unwrap();
        let moves = vec![
            mv(&store, "a", "b"), // a <-> b cycle
            mv(&store, "b", "a"),
            Move {
                from: store.root().join("c"),
                to: Some(store.root().join("x")),
                new: Some(new),
            },
            mv(&store, "d", "c"), // chain: d -> c while c moves on
            Move {
                from: store.root().join("e"),
                to: None,
                new: None,
            },
        ];
        store.apply_moves("test", &moves).unwrap();
        assert_eq!(
            listing(&store),
            [
                ("a".into(), "B".into()),
                ("b".into(), "A".into()),
                ("c".into(), "D".into()),
                ("x".into(), "C2".into())
            ]
        );
        assert!(!store.journal_path().exists());
    }

    #[test]
    fn a_staging_journal_with_changed_sources_rolls_back() {
        let (_dir, store) = setup(&[("a", "A"), ("b", "B")]);
        store.lock().unwrap();
        let ops = vec![
            Op {
                from: store.root().join("a"),
                to: Some(store.root().join("b")),
                old: store.root().join(".vcr-old-1-0"),
                new: None,
                sha1: file_sha1(&store.root().join("a")).unwrap(),
            },
            Op {
                from: store.root().join("b"),
                to: Some(store.root().join("a")),
                old: store.root().join(".vcr-old-1-1"),
                new: None,
                sha1: "0000".into(),
            },
        ];
        store.write_journal("rehash", State::Staging, &ops).unwrap();
        fs::rename(store.root().join("a"), store.root().join(".vcr-old-1-0")).unwrap();
        let recovery = store.recover().unwrap();
        assert_eq!(
            recovery,
            Some(Recovery::RolledBack {
                command: "rehash".into(),
                moves: 2
            })
        );
        assert_eq!(
            listing(&store),
            [("a".into(), "A".into()), ("b".into(), "B".into())]
        );
    }

    #[test]
    fn a_corrupt_journal_is_an_error_not_a_guess() {
        let (_dir, store) = setup(&[]);
        store.lock().unwrap();
        fs::write(store.journal_path(), "{\"version\":1,").unwrap();
        let err = store.recover().unwrap_err();
        assert!(
            err.to_string().starts_with("cannot read the journal"),
            "{err}"
        );
    }
}
