//! A run of `verify`: the files checked on every core and handed on in order, the findings
//! of each file and scenario filtered, sorted and counted as they come (`Keep`), and then
//! the findings across files (name collisions, usage, orphans). `run` works through a
//! selection; `run_tree` draws the files from the walk as it finds them (`Drawn`) and holds
//! no list of the tree (issue 25).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::baseline::Baseline;
use crate::event::{FileProblem, Progress, par_ordered_iter};
use crate::usage::Usage;
use vcr_lint::finding::{Finding, FindingId, Severity};
use vcr_project::config::ConfigError;
use vcr_project::tree::{Cassette, CassetteKind, Project, Scenario, Selection};

use super::{Checks, FileResult, Options, Outcome, ScenarioStats, check_one, check_scenario, push};

/// What `run` does with each group of findings before handing it on: the allowlist and
/// the baseline take theirs, the rest is sorted and counted.
struct Keep<'c> {
    checks: &'c Checks,
    baseline: Option<crate::baseline::Accepting>,
    found: &'c mut dyn FnMut(Vec<Finding>),
}

impl Keep<'_> {
    /// The source file that publishes what `finding` found (`raw`), what it publishes and
    /// why that is no leak: a secret the sources hold, or a home folder whose user they name.
    fn published(
        &self,
        finding: &Finding,
        raw: Option<&str>,
    ) -> Option<(&str, &'static str, &'static str)> {
        let (value, what, why) = match finding.id {
            FindingId::LeakSecret => (
                raw?,
                "the repository publishes this value outside its cassettes",
                "test data it chose to publish",
            ),
            FindingId::LeakPath => (
                vcr_lint::home_folder_user(raw?)?,
                "the repository's sources name this user",
                "an account the tests make",
            ),
            _ => return None,
        };
        Some((self.checks.published_in(value)?, what, why))
    }

    /// Filters `findings` (one file's, one scenario's, or what is found across files), sorts
    /// them by file, line, column and id, counts them, and hands them on.
    fn keep(&mut self, findings: Vec<(Finding, Option<String>)>, outcome: &mut Outcome) {
        if findings.is_empty() {
            return;
        }
        let mut kept: Vec<Finding> = Vec::with_capacity(findings.len());
        for (mut finding, raw) in findings {
            // An id in what the recorder matches that the repository's test sources write
            // (`invalidOrgGUID = "40b7..."`) is a constant every run sends again: nothing a
            // run makes, so replay does not break on it (issue 41).
            if finding.id == FindingId::LeakUuid
                && raw
                    .as_deref()
                    .is_some_and(|r| self.checks.published_in(r).is_some())
            {
                continue;
            }
            // An id in a query parameter the project's recorder filters takes no part in
            // matching: vcrpy filters the recorded requests as it loads them too (issue 41).
            if finding.id == FindingId::LeakUuid
                && (finding.pointer.as_deref())
                    .and_then(|p| p.rsplit_once(" ?"))
                    .is_some_and(|(_, name)| self.checks.filters_query(name).is_some())
            {
                continue;
            }
            // A session set while the cassette shows no credential is a visit's, unless the
            // project's recorder removes the credentials its requests carried (issue 41).
            if finding.reason.as_deref() == Some(vcr_lint::http::SESSION_OF_REMOVED_LOGIN) {
                let Some(file) = self.checks.removes_credentials() else {
                    continue;
                };
                finding.message = format!(
                    "{} (set in answer to requests whose `Authorization` the recorder removes, in `{file}`)",
                    finding.message
                );
            }
            // A time in a cassette replayed with the clock frozen at its recording is the
            // same on every run.
            if finding.id == FindingId::LeakTimestamp && self.checks.frozen_clock(&finding.path) {
                continue;
            }
            // What the repository's own sources publish is its tests' data: a secret they
            // hold, a home folder whose user they name (`userName = "tirekicker"`, the admin
            // of a VM a test creates). A warning that names the file (issue 41).
            if finding.severity == Severity::Error
                && let Some((file, what, why)) = self.published(&finding, raw.as_deref())
            {
                finding.severity = Severity::Warning;
                finding.message = format!(
                    "{} ({what}, in `{file}`: {why}, so a warning)",
                    finding.message
                );
            }
            let mut accepted = false;
            for (i, allow) in self.checks.allow.iter().enumerate() {
                match allow.accepts(&finding, raw.as_deref()) {
                    Ok(false) => {}
                    Ok(true) => {
                        accepted = true;
                        break;
                    }
                    Err(stopped) => outcome.problems.push((
                        finding.path.clone(),
                        FileProblem {
                            id: "limit",
                            line: finding.line,
                            column: finding.column,
                            message: format!("`verify.allow[{i}].regex` was stopped: {stopped}"),
                        },
                    )),
                }
            }
            if accepted {
                outcome.summary.accepted += 1;
            } else {
                kept.push(finding);
            }
        }
        kept.sort_by(|a, b| {
            (&a.path, a.line, a.column, a.id).cmp(&(&b.path, b.line, b.column, b.id))
        });
        if let Some(baseline) = &mut self.baseline {
            outcome.summary.accepted += baseline.filter(&mut kept);
        }
        let errors = kept
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        outcome.summary.errors += errors;
        outcome.summary.warnings += kept.len() - errors;
        if !kept.is_empty() {
            (self.found)(kept);
        }
    }
}

