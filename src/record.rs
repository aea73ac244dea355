//! `vcr record`: what a recording run changed in the tree, and the environment that puts a
//! harness in record mode.
//!
//! The tree is hashed before the run and after it; the difference tells which cassettes were
//! added, changed or removed, so only those are normalized, re-keyed and verified, and the
//! summary can say what the recording did. Hashing is by content, not modification time:
//! a harness that rewrites a cassette with the same bytes did not change it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::config::ConfigFile;
use crate::store::ContentHash;
use crate::tree::{Cassette, CassetteKind, Selection};

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

/// The cassettes whose paths (relative to the project root) match one of `globs`.
pub fn matching<'a>(
    selection: &'a Selection,
    globs: &[String],
) -> Result<Vec<&'a Cassette>, String> {
    let Some(set) = crate::tree::compile_globs(globs)? else {
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
/// when the tree shows neither yet, as before a first recording).
pub fn record_env(selection: &Selection, config: &ConfigFile) -> Vec<(String, String)> {
    if let Some(env) = &config.record.env {
        return env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    }
    let claude = config.claude_code.fixtures.is_some()
        || selection.cassettes.iter().any(|c| {
            matches!(
                c.kind,
                CassetteKind::ClaudeCodeMessage | CassetteKind::ClaudeCodeTokenCount
            )
        });
    let dsh = config.dsh.scenarios.is_some() || !selection.scenarios.is_empty();
    let mut env = Vec::new();
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
