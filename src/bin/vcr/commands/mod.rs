//! One module per subcommand; each only orchestrates: resolve, call the library, report.

pub(crate) mod diff;
pub(crate) mod normalize;
pub(crate) mod prune;
pub(crate) mod record;
pub(crate) mod rehash;
pub(crate) mod verify;

use anyhow::Result;

use crate::cli::Command;
use crate::context::Context;

/// How a command ended, when it could run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Nothing to report: exit 0.
    Clean,
    /// Findings (a check that would change files): exit 1.
    Findings,
}

pub(crate) fn dispatch(cx: &Context, command: &Command) -> Result<Outcome> {
    match command {
        Command::Verify(args) => verify::run(cx, args),
        Command::Normalize(args) => normalize::run(cx, args),
        Command::Rehash(args) => rehash::run(cx, args),
        Command::Diff(args) => diff::run(cx, args),
        Command::Record(args) => record::run(cx, args),
        Command::Prune(args) => prune::run(cx, args),
    }
}

/// "1 cassette", "3 cassettes".
pub(crate) fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
