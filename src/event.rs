//! What the library has to say, as values: the events commands emit and the traits through
//! which the binary receives them.
//!
//! The library never prints. A command calls [`Report::report`] for each thing worth telling,
//! in a deterministic order (sorted by path), and the binary decides how it looks: human
//! text, JSON, SARIF. Paths in events are relative to the project root and `/`-separated.

use serde::Serialize;

/// Something a command has to tell.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event<'a> {
    /// A cassette differs from its canonical form: rewritten, or would be (`--check`).
    Normalized {
        /// The cassette.
        path: &'a str,
        /// Whether the file was written (false under `--check`).
        written: bool,
        /// The unified diff, when asked for.
        #[serde(skip_serializing_if = "Option::is_none")]
        diff: Option<&'a str>,
    },
    /// A cassette's name is not the hash of its key material under the current rules.
    StaleName {
        /// The cassette.
        path: &'a str,
        /// The name the harness would look up.
        expected: &'a str,
    },
    /// A cassette was (or, in a dry run, would be) renamed.
    Renamed {
        /// The old path.
        from: &'a str,
        /// The new path.
        to: &'a str,
        /// Whether its key material was rewritten by the rules too.
        rewritten: bool,
        /// Whether it happened (false in a dry run).
        done: bool,
    },
    /// A cassette identical to another one that takes the same name was (or would be)
    /// removed.
    Merged {
        /// The removed twin.
        from: &'a str,
        /// The cassette it is identical to.
        into: &'a str,
        /// Whether it happened (false in a dry run).
        done: bool,
    },
    /// Two or more different cassettes have, or would get, the same name.
    Collision {
        /// The shared name.
        name: &'a str,
        /// The cassettes.
        paths: &'a [String],
    },
    /// A name longer than file systems allow (255 bytes): the harness cannot open it.
    NameTooLong {
        /// The cassette.
        path: &'a str,
        /// Length of the name in bytes.
        bytes: usize,
    },
    /// A file could not be processed; it was skipped and the run went on.
    FileError {
        /// The file.
        path: &'a str,
        /// The finding id (`parse`, `schema`, `io`).
        id: &'a str,
        /// 1-based line, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<usize>,
        /// 1-based column, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        column: Option<usize>,
        /// What is wrong.
        message: &'a str,
    },
    /// A file changed after the run read it (an editor saved it, `git checkout` replaced
    /// it), so the run left it as it is instead of replacing it with a rewrite of what it
    /// read.
    Changed {
        /// The file.
        path: &'a str,
        /// What was not done to it: `rewritten`, `renamed`, `deleted`, `moved aside`, ...
        action: &'a str,
    },
    /// An interrupted run left cassettes aside; a read-only command reports it instead of
    /// passing over it, and the next mutating command finishes it.
    Interrupted {
        /// The interrupted command.
        command: &'a str,
        /// How many cassettes are aside (under `.vcr-old-*` names, or in `.vcr/stash/`).
        cassettes: usize,
    },
    /// A path given on the command line could not be used.
    PathError {
        /// What is wrong, path included.
        message: &'a str,
    },
    /// A dsh scenario was checked: what the harness would load from it.
    Scenario {
        /// The folder.
        path: &'a str,
        /// Session scripts: the primary and one per child log.
        sessions: usize,
        /// Model calls in those scripts, overrides applied.
        calls: usize,
    },
    /// A cassette was left out on purpose.
    Skipped {
        /// The file.
        path: &'a str,
        /// Why.
        reason: &'a str,
    },
    /// An interrupted run was completed before this one started.
    Recovered {
        /// The interrupted command.
        command: &'a str,
        /// How many moves its plan had.
        moves: usize,
        /// How many of them were left undone: their files changed since that run read them
        /// (each also reported as [`Event::Changed`]).
        left: usize,
    },
    /// A temporary file left by a killed run was removed.
    TempRemoved {
        /// The file.
        path: &'a str,
    },
    /// A cassette (or dsh scenario folder) no usage source read (`vcr prune`).
    Orphan {
        /// The cassette or scenario folder.
        path: &'a str,
        /// Its files.
        files: usize,
        /// Their total size in bytes.
        bytes: u64,
        /// Whether git tracks it (git can bring it back).
        tracked: bool,
        /// Whether it was deleted.
        deleted: bool,
    },
    /// What a `vcr record` run did to a cassette.
    Recorded {
        /// The cassette.
        path: &'a str,
        /// Added, changed, removed, unchanged, or kept (moved aside and not re-recorded).
        change: crate::record::Change,
    },
    /// A file beside the cassettes (an expected output, a sidecar) that a green recording
    /// run added, changed or removed. vcr does not know its format: it is listed for review,
    /// not normalized or verified.
    Touched {
        /// The file.
        path: &'a str,
        /// Added, changed or removed.
        change: crate::record::Change,
    },
    /// A file that a failed or interrupted recording run added, changed or removed, left as
    /// the run left it. It is a cassette that was neither normalized, re-keyed nor verified,
    /// or a file beside the cassettes.
    LeftBehind {
        /// The file.
        path: &'a str,
        /// Added, changed or removed.
        change: crate::record::Change,
        /// Whether it is a cassette.
        cassette: bool,
    },
    /// A cassette was moved aside under `.vcr/stash/` to be recorded again.
    Stashed {
        /// The cassette.
        path: &'a str,
    },
    /// A cassette moved aside came back, was replaced by its new recording, or was kept in
    /// the stash because a run that did not succeed recorded it again.
    Unstashed {
        /// The cassette.
        path: &'a str,
        /// `restored`, `replaced` or `kept`.
        outcome: &'a str,
        /// Where the old copy is, when kept.
        #[serde(skip_serializing_if = "Option::is_none")]
        stash: Option<&'a str>,
    },
    /// A value `normalize` replaced in an HTTP cassette.
    Scrubbed {
        /// The cassette.
        path: &'a str,
        /// Line of the scalar rewritten (1-based).
        line: usize,
        /// Column of the scalar rewritten (1-based).
        column: usize,
        /// The readable path of the scalar.
        pointer: &'a str,
        /// The rules that changed it.
        rule: &'a str,
        /// Whether the file was written.
        written: bool,
    },
    /// A scrubbed value the recorder matches requests by: replay no longer matches the live
    /// request unless the test filters it the same way.
    ReplayAffected {
        /// The cassette.
        path: &'a str,
        /// The interaction's index.
        interaction: usize,
        /// What changed.
        what: &'a str,
        /// The recorder setting that makes it match again.
        setting: &'a str,
    },
    /// A finding of `vcr verify`.
    Finding(&'a crate::finding::Finding),
    /// One cassette compared by `vcr diff`.
    Diff(&'a crate::diff::Entry),
}

/// A file that could not be processed, ready to report as an [`Event::FileError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// `io`, `parse` or `schema`.
    pub id: &'static str,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl FileProblem {
    pub(crate) fn io(e: &dyn std::fmt::Display) -> FileProblem {
        FileProblem {
            id: "io",
            line: None,
            column: None,
            message: e.to_string(),
        }
    }

    /// A dsh log's problem found while streaming it: the place it carries.
    pub(crate) fn log(problem: crate::kind::dsh::Problem) -> FileProblem {
        FileProblem {
            id: problem.id,
            line: problem.line,
            column: problem.column,
            message: crate::kind::CassetteError::Log(problem).to_string(),
        }
    }

    pub(crate) fn cassette(e: &crate::kind::CassetteError, bytes: &[u8]) -> FileProblem {
        FileProblem::cassette_at(e, e.position(bytes))
    }

    /// A cassette's problem found while streaming it, at the place found for it then.
    pub(crate) fn cassette_at(
        e: &crate::kind::CassetteError,
        at: Option<crate::json::Position>,
    ) -> FileProblem {
        FileProblem {
            id: e.id(),
            line: at.map(|p| p.line),
            column: at.map(|p| p.column),
            // A read error may quote the file (a field's value): masked as every output is.
            message: crate::lint::Scanner::mask_message(&e.to_string()),
        }
    }

    /// Reports the problem of the file at `path`.
    pub fn report(&self, path: &str, report: &dyn Report) {
        report.report(&Event::FileError {
            path,
            id: self.id,
            line: self.line,
            column: self.column,
            message: &self.message,
        });
    }
}

