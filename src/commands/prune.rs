//! `vcr prune`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use vcr_ops::event::Event;
use vcr_ops::prune::Orphan;
use vcr_ops::usage::Usage;

use super::{Outcome, count, size, test_run};
use crate::cli::Format;
use crate::context::Context;

/// List (or delete) the cassettes no test reads any more, from the usage of a complete,
/// green run.
///
/// The usage comes from logs (`--usage-log`, one line per cassette lookup: a path or
/// `{"path": ..., "event": "hit" | "miss" | "write"}`), from a test command run after `--`
/// (run in the current folder, with `VCR_USAGE_LOG` set to a fresh log, its output scanned
/// for missing-fixture messages and, on Linux, the tree watched for file opens), or both.
/// Given PATHs (a suite's folder in a monorepo), only their cassettes are judged; a run
/// that read the cassettes of one folder only says so before it lists orphans elsewhere.
/// HTTP cassettes are judged per recorder format: only formats the sources read a cassette of. Nothing is
/// listed or deleted (exit 2) when the command failed or was interrupted, a lookup missed
/// (the seeds' and the HTTP recorders' missing-cassette messages), or the sources name no
/// cassette of the tree. Exit codes: 0 done (whatever the dry run lists),
/// 2 refused or could not run.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Judge only the cassettes under these folders or of these files (default: the tree).
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

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

/// What `prune` reports in its JSON summary.
#[derive(Debug, serde::Serialize)]
struct Summary<'a> {
    cassettes: usize,
    used: usize,
    orphans: usize,
    bytes: u64,
    untracked: usize,
    deleted: usize,
    /// HTTP cassettes of a recorder format the run read none of: never orphans.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_judged: Vec<NotJudgedSummary<'a>>,
    /// The run read the cassettes of this folder only, and orphans lie outside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_run: Option<vcr_ops::prune::PartialRun>,
}