/// Runs every check on the selected cassettes, handing the findings to `found` as they are
/// made, a group at a time: each file's (in the selection's order), each dsh scenario's, then
/// those across files (name collisions, usage, orphans), each group sorted by file, line,
/// column and id. Nothing is kept: a run's memory does not grow with its findings (a whole
/// tree of 32 copies of the corpus held 480,000 of them, issue 25).
pub fn run(
    selection: &Selection,
    checks: &Checks,
    options: &Options,
    progress: &dyn Progress,
    found: &mut dyn FnMut(Vec<Finding>),
) -> Outcome {
    let mut run = Run::new(checks, options, found);
    // The dsh scenarios are checked whole after the files, on the same cores: as items of
    // the same parallel run, they fill its tail instead of running one by one once it is
    // over (issue 12). Their findings still come after every file's.
    let work = (selection
        .cassettes
        .iter()
        .map(|c| Work::File(Cow::Borrowed(c))))
    .chain(
        selection
            .scenarios
            .iter()
            .map(|s| Work::Scenario(Cow::Borrowed(s))),
    );
    let total = selection.cassettes.len() + selection.scenarios.len();
    run.check(work, Some(total), progress);
    run.finish(selection)
}

/// [`run`] over the whole tree of `project`, checking each cassette as the walk finds it:
/// no list of the tree is held, so memory does not grow with the number of files (a
/// whole-tree `verify` of 60,000 cassettes held 44 MB of selection, issue 25). The files come
/// in the order a selection of the whole tree has them (cassettes of configured fixtures
/// folders the walk does not enter come last), and the findings are the same. Returns
/// what the walk met besides cassettes, as a [`Selection`] that holds none
/// ([`Selection::streamed`] counts them), for what a run reports around its findings.
/// `options.usage` is for [`run`]: orphans by a recorded run need the whole selection.
pub fn run_tree(
    project: &Project,
    checks: &Checks,
    options: &Options,
    progress: &dyn Progress,
    found: &mut dyn FnMut(Vec<Finding>),
) -> Result<(Outcome, Selection), ConfigError> {
    let mut tail = Selection::default();
    project.start_tree(&mut tail);
    let mut run = Run::new(checks, options, found);
    let (tail, coverage, broken) = project.walk_tree(|found| {
        let mut source = Drawn {
            found,
            project,
            python: run.guessing.is_some(),
            tail,
            coverage: project.coverage(),
            scenarios: Vec::new(),
            walking: true,
            broken: None,
        };
        run.check(&mut source, None, progress);
        (source.tail, source.coverage, source.broken)
    });
    if let Some(broken) = broken {
        return Err(broken);
    }
    let mut tail = tail;
    tail.settle_notes();
    tail.selects_nothing = project.selects_nothing(&coverage, &tail.errors);
    let outcome = run.finish(&tail);
    Ok((outcome, tail))
}

/// The work `run_tree` draws from the walk: each cassette as it is found, then the dsh
/// scenarios, in order. What else the walk meets goes to `tail`, and what is selected is
/// counted in `coverage`.
struct Drawn<'f, 'p> {
    found: &'f mut (dyn Iterator<Item = vcr_project::tree::Found> + Send),
    project: &'p Project,
    /// Whether the tree's Python files are kept, for the static orphan guess: not otherwise
    /// (a monorepo holds tens of thousands).
    python: bool,
    tail: Selection,
    coverage: vcr_project::tree::Coverage,
    /// The scenarios found, checked once the files are: reversed, once the walk is over.
    scenarios: Vec<Scenario>,
    walking: bool,
    broken: Option<ConfigError>,
}

impl Iterator for Drawn<'_, '_> {
    type Item = Work<'static>;

