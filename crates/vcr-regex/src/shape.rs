//! The size, nesting and expansion of a pattern, read from its text before any engine sees it.
//!
//! `regress` parses and optimizes recursively: a pattern nested ten thousand groups deep
//! overflows the stack before it can say anything, and it unrolls counted repetitions of
//! small minimums (`(?:x){5}`, `(?:x)+`) into copies, so `(?:(?:(?:a){5}){5}){5}...`, a few
//! dozen bytes, asks for gigabytes. This scan is lexical and iterative: it needs no stack, it
//! counts group nesting exactly, and it over-estimates what unrolling can make of the
//! pattern, so a pattern it lets through is safe to hand to either engine.

use super::{Limit, MAX_EXPANSION, MAX_LEN, MAX_NESTING};

/// Checks `pattern` (written for JavaScript, `unicode_sets` when the `v` flag is on) against
/// the limits.
pub(super) fn check(pattern: &str, unicode_sets: bool) -> Result<(), Limit> {
    if pattern.len() > MAX_LEN {
        return Err(Limit::TooLong { len: pattern.len() });
    }
    let depth = nesting(pattern, unicode_sets);
    if depth > MAX_NESTING {
        return Err(Limit::TooDeep { depth });
    }
    if expansion(pattern, unicode_sets) > MAX_EXPANSION {
        return Err(Limit::TooLarge);
    }
    Ok(())
}

/// One lexical item of a pattern: what the nesting and expansion counts need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// `(`, whatever kind of group it opens.
    Open,
    /// `)`.
    Close,
    /// A character class, nested classes included (`v` flag).
    Class {
        /// How deep its classes nest (0 without the `v` flag).
        depth: usize,
    },
    /// A quantifier and the least number of times it repeats (`+` is 1, `{3,}` is 3).
    Quantifier { min: u64 },
    /// Anything else that matches or asserts: a character, an escape, `.`, `^`, `|`.
    Other,
}

/// Splits a pattern into tokens. Escapes take the character after the backslash with them;
/// inside a class only `]` (and `[` with the `v` flag) matter.
fn tokens(pattern: &str, unicode_sets: bool) -> impl Iterator<Item = Token> + '_ {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let b = *bytes.get(i)?;
        i += 1;
        Some(match b {
            b'\\' => {
                i += bytes.get(i).map_or(0, |_| 1);
                Token::Other
            }
            b'(' => Token::Open,
            b')' => Token::Close,
            b'[' => {
                let (end, depth) = class_end(bytes, i, unicode_sets);
                i = end;
                // Only the `v` flag's classes nest (and recurse in the parser).
                let depth = if unicode_sets { depth } else { 0 };
                Token::Class { depth }
            }
            b'*' | b'?' => Token::Quantifier { min: 0 },
            b'+' => Token::Quantifier { min: 1 },
            b'{' => match braced_min(&bytes[i..]) {
                Some((min, len)) => {
                    i += len;
                    Token::Quantifier { min }
                }
                None => Token::Other,
            },
            _ => Token::Other,
        })
    })
}

/// Where the class opened just before `start` ends, and how deep its classes nest.
fn class_end(bytes: &[u8], mut i: usize, unicode_sets: bool) -> (usize, usize) {
    let mut depth = 1;
    let mut deepest = 1;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'\\' => i += usize::from(i < bytes.len()),
            b'[' if unicode_sets => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    (i, deepest)
}

/// The minimum of a braced quantifier at the start of `rest` (just after its `{`) and its
/// length, or `None` when the brace is a literal (JavaScript without the `u` flag).
fn braced_min(rest: &[u8]) -> Option<(u64, usize)> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut len = digits;
    if rest.get(len) == Some(&b',') {
        len += 1;
        len += rest[len..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    }
    if rest.get(len) != Some(&b'}') {
        return None;
    }
    let min = std::str::from_utf8(&rest[..digits])
        .ok()?
        .parse()
        .unwrap_or(u64::MAX);
    Some((min, len + 1))
}

/// How deep groups (and nested classes) nest.
fn nesting(pattern: &str, unicode_sets: bool) -> usize {
    let mut depth: usize = 0;
    let mut deepest = 0;
    for token in tokens(pattern, unicode_sets) {
        match token {
            Token::Open => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Token::Close => depth = depth.saturating_sub(1),
            Token::Class { depth: class } => deepest = deepest.max(depth + class),
            Token::Quantifier { .. } | Token::Other => {}
        }
    }
    deepest
}

