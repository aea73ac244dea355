//! Turns a command line into an exit code. This is the only place errors are printed and the
//! only place that decides how the process ends.
//!
//! Exit codes, as ripgrep and ruff use them: 0 done or clean, 1 findings (the check found
//! something to change), 2 the run could not do what was asked (bad usage, bad configuration,
//! an unreadable or invalid file, a refused unsafe operation). A closed stdout (`| head`) is
//! not an error: vcr stops quietly with 0.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::commands::{self, Outcome};
use crate::context::Context;

pub(crate) fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let cx = match Context::new(&cli.global, cli.command.output()) {
        Ok(cx) => cx,
        Err((reporter, e)) => {
            reporter.fatal(&format!("{e:#}"));
            return ExitCode::from(2);
        }
    };
    let outcome = commands::dispatch(&cx, &cli.command);
    if cx.reporter.broken_pipe() {
        return ExitCode::SUCCESS;
    }
    match outcome {
        Err(e) => {
            cx.reporter.fatal(&format!("{e:#}"));
            ExitCode::from(2)
        }
        // `record` passes on the code of a test command that failed, whatever else happened.
        Ok(Outcome::Exit(code)) => ExitCode::from(code),
        Ok(_) if cx.reporter.had_errors() => ExitCode::from(2),
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
    }
}
