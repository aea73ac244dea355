//! The one reporter layer: every event of the library, and every line vcr prints, goes
//! through a [`Reporter`], which renders it for people, collects it for a JSON or SARIF
//! document, or turns it into GitHub annotations, and keeps the status the exit code is
//! derived from. Errors that stop a file (unreadable, a bad path) always reach stderr, so a
//! machine-readable stdout never hides them.
//!
//! A machine-readable stdout always says how the run ended: a run that exits 2 prints a
//! document with an `error` (JSON), a failed invocation (SARIF) or an `::error` annotation
//! (GitHub), whether it stopped before it could start or went through with errors. An empty
//! stdout, or a clean document before exit 2, would read as a pass to whatever parses it.

mod diff;
mod github;
mod human;
pub(crate) mod markdown;
mod sarif;

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use serde_json::value::RawValue;
use vcr_lint::finding::Finding;
use vcr_ops::event::{Event, Report};

use crate::cli::Output;

/// How much to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// Renders events and remembers whether anything went wrong.
pub(crate) struct Reporter {
    output: Output,
    verbosity: Verbosity,
    color: bool,
    color_stderr: bool,
    /// What the outputs keep while the run goes on (on the heap: the reporter travels in
    /// the error of `Context::new`, kept small).
    collected: Mutex<Box<Collected>>,
    /// The closing document has been printed: a later fatal error only reaches stderr.
    finished: AtomicBool,
    /// An error-level event was seen: the run ends with exit code 2.
    errors: AtomicBool,
    /// stdout was closed under us (`vcr ... | head`): stop quietly, exit 0.
    broken_pipe: AtomicBool,
    /// The keys that the paths of the run's findings and events hold, masked in everything
    /// printed (issue 41): a path is printed in messages, annotations and diff headers too.
    paths: Mutex<vcr_lint::file_name::PathMask>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Reporter {
    pub(crate) fn new(
        output: Output,
        verbosity: Verbosity,
        color: bool,
        color_stderr: bool,
    ) -> Reporter {
        Reporter {
            output,
            verbosity,
            color,
            color_stderr,
            collected: Mutex::default(),
            finished: AtomicBool::new(false),
            errors: AtomicBool::new(false),
            broken_pipe: AtomicBool::new(false),
            paths: Mutex::default(),
        }
    }

    pub(crate) fn had_errors(&self) -> bool {
        self.errors.load(Ordering::SeqCst)
    }

    pub(crate) fn broken_pipe(&self) -> bool {
        self.broken_pipe.load(Ordering::SeqCst)
    }

    pub(crate) fn verbosity(&self) -> Verbosity {
        self.verbosity
    }

    pub(crate) fn output(&self) -> Output {
        self.output
    }

    /// Prints the closing summary: the human line, or the whole JSON document.
    pub(crate) fn finish(&self, command: &str, summary: &impl Serialize, line: &str) {
        self.finished.store(true, Ordering::SeqCst);
        match self.output {
            // `diff`'s summary ends its run through `finish_markdown`.
            Output::Markdown => {}
            Output::Json => {
                let events = std::mem::take(&mut lock(&self.collected).events);
                let document = Document {
                    version: 1,
                    command,
                    error: self.error_info(None),
                    events,
                    summary: Some(summary),
                };
                self.out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
            }
            _ => self.summary_line(line),
        }
    }

    /// Prints `diff`'s Markdown summary of the entries the run reported (`compared` says what
    /// was compared), the problems of cassettes that could not be read included; for any
    /// other output, what [`Reporter::finish`] prints.
    pub(crate) fn finish_diff(
        &self,
        summary: &vcr_diff::Summary,
        line: &str,
        compared: &markdown::Compared,
    ) {
        if self.output != Output::Markdown {
            return self.finish("diff", summary, line);
        }
        self.finished.store(true, Ordering::SeqCst);
        let (entries, problems) = {
            let mut collected = lock(&self.collected);
            (
                std::mem::take(&mut collected.entries),
                std::mem::take(&mut collected.problems),
            )
        };
        self.out(&markdown::render(&entries, summary, compared, &problems));
    }

    /// Takes a group of a run's findings as `verify` makes them, in order: printed at once
    /// (human text, annotations, the JSON document's `findings` array, its head first), so
    /// that a run's memory does not grow with its findings (issue 25); SARIF, one JSON
    /// object with the run's problems beside its results, keeps them to the end.
    pub(crate) fn stream_findings(&self, findings: Vec<Finding>) {
        self.learn(findings.iter().map(|f| f.path.as_str()));
        match self.output {
            Output::Human => {
                for finding in &findings {
                    human::finding(self, finding);
                }
            }
            Output::Json => {
                let first = {
                    let mut collected = lock(&self.collected);
                    let errors = findings
                        .iter()
                        .filter(|f| f.severity == vcr_lint::finding::Severity::Error)
                        .count();
                    collected.printed_errors += errors;
                    collected.printed_warnings += findings.len() - errors;
                    !std::mem::replace(&mut collected.streamed, true)
                };
                self.out_parts(&[&json_group(first, &findings)]);
            }
            Output::Github => {
                let text: Vec<String> = findings.iter().map(github::annotation).collect();
                self.out(&text.join("\n"));
            }
            Output::Sarif => lock(&self.collected).findings.extend(findings),
            Output::Markdown => {}
        }
    }

    /// Prints the closing part of `verify`: the summary line, the end of the findings
    /// document, the SARIF log, or the annotations' summary.
    pub(crate) fn finish_findings(&self, summary: &vcr_ops::verify::Summary, line: &str) {
        self.finished.store(true, Ordering::SeqCst);
        match self.output {
            Output::Human => self.summary_line(line),
            Output::Json => {
                let streamed = lock(&self.collected).streamed;
                let error = self.error_info(None);
                let tail = document_tail(streamed, error.as_ref(), summary);
                self.out_parts(&[&tail, b"\n"]);
            }
            Output::Sarif => {
                let findings = std::mem::take(&mut lock(&self.collected).findings);
                let problems = std::mem::take(&mut lock(&self.collected).problems);
                self.out(&sarif::render(&findings, &problems, None));
            }
            Output::Github => {
                for problem in std::mem::take(&mut lock(&self.collected).problems) {
                    self.out(&github::problem(&problem));
                }
                self.summary_line(line);
            }
            Output::Markdown => {}
        }
    }

    /// The `error` of a JSON document: `fatal`, or the error events of a run that went on.
    fn error_info(&self, fatal: Option<&str>) -> Option<ErrorInfo> {
        let problems = std::mem::take(&mut lock(&self.collected).problems);
        let message = match (fatal, problems.as_slice()) {
            (Some(message), _) => message.to_owned(),
            (None, []) => return None,
            (None, [one]) => one.text(),
            (None, [first, rest @ ..]) => {
                format!("{} (and {} more)", first.text(), rest.len())
            }
        };
        Some(ErrorInfo { message, problems })
    }

    fn summary_line(&self, line: &str) {
        if self.verbosity > Verbosity::Quiet && !line.is_empty() {
            self.out(line);
        }
    }

    /// Writes a line to stdout, noting a closed pipe.
    pub(crate) fn out(&self, text: &str) {
        self.out_parts(&[text.as_bytes(), b"\n"]);
    }

    /// Writes `parts` to stdout one after the other, as they are (no line break added), and
    /// notes a closed pipe.
    fn out_parts(&self, parts: &[&[u8]]) {
        if self.broken_pipe() {
            return;
        }
        let paths = lock(&self.paths);
        let masked: Vec<Cow<'_, [u8]>> = parts.iter().map(|part| paths.mask_bytes(part)).collect();
        drop(paths);
        let mut stdout = io::stdout().lock();
        let written = masked
            .iter()
            .try_for_each(|part| stdout.write_all(part))
            .and_then(|()| stdout.flush());
        if let Err(e) = written
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            self.broken_pipe.store(true, Ordering::SeqCst);
        }
    }

