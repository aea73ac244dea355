//! `vcr verify`: every check, on every selected cassette, in one pass per file.
//!
//! A file is read once. The leak linter scans its bytes; the parser builds its value; the
//! hits are placed in the value (key material or payload, which JSON pointer) only when
//! there are any; then the value is normalized and written to memory to compare with the
//! file, and named. Findings about several files (collisions, usage) come after all files;
//! the run that orders all this over a selection or the whole tree is `run`'s.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::baseline::Baseline;
use crate::event::FileProblem;
use crate::rehash::MAX_NAME_BYTES;
use crate::usage::Usage;
use logs::{by_lines, check_generic_log, check_session_leaks};
#[cfg(test)]
use pointers::pointers_of;
use vcr_cassette::CassetteError;
use vcr_cassette::api_error::{RECORDED_ERROR, RecordedError};
use vcr_json::Position;
use vcr_lint::finding::{Finding, FindingId, Severity, fingerprint};
use vcr_lint::{Hit, LeakFamily, Locator, Scanner};
use vcr_project::config::{ConfigError, Level};
use vcr_project::tree::{Cassette, CassetteKind, Project, compile_globs};
use vcr_regex::{JsRegex, PatternError, Stopped};

mod claude_code;
mod dsh;
mod generic;
mod http;
mod logs;
mod pointers;
mod published;
mod run;

use dsh::check_scenario;
use generic::{generic_scope, stale_message};
pub use http::{read_and_check, secret_values};
pub use run::{run, run_tree};

/// The checks of a run, built once from the configuration.
#[derive(Debug)]
pub struct Checks {
    scanner: Scanner,
    levels: HashMap<FindingId, Level>,
    allow: Vec<Allow>,
    /// The default severity of `recorded/error`: a warning in `verify`, an error in what
    /// `record` just recorded ([`Checks::for_record`]).
    recorded_error: Severity,
    /// `[http] cassettes` entries in order, with what the recorder matches requests by when
    /// the entry says.
    match_on: Vec<(globset::GlobMatcher, Option<Vec<String>>)>,
    /// HTTP cassettes recorded longer ago than this are `expired`.
    max_age: Option<MaxAge>,
    /// The project root, when `orphan` is guessed from the recorders' naming without a
    /// usage log (`[verify] static-orphans`, on by default).
    static_orphans: Option<PathBuf>,
    /// The repository's own sources, where a secret a cassette holds may be published as
    /// test data (`published`): such a finding is a warning naming the file.
    published: published::Published,
}

/// `--max-age` / `[verify] max-age`: how old an HTTP cassette may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxAge {
    /// The limit, in seconds.
    pub seconds: i64,
    /// Now, in seconds since the Unix epoch (a parameter, so tests can set it).
    pub now: i64,
}

impl MaxAge {
    /// Parses `90d`, `12w`, `1y`, `36h` (a number and a unit: hours, days, weeks, years of 365
    /// days).
    pub fn parse(text: &str, now: i64) -> Result<MaxAge, String> {
        let text = text.trim();
        let unit = text.chars().last().unwrap_or(' ');
        let number: i64 = text[..text.len() - unit.len_utf8().min(text.len())]
            .parse()
            .map_err(|_| format!("`{text}` is not an age such as `90d`, `12w`, `1y` or `36h`"))?;
        let scale = match unit {
            'h' => 3_600,
            'd' => 86_400,
            'w' => 7 * 86_400,
            'y' => 365 * 86_400,
            _ => {
                return Err(format!(
                    "`{text}` is not an age such as `90d`, `12w`, `1y` or `36h`"
                ));
            }
        };
        if number <= 0 {
            return Err(format!("`{text}`: the age must be more than zero"));
        }
        Ok(MaxAge {
            seconds: number.saturating_mul(scale),
            now,
        })
    }
}

#[derive(Debug)]
struct Allow {
    id: String,
    detector: Option<String>,
    contains: Option<String>,
    regex: Option<JsRegex>,
    paths: Option<globset::GlobSet>,
}