/// An upper bound of the pattern's size once every repetition with a small minimum is
/// unrolled the way `regress` unrolls it (a minimum of 1 to 5 becomes that many copies
/// followed by the rest of the loop).
fn expansion(pattern: &str, unicode_sets: bool) -> u64 {
    /// One open group: its size so far and the size of its last item.
    #[derive(Default)]
    struct Level {
        size: u64,
        last: u64,
    }
    let mut levels = vec![Level::default()];
    let mut largest = 0;
    for token in tokens(pattern, unicode_sets) {
        match token {
            Token::Open => levels.push(Level::default()),
            Token::Close if levels.len() > 1 => {
                let group = levels.pop().map_or(0, |l| l.size.saturating_add(1));
                let parent = levels.last_mut().expect("the outermost level stays");
                parent.size = parent.size.saturating_add(group);
                parent.last = group;
            }
            Token::Quantifier { min } => {
                let level = levels.last_mut().expect("the outermost level stays");
                let copies = if (1..=5).contains(&min) { min } else { 0 };
                let extra = level.last.saturating_mul(copies).saturating_add(1);
                level.size = level.size.saturating_add(extra);
                level.last = level.last.saturating_add(extra);
            }
            Token::Close | Token::Class { .. } | Token::Other => {
                let level = levels.last_mut().expect("the outermost level stays");
                level.size = level.size.saturating_add(1);
                level.last = 1;
            }
        }
        largest = largest.max(levels.iter().map(|l| l.size).fold(0, u64::saturating_add));
        if largest > MAX_EXPANSION {
            break;
        }
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn depth(pattern: &str, expected: usize) {
        assert_eq!(nesting(pattern, false), expected, "{pattern}");
    }

    #[test]
    fn nesting_counts_groups_not_escapes_or_class_contents() {
        depth("abc", 0);
        depth("(a)(b)", 1);
        depth("((a)|(?:b(c)))", 3);
        depth(r"\(\(\(a", 0);
        depth("[(((]a", 0);
        depth(r"[\]((]", 0);
        depth("[]((a))", 2);
        depth("(?<=(?=(a)))", 3);
        depth(
            &format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000)),
            10_000,
        );
        assert_eq!(nesting("[[[a]]]", true), 3);
        assert_eq!(nesting("[[[a]]]", false), 0);
    }

    #[test]
    fn unrolled_repetitions_are_over_estimated() {
        let chain = |k: usize| format!("{}a{}", "(?:".repeat(k), "){5}".repeat(k));
        let mut last = 0;
        for k in 1..8 {
            let size = expansion(&chain(k), false);
            assert!(size > 5u64.pow(k as u32), "k={k}: {size}");
            assert!(size > last);
            last = size;
        }
        assert!(expansion("a{1000}b*c+", false) < 10);
        assert!(expansion(&"x".repeat(1000), false) <= 1000);
        assert!(check(&chain(10), false) == Err(Limit::TooLarge));
        assert!(check(&chain(5), false).is_ok());
        let plus = format!("{}a{}", "(?:".repeat(40), ")+".repeat(40));
        assert_eq!(check(&plus, false), Err(Limit::TooLarge));
    }

    #[test]
    fn limits_are_checked_in_order() {
        assert_eq!(
            check(&"a".repeat(MAX_LEN + 1), false),
            Err(Limit::TooLong { len: MAX_LEN + 1 })
        );
        let deep = format!("{}a{}", "(".repeat(500), ")".repeat(500));
        assert_eq!(check(&deep, false), Err(Limit::TooDeep { depth: 500 }));
        let fine = format!("{}a{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert_eq!(check(&fine, false), Ok(()));
    }

    #[test]
    fn braces_that_are_not_quantifiers_are_literals() {
        assert_eq!(braced_min(b"3}"), Some((3, 2)));
        assert_eq!(braced_min(b"3,}"), Some((3, 3)));
        assert_eq!(braced_min(b"3,5}x"), Some((3, 4)));
        assert_eq!(braced_min(b"}"), None);
        assert_eq!(braced_min(b"a}"), None);
        assert_eq!(braced_min(b"3"), None);
        assert_eq!(
            braced_min(b"99999999999999999999999}"),
            Some((u64::MAX, 24))
        );
    }
}
