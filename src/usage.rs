//! Usage logs: which cassettes a test run read, wrote or looked for in vain.
//!
//! A harness appends one line per cassette lookup to the file named by `VCR_USAGE_LOG`:
//! either a path, or `{"path": "...", "event": "hit" | "miss" | "write"}`. Relative paths
//! are relative to the project root. Each line is written with one append, so parallel
//! workers can share a log; a line cut short by a killed worker is reported, not guessed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::tree::{Cassette, Selection};

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
    #[error("cannot read usage log {}", path.display())]
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

    /// Whether any lookup failed: the run was not green, whatever was written afterwards.
    pub fn saw_miss(&self) -> bool {
        self.records.iter().any(|r| r.event == UsageEvent::Miss)
    }

    /// The cassettes of `selection` no source read or wrote, in the selection's order.
    ///
    /// The files of a dsh scenario are one recording: the harness reads the primary log, its
    /// children and the override together, and drives the scenario from `input.json`. So if
    /// any file of a scenario folder was used, none of its files is unused. `vcr verify
    /// --usage-log` and `vcr prune` both ask this, so they always agree.
    pub fn unused<'a>(&self, selection: &'a Selection) -> Vec<&'a Cassette> {
        let used = self.used();
        let scenario_used = |dir: &str| {
            used.iter().any(|p| {
                dir.is_empty()
                    || p.strip_prefix(dir)
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        };
        selection
            .cassettes
            .iter()
            .filter(|c| match c.kind.is_dsh() {
                true => !scenario_used(&scenario_rel(c)),
                false => !used.contains(c.rel.as_str()),
            })
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

/// The folder of a dsh cassette's scenario, relative to the project root.
pub fn scenario_rel(cassette: &Cassette) -> String {
    match cassette.rel.rsplit_once('/') {
        Some((dir, _)) => dir.to_owned(),
        None => String::new(),
    }
}

/// The cassette a line of a test run's output says is missing, if it is one of the seeds'
/// missing-fixture messages: Claude Code's `Anthropic API fixture missing: <file>. Re-run
/// ...` and `Fixture missing: <file>. Re-run ...` (`formats.md` A.7), llm-replay's
/// `llm-replay: fixture not found: <file> — run ...` and `llm-replay: child fixture not
/// found: <file> — re-record ...` (B.7). Colour codes a test runner adds are ignored.
pub fn missing_fixture(line: &str) -> Option<String> {
    static PATTERNS: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        [
            // The name always ends in `.json`, then `. Re-run`, a space or the line's end.
            regex::Regex::new(r"[Ff]ixture missing: (.+?\.json)(?:\.\s|\.?\s*$|\s)")
                .expect("valid regex"),
            regex::Regex::new(
                r"llm-replay: (?:child )?fixture not found: (.+?)(?: \x{2014} |\s*$)",
            )
            .expect("valid regex"),
        ]
    });
    let plain = strip_ansi(line);
    patterns
        .iter()
        .find_map(|re| re.captures(&plain))
        .map(|c| c[1].trim().to_owned())
        .filter(|path| !path.is_empty())
}

/// Removes terminal escape sequences (`ESC [ ... letter`).
fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fixture_messages_of_both_seeds() {
        let case = |line: &str| missing_fixture(line);
        assert_eq!(
            case("Error: Anthropic API fixture missing: /w/app/fixtures/a1f2fb.json. Re-run tests with VCR_RECORD=1, then commit the result. Input messages:").as_deref(),
            Some("/w/app/fixtures/a1f2fb.json")
        );
        assert_eq!(
            case("Fixture missing: /w/app/fixtures/token-count-e81e0bac9db2.json. Re-run tests with VCR_RECORD=1, then commit the result.").as_deref(),
            Some("/w/app/fixtures/token-count-e81e0bac9db2.json")
        );
        assert_eq!(
            case("\u{1b}[31mAPI fixture missing: fixtures/abc123.json\u{1b}[39m").as_deref(),
            Some("fixtures/abc123.json")
        );
        assert_eq!(
            case("llm-replay: fixture not found: /r/snap/a/session.jsonl \u{2014} run `pnpm run test:snapshot:record` first").as_deref(),
            Some("/r/snap/a/session.jsonl")
        );
        assert_eq!(
            case("  llm-replay: child fixture not found: snap/a/session.2.jsonl \u{2014} re-record the scenario").as_deref(),
            Some("snap/a/session.2.jsonl")
        );
        assert_eq!(case("3 fixtures found: all green"), None);
        assert_eq!(case("llm-replay: script exhausted"), None);
    }

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