impl Allow {
    /// Whether the entry accepts the finding; the error is a regex match that was stopped.
    fn accepts(&self, finding: &Finding, raw: Option<&str>) -> Result<bool, Stopped> {
        let id = finding.id.as_str();
        let id_matches = match self.id.strip_suffix("/*") {
            Some(family) => id.starts_with(family) && id[family.len()..].starts_with('/'),
            None => self.id == id,
        };
        let value = raw.unwrap_or(&finding.message);
        let others = id_matches
            && self
                .detector
                .as_deref()
                .is_none_or(|d| finding.detector == Some(d))
            && self.contains.as_deref().is_none_or(|c| value.contains(c))
            && self
                .paths
                .as_ref()
                .is_none_or(|globs| globs.is_match(&finding.path));
        match &self.regex {
            Some(re) if others => re.is_match(value),
            _ => Ok(others),
        }
    }
}

/// An allowlist entry's `detector` must be one vcr has, and find what the entry's `id`
/// names: otherwise the entry could never match, and what it was meant to accept would
/// still fail the run with nothing saying why (issue 11).
fn check_detector(i: usize, entry: &vcr_project::config::AllowConfig) -> Result<(), String> {
    let Some(name) = &entry.detector else {
        return Ok(());
    };
    let Some(detector) = vcr_lint::detectors().into_iter().find(|d| d.name == name) else {
        return Err(format!(
            "`verify.allow[{i}]` names an unknown detector `{name}` (`vcr verify --list-detectors` lists them)"
        ));
    };
    let covers = match entry.id.strip_suffix("/*") {
        Some(family) => detector
            .id
            .as_str()
            .strip_prefix(family)
            .is_some_and(|r| r.starts_with('/')),
        None => detector.id.as_str() == entry.id,
    };
    if covers {
        Ok(())
    } else {
        Err(format!(
            "`verify.allow[{i}]`: detector `{name}` finds `{}`, not `{}`",
            detector.id, entry.id
        ))
    }
}