    /// Writes a line to stderr.
    pub(crate) fn err(&self, text: &str) {
        let text = lock(&self.paths).mask(text).into_owned();
        let _ = writeln!(io::stderr().lock(), "{text}");
    }

    /// Learns the keys `paths` hold, to mask them in what is printed from now on.
    fn learn<'p>(&self, paths: impl IntoIterator<Item = &'p str>) {
        let mut mask = lock(&self.paths);
        for path in paths {
            mask.learn(path);
        }
    }

    /// An error that is not an event (`command` could not start or go on); always shown on
    /// stderr, and on stdout as the document of a machine-readable output.
    pub(crate) fn fatal(&self, command: &str, message: &str) {
        self.errors.store(true, Ordering::SeqCst);
        let label = human::paint(self.color_stderr, human::Style::Error, "error");
        self.err(&format!("{label}: {message}"));
        self.document_error(command, message);
    }

    /// The stdout part of [`Reporter::fatal`]: the error document of a machine-readable
    /// output, unless the closing document was printed already.
    pub(crate) fn document_error(&self, command: &str, message: &str) {
        self.errors.store(true, Ordering::SeqCst);
        if self.finished.swap(true, Ordering::SeqCst) {
            return;
        }
        let streamed = lock(&self.collected).streamed;
        match self.output {
            Output::Human => {}
            // `verify`'s document has one shape whatever the outcome (DESIGN.md's
            // `{"version", "findings", "summary"}`, with the error): one it began ends with
            // the error and the counts of the findings it printed; one that could not start
            // is that document with no finding and a summary of nothing checked.
            Output::Json if streamed || command == "verify" => {
                let error = self.error_info(Some(message));
                let summary = {
                    let collected = lock(&self.collected);
                    vcr_ops::verify::Summary {
                        errors: collected.printed_errors,
                        warnings: collected.printed_warnings,
                        ..Default::default()
                    }
                };
                let tail = document_tail(streamed, error.as_ref(), &summary);
                self.out_parts(&[&tail, b"\n"]);
            }
            Output::Json => {
                let document = Document::<()> {
                    version: 1,
                    command,
                    error: self.error_info(Some(message)),
                    events: std::mem::take(&mut lock(&self.collected).events),
                    summary: None,
                };
                self.out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
            }
            Output::Sarif => {
                let problems = std::mem::take(&mut lock(&self.collected).problems);
                self.out(&sarif::render(&[], &problems, Some(message)));
            }
            Output::Github => self.out(&github::fatal(command, message)),
            // A summary that could not be made says so where the summary would have been.
            Output::Markdown => self.out(&format!(
                "{}\n### vcr {command} could not run\n\n{}",
                markdown::MARKER,
                markdown::escape(
                    &self
                        .error_info(Some(message))
                        .map_or_else(String::new, |e| e.message)
                )
            )),
        }
    }
}

