//! `vcr prune`: find the cassettes no test reads any more, and remove them only when the
//! evidence is a complete, green run.
//!
//! Deleting after a partial or failing run destroys cassettes other tests still need (the
//! cargo-insta `--unreferenced` story), so [`refusal`] says no when the command failed or
//! was interrupted, when a lookup missed, when watching lost opens, or when the usage
//! sources name no cassette of the tree at all (a log from another checkout, a harness that
//! logs nothing). Orphans git does not track are kept apart: git cannot bring them back.
//! Deletion goes through the store's journal, so a killed prune completes on the next run,
//! and removes only files that still hold what [`read`] found before the run: a cassette
//! saved while the tests ran is kept.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::exec::{Finished, Watch};
use crate::usage::{NotJudged, Usage};
use vcr_project::store::journal::{Applied, Move, SkipReason, Skipped};
use vcr_project::store::{ContentHash, Store, StoreError};
use vcr_project::tree::Selection;

/// A cassette (or a whole dsh scenario) no usage source read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The cassette, or the scenario folder, relative to the project root.
    pub path: String,
    /// The files that go with it (a scenario: every file of its folder), absolute.
    pub files: Vec<PathBuf>,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Whether git tracks every one of them (never outside a repository: nothing can bring
    /// them back there).
    pub tracked: bool,
    /// The scenario folder to remove once empty, for a dsh scenario.
    pub folder: Option<PathBuf>,
}

/// What the usage says about the tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Cassettes the sources can judge (a dsh scenario counts once).
    pub cassettes: usize,
    /// Of those, how many a source read.
    pub used: usize,
    /// The rest, in path order.
    pub orphans: Vec<Orphan>,
    /// HTTP cassettes not judged, per recorder format: the sources read none of that
    /// format (`usage::Usage::judge`). Never orphans.
    pub not_judged: Vec<NotJudged>,
}

impl Plan {
    /// Every cassette of the tree, judged or not.
    pub fn in_tree(&self) -> usize {
        self.cassettes
            + self
                .not_judged
                .iter()
                .map(|n| n.cassettes.len())
                .sum::<usize>()
    }
}

/// Why `prune` will not act on these usage sources.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The test command failed or was interrupted.
    #[error(
        "the test command {how}{}: a failing or interrupted run does not show which cassettes are still needed; nothing was pruned",
        if missed.is_empty() { String::new() } else {
            format!(" after looking for {} it did not find ({})", count(missed.len()), list(missed))
        }
    )]
    Failed {
        /// How it ended.
        how: String,
        /// The cassettes its output said were missing (often why it failed).
        missed: Vec<String>,
    },
    /// A lookup missed: the run was not green.
    #[error(
        "the run looked for {} it did not find ({}): it was not green, so it does not show which cassettes are still needed; record them first (`vcr record`); nothing was pruned",
        missed(paths.len(), unnamed.len()), list(&[paths.as_slice(), unnamed.as_slice()].concat())
    )]
    Missed {
        /// The missing cassettes.
        paths: Vec<String>,
        /// Lookups that missed without naming a cassette (go-vcr), as printed.
        unnamed: Vec<String>,
    },
    /// No source names a cassette of this tree.
    #[error(
        "the usage sources name none of the {cassettes} cassettes under {root}: a log from another checkout or the wrong root (-C), or a harness that logs nothing; nothing was pruned{}",
        sample.as_ref().map(|s| format!(" (the sources name e.g. `{s}`)")).unwrap_or_default()
    )]
    Empty {
        /// Cassettes in the tree.
        cassettes: usize,
        /// The project root.
        root: String,
        /// A path the sources do name, if any.
        sample: Option<String>,
    },
    /// Watching file opens lost some.
    #[error(
        "watching the tree for file opens failed ({reason}), so some reads may be unseen; have the harness write $VCR_USAGE_LOG, or pass --usage-log; nothing was pruned"
    )]
    Watch {
        /// Why.
        reason: String,
    },
}

fn missed(paths: usize, unnamed: usize) -> String {
    match (paths, unnamed) {
        (_, 0) => count(paths),
        (0, 1) => "1 recording".into(),
        (0, n) => format!("{n} recordings"),
        (p, n) => format!("{} and {n} more recordings", count(p)),
    }
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 cassette".into()
    } else {
        format!("{n} cassettes")
    }
}

fn list(paths: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = paths
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        text.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    text
}

/// The orphans of `selection` under `usage`. `tracked` is what git tracks (`None` outside a
/// repository, where every file is untracked).
///
/// HTTP cassettes sit in the recorders' folders, where a run of another suite never looks:
/// those of a recorder format are judged only when the sources read one of that format
/// (`Usage::judge`, which reads each HTTP cassette for its format); the others are listed
/// in [`Plan::not_judged`].
pub fn plan(selection: &Selection, usage: &Usage, tracked: Option<&BTreeSet<PathBuf>>) -> Plan {
    let is_tracked = |path: &PathBuf| tracked.is_some_and(|t| t.contains(path));
    let judgement = usage.judge(selection, &crate::usage::http_formats(selection));
    let scenarios: BTreeSet<String> = judgement
        .judged
        .iter()
        .filter(|c| c.kind.is_dsh())
        .map(|c| crate::usage::scenario_rel(c))
        .collect();
    let cassettes = judgement.judged.iter().filter(|c| !c.kind.is_dsh()).count() + scenarios.len();
    let mut orphans: BTreeMap<String, Orphan> = BTreeMap::new();
    for cassette in judgement.unused {
        if cassette.kind.is_dsh() {
            let rel = crate::usage::scenario_rel(cassette);
            let folder = cassette.dir.path.clone();
            orphans.entry(rel.clone()).or_insert_with(|| {
                let files = folder_files(&folder);
                Orphan {
                    bytes: size(&files),
                    tracked: files.iter().all(is_tracked),
                    path: rel,
                    files,
                    folder: Some(folder),
                }
            });
        } else {
            let files = vec![cassette.path.clone()];
            orphans.insert(
                cassette.rel.clone(),
                Orphan {
                    path: cassette.rel.clone(),
                    bytes: size(&files),
                    tracked: is_tracked(&cassette.path),
                    files,
                    folder: None,
                },
            );
        }
    }
    Plan {
        cassettes,
        used: cassettes - orphans.len(),
        orphans: orphans.into_values().collect(),
        not_judged: judgement.not_judged,
    }
}

