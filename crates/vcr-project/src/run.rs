//! The parallel runtime every command runs on: [`par_ordered`] and [`par_ordered_iter`]
//! process files on every core and hand the results back in the files' order; [`Progress`]
//! is told how far they got; a file that could not be processed becomes a [`FileProblem`],
//! which the operations report and the run goes on.

/// A file that could not be processed, ready to report (the operations' `FileError` event).
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
    /// A file that could not be read or written.
    pub fn io(e: &dyn std::fmt::Display) -> FileProblem {
        FileProblem {
            id: "io",
            line: None,
            column: None,
            message: e.to_string(),
        }
    }

    /// A dsh log's problem found while streaming it: the place it carries.
    pub fn log(problem: vcr_cassette::dsh::Problem) -> FileProblem {
        FileProblem {
            id: problem.id.as_str(),
            line: problem.line,
            column: problem.column,
            message: vcr_cassette::CassetteError::Log(problem).to_string(),
        }
    }

    /// A cassette that does not parse or is not the shape of its kind, placed in `bytes`.
    pub fn cassette(e: &vcr_cassette::CassetteError, bytes: &[u8]) -> FileProblem {
        FileProblem::cassette_at(e, e.position(bytes))
    }

    /// A cassette's problem found while streaming it, at the place found for it then.
    pub fn cassette_at(
        e: &vcr_cassette::CassetteError,
        at: Option<vcr_json::Position>,
    ) -> FileProblem {
        FileProblem {
            id: e.id(),
            line: at.map(|p| p.line),
            column: at.map(|p| p.column),
            // A read error may quote the file (a field's value): masked as every output is.
            message: vcr_lint::Scanner::mask_message(&e.to_string()),
        }
    }
}

/// An error's message followed by each of its causes, `: `-separated, as the binary prints
/// errors: for the library's errors that become the text of an event. Their own messages
/// never repeat their cause (it is their `source`), so this is where the cause is said.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
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
