//! `vcr record`: what a recording run changed in the tree, and the environment that puts a
//! harness in record mode.
//!
//! The tree is hashed before the run and after it; the difference tells which cassettes were
//! added, changed or removed, so only those are normalized, re-keyed and verified, and the
//! summary can say what the recording did. Hashing is by content, not modification time:
//! a harness that rewrites a cassette with the same bytes did not change it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

mod mode;

pub use mode::{How, HttpRecording, RecorderMode, http_recording};

use vcr_project::config::ConfigFile;
use vcr_project::store::ContentHash;
use vcr_project::tree::{Cassette, CassetteKind, Selection};

/// The cassettes of a tree and a hash of each one's bytes.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    files: BTreeMap<String, (PathBuf, Option<ContentHash>)>,
}

impl Snapshot {
    /// Hashes every cassette of `selection` (in parallel). An unreadable file has no hash
    /// and so never compares equal.
    pub fn take(selection: &Selection) -> Snapshot {
        let files = selection
            .cassettes
            .par_iter()
            .map(|c| {
                let hash = ContentHash::of_file(&c.path).ok();
                (c.rel.clone(), (c.path.clone(), hash))
            })
            .collect();
        Snapshot { files }
    }

    /// The hash of the cassette `rel` when the snapshot was taken, if it could be read.
    pub fn hash(&self, rel: &str) -> Option<ContentHash> {
        self.files.get(rel).and_then(|(_, hash)| *hash)
    }

    /// The cassettes that are new or different in `self` compared with `before`.
    pub fn changed_since(&self, before: &Snapshot) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|(rel, (_, hash))| {
                before
                    .files
                    .get(*rel)
                    .is_none_or(|(_, old)| old.is_none() || old != hash)
            })
            .map(|(_, (path, _))| path.clone())
            .collect()
    }
}

/// What a recording did to one cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// New.
    Added,
    /// Different bytes.
    Changed,
    /// Gone (the harness deleted it).
    Removed,
    /// Re-recorded, or left alone, with the same bytes.
    Unchanged,
    /// Moved aside by `--only` but not recorded again: put back as it was.
    Kept,
}

/// Counts of a recording, by change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// New cassettes.
    pub added: usize,
    /// Cassettes with new contents.
    pub changed: usize,
    /// Cassettes the harness deleted.
    pub removed: usize,
    /// Cassettes with the same contents.
    pub unchanged: usize,
    /// Cassettes moved aside by `--only` that nothing recorded again, put back.
    pub kept: usize,
}

impl Summary {
    fn add(&mut self, change: Change) {
        match change {
            Change::Added => self.added += 1,
            Change::Changed => self.changed += 1,
            Change::Removed => self.removed += 1,
            Change::Unchanged => self.unchanged += 1,
            Change::Kept => self.kept += 1,
        }
    }
}

/// Every cassette of `before` and `after` with what the recording did to it, in path order.
/// `kept` are the cassettes put back unrecorded.
pub fn compare(
    before: &Snapshot,
    after: &Snapshot,
    kept: &BTreeSet<String>,
) -> (Vec<(String, Change)>, Summary) {
    let rels: BTreeSet<&String> = before.files.keys().chain(after.files.keys()).collect();
    let mut summary = Summary::default();
    let changes = rels
        .into_iter()
        .map(|rel| {
            let change = match (before.files.get(rel), after.files.get(rel)) {
                (_, Some(_)) if kept.contains(rel) => Change::Kept,
                (None, _) => Change::Added,
                (Some(_), None) => Change::Removed,
                (Some((_, old)), Some((_, new))) if old.is_some() && old == new => {
                    Change::Unchanged
                }
                (Some(_), Some(_)) => Change::Changed,
            };
            summary.add(change);
            (rel.clone(), change)
        })
        .collect();
    (changes, summary)
}

/// The other files in the cassettes' folders: the expected outputs and sidecars a dsh suite
/// writes beside its session logs (`stdout.expected.jsonl`, `system-prompt.expected.md`,
/// `tool-schemas.expected.json`, ...), or anything else a harness leaves in a fixtures
/// folder. `record` lists what the run changed among them. vcr does not know their formats,
/// so it neither normalizes nor verifies them, but a re-recording that rewrites an expected
/// output belongs in the same review as its cassettes.
///
/// The folders are those holding a cassette and the dsh scenario folders, without
/// subfolders (a scenario's `workspace/` seed is input, not output). A folder that becomes a
/// cassette folder during the run (a scenario recorded for the first time, whose folder held
/// only its `input.json`) was not hashed before. Its files count as written by the run when
/// their modification time is not before the run started.
#[derive(Debug, Clone, Default)]
pub struct Siblings {
    /// Folder (absolute) to its path relative to the project root (`""` for the root).
    folders: BTreeMap<PathBuf, String>,
    /// File (relative) to its path, content hash and modification time.
    files: BTreeMap<String, Sibling>,
}

