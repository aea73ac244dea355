//! `vcr record`.

use anyhow::{Result, bail};

use super::Outcome;
use crate::cli::Format;
use crate::context::Context;

/// Run the test suite in record mode and keep only what a green run recorded.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Re-record only the cassettes matching these globs (moved aside, restored on failure).
    #[arg(long, value_name = "GLOB")]
    pub(crate) only: Vec<String>,

    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: Format,

    /// The test command, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub(crate) command: Vec<String>,
}

pub(crate) fn run(_cx: &Context, _args: &Args) -> Result<Outcome> {
    bail!("vcr record is being written")
}
