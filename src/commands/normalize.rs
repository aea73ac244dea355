//! `vcr normalize`.

use std::path::PathBuf;

use anyhow::Result;

use super::{Outcome, count};
use crate::cli::Format;
use crate::context::Context;

/// Bring cassettes to the exact bytes their harness's writer produces: dehydration rules
/// applied to the fields the harness dehydrates, deterministic ids, canonical formatting.
///
/// HTTP cassettes (vcrpy, Ruby VCR, go-vcr, HAR, httprr, nock, talkback) are scrubbed in
/// place instead: every value `vcr verify` reports as `leak/secret`, and what `[http.scrub]`
/// names, is replaced by a placeholder (`REDACTED_<NAME>`), rewriting only the scalars that
/// change; a replaced value the recorder matches requests by is reported with the recorder
/// setting that makes replay match again.
///
/// Names are not changed (see `vcr rehash`), but names that went stale are reported.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Cassettes or folders to normalize [default: the whole configured tree].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Write nothing; exit 1 if any cassette would change.
    #[arg(long)]
    pub(crate) check: bool,

    /// Print the unified diff of each change.
    #[arg(long)]
    pub(crate) diff: bool,

    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: Format,

    /// Succeed when no cassette is found (by default an empty tree is an error).
    #[arg(long)]
    pub(crate) allow_empty: bool,
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    let _lock = if args.check {
        None
    } else {
        Some(cx.begin_mutation()?)
    };
    cx.announce()?;
    if args.check {
        // Read-only: an interrupted run is reported, not finished (and may be why the tree
        // looks empty).
        cx.check_interrupted()?;
    }
    let selection = cx.select_checked(&args.paths, args.allow_empty)?;
    if !args.check {
        cx.remove_stray_temps(&selection)?;
    }
    let options = vcr_ops::normalize::Options {
        check: args.check,
        diff: args.diff,
    };
    let scrub = Scrub::new(cx)?;
    let summary = vcr_ops::normalize::run(
        &selection,
        &cx.store,
        options,
        Some(&scrub.http()),
        cx.report(),
        cx.progress(),
    );
    let mut line = if args.check {
        format!(
            "{} of {} would change",
            summary.changed,
            count(summary.files, "cassette")
        )
    } else {
        format!(
            "{} of {} normalized",
            summary.written,
            count(summary.files, "cassette")
        )
    };
    if summary.replaced > 0 {
        let verb = if args.check {
            "would replace"
        } else {
            "replaced"
        };
        line.push_str(&format!(", {verb} {}", count(summary.replaced, "value")));
    }
    if summary.replay_affected > 0 {
        line.push_str(&format!(
            ", {} the recorder matches by",
            count(summary.replay_affected, "value")
        ));
    }
    if summary.stale > 0 {
        line.push_str(&format!(
            ", {} (run `vcr rehash`)",
            count(summary.stale, "stale name")
        ));
    }
    if summary.errors > 0 {
        line.push_str(&format!(", {}", count(summary.errors, "unreadable file")));
    }
    cx.reporter.finish("normalize", &summary, &line);
    Ok(if args.check && summary.changed > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// What scrubbing HTTP cassettes needs, built once from the project: `normalize` and
/// `record` scrub with the same rules, so what `record` keeps passes `normalize --check`.
pub(super) struct Scrub {
    checks: vcr_ops::verify::Checks,
    rules: vcr_ops::scrub::Rules,
    user_rules: vcr_cassette::rules::RuleSet,
}

impl Scrub {
    /// `verify`'s checks, `[http.scrub]` and the user's `[[rule]]`s; a bad `[http.scrub]` is
    /// an error naming the configuration file.
    pub(super) fn new(cx: &Context) -> Result<Scrub> {
        let checks = vcr_ops::verify::Checks::new(&cx.project, &cx.machine_paths())?;
        let rules = vcr_ops::scrub::Rules::new(cx.project.config().http.scrub.as_ref()).map_err(
            |message| vcr_project::config::ConfigError::Http {
                path: cx.project.config_path().map(ToOwned::to_owned),
                message,
            },
        )?;
        let user_rules = cx.project.user_rules()?;
        Ok(Scrub {
            checks,
            rules,
            user_rules,
        })
    }

    /// The scrub as `normalize::run` takes it.
    pub(super) fn http(&self) -> vcr_ops::normalize::HttpScrub<'_> {
        vcr_ops::normalize::HttpScrub {
            checks: &self.checks,
            rules: &self.rules,
            user_rules: Some(&self.user_rules),
        }
    }
}
