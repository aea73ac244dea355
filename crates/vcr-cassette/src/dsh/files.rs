//! The file set of a scenario folder (`formats.md` B.1).
//!
//! Children are `session.N.jsonl` with `N` matching `[1-9]\d*` and must be numbered 1, 2, ...
//! without gaps; other `session.*.jsonl` names (`session.expected.jsonl`, the goal
//! snapshots' expected log) are not children. `session.jsonl` is needed when the harness
//! would read it for the script: with child logs, and with a patches override. A bare
//! override replaces the primary script and the harness then reads no log (the headless
//! `goal-tools` and web `steer-all` scenarios have none); and `*.expected.*` files alone do
//! not make a dsh scenario: 55 folders of the harness's own suites (web ARIA snapshots,
//! headless `stream-json` and `stderr` checks) hold expected files and no session log.

use super::{Problem, ids};

/// The primary session log.
pub const PRIMARY: &str = "session.jsonl";

/// The override sidecar of the primary session.
pub const REPLAY_OVERRIDE: &str = "replay.override.json";

/// The number of a child log name (`session.3.jsonl` is 3), as the harness's
/// `^session\.[1-9]\d*\.jsonl$` recognises children.
pub fn child_index(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("session.")?.strip_suffix(".jsonl")?;
    let valid = digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0');
    if !valid || digits.is_empty() {
        return None;
    }
    // Past u64 a name is still a child, just one that can never be reached: saturate.
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// Whether a folder with these file names is a dsh scenario: it holds a session log, a
/// child log or a replay override.
pub fn is_scenario_dir(names: &[&str]) -> bool {
    names.iter().any(|n| is_scenario_file(n))
}

/// Whether a file of this name makes its folder a dsh scenario (and is read by the harness):
/// `session.jsonl`, a child `session.N.jsonl`, or `replay.override.json`.
pub fn is_scenario_file(name: &str) -> bool {
    name == PRIMARY || name == REPLAY_OVERRIDE || child_index(name).is_some()
}

/// `missing` problems in a scenario's file set (see the module docs).
///
/// `names` are the file names in the folder; problems name the missing files the same
/// way. `bare_override` says the folder's `replay.override.json` is a bare array (or
/// unreadable, which is reported on its own), so `session.jsonl` is not needed for it.
pub fn check_scenario_files(names: &[&str], bare_override: bool) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut children: Vec<(u64, &str)> = names
        .iter()
        .filter_map(|n| child_index(n).map(|i| (i, *n)))
        .collect();
    children.sort_unstable();
    children.dedup_by_key(|c| c.0);
    if !names.contains(&PRIMARY) {
        let has_override = names.contains(&REPLAY_OVERRIDE);
        if has_override && !bare_override {
            problems.push(Problem::whole(
                ids::MISSING,
                PRIMARY,
                "`session.jsonl` is missing: the patches in `replay.override.json` apply to \
                 the script derived from it (llm-replay: fixture not found)"
                    .to_owned(),
            ));
        } else if let (false, Some((_, child))) = (has_override, children.first()) {
            problems.push(Problem::whole(
                ids::MISSING,
                PRIMARY,
                format!(
                    "`session.jsonl` is missing: the scenario has the child log `{child}` but \
                     no primary session log"
                ),
            ));
        }
    }
    let mut expected = 1u64;
    for (index, name) in children {
        if index > expected {
            let message = if index - expected == 1 {
                format!(
                    "`session.{expected}.jsonl` is missing: child logs must be numbered from 1 \
                     without gaps (`{name}` follows it)"
                )
            } else {
                format!(
                    "`session.{expected}.jsonl` to `session.{}.jsonl` are missing: child logs \
                     must be numbered from 1 without gaps (`{name}` follows them)",
                    index - 1
                )
            };
            problems.push(Problem::whole(
                ids::MISSING,
                &format!("session.{expected}.jsonl"),
                message,
            ));
        }
        expected = index.saturating_add(1);
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_names_follow_the_harness_pattern() {
        assert_eq!(child_index("session.1.jsonl"), Some(1));
        assert_eq!(child_index("session.12.jsonl"), Some(12));
        assert_eq!(child_index("session.0.jsonl"), None);
        assert_eq!(child_index("session.01.jsonl"), None);
        assert_eq!(child_index("session..jsonl"), None);
        assert_eq!(child_index("session.jsonl"), None);
        assert_eq!(child_index("session.expected.jsonl"), None);
        assert_eq!(child_index("session.1.jsonl.bak"), None);
        assert_eq!(child_index("session.-1.jsonl"), None);
    }
}
