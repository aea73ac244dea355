//! The one reporter layer: every event of the library, and every line vcr prints, goes
//! through a [`Reporter`], which renders it for people or collects it for the JSON document,
//! and keeps the status the exit code is derived from.

mod human;

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use serde_json::value::RawValue;
use vcr::event::{Event, Report};

use crate::cli::Format;

/// How much to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// Renders events and remembers whether anything went wrong.
pub(crate) struct Reporter {
    format: Format,
    verbosity: Verbosity,
    color: bool,
    color_stderr: bool,
    /// Events collected for the JSON document, serialized in their own field order.
    events: Mutex<Vec<Box<RawValue>>>,
    /// An error-level event was seen: the run ends with exit code 2.
    errors: AtomicBool,
    /// stdout was closed under us (`vcr ... | head`): stop quietly, exit 0.
    broken_pipe: AtomicBool,
}

impl Reporter {
    pub(crate) fn new(
        format: Format,
        verbosity: Verbosity,
        color: bool,
        color_stderr: bool,
    ) -> Reporter {
        Reporter {
            format,
            verbosity,
            color,
            color_stderr,
            events: Mutex::default(),
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
        match self.format {
            Format::Human => {
                if self.verbosity > Verbosity::Quiet && !line.is_empty() {
                    self.out(line);
                }
            }
            Format::Json => {
                let events =
                    std::mem::take(&mut *self.events.lock().unwrap_or_else(|e| e.into_inner()));
                let document = Document {
                    version: 1,
                    command,
                    events,
                    summary,
                };
                let text = serde_json::to_string_pretty(&document).expect("JSON serializes");
                self.out(&text);
            }
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

/// The JSON document every command prints with `--format json`.
#[derive(Serialize)]
struct Document<'a, S: Serialize> {
    version: u32,
    command: &'a str,
    events: Vec<Box<RawValue>>,
    summary: &'a S,
}

/// Events that make the run fail with exit code 2.
fn is_error(event: &Event<'_>) -> bool {
    matches!(
        event,
        Event::FileError { .. }
            | Event::PathError { .. }
            | Event::Collision { .. }
            | Event::NameTooLong { .. }
    )
}

impl Report for Reporter {
    fn report(&self, event: &Event<'_>) {
        if is_error(event) {
            self.errors.store(true, Ordering::SeqCst);
        }
        match self.format {
            Format::Json => {
                let value = serde_json::value::to_raw_value(event).expect("events serialize");
                self.events
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(value);
            }
            Format::Human => human::render(self, event),
        }
    }
}
