//! `vcr diff`: two versions of a cassette tree compared by what the agent did.
//!
//! A re-recording lands as thousands of lines of JSON nobody reads; what a reviewer needs is
//! which tool calls, stop reasons and answers changed. Each side is a [`Snapshot`]: files by
//! path, read from a folder or from a git revision. Files are grouped into cassettes (a
//! Claude Code fixture is one file, a dsh scenario one folder, an HTTP cassette one file
//! told by its content, its LLM calls read by [`http`]), paired by path, and the
//! content-addressed Claude Code fixtures left over are paired with their old selves by
//! their names (see [`pair_rekeyed`]); each pair's [`Behaviour`]s are compared
//! ([`compare::compare`]) into an [`Entry`] with a [`Verdict`]. Entries go to the caller as
//! the caller's [`Sink`] in path order; nothing here prints, and every text taken from a cassette
//! is masked before it leaves ([`Scanner::mask`]).
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod behaviour;
pub mod compare;
pub mod http;
mod lockstep;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use behaviour::{Behaviour, BehaviourError, Kind};
pub use compare::{Change, Verdict};
pub use vcr_provider::{ModelCall, ToolUse, Usage};

use vcr_cassette::claude_code::{self, FileKind};
use vcr_cassette::dsh;
use vcr_cassette::http::sniff;
use vcr_lint::Scanner;
use vcr_project::run::{FileProblem, Progress, par_ordered};
use vcr_project::tree::FIXTURES_DIR;

/// The endings of files that may be HTTP cassettes beside those discovery sniffs
/// ([`sniff::is_candidate_name`]: JSON, YAML, HAR, httprr, govcr's `.cassette`,
/// httpreplay's `.replay`, each also gzip'd): talkback's `.tape` and any `.gz`. Such a file is
/// read, and is a cassette when its content is one ([`vcr_cassette::http::read`]).
const HTTP_ENDINGS: [&str; 2] = [".gz", ".tape"];

/// Whether a file at `rel` (relative to the side's top) may be an HTTP cassette, by its name
/// or, for a name without an extension, by its folder (php-vcr's `tests/fixtures/`, or one
/// of `extensionless_dirs`), as discovery tells them.
fn maybe_http(rel: &str, extensionless_dirs: &[String]) -> bool {
    let name = file_name(rel);
    let lower = name.to_ascii_lowercase();
    sniff::is_candidate_name(&lower)
        || HTTP_ENDINGS.iter().any(|e| lower.ends_with(e))
        || sniff::is_extensionless_candidate(Path::new(rel))
        || (sniff::has_no_extension(name)
            && extensionless_dirs
                .iter()
                .any(|dir| Path::new(rel).starts_with(dir)))
}

/// A side of a comparison that cannot be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// A folder could not be walked.
    #[error("{}", path.display())]
    Walk {
        /// The folder or file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be read.
    #[error("cannot read {file}")]
    Read {
        /// The file, as the caller named it.
        file: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A file is no cassette `vcr diff` can read.
    #[error(transparent)]
    Behaviour(#[from] BehaviourError),
}

/// Where a file's bytes are: on disk (read when compared), already in memory (a small file
/// of a git revision), or in git (a large one, streamed when compared).
#[derive(Debug, Clone)]
pub enum Blob {
    /// A file, read when its cassette is compared.
    File(PathBuf),
    /// A file of a git revision that the working tree holds unchanged (git says so): read
    /// from the working tree's copy, and otherwise a revision's file like the others (no
    /// sidecar files beside it).
    Unchanged(PathBuf),
    /// The contents.
    Bytes(Vec<u8>),
    /// A blob of the repository whose top folder is `top`, read through git when its
    /// cassette is compared ([`vcr_project::git::open_blob`]).
    Git {
        /// The repository's top folder.
        top: PathBuf,
        /// The blob's object id.
        id: String,
        /// Its size in bytes.
        size: u64,
    },
}

impl Blob {
    /// The contents, read whole (from disk or git when they are not in memory).
    pub fn read(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        match self {
            Blob::File(path) | Blob::Unchanged(path) => {
                std::fs::read(path).map(std::borrow::Cow::Owned)
            }
            Blob::Bytes(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            Blob::Git { size, .. } => {
                let mut bytes = Vec::with_capacity(usize::try_from(*size).unwrap_or(0));
                std::io::Read::read_to_end(&mut self.open()?, &mut bytes)?;
                Ok(std::borrow::Cow::Owned(bytes))
            }
        }
    }

    /// The contents as a reader, for what is read a line at a time (dsh logs).
    fn open(&self) -> std::io::Result<Box<dyn std::io::BufRead + '_>> {
        match self {
            Blob::File(path) | Blob::Unchanged(path) => Ok(Box::new(
                std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?),
            )),
            Blob::Bytes(bytes) => Ok(Box::new(bytes.as_slice())),
            Blob::Git { top, id, .. } => {
                let reader = vcr_project::git::open_blob(top, id).map_err(std::io::Error::other)?;
                Ok(Box::new(std::io::BufReader::with_capacity(1 << 16, reader)))
            }
        }
    }

    /// The size in bytes, when it is known without reading.
    fn size(&self) -> Option<u64> {
        match self {
            Blob::File(path) | Blob::Unchanged(path) => {
                std::fs::metadata(path).ok().map(|m| m.len())
            }
            Blob::Bytes(bytes) => Some(bytes.len() as u64),
            Blob::Git { size, .. } => Some(*size),
        }
    }
}

/// One side of a comparison: files by `/`-separated relative path.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// How errors name a file of this side: `{}` is replaced by its relative path
    /// (`HEAD:{}` for a revision, `old/{}` for a folder given as `old`, `{}` for the
    /// working tree).
    pub label: String,
    files: BTreeMap<String, Blob>,
}

