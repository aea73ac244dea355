//! Crash-safe multi-file renames that apply only to what the plan read.
//!
//! A plan of moves (rename, rename with new contents, or delete) is applied in phases, with
//! the journal `.vcr/journal.json` recording which phase the run is in:
//!
//! 1. the new contents are already in temporary files beside their targets (the caller wrote
//!    them); the journal is written twice, first as it will read once staging is done
//!    (`journal.next.json`, state `placing`), then as it reads now (state `staging`). Both
//!    writes come before the first move, so a full disk stops the run before anything moved;
//! 2. every source is renamed to a unique `.vcr-old-<run>-<i>` name in its folder, which frees
//!    every target name at once (so chains and cycles of renames just work), and the staged
//!    copy is hashed: if it is not what the plan read (an editor saved the file, `git
//!    checkout` replaced it), it goes back to its name and its move is dropped. So is every
//!    move whose target is still taken once staging is done (by a file that stayed);
//! 3. `journal.next.json` is renamed over the journal (state `placing`, no new space needed);
//!    each target takes its new contents (or its old file, for a pure rename), never
//!    replacing a file that is there;
//! 4. the old copies of rewritten and deleted cassettes are removed, then the journal.
//!
//! Every step is a single rename or removal. A run killed at any instant leaves the journal
//! behind, and the next mutating command completes it: in `staging` it stages again (what is
//! staged is checked again, what is not is checked as it is staged), in `placing` it places
//! what is not placed yet. No cassette is lost, duplicated or left half-written, because no
//! file is ever modified in place, and no file that changed after the plan read it is
//! replaced or removed.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ContentHash, Store, StoreError, io, parent, rename_noreplace, sync_dir, taken};
use crate::tree::TEMP_PREFIX;

/// One move of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// The cassette as it is now.
    pub from: PathBuf,
    /// Where it goes; `None` removes it.
    pub to: Option<PathBuf>,
    /// A temporary file beside `to` holding its new contents, if they change.
    pub new: Option<PathBuf>,
    /// The hash of the bytes the plan read from `from`: the move happens only if `from`
    /// still holds them.
    pub read: ContentHash,
}

/// A move that was left undone, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file that stayed where it was.
    pub path: PathBuf,
    /// Why it stayed.
    pub reason: SkipReason,
}

/// Why a move was left undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// The file changed (or went away) after the plan read it.
    Changed,
    /// The name it was to take is held by a file that stays: one that changed, or a new one.
    TargetTaken {
        /// The name.
        target: PathBuf,
    },
}

/// What applying a plan (or finishing an interrupted one) did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// The moves left undone, in plan order.
    pub skipped: Vec<Skipped>,
}

impl Applied {
    /// Whether the move of `from` was left undone.
    pub fn skipped(&self, from: &Path) -> Option<&SkipReason> {
        self.skipped
            .iter()
            .find(|s| s.path.as_os_str() == from.as_os_str())
            .map(|s| &s.reason)
    }
}

/// What recovering an interrupted run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// The command that was interrupted.
    pub command: String,
    /// How many moves its plan had.
    pub moves: usize,
    /// The moves left undone because their files changed since that run read them.
    pub applied: Applied,
}

/// What an interrupted run left, as a read-only command sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    /// The command that was interrupted.
    pub command: String,
    /// How many of its files are under temporary `.vcr-old-*` names.
    pub aside: usize,
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
    /// SHA-1 of the source's bytes when the plan read them.
    sha1: String,
}

/// An op with absolute paths.
struct Op {
    from: PathBuf,
    to: Option<PathBuf>,
    old: PathBuf,
    new: Option<PathBuf>,
    read: ContentHash,
}

impl Store {
    /// Applies a plan of moves crash-safely (see the module docs). Call with the lock held.
    ///
    /// Moves whose source changed since the plan read it, or whose target is still taken,
    /// are left undone and listed in the result; the rest are applied.
    pub fn apply_moves(&self, command: &str, moves: &[Move]) -> Result<Applied, StoreError> {
        if moves.is_empty() {
            return Ok(Applied::default());
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
            ops.push(Op {
                old: parent(&m.from).join(format!("{TEMP_PREFIX}old-{run}-{i}")),
                from: m.from.clone(),
                to: m.to.clone(),
                new: m.new.clone(),
                read: m.read,
            });
        }
        self.state_dir(&[])?;
        self.write_journal(&self.next_journal_path(), command, State::Placing, &ops)?;
        if let Err(e) = self.write_journal(&self.journal_path(), command, State::Staging, &ops) {
            let _ = fs::remove_file(self.next_journal_path());
            return Err(e);
        }
        self.barrier();
        self.stage_and_place(command, &ops).inspect_err(|_| {
            // Whatever failed (a full disk, a permission), try to finish the run now rather
            // than leave cassettes aside; if that fails too, the journal stays for the next
            // mutating command, and read-only commands report it.
            let _ = self.recover();
        })
    }

