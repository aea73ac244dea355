//! Unified diffs for people, readable whatever the length of a line.
//!
//! A cassette written on one line (a HAR, a compact JSON file, a YAML scalar of a whole
//! response) changes in a few bytes when a credential is scrubbed, and a line diff prints the
//! whole line twice: 300 MB of output for a 40-byte change (issue 25). Here a changed line
//! longer than [`LONG_LINE`] is shown by its changes only, each with the bytes around it and
//! where it sits; any other long line (of context, or removed or added whole) is cut short.
//! Everything else is the unified diff `git diff` prints.

use std::fmt::Write as _;

use similar::{DiffOp, TextDiff};

/// Lines longer than this (bytes) are shown by their changes only.
pub const LONG_LINE: usize = 1000;

/// Bytes of unchanged text shown on each side of a change in a long line.
const AROUND: usize = 40;

/// The most of one side of a change shown (the rest is counted).
const MOST: usize = 400;

/// How far ahead the two sides of a long line are searched for where they agree again after
/// a difference: a scrub replaces values of at most a few hundred bytes.
const RESYNC: usize = 8192;

/// How many equal bytes make the two sides agree again.
const AGREE: usize = 16;

/// A unified diff of `old` and `new` under the headers `a` and `b` (`a/path`, `/dev/null`),
/// three lines of context; empty when they are equal.
///
/// The lines both texts start and end with, beyond the context, are left out before the
/// line diff runs: a scrub of a 500 MB cassette changes a few lines, and a line diff of the
/// whole of both held several times the file (issue 25). The hunks are the same.
pub fn unified(a: &str, b: &str, old: &str, new: &str) -> String {
    let (skipped, old, new) = trimmed(old, new);
    let diff = TextDiff::from_lines(old, new);
    let groups = diff.grouped_ops(CONTEXT);
    if groups.is_empty() {
        return String::new();
    }
    let old_lines = diff.old_slices();
    let new_lines = diff.new_slices();
    let mut out = format!("--- {a}\n+++ {b}\n");
    for group in &groups {
        let (first, last) = (group[0], group[group.len() - 1]);
        let range = |start: usize, end: usize| {
            let len = end - start;
            match len {
                1 => format!("{}", skipped + start + 1),
                // An empty range names the line before it.
                0 => format!("{},0", skipped + start),
                _ => format!("{},{len}", skipped + start + 1),
            }
        };
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            range(first.old_range().start, last.old_range().end),
            range(first.new_range().start, last.new_range().end)
        );
        for op in group {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    for line in &old_lines[old_index..old_index + len] {
                        push_line(&mut out, ' ', line);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for line in &old_lines[old_index..old_index + old_len] {
                        push_line(&mut out, '-', line);
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    for line in &new_lines[new_index..new_index + new_len] {
                        push_line(&mut out, '+', line);
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    let olds = &old_lines[old_index..old_index + old_len];
                    let news = &new_lines[new_index..new_index + new_len];
                    replace(&mut out, olds, news, skipped + old_index);
                }
            }
        }
    }
    out
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// `old` and `new` without the whole lines they start and end with, but the [`CONTEXT`]
/// lines next to what differs, and how many lines were left out at the start.
fn trimmed<'a, 'b>(old: &'a str, new: &'b str) -> (usize, &'a str, &'b str) {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let same = o.iter().zip(n).take_while(|(x, y)| x == y).count();
    // Back to the start of the line the first difference is on, then the context's lines.
    let first = memchr::memrchr(b'\n', &o[..same]).map_or(0, |i| i + 1);
    let mut start = first;
    for _ in 0..CONTEXT {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &o[..start - 1]).map_or(0, |i| i + 1);
    }
    let skipped = memchr::memchr_iter(b'\n', &o[..start]).count();
    let (o, n) = (&o[start..], &n[start..]);
    // The lines they end with, after those they start with (as a line diff takes them: the
    // removed one of three equal lines is the last).
    let same_end = (o.iter().rev())
        .zip(n.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(o.len().min(n.len()) - (first - start));
    // Forward to the end of the line the last difference is on, then the context's lines.
    let mut end = o.len() - same_end;
    for _ in 0..=CONTEXT {
        match memchr::memchr(b'\n', &o[end..]) {
            Some(i) => end += i + 1,
            None => {
                end = o.len();
                break;
            }
        }
    }
    let kept = o.len() - end;
    // At line boundaries, which are characters' boundaries.
    let old = &old[start..start + end];
    let new = &new[start..start + n.len() - kept];
    (skipped, old, new)
}

/// Lines replaced by lines: a pair where either side is long is shown by its changes; the
/// rest as removed and added lines, in the order a line diff gives them.
fn replace(out: &mut String, olds: &[&str], news: &[&str], old_index: usize) {
    let paired = olds.len() == news.len()
        && olds
            .iter()
            .zip(news)
            .any(|(o, n)| o.len() > LONG_LINE || n.len() > LONG_LINE);
    if !paired {
        for line in olds {
            push_line(out, '-', line);
        }
        for line in news {
            push_line(out, '+', line);
        }
        return;
    }
    for (i, (o, n)) in olds.iter().zip(news).enumerate() {
        if o.len() > LONG_LINE || n.len() > LONG_LINE {
            long_pair(out, o, n, old_index + i + 1);
        } else {
            push_line(out, '-', o);
            push_line(out, '+', n);
        }
    }
}

/// One line of the diff (its `\r`, if any, kept as `similar` keeps it); a long line (of
/// context, or removed or added whole) is cut short and its length said.
fn push_line(out: &mut String, sign: char, line: &str) {
    let (text, newline) = match line.strip_suffix('\n') {
        Some(text) => (text, true),
        None => (line, false),
    };
    out.push(sign);
    if text.len() > LONG_LINE {
        out.push_str(cut(text, 0, AROUND * 2));
        let _ = write!(out, "… ({} bytes)", text.len());
    } else {
        out.push_str(text);
    }
    out.push('\n');
    if !newline {
        out.push_str("\\ No newline at end of file\n");
    }
}

/// A long line changed into another: each stretch that differs, with [`AROUND`] bytes on each
/// side, as a `-` and a `+` line that say where in the line (`line`, 1-based) it is.
fn long_pair(out: &mut String, old: &str, new: &str, line: usize) {
    let old = old.trim_end_matches(['\n', '\r']);
    let new = new.trim_end_matches(['\n', '\r']);
    let _ = writeln!(
        out,
        "~ line {line} is {} bytes long ({} after): only its changes are shown",
        old.len(),
        new.len()
    );
    for (o, n) in changes(old.as_bytes(), new.as_bytes()) {
        let _ = writeln!(out, "~ at byte {} of line {line}:", o.start + 1);
        for (sign, text, range) in [('-', old, o), ('+', new, n)] {
            let start = floor(text, range.start);
            let end = ceil(text, range.end).max(start);
            let shown = floor(text, start + (end - start).min(MOST)).max(start);
            let before = floor(text, start.saturating_sub(AROUND));
            let after = ceil(text, end + AROUND);
            out.push(sign);
            if before > 0 {
                out.push('…');
            }
            out.push_str(&text[before..shown]);
            if shown < end {
                let _ = write!(out, "…({} more bytes)…", end - shown);
            }
            out.push_str(&text[end..after]);
            if after < text.len() {
                out.push('…');
            }
            out.push('\n');
        }
    }
}

/// The stretches where `old` and `new` differ, as ranges of each: the common prefix and
/// suffix skipped, then after each difference the nearest point where [`AGREE`] bytes are
/// equal again, looked for within [`RESYNC`] bytes; past that, the rest is one change.
fn changes(old: &[u8], new: &[u8]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len().min(new.len()));
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    let mut found = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        let same = old[i..old_end]
            .iter()
            .zip(&new[j..new_end])
            .take_while(|(a, b)| a == b)
            .count();
        i += same;
        j += same;
        if i >= old_end && j >= new_end {
            return found;
        }
        match resync(&old[i..old_end], &new[j..new_end]) {
            Some((a, b)) => {
                found.push((i..i + a, j..j + b));
                i += a;
                j += b;
            }
            None => {
                found.push((i..old_end, j..new_end));
                return found;
            }
        }
    }
}

