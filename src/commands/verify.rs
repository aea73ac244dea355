//! `vcr verify`.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use vcr_ops::baseline::Baseline;
use vcr_ops::event::Event;
use vcr_ops::usage::Usage;
use vcr_ops::verify::{Checks, Options};

use super::{Outcome, count};
use crate::cli::{Output, VerifyFormat};
use crate::context::Context;
use crate::report::Reporter;

/// Check cassettes: valid, normalized, correctly named, no leaked secrets, machine paths,
/// UUIDs or timestamps in the key material.
///
/// With paths, only those files are read (the pre-commit framework passes file names);
/// with `--staged`, the staged contents of the staged cassettes; else the whole tree.
/// Exit codes: 0 clean (warnings allowed), 1 error findings (a file that does not parse is
/// one), 2 could not run.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Cassettes or folders to check [default: the whole configured tree].
    #[arg(value_name = "PATH", conflicts_with = "staged")]
    pub(crate) paths: Vec<PathBuf>,

    /// Check what is staged for commit (read from git's index).
    #[arg(long)]
    pub(crate) staged: bool,

    /// Output format.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: VerifyFormat,

    /// Accept the findings listed in FILE: only new ones are reported.
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,

    /// Write today's findings to FILE as a baseline and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub(crate) write_baseline: Option<PathBuf>,

    /// A usage log of a test run: report `missing` and `orphan` cassettes (repeatable).
    #[arg(long, value_name = "FILE")]
    pub(crate) usage_log: Vec<PathBuf>,

    /// HTTP cassettes recorded longer ago than AGE (`90d`, `12w`, `1y`, `36h`) are `expired`
    /// [default: `[verify] max-age`, else no limit].
    #[arg(long, value_name = "AGE")]
    pub(crate) max_age: Option<String>,

    /// Pass when no cassette is found (by default an empty tree is an error: nothing checked
    /// is not a pass).
    #[arg(long)]
    pub(crate) allow_empty: bool,

    /// List the leak detectors (the names `-v` prints and `[[verify.allow]] detector` takes)
    /// and exit.
    #[arg(long, conflicts_with_all = ["paths", "staged", "baseline", "write_baseline", "usage_log"])]
    pub(crate) list_detectors: bool,

    /// List the files vcr would read, one per line (as `rg --files` does), and exit; `-v`
    /// adds those git ignores.
    #[arg(long, conflicts_with_all = ["staged", "baseline", "write_baseline", "usage_log", "list_detectors"])]
    pub(crate) show_files: bool,

    /// Say why the leak judge takes VALUE for a credential or not: where a cassette's
    /// structure names it one (a header, query parameter, cookie or field), and as text
    /// (each detector's verdict), then list its findings in the files checked. Given
    /// FILE#POINTER (a pointer as `--format json` prints it, or its start), say why each
    /// finding there was judged a leak, or, where there is none, why each value there is
    /// not one. Exits 0.
    #[arg(long, value_name = "VALUE|FILE#POINTER", conflicts_with_all = ["staged", "baseline", "write_baseline", "usage_log", "list_detectors", "show_files"])]
    pub(crate) explain: Option<String>,

    /// Show findings of this severity or worse in the text and GitHub outputs (`-q` shows
    /// errors only); JSON and SARIF carry every finding, and the counts are the same.
    #[arg(long, value_name = "LEVEL", default_value = "warning")]
    pub(crate) severity: Shown,
}

/// The least severe finding `verify` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Shown {
    /// Errors only.
    Error,
    /// Errors and warnings.
    Warning,
}

/// `vcr verify --explain VALUE` or `--explain FILE#POINTER`: the judge's verdicts on a value
/// (the ones `verify` applies), or on the values at a place in a cassette, then the
/// findings of that value or place in the files checked.
fn explain(cx: &Context, args: &Args, value: &str) -> Result<Outcome> {
    if cx.reporter.output() != Output::Human {
        anyhow::bail!("--explain prints text for people: leave out --format");
    }
    if let Some((file, pointer)) = value.split_once('#')
        && cx.working_dir.join(file).is_file()
    {
        return explain_place(cx, args, file, pointer);
    }
    let shown = vcr_lint::masked_value(value);
    cx.reporter.out(&format!("`{shown}`"));
    let scanner = vcr_lint::Scanner::new(&cx.machine_paths()).reading(&cx.project.read_options());
    explain_value(cx, &scanner, value, Named::Anywhere);
    let print = vcr_lint::finding::fingerprint(value);
    let (found, summary) =
        explained_findings(cx, args, &args.paths, &mut |f| f.fingerprint == print)?;
    let line = format!(
        "{} of this value in {} checked",
        count(found, "finding"),
        count(summary.files, "file")
    );
    cx.reporter.finish_findings(&summary, &line);
    Ok(Outcome::Clean)
}

