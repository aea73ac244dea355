//! `vcr rehash`: re-key content-addressed cassettes under the current rules, without
//! re-recording.
//!
//! The key rules are applied to each cassette's key material (rewriting it if a rule changed
//! it; the payload is left alone), the name is computed as the harness computes it, and the
//! cassette is renamed. The whole plan is computed and validated before the first change:
//! two different cassettes that would share a name are a collision and nothing is renamed;
//! identical twins are merged. The renames go through the store's journal, so an interrupted
//! rehash is completed by the next run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::event::{Event, Progress, Report, par_ordered};
use crate::kind::{self, Mode};
use crate::normalize::FileProblem;
use crate::store::journal::Move;
use crate::store::{Store, StoreError};
use crate::tree::{Cassette, Selection};

/// The longest file name common file systems accept, in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// How `rehash` runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Compute and report the plan; change nothing.
    pub dry_run: bool,
}

/// What `rehash` found and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Content-addressed cassettes read.
    pub files: usize,
    /// Cassettes renamed (or to be renamed).
    pub renamed: usize,
    /// Cassettes whose key material was rewritten without a new name.
    pub rewritten: usize,
    /// Twins merged (or to be merged).
    pub merged: usize,
    /// Names two different cassettes would share.
    pub collisions: usize,
    /// Names too long for the file system.
    pub too_long: usize,
    /// Files that could not be processed.
    pub errors: usize,
    /// Whether the plan was applied.
    pub applied: bool,
}

/// One cassette's part of the plan.
struct Entry {
    rel: String,
    path: PathBuf,
    target: PathBuf,
    /// SHA-1 of the canonical bytes of the re-keyed value, to recognise twins.
    content: [u8; 20],
    /// Whether the key rules changed the key material.
    rewritten: bool,
    /// A temporary file with the rewritten contents (not in a dry run).
    new: Option<PathBuf>,
}

enum Planned {
    Entry(Entry),
    Skip,
    Problem(FileProblem),
}

/// Runs `rehash` over the selected cassettes. The caller must hold the store's lock unless
/// this is a dry run.
pub fn run(
    selection: &Selection,
    store: &Store,
    options: Options,
    report: &dyn Report,
    progress: &dyn Progress,
) -> Result<Summary, StoreError> {
    let mut summary = Summary::default();
    let mut entries = Vec::new();
    par_ordered(
        &selection.cassettes,
        progress,
        |cassette| plan_one(cassette, store, options),
        |cassette, planned| match planned {
            Planned::Entry(entry) => {
                summary.files += 1;
                entries.push(entry);
            }
            Planned::Skip => report.report(&Event::Skipped {
                path: &cassette.rel,
                reason: "the key of a token-count fixture is not stored; it cannot be re-keyed",
            }),
            Planned::Problem(problem) => {
                summary.errors += 1;
                problem.report(&cassette.rel, report);
            }
        },
    );
    let moves = match validate(&entries, store, report, &mut summary) {
        Some(moves) => moves,
        None => {
            discard_temps(&entries, store);
            return Ok(summary);
        }
    };
    summary.rewritten = entries
        .iter()
        .filter(|e| e.target == e.path && e.rewritten)
        .count();
    if options.dry_run {
        report_plan(&moves, &entries, store, false, report);
        return Ok(summary);
    }
    store.apply_moves("rehash", &moves)?;
    summary.applied = true;
    report_plan(&moves, &entries, store, true, report);
    Ok(summary)
}

fn plan_one(cassette: &Cassette, store: &Store, options: Options) -> Planned {
    if !cassette.kind.is_content_addressed() {
        return Planned::Skip;
    }
    let bytes = match std::fs::read(&cassette.path) {
        Ok(bytes) => bytes,
        Err(e) => return Planned::Problem(FileProblem::io(&e)),
    };
    let canonical = match kind::canonicalize(cassette, &bytes, Mode::Rekey) {
        Ok(canonical) => canonical,
        Err(e) => return Planned::Problem(FileProblem::cassette(&e, &bytes)),
    };
    let name = canonical.name.unwrap_or_default();
    let target = cassette.path.with_file_name(&name);
    let new = if canonical.key_changed && !options.dry_run {
        match store.write_temp(&target, &canonical.bytes, Some(&cassette.path), "new") {
            Ok(path) => Some(path),
            Err(e) => return Planned::Problem(FileProblem::io(&e)),
        }
    } else {
        None
    };
    Planned::Entry(Entry {
        rel: cassette.rel.clone(),
        path: cassette.path.clone(),
        target,
        content: Sha1::digest(&canonical.bytes).into(),
        rewritten: canonical.key_changed,
        new,
    })
}

