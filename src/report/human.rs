//! Text for people: one line per event, problems on stderr, a summary at the end.

use console::Style as ConsoleStyle;
use vcr_ops::event::Event;

use super::{Reporter, Verbosity};
use crate::commands::{count, size};

/// The few styles vcr uses.
#[derive(Debug, Clone, Copy)]
pub(super) enum Style {
    Error,
    Warning,
    Changed,
    Dim,
    Bold,
}

pub(super) fn paint(enabled: bool, style: Style, text: &str) -> String {
    if !enabled {
        return text.to_owned();
    }
    let style = match style {
        Style::Error => ConsoleStyle::new().red().bold(),
        Style::Warning => ConsoleStyle::new().yellow().bold(),
        Style::Changed => ConsoleStyle::new().green(),
        Style::Dim => ConsoleStyle::new().dim(),
        Style::Bold => ConsoleStyle::new().bold(),
    };
    style.force_styling(true).apply_to(text).to_string()
}

/// The least verbosity at which an event is shown; problems always are.
fn level(event: &Event<'_>) -> Verbosity {
    match event {
        Event::Diff(entry) => super::diff::level(entry),
        Event::Skipped { .. } | Event::TempRemoved { .. } | Event::Scenario { .. } => {
            Verbosity::Verbose
        }
        Event::Recorded {
            change: vcr_ops::record::Change::Unchanged,
            ..
        }
        | Event::Unstashed {
            outcome: "replaced",
            ..
        } => Verbosity::Verbose,
        Event::Unstashed { .. } | Event::LeftBehind { .. } => Verbosity::Quiet,
        Event::Collision { .. }
        | Event::NameTooLong { .. }
        | Event::FileError { .. }
        | Event::PathError { .. }
        | Event::Changed { .. }
        | Event::Interrupted { .. }
        | Event::Recovered { .. } => Verbosity::Quiet,
        _ => Verbosity::Normal,
    }
}

