//! `vcr diff`.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use vcr_diff::{Blob, Options, Snapshot, Summary};
use vcr_lint::Scanner;
use vcr_ops::event::{Event, Report};
use vcr_project::git::{Against, RevFile};
use vcr_project::tree::{lexical_absolute, relative};

use super::{Outcome, count};
use crate::cli::DiffFormat;
use crate::context::Context;
use crate::report::markdown::Compared;

/// Compare two versions of cassettes by what the agent did: tool calls, stop reasons,
/// models, usage, text. Each cassette gets a verdict: identical, same behaviour (only usage,
/// model, request, ids changed), reworded (only text), or behaviour change.
///
/// A Claude Code fixture renamed because its prompt changed is shown as re-keyed, with the
/// input message that changed. HTTP cassettes (vcrpy, Ruby VCR, go-vcr, HAR, httprr, nock,
/// talkback) are compared interaction by interaction, paired by request: their OpenAI,
/// Anthropic and Gemini calls as model calls, other interactions by status, URL and body
/// shape. Exit codes: 0 identical, 1 any difference, 2 error.
///
/// As a git diff driver: in .gitattributes `fixtures/*.json diff=vcr` (and
/// `cassettes/** diff=vcr`), then `git config diff.vcr.textconv "vcr diff --textconv"`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Two files or two folders: OLD NEW; with --rev, the paths to compare [default: the
    /// project root].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Compare the tree at git revision REV with the working tree (PATHs limit it); a range
    /// compares two trees: `A..B` the tree at A with the tree at B, `A...B` their merge base
    /// with B (what a pull request from B into A changed).
    #[arg(long, value_name = "REV")]
    pub(crate) rev: Option<String>,

    /// Print the readable behaviour summary of one cassette (for a git diff driver).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rev", "full", "paths"])]
    pub(crate) textconv: Option<PathBuf>,

    /// Add the unified diff of the canonical forms (secrets masked).
    #[arg(long)]
    pub(crate) full: bool,

    /// Output format: `markdown` is the summary for a pull request (the job summary, a PR
    /// comment) or any CI that posts text.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub(crate) format: DiffFormat,

    /// Which differences exit 1, for a CI gate: `behaviour` (a behaviour change, or a
    /// cassette added or removed), `reworded` (those, or reworded text), `any` (any
    /// difference at all, the default).
    #[arg(long, value_name = "LEVEL", default_value = "any")]
    pub(crate) fail_on: FailOn,
}

/// The least difference that makes `vcr diff` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FailOn {
    /// A behaviour change, or a cassette added or removed: what the agent did changed.
    Behaviour,
    /// Those, or reworded text.
    Reworded,
    /// Any difference, "same behaviour" included.
    Any,
}

impl FailOn {
    /// Whether a comparison with these counts fails.
    fn fails(self, s: &Summary) -> bool {
        let behaviour = s.behaviour_change + s.added + s.removed > 0;
        match self {
            FailOn::Behaviour => behaviour,
            FailOn::Reworded => behaviour || s.reworded > 0,
            FailOn::Any => s.has_differences(),
        }
    }
}

