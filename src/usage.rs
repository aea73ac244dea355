//! Usage logs: which cassettes a test run read, wrote or looked for in vain.
//!
//! A harness appends one line per cassette lookup to the file named by `VCR_USAGE_LOG`:
//! either a path, or `{"path": "...", "event": "hit" | "miss" | "write"}`. Relative paths
//! are relative to the project root. Each line is written with one append, so parallel
//! workers can share a log; a line cut short by a killed worker is reported, not guessed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// What a test run did with a cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageEvent {
    /// The cassette was read.
    Hit,
    /// The cassette was looked for and not found.
    Miss,
    /// The cassette was written (recorded).
    Write,
}

/// One line of a usage log.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UsageRecord {
    /// The cassette, relative to the project root (`/`-separated) when it is inside it.
    pub path: String,
    /// What happened.
    pub event: UsageEvent,
}

/// A usage log that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// The file could not be read.
    #[error("cannot read usage log {}: {source}", path.display())]
    Read {
        /// The log.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is neither a path nor a usage record.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The log.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    path: String,
    event: UsageEvent,
}

/// What all usage sources of a run say, combined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    /// Every record, deduplicated, in order.
    pub records: BTreeSet<UsageRecord>,
}

impl Usage {
    /// Adds the records of the log at `log`, resolving relative paths against `root`.
    pub fn read_log(&mut self, log: &Path, root: &Path) -> Result<(), UsageError> {
        let text = std::fs::read_to_string(log).map_err(|source| UsageError::Read {
            path: log.to_owned(),
            source,
        })?;
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let (path, event) = if trimmed.starts_with('{') {
                let parsed: JsonLine =
                    serde_json::from_str(trimmed).map_err(|e| UsageError::Line {
                        path: log.to_owned(),
                        line: line_no,
                        message: format!("not a usage record: {e}"),
                    })?;
                (parsed.path, parsed.event)
            } else {
                (trimmed.to_owned(), UsageEvent::Hit)
            };
            self.add(root, &path, event);
        }
        Ok(())
    }

    /// Adds one record.
    pub fn add(&mut self, root: &Path, path: &str, event: UsageEvent) {
        let absolute = crate::tree::lexical_absolute(&root.join(path));
        let path = match absolute.strip_prefix(root) {
            Ok(_) => crate::tree::relative(root, &absolute),
            Err(_) => absolute.to_string_lossy().into_owned(),
        };
        self.records.insert(UsageRecord { path, event });
    }

    /// The cassettes read or written.
    pub fn used(&self) -> BTreeSet<&str> {
        self.records
            .iter()
            .filter(|r| r.event != UsageEvent::Miss)
            .map(|r| r.path.as_str())
            .collect()
    }

    /// The cassettes looked for and not found (and not written later in the run).
    pub fn missed(&self) -> BTreeSet<&str> {
        let used = self.used();
        self.records
            .iter()
            .filter(|r| r.event == UsageEvent::Miss && !used.contains(r.path.as_str()))
            .map(|r| r.path.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_paths_and_records() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let log = root.join("usage.log");
        std::fs::write(
            &log,
            format!(
                "fixtures/a.json\n{}/fixtures/b.json\n\n{{\"path\": \"fixtures/c.json\", \"event\": \"miss\"}}\n{{\"path\":\"./fixtures/d.json\",\"event\":\"write\"}}\n{{\"path\": \"fixtures/d.json\", \"event\": \"miss\"}}\n",
                root.display()
            ),
        )
        .unwrap();
        let mut usage = Usage::default();
        usage.read_log(&log, &root).unwrap();
        assert_eq!(
            usage.used().into_iter().collect::<Vec<_>>(),
            ["fixtures/a.json", "fixtures/b.json", "fixtures/d.json"]
        );
        assert_eq!(
            usage.missed().into_iter().collect::<Vec<_>>(),
            ["fixtures/c.json"]
        );
    }

    #[test]
    fn a_cut_line_is_an_error_with_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("usage.log");
        std::fs::write(&log, "fixtures/a.json\n{\"path\": \"fixtures/b.js").unwrap();
        let err = Usage::default().read_log(&log, dir.path()).unwrap_err();
        assert!(
            err.to_string().contains("usage.log:2: not a usage record"),
            "{err}"
        );
    }
}
