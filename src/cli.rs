//! The command-line definition: syntax only. Everything it parses is resolved into a
//! `Context` before any command runs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands::{diff, normalize, prune, record, rehash, review, verify};

/// Keeps the fixture trees of record/replay tests of LLM agents healthy.
///
/// vcr reads the cassettes that Claude Code's VCR and harnesses like it record, names them as
/// the harness names them, applies the dehydration rules to exactly the fields the harness
/// dehydrates, and writes them back byte for byte as the harness's own writer would.
///
/// Exit codes: 0 done or clean, 1 findings (`verify` found errors, `--check` would change
/// files), 2 error (bad usage, bad config, unreadable input, a refused unsafe operation).
#[derive(Debug, Parser)]
#[command(
    name = "vcr",
    version,
    max_term_width = 100,
    override_usage = "vcr [OPTIONS] <COMMAND>\n       vcr --generate <WHAT>"
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: GlobalArgs,

    /// Print the man page or a shell's completion script and exit (for packagers).
    #[arg(long, value_name = "WHAT", exclusive = true, hide_short_help = true)]
    pub(crate) generate: Option<Generate>,

    /// Required unless `--generate` is given (`app` says so as clap would).
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// What `--generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Generate {
    /// The man page vcr(1); `--generate man verify` prints vcr-verify(1), and so on.
    Man,
    /// Completions for bash.
    CompleteBash,
    /// Completions for zsh.
    CompleteZsh,
    /// Completions for fish.
    CompleteFish,
    /// Completions for PowerShell.
    CompletePowershell,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Run as if vcr was started in DIR.
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub(crate) directory: Option<PathBuf>,

    /// Use this configuration file instead of looking for vcr.toml.
    #[arg(long, value_name = "FILE", env = "VCR_CONFIG", global = true)]
    pub(crate) config: Option<PathBuf>,

    /// When to use colour (NO_COLOR is honoured by `auto`).
    #[arg(
        long,
        value_name = "WHEN",
        env = "VCR_COLOR",
        default_value = "auto",
        global = true
    )]
    pub(crate) color: ColorChoice,

    /// Whose path forms the rules replace [env: VCR_PLATFORM] [default: this machine's].
    #[arg(long, value_name = "PLATFORM", global = true)]
    pub(crate) platform: Option<PlatformArg>,

    /// Read files git ignores too (.gitignore, .git/info/exclude, global excludes).
    #[arg(long, global = true)]
    pub(crate) no_ignore: bool,

    /// Say less: only errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,

    /// Say more: skipped files, the rule set, recovered runs.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub(crate) verbose: u8,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    /// When writing to a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// A platform whose path forms the rules replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PlatformArg {
    /// Paths as written (Linux, macOS).
    Unix,
    /// Also forward-slash and JSON-escaped forms of Windows paths.
    Windows,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum Format {
    /// Text for people.
    #[default]
    Human,
    /// One JSON document with `"version": 1`.
    Json,
}

/// How `verify` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum VerifyFormat {
    /// Grouped by file, with a summary line.
    #[default]
    Human,
    /// `{"version":1,"findings":[...],"summary":{...}}`.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

/// How `diff` prints its comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum DiffFormat {
    /// A verdict line per cassette, its changes below it.
    #[default]
    Human,
    /// One JSON document with `"version": 1`.
    Json,
    /// A summary for a pull request or any CI that posts text: verdict counts, behaviour
    /// changes first, the rest collapsed, under GitHub's 65,536-character comment limit.
    Markdown,
}

impl From<DiffFormat> for Output {
    fn from(format: DiffFormat) -> Output {
        match format {
            DiffFormat::Human => Output::Human,
            DiffFormat::Json => Output::Json,
            DiffFormat::Markdown => Output::Markdown,
        }
    }
}

/// What the reporter prints, whatever the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Human,
    Json,
    Sarif,
    Github,
    /// `diff`'s summary for a pull request, printed whole at the end.
    Markdown,
}

impl From<Format> for Output {
    fn from(format: Format) -> Output {
        match format {
            Format::Human => Output::Human,
            Format::Json => Output::Json,
        }
    }
}

impl From<VerifyFormat> for Output {
    fn from(format: VerifyFormat) -> Output {
        match format {
            VerifyFormat::Human => Output::Human,
            VerifyFormat::Json => Output::Json,
            VerifyFormat::Sarif => Output::Sarif,
            VerifyFormat::Github => Output::Github,
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    Verify(verify::Args),
    Normalize(normalize::Args),
    Rehash(rehash::Args),
    Diff(diff::Args),
    Review(review::Args),
    Record(record::Args),
    Prune(prune::Args),
}

impl Command {
    /// The subcommand's name, as typed.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Verify(_) => "verify",
            Command::Normalize(_) => "normalize",
            Command::Rehash(_) => "rehash",
            Command::Diff(_) => "diff",
            Command::Review(_) => "review",
            Command::Record(_) => "record",
            Command::Prune(_) => "prune",
        }
    }

    /// How this command's results are printed.
    pub(crate) fn output(&self) -> Output {
        match self {
            Command::Verify(args) => args.format.into(),
            Command::Normalize(args) => args.format.into(),
            Command::Rehash(args) => args.format.into(),
            Command::Diff(args) => args.format.into(),
            Command::Review(args) => args.format.into(),
            Command::Record(args) => args.format.into(),
            Command::Prune(args) => args.format.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