impl Snapshot {
    /// An empty side whose files errors name through `label` (see [`Snapshot::label`]).
    pub fn new(label: &str) -> Snapshot {
        Snapshot {
            label: label.to_owned(),
            files: BTreeMap::new(),
        }
    }

    /// Adds one file.
    pub fn insert(&mut self, rel: &str, blob: Blob) {
        self.files.insert(rel.to_owned(), blob);
    }

    /// The files, by relative path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &Blob)> {
        self.files.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The file at `rel`, if this side has one.
    pub fn get(&self, rel: &str) -> Option<&Blob> {
        self.files.get(rel)
    }

    /// The files of this side at `rel` or under the folder `rel`, by relative path: a
    /// cassette's files (a dsh scenario is a folder).
    pub fn under<'s>(&'s self, rel: &'s str) -> impl Iterator<Item = (&'s str, &'s Blob)> + 's {
        let folder = format!("{rel}/");
        self.files
            .range::<str, _>((std::ops::Bound::Included(rel), std::ops::Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(rel))
            .filter(move |(k, _)| k.as_str() == rel || k.starts_with(&folder))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// Adds every file under `dir` as `<prefix>/<path under dir>`, leaving out what every
    /// command's walk leaves out (`tree::walk`: version control, dependencies,
    /// environments, caches, and what git ignores unless `no_ignore`). Symbolic links are
    /// not followed. A git revision leaves out the same folders by name ([`is_skipped`]).
    pub fn add_dir(&mut self, dir: &Path, prefix: &str, no_ignore: bool) -> Result<(), DiffError> {
        let policy = vcr_project::tree::Policy {
            gitignore: !no_ignore,
            exclude: None,
        };
        let met = vcr_project::tree::walk(dir, policy, &|path, file_type, ignored| {
            (file_type.is_file() && !ignored).then_some(path)
        });
        for path in met {
            let path = path.map_err(|(path, source)| DiffError::Walk { path, source })?;
            let rel = vcr_project::tree::relative(dir, &path);
            let rel = if prefix.is_empty() {
                rel
            } else {
                format!("{prefix}/{rel}")
            };
            self.insert(&rel, Blob::File(path));
        }
        Ok(())
    }

    fn display(&self, rel: &str) -> String {
        if self.label.contains("{}") {
            self.label.replace("{}", rel)
        } else {
            rel.to_owned()
        }
    }
}

/// Whether a relative path of a git revision lies in a folder no walk enters, by its name
/// (version control, `.vcr`, `node_modules`, `site-packages`, ...): the folders of a
/// revision cannot be looked into for the files that mark an environment or a cache.
pub fn is_skipped(rel: &str) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    parts.into_iter().any(vcr_project::tree::is_skipped_name)
}

/// How a comparison runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Add the unified diff of the canonical forms to each changed entry.
    pub full: bool,
    /// Folders (relative, `""` for the top) whose `<hex>.json` files are Claude Code
    /// fixtures, besides every folder named `fixtures`.
    pub fixture_dirs: Vec<String>,
    /// Folders (relative, `/`-separated) whose files without an extension may be HTTP
    /// cassettes, besides `tests/fixtures/` and `test/fixtures/`: php-vcr's cassette path
    /// where a project's PHPUnit bootstrap moved it, as discovery finds it.
    pub extensionless_dirs: Vec<String>,
    /// How cassettes are read (the project's).
    pub read: vcr_cassette::http::ReadOptions,
}

/// What happened to a cassette between the two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Only in the new side.
    Added,
    /// Only in the old side.
    Removed,
    /// On both sides under one path, contents differ.
    Modified,
    /// A content-addressed cassette under a new name, paired with its old self.
    ReKeyed,
    /// On both sides, canonically equal.
    Unchanged,
}

/// One change, as reported: the structured change and its sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeLine {
    /// The change.
    #[serde(flatten)]
    pub change: Change,
    /// The change in a sentence, secrets masked.
    pub message: String,
}

