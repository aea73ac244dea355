//! `vcr diff` entries for people: a verdict line per cassette, its changes indented below,
//! then the unified diff when asked for.

use vcr_diff::{Entry, Status, Verdict};

use super::human::{Style, colour_diff, paint};
use super::{Reporter, Verbosity};

/// Identical cassettes are listed only with `-v`: a review wants what changed.
pub(super) fn level(entry: &Entry) -> Verbosity {
    if entry.status == Status::Unchanged {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    }
}

pub(super) fn render(r: &Reporter, entry: &Entry) {
    let c = r.color;
    let verdict = entry.verdict.map_or("", Verdict::label);
    let label = match entry.status {
        Status::Added => paint(c, Style::Changed, "added"),
        Status::Removed => paint(c, Style::Error, "removed"),
        Status::ReKeyed => paint(c, Style::Warning, &format!("re-keyed, {verdict}")),
        Status::Unchanged => paint(c, Style::Dim, verdict),
        Status::Modified => {
            let style = match entry.verdict {
                Some(Verdict::BehaviourChange) => Style::Error,
                Some(Verdict::Reworded) => Style::Warning,
                _ => Style::Dim,
            };
            paint(c, style, verdict)
        }
    };
    let path = match &entry.old_path {
        Some(old) => format!("{old} -> {}", entry.path),
        None => entry.path.clone(),
    };
    r.out(&format!(
        "{label} {} ({}): {}",
        paint(c, Style::Bold, &path),
        entry.kind.as_str(),
        entry.reason
    ));
    for change in &entry.changes {
        r.out(&format!("    {}", change.message));
    }
    for call in &entry.calls {
        r.out(&format!("    {call}"));
    }
    if let Some(diff) = &entry.diff {
        r.out(&colour_diff(c, diff));
    }
}
