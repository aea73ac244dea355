//! Secrets in a cassette's path (issue 41): a recording named after the key it was made with
//! (`test_sk-proj-....yaml`), a folder named after a token. The file's contents may be clean,
//! yet its name is published with every commit, and every output printed it: findings,
//! annotations, SARIF locations, the headers of `normalize --diff`.
//!
//! Only keys of a vendor's shape count (the detectors that need no name beside the value):
//! a path holds no `Authorization` header, and its UUIDs, dates and e-mail-like segments are
//! how tests name recordings. The outputs hide each secret a path holds as values are hidden
//! ([`PathMask`]), wherever the path is printed; the file keeps its name, since renaming it
//! breaks the test that opens it.

use std::borrow::Cow;

use crate::{Hit, LeakFamily, Scanner};

/// The secrets `path` (relative to the project root, `/`-separated) holds, as hits whose
/// offsets are in `path`.
pub fn secrets_in_path(scanner: &Scanner, path: &str) -> Vec<Hit> {
    if !may_hold_keys(path) {
        return Vec::new();
    }
    let secrets = |from: usize| {
        scanner
            .scan(&path.as_bytes()[from..])
            .into_iter()
            .filter(|hit| hit.family == LeakFamily::Secret)
            .map(move |mut hit| {
                hit.start += from;
                hit.end += from;
                hit
            })
    };
    let mut found: Vec<Hit> = secrets(0).collect();
    // In a name, `_`, `-` and `.` separate words as spaces do (`test_sk-proj-...`), where in
    // text they join a key to what comes before it: each run after one is read again, but
    // only where a key may follow (a run of 16 letters and digits with a digit in it), so
    // that a name of words costs one scan.
    let bytes = path.as_bytes();
    for (at, _) in path.match_indices(['_', '-', '.']) {
        if !may_hold_a_key(&bytes[at + 1..]) {
            continue;
        }
        for hit in secrets(at + 1) {
            let known = found
                .iter()
                .any(|f| f.start <= hit.start && hit.end <= f.end);
            if !known {
                found.retain(|f| !(hit.start <= f.start && f.end <= hit.end));
                found.push(hit);
            }
        }
    }
    found.sort_by_key(|hit| hit.start);
    found
}

/// [`secrets_in_path`] with the scanner of no machine's paths, built once, and only for a
/// path that may hold a key: building it compiles every detector's regexes, which a path of
/// words, ids and dates does not need (`verify --staged` paid a few milliseconds for it on
/// every commit that had a finding to print, issue 44).
pub fn secrets_in(path: &str) -> Vec<Hit> {
    if !may_hold_keys(path) {
        return Vec::new();
    }
    secrets_in_path(crate::plain_scanner(), path)
}

/// Whether some segment of `path` may hold a key ([`may_hold_a_key`]): most names are words,
/// ids and dates, and need no scan at all.
fn may_hold_keys(path: &str) -> bool {
    path.split('/')
        .any(|segment| may_hold_a_key(segment.as_bytes()))
}

/// Whether `rest` of a path (up to its next `/`) holds a run of 16 letters and digits that
/// is not one word: with a digit in it, or both cases. The random body of every vendor's key
/// has one.
fn may_hold_a_key(rest: &[u8]) -> bool {
    let segment = rest.split(|&b| b == b'/').next().unwrap_or_default();
    segment.split(|b| !b.is_ascii_alphanumeric()).any(|run| {
        run.len() >= 16
            && (run.iter().any(u8::is_ascii_digit)
                || run.iter().any(u8::is_ascii_uppercase) && run.iter().any(u8::is_ascii_lowercase))
    })
}

/// The secrets of the paths an output has printed or will print, each with its masked form:
/// [`PathMask::mask`] replaces them in any text. Empty, it costs nothing.
#[derive(Default)]
pub struct PathMask {
    /// The last path learned: findings come a file at a time.
    last: String,
    /// Each secret as it may be written (as it is, JSON-escaped, percent-encoded), with what
    /// is shown instead.
    forms: Vec<(String, String)>,
    automaton: Option<aho_corasick::AhoCorasick>,
}

