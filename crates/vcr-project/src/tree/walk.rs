//! The walk that selects a tree: files met in the order of their paths, folders read ahead on
//! every core, leaving out what users never want scanned, the way ripgrep and git do (issue
//! 21), and holding no more than the folders on the way down (issue 25).
//!
//! Three kinds of folder are never entered, whatever the flags: version control's own
//! (`.git`, `.hg`, ...) and vcr's (`.vcr`, which holds cassettes moved aside); installed
//! dependencies (`node_modules`, `site-packages`, a virtualenv or conda environment known by
//! the file it always holds, Go's and PHP's `vendor` beside their manifest, Rust's and
//! Maven's `target` beside theirs); and caches that say they are one (`CACHEDIR.TAG`, which
//! pytest, mypy, ruff and cargo write). Hidden folders are entered: git commits them, and a
//! gate reads what git would commit.
//!
//! In a git repository, what git ignores (`.gitignore` files from the repository's top down,
//! `.git/info/exclude`, the user's global excludes) is met as *ignored*: not selected, but
//! still offered to `visit`, so that a cassette left out by an ignore rule is counted rather
//! than skipped in silence. Outside a repository nothing is ignored, as with ripgrep.

use std::fs::FileType;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ignore::gitignore::Gitignore;

/// A folder that could not be read, or one of its entries.
pub(crate) type WalkError = (PathBuf, std::io::Error);

/// Folders never entered, by name alone: version control's, vcr's own state, installed
/// dependencies and byte code, and test-environment managers' folders (their
/// environments are virtualenvs; their other folders hold logs).
const SKIPPED_NAMES: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    ".bzr",
    ".vcr",
    "node_modules",
    "bower_components",
    "__pycache__",
    "site-packages",
    "dist-packages",
    ".tox",
    ".nox",
];

/// Files whose presence makes a folder an environment or a cache, never entered:
/// a virtualenv's `pyvenv.cfg`, a conda environment's `conda-meta`, and the Cache Directory
/// Tagging Specification's `CACHEDIR.TAG`.
const MARKERS: &[&str] = &["pyvenv.cfg", "conda-meta", "CACHEDIR.TAG"];

/// Folders that hold installed dependencies or build output when a manifest sits beside
/// them: `(folder, manifests)`.
const BESIDE_MANIFEST: &[(&str, &[&str])] = &[
    ("vendor", &["go.mod", "composer.json"]),
    ("target", &["Cargo.toml", "pom.xml"]),
];

/// Whether a build folder beside its manifest is one the repository keeps: a Maven or Cargo
/// `target` in a git repository that git does not ignore (committed, or about to be: one
/// project keeps its recorded sessions in `target/test-classes`, issue 41). A build folder
/// outside a repository, or ignored, is build output; `vendor` is dependencies' whatever git
/// says of it.
fn committed(rules: &Rules, name: &str, ignored: bool) -> bool {
    name == "target" && rules.repo.is_some() && !ignored
}

/// Whether a folder named `name` is never entered whatever it holds (what `vcr diff` also
/// leaves out of a git revision, whose folders cannot be looked into).
pub fn is_skipped_name(name: &str) -> bool {
    SKIPPED_NAMES.contains(&name)
}

/// How a walk treats ignored files and configured exclusions.
#[derive(Clone, Copy, Default)]
pub struct Policy<'a> {
    /// Whether git's ignore rules hold (`--no-ignore` turns them off).
    pub gitignore: bool,
    /// Paths the configuration's `exclude` globs leave out: never entered or met.
    pub exclude: Option<&'a (dyn Fn(&Path) -> bool + Sync)>,
}

/// An entry of a folder as read: its path and type, or why it could not be read.
type Listed = Result<(PathBuf, FileType), WalkError>;

/// One file or link of a folder, as the walk hands it to a [`Visit`]: folders are walked,
/// never handed over.
pub(crate) struct Entry {
    /// The file, absolute when the walk started from an absolute folder.
    pub path: PathBuf,
    /// Its name.
    pub name: std::ffi::OsString,
    /// What it is (links are never followed).
    pub file_type: FileType,
    /// Whether git ignores it (see the module's notes).
    pub ignored: bool,
}