pub(super) fn render(r: &Reporter, event: &Event<'_>) {
    if r.verbosity < level(event) {
        return;
    }
    let c = r.color;
    let e = r.color_stderr;
    match event {
        Event::Normalized { path, written, diff } => {
            let verb = if *written { "normalized" } else { "would normalize" };
            r.out(&format!("{} {path}", paint(c, Style::Changed, verb)));
            if let Some(diff) = diff {
                r.out(&colour_diff(c, diff));
            }
        }
        Event::Scrubbed {
            path,
            line,
            column,
            pointer,
            rule,
            written,
        } => {
            let verb = if *written { "scrubbed" } else { "would scrub" };
            r.out(&format!(
                "  {} {path}:{line}:{column} {pointer} ({rule})",
                paint(c, Style::Changed, verb)
            ));
        }
        Event::ReplayAffected {
            path,
            interaction,
            what,
            setting,
        } => r.out(&format!(
            "  {} {path}: interaction {interaction}: the recorder matches requests by the {what} that was scrubbed; make the test match again with {setting}",
            paint(c, Style::Warning, "replay")
        )),
        Event::StaleName { path, expected } => r.out(&format!(
            "{} {path}: the harness looks for {expected} (run `vcr rehash`)",
            paint(c, Style::Warning, "stale name")
        )),
        Event::Renamed { from, to, rewritten, done } => {
            let verb = match (done, rewritten) {
                (true, false) => "renamed",
                (true, true) => "re-keyed",
                (false, false) => "would rename",
                (false, true) => "would re-key",
            };
            let arrow = if from == to { String::new() } else { format!(" -> {to}") };
            r.out(&format!("{} {from}{arrow}", paint(c, Style::Changed, verb)));
        }
        Event::Merged { from, into, done } => {
            let verb = if *done { "merged" } else { "would merge" };
            r.out(&format!(
                "{} {from} into {into} (identical cassettes)",
                paint(c, Style::Changed, verb)
            ));
        }
        Event::Collision { .. }
        | Event::NameTooLong { .. }
        | Event::Changed { .. }
        | Event::Interrupted { .. } => {
            if let Some((label, text)) = problem_text(event) {
                r.err(&format!("{}: {text}", paint(e, Style::Error, label)));
            }
        }
        Event::FileError { path, id, line, column, message } => {
            let at = match (line, column) {
                (Some(line), Some(column)) => format!("{path}:{line}:{column}"),
                _ => (*path).to_owned(),
            };
            r.err(&format!("{}: {at}: {message} [{id}]", paint(e, Style::Error, "error")));
        }
        Event::PathError { message } => {
            r.err(&format!("{}: {message}", paint(e, Style::Error, "error")));
        }
        Event::Scenario {
            path,
            sessions,
            calls,
        } => r.out(&format!(
            "scenario {path}: {}, {} derived",
            count(*sessions, "session"),
            count(*calls, "model call")
        )),
        Event::Skipped { path, reason } => {
            r.out(&format!("{} {path}: {reason}", paint(c, Style::Dim, "skipped")));
        }
        Event::Recovered { command, moves, left } => {
            let left = if *left > 0 {
                format!(", except {left} whose files changed since")
            } else {
                String::new()
            };
            r.err(&format!(
                "{}: an interrupted `vcr {command}` ({moves} moves) was completed{left}",
                paint(e, Style::Warning, "recovered")
            ));
        }
        Event::TempRemoved { path } => {
            r.out(&format!("{} {path}", paint(c, Style::Dim, "removed leftover")));
        }
        Event::Orphan { path, files, bytes, tracked, deleted } => {
            let verb = match (deleted, tracked) {
                (true, _) => "deleted",
                (false, true) => "orphan",
                (false, false) => "untracked orphan",
            };
            let what = if *files > 1 { format!("{files} files, ") } else { String::new() };
            r.out(&format!("{} {path} ({what}{})", paint(c, Style::Changed, verb), size(*bytes)));
        }
        Event::Recorded { path, change } => {
            use vcr_ops::record::Change;
            let (verb, note) = match change {
                Change::Added => ("added", ""),
                Change::Changed => ("changed", ""),
                Change::Removed => ("removed", ""),
                Change::Unchanged => ("unchanged", ""),
                Change::Kept => ("kept", " (not recorded again: put back as it was)"),
            };
            r.out(&format!("{} {path}{note}", paint(c, Style::Changed, verb)));
        }
        Event::Touched { path, change } => {
            use vcr_ops::record::Change;
            let verb = match change {
                Change::Added => "also added",
                Change::Removed => "also removed",
                _ => "also changed",
            };
            r.out(&format!("{} {path}", paint(c, Style::Changed, verb)));
        }
        Event::LeftBehind { path, change, cassette } => {
            use vcr_ops::record::Change;
            let verb = match change {
                Change::Added => "added",
                Change::Removed => "removed",
                _ => "changed",
            };
            let note = if *cassette && *change != Change::Removed {
                "; not normalized, re-keyed or verified"
            } else {
                ""
            };
            r.err(&format!(
                "{}: {path} ({verb} by the run that did not succeed{note})",
                paint(e, Style::Warning, "left behind")
            ));
        }
        Event::Stashed { path } => {
            r.out(&format!("{} {path}", paint(c, Style::Dim, "moved aside")));
        }
        Event::Unstashed { path, outcome, stash } => match stash {
            Some(stash) => r.err(&format!(
                "{}: {path} was recorded again by a run that did not succeed; the old copy is kept at {stash}",
                paint(e, Style::Warning, "kept")
            )),
            None if *outcome == "restored" => {
                r.err(&format!("{} {path}", paint(e, Style::Changed, "put back")));
            }
            None => r.err(&format!("{} {path}", paint(e, Style::Dim, "replaced"))),
        },
        Event::Diff(entry) => super::diff::render(r, entry),
        Event::Reviewed {
            path,
            decision,
            unasked,
            restored,
            removed,
            changed,
        } => {
            let label = match *decision {
                "accepted" => paint(c, Style::Changed, "accepted"),
                "rejected" => paint(c, Style::Warning, "rejected"),
                other => paint(c, Style::Dim, other),
            };
            let mut line = format!("{label} {path}");
            if *unasked {
                line.push_str(" (not a behaviour change)");
            }
            let mut done = Vec::new();
            if !restored.is_empty() {
                done.push(format!("put back {}", restored.join(", ")));
            }
            if !removed.is_empty() {
                done.push(format!("removed {}", removed.join(", ")));
            }
            if !done.is_empty() {
                line.push_str(&format!(": {}", done.join("; ")));
            }
            r.out(&line);
            if !changed.is_empty() {
                r.err(&format!(
                    "{}: {} changed after review read it: left as it is",
                    paint(e, Style::Warning, "not put back"),
                    changed.join(", ")
                ));
            }
        }
        _ => {}
    }
}

