//! Word-at-a-time scanning for the bytes that end a plain run inside a JSON string.
//!
//! String contents are most of a cassette's bytes. Checking them eight at a time for the
//! three things that matter (a quote, a backslash, a control character) is what lets the
//! parser and the writer keep up with a plain text search.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `word` is a quote, a backslash or below 0x20.
#[inline]
fn has_special(word: u64) -> bool {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | quote | backslash) & HIGHS != 0
}

/// The index of the first byte at or after `from` that is a quote, a backslash or a control
/// character; `bytes.len()` if there is none.
#[inline]
pub(crate) fn plain_run_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        if has_special(word) {
            break;
        }
        from += 8;
    }
    while let Some(&b) = bytes.get(from) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return from;
        }
        from += 1;
    }
    from
}

/// The index of the first byte at or after `from` that is not a space.
#[inline]
pub(crate) fn space_run_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let word =
            u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ (ONES * u64::from(b' '));
        if word != 0 {
            return from + (word.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    while bytes.get(from) == Some(&b' ') {
        from += 1;
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_special_byte_anywhere() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 20];
                bytes[at] = special;
                assert_eq!(plain_run_end(&bytes, 0), at, "byte {special:#x} at {at}");
            }
        }
        // Bytes that look close but are plain: space, DEL, UTF-8 continuation bytes.
        let plain = "  \u{7f}é日😀 ~!#".as_bytes();
        assert_eq!(plain_run_end(plain, 0), plain.len());
        assert_eq!(plain_run_end(b"abc\"", 3), 3);
    }

    #[test]
    fn counts_spaces() {
        for n in 0..20 {
            let mut bytes = vec![b' '; n];
            bytes.extend_from_slice(b"x  ");
            assert_eq!(space_run_end(&bytes, 0), n);
        }
        assert_eq!(space_run_end(b"    ", 1), 4);
    }
}