/// One cassette compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// The cassette's path (the new one, or the old one when removed).
    pub path: String,
    /// The old path, when it differs (re-keyed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// The cassette's kind.
    pub kind: Kind,
    /// What happened to it.
    pub status: Status,
    /// How much it changed (not for added and removed cassettes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Why, in a few words.
    pub reason: String,
    /// For a re-keyed cassette: the 0-based index of the input message that changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_message: Option<usize>,
    /// The differences, most important first.
    pub changes: Vec<ChangeLine>,
    /// For added and removed cassettes: each model call in one line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
    /// The unified diff of the canonical forms (`--full`), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// Counts over a comparison.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Cassettes compared (pairs count once).
    pub cassettes: usize,
    /// Canonically equal.
    pub identical: usize,
    /// Contents differ, behaviour does not.
    pub same_behaviour: usize,
    /// Only text differs.
    pub reworded: usize,
    /// Behaviour differs.
    pub behaviour_change: usize,
    /// Re-keyed (also counted under their verdict).
    pub re_keyed: usize,
    /// Only in the new side.
    pub added: usize,
    /// Only in the old side.
    pub removed: usize,
    /// Cassettes that could not be read.
    pub errors: usize,
}

impl Summary {
    /// Whether anything differs (the exit code of `vcr diff`).
    pub fn has_differences(&self) -> bool {
        self.same_behaviour + self.reworded + self.behaviour_change + self.added + self.removed > 0
    }

    /// Counts one entry.
    pub fn add(&mut self, entry: &Entry) {
        self.cassettes += 1;
        match entry.status {
            Status::Added => self.added += 1,
            Status::Removed => self.removed += 1,
            Status::ReKeyed => self.re_keyed += 1,
            Status::Modified | Status::Unchanged => {}
        }
        match entry.verdict {
            Some(Verdict::Identical) => self.identical += 1,
            Some(Verdict::SameBehaviour) => self.same_behaviour += 1,
            Some(Verdict::Reworded) => self.reworded += 1,
            Some(Verdict::BehaviourChange) => self.behaviour_change += 1,
            None => {}
        }
    }
}

/// A cassette of one side: a fixture file or a scenario folder, and its files.
#[derive(Debug, Clone)]
struct Unit<'s> {
    /// The fixture's path, or the scenario folder's.
    rel: String,
    kind: Kind,
    /// `(name in the folder, relative path, blob)`; one for a fixture.
    files: Vec<(String, String, &'s Blob)>,
}

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn file_name(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, name)| name)
}

/// The cassettes of a side, by path.
fn units<'s>(snapshot: &'s Snapshot, options: &Options) -> BTreeMap<String, Unit<'s>> {
    let mut out: BTreeMap<String, Unit<'s>> = BTreeMap::new();
    for (rel, blob) in snapshot.files() {
        let (dir, name) = (parent(rel), file_name(rel));
        let fixture_dir = dir == FIXTURES_DIR
            || dir.ends_with(&format!("/{FIXTURES_DIR}"))
            || options.fixture_dirs.iter().any(|d| d == dir);
        let kind = match claude_code::classify(name) {
            Some(FileKind::Message) if fixture_dir => Kind::ClaudeCode,
            Some(FileKind::TokenCount) if fixture_dir => Kind::TokenCount,
            _ if dsh::is_scenario_file(name) => {
                out.entry(dir.to_owned())
                    .or_insert_with(|| Unit {
                        rel: dir.to_owned(),
                        kind: Kind::Dsh,
                        files: Vec::new(),
                    })
                    .files
                    .push((name.to_owned(), rel.to_owned(), blob));
                continue;
            }
            // Told by its content when it is read: one that is no cassette is left out.
            _ if maybe_http(rel, &options.extensionless_dirs) => Kind::Http,
            _ => continue,
        };
        out.insert(
            rel.to_owned(),
            Unit {
                rel: rel.to_owned(),
                kind,
                files: vec![(name.to_owned(), rel.to_owned(), blob)],
            },
        );
    }
    out
}

/// The `-`-separated hash segments of a message fixture's name.
fn segments(rel: &str) -> Vec<&str> {
    let stem = file_name(rel).strip_suffix(".json").unwrap_or("");
    if stem.is_empty() {
        Vec::new()
    } else {
        stem.split('-').collect()
    }
}

