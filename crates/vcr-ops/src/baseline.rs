//! Baselines: today's findings of a legacy tree, accepted so that only new ones fail.
//!
//! A finding is identified by its id, its file, its JSON pointer and a hash of the offending
//! value, never by line numbers: editing a cassette above a known finding must not make it
//! new. The file is JSON, sorted, one entry per line, so it diffs well in review.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use vcr_lint::finding::Finding;

/// What identifies a finding in a baseline.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The finding id.
    pub id: String,
    /// The file.
    pub path: String,
    /// The JSON pointer, when the file was parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The hash of the value.
    pub fingerprint: String,
}

impl Entry {
    fn of(finding: &Finding) -> Entry {
        Entry {
            id: finding.id.as_str().to_owned(),
            path: finding.path.clone(),
            pointer: finding.pointer.clone(),
            fingerprint: finding.fingerprint.clone(),
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

/// A baseline that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// Reading or writing failed.
    #[error("cannot {op} baseline {}", path.display())]
    Io {
        /// `read` or `write`.
        op: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a baseline.
    #[error("invalid baseline {}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column.
        message: String,
    },
}

/// What a baseline still accepts during a run: each entry as many more times as it was
/// counted ([`Baseline::accepting`]).
#[derive(Debug, Clone)]
pub struct Accepting {
    left: BTreeMap<Entry, usize>,
}

impl Accepting {
    /// Whether the baseline accepts `finding` (which then uses up one of its entry's count).
    fn accepts(&mut self, finding: &Finding) -> bool {
        match self.left.get_mut(&Entry::of(finding)) {
            Some(count) if *count > 0 => {
                *count -= 1;
                true
            }
            _ => false,
        }
    }

    /// Keeps the findings the baseline does not accept; returns how many it accepted.
    pub fn filter(&mut self, findings: &mut Vec<Finding>) -> usize {
        let before = findings.len();
        findings.retain(|finding| !self.accepts(finding));
        before - findings.len()
    }
}

/// Accepted findings, counted (the same value can leak twice in one file).
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    accepted: BTreeMap<Entry, usize>,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
            op: "read",
            path: path.to_owned(),
            source,
        })?;
        let file: File = serde_json::from_str(&text).map_err(|e| BaselineError::Invalid {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        if file.version != 1 {
            return Err(BaselineError::Invalid {
                path: path.to_owned(),
                message: format!("unknown version {}", file.version),
            });
        }
        let mut accepted = BTreeMap::new();
        for entry in file.findings {
            *accepted.entry(entry).or_default() += 1;
        }
        Ok(Baseline { accepted })
    }

    /// What is left of the baseline to accept as findings come, a group at a time.
    pub fn accepting(&self) -> Accepting {
        Accepting {
            left: self.accepted.clone(),
        }
    }

    /// The text of a baseline accepting `findings`.
    pub fn render(findings: &[Finding]) -> String {
        let mut entries: Vec<Entry> = findings.iter().map(Entry::of).collect();
        entries.sort();
        let mut out = String::from("{\n  \"version\": 1,\n  \"findings\": [\n");
        for (i, entry) in entries.iter().enumerate() {
            let line = serde_json::to_string(entry).expect("entries serialize");
            out.push_str("    ");
            out.push_str(&line);
            out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
        }
        out.push_str("  ]\n}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcr_lint::finding::Severity;

    fn finding(path: &str, value: &str, line: usize) -> Finding {
        let mut f = Finding::new(
            vcr_lint::finding::FindingId::LeakSecret,
            Severity::Error,
            path,
            "x".into(),
        );
        f.fingerprint = vcr_lint::finding::fingerprint(value);
        f.pointer = Some("/input/0".into());
        f.line = Some(line);
        f
    }

    #[test]
    fn accepted_findings_survive_moved_lines_but_new_ones_fail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        std::fs::write(
            &path,
            Baseline::render(&[finding("a.json", "k1", 3), finding("a.json", "k1", 9)]),
        )
        .unwrap();
        let baseline = Baseline::load(&path).unwrap();
        let mut now = vec![
            finding("a.json", "k1", 30),
            finding("a.json", "k1", 40),
            finding("a.json", "k1", 50),
            finding("a.json", "k2", 3),
        ];
        assert_eq!(baseline.accepting().filter(&mut now), 2);
        assert_eq!(now.len(), 2, "a third copy and a new value are new");
    }

    #[test]
    fn a_broken_baseline_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        std::fs::write(&path, "{\"version\": 1, \"findings\": [{\"id\": 3}]}").unwrap();
        let err = Baseline::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("invalid baseline") && err.contains("line 1"),
            "{err}"
        );
    }
}
