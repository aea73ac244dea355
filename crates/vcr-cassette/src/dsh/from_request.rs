//! `{{fromRequest:PATTERN}}` placeholders (`formats.md` B.6), checked without a request.
//!
//! At replay time the harness resolves every placeholder in every string leaf of an entry
//! against the live request: it finds `{{fromRequest:`, then the first `}}` after it, and
//! extends that close while the next character is `}` (so a pattern may end with a `{4}`
//! quantifier); the pattern is compiled with `new RegExp(pattern, 'g')`. Whether a pattern
//! matches depends on the request, but an unterminated placeholder and a pattern JavaScript
//! rejects fail on every run, and that is what is checked here. Patterns are compiled with
//! `regress`, an ECMAScript engine, because Rust's `regex` both rejects valid JavaScript
//! (look-around, back-references) and accepts invalid JavaScript; they are only compiled,
//! never matched (there is no request here to match them against).
//!
//! The patterns are recorded data, so they are compiled within [`vcr_regex`]'s limits:
//! one nested past them is reported in its place as past vcr's limits (JavaScript may still
//! accept it), never a stack overflow.

use std::borrow::Cow;

use vcr_json::{LONE_SURROGATE_BASE, Str, Value};
use vcr_regex::PatternError;

use super::{Place, Problem, ids, js_stringify};

/// The opener the harness looks for.
pub const FROM_REQUEST_OPEN: &str = "{{fromRequest:";

/// The terminator.
const CLOSE: &str = "}}";

/// The harness's error messages for the placeholders of one string, in order.
///
/// Past an unterminated placeholder there is nothing more to read, as in the harness; every
/// invalid pattern is reported (the harness stops at the first). A pattern that matches
/// nothing can only be told from a live request, so it is not an error here.
pub fn placeholder_errors(text: &Str<'_>) -> Vec<String> {
    let s = text.as_str();
    let mut errors = Vec::new();
    let mut cursor = 0;
    while let Some(found) = s[cursor..].find(FROM_REQUEST_OPEN) {
        let open = cursor + found;
        let body = open + FROM_REQUEST_OPEN.len();
        let Some(found) = s[body..].find(CLOSE) else {
            errors.push(format!(
                "llm-replay: fromRequest placeholder is unterminated in {}",
                js_stringify(&Value::String(text.clone()))
            ));
            break;
        };
        let mut close = body + found;
        while s.as_bytes().get(close + CLOSE.len()) == Some(&b'}') {
            close += 1;
        }
        let pattern = &s[body..close];
        let quote = |pattern: &str| {
            js_stringify(&Value::String(Str::parsed(
                Cow::Borrowed(pattern),
                vcr_json::Span::NONE,
                text.has_lone_surrogates(),
            )))
        };
        match compile(pattern) {
            Ok(()) => {}
            Err(PatternError::Limit(limit)) => {
                // The pattern may be tens of kilobytes: quote its start.
                let start: String = pattern.chars().take(QUOTED_CHARS).collect();
                let more = if start.len() < pattern.len() {
                    "..."
                } else {
                    ""
                };
                errors.push(format!(
                    "fromRequest pattern {}{more} is past vcr's limits: {limit} (JavaScript may \
                     accept it, but vcr cannot check it)",
                    quote(&start)
                ));
            }
            Err(e) => errors.push(format!(
                "llm-replay: fromRequest has an invalid pattern {}: SyntaxError: Invalid \
                 regular expression: /{pattern}/g: {e}",
                quote(pattern)
            )),
        }
        cursor = close + CLOSE.len();
    }
    errors
}

/// How much of a pattern past the limits its message quotes, in characters.
const QUOTED_CHARS: usize = 40;

/// `new RegExp(pattern, 'g')`, in UTF-16 code units as JavaScript sees the pattern (lone
/// surrogates, which `vcr_json` carries as private-use stand-ins, go back to what they
/// were).
fn compile(pattern: &str) -> Result<(), PatternError> {
    let units = pattern.chars().map(|c| {
        let cp = c as u32;
        if (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&cp) {
            0xD800 + (cp - LONE_SURROGATE_BASE)
        } else {
            cp
        }
    });
    vcr_regex::validate(units.collect(), "g")
}

/// `dsh/from-request` problems for every string leaf of `value` (object keys are not
/// resolved by the harness, so they are not checked).
///
/// `value` was parsed from `bytes[base..]` (a whole override file with `base` 0, or one line
/// of a session log with `base` its offset): each problem is placed at its string.
pub fn check_from_request<'b>(
    value: &Value<'_>,
    bytes: impl Into<Place<'b>>,
    base: usize,
    file: &str,
) -> Vec<Problem> {
    let bytes = bytes.into();
    let mut problems = Vec::new();
    value.for_each_string(&mut |s| {
        if !s.as_str().contains(FROM_REQUEST_OPEN) {
            return;
        }
        let offset = base
            + if s.span().is_known() {
                s.span().start as usize
            } else {
                0
            };
        for message in placeholder_errors(s) {
            problems.push(Problem::at(ids::FROM_REQUEST, file, bytes, offset, message));
        }
    });
    problems
}