impl Checks {
    /// Builds the checks from the project's `[verify]` settings; `machine_paths` are this
    /// machine's folders to look for (label, path).
    pub fn new(project: &Project, machine_paths: &[(&str, &str)]) -> Result<Checks, ConfigError> {
        let config = &project.config().verify;
        let bad = |message: String| ConfigError::Verify {
            path: project.config_path().map(ToOwned::to_owned),
            message,
        };
        let mut levels = HashMap::new();
        for (id, level) in &config.severity {
            let Some(known) = FindingId::parse(id) else {
                return Err(bad(format!(
                    "`verify.severity` names an unknown finding id `{id}`"
                )));
            };
            levels.insert(known, *level);
        }
        let mut allow = Vec::new();
        for (i, entry) in config.allow.iter().enumerate() {
            let known = match entry.id.strip_suffix("/*") {
                Some(family) => FindingId::ALL
                    .iter()
                    .any(|id| id.as_str().starts_with(&format!("{family}/"))),
                None => FindingId::parse(&entry.id).is_some(),
            };
            if !known {
                return Err(bad(format!(
                    "`verify.allow[{i}]` names an unknown finding id `{}`",
                    entry.id
                )));
            }
            check_detector(i, entry).map_err(bad)?;
            let regex = entry
                .regex
                .as_deref()
                .map(|pattern| JsRegex::new(pattern, ""))
                .transpose()
                .map_err(|e| match e {
                    PatternError::Limit(limit) => bad(format!(
                        "`verify.allow[{i}].regex` is past vcr's limits: {limit}"
                    )),
                    e => bad(format!("`verify.allow[{i}].regex` is invalid: {e}")),
                })?;
            let paths = compile_globs(&entry.paths)
                .map_err(|e| bad(format!("`verify.allow[{i}].paths`: {e}")))?;
            allow.push(Allow {
                id: entry.id.clone(),
                detector: entry.detector.clone(),
                contains: entry.contains.clone(),
                regex,
                paths,
            });
        }
        // Every `[http] cassettes` entry in order, as the selection takes them: a cassette's
        // `match-on` is its first matching entry's, if that entry gives one.
        let mut match_on = Vec::new();
        for entry in project.config().http.cassettes.iter().flatten() {
            let glob = globset::GlobBuilder::new(entry.glob())
                .literal_separator(true)
                .build()
                .map_err(|e| {
                    bad(format!(
                        "`http.cassettes`: invalid glob `{}`: {}",
                        entry.glob(),
                        e.kind()
                    ))
                })?;
            match_on.push((
                glob.compile_matcher(),
                entry.match_on().map(<[String]>::to_vec),
            ));
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let max_age = config
            .max_age
            .as_deref()
            .map(|age| MaxAge::parse(age, now).map_err(|e| bad(format!("`verify.max-age`: {e}"))))
            .transpose()?;
        Ok(Checks {
            scanner: Scanner::new(machine_paths).reading(&project.read_options()),
            levels,
            allow,
            recorded_error: Severity::Warning,
            match_on,
            max_age,
            static_orphans: config
                .static_orphans
                .unwrap_or(true)
                .then(|| project.root().to_owned()),
            published: published::Published::new(project.root()),
        })
    }

    /// The source file outside the cassettes that publishes `value`, a secret a cassette
    /// holds (see `published`).
    pub(crate) fn published_in(&self, value: &str) -> Option<&str> {
        self.published.source_of(value)
    }

    /// The source file that tells the recorder to filter the query parameter `name`, which
    /// then takes no part in matching (see `published`).
    pub(crate) fn filters_query(&self, name: &str) -> Option<&str> {
        self.published.filters_query(name)
    }

    /// The source file that tells the project's recorder to remove the requests'
    /// `Authorization` header before writing them, if one does: a session a server set
    /// while the cassette shows no credential then answered a login whose credential was
    /// removed (`vcr_lint::http::SESSION_OF_REMOVED_LOGIN`).
    pub(crate) fn removes_credentials(&self) -> Option<&str> {
        self.published.filters_header("authorization")
    }

    /// Whether the cassette at `path` (relative to the project root) is replayed with the
    /// clock frozen at its recording: a `<name>.freeze` file beside it, which DataDog's API
    /// clients write with every cassette and read back to set the test clock, so a time in
    /// its requests is the same on every run (issue 41).
    pub(crate) fn frozen_clock(&self, path: &str) -> bool {
        self.published
            .root()
            .join(path)
            .with_extension("freeze")
            .is_file()
    }

    /// Sets the age past which HTTP cassettes are `expired` (`--max-age`, over the
    /// configuration's).
    pub fn with_max_age(mut self, max_age: MaxAge) -> Checks {
        self.max_age = Some(max_age);
        self
    }

    /// The checks `record` runs on what it just recorded: a recorded API error is an error
    /// there (the recording failed, and now is the time to record it again), a warning in
    /// `verify` (a committed cassette may hold one on purpose). `[verify.severity]` still
    /// has the last word in both.
    pub fn for_record(mut self) -> Checks {
        self.recorded_error = Severity::Error;
        self
    }

    /// The configured severity of a finding (`None`: turned off).
    /// The leak scanner.
    pub fn scanner(&self) -> &Scanner {
        &self.scanner
    }

    /// Whether `verify` reports a leak found in the HTTP cassette at `rel`: its id is not
    /// turned off and no `[[verify.allow]]` entry accepts it (what `normalize` scrubs by
    /// default is exactly what `verify` reports). An allowlist regex stopped at its limit
    /// accepts nothing.
    pub fn reports_leak(&self, rel: &str, leak: &vcr_lint::http::HttpLeak) -> bool {
        let id = leak.hit.family.id();
        if self.level(id, leak.severity).is_none() {
            return false;
        }
        if leak.hit.reason == vcr_lint::http::SESSION_OF_REMOVED_LOGIN
            && self.removes_credentials().is_none()
        {
            return false;
        }
        let mut finding = Finding::new(id, leak.severity, rel, String::new());
        finding.detector = Some(leak.hit.detector);
        finding.pointer = Some(masked_pointer(&leak.path, &leak.hit));
        !self
            .allow
            .iter()
            .any(|allow| allow.accepts(&finding, Some(&leak.hit.text)) == Ok(true))
    }

    /// What the recorder of the HTTP cassette at `rel`, whose text starts with `head`,
    /// matches requests by: its `[http] cassettes` entry's `match-on`, else the recorder's
    /// default for that cassette ([`vcr_cassette::http::Format::match_on_in`]).
    pub fn match_on(
        &self,
        rel: &str,
        format: vcr_cassette::http::Format,
        head: &[u8],
    ) -> Vec<&str> {
        self.match_on
            .iter()
            .find(|(glob, _)| glob.is_match(rel))
            .and_then(|(_, names)| names.as_ref())
            .map(|names| names.iter().map(String::as_str).collect::<Vec<_>>())
            .unwrap_or_else(|| format.match_on_in(head).to_vec())
    }

    fn level(&self, id: FindingId, default: Severity) -> Option<Severity> {
        match self.levels.get(&id) {
            None => Some(default),
            Some(Level::Error) => Some(Severity::Error),
            Some(Level::Warning) => Some(Severity::Warning),
            Some(Level::Off) => None,
        }
    }
}

/// Where a run's inputs come from besides the tree.
#[derive(Debug, Default)]
pub struct Options {
    /// The contents to check instead of the working files (`--staged`), by absolute path.
    pub contents: Option<BTreeMap<PathBuf, Vec<u8>>>,
    /// Usage sources: `missing` and `orphan` findings come from them.
    pub usage: Option<Usage>,
    /// Findings accepted by a baseline.
    pub baseline: Option<Baseline>,
    /// What `{{cwd}}` stands for in dsh logs (`Project::dsh_cwd`): logs that still hold it
    /// are not in their canonical form.
    pub dsh_cwd: Option<String>,
}

/// Counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Files checked.
    pub files: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Findings accepted by `[[verify.allow]]` or the baseline.
    #[serde(skip_serializing_if = "is_zero")]
    pub accepted: usize,
    /// Files read as HTTP cassettes, per format (`"vcrpy": 12`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub http: BTreeMap<&'static str, usize>,
    /// Files no reader knows the shape of, linted as text only: selected as possible HTTP
    /// cassettes (by a cassette folder, `[http] cassettes`, `[verify] text` or their
    /// content), or named on the command line (or staged) and no cassette of a known kind.
    /// Nothing goes unread in silence and nothing named goes unjudged (issues 21 and 39);
    /// `Outcome::as_text` names them.
    #[serde(skip_serializing_if = "is_zero")]
    pub as_text: usize,
    /// Cassettes the walk left out because git ignores them (`--no-ignore` reads them):
    /// counted, so that a rule that hides cassettes is seen (issue 21).
    #[serde(skip_serializing_if = "is_zero")]
    pub git_ignored: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a run found besides its findings (which `run` hands on as it makes them).
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files that could not be read (the run then exits 2).
    pub problems: Vec<(String, FileProblem)>,
    /// The counts.
    pub summary: Summary,
    /// Each dsh scenario checked, with its sessions and derived calls (`verify -v`).
    pub scenarios: Vec<ScenarioStats>,
    /// The files counted in `Summary::as_text`, in path order (`verify -v` lists them).
    pub as_text: Vec<String>,
    /// The cassettes counted in `Summary::git_ignored`, in path order (`verify -v`).
    pub git_ignored: Vec<String>,
    /// The files that turned the static orphan guess off for some cassettes, with why: the
    /// summary says so, so that a guess that judged nothing is not read as "no orphans".
    pub guess_off: Vec<crate::usage::naming::Off>,
}