/// An error's message followed by each of its causes, `: `-separated, as the binary prints
/// errors: for the library's errors that become the text of an event. Their own messages
/// never repeat their cause (it is their `source`), so this is where the cause is said.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

/// Receives events. Implementations must be thread-safe; events arrive in a deterministic
/// order from one thread at a time.
pub trait Report: Send + Sync {
    /// Takes one event.
    fn report(&self, event: &Event<'_>);
}

/// Receives progress of long runs (the binary draws a bar on a terminal).
pub trait Progress: Sync {
    /// `total` units of work are coming.
    fn start(&self, _total: u64) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
    /// `n` more units of work are coming: work that is found as it goes started at none.
    fn found(&self, _n: u64) {}
    /// Work found as it went is over.
    fn finish(&self) {}
    /// Runs `print` with the progress hidden: what is printed while the work goes on (the
    /// findings of `verify`) does not mix with a bar drawn on the terminal.
    fn suspend(&self, print: &mut dyn FnMut()) {
        print();
    }
}

/// Progress nobody watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Processes `items` on every core, handing results to `sink` in the items' order.
///
/// At most 256 items (`WINDOW`) are in flight or waiting for an earlier one, so memory holds a
/// window of results however large the tree, and the output is the same whatever the
/// scheduling. The window slides: a core that finishes an item starts the next one at once,
/// instead of waiting, as fixed chunks did, for the slowest item of its chunk (on the corpus,
/// a few files of megabytes left one core idle for a third of the run; issue 12). The calling
/// thread and one worker per other thread of the pool claim items in turn; the calling thread
/// hands results over between its own items, and once nothing is left to claim it sleeps
/// until a batch is ready (see `Window`).
pub fn par_ordered<T: Sync, R: Send>(
    items: &[T],
    progress: &dyn Progress,
    work: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(&T, R),
) {
    progress.start(items.len() as u64);
    ordered(
        items.iter(),
        None,
        &|item| work(item),
        &mut |item, result| {
            progress.advance(1);
            sink(item, result);
        },
    );
}

/// [`par_ordered`] over items drawn from `items` as the cores free up, never all held: a
/// whole-tree `verify` draws its files from the walk that finds them (issue 25). `items` is
/// called on one thread at a time. Each item is handed back to `sink` with its result.
/// `progress` is told `total` when it is known; otherwise it learns of each item as it is
/// drawn.
pub fn par_ordered_iter<T: Send, R: Send>(
    items: impl Iterator<Item = T> + Send,
    total: Option<usize>,
    progress: &dyn Progress,
    work: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(T, R),
) {
    progress.start(total.unwrap_or(0) as u64);
    let found = total.is_none().then_some(progress);
    ordered(items, found, &work, &mut |item, result| {
        progress.advance(1);
        sink(item, result);
    });
    if found.is_some() {
        progress.finish();
    }
}

/// The loop of [`par_ordered`] and [`par_ordered_iter`]: `found` learns of each item drawn.
fn ordered<T: Send, R: Send>(
    items: impl Iterator<Item = T> + Send,
    found: Option<&dyn Progress>,
    work: &(dyn Fn(&T) -> R + Sync),
    sink: &mut dyn FnMut(T, R),
) {
    let source = Source::new(items, found);
    if rayon::current_thread_index().is_some() {
        // Called from a worker of the pool: waiting on a channel here could leave no worker
        // to do the work. Fixed chunks instead.
        use rayon::prelude::*;
        loop {
            let chunk: Vec<T> =
                std::iter::from_fn(|| source.claim(usize::MAX).map(|(_, item)| item))
                    .take(WINDOW)
                    .collect();
            if chunk.is_empty() {
                return source.pass_panic_on();
            }
            let results: Vec<(T, R)> = chunk
                .into_par_iter()
                .map(|item| {
                    let result = work(&item);
                    (item, result)
                })
                .collect();
            for (item, result) in results {
                sink(item, result);
            }
        }
    }
    let shared = Window {
        state: std::sync::Mutex::new(WindowState {
            ready: std::collections::VecDeque::from_iter((0..WINDOW).map(|_| None)),
            emitted: 0,
            total: None,
            main_waits: false,
            workers_waiting: 0,
            stop: false,
        }),
        main: std::sync::Condvar::new(),
        workers: std::sync::Condvar::new(),
    };
    let (shared, source) = (&shared, &source);
    rayon::in_place_scope(|scope| {
        // Stops the workers however this thread leaves the scope (a panic passed on, or in
        // the sink), so that the scope's wait for them ends.
        let _stop = StopOnDrop(shared);
        // The calling thread is one of the workers: with a thread of its own for the sink
        // beside one per core, the three took turns on two cores, with about a thousand
        // context switches per whole-tree `verify` against ripgrep's twenty (issue 12).
        for _ in 1..rayon::current_num_threads() {
            scope.spawn(move |_| shared.work(source, work));
        }
        let mut batch = Vec::new();
        loop {
            let emitted = shared.lock().emitted;
            match source.claim(emitted + WINDOW) {
                Some((i, item)) => {
                    let result = do_item(work, &item);
                    shared.file(i, item, result);
                    shared.take_ready(&mut batch, false);
                }
                None => {
                    if let Some(total) = source.total() {
                        shared.ends_at(total);
                    }
                    if !shared.take_ready(&mut batch, true) {
                        break;
                    }
                }
            }
            for (item, result) in batch.drain(..) {
                match result {
                    Ok(result) => sink(item, result),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        }
    });
    source.pass_panic_on();
}

/// Where `par_ordered`'s workers draw items, one at a time, each with its number.
struct Source<'p, I> {
    items: std::sync::Mutex<Drawn<I>>,
    found: Option<&'p dyn Progress>,
    /// A panic of `next`, passed on by the calling thread once what was drawn before it is
    /// handed over.
    panic: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

/// The items, how many were drawn, and whether they ran out.
struct Drawn<I> {
    items: I,
    drawn: usize,
    out: bool,
}

impl<T, I: Iterator<Item = T>> Source<'_, I> {
    fn new(items: I, found: Option<&dyn Progress>) -> Source<'_, I> {
        Source {
            items: std::sync::Mutex::new(Drawn {
                items,
                drawn: 0,
                out: false,
            }),
            found,
            panic: std::sync::Mutex::default(),
        }
    }

    /// The next item and its number, if there is one numbered below `limit`.
    fn claim(&self, limit: usize) -> Option<(usize, T)> {
        let mut drawn = self
            .items
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if drawn.out || drawn.drawn >= limit {
            return None;
        }
        // A panic in `next` ends the items, so that no thread waits for more.
        let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drawn.items.next()));
        let item = match next {
            Ok(Some(item)) => item,
            Ok(None) => {
                drawn.out = true;
                return None;
            }
            Err(panic) => {
                drawn.out = true;
                *self
                    .panic
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(panic);
                return None;
            }
        };
        drawn.drawn += 1;
        if let Some(found) = self.found {
            found.found(1);
        }
        Some((drawn.drawn - 1, item))
    }

    /// Passes a panic of the items' `next` on.
    fn pass_panic_on(&self) {
        let panic = self
            .panic
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(panic) = panic {
            std::panic::resume_unwind(panic);
        }
    }

    /// How many items there are, once they have run out.
    fn total(&self) -> Option<usize> {
        let drawn = self
            .items
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        drawn.out.then_some(drawn.drawn)
    }
}

