//! The `[[cassettes]]` JSONL logs, a line at a time: record lines, stored hashes checked and
//! re-keyed in place, and a cassette's recorded API errors (for JSONL, line by line). Apart so
//! that the per-line path a streamed log takes can be read on its own.

use super::key::{expected_hash, resolve_at};
use super::{Format, GenericError, Spec, schema};
use crate::api_error::{self, RecordedError};
use crate::jsonl;
use vcr_json::{Str, Value};

/// One record line of a JSONL cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'b> {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line's first byte in the file.
    pub offset: usize,
    /// The line, without its `\n`.
    pub text: &'b [u8],
}

/// The record lines of a JSONL file: lines holding only whitespace are not records and are
/// skipped.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let mut offset = 0;
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(move |(i, text)| {
            let line = Line {
                number: i + 1,
                offset,
                text,
            };
            offset += text.len() + 1;
            is_record(text).then_some(line)
        })
}

/// Whether a line (without its `\n`) is a record: anything but whitespace.
fn is_record(text: &[u8]) -> bool {
    !text.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

impl<'b> Line<'b> {
    /// A line as [`jsonl::LineReader`] reads it, as [`lines`] gives it (a `\r` before the
    /// `\n` kept in the text, where the parser takes it for whitespace, so that errors land
    /// where they land in the whole file); `None` for a line that is no record. Lets a log be
    /// read a line at a time (issue 12).
    pub fn record(line: &jsonl::Line<'b>) -> Option<Line<'b>> {
        let text = line.raw.strip_suffix(b"\n").unwrap_or(line.raw);
        is_record(text).then_some(Line {
            number: line.number,
            offset: line.start,
            text,
        })
    }
}

/// Parses one record line; errors are placed in the file.
pub fn parse_line<'b>(line: &Line<'b>) -> Result<Value<'b>, GenericError> {
    let value = vcr_json::parse(line.text).map_err(|mut e| {
        e.offset += line.offset;
        GenericError::Parse(e)
    })?;
    if value.as_object().is_none() {
        return Err(GenericError::Schema {
            pointer: String::new(),
            problem: format!("(the line) must be an object, found {}", value.type_name()),
            offset: Some(line.offset),
        });
    }
    Ok(value)
}

/// One JSONL record's stored and expected hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineCheck {
    /// 1-based line number.
    pub line: usize,
    /// The hash stored in the line.
    pub stored: String,
    /// The hash of the line's key material.
    pub expected: String,
    /// Byte offset in the file of the stored hash's string literal (its opening quote).
    pub offset: usize,
}

impl LineCheck {
    /// Whether the stored hash is not the expected one.
    pub fn is_stale(&self) -> bool {
        self.stored != self.expected
    }
}

/// The stored hash of a record: its text and the span of its literal, relative to the line.
fn stored_hash<'v>(spec: &Spec, value: &'v Value<'_>) -> Result<&'v Str<'v>, GenericError> {
    let field = spec
        .hash_field
        .as_ref()
        .expect("JSONL entries have a hash field");
    match resolve_at(value, field)? {
        (Value::String(s), _) => Ok(s),
        (other, at) => Err(schema(
            field,
            format!("must be a string, found {}", other.type_name()),
            at,
        )),
    }
}

/// Checks every record of a JSONL cassette: its stored hash against the hash of its key
/// material. Stops at the first line that cannot be read.
pub fn check_lines(
    spec: &Spec,
    bytes: &[u8],
    rel_path: &str,
) -> Result<Vec<LineCheck>, GenericError> {
    let mut out = Vec::new();
    for line in lines(bytes) {
        let value = parse_line(&line)?;
        out.push(check_line(spec, &line, &value, rel_path)?);
    }
    Ok(out)
}

/// Checks one record line (`value` is [`parse_line`]'s): its stored hash against the hash
/// of its key material; errors are placed in the file.
pub fn check_line(
    spec: &Spec,
    line: &Line<'_>,
    value: &Value<'_>,
    rel_path: &str,
) -> Result<LineCheck, GenericError> {
    let checked = (|| {
        let stored = stored_hash(spec, value)?;
        let expected = expected_hash(spec, value, rel_path)?;
        Ok::<_, GenericError>((stored.as_str().to_owned(), stored.span(), expected))
    })()
    .map_err(|e| e.shifted(line.offset))?;
    let (stored, span, expected) = checked;
    Ok(LineCheck {
        line: line.number,
        stored,
        expected,
        offset: line.offset + span.start as usize,
    })
}

/// A JSONL cassette with its stored hashes rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rekeyed {
    /// The new contents.
    pub bytes: Vec<u8>,
    /// How many lines changed.
    pub changed: usize,
}

