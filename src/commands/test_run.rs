//! Running the user's test command for `record` and `prune`: a fresh usage log, the
//! output passed through, and every usage source combined. Shared by the two commands, so
//! they see a run the same way.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use vcr_ops::exec::{self, Finished, Spec, Watch};
use vcr_ops::usage::{Usage, UsageEvent};
use vcr_project::tree::Selection;

use crate::context::Context;
use crate::report::Verbosity;

/// The variable that names the usage log a harness appends to.
pub(crate) const USAGE_LOG_ENV: &str = "VCR_USAGE_LOG";

/// Runs `argv` in the current folder (where the user would have run it, `-C` honoured; in a
/// monorepo, one suite's folder) with `env` added and a fresh usage log, watching `watch`;
/// adds everything the run said to `usage`, relative paths taken from that folder. With
/// `json` output the command's stdout goes to stderr too, so vcr's stdout stays one JSON
/// document.
pub(crate) fn run(
    cx: &Context,
    argv: &[String],
    env: &[(String, String)],
    watch: &[PathBuf],
    json: bool,
    usage: &mut Usage,
) -> Result<Finished> {
    let log = tempfile::Builder::new()
        .prefix("vcr-usage-")
        .suffix(".log")
        .tempfile()
        .context("cannot create the usage log")?;
    let mut env = env.to_vec();
    env.push((
        USAGE_LOG_ENV.to_owned(),
        log.path().to_string_lossy().into_owned(),
    ));
    let root = cx.project.root();
    let dir = std::fs::canonicalize(&cx.working_dir).unwrap_or_else(|_| root.to_owned());
    if cx.reporter.verbosity() >= Verbosity::Verbose {
        // Values are masked: `[record] env` may hold a token, and -v output lands in CI logs.
        let masker = vcr_lint::Scanner::new(&[]);
        let vars: Vec<String> = env
            .iter()
            .map(|(k, v)| masker.mask(&format!("{k}={v}")))
            .collect();
        cx.reporter.err(&format!(
            "running `{}` with {}",
            argv.join(" "),
            vars.join(" ")
        ));
    }
    let spec = Spec {
        argv,
        dir: &dir,
        env: &env,
        watch,
    };
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    let mut stderr2 = std::io::stderr();
    let out: &mut (dyn std::io::Write + Send) = if json { &mut stderr2 } else { &mut stdout };
    let finished = exec::run(spec, out, &mut stderr)?;
    if log.path().exists() {
        usage.read_log(log.path(), &dir, root)?;
    }
    for path in &finished.opened {
        usage.add(&dir, root, &path.to_string_lossy(), UsageEvent::Hit);
    }
    for path in &finished.missing {
        usage.add(&dir, root, path, UsageEvent::Miss);
    }
    for line in &finished.unnamed_misses {
        usage.add_unnamed_miss(line);
    }
    if finished.watch == Watch::Unavailable {
        cx.reporter.err(
            "note: file opens can only be watched on Linux; only the usage log and the output were used",
        );
    }
    Ok(finished)
}

/// The folders to watch for opens: every folder holding a cassette of `selection`.
pub(crate) fn folders(selection: &Selection) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = selection
        .cassettes
        .iter()
        .filter_map(|c| c.path.parent().map(PathBuf::from))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}