/// What the outputs keep while the run goes on (one lock: the reporter stays small).
#[derive(Default)]
struct Collected {
    /// The file whose findings are being printed (human output groups by file).
    current_file: Option<String>,
    /// Events for the JSON document, serialized in their own field order.
    events: Vec<Box<RawValue>>,
    /// Findings for the SARIF output.
    findings: Vec<Finding>,
    /// Whether `verify`'s JSON document has begun (its head and `findings` array printed).
    streamed: bool,
    /// The error and warning findings printed in it, for the summary of a run that stops.
    printed_errors: usize,
    printed_warnings: usize,
    /// The error events seen.
    problems: Vec<Problem>,
    /// `diff`'s entries, for its Markdown summary.
    entries: Vec<vcr_diff::Entry>,
}

/// The JSON document every command but `verify` prints with `--format json`, and every
/// command when it could not start or go on (then without `summary`).
#[derive(Serialize)]
struct Document<'a, S: Serialize> {
    version: u32,
    command: &'a str,
    /// Present exactly when the run exits 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorInfo>,
    events: Vec<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a S>,
}

/// The JSON document of `verify`: `version`, `findings`, `error` (present exactly when the
/// run exits 2: a file that could not be read), `summary`, in that order, each finding's
/// fields in `Finding`'s order (`id`, `severity`, `path`, ...), printed as
/// `serde_json::to_string_pretty` prints it (a test holds the two to the same bytes).
///
/// Printed as it is made: this head, then the findings a group at a time as `verify` hands
/// them on (`write_finding`, by hand: about four times as fast as serde's pretty printer),
/// then [`document_tail`]. The `error` follows the findings because it is known only at the
/// end; a whole tree of 32 copies of the corpus has 480,000 findings, which were all kept
/// for one document before (issue 25).
const DOCUMENT_HEAD: &[u8] = b"{\n  \"version\": 1,\n  \"findings\": ";

