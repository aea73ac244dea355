//! `vcr record`.

use std::collections::BTreeSet;
use std::time::SystemTime;

use anyhow::{Result, anyhow, bail};
use vcr_ops::event::{Event, NoProgress, Report};
use vcr_ops::exec::Finished;
use vcr_ops::record::{Change, How, HttpRecording, Siblings, Snapshot};
use vcr_ops::usage::Usage;
use vcr_ops::verify::{Checks, Options};
use vcr_project::store::stash::{Replaced, Unstashed};

use super::normalize::Scrub;
use super::{Outcome, count, test_run};
use crate::cli::Format;
use crate::context::Context;
use crate::report::Verbosity;

/// Run the test suite in record mode and keep only what a green run recorded.
///
/// The command runs in the current folder with the record environment (`VCR_RECORD=1` for
/// Claude Code trees, `DSH_SNAPSHOT=record` for dsh, or `[record] env` in vcr.toml) and
/// `VCR_USAGE_LOG`. HTTP recorders are put in record mode where they can be from outside the
/// test code (pytest-recording's `--record-mode=once`, pytest-vcr's `--vcr-record=once`,
/// `NOCK_BACK_MODE=record`); where they cannot and their default only replays (httprr,
/// Playwright), vcr says what to pass, and a run that recorded nothing is an error. With
/// `--only`, the matching cassettes are first moved aside under `.vcr/stash/` so the harness
/// records them again; if the command fails or is interrupted
/// (SIGINT and SIGTERM are passed on to it), or vcr is killed, they are put back (by this
/// run, or by the next mutating one). After a green run the new and changed cassettes are
/// normalized (HTTP cassettes scrubbed as `vcr normalize` scrubs them), re-keyed and
/// verified; after a failed run, the HTTP cassettes it wrote are scrubbed and nothing else
/// is changed. Exit codes: the command's own if it failed, else 1 if what was recorded has
/// error findings, else 0 (2: vcr could not run or refused).
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

/// What `record` reports in its JSON summary.
#[derive(Debug, Default, serde::Serialize)]
struct Summary {
    /// The test command's exit code.
    exit_code: u8,
    #[serde(flatten)]
    changes: vcr_ops::record::Summary,
    /// Findings in what was recorded.
    errors: usize,
    warnings: usize,
    /// Values scrubbed from the HTTP cassettes the run added or changed (a failed run's too:
    /// only scrubbed, otherwise left as it wrote them).
    scrubbed: usize,
    /// Scrubbed values the recorder matches requests by (each reported with the setting that
    /// makes replay match again).
    replay_affected: usize,
    /// Other files beside the cassettes that a green run added, changed or removed.
    touched: usize,
    /// Files a failed run added, changed or removed, left as it left them.
    left_behind: usize,
    /// The tree's HTTP recorders and how each was put in record mode.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    recorders: Vec<vcr_ops::record::RecorderMode>,
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    let _lock = cx.begin_mutation()?;
    cx.announce()?;
    let selection = cx.select(&[])?;
    cx.remove_stray_temps(&selection)?;
    let before = Snapshot::take(&selection);
    let siblings = Siblings::take(&selection);
    // The recorders see the variables the project sets for recording; vcr's own defaults
    // depend on whether the project records only HTTP.
    let configured: Vec<(String, String)> = cx
        .project
        .config()
        .record
        .env
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let http = http_recording(cx, &selection, &args.command, &configured);
    let mut env = vcr_ops::record::record_env(&selection, cx.project.config(), &http);
    for (key, value) in &http.env {
        if !env.iter().any(|(k, _)| k == key) {
            env.push((key.clone(), value.clone()));
        }
    }
    let mut command = args.command.clone();
    command.extend(http.args.iter().cloned());
    let chosen =
        vcr_ops::record::matching(&selection, &args.only).map_err(|e| anyhow!("--only: {e}"))?;
    if !args.only.is_empty() && chosen.is_empty() {
        bail!(
            "--only {}: no cassette matches (globs are relative to the project root, e.g. 'fixtures/a1f2*')",
            args.only.join(" ")
        );
    }
    // Each cassette is moved aside only if it still holds what the snapshot read.
    let mut read = Vec::with_capacity(chosen.len());
    for cassette in &chosen {
        let hash = before
            .hash(&cassette.rel)
            .ok_or_else(|| anyhow!("cannot read {}", cassette.rel))?;
        read.push((cassette.path.clone(), hash));
    }
    let json = args.format == Format::Json;
    let result = cx
        .store
        .stash(&read)
        .map_err(anyhow::Error::from)
        .and_then(|applied| {
            if !applied.skipped.is_empty() {
                for skipped in &applied.skipped {
                    cx.report().report(&Event::Changed {
                        path: &cx.project.rel(&skipped.path),
                        action: "moved aside",
                    });
                }
                bail!("nothing was recorded: a cassette to record again changed while vcr moved it aside; run again");
            }
            for cassette in &chosen {
                cx.report().report(&Event::Stashed {
                    path: &cassette.rel,
                });
            }
            let run = Run {
                before: &before,
                siblings: &siblings,
                started: SystemTime::now(),
                http: &http,
            };
            match test_run::run(cx, &command, &env, &[], json, &mut Usage::default())? {
                finished if finished.succeeded() => keep(cx, &run),
                finished => put_back(cx, &run, &finished),
            }
        });
    // Any way out ends the stash: on an error, whatever is still aside goes back now.
    if result.is_err() && cx.store.has_stash() {
        let done = cx.store.unstash(Replaced::Keep)?;
        cx.report_unstashed(done.as_deref().unwrap_or_default());
    }
    result
}