/// The judge's verdicts on one value, indented under what names it: by the name a
/// structure gives it (`by_name`, from a cassette; else as if a structure named it a
/// credential), then by each candidate a scan of it as text weighs.
fn explain_value(cx: &Context, scanner: &vcr_lint::Scanner, value: &str, named: Named<'_>) {
    let out = |line: String| cx.reporter.out(&format!("  {line}"));
    match named {
        Named::By((name, Ok(why))) => out(format!("by its name `{name}`: a credential, {why}")),
        Named::By((name, Err(why))) => {
            out(format!("by its name `{name}`: not a credential: {why}"));
        }
        Named::Nothing => out("by its name: where it sits names no credential".to_owned()),
        Named::Anywhere => match vcr_lint::why_no_credential(value) {
            Some(why) => out(format!(
                "where a header, query parameter, cookie or field names a credential: not one: {why}"
            )),
            None => out(
                "where a header, query parameter, cookie or field names a credential: one, as none of the placeholder, test-word, made-up JWT or Basic account, reference or public-key rules rejects it".to_owned(),
            ),
        },
    }
    let candidates = scanner.candidates(value.as_bytes());
    if candidates.is_empty() {
        out("as text: no detector's pattern matches it".to_owned());
    }
    for c in candidates {
        match (c.verdict, c.masked) {
            (Ok(why), Some(masked)) => out(format!(
                "as text: `{}` finds {} ({masked}): {why}",
                c.detector, c.label
            )),
            (Ok(why), None) => out(format!(
                "as text: `{}` finds {}: {why}",
                c.detector, c.label
            )),
            (Err(why), _) => out(format!(
                "as text: `{}` looks for {} here, and rejects it: {why}",
                c.detector, c.label
            )),
        }
    }
}

/// What names the value `explain_value` explains.
enum Named<'a> {
    /// A structure names it a credential, and the judge's verdict there.
    By(&'a (String, Result<&'static str, &'static str>)),
    /// Where it sits in a cassette names no credential.
    Nothing,
    /// A value given alone: judged as if a structure named it a credential.
    Anywhere,
}

