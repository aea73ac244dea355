//! The session header (line 1 of a log), checked against its two readers in the harness.
//!
//! Two readers in DeepSeek-Harness read the header. They want different things:
//!
//! - **llm-replay**, which replays the scenario
//!   (`packages/test-support/llm-replay/src/index.ts`). `parseSessionLog` skips the first
//!   non-blank line without parsing it. `parseSessionHeader` runs `JSON.parse` on that line,
//!   reads `id`, `createdAt` and `seedLength`, and puts `''`, `0` and `0` in place of any
//!   value that is not a string or a number. `loadSessionScripts` derives a child's script
//!   from `events.slice(seedLength)` and sorts the children by `createdAt`, ties broken by
//!   `id`. A primary log is derived in full and always bound first, so nothing in its header
//!   changes the replay. The header breaks replay, or makes it replay something else, only
//!   when: the line is not JSON, or is `null` (reading `.id` throws); the line is an event
//!   row where the header belongs (that event is skipped); a child's `seedLength` is present
//!   but not a number, or is negative (the inherited events are replayed as the child's own,
//!   or the slice counts from the end); or, with two or more children, a child's `createdAt`
//!   is not a number (it is ordered as 0). These are `schema` errors (`parse` for bad JSON).
//! - **The session store**, which opens and resumes sessions (`dsh-session-persistence-jsonl`,
//!   `packages/session/session-persistence-jsonl/src/format.ts`). `parseHeaderRecord` wants
//!   the header as the very first line. `refuseForeignFormatVersion` refuses any `version`
//!   other than `SESSION_FORMAT_VERSION` (0), using the wording of `sessionFormatVersionRefusal`
//!   in `packages/session/session-persistence/src/coordinator.ts`. `isHeaderLine` wants a
//!   `type` of `"session"`, a number `version`, a string `id`, non-negative safe integers
//!   (not `-0`) for `createdAt` and `delegationDepth`, which is required, an `origin` that is
//!   absent or `"subagent"`, and an `agentPreset` that is absent or a string.
//!   `fromHeaderLine` refuses the retired `sandboxMode` and `approvalPolicy` fields. On
//!   restore, `validateSessionHeader` (`packages/core/session/src/index.ts`) wants `cwd` and
//!   `parentSession` to be strings and `seedLength` to be a non-negative safe integer when
//!   they are present. Anything the store needs beyond what replay needs is a
//!   `dsh/persistence` finding, a warning by default. The replay tests still pass, but the
//!   harness itself could not open the recorded session. One such case is 20 of the
//!   harness's own committed logs, which lack `delegationDepth`.
//!
//! `cwd` must also be an absolute path on restore. That is not checked here: committed logs
//! hold the `{{cwd}}` placeholder there (`tokenizeSessionFixtureCwd` in
//! `packages/test-support/acp-snapshot/src/normalize.ts`).
//!
//! Every field is checked, and a header with problems still gives the values replay reads,
//! so the rest of the scenario is checked as well.

use vcr_json::{Object, Value};

use super::{Place, Problem, ids, js_number, safe_integer};

/// How a log is bound at replay. This decides which header fields replay needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `session.jsonl`: derived in full and bound first. Replay reads none of its header
    /// fields.
    Primary,
    /// `session.N.jsonl`: derived after its `seedLength`. When `ordered` is set (the scenario
    /// has two or more children), it is bound in `createdAt` order among its siblings.
    Child {
        /// Whether there are sibling children to order it among.
        ordered: bool,
    },
}

/// The line-1 session header, with the values llm-replay uses (`formats.md` B.2).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Header {
    /// 1-based line of the header, which is the first non-blank line (`0` in an empty log).
    pub line: usize,
    /// `version`, when it is a number (G2 writes `0`).
    pub version: Option<f64>,
    /// `id` as llm-replay reads it: the recorded session id, or `""` when it is not a
    /// string. Used only to break `createdAt` ties between children.
    pub id: String,
    /// `createdAt` in epoch milliseconds as llm-replay reads it (`0` when it is not a
    /// number). Orders the children (B.7).
    pub created_at: f64,
    /// `cwd`, normally the `{{cwd}}` placeholder.
    pub cwd: Option<String>,
    /// `parentSession`: the parent's id, in child logs.
    pub parent_session: Option<String>,
    /// `seedLength`: the number of events inherited from the parent. They are skipped when a
    /// child's script is derived (`0` when absent, truncated as `Array.prototype.slice`
    /// truncates).
    pub seed_length: usize,
    /// `origin`, e.g. `"subagent"`.
    pub origin: Option<String>,
    /// `agentPreset`.
    pub agent_preset: Option<String>,
    /// `delegationDepth`, when it is a non-negative integer.
    pub delegation_depth: Option<u64>,
}