    fn next(&mut self) -> Option<Work<'static>> {
        use vcr_project::tree::Found;
        while self.walking {
            match self.found.next() {
                Some(Found::Cassette(cassette)) => {
                    self.project.cover(&mut self.coverage, &cassette);
                    self.tail.streamed += 1;
                    return Some(Work::File(Cow::Owned(cassette)));
                }
                Some(Found::Scenario(scenario)) => {
                    self.project.cover_scenario(&mut self.coverage, &scenario);
                    self.scenarios.push(scenario);
                }
                Some(Found::Broken(e)) => {
                    self.broken.get_or_insert(e);
                }
                Some(Found::Python(_)) if !self.python => {}
                Some(other) => self.tail.note(other),
                None => {
                    self.walking = false;
                    self.scenarios.sort_by(|a, b| b.rel.cmp(&a.rel));
                    self.tail.scenarios.clone_from(&self.scenarios);
                    self.tail.scenarios.reverse();
                }
            }
        }
        self.scenarios.pop().map(|s| Work::Scenario(Cow::Owned(s)))
    }
}

/// A run of the checks: the findings kept and counted as the files are checked, and what
/// the checks across files need of each file.
struct Run<'c> {
    checks: &'c Checks,
    options: &'c Options,
    keep: Keep<'c>,
    outcome: Outcome,
    /// The names of content-addressed cassettes, for collisions ([`Names`]).
    names: Names,
    /// The static orphan guess, given each vcrpy cassette as it is checked, when it runs.
    guessing: Option<crate::usage::naming::Guessing>,
}

impl<'c> Run<'c> {
    fn new(
        checks: &'c Checks,
        options: &'c Options,
        found: &'c mut dyn FnMut(Vec<Finding>),
    ) -> Self {
        Run {
            checks,
            options,
            keep: Keep {
                checks,
                baseline: options.baseline.as_ref().map(Baseline::accepting),
                found,
            },
            outcome: Outcome::default(),
            names: Names::default(),
            guessing: (checks.static_orphans.as_deref())
                .filter(|_| options.usage.is_none())
                .map(crate::usage::naming::Guessing::new),
        }
    }

    /// Checks each item of `work` (`total` of them, when known) on every core, handing the
    /// findings on in order.
    fn check<'s>(
        &mut self,
        work: impl Iterator<Item = Work<'s>> + Send,
        total: Option<usize>,
        progress: &dyn Progress,
    ) {
        let (checks, options) = (self.checks, self.options);
        par_ordered_iter(
            work,
            total,
            progress,
            |item| match item {
                Work::File(cassette) => Done::File(check_one(cassette, checks, options)),
                Work::Scenario(scenario) => {
                    let mut found = Vec::new();
                    let stats = check_scenario(scenario, options, checks, &mut found);
                    Done::Scenario(stats, found)
                }
            },
            |item, done| match (item, done) {
                (Work::Scenario(scenario), Done::Scenario(stats, found)) => {
                    self.keep.keep(found, &mut self.outcome);
                    match stats {
                        Ok(stats) => self.outcome.scenarios.push(stats),
                        Err(problem) => self.outcome.problems.push((scenario.rel.clone(), problem)),
                    }
                }
                (Work::File(cassette), Done::File(result)) => self.file_done(&cassette, result),
                _ => unreachable!("an item's result is of its kind"),
            },
        );
    }

    fn file_done(&mut self, cassette: &Cassette, mut result: FileResult) {
        let outcome = &mut self.outcome;
        // A key in the file's path, whatever the file holds (issue 41).
        let named = super::path_findings(cassette, self.keep.checks);
        if let Some(problem) = result.problem {
            self.keep.keep(named, outcome);
            outcome.problems.push((cassette.rel.clone(), problem));
            return;
        }
        result.findings.extend(named);
        outcome.summary.files += 1;
        if result.http_format.is_none()
            && !result.http_unreadable
            && matches!(cassette.kind, CassetteKind::Http | CassetteKind::Text)
        {
            outcome.as_text.push(cassette.rel.clone());
        }
        if let Some(format) = result.http_format {
            *outcome.summary.http.entry(format).or_default() += 1;
            if format == vcr_cassette::http::vcrpy::FORMAT.name()
                && let Some(guessing) = &mut self.guessing
            {
                guessing.add(cassette);
            }
        }
        self.keep.keep(result.findings, outcome);
        if let Some(name) = result.expected_name {
            self.names.add(cassette, name);
        }
    }

    /// The findings across files, and the counts of what was not read.
    fn finish(mut self, selection: &Selection) -> Outcome {
        let mut findings: Vec<(Finding, Option<String>)> = Vec::new();
        collisions(&self.names.finish(), self.checks, &mut findings);
        if let Some(usage) = &self.options.usage {
            usage_findings(selection, usage, self.checks, &mut findings);
        } else if let Some(guessing) = self.guessing.take() {
            // Without a run, a guess from the naming (a warning that says so; never deletes).
            let guesses = guessing.finish(selection.python_files.as_ref());
            for guess in guesses.orphans {
                let finding = Finding::new(
                    FindingId::Orphan,
                    Severity::Warning,
                    &guess.rel,
                    guess.message,
                );
                push(self.checks, &mut findings, finding, None);
            }
            self.outcome.guess_off = guesses.off;
        }
        let mut outcome = self.outcome;
        self.keep.keep(findings, &mut outcome);
        outcome.summary.as_text = outcome.as_text.len();
        outcome.summary.git_ignored = selection.git_ignored.len();
        outcome.git_ignored.clone_from(&selection.git_ignored);
        outcome
    }
}

