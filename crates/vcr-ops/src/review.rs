//! `vcr review`: a re-recording decided a cassette at a time, as `cargo insta review` decides
//! snapshots: each cassette that changed against a git revision is kept (accepted) or put
//! back as the revision has it (rejected).
//!
//! [`plan`] compares the revision with the working tree through `vcr_diff` and keeps, for
//! each cassette that differs, its entry (verdict and changes) and its files: what the
//! revision holds and a hash of what is on disk now. [`reject`] puts the revision's bytes
//! back through the store: a file the re-recording rewrote or added is replaced or removed
//! with the journal (`Store::apply_moves`), so a run killed at any instant is completed by
//! the next one; a file it removed is created again, never over a file that appeared since.
//! Nothing is touched that changed after the plan read it. Accepting changes nothing: the
//! working tree already holds the new recording. Nothing here prints or reads a key: the
//! binary asks.

use std::path::{Path, PathBuf};

use vcr_diff::{Blob, Entry, Options, Snapshot, Status, Summary, Verdict};
use vcr_lint::Scanner;
use vcr_project::run::{FileProblem, Progress};
use vcr_project::store::journal::{Move, SkipReason};
use vcr_project::store::{ContentHash, Store, StoreError};

/// A cassette that changed, to decide.
#[derive(Debug, Clone)]
pub struct Item {
    /// What changed: the verdict, its reason and the change lines (secrets masked).
    pub entry: Entry,
    /// Its files, on either side.
    pub files: Vec<File>,
}

/// One file of a cassette under review.
#[derive(Debug, Clone)]
pub struct File {
    /// Relative to the project root, `/`-separated.
    pub rel: String,
    /// The file as the revision holds it; `None`: the revision has no such file.
    pub old: Option<Blob>,
    /// The hash of the file in the working tree when the plan read it; `None`: absent.
    pub now: Option<ContentHash>,
}

impl Item {
    /// Whether `--accept-same-behaviour` keeps it without asking: a verdict that is not a
    /// behaviour change (a cassette added or removed has none, and is asked about).
    pub fn same_behaviour(&self) -> bool {
        matches!(
            self.entry.verdict,
            Some(Verdict::Identical | Verdict::SameBehaviour | Verdict::Reworded)
        ) && !matches!(self.entry.status, Status::Added | Status::Removed)
    }
}

/// What [`plan`] found.
#[derive(Debug, Default)]
pub struct Plan {
    /// The cassettes that differ, in path order.
    pub items: Vec<Item>,
    /// The counts of the comparison.
    pub summary: Summary,
    /// The cassettes that could not be read, by path as their side shows it.
    pub problems: Vec<(String, FileProblem)>,
}

/// Compares `old` (a revision) with `new` (the working tree under `root`) and lists the
/// cassettes that differ with their files.
pub fn plan(
    root: &Path,
    old: &Snapshot,
    new: &Snapshot,
    options: &Options,
    masker: &Scanner,
    progress: &dyn Progress,
) -> Plan {
    let mut collected = Collected::default();
    let summary = vcr_diff::run(old, new, options, masker, &mut collected, progress);
    let items = collected
        .entries
        .into_iter()
        .filter(|e| e.status != Status::Unchanged)
        .map(|entry| {
            let mut rels: Vec<String> = Vec::new();
            for path in std::iter::once(&entry.path).chain(&entry.old_path) {
                for side in [old, new] {
                    rels.extend(side.under(path).map(|(rel, _)| rel.to_owned()));
                }
            }
            rels.sort();
            rels.dedup();
            let files = rels
                .into_iter()
                .map(|rel| File {
                    old: old.get(&rel).cloned(),
                    now: ContentHash::of_file(&root.join(&rel)).ok(),
                    rel,
                })
                .collect();
            Item { entry, files }
        })
        .collect();
    Plan {
        items,
        summary,
        problems: collected.problems,
    }
}

#[derive(Default)]
struct Collected {
    entries: Vec<Entry>,
    problems: Vec<(String, FileProblem)>,
}