/// Pairs removed and added Claude Code message fixtures of one folder that are one cassette
/// under two names: a prompt change renames a content-addressed fixture, and its leading
/// per-message hash segments stay shared up to the message that changed.
///
/// Returns `(old index, new index, changed message)`. A pair needs a message that differs
/// in both names (one name a prefix of the other is a different call: a later turn), and
/// the longest shared leading run wins, then equal message counts, then the nearest count.
/// Names sharing no segment are never paired: with the first message changed nothing in the
/// name links the two, and pairing unrelated cassettes would hide an addition and a removal.
pub fn pair_rekeyed(old: &[&str], new: &[&str]) -> Vec<(usize, usize, usize)> {
    let old_segments: Vec<Vec<&str>> = old.iter().map(|r| segments(r)).collect();
    let new_segments: Vec<Vec<&str>> = new.iter().map(|r| segments(r)).collect();
    let mut candidates = Vec::new();
    for (i, o) in old_segments.iter().enumerate() {
        for (j, n) in new_segments.iter().enumerate() {
            if parent(old[i]) != parent(new[j]) {
                continue;
            }
            let shared = o.iter().zip(n).take_while(|(a, b)| a == b).count();
            if shared == 0 || shared >= o.len().min(n.len()) {
                continue;
            }
            let same_len = o.len() == n.len();
            let distance = o.len().abs_diff(n.len());
            candidates.push((shared, same_len, std::cmp::Reverse(distance), i, j));
        }
    }
    candidates.sort_by(|a, b| b.cmp(a));
    let mut old_taken = vec![false; old.len()];
    let mut new_taken = vec![false; new.len()];
    let mut pairs = Vec::new();
    for (shared, _, _, i, j) in candidates {
        if !old_taken[i] && !new_taken[j] {
            old_taken[i] = true;
            new_taken[j] = true;
            pairs.push((i, j, shared));
        }
    }
    pairs
}

/// Two cassettes to compare (either side may be absent).
struct Pair<'s> {
    old: Option<Unit<'s>>,
    new: Option<Unit<'s>>,
    /// For re-keyed fixtures: the message that changed.
    changed_message: Option<usize>,
}

impl Pair<'_> {
    fn rel(&self) -> &str {
        self.new
            .as_ref()
            .or(self.old.as_ref())
            .map_or("", |u| u.rel.as_str())
    }
}

/// Where [`run`] hands what it finds, one cassette at a time in path order (ripgrep's
/// `Sink`, in small): the caller renders it, and this crate knows nothing of how.
pub trait Sink {
    /// One cassette compared.
    fn entry(&mut self, entry: &Entry);
    /// A cassette that could not be read, by its path as its side shows it.
    fn problem(&mut self, path: &str, problem: &FileProblem);
}

/// Compares two sides and hands `sink` one [`Entry`] per cassette, in path order (and a
/// problem for each cassette that cannot be read).
pub fn run(
    old: &Snapshot,
    new: &Snapshot,
    options: &Options,
    masker: &Scanner,
    sink: &mut dyn Sink,
    progress: &dyn Progress,
) -> Summary {
    let mut old_units = units(old, options);
    let mut new_units = units(new, options);
    let mut pairs: Vec<Pair<'_>> = Vec::new();
    let shared: Vec<String> = old_units
        .keys()
        .filter(|k| {
            new_units
                .get(*k)
                .is_some_and(|n| n.kind == old_units[*k].kind)
        })
        .cloned()
        .collect();
    for key in shared {
        pairs.push(Pair {
            old: old_units.remove(&key),
            new: new_units.remove(&key),
            changed_message: None,
        });
    }
    let is_message = |u: &&Unit<'_>| u.kind == Kind::ClaudeCode;
    let removed: Vec<&str> = old_units
        .values()
        .filter(is_message)
        .map(|u| u.rel.as_str())
        .collect();
    let added: Vec<&str> = new_units
        .values()
        .filter(is_message)
        .map(|u| u.rel.as_str())
        .collect();
    let rekeyed: Vec<(String, String, usize)> = pair_rekeyed(&removed, &added)
        .into_iter()
        .map(|(i, j, m)| (removed[i].to_owned(), added[j].to_owned(), m))
        .collect();
    for (o, n, message) in rekeyed {
        pairs.push(Pair {
            old: old_units.remove(&o),
            new: new_units.remove(&n),
            changed_message: Some(message),
        });
    }
    pairs.extend(old_units.into_values().map(|u| Pair {
        old: Some(u),
        new: None,
        changed_message: None,
    }));
    pairs.extend(new_units.into_values().map(|u| Pair {
        old: None,
        new: Some(u),
        changed_message: None,
    }));
    pairs.sort_by(|a, b| a.rel().cmp(b.rel()));

    let mut summary = Summary::default();
    par_ordered(
        &pairs,
        progress,
        |pair| compare_pair(pair, old, new, options, masker),
        |_, result| match result {
            Ok(Some(entry)) => {
                summary.add(&entry);
                sink.entry(&entry);
            }
            Ok(None) => {}
            Err((path, problem)) => {
                summary.errors += 1;
                sink.problem(&path, &problem);
            }
        },
    );
    summary
}

/// A unit's files read: `(name, relative path, bytes)`.
type Loaded = Vec<(String, String, Vec<u8>)>;

fn load(unit: &Unit<'_>, side: &Snapshot) -> Result<Loaded, (String, FileProblem)> {
    unit.files
        .iter()
        .map(|(name, rel, blob)| {
            blob.read()
                .map(|bytes| (name.clone(), rel.clone(), bytes.into_owned()))
                .map_err(|e| (side.display(rel), FileProblem::io(&e)))
        })
        .collect()
}