/// One recorder format `prune` did not judge.
#[derive(Debug, serde::Serialize)]
struct NotJudgedSummary<'a> {
    format: &'static str,
    cassettes: usize,
    reason: &'static str,
    paths: &'a [String],
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    if args.usage_log.is_empty() && args.command.is_empty() {
        bail!(
            "nothing to prune from: give --usage-log FILE (repeatable), or a test command after `--`"
        );
    }
    let _lock = if args.delete {
        Some(cx.begin_mutation()?)
    } else {
        None
    };
    cx.announce()?;
    if !args.delete {
        cx.check_interrupted()?;
    }
    let selection = cx.select(&args.paths)?;
    if args.delete {
        cx.remove_stray_temps(&selection)?;
    }
    // What each file holds before the run: a file saved while the tests run is not deleted.
    let read = args.delete.then(|| vcr_ops::prune::read(&selection));
    let mut usage = Usage::default();
    for log in &args.usage_log {
        usage.read_log(
            &cx.working_dir.join(log),
            cx.project.root(),
            cx.project.root(),
        )?;
    }
    let run = match args.command.is_empty() {
        true => None,
        false => Some(test_run::run(
            cx,
            &args.command,
            &[],
            &test_run::folders(&selection),
            args.format == Format::Json,
            &mut usage,
        )?),
    };
    let tracked = vcr_project::git::tracked(cx.project.root())?;
    let plan = vcr_ops::prune::plan(&selection, &usage, tracked.as_ref());
    if let Some(refusal) = vcr_ops::prune::refusal(&plan, &usage, run.as_ref(), cx.project.root()) {
        bail!(refusal);
    }
    let (deletable, untracked): (Vec<&Orphan>, Vec<&Orphan>) = plan
        .orphans
        .iter()
        .partition(|o| o.tracked || args.include_untracked);
    let applied = match &read {
        Some(read) => vcr_ops::prune::delete(&cx.store, &deletable, read)?,
        None => Default::default(),
    };
    let partial = vcr_ops::prune::partial_run(&plan, &usage);
    if let Some(partial) = &partial {
        cx.reporter.err(&format!(
            "note: the run read cassettes under `{folder}/` only; {outside} listed below {lie} outside it, where it may not have run a test (`vcr prune {folder} ...` judges that folder alone)",
            folder = partial.folder,
            outside = count(partial.outside, "orphan"),
            lie = if partial.outside == 1 { "lies" } else { "lie" },
        ));
    }
    let kept = |orphan: &Orphan| orphan.files.iter().any(|f| applied.skipped(f).is_some());
    for skipped in &applied.skipped {
        cx.report().report(&Event::Changed {
            path: &cx.project.rel(&skipped.path),
            action: "deleted",
        });
    }
    // Untracked orphans come last, apart: git cannot bring them back.
    for orphan in deletable.iter().chain(&untracked) {
        cx.report().report(&Event::Orphan {
            path: &orphan.path,
            files: orphan.files.len(),
            bytes: orphan.bytes,
            tracked: orphan.tracked,
            deleted: args.delete && (orphan.tracked || args.include_untracked) && !kept(orphan),
        });
    }
    let deleted: Vec<&Orphan> = deletable.iter().copied().filter(|o| !kept(o)).collect();
    let bytes = |list: &[&Orphan]| list.iter().map(|o| o.bytes).sum::<u64>();
    let summary = Summary {
        cassettes: plan.cassettes,
        used: plan.used,
        orphans: plan.orphans.len(),
        bytes: bytes(&deletable) + bytes(&untracked),
        untracked: plan.orphans.iter().filter(|o| !o.tracked).count(),
        deleted: if args.delete { deleted.len() } else { 0 },
        not_judged: plan
            .not_judged
            .iter()
            .map(|n| NotJudgedSummary {
                format: n.format_name(),
                cassettes: n.cassettes.len(),
                reason: n.reason(),
                paths: &n.cassettes,
            })
            .collect(),
        partial_run: partial,
    };
    let mut line = if args.delete {
        format!(
            "deleted {} ({}); {} of {} read by the run",
            count(deleted.len(), "orphan"),
            size(bytes(&deleted)),
            plan.used,
            count(plan.cassettes, "cassette")
        )
    } else if plan.orphans.is_empty() {
        format!(
            "no orphans: the run read all {}",
            count(plan.cassettes, "cassette")
        )
    } else {
        format!(
            "{} ({}) of {} no test read; `{}` removes them",
            count(plan.orphans.len(), "orphan"),
            size(summary.bytes),
            count(plan.cassettes, "cassette"),
            delete_command(args)
        )
    };
    if !untracked.is_empty() {
        let verb = if args.delete {
            "kept"
        } else {
            "not deleted by --delete"
        };
        let why = if tracked.is_some() {
            "not tracked by git"
        } else {
            "outside a git repository"
        };
        line.push_str(&format!(
            "; {} {why}, {verb} (nothing could bring them back; --include-untracked deletes them too)",
            count(untracked.len(), "orphan"),
        ));
    }
    for not_judged in &plan.not_judged {
        line.push_str(&format!("; {}", not_judged.describe()));
    }
    cx.reporter.finish("prune", &summary, &line);
    Ok(Outcome::Clean)
}

/// The command that deletes what this dry run listed: the same paths, usage logs and test
/// command, with `--delete` (alone it has no usage to judge by, and exits 2). Words are
/// quoted for a POSIX shell where they need it.
fn delete_command(args: &Args) -> String {
    let mut words = vec!["vcr".to_owned(), "prune".to_owned(), "--delete".to_owned()];
    words.extend(args.paths.iter().map(|p| shell_word(&p.to_string_lossy())));
    for log in &args.usage_log {
        words.push("--usage-log".to_owned());
        words.push(shell_word(&log.to_string_lossy()));
    }
    if !args.command.is_empty() {
        words.push("--".to_owned());
        words.extend(args.command.iter().map(|w| shell_word(w)));
    }
    words.join(" ")
}

/// `word` as a POSIX shell reads it back: as it is when it holds nothing the shell would
/// change, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words_read_back_as_given() {
        assert_eq!(shell_word("tests/api"), "tests/api");
        assert_eq!(shell_word("--record-mode=none"), "--record-mode=none");
        assert_eq!(shell_word("it's here"), "'it'\\''s here'");
        assert_eq!(shell_word(""), "''");
    }
}