/// The tree as it was before the test command ran.
struct Run<'a> {
    before: &'a Snapshot,
    siblings: &'a Siblings,
    /// When the command started: files in folders new to the tree count as written by the
    /// run from then on.
    started: SystemTime,
    /// How the tree's HTTP recorders were put in record mode.
    http: &'a HttpRecording,
}

impl Run<'_> {
    /// The other files of the cassettes' folders that the run added, changed or removed.
    fn touched(&self, after: &vcr_project::tree::Selection) -> Vec<(String, Change)> {
        Siblings::take_again(self.siblings, after).changes(self.siblings, self.started)
    }
}

/// The failure path: every cassette moved aside goes back, what the run wrote is listed as
/// it left it, and the command's code is passed on.
fn put_back(cx: &Context, run: &Run<'_>, finished: &Finished) -> Result<Outcome> {
    cx.reporter.err(&format!(
        "the test command {}; nothing recorded was normalized (HTTP cassettes are only scrubbed), cassettes moved aside are put back",
        finished.describe()
    ));
    // A recorder that replays only fails on the cassette it does not find: where its mode is
    // the test code's, say where to set it (said with `-v` only before the run).
    for recorder in &run.http.recorders {
        if let How::InCode(how) = &recorder.how {
            cx.reporter.err(&format!(
                "note: if {} did not record a missing cassette, set its record mode: {how}",
                recorder.recorder
            ));
        }
    }
    let done = cx.store.unstash(Replaced::Keep)?;
    cx.report_unstashed(done.as_deref().unwrap_or_default());
    // What the run left in the tree: new or rewritten cassettes in the harness's raw form
    // (a half-written one when it was killed mid-write), expected outputs, sidecars.
    let mut left = Vec::new();
    if let Ok(after) = cx.project.select(&[], &cx.working_dir) {
        let (changes, _) =
            vcr_ops::record::compare(run.before, &Snapshot::take(&after), &BTreeSet::new());
        left.extend(
            changes
                .into_iter()
                .filter(|(_, change)| *change != Change::Unchanged)
                .map(|(path, change)| (path, change, true)),
        );
        left.extend(
            run.touched(&after)
                .into_iter()
                .map(|(path, change)| (path, change, false)),
        );
    }
    left.sort();
    let scrubbed = scrub_left_behind(cx, &left)?;
    for (path, change, cassette) in &left {
        cx.report().report(&Event::LeftBehind {
            path,
            change: *change,
            cassette: *cassette,
        });
    }
    let summary = Summary {
        exit_code: finished.exit_code(),
        left_behind: left.len(),
        scrubbed: scrubbed.replaced,
        replay_affected: scrubbed.replay_affected,
        ..Summary::default()
    };
    let mut line = format!("not recorded: the test command {}", finished.describe());
    if !left.is_empty() {
        line.push_str(&format!(
            "; {} left as the run wrote {}",
            count(left.len(), "file"),
            if left.len() == 1 { "it" } else { "them" }
        ));
        if scrubbed.replaced > 0 {
            line.push_str(&format!(
                ", but for {} scrubbed",
                count(scrubbed.replaced, "value")
            ));
        }
    }
    cx.reporter.finish("record", &summary, &line);
    Ok(Outcome::Exit(finished.exit_code()))
}

