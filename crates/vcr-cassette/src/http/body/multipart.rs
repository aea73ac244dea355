//! `multipart/*` bodies (RFC 2046, RFC 7578): parts between `--boundary` lines, each with
//! its headers and its body, decoded as a body of its own.
//!
//! Lenient where recorders are: a delimiter may follow LF as well as CRLF (YAML writers and
//! editors turn one into the other), and a body without its closing delimiter (cut short)
//! keeps its last part. Bounded where crafted bodies are not: one forward scan per level for
//! the delimiter (no backtracking), at most [`MAX_PARTS`] parts, at most [`MAX_HEADERS`]
//! headers a part, and nesting stops at [`MAX_DEPTH`](super::MAX_DEPTH).

use memchr::memmem::Finder;

use super::encoding::Budget;
use super::{MAX_PARTS, Media, Meta, Part, decode_with};

/// The longest boundary accepted: RFC 2046 allows 70 characters; some clients write more.
const MAX_BOUNDARY: usize = 200;

/// The most headers a part has before its head is taken as part of its body.
const MAX_HEADERS: usize = 64;

/// The boundary of a body whose type was not recorded: its first line is `--boundary`, and
/// the closing `--boundary--` is in it.
pub(super) fn sniff_boundary(bytes: &[u8]) -> Option<&str> {
    let line_end = memchr::memchr(b'\n', bytes)?;
    let line = bytes[..line_end]
        .strip_suffix(b"\r")
        .unwrap_or(&bytes[..line_end]);
    let boundary = line.strip_prefix(b"--")?.trim_ascii_end();
    let valid = !boundary.is_empty()
        && boundary.len() <= MAX_BOUNDARY
        && boundary.iter().all(|b| b.is_ascii_graphic() || *b == b' ');
    if !valid {
        return None;
    }
    let closing = [b"\n--", boundary, b"--"].concat();
    memchr::memmem::find(&bytes[line_end..], &closing)?;
    std::str::from_utf8(boundary).ok()
}

/// The parts of `bytes` delimited by `boundary`, each decoded one level deeper than `depth`;
/// `None` when no part is found (the body is then read as something else).
pub(super) fn parse(
    bytes: &[u8],
    boundary: &[u8],
    depth: usize,
    budget: &mut Budget,
) -> Option<Vec<Part>> {
    if boundary.is_empty() || boundary.len() > MAX_BOUNDARY {
        return None;
    }
    let delimiter = [b"--", boundary].concat();
    let finder = Finder::new(&delimiter);
    // A delimiter counts only as a line of its own: at the start of a line, then `--` (the
    // closing one) or only spaces to the line's end (`--b10` is not a delimiter of `b1`).
    let next = |from: usize| {
        finder
            .find_iter(&bytes[from..])
            .map(|i| from + i)
            .find(|&i| {
                let rest = &bytes[i + delimiter.len()..];
                let padding = rest
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                (i == 0 || bytes[i - 1] == b'\n')
                    && (rest.starts_with(b"--")
                        || matches!(rest[padding..], [] | [b'\n', ..] | [b'\r', b'\n', ..]))
            })
    };
    let mut at = next(0)?;
    let mut parts = Vec::new();
    loop {
        let after = at + delimiter.len();
        if bytes[after..].starts_with(b"--") {
            break;
        }
        let Some(start) = memchr::memchr(b'\n', &bytes[after..]).map(|i| after + i + 1) else {
            break;
        };
        let following = if parts.len() == MAX_PARTS - 1 {
            None
        } else {
            next(start)
        };
        let end = following.map_or(bytes.len(), |n| {
            let line_break = if bytes[..n].ends_with(b"\r\n") { 2 } else { 1 };
            n.saturating_sub(line_break).max(start)
        });
        parts.push(part(&bytes[start..end], depth, budget));
        match following {
            Some(n) => at = n,
            None => break,
        }
    }
    // Only a closing delimiter (or a crafted run of dashes): nothing to split, so text.
    (!parts.is_empty()).then_some(parts)
}

/// One part: its headers up to the first blank line, then its body decoded by them.
fn part(raw: &[u8], depth: usize, budget: &mut Budget) -> Part {
    let (head, body) = split_head(raw);
    let headers = head.map_or_else(Vec::new, headers);
    let (headers, body) = if headers.len() > MAX_HEADERS {
        (Vec::new(), raw)
    } else {
        (headers, body)
    };
    let name = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-disposition"))
        .and_then(|(_, v)| Media::parse(v).param("name").map(|n| n.into_owned()));
    let meta = Meta::new(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    // `Content-Transfer-Encoding: base64` (mail-like bodies, some SDKs' uploads): the part's
    // bytes are base64 of its body, which is decoded and named as a layer (`base64, json`),
    // so that a key inside is found and its place says so (issue 41). Decoding shrinks the
    // bytes: no budget is drawn.
    let transfer_base64 = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("content-transfer-encoding")
            && v.trim().eq_ignore_ascii_case("base64")
    });
    let body = match transfer_base64.then(|| base64_body(body)).flatten() {
        Some(decoded) => {
            let mut body = decode_with(&decoded, &meta, depth + 1, budget);
            body.layers.insert(0, BASE64);
            body
        }
        None => decode_with(body, &meta, depth + 1, budget),
    };
    Part {
        name,
        headers,
        body,
    }
}

/// The layer named for a part sent with `Content-Transfer-Encoding: base64`.
pub(super) const BASE64: &str = "base64";

/// The bytes a base64 part body stands for (its line breaks and spaces left out, padded or
/// not); `None` when it is not base64, and the part is then read as it is.
fn base64_body(body: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    let compact: Vec<u8> = body
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let unpadded = compact
        .strip_suffix(b"==")
        .or_else(|| compact.strip_suffix(b"="))
        .unwrap_or(&compact);
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(unpadded)
        .ok()
}

/// The head (headers) and body of a part: split at the first blank line; a part that starts
/// with one has no head; a part without one is all head when every line is a header, else
/// all body.
fn split_head(raw: &[u8]) -> (Option<&[u8]>, &[u8]) {
    if let Some(body) = raw
        .strip_prefix(b"\r\n")
        .or_else(|| raw.strip_prefix(b"\n"))
    {
        return (None, body);
    }
    let crlf = memchr::memmem::find(raw, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(raw, b"\n\n").map(|i| (i, i + 2));
    let blank = match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    };
    match blank {
        Some((head_end, body_start)) => (Some(&raw[..head_end]), &raw[body_start..]),
        None if raw.split(|&b| b == b'\n').all(is_header_line) => (Some(raw), &[]),
        None => (None, raw),
    }
}

/// Whether a line is `Name: value` (a token before the colon).
fn is_header_line(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match memchr::memchr(b':', line) {
        Some(colon) => {
            colon > 0
                && line[..colon]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(b))
        }
        None => line.is_empty(),
    }
}

/// The headers of a head, in order; a line starting with whitespace continues the one
/// before it. Text that is not UTF-8 is read lossily.
fn headers(head: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(head);
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
            if headers.len() > MAX_HEADERS {
                break;
            }
        }
    }
    headers
}