/// Runs one item, keeping a panic to pass on in the item's turn.
fn do_item<T, R>(work: &(dyn Fn(&T) -> R + Sync), item: &T) -> std::thread::Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)))
}

/// The results `par_ordered`'s workers hand to the calling thread, in a window of `WINDOW`
/// items from the first not yet handed over. Workers draw items one at a time and wake the
/// caller, when it sleeps, only when a batch is ready: a channel message and a pool job per
/// item cost a tenth of a whole-tree `verify` in thread wake-ups (issue 12).
struct Window<T, R> {
    state: std::sync::Mutex<WindowState<T, R>>,
    /// Where the calling thread waits for results.
    main: std::sync::Condvar,
    /// Where workers wait for room in the window.
    workers: std::sync::Condvar,
}

/// An item's result, with the item.
type Slot<T, R> = Option<(T, std::thread::Result<R>)>;

struct WindowState<T, R> {
    /// Slot `i` holds the result of item `emitted + i`, once done.
    ready: std::collections::VecDeque<Slot<T, R>>,
    /// Items handed over so far.
    emitted: usize,
    /// How many items there are, once they have run out.
    total: Option<usize>,
    /// Whether the calling thread sleeps, waiting for a batch.
    main_waits: bool,
    /// Workers asleep, waiting for room in the window.
    workers_waiting: usize,
    /// Set when the calling thread leaves: workers claim nothing more.
    stop: bool,
}