    /// Completes a run that was interrupted. Call with the lock held, before planning
    /// anything.
    pub fn recover(&self) -> Result<Option<Recovery>, StoreError> {
        self.remove_state_temps()?;
        let Some(journal) = self.read_journal()? else {
            let _ = fs::remove_file(self.next_journal_path());
            return Ok(None);
        };
        let ops = journal
            .ops
            .iter()
            .map(|op| self.absolute_op(op))
            .collect::<Result<Vec<_>, _>>()?;
        let applied = match journal.state {
            State::Staging => self.stage_and_place(&journal.command, &ops)?,
            State::Placing => {
                self.place(&ops)?;
                Applied::default()
            }
        };
        Ok(Some(Recovery {
            command: journal.command,
            moves: ops.len(),
            applied,
        }))
    }

    /// Removes the temporary files of writes in the state folder a killed run left there
    /// (the journal being written: `.vcr-tmp-*`), which no walk of the tree sees (issue 43).
    /// Every write there happens under the lock this run holds: none is a live one.
    fn remove_state_temps(&self) -> Result<(), StoreError> {
        let Ok(entries) = fs::read_dir(&self.state) else {
            return Ok(());
        };
        let prefix = format!("{TEMP_PREFIX}tmp-");
        for entry in entries.flatten() {
            let is_temp = entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&prefix));
            if is_temp && entry.file_type().is_ok_and(|t| t.is_file()) {
                self.remove(&entry.path())?;
            }
        }
        Ok(())
    }

    /// What an interrupted run left aside, for read-only commands (which do not finish it):
    /// `None` when no journal is live. Reads through no symbolic link.
    pub fn interrupted(&self) -> Result<Option<Interrupted>, StoreError> {
        if fs::symlink_metadata(&self.state).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(None);
        }
        let Some(journal) = self.read_journal()? else {
            return Ok(None);
        };
        let aside = journal
            .ops
            .iter()
            .filter(|op| taken(&self.root().join(&op.old)))
            .count();
        Ok(Some(Interrupted {
            command: journal.command,
            aside,
        }))
    }

    fn read_journal(&self) -> Result<Option<JournalFile>, StoreError> {
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
        Ok(Some(journal))
    }

    /// Phases 2 to 4, from a journal in state `staging` (written by this run or found).
    fn stage_and_place(&self, command: &str, ops: &[Op]) -> Result<Applied, StoreError> {
        let mut applied = Applied::default();
        let mut kept = vec![true; ops.len()];
        for (i, op) in ops.iter().enumerate() {
            if !self.stage(op)? {
                kept[i] = false;
                applied.skipped.push(Skipped {
                    path: op.from.clone(),
                    reason: SkipReason::Changed,
                });
            }
        }
        // A move whose target is still taken (by a file that stayed, or a new one) cannot
        // happen; undoing it puts its file back, which may block another move in turn.
        loop {
            let mut undone = false;
            for (i, op) in ops.iter().enumerate() {
                let Some(to) = op.to.as_ref().filter(|to| kept[i] && taken(to)) else {
                    continue;
                };
                self.unstage(op)?;
                kept[i] = false;
                undone = true;
                applied.skipped.push(Skipped {
                    path: op.from.clone(),
                    reason: SkipReason::TargetTaken { target: to.clone() },
                });
            }
            if !undone {
                break;
            }
        }
        self.sync_dirs(ops)?;
        let next = self.next_journal_path();
        let journal = self.journal_path();
        if taken(&next) {
            self.step().map_err(io("rename", &next))?;
            fs::rename(&next, &journal).map_err(io("rename", &next))?;
            sync_dir(parent(&journal))?;
        } else {
            self.write_journal(&journal, command, State::Placing, ops)?;
        }
        self.place(ops)?;
        Ok(applied)
    }

    /// Moves an op's source aside and checks it is what the plan read. Returns false (with
    /// the file back at its name) when it is not.
    fn stage(&self, op: &Op) -> Result<bool, StoreError> {
        if !taken(&op.old) {
            self.step().map_err(io("rename", &op.from))?;
            match fs::rename(&op.from, &op.old) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    self.discard_new(op)?;
                    return Ok(false);
                }
                Err(e) => return Err(io("rename", &op.from)(e)),
            }
        }
        if ContentHash::of_file(&op.old).ok() == Some(op.read) {
            return Ok(true);
        }
        self.unstage(op)?;
        Ok(false)
    }

    /// Undoes the staging of one op: its new contents are dropped and its file goes back to
    /// its name. If a writer has created a file under that name meanwhile, the writer's file
    /// is newer than the one vcr moved aside, which it would have replaced had vcr not been
    /// there: the newer one stays and the staged copy is removed.
    fn unstage(&self, op: &Op) -> Result<(), StoreError> {
        self.discard_new(op)?;
        if !taken(&op.old) {
            return Ok(());
        }
        self.step().map_err(io("rename", &op.old))?;
        match rename_noreplace(&op.old, &op.from) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => self.remove(&op.old),
            Err(e) => Err(io("rename", &op.old)(e)),
        }
    }

    fn discard_new(&self, op: &Op) -> Result<(), StoreError> {
        match &op.new {
            Some(new) if taken(new) => self.remove(new),
            _ => Ok(()),
        }
    }

    /// Phase 3 and 4: put every target in place, remove old copies, then the journal.
    fn place(&self, ops: &[Op]) -> Result<(), StoreError> {
        for op in ops {
            let Some(to) = &op.to else { continue };
            let source = op.new.as_ref().unwrap_or(&op.old);
            if !taken(source) {
                continue; // placed before an interruption, or left undone
            }
            self.step().map_err(io("rename", source))?;
            match rename_noreplace(source, to) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if same_file(source, to) {
                        // A link-based rename was interrupted between its two halves.
                        self.remove(source)?;
                        continue;
                    }
                    return Err(StoreError::Conflict {
                        journal: self.journal_path(),
                        message: format!(
                            "{} exists and would be overwritten by {}",
                            self.rel(to),
                            self.rel(source)
                        ),
                    });
                }
                Err(e) => return Err(io("rename", source)(e)),
            }
        }
        self.sync_dirs(ops)?;
        for op in ops {
            if taken(&op.old) {
                self.remove(&op.old)?;
            }
            if let Some(new) = &op.new
                && taken(new)
            {
                self.remove(new)?;
            }
        }
        let journal = self.journal_path();
        self.step().map_err(io("remove", &journal))?;
        fs::remove_file(&journal).map_err(io("remove", &journal))?;
        let _ = fs::remove_file(self.next_journal_path());
        sync_dir(parent(&journal))
    }

    /// The journal as it will read once staging is done, written before the first move.
    fn next_journal_path(&self) -> PathBuf {
        self.state.join("journal.next.json")
    }

    fn write_journal(
        &self,
        path: &Path,
        command: &str,
        state: State,
        ops: &[Op],
    ) -> Result<(), StoreError> {
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
                    sha1: op.read.to_hex(),
                })
                .collect(),
        };
        let mut text = serde_json::to_vec_pretty(&journal).expect("journal serializes");
        text.push(b'\n');
        self.write_file(path, &text)
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
            read: ContentHash::from_hex(&op.sha1).ok_or_else(|| StoreError::Journal {
                path: self.journal_path(),
                message: format!("`{}` is not a SHA-1", op.sha1),
            })?,
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

