//! Values a person typed, told by words (issue 41): a value whose every piece is an English
//! word, a word of the name that holds it, or a number (`myAPIToken` under `Authorization`,
//! `SESSIONID` under `TNS_SESSIONID`, `correcthorsebatterystaple`) was written by someone,
//! not drawn at random, whatever the words are; a hand-picked vocabulary missed every word
//! it did not list (`test-access-token` passed, `test-refresh-token` did not).
//!
//! The words are a real word list (`words.txt`: SCOWL size 35, about 40,000 words, licence
//! in the file's header), embedded in the binary (350 KB) and read once into a sorted list.
//! A random key is not words: it splits at its case changes and digits into pieces of one or
//! two letters, and a run of lower-case letters drawn at random spells words of three
//! letters or more end to end about once in 10,000 at 8 letters and never in 200,000 tries at
//! 10 (measured with this list). Hex is left out: its six letters spell `dead`, `beef`,
//! `face`.

use std::sync::OnceLock;

/// The list, without its header.
fn list() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        include_str!("words.txt")
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .collect()
    })
}

/// Short words that the list leaves out or a test value is made of (`api`, `id`, `temp`),
/// which may also stand in a value glued to others.
const TEST_VOCABULARY: &[&str] = &[
    "api", "id", "ids", "my", "no", "ok", "temp", "tmp", "pwd", "auth", "oauth", "sso", "otp",
    "url", "uri", "dev", "env", "app", "apps", "org", "acct", "admin", "nope", "toor", "qwerty",
    "asdf", "pass", "passwd", "login", "logon", "signin", "signup", "userid", "username", "jwt",
    "sid", "sess", "http", "https", "www", "json", "xml", "html", "mock", "stub", "abc", "xyz",
    "foo", "bar", "baz", "qux", "info", "demo", "sandbox", "staging", "prod", "config", "conf",
    "cfg", "init", "setup", "todo", "tbd", "attr", "attrs", "param", "params", "val", "var",
    "vars", "str", "obj", "prop", "props", "impl", "ref", "repo",
];

/// Whether `lower` (lower-case letters) is a word: of the list, or of the test vocabulary.
pub(crate) fn is_word(lower: &str) -> bool {
    TEST_VOCABULARY.contains(&lower) || list().binary_search(&lower).is_ok()
}

/// What makes a value typed words, for the judge's `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Typed {
    /// Every piece is a word of the name that holds it (or its scheme, its host): the value
    /// describes itself.
    OwnName,
    /// Every piece is an English word, a word of its name, or a number.
    Words,
}