/// The smallest skips `(a, b)` (by `a + b`) after which `old` and `new` agree for [`AGREE`]
/// bytes, both within [`RESYNC`]; `None` when there is none (or either runs out first).
fn resync(old: &[u8], new: &[u8]) -> Option<(usize, usize)> {
    if old.len() < AGREE || new.len() < AGREE {
        return None;
    }
    let window = |s: &[u8]| s.len().min(RESYNC + AGREE) - AGREE + 1;
    let mut starts: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for b in 0..window(new) {
        starts.entry(&new[b..b + AGREE]).or_insert(b);
    }
    let mut best: Option<(usize, usize)> = None;
    for a in 0..window(old) {
        if best.is_some_and(|(x, y)| a >= x + y) {
            break;
        }
        if let Some(&b) = starts.get(&old[a..a + AGREE])
            && best.is_none_or(|(x, y)| a + b < x + y)
        {
            best = Some((a, b));
        }
    }
    best
}

/// The largest char boundary of `text` at or before `at`.
fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `at`.
fn ceil(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// `text[start..start + len]`, widened or narrowed to char boundaries.
fn cut(text: &str, start: usize, len: usize) -> &str {
    &text[floor(text, start)..floor(text, start + len)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_the_unified_diff_git_prints() {
        let old = "a\nb\nc\n";
        let new = "a\nB\nc";
        let ours = unified("a/f", "b/f", old, new);
        let theirs = TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(3)
            .missing_newline_hint(true)
            .header("a/f", "b/f")
            .to_string();
        assert_eq!(ours, theirs);
        assert_eq!(unified("a/f", "b/f", old, old), "");
    }

    /// Leaving out the lines both texts start and end with changes no hunk: random edits of
    /// random texts (lines added, removed, changed, a last line without its line break) give
    /// the diff `similar` prints of the whole texts.
    #[test]
    fn the_hunks_are_those_of_the_whole_texts() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..3000 {
            let lines: Vec<String> = (0..next(40)).map(|_| format!("l{}", next(6))).collect();
            let mut changed = lines.clone();
            for _ in 0..next(4) {
                let at = next(changed.len() as u64 + 1) as usize;
                match next(3) {
                    0 => changed.insert(at, format!("n{}", next(3))),
                    1 if at < changed.len() => {
                        changed.remove(at);
                    }
                    _ if at < changed.len() => changed[at] = format!("c{}", next(3)),
                    _ => {}
                }
            }
            let text = |lines: &[String], end: bool| {
                let mut t = lines.join("\n");
                if end && !t.is_empty() {
                    t.push('\n');
                }
                t
            };
            let (old, new) = (text(&lines, next(5) > 0), text(&changed, next(5) > 0));
            let theirs = TextDiff::from_lines(&old, &new)
                .unified_diff()
                .context_radius(3)
                .missing_newline_hint(true)
                .header("a/f", "b/f")
                .to_string();
            assert_eq!(
                unified("a/f", "b/f", &old, &new),
                theirs,
                "{old:?} -> {new:?}"
            );
        }
    }

    #[test]
    fn a_long_line_shows_each_change_with_its_surroundings() {
        let filler = "x".repeat(3000);
        let old = format!(
            "{{\"a\":\"{filler}\",\"key\":\"sk-abc123secret\",\"b\":\"{filler}\",\"t\":\"ghp_zzz\"}}\n"
        );
        let new = old
            .replace("sk-abc123secret", "REDACTED_KEY")
            .replace("ghp_zzz", "REDACTED_TOKEN");
        let diff = unified("a/f", "b/f", &old, &new);
        assert!(diff.len() < 1000, "{diff}");
        assert!(
            diff.contains(&format!("~ line 1 is {} bytes long", old.len() - 1)),
            "{diff}"
        );
        let minus: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"))
            .collect();
        let plus: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .collect();
        assert_eq!(minus.len(), 2, "{diff}");
        assert_eq!(plus.len(), 2, "{diff}");
        assert!(
            minus[0].contains("\"key\":\"sk-abc123secret\",\"b\""),
            "{diff}"
        );
        assert!(plus[0].contains("\"key\":\"REDACTED_KEY\",\"b\""), "{diff}");
        assert!(
            minus[1].contains("ghp_zzz") && plus[1].contains("REDACTED_TOKEN"),
            "{diff}"
        );
        assert!(
            minus[0].starts_with("-…x") && minus[0].ends_with('…'),
            "{diff}"
        );
    }

    #[test]
    fn a_long_line_removed_or_added_whole_is_cut_short() {
        let long = "x".repeat(5000);
        let diff = unified("a/f", "b/f", &format!("a\n{long}\n"), "a\n");
        assert!(
            diff.contains("-xxxx") && diff.contains("… (5000 bytes)"),
            "{diff}"
        );
        assert!(diff.len() < 500, "{diff}");
        let diff = unified("a/f", "b/f", "a\n", &format!("a\n{long}\nb\n"));
        assert!(
            diff.contains("+xxxx") && diff.contains("… (5000 bytes)"),
            "{diff}"
        );
        assert!(diff.len() < 500, "{diff}");
    }

    #[test]
    fn a_change_too_large_to_show_is_counted() {
        let old = format!("{}\n", "a".repeat(5000));
        let new = format!("{}\n", "b".repeat(5000));
        let diff = unified("a/f", "b/f", &old, &new);
        assert!(diff.contains("…(4600 more bytes)…"), "{diff}");
        assert!(diff.len() < 2000, "{diff}");
    }

    #[test]
    fn long_context_lines_are_cut_and_multibyte_text_is_never_split() {
        let long = "é".repeat(2000);
        let old = format!("{long}\nold\n");
        let new = format!("{long}\nnew\n");
        let diff = unified("a/f", "b/f", &old, &new);
        assert!(
            diff.contains(&format!("… ({} bytes)", long.len())),
            "{diff}"
        );
        let old = format!("{long}é\n");
        let new = format!("{long}ü\n");
        let diff = unified("a/f", "b/f", &old, &new);
        assert!(diff.contains('ü') && diff.contains("é"), "{diff}");
    }
}