/// `--explain FILE#POINTER`: the findings at the place (a pointer as findings print it, or
/// the start of one) with why each was judged a leak; where there are none, the values an
/// HTTP cassette holds there and the judge's verdicts on each.
fn explain_place(cx: &Context, args: &Args, file: &str, pointer: &str) -> Result<Outcome> {
    let at_place = |f: &vcr_lint::finding::Finding| {
        f.pointer.as_deref().is_some_and(|p| p.starts_with(pointer))
    };
    let mut shown = Vec::new();
    explained_findings(cx, args, &[PathBuf::from(file)], &mut |f| {
        if at_place(f) {
            shown.push(f.clone());
        }
        false
    })?;
    for f in &shown {
        let matched = f.matched.as_deref().unwrap_or_default();
        let severity = match f.severity {
            vcr_lint::finding::Severity::Error => "error",
            vcr_lint::finding::Severity::Warning => "warning",
        };
        cx.reporter.out(&format!(
            "{}#{}: {severity} {}: {} ({matched})",
            f.path,
            f.pointer.as_deref().unwrap_or_default(),
            f.id,
            f.message
        ));
        if let Some(reason) = &f.reason {
            cx.reporter.out(&format!("  why: {reason}"));
        }
    }
    if !shown.is_empty() {
        return Ok(Outcome::Clean);
    }
    let path = cx.working_dir.join(file);
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {file}"))?;
    let text = vcr_cassette::http::decompressed(&bytes);
    let cassette = vcr_cassette::http::read(&path, &text)
        .map_err(|e| anyhow::anyhow!("{file}: {}", e.message))?;
    let places: Vec<_> = cassette
        .map(|c| vcr_lint::http::places(&c))
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.path.starts_with(pointer))
        .collect();
    if places.is_empty() {
        anyhow::bail!(
            "{file}: no finding at `{pointer}`, and no value of an HTTP cassette's there; give a pointer as `verify --format json` prints it (`{file}#interactions[0].request.headers`)"
        );
    }
    cx.reporter.out(&format!(
        "{file}: no finding at `{pointer}`; the judge's verdicts on the values there:"
    ));
    let scanner = vcr_lint::Scanner::new(&cx.machine_paths()).reading(&cx.project.read_options());
    for place in places.iter().take(PLACES_SHOWN) {
        cx.reporter.out(&format!(
            "{}: `{}`",
            place.path,
            vcr_lint::masked_value(&place.text)
        ));
        let named = place.by_name.as_ref().map_or(Named::Nothing, Named::By);
        explain_value(cx, &scanner, &place.text, named);
    }
    if places.len() > PLACES_SHOWN {
        cx.reporter.out(&format!(
            "and {} more; give a longer pointer",
            count(places.len() - PLACES_SHOWN, "value")
        ));
    }
    if places
        .iter()
        .any(|p| p.by_name.as_ref().is_some_and(|(_, v)| v.is_ok()))
    {
        cx.reporter.out(
            "(a credential by its name where `verify` reports none: the cassette makes it public, a page or cookie served to a request that carried no credential, or [[verify.allow]] accepts it)",
        );
    }
    Ok(Outcome::Clean)
}

/// How many values `--explain FILE#POINTER` explains at most.
const PLACES_SHOWN: usize = 20;

/// Runs `verify` over `paths` and streams the findings `wanted` keeps; returns how many it
/// kept and the run's summary.
fn explained_findings(
    cx: &Context,
    args: &Args,
    paths: &[PathBuf],
    wanted: &mut dyn FnMut(&vcr_lint::finding::Finding) -> bool,
) -> Result<(usize, vcr_ops::verify::Summary)> {
    let (selection, checks) = rayon::join(
        || cx.select_judged(paths, args.allow_empty),
        || Checks::new(&cx.project, &cx.machine_paths()),
    );
    let (selection, checks) = (selection?, checks?);
    let options = Options {
        dsh_cwd: Some(cx.project.dsh_cwd()),
        ..Options::default()
    };
    let mut found = 0;
    let outcome =
        vcr_ops::verify::run(&selection, &checks, &options, cx.progress(), &mut |group| {
            let mut group = group;
            group.retain(|f| wanted(f));
            found += group.len();
            let mut group = Some(group).filter(|g| !g.is_empty());
            cx.progress().suspend(&mut || {
                if let Some(group) = group.take() {
                    cx.reporter.stream_findings(group);
                }
            });
        });
    Ok((found, outcome.summary))
}

/// `vcr verify --show-files`: what the selection reads, without reading it. Ignored
/// cassettes are listed in JSON and, with `-v`, as skipped.
fn show_files(cx: &Context, args: &Args) -> Result<Outcome> {
    let mut selection = cx.project.select(&args.paths, &cx.working_dir)?;
    cx.project.read_named_as_text(&mut selection);
    cx.report_selected(&selection);
    if cx.reporter.output() == Output::Json {
        #[derive(serde::Serialize)]
        struct File<'a> {
            path: &'a str,
            kind: &'static str,
        }
        #[derive(serde::Serialize)]
        struct Document<'a> {
            version: u32,
            files: Vec<File<'a>>,
            git_ignored: &'a [String],
        }
        let document = Document {
            version: 1,
            files: selection
                .cassettes
                .iter()
                .map(|c| File {
                    path: &c.rel,
                    kind: c.kind.name(),
                })
                .collect(),
            git_ignored: &selection.git_ignored,
        };
        cx.reporter
            .out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
        return Ok(Outcome::Clean);
    }
    for cassette in &selection.cassettes {
        cx.reporter.out(&cassette.rel);
    }
    for path in &selection.git_ignored {
        cx.report().report(&Event::Skipped {
            path,
            reason: "ignored by git (--no-ignore reads it)",
        });
    }
    Ok(Outcome::Clean)
}

