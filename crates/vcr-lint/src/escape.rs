//! Escapes are boundaries: what the detectors' word checks see around a backslash escape.
//!
//! The scanner reads files as written, so inside a JSON string (or a YAML double-quoted one) a
//! newline is the two bytes `\` `n`, a tab `\` `t`, an `=` perhaps `\u003d`. Read naively, the
//! escape's letters glue onto the next word: `\nAWS_SECRET_ACCESS_KEY=...` reads as
//! `nAWS_SECRET_ACCESS_KEY`, `\n/home/ann` as a path inside a word, and the detectors' word
//! checks reject them. Decoding the strings first would move every offset (and a scanner of raw
//! text cassettes does not know where strings are, or how many times they were encoded), so the
//! bytes are left alone and the checks ask this module instead: an escape ends a word, before
//! and after it, at every level of encoding (`\\n` is a newline inside JSON inside JSON).
//!
//! A doubled backslash is also how JSON writes a Windows path (`C:\\Users\\nina`), where the
//! letter after it starts a folder name. So only an escape whose backslash is not itself escaped
//! (an odd run) keeps a match from starting on its letters; every escape, whatever its run,
//! still ends the word before the next byte.

/// How many bytes follow the backslash of the escape that begins at `bytes[at]` (the byte
/// after the backslash): JSON's `\b \f \n \r \t \uXXXX` and YAML's `\0 \a \e \v \N \L \P \_
/// \xXX \UXXXXXXXX`. Quotes, slashes and backslashes are not words anyway.
fn tail_len(bytes: &[u8], at: usize) -> Option<usize> {
    let hex = |n: usize| {
        bytes
            .get(at + 1..at + 1 + n)
            .is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
    };
    match *bytes.get(at)? {
        b'b' | b'f' | b'n' | b'r' | b't' | b'0' | b'a' | b'e' | b'v' | b'N' | b'L' | b'P'
        | b'_' => Some(1),
        b'u' if hex(4) => Some(5),
        b'x' if hex(2) => Some(3),
        b'U' if hex(8) => Some(9),
        _ => None,
    }
}

/// The tail lengths `tail_len` can return.
const TAIL_LENGTHS: [usize; 4] = [1, 3, 5, 9];

/// Whether the bytes before `at` end with an escape (at any level of encoding): a word that
/// starts at `at` starts there, whatever letter the escape ends with.
pub fn ends_escape(bytes: &[u8], at: usize) -> bool {
    TAIL_LENGTHS.iter().any(|&len| {
        at.checked_sub(len + 1)
            .is_some_and(|slash| bytes[slash] == b'\\' && tail_len(bytes, slash + 1) == Some(len))
    })
}

/// Whether `bytes[at]` is one of the letters or digits of an escape whose backslash is not
/// itself escaped (`n` of `\n`, `0` of `\u0041`): no match starts there.
pub(super) fn inside_escape(bytes: &[u8], at: usize) -> bool {
    (1..=at.min(9)).any(|back| {
        let tail = at - back + 1;
        bytes[tail - 1] == b'\\'
            && tail_len(bytes, tail).is_some_and(|len| back <= len)
            && backslashes_before(bytes, tail) % 2 == 1
    })
}

/// The byte before `at` as a word boundary check sees it: `None` at the start of the bytes or
/// right after an escape, which ends a word as a space would.
pub(super) fn byte_before(bytes: &[u8], at: usize) -> Option<u8> {
    let before = bytes[..at].last().copied()?;
    (!ends_escape(bytes, at)).then_some(before)
}

/// Whether an escaped line break (`\n`, `\r`, `\u000a`, `\u000d`, at any level) begins at
/// `at`; returns its length with its backslashes.
pub(super) fn line_break_at(bytes: &[u8], at: usize) -> Option<usize> {
    let slashes = bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|&&b| b == b'\\')
        .count();
    let rest = &bytes[at + slashes..];
    if slashes == 0 {
        return None;
    }
    if rest.starts_with(b"n") || rest.starts_with(b"r") {
        return Some(slashes + 1);
    }
    let u = rest.get(..5)?;
    (u[..4].eq_ignore_ascii_case(b"u000") && matches!(u[4], b'a' | b'A' | b'd' | b'D'))
        .then_some(slashes + 5)
}

