//! `application/x-www-form-urlencoded` bodies (and URL query strings, which are the same).
//!
//! Read as browsers and servers read them (the WHATWG URL standard's
//! `application/x-www-form-urlencoded` parser): pairs split on `&`, name and value on the
//! first `=`, `+` is a space, `%XX` a byte, and an escape that is not one (`%zz`, a lone `%`)
//! is kept as written; bytes that are not UTF-8 become U+FFFD.

use std::borrow::Cow;

use super::MAX_ITEMS;

/// The pairs of a form body or query string, in order, decoded; empty pieces (`a=1&&b=2`)
/// are skipped. Past 65,536 pairs, the rest is one last pair with an empty name and
/// the rest, undecoded, as its value (still linted, never dropped).
pub fn parse_form(text: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if pairs.len() == MAX_ITEMS - 1 {
            pairs.push((String::new(), rest.to_owned()));
            break;
        }
        let (piece, after) = rest.split_once('&').unwrap_or((rest, ""));
        rest = after;
        if piece.is_empty() {
            continue;
        }
        let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
        pairs.push((unescape(name).into_owned(), unescape(value).into_owned()));
    }
    pairs
}

/// One name or value with `+` and `%XX` decoded; borrowed when there is nothing to decode.
pub(super) fn unescape(text: &str) -> Cow<'_, str> {
    if !text.bytes().any(|b| b == b'+' || b == b'%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = |b: u8| char::from(b).to_digit(16);
                match (
                    bytes.get(i + 1).copied().and_then(hex),
                    bytes.get(i + 2).copied().and_then(hex),
                ) {
                    (Some(hi), Some(lo)) => {
                        out.push((hi * 16 + lo) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    match String::from_utf8(out) {
        Ok(text) => Cow::Owned(text),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// Whether a body with no telling type looks like a form: at least one `name=value`, every
/// piece a name of URL-safe characters (and `%XX`, `[]` for PHP-style arrays) with an
/// optional value, nothing that would not survive in a URL (whitespace, quotes, `<`).
pub(super) fn looks_like(text: &str) -> bool {
    let mut has_pair = false;
    for piece in text.trim().split('&') {
        let (name, value) = match piece.split_once('=') {
            Some((name, value)) => {
                has_pair = true;
                (name, value)
            }
            None => (piece, ""),
        };
        let name_ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~%+[]*".contains(&b));
        let value_ok = value
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"\"'<>\\^`{|}".contains(&b) && b != b'&');
        if !(name_ok && value_ok || piece.is_empty()) {
            return false;
        }
    }
    has_pair
}
