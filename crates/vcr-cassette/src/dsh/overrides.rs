//! `replay.override.json` (`formats.md` B.5), validated as G2 `readOverrideDoc` and
//! `loadReplayScript` validate it, with their messages.
//!
//! The document is a bare `ReplayEntry[]`, which replaces the primary session's derived
//! script, or `{"patches":[{"at":n,"entry":...}]}`, which replaces call `at` of the derived
//! script (`at` equal to its length appends). The harness throws at the first problem; this
//! check reports the first problem of every entry and patch, then every out-of-range and
//! repeated index.

use vcr_json::{Object, Value};

use super::{Problem, ids, js_stringify, safe_integer};

/// The `StreamChunk` types an override chunk may have (B.3).
const CHUNK_TYPES: [&str; 7] = [
    "block-start",
    "text-delta",
    "reasoning-delta",
    "tool-call-delta",
    "block-end",
    "usage",
    "finish",
];

/// Which form an override has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverrideKind {
    /// A bare array: the primary script is these `len` entries, whatever the log holds, so
    /// every call of the primary log is covered (unfinished ones included) and the primary
    /// log is not needed for the script.
    Bare {
        /// The number of entries.
        len: usize,
    },
    /// Patches over the derived script. They cover no unfinished call: the harness derives
    /// the whole primary script first, and an unfinished call throws before any patch
    /// applies.
    Patches {
        /// The indexes that apply, in document order: valid patches, within range (when the
        /// derived length is known) and not repeated.
        ats: Vec<usize>,
    },
}

/// What [`check_override`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverrideCheck {
    /// Every `parse` and `dsh/override` problem.
    pub problems: Vec<Problem>,
    /// The document's form, or `None` when it is not JSON or neither form.
    pub kind: Option<OverrideKind>,
}

/// Validates an override document.
///
/// `file` is quoted in the messages, as the harness quotes the path it was given
/// (`llm-replay: invalid override ${file}: ${location} ${detail}`). `derived_len` is the
/// length of the primary script derived from `session.jsonl`; `None` (no usable log) skips
/// the range check, which cannot be made without it.
pub fn check_override(bytes: &[u8], file: &str, derived_len: Option<usize>) -> OverrideCheck {
    let mut v = Validator {
        bytes,
        file,
        problems: Vec::new(),
    };
    let value = match vcr_json::parse(bytes) {
        Ok(value) => value,
        Err(e) => {
            let problem = Problem::at(
                ids::PARSE,
                file,
                bytes,
                e.offset,
                format!("invalid JSON: {e}"),
            );
            return OverrideCheck {
                problems: vec![problem],
                kind: None,
            };
        }
    };
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let kind = match &value {
        Value::Array(entries) => {
            for (i, entry) in entries.iter().enumerate() {
                let fallback = value.source_offset().unwrap_or(start);
                v.entry(entry, &format!("entry {i}"), fallback);
            }
            Some(OverrideKind::Bare { len: entries.len() })
        }
        Value::Object(doc)
            if doc.len() == 1 && matches!(doc.get("patches"), Some(Value::Array(_))) =>
        {
            let Some(Value::Array(patches)) = doc.get("patches") else {
                unreachable!("matched above");
            };
            let mut ats = Vec::new();
            let mut seen = Vec::new();
            for (i, patch) in patches.iter().enumerate() {
                let fallback = doc.key_span("patches").map_or(start, |s| s.start as usize);
                let Some((at, offset)) = v.patch(patch, i, fallback) else {
                    continue;
                };
                if derived_len.is_some_and(|n| at > n) {
                    let n = derived_len.unwrap_or_default();
                    v.problem(
                        offset,
                        format!(
                            "llm-replay: override patch index {at} out of range (derived script \
                             has {n} call(s); == length appends): {file}"
                        ),
                    );
                } else if seen.contains(&at) {
                    v.problem(
                        offset,
                        format!("llm-replay: duplicate override patch index {at}: {file}"),
                    );
                } else {
                    seen.push(at);
                    ats.push(at);
                }
            }
            Some(OverrideKind::Patches { ats })
        }
        _ => {
            v.invalid(
                start,
                "document",
                "must be a ReplayEntry[] or { patches: [...] }",
            );
            None
        }
    };
    OverrideCheck {
        problems: v.problems,
        kind,
    }
}

/// Whether an override document is a bare array (`Some(true)`), an object (`Some(false)`),
/// or not JSON at all (`None`); used to decide whether a scenario needs its `session.jsonl`
/// before the log has been read.
pub(crate) fn shape(bytes: &[u8]) -> Option<bool> {
    vcr_json::parse(bytes)
        .ok()
        .map(|v| matches!(v, Value::Array(_)))
}

struct Validator<'f> {
    bytes: &'f [u8],
    file: &'f str,
    problems: Vec<Problem>,
}