/// The names content-addressed cassettes are looked up by, per folder, for collisions. A
/// folder's names are let go once the files come past it (every path under a folder sorts
/// together), keeping only the names two files share: the names of a tree of fixtures are
/// not all held (issue 25).
#[derive(Default)]
struct Names {
    /// The names of the folders not yet passed: (folder, name) to files.
    open: BTreeMap<(String, String), Vec<String>>,
    /// Those folders.
    folders: Vec<String>,
    /// The names two files or more share, in passed folders.
    shared: BTreeMap<(String, String), Vec<String>>,
}

impl Names {
    fn add(&mut self, cassette: &Cassette, name: String) {
        let folder = cassette
            .rel
            .rsplit_once('/')
            .map_or("", |(folder, _)| folder);
        if !self.folders.iter().any(|f| f == folder) {
            let passed: Vec<String> = self
                .folders
                .extract_if(.., |f| !f.is_empty() && !is_under(&cassette.rel, f))
                .collect();
            if !passed.is_empty() {
                let open = std::mem::take(&mut self.open);
                for (key, files) in open {
                    if passed.contains(&key.0) {
                        self.share(key, files);
                    } else {
                        self.open.insert(key, files);
                    }
                }
            }
            self.folders.push(folder.to_owned());
        }
        self.open
            .entry((folder.to_owned(), name))
            .or_default()
            .push(cassette.rel.clone());
    }

    /// Keeps a passed folder's name if two files or more share it.
    fn share(&mut self, key: (String, String), files: Vec<String>) {
        if files.len() > 1 {
            self.shared.entry(key).or_default().extend(files);
        }
    }

    /// Every name two files or more share.
    fn finish(mut self) -> BTreeMap<(String, String), Vec<String>> {
        for (key, files) in std::mem::take(&mut self.open) {
            self.share(key, files);
        }
        self.shared
    }
}

/// Whether the path `rel` lies in the folder `folder` (both relative, `/`-separated).
fn is_under(rel: &str, folder: &str) -> bool {
    rel.strip_prefix(folder)
        .is_some_and(|rest| rest.starts_with('/'))
}

/// One unit of `run`'s parallel work.
enum Work<'s> {
    /// A selected file.
    File(Cow<'s, Cassette>),
    /// A dsh scenario, checked whole.
    Scenario(Cow<'s, Scenario>),
}

/// What a unit of work gives.
enum Done {
    File(FileResult),
    Scenario(
        Result<ScenarioStats, FileProblem>,
        Vec<(Finding, Option<String>)>,
    ),
}

fn collisions(
    names: &BTreeMap<(String, String), Vec<String>>,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    for ((_, name), paths) in names {
        if paths.len() < 2 {
            continue;
        }
        for path in paths {
            let others: Vec<&str> = paths
                .iter()
                .filter(|p| *p != path)
                .map(String::as_str)
                .collect();
            let message = format!(
                "has the same key material as {}: both are {name} to the harness, which reads only one (`vcr rehash` merges identical ones and refuses the rest)",
                others.join(", ")
            );
            push(
                checks,
                out,
                Finding::new(FindingId::NameCollision, Severity::Error, path, message),
                None,
            );
        }
    }
}

fn usage_findings(
    selection: &Selection,
    usage: &Usage,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    // The same question `vcr prune` asks (dsh scenarios are used as a whole, HTTP cassettes
    // judged per recorder format), so the two never disagree on what is an orphan.
    let formats = crate::usage::http_formats(selection);
    for cassette in usage.judge(selection, &formats).unused {
        let message = "no test read this cassette in the usage log; if the run was complete, `vcr prune` removes it".to_owned();
        push(
            checks,
            out,
            Finding::new(FindingId::Orphan, Severity::Warning, &cassette.rel, message),
            None,
        );
    }
    for path in usage.missed() {
        let message =
            "a test looked for this cassette and did not find it; record it (`vcr record`)"
                .to_owned();
        push(
            checks,
            out,
            Finding::new(FindingId::Missing, Severity::Error, path, message),
            None,
        );
    }
}