pub(crate) fn run(cx: &Context, args: &Args) -> Result<Outcome> {
    // Every text taken from a cassette is masked before it is shown.
    let masker = Scanner::new(&[]);
    if let Some(file) = &args.textconv {
        let path = cx.working_dir.join(file);
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", file.display()))?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let options = Options {
            read: cx.project.read_options(),
            ..Options::default()
        };
        let text = vcr_diff::textconv(&bytes, &name, &masker, &options);
        cx.reporter.out(text.strip_suffix('\n').unwrap_or(&text));
        return Ok(Outcome::Clean);
    }
    let mut options = Options {
        full: args.full,
        fixture_dirs: Vec::new(),
        extensionless_dirs: Vec::new(),
        read: cx.project.read_options(),
    };
    let summary = match &args.rev {
        Some(rev) => {
            // The working tree is one side: a run that left cassettes aside makes it partial.
            cx.check_interrupted()?;
            let (old, new) = revision_sides(cx, rev, &args.paths, &mut options)?;
            vcr_diff::run(
                &old,
                &new,
                &options,
                &masker,
                &mut Reported(cx.report()),
                cx.progress(),
            )
        }
        None => {
            let [old, new] = args.paths.as_slice() else {
                bail!("give two files or two folders (OLD NEW), or --rev REV [PATH...]");
            };
            compare_paths(cx, old, new, &mut options, &masker)?
        }
    };
    let compared = match (&args.rev, args.paths.as_slice()) {
        (Some(rev), _) if rev.contains("..") => Compared::Range(rev.clone()),
        (Some(rev), _) => Compared::WorkingTree(rev.clone()),
        (None, [old, new]) => Compared::Paths(old.display().to_string(), new.display().to_string()),
        (None, _) => Compared::Paths(String::new(), String::new()),
    };
    cx.reporter
        .finish_diff(&summary, &summary_line(&summary), &compared);
    Ok(if args.fail_on.fails(&summary) {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// `vcr diff OLD NEW`: two files (kinds told by their contents) or two folders.
fn compare_paths(
    cx: &Context,
    old: &Path,
    new: &Path,
    options: &mut Options,
    masker: &Scanner,
) -> Result<Summary> {
    let (old_abs, new_abs) = (cx.working_dir.join(old), cx.working_dir.join(new));
    for (given, abs) in [(old, &old_abs), (new, &new_abs)] {
        if std::fs::symlink_metadata(abs).is_err() {
            bail!("{}: no such file or folder", given.display());
        }
    }
    match (old_abs.is_dir(), new_abs.is_dir()) {
        (true, true) => {
            let mut old_side = Snapshot::new(&format!("{}/{{}}", old.display()));
            let mut new_side = Snapshot::new(&format!("{}/{{}}", new.display()));
            old_side.add_dir(&old_abs, "", cx.project.no_ignore())?;
            new_side.add_dir(&new_abs, "", cx.project.no_ignore())?;
            // The folders given may be fixtures folders themselves.
            options.fixture_dirs.push(String::new());
            Ok(vcr_diff::run(
                &old_side,
                &new_side,
                options,
                masker,
                &mut Reported(cx.report()),
                cx.progress(),
            ))
        }
        (false, false) => {
            let (old_name, new_name) = (old.display().to_string(), new.display().to_string());
            // Two session logs are read a line at a time (issue 12); anything else whole.
            let streamed = vcr_diff::compare_log_files(
                (&old_name, &old_abs),
                (&new_name, &new_abs),
                options,
                masker,
            )?;
            if let Some(entry) = streamed {
                cx.reporter.report(&Event::Diff(&entry));
                let mut summary = Summary::default();
                summary.add(&entry);
                return Ok(summary);
            }
            let read = |p: &Path, shown: &Path| {
                std::fs::read(p).with_context(|| format!("cannot read {}", shown.display()))
            };
            let (old_bytes, new_bytes) = (read(&old_abs, old)?, read(&new_abs, new)?);
            let entry = vcr_diff::compare_files(
                (&old_name, &old_bytes),
                (&new_name, &new_bytes),
                options,
                masker,
            )?;
            cx.reporter.report(&Event::Diff(&entry));
            let mut summary = Summary::default();
            summary.add(&entry);
            Ok(summary)
        }
        _ => bail!("OLD and NEW must both be files or both be folders"),
    }
}

/// What `--rev` compares, in git's words: `REV` (the tree at REV with the working tree),
/// `A..B` (the tree at A with the tree at B) or `A...B` (the tree where B left A, their
/// merge base, with the tree at B: what a pull request from B into A changed). A side left
/// out of a range is `HEAD`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Revisions {
    /// The old side's revision.
    pub(crate) old: String,
    /// The new side's revision; `None`: the working tree.
    pub(crate) new: Option<String>,
}

impl Revisions {
    pub(crate) fn parse(top: &Path, rev: &str) -> Result<Revisions> {
        let or_head = |r: &str| if r.is_empty() { "HEAD" } else { r }.to_owned();
        if let Some((a, b)) = rev.split_once("...") {
            let (a, b) = (or_head(a), or_head(b));
            let old = vcr_project::git::merge_base(top, &a, &b)?;
            return Ok(Revisions { old, new: Some(b) });
        }
        if let Some((a, b)) = rev.split_once("..") {
            return Ok(Revisions {
                old: or_head(a),
                new: Some(or_head(b)),
            });
        }
        Ok(Revisions {
            old: rev.to_owned(),
            new: None,
        })
    }
}

/// `vcr diff --rev REV [PATH...]`: the tree at REV, read through git, and the working tree
/// (or, for a range, the trees at its two ends), both keyed by paths relative to the project
/// root.
pub(crate) fn revision_sides(
    cx: &Context,
    rev: &str,
    paths: &[PathBuf],
    options: &mut Options,
) -> Result<(Snapshot, Snapshot)> {
    let root = cx.project.root();
    let top = vcr_project::git::toplevel(root)?;
    let revisions = Revisions::parse(&top, rev)?;
    let prefix = relative(&top, root);
    let mut rels = Vec::new();
    for given in paths {
        let absolute = lexical_absolute(&cx.working_dir.join(given));
        if !absolute.starts_with(root) {
            bail!(
                "{}: outside the project root {}",
                given.display(),
                root.display()
            );
        }
        rels.push(relative(root, &absolute));
    }
    let join = |rel: &str| match (prefix.is_empty(), rel.is_empty()) {
        (true, true) => ".".to_owned(),
        (true, false) => rel.to_owned(),
        (false, true) => prefix.clone(),
        (false, false) => format!("{prefix}/{rel}"),
    };
    let pathspecs: Vec<String> = if rels.is_empty() {
        vec![join("")]
    } else {
        rels.iter().map(|r| join(r)).collect()
    };
    let shown_prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    let at = |rev: &str, label: &str, against: Against| -> Result<Snapshot> {
        let mut side = Snapshot::new(&format!("{label}:{shown_prefix}{{}}"));
        for (path, file) in vcr_project::git::tree_at(&top, rev, &pathspecs, against)? {
            let rel = if prefix.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(&shown_prefix)
            };
            if let Some(rel) = rel.filter(|r| !vcr_diff::is_skipped(r)) {
                // A large file stays in git until its cassette is compared (issue 12).
                let blob = match file {
                    RevFile::Contents(bytes) => Blob::Bytes(bytes),
                    // The same bytes as the working tree's file: read from there.
                    RevFile::Unchanged => Blob::Unchanged(top.join(&path)),
                    RevFile::Object { id, size } => Blob::Git {
                        top: top.clone(),
                        id,
                        size,
                    },
                };
                side.insert(rel, blob);
            }
        }
        Ok(side)
    };
    // The old side of `A...B` is named by the range's left end, as people wrote it.
    let old_label = match rev.split_once("...") {
        Some((a, _)) if !a.is_empty() => a,
        Some(_) => "HEAD",
        None => revisions.old.as_str(),
    };
    let against = match revisions.new {
        Some(_) => Against::Revision,
        None => Against::WorkingTree,
    };
    let old = at(&revisions.old, old_label, against)?;
    let new = match &revisions.new {
        Some(new_rev) => {
            options.fixture_dirs.extend(rels.iter().cloned());
            at(new_rev, new_rev, Against::Revision)?
        }
        None => {
            let mut new = Snapshot::new("{}");
            if rels.is_empty() {
                new.add_dir(root, "", cx.project.no_ignore())?;
            }
            for rel in &rels {
                let path = root.join(rel);
                if path.is_dir() {
                    new.add_dir(&path, rel, cx.project.no_ignore())?;
                    options.fixture_dirs.push(rel.clone());
                } else if path.is_file() {
                    new.insert(rel, Blob::File(path));
                } else {
                    // Gone from the working tree: what REV had there shows as removed.
                    options.fixture_dirs.push(rel.clone());
                }
            }
            new
        }
    };
    options
        .extensionless_dirs
        .extend(cx.project.php_vcr_folders().iter().cloned());
    for dir in cx.project.config().claude_code.fixtures.iter().flatten() {
        options
            .fixture_dirs
            .push(relative(root, &lexical_absolute(&root.join(dir))));
    }
    Ok((old, new))
}

fn summary_line(s: &Summary) -> String {
    let compared = count(s.cassettes, "cassette");
    if !s.has_differences() && s.errors == 0 {
        return format!("{compared} compared: all identical");
    }
    let mut parts = Vec::new();
    for (n, what) in [
        (s.behaviour_change, "behaviour change"),
        (s.reworded, "reworded"),
        (s.same_behaviour, "same behaviour"),
        (s.re_keyed, "re-keyed"),
        (s.added, "added"),
        (s.removed, "removed"),
        (s.identical, "identical"),
        (s.errors, "unreadable"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    format!("{compared} compared: {}", parts.join(", "))
}

/// `vcr diff`'s entries and unreadable cassettes, as events to the reporter.
struct Reported<'a>(&'a dyn Report);

impl vcr_diff::Sink for Reported<'_> {
    fn entry(&mut self, entry: &vcr_diff::Entry) {
        self.0.report(&Event::Diff(entry));
    }

    fn problem(&mut self, path: &str, problem: &vcr_project::run::FileProblem) {
        vcr_ops::event::report_problem(self.0, path, problem);
    }
}