/// What a walk makes of one folder's files: called once per folder, on the thread that read
/// it, with the folder and its files and links in order; pushes `(i, item)` for the `i`th
/// file, in order of `i` (an entry may give several items, or none). A folder is seen
/// whole, so that what makes it a fixtures or scenario folder is decided once.
pub(crate) type Visit<'v, R> = dyn Fn(&Path, Vec<Entry>, &mut Vec<(usize, R)>) + Sync + 'v;

/// What a walk yields: an item of a [`Visit`], or a folder or entry that could not be read.
pub(crate) type Met<R> = Result<R, WalkError>;

/// Folders read ahead of the walk by its readers ([`Ahead`]), at most: each holds its
/// folder's items until the walk reaches it.
const AHEAD: usize = 64;

/// A walk of a tree that yields what its [`Visit`] makes of each folder, in the order of
/// the paths as strings (`a-b/x` before `a/x`, as a sorted list of relative paths has
/// them), holding only the folders on the way down to the current one and those read ahead:
/// its memory follows the largest folder, not the tree (a whole-tree `verify` of 60,000
/// cassettes held a list of them all, issue 25). `verify` draws files from it as its cores
/// free up, its folders read ahead by threads of their own ([`Ahead`]); a selection, which
/// holds the tree anyway, reads it all at once ([`collect`]).
pub(crate) struct Walk<'w, 'r, R> {
    policy: Policy<'w>,
    visit: &'w Visit<'w, R>,
    /// The rest of each folder on the way down, the deepest last, each reversed.
    stack: Vec<Vec<Node<R>>>,
    /// Where folders are read ahead, if anywhere.
    ahead: Option<&'r Ahead<R>>,
}

/// An item of a folder's listing, or a subfolder still to be read.
enum Node<R> {
    Met(Met<R>),
    Folder(Arc<Slot<R>>),
}

/// A subfolder's listing: read by the walk when it gets there, unless a reader has read
/// it, or is reading it, ahead ([`Ahead`]).
struct Slot<R> {
    state: std::sync::Mutex<SlotState<R>>,
    done: std::sync::Condvar,
    /// Its place in the walk's order: its path's bytes and a `/`.
    key: Vec<u8>,
}

enum SlotState<R> {
    Waiting(Job),
    Reading,
    Read(Vec<Node<R>>),
    /// The reader's visit panicked: the walk passes the panic on when it gets there.
    Panicked(Box<dyn std::any::Any + Send>),
    Taken,
}

/// What reading one folder needs.
struct Job {
    dir: PathBuf,
    rules: Rules,
    /// Whether git ignores the folder (everything in it is met as ignored).
    ignored: bool,
    /// Whether the folder is the one the walk started from (always read).
    given: bool,
}

impl Job {
    /// The folder a walk starts from: always read, under the rules of the folders above it.
    fn start(dir: &Path, policy: &Policy<'_>) -> Job {
        Job {
            dir: dir.to_owned(),
            rules: if policy.gitignore {
                Rules::above(dir)
            } else {
                Rules::default()
            },
            ignored: false,
            given: true,
        }
    }
}

impl<'w, 'r, R: Send + 'w> Walk<'w, 'r, R> {
    /// A walk of `dir`, which is always entered (a folder given by name is read).
    pub(crate) fn new(
        dir: &Path,
        policy: Policy<'w>,
        visit: &'w Visit<'w, R>,
        ahead: Option<&'r Ahead<R>>,
    ) -> Walk<'w, 'r, R> {
        let job = Job::start(dir, &policy);
        let mut walk = Walk {
            policy,
            visit,
            stack: Vec::new(),
            ahead,
        };
        let listing = read(job, &walk.policy, walk.visit);
        walk.enter(listing);
        walk
    }

    /// Goes down into a folder's listing, sending its subfolders to be read ahead.
    fn enter(&mut self, mut listing: Vec<Node<R>>) {
        if let Some(ahead) = self.ahead {
            ahead.queue(&listing);
        }
        listing.reverse();
        self.stack.push(listing);
    }

    /// A subfolder's listing: read here unless it was read, or is being read, ahead.
    fn take_slot(&self, slot: &Slot<R>) -> Vec<Node<R>> {
        let mut state = slot.lock();
        loop {
            match std::mem::replace(&mut *state, SlotState::Taken) {
                SlotState::Waiting(job) => {
                    drop(state);
                    if let Some(ahead) = self.ahead {
                        ahead.forget(&slot.key);
                    }
                    return read(job, &self.policy, self.visit);
                }
                SlotState::Panicked(panic) => {
                    drop(state);
                    if let Some(ahead) = self.ahead {
                        ahead.taken();
                    }
                    std::panic::resume_unwind(panic);
                }
                SlotState::Read(listing) => {
                    drop(state);
                    if let Some(ahead) = self.ahead {
                        ahead.taken();
                    }
                    return listing;
                }
                SlotState::Reading => {
                    *state = SlotState::Reading;
                    state = slot
                        .done
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                SlotState::Taken => unreachable!("a folder is taken once"),
            }
        }
    }
}

