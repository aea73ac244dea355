//! Word-at-a-time scanning for the bytes that end a plain run inside a JSON string.
//!
//! String contents are most of a cassette's bytes. Checking them eight at a time for the
//! three things that matter (a quote, a backslash, a control character) is what lets the
//! parser and the writer keep up with a plain text search.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that is a quote, a backslash or below 0x20, and maybe
/// of bytes after such a byte (a borrow carries upwards only from a byte that is one): the
/// lowest bit set is always the first such byte in memory order (little-endian).
#[inline]
fn special_mask(word: u64) -> u64 {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | quote | backslash) & HIGHS
}

/// The index of the first byte at or after `from` that is a quote, a backslash or a control
/// character; `bytes.len()` if there is none.
#[inline]
pub(crate) fn plain_run_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let mask = special_mask(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        if mask != 0 {
            return from + (mask.trailing_zeros() / 8) as usize;
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

    /// The word-at-a-time answer is the byte-at-a-time one, from every start, over buffers
    /// mixing specials with their neighbours (space, `!`, `#`, `[`, `]`, bytes with the high
    /// bit set), where borrows between bytes flag bytes after the first special too.
    #[test]
    fn agrees_with_a_byte_at_a_time_search() {
        let naive = |bytes: &[u8], from: usize| {
            (from..bytes.len())
                .find(|&i| matches!(bytes[i], b'"' | b'\\' | 0..0x20))
                .unwrap_or(bytes.len())
        };
        let alphabet = [
            b'a', b' ', b'!', b'#', b'"', b'\\', b'[', b']', 0x00, 0x1f, b'\n', 0x7f, 0x80, 0xa2,
            0xdc, 0xff,
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let len = (state % 24) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Mostly plain bytes, so that runs cross whole words.
                    match state % 8 {
                        0..=4 => b'a',
                        _ => alphabet[(state >> 8) as usize % alphabet.len()],
                    }
                })
                .collect();
            for from in 0..=len {
                assert_eq!(
                    plain_run_end(&bytes, from),
                    naive(&bytes, from),
                    "{bytes:?} from {from}"
                );
            }
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
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
