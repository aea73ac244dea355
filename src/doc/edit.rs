//! Rewriting one scalar of a document in place, and nothing else.
//!
//! `vcr normalize` scrubs a credential out of a cassette that a recorder wrote. Writing the
//! whole document again would reformat every line of it (key order, quoting, folding, line
//! width all differ between PyYAML, Psych and Go's YAML), burying the one change in a diff
//! nobody reviews. So a change is an [`Edit`]: the byte range of one scalar as it stands in
//! the file (quotes or block indicator included, tag and anchor excluded) and the text that
//! replaces it, written so that the recorder's own loader reads back exactly the new value.

use super::Node;

/// Whose loader reads the document back: what a rewritten scalar must mean to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// JSON (and JSON5), read by `JSON.parse` or Python's `json`.
    Json,
    /// YAML 1.1 as PyYAML reads it (vcrpy, pytest-recording).
    PyYaml,
    /// YAML 1.1 as Ruby's Psych reads it (Ruby VCR).
    Psych,
    /// YAML as Go's `gopkg.in/yaml` reads it (go-vcr).
    GoYaml,
}

/// One replacement: the bytes `start..end` of the source become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// What takes their place.
    pub text: String,
}

/// The edit that makes the scalar `node` of `source` read as `value` in `dialect`.
///
/// `node` must be a scalar with a known span in `source`.
pub fn scalar(source: &str, node: &Node, value: &str, dialect: Dialect) -> Edit {
    let (start, end) = (node.start as usize, node.end as usize);
    debug_assert!(
        start <= end && end <= source.len(),
        "a scalar of the source"
    );
    let text = match dialect {
        Dialect::Json => json_string(value),
        Dialect::PyYaml | Dialect::Psych | Dialect::GoYaml => yaml_double_quoted(value),
    };
    Edit { start, end, text }
}

/// `source` with `edits` applied. Edits must not overlap; their order does not matter.
pub fn apply(source: &str, edits: &mut [Edit]) -> String {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for edit in edits.iter() {
        debug_assert!(edit.start >= at, "edits do not overlap");
        out.push_str(&source[at..edit.start]);
        out.push_str(&edit.text);
        at = edit.end;
    }
    out.push_str(&source[at..]);
    out
}

/// A JSON string literal as `JSON.stringify` writes it.
fn json_string(value: &str) -> String {
    let mut out = Vec::with_capacity(value.len() + 2);
    crate::json::write_string(&crate::json::Str::new(value), &mut out);
    String::from_utf8(out).expect("the JSON writer writes UTF-8")
}

/// A YAML double-quoted scalar: every loader reads it as this exact string.
fn yaml_double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