/// The escaped quote (`\u0022` or `\u0027`, behind its backslashes) that begins at `at`, as its
/// length and the quote it stands for.
pub(super) fn escaped_quote_at(bytes: &[u8], at: usize) -> Option<(usize, u8)> {
    let slashes = bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|&&b| b == b'\\')
        .count();
    let u = bytes.get(at + slashes..at + slashes + 5)?;
    if slashes == 0 || !u.starts_with(b"u002") {
        return None;
    }
    match u[4] {
        b'2' => Some((slashes + 5, b'"')),
        b'7' => Some((slashes + 5, b'\'')),
        _ => None,
    }
}

/// How many backslashes end just before `at`.
pub(super) fn backslashes_before(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(text: &str, at: usize, ends: bool, inside: bool) {
        let bytes = text.as_bytes();
        assert_eq!(ends_escape(bytes, at), ends, "ends_escape({text:?}, {at})");
        assert_eq!(
            inside_escape(bytes, at),
            inside,
            "inside_escape({text:?}, {at})"
        );
    }

    #[test]
    fn escapes_end_words_and_hold_no_match_start() {
        // text, position, an escape ends before it, it is inside an escape
        case(r"\nAWS", 2, true, false);
        case(r"\nAWS", 1, false, true);
        case(r"\tx", 2, true, false);
        case(r"a\u0020b", 7, true, false);
        case(r"a\u0020b", 3, false, true);
        case(r"a\u0020b", 6, false, true);
        case(r"a\u00e9b", 7, true, false);
        case(r"\x41B", 4, true, false);
        case(r"\U0001F600x", 10, true, false);
        case(r"\ex", 2, true, false);
        // JSON inside JSON: a newline is `\\n`, and ends a word; but a doubled backslash is
        // also a Windows path's separator, whose next letter may start a match.
        case(r"\\nAWS", 3, true, false);
        case(r"C:\\nina", 4, false, false);
        case(r"\\\nx", 4, true, false);
        case(r"\\\nx", 3, false, true);
        // Not escapes: a `\u` without four hex digits, a letter that escapes nothing, text
        // with no backslash.
        case(r"\users", 2, false, false);
        case(r"\Users", 2, false, false);
        case(r"\qx", 2, false, false);
        case("nAWS", 1, false, false);
        case("", 0, false, false);
        case(r"\", 1, false, false);
    }

    #[test]
    fn the_byte_before_an_escape_is_a_boundary() {
        assert_eq!(byte_before(br"x\nA", 3), None);
        assert_eq!(byte_before(b"xnA", 2), Some(b'n'));
        assert_eq!(byte_before(b"A", 0), None);
    }

    #[test]
    fn escaped_line_breaks_and_quotes_are_read_whole() {
        assert_eq!(line_break_at(br"\nX", 0), Some(2));
        assert_eq!(line_break_at(br"\\rX", 0), Some(3));
        assert_eq!(line_break_at(br"\u000aX", 0), Some(6));
        assert_eq!(line_break_at(br"\u000DX", 0), Some(6));
        assert_eq!(line_break_at(br"\tX", 0), None);
        assert_eq!(line_break_at(b"nX", 0), None);
        assert_eq!(escaped_quote_at(br"\u0022a", 0), Some((6, b'"')));
        assert_eq!(escaped_quote_at(br"\\u0027a", 0), Some((7, b'\'')));
        assert_eq!(escaped_quote_at(br"\u0023a", 0), None);
        assert_eq!(escaped_quote_at(b"u0022a", 0), None);
        assert_eq!(escaped_quote_at(br"\u00", 0), None);
    }
}