impl<R> Slot<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState<R>> {
        // Nothing panics with the lock held.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Folders read ahead of a [`Walk`] by threads of their own (`read`), the earliest in the
/// walk's order first (but the very earliest, which the walk reads itself), while fewer
/// than `AHEAD` are read and not yet taken: what the walk needs next is read while it hands
/// out what it has (a run that draws files from the walk
/// keeps the pool busy checking them; in a monorepo, the walk is most of the run).
pub(crate) struct Ahead<R> {
    state: std::sync::Mutex<AheadState<R>>,
    /// Where readers wait for a folder to read, or for room.
    wake: std::sync::Condvar,
}

struct AheadState<R> {
    /// Folders met and not yet read, by their place in the walk's order.
    queue: std::collections::BTreeMap<Vec<u8>, Arc<Slot<R>>>,
    /// Folders read, or being read, ahead and not yet taken.
    held: usize,
    stop: bool,
}

impl<R: Send> Ahead<R> {
    pub(crate) fn new() -> Ahead<R> {
        Ahead {
            state: std::sync::Mutex::new(AheadState {
                queue: std::collections::BTreeMap::new(),
                held: 0,
                stop: false,
            }),
            wake: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, AheadState<R>> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Offers a listing's subfolders to the readers.
    fn queue(&self, listing: &[Node<R>]) {
        let mut state = self.lock();
        let before = state.queue.len();
        for node in listing {
            if let Node::Folder(slot) = node {
                state.queue.insert(slot.key.clone(), Arc::clone(slot));
            }
        }
        // Readers are woken when there comes to be something for them (see `read`), and all
        // of them only when there is much: a wake-up per folder was forty thousand context
        // switches in a run over 60,000 files, and a tenth more time.
        let after = state.queue.len();
        if before <= 1 && after > 1 {
            self.wake.notify_one();
        }
        if before < 16 && after >= 16 {
            self.wake.notify_all();
        }
    }

    /// The walk read a folder itself: no reader need look at it.
    fn forget(&self, key: &[u8]) {
        self.lock().queue.remove(key);
    }

    /// The walk took a folder read ahead.
    fn taken(&self) {
        let mut state = self.lock();
        state.held -= 1;
        // Readers wait for room only when it was full.
        if state.held + 1 == AHEAD {
            self.wake.notify_all();
        }
    }

    /// Ends the readers' loops.
    pub(crate) fn stop(&self) {
        self.lock().stop = true;
        self.wake.notify_all();
    }

    /// A reader's loop: read the earliest folder waiting, until `stop`.
    pub(crate) fn read(&self, policy: Policy<'_>, visit: &Visit<'_, R>) {
        loop {
            let slot = {
                let mut state = self.lock();
                loop {
                    if state.stop {
                        return;
                    }
                    // The earliest folder is left to the walk, which needs it next: a reader
                    // that took it would make the walk wait for it.
                    if state.held < AHEAD
                        && let Some(key) = state.queue.keys().nth(1).cloned()
                        && let Some(slot) = state.queue.remove(&key)
                    {
                        state.held += 1;
                        break slot;
                    }
                    state = self
                        .wake
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
            };
            let job = {
                let mut state = slot.lock();
                match std::mem::replace(&mut *state, SlotState::Reading) {
                    SlotState::Waiting(job) => Some(job),
                    other => {
                        *state = other;
                        None
                    }
                }
            };
            let Some(job) = job else {
                // The walk got there first.
                self.lock().held -= 1;
                continue;
            };
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                read(job, &policy, visit)
            }));
            let state = match read {
                Ok(listing) => {
                    self.queue(&listing);
                    SlotState::Read(listing)
                }
                Err(panic) => SlotState::Panicked(panic),
            };
            *slot.lock() = state;
            slot.done.notify_all();
        }
    }
}

impl<'w, R: Send + 'w> Iterator for Walk<'w, '_, R> {
    type Item = Met<R>;

