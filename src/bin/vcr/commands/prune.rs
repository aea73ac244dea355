//! `vcr prune`.

use std::path::PathBuf;

use anyhow::{Result, bail};

use super::Outcome;
use crate::cli::Format;
use crate::context::Context;

/// List (or delete) the cassettes no test reads any more, from the usage of a complete,
/// green run.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Usage logs of test runs (repeatable; CI shards and other OSes are combined).
    #[arg(long, value_name = "FILE")]
    pub(crate) usage_log: Vec<PathBuf>,

    /// Delete the orphans (default: list them).
    #[arg(long)]
    pub(crate) delete: bool,

    /// Also delete orphans git does not track (git cannot bring them back).
    #[arg(long)]
    pub(crate) include_untracked: bool,

    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: Format,

    /// A test command to run for the usage, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub(crate) command: Vec<String>,
}

pub(crate) fn run(_cx: &Context, _args: &Args) -> Result<Outcome> {
    bail!("vcr prune is being written")
}
