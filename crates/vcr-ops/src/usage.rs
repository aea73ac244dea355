//! Usage logs: which cassettes a test run read, wrote or looked for in vain.
//!
//! A harness appends one line per cassette lookup to the file named by `VCR_USAGE_LOG`:
//! either a path, or `{"path": "...", "event": "hit" | "miss" | "write"}`. Relative paths
//! are relative to the project root. Each line is written with one append, so parallel
//! workers can share a log; a line cut short by a killed worker is reported, not guessed.
//!
//! HTTP cassettes are judged per recorder format ([`Usage::judge`]): the default cassette
//! folders hold the cassettes of every recorder of a repository, and a run of one suite (a
//! Claude Code run, a pytest run) says nothing about the cassettes of another recorder.

pub mod naming;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Deserialize;

use vcr_cassette::http::recorder::MissNames;
use vcr_cassette::http::{Format, RECORDERS};
use vcr_project::tree::{Cassette, CassetteKind, Selection};

/// What a test run did with a cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageEvent {
    /// The cassette was read.
    Hit,
    /// The cassette was looked for and not found.
    Miss,
    /// The cassette was written (recorded).
    Write,
}

/// One line of a usage log.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UsageRecord {
    /// The cassette, relative to the project root (`/`-separated) when it is inside it.
    pub path: String,
    /// What happened.
    pub event: UsageEvent,
}

/// A usage log that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// The file could not be read.
    #[error("cannot read usage log {}", path.display())]
    Read {
        /// The log.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is neither a path nor a usage record.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The log.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    path: String,
    event: UsageEvent,
}

/// What all usage sources of a run say, combined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    /// Every record, deduplicated, in order.
    pub records: BTreeSet<UsageRecord>,
    /// Lookups that missed without naming their cassette (go-vcr's `requested interaction
    /// not found`), as printed.
    pub unnamed_misses: BTreeSet<String>,
}

