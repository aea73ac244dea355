//! `verify` on Claude Code fixtures: schema, leaks placed in key material or payload,
//! recorded API errors, canonical form and name; a message fixture an `output` item at a
//! time where it can be read so.

use vcr_cassette::CassetteError;
use vcr_lint::Hit;
use vcr_project::tree::{Cassette, CassetteKind};

use super::pointers::{Pointers, any_hit_in, pointers_of};
use super::{
    Checks, FileResult, crlf_only, format_finding_at, leak_findings, name_findings,
    recorded_error_findings, unreadable,
};
use crate::event::FileProblem;

/// The checks of a Claude Code message or token-count fixture.
pub(super) fn check(cassette: &Cassette, bytes: &[u8], checks: &Checks, result: &mut FileResult) {
    let hits = checks.scanner.scan(bytes);
    if cassette.kind == CassetteKind::ClaudeCodeMessage
        && cassette.dir.read.streaming
        && check_message(cassette, bytes, &hits, checks, result)
    {
        return;
    }
    let checked = vcr_json::parse(bytes)
        .map_err(CassetteError::from)
        .and_then(|value| {
            let schema = match cassette.kind {
                CassetteKind::ClaudeCodeMessage => vcr_cassette::claude_code::check_message(&value),
                _ => vcr_cassette::claude_code::check_token_count(&value),
            };
            schema.map(|()| value).map_err(CassetteError::from)
        });
    let mut value = match checked {
        Ok(value) => value,
        Err(e) => {
            unreadable(cassette, bytes, &hits, &e, checks, &mut result.findings);
            return;
        }
    };
    if !hits.is_empty() {
        let pointers = pointers_of(&value, &hits);
        leak_findings(
            cassette,
            bytes,
            &hits,
            Some(&pointers),
            checks,
            &mut result.findings,
        );
    }
    if cassette.kind == CassetteKind::ClaudeCodeMessage {
        let errors = vcr_cassette::claude_code::recorded_errors(&value);
        recorded_error_findings(cassette, bytes, &errors, checks, &mut result.findings);
    }
    // Format: what `vcr normalize` would write.
    if cassette.kind == CassetteKind::ClaudeCodeMessage
        && let Err(e) = vcr_cassette::normalize_message(&mut value, &cassette.dir)
    {
        result.problem = Some(FileProblem::cassette(&e.into(), bytes));
        return;
    }
    if let Some(first) = vcr_json::pretty_difference(&value, bytes) {
        let crlf = || {
            crlf_only(bytes, |lf| {
                vcr_json::pretty_difference(&value, lf).is_none()
            })
        };
        format_finding_at(cassette, bytes, first, crlf, checks, &mut result.findings);
    }
    if cassette.kind == CassetteKind::ClaudeCodeMessage {
        let expected =
            vcr_cassette::claude_code::message_name(vcr_cassette::claude_code::input(&value));
        name_findings(cassette, &expected, checks, &mut result.findings);
        result.expected_name = Some(expected);
    }
}

/// The checks of a Claude Code message fixture, read an `output` item at a time and
/// compared with its canonical form as it is written (`vcr_cassette::claude_code::stream_message`): no
/// value of the whole file and no copy of its canonical bytes (issue 12). `false` when the
/// file must be read whole instead (see `vcr_json::parse_streamed`); the result is then
/// untouched. The findings are those of the whole-value path below, in the same order.
fn check_message(
    cassette: &Cassette,
    bytes: &[u8],
    hits: &[Hit],
    checks: &Checks,
    result: &mut FileResult,
) -> bool {
    let mut compare = vcr_json::Compare::new(bytes);
    let mut pointers = Pointers::new(hits);
    let mut errors = Vec::new();
    // An item with a leak in it is built, for the pointer to the field that holds it.
    let wants = |span| any_hit_in(hits, span);
    let streamed = vcr_cassette::claude_code::stream_message(
        bytes,
        &cassette.dir,
        &mut compare,
        &wants,
        &mut |stored| {
            if !hits.is_empty() {
                pointers.stored(&stored);
            }
            if let vcr_cassette::claude_code::Stored::Item(i, item, _) = stored
                && let Some(error) = vcr_cassette::claude_code::recorded_error(i, item)
            {
                errors.push(error);
            }
        },
    );
    let message = match streamed {
        Ok(Some(message)) => message,
        Ok(None) => return false,
        Err(e @ (CassetteError::Parse(_) | CassetteError::Schema(_))) => {
            unreadable(cassette, bytes, hits, &e, checks, &mut result.findings);
            return true;
        }
        Err(e) => {
            result.problem = Some(FileProblem::cassette(&e, bytes));
            return true;
        }
    };
    if !hits.is_empty() {
        leak_findings(
            cassette,
            bytes,
            hits,
            Some(&pointers.out),
            checks,
            &mut result.findings,
        );
    }
    recorded_error_findings(cassette, bytes, &errors, checks, &mut result.findings);
    if let Some(first) = compare.finish() {
        let crlf = || {
            crlf_only(bytes, |lf| {
                let mut compare = vcr_json::Compare::new(lf);
                let same = vcr_cassette::claude_code::stream_message(
                    bytes,
                    &cassette.dir,
                    &mut compare,
                    &|_| false,
                    &mut |_| {},
                );
                same.is_ok() && compare.finish().is_none()
            })
        };
        format_finding_at(cassette, bytes, first, crlf, checks, &mut result.findings);
    }
    name_findings(cassette, &message.name, checks, &mut result.findings);
    result.expected_name = Some(message.name);
    true
}
