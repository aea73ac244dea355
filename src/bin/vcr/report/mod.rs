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
mod sarif;

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use serde_json::value::RawValue;
use vcr::event::{Event, Report};
use vcr::finding::Finding;

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
    /// What the outputs keep while the run goes on.
    collected: Mutex<Collected>,
    /// The closing document has been printed: a later fatal error only reaches stderr.
    finished: AtomicBool,
    /// An error-level event was seen: the run ends with exit code 2.
    errors: AtomicBool,
    /// stdout was closed under us (`vcr ... | head`): stop quietly, exit 0.
    broken_pipe: AtomicBool,
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

    /// Prints the closing part of `verify`: the summary line, the findings document, the
    /// SARIF log, or the annotations' summary.
    pub(crate) fn finish_findings(&self, summary: &vcr::verify::Summary, line: &str) {
        self.finished.store(true, Ordering::SeqCst);
        let findings = std::mem::take(&mut lock(&self.collected).findings);
        match self.output {
            Output::Human => self.summary_line(line),
            Output::Json => {
                let document = FindingsDocument {
                    version: 1,
                    error: self.error_info(None),
                    findings: &findings,
                    summary,
                };
                self.out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
            }
            Output::Sarif => {
                let problems = std::mem::take(&mut lock(&self.collected).problems);
                self.out(&sarif::render(&findings, &problems, None));
            }
            Output::Github => {
                for finding in &findings {
                    self.out(&github::annotation(finding));
                }
                for problem in std::mem::take(&mut lock(&self.collected).problems) {
                    self.out(&github::problem(&problem));
                }
                self.summary_line(line);
            }
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
        if self.broken_pipe() {
            return;
        }
        let mut stdout = io::stdout().lock();
        if let Err(e) = writeln!(stdout, "{text}")
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            self.broken_pipe.store(true, Ordering::SeqCst);
        }
    }

    /// Writes a line to stderr.
    pub(crate) fn err(&self, text: &str) {
        let _ = writeln!(io::stderr().lock(), "{text}");
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
        match self.output {
            Output::Human => {}
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
    /// Findings for the JSON, SARIF and GitHub outputs.
    findings: Vec<Finding>,
    /// The error events seen.
    problems: Vec<Problem>,
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

/// The JSON document of `verify`. A struct, not a `json!` map, so that fields keep the
/// documented order (`version` first, and each finding's `id`, `severity`, `path`, ...)
/// instead of being sorted alphabetically.
#[derive(Serialize)]
struct FindingsDocument<'a> {
    version: u32,
    /// Present exactly when the run exits 2 (a file that could not be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorInfo>,
    findings: &'a [Finding],
    summary: &'a vcr::verify::Summary,
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
        let error = is_error(event);
        if error {
            self.errors.store(true, Ordering::SeqCst);
            if self.output != Output::Human
                && let Some(problem) = Problem::from_event(event)
            {
                lock(&self.collected).problems.push(problem);
            }
        }
        if let Event::Finding(finding) = event {
            match self.output {
                Output::Human => human::finding(self, finding),
                _ => lock(&self.collected).findings.push((*finding).clone()),
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
        }
    }
}
