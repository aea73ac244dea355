//! The canonical form of a session log: what G2 writes when it commits a fixture
//! (`formats.md` B.9, the part `vcr normalize` applies).
//!
//! The header line is kept byte for byte; body rows lose their `seq`/`time` (`seq0`/`time0`)
//! envelope, the recording's absolute working directory becomes `{{cwd}}`, and each record
//! is written as `JSON.stringify` writes it, one per line, every line ending in `\n`. Blank
//! lines, which the harness skips, are dropped; `\r\n` becomes `\n`.

use super::Problem;
use super::session::{is_blank, lines, parse_row};
use vcr_json::Value;

/// The envelope keys a committed fixture omits.
const ENVELOPE: [&str; 4] = ["seq", "time", "seq0", "time0"];

/// The `{{cwd}}` placeholder.
const CWD_TOKEN: &str = "{{cwd}}";

/// Rewrites a session log into its canonical form (see the module docs).
///
/// `cwd` is the absolute directory the recording ran in; its occurrences in string values
/// (not object keys) become `{{cwd}}` when they end at a path boundary, so `/tmp/run` does
/// not eat the start of `/tmp/run2`. A relative or root `cwd` is ignored. Lines that are not
/// JSON objects are `parse` problems, and nothing is rewritten. A log too large to hold is
/// rewritten line by line with [`LineNormalizer`], which this wraps.
pub fn normalize_session(
    bytes: &[u8],
    file: &str,
    cwd: Option<&str>,
) -> Result<Vec<u8>, Vec<Problem>> {
    let mut normalizer = LineNormalizer::new(file, cwd);
    let mut out = Vec::with_capacity(bytes.len());
    for (index, (start, line)) in lines(bytes).enumerate() {
        normalizer.line(line, start, index + 1, &mut out);
    }
    normalizer.finish().map(|()| out)
}

/// [`normalize_session`] one line at a time (issue 12): it keeps only whether the header
/// was seen and the problems found.
#[derive(Debug)]
pub struct LineNormalizer<'f> {
    file: &'f str,
    cwd: Option<&'f str>,
    header: bool,
    problems: Vec<Problem>,
}

impl<'f> LineNormalizer<'f> {
    /// A normalizer for the log `file` recorded in `cwd` (see [`normalize_session`]).
    pub fn new(file: &'f str, cwd: Option<&'f str>) -> LineNormalizer<'f> {
        let cwd = cwd.map(|c| c.trim_end_matches(['/', '\\'])).filter(|c| {
            c.len() > 1 && (c.starts_with('/') || c.contains(":\\") || c.starts_with("\\\\"))
        });
        LineNormalizer {
            file,
            cwd,
            header: true,
            problems: Vec::new(),
        }
    }

    /// Appends the canonical form of line `number` (its text without the line break,
    /// starting at file offset `start`) to `out`: nothing for a blank line or a line that
    /// is not a JSON object (a problem).
    pub fn line(&mut self, line: &[u8], start: usize, number: usize, out: &mut Vec<u8>) {
        if is_blank(line) {
            return;
        }
        let mut row = match parse_row(line, start, number, self.file) {
            Ok(row) => row,
            Err(problem) => {
                self.problems.push(problem);
                self.header = false;
                return;
            }
        };
        if self.header {
            self.header = false;
            // As it stands, but for carriage returns before its line break (white space to
            // JSON): the `\r?\n` split takes one of them with the break each time, so the
            // normal form would lose one more each time it is read (the `dsh` fuzz target).
            let end = line.len() - line.iter().rev().take_while(|&&b| b == b'\r').count();
            out.extend_from_slice(&line[..end]);
            out.push(b'\n');
            return;
        }
        for key in ENVELOPE {
            row.remove(key);
        }
        let mut value = Value::Object(row);
        if let Some(cwd) = self.cwd {
            value.for_each_string_mut(&mut |s| {
                if let Some(text) = replace_cwd(s.as_str(), cwd) {
                    s.set(text);
                }
            });
        }
        vcr_json::write_compact(&value, out);
        out.push(b'\n');
    }

    /// `Ok` when every line was a JSON object, else every `parse` problem.
    pub fn finish(self) -> Result<(), Vec<Problem>> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self.problems)
        }
    }
}

/// `text` with every occurrence of `cwd` that ends at a path boundary replaced by `{{cwd}}`,
/// or `None` when there is none.
fn replace_cwd(text: &str, cwd: &str) -> Option<String> {
    if !text.contains(cwd) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(cwd) {
        let after = &rest[at + cwd.len()..];
        out.push_str(&rest[..at]);
        if ends_path(after) {
            out.push_str(CWD_TOKEN);
            changed = true;
        } else {
            out.push_str(cwd);
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether a path ends where `after` starts: the text ends, a separator follows, or a
/// character that cannot continue a file name (a `.` only when no name character follows).
fn ends_path(after: &str) -> bool {
    let mut chars = after.chars();
    match chars.next() {
        None => true,
        Some(c) if c.is_alphanumeric() || c == '_' || c == '-' => false,
        Some('.') => !chars
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-'),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The normal form is a fixed point, a header line ending with carriage returns too.
    #[test]
    fn a_header_with_carriage_returns_normalizes_once() {
        let header = r#"{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"{{cwd}}","delegationDepth":0}"#;
        for ends in ["\n", "\r\n", "\r\r\n", "\r\r\r\r\n"] {
            let log = format!("{header}{ends}");
            let normal = normalize_session(log.as_bytes(), "session.jsonl", None).unwrap();
            let again = normalize_session(&normal, "session.jsonl", None).unwrap();
            assert_eq!(again, normal, "{ends:?}");
            assert_eq!(normal, format!("{header}\n").into_bytes(), "{ends:?}");
        }
    }

    #[test]
    fn cwd_is_replaced_only_at_path_boundaries() {
        let cwd = "/tmp/run";
        assert_eq!(
            replace_cwd("/tmp/run/a.txt", cwd).as_deref(),
            Some("{{cwd}}/a.txt")
        );
        assert_eq!(
            replace_cwd("cd /tmp/run", cwd).as_deref(),
            Some("cd {{cwd}}")
        );
        assert_eq!(
            replace_cwd("in /tmp/run.", cwd).as_deref(),
            Some("in {{cwd}}.")
        );
        assert_eq!(replace_cwd("/tmp/run2/x", cwd), None);
        assert_eq!(replace_cwd("/tmp/run.txt", cwd), None);
        assert_eq!(
            replace_cwd("/tmp/run2 and /tmp/run/x", cwd).as_deref(),
            Some("/tmp/run2 and {{cwd}}/x")
        );
    }
}
