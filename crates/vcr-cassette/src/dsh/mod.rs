//! DeepSeek-Harness (`dsh`) scenarios, checked statically with the harness's own semantics.
//!
//! A dsh scenario is a folder holding `session.jsonl` (the primary session log), child logs
//! `session.1.jsonl`, `session.2.jsonl`, ..., and optionally `replay.override.json`. The
//! harness's `llm-replay` plugin derives the replay script from those logs at test time and
//! only then fails on a broken scenario; this module runs the same derivation before the
//! commit (`formats.md` Part B, generation G2, is the spec):
//!
//! - [`read_session`] reads a log as G2 `parseSessionLog` does (blank lines skipped, `seq`
//!   and `time` filled in, packed chunk rows validated and expanded) and checks its header
//!   against both of the harness's readers, llm-replay and the session store ([`Header`]);
//! - [`derive_script`] is G2 `deriveReplayScript`, collecting every unfinished call instead
//!   of stopping at the first;
//! - [`check_override`] validates `replay.override.json` with the harness's messages;
//! - [`check_from_request`] checks `{{fromRequest:PATTERN}}` placeholders, compiling the
//!   pattern as an ECMAScript regex;
//! - [`check_scenario_files`] checks the folder's file set;
//! - [`check_scenario`] combines them for one folder;
//! - [`normalize_session`] is the canonical form `vcr normalize` writes.
//!
//! Everything here is pure: bytes in, values out. Walking the tree, reading files, turning
//! [`Problem`]s into findings and printing belong to the callers.

pub mod files;
mod from_request;
mod header;
mod normalize;
mod overrides;
mod script;
mod session;

use std::io::BufRead;

use crate::api_error::ApiErrorKind;
use vcr_json::{Position, Value};

pub use crate::jsonl::FirstDifference;
pub use files::{
    PRIMARY, REPLAY_OVERRIDE, check_scenario_files, child_index, is_scenario_dir, is_scenario_file,
};
pub use from_request::{FROM_REQUEST_OPEN, check_from_request, placeholder_errors};
pub use header::{Header, Role};
pub use normalize::{LineNormalizer, normalize_session};
pub use overrides::{OverrideCheck, OverrideKind, check_override};
pub use script::{
    Call, CallSummary, Chunk, DerivedScript, Deriver, ToolCall, Unfinished, derive_script,
};
#[cfg(test)]
pub(crate) use session::lines;
pub use session::{Event, SessionLog, SessionRead, SessionReader, parse_session, read_session};

/// The finding ids this module reports, as `DESIGN.md` lists them.
pub mod ids {
    use crate::finding_id::FindingId;

    /// Not valid JSON, or a line that is not a JSON object.
    pub const PARSE: FindingId = FindingId::Parse;
    /// Valid JSON but not the shape the harness needs (header, packed rows, events).
    pub const SCHEMA: FindingId = FindingId::Schema;
    /// A session header that llm-replay reads but the harness's session store refuses
    /// (a warning by default).
    pub const PERSISTENCE: FindingId = FindingId::DshPersistence;
    /// A child log missing from the sequence, or a `session.jsonl` the scenario needs.
    pub const MISSING: FindingId = FindingId::Missing;
    /// A model call without `finish` that no override covers.
    pub const UNFINISHED_CALL: FindingId = FindingId::DshUnfinishedCall;
    /// An invalid `replay.override.json`.
    pub const OVERRIDE: FindingId = FindingId::DshOverride;
    /// An invalid or unterminated `{{fromRequest:...}}` placeholder.
    pub const FROM_REQUEST: FindingId = FindingId::DshFromRequest;
    /// A session log that differs from what `vcr normalize` writes.
    pub const UNNORMALIZED: FindingId = FindingId::FormatUnnormalized;
    /// A derived call whose recording is a provider error (authentication, rate limit, ...).
    pub const RECORDED_ERROR: FindingId = FindingId::RecordedError;
}

/// One thing wrong with a scenario, placed in a file.
///
/// This is the module's own currency rather than the judge's `Finding` (`vcr_lint`): severities,
/// fingerprints and baselines are the caller's policy, and the caller knows the project-
/// relative path to put in front of `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The finding id (see [`ids`]).
    pub id: crate::finding_id::FindingId,
    /// The file, as the caller named it (for [`check_scenario`]: the folder prefix joined
    /// with the file name).
    pub file: String,
    /// 1-based line, when the problem has a place in the file.
    pub line: Option<usize>,
    /// 1-based column, in characters.
    pub column: Option<usize>,
    /// Byte offset in the file, when the problem has a place in it.
    pub offset: Option<usize>,
    /// What is wrong; the harness's own wording where it has one.
    pub message: String,
}