/// Results the calling thread is woken for at once, unless fewer are left.
const BATCH: usize = 16;

impl<T: Send, R: Send> Window<T, R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, WindowState<T, R>> {
        // A panic never happens while the lock is held (work runs outside it).
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A worker's loop: draw the next item, wait for room in the window, do it, file it.
    fn work<I: Iterator<Item = T>>(&self, source: &Source<'_, I>, work: &(dyn Fn(&T) -> R + Sync)) {
        loop {
            let Some((i, item)) = source.claim(usize::MAX) else {
                if let Some(total) = source.total() {
                    self.ends_at(total);
                }
                return;
            };
            {
                let mut state = self.lock();
                while !state.stop && i >= state.emitted + WINDOW {
                    state.workers_waiting += 1;
                    state = self
                        .workers
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    state.workers_waiting -= 1;
                }
                if state.stop {
                    return;
                }
            }
            let result = do_item(work, &item);
            self.file(i, item, result);
        }
    }

    /// The items have run out at `total`: the calling thread, if it waits for a batch,
    /// may now have one.
    fn ends_at(&self, total: usize) {
        let mut state = self.lock();
        state.total = Some(total);
        if state.main_waits && Self::batch_ready(&state) {
            state.main_waits = false;
            self.main.notify_one();
        }
    }