/// Checks the plan and turns it into moves; `None` (after reporting why) if it is unsafe.
fn validate(
    entries: &[Entry],
    store: &Store,
    report: &dyn Report,
    summary: &mut Summary,
) -> Option<Vec<Move>> {
    let mut by_target: BTreeMap<&Path, Vec<&Entry>> = BTreeMap::new();
    for entry in entries {
        by_target.entry(&entry.target).or_default().push(entry);
    }
    let sources: std::collections::HashSet<&Path> =
        entries.iter().map(|e| e.path.as_path()).collect();
    let mut moves = Vec::new();
    let mut ok = true;
    for (target, group) in &by_target {
        let name_len = target.file_name().map_or(0, |n| n.len());
        if name_len > MAX_NAME_BYTES {
            ok = false;
            summary.too_long += group.len();
            for entry in group {
                report.report(&Event::NameTooLong {
                    path: &entry.rel,
                    bytes: name_len,
                });
            }
            continue;
        }
        // A file already at the target that this run does not move: it must be a twin.
        let occupant = (!sources.contains(target) && target.exists()).then_some(*target);
        let twins = group.iter().all(|e| e.content == group[0].content)
            && occupant.is_none_or(|path| same_content(path, &group[0].content));
        if !twins {
            ok = false;
            summary.collisions += 1;
            let mut paths: Vec<String> = group.iter().map(|e| e.rel.clone()).collect();
            if let Some(path) = occupant {
                paths.push(store.rel(path));
            }
            paths.sort();
            report.report(&Event::Collision {
                name: &target
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                paths: &paths,
            });
            continue;
        }
        // The twin that keeps the name: one already there, else the first by path.
        let keeper = if occupant.is_some() {
            None
        } else {
            Some(group.iter().position(|e| e.path == **target).unwrap_or(0))
        };
        for (i, entry) in group.iter().enumerate() {
            if Some(i) == keeper {
                if entry.path != entry.target || entry.rewritten {
                    moves.push(Move {
                        from: entry.path.clone(),
                        to: Some(entry.target.clone()),
                        new: entry.new.clone(),
                    });
                }
            } else {
                summary.merged += 1;
                moves.push(Move {
                    from: entry.path.clone(),
                    to: None,
                    new: entry.new.clone(),
                });
            }
        }
    }
    summary.renamed = moves
        .iter()
        .filter(|m| m.to.as_ref().is_some_and(|to| *to != m.from))
        .count();
    ok.then_some(moves)
}

/// Whether the file at `path` holds the same cassette as `entry` (canonical bytes).
fn same_content(path: &Path, content: &[u8; 20]) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let Ok(value) = crate::json::parse(&bytes) else {
        return false;
    };
    let digest: [u8; 20] = Sha1::digest(crate::json::to_pretty(&value)).into();
    digest == *content
}

fn report_plan(moves: &[Move], entries: &[Entry], store: &Store, done: bool, report: &dyn Report) {
    let by_path: std::collections::HashMap<&Path, &Entry> =
        entries.iter().map(|e| (e.path.as_path(), e)).collect();
    let mut planned: Vec<(&Entry, &Move)> = moves
        .iter()
        .filter_map(|m| by_path.get(m.from.as_path()).map(|e| (*e, m)))
        .collect();
    planned.sort_by(|a, b| a.0.rel.cmp(&b.0.rel));
    for (entry, m) in planned {
        match &m.to {
            Some(to) => report.report(&Event::Renamed {
                from: &entry.rel,
                to: &store.rel(to),
                rewritten: entry.rewritten,
                done,
            }),
            None => report.report(&Event::Merged {
                from: &entry.rel,
                into: &store.rel(&entry.target),
                done,
            }),
        }
    }
}

fn discard_temps(entries: &[Entry], store: &Store) {
    for new in entries.iter().filter_map(|e| e.new.as_ref()) {
        let _ = store.remove(new);
    }
}
