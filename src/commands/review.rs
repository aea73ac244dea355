//! `vcr review`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use console::{Key, Term};
use vcr_diff::Options;
use vcr_lint::Scanner;
use vcr_ops::event::Event;
use vcr_ops::review::{Decisions, Item, Plan};

use super::{Outcome, count};
use crate::cli::{Format, Output};
use crate::context::Context;

/// Walk the cassettes a re-recording changed, one at a time, and keep or reject each: after
/// `vcr record`, what `cargo insta review` is for snapshots.
///
/// Each cassette that differs from git's HEAD (or --rev) is shown with its verdict (behaviour
/// change, reworded, same behaviour) and the lines that say what changed, then a key decides
/// it: a (accept: keep the new recording), r (reject: put back the bytes the revision has,
/// through the journal, so an interrupted review is completed by the next vcr command), s
/// (skip: decide later), d (the full diff of the two recordings, secrets masked), q (quit:
/// what was decided stays decided, the rest is left as it is).
///
/// --accept-same-behaviour keeps every cassette whose verdict is not a behaviour change
/// without asking (a cassette added or removed is still asked about). Without a terminal
/// nothing is asked. Exit codes: 0 every changed cassette decided, 1 some left undecided, 2
/// error.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Cassettes or folders to review [default: the project root].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// The git revision to compare with, whose bytes a rejection puts back.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub(crate) rev: String,

    /// Accept every cassette whose verdict is not a behaviour change, without asking.
    #[arg(long)]
    pub(crate) accept_same_behaviour: bool,

    /// Output format (`json` never asks).
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: Format,
}

/// What a key asked for.
enum Choice {
    Accept,
    Reject,
    Skip,
    Quit,
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    if args.rev.contains("..") {
        bail!(
            "`vcr review` compares one revision with the working tree, whose cassettes it keeps or puts back; `{}` is a range (`vcr diff --rev {}` compares two trees)",
            args.rev,
            args.rev
        );
    }
    let _lock = cx.begin_mutation()?;
    // What a killed run staged beside the cassettes and never placed goes first.
    let selection = cx.select(&args.paths)?;
    cx.remove_stray_temps(&selection)?;
    drop(selection);
    let masker = Scanner::new(&[]);
    let mut options = Options {
        full: false,
        fixture_dirs: Vec::new(),
        extensionless_dirs: Vec::new(),
        read: cx.project.read_options(),
    };
    let (old, new) = super::diff::revision_sides(cx, &args.rev, &args.paths, &mut options)?;
    let plan = vcr_ops::review::plan(
        cx.project.root(),
        &old,
        &new,
        &options,
        &masker,
        cx.progress(),
    );
    for (path, problem) in &plan.problems {
        vcr_ops::event::report_problem(cx.report(), path, problem);
    }
    let term = Term::stdout();
    let ask = cx.reporter.output() == Output::Human && term.is_term();
    let mut decisions = Decisions {
        changed: plan.items.len(),
        errors: plan.problems.len(),
        ..Decisions::default()
    };
    let mut quit = false;
    for (i, item) in plan.items.iter().enumerate() {
        let path = item.entry.path.as_str();
        let unasked = args.accept_same_behaviour && item.same_behaviour();
        if !unasked {
            cx.report().report(&Event::Diff(&item.entry));
        }
        let choice = if unasked {
            Choice::Accept
        } else if quit || !ask {
            Choice::Skip
        } else {
            let choice = ask_for(cx, &term, &plan, item, i, &old, &new, &options, &masker)?;
            if matches!(choice, Choice::Quit) {
                quit = true;
                Choice::Skip
            } else {
                choice
            }
        };
        match choice {
            Choice::Accept => {
                decisions.accepted += 1;
                reviewed(cx, path, "accepted", unasked, None);
            }
            Choice::Reject => {
                let done = vcr_ops::review::reject(&cx.store, item)?;
                decisions.rejected += 1;
                reviewed(cx, path, "rejected", false, Some(&done));
            }
            Choice::Skip | Choice::Quit => {
                decisions.skipped += 1;
                reviewed(cx, path, "skipped", false, None);
            }
        }
    }
    cx.reporter.finish(
        "review",
        &decisions,
        &summary_line(&decisions, &args.rev, ask),
    );
    Ok(if decisions.skipped > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Asks what to do with `item` until a key decides it (`d` shows its full diff, then asks
/// again).
#[allow(clippy::too_many_arguments)]
fn ask_for(
    cx: &Context,
    term: &Term,
    plan: &Plan,
    item: &Item,
    i: usize,
    old: &vcr_diff::Snapshot,
    new: &vcr_diff::Snapshot,
    options: &Options,
    masker: &Scanner,
) -> Result<Choice> {
    let prompt = format!(
        "[{}/{}] a accept, r reject (restore the old bytes), s skip, d diff, q quit: ",
        i + 1,
        plan.items.len()
    );
    loop {
        term.write_str(&prompt)?;
        let key = term.read_key()?;
        term.write_line("")?;
        match key {
            Key::Char('a') => return Ok(Choice::Accept),
            Key::Char('r') => return Ok(Choice::Reject),
            Key::Char('s') => return Ok(Choice::Skip),
            Key::Char('q') | Key::Escape | Key::CtrlC => return Ok(Choice::Quit),
            Key::Char('d') => {
                let diff = vcr_ops::review::full_diff(item, old, new, options, masker);
                if diff.is_empty() {
                    cx.reporter.out("(the canonical forms are equal)");
                } else {
                    cx.reporter.out(diff.trim_end_matches('\n'));
                }
            }
            _ => {}
        }
    }
}

/// Reports a decision.
fn reviewed(
    cx: &Context,
    path: &str,
    decision: &str,
    unasked: bool,
    done: Option<&vcr_ops::review::Rejected>,
) {
    let none: &[String] = &[];
    cx.report().report(&Event::Reviewed {
        path,
        decision,
        unasked,
        restored: done.map_or(none, |d| &d.restored),
        removed: done.map_or(none, |d| &d.removed),
        changed: done.map_or(none, |d| &d.changed),
    });
}

fn summary_line(d: &Decisions, rev: &str, asked: bool) -> String {
    if d.changed == 0 && d.errors == 0 {
        return format!("nothing to review: no cassette differs from {rev}");
    }
    let mut parts = vec![
        format!("{} accepted", d.accepted),
        format!("{} rejected", d.rejected),
    ];
    if d.skipped > 0 {
        parts.push(format!("{} left undecided", d.skipped));
    }
    if d.errors > 0 {
        parts.push(count(d.errors, "unreadable cassette"));
    }
    let mut line = format!(
        "{} changed since {rev}: {}",
        count(d.changed, "cassette"),
        parts.join(", ")
    );
    if d.skipped > 0 && !asked {
        line.push_str(" (vcr review asks on a terminal)");
    }
    line
}
