//! Case-insensitive matching as JavaScript does it without the `u` flag.
//!
//! ECMAScript's `Canonicalize` (without `u`) maps a code unit to its `toUpperCase()` when
//! that is a single code unit and does not turn a non-ASCII character into an ASCII one;
//! two characters match under `i` when their canonical forms are equal. That is not Unicode
//! case folding, which the `regex` crate's `(?i)` uses: `ſ` folds to `s` and the Kelvin sign
//! to `k` there, but neither matches under JavaScript's `/s/i` or `/k/i`. So the translation
//! spells every case-insensitive character and class out as the set of characters with the
//! same canonical form. Characters outside the Basic Multilingual Plane are two code units
//! to JavaScript, and code units that are surrogates have no case: they match only
//! themselves.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

/// `Canonicalize(rer, ch)` for a BMP character, `rer.[[IgnoreCase]]` true and
/// `rer.[[Unicode]]` false.
fn canonicalize(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u as u32 <= 0xFFFF && !(c as u32 >= 128 && (u as u32) < 128) => u,
        _ => c,
    }
}

/// The characters that share a canonical form with some other character, grouped.
struct Groups {
    groups: Vec<Vec<char>>,
    /// Each grouped character and its group.
    index: HashMap<char, usize>,
}

fn groups() -> &'static Groups {
    static GROUPS: OnceLock<Groups> = OnceLock::new();
    GROUPS.get_or_init(|| {
        let mut by_canonical: HashMap<char, Vec<char>> = HashMap::new();
        for c in (0..=0xFFFF).filter_map(char::from_u32) {
            by_canonical.entry(canonicalize(c)).or_default().push(c);
        }
        let mut groups: Vec<Vec<char>> = by_canonical
            .into_values()
            .filter(|members| members.len() > 1)
            .collect();
        groups.sort();
        let index = groups
            .iter()
            .enumerate()
            .flat_map(|(i, members)| members.iter().map(move |&c| (c, i)))
            .collect();
        Groups { groups, index }
    })
}

/// The characters that match `c` under `i`: `c` alone or its whole group.
pub(super) fn equivalents(c: char) -> &'static [char] {
    let groups = groups();
    groups
        .index
        .get(&c)
        .map_or(&[], |&i| groups.groups[i].as_slice())
}

/// Adds to `class` every character whose canonical form is that of a member: the set of
/// characters a JavaScript class matches under `i` (before any negation).
pub(super) fn close_over_case(class: &mut ClassUnicode) {
    let contains = |c: char| {
        let ranges = class.ranges();
        let at = ranges.partition_point(|r| r.end() < c);
        ranges.get(at).is_some_and(|r| r.start() <= c)
    };
    let mut added = Vec::new();
    for members in &groups().groups {
        if members.iter().any(|&c| contains(c)) {
            added.extend(members.iter().map(|&c| ClassUnicodeRange::new(c, c)));
        }
    }
    class.union(&ClassUnicode::new(added));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms_follow_ecmascript_not_case_folding() {
        // Checked with node: /x/i.test(y).
        assert_eq!(canonicalize('a'), 'A');
        assert_eq!(canonicalize('ſ'), 'ſ', "toUpperCase is S, ASCII: kept");
        assert_eq!(
            canonicalize('\u{212A}'),
            '\u{212A}',
            "the Kelvin sign is upper case"
        );
        assert_eq!(canonicalize('ß'), 'ß', "toUpperCase is SS, two units: kept");
        assert_eq!(canonicalize('ς'), 'Σ');
        assert_eq!(canonicalize('σ'), 'Σ');
        assert_eq!(
            canonicalize('ı'),
            'ı',
            "dotless i upper-cases to ASCII I: kept"
        );
        assert_eq!(equivalents('k'), ['K', 'k']);
        assert!(equivalents('\u{212A}').is_empty());
        assert_eq!(equivalents('ς'), ['Σ', 'ς', 'σ']);
        assert!(equivalents('1').is_empty());
    }

    #[test]
    fn classes_gain_the_other_case() {
        let mut class = ClassUnicode::new([ClassUnicodeRange::new('a', 'c')]);
        close_over_case(&mut class);
        let ranges: Vec<(char, char)> = class
            .ranges()
            .iter()
            .map(|r| (r.start(), r.end()))
            .collect();
        assert_eq!(ranges, [('A', 'C'), ('a', 'c')]);
    }
}
