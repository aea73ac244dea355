//! `vcr diff --format markdown`: the summary of a re-recording for a pull request (a job
//! summary, a PR comment) or any CI that posts text: the verdict counts, then each cassette
//! with the lines that say what changed, behaviour changes first and open, the rest collapsed
//! in `<details>`.
//!
//! GitHub refuses a comment past 65,536 characters, and a re-record of 500 cassettes says far
//! more than that. The text is made whole first; while it is over [`BUDGET`], detail goes, the
//! least important first: the lines under collapsed cassettes are cut to a few, then to none,
//! then those under behaviour changes; last, cassettes past the budget are counted instead of
//! listed, so the counts at the top always hold for the whole run.
//!
//! Every text taken from a cassette was masked by `vcr diff` before it got here; here it is
//! escaped, so that a recorded body's `<script>`, `|` or `**` is shown, not rendered.

use vcr_diff::{Entry, Status, Summary, Verdict};

use super::Problem;

/// GitHub's limit on a comment's body, in characters.
pub(crate) const COMMENT_LIMIT: usize = 65_536;

/// The most characters the summary takes, leaving room under [`COMMENT_LIMIT`] for what a CI
/// adds around it (a header, a link to the run).
pub(crate) const BUDGET: usize = 60_000;
const _: () = assert!(BUDGET < COMMENT_LIMIT);

/// The first line of the summary: a marker a CI can find its own earlier comment by, to
/// update it rather than post another.
pub(crate) const MARKER: &str = "<!-- vcr-diff -->";

/// What a comparison compared, for the summary's first sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Compared {
    /// A revision with the working tree.
    WorkingTree(String),
    /// A range of revisions (`main...HEAD`).
    Range(String),
    /// Two folders or files.
    Paths(String, String),
}

impl Compared {
    fn sentence(&self) -> String {
        match self {
            Compared::WorkingTree(rev) => format!("{} with the working tree", code(rev)),
            Compared::Range(range) => code(range),
            Compared::Paths(old, new) => format!("{} with {}", code(old), code(new)),
        }
    }
}

/// How much of a cassette's changes is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Detail {
    /// The path and the verdict's reason.
    Line,
    /// And its first [`SHORT_LINES`] changes.
    Short,
    /// And its changes up to [`FULL_LINES`].
    Full,
}

/// Changes shown under a cassette in [`Detail::Short`].
const SHORT_LINES: usize = 3;

/// Changes shown under a cassette in [`Detail::Full`] (then how many more).
const FULL_LINES: usize = 20;

/// The groups of the summary, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    BehaviourChange,
    Added,
    Removed,
    Reworded,
    SameBehaviour,
}

impl Group {
    const ALL: [Group; 5] = [
        Group::BehaviourChange,
        Group::Added,
        Group::Removed,
        Group::Reworded,
        Group::SameBehaviour,
    ];

    fn of(entry: &Entry) -> Option<Group> {
        match (entry.status, entry.verdict) {
            (Status::Added, _) => Some(Group::Added),
            (Status::Removed, _) => Some(Group::Removed),
            (_, Some(Verdict::BehaviourChange)) => Some(Group::BehaviourChange),
            (_, Some(Verdict::Reworded)) => Some(Group::Reworded),
            (_, Some(Verdict::SameBehaviour)) => Some(Group::SameBehaviour),
            _ => None,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Group::BehaviourChange => "Behaviour change",
            Group::Added => "Added",
            Group::Removed => "Removed",
            Group::Reworded => "Reworded",
            Group::SameBehaviour => "Same behaviour",
        }
    }
}