/// Scrubs the HTTP cassettes a failed run added or changed, and nothing else of them: the
/// rest of what it left stays as it wrote it, for the user to look at, but a key its recorder
/// did not filter does not wait on disk for the next commit. A cassette cut short by a kill
/// does not read, so it is reported and left as it is.
fn scrub_left_behind(
    cx: &Context,
    left: &[(String, Change, bool)],
) -> Result<vcr_ops::normalize::Summary> {
    let written: Vec<std::path::PathBuf> = left
        .iter()
        .filter(|(_, change, cassette)| {
            *cassette && matches!(change, Change::Added | Change::Changed)
        })
        .map(|(path, _, _)| cx.project.root().join(path))
        .collect();
    if written.is_empty() {
        return Ok(Default::default());
    }
    let mut selection = cx.project.select(&written, &cx.working_dir)?;
    selection
        .cassettes
        .retain(|c| c.kind == vcr_project::tree::CassetteKind::Http);
    if selection.cassettes.is_empty() {
        return Ok(Default::default());
    }
    let scrub = Scrub::new(cx)?;
    Ok(vcr_ops::normalize::run(
        &selection,
        &cx.store,
        Default::default(),
        Some(&scrub.http()),
        &NoStaleNames(cx.report()),
        &NoProgress,
    ))
}