/// What a dsh scenario holds, as the harness would load it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ScenarioStats {
    /// The folder, relative to the project root.
    pub path: String,
    /// Session scripts: the primary and one per child log.
    pub sessions: usize,
    /// Model calls in those scripts, overrides applied.
    pub calls: usize,
}

struct FileResult {
    findings: Vec<(Finding, Option<String>)>,
    /// The HTTP format the file was read as.
    http_format: Option<&'static str>,
    /// An HTTP cassette that could not be read (a `parse` error): not "linted as text".
    http_unreadable: bool,
    /// The name the harness would look up, for content-addressed cassettes.
    expected_name: Option<String>,
    problem: Option<FileProblem>,
}

/// Every per-file check of one selected file (staged contents, if given, instead of the
/// working file).
fn check_one(cassette: &Cassette, checks: &Checks, options: &Options) -> FileResult {
    let staged = options
        .contents
        .as_ref()
        .and_then(|c| c.get(&cassette.path));
    // Logs are read line by line (issue 12): a log can be far larger than memory.
    if cassette.kind == CassetteKind::DshSession && cassette.dir.spec.is_none() {
        return by_lines(cassette, staged, |input| {
            check_session_leaks(cassette, input, checks)
        });
    }
    if let Some(spec) = vcr_cassette::streamed_log(cassette) {
        return by_lines(cassette, staged, |input| {
            check_generic_log(cassette, spec, input, checks)
        });
    }
    let bytes = match staged {
        Some(bytes) => Ok(bytes.clone()),
        None => std::fs::read(&cassette.path),
    };
    match bytes {
        Ok(bytes) => check_file(cassette, &bytes, checks),
        Err(e) => FileResult {
            findings: Vec::new(),
            http_format: None,
            http_unreadable: false,
            expected_name: None,
            problem: Some(FileProblem::io(&e)),
        },
    }
}

