//! One module per subcommand; each only orchestrates: resolve, call the library, report.

pub(crate) mod diff;
pub(crate) mod normalize;
pub(crate) mod prune;
pub(crate) mod record;
pub(crate) mod rehash;
pub(crate) mod review;
mod test_run;
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
    /// The test command `vcr record` ran failed: exit with its code.
    Exit(u8),
}

pub(crate) fn dispatch(cx: &Context, command: &Command) -> Result<Outcome> {
    match command {
        Command::Verify(args) => verify::run(cx, args),
        Command::Normalize(args) => normalize::run(cx, args),
        Command::Rehash(args) => rehash::run(cx, args),
        Command::Diff(args) => diff::run(cx, args),
        Command::Review(args) => review::run(cx, args),
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

/// A size for people: bytes, KiB or MiB.
pub(crate) fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    if bytes < KIB {
        format!("{bytes} B")
    } else if bytes < KIB * KIB {
        format!("{:.1} KiB", bytes as f64 / KIB as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (KIB * KIB) as f64)
    }
}
