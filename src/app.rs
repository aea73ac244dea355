//! Turns a command line into an exit code. This is the only place errors are printed and the
//! only place that decides how the process ends.
//!
//! Exit codes, as ripgrep and ruff use them: 0 done or clean, 1 findings (the check found
//! something to change), 2 the run could not do what was asked (bad usage, bad configuration,
//! an unreadable or invalid file, a refused unsafe operation). A closed stdout (`| head`) is
//! not an error: vcr stops quietly with 0.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::cli::{Cli, Command, Output};
use crate::commands::{self, Outcome};
use crate::context::Context;
use crate::report::{Reporter, Verbosity};

pub(crate) fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    // `--generate man verify`: a subcommand's page. Read before clap parses, which would take
    // `record` for a command missing its test command.
    if let Some(name) = man_page_asked(&args) {
        let text = crate::generate::man_page_of(&name);
        let reporter = Reporter::new(Output::Human, Verbosity::Normal, false, false);
        reporter.out(String::from_utf8_lossy(&text).trim_end_matches('\n'));
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&args, &e),
    };
    // What needs no project: the generated documentation, the detector list.
    let reporter = |output| Reporter::new(output, Verbosity::Normal, false, false);
    if let Some(what) = cli.generate {
        if cli.command.is_some() {
            let e = Cli::command().error(
                clap::error::ErrorKind::ArgumentConflict,
                "`--generate` takes no subcommand, but `--generate man COMMAND` alone prints COMMAND's page",
            );
            return usage_error(&args, &e);
        }
        let text = crate::generate::generate(what);
        reporter(Output::Human).out(String::from_utf8_lossy(&text).trim_end_matches('\n'));
        return ExitCode::SUCCESS;
    }
    let Some(command) = &cli.command else {
        // Without `--generate` a subcommand is required: clap says so, as it always has.
        let e = Cli::command()
            .subcommand_required(true)
            .arg_required_else_help(true)
            .try_get_matches_from(&args)
            .expect_err("no subcommand was given");
        return usage_error(&args, &e);
    };
    if let Command::Verify(args) = command
        && args.list_detectors
    {
        commands::verify::list_detectors(&reporter(args.format.into()));
        return ExitCode::SUCCESS;
    }
    let name = command.name();
    let ask = match command {
        Command::Verify(args) if args.staged => crate::context::Ask::Staged,
        _ => crate::context::Ask::Nothing,
    };
    let cx = match Context::new(&cli.global, command.output(), ask) {
        Ok(cx) => cx,
        Err((reporter, e)) => {
            reporter.fatal(name, &format!("{e:#}"));
            return ExitCode::from(2);
        }
    };
    let outcome = commands::dispatch(&cx, command);
    if cx.reporter.broken_pipe() {
        return ExitCode::SUCCESS;
    }
    match outcome {
        Err(e) => {
            cx.reporter.fatal(name, &format!("{e:#}"));
            ExitCode::from(2)
        }
        // `record` passes on the code of a test command that failed, whatever else happened.
        Ok(Outcome::Exit(code)) => ExitCode::from(code),
        Ok(_) if cx.reporter.had_errors() => ExitCode::from(2),
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
    }
}

/// A command line clap refused (or `--help`, `--version`). clap prints its message; when
/// the line asks for a machine-readable format, stdout gets the error document too, so
/// whatever reads it does not meet an empty stdout.
fn usage_error(args: &[OsString], e: &clap::Error) -> ExitCode {
    let _ = e.print();
    if !e.use_stderr() {
        return ExitCode::SUCCESS;
    }
    if let Some((command, output)) = requested_output(args) {
        // The message is the first paragraph (the usage and the tip follow).
        let rendered = e.render().to_string();
        let message = rendered
            .lines()
            .take_while(|line| !line.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let message = message.trim_start_matches("error: ");
        // clap has said it on stderr already; this reporter only writes the document.
        Reporter::new(output, Verbosity::Quiet, false, false).document_error(&command, message);
    }
    ExitCode::from(2)
}

/// The subcommand and the `--format` of a command line that did not parse, when both can be
/// told and the format is a machine-readable one.
fn requested_output(args: &[OsString]) -> Option<(String, Output)> {
    let cli = Cli::command();
    // The global options that take a value (`-C DIR`): their value is not a subcommand.
    let takes_value = |word: &str| {
        cli.get_arguments().any(|a| {
            a.get_action().takes_values()
                && (a
                    .get_long()
                    .is_some_and(|l| word.strip_prefix("--") == Some(l))
                    || a.get_short().is_some_and(|s| word == format!("-{s}")))
        })
    };
    let mut command = None;
    let mut format = None;
    let mut words = args.iter().skip(1).map(|a| a.to_str().unwrap_or_default());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        } else if word == "--format" {
            format = words.next();
        } else if let Some(value) = word.strip_prefix("--format=") {
            format = Some(value);
        } else if command.is_none() && takes_value(word) {
            words.next();
        } else if command.is_none() {
            command = cli.find_subcommand(word).map(|s| s.get_name().to_owned());
        }
    }
    let output = match format? {
        "json" => Output::Json,
        "sarif" => Output::Sarif,
        "github" => Output::Github,
        "markdown" => Output::Markdown,
        _ => return None,
    };
    Some((command?, output))
}

/// The subcommand whose man page `args` ask for: `vcr --generate man verify` (or
/// `--generate=man verify`), nothing else on the line.
fn man_page_asked(args: &[OsString]) -> Option<String> {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .map(|a| a.to_str())
        .collect::<Option<_>>()?;
    let name = match words.as_slice() {
        ["--generate", "man", name] | ["--generate=man", name] => *name,
        _ => return None,
    };
    Cli::command()
        .get_subcommands()
        .any(|s| s.get_name() == name && !s.is_hide_set())
        .then(|| name.to_owned())
}