impl PathMask {
    /// Learns the secrets of `path`, if it has any.
    pub fn learn(&mut self, path: &str) {
        if path == self.last {
            return;
        }
        path.clone_into(&mut self.last);
        let hits = secrets_in(path);
        if hits.is_empty() {
            return;
        }
        for hit in hits {
            let escaped = serde_json::to_string(&hit.text).unwrap_or_default();
            let escaped = escaped.trim_matches('"').to_owned();
            let encoded = crate::percent_encoded(&hit.text);
            for form in [hit.text.clone(), escaped, encoded] {
                if !self.forms.iter().any(|(f, _)| *f == form) {
                    self.forms.push((form, hit.masked.clone()));
                }
            }
        }
        self.automaton = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(self.forms.iter().map(|(f, _)| f))
            .ok();
    }

    /// [`PathMask::mask`] of bytes that may not be UTF-8 (what an output writes): only text
    /// is masked, and keys are ASCII.
    pub fn mask_bytes<'t>(&self, bytes: &'t [u8]) -> Cow<'t, [u8]> {
        let Some(automaton) = &self.automaton else {
            return Cow::Borrowed(bytes);
        };
        if !automaton.is_match(bytes) {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        automaton.replace_all_with_bytes(bytes, &mut out, |m, _, out| {
            out.extend_from_slice(self.forms[m.pattern().as_usize()].1.as_bytes());
            true
        });
        Cow::Owned(out)
    }

    /// `text` with every secret learned replaced by its masked form.
    pub fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let Some(automaton) = &self.automaton else {
            return Cow::Borrowed(text);
        };
        if !automaton.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        automaton.replace_all_with(text, &mut out, |m, _, out| {
            out.push_str(&self.forms[m.pattern().as_usize()].1);
            true
        });
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-Zq8vN2kL5mR7pT3wYc1Nd5FhXa4Wq8vN2kL5mR7pT3wYc1Nd";
    const GITHUB: &str = "ghp_Zq8vN2kL5mR7pT3wYc1Nd5FhXa4Wq8vN2kL5";

    #[test]
    fn vendor_keys_in_file_and_folder_names_are_found() {
        let scanner = Scanner::new(&[]);
        for (path, key) in [
            (format!("tests/cassettes/test_{KEY}.yaml"), KEY),
            (format!("tests/cassettes/{KEY}.yaml"), KEY),
            (format!("fixtures/{GITHUB}/list_repos.json"), GITHUB),
            (format!("fixtures/token-{GITHUB}-repos.json"), GITHUB),
        ] {
            let hits = secrets_in_path(&scanner, &path);
            assert_eq!(
                hits.iter().map(|h| h.text.as_str()).collect::<Vec<_>>(),
                [key],
                "{path}"
            );
        }
    }

    #[test]
    fn ids_dates_and_words_in_names_are_no_secrets() {
        let scanner = Scanner::new(&[]);
        for path in [
            "tests/cassettes/test_create_api_key.yaml",
            "tests/cassettes/9f0c2a4e-6b1d-4c3e-8a7f-2d5e6f7a8b9c.json",
            "fixtures/2024-05-01T10-00-00Z/recording.har",
            "cassettes/TestAccToken_basic/user@example.com.yaml",
            "cassettes/test_sk-proj-test-key-for-unit-tests.yaml",
            "spec/vcr_cassettes/stripe/sk_test_key_invalid.yml",
        ] {
            assert!(secrets_in_path(&scanner, path).is_empty(), "{path}");
        }
    }

    #[test]
    fn the_mask_hides_a_learned_secret_in_any_text_and_leaves_the_rest() {
        let mut mask = PathMask::default();
        let clean = "interactions[0] is fine";
        mask.learn("tests/cassettes/plain.yaml");
        assert!(matches!(mask.mask(clean), Cow::Borrowed(_)));
        mask.learn(&format!("tests/cassettes/test_{KEY}.yaml"));
        let text = format!(
            "{{\"path\": \"tests/cassettes/test_{KEY}.yaml\"}}\n::error file=tests/cassettes/test_{KEY}.yaml::x\n--- a/tests/cassettes/test_{KEY}.yaml"
        );
        let masked = mask.mask(&text);
        assert!(!masked.contains(KEY), "{masked}");
        assert!(masked.contains("sk-proj-…(56 chars)"), "{masked}");
        assert_eq!(mask.mask(clean), clean);
    }
}