/// Where the header line is, and what surrounds it.
pub(super) struct HeaderLine<'a> {
    /// The parsed line; `None` when it is not JSON (already reported as `parse`).
    pub value: Option<&'a Value<'a>>,
    /// 1-based line number.
    pub line: usize,
    /// Byte offset where the line starts.
    pub start: usize,
    /// Whether blank lines come before it.
    pub blank_before: bool,
}

/// Reads the header as llm-replay does, and reports what either reader finds wrong with it
/// (see the module docs).
pub(super) fn read_header(
    at: &HeaderLine<'_>,
    bytes: Place<'_>,
    file: &str,
    role: Role,
    problems: &mut Vec<Problem>,
) -> Header {
    let mut header = Header {
        line: at.line,
        ..Header::default()
    };
    let line = at.line;
    let problem = |id: crate::finding_id::FindingId, span: Option<usize>, message: String| {
        Problem::at(id, file, bytes, at.start + span.unwrap_or(0), message)
    };
    if at.blank_before {
        problems.push(problem(
            ids::PERSISTENCE,
            None,
            format!(
                "blank lines before the session header (line {line}): the harness's session \
                 store reads the first line as the header and refuses this log (\"corrupt \
                 session log: header line is not valid JSON\")"
            ),
        ));
    }
    let empty = Object::new();
    let (row, store_checks) = match at.value {
        // Invalid JSON: reported by the caller, which knows the parser's position.
        None => return header,
        Some(Value::Null) => {
            problems.push(problem(
                ids::SCHEMA,
                None,
                format!(
                    "session header (line {line}) is `null`: llm-replay's `parseSessionHeader` \
                     reads `id` from it and throws"
                ),
            ));
            return header;
        }
        Some(Value::Object(row)) => (row, true),
        Some(_) => {
            problems.push(problem(
                ids::PERSISTENCE,
                None,
                format!(
                    "session header (line {line}) is not a JSON object: the harness's session \
                     store refuses this log (\"corrupt session log: first line is not a session \
                     header\")"
                ),
            ));
            // JavaScript reads every field of a primitive as `undefined`; the store's
            // field-by-field complaints would only repeat the one above.
            (&empty, false)
        }
    };
    // An event row where the header belongs is one problem, not one per missing field.
    let body_row = match row.get("type") {
        Some(Value::String(s)) if s.as_str() != "session" => {
            row.contains_key("data") || is_body_type(s.as_str())
        }
        _ => false,
    };
    let store_checks = store_checks && !body_row;
    let span = |key: &str| row.key_span(key).map(|s| s.start as usize);
    let mut store = |key: &str, what: &str| {
        if store_checks {
            problems.push(problem(
                ids::PERSISTENCE,
                span(key),
                format!(
                    "session header (line {line}): `{key}` {what}: the harness's session store \
                     would refuse this log (replay does not fail on it)"
                ),
            ));
        }
    };
    let mut replay_problems = Vec::new();
    let mut replay = |key: &str, message: String| {
        replay_problems.push(problem(ids::SCHEMA, span(key), message));
    };

    // `type`: an event row in the header's place is skipped by llm-replay, and so is lost.
    match row.get("type") {
        Some(Value::String(s)) if s.as_str() == "session" => {}
        Some(Value::String(s)) if body_row => {
            replay(
                "type",
                format!(
                    "line {line} is a `{}` row where the session header belongs: llm-replay \
                     skips the first line as the header, so this row is never replayed (a log \
                     starts with `{{\"type\":\"session\",...}}`)",
                    s.as_str()
                ),
            );
        }
        _ => store("type", "must be \"session\""),
    }

    // `version`: the store reads only its own format version.
    match row.get("version") {
        Some(Value::Number(n)) if n.as_f64() == 0.0 => header.version = Some(0.0),
        Some(Value::Number(n)) => {
            let v = n.as_f64();
            header.version = Some(v);
            let id = match row.get("id") {
                Some(Value::String(s)) => s.as_str().to_owned(),
                _ => String::new(),
            };
            let refusal = if v > 0.0 {
                "but this harness reads only v0: the log was written by a newer harness"
            } else {
                "older than the supported v0"
            };
            store(
                "version",
                &format!(
                    "is {}: session \"{id}\" uses log format v{}, {refusal}",
                    js_number(&n.0),
                    js_number(&n.0)
                ),
            );
        }
        _ => store("version", "must be a number (0)"),
    }

    // `id`: replay reads `''` in its place, and uses it only to break ties.
    match row.get("id") {
        Some(Value::String(s)) => header.id = s.as_str().to_owned(),
        _ => store("id", "must be a string"),
    }

    // `createdAt`: orders the children at replay; the store wants an exact count of ms.
    match row.get("createdAt") {
        Some(value @ Value::Number(n)) => {
            header.created_at = n.as_f64();
            if !is_count(value) {
                store(
                    "createdAt",
                    "must be a non-negative integer (epoch milliseconds)",
                );
            }
        }
        _ if role == (Role::Child { ordered: true }) => replay(
            "createdAt",
            format!(
                "session header (line {line}): `createdAt` must be a number: llm-replay binds \
                 child sessions to live ones in `createdAt` order and reads this child's as 0"
            ),
        ),
        _ => store(
            "createdAt",
            "must be a non-negative integer (epoch milliseconds)",
        ),
    }

    // `seedLength`: a child's script starts after it.
    match row.get("seedLength") {
        None => {}
        Some(value @ Value::Number(n)) => {
            let v = n.as_f64();
            if v < 0.0 && role != Role::Primary {
                replay(
                    "seedLength",
                    format!(
                        "session header (line {line}): `seedLength` is {}: llm-replay derives \
                         the child's script from `events.slice(seedLength)`, and a negative \
                         count takes events from the end",
                        js_number(&n.0)
                    ),
                );
            } else if !is_count(value) {
                store("seedLength", "must be a non-negative integer");
            }
            // `slice` truncates its argument; the count never passes `usize`.
            header.seed_length = if v > 0.0 { v.trunc() as usize } else { 0 };
        }
        Some(_) if role != Role::Primary => replay(
            "seedLength",
            format!(
                "session header (line {line}): `seedLength` must be a number: llm-replay ignores \
                 anything else and replays the events this child inherited as its own calls"
            ),
        ),
        Some(_) => store("seedLength", "must be a non-negative integer"),
    }

    // `delegationDepth`: required by the store. The writer always puts it there
    // (`toHeaderLine` writes `delegationDepth ?? 0`).
    match row.get("delegationDepth") {
        None => store("delegationDepth", "is missing"),
        Some(value) if is_count(value) => {
            header.delegation_depth = safe_integer(value).map(|n| n as u64);
        }
        Some(_) => store("delegationDepth", "must be a non-negative integer"),
    }

    let mut optional_string = |key: &str| match row.get(key) {
        None => None,
        Some(Value::String(s)) => Some(s.as_str().to_owned()),
        Some(_) => {
            store(key, "must be a string");
            None
        }
    };
    header.cwd = optional_string("cwd");
    header.parent_session = optional_string("parentSession");
    header.agent_preset = optional_string("agentPreset");
    header.origin = match row.get("origin") {
        None => None,
        Some(Value::String(s)) if s.as_str() == "subagent" => Some("subagent".to_owned()),
        Some(_) => {
            store("origin", "must be \"subagent\" when present");
            None
        }
    };
    for retired in ["sandboxMode", "approvalPolicy"] {
        if row.contains_key(retired) {
            store(
                retired,
                "is a retired policy baseline field (\"session header uses retired policy \
                 baseline fields\")",
            );
        }
    }
    problems.extend(replay_problems);
    header
}