/// Whether `value` is typed words, and which fact decided: every piece of it (split at
/// characters that are no letter or digit, at changes of case, and between letters and
/// digits) is a number, a word of `own` (the name that holds it, its scheme, its host: any
/// case, wherever it stands in the value), an English word, or a run of one case that spells
/// English words of three letters or more end to end. At least one piece is a word of three
/// letters or more, and there are two words or more unless they are all the name's own (one
/// word and a number, `hunter2`, is how people pick real passwords); one-letter pieces (`x`, the `B` of `aB3`) are no words, so random keys
/// are not. A value of hex digits only is never words.
pub(crate) fn typed(value: &str, own: &[&str]) -> Option<Typed> {
    let bytes = value.as_bytes();
    if bytes.is_empty() || bytes.len() > 96 {
        return None;
    }
    if bytes.iter().all(u8::is_ascii_hexdigit) && bytes.iter().any(u8::is_ascii_digit) {
        return None;
    }
    // The bytes a word of `own` covers, found case-insensitively.
    let lower = value.to_ascii_lowercase();
    let mut covered = vec![false; bytes.len()];
    for word in own {
        let word = word.to_ascii_lowercase();
        if word.len() < 3 {
            continue;
        }
        for (at, _) in lower.match_indices(word.as_str()) {
            // Inside a word of its own (`auth` in `oauth`), the word stands whole.
            let from = lower[..at]
                .char_indices()
                .rev()
                .find(|(_, c)| !c.is_ascii_alphabetic())
                .map_or(0, |(i, c)| i + c.len_utf8());
            let to = lower[at..]
                .find(|c: char| !c.is_ascii_alphabetic())
                .map_or(lower.len(), |i| at + i);
            if to - from > word.len() && is_word(&lower[from..to]) {
                continue;
            }
            covered[at..at + word.len()]
                .iter_mut()
                .for_each(|c| *c = true);
        }
    }
    let mut own_only = true;
    let mut long_word = false;
    let mut any = false;
    let mut count = 0;
    for (start, end) in pieces(bytes, &covered) {
        let piece = &lower[start..end];
        if covered[start] {
            any = true;
            long_word |= piece.len() >= 3;
            count += 1;
            continue;
        }
        if piece.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // An acronym set apart by spaces (`RSA Private Key`, a spec's stand-in for a key):
        // capitals alone, at most five, in a value with a space. Like a number, it neither
        // makes nor breaks a value of words: no random key holds a space.
        let acronym = (2..=5).contains(&piece.len())
            && (start == 0 || bytes[start - 1] == b' ')
            && (end == bytes.len() || bytes[end] == b' ')
            && bytes.contains(&b' ')
            && value[start..end].bytes().all(|b| b.is_ascii_uppercase());
        if acronym {
            continue;
        }
        own_only = false;
        any = true;
        if piece.len() == 1 {
            // A tier or size after two words (`ManagedDiskS4`, `StandardTierP2`): one letter
            // and the number that ends the value. A random key would have to be dictionary
            // words up to its last three characters.
            let tier = count >= 2
                && long_word
                && bytes[start].is_ascii_alphabetic()
                && end < bytes.len()
                && bytes[end..].iter().all(u8::is_ascii_digit);
            if tier {
                continue;
            }
            return None;
        }
        // In a sentence (pieces a space sets apart: `My bearer token is safe`, R vcr's way
        // of filtering a header), a two-letter word of the list counts: no random key holds
        // a space, so its pieces of two letters are never set apart by one.
        let spelled_out = piece.len() == 2
            && (start == 0 || bytes[start - 1] == b' ')
            && (end == bytes.len() || bytes[end] == b' ')
            && bytes.contains(&b' ');
        let word =
            (piece.len() >= 3 || TEST_VOCABULARY.contains(&piece) || spelled_out) && is_word(piece);
        let glued = || {
            let one_case = value[start..end].bytes().all(|b| b.is_ascii_lowercase())
                || value[start..end].bytes().all(|b| b.is_ascii_uppercase());
            one_case && piece.len() >= 6 && spells_words(piece)
        };
        if word {
            count += 1;
        } else if glued() {
            count += 2;
        } else {
            return None;
        }
        long_word |= piece.len() >= 3;
    }
    // One word and a number (`hunter2`) is how people pick real passwords; two words or
    // more (`TempPassword123!`), or the name's own words, are how tests write them.
    if !any || !long_word || (count < 2 && !own_only) {
        return None;
    }
    Some(if own_only {
        Typed::OwnName
    } else {
        Typed::Words
    })
}

/// The pieces of a value, as byte ranges: letters or digits, split at every other
/// character, between letters and digits, before an upper-case letter that follows a
/// lower-case one, and before the last of a run of capitals that a lower-case letter follows
/// (`APIToken` is `API`, `Token`); a run that `covered` marks is a piece of its own.
fn pieces(bytes: &[u8], covered: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for i in 0..=bytes.len() {
        let b = bytes.get(i).copied();
        let breaks = match (start, b) {
            (_, None) => true,
            (_, Some(b)) if !b.is_ascii_alphanumeric() => true,
            (None, _) => false,
            (Some(_), Some(b)) => {
                let prev = bytes[i - 1];
                covered[i] != covered[i - 1]
                    || prev.is_ascii_digit() != b.is_ascii_digit()
                    || (!covered[i]
                        && (prev.is_ascii_lowercase() && b.is_ascii_uppercase()
                            || prev.is_ascii_uppercase()
                                && b.is_ascii_uppercase()
                                && bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase)))
            }
        };
        if breaks && let Some(s) = start.take() {
            out.push((s, i));
        }
        if b.is_some_and(|b| b.is_ascii_alphanumeric()) && start.is_none() {
            start = Some(i);
        }
    }
    out
}

/// Whether lower-case `piece` is English words of three letters or more (or of the test
/// vocabulary) end to end: `correcthorsebatterystaple`, `mysecret`.
fn spells_words(piece: &str) -> bool {
    let n = piece.len();
    let mut reachable = vec![false; n + 1];
    reachable[0] = true;
    for i in 0..n {
        if !reachable[i] {
            continue;
        }
        for j in i + 2..=n.min(i + 24) {
            let word = &piece[i..j];
            if (word.len() >= 3 || TEST_VOCABULARY.contains(&word)) && is_word(word) {
                reachable[j] = true;
            }
        }
    }
    reachable[n]
}