/// The behaviour of a unit of one side; `Ok(None)` for a file that may have been an HTTP
/// cassette and is not one.
fn behaviour_of(
    unit: &Unit<'_>,
    files: &Loaded,
    side: &Snapshot,
    options: &Options,
) -> Result<Option<Behaviour>, (String, FileProblem)> {
    let (kind, rel) = (unit.kind, unit.rel.as_str());
    let result = match kind {
        Kind::ClaudeCode => Behaviour::claude_code(&files[0].2, &side.display(rel)).map(Some),
        Kind::TokenCount => Behaviour::token_count(&files[0].2, &side.display(rel)).map(Some),
        Kind::Dsh => {
            let named: Vec<(&str, &[u8])> = files
                .iter()
                .map(|(name, _, bytes)| (name.as_str(), bytes.as_slice()))
                .collect();
            Behaviour::dsh(&named, &side.display(rel)).map(Some)
        }
        Kind::Http => {
            // A HAR's sidecar bodies sit beside it on disk (not in a revision).
            let path = match unit.files[0].2 {
                Blob::File(path) => path.clone(),
                Blob::Bytes(_) | Blob::Unchanged(_) | Blob::Git { .. } => PathBuf::from(rel),
            };
            Behaviour::http(&path, &files[0].2, &side.display(rel), &options.read)
        }
    };
    result.map_err(|e| problem(e, side.display(rel)))
}

/// A cassette's behaviour error as reported for `shown`, the cassette's path.
fn problem(e: BehaviourError, shown: String) -> (String, FileProblem) {
    let (id, line, column) = match e {
        BehaviourError::Parse { .. } => ("parse", None, None),
        BehaviourError::Unreadable {
            line,
            column,
            format,
            ref message,
            ..
        } => {
            // The report names the file, line and column already.
            let message = format!("not a readable {format} cassette: {message}");
            return (
                shown,
                FileProblem {
                    id: "parse",
                    line: Some(line),
                    column: Some(column),
                    message,
                },
            );
        }
        _ => ("schema", None, None),
    };
    (
        shown,
        FileProblem {
            id,
            line,
            column,
            message: e.to_string(),
        },
    )
}

/// A side of a pair read: the unit, its files, its behaviour (`None`: absent, or no
/// cassette after all).
type Side<'u, 's> = Option<(&'u Unit<'s>, Loaded, Behaviour)>;

fn read_side<'u, 's>(
    unit: Option<&'u Unit<'s>>,
    side: &Snapshot,
    options: &Options,
) -> Result<Side<'u, 's>, (String, FileProblem)> {
    let Some(unit) = unit else { return Ok(None) };
    let files = load(unit, side)?;
    Ok(behaviour_of(unit, &files, side, options)?.map(|behaviour| (unit, files, behaviour)))
}

/// Both sides of a pair read; a new side holding the old side's very bytes is not parsed
/// again (most cassettes of a tree are unchanged).
fn read_pair<'u, 's>(
    pair: &'u Pair<'s>,
    old_side: &Snapshot,
    new_side: &Snapshot,
    options: &Options,
) -> Result<(Side<'u, 's>, Side<'u, 's>), (String, FileProblem)> {
    let old = read_side(pair.old.as_ref(), old_side, options)?;
    if let (Some((old_unit, old_files, behaviour)), Some(unit)) = (&old, pair.new.as_ref()) {
        // A revision's file git found unchanged is the working tree's own file: its bytes
        // are the ones just read, not read again.
        let files = if unchanged_in_working_tree(old_unit, unit) {
            old_files.clone()
        } else {
            load(unit, new_side)?
        };
        let same = files.len() == old_files.len()
            && files
                .iter()
                .zip(old_files)
                .all(|(n, o)| n.0 == o.0 && n.2 == o.2);
        if same {
            let behaviour = behaviour.clone();
            return Ok((old, Some((unit, files, behaviour))));
        }
    }
    let new = read_side(pair.new.as_ref(), new_side, options)?;
    Ok((old, new))
}

/// Whether every file of `new` is the working tree's file that `old` names as unchanged
/// ([`Blob::Unchanged`]), under the same name.
fn unchanged_in_working_tree(old: &Unit<'_>, new: &Unit<'_>) -> bool {
    old.files.len() == new.files.len()
        && old.files.iter().zip(&new.files).all(|(o, n)| {
            o.0 == n.0 && matches!((o.2, n.2), (Blob::Unchanged(a), Blob::File(b)) if a == b)
        })
}