    /// Files item `i`'s result, waking the calling thread if it waits and a batch is ready.
    fn file(&self, i: usize, item: T, result: std::thread::Result<R>) {
        let mut state = self.lock();
        let slot = i - state.emitted;
        state.ready[slot] = Some((item, result));
        if state.main_waits && Self::batch_ready(&state) {
            state.main_waits = false;
            self.main.notify_one();
        }
    }

    /// Whether the calling thread has enough to do: `BATCH` results in a row from the first
    /// not handed over, or every result left, or nothing left at all. One of the three
    /// always comes: the items of a full window all finish, and a window holds more than
    /// `BATCH`.
    fn batch_ready(state: &WindowState<T, R>) -> bool {
        let left = state
            .total
            .map_or(usize::MAX, |total| total - state.emitted);
        let run = state.ready.iter().take_while(|r| r.is_some()).count();
        left == 0 || (run > 0 && run >= BATCH.min(left))
    }

    /// Moves the results ready in order into `batch`; with `wait`, waits until there is a
    /// batch (there is nothing left for the calling thread to claim). False when every item
    /// has been handed over.
    fn take_ready(&self, batch: &mut Vec<(T, std::thread::Result<R>)>, wait: bool) -> bool {
        let mut state = self.lock();
        while wait && !Self::batch_ready(&state) {
            state.main_waits = true;
            state = self
                .main
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        state.main_waits = false;
        let before = state.emitted;
        while let Some(Some(_)) = state.ready.front() {
            let result = state.ready.pop_front().flatten().expect("a result");
            batch.push(result);
            state.emitted += 1;
            state.ready.push_back(None);
        }
        if state.emitted > before && state.workers_waiting > 0 {
            self.workers.notify_all();
        }
        state.total != Some(before) || !batch.is_empty()
    }
}

/// Stops `par_ordered`'s workers when dropped.
struct StopOnDrop<'w, T, R>(&'w Window<T, R>);

impl<T, R> Drop for StopOnDrop<'_, T, R> {
    fn drop(&mut self) {
        let mut state = self
            .0
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.stop = true;
        self.0.workers.notify_all();
    }
}

