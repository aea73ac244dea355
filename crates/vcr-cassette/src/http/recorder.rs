//! The recorders, one file each, and the table of them: everything vcr knows of a recorder is
//! in its file's [`Recorder`], and [`RECORDERS`] (in `http/mod.rs`, where each line also
//! declares the recorder's module) lists them (as ripgrep's `Flag` and `FLAGS`,
//! or ruff's `codes.rs`).
//!
//! A recorder says how its cassettes are recognised (a file's head for discovery,
//! [`Recorder::sniff`]; a document's structure, [`Recorder::matches`]; its own markers, which
//! make a cassette that does not read a `parse` error, [`Recorder::identified`]), how they are
//! read ([`Recorder::read`]) and written back ([`Recorder::dialect`]), what the recorder
//! matches requests by, how a user filters a value in its own words, how `vcr record` puts it
//! in record mode, and what it prints when a request has no recording. Adding a recorder is
//! one new file that implements this trait and one line in the table of [`RECORDERS`].

use std::path::{Path, PathBuf};

use vcr_doc::Node;
use vcr_doc::edit::Dialect;

use super::{HttpCassette, RECORDERS, ReadError, Sidecars};

/// One HTTP recorder, as vcr reads, writes, drives and advises about its cassettes.
pub trait Recorder: Sync {
    /// The name people know it by (`vcrpy`, `Ruby VCR`): how every output names the format.
    fn name(&self) -> &'static str;

    /// The name with the tools known to write its cassettes, for a list of what vcr reads
    /// (`vcrpy and pytest-recording`, `HAR (Polly.js, Playwright)`).
    fn known_as(&self) -> &'static str {
        self.name()
    }

    /// Whether the start of a file shows one of its cassettes (discovery reads each candidate
    /// file's head; the whole file is then read by [`Recorder::matches`]).
    fn sniff(&self, head: &Head<'_>) -> bool;

    /// Whether a raw text (no JSON or YAML document) is one of its cassettes: httprr's traces.
    /// Such a recorder reads the text itself ([`Recorder::read_text`]).
    fn is_raw(&self, _text: &str) -> bool {
        false
    }

    /// Reads a raw text [`Recorder::is_raw`] accepted.
    fn read_text(&self, _text: &str) -> Result<HttpCassette, ReadError> {
        unreachable!("only a raw recorder reads text")
    }

    /// Whether a YAML text (its first 8 KiB) is one of its streams of documents, one record
    /// per document (Rust's httpmock): it is then read as the sequence of its documents
    /// ([`vcr_doc::yaml::parse_documents`]) rather than as its first document.
    fn documents(&self, _head: &str) -> bool {
        false
    }

    /// Whether `text`, which is not strict JSON, is one of its cassettes and its loader
    /// takes what JSON5 adds (trailing commas, comments: ExVCR's jsx): it is then read as
    /// JSON5.
    fn loads_json5(&self, _text: &str) -> bool {
        false
    }

    /// Whether `bytes`, a whole file, is one of its cassettes that the recorder encrypted
    /// (govcr's `$ENC:V2$`): nothing in it can be read without the key, so it is reported
    /// as such, never as a `parse` error nor linted as text.
    fn encrypted(&self, _bytes: &[u8]) -> bool {
        false
    }

    /// Whether a document is one of its cassettes, by its structure. The first recorder of
    /// [`RECORDERS`] that matches reads it. A raw recorder matches none.
    fn matches(&self, _root: &Node) -> bool {
        false
    }

    /// Reads a document [`Recorder::matches`] accepted; `path` is the file (sidecar files sit
    /// beside it), `sidecars` the sidecars' contents a scrub replaced.
    fn read(
        &self,
        _root: &Node,
        _path: &Path,
        _sidecars: &Sidecars,
    ) -> Result<HttpCassette, ReadError> {
        unreachable!("only a recorder whose `matches` accepts a document reads one")
    }

    /// Where the body a cassette at `cassette` stores apart under `name` is: beside the
    /// cassette (Playwright's `_file`) unless the recorder keeps such files in a folder of
    /// their own (WireMock's `__files/`). A scrub writes the body back there.
    fn sidecar(&self, cassette: &Path, name: &str) -> PathBuf {
        cassette.parent().unwrap_or(Path::new("")).join(name)
    }

    /// Whether `text` carries the markers only this recorder writes (vcrpy's `version: 1`,
    /// Ruby VCR's `recorded_with: VCR 6.2.0`): a cassette that does not read is a `parse`
    /// error only then. One that only looked like one of its cassettes is linted as text, so
    /// that what another recorder loads is never a `parse` error (issue 39).
    fn identified(&self, text: &str) -> bool;

    /// What it matches requests by, by default, in its own names (vcrpy's `match_on`, Ruby
    /// VCR's `match_requests_on`).
    fn default_match_on(&self) -> &'static [&'static str];

    /// What it matches requests by in the cassette whose text starts with `head` (its first
    /// 64 KiB at least): where a recorder's default changed between versions that the file
    /// tells apart (R's vcr 1 matched the method and URI, vcr 2 the body too), the one that
    /// wrote it; [`Recorder::default_match_on`] otherwise.
    fn match_on_in(&self, _head: &[u8]) -> &'static [&'static str] {
        self.default_match_on()
    }

    /// The writer its YAML is written by: an edit is written as that writer writes (JSON is
    /// JSON whatever the recorder).
    fn dialect(&self) -> Dialect {
        Dialect::PyYaml
    }

    /// The setting, in the recorder's own words, that makes a request match again once a
    /// scrub replaced `what` in it; `None` for a matcher of the user's own (the caller says
    /// that). `tool` is the cassette's ([`Recorder::tool`]: a Polly HAR is matched by ids).
    fn filter(&self, _what: Filtered<'_>, _tool: Option<&str>) -> Option<String> {
        None
    }

    /// Which tool of this format wrote the cassette whose text is `text` (`Polly` or
    /// `Playwright` for a HAR); `None` when no test recorder did (a browser's HAR export).
    fn tool(&self, _text: &[u8]) -> Option<&'static str> {
        Some(self.name())
    }

    /// The tools this recorder's users are known to record with, in the order `vcr record`
    /// reports them.
    fn tools(&self) -> &'static [&'static str];

    /// The tool a project declares in its files (a pytest plugin in its dependencies, nock in
    /// `package.json`), which `vcr record` drives before a first cassette exists.
    fn declared(&self, _run: &RecordRun<'_>) -> Option<&'static str> {
        None
    }

    /// How `vcr record` puts `tool` in record mode for `run`.
    fn record_mode(&self, tool: &'static str, run: &RecordRun<'_>) -> RecordMode;

    /// What it prints when a request has no recording in replay-only mode.
    fn misses(&self) -> &'static [MissRule] {
        &[]
    }
}