/// A group of findings in `verify`'s JSON document (`first`: the document's head and the
/// array's opening come first; else a `,` separates it from the previous group).
fn json_group(first: bool, findings: &[Finding]) -> Vec<u8> {
    let mut text = Vec::with_capacity(findings.len() * 512 + DOCUMENT_HEAD.len() + 2);
    if first {
        text.extend_from_slice(DOCUMENT_HEAD);
        text.extend_from_slice(b"[\n");
    }
    for (i, finding) in findings.iter().enumerate() {
        if i > 0 || !first {
            text.extend_from_slice(b",\n");
        }
        write_finding(&mut text, finding);
    }
    text
}

/// The end of `verify`'s JSON document: the `findings` array closed (`streamed`: opened and
/// given at least one finding; else printed whole with the head, empty), the `error` if
/// any, the `summary`.
fn document_tail(
    streamed: bool,
    error: Option<&ErrorInfo>,
    summary: &vcr_ops::verify::Summary,
) -> Vec<u8> {
    let mut tail = if streamed {
        b"\n  ]".to_vec()
    } else {
        [DOCUMENT_HEAD, b"[]"].concat()
    };
    if let Some(error) = error {
        tail.extend_from_slice(b",\n  \"error\": ");
        pretty(&mut tail, error, b"  ");
    }
    tail.extend_from_slice(b",\n  \"summary\": ");
    pretty(&mut tail, summary, b"  ");
    tail.extend_from_slice(b"\n}");
    tail
}

/// Appends `finding` as `serde_json::to_writer_pretty` prints it inside the document's
/// `findings` array: by hand, with the library's JSON string writer, about four times as
/// fast as serde's pretty printer on the corpus's findings. The destructuring is exhaustive,
/// so a field added to `Finding` does not compile until it is printed here too.
fn write_finding(out: &mut Vec<u8>, finding: &Finding) {
    let Finding {
        id,
        severity,
        path,
        line,
        column,
        message,
        matched,
        detector,
        pointer,
        reason,
        fingerprint,
    } = finding;
    let severity = match severity {
        vcr_lint::finding::Severity::Error => "error",
        vcr_lint::finding::Severity::Warning => "warning",
    };
    let key = |out: &mut Vec<u8>, key: &[u8]| {
        out.extend_from_slice(b",\n      \"");
        out.extend_from_slice(key);
        out.extend_from_slice(b"\": ");
    };
    let string = |out: &mut Vec<u8>, name: &[u8], value: &str| {
        key(out, name);
        vcr_json::write_string(&vcr_json::Str::new(value), out);
    };
    let number = |out: &mut Vec<u8>, name: &[u8], value: usize| {
        key(out, name);
        write!(out, "{value}").expect("a vector takes every write");
    };
    out.extend_from_slice(b"    {\n      \"id\": ");
    vcr_json::write_string(&vcr_json::Str::new(id.as_str()), out);
    string(out, b"severity", severity);
    string(out, b"path", path);
    if let Some(line) = line {
        number(out, b"line", *line);
    }
    if let Some(column) = column {
        number(out, b"column", *column);
    }
    string(out, b"message", message);
    if let Some(matched) = matched {
        string(out, b"match", matched);
    }
    if let Some(detector) = detector {
        string(out, b"detector", detector);
    }
    if let Some(pointer) = pointer {
        string(out, b"pointer", pointer);
    }
    if let Some(reason) = reason {
        string(out, b"reason", reason);
    }
    string(out, b"fingerprint", fingerprint);
    out.extend_from_slice(b"\n    }");
}

/// Indents every line of `out[start..]` after its first by `indent`: a value printed at the
/// top level becomes the same value printed nested. JSON text never holds a raw line break
/// inside a string (it is escaped), so every `\n` ends a line of the layout.
fn indent_lines(out: &mut Vec<u8>, start: usize, indent: &[u8]) {
    let text = out.split_off(start);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
            out.extend_from_slice(indent);
        }
        out.extend_from_slice(line);
    }
}