#[derive(Debug, Clone)]
struct Sibling {
    path: PathBuf,
    hash: Option<ContentHash>,
    modified: Option<SystemTime>,
}

impl Siblings {
    /// Hashes the non-cassette files in the folders of `selection`.
    pub fn take(selection: &Selection) -> Siblings {
        Siblings::take_in(folders_of(selection), selection)
    }

    /// The same folders again (those of `before` and of `selection`), for comparing with
    /// `before`.
    pub fn take_again(before: &Siblings, selection: &Selection) -> Siblings {
        let mut folders = before.folders.clone();
        folders.extend(folders_of(selection));
        Siblings::take_in(folders, selection)
    }

    fn take_in(folders: BTreeMap<PathBuf, String>, selection: &Selection) -> Siblings {
        let cassettes: BTreeSet<&Path> = selection
            .cassettes
            .iter()
            .map(|c| c.path.as_path())
            .collect();
        let listed: Vec<(PathBuf, String)> = folders
            .iter()
            .flat_map(|(dir, rel)| {
                let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
                entries
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .filter_map(|e| {
                        let name = e.file_name().into_string().ok()?;
                        let rel = if rel.is_empty() {
                            name
                        } else {
                            format!("{rel}/{name}")
                        };
                        Some((e.path(), rel))
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|(path, _)| !cassettes.contains(path.as_path()))
            .collect();
        let files = listed
            .into_par_iter()
            .map(|(path, rel)| {
                let hash = ContentHash::of_file(&path).ok();
                let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
                (
                    rel,
                    Sibling {
                        path,
                        hash,
                        modified,
                    },
                )
            })
            .collect();
        Siblings { folders, files }
    }

    /// What the run did to the files of `self`'s folders since `before`, which was taken
    /// when the run `started`: added, changed or removed, in path order.
    pub fn changes(&self, before: &Siblings, started: SystemTime) -> Vec<(String, Change)> {
        let rels: BTreeSet<&String> = before.files.keys().chain(self.files.keys()).collect();
        rels.into_iter()
            .filter_map(|rel| {
                let change = match (before.files.get(rel), self.files.get(rel)) {
                    (Some(old), Some(new)) if old.hash.is_none() || old.hash != new.hash => {
                        Change::Changed
                    }
                    (Some(_), Some(_)) => return None,
                    // Gone, not merely a cassette now (listed as such by `compare`).
                    (Some(old), None) if !old.path.exists() => Change::Removed,
                    (Some(_), None) => return None,
                    (None, Some(new)) => {
                        let folder = new.path.parent().unwrap_or(Path::new(""));
                        let hashed_before = before.folders.contains_key(folder);
                        let written = new.modified.is_some_and(|m| m >= started);
                        if !hashed_before && !written {
                            return None;
                        }
                        Change::Added
                    }
                    (None, None) => return None,
                };
                Some((rel.clone(), change))
            })
            .collect()
    }
}

/// The folders of a selection's cassettes and dsh scenarios, with their relative paths.
fn folders_of(selection: &Selection) -> BTreeMap<PathBuf, String> {
    let mut folders = BTreeMap::new();
    for cassette in &selection.cassettes {
        if let Some(dir) = cassette.path.parent() {
            let rel = cassette.rel.rsplit_once('/').map_or("", |(dir, _)| dir);
            folders.insert(dir.to_path_buf(), rel.to_owned());
        }
    }
    for scenario in &selection.scenarios {
        folders.insert(scenario.path.clone(), scenario.rel.clone());
    }
    folders
}

/// The cassettes whose paths (relative to the project root) match one of `globs`.
pub fn matching<'a>(
    selection: &'a Selection,
    globs: &[String],
) -> Result<Vec<&'a Cassette>, String> {
    let Some(set) = vcr_project::tree::compile_globs(globs)? else {
        return Ok(Vec::new());
    };
    Ok(selection
        .cassettes
        .iter()
        .filter(|c| set.is_match(&c.rel))
        .collect())
}

/// The variables that put the harness in record mode: `[record] env` when configured, else
/// `VCR_RECORD=1` for Claude Code trees and `DSH_SNAPSHOT=record` for dsh trees (both
/// when the tree shows neither yet, as before a first recording). An HTTP-only project (HTTP
/// cassettes, or a recorder `http` found declared, and neither Claude Code nor dsh) gets
/// neither: its recorders take their own switches ([`http_recording`]), and a variable of a
/// harness it does not use would only mislead whatever reads it.
pub fn record_env(
    selection: &Selection,
    config: &ConfigFile,
    http: &HttpRecording,
) -> Vec<(String, String)> {
    if let Some(env) = &config.record.env {
        return env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    }
    let claude = config.claude_code.fixtures.is_some()
        || selection.cassettes.iter().any(|c| c.kind.is_claude_code());
    let dsh = config.dsh.scenarios.is_some() || !selection.scenarios.is_empty();
    let http_only = !claude
        && !dsh
        && (!http.recorders.is_empty()
            || selection
                .cassettes
                .iter()
                .any(|c| c.kind == CassetteKind::Http))
        && selection
            .cassettes
            .iter()
            .all(|c| matches!(c.kind, CassetteKind::Http | CassetteKind::Text));
    let mut env = Vec::new();
    if http_only {
        return env;
    }
    if claude || !dsh {
        env.push(("VCR_RECORD".to_owned(), "1".to_owned()));
    }
    if dsh || !claude {
        env.push(("DSH_SNAPSHOT".to_owned(), "record".to_owned()));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(files: &[(&str, Option<u8>)]) -> Snapshot {
        Snapshot {
            files: files
                .iter()
                .map(|(rel, hash)| {
                    (
                        (*rel).to_owned(),
                        (PathBuf::from(rel), hash.map(|h| ContentHash::of(&[h]))),
                    )
                })
                .collect(),
        }
    }

    fn siblings(folders: &[&str], files: &[(&str, u8, u64)]) -> Siblings {
        let at = |secs: u64| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        Siblings {
            folders: folders
                .iter()
                .map(|d| (PathBuf::from("/p").join(d), (*d).to_owned()))
                .collect(),
            files: files
                .iter()
                .map(|(rel, hash, modified)| {
                    let sibling = Sibling {
                        path: PathBuf::from("/p").join(rel),
                        hash: Some(ContentHash::of(&[*hash])),
                        modified: Some(at(*modified)),
                    };
                    ((*rel).to_owned(), sibling)
                })
                .collect(),
        }
    }

    #[test]
    fn siblings_written_by_the_run_are_listed() {
        let before = siblings(
            &["a", "b"],
            &[
                ("a/x.expected.md", 1, 10),
                ("a/gone.md", 2, 10),
                ("b/same.json", 3, 10),
            ],
        );
        let after = siblings(
            &["a", "b", "new"],
            &[
                ("a/x.expected.md", 9, 120),
                ("a/y.expected.md", 4, 120),
                ("b/same.json", 3, 120),
                // A folder new to the tree: its old input is not the run's, its output is.
                ("new/input.json", 5, 10),
                ("new/stdout.expected.jsonl", 6, 100),
            ],
        );
        assert_eq!(
            after.changes(
                &before,
                SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(100)
            ),
            [
                ("a/gone.md".to_owned(), Change::Removed),
                ("a/x.expected.md".to_owned(), Change::Changed),
                ("a/y.expected.md".to_owned(), Change::Added),
                ("new/stdout.expected.jsonl".to_owned(), Change::Added),
            ]
        );
    }

    #[test]
    fn changes_are_classified_by_content() {
        let before = snapshot(&[
            ("a", Some(1)),
            ("b", Some(2)),
            ("c", Some(3)),
            ("d", Some(4)),
            ("e", None),
        ]);
        let after = snapshot(&[
            ("a", Some(1)),
            ("b", Some(9)),
            ("d", Some(4)),
            ("e", None),
            ("f", Some(5)),
        ]);
        let kept = BTreeSet::from(["d".to_owned()]);
        let (changes, summary) = compare(&before, &after, &kept);
        assert_eq!(
            changes,
            [
                ("a".into(), Change::Unchanged),
                ("b".into(), Change::Changed),
                ("c".into(), Change::Removed),
                ("d".into(), Change::Kept),
                ("e".into(), Change::Changed),
                ("f".into(), Change::Added),
            ]
        );
        assert_eq!(
            summary,
            Summary {
                added: 1,
                changed: 2,
                removed: 1,
                unchanged: 1,
                kept: 1
            }
        );
        let changed: Vec<PathBuf> = after.changed_since(&before);
        assert_eq!(
            changed,
            [PathBuf::from("b"), PathBuf::from("e"), PathBuf::from("f")]
        );
    }
}
