//! `vcr diff`.

use std::path::PathBuf;

use anyhow::{Result, bail};

use super::Outcome;
use crate::cli::Format;
use crate::context::Context;

/// Compare two versions of cassettes by what the agent did: tool calls, stop reasons,
/// models, usage, text. Exit codes: 0 identical, 1 differences, 2 error.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Two files or two folders: OLD NEW.
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Compare the tree at git revision REV with the working tree (PATHs limit it).
    #[arg(long, value_name = "REV")]
    pub(crate) rev: Option<String>,

    /// Print the readable behaviour summary of one cassette (for a git diff driver).
    #[arg(long, value_name = "FILE", conflicts_with = "rev")]
    pub(crate) textconv: Option<PathBuf>,

    /// Add the unified diff of the canonical forms.
    #[arg(long)]
    pub(crate) full: bool,

    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: Format,
}

pub(crate) fn run(_cx: &Context, _args: &Args) -> Result<Outcome> {
    bail!("vcr diff is being written")
}