    fn next(&mut self) -> Option<Met<R>> {
        loop {
            let top = self.stack.last_mut()?;
            match top.pop() {
                None => {
                    self.stack.pop();
                }
                Some(Node::Met(met)) => return Some(met),
                Some(Node::Folder(slot)) => {
                    let listing = self.take_slot(&slot);
                    self.enter(listing);
                }
            }
        }
    }
}

/// Stops an [`Ahead`]'s readers when dropped, however the walk ends (a panic passed on
/// too), so that a scope's wait for them ends.
struct StopReaders<'a, R: Send>(&'a Ahead<R>);

impl<R: Send> Drop for StopReaders<'_, R> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Items of a drawn walk handed over at once, and batches held at most (see [`drawn`]).
const BATCH: usize = 256;
const BATCHES: usize = 4;

/// A walk of `dir` that a run draws from as its cores free up, handed to `then`: the walk
/// runs on a thread of its own and hands its items over in batches, so the run's cores
/// never wait on each other for the next file while one of them reads a folder (forty
/// thousand context switches over 60,000 files); folders are read ahead by threads of their
/// own ([`Ahead`]), since the run keeps the pool busy (in a monorepo, the walk is most of the
/// run). Memory holds the batches and the folders read ahead, not the tree.
pub(crate) fn drawn<R: Send, T>(
    dir: &Path,
    policy: Policy<'_>,
    visit: &Visit<'_, R>,
    then: impl FnOnce(&mut (dyn Iterator<Item = Met<R>> + Send)) -> T,
) -> T {
    let ahead = Ahead::new();
    std::thread::scope(|scope| {
        let _stop = StopReaders(&ahead);
        for _ in 0..rayon::current_num_threads() {
            scope.spawn(|| ahead.read(policy, visit));
        }
        let (send, batches) = std::sync::mpsc::sync_channel::<Vec<Met<R>>>(BATCHES);
        let ahead = &ahead;
        scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH);
            for met in Walk::new(dir, policy, visit, Some(ahead)) {
                batch.push(met);
                if batch.len() == BATCH && send.send(std::mem::take(&mut batch)).is_err() {
                    return;
                }
            }
            let _ = send.send(batch);
        });
        then(&mut batches.into_iter().flatten())
    })
}

/// A walk of `dir`, whole: every folder read on the pool's cores at once, in the order of
/// [`Walk`] (on one thread, the walk that selects a whole tree was a twentieth of a
/// whole-tree `verify` over the corpus, with a core idle, issue 12). What is collected is
/// held anyway; a run that must not hold it draws from a [`Walk`].
pub(crate) fn collect<R: Send>(
    dir: &Path,
    policy: Policy<'_>,
    visit: &Visit<'_, R>,
) -> Vec<Met<R>> {
    read_all(Job::start(dir, &policy), &policy, visit)
}

/// A folder's listing with its subfolders', read on every core.
fn read_all<R: Send>(job: Job, policy: &Policy<'_>, visit: &Visit<'_, R>) -> Vec<Met<R>> {
    use rayon::prelude::*;
    read(job, policy, visit)
        .into_par_iter()
        .map(|node| match node {
            Node::Met(met) => vec![met],
            Node::Folder(slot) => match std::mem::replace(&mut *slot.lock(), SlotState::Taken) {
                SlotState::Waiting(job) => read_all(job, policy, visit),
                _ => unreachable!("a folder of a whole walk is read once, by it"),
            },
        })
        .flatten()
        .collect()
}

/// What `visit` makes of each file and link under `dir`, one at a time (links are never
/// followed; folders are not visited), in the order of `Walk`. `visit`'s third argument
/// says whether git ignores the file (see the module's notes).
pub fn walk<R: Send>(
    dir: &Path,
    policy: Policy<'_>,
    visit: &(dyn Fn(PathBuf, FileType, bool) -> Option<R> + Sync),
) -> Vec<Met<R>> {
    let each = |_: &Path, entries: Vec<Entry>, out: &mut Vec<(usize, R)>| {
        for (i, entry) in entries.into_iter().enumerate() {
            if let Some(item) = visit(entry.path, entry.file_type, entry.ignored) {
                out.push((i, item));
            }
        }
    };
    collect(dir, policy, &each)
}

