//! Everything a command needs, resolved once from the command line, the environment and the
//! configuration: the project, its store, the reporter and the progress bar.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use vcr_cassette::http::ReadOptions;

use anyhow::{Context as _, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use vcr_cassette::rules::Platform;
use vcr_ops::event::{Event, Progress, Report};
use vcr_project::config::{Overrides, ProcessEnv};
use vcr_project::store::{Fault, Lock, Store};
use vcr_project::tree::{Project, Selection};

use crate::cli::{ColorChoice, GlobalArgs, Output, PlatformArg};
use crate::report::{Reporter, Verbosity};

/// Testing hooks: abort before the N-th change to the file system, or fail it and every
/// later one as a full disk would (see `Store::with_fault`).
const FAULT_ENV: [(&str, Fault); 2] = [
    ("VCR_FAULT_KILL_AFTER", Fault::Kill),
    ("VCR_FAULT_FAIL_AFTER", Fault::Fail),
];

/// Testing hook: `1` reads every message fixture as one whole value, and every
/// `[[cassettes]]` JSONL log whole (`ReadOptions::streaming`).
const WHOLE_VALUES_ENV: &str = "VCR_TEST_WHOLE_VALUES";

/// Testing hook: `1` searches HTTP cassettes for field names and comment lines as before
/// issue 12 (`ReadOptions::folded_search`).
const BYTE_SEARCH_ENV: &str = "VCR_TEST_BYTE_SEARCH";

/// Testing hook: `1` reads every YAML document through saphyr's events, as before issue 12
/// (`ReadOptions::fast_yaml`).
const YAML_EVENTS_ENV: &str = "VCR_TEST_YAML_EVENTS";

/// Testing hook: how many bytes of entries make a window of an HTTP cassette read in windows,
/// and how large a file must be to be read so (`ReadOptions::http_window`).
const HTTP_WINDOW_ENV: &str = "VCR_TEST_HTTP_WINDOW";

/// Testing hook: a folder where the run waits before its first change to the tree (see
/// `Store::with_barrier`).
const BARRIER_ENV: &str = "VCR_TEST_BARRIER";

/// How cassettes are read: the fast paths, unless a testing hook asks for the one an
/// optimisation replaced (the tests run both and compare them).
pub(crate) fn read_options() -> ReadOptions {
    let on = |name: &str| std::env::var_os(name).is_some_and(|v| v == "1");
    ReadOptions {
        fast_yaml: !on(YAML_EVENTS_ENV),
        streaming: !on(WHOLE_VALUES_ENV),
        folded_search: !on(BYTE_SEARCH_ENV),
        http_window: std::env::var(HTTP_WINDOW_ENV)
            .ok()
            .and_then(|v| v.parse().ok()),
    }
}

pub(crate) struct Context {
    pub(crate) working_dir: PathBuf,
    home: Option<String>,
    pub(crate) project: Project,
    pub(crate) store: Store,
    pub(crate) reporter: Reporter,
    progress: Bar,
    /// The staged files, asked of git before the project was opened ([`Ask::Staged`]).
    staged: std::sync::Mutex<Option<std::thread::JoinHandle<StagedFiles>>>,
}

/// What `git::staged` answers.
type StagedFiles = Result<BTreeMap<PathBuf, Vec<u8>>, vcr_project::git::GitError>;

/// What a command will ask git for, so that it is asked first and answered while the project
/// is opened (a pre-commit hook pays for every millisecond, on every commit: issue 44).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ask {
    /// Nothing.
    Nothing,
    /// The staged files (`verify --staged`).
    Staged,
}

impl Context {
    pub(crate) fn new(
        global: &GlobalArgs,
        output: Output,
        ask: Ask,
    ) -> Result<Context, (Reporter, anyhow::Error)> {
        let verbosity = if global.quiet {
            Verbosity::Quiet
        } else if global.verbose > 0 {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        };
        let color = use_color(global.color, std::io::stdout().is_terminal());
        let color_stderr = use_color(global.color, std::io::stderr().is_terminal());
        let reporter = Reporter::new(output, verbosity, color, color_stderr);
        match Self::open(global, ask) {
            Ok((working_dir, project, store, staged)) => Ok(Context {
                working_dir,
                home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
                project,
                store,
                progress: Bar::new(verbosity > Verbosity::Quiet && std::io::stderr().is_terminal()),
                reporter,
                staged: std::sync::Mutex::new(staged),
            }),
            Err(e) => Err((reporter, e)),
        }
    }