/// How many items `par_ordered` has in flight or held for order at most.
const WINDOW: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    /// Results come in the items' order whatever each takes, with at most `WINDOW` items
    /// started and not yet handed over, and a slow item holds back only what comes after it
    /// (issue 12).
    #[test]
    fn par_ordered_keeps_order_and_a_bounded_window() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let items: Vec<usize> = (0..2_000).collect();
        let started = AtomicUsize::new(0);
        let mut emitted = 0;
        let mut widest = 0;
        par_ordered(
            &items,
            &NoProgress,
            |&i| {
                started.fetch_add(1, Ordering::SeqCst);
                // Every 97th item is slow, the others vary.
                let micros = if i % 97 == 0 { 2_000 } else { (i * 7919) % 50 };
                std::thread::sleep(std::time::Duration::from_micros(micros as u64));
                i * 2
            },
            |&i, result| {
                assert_eq!(i, emitted, "in order");
                assert_eq!(result, i * 2);
                emitted += 1;
                widest = widest.max(started.load(Ordering::SeqCst) - (emitted - 1));
            },
        );
        assert_eq!(emitted, items.len());
        assert!(widest <= WINDOW, "{widest} items in flight");
    }

    /// Items drawn from an iterator as the cores free up come back in order, each with its
    /// result, with no more than `WINDOW` drawn ahead of the last handed over; progress
    /// learns of each as it is drawn (issue 25).
    #[test]
    fn par_ordered_iter_draws_items_as_it_goes() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        #[derive(Default)]
        struct Counted(AtomicUsize, AtomicUsize);
        impl Progress for Counted {
            fn found(&self, n: u64) {
                self.0.fetch_add(n as usize, Ordering::SeqCst);
            }
            fn advance(&self, n: u64) {
                self.1.fetch_add(n as usize, Ordering::SeqCst);
            }
        }
        let drawn = AtomicUsize::new(0);
        let items = (0..3_000usize).map(|i| {
            drawn.fetch_add(1, Ordering::SeqCst);
            i.to_string()
        });
        let progress = Counted::default();
        let mut emitted = 0;
        let mut widest = 0;
        par_ordered_iter(
            items,
            None,
            &progress,
            |item: &String| {
                let i: usize = item.parse().unwrap();
                let micros = if i.is_multiple_of(89) {
                    1_500
                } else {
                    (i * 7919) % 40
                };
                std::thread::sleep(std::time::Duration::from_micros(micros as u64));
                i * 3
            },
            |item, result| {
                assert_eq!(item, emitted.to_string(), "in order");
                assert_eq!(result, emitted * 3);
                emitted += 1;
                widest = widest.max(drawn.load(Ordering::SeqCst) - emitted);
            },
        );
        assert_eq!(emitted, 3_000);
        assert!(widest <= WINDOW, "{widest} items drawn ahead");
        assert_eq!(progress.0.load(Ordering::SeqCst), 3_000);
        assert_eq!(progress.1.load(Ordering::SeqCst), 3_000);
        // No item at all, and fewer than a batch.
        let mut none = 0;
        par_ordered_iter(
            std::iter::empty::<usize>(),
            None,
            &NoProgress,
            |&i| i,
            |_, _| none += 1,
        );
        assert_eq!(none, 0);
        let mut few = Vec::new();
        par_ordered_iter(0..5usize, Some(5), &NoProgress, |&i| i, |i, _| few.push(i));
        assert_eq!(few, [0, 1, 2, 3, 4]);
    }

    /// A panic while drawing an item reaches the caller, after the items drawn before it,
    /// instead of leaving the run waiting for more; inside the pool too.
    #[test]
    fn par_ordered_iter_passes_a_panic_of_the_items_on() {
        for nested in [false, true] {
            let mut handed = 0;
            let items = (0..1_000usize).inspect(|&i| assert!(i != 700, "item 700 cannot be drawn"));
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let run = || par_ordered_iter(items, None, &NoProgress, |&i| i, |_, _| handed += 1);
                if nested {
                    rayon::scope(|_| run());
                } else {
                    run();
                }
            }));
            assert!(outcome.is_err());
            assert_eq!(handed, 700, "nested: {nested}");
        }
    }

    /// A panic in the work reaches the caller instead of hanging the run.
    #[test]
    fn par_ordered_passes_a_panic_on() {
        let items: Vec<usize> = (0..600).collect();
        let outcome = std::panic::catch_unwind(|| {
            par_ordered(
                &items,
                &NoProgress,
                |&i| assert!(i != 450, "item 450 fails"),
                |_, ()| {},
            );
        });
        assert!(outcome.is_err());
    }

    /// A panic in the sink (the calling thread) stops the workers instead of leaving the
    /// scope waiting for them.
    #[test]
    fn par_ordered_passes_a_panic_in_the_sink_on() {
        let items: Vec<usize> = (0..5_000).collect();
        let outcome = std::panic::catch_unwind(|| {
            par_ordered(
                &items,
                &NoProgress,
                |&i| i,
                |_, i| assert!(i != 300, "sink fails"),
            );
        });
        assert!(outcome.is_err());
    }

    /// Called from inside the pool (a nested use), it still finishes, in order.
    #[test]
    fn par_ordered_works_inside_the_pool() {
        let items: Vec<usize> = (0..700).collect();
        let sums: Vec<usize> = rayon::scope(|_| {
            let mut out = Vec::new();
            par_ordered(&items, &NoProgress, |&i| i + 1, |_, r| out.push(r));
            out
        });
        assert_eq!(sums, (1..=700).collect::<Vec<_>>());
    }

    #[test]
    fn an_error_chain_says_each_cause_once() {
        // Issue 11: messages leave their cause to `source`, and a chain says it once.
        let e = crate::store::StoreError::Io {
            op: "write",
            path: "fixtures/a.json".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(e.to_string(), "cannot write fixtures/a.json");
        assert_eq!(
            error_chain(&e),
            "cannot write fixtures/a.json: entity not found"
        );
    }
}