/// A run that read cassettes of one folder only, while orphans lie outside it: in a
/// monorepo, one suite's run judged against every suite's cassettes. Said before the
/// orphans are listed (issue 21).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PartialRun {
    /// The deepest folder holding every cassette the sources read, relative to the root.
    pub folder: String,
    /// How many orphans lie outside it.
    pub outside: usize,
}

/// Whether the usage read cassettes of one folder below the root only while some orphans
/// lie outside it.
pub fn partial_run(plan: &Plan, usage: &Usage) -> Option<PartialRun> {
    let mut common: Option<Vec<&str>> = None;
    for path in usage.used() {
        if path.starts_with('/') || path.split('/').any(|part| part == "..") {
            continue;
        }
        let mut parts: Vec<&str> = path.split('/').collect();
        parts.pop();
        common = Some(match common {
            None => parts,
            Some(common) => common
                .into_iter()
                .zip(parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    let folder = common.filter(|c| !c.is_empty())?.join("/");
    let inside = format!("{folder}/");
    let outside = plan
        .orphans
        .iter()
        .filter(|o| !o.path.starts_with(&inside))
        .count();
    (outside > 0).then_some(PartialRun { folder, outside })
}

/// Why these sources cannot be pruned from, if they cannot. `run` is the command vcr ran,
/// if it ran one.
pub fn refusal(plan: &Plan, usage: &Usage, run: Option<&Finished>, root: &Path) -> Option<Refusal> {
    let missed = || -> Vec<String> {
        usage
            .records
            .iter()
            .filter(|r| r.event == crate::usage::UsageEvent::Miss)
            .map(|r| r.path.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    if let Some(run) = run {
        if !run.succeeded() {
            return Some(Refusal::Failed {
                how: run.describe(),
                missed: missed(),
            });
        }
        if let Watch::Incomplete { reason } = &run.watch {
            return Some(Refusal::Watch {
                reason: reason.clone(),
            });
        }
    }
    if usage.saw_miss() {
        let paths = missed();
        let unnamed = usage.unnamed_misses.iter().cloned().collect();
        return Some(Refusal::Missed { paths, unnamed });
    }
    // Cassettes not judged count here: sources that read none of the tree's cassettes, of
    // any kind, are the wrong sources.
    if plan.in_tree() > 0 && plan.used == 0 {
        return Some(Refusal::Empty {
            cassettes: plan.in_tree(),
            root: root.display().to_string(),
            sample: usage.records.iter().next().map(|r| r.path.clone()),
        });
    }
    None
}

/// The hash of every file `prune` may delete (each cassette, every file of each dsh
/// scenario folder), read before the test run: what [`delete`] checks each file against.
pub fn read(selection: &Selection) -> HashMap<PathBuf, ContentHash> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut folders = BTreeSet::new();
    for cassette in &selection.cassettes {
        if cassette.kind.is_dsh() {
            if folders.insert(cassette.dir.path.clone()) {
                files.extend(folder_files(&cassette.dir.path));
            }
        } else {
            files.push(cassette.path.clone());
        }
    }
    files
        .into_par_iter()
        .filter_map(|path| Some((ContentHash::of_file(&path).ok()?, path)))
        .map(|(hash, path)| (path, hash))
        .collect()
}

/// Deletes `orphans` through the journal, then the emptied scenario folders. Call with the
/// lock held. A file that is not as [`read`] found it (changed, or new since) is kept and
/// listed in the result.
pub fn delete(
    store: &Store,
    orphans: &[&Orphan],
    read: &HashMap<PathBuf, ContentHash>,
) -> Result<Applied, StoreError> {
    let mut unread = Vec::new();
    let mut moves = Vec::new();
    for file in orphans.iter().flat_map(|o| &o.files) {
        match read.get(file) {
            Some(hash) => moves.push(Move {
                from: file.clone(),
                to: None,
                new: None,
                read: *hash,
            }),
            None => unread.push(Skipped {
                path: file.clone(),
                reason: SkipReason::Changed,
            }),
        }
    }
    let mut applied = store.apply_moves("prune", &moves)?;
    applied.skipped.extend(unread);
    for folder in orphans.iter().filter_map(|o| o.folder.as_ref()) {
        vcr_project::store::stash::remove_empty_dirs(folder);
    }
    Ok(applied)
}

/// Every regular file under `folder` (links are neither followed nor taken).
fn folder_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(folder)
        .follow_links(false)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect();
    files.sort();
    files
}

fn size(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}
