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

use crate::json::{self, Position, Value};
use crate::kind::api_error::ApiErrorKind;

pub use files::{
    PRIMARY, REPLAY_OVERRIDE, check_scenario_files, child_index, is_scenario_dir, is_scenario_file,
};
pub use from_request::{FROM_REQUEST_OPEN, check_from_request, placeholder_errors};
pub use header::{Header, Role};
pub use normalize::normalize_session;
pub use overrides::{OverrideCheck, OverrideKind, check_override};
pub use script::{Call, CallSummary, Chunk, DerivedScript, ToolCall, Unfinished, derive_script};
pub use session::{Event, SessionLog, SessionRead, parse_session, read_session};

/// The finding ids this module reports, as `DESIGN.md` lists them.
pub mod ids {
    /// Not valid JSON, or a line that is not a JSON object.
    pub const PARSE: &str = "parse";
    /// Valid JSON but not the shape the harness needs (header, packed rows, events).
    pub const SCHEMA: &str = "schema";
    /// A session header that llm-replay reads but the harness's session store refuses
    /// (a warning by default).
    pub const PERSISTENCE: &str = "dsh/persistence";
    /// A child log missing from the sequence, or a `session.jsonl` the scenario needs.
    pub const MISSING: &str = "missing";
    /// A model call without `finish` that no override covers.
    pub const UNFINISHED_CALL: &str = "dsh/unfinished-call";
    /// An invalid `replay.override.json`.
    pub const OVERRIDE: &str = "dsh/override";
    /// An invalid or unterminated `{{fromRequest:...}}` placeholder.
    pub const FROM_REQUEST: &str = "dsh/from-request";
    /// A session log that differs from what `vcr normalize` writes.
    pub const UNNORMALIZED: &str = "format/unnormalized";
    /// A derived call whose recording is a provider error (authentication, rate limit, ...).
    pub const RECORDED_ERROR: &str = crate::kind::api_error::RECORDED_ERROR;
}