/// Appends `value` pretty-printed, nested at `indent`.
fn pretty(out: &mut Vec<u8>, value: &impl Serialize, indent: &[u8]) {
    let start = out.len();
    serde_json::to_writer_pretty(&mut *out, value).expect("JSON serializes");
    indent_lines(out, start, indent);
}

/// Why a run exits 2: in one line, and each error event of a run that went on.
#[derive(Serialize)]
struct ErrorInfo {
    message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<Problem>,
}

/// An error event, as the machine-readable outputs carry it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Problem {
    /// The finding id of a file's problem (`io`, `parse`, `schema`), else what it is
    /// (`path`, `name/collision`, `name/too-long`).
    pub(crate) id: String,
    /// The file, when the problem is one file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) column: Option<usize>,
    pub(crate) message: String,
}

impl Problem {
    fn from_event(event: &Event<'_>) -> Option<Problem> {
        let problem = |path: Option<&str>, id: &str, message| Problem {
            path: path.map(str::to_owned),
            line: None,
            column: None,
            id: id.to_owned(),
            message,
        };
        Some(match event {
            Event::FileError {
                path,
                id,
                line,
                column,
                message,
            } => Problem {
                line: *line,
                column: *column,
                ..problem(Some(path), id, (*message).to_owned())
            },
            Event::PathError { message } => problem(None, "path", (*message).to_owned()),
            Event::Collision { .. } | Event::NameTooLong { .. } => {
                let (label, text) = human::problem_text(event)?;
                let (path, id) = match event {
                    Event::NameTooLong { path, .. } => (Some(*path), "name/too-long"),
                    _ => (None, "name/collision"),
                };
                problem(path, id, format!("{label}: {text}"))
            }
            Event::Changed { path, .. } => {
                problem(Some(path), "changed", human::problem_text(event)?.1)
            }
            Event::Interrupted { .. } => {
                problem(None, "interrupted", human::problem_text(event)?.1)
            }
            _ => return None,
        })
    }

    /// The problem in one line: its place, then what is wrong.
    pub(crate) fn text(&self) -> String {
        match (&self.path, self.line, self.column) {
            (Some(path), Some(line), Some(column)) => {
                format!("{path}:{line}:{column}: {}", self.message)
            }
            (Some(path), _, _) if !self.message.contains(path.as_str()) => {
                format!("{path}: {}", self.message)
            }
            _ => self.message.clone(),
        }
    }
}

/// Events that make the run fail with exit code 2.
fn is_error(event: &Event<'_>) -> bool {
    matches!(
        event,
        Event::FileError { .. }
            | Event::PathError { .. }
            | Event::Changed { .. }
            | Event::Interrupted { .. }
            | Event::Collision { .. }
            | Event::NameTooLong { .. }
    )
}