/// The whole summary, within [`BUDGET`] characters.
pub(crate) fn render(
    entries: &[Entry],
    summary: &Summary,
    compared: &Compared,
    problems: &[Problem],
) -> String {
    // From the most detail to the least: collapsed cassettes lose their lines first.
    let levels = [
        (Detail::Full, Detail::Full),
        (Detail::Full, Detail::Short),
        (Detail::Full, Detail::Line),
        (Detail::Short, Detail::Line),
        (Detail::Line, Detail::Line),
    ];
    for (open, collapsed) in levels {
        let text = document(entries, summary, compared, problems, open, collapsed, None);
        if text.chars().count() <= BUDGET {
            return text;
        }
    }
    // Still too long: list as many cassettes as fit, in order, and count the rest.
    let (mut low, mut high) = (0, entries.len());
    while low < high {
        let mid = (low + high).div_ceil(2);
        let text = document(
            entries,
            summary,
            compared,
            problems,
            Detail::Line,
            Detail::Line,
            Some(mid),
        );
        if text.chars().count() <= BUDGET {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    document(
        entries,
        summary,
        compared,
        problems,
        Detail::Line,
        Detail::Line,
        Some(low),
    )
}

/// The summary with `open` detail for behaviour changes and `collapsed` for the rest,
/// listing at most `listed` cassettes (all when `None`).
fn document(
    entries: &[Entry],
    summary: &Summary,
    compared: &Compared,
    problems: &[Problem],
    open: Detail,
    collapsed: Detail,
    listed: Option<usize>,
) -> String {
    let mut out = String::new();
    out.push_str(MARKER);
    out.push('\n');
    out.push_str(&format!("### vcr diff: {}\n\n", headline(summary)));
    out.push_str(&format!(
        "Compared {}: {}.\n\n",
        compared.sentence(),
        count(summary.cassettes, "cassette")
    ));
    counts_table(summary, &mut out);
    if !problems.is_empty() {
        out.push_str(&format!("#### Could not be read ({})\n\n", problems.len()));
        for problem in problems {
            out.push_str(&format!("- {}\n", escape(&problem.text())));
        }
        out.push('\n');
    }
    let mut left = listed.unwrap_or(usize::MAX);
    let mut unlisted = 0;
    for group in Group::ALL {
        let members: Vec<&Entry> = entries
            .iter()
            .filter(|e| Group::of(e) == Some(group))
            .collect();
        if members.is_empty() {
            continue;
        }
        let shown = members.len().min(left);
        left -= shown;
        unlisted += members.len() - shown;
        if shown == 0 {
            continue;
        }
        let heading = format!("{} ({})", group.title(), members.len());
        if group == Group::BehaviourChange {
            out.push_str(&format!("#### {heading}\n\n"));
            for entry in &members[..shown] {
                cassette(entry, open, &mut out);
            }
            out.push('\n');
        } else {
            out.push_str(&format!("<details><summary>{heading}</summary>\n\n"));
            for entry in &members[..shown] {
                cassette(entry, collapsed, &mut out);
            }
            out.push_str("\n</details>\n\n");
        }
    }
    if unlisted > 0 {
        out.push_str(&format!(
            "_{} not listed here, to keep this under GitHub's comment limit; `vcr diff` lists them all._\n",
            count(unlisted, "cassette")
        ));
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The headline: the counts that matter, worst first.
fn headline(s: &Summary) -> String {
    if !s.has_differences() && s.errors == 0 {
        return "no cassette changed".to_owned();
    }
    let mut parts = Vec::new();
    for (n, what) in [
        (s.behaviour_change, "behaviour change"),
        (s.added, "added"),
        (s.removed, "removed"),
        (s.reworded, "reworded"),
        (s.same_behaviour, "same behaviour"),
        (s.errors, "unreadable"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    parts.join(", ")
}

fn counts_table(s: &Summary, out: &mut String) {
    out.push_str("| verdict | cassettes |\n|---|---:|\n");
    for (n, what) in [
        (s.behaviour_change, "behaviour change"),
        (s.added, "added"),
        (s.removed, "removed"),
        (s.reworded, "reworded"),
        (s.same_behaviour, "same behaviour"),
        (s.identical, "identical"),
        (s.re_keyed, "re-keyed (counted above too)"),
        (s.errors, "unreadable"),
    ] {
        if n > 0 {
            out.push_str(&format!("| {what} | {n} |\n"));
        }
    }
    out.push('\n');
}

/// One cassette: a list item with its path, kind and reason, and its changes below it.
fn cassette(entry: &Entry, detail: Detail, out: &mut String) {
    let path = match &entry.old_path {
        Some(old) => format!("{} → {}", code(old), code(&entry.path)),
        None => code(&entry.path),
    };
    out.push_str(&format!(
        "- {path} ({}): {}\n",
        entry.kind.as_str(),
        escape(&entry.reason)
    ));
    let lines: Vec<&str> = entry
        .changes
        .iter()
        .map(|c| c.message.as_str())
        .chain(entry.calls.iter().map(String::as_str))
        .collect();
    let most = match detail {
        Detail::Line => 0,
        Detail::Short => SHORT_LINES,
        Detail::Full => FULL_LINES,
    };
    for line in lines.iter().take(most) {
        out.push_str(&format!("  - {}\n", escape(line)));
    }
    if most > 0 && lines.len() > most {
        out.push_str(&format!(
            "  - _and {} more_\n",
            count(lines.len() - most, "change")
        ));
    }
}

/// `1 cassette`, `3 cassettes`.
fn count(n: usize, what: &str) -> String {
    crate::commands::count(n, what)
}

/// A path as an inline code span, with a fence longer than any run of backticks in it.
fn code(text: &str) -> String {
    let text = one_line(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest > 0 || text.starts_with(' ') || text.ends_with(' ') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Text shown as it is: the characters Markdown or HTML could read as syntax are
/// backslash-escaped (CommonMark lets any ASCII punctuation be), and so is a first character
/// that would start a list or a heading; line breaks become spaces.
pub(crate) fn escape(text: &str) -> String {
    let text = one_line(text);
    let mut out = String::with_capacity(text.len() + 8);
    // `12.` or `12)` at the start would begin an ordered list: its delimiter is escaped.
    let delimiter = text
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&at| at > 0 && matches!(text.as_bytes()[at], b'.' | b')'));
    for (i, c) in text.chars().enumerate() {
        let special = matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '{'
                | '}'
                | '['
                | ']'
                | '<'
                | '>'
                | '#'
                | '|'
                | '~'
                | '&'
                | '!'
        );
        let leading = (i == 0 && matches!(c, '-' | '+' | '=')) || delimiter == Some(i);
        if special || leading {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Line breaks and other control characters as spaces: a list item is one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcr_diff::{ChangeLine, Kind};

    fn entry(i: usize, verdict: Verdict, lines: usize) -> Entry {
        Entry {
            path: format!("tests/cassettes/test_{i:04}.yaml"),
            old_path: None,
            kind: Kind::Http,
            status: Status::Modified,
            verdict: Some(verdict),
            reason: "text reworded (80% similar)".to_owned(),
            changed_message: None,
            changes: (0..lines)
                .map(|k| ChangeLine {
                    change: vcr_diff::Change::Other,
                    message: format!(
                        "#{k} POST /v1/chat/completions: text reworded (80% similar): \"The weather in Paris is <b>sunny</b> | 18°C\" -> \"It is sunny in Paris, 18°C\""
                    ),
                })
                .collect(),
            calls: Vec::new(),
            diff: None,
        }
    }

    fn summarize(entries: &[Entry]) -> Summary {
        let mut summary = Summary::default();
        for e in entries {
            summary.add(e);
        }
        summary
    }

    /// A re-record of 500 cassettes with many changes each stays under the budget, lists
    /// every behaviour change, and counts what it could not list.
    #[test]
    fn a_large_rerecord_is_collapsed_under_the_limit() {
        let mut entries: Vec<Entry> = (0..500)
            .map(|i| {
                let verdict = match i % 50 {
                    0 => Verdict::BehaviourChange,
                    1..=20 => Verdict::Reworded,
                    _ => Verdict::SameBehaviour,
                };
                entry(i, verdict, 40)
            })
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        let summary = summarize(&entries);
        let text = render(
            &entries,
            &summary,
            &Compared::Range("main...HEAD".to_owned()),
            &[],
        );
        assert!(text.chars().count() <= BUDGET, "{}", text.chars().count());
        assert!(text.starts_with(MARKER));
        assert!(
            text.contains("### vcr diff: 10 behaviour change, 200 reworded, 290 same behaviour")
        );
        // Behaviour changes come first, each with its lines.
        let first = text
            .find("#### Behaviour change (10)")
            .expect("the section");
        assert!(first < text.find("<details>").expect("collapsed sections"));
        assert_eq!(text.matches("test_0000.yaml").count(), 1);
        // Nothing escapes as HTML.
        assert!(!text.contains("<b>"));
    }

    /// A small comparison is shown whole.
    #[test]
    fn a_small_rerecord_is_shown_whole() {
        let entries = vec![
            entry(1, Verdict::BehaviourChange, 2),
            entry(2, Verdict::Reworded, 1),
        ];
        let summary = summarize(&entries);
        let text = render(
            &entries,
            &summary,
            &Compared::WorkingTree("HEAD".to_owned()),
            &[],
        );
        assert_eq!(text.matches("  - ").count(), 3, "{text}");
        assert!(text.contains("<details><summary>Reworded (1)</summary>"));
        assert!(!text.contains("not listed here"));
    }

    #[test]
    fn code_spans_and_escapes() {
        assert_eq!(code("a.yaml"), "`a.yaml`");
        assert_eq!(code("we`ird.yaml"), "`` we`ird.yaml ``");
        assert_eq!(escape("<b>a|b</b>"), "\\<b\\>a\\|b\\</b\\>");
        assert_eq!(escape("- not a list"), "\\- not a list");
        assert_eq!(escape("12. not a list"), "12\\. not a list");
        assert_eq!(escape("line\nbreak"), "line break");
    }
}
