//! `verify` on the hashed cassettes `[[cassettes]]` declares: names from the key, stale line
//! hashes, canonical form, recorded errors (a JSONL log read a line at a time is `logs`').

use vcr_json::Position;
use vcr_lint::Hit;
use vcr_lint::finding::{Finding, FindingId, Severity};
use vcr_project::tree::Cassette;

use super::pointers::{jsonl_pointers, pointers_of};
use super::{
    Checks, FileResult, Scope, format_finding, leak_findings, name_findings, push,
    recorded_error_findings,
};

/// The checks of a generic cassette read whole.
pub(super) fn check(cassette: &Cassette, bytes: &[u8], checks: &Checks, result: &mut FileResult) {
    let hits = checks.scanner.scan(bytes);
    match &cassette.dir.spec {
        Some(spec) => check_generic(cassette, spec, bytes, &hits, checks, result),
        None => leak_findings(cassette, bytes, &hits, None, checks, &mut result.findings),
    }
}

/// A generic cassette's scope: its declared key material, or payload. JSONL pointers start
/// with the line index, which the spec's pointers (within a line) do not have.
pub(super) fn generic_scope(spec: &vcr_cassette::generic::Spec, pointer: &str) -> Scope {
    let within = match spec.format() {
        vcr_cassette::generic::Format::Json => pointer,
        vcr_cassette::generic::Format::Jsonl => {
            pointer[1..].find('/').map_or("", |i| &pointer[i + 1..])
        }
    };
    if spec.is_key_pointer(within) {
        Scope::Key
    } else {
        Scope::Payload
    }
}

/// Leaks, format and names of a `[[cassettes]]` cassette: a JSON file named by its key, or
/// a JSONL log whose lines carry their key's hash.
fn check_generic(
    cassette: &Cassette,
    spec: &vcr_cassette::generic::Spec,
    bytes: &[u8],
    hits: &[Hit],
    checks: &Checks,
    result: &mut FileResult,
) {
    let out = &mut result.findings;
    let problem = |e: &vcr_cassette::generic::GenericError,
                   out: &mut Vec<(Finding, Option<String>)>| {
        let finding = Finding::new(
            e.finding_id(),
            Severity::Error,
            &cassette.rel,
            e.to_string(),
        )
        .at(e.position(bytes));
        push(checks, out, finding, None);
    };
    match spec.format() {
        vcr_cassette::generic::Format::Json => {
            let value = match vcr_json::parse(bytes) {
                Ok(value) => value,
                Err(e) => {
                    problem(&vcr_cassette::generic::GenericError::Parse(e), out);
                    leak_findings(cassette, bytes, hits, None, checks, out);
                    return;
                }
            };
            let pointers = pointers_of(&value, hits);
            leak_findings(cassette, bytes, hits, Some(&pointers), checks, out);
            let errors = vcr_cassette::generic::recorded_errors(spec, bytes, Some(&value));
            recorded_error_findings(cassette, bytes, &errors, checks, out);
            match vcr_cassette::generic::name_for(spec, &value, &cassette.rel) {
                Ok(expected) => {
                    name_findings(cassette, &expected, checks, out);
                    result.expected_name = Some(expected);
                }
                Err(e) => problem(&e, out),
            }
        }
        vcr_cassette::generic::Format::Jsonl => {
            let pointers = jsonl_pointers(bytes, hits, 0);
            leak_findings(cassette, bytes, hits, Some(&pointers), checks, out);
            let errors = vcr_cassette::generic::recorded_errors(spec, bytes, None);
            recorded_error_findings(cassette, bytes, &errors, checks, out);
            match vcr_cassette::generic::check_lines(spec, bytes, &cassette.rel) {
                Ok(lines) => {
                    for line in lines.iter().filter(|l| l.is_stale()) {
                        let finding = Finding::new(
                            FindingId::NameStale,
                            Severity::Error,
                            &cassette.rel,
                            stale_message(line),
                        )
                        .at(Some(Position::locate(bytes, line.offset)));
                        push(checks, out, finding, None);
                    }
                }
                Err(e) => {
                    problem(&e, out);
                    return;
                }
            }
        }
    }
    match vcr_cassette::generic::canonical(spec, bytes) {
        Ok(canonical) if canonical != bytes => {
            format_finding(cassette, bytes, &canonical, checks, out);
        }
        Ok(_) => {}
        Err(e) => problem(&e, out),
    }
}

/// The message of a JSONL line whose stored hash is stale.
pub(super) fn stale_message(line: &vcr_cassette::generic::LineCheck) -> String {
    format!(
        "line {}: the stored hash {} is not the hash of the line's key material ({}); run `vcr rehash`",
        line.line, line.stored, line.expected
    )
}