/// The recorder that wrote a cassette: a handle on its [`Recorder`], compared and ordered as
/// [`RECORDERS`] lists them.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Recorder);

impl Format {
    /// The handle of a recorder (each recorder's file makes its own, `FORMAT`).
    pub const fn new(recorder: &'static dyn Recorder) -> Format {
        Format(recorder)
    }

    /// The recorder.
    pub fn recorder(self) -> &'static dyn Recorder {
        self.0
    }

    /// The name people know the format by.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// What the recorder matches requests by, by default.
    pub fn default_match_on(self) -> &'static [&'static str] {
        self.0.default_match_on()
    }

    /// What the recorder matches requests by in the cassette whose text starts with `head`
    /// ([`Recorder::match_on_in`]).
    pub fn match_on_in(self, head: &[u8]) -> &'static [&'static str] {
        self.0.match_on_in(head)
    }

    /// Its place in [`RECORDERS`].
    fn rank(self) -> usize {
        RECORDERS
            .iter()
            .position(|f| f.name() == self.name())
            .unwrap_or(usize::MAX)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl std::hash::Hash for Format {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl PartialOrd for Format {
    fn partial_cmp(&self, other: &Format) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Format {
    fn cmp(&self, other: &Format) -> std::cmp::Ordering {
        self.rank()
            .cmp(&other.rank())
            .then_with(|| self.name().cmp(other.name()))
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the start of a file shows: the top-level keys of a JSON or YAML head (a list's first
/// item's, when it is a list), and the keys one level below them, read by a scanner that
/// tolerates a head cut anywhere ([`super::sniff`]).
#[derive(Debug, Default)]
pub struct Head<'a> {
    /// The head, as far as it is text.
    pub text: &'a str,
    /// Whether the document is a list (its first item's keys are the top-level ones).
    pub list: bool,
    /// The top-level keys, in order.
    pub top: Vec<String>,
    /// The keys one level below a top-level key: `(parent, key)`.
    pub nested: Vec<(String, String)>,
}

impl Head<'_> {
    /// Whether `key` is a top-level key.
    pub fn has(&self, key: &str) -> bool {
        self.top.iter().any(|k| k == key)
    }

    /// Whether the top-level `parent` holds `key`.
    pub fn has_under(&self, parent: &str, key: &str) -> bool {
        self.nested.iter().any(|(p, k)| p == parent && k == key)
    }
}

/// What a scrub replaced in a request that the recorder matches by.
#[derive(Debug, Clone, Copy)]
pub enum Filtered<'a> {
    /// A query parameter's value, now the placeholder.
    Query {
        /// The parameter.
        name: &'a str,
        /// What its value became.
        placeholder: &'a str,
    },
    /// A header's value.
    Header {
        /// The header.
        name: &'a str,
    },
    /// Values in the request body.
    Body,
}

/// A run of `vcr record`: what a recorder reads to tell how it is put in record mode.
pub struct RecordRun<'a> {
    /// The project root.
    pub root: &'a Path,
    /// The folder the command runs in.
    pub dir: &'a Path,
    /// The test command.
    pub argv: &'a [String],
    /// The command's environment, by name.
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

impl RecordRun<'_> {
    /// Whether the command line names `option` (`--x` or `--x=...`).
    pub fn names(&self, option: &str) -> bool {
        self.argv
            .iter()
            .any(|a| a == option || a.starts_with(&format!("{option}=")))
    }

    /// The folders whose files declare a project's tools for a command run in `dir`: its
    /// test folders, then `dir` and each folder above it up to the project root, nearest
    /// first.
    pub fn declaring_folders(&self) -> Vec<PathBuf> {
        let (root, dir) = (self.root, self.dir);
        let mut folders = vec![dir.join("tests"), dir.join("test")];
        folders.extend(
            dir.ancestors()
                .take_while(|d| d.starts_with(root))
                .map(Path::to_path_buf),
        );
        if !dir.starts_with(root) {
            folders.push(root.to_path_buf());
        }
        folders
    }
}

/// How a recorder is put in record mode for a run, and what vcr adds to the command for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMode {
    /// The tool, as reported (`pytest-recording`, `nock`).
    pub tool: &'static str,
    /// How.
    pub how: How,
    /// Variables added to the command's environment.
    pub env: Vec<(String, String)>,
    /// Arguments added after the command's own.
    pub args: Vec<String>,
}

impl RecordMode {
    /// A mode vcr adds nothing for.
    pub fn only(tool: &'static str, how: How) -> RecordMode {
        RecordMode {
            tool,
            how,
            env: Vec::new(),
            args: Vec::new(),
        }
    }
}

/// How a recorder is put in record mode.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "mode", content = "how", rename_all = "snake_case")]
pub enum How {
    /// vcr added this to the command or its environment.
    Set(String),
    /// The command or the environment sets it already (this option or variable).
    Given(String),
    /// The test code sets the mode, and the recorder's default records a missing cassette.
    InCode(&'static str),
    /// vcr cannot set it and the default only replays: what to pass.
    Cannot(&'static str),
}

/// A message a recorder prints in replay-only mode when a request has no recording, and
/// where it names the cassette. Patterns are regular expressions (the `regex` crate's),
/// matched against each line of the run's output without its colour codes.
#[derive(Debug, Clone, Copy)]
pub struct MissRule {
    /// The line that says so.
    pub headline: &'static str,
    /// Where the cassette is named.
    pub names: MissNames,
}

/// Where a recorder's missing-cassette message names the cassette.
#[derive(Debug, Clone, Copy)]
pub enum MissNames {
    /// In the headline: its first capture group that matched.
    Headline,
    /// In a later line, within `within` lines: the first capture group of `name`; after a
    /// line matching `list` first, when given (the name is then on the next line), and
    /// nowhere if a line matches `none` before it.
    Below {
        /// The line that names it.
        name: &'static str,
        /// A line that starts a list whose first item is the cassette.
        list: Option<&'static str>,
        /// A line that says no cassette was in use.
        none: Option<&'static str>,
        /// How many lines after the headline may still name it.
        within: usize,
    },
    /// Nowhere: the miss is counted without a cassette.
    Nowhere,
}

/// Whether `text` holds `needle` (for [`Recorder::identified`]).
pub(super) fn has(text: &str, needle: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}

/// Whether `text` opens as JSON (an object or a list).
pub(super) fn is_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with(['{', '['])
}

/// Whether a line of YAML `text` starts with `start`: a top-level key, with what follows it.
pub(super) fn top_level(text: &str, start: &str) -> bool {
    text.starts_with(start) || has(text, &format!("\n{start}"))
}