impl Problem {
    /// A problem at byte `offset` of the file, placed by `text` (the whole file, or the line
    /// of a streamed log that holds the offset).
    pub(crate) fn at<'b>(
        id: crate::finding_id::FindingId,
        file: &str,
        text: impl Into<Place<'b>>,
        offset: usize,
        message: String,
    ) -> Problem {
        let position = text.into().locate(offset);
        Problem {
            id,
            file: file.to_owned(),
            line: Some(position.line),
            column: Some(position.column),
            offset: Some(offset),
            message,
        }
    }

    /// A problem about a whole file.
    pub(crate) fn whole(id: crate::finding_id::FindingId, file: &str, message: String) -> Problem {
        Problem {
            id,
            file: file.to_owned(),
            line: None,
            column: None,
            offset: None,
            message,
        }
    }
}

/// The text a [`Problem`]'s offset is placed in: the whole file, or one line of a log read
/// line by line (its bytes, the file offset where it starts and its 1-based number), so a
/// streamed log gets the same line and column as a log read whole.
#[derive(Debug, Clone, Copy)]
pub struct Place<'b> {
    bytes: &'b [u8],
    start: usize,
    line: usize,
}

impl<'b> Place<'b> {
    /// The line `number` of a file, which starts at file offset `start`.
    pub fn line(bytes: &'b [u8], start: usize, number: usize) -> Place<'b> {
        Place {
            bytes,
            start,
            line: number,
        }
    }

    /// The line and column of file offset `offset` (which must not come before `start`).
    fn locate(&self, offset: usize) -> Position {
        let within = Position::locate(self.bytes, offset.saturating_sub(self.start));
        Position {
            line: within.line + self.line - 1,
            column: within.column,
        }
    }
}

impl<'b> From<&'b [u8]> for Place<'b> {
    fn from(bytes: &'b [u8]) -> Place<'b> {
        Place::line(bytes, 0, 1)
    }
}

impl<'b> From<&'b Vec<u8>> for Place<'b> {
    fn from(bytes: &'b Vec<u8>) -> Place<'b> {
        Place::line(bytes, 0, 1)
    }
}

/// What [`check_scenario`] found in one folder.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioReport {
    /// How many session scripts the harness would load: the primary (from `session.jsonl`
    /// or a bare override) plus one per child log. `vcr verify -v` shows it.
    pub sessions: usize,
    /// How many model calls those scripts hold in total, overrides applied.
    pub calls: usize,
    /// The scripts in the order the harness binds them to live sessions (B.7).
    pub scripts: Vec<ScriptSummary>,
    /// Everything wrong, in file order: the folder's file set, the primary log, the
    /// override, then the children by number.
    pub problems: Vec<Problem>,
}

/// One session script of a scenario, for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptSummary {
    /// The log the script comes from (for an override-only primary: the override).
    pub file: String,
    /// The recorded session id from the header (`""` when there is no header).
    pub id: String,
    /// The header's `createdAt`, which orders the children (`0` when absent).
    pub created_at: f64,
    /// Whether this is the primary session.
    pub primary: bool,
    /// The number of calls in the script, overrides applied.
    pub calls: usize,
}

/// Checks one dsh scenario folder.
///
/// `files` is every file of the folder as `(name, bytes)`, names relative to the folder
/// (only session logs and the override are read; the other names matter for
/// [`check_scenario_files`]). `dir` is put in front of the names in problems and in the
/// harness messages that quote the override's path (`""` for none). Every readable session
/// log is also compared with its [`normalize_session`] form, `cwd` being the absolute
/// working directory recordings were made in, if known; a difference is one
/// `format/unnormalized` problem at the first line that changes (callers that check
/// normalization elsewhere can drop that id).
///
/// The scripts follow B.5-B.7: the primary is derived from `session.jsonl` in full and the
/// override applies to it only; a child is derived from its events after `seedLength`. A
/// bare override covers every call of the primary log, unfinished ones included; patches
/// cover none, because the harness derives the whole primary script before applying them.
/// No problem hides another. A header with problems still gives the fields llm-replay reads,
/// and a log with rows the harness cannot read is derived from the rows it can read. The
/// calls those rows may have finished are not reported as unfinished, and an override's
/// patch indexes are not judged against that script.
pub fn check_scenario(files: &[(&str, &[u8])], dir: &str, cwd: Option<&str>) -> ScenarioReport {
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    let mut open = |wanted: &str| -> std::io::Result<Box<dyn BufRead + '_>> {
        let bytes = files
            .iter()
            .find(|(name, _)| *name == wanted)
            .map_or(&[][..], |f| f.1);
        Ok(Box::new(bytes))
    };
    match check_scenario_streamed(&names, &mut open, dir, cwd) {
        Ok(report) => report,
        Err(e) => unreachable!("reading bytes in memory cannot fail: {e}"),
    }
}