impl Usage {
    /// Adds the records of the log at `log`, resolving relative paths against `from`, the
    /// folder the harness ran in; paths are kept relative to the project `root`.
    pub fn read_log(&mut self, log: &Path, from: &Path, root: &Path) -> Result<(), UsageError> {
        let text = std::fs::read_to_string(log).map_err(|source| UsageError::Read {
            path: log.to_owned(),
            source,
        })?;
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let (path, event) = if trimmed.starts_with('{') {
                let parsed: JsonLine =
                    serde_json::from_str(trimmed).map_err(|e| UsageError::Line {
                        path: log.to_owned(),
                        line: line_no,
                        message: format!("not a usage record: {e}"),
                    })?;
                (parsed.path, parsed.event)
            } else {
                (trimmed.to_owned(), UsageEvent::Hit)
            };
            self.add(from, root, &path, event);
        }
        Ok(())
    }

    /// Adds one record: `path` is taken from `from` when relative, and kept relative to
    /// the project `root` when inside it.
    pub fn add(&mut self, from: &Path, root: &Path, path: &str, event: UsageEvent) {
        let absolute = vcr_project::tree::lexical_absolute(&from.join(path));
        let path = match absolute.strip_prefix(root) {
            Ok(_) => vcr_project::tree::relative(root, &absolute),
            Err(_) => absolute.to_string_lossy().into_owned(),
        };
        self.records.insert(UsageRecord { path, event });
    }

    /// The cassettes read or written.
    pub fn used(&self) -> BTreeSet<&str> {
        self.records
            .iter()
            .filter(|r| r.event != UsageEvent::Miss)
            .map(|r| r.path.as_str())
            .collect()
    }

    /// Adds a lookup that missed without naming its cassette (`message` as printed).
    pub fn add_unnamed_miss(&mut self, message: &str) {
        self.unnamed_misses.insert(message.to_owned());
    }

    /// Whether any lookup failed: the run was not green, whatever was written afterwards.
    pub fn saw_miss(&self) -> bool {
        !self.unnamed_misses.is_empty() || self.records.iter().any(|r| r.event == UsageEvent::Miss)
    }

    /// Which cassettes of `selection` the sources can judge, and which of those no source
    /// read or wrote (in the selection's order). `formats` is what [`http_formats`] read.
    ///
    /// The files of a dsh scenario are one recording: the harness reads the primary log, its
    /// children and the override together, and drives the scenario from `input.json`. So if
    /// any file of a scenario folder was used, none of its files is unused.
    ///
    /// HTTP cassettes are judged per recorder format: those of a format are judged only
    /// when the sources used at least one cassette of that format, since a run of one
    /// suite says nothing about the cassettes of another recorder in the same folders (a
    /// Claude Code run would otherwise "prove" every vcrpy cassette unused). A file of the
    /// HTTP folders that is no recorder's cassette is never judged. `vcr verify
    /// --usage-log` and `vcr prune` both ask this, so they always agree.
    pub fn judge<'a>(&self, selection: &'a Selection, formats: &HttpFormats) -> Judgement<'a> {
        let used = self.used();
        let scenario_used = |dir: &str| {
            used.iter().any(|p| {
                dir.is_empty()
                    || p.strip_prefix(dir)
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        };
        let format_of = |c: &Cassette| formats.get(&c.path).copied().flatten();
        let read_formats: BTreeSet<Format> = selection
            .cassettes
            .iter()
            .filter(|c| c.kind == CassetteKind::Http && used.contains(c.rel.as_str()))
            .filter_map(format_of)
            .collect();
        let mut judgement = Judgement::default();
        let mut not_judged: BTreeMap<Option<Format>, Vec<String>> = BTreeMap::new();
        for cassette in &selection.cassettes {
            if cassette.kind == CassetteKind::Http {
                let format = format_of(cassette);
                if !format.is_some_and(|f| read_formats.contains(&f)) {
                    not_judged
                        .entry(format)
                        .or_default()
                        .push(cassette.rel.clone());
                    continue;
                }
            }
            judgement.judged.push(cassette);
            let unused = match cassette.kind.is_dsh() {
                true => !scenario_used(&scenario_rel(cassette)),
                false => !used.contains(cassette.rel.as_str()),
            };
            if unused {
                judgement.unused.push(cassette);
            }
        }
        judgement.not_judged = not_judged
            .into_iter()
            .map(|(format, cassettes)| NotJudged { format, cassettes })
            .collect();
        judgement
    }

    /// The cassettes looked for and not found (and not written later in the run).
    pub fn missed(&self) -> BTreeSet<&str> {
        let used = self.used();
        self.records
            .iter()
            .filter(|r| r.event == UsageEvent::Miss && !used.contains(r.path.as_str()))
            .map(|r| r.path.as_str())
            .collect()
    }
}

/// What [`Usage::judge`] decided about a selection.
#[derive(Debug, Clone, Default)]
pub struct Judgement<'a> {
    /// The cassettes the sources can judge, in the selection's order.
    pub judged: Vec<&'a Cassette>,
    /// Of those, the ones no source read or wrote.
    pub unused: Vec<&'a Cassette>,
    /// The HTTP cassettes left unjudged, per recorder format.
    pub not_judged: Vec<NotJudged>,
}

/// HTTP cassettes of one recorder format that the sources cannot judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotJudged {
    /// The format (`None`: files of the HTTP folders that are no recorder's cassette).
    pub format: Option<Format>,
    /// The cassettes, relative to the project root, in path order.
    pub cassettes: Vec<String>,
}

impl NotJudged {
    /// What they are, for messages: `vcrpy`, `unknown`.
    pub fn format_name(&self) -> &'static str {
        self.format.map_or("unknown", Format::name)
    }

    /// Why they were not judged.
    pub fn reason(&self) -> &'static str {
        match self.format {
            Some(_) => "the run read none of them",
            None => "not a cassette of a recorder vcr knows",
        }
    }

    /// `12 vcrpy cassettes not judged: the run read none of them`.
    pub fn describe(&self) -> String {
        let n = self.cassettes.len();
        let what = match (self.format, n) {
            (Some(f), 1) => format!("1 {} cassette", f.name()),
            (Some(f), n) => format!("{n} {} cassettes", f.name()),
            (None, 1) => "1 file of the HTTP cassette folders".to_owned(),
            (None, n) => format!("{n} files of the HTTP cassette folders"),
        };
        format!("{what} not judged: {}", self.reason())
    }
}