/// Whether a string sits in the key material, and whether its field is kept on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Key,
    Payload,
    /// A field the format keeps as recorded (Claude Code output items' `timestamp` and
    /// `uuid`): UUIDs and timestamps there are not findings.
    Kept,
    /// The dsh header's `cwd`, which the harness writes as `{{cwd}}`: any machine path
    /// there is an error, a temporary folder too.
    Cwd,
}

fn check_file(cassette: &Cassette, bytes: &[u8], checks: &Checks) -> FileResult {
    let mut result = FileResult {
        findings: Vec::new(),
        http_format: None,
        http_unreadable: false,
        expected_name: None,
        problem: None,
    };
    // One file per kind: its checks, in the order the kind calls for.
    match cassette.kind {
        CassetteKind::Http | CassetteKind::Text => {
            http::check(cassette, bytes, checks, &mut result);
        }
        CassetteKind::Generic => generic::check(cassette, bytes, checks, &mut result),
        CassetteKind::DshSession | CassetteKind::DshOverride => {
            dsh::check_leaks(cassette, bytes, checks, &mut result);
        }
        CassetteKind::ClaudeCodeMessage | CassetteKind::ClaudeCodeTokenCount => {
            claude_code::check(cassette, bytes, checks, &mut result);
        }
    }
    result
}

/// The finding of a structured cassette that is not JSON (`parse`) or not the shape of its
/// kind (`schema`), and its leaks, which cannot be placed in a value.
fn unreadable(
    cassette: &Cassette,
    bytes: &[u8],
    hits: &[Hit],
    e: &CassetteError,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    let finding = match e {
        CassetteError::Parse(e) => Finding::new(
            FindingId::Parse,
            Severity::Error,
            &cassette.rel,
            format!("not valid JSON: {e}"),
        ),
        _ => Finding::new(
            e.finding_id(),
            Severity::Error,
            &cassette.rel,
            e.to_string(),
        ),
    };
    push(checks, out, finding.at(e.position(bytes)), None);
    leak_findings(cassette, bytes, hits, None, checks, out);
}

/// Whether `bytes` differ from what they should be only by CRLF line endings: `same`
/// tells whether the canonical form equals the text with LF endings.
fn crlf_only(bytes: &[u8], same: impl FnOnce(&[u8]) -> bool) -> bool {
    memchr::memmem::find(bytes, b"\r\n").is_some() && {
        let lf = String::from_utf8_lossy(bytes)
            .replace("\r\n", "\n")
            .into_bytes();
        same(&lf)
    }
}

/// A finding's pointer as outputs show it: a secret written as a JSON key (`/keys/sk-...`)
/// is part of the path to it, and shows masked as the finding's match does, in JSON, SARIF
/// and the baseline file alike.
fn masked_pointer(pointer: &str, hit: &Hit) -> String {
    if hit.family == LeakFamily::Secret && hit.text.len() >= 4 && pointer.contains(&hit.text) {
        pointer.replace(&hit.text, &hit.masked)
    } else {
        pointer.to_owned()
    }
}

