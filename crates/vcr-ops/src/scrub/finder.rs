//! Where many literal values occur in a text, in memory of the order of the values.
//!
//! A scrub looks for every credential of a file (and each of the forms it may be written in)
//! in every scalar. An Aho-Corasick automaton over 16,000 keys took 30 MB to build, six times
//! the file they came from (issue 43); here the values are grouped by length, and each group
//! is one rolling hash over the text (Rabin-Karp) with a table of the values' hashes: a few
//! bytes per value, and one pass over the text per distinct length (keys of one kind share a
//! length: a file holds few). A position whose hash is in the table is compared byte for byte.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The rolling hash's base (odd, so that it is invertible modulo 2^64, with its bits spread).
const BASE: u64 = 0x0100_0000_01b3_a5d1;

/// A set of values to find, each by its index.
pub(super) struct Finder {
    patterns: Vec<Vec<u8>>,
    groups: Vec<Group>,
}

/// The values of one length.
struct Group {
    len: usize,
    /// `BASE^(len - 1)`: what the byte leaving the window weighs.
    top: u64,
    /// The first value with each hash; `next` chains the others (two values have one hash
    /// only when they are equal, or by a rare chance).
    first: HashMap<u64, u32, BuildHasherDefault<Mixed>>,
    next: HashMap<u32, u32>,
    /// One bit per hash bucket: most positions are rejected here, without the table.
    filter: Vec<u64>,
    filter_bits: u32,
}

impl Finder {
    /// The finder of `patterns` (empty ones are never found).
    pub(super) fn new(patterns: Vec<Vec<u8>>) -> Finder {
        let mut by_len: HashMap<usize, Vec<u32>> = HashMap::new();
        for (i, p) in patterns.iter().enumerate() {
            if !p.is_empty() {
                by_len.entry(p.len()).or_default().push(i as u32);
            }
        }
        let mut groups: Vec<Group> = by_len
            .into_iter()
            .map(|(len, ids)| Group::new(len, &ids, &patterns))
            .collect();
        groups.sort_by_key(|g| g.len);
        Finder { patterns, groups }
    }

    /// Whether there is nothing to find.
    pub(super) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The pattern of index `i`.
    pub(super) fn pattern(&self, i: usize) -> &[u8] {
        &self.patterns[i]
    }

    /// The patterns equal to `bytes`.
    pub(super) fn find_exact<'f>(&'f self, bytes: &'f [u8]) -> impl Iterator<Item = usize> + 'f {
        let group = self.groups.iter().find(|g| g.len == bytes.len());
        let mut id = group.and_then(|g| g.first.get(&hash(bytes)).copied());
        std::iter::from_fn(move || {
            while let Some(at) = id {
                id = group.and_then(|g| g.next.get(&at).copied());
                if self.patterns[at as usize] == bytes {
                    return Some(at as usize);
                }
            }
            None
        })
    }

    /// Calls `found(pattern, start)` for every occurrence of every pattern in `text`,
    /// overlapping ones included, grouped by length (not in text order).
    pub(super) fn for_each(&self, text: &[u8], found: &mut dyn FnMut(usize, usize)) {
        for group in &self.groups {
            group.for_each(text, &self.patterns, found);
        }
    }
}

impl Group {
    fn new(len: usize, ids: &[u32], patterns: &[Vec<u8>]) -> Group {
        let top = (1..len).fold(1u64, |acc, _| acc.wrapping_mul(BASE));
        // A filter of about 16 bits per value, at least 2^10 and at most 2^24 bits.
        let filter_bits = (ids.len() * 16).next_power_of_two().clamp(1 << 10, 1 << 24);
        let mut group = Group {
            len,
            top,
            first: HashMap::with_capacity_and_hasher(ids.len(), Default::default()),
            next: HashMap::new(),
            filter: vec![0; filter_bits / 64],
            filter_bits: filter_bits.trailing_zeros(),
        };
        for &id in ids {
            let h = hash(&patterns[id as usize]);
            let bit = group.bit(h);
            group.filter[bit / 64] |= 1 << (bit % 64);
            // Pushed at the head of its chain.
            if let Some(head) = group.first.insert(h, id) {
                group.next.insert(id, head);
            }
        }
        group
    }

    fn bit(&self, h: u64) -> usize {
        (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.filter_bits)) as usize
    }

    fn for_each(&self, text: &[u8], patterns: &[Vec<u8>], found: &mut dyn FnMut(usize, usize)) {
        let len = self.len;
        if text.len() < len {
            return;
        }
        let mut h = hash(&text[..len]);
        let mut start = 0;
        loop {
            let bit = self.bit(h);
            if self.filter[bit / 64] & (1 << (bit % 64)) != 0
                && let Some(&head) = self.first.get(&h)
            {
                let window = &text[start..start + len];
                let mut id = Some(head);
                while let Some(at) = id {
                    if patterns[at as usize] == window {
                        found(at as usize, start);
                    }
                    id = self.next.get(&at).copied();
                }
            }
            if start + len >= text.len() {
                break;
            }
            h = h
                .wrapping_sub(u64::from(text[start]).wrapping_mul(self.top))
                .wrapping_mul(BASE)
                .wrapping_add(u64::from(text[start + len]));
            start += 1;
        }
    }
}

/// The polynomial hash of `bytes` the rolling hash keeps.
fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |h, &b| {
        h.wrapping_mul(BASE).wrapping_add(u64::from(b))
    })
}

/// A hasher for keys that are hashes already: one multiplication spreads their bits over
/// the table's buckets.
#[derive(Default)]
struct Mixed(u64);

impl Hasher for Mixed {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::Finder;

    /// Every occurrence, overlapping ones too, as a naive search finds them.
    #[test]
    fn finds_what_a_naive_search_finds() {
        let patterns: Vec<Vec<u8>> = ["aa", "abc", "bcab", "c", "", "abcabcabcabc", "zz"]
            .iter()
            .map(|p| p.as_bytes().to_vec())
            .collect();
        let finder = Finder::new(patterns.clone());
        for text in ["", "a", "aaa", "abcabcabcabcab", "xxabcx", "cc"] {
            let mut found = Vec::new();
            finder.for_each(text.as_bytes(), &mut |p, at| found.push((p, at)));
            found.sort_unstable();
            let mut naive = Vec::new();
            for (p, pattern) in patterns.iter().enumerate() {
                if pattern.is_empty() {
                    continue;
                }
                for at in 0..=text.len().saturating_sub(pattern.len()) {
                    if text.as_bytes()[at..].starts_with(pattern) {
                        naive.push((p, at));
                    }
                }
            }
            naive.sort_unstable();
            assert_eq!(found, naive, "{text:?}");
        }
    }

    /// Many values sharing a long prefix (keys of one provider, JWTs of one header) cost no
    /// more than distinct ones.
    #[test]
    fn many_values_of_one_length() {
        let patterns: Vec<Vec<u8>> = (0..5000)
            .map(|i| format!("sk-proj-{i:040}").into_bytes())
            .collect();
        let finder = Finder::new(patterns);
        let text = format!("x sk-proj-{:040} y sk-proj-{:040}", 17, 4999);
        let mut found = Vec::new();
        finder.for_each(text.as_bytes(), &mut |p, at| found.push((p, at)));
        assert_eq!(found, [(17, 2), (4999, 53)]);
    }
}