/// The recorder format of each HTTP cassette, by absolute path (`None`: not a cassette of
/// a format vcr knows).
pub type HttpFormats = HashMap<PathBuf, Option<Format>>;

/// Reads every HTTP cassette of `selection` (in parallel) for its recorder format. A file
/// that looks like a format and does not parse counts as that format; one that cannot be
/// read, as none.
pub fn http_formats(selection: &Selection) -> HttpFormats {
    selection
        .cassettes
        .par_iter()
        .filter(|c| c.kind == CassetteKind::Http)
        .map(|c| {
            let format = std::fs::read(&c.path).ok().and_then(|bytes| {
                match vcr_cassette::http::format_of(&c.path, &bytes, &c.dir.read) {
                    Ok(format) => format,
                    Err(e) => Some(e.format),
                }
            });
            (c.path.clone(), format)
        })
        .collect()
}

/// The folder of a dsh cassette's scenario, relative to the project root.
pub fn scenario_rel(cassette: &Cassette) -> String {
    match cassette.rel.rsplit_once('/') {
        Some((dir, _)) => dir.to_owned(),
        None => String::new(),
    }
}

/// The cassette a line of a test run's output says is missing, if it is one of the seeds'
/// missing-fixture messages: Claude Code's `Anthropic API fixture missing: <file>. Re-run
/// ...` and `Fixture missing: <file>. Re-run ...` (`formats.md` A.7), llm-replay's
/// `llm-replay: fixture not found: <file> — run ...` and `llm-replay: child fixture not
/// found: <file> — re-record ...` (B.7). Colour codes a test runner adds are ignored.
pub fn missing_fixture(line: &str) -> Option<String> {
    static PATTERNS: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        [
            // The name always ends in `.json`, then `. Re-run`, a space or the line's end.
            regex::Regex::new(r"[Ff]ixture missing: (.+?\.json)(?:\.\s|\.?\s*$|\s)")
                .expect("valid regex"),
            regex::Regex::new(
                r"llm-replay: (?:child )?fixture not found: (.+?)(?: \x{2014} |\s*$)",
            )
            .expect("valid regex"),
        ]
    });
    let plain = strip_ansi(line);
    patterns
        .iter()
        .find_map(|re| re.captures(&plain))
        .map(|c| c[1].trim().to_owned())
        .filter(|path| !path.is_empty())
}

/// What a line of a test run's output says was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// A cassette, as printed.
    Cassette(String),
    /// A lookup that names no cassette (go-vcr's errors), the line as printed.
    Unnamed(String),
}

/// Reads a test run's output line by line for missing-cassette messages: the seeds'
/// ([`missing_fixture`]) and those the HTTP recorders print in replay-only mode, which make a
/// run partial as much as a seed's miss does (a test may catch the error and pass). Each
/// recorder lists its own ([`Recorder::misses`]): vcrpy's `CannotOverwriteExistingCassetteException`
/// (the cassette in its headline up to vcrpy 8, a few lines below it in vcrpy 9), Ruby VCR's
/// `An HTTP request has been made that VCR does not know how to handle:` (the first cassette
/// of the list below it), go-vcr's `requested interaction not found` (no cassette named).
///
/// pytest's `E   ` prefix, indentation and colour codes are ignored.
///
/// [`Recorder::misses`]: vcr_cassette::http::Recorder::misses
#[derive(Debug, Default)]
pub struct MissScanner {
    /// A recorder's headline seen, waiting for the line that names its cassette.
    pending: Option<Pending>,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    /// The rule whose headline was seen (an index into [`rules`]).
    rule: usize,
    /// Lines it may still take before the name (a message cut short names nothing).
    lines_left: usize,
    /// Whether the list that names the cassette began: its next line does.
    listing: bool,
}

/// A recorder's miss message, its patterns compiled.
struct Rule {
    headline: regex::Regex,
    names: Names,
}

enum Names {
    Headline,
    Below {
        name: regex::Regex,
        list: Option<regex::Regex>,
        none: Option<regex::Regex>,
        within: usize,
    },
    Nowhere,
}