fn push(
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
    mut finding: Finding,
    raw: Option<String>,
) {
    if let Some(severity) = checks.level(finding.id, finding.severity) {
        finding.severity = severity;
        // Messages of other findings may quote the file (a placeholder's whole string, a
        // field's value): what the leak scan finds there is masked as in every output.
        if !finding.id.is_leak() {
            finding.message = checks.scanner.mask(&finding.message);
        }
        out.push((finding, raw));
    }
}

/// `recorded/error` findings, placed at the call and named by its JSON pointer.
fn recorded_error_findings(
    cassette: &Cassette,
    bytes: &[u8],
    errors: &[RecordedError],
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    for error in errors {
        let at = error.offset.map(|o| Position::locate(bytes, o));
        let finding = recorded_error_finding(&cassette.rel, error, at, checks);
        push(checks, out, finding, None);
    }
}

/// The `recorded/error` finding of one recorded error, at `at`.
fn recorded_error_finding(
    rel: &str,
    error: &RecordedError,
    at: Option<Position>,
    checks: &Checks,
) -> Finding {
    let message = error.message(&format!("`{}`", error.pointer));
    Finding {
        pointer: Some(error.pointer.clone()),
        ..Finding::new(RECORDED_ERROR, checks.recorded_error, rel, message)
    }
    .at(at)
}

/// Claude Code's scopes: `input` is the key material; output items' own `timestamp` and
/// `uuid` are kept as recorded; the rest is payload.
fn scope_of(kind: CassetteKind, pointer: &str) -> Scope {
    if kind.is_dsh() {
        // dsh logs have no key material; the ids the harness keeps on purpose (message and
        // session ids, kept across re-records) are not findings.
        if kind == CassetteKind::DshSession && pointer == "/0/cwd" {
            return Scope::Cwd;
        }
        let field = pointer.rsplit('/').next().unwrap_or_default();
        return if field == "id" || field.ends_with("Id") || field == "parentSession" {
            Scope::Kept
        } else {
            Scope::Payload
        };
    }
    if kind != CassetteKind::ClaudeCodeMessage {
        return Scope::Payload;
    }
    if pointer == "/input" || pointer.starts_with("/input/") {
        return Scope::Key;
    }
    let mut parts = pointer.split('/').skip(1);
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("output"), Some(index), Some("timestamp" | "uuid"), None)
            if index.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Scope::Kept
        }
        _ => Scope::Payload,
    }
}

fn leak_findings(
    cassette: &Cassette,
    bytes: &[u8],
    hits: &[Hit],
    pointers: Option<&[Option<String>]>,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    let mut locator = Locator::new(bytes);
    for (i, hit) in hits.iter().enumerate() {
        let pointer = pointers.and_then(|pointers| pointers[i].as_deref());
        let scope = pointer.map_or(Scope::Payload, |p| match &cassette.dir.spec {
            Some(spec) => generic_scope(spec, p),
            None => scope_of(cassette.kind, p),
        });
        let Some((severity, where_)) = leak_severity(hit, scope) else {
            continue;
        };
        let family = hit.family;
        let message = match family {
            LeakFamily::Secret => format!("{} leaked{where_}: remove it and rotate it", hit.label),
            LeakFamily::Path => format!(
                "{}{where_}: a machine path; dehydrate it (a rule in vcr.toml) and run `vcr normalize`",
                capitalize(&hit.label)
            ),
            LeakFamily::Uuid | LeakFamily::Timestamp if scope == Scope::Key => format!(
                "{} in the key material changes the cassette's name on every run; dehydrate it",
                capitalize(&hit.label)
            ),
            LeakFamily::Uuid | LeakFamily::Timestamp => {
                format!("{} in the payload", capitalize(&hit.label))
            }
            LeakFamily::Email => format!("{}{where_}: personal data", capitalize(&hit.label)),
            LeakFamily::Unscanned => format!("{}{where_} was not scanned", capitalize(&hit.label)),
        };
        // Raw unless `dehydrate-stream-events` is on: then the rules reach them like any
        // payload, and the usual advice holds.
        let raw_stream_event = pointer.is_some_and(|p| is_stream_event(cassette.kind, p))
            && !cassette.dir.dehydrate_stream_events;
        let message = if raw_stream_event
            && matches!(
                family,
                LeakFamily::Secret | LeakFamily::Path | LeakFamily::Email
            ) {
            format!(
                "{message} (Claude Code stores stream events as recorded and `vcr normalize` keeps them so: `[claude-code] dehydrate-stream-events = true` applies the rules to them; or re-record from a folder that names no user, or accept it in [[verify.allow]])"
            )
        } else {
            message
        };
        let mut finding = Finding::new(family.id(), severity, &cassette.rel, message)
            .at(Some(locator.locate(hit.start)));
        finding.matched = Some(hit.masked.clone());
        finding.detector = Some(hit.detector);
        finding.reason = Some(hit.reason.to_owned());
        finding.pointer = pointer.map(|p| masked_pointer(p, hit));
        finding.fingerprint = fingerprint(&hit.text);
        push(checks, out, finding, Some(hit.text.clone()));
    }
}