    #[allow(clippy::type_complexity)]
    fn open(
        global: &GlobalArgs,
        ask: Ask,
    ) -> Result<(
        PathBuf,
        Project,
        Store,
        Option<std::thread::JoinHandle<StagedFiles>>,
    )> {
        // An absolute -C does not need the current folder, which may have been removed.
        let working_dir = match &global.directory {
            Some(dir) if dir.is_absolute() => dir.clone(),
            Some(dir) => std::env::current_dir()
                .context("cannot read the current directory (give -C an absolute path)")?
                .join(dir),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        if !working_dir.is_dir() {
            anyhow::bail!("-C {}: no such directory", working_dir.display());
        }
        // git is started here, not on the thread that waits for it: a new thread may wait
        // milliseconds for a core on a busy machine, and git's run is most of a hook's
        // (issue 44).
        let staged = (ask == Ask::Staged).then(|| {
            let dir = working_dir.clone();
            let started = vcr_project::git::start_staged(&dir);
            std::thread::spawn(move || match started {
                Some(started) => started?.finish(),
                None => vcr_project::git::staged(&dir),
            })
        });
        let overrides = Overrides {
            platform: global.platform.map(|p| match p {
                PlatformArg::Unix => Platform::Unix,
                PlatformArg::Windows => Platform::Windows,
            }),
            no_ignore: global.no_ignore,
            read: read_options(),
        };
        let project = Project::open(
            &working_dir,
            global.config.as_deref(),
            &ProcessEnv,
            &overrides,
        )?;
        let mut store = Store::new(project.root());
        for (name, fault) in FAULT_ENV {
            if let Some(steps) = std::env::var(name).ok().and_then(|v| v.parse().ok()) {
                store = store.with_fault(fault, steps);
            }
        }
        if let Some(dir) = std::env::var_os(BARRIER_ENV) {
            store = store.with_barrier(dir.into());
        }
        Ok((working_dir, project, store, staged))
    }

    /// The staged contents of the repository holding the working folder, by absolute path
    /// (`git::staged`): the answer to the question asked when the context was made, if it
    /// was, else asked now.
    pub(crate) fn staged(&self) -> StagedFiles {
        let asked = self.staged.lock().ok().and_then(|mut slot| slot.take());
        match asked.map(std::thread::JoinHandle::join) {
            Some(Ok(answer)) => answer,
            // The thread cannot panic short of a bug; ask again rather than fail.
            Some(Err(_)) | None => vcr_project::git::staged(&self.working_dir),
        }
    }

    pub(crate) fn report(&self) -> &dyn Report {
        &self.reporter
    }

    pub(crate) fn progress(&self) -> &dyn Progress {
        &self.progress
    }

    /// Takes the lock of a mutating command and completes any run that was interrupted.
    pub(crate) fn begin_mutation(&self) -> Result<Lock> {
        let lock = self.store.lock()?;
        if let Some(recovery) = self.store.recover()? {
            self.reporter.report(&Event::Recovered {
                command: &recovery.command,
                moves: recovery.moves,
                left: recovery.applied.skipped.len(),
            });
            for skipped in &recovery.applied.skipped {
                self.reporter.report(&Event::Changed {
                    path: &self.project.rel(&skipped.path),
                    action: "moved by the recovery",
                });
            }
        }
        // A `vcr record` that was killed leaves its stash live: every cassette it moved
        // aside goes back now (or is kept, if the killed run recorded it again).
        if let Some(done) = self
            .store
            .unstash(vcr_project::store::stash::Replaced::Keep)?
        {
            self.report_unstashed(&done);
        }
        Ok(lock)
    }

    /// For read-only commands: reports (as an error, so the run exits 2) an interrupted run
    /// that left cassettes aside, instead of passing over a tree that is not whole.
    pub(crate) fn check_interrupted(&self) -> Result<()> {
        if let Some(interrupted) = self.store.interrupted()?.filter(|i| i.aside > 0) {
            self.reporter.report(&Event::Interrupted {
                command: &interrupted.command,
                cassettes: interrupted.aside,
            });
        }
        let stashed = self.store.stashed();
        if stashed > 0 {
            self.reporter.report(&Event::Interrupted {
                command: "record",
                cassettes: stashed,
            });
        }
        Ok(())
    }

    /// Reports what became of stashed cassettes.
    pub(crate) fn report_unstashed(&self, done: &[vcr_project::store::stash::Unstashed]) {
        use vcr_project::store::stash::Unstashed;
        for item in done {
            let (path, outcome, stash) = match item {
                Unstashed::Restored { path } => (path, "restored", None),
                Unstashed::Replaced { path } => (path, "replaced", None),
                Unstashed::Kept { path, stash } => (path, "kept", Some(stash.as_str())),
            };
            self.reporter.report(&Event::Unstashed {
                path,
                outcome,
                stash,
            });
        }
    }

    /// Selects the cassettes for `paths` and reports what could not be selected.
    pub(crate) fn select(&self, paths: &[PathBuf]) -> Result<Selection> {
        let selection = self.project.select(paths, &self.working_dir)?;
        self.report_selected(&selection);
        Ok(selection)
    }

    /// Reports the paths a selection could not use, and (verbose) the named files that are
    /// no cassettes.
    pub(crate) fn report_selected(&self, selection: &Selection) {
        for error in &selection.errors {
            self.reporter.report(&Event::PathError {
                message: &error.to_string(),
            });
        }
        for path in &selection.ignored {
            self.reporter.report(&Event::Skipped {
                path,
                reason: "not a cassette vcr knows",
            });
        }
    }

    /// Selects the files `verify` judges: the cassettes, and every other file named on the
    /// command line, linted as text ([`vcr_project::tree::Project::read_named_as_text`]).
    pub(crate) fn select_judged(&self, paths: &[PathBuf], allow_empty: bool) -> Result<Selection> {
        let mut selection = self.project.select(paths, &self.working_dir)?;
        self.project.read_named_as_text(&mut selection);
        self.report_selected(&selection);
        self.check_selected(&selection, allow_empty)?;
        Ok(selection)
    }

    /// Selects the cassettes a check works on (`verify`, `normalize`, `rehash`): nothing
    /// checked is not a pass, so a search that finds no cassette at all, and a configured
    /// folder or glob that selects nothing, are errors unless `allow_empty`.
    pub(crate) fn select_checked(&self, paths: &[PathBuf], allow_empty: bool) -> Result<Selection> {
        let selection = self.select(paths)?;
        self.check_selected(&selection, allow_empty)?;
        Ok(selection)
    }

    /// What [`Context::select_checked`] checks of a selection.
    pub(crate) fn check_selected(&self, selection: &Selection, allow_empty: bool) -> Result<()> {
        if allow_empty {
            return Ok(());
        }
        if let Some(reason) = selection.nothing_found(self.project.root()) {
            anyhow::bail!(reason);
        }
        for error in &selection.selects_nothing {
            self.reporter.report(&Event::PathError {
                message: &format!("{error} (--allow-empty accepts it)"),
            });
        }
        Ok(())
    }

    /// Removes temporary files a killed run left (with the lock held).
    pub(crate) fn remove_stray_temps(&self, selection: &Selection) -> Result<()> {
        for path in self.store.remove_stray_temps(&selection.stray_temps)? {
            self.reporter.report(&Event::TempRemoved {
                path: &self.project.rel(&path),
            });
        }
        Ok(())
    }

    /// This machine's folders that must not appear in cassettes: the working directory,
    /// the home folder and Claude Code's config home. A configured `[CWD]` is not among them:
    /// where the rules apply, `format/unnormalized` reports it, and Claude Code keeps it in
    /// raw stream events, where no one can remove it but by re-recording.
    pub(crate) fn machine_paths(&self) -> Vec<(&'static str, &str)> {
        let mut paths = vec![(
            "working directory",
            self.working_dir.to_str().unwrap_or_default(),
        )];
        if let Some(home) = &self.home {
            paths.push(("home folder", home.as_str()));
        }
        let settings = self.project.claude_code();
        paths.push(("Claude config folder", settings.config_home.as_str()));
        paths
    }

    /// In verbose mode, says which project, configuration and rules this run uses.
    pub(crate) fn announce(&self) -> Result<()> {
        if self.reporter.verbosity() < Verbosity::Verbose {
            return Ok(());
        }
        let config = self
            .project
            .config_path()
            .map_or_else(|| "none (defaults)".to_owned(), |p| p.display().to_string());
        let settings = self.project.claude_code();
        let fingerprint = self.project.rules_for_cwd(".")?.fingerprint();
        self.reporter
            .err(&format!("project root: {}", self.project.root().display()));
        self.reporter.err(&format!("config file: {config}"));
        self.reporter.err(&format!(
            "[CONFIG_HOME]: {}; platform: {:?}; rules fingerprint: {fingerprint}",
            settings.config_home, settings.platform
        ));
        Ok(())
    }
}

fn use_color(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            terminal
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
        }
    }
}