/// Reads one folder: its entries in order, each file's items from `visit` in place, each
/// subfolder the walk enters as a [`Slot`].
fn read<R>(job: Job, policy: &Policy<'_>, visit: &Visit<'_, R>) -> Vec<Node<R>> {
    let Job {
        dir,
        rules,
        ignored,
        given,
    } = job;
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) => return vec![Node::Met(Err((dir, e)))],
    };
    // Each entry with its name, taken from the folder's listing once: a path's name is
    // parsed from its end each time it is asked for, which was a tenth of a monorepo's walk.
    let mut listed: Vec<(std::ffi::OsString, Listed)> = entries
        .map(|entry| match entry {
            Ok(entry) => {
                let path = entry.path();
                let listed = match entry.file_type() {
                    Ok(file_type) => Ok((path, file_type)),
                    Err(e) => Err((path, e)),
                };
                (entry.file_name(), listed)
            }
            Err(e) => (std::ffi::OsString::new(), Err((dir.clone(), e))),
        })
        .collect();
    // By name, a folder's as if it ended in `/`: the order of the paths as strings.
    listed.sort_by(|(a, a_entry), (b, b_entry)| sort_key(a, a_entry).cmp(&sort_key(b, b_entry)));
    // The names, taken once: markers and manifests are asked about some ten times a folder.
    let names: Vec<&std::ffi::OsStr> = listed
        .iter()
        .filter(|(_, entry)| entry.is_ok())
        .map(|(name, _)| name.as_os_str())
        .collect();
    let has = |name: &str| names.iter().any(|n| *n == name);
    if !given && MARKERS.iter().any(|marker| has(marker)) {
        return Vec::new();
    }
    let beside_manifest: Vec<&str> = BESIDE_MANIFEST
        .iter()
        .filter(|(_, manifests)| manifests.iter().any(|m| has(m)))
        .map(|(folder, _)| *folder)
        .collect();
    let rules = if policy.gitignore && !ignored {
        rules.entering(&dir, has(".git"), has(".gitignore"))
    } else {
        rules
    };
    // Each entry's place: a node of its own (an error, a subfolder), or the `i`th file.
    enum Place<R> {
        Node(Node<R>),
        File(usize),
    }
    let mut places: Vec<Place<R>> = Vec::with_capacity(listed.len());
    let mut files: Vec<Entry> = Vec::new();
    for (name, entry) in listed {
        let (path, file_type) = match entry {
            Ok(entry) => entry,
            Err(e) => {
                places.push(Place::Node(Node::Met(Err(e))));
                continue;
            }
        };
        if policy.exclude.is_some_and(|excluded| excluded(&path)) {
            continue;
        }
        let is_dir = file_type.is_dir();
        let entry_ignored = ignored || rules.ignores(&path, is_dir);
        if !is_dir {
            places.push(Place::File(files.len()));
            files.push(Entry {
                path,
                name,
                file_type,
                ignored: entry_ignored,
            });
            continue;
        }
        let name = name.to_string_lossy();
        if is_skipped_name(&name)
            || (beside_manifest.contains(&&*name) && !committed(&rules, &name, entry_ignored))
        {
            continue;
        }
        let mut key = path.as_os_str().as_encoded_bytes().to_vec();
        key.push(b'/');
        places.push(Place::Node(Node::Folder(Arc::new(Slot {
            state: std::sync::Mutex::new(SlotState::Waiting(Job {
                dir: path,
                rules: rules.clone(),
                ignored: entry_ignored,
                given: false,
            })),
            done: std::sync::Condvar::new(),
            key,
        }))));
    }
    let mut items = Vec::new();
    if !files.is_empty() {
        visit(&dir, files, &mut items);
    }
    let mut items = items.into_iter().peekable();
    let mut listing = Vec::with_capacity(places.len());
    for place in places {
        match place {
            Place::Node(node) => listing.push(node),
            Place::File(i) => {
                while let Some((_, item)) = items.next_if(|(at, _)| *at <= i) {
                    listing.push(Node::Met(Ok(item)));
                }
            }
        }
    }
    listing.extend(items.map(|(_, item)| Node::Met(Ok(item))));
    listing
}