/// Every recorder's miss messages, in the order of [`RECORDERS`], compiled once.
fn rules() -> &'static [Rule] {
    static RULES: std::sync::OnceLock<Vec<Rule>> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        let compile = |pattern: &str| regex::Regex::new(pattern).expect("a recorder's own pattern");
        RECORDERS
            .iter()
            .flat_map(|format| format.recorder().misses())
            .map(|rule| Rule {
                headline: compile(rule.headline),
                names: match rule.names {
                    MissNames::Headline => Names::Headline,
                    MissNames::Below {
                        name,
                        list,
                        none,
                        within,
                    } => Names::Below {
                        name: compile(name),
                        list: list.map(compile),
                        none: none.map(compile),
                        within,
                    },
                    MissNames::Nowhere => Names::Nowhere,
                },
            })
            .collect()
    })
}

impl MissScanner {
    /// The miss `line` reports, if it completes one.
    pub fn line(&mut self, line: &str) -> Option<Miss> {
        if let Some(path) = missing_fixture(line) {
            return Some(Miss::Cassette(path));
        }
        let plain = strip_ansi(line);
        let rules = rules();
        for (i, rule) in rules.iter().enumerate() {
            let Some(found) = rule.headline.captures(&plain) else {
                continue;
            };
            match &rule.names {
                Names::Headline => {
                    let path = found.iter().skip(1).flatten().next();
                    return Some(Miss::Cassette(path.map_or("", |m| m.as_str()).to_owned()));
                }
                Names::Nowhere => return Some(Miss::Unnamed(plain.trim().to_owned())),
                Names::Below { within, .. } => {
                    self.pending = Some(Pending {
                        rule: i,
                        lines_left: *within,
                        listing: false,
                    });
                    return None;
                }
            }
        }
        let mut pending = self.pending.take()?;
        let Names::Below {
            name, list, none, ..
        } = &rules[pending.rule].names
        else {
            return None;
        };
        if pending.listing {
            // The list's first item, or nothing.
            return name
                .captures(&plain)
                .map(|c| Miss::Cassette(c[1].to_owned()));
        }
        if none.as_ref().is_some_and(|none| none.is_match(&plain)) {
            return None;
        }
        match list {
            Some(list) if list.is_match(&plain) => {
                pending.listing = true;
                self.pending = Some(pending);
                return None;
            }
            Some(_) => {}
            None => {
                if let Some(c) = name.captures(&plain) {
                    return Some(Miss::Cassette(c[1].to_owned()));
                }
            }
        }
        if let Some(left) = pending.lines_left.checked_sub(1) {
            pending.lines_left = left;
            self.pending = Some(pending);
        }
        None
    }
}