/// One thing wrong with a scenario, placed in a file.
///
/// This is the module's own currency rather than [`crate::finding::Finding`]: severities,
/// fingerprints and baselines are the caller's policy, and the caller knows the project-
/// relative path to put in front of `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The finding id (see [`ids`]).
    pub id: &'static str,
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
    /// A problem at byte `offset` of `bytes`.
    pub(crate) fn at(
        id: &'static str,
        file: &str,
        bytes: &[u8],
        offset: usize,
        message: String,
    ) -> Problem {
        let position = Position::locate(bytes, offset);
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
    pub(crate) fn whole(id: &'static str, file: &str, message: String) -> Problem {
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
    let display = |name: &str| {
        if dir.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{name}", dir.trim_end_matches('/'))
        }
    };
    let find = |wanted: &str| files.iter().find(|(name, _)| *name == wanted).map(|f| f.1);
    let mut problems = Vec::new();
    let mut scripts = Vec::new();

    let override_bytes = find(REPLAY_OVERRIDE);
    let override_shape = override_bytes.map(overrides::shape);

    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    let bare = matches!(override_shape, Some(None | Some(true)));
    problems.extend(check_scenario_files(&names, bare).into_iter().map(|mut p| {
        p.file = display(&p.file);
        p
    }));

    // The primary log: derived in full; a bare override replaces its script.
    let primary_file = display(PRIMARY);
    let mut derived_len = None;
    let mut primary_len = 0;
    let mut primary_header = None;
    let mut primary_calls = Vec::new();
    if let Some(bytes) = find(PRIMARY) {
        let read = read_session(bytes, &primary_file, Role::Primary);
        problems.extend(read.problems);
        let log = read.log;
        let derived = derive_script(&log, 0, &primary_file);
        primary_len = derived.calls.len();
        // A row the harness cannot read may have held a `finish`: the count is then not
        // certain enough to judge an override patch's index by.
        derived_len = read.unread.is_empty().then_some(primary_len);
        // A bare override replaces the script: the harness never derives this log.
        if !bare {
            problems.extend(derived.problems);
            let unfinished = unexplained(&derived.unfinished, &read.unread);
            problems.extend(unfinished_problems(&unfinished, &primary_file, bytes, true));
        }
        primary_header = Some((log.header.id.clone(), log.header.created_at));
        primary_calls = derived.calls;
        problems.extend(unnormalized(bytes, &primary_file, cwd));
    }

    let override_file = display(REPLAY_OVERRIDE);
    let mut patched = Vec::new();
    if let Some(bytes) = override_bytes {
        let check = check_override(bytes, &override_file, derived_len);
        problems.extend(check.problems);
        if let Ok(value) = json::parse(bytes) {
            problems.extend(check_from_request(&value, bytes, 0, &override_file));
        }
        match check.kind {
            Some(OverrideKind::Bare { len }) => {
                primary_len = len;
                patched = (0..primary_calls.len()).collect();
            }
            Some(OverrideKind::Patches { ats }) => {
                if ats.contains(&primary_len) {
                    primary_len += 1;
                }
                patched = ats;
            }
            None => {}
        }
    }
    if let Some(bytes) = find(PRIMARY) {
        for (i, call) in primary_calls.iter().enumerate() {
            if !patched.contains(&i) {
                problems.extend(call_placeholders(call, bytes, &primary_file));
                problems.extend(recorded_error(call, i, bytes, &primary_file));
            }
        }
    }
    if find(PRIMARY).is_some() || override_bytes.is_some() {
        let (id, created_at) = primary_header.unwrap_or_default();
        scripts.push(ScriptSummary {
            file: if find(PRIMARY).is_some() {
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
    let mut children: Vec<(u64, &str, &[u8])> = files
        .iter()
        .filter_map(|&(name, bytes)| child_index(name).map(|n| (n, name, bytes)))
        .collect();
    children.sort_by_key(|&(n, _, _)| n);
    let role = Role::Child {
        ordered: children.len() > 1,
    };
    let mut child_scripts = Vec::new();
    for (_, name, bytes) in children {
        let file = display(name);
        let read = read_session(bytes, &file, role);
        problems.extend(read.problems);
        let log = read.log;
        let derived = derive_script(&log, log.header.seed_length, &file);
        problems.extend(derived.problems);
        let unfinished = unexplained(&derived.unfinished, &read.unread);
        problems.extend(unfinished_problems(&unfinished, &file, bytes, false));
        for (i, call) in derived.calls.iter().enumerate() {
            problems.extend(call_placeholders(call, bytes, &file));
            problems.extend(recorded_error(call, i, bytes, &file));
        }
        problems.extend(unnormalized(bytes, &file, cwd));
        child_scripts.push(ScriptSummary {
            file,
            id: log.header.id.clone(),
            created_at: log.header.created_at,
            primary: false,
            calls: derived.calls.len(),
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

    ScenarioReport {
        sessions: scripts.len(),
        calls: scripts.iter().map(|s| s.calls).sum(),
        scripts,
        problems,
    }
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

/// `dsh/unfinished-call` problems, with the harness's message. A child gets a hint, because
/// the message's remedy (an override) only ever applies to the primary session.
fn unfinished_problems(
    unfinished: &[Unfinished],
    file: &str,
    bytes: &[u8],
    primary: bool,
) -> Vec<Problem> {
    unfinished
        .iter()
        .map(|u| {
            let mut message = u.message();
            if !primary {
                message.push_str(
                    " (overrides apply only to the primary session.jsonl: re-record the scenario)",
                );
            }
            Problem::at(ids::UNFINISHED_CALL, file, bytes, u.offset, message)
        })
        .collect()
}

/// `dsh/from-request` problems in the chunks of one derived call.
fn call_placeholders(call: &Call, bytes: &[u8], file: &str) -> Vec<Problem> {
    call.chunks
        .iter()
        .flat_map(|chunk| check_from_request(&chunk.value, bytes, chunk.offset, file))
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
fn recorded_error(call: &Call, i: usize, bytes: &[u8], file: &str) -> Option<Problem> {
    let finish = call.chunks.last()?;
    let reason = finish.value.as_object()?.get("reason")?.as_object()?;
    if reason.get("kind").and_then(Value::as_str) != Some("error") {
        return None;
    }
    let failure = reason.get("failure").and_then(Value::as_object)?;
    let code = failure.get("code").and_then(Value::as_str);
    let status = crate::kind::api_error::number(failure, "status");
    let kind = code
        .and_then(ApiErrorKind::from_code)
        .or_else(|| status.and_then(ApiErrorKind::from_status))?;
    let place = format!("model call {} (turn/step {})", i + 1, call.key);
    let detail = crate::kind::api_error::detail(status, code);
    Some(Problem::at(
        ids::RECORDED_ERROR,
        file,
        bytes,
        finish.offset,
        crate::kind::api_error::message(kind, &place, &detail),
    ))
}

/// A `format/unnormalized` problem at the first line that [`normalize_session`] changes.
fn unnormalized(bytes: &[u8], file: &str, cwd: Option<&str>) -> Option<Problem> {
    let normal = normalize_session(bytes, file, cwd).ok()?;
    if normal == bytes {
        return None;
    }
    let same = bytes
        .iter()
        .zip(&normal)
        .take_while(|(a, b)| a == b)
        .count();
    let line_start = memchr::memrchr(b'\n', &bytes[..same]).map_or(0, |i| i + 1);
    Some(Problem::at(
        ids::UNNORMALIZED,
        file,
        bytes,
        line_start,
        "the session log differs from its canonical form (compact JSON lines without \
         `seq`/`time`, `{{cwd}}` for the working directory): run `vcr normalize`"
            .to_owned(),
    ))
}

/// `JSON.stringify(value)` as a string, for messages that quote a value as the harness does.
pub(crate) fn js_stringify(value: &Value<'_>) -> String {
    String::from_utf8_lossy(&json::to_compact(value)).into_owned()
}

/// A number as JavaScript's `String(n)` prints it.
pub(crate) fn js_number(raw: &str) -> String {
    let mut out = Vec::new();
    json::format_number(raw, &mut out);
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
