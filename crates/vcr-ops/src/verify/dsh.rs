//! `verify` on DeepSeek-Harness scenarios: each file's leaks as it is selected, and each
//! scenario checked whole after the files (file set, logs, derived scripts, override,
//! placeholders, canonical form).

use vcr_lint::finding::{Finding, Severity};
use vcr_project::tree::{Cassette, CassetteKind, Scenario};

use super::pointers::{jsonl_pointers, pointers_of};
use super::{Checks, FileResult, Options, ScenarioStats, leak_findings, push};
use crate::event::FileProblem;

/// The leaks of a dsh log or override, placed in their line's JSON. Parse, schema and format
/// problems come from the scenario check, which reads the whole folder.
pub(super) fn check_leaks(
    cassette: &Cassette,
    bytes: &[u8],
    checks: &Checks,
    result: &mut FileResult,
) {
    let hits = checks.scanner.scan(bytes);
    if hits.is_empty() {
        return;
    }
    let pointers = match cassette.kind {
        CassetteKind::DshSession => jsonl_pointers(bytes, &hits, 0),
        _ => vcr_json::parse(bytes)
            .map(|value| pointers_of(&value, &hits))
            .unwrap_or_else(|_| vec![None; hits.len()]),
    };
    leak_findings(
        cassette,
        bytes,
        &hits,
        Some(&pointers),
        checks,
        &mut result.findings,
    );
}

/// Checks one dsh scenario as a whole (file set, logs, derived scripts, override,
/// `{{fromRequest:}}` placeholders, canonical form).
pub(super) fn check_scenario(
    scenario: &Scenario,
    options: &Options,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) -> Result<ScenarioStats, FileProblem> {
    let entries = std::fs::read_dir(&scenario.path).map_err(|e| FileProblem::io(&e))?;
    let mut names: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            names.push(name);
        }
    }
    names.sort();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // Only the logs and the override are read, line by line (issue 12); staged contents are
    // already in memory.
    let mut open = |name: &str| -> std::io::Result<Box<dyn std::io::BufRead + '_>> {
        let path = scenario.path.join(name);
        Ok(match options.contents.as_ref().and_then(|c| c.get(&path)) {
            Some(staged) => Box::new(staged.as_slice()),
            None => Box::new(std::io::BufReader::with_capacity(
                1 << 16,
                std::fs::File::open(&path)?,
            )),
        })
    };
    let cwd = options.dsh_cwd.as_deref();
    let report = vcr_cassette::dsh::check_scenario_streamed(&names, &mut open, &scenario.rel, cwd)
        .map_err(|e| FileProblem::io(&e))?;
    for problem in report.problems {
        // What only the harness's session store refuses does not fail the replay tests.
        let severity = match problem.id {
            vcr_cassette::dsh::ids::PERSISTENCE => Severity::Warning,
            vcr_cassette::dsh::ids::RECORDED_ERROR => checks.recorded_error,
            _ => Severity::Error,
        };
        let finding = Finding {
            line: problem.line,
            column: problem.column,
            ..Finding::new(problem.id, severity, &problem.file, problem.message)
        };
        push(checks, out, finding, None);
    }
    Ok(ScenarioStats {
        path: scenario.rel.clone(),
        sessions: report.sessions,
        calls: report.calls,
    })
}