impl vcr_diff::Sink for Collected {
    fn entry(&mut self, entry: &Entry) {
        self.entries.push(entry.clone());
    }

    fn problem(&mut self, path: &str, problem: &FileProblem) {
        self.problems.push((path.to_owned(), problem.clone()));
    }
}

/// The decisions of a review, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Decisions {
    /// Cassettes that differ from the revision.
    pub changed: usize,
    /// Kept as re-recorded.
    pub accepted: usize,
    /// Put back as the revision has them.
    pub rejected: usize,
    /// Left undecided: skipped, not reached before quitting, or not asked (no terminal).
    pub skipped: usize,
    /// Cassettes that could not be read.
    pub errors: usize,
}

/// What [`reject`] did to each file of a cassette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Files given back the revision's bytes (rewritten, or created again).
    pub restored: Vec<String>,
    /// Files the revision did not have, removed.
    pub removed: Vec<String>,
    /// Files left as they are because they changed after the plan read them.
    pub changed: Vec<String>,
}

/// Why a cassette could not be put back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// The revision's copy of a file could not be read.
    #[error("cannot read {rel} as the revision has it")]
    Read {
        /// The file.
        rel: String,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The store refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Puts a cassette back as the revision has it (see the module docs): every file the plan
/// read is rewritten with the revision's bytes, removed when the revision has none, created
/// when only the revision has it. Call with the store's lock held.
pub fn reject(store: &Store, item: &Item) -> Result<Rejected, ReviewError> {
    let mut done = Rejected {
        restored: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
    };
    let mut moves: Vec<Move> = Vec::new();
    let mut temps: Vec<PathBuf> = Vec::new();
    let mut create: Vec<(&File, Vec<u8>)> = Vec::new();
    let old_bytes = |file: &File| -> Result<Option<Vec<u8>>, ReviewError> {
        file.old
            .as_ref()
            .map(|blob| {
                blob.read()
                    .map(std::borrow::Cow::into_owned)
                    .map_err(|source| ReviewError::Read {
                        rel: file.rel.clone(),
                        source,
                    })
            })
            .transpose()
    };
    // Stage the revision's bytes beside each file; a failure before the plan is applied
    // removes what was staged (after, the journal owns the staged copies).
    let staged = (|| -> Result<(), ReviewError> {
        for file in &item.files {
            let path = store.root().join(&file.rel);
            match (old_bytes(file)?, file.now) {
                (Some(bytes), Some(now)) => {
                    if ContentHash::of(&bytes) == now {
                        continue;
                    }
                    let temp = store.write_temp(&path, &bytes, Some(&path), "new")?;
                    temps.push(temp.clone());
                    moves.push(Move {
                        from: path.clone(),
                        to: Some(path),
                        new: Some(temp),
                        read: now,
                    });
                }
                (None, Some(now)) => moves.push(Move {
                    from: path,
                    to: None,
                    new: None,
                    read: now,
                }),
                (Some(bytes), None) => create.push((file, bytes)),
                (None, None) => {}
            }
        }
        Ok(())
    })();
    if let Err(e) = staged {
        for temp in temps {
            let _ = store.remove(&temp);
        }
        return Err(e);
    }
    let applied = store.apply_moves("review", &moves)?;
    for m in &moves {
        let rel = store.rel(&m.from);
        match (applied.skipped(&m.from), &m.to) {
            (Some(SkipReason::Changed | SkipReason::TargetTaken { .. }), _) => {
                done.changed.push(rel);
            }
            (None, Some(_)) => done.restored.push(rel),
            (None, None) => done.removed.push(rel),
        }
    }
    for (file, bytes) in create {
        match store.create_file(&store.root().join(&file.rel), &bytes) {
            Ok(()) => done.restored.push(file.rel.clone()),
            Err(StoreError::Changed { .. }) => done.changed.push(file.rel.clone()),
            Err(e) => return Err(e.into()),
        }
    }
    done.restored.sort();
    done.removed.sort();
    done.changed.sort();
    Ok(done)
}

/// The unified diff of one cassette's canonical forms, secrets masked: `vcr diff --full` for
/// that cassette alone (the `d` of review), made when asked for.
pub fn full_diff(
    item: &Item,
    old: &Snapshot,
    new: &Snapshot,
    options: &Options,
    masker: &Scanner,
) -> String {
    let pick = |side: &Snapshot| {
        let mut out = Snapshot::new(&side.label);
        for file in &item.files {
            if let Some(blob) = side.get(&file.rel) {
                out.insert(&file.rel, blob.clone());
            }
        }
        out
    };
    let (old, new) = (pick(old), pick(new));
    let options = Options {
        full: true,
        ..options.clone()
    };
    let mut collected = Collected::default();
    vcr_diff::run(
        &old,
        &new,
        &options,
        masker,
        &mut collected,
        &vcr_project::run::NoProgress,
    );
    collected
        .entries
        .iter()
        .filter_map(|e| e.diff.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcr_diff::Kind;

    fn item(files: Vec<File>) -> Item {
        Item {
            entry: Entry {
                path: "cassettes".to_owned(),
                old_path: None,
                kind: Kind::Dsh,
                status: Status::Modified,
                verdict: Some(Verdict::BehaviourChange),
                reason: String::new(),
                changed_message: None,
                changes: Vec::new(),
                calls: Vec::new(),
                diff: None,
            },
            files,
        }
    }

    /// A rejection gives back what the revision had: a rewritten file its old bytes, an
    /// added one removed, a removed one created again; a file changed since the plan read it
    /// is left as it is, and nothing else is left beside the files.
    #[test]
    fn a_rejection_puts_back_what_the_revision_had() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let store = Store::new(&root);
        let _lock = store.lock().unwrap();
        let write = |rel: &str, bytes: &[u8]| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        };
        write("c/rewritten.yaml", b"new");
        write("c/added.yaml", b"added");
        write("c/edited.yaml", b"new");
        let file = |rel: &str, old: Option<&[u8]>, now: Option<&[u8]>| File {
            rel: rel.to_owned(),
            old: old.map(|b| Blob::Bytes(b.to_vec())),
            now: now.map(ContentHash::of),
        };
        let item = item(vec![
            file("c/added.yaml", None, Some(b"added")),
            file("c/edited.yaml", Some(b"old"), Some(b"new")),
            file("c/removed/again.yaml", Some(b"gone"), None),
            file("c/rewritten.yaml", Some(b"old"), Some(b"new")),
        ]);
        // Saved by an editor after the plan read it.
        write("c/edited.yaml", b"edited");
        let done = reject(&store, &item).unwrap();
        assert_eq!(done.restored, ["c/removed/again.yaml", "c/rewritten.yaml"]);
        assert_eq!(done.removed, ["c/added.yaml"]);
        assert_eq!(done.changed, ["c/edited.yaml"]);
        let read = |rel: &str| std::fs::read(root.join(rel)).ok();
        assert_eq!(read("c/rewritten.yaml").as_deref(), Some(&b"old"[..]));
        assert_eq!(read("c/removed/again.yaml").as_deref(), Some(&b"gone"[..]));
        assert_eq!(read("c/added.yaml"), None);
        assert_eq!(read("c/edited.yaml").as_deref(), Some(&b"edited"[..]));
        let mut left: Vec<String> = std::fs::read_dir(root.join("c"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["edited.yaml", "removed", "rewritten.yaml"]);
        assert!(!store.journal_path().exists());
        // A file that appeared where a removed one was to come back is not overwritten.
        write("c/removed/again.yaml", b"someone else's");
        let again = reject(
            &store,
            &self::item(vec![file("c/removed/again.yaml", Some(b"gone"), None)]),
        )
        .unwrap();
        assert_eq!(again.changed, ["c/removed/again.yaml"]);
        assert_eq!(
            read("c/removed/again.yaml").as_deref(),
            Some(&b"someone else's"[..])
        );
    }
}