/// Compares one pair; `Ok(None)` when neither side is a cassette after all (a YAML or
/// JSON file that is no HTTP cassette).
fn compare_pair(
    pair: &Pair<'_>,
    old_side: &Snapshot,
    new_side: &Snapshot,
    options: &Options,
    masker: &Scanner,
) -> Result<Option<Entry>, (String, FileProblem)> {
    let kind = pair.new.as_ref().or(pair.old.as_ref()).map(|u| u.kind);
    // A cassette known by its name that git finds unchanged in the working tree is
    // identical without a byte read (issue 44: `diff --rev` parsed every unchanged fixture
    // of a repository to say so). One told by its content is still read: whether it is a
    // cassette at all is in its bytes.
    if let (Some(old), Some(new)) = (&pair.old, &pair.new)
        && new.kind != Kind::Http
        && old.rel == new.rel
        && unchanged_in_working_tree(old, new)
    {
        let mut entry = entry_of(Vec::new(), true, new.kind, masker);
        entry.path.clone_from(&new.rel);
        return Ok(Some(entry));
    }
    if kind == Some(Kind::Dsh) && options.read.streaming {
        return lockstep::compare_pair(pair, old_side, new_side, options, masker);
    }
    let (old, new) = read_pair(pair, old_side, new_side, options)?;
    if old.is_none() && new.is_none() {
        return Ok(None);
    }
    let empty = Vec::new();
    let (old_files, new_files) = (
        old.as_ref().map_or(&empty, |o| &o.1),
        new.as_ref().map_or(&empty, |n| &n.1),
    );
    let diff = options
        .full
        .then(|| masked_diff(masker, old_files, new_files, options))
        .filter(|d| !d.is_empty());
    let entry = match (old, new) {
        (Some((o, of, ob)), Some((n, nf, nb))) => {
            let mut entry = entry_for(&ob, &nb, canonical_equal(&of, &nf), masker);
            entry.path.clone_from(&n.rel);
            entry.kind = n.kind;
            if o.rel != n.rel {
                entry.old_path = Some(o.rel.clone());
                entry.status = Status::ReKeyed;
                entry.changed_message = pair.changed_message;
                if let Some(m) = pair.changed_message {
                    // The request change is what the new name says; name the message instead.
                    let rest: Vec<&str> = entry
                        .reason
                        .split(", ")
                        .filter(|r| *r != "request changed")
                        .collect();
                    entry.reason = if rest.is_empty() {
                        format!("input[{m}] changed")
                    } else {
                        format!("input[{m}] changed; {}", rest.join(", "))
                    };
                }
            }
            entry
        }
        (Some((unit, _, behaviour)), None) => one_sided(unit, &behaviour, Status::Removed, masker),
        (None, Some((unit, _, behaviour))) => one_sided(unit, &behaviour, Status::Added, masker),
        (None, None) => return Ok(None),
    };
    Ok(Some(Entry { diff, ..entry }))
}

/// An added or removed cassette, with its calls in one line each.
fn one_sided(unit: &Unit<'_>, behaviour: &Behaviour, status: Status, masker: &Scanner) -> Entry {
    let calls: Vec<String> = if behaviour.kind == Kind::Http {
        // Every interaction, the model calls with what they did.
        behaviour
            .exchanges
            .iter()
            .map(|e| masker.mask(&e.summary))
            .collect()
    } else {
        behaviour
            .calls
            .iter()
            .map(|c| masker.mask(&c.one_line()))
            .collect()
    };
    let reason = match (behaviour.kind, &behaviour.token_count) {
        (Kind::TokenCount, Some(n)) => format!("token count {n}"),
        (Kind::TokenCount, None) => "token count null".to_owned(),
        (Kind::Http, _) => {
            let (n, m) = (behaviour.exchanges.len(), behaviour.calls.len());
            format!(
                "{n} interaction{}, {m} model call{}",
                if n == 1 { "" } else { "s" },
                if m == 1 { "" } else { "s" }
            )
        }
        _ => return listed(unit, status, calls, None),
    };
    listed(unit, status, calls, Some(reason))
}

/// An added or removed cassette listing `calls` (one line each), for `reason` or, without
/// one, their count.
fn listed(unit: &Unit<'_>, status: Status, calls: Vec<String>, reason: Option<String>) -> Entry {
    let reason = reason.unwrap_or_else(|| match calls.len() {
        1 => "1 model call".to_owned(),
        n => format!("{n} model calls"),
    });
    Entry {
        path: unit.rel.clone(),
        old_path: None,
        kind: unit.kind,
        status,
        verdict: None,
        reason,
        changed_message: None,
        changes: Vec::new(),
        calls,
        diff: None,
    }
}

/// The entry for two behaviours of one cassette; `equal` tells whether the canonical
/// contents are equal (the path and kind are the caller's).
fn entry_for(old: &Behaviour, new: &Behaviour, equal: bool, masker: &Scanner) -> Entry {
    // HTTP recordings of the same interactions are identical, however the file writes them.
    if !equal && old.kind == Kind::Http && http::same_recording(old, new) {
        return entry_of(Vec::new(), true, new.kind, masker);
    }
    entry_of(compare::compare(old, new), equal, new.kind, masker)
}