/// The success path: normalize and re-key what the run wrote, end the stash, report what
/// changed (the other files beside the cassettes too), verify it.
fn keep(cx: &Context, run: &Run<'_>) -> Result<Outcome> {
    let before = run.before;
    let written = Snapshot::take(&cx.project.select(&[], &cx.working_dir)?).changed_since(before);
    let mut normalized = vcr_ops::normalize::Summary::default();
    if !written.is_empty() {
        let selection = cx.project.select(&written, &cx.working_dir)?;
        let report = NoStaleNames(cx.report());
        // HTTP cassettes are scrubbed as `normalize` scrubs them: a recorder's filter that
        // missed a key must not leave it on disk for the next commit.
        let scrub = Scrub::new(cx)?;
        normalized = vcr_ops::normalize::run(
            &selection,
            &cx.store,
            Default::default(),
            Some(&scrub.http()),
            &report,
            &NoProgress,
        );
        // normalize renames nothing: the same selection serves rehash.
        let mut keyed = selection;
        keyed.cassettes.retain(|c| c.kind.is_content_addressed());
        vcr_ops::rehash::run(&keyed, &cx.store, Default::default(), &report, &NoProgress)?;
    }
    // Only now do the stashed cassettes come back: a re-recording the harness wrote under
    // a raw name has taken its real name, so the old copy is not mistaken for a keeper.
    let done = cx.store.unstash(Replaced::Drop)?.unwrap_or_default();
    cx.report_unstashed(&done);
    let kept: BTreeSet<String> = done
        .iter()
        .filter_map(|u| match u {
            Unstashed::Restored { path } => Some(path.clone()),
            _ => None,
        })
        .collect();
    let tree = cx.project.select(&[], &cx.working_dir)?;
    let after = Snapshot::take(&tree);
    let (changes, changed) = vcr_ops::record::compare(before, &after, &kept);
    let mut recorded = Vec::new();
    for (path, change) in &changes {
        cx.report().report(&Event::Recorded {
            path,
            change: *change,
        });
        if matches!(change, Change::Added | Change::Changed) {
            recorded.push(cx.project.root().join(path));
        }
    }
    let touched = run.touched(&tree);
    for (path, change) in &touched {
        cx.report().report(&Event::Touched {
            path,
            change: *change,
        });
    }
    let mut summary = Summary {
        changes: changed,
        touched: touched.len(),
        scrubbed: normalized.replaced,
        replay_affected: normalized.replay_affected,
        recorders: run.http.recorders.clone(),
        ..Summary::default()
    };
    if !recorded.is_empty() {
        let selection = cx.project.select(&recorded, &cx.working_dir)?;
        let checks = Checks::new(&cx.project, &cx.machine_paths())?.for_record();
        let options = Options {
            dsh_cwd: Some(cx.project.dsh_cwd()),
            ..Options::default()
        };
        let mut findings = Vec::new();
        let outcome = vcr_ops::verify::run(&selection, &checks, &options, &NoProgress, &mut |f| {
            findings.extend(f);
        });
        for (path, problem) in &outcome.problems {
            vcr_ops::event::report_problem(cx.report(), path, problem);
        }
        for finding in &findings {
            cx.report().report(&Event::Finding(finding));
        }
        summary.errors = outcome.summary.errors;
        summary.warnings = outcome.summary.warnings;
    }
    // A run that recorded nothing, with a recorder vcr could not switch, could not have.
    let config_env = cx.project.config().record.env.is_some();
    if changed.added + changed.changed + changed.removed == 0 && !config_env {
        let cannot: Vec<String> = run
            .http
            .cannot()
            .map(|r| format!("{}: {}", r.recorder, http_how(&r.how)))
            .collect();
        if !cannot.is_empty() {
            bail!(
                "nothing was recorded, and vcr could not put {} in record mode; {}",
                if cannot.len() == 1 {
                    "this recorder"
                } else {
                    "these recorders"
                },
                cannot.join("; ")
            );
        }
    }
    let line = format!(
        "recorded: {} added, {} changed, {} removed, {} unchanged{}{}{}; {}, {} in what was recorded",
        changed.added,
        changed.changed,
        changed.removed,
        changed.unchanged,
        if changed.kept > 0 {
            format!(", {} not recorded again (put back)", changed.kept)
        } else {
            String::new()
        },
        if touched.is_empty() {
            String::new()
        } else {
            format!("; {} beside them", count(touched.len(), "other file"))
        },
        scrubbed_words(&normalized),
        count(summary.errors, "error"),
        count(summary.warnings, "warning"),
    );
    cx.reporter.finish("record", &summary, &line);
    Ok(if summary.errors > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// What the scrub of the recorded cassettes replaced, for the closing line (nothing when it
/// replaced nothing).
fn scrubbed_words(normalized: &vcr_ops::normalize::Summary) -> String {
    if normalized.replaced == 0 {
        return String::new();
    }
    let mut words = format!("; scrubbed {}", count(normalized.replaced, "value"));
    if normalized.replay_affected > 0 {
        words.push_str(&format!(
            " ({} the recorder matches requests by)",
            count(normalized.replay_affected, "value")
        ));
    }
    words
}

/// How the tree's HTTP recorders are put in record mode, said before the run: what vcr
/// added (always), what it cannot set (a warning), what the test code decides (with `-v`).
fn http_recording(
    cx: &Context,
    selection: &vcr_project::tree::Selection,
    argv: &[String],
    env: &[(String, String)],
) -> HttpRecording {
    let dir = std::fs::canonicalize(&cx.working_dir).unwrap_or_else(|_| cx.working_dir.clone());
    let env_get = |key: &str| {
        env.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(key).ok())
    };
    let http = vcr_ops::record::http_recording(selection, cx.project.root(), &dir, argv, &env_get);
    for recorder in &http.recorders {
        let line = match &recorder.example {
            Some(example) => format!(
                "{} ({} such as `{example}`): {}",
                recorder.recorder,
                count(recorder.cassettes, "cassette"),
                http_how(&recorder.how)
            ),
            None => format!("{}: {}", recorder.recorder, http_how(&recorder.how)),
        };
        match recorder.how {
            How::Cannot(_) => cx.reporter.err(&format!("warning: {line}")),
            How::Set(_) if cx.reporter.verbosity() > Verbosity::Quiet => {
                cx.reporter.err(&format!("note: {line}"));
            }
            How::Given(_) | How::InCode(_) if cx.reporter.verbosity() >= Verbosity::Verbose => {
                cx.reporter.err(&format!("note: {line}"));
            }
            How::Set(_) | How::Given(_) | How::InCode(_) => {}
        }
    }
    http
}

/// A recorder's record mode in words.
fn http_how(how: &How) -> String {
    match how {
        How::Set(what) => what.clone(),
        How::Given(what) => format!("the command sets `{what}` itself"),
        How::InCode(what) => format!("its record mode is in the test code: {what}"),
        How::Cannot(what) => (*what).to_owned(),
    }
}

/// Passes events on, except `normalize`'s stale-name notices: `record` re-keys right after,
/// so "run `vcr rehash`" would be advice already followed.
struct NoStaleNames<'a>(&'a dyn Report);

impl Report for NoStaleNames<'_> {
    fn report(&self, event: &Event<'_>) {
        if !matches!(event, Event::StaleName { .. }) {
            self.0.report(event);
        }
    }
}
