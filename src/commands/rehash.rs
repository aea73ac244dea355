//! `vcr rehash`.

use std::path::PathBuf;

use anyhow::Result;

use super::{Outcome, count};
use crate::cli::Format;
use crate::context::Context;

/// Re-key content-addressed cassettes under the current rules, without re-recording.
///
/// The key rules are applied to each cassette's key material, its name is computed as the
/// harness computes it, and it is renamed. The plan is validated first: cassettes that would
/// share a name are a collision and nothing is renamed; identical twins are merged. An
/// interrupted rehash is completed by the next run of any mutating command.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Cassettes or folders to re-key [default: the whole configured tree].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Show the plan; change nothing.
    #[arg(long, short = 'n')]
    pub(crate) dry_run: bool,

    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: Format,

    /// Succeed when no cassette is found (by default an empty tree is an error).
    #[arg(long)]
    pub(crate) allow_empty: bool,
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    let _lock = if args.dry_run {
        None
    } else {
        Some(cx.begin_mutation()?)
    };
    cx.announce()?;
    if args.dry_run {
        // Read-only: an interrupted run is reported, not finished (and may be why the tree
        // looks empty).
        cx.check_interrupted()?;
    }
    let selection = cx.select_checked(&args.paths, args.allow_empty)?;
    if !args.dry_run {
        cx.remove_stray_temps(&selection)?;
    }
    let options = vcr_ops::rehash::Options {
        dry_run: args.dry_run,
    };
    let summary = vcr_ops::rehash::run(&selection, &cx.store, options, cx.report(), cx.progress())?;
    let blocked = summary.collisions + summary.too_long > 0;
    let line = if blocked {
        "nothing renamed: fix the problems above first".to_owned()
    } else {
        let verb = if args.dry_run {
            "would be renamed"
        } else {
            "renamed"
        };
        let mut line = format!(
            "{} of {} {verb}",
            summary.renamed,
            count(summary.files, "cassette")
        );
        if summary.merged > 0 {
            line.push_str(&format!(
                ", {} merged",
                count(summary.merged, "identical twin")
            ));
        }
        if summary.rewritten > 0 {
            line.push_str(&format!(", {} re-keyed in place", summary.rewritten));
        }
        if summary.errors > 0 {
            line.push_str(&format!(", {}", count(summary.errors, "unreadable file")));
        }
        line.push_str(&not_hashed(&selection));
        line
    };
    cx.reporter.finish("rehash", &summary, &line);
    Ok(Outcome::Clean)
}

/// The cassettes `rehash` leaves as they are because no hash names them, said after the
/// count: without it, an HTTP-only tree's `0 of 0 cassettes renamed` reads as a failure to
/// find them.
fn not_hashed(selection: &vcr_project::tree::Selection) -> String {
    use vcr_project::tree::CassetteKind;
    let (mut http, mut other) = (0, 0);
    for cassette in &selection.cassettes {
        match cassette.kind {
            CassetteKind::Http => http += 1,
            // A token-count fixture is Claude Code's, said apart with `-v`.
            CassetteKind::ClaudeCodeTokenCount => {}
            kind if !kind.is_content_addressed() => other += 1,
            _ => {}
        }
    }
    let mut words = String::new();
    if http > 0 {
        words.push_str(&format!(
            "; {} left as {} (named by {} tests, not by a hash of {} content)",
            count(http, "HTTP cassette"),
            if http == 1 { "it is" } else { "they are" },
            if http == 1 { "its" } else { "their" },
            if http == 1 { "its" } else { "their" },
        ));
    }
    if other > 0 {
        words.push_str(&format!(
            "; {} not named by a hash of {} content, left as {}",
            count(
                other,
                if http > 0 {
                    "other cassette"
                } else {
                    "cassette"
                }
            ),
            if other == 1 { "its" } else { "their" },
            if other == 1 { "it is" } else { "they are" },
        ));
    }
    words
}