/// `leak/secret` errors for the keys a cassette's path holds (`test_sk-proj-....yaml`, a
/// folder named after a token, issue 41): published with every commit as its contents are.
/// The finding has no line: the name is no place in the file. Every output masks the path
/// (`vcr_lint::file_name::PathMask`); `normalize` reports the same and renames nothing, since
/// the test that opens the file names it.
pub(crate) fn path_findings(
    cassette: &Cassette,
    checks: &Checks,
) -> Vec<(Finding, Option<String>)> {
    let mut out = Vec::new();
    for hit in vcr_lint::file_name::secrets_in_path(&checks.scanner, &cassette.rel) {
        let message = format!(
            "{} leaked in the file's path: rename the file and the test or configuration that names it, and rotate the key (`vcr normalize` does not rename files)",
            hit.label
        );
        let mut finding = Finding::new(
            FindingId::LeakSecret,
            Severity::Error,
            &cassette.rel,
            message,
        );
        finding.matched = Some(hit.masked.clone());
        finding.detector = Some(hit.detector);
        finding.reason = Some(hit.reason.to_owned());
        finding.fingerprint = fingerprint(&hit.text);
        push(checks, &mut out, finding, Some(hit.text));
    }
    out
}

/// Whether a pointer is inside a Claude Code `stream_event` item's event.
fn is_stream_event(kind: CassetteKind, pointer: &str) -> bool {
    let mut parts = pointer.split('/').skip(1);
    kind == CassetteKind::ClaudeCodeMessage
        && parts.next() == Some("output")
        && parts
            .next()
            .is_some_and(|i| i.bytes().all(|b| b.is_ascii_digit()))
        && parts.next() == Some("event")
}