/// The bytes an entry sorts by: its name, and a `/` after a folder's, so that a folder's
/// tree sits where its paths sort among its siblings' (`a-b` and `a-b/...` before `a/...`,
/// `a/...` before `a0`).
fn sort_key<'a>(name: &'a std::ffi::OsStr, entry: &Listed) -> SortKey<'a> {
    SortKey {
        name: name.as_encoded_bytes(),
        is_dir: entry.as_ref().is_ok_and(|(_, t)| t.is_dir()),
    }
}

/// See [`sort_key`].
#[derive(PartialEq, Eq)]
struct SortKey<'a> {
    name: &'a [u8],
    is_dir: bool,
}

impl Ord for SortKey<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let slash: &[u8] = b"/";
        let a = self
            .name
            .iter()
            .chain(if self.is_dir { slash } else { &[] });
        let b = other
            .name
            .iter()
            .chain(if other.is_dir { slash } else { &[] });
        a.cmp(b)
    }
}

impl PartialOrd for SortKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The gitignore rules in force in one folder: the `.gitignore` files of the folders from
/// the repository's top down to it (the deepest decides first, as in git), then the
/// repository's `info/exclude`, then the user's global excludes. Empty outside a repository.
#[derive(Clone, Default)]
struct Rules {
    folders: Option<Arc<Folder>>,
    repo: Option<Arc<Repo>>,
}

struct Folder {
    ignore: Gitignore,
    parent: Option<Arc<Folder>>,
}

struct Repo {
    exclude: Gitignore,
}

impl Rules {
    /// The rules in force above `dir`: those of its repository's top and of every folder
    /// between it and `dir`, `dir`'s own excepted (`entering` adds them).
    fn above(dir: &Path) -> Rules {
        let Some(top) = dir
            .ancestors()
            .find(|a| a.join(".git").symlink_metadata().is_ok())
        else {
            return Rules::default();
        };
        let mut rules = Rules::default();
        let below: Vec<&Path> = dir
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(top))
            .collect();
        for folder in below.into_iter().rev() {
            rules = rules.entering(folder, folder == top, folder.join(".gitignore").is_file());
        }
        rules
    }

    /// The rules in force in `dir`: a new repository when it holds `.git` (a nested
    /// repository or submodule answers to its own rules), plus its own `.gitignore`.
    fn entering(&self, dir: &Path, repo_top: bool, gitignore: bool) -> Rules {
        let mut rules = if repo_top {
            Rules {
                folders: None,
                repo: Some(Arc::new(Repo {
                    exclude: Gitignore::new(dir.join(".git/info/exclude")).0,
                })),
            }
        } else {
            self.clone()
        };
        if gitignore && rules.repo.is_some() {
            rules.folders = Some(Arc::new(Folder {
                ignore: Gitignore::new(dir.join(".gitignore")).0,
                parent: rules.folders.take(),
            }));
        }
        rules
    }

    /// Whether git ignores `path`, a file or (`is_dir`) a folder, in a folder these rules
    /// hold in.
    fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        let Some(repo) = &self.repo else {
            return false;
        };
        let mut folder = self.folders.as_deref();
        while let Some(f) = folder {
            let matched = f.ignore.matched(path, is_dir);
            if !matched.is_none() {
                return matched.is_ignore();
            }
            folder = f.parent.as_deref();
        }
        for ignore in [&repo.exclude, global()] {
            let matched = ignore.matched(path, is_dir);
            if !matched.is_none() {
                return matched.is_ignore();
            }
        }
        false
    }
}