/// The entry for the changes between two behaviours of kind `kind`; `equal` tells whether
/// the canonical contents are equal (read only when there is no change).
fn entry_of(mut changes: Vec<Change>, equal: bool, kind: Kind, masker: &Scanner) -> Entry {
    if changes.is_empty() && !equal {
        changes.push(Change::Other);
    }
    let verdict = changes
        .iter()
        .map(Change::verdict)
        .max()
        .unwrap_or(Verdict::Identical);
    let mut reasons: Vec<String> = Vec::new();
    for change in changes.iter().filter(|c| c.verdict() == verdict) {
        let reason = change.reason();
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    Entry {
        path: String::new(),
        old_path: None,
        kind,
        status: if verdict == Verdict::Identical {
            Status::Unchanged
        } else {
            Status::Modified
        },
        verdict: Some(verdict),
        reason: if reasons.is_empty() {
            "identical".to_owned()
        } else {
            reasons.join(", ")
        },
        changed_message: None,
        changes: changes
            .into_iter()
            .map(|change| ChangeLine {
                message: masker.mask(&change.to_string()),
                change: change.masked(masker),
            })
            .collect(),
        calls: Vec::new(),
        diff: None,
    }
}

/// The canonical form of a file: JSON as the harness's writer formats it, anything else
/// (session logs) as it is.
fn canonical(name: &str, bytes: &[u8]) -> Vec<u8> {
    // A compressed HTTP cassette (`.yaml.gz`) is compared as the text it holds.
    let bytes = &*vcr_cassette::http::decompressed(bytes);
    if name.ends_with(".json")
        && let Ok(value) = vcr_json::parse(bytes)
    {
        return vcr_json::to_pretty(&value);
    }
    bytes.to_vec()
}

fn canonical_equal(old: &Loaded, new: &Loaded) -> bool {
    old.len() == new.len()
        && old.iter().zip(new).all(|(o, n)| {
            o.0 == n.0 && (o.2 == n.2 || canonical(&o.0, &o.2) == canonical(&n.0, &n.2))
        })
}

/// [`full_diff`] as outputs show it: the scan's leaks masked, and the secrets the leak
/// judge finds in either side's HTTP cassettes (a cookie, a query parameter), which no
/// pattern of the scan knows (issue 22: `Cookie` values were printed whole).
fn masked_diff(masker: &Scanner, old: &Loaded, new: &Loaded, options: &Options) -> String {
    let values: Vec<(String, String)> = (old.iter().chain(new))
        .flat_map(|(_, rel, bytes)| {
            let text = vcr_cassette::http::decompressed(bytes);
            let sidecars = vcr_cassette::http::Sidecars::new();
            let read = |visit: &mut dyn FnMut(Option<vcr_cassette::http::HttpCassette>)| {
                vcr_cassette::http::read_windows(
                    Path::new(rel),
                    &text,
                    &sidecars,
                    &options.read,
                    visit,
                )
            };
            vcr_lint::http::secret_values(&text, masker, &read)
        })
        .collect();
    masker.mask_with(&full_diff(old, new), &values)
}

/// The unified diffs of the canonical forms of two cassettes' files, paired by name (a
/// single file on each side is one pair, whatever the names).
fn full_diff(old: &Loaded, new: &Loaded) -> String {
    let mut out = String::new();
    let single = old.len() == 1 && new.len() == 1;
    let mut names: Vec<&str> = old.iter().chain(new).map(|f| f.0.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let o = old.iter().find(|f| single || f.0 == name);
        let n = new.iter().find(|f| single || f.0 == name);
        let text = |f: Option<&(String, String, Vec<u8>)>| {
            f.map(|f| String::from_utf8_lossy(&canonical(&f.0, &f.2)).into_owned())
                .unwrap_or_default()
        };
        let (old_text, new_text) = (text(o), text(n));
        if old_text != new_text {
            let header = |f: Option<&(String, String, Vec<u8>)>, prefix: &str| {
                f.map_or_else(|| "/dev/null".to_owned(), |f| format!("{prefix}/{}", f.1))
            };
            out.push_str(&vcr_doc::udiff::unified(
                &header(o, "a"),
                &header(n, "b"),
                &old_text,
                &new_text,
            ));
        }
        if single {
            break;
        }
    }
    out
}

/// Compares two single files whose kinds are told by their contents (`vcr diff OLD NEW` on
/// files). `old_name` and `new_name` are how the entry names them.
pub fn compare_files(
    old: (&str, &[u8]),
    new: (&str, &[u8]),
    options: &Options,
    masker: &Scanner,
) -> Result<Entry, BehaviourError> {
    let not_cassette = |name: &str| BehaviourError::Schema {
        file: name.to_owned(),
        message: "not a cassette `vcr diff` understands (a Claude Code fixture, a dsh session \
                  log or an HTTP cassette)"
            .to_owned(),
    };
    let old_behaviour =
        Behaviour::detect(old.1, old.0, &options.read).ok_or_else(|| not_cassette(old.0))??;
    let new_behaviour =
        Behaviour::detect(new.1, new.0, &options.read).ok_or_else(|| not_cassette(new.0))??;
    let equal = old.1 == new.1 || canonical(".json", old.1) == canonical(".json", new.1);
    let mut entry = entry_for(&old_behaviour, &new_behaviour, equal, masker);
    entry.path = new.0.to_owned();
    if old.0 != new.0 {
        entry.old_path = Some(old.0.to_owned());
    }
    if options.full {
        let loaded = |(name, bytes): (&str, &[u8])| -> Loaded {
            let kind_name = if Behaviour::detect(bytes, name, &options.read)
                .is_some_and(|b| b.is_ok_and(|b| b.kind != Kind::Dsh))
            {
                "cassette.json"
            } else {
                "session.jsonl"
            };
            vec![(kind_name.to_owned(), name.to_owned(), bytes.to_vec())]
        };
        entry.diff = Some(masked_diff(masker, &loaded(old), &loaded(new), options))
            .filter(|d| !d.is_empty());
    }
    Ok(entry)
}

/// [`compare_files`] for two files on disk that are both dsh session logs, each read a line
/// at a time and compared call by call (issue 12): the same entry, in the memory of the
/// largest line and call plus the changes. `Ok(None)` when either file is something else
/// (or a log of one line), and when the test hook turned streaming off
/// (`ReadOptions::streaming`, [`vcr_cassette::http::ReadOptions`]): the caller reads them
/// whole for [`compare_files`].
pub fn compare_log_files(
    old: (&str, &Path),
    new: (&str, &Path),
    options: &Options,
    masker: &Scanner,
) -> Result<Option<Entry>, DiffError> {
    if !options.read.streaming {
        return Ok(None);
    }
    let (old_blob, new_blob) = (Blob::File(old.1.to_owned()), Blob::File(new.1.to_owned()));
    for (file, blob) in [(old.0, &old_blob), (new.0, &new_blob)] {
        let read = |source| DiffError::Read {
            file: file.to_owned(),
            source,
        };
        if !lockstep::is_session_log(blob.open().map_err(read)?).map_err(read)? {
            return Ok(None);
        }
    }
    lockstep::compare_logs((old.0, &old_blob), (new.0, &new_blob), options, masker).map(Some)
}

/// The readable behaviour summary of one cassette for a git textconv driver, secrets
/// masked. A file that is not a cassette `vcr diff` understands, or cannot be read as one,
/// is returned as it is (masked): a diff driver must never hide a change.
pub fn textconv(bytes: &[u8], name: &str, masker: &Scanner, options: &Options) -> String {
    let text = match Behaviour::detect(bytes, name, &options.read) {
        Some(Ok(behaviour)) => behaviour.textconv(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    };
    masker.mask(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rekeyed_fixtures_pair_by_their_shared_leading_segments() {
        let old = [
            "fixtures/aaaaaa-bbbbbb-cccccc.json",
            "fixtures/aaaaaa-bbbbbb-cccccc-dddddd-eeeeee.json",
            "fixtures/999999.json",
        ];
        let new = [
            "fixtures/aaaaaa-bbbbbb-ffffff-dddddd-eeeeee.json",
            "fixtures/aaaaaa-bbbbbb-ffffff.json",
            "fixtures/888888.json",
        ];
        let mut pairs = pair_rekeyed(&old, &new);
        pairs.sort_unstable();
        // Equal message counts win the tie on the shared run; names sharing nothing stay
        // an addition and a removal.
        assert_eq!(pairs, vec![(0, 1, 2), (1, 0, 2)]);
    }

    #[test]
    fn a_prefix_or_another_folder_is_not_a_rekey() {
        assert!(
            pair_rekeyed(&["fixtures/aaaaaa.json"], &["fixtures/aaaaaa-bbbbbb.json"]).is_empty()
        );
        assert!(
            pair_rekeyed(
                &["a/fixtures/aaaaaa-bbbbbb.json"],
                &["b/fixtures/aaaaaa-cccccc.json"]
            )
            .is_empty()
        );
        assert!(pair_rekeyed(&["fixtures/111111.json"], &["fixtures/333333.json"]).is_empty());
    }

    #[test]
    fn skipped_folders_match_the_walk() {
        assert!(is_skipped(".git/fixtures/aaaaaa.json"));
        assert!(is_skipped("node_modules/x/fixtures/aaaaaa.json"));
        assert!(is_skipped("a/.vcr/stash/aaaaaa.json"));
        assert!(!is_skipped("fixtures/aaaaaa.json"));
        assert!(!is_skipped(".hidden-file.json"));
        // Hidden folders are read: git commits them.
        assert!(!is_skipped(".github/cassettes/a.yaml"));
    }
}