/// The words of a name (`TNS_SESSIONID`: `tns`, `sessionid`, `session`; `X-Api-Key`:
/// `api`, `key`), for [`typed`]'s `own`: its pieces and, where a piece glues words, those.
pub(crate) fn name_words(name: &str) -> Vec<String> {
    let bytes = name.as_bytes();
    let covered = vec![false; bytes.len()];
    let mut out = Vec::new();
    for (start, end) in pieces(bytes, &covered) {
        let piece = name[start..end].to_ascii_lowercase();
        for word in [
            "session", "token", "secret", "password", "key", "auth", "id",
        ] {
            if piece.len() > word.len() && piece.contains(word) {
                out.push(word.to_owned());
            }
        }
        out.push(piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_holds_common_words() {
        let words = list();
        assert!(words.len() > 30_000, "{}", words.len());
        assert!(words.windows(2).all(|w| w[0] < w[1]), "words.txt is sorted");
        for word in ["token", "secret", "refresh", "access", "horse", "battery"] {
            assert!(is_word(word), "{word}");
        }
    }

    #[test]
    fn typed_values_are_words_and_random_ones_are_not() {
        let own = |name: &str| name_words(name);
        let typed = |value: &str, own: &Vec<String>| {
            let own: Vec<&str> = own.iter().map(String::as_str).collect();
            typed(value, &own)
        };
        for (value, name, why) in [
            ("test-refresh-token", "token", Typed::Words),
            ("test-access-token", "token", Typed::Words),
            ("myAPIToken", "Authorization", Typed::Words),
            ("SESSIONID", "TNS_SESSIONID", Typed::OwnName),
            ("correcthorsebatterystaple", "password", Typed::Words),
            ("secret_from_writeonly_attr", "client_secret", Typed::Words),
            ("mySecret", "client_secret", Typed::Words),
            ("TempPassword123!", "password", Typed::Words),
            ("oauth-test-client-secret", "client_secret", Typed::Words),
            // R vcr projects filter a header with a sentence about it.
            ("My bearer token is safe", "Authorization", Typed::Words),
            ("My oauth token is safe", "Authorization", Typed::Words),
            // An acronym among words, set apart by spaces.
            ("RSA Private Key", "private_key", Typed::OwnName),
            ("the RSA key of CI", "password", Typed::Words),
            // A product's tier after its words (an Azure SKU under `_skuToken`).
            ("ManagedDiskS4", "_skuToken", Typed::Words),
        ] {
            assert_eq!(typed(value, &own(name)), Some(why), "{value}");
        }
        for value in [
            "Kq7vZ2mXw9Lr4Tb8Yc1N",
            "fa42772b3c9d4e8f",
            "deadbeefcafe1234",
            "x9",
            "12345678",
            "BQBjAiSqZk3Lm9",
            "hunter2x",
            "hunter2",
            // Two letters glued to others are no word, sentence or not.
            "ab is Kq7vZ2mXw9",
            // Capitals with no word beside them, or glued to others.
            "QXZ WVTK",
            "RSAKq7vZ2mXw9 key",
            "isKq7vZ2mXw9Lr4T",
            // One letter and a number end a value only after two words.
            "DiskS4",
            "ManagedS4x",
            "ManagedDiskS4Q",
            "ManagedQDisk4",
        ] {
            assert_eq!(typed(value, &own("password")), None, "{value}");
        }
        // A word of the name right after a character of more than one byte. Regression
        // (fuzzing): the byte after it was taken for where a word starts, inside the
        // character, and slicing there panicked.
        assert_eq!(typed("\u{fffd}countoken:tok", &own("tokenCount")), None);
        assert_eq!(
            typed("æcountoken", &own("tokenCount")),
            Some(Typed::OwnName)
        );
    }

    /// Random keys are never typed words: of 20,000 random 48-character `sk-proj-` bodies
    /// and 20,000 random 12-letter lower-case runs, none.
    #[test]
    fn random_values_are_not_words() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let alnum = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        for _ in 0..20_000 {
            let key: String = (0..48).map(|_| alnum[next(62)] as char).collect();
            assert_eq!(typed(&key, &[]), None, "{key}");
            let run: String = (0..12).map(|_| (b'a' + next(26) as u8) as char).collect();
            assert_eq!(typed(&run, &[]), None, "{run}");
        }
    }
}
