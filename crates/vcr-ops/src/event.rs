//! What the library has to say, as values: the events commands emit and the traits through
//! which the binary receives them.
//!
//! The library never prints. A command calls [`Report::report`] for each thing worth telling,
//! in a deterministic order (sorted by path), and the binary decides how it looks: human
//! text, JSON, SARIF. Paths in events are relative to the project root and `/`-separated.

use serde::Serialize;

/// Something a command has to tell.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event<'a> {
    /// A cassette differs from its canonical form: rewritten, or would be (`--check`).
    Normalized {
        /// The cassette.
        path: &'a str,
        /// Whether the file was written (false under `--check`).
        written: bool,
        /// The unified diff, when asked for.
        #[serde(skip_serializing_if = "Option::is_none")]
        diff: Option<&'a str>,
    },
    /// A cassette's name is not the hash of its key material under the current rules.
    StaleName {
        /// The cassette.
        path: &'a str,
        /// The name the harness would look up.
        expected: &'a str,
    },
    /// A cassette was (or, in a dry run, would be) renamed.
    Renamed {
        /// The old path.
        from: &'a str,
        /// The new path.
        to: &'a str,
        /// Whether its key material was rewritten by the rules too.
        rewritten: bool,
        /// Whether it happened (false in a dry run).
        done: bool,
    },
    /// A cassette identical to another one that takes the same name was (or would be)
    /// removed.
    Merged {
        /// The removed twin.
        from: &'a str,
        /// The cassette it is identical to.
        into: &'a str,
        /// Whether it happened (false in a dry run).
        done: bool,
    },
    /// Two or more different cassettes have, or would get, the same name.
    Collision {
        /// The shared name.
        name: &'a str,
        /// The cassettes.
        paths: &'a [String],
    },
    /// A name longer than file systems allow (255 bytes): the harness cannot open it.
    NameTooLong {
        /// The cassette.
        path: &'a str,
        /// Length of the name in bytes.
        bytes: usize,
    },
    /// A file could not be processed; it was skipped and the run went on.
    FileError {
        /// The file.
        path: &'a str,
        /// The finding id (`parse`, `schema`, `io`).
        id: &'a str,
        /// 1-based line, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<usize>,
        /// 1-based column, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        column: Option<usize>,
        /// What is wrong.
        message: &'a str,
    },
    /// A file changed after the run read it (an editor saved it, `git checkout` replaced
    /// it), so the run left it as it is instead of replacing it with a rewrite of what it
    /// read.
    Changed {
        /// The file.
        path: &'a str,
        /// What was not done to it: `rewritten`, `renamed`, `deleted`, `moved aside`, ...
        action: &'a str,
    },
    /// An interrupted run left cassettes aside; a read-only command reports it instead of
    /// passing over it, and the next mutating command finishes it.
    Interrupted {
        /// The interrupted command.
        command: &'a str,
        /// How many cassettes are aside (under `.vcr-old-*` names, or in `.vcr/stash/`).
        cassettes: usize,
    },
    /// A path given on the command line could not be used.
    PathError {
        /// What is wrong, path included.
        message: &'a str,
    },
    /// A dsh scenario was checked: what the harness would load from it.
    Scenario {
        /// The folder.
        path: &'a str,
        /// Session scripts: the primary and one per child log.
        sessions: usize,
        /// Model calls in those scripts, overrides applied.
        calls: usize,
    },
    /// A cassette was left out on purpose.
    Skipped {
        /// The file.
        path: &'a str,
        /// Why.
        reason: &'a str,
    },
    /// An interrupted run was completed before this one started.
    Recovered {
        /// The interrupted command.
        command: &'a str,
        /// How many moves its plan had.
        moves: usize,
        /// How many of them were left undone: their files changed since that run read them
        /// (each also reported as [`Event::Changed`]).
        left: usize,
    },
    /// A temporary file left by a killed run was removed.
    TempRemoved {
        /// The file.
        path: &'a str,
    },
    /// A cassette (or dsh scenario folder) no usage source read (`vcr prune`).
    Orphan {
        /// The cassette or scenario folder.
        path: &'a str,
        /// Its files.
        files: usize,
        /// Their total size in bytes.
        bytes: u64,
        /// Whether git tracks it (git can bring it back).
        tracked: bool,
        /// Whether it was deleted.
        deleted: bool,
    },
    /// What a `vcr record` run did to a cassette.
    Recorded {
        /// The cassette.
        path: &'a str,
        /// Added, changed, removed, unchanged, or kept (moved aside and not re-recorded).
        change: crate::record::Change,
    },
    /// A file beside the cassettes (an expected output, a sidecar) that a green recording
    /// run added, changed or removed. vcr does not know its format: it is listed for review,
    /// not normalized or verified.
    Touched {
        /// The file.
        path: &'a str,
        /// Added, changed or removed.
        change: crate::record::Change,
    },
    /// A file that a failed or interrupted recording run added, changed or removed, left as
    /// the run left it. It is a cassette that was neither normalized, re-keyed nor verified,
    /// or a file beside the cassettes.
    LeftBehind {
        /// The file.
        path: &'a str,
        /// Added, changed or removed.
        change: crate::record::Change,
        /// Whether it is a cassette.
        cassette: bool,
    },
    /// A cassette was moved aside under `.vcr/stash/` to be recorded again.
    Stashed {
        /// The cassette.
        path: &'a str,
    },
    /// A cassette moved aside came back, was replaced by its new recording, or was kept in
    /// the stash because a run that did not succeed recorded it again.
    Unstashed {
        /// The cassette.
        path: &'a str,
        /// `restored`, `replaced` or `kept`.
        outcome: &'a str,
        /// Where the old copy is, when kept.
        #[serde(skip_serializing_if = "Option::is_none")]
        stash: Option<&'a str>,
    },
    /// A value `normalize` replaced in an HTTP cassette.
    Scrubbed {
        /// The cassette.
        path: &'a str,
        /// Line of the scalar rewritten (1-based).
        line: usize,
        /// Column of the scalar rewritten (1-based).
        column: usize,
        /// The readable path of the scalar.
        pointer: &'a str,
        /// The rules that changed it.
        rule: &'a str,
        /// Whether the file was written.
        written: bool,
    },
    /// A scrubbed value the recorder matches requests by: replay no longer matches the live
    /// request unless the test filters it the same way.
    ReplayAffected {
        /// The cassette.
        path: &'a str,
        /// The interaction's index.
        interaction: usize,
        /// What changed.
        what: &'a str,
        /// The recorder setting that makes it match again.
        setting: &'a str,
    },
    /// A finding of `vcr verify`.
    Finding(&'a vcr_lint::finding::Finding),
    /// One cassette compared by `vcr diff`.
    Diff(&'a vcr_diff::Entry),
    /// A cassette `vcr review` decided, or left undecided.
    Reviewed {
        /// The cassette.
        path: &'a str,
        /// `accepted` (kept as re-recorded), `rejected` (put back as the revision has it) or
        /// `skipped` (left as it is, undecided).
        decision: &'a str,
        /// Accepted without asking (`--accept-same-behaviour`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        unasked: bool,
        /// Files a rejection gave the revision's bytes back (rewritten or created again).
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        restored: &'a [String],
        /// Files a rejection removed (the revision had none).
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        removed: &'a [String],
        /// Files a rejection left as they are: they changed after review read them.
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        changed: &'a [String],
    },
}

impl Event<'_> {
    /// The paths the event names: what an output must mask where a path holds a key
    /// (issue 41).
    pub fn paths(&self) -> Vec<&str> {
        match self {
            Event::Normalized { path, .. }
            | Event::StaleName { path, .. }
            | Event::NameTooLong { path, .. }
            | Event::FileError { path, .. }
            | Event::Changed { path, .. }
            | Event::Scenario { path, .. }
            | Event::Skipped { path, .. }
            | Event::TempRemoved { path }
            | Event::Orphan { path, .. }
            | Event::Recorded { path, .. }
            | Event::Touched { path, .. }
            | Event::LeftBehind { path, .. }
            | Event::Stashed { path }
            | Event::Unstashed { path, .. }
            | Event::Scrubbed { path, .. }
            | Event::ReplayAffected { path, .. } => vec![path],
            Event::Reviewed {
                path,
                restored,
                removed,
                changed,
                ..
            } => std::iter::once(*path)
                .chain(
                    restored
                        .iter()
                        .chain(*removed)
                        .chain(*changed)
                        .map(String::as_str),
                )
                .collect(),
            Event::Renamed { from, to, .. } => vec![from, to],
            Event::Merged { from, into, .. } => vec![from, into],
            Event::Collision { paths, .. } => paths.iter().map(String::as_str).collect(),
            Event::Finding(finding) => vec![&finding.path],
            Event::Diff(entry) => std::iter::once(entry.path.as_str())
                .chain(entry.old_path.as_deref())
                .collect(),
            Event::Interrupted { .. } | Event::PathError { .. } | Event::Recovered { .. } => {
                Vec::new()
            }
        }
    }
}

/// Receives events. Implementations must be thread-safe; events arrive in a deterministic
/// order from one thread at a time.
pub trait Report: Send + Sync {
    /// Takes one event.
    fn report(&self, event: &Event<'_>);
}

/// Reports `problem`, the problem of the file at `path`, as an [`Event::FileError`].
pub fn report_problem(report: &dyn Report, path: &str, problem: &FileProblem) {
    report.report(&Event::FileError {
        path,
        id: problem.id,
        line: problem.line,
        column: problem.column,
        message: &problem.message,
    });
}

pub use vcr_project::run::{
    FileProblem, NoProgress, Progress, error_chain, par_ordered, par_ordered_iter,
};
