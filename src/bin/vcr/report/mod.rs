//! The one reporter layer: every event of the library, and every line vcr prints, goes
//! through a [`Reporter`], which renders it for people, collects it for a JSON or SARIF
//! document, or turns it into GitHub annotations, and keeps the status the exit code is
//! derived from. Errors that stop a file (unreadable, a bad path) always reach stderr, so a
//! machine-readable stdout never hides them.

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
    /// Events collected for the JSON document, serialized in their own field order.
    events: Mutex<Vec<Box<RawValue>>>,
    /// Findings collected for the JSON, SARIF and GitHub outputs.
    findings: Mutex<Vec<Finding>>,
    /// The file whose findings are being printed (human output groups by file).
    current_file: Mutex<Option<String>>,
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
            events: Mutex::default(),
            findings: Mutex::default(),
            current_file: Mutex::default(),
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

    /// Prints the closing summary: the human line, or the whole JSON document.
    pub(crate) fn finish(&self, command: &str, summary: &impl Serialize, line: &str) {
        match self.output {
            Output::Json => {
                let events = std::mem::take(&mut *lock(&self.events));
                let document = Document {
                    version: 1,
                    command,
                    events,
                    summary,
                };
                self.out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
            }
            _ => self.summary_line(line),
        }
    }

    /// Prints the closing part of `verify`: the summary line, the findings document, the
    /// SARIF log, or the annotations' summary.
    pub(crate) fn finish_findings(&self, summary: &vcr::verify::Summary, line: &str) {
        let findings = std::mem::take(&mut *lock(&self.findings));
        match self.output {
            Output::Human => self.summary_line(line),
            Output::Json => {
                let document = FindingsDocument {
                    version: 1,
                    findings: &findings,
                    summary,
                };
                self.out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
            }
            Output::Sarif => self.out(&sarif::render(&findings)),
            Output::Github => {
                for finding in &findings {
                    self.out(&github::annotation(finding));
                }
                self.summary_line(line);
            }
        }
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

    /// An error that is not an event (the command could not run); always shown.
    pub(crate) fn fatal(&self, message: &str) {
        self.errors.store(true, Ordering::SeqCst);
        let label = human::paint(self.color_stderr, human::Style::Error, "error");
        self.err(&format!("{label}: {message}"));
    }
}

/// The JSON document every command but `verify` prints with `--format json`.
#[derive(Serialize)]
struct Document<'a, S: Serialize> {
    version: u32,
    command: &'a str,
    events: Vec<Box<RawValue>>,
    summary: &'a S,
}

/// The JSON document of `verify`. A struct, not a `json!` map, so that fields keep the
/// documented order (`version` first, and each finding's `id`, `severity`, `path`, ...)
/// instead of being sorted alphabetically.
#[derive(Serialize)]
struct FindingsDocument<'a> {
    version: u32,
    findings: &'a [Finding],
    summary: &'a vcr::verify::Summary,
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
        }
        if let Event::Finding(finding) = event {
            match self.output {
                Output::Human => human::finding(self, finding),
                _ => lock(&self.findings).push((*finding).clone()),
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
                lock(&self.events).push(value);
            }
            Output::Sarif | Output::Github => {
                if error {
                    human::render(self, event);
                }
            }
        }
    }
}