/// Removes terminal escape sequences (`ESC [ ... letter`).
fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fixture_messages_of_both_seeds() {
        let case = |line: &str| missing_fixture(line);
        assert_eq!(
            case("Error: Anthropic API fixture missing: /w/app/fixtures/a1f2fb.json. Re-run tests with VCR_RECORD=1, then commit the result. Input messages:").as_deref(),
            Some("/w/app/fixtures/a1f2fb.json")
        );
        assert_eq!(
            case("Fixture missing: /w/app/fixtures/token-count-e81e0bac9db2.json. Re-run tests with VCR_RECORD=1, then commit the result.").as_deref(),
            Some("/w/app/fixtures/token-count-e81e0bac9db2.json")
        );
        assert_eq!(
            case("\u{1b}[31mAPI fixture missing: fixtures/abc123.json\u{1b}[39m").as_deref(),
            Some("fixtures/abc123.json")
        );
        assert_eq!(
            case("llm-replay: fixture not found: /r/snap/a/session.jsonl \u{2014} run `pnpm run test:snapshot:record` first").as_deref(),
            Some("/r/snap/a/session.jsonl")
        );
        assert_eq!(
            case("  llm-replay: child fixture not found: snap/a/session.2.jsonl \u{2014} re-record the scenario").as_deref(),
            Some("snap/a/session.2.jsonl")
        );
        assert_eq!(case("3 fixtures found: all green"), None);
        assert_eq!(case("llm-replay: script exhausted"), None);
    }

    /// The HTTP recorders' replay-only misses make a run partial (issue 10): the texts as
    /// vcrpy (8 and 9), Ruby VCR 5 and go-vcr (1.2 and later) print them.
    #[test]
    fn missing_cassette_messages_of_the_http_recorders() {
        let scan = |text: &str| {
            let mut scanner = MissScanner::default();
            text.lines()
                .filter_map(|l| scanner.line(l))
                .collect::<Vec<_>>()
        };
        let cassette = |p: &str| Miss::Cassette(p.to_owned());
        // vcrpy up to 8: the path in the headline, as Python's repr.
        assert_eq!(
            scan(
                "E   vcr.errors.CannotOverwriteExistingCassetteException: Can't overwrite existing cassette ('/p/tests/cassettes/test_api/test_get.yaml') in your current record mode (<RecordMode.NONE: 'none'>)."
            ),
            [cassette("/p/tests/cassettes/test_api/test_get.yaml")]
        );
        assert_eq!(
            scan(
                r#"Can't overwrite existing cassette ("it's.yaml") in your current record mode ('none')."#
            ),
            [cassette("it's.yaml")]
        );
        // vcrpy 9: the headline, the request, then `Cassette: <file>`, under pytest's `E`.
        let vcrpy9 = "E   vcr.errors.CannotOverwriteExistingCassetteException: Can't play back this request: the cassette doesn't exist, and record_mode 'none' doesn't record new ones.\nE   \nE     GET http://127.0.0.1:4000/v1/models\nE   \nE   Cassette: tests/cassettes/test_api/test_gone.yaml\nE     record_mode: none";
        assert_eq!(
            scan(vcrpy9),
            [cassette("tests/cassettes/test_api/test_gone.yaml")]
        );
        // A `Cassette:` line with no headline before it is not a miss.
        assert_eq!(scan("Cassette: tests/cassettes/a.yaml"), []);
        // Ruby VCR: the first cassette listed (the innermost, where it would record).
        let ruby = "\n================================================================================\nAn HTTP request has been made that VCR does not know how to handle:\n  GET http://127.0.0.1:4000/v1/models\n\nVCR are currently using the following cassettes:\n  - /p/cassettes/inner.yml\n    - :record => :none\n    - :match_requests_on => [:method, :uri]\n  - /p/cassettes/outer.yml\n    - :record => :none\n";
        assert_eq!(scan(ruby), [cassette("/p/cassettes/inner.yml")]);
        let no_cassette = "An HTTP request has been made that VCR does not know how to handle:\n  GET http://x/\n\nThere is currently no cassette in use. There are a few ways\n  - something else";
        assert_eq!(scan(no_cassette), []);
        // go-vcr names no cassette.
        assert_eq!(
            scan(
                "    api_test.go:31: Get \"http://127.0.0.1:4000/v1\": Requested interaction not found"
            ),
            [Miss::Unnamed(
                "api_test.go:31: Get \"http://127.0.0.1:4000/v1\": Requested interaction not found"
                    .into()
            )]
        );
        assert_eq!(scan("recorder: cassette not found").len(), 1);
        // The seeds' messages still count; ordinary output does not.
        assert_eq!(
            scan("Fixture missing: fixtures/token-count-e81e0bac9db2.json. Re-run tests"),
            [cassette("fixtures/token-count-e81e0bac9db2.json")]
        );
        assert_eq!(scan("3 passed in 0.12s\nCassettes: 3 played back"), []);
    }

    /// The recorders of issue 39, as their sources word their replay-only misses: those that
    /// name the cassette give it, the others count as unnamed misses; neighbours of these
    /// messages (Ruby VCR's, with its capital `VCR`) are told apart.
    #[test]
    fn missing_cassette_messages_of_the_recorders_of_issue_39() {
        let scan = |text: &str| {
            let mut scanner = MissScanner::default();
            text.lines()
                .filter_map(|l| scanner.line(l))
                .collect::<Vec<_>>()
        };
        let cassette = |p: &str| vec![Miss::Cassette(p.to_owned())];
        // php-vcr: `LogicException`, then the cassette's name.
        assert_eq!(
            scan(
                "PHP Fatal error:  Uncaught LogicException: The request does not match a previously recorded request and the 'mode' is set to 'none'. If you want to send the request anyway, make sure your 'mode' is set to 'new_episodes'. Please see http://php-vcr.github.io/documentation/configuration/#record-modes.\nCassette: shipments/create \n Request: Array"
            ),
            cassette("shipments/create")
        );
        // ExVCR: the cassette's path in the headline.
        assert_eq!(
            scan(
                "** (ExVCR.RequestNotMatchError) Request did not match with any one in the current cassette: fixture/vcr_cassettes/app#me.json.\nDelete the current cassette with [mix vcr.delete] and re-record."
            ),
            cassette("fixture/vcr_cassettes/app#me.json")
        );
        // R's vcr 2 (its name, quoted), and 1 (listed below, as Ruby VCR lists it).
        assert_eq!(
            scan(
                "Error in `vcr_request_handler()`:\n! Failed to find matching request in active cassette, \"occ_download_cancel\".\ni Use `local_vcr_configure_log()` to get more details."
            ),
            cassette("occ_download_cancel")
        );
        assert_eq!(
            scan(
                "Error: \n\n================================================================================\nAn HTTP request has been made that vcr does not know how to handle:\nGET http://127.0.0.1/v1/models\nvcr is currently using the following cassette:\n  - tests/fixtures/leaky.yml\n    - record_mode: none\n    - match_requests_on: method, uri"
            ),
            cassette("tests/fixtures/leaky.yml")
        );
        // OkReplay's warning names the tape; its exception, EasyVCR, DVR, Vinyl, govcr,
        // responses, HTTPretty, httpmock and httpreplay name none.
        assert_eq!(
            scan(
                "WARNING: no matching request found on tape 'rest conversation tape' for request GET http://x/"
            ),
            cassette("rest conversation tape")
        );
        for unnamed in [
            "okreplay.NonWritableTapeException: An HTTP request has been made that OkReplay does not know how to handle:",
            "EasyVCR.VCRException: No interaction found for request GET https://api.easypost.com/v2/shipments",
            "Fatal error: [DVR] Invalid request. The request was not found in the cassette.",
            "Fatal error: No 🎶 recorded and matchable with request: ",
            "vcr_test.go:41: Get \"https://x/\": no track matched on cassette and offline mode is active",
            "requests.exceptions.ConnectionError: Connection refused by Responses - the call doesn't match any registered mock.",
            "httpretty.errors.UnmockedError: Failed to handle network request.",
            "thread 'main' panicked: 404: Request did not match any route or mock",
            "setup.go:80: no matching request for GET https://storage.googleapis.com/b",
        ] {
            assert!(
                matches!(&scan(unnamed)[..], [Miss::Unnamed(_)]),
                "{unnamed}: {:?}",
                scan(unnamed)
            );
        }
    }

    #[test]
    fn reads_paths_and_records() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let log = root.join("usage.log");
        std::fs::write(
            &log,
            format!(
                "fixtures/a.json\n{}/fixtures/b.json\n\n{{\"path\": \"fixtures/c.json\", \"event\": \"miss\"}}\n{{\"path\":\"./fixtures/d.json\",\"event\":\"write\"}}\n{{\"path\": \"fixtures/d.json\", \"event\": \"miss\"}}\n",
                root.display()
            ),
        )
        .unwrap();
        let mut usage = Usage::default();
        usage.read_log(&log, &root, &root).unwrap();
        // A harness run in a subfolder logs paths relative to it.
        let mut from_sub = Usage::default();
        std::fs::write(&log, "cassettes/e.yaml\n").unwrap();
        from_sub.read_log(&log, &root.join("pkg"), &root).unwrap();
        assert_eq!(
            from_sub.used().into_iter().collect::<Vec<_>>(),
            ["pkg/cassettes/e.yaml"]
        );
        assert_eq!(
            usage.used().into_iter().collect::<Vec<_>>(),
            ["fixtures/a.json", "fixtures/b.json", "fixtures/d.json"]
        );
        assert_eq!(
            usage.missed().into_iter().collect::<Vec<_>>(),
            ["fixtures/c.json"]
        );
    }

    #[test]
    fn a_cut_line_is_an_error_with_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("usage.log");
        std::fs::write(&log, "fixtures/a.json\n{\"path\": \"fixtures/b.js").unwrap();
        let err = Usage::default()
            .read_log(&log, dir.path(), dir.path())
            .unwrap_err();
        assert!(
            err.to_string().contains("usage.log:2: not a usage record"),
            "{err}"
        );
    }
}