/// A non-negative safe integer that is not `-0`, which is what the store wants for counts
/// and times.
fn is_count(value: &Value<'_>) -> bool {
    let Value::Number(n) = value else {
        return false;
    };
    safe_integer(value).is_some_and(|i| i >= 0) && !n.as_f64().is_sign_negative()
}

/// Whether `tag` is the type of a body row: an event the harness knows, or a packed chunk
/// row (`formats.md` B.2).
fn is_body_type(tag: &str) -> bool {
    super::session::PACKED.iter().any(|(name, _)| *name == tag) || tag.contains('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn count(text: &str, want: bool) {
        assert_eq!(
            is_count(&vcr_json::parse(text.as_bytes()).unwrap()),
            want,
            "{text}"
        );
    }

    #[test]
    fn counts_are_what_the_store_accepts() {
        for (text, want) in [
            ("0", true),
            ("7", true),
            ("9007199254740991", true),
            ("9007199254740992", false),
            ("-0", false),
            ("-0.0", false),
            ("-1", false),
            ("1.5", false),
            ("1e3", true),
            ("\"1\"", false),
            ("null", false),
        ] {
            count(text, want);
        }
    }

    #[test]
    fn body_rows_are_told_by_their_type() {
        for (tag, want) in [
            ("assistant/chunk", true),
            ("turn/start", true),
            ("text-chunks", true),
            ("tool-call-chunks", true),
            ("session", false),
            ("sessions", false),
        ] {
            assert_eq!(is_body_type(tag), want, "{tag}");
        }
    }
}