/// Whether two names are one file (same device and inode).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        matches!(
            (fs::symlink_metadata(a), fs::symlink_metadata(b)),
            (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino()
        )
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
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

    fn read(store: &Store, name: &str) -> ContentHash {
        ContentHash::of_file(&store.root().join(name)).unwrap()
    }

    fn mv(store: &Store, from: &str, to: &str) -> Move {
        Move {
            from: store.root().join(from),
            to: Some(store.root().join(to)),
            new: None,
            read: read(store, from),
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
                read: read(&store, "c"),
            },
            mv(&store, "d", "c"), // chain: d -> c while c moves on
            Move {
                from: store.root().join("e"),
                to: None,
                new: None,
                read: read(&store, "e"),
            },
        ];
        let applied = store.apply_moves("test", &moves).unwrap();
        assert_eq!(applied, Applied::default());
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

    /// Regression (issue 11): a source that changed after the plan read it is left as it
    /// is, and so is every move that needed its name.
    #[test]
    fn a_staging_journal_with_a_changed_source_leaves_it_and_what_depends_on_it() {
        let (_dir, store) = setup(&[("a", "A"), ("b", "B"), ("c", "C")]);
        store.lock().unwrap();
        let op = |from: &str, to: &str, i: usize, read: ContentHash| Op {
            from: store.root().join(from),
            to: Some(store.root().join(to)),
            old: store.root().join(format!(".vcr-old-1-{i}")),
            new: None,
            read,
        };
        let ops = vec![
            op("a", "b", 0, read(&store, "a")),
            op("b", "a", 1, ContentHash::of(b"B as the plan read it")),
            op("c", "d", 2, read(&store, "c")),
        ];
        store
            .write_journal(&store.journal_path(), "rehash", State::Staging, &ops)
            .unwrap();
        fs::rename(store.root().join("a"), store.root().join(".vcr-old-1-0")).unwrap();
        let recovery = store.recover().unwrap().unwrap();
        assert_eq!(recovery.moves, 3);
        let skipped: Vec<_> = recovery
            .applied
            .skipped
            .iter()
            .map(|s| store.rel(&s.path))
            .collect();
        assert_eq!(skipped, ["b", "a"], "b changed; a needed b's name");
        assert_eq!(
            listing(&store),
            [
                ("a".into(), "A".into()),
                ("b".into(), "B".into()),
                ("d".into(), "C".into())
            ]
        );
        assert!(!store.journal_path().exists());
    }

    /// Regression (issue 11): a file replaced after the plan read it keeps its new contents;
    /// it is neither renamed nor replaced by a rewrite of what the plan read.
    #[test]
    fn a_source_replaced_before_staging_is_not_moved() {
        let (_dir, store) = setup(&[("a", "A"), ("b", "B")]);
        let _lock = store.lock().unwrap();
        let new = store
            .write_temp(&store.root().join("a2"), b"A rewritten", None, "new")
            .unwrap();
        let moves = vec![
            Move {
                from: store.root().join("a"),
                to: Some(store.root().join("a2")),
                new: Some(new),
                read: read(&store, "a"),
            },
            mv(&store, "b", "b2"),
        ];
        fs::write(store.root().join("a"), "A edited meanwhile").unwrap();
        let applied = store.apply_moves("rehash", &moves).unwrap();
        assert_eq!(
            applied.skipped(&store.root().join("a")),
            Some(&SkipReason::Changed)
        );
        assert_eq!(
            listing(&store),
            [
                ("a".into(), "A edited meanwhile".into()),
                ("b2".into(), "B".into())
            ]
        );
    }

    /// Regression (issue 11): a run that fails halfway (a full disk) finishes on the spot
    /// when it can, or leaves a journal the next run finishes.
    #[test]
    fn a_failing_run_leaves_nothing_aside() {
        for steps in 0..12 {
            let (_dir, store) = setup(&[("a", "A"), ("b", "B"), ("c", "C")]);
            let _lock = store.lock().unwrap();
            let failing = store.clone().with_fault(super::super::Fault::Fail, steps);
            let moves = vec![
                mv(&store, "a", "b"),
                mv(&store, "b", "a"),
                mv(&store, "c", "d"),
            ];
            let result = failing.apply_moves("rehash", &moves);
            if result.is_ok() {
                assert_eq!(listing(&store)[2], ("d".into(), "C".into()), "step {steps}");
                continue;
            }
            store.recover().unwrap();
            let after = listing(&store);
            let pairs = |l: [(&str, &str); 3]| l.map(|(a, b)| (a.to_owned(), b.to_owned()));
            assert!(
                after == pairs([("a", "A"), ("b", "B"), ("c", "C")])
                    || after == pairs([("a", "B"), ("b", "A"), ("d", "C")]),
                "step {steps}: {after:?}"
            );
            assert!(!store.journal_path().exists(), "step {steps}");
        }
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