/// The user's global excludes (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`),
/// read once.
fn global() -> &'static Gitignore {
    static GLOBAL: OnceLock<Gitignore> = OnceLock::new();
    GLOBAL.get_or_init(|| Gitignore::global().0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn met(root: &Path, policy: Policy<'_>) -> Vec<(String, bool)> {
        walk(root, policy, &|path, _, ignored| {
            Some((crate::tree::relative(root, &path), ignored))
        })
        .into_iter()
        .map(Result::unwrap)
        .collect()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The walk meets what walkdir meets, in the order of the paths as strings, folders
    /// read ahead on every core: files and links (not followed) in place, hidden folders
    /// entered, skipped folders left out.
    #[cfg(unix)]
    #[test]
    fn the_walk_meets_files_in_the_order_of_their_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut n = 0;
        for folder in [
            "",
            "a",
            "a/b",
            "a/b/c",
            "a-b",
            "a0",
            "d",
            "node_modules/x",
            ".git",
            "e/.hidden",
            "f",
        ] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
            for _ in 0..7 {
                n += 1;
                std::fs::write(root.join(folder).join(format!("{n}.txt")), "x").unwrap();
            }
        }
        // A file beside folders its name sorts among (`a.txt` after `a/...`, `a-c` before).
        std::fs::write(root.join("a.txt"), "x").unwrap();
        std::fs::write(root.join("a-c"), "x").unwrap();
        for i in 0..300 {
            std::fs::create_dir_all(root.join(format!("many/{i}/deeper"))).unwrap();
            std::fs::write(root.join(format!("many/{i}/deeper/f")), "x").unwrap();
        }
        std::os::unix::fs::symlink(root.join("a"), root.join("d/link-to-a")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("f/dangling")).unwrap();
        let mut expected: Vec<PathBuf> = walkdir::WalkDir::new(root)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir()
                        && is_skipped_name(&e.file_name().to_string_lossy()))
            })
            .map(Result::unwrap)
            .filter(|e| !e.file_type().is_dir())
            .map(walkdir::DirEntry::into_path)
            .collect();
        expected.sort_by(|a, b| {
            (a.as_os_str().as_encoded_bytes()).cmp(b.as_os_str().as_encoded_bytes())
        });
        let visit_all = |path, _, _| Some(path);
        let met: Vec<PathBuf> = walk(root, Policy::default(), &visit_all)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(met, expected);
        assert_eq!(met.len(), 9 * 7 + 2 + 300 + 2, "{met:#?}");
        // The same, drawn one at a time without reading ahead.
        let visit_each = |_: &Path, entries: Vec<Entry>, out: &mut Vec<(usize, PathBuf)>| {
            out.extend(entries.into_iter().map(|e| e.path).enumerate());
        };
        let drawn: Vec<PathBuf> = Walk::new(root, Policy::default(), &visit_each, None)
            .map(Result::unwrap)
            .collect();
        assert_eq!(drawn, expected);
        // And with folders read ahead by threads of their own.
        let ahead = Ahead::new();
        let drawn: Vec<PathBuf> = std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| ahead.read(Policy::default(), &visit_each));
            }
            let drawn = Walk::new(root, Policy::default(), &visit_each, Some(&ahead))
                .map(Result::unwrap)
                .collect();
            ahead.stop();
            drawn
        });
        assert_eq!(drawn, expected);
        // What `visit` declines is left out, in order.
        let even: Vec<PathBuf> = walk(root, Policy::default(), &|path, file_type, _| {
            (file_type.is_file() && path.to_string_lossy().ends_with("2.txt")).then_some(path)
        })
        .into_iter()
        .map(Result::unwrap)
        .collect();
        let expected: Vec<&PathBuf> = expected
            .iter()
            .filter(|p| p.to_string_lossy().ends_with("2.txt"))
            .collect();
        assert_eq!(even.iter().collect::<Vec<_>>(), expected);
        // A folder that cannot be read is met as an error with its path, once.
        let missing = root.join("missing");
        let met = walk(&missing, Policy::default(), &visit_all);
        let [Err((path, e))] = met.as_slice() else {
            panic!("{met:?}");
        };
        assert_eq!((path, e.kind()), (&missing, std::io::ErrorKind::NotFound));
    }

    /// A visit that panics on a folder read ahead passes its panic on to the walk when it
    /// gets there, instead of leaving it waiting for the folder.
    #[test]
    fn a_panic_reading_ahead_reaches_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["a", "b", "c"] {
            write(root, &format!("{folder}/x"), "x");
        }
        let visit = |dir: &Path, entries: Vec<Entry>, out: &mut Vec<(usize, PathBuf)>| {
            assert!(!dir.ends_with("b"), "cannot read b");
            out.extend(entries.into_iter().map(|e| e.path).enumerate());
        };
        let ahead = Ahead::new();
        let mut drawn = Vec::new();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::thread::scope(|scope| {
                let _stop = StopReaders(&ahead);
                for _ in 0..2 {
                    scope.spawn(|| ahead.read(Policy::default(), &visit));
                }
                for met in Walk::new(root, Policy::default(), &visit, Some(&ahead)) {
                    drawn.push(crate::tree::relative(root, &met.unwrap()));
                }
            });
        }));
        assert!(outcome.is_err());
        assert_eq!(drawn, ["a/x"]);
    }

    /// Environments, caches and dependencies beside their manifest are never entered; a
    /// `vendor` or `target` folder without one is an ordinary folder, and a folder given
    /// by name is read whatever it is.
    #[test]
    fn environments_caches_and_dependencies_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            ".venv/pyvenv.cfg",
            ".venv/lib/python3.12/x/cassettes/a.yaml",
            "env/conda-meta/history",
            "env/cassettes/b.yaml",
            ".pytest_cache/CACHEDIR.TAG",
            ".pytest_cache/v/c.json",
            "go/go.mod",
            "go/vendor/x/fixtures/d.yaml",
            "ruby/vendor/cassettes/e.yaml",
            "rust/Cargo.toml",
            "rust/target/f.json",
            "other/target/g.json",
            ".github/cassettes/h.yaml",
            ".vcr/stash/i.yaml",
        ] {
            write(root, rel, "x");
        }
        let mut names: Vec<String> = met(root, Policy::default())
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                ".github/cassettes/h.yaml",
                "go/go.mod",
                "other/target/g.json",
                "ruby/vendor/cassettes/e.yaml",
                "rust/Cargo.toml",
            ]
        );
        let given = root.join(".venv");
        let names: Vec<String> = met(&given, Policy::default())
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        assert!(names.contains(&"pyvenv.cfg".to_owned()), "{names:?}");
    }

    /// In a git repository, what its `.gitignore` files and `info/exclude` ignore is met as
    /// ignored, with git's precedence (a deeper file's negation wins); without the rules, or
    /// outside a repository, nothing is.
    #[test]
    fn git_ignore_rules_mark_what_git_ignores() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, ".gitignore", "build/\n*.log.json\n");
        write(root, ".git/info/exclude", "scratch.yaml\n");
        write(root, "build/cassettes/a.yaml", "x");
        write(root, "tests/cassettes/b.yaml", "x");
        write(root, "tests/cassettes/run.log.json", "x");
        write(root, "tests/keep/.gitignore", "!*.log.json\n");
        write(root, "tests/keep/kept.log.json", "x");
        write(root, "scratch.yaml", "x");
        let mut seen = met(
            root,
            Policy {
                gitignore: true,
                exclude: None,
            },
        );
        seen.sort();
        let ignored: Vec<&str> = seen
            .iter()
            .filter(|(_, ignored)| *ignored)
            .map(|(rel, _)| rel.as_str())
            .collect();
        assert_eq!(
            ignored,
            [
                "build/cassettes/a.yaml",
                "scratch.yaml",
                "tests/cassettes/run.log.json"
            ]
        );
        // The rules of the folders above a folder given by name hold in it.
        let below = met(
            &root.join("tests/cassettes"),
            Policy {
                gitignore: true,
                exclude: None,
            },
        );
        assert!(
            below.contains(&("run.log.json".to_owned(), true)),
            "{below:?}"
        );
        assert!(below.contains(&("b.yaml".to_owned(), false)), "{below:?}");
        // `--no-ignore`: nothing is ignored.
        assert!(met(root, Policy::default()).iter().all(|(_, i)| !i));
        // Outside a repository the rules do not hold.
        std::fs::remove_dir_all(root.join(".git")).unwrap();
        assert!(
            met(
                root,
                Policy {
                    gitignore: true,
                    exclude: None,
                }
            )
            .iter()
            .all(|(_, i)| !i)
        );
    }

    /// Configured exclusions are neither entered nor met.
    #[test]
    fn excluded_paths_are_not_met() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "legacy/cassettes/a.yaml", "x");
        write(root, "tests/cassettes/b.yaml", "x");
        let excluded = |path: &Path| path.ends_with("legacy");
        let seen = met(
            root,
            Policy {
                gitignore: false,
                exclude: Some(&excluded),
            },
        );
        assert_eq!(seen, [("tests/cassettes/b.yaml".to_owned(), false)]);
    }
}