/// The label and text of the problems that stop a plan (not a file's own error).
pub(super) fn problem_text(event: &Event<'_>) -> Option<(&'static str, String)> {
    match event {
        Event::Collision { name, paths } => Some((
            "collision",
            format!(
                "{} would all be named {name}, but they differ; nothing was renamed",
                paths.join(", ")
            ),
        )),
        Event::NameTooLong { path, bytes } => Some((
            "name too long",
            format!(
                "{path} would get a {bytes}-byte name; file systems allow 255, so the harness cannot open it (fewer messages per call fix it)"
            ),
        )),
        Event::Changed { path, action } => Some((
            "error",
            format!("{path} changed during the run, not {action}; run again to include it"),
        )),
        Event::Interrupted { command, cassettes } => {
            let (what, fix) = if *command == "record" {
                ("in `.vcr/stash/`", "puts them back")
            } else {
                ("aside", "finishes it")
            };
            Some((
                "error",
                format!(
                    "an interrupted `vcr {command}` left {} {what}; any mutating command (`vcr normalize`, `vcr rehash`) {fix}",
                    count(*cassettes, "cassette")
                ),
            ))
        }
        _ => None,
    }
}

/// One finding, under a header naming its file when the file changes.
pub(super) fn finding(r: &Reporter, finding: &vcr_lint::finding::Finding) {
    use vcr_lint::finding::Severity;
    let c = r.color;
    {
        let current = &mut super::lock(&r.collected).current_file;
        if current.as_deref() != Some(finding.path.as_str()) {
            if current.is_some() {
                r.out("");
            }
            r.out(&paint(c, Style::Bold, &finding.path));
            *current = Some(finding.path.clone());
        }
    }
    let at = match (finding.line, finding.column) {
        (Some(line), Some(column)) => format!("{line}:{column}"),
        _ => "-".to_owned(),
    };
    let severity = match finding.severity {
        Severity::Error => paint(c, Style::Error, "error  "),
        Severity::Warning => paint(c, Style::Warning, "warning"),
    };
    let matched = finding
        .matched
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    // With -v, the detector: the name `[[verify.allow]] detector` takes.
    let detector = match finding.detector {
        Some(name) if r.verbosity >= Verbosity::Verbose => format!(" [{name}]"),
        _ => String::new(),
    };
    r.out(&format!(
        "  {at:>9}  {severity}  {:<19} {}{}",
        finding.id,
        finding.message,
        paint(c, Style::Dim, &format!("{matched}{detector}"))
    ));
    // With -v, why the judge took the value for a leak, under the finding.
    if let Some(reason) = finding.reason.as_deref()
        && r.verbosity >= Verbosity::Verbose
    {
        r.out(&paint(c, Style::Dim, &format!("{:13}why: {reason}", "")));
    }
}

pub(super) fn colour_diff(enabled: bool, diff: &str) -> String {
    if !enabled {
        return diff.trim_end_matches('\n').to_owned();
    }
    diff.lines()
        .map(|line| {
            let style = if line.starts_with("+++") || line.starts_with("---") {
                ConsoleStyle::new().bold()
            } else if line.starts_with('+') {
                ConsoleStyle::new().green()
            } else if line.starts_with('-') {
                ConsoleStyle::new().red()
            } else if line.starts_with("@@") {
                ConsoleStyle::new().cyan()
            } else {
                ConsoleStyle::new()
            };
            style.force_styling(true).apply_to(line).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
