//! The logs `verify` reads a line at a time (issue 12): DeepSeek-Harness session logs for their
//! leaks, and `[[cassettes]]` JSONL logs for every check. Each gives the findings of the log
//! read whole, in the memory of a chunk of lines and a line.

use super::pointers::jsonl_pointers;
use super::{
    Checks, FileResult, leak_findings, line_endings_finding, push, recorded_error_finding,
    stale_message, unnormalized_finding,
};
use crate::event::FileProblem;
use vcr_cassette::jsonl::{self, LineReader};
use vcr_json::{Position, Value};
use vcr_lint::finding::{Finding, FindingId, Severity};
use vcr_project::tree::Cassette;

/// A log's checks run over its lines (`check`), from the staged contents or the file
/// opened for reading, never read whole; an I/O error is the file's problem.
pub(super) fn by_lines(
    cassette: &Cassette,
    staged: Option<&Vec<u8>>,
    check: impl FnOnce(&mut dyn std::io::BufRead) -> std::io::Result<FileResult>,
) -> FileResult {
    match staged {
        Some(bytes) => check(&mut bytes.as_slice()),
        None => std::fs::File::open(&cassette.path)
            .and_then(|file| check(&mut std::io::BufReader::with_capacity(LOG_BUFFER, file))),
    }
    .unwrap_or_else(|e| FileResult {
        findings: Vec::new(),
        http_format: None,
        http_unreadable: false,
        expected_name: None,
        problem: Some(FileProblem::io(&e)),
    })
}

/// The read buffer of a log read line by line.
const LOG_BUFFER: usize = 1 << 16;

/// The size of the chunks of whole lines a log's leak scan takes at a time: large enough
/// that the scan's cost per call is shared among many short lines.
const LEAK_CHUNK: usize = 1 << 20;

/// The leaks of a dsh session log, read in chunks of whole lines, each hit placed in its
/// line's JSON (parse, schema and format problems come from the scenario check). The same
/// findings as the log read whole, in the memory of a chunk (issue 12): no detector matches
/// across a line break, and each line's pointer starts with its index.
pub(super) fn check_session_leaks(
    cassette: &Cassette,
    input: impl std::io::BufRead,
    checks: &Checks,
) -> std::io::Result<FileResult> {
    let mut findings = Vec::new();
    let mut lines = LineReader::new(input);
    jsonl::for_each_chunk(&mut lines, LEAK_CHUNK, |chunk, _, number| {
        chunk_leaks(cassette, chunk, number, checks, &mut findings);
    })?;
    Ok(FileResult {
        findings,
        http_format: None,
        http_unreadable: false,
        expected_name: None,
        problem: None,
    })
}

/// The leak findings of a chunk of whole lines of a JSONL log whose first line is number
/// `number`: placed in their line's JSON, at their line in the file.
fn chunk_leaks(
    cassette: &Cassette,
    chunk: &[u8],
    number: usize,
    checks: &Checks,
    findings: &mut Vec<(Finding, Option<String>)>,
) {
    let hits = checks.scanner.scan(chunk);
    if hits.is_empty() {
        return;
    }
    let pointers = jsonl_pointers(chunk, &hits, number - 1);
    let before = findings.len();
    leak_findings(cassette, chunk, &hits, Some(&pointers), checks, findings);
    for (finding, _) in &mut findings[before..] {
        if let Some(line) = &mut finding.line {
            *line += number - 1;
        }
    }
}

