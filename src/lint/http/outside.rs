//! Credentials in the parts of an HTTP cassette no interaction holds
//! ([`HttpCassette::outside`](crate::kind::http::HttpCassette::outside)): scanned once, joined, and judged against what the
//! interactions hold (issue 25).

use super::{Collect, HttpLeak};
use crate::finding::Severity;
use crate::lint::{LeakFamily, Scanner};

/// The readable path of a leak outside the interactions.
pub const OUTSIDE: &str = "(outside the interactions)";

/// Credentials (provider keys, tokens, JWTs, private keys, passwords in URLs, credential
/// fields) in the parts of the file the readers do not take into the interactions
/// ([`HttpCassette::outside`](crate::kind::http::HttpCassette::outside)): the value a duplicated JSON key hides, a second YAML document,
/// a HAR `comment`, a recorder's fields of its own. Everything in the file is scanned (issue
/// 25): a hit the interactions do not hold, as text or decoded, is a finding `(outside the
/// interactions)` at its place in the file. What the interactions hold was judged with its
/// context by [`super::check`] and is not judged again.
pub(super) fn scan(
    c: &Collect<'_>,
    outside_ranges: &[(u32, u32)],
    scanner: &Scanner,
    leaks: &mut Vec<HttpLeak>,
) {
    let judged: std::collections::HashSet<&str> =
        leaks.iter().map(|l| l.hit.text.as_str()).collect();
    let mut found = Vec::new();
    let squeezed_joined = std::cell::OnceCell::new();
    let held = |text: &str| {
        judged.contains(text)
            || memchr::memmem::find(c.joined.as_bytes(), text.as_bytes()).is_some()
    };
    // Where the interactions' leaks sit in the file: a raw hit over one of them is that leak
    // (`Bearer <token>` raw, the token judged).
    let mut at: Vec<usize> = leaks.iter().filter_map(|l| l.offset).collect();
    at.sort_unstable();
    let over_a_leak = |start: usize, end: usize| {
        let i = at.partition_point(|&o| o < start);
        at.get(i).is_some_and(|&o| o < end)
    };
    // The ranges joined (a line break between two), scanned at once: a scan per range cost
    // more in its setup than in its bytes. Each hit is then put back at its place.
    let mut text = Vec::new();
    let mut starts: Vec<(usize, usize)> = Vec::with_capacity(outside_ranges.len());
    for &(start, end) in outside_ranges {
        let (start, end) = (start as usize, (end as usize).min(c.file.len()));
        if start >= end {
            continue;
        }
        starts.push((text.len(), start));
        text.extend_from_slice(&c.file[start..end]);
        text.push(b'\n');
    }
    let mut hits = Vec::new();
    for mut hit in scanner.scan(&text) {
        let i = starts.partition_point(|&(joined, _)| joined <= hit.start);
        let Some(&(joined, file)) = i.checked_sub(1).and_then(|i| starts.get(i)) else {
            continue;
        };
        hit.start = hit.start - joined + file;
        hit.end = hit.end - joined + file;
        hits.push(hit);
    }
    for hit in hits {
        if hit.family != LeakFamily::Secret
            || over_a_leak(hit.start, hit.end)
            || held(&hit.text)
            || hit
                .text
                .rsplit_once(' ')
                .is_some_and(|(_, value)| held(value))
        {
            continue;
        }
        // As the interactions hold it: a private key's lines written with JSON's escapes, or
        // folded across the lines of a YAML scalar. Compared without escapes and white space
        // (the interactions' text squeezed so once, when a hit needs it).
        if hit.text.contains(['\\', '\n', ' ']) {
            let squeezed = squeezed_joined.get_or_init(|| {
                // The interactions' texts and the values judged already (a credential
                // field's value is judged by its name, not kept with the texts).
                let mut all = squeeze(&c.joined);
                for leak in leaks.iter() {
                    all.push('\n');
                    all.push_str(&squeeze(&leak.hit.text));
                }
                all
            });
            if memchr::memmem::find(squeezed.as_bytes(), squeeze(&hit.text).as_bytes()).is_some() {
                continue;
            }
        }
        let at = hit.start;
        found.push(HttpLeak {
            hit,
            severity: Severity::Error,
            offset: Some(at),
            path: OUTSIDE.to_owned(),
            place: " outside the interactions its recorder replays",
            repeats: 0,
            why: String::new(),
        });
    }
    leaks.extend(found);
}

/// `text` without white space and without the escapes of line breaks (`\n`, `\r`) and
/// other backslashes: a value compared however a file wrapped or escaped it.
fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                if matches!(chars.peek(), Some('n' | 'r' | 't')) {
                    chars.next();
                }
            }
            ch if ch.is_whitespace() => {}
            ch => out.push(ch),
        }
    }
    out
}