/// `vcr verify --list-detectors`: needs no project, so it works where `vcr.toml` is broken.
pub(crate) fn list_detectors(reporter: &Reporter) {
    let detectors = vcr_lint::detectors();
    if reporter.output() == Output::Json {
        #[derive(serde::Serialize)]
        struct Document<'a> {
            version: u32,
            detectors: &'a [vcr_lint::DetectorInfo],
        }
        let document = Document {
            version: 1,
            detectors: &detectors,
        };
        reporter.out(&serde_json::to_string_pretty(&document).expect("JSON serializes"));
        return;
    }
    let width = detectors.iter().map(|d| d.name.len()).max().unwrap_or(0);
    reporter.out(&format!(
        "{:<width$}  {:<14}  what it finds",
        "detector", "finding"
    ));
    for d in &detectors {
        reporter.out(&format!(
            "{:<width$}  {:<14}  {}",
            d.name, d.id, d.description
        ));
    }
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    if args.show_files {
        return show_files(cx, args);
    }
    if let Some(value) = &args.explain {
        return explain(cx, args, value);
    }
    cx.announce()?;
    cx.check_interrupted()?;
    let mut options = Options::default();
    // With `--staged`, git was asked before the project was opened, and is answered while
    // the checks are built (their regexes take a few milliseconds): a hook pays on every
    // commit for the slower of the two, not for both (issue 44). A configuration error still
    // waits until there is something to check.
    let mut built = None;
    let paths = if args.staged {
        let (staged, checks) = rayon::join(
            || cx.staged(),
            || Checks::new(&cx.project, &cx.machine_paths()),
        );
        built = Some(checks);
        let staged = staged.context("cannot read the staged files")?;
        // The index is the whole repository's: in a monorepo, files staged outside this
        // project are not its cassettes, and not errors either.
        let paths: Vec<PathBuf> = staged
            .keys()
            .filter(|path| path.starts_with(cx.project.root()))
            .cloned()
            .collect();
        options.contents = Some(staged);
        if paths.is_empty() {
            cx.reporter.finish_findings(
                &vcr_ops::verify::Summary::default(),
                "nothing staged to check",
            );
            return Ok(Outcome::Clean);
        }
        paths
    } else {
        args.paths.clone()
    };
    // A whole tree is checked as the walk finds its files, with no list of them (issue 25);
    // orphans by a recorded run need the whole selection. A selection is made while the
    // scanner's regexes are built: both take a millisecond or more, and the walk leaves
    // cores idle (issue 12).
    let whole_tree = paths.is_empty() && args.usage_log.is_empty();
    let (selection, checks) = rayon::join(
        || {
            (!whole_tree)
                .then(|| cx.select_judged(&paths, args.allow_empty))
                .transpose()
        },
        || match built {
            Some(checks) => checks,
            None => Checks::new(&cx.project, &cx.machine_paths()),
        },
    );
    let selection = selection?;
    let mut checks = checks?;
    if !args.usage_log.is_empty() {
        let mut usage = Usage::default();
        for log in &args.usage_log {
            usage.read_log(
                &cx.working_dir.join(log),
                cx.project.root(),
                cx.project.root(),
            )?;
        }
        options.usage = Some(usage);
    }
    if let Some(path) = &args.baseline {
        options.baseline = Some(Baseline::load(&cx.working_dir.join(path))?);
    }
    options.dsh_cwd = Some(cx.project.dsh_cwd());
    if let Some(age) = &args.max_age {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let max_age = vcr_ops::verify::MaxAge::parse(age, now)
            .map_err(|e| anyhow::anyhow!("--max-age: {e}"))?;
        checks = checks.with_max_age(max_age);
    }
    // Findings are printed as they are made, unless they make a baseline.
    let mut for_baseline = Vec::new();
    let writing = args.write_baseline.is_some();
    // Warnings are left out of what people read when asked; documents keep everything.
    let errors_only = (args.severity == Shown::Error
        || cx.reporter.verbosity() == crate::report::Verbosity::Quiet)
        && matches!(cx.reporter.output(), Output::Human | Output::Github);
    let mut found = |found: Vec<vcr_lint::finding::Finding>| {
        if writing {
            for_baseline.extend(found);
        } else {
            let mut found = found;
            if errors_only {
                found.retain(|f| f.severity == vcr_lint::finding::Severity::Error);
            }
            let mut found = Some(found);
            cx.progress().suspend(&mut || {
                if let Some(found) = found.take() {
                    cx.reporter.stream_findings(found);
                }
            });
        }
    };
    let outcome = match &selection {
        Some(selection) => {
            vcr_ops::verify::run(selection, &checks, &options, cx.progress(), &mut found)
        }
        None => {
            let (outcome, selected) = vcr_ops::verify::run_tree(
                &cx.project,
                &checks,
                &options,
                cx.progress(),
                &mut found,
            )?;
            cx.report_selected(&selected);
            cx.check_selected(&selected, args.allow_empty)?;
            outcome
        }
    };
    for (path, problem) in &outcome.problems {
        vcr_ops::event::report_problem(cx.report(), path, problem);
    }
    if let Some(path) = &args.write_baseline {
        let path = cx.working_dir.join(path);
        write_file(&path, Baseline::render(&for_baseline).as_bytes())?;
        let line = format!(
            "wrote {} to {}",
            count(for_baseline.len(), "finding"),
            path.display()
        );
        cx.reporter.finish_findings(&outcome.summary, &line);
        return Ok(Outcome::Clean);
    }
    for scenario in &outcome.scenarios {
        cx.report().report(&Event::Scenario {
            path: &scenario.path,
            sessions: scenario.sessions,
            calls: scenario.calls,
        });
    }
    let s = &outcome.summary;
    let http = if outcome.summary.http.is_empty() {
        String::new()
    } else {
        let formats: Vec<String> = outcome
            .summary
            .http
            .iter()
            .map(|(format, n)| format!("{n} {format}"))
            .collect();
        format!(" ({} read as HTTP cassettes)", formats.join(", "))
    };
    let mut line = format!(
        "checked {}{http}: {}, {}",
        count(s.files, "file"),
        count(s.errors, "error"),
        count(s.warnings, "warning")
    );
    if s.accepted > 0 {
        line.push_str(&format!(
            " ({} accepted by the allowlist or baseline)",
            s.accepted
        ));
    }
    // Nothing goes unread in silence (issue 21) and nothing named goes unjudged (issue 39):
    // what was only linted as text is counted; `-v` lists it.
    for path in &outcome.as_text {
        cx.report().report(&Event::Skipped {
            path,
            reason: "linted as text: no reader knows its shape",
        });
    }
    for path in &outcome.git_ignored {
        cx.report().report(&Event::Skipped {
            path,
            reason: "ignored by git (--no-ignore reads it)",
        });
    }
    let mut not_read = Vec::new();
    if s.as_text > 0 {
        not_read.push(format!(
            "{} linted as text (no reader knows {})",
            count(s.as_text, "file"),
            if s.as_text == 1 {
                "its shape"
            } else {
                "their shapes"
            }
        ));
    }
    if s.git_ignored > 0 {
        not_read.push(format!(
            "{} ignored by git (--no-ignore reads {})",
            count(s.git_ignored, "cassette"),
            if s.git_ignored == 1 { "it" } else { "them" }
        ));
    }
    for off in &outcome.guess_off {
        cx.report().report(&Event::Skipped {
            path: &off.path,
            reason: &format!(
                "{}: no orphan guess for {} it may move or rename",
                off.reason,
                count(off.cassettes, "cassette")
            ),
        });
    }
    if let Some(first) = outcome.guess_off.first() {
        let cassettes: usize = outcome.guess_off.iter().map(|o| o.cassettes).sum();
        let more = outcome.guess_off.len() - 1;
        not_read.push(format!(
            "no orphan guess for {} (`{}` {}{})",
            count(cassettes, "cassette"),
            first.path,
            first.reason,
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if !not_read.is_empty() {
        line.push_str(&format!("; {} (-v lists them)", not_read.join(", ")));
    }
    cx.reporter.finish_findings(s, &line);
    Ok(if s.errors > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Writes a file through a temporary file in its folder.
fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write {}", path.display()))?;
    std::io::Write::write_all(&mut temp, bytes)?;
    // The persist error's message is its I/O error's, which is also its source: keep one.
    temp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