/// Rewrites the stale hashes of a JSONL cassette in place: only each stale hash's string
/// literal is replaced, every other byte is kept.
pub fn rekey_lines(spec: &Spec, bytes: &[u8], rel_path: &str) -> Result<Rekeyed, GenericError> {
    let checks = check_lines(spec, bytes, rel_path)?;
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    let mut changed = 0;
    for check in checks.iter().filter(|c| c.is_stale()) {
        // The literal's length in the file: the parser's span, found again from the offset.
        let len = literal_len(&bytes[check.offset..]);
        out.extend_from_slice(&bytes[copied..check.offset]);
        vcr_json::write_string(&Str::new(check.expected.as_str()), &mut out);
        copied = check.offset + len;
        changed += 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    Ok(Rekeyed {
        bytes: out,
        changed,
    })
}

/// Writes one line of a JSONL cassette (`raw`, as stored, its line break included, starting
/// at byte `start` of the file) as [`rekey_lines`] does: with the stale hash `check` found in
/// it replaced, every other byte kept. Lets a log be re-keyed a line at a time (issue 12).
pub fn rekey_line(check: Option<&LineCheck>, raw: &[u8], start: usize, out: &mut Vec<u8>) {
    match check.filter(|c| c.is_stale()) {
        Some(check) => {
            let at = check.offset - start;
            let len = literal_len(&raw[at..]);
            out.extend_from_slice(&raw[..at]);
            vcr_json::write_string(&Str::new(check.expected.as_str()), out);
            out.extend_from_slice(&raw[at + len..]);
        }
        None => out.extend_from_slice(raw),
    }
}

/// The length of the JSON string literal at the start of `bytes` (quotes included).
fn literal_len(bytes: &[u8]) -> usize {
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Sets the stored hash of a JSONL record's value (after rules changed its key material).
/// Returns whether it changed.
pub fn set_line_hash(
    spec: &Spec,
    value: &mut Value<'_>,
    rel_path: &str,
) -> Result<bool, GenericError> {
    let expected = expected_hash(spec, value, rel_path)?;
    if stored_hash(spec, value)?.as_str() == expected {
        return Ok(false);
    }
    let field = spec
        .hash_field
        .as_ref()
        .expect("JSONL entries have a hash field");
    let mut current = value;
    for token in &field.tokens {
        current = match current {
            Value::Object(o) => o.get_mut(token),
            Value::Array(items) => {
                vcr_json::array_index(token).and_then(|i| items.get_mut(usize::try_from(i).ok()?))
            }
            _ => None,
        }
        .expect("the stored hash was found above");
    }
    if let Value::String(s) = current {
        s.set(expected);
    }
    Ok(true)
}

// ------------------------------------------------------------------------------------------
// Recorded API errors
// ------------------------------------------------------------------------------------------

/// The `response` objects of a cassette that record an API error (`recorded/error`): an
/// HTTP status of 401, 402, 403, 429 or 5xx, or a provider error body naming one of those
/// kinds ([`api_error::in_response`]). The key material is never looked at, because it is
/// the request. For JSON, `parsed` is the document when the caller has parsed it already.
/// For JSONL, every record line is read and pointers start with the line's index (`/3/response`
/// is on line 4). Lines that do not parse are left to the other checks.
pub fn recorded_errors(
    spec: &Spec,
    bytes: &[u8],
    parsed: Option<&Value<'_>>,
) -> Vec<RecordedError> {
    let skip = |pointer: &str| spec.is_key_pointer(pointer);
    match spec.format {
        Format::Json => match parsed {
            Some(value) => api_error::responses(value, "", &skip),
            None => vcr_json::parse(bytes)
                .map(|value| api_error::responses(&value, "", &skip))
                .unwrap_or_default(),
        },
        Format::Jsonl => lines(bytes)
            .filter_map(|line| {
                let value = parse_line(&line).ok()?;
                Some(line_recorded_errors(spec, &line, &value))
            })
            .flatten()
            .collect(),
    }
}

/// [`recorded_errors`] of one JSONL record line (`value` is [`parse_line`]'s), placed in the
/// file.
pub fn line_recorded_errors(spec: &Spec, line: &Line<'_>, value: &Value<'_>) -> Vec<RecordedError> {
    let skip = |pointer: &str| spec.is_key_pointer(pointer);
    let prefix = format!("/{}", line.number - 1);
    let mut found = api_error::responses(value, &prefix, &skip);
    for error in &mut found {
        error.offset = error.offset.map(|o| o + line.offset);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::tests::config;
    use crate::generic::{compile, digest_hex};
    use vcr_json::Position;

    #[test]
    fn jsonl_lines_are_checked_and_rekeyed_in_place() {
        let spec = compile(&config(Format::Jsonl)).unwrap();
        let request = br#"{"a":1}"#;
        let good = digest_hex(&spec, request);
        let text = format!(
            "{{\"request_hash\":\"{good}\",\"request\":{{\"a\":1}}}}\n\n{{\"request\" : {{\"a\":1}}, \"request_hash\" : \"st\\u0061le\", \"x\": 1.0}}\n"
        );
        let checks = check_lines(&spec, text.as_bytes(), "f.jsonl").unwrap();
        assert_eq!(checks.len(), 2);
        assert!(!checks[0].is_stale());
        assert!(checks[1].is_stale());
        assert_eq!(checks[1].stored, "stale");
        assert_eq!(checks[1].line, 3);
        assert_eq!(
            Position::locate(text.as_bytes(), checks[1].offset),
            Position {
                line: 3,
                column: 40
            }
        );
        let rekeyed = rekey_lines(&spec, text.as_bytes(), "f.jsonl").unwrap();
        assert_eq!(rekeyed.changed, 1);
        let expected = text.replace("\"st\\u0061le\"", &format!("\"{good}\""));
        assert_eq!(String::from_utf8(rekeyed.bytes.clone()).unwrap(), expected);
        assert!(
            check_lines(&spec, &rekeyed.bytes, "f.jsonl")
                .unwrap()
                .iter()
                .all(|c| !c.is_stale())
        );

        let bad = b"{\"request_hash\":\"x\",\"request\":{}}\n{\"request_hash\":1,\"request\":{}}\n";
        let err = check_lines(&spec, bad, "f.jsonl").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`/request_hash` must be a string, found a number"
        );
        assert_eq!(err.position(bad).unwrap().line, 2);
        let broken = b"{\"request_hash\":\"x\",\"request\":{}}\n{\"request_hash\":\n";
        let err = check_lines(&spec, broken, "f.jsonl").unwrap_err();
        assert_eq!(err.id(), "parse");
        assert_eq!(err.position(broken).unwrap().line, 2);
    }
}