/// [`super::generic::check`] for a JSONL log, read a line at a time (issue 12): each line parsed
/// once for its recorded errors, its hash and its canonical form (compared with the line
/// as the file streams), the leak scan over chunks of whole lines. The findings are those of
/// the log read whole, in the same order, in the memory of a chunk and a line; the stale
/// hashes found before a line that cannot be read are dropped, as there.
pub(super) fn check_generic_log(
    cassette: &Cassette,
    spec: &vcr_cassette::generic::Spec,
    input: impl std::io::BufRead,
    checks: &Checks,
) -> std::io::Result<FileResult> {
    let rel = cassette.rel.as_str();
    let mut reader = LineReader::new(input);
    let mut chunks = jsonl::Chunks::new(LEAK_CHUNK);
    let mut leaks = Vec::new();
    let mut errors = Vec::new();
    let mut stale = Vec::new();
    let mut problem: Option<Finding> = None;
    // The file against its canonical form, and with LF line endings against it (for
    // `format/line-endings`), when the entry has a writer; `keep` leaves the bytes as they are.
    let mut format = spec.rewrites().then(|| FormatCheck {
        canonical: Vec::new(),
        difference: jsonl::FirstDifference::default(),
        lf: jsonl::FirstDifference::default(),
        crlf: None,
    });
    let mut scan =
        |chunk: &[u8], _, number| chunk_leaks(cassette, chunk, number, checks, &mut leaks);
    while let Some(line) = reader.next_line()? {
        chunks.push(&line, &mut scan);
        let record = vcr_cassette::generic::Line::record(&line);
        let value = record.as_ref().map(vcr_cassette::generic::parse_line);
        if let (Some(record), Some(Ok(value))) = (&record, &value) {
            for error in vcr_cassette::generic::line_recorded_errors(spec, record, value) {
                errors.push((error.offset.map(|o| line.locate(o)), error));
            }
        }
        if problem.is_some() {
            continue;
        }
        let checked = match (&record, &value) {
            (Some(record), Some(Ok(value))) => {
                vcr_cassette::generic::check_line(spec, record, value, rel).map(Some)
            }
            (_, Some(Err(e))) => Err(e.clone()),
            _ => Ok(None),
        };
        match checked {
            Ok(Some(check)) if check.is_stale() => {
                let message = stale_message(&check);
                let at = line.locate(check.offset);
                stale.push(
                    Finding::new(FindingId::NameStale, Severity::Error, rel, message).at(Some(at)),
                );
            }
            Ok(_) => {}
            Err(e) => {
                let at = e.offset().map(|o| line.locate(o));
                problem =
                    Some(Finding::new(e.finding_id(), Severity::Error, rel, e.to_string()).at(at));
                format = None;
                continue;
            }
        }
        if let Some(format) = &mut format {
            format.line(spec, &line, value.as_ref().and_then(|v| v.as_ref().ok()));
        }
    }
    chunks.finish(&mut scan);
    let mut findings = leaks;
    for (at, error) in &errors {
        push(
            checks,
            &mut findings,
            recorded_error_finding(rel, error, *at, checks),
            None,
        );
    }
    match problem {
        Some(finding) => push(checks, &mut findings, finding, None),
        None => {
            for finding in stale {
                push(checks, &mut findings, finding, None);
            }
        }
    }
    if let Some(format) = format
        && let Some((_, at)) = format.difference.finish_at()
    {
        let crlf = format.crlf.filter(|_| format.lf.finish_at().is_none());
        let finding = match crlf {
            Some(first_cr) => line_endings_finding(cassette, first_cr),
            None => unnormalized_finding(cassette, at),
        };
        push(checks, &mut findings, finding, None);
    }
    Ok(FileResult {
        findings,
        http_format: None,
        http_unreadable: false,
        expected_name: None,
        problem: None,
    })
}

/// A JSONL log compared with its canonical form a line at a time ([`check_generic_log`]).
struct FormatCheck {
    /// The canonical form of the current line.
    canonical: Vec<u8>,
    difference: jsonl::FirstDifference,
    /// The file with CRLF line endings made LF, against the canonical form.
    lf: jsonl::FirstDifference,
    /// Where the first CRLF line ending is.
    crlf: Option<Position>,
}

impl FormatCheck {
    /// The next line as read, and its value when it is a record.
    fn line(
        &mut self,
        spec: &vcr_cassette::generic::Spec,
        line: &jsonl::Line<'_>,
        value: Option<&Value<'_>>,
    ) {
        self.canonical.clear();
        if let Some(value) = value {
            vcr_cassette::generic::render_line_into(spec, value, &mut self.canonical);
        }
        self.difference.feed(line.raw, &self.canonical);
        match line.raw.strip_suffix(b"\r\n") {
            Some(text) => {
                self.crlf
                    .get_or_insert_with(|| line.locate(line.start + text.len()));
                self.lf.feed(text, b"");
                self.lf.feed(b"\n", &self.canonical);
            }
            None => self.lf.feed(line.raw, &self.canonical),
        }
    }
}