/// A progress bar on stderr that shows itself only on a terminal and only once the work has
/// taken a while, so short runs print nothing extra.
struct Bar {
    bar: Option<ProgressBar>,
    started: std::sync::Mutex<Option<Instant>>,
    /// Whether the work is still being found (its length grows): the bar ends at `finish`,
    /// not when it catches up.
    growing: std::sync::atomic::AtomicBool,
}

const SHOW_AFTER: Duration = Duration::from_millis(400);

impl Bar {
    fn new(enabled: bool) -> Bar {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                    .expect("valid template"),
            );
            bar
        });
        Bar {
            bar,
            started: std::sync::Mutex::new(None),
            growing: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(total);
            *self.started.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        }
    }

    fn advance(&self, n: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(n);
        let started = *self.started.lock().unwrap_or_else(|e| e.into_inner());
        if bar.is_hidden() && started.is_some_and(|t| t.elapsed() > SHOW_AFTER) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        if !self.growing.load(std::sync::atomic::Ordering::Relaxed)
            && bar.position() >= bar.length().unwrap_or(0)
        {
            bar.finish_and_clear();
        }
    }

    fn found(&self, n: u64) {
        if let Some(bar) = &self.bar {
            // The work is found as it goes: a bar always near its end would say nothing,
            // so the count of files checked is shown instead.
            if !self
                .growing
                .swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {pos} files checked {elapsed}")
                        .expect("valid template"),
                );
            }
            bar.inc_length(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            self.growing
                .store(false, std::sync::atomic::Ordering::Relaxed);
            bar.finish_and_clear();
        }
    }

    fn suspend(&self, print: &mut dyn FnMut()) {
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }
}