/// The severity of a leak where it sits (`None`: not a finding there), and words for where.
fn leak_severity(hit: &Hit, scope: Scope) -> Option<(Severity, &'static str)> {
    let where_ = match scope {
        Scope::Key => " in the key material",
        Scope::Cwd => " where the harness writes {{cwd}}",
        _ => "",
    };
    let severity = match hit.family {
        LeakFamily::Secret => Severity::Error,
        LeakFamily::Path if hit.temporary && !matches!(scope, Scope::Key | Scope::Cwd) => {
            Severity::Warning
        }
        LeakFamily::Path => Severity::Error,
        LeakFamily::Uuid | LeakFamily::Timestamp => match scope {
            Scope::Kept => return None,
            Scope::Key => Severity::Error,
            Scope::Payload | Scope::Cwd => Severity::Warning,
        },
        LeakFamily::Email | LeakFamily::Unscanned => Severity::Warning,
    };
    Some((severity, where_))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn format_finding(
    cassette: &Cassette,
    bytes: &[u8],
    canonical: &[u8],
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    let first = bytes
        .iter()
        .zip(canonical)
        .position(|(a, b)| a != b)
        .unwrap_or(bytes.len().min(canonical.len()));
    let crlf = || crlf_only(bytes, |lf| lf == canonical);
    format_finding_at(cassette, bytes, first, crlf, checks, out);
}

/// The finding of a file that differs from its canonical form, first at byte `first`;
/// `crlf` tells whether CRLF line endings are the only difference.
fn format_finding_at(
    cassette: &Cassette,
    bytes: &[u8],
    first: usize,
    crlf: impl FnOnce() -> bool,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    let finding = if crlf() {
        let first = memchr::memchr(b'\r', bytes).unwrap_or(0);
        line_endings_finding(cassette, Position::locate(bytes, first))
    } else {
        unnormalized_finding(cassette, Position::locate(bytes, first))
    };
    push(checks, out, finding, None);
}

/// `format/line-endings`, at the first `\r`.
fn line_endings_finding(cassette: &Cassette, at: Position) -> Finding {
    let pattern = match cassette.rel.rsplit_once('/') {
        Some((folder, _)) => format!("{folder}/**"),
        None => "*.json".to_owned(),
    };
    let message = format!(
        "CRLF line endings where the harness writes LF (git's core.autocrlf?); add `{pattern} text eol=lf` to .gitattributes and run `vcr normalize`"
    );
    Finding::new(
        FindingId::FormatLineEndings,
        Severity::Error,
        &cassette.rel,
        message,
    )
    .at(Some(at))
}

/// `format/unnormalized`, at the first byte that differs.
fn unnormalized_finding(cassette: &Cassette, at: Position) -> Finding {
    Finding::new(FindingId::FormatUnnormalized,
        Severity::Error,
        &cassette.rel,
        "differs from what the harness's writer produces (dehydration, ids or formatting); run `vcr normalize` (`--diff` shows how)".into(),
    )
    .at(Some(at))
}

fn name_findings(
    cassette: &Cassette,
    expected: &str,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    let actual = cassette
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if expected.len() > MAX_NAME_BYTES {
        let message = format!(
            "its name would be {} bytes long; file systems allow {MAX_NAME_BYTES}, so the harness cannot open it (about 35 messages per call is the limit)",
            expected.len()
        );
        push(
            checks,
            out,
            Finding::new(
                FindingId::NameTooLong,
                Severity::Error,
                &cassette.rel,
                message,
            ),
            None,
        );
    } else if actual != expected {
        let message = format!(
            "the name is not the hash of the key material under the current rules: the harness looks for {expected}; run `vcr rehash`"
        );
        push(
            checks,
            out,
            Finding::new(
                FindingId::NameStale,
                Severity::Error,
                &cassette.rel,
                message,
            ),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_follow_claude_code() {
        let kind = CassetteKind::ClaudeCodeMessage;
        assert_eq!(scope_of(kind, "/input/0/1/text"), Scope::Key);
        assert_eq!(scope_of(kind, "/output/3/timestamp"), Scope::Kept);
        assert_eq!(
            scope_of(kind, "/output/3/message/content/0/text"),
            Scope::Payload
        );
        assert_eq!(scope_of(kind, "/output/3/event/timestamp"), Scope::Payload);
        assert_eq!(
            scope_of(CassetteKind::ClaudeCodeTokenCount, "/input"),
            Scope::Payload
        );
    }

    #[test]
    fn hits_find_their_strings_and_pointers_with_escapes() {
        let text = br#"{"a/b": ["x", {"~k": "y"}], "z": "/home/ann/q"}"#;
        let value = vcr_json::parse(text).unwrap();
        let hit = |at: usize| Hit {
            detector: "test",
            label: String::new(),
            family: LeakFamily::Path,
            temporary: false,
            start: at,
            end: at + 1,
            text: String::new(),
            masked: String::new(),
            reason: "",
        };
        let find = |needle: &str| {
            text.windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap()
        };
        let hits = [
            hit(0),
            hit(find("a/b")),
            hit(find("x")),
            hit(find("~k")),
            hit(find("y\"")),
            hit(find("/home")),
        ];
        let pointers = pointers_of(&value, &hits);
        let some = |p: &str| Some(p.to_owned());
        assert_eq!(
            pointers,
            [
                None,
                some("/a~1b"),
                some("/a~1b/0"),
                some("/a~1b/1/~0k"),
                some("/a~1b/1/~0k"),
                some("/z")
            ]
        );
    }
}
