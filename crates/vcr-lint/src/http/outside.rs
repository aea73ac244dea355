//! Credentials in the parts of an HTTP cassette no interaction holds
//! ([`HttpCassette::outside`](vcr_cassette::http::HttpCassette::outside)): scanned once, joined, and judged against what the
//! interactions hold (issue 25).

use super::{Collect, HttpLeak};
use crate::finding::Severity;
use crate::{Hit, LeakFamily, Scanner};

/// The readable path of a leak outside the interactions.
pub const OUTSIDE: &str = "(outside the interactions)";

/// Credentials (provider keys, tokens, JWTs, private keys, passwords in URLs, credential
/// fields) in the parts of the file the readers do not take into the interactions
/// ([`HttpCassette::outside`](vcr_cassette::http::HttpCassette::outside)): the value a duplicated JSON key hides, a second YAML document,
/// a HAR `comment`, a recorder's fields of its own. Everything in the file is scanned (issue
/// 25): a hit the interactions do not hold, as text or decoded, is a finding `(outside the
/// interactions)` at its place in the file. What the interactions hold was judged with its
/// context by [`super::check`] and is not judged again.
///
/// The secret hits of `ranges` (a window's) that no leak of `leaks` covers: what lies at a
/// leak's place is that leak. Each is a finding once [`unjudged`] and [`Held`] find that no
/// interaction of any window holds it.
pub(super) fn hits(
    file: &[u8],
    ranges: &[(u32, u32)],
    scanner: &Scanner,
    leaks: &[HttpLeak],
) -> Vec<Hit> {
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
    let mut starts: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for &(start, end) in ranges {
        let (start, end) = (start as usize, (end as usize).min(file.len()));
        if start >= end {
            continue;
        }
        starts.push((text.len(), start));
        text.extend_from_slice(&file[start..end]);
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
        if hit.family == LeakFamily::Secret && !over_a_leak(hit.start, hit.end) {
            hits.push(hit);
        }
    }
    hits
}

/// The `hits` (every window's) that no leak of `leaks` (the interactions', all of them)
/// judged already: as it stands, after a space (`Bearer <token>`), or squeezed (a private
/// key's lines written with JSON's escapes, or folded across the lines of a YAML scalar).
pub(super) fn unjudged(mut hits: Vec<Hit>, leaks: &[HttpLeak]) -> Vec<Hit> {
    let judged: std::collections::HashSet<&str> =
        leaks.iter().map(|l| l.hit.text.as_str()).collect();
    hits.retain(|hit| {
        !judged.contains(hit.text.as_str())
            && !(hit.text.rsplit_once(' ')).is_some_and(|(_, value)| judged.contains(value))
    });
    if hits.iter().any(|hit| spread(&hit.text)) {
        let squeezed: Vec<String> = leaks.iter().map(|l| squeeze(&l.hit.text)).collect();
        hits.retain(|hit| {
            !spread(&hit.text) || {
                let hit = squeeze(&hit.text);
                !squeezed.iter().any(|l| l.contains(&hit))
            }
        });
    }
    hits
}

/// Whether a hit may be written across escapes, lines or spaces.
fn spread(text: &str) -> bool {
    text.contains(['\\', '\n', ' '])
}

/// Which of the [`unjudged`] hits the interactions' texts hold, window by window.
pub(super) struct Held {
    held: Vec<bool>,
}

impl Held {
    pub(super) fn new(hits: &[Hit]) -> Held {
        Held {
            held: vec![false; hits.len()],
        }
    }

    /// Marks the hits the texts of `c` (a window's interactions, or all of them) hold, as
    /// they stand, after a space (`Bearer <token>`), or squeezed.
    pub(super) fn window(&mut self, hits: &[Hit], c: &Collect<'_>) {
        let contains =
            |text: &str| memchr::memmem::find(c.joined.as_bytes(), text.as_bytes()).is_some();
        let squeezed = std::cell::OnceCell::new();
        for (hit, held) in hits.iter().zip(&mut self.held) {
            *held = *held
                || contains(&hit.text)
                || (hit.text.rsplit_once(' ')).is_some_and(|(_, value)| contains(value))
                || (spread(&hit.text)
                    && squeezed
                        .get_or_init(|| squeeze(&c.joined))
                        .contains(&squeeze(&hit.text)));
        }
    }

    /// Forgets what the windows so far held (they are void).
    pub(super) fn clear(&mut self) {
        self.held.iter_mut().for_each(|h| *h = false);
    }

    /// The findings of the hits no interaction holds.
    pub(super) fn findings(self, hits: Vec<Hit>) -> Vec<HttpLeak> {
        (hits.into_iter().zip(self.held))
            .filter(|(_, held)| !held)
            .map(|(hit, _)| {
                let at = hit.start;
                HttpLeak {
                    hit,
                    severity: Severity::Error,
                    offset: Some(at),
                    path: OUTSIDE.to_owned(),
                    place: " outside the interactions its recorder replays",
                    repeats: 0,
                    why: String::new(),
                }
            })
            .collect()
    }
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