impl Validator<'_> {
    fn problem(&mut self, offset: usize, message: String) {
        self.problems.push(Problem::at(
            ids::OVERRIDE,
            self.file,
            self.bytes,
            offset,
            message,
        ));
    }

    /// `invalidOverride(file, location, detail)`.
    fn invalid(&mut self, offset: usize, location: &str, detail: &str) {
        let message = format!(
            "llm-replay: invalid override {}: {location} {detail}",
            self.file
        );
        self.problem(offset, message);
    }

    /// `readOverrideDoc`'s patch mapper: the patch's index and where it is written.
    fn patch(&mut self, value: &Value<'_>, i: usize, fallback: usize) -> Option<(usize, usize)> {
        let location = format!("patch {i}");
        let offset = value.source_offset().unwrap_or(fallback);
        let patch = match value {
            Value::Object(p) if p.len() == 2 && p.contains_key("at") && p.contains_key("entry") => {
                p
            }
            _ => {
                self.invalid(offset, &location, "must contain exactly at and entry");
                return None;
            }
        };
        let at_offset = key_offset(patch, "at").unwrap_or(offset);
        let at = patch
            .get("at")
            .and_then(safe_integer)
            .filter(|&n| n >= 0)
            .map(|n| n as usize);
        let Some(at) = at else {
            self.invalid(
                at_offset,
                &location,
                "at must be a non-negative safe integer",
            );
            return None;
        };
        let entry = patch.get("entry").unwrap_or(&Value::Null);
        let entry_offset = key_offset(patch, "entry").unwrap_or(offset);
        self.entry(entry, &format!("{location}.entry"), entry_offset)
            .then_some((at, at_offset))
    }

    /// `readReplayEntry`: whether the entry is valid (its first problem is reported).
    fn entry(&mut self, value: &Value<'_>, location: &str, fallback: usize) -> bool {
        let offset = value.source_offset().unwrap_or(fallback);
        let Value::Object(entry) = value else {
            self.invalid(offset, location, "must be an object");
            return false;
        };
        let exact =
            |keys: &[&str]| entry.len() == keys.len() && keys.iter().all(|k| entry.contains_key(k));
        let non_empty = |k: &str| {
            entry
                .get(k)
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
        };
        let at = |k: &str| key_offset(entry, k).unwrap_or(offset);
        match entry.get("kind").and_then(Value::as_str) {
            Some("chunks") => {
                if !exact(&["kind", "chunks"]) {
                    self.invalid(offset, location, "has invalid chunks-entry fields");
                    return false;
                }
                self.chunks(entry, location, offset)
            }
            Some("throw") => {
                if !exact(&["kind", "chunks", "message", "code"]) {
                    self.invalid(offset, location, "has invalid throw-entry fields");
                    return false;
                }
                if !non_empty("message") {
                    self.invalid(
                        at("message"),
                        location,
                        "message must be a non-empty string",
                    );
                    return false;
                }
                if !non_empty("code") {
                    self.invalid(at("code"), location, "code must be a non-empty string");
                    return false;
                }
                self.chunks(entry, location, offset)
            }
            Some("hang") => {
                let keys: &[&str] = if entry.contains_key("readyFile") {
                    &["kind", "readyFile"]
                } else {
                    &["kind"]
                };
                if !exact(keys) {
                    self.invalid(offset, location, "has invalid hang-entry fields");
                    return false;
                }
                if entry.contains_key("readyFile") && !non_empty("readyFile") {
                    self.invalid(
                        at("readyFile"),
                        location,
                        "readyFile must be a non-empty string",
                    );
                    return false;
                }
                true
            }
            _ => {
                // `JSON.stringify(undefined)` is `undefined`, which the template prints.
                let kind = entry
                    .get("kind")
                    .map_or_else(|| "undefined".to_owned(), js_stringify);
                self.invalid(at("kind"), location, &format!("has unknown kind {kind}"));
                false
            }
        }
    }

    /// `readChunks`: an array of objects with a known `type`.
    fn chunks(&mut self, entry: &Object<'_>, location: &str, fallback: usize) -> bool {
        let offset = key_offset(entry, "chunks").unwrap_or(fallback);
        let Some(Value::Array(chunks)) = entry.get("chunks") else {
            self.invalid(offset, location, "chunks must be an array");
            return false;
        };
        for (j, chunk) in chunks.iter().enumerate() {
            let known = chunk
                .as_object()
                .and_then(|c| c.get("type"))
                .and_then(Value::as_str)
                .is_some_and(|t| CHUNK_TYPES.contains(&t));
            if !known {
                let at = chunk
                    .as_object()
                    .and_then(|c| key_offset(c, "type"))
                    .or_else(|| chunk.source_offset())
                    .unwrap_or(offset);
                self.invalid(
                    at,
                    &format!("{location}.chunks[{j}]"),
                    "must have a known StreamChunk type",
                );
                return false;
            }
        }
        true
    }
}

fn key_offset(object: &Object<'_>, key: &str) -> Option<usize> {
    object.key_span(key).map(|s| s.start as usize)
}