/// Opens one file of a scenario folder by name, for [`check_scenario_streamed`].
pub type Open<'o> = dyn FnMut(&str) -> std::io::Result<Box<dyn BufRead + 'o>> + 'o;

/// [`check_scenario`] reading each session log line by line from `open` (issue 12): what it
/// keeps is the file names, the override, the problems and a few numbers per call, so a
/// scenario with logs of millions of lines is checked in the memory of its largest line (and
/// largest call, whose chunks the derivation holds until it closes). `names` are the
/// folder's file names; only the logs and the override are opened. An error reading a file
/// stops the check.
pub fn check_scenario_streamed(
    names: &[&str],
    open: &mut Open<'_>,
    dir: &str,
    cwd: Option<&str>,
) -> std::io::Result<ScenarioReport> {
    let display = |name: &str| {
        if dir.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{name}", dir.trim_end_matches('/'))
        }
    };
    let has = |wanted: &str| names.contains(&wanted);
    let mut problems = Vec::new();
    let mut scripts = Vec::new();

    let override_bytes = if has(REPLAY_OVERRIDE) {
        let mut bytes = Vec::new();
        open(REPLAY_OVERRIDE)?.read_to_end(&mut bytes)?;
        Some(bytes)
    } else {
        None
    };
    let override_shape = override_bytes.as_deref().map(overrides::shape);

    let bare = matches!(override_shape, Some(None | Some(true)));
    problems.extend(check_scenario_files(names, bare).into_iter().map(|mut p| {
        p.file = display(&p.file);
        p
    }));

    // The primary log: derived in full; a bare override replaces its script.
    let primary_file = display(PRIMARY);
    let mut derived_len = None;
    let mut primary_len = 0;
    let mut primary_header = None;
    let mut primary_calls = 0;
    let mut primary_call_problems = Vec::new();
    if has(PRIMARY) {
        let log = check_log(open(PRIMARY)?, &primary_file, Role::Primary, true, cwd)?;
        problems.extend(log.read_problems);
        primary_len = log.calls;
        // A row the harness cannot read may have held a `finish`: the count is then not
        // certain enough to judge an override patch's index by.
        derived_len = log.unread.is_empty().then_some(primary_len);
        // A bare override replaces the script: the harness never derives this log.
        if !bare {
            problems.extend(log.derived_problems);
            problems.extend(log.unfinished);
        }
        primary_header = Some((log.header.id.clone(), log.header.created_at));
        primary_calls = log.calls;
        primary_call_problems = log.call_problems;
        problems.extend(log.unnormalized);
    }

    let override_file = display(REPLAY_OVERRIDE);
    let mut patched: Box<dyn Fn(usize) -> bool> = Box::new(|_| false);
    if let Some(bytes) = &override_bytes {
        let check = check_override(bytes, &override_file, derived_len);
        problems.extend(check.problems);
        if let Ok(value) = vcr_json::parse(bytes) {
            problems.extend(check_from_request(&value, &bytes[..], 0, &override_file));
        }
        match check.kind {
            Some(OverrideKind::Bare { len }) => {
                primary_len = len;
                patched = Box::new(move |i| i < primary_calls);
            }
            Some(OverrideKind::Patches { ats }) => {
                if ats.contains(&primary_len) {
                    primary_len += 1;
                }
                patched = Box::new(move |i| ats.contains(&i));
            }
            None => {}
        }
    }
    problems.extend(
        primary_call_problems
            .into_iter()
            .filter(|(i, _)| !patched(*i))
            .map(|(_, p)| p),
    );
    if has(PRIMARY) || override_bytes.is_some() {
        let (id, created_at) = primary_header.unwrap_or_default();
        scripts.push(ScriptSummary {
            file: if has(PRIMARY) {
                primary_file
            } else {
                override_file
            },
            id,
            created_at,
            primary: true,
            calls: primary_len,
        });
    }

    // The children, by number; each derived after its seed.
    let mut children: Vec<(u64, &str)> = names
        .iter()
        .filter_map(|&name| child_index(name).map(|n| (n, name)))
        .collect();
    children.sort_by_key(|&(n, _)| n);
    let role = Role::Child {
        ordered: children.len() > 1,
    };
    let mut child_scripts = Vec::new();
    for (_, name) in children {
        let file = display(name);
        let log = check_log(open(name)?, &file, role, false, cwd)?;
        problems.extend(log.read_problems);
        problems.extend(log.derived_problems);
        problems.extend(log.unfinished);
        problems.extend(log.call_problems.into_iter().map(|(_, p)| p));
        problems.extend(log.unnormalized);
        child_scripts.push(ScriptSummary {
            file,
            id: log.header.id.clone(),
            created_at: log.header.created_at,
            primary: false,
            calls: log.calls,
        });
    }
    // B.7: `createdAt`, ties broken by `id` (the harness uses `localeCompare`; code-point
    // order agrees with it on the hex and dashed ids sessions carry).
    child_scripts.sort_by(|a, b| {
        a.created_at
            .total_cmp(&b.created_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    scripts.extend(child_scripts);

    Ok(ScenarioReport {
        sessions: scripts.len(),
        calls: scripts.iter().map(|s| s.calls).sum(),
        scripts,
        problems,
    })
}

/// What one session log holds for [`check_scenario_streamed`], each kind of problem apart so
/// the caller can order them and drop what an override covers.
struct LogCheck {
    header: Header,
    unread: Vec<usize>,
    read_problems: Vec<Problem>,
    derived_problems: Vec<Problem>,
    /// `dsh/unfinished-call` problems no unreadable row explains.
    unfinished: Vec<Problem>,
    calls: usize,
    /// `dsh/from-request` and `recorded/error` problems, with the index of their call.
    call_problems: Vec<(usize, Problem)>,
    unnormalized: Option<Problem>,
}

/// Reads, derives and compares with its canonical form one session log, line by line.
fn check_log(
    input: Box<dyn BufRead + '_>,
    file: &str,
    role: Role,
    primary: bool,
    cwd: Option<&str>,
) -> std::io::Result<LogCheck> {
    let mut lines = crate::jsonl::LineReader::new(input);
    let mut reader = SessionReader::new(file, role);
    let mut deriver: Option<Deriver<'_>> = None;
    let mut normalizer = LineNormalizer::new(file, cwd);
    let mut compare = FirstDifference::default();
    let mut normal = Vec::new();
    // Calls are judged as they close and dropped: only their problems are kept.
    let mut pending: Vec<(Call, Vec<Problem>)> = Vec::new();
    let mut kept: Vec<(usize, Problem)> = Vec::new();
    let mut calls = 0;
    let mut judge = |pending: &mut Vec<(Call, Vec<Problem>)>| {
        for (call, placeholders) in pending.drain(..) {
            kept.extend(placeholders.into_iter().map(|p| (calls, p)));
            kept.extend(recorded_error(&call, calls, file).map(|p| (calls, p)));
            calls += 1;
        }
    };
    while let Some(line) = lines.next_line()? {
        normal.clear();
        normalizer.line(line.text, line.start, line.number, &mut normal);
        compare.feed(line.raw, &normal);
        let place = Place::line(line.text, line.start, line.number);
        reader.line(line.text, line.start, line.number, &mut |event| {
            if let Some(d) = deriver.as_mut() {
                d.event(&event, place, &mut |call, p| pending.push((call, p)));
            }
        });
        if deriver.is_none()
            && let Some(header) = reader.header()
        {
            let skip = if primary { 0 } else { header.seed_length };
            deriver = Some(Deriver::new(file, skip, true));
        }
        judge(&mut pending);
    }
    let derived = match deriver {
        Some(d) => d.finish(&mut |call, p| pending.push((call, p))),
        None => DerivedScript::default(),
    };
    judge(&mut pending);
    let (header, unread, read_problems) = reader.finish();
    let unfinished = unexplained(&derived.unfinished, &unread);
    let unfinished = unfinished_problems(&unfinished, file, primary);
    let unnormalized = match normalizer.finish() {
        Ok(()) => compare.finish().map(|(line, offset)| Problem {
            id: ids::UNNORMALIZED,
            file: file.to_owned(),
            line: Some(line),
            column: Some(1),
            offset: Some(offset),
            message: "the session log differs from its canonical form (compact JSON lines \
                      without `seq`/`time`, `{{cwd}}` for the working directory): run \
                      `vcr normalize`"
                .to_owned(),
        }),
        Err(_) => None,
    };
    Ok(LogCheck {
        header,
        unread,
        read_problems,
        derived_problems: derived.problems,
        unfinished,
        calls,
        call_problems: kept,
        unnormalized,
    })
}

/// The unfinished calls that no unreadable row could explain. A row after a call's first
/// chunk may have been its `finish` (or the `finish` of an earlier call with the same turn
/// and step), so those calls are left to be judged once the row is fixed.
fn unexplained(unfinished: &[Unfinished], unread: &[usize]) -> Vec<Unfinished> {
    unfinished
        .iter()
        .filter(|u| !unread.iter().any(|&line| line > u.line))
        .cloned()
        .collect()
}

/// `dsh/unfinished-call` problems, with the harness's message, at the line of each call's
/// first chunk. A child gets a hint, because the message's remedy (an override) only ever
/// applies to the primary session.
fn unfinished_problems(unfinished: &[Unfinished], file: &str, primary: bool) -> Vec<Problem> {
    unfinished
        .iter()
        .map(|u| {
            let mut message = u.message();
            if !primary {
                message.push_str(
                    " (overrides apply only to the primary session.jsonl: re-record the scenario)",
                );
            }
            Problem::at(
                ids::UNFINISHED_CALL,
                file,
                Place::line(&[], u.offset, u.line),
                u.offset,
                message,
            )
        })
        .collect()
}

/// A `recorded/error` problem when the call `i` (from 0) of a script ended in a provider
/// error the recording is to blame for.
///
/// The harness's `LlmRuntime.stream()` turns every failure of a provider call into a
/// terminal `finish` chunk, `{"type":"finish","reason":{"kind":"error","failure":{"message",
/// "code","status"?}}}` (`LlmFailure` in `packages/llm/llm/src/types.ts`), which the session
/// log records like any chunk: a `record` run without an API key gets a `MISSING_CREDENTIAL`
/// finish and replays it from then on. The `code` (`AUTH`, `RATE_LIMIT`, `SERVER`, ...) or the
/// HTTP `status` names the kind. Calls an override replaces are not checked: overrides are
/// written by hand, often to simulate exactly such an error (the harness's `error-finish`
/// scenario throws `AUTH` from its override).
fn recorded_error(call: &Call, i: usize, file: &str) -> Option<Problem> {
    let finish = call.chunks.last()?;
    let reason = finish.value.as_object()?.get("reason")?.as_object()?;
    if reason.get("kind").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let failure = reason.get("failure").and_then(Value::as_object)?;
    let code = failure.get("code").and_then(Value::as_str);
    let status = crate::api_error::number(failure, "status");
    let kind = code
        .and_then(ApiErrorKind::from_code)
        .or_else(|| status.and_then(ApiErrorKind::from_status))?;
    let place = format!("model call {} (turn/step {})", i + 1, call.key);
    let detail = crate::api_error::detail(status, code);
    Some(Problem::at(
        ids::RECORDED_ERROR,
        file,
        // The chunk's offset is where its line starts.
        Place::line(&[], finish.offset, finish.line),
        finish.offset,
        crate::api_error::message(kind, &place, &detail),
    ))
}

/// `JSON.stringify(value)` as a string, for messages that quote a value as the harness does.
pub(crate) fn js_stringify(value: &Value<'_>) -> String {
    String::from_utf8_lossy(&vcr_json::to_compact(value)).into_owned()
}

/// A number as JavaScript's `String(n)` prints it.
pub fn js_number(raw: &str) -> String {
    let mut out = Vec::new();
    vcr_json::format_number(raw, &mut out);
    match out.as_slice() {
        // `JSON.stringify` writes non-finite numbers as `null`; `String` does not.
        b"null" => {
            let v: f64 = raw.parse().unwrap_or(f64::NAN);
            if v.is_nan() {
                "NaN".to_owned()
            } else if v > 0.0 {
                "Infinity".to_owned()
            } else {
                "-Infinity".to_owned()
            }
        }
        _ => String::from_utf8_lossy(&out).into_owned(),
    }
}

/// `Number.isSafeInteger(v)`, returning the integer.
pub(crate) fn safe_integer(value: &Value<'_>) -> Option<i64> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    let Value::Number(n) = value else {
        return None;
    };
    let f = n.as_f64();
    (f.is_finite() && f.fract() == 0.0 && f.abs() <= MAX_SAFE).then_some(f as i64)
}