impl Report for Reporter {
    fn report(&self, event: &Event<'_>) {
        self.learn(event.paths());
        let error = is_error(event);
        if error {
            self.errors.store(true, Ordering::SeqCst);
            if self.output != Output::Human
                && let Some(problem) = Problem::from_event(event)
            {
                lock(&self.collected).problems.push(problem);
            }
        }
        // A finding as an event (`record`'s check of what it recorded; `verify` streams its
        // own): a line for people, an event of the JSON document like any other, an
        // annotation, a SARIF result.
        if let Event::Finding(finding) = event {
            match self.output {
                Output::Human => human::finding(self, finding),
                Output::Json => {
                    let value = serde_json::value::to_raw_value(event).expect("events serialize");
                    lock(&self.collected).events.push(value);
                }
                Output::Github => self.out(&github::annotation(finding)),
                Output::Sarif => lock(&self.collected).findings.push((*finding).clone()),
                Output::Markdown => {}
            }
            return;
        }
        match self.output {
            Output::Human => human::render(self, event),
            Output::Json => {
                if error {
                    human::render(self, event);
                }
                let value = serde_json::value::to_raw_value(event).expect("events serialize");
                lock(&self.collected).events.push(value);
            }
            Output::Sarif | Output::Github => {
                if error {
                    human::render(self, event);
                }
            }
            Output::Markdown => match event {
                Event::Diff(entry) => lock(&self.collected).entries.push((*entry).clone()),
                _ if error => human::render(self, event),
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcr_lint::finding::Severity;

    /// The document as one struct, the way `serde_json` prints it: what the head, the groups
    /// of findings and the tail must print byte for byte.
    #[derive(Serialize)]
    struct Whole<'a> {
        version: u32,
        findings: &'a [Finding],
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a ErrorInfo>,
        summary: &'a vcr_ops::verify::Summary,
    }

    fn finding(i: usize) -> Finding {
        let message = match i % 4 {
            0 => format!("plain {i}"),
            1 => format!("quote \" backslash \\ line\nbreak\ttab {i}"),
            2 => format!("unicode é 漢 \u{1F600} control \u{1}\u{8}\u{c}\u{1f}\u{7f}\u{2028} {i}"),
            _ => String::new(),
        };
        let mut f = Finding::new(
            vcr_lint::finding::FindingId::LeakSecret,
            Severity::Error,
            &format!("dir/f{i}.json"),
            message,
        );
        if !i.is_multiple_of(3) {
            f.line = Some(i + 1);
            f.column = Some(i % 80 + 1);
            f.matched = Some("sk-…abcd\n".to_owned());
            f.detector = Some("openai");
            f.pointer = Some(format!("/a/{i}/b~1c"));
        }
        f
    }

    #[test]
    fn the_findings_document_is_what_serde_json_prints() {
        let mut summary = vcr_ops::verify::Summary {
            files: 3,
            errors: 2,
            warnings: 1,
            ..Default::default()
        };
        summary.http.insert("vcrpy", 2);
        let error = ErrorInfo {
            message: "a.json: cannot be read\n(and 1 more)".to_owned(),
            problems: vec![
                Problem {
                    id: "io".to_owned(),
                    path: Some("a.json".to_owned()),
                    line: Some(1),
                    column: None,
                    message: "no such file".to_owned(),
                },
                Problem {
                    id: "path".to_owned(),
                    path: None,
                    line: None,
                    column: None,
                    message: "\"x\"".to_owned(),
                },
            ],
        };
        let many: Vec<Finding> = (0..1031).map(finding).collect();
        for findings in [&[][..], &many[..1], &many[..3], &many[..]] {
            for error in [None, Some(&error)] {
                // A run that got to its summary, and one a fatal error ended (counts only).
                let stopped = vcr_ops::verify::Summary {
                    errors: findings.len(),
                    ..Default::default()
                };
                for summary in [&summary, &stopped] {
                    let whole = Whole {
                        version: 1,
                        findings,
                        error,
                        summary,
                    };
                    // As `verify` hands them on: groups of one, of a few, of many.
                    let mut printed = Vec::new();
                    let mut rest = findings;
                    let mut size = 1;
                    while !rest.is_empty() {
                        let (group, after) = rest.split_at(size.min(rest.len()));
                        printed.extend(json_group(printed.is_empty(), group));
                        rest = after;
                        size *= 7;
                    }
                    printed.extend(document_tail(!printed.is_empty(), error, summary));
                    assert_eq!(
                        String::from_utf8(printed).unwrap(),
                        serde_json::to_string_pretty(&whole).unwrap(),
                        "{} findings, error: {}, summary: {summary:?}",
                        findings.len(),
                        error.is_some(),
                    );
                }
            }
        }
    }

    #[test]
    fn indenting_adds_the_indent_after_each_line_break() {
        for (text, expected) in [
            ("", ""),
            ("a", "a"),
            ("a\nb", "a\n  b"),
            ("\n", "\n  "),
            (
                "{\n  \"k\": [\n    1\n  ]\n}",
                "{\n    \"k\": [\n      1\n    ]\n  }",
            ),
        ] {
            // Only what follows `start` is indented.
            let mut out = b"head\n".to_vec();
            out.extend_from_slice(text.as_bytes());
            indent_lines(&mut out, 5, b"  ");
            assert_eq!(String::from_utf8(out).unwrap(), format!("head\n{expected}"));
        }
    }
}
