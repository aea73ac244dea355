//! Text a body holds in a layer its bytes do not show (issue 41): a JSON string that is
//! base64 of text (GitHub's contents API answers `{"encoding": "base64", "content": ...}`,
//! with `\n` every 60 characters), base64 of base64, gzip inside base64, and a key whose
//! first characters a JSON encoder escaped (`"\u0073k-proj-..."`). A scan of the bytes sees
//! none of them; the judge scans what this module returns beside them.
//!
//! Everything here is linear in the body and bounded: runs shorter than [`MIN_RUN`] are not
//! decoded, a decoded layer must be text (valid UTF-8, almost no control characters) to be
//! kept or decoded further, nesting stops at [`MAX_DEPTH`], and gzip inflates at most
//! [`MAX_INFLATED`] bytes per run.

use std::io::Read;

use base64::Engine;

/// The shortest base64 run that is decoded: 18 bytes of text, shorter than any key worth a
/// finding once the layer is undone.
const MIN_RUN: usize = 24;
/// Layers undone in one run: base64 of base64 of gzip is three.
const MAX_DEPTH: usize = 3;
/// What gzip inside base64 may inflate to, all runs of one body together: a body of many
/// small gzip runs is no bomb either.
pub const MAX_INFLATED: u64 = 8 << 20;

/// The text hidden in `bytes` (a body as stored), one piece a line; empty when there is
/// none. See the module documentation.
pub fn hidden_text(bytes: &[u8]) -> String {
    hidden(bytes).0
}

/// [`hidden_text`], and whether gzip in it inflated to [`MAX_INFLATED`], where reading
/// stopped: what lies past it was not read, which the judge must say (issue 41).
pub fn hidden(bytes: &[u8]) -> (String, bool) {
    let mut out = String::new();
    let mut budget = MAX_INFLATED;
    hidden_in(bytes, MAX_DEPTH, &mut budget, &mut out);
    escaped_runs(bytes, &mut out);
    (out, budget == 0)
}

fn hidden_in(bytes: &[u8], depth: usize, budget: &mut u64, out: &mut String) {
    if depth == 0 {
        return;
    }
    let mut i = 0;
    while i < bytes.len() {
        if !is_base64_byte(bytes[i]) {
            i += 1;
            continue;
        }
        // A run of base64, its lines split by real line breaks or JSON's `\n` escapes.
        let start = i;
        let mut count = 0;
        let mut split = false;
        while i < bytes.len() {
            let b = bytes[i];
            if is_base64_byte(b) {
                count += 1;
                i += 1;
            } else if b == b'\n' || b == b'\r' {
                split = true;
                i += 1;
            } else if b == b'\\' && matches!(bytes.get(i + 1), Some(b'n' | b'r')) {
                split = true;
                i += 2;
            } else {
                break;
            }
        }
        if count < MIN_RUN || !may_be_text(&bytes[start..i]) {
            continue;
        }
        let run: Vec<u8> = if split {
            without_breaks(&bytes[start..i])
        } else {
            bytes[start..i].to_vec()
        };
        if let Some(text) = decode_run(&run, budget) {
            out.push_str(&text);
            out.push('\n');
            hidden_in(text.as_bytes(), depth - 1, budget, out);
        }
    }
}

/// Whether a run's first 16 base64 characters decode to the start of text or of gzip: most
/// long runs are ids, digests and binary data, and are not decoded whole.
fn may_be_text(run: &[u8]) -> bool {
    let head: Vec<u8> = without_breaks(&run[..run.len().min(64)])
        .into_iter()
        .filter(|&b| b != b'=')
        .take(16)
        .map(|b| match b {
            b'-' => b'+',
            b'_' => b'/',
            b => b,
        })
        .collect();
    let Ok(decoded) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(&head) else {
        return false;
    };
    super::is_gzip(&decoded)
        || decoded
            .iter()
            .all(|&b| b >= 0x20 && b != 0x7f || matches!(b, b'\n' | b'\r' | b'\t'))
}

/// A base64 run's bytes as text: base64 (standard or URL-safe, padded or not), then gzip
/// if its magic bytes say so; `None` unless the result is text.
fn decode_run(run: &[u8], budget: &mut u64) -> Option<String> {
    let run = run
        .strip_suffix(b"==")
        .or_else(|| run.strip_suffix(b"="))
        .unwrap_or(run);
    if run.contains(&b'=') {
        return None;
    }
    let url_safe = run.iter().any(|b| matches!(b, b'-' | b'_'));
    if url_safe && run.iter().any(|b| matches!(b, b'+' | b'/')) {
        return None;
    }
    let engine = if url_safe {
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        &base64::engine::general_purpose::STANDARD_NO_PAD
    };
    let mut decoded = engine.decode(run).ok()?;
    if super::is_gzip(&decoded) {
        let mut inflated = Vec::new();
        flate2::read::GzDecoder::new(&decoded[..])
            .take(*budget)
            .read_to_end(&mut inflated)
            .ok()?;
        *budget -= inflated.len() as u64;
        decoded = inflated;
    }
    let text = String::from_utf8(decoded).ok()?;
    is_text(&text).then_some(text)
}

/// Whether decoded bytes read as text: 12 characters or more, and no control character but
/// line breaks and tabs in more than one in fifty.
fn is_text(text: &str) -> bool {
    let total = text.chars().count();
    let control = text
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        .count();
    total >= 12 && control * 50 <= total
}

/// A run's base64 characters, without its line breaks (real ones and JSON's `\n`).
fn without_breaks(run: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(run.len());
    let mut i = 0;
    while i < run.len() {
        match run[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => i += 1,
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

fn is_base64_byte(b: u8) -> bool {
    BASE64_BYTES[usize::from(b)]
}

/// The bytes of standard and URL-safe base64, padding included, as a table: every byte of
/// every body is looked up (issue 44).
const BASE64_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        table[i] = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_');
        i += 1;
    }
    table
};

/// Each run of token characters that holds a JSON `\u00XX` escape of a printable ASCII
/// character (`\u0073k-proj-...`), with its escapes undone.
fn escaped_runs(bytes: &[u8], out: &mut String) {
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'+' | b'/');
    let mut from = 0;
    while let Some(found) = memchr::memmem::find(&bytes[from..], b"\\u00") {
        let at = from + found;
        if escaped_ascii(bytes, at).is_none() {
            from = at + 4;
            continue;
        }
        // Back to the run's start (over other escapes too), then forward to its end.
        let mut start = at;
        while start > 0 {
            if token(bytes[start - 1]) {
                start -= 1;
            } else if start >= 6 && escaped_ascii(bytes, start - 6).is_some() {
                start -= 6;
            } else {
                break;
            }
        }
        let mut end = at;
        let mut run = String::new();
        let mut i = start;
        while i < bytes.len() {
            if let Some(c) = escaped_ascii(bytes, i) {
                run.push(c);
                i += 6;
            } else if token(bytes[i]) {
                run.push(bytes[i] as char);
                i += 1;
            } else {
                break;
            }
            end = i;
        }
        if run.len() >= 8 {
            out.push_str(&run);
            out.push('\n');
        }
        from = end.max(at + 6);
    }
}

/// The printable ASCII character a `\u00XX` escape at `at` stands for.
fn escaped_ascii(bytes: &[u8], at: usize) -> Option<char> {
    let escape = bytes.get(at..at + 6)?;
    if !escape.starts_with(b"\\u00") {
        return None;
    }
    let hex = std::str::from_utf8(&escape[4..]).ok()?;
    let code = u8::from_str_radix(hex, 16).ok()?;
    (0x20..0x7f).contains(&code).then_some(code as char)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-Zq8vN2kL5mR7pT3wYc1Nd5FhXa4Wq8vN2kL5mR7pT3wYc1Nd";

    #[test]
    fn base64_of_text_in_json_is_read_with_its_line_breaks() {
        let content = base64::engine::general_purpose::STANDARD.encode(format!(
            "import os\nOPENAI_API_KEY = \"{KEY}\"\nprint('hi')\n"
        ));
        let wrapped: Vec<String> = content
            .as_bytes()
            .chunks(60)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        let body = format!(
            r#"{{"name": "config.py", "encoding": "base64", "content": "{}"}}"#,
            wrapped.join("\\n")
        );
        assert!(hidden_text(body.as_bytes()).contains(KEY));
    }

    #[test]
    fn base64_of_base64_and_gzip_inside_base64_are_undone() {
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let twice = b64(b64(format!("key: {KEY}").as_bytes()).as_bytes());
        assert!(hidden_text(format!("{{\"data\": \"{twice}\"}}").as_bytes()).contains(KEY));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, format!("{{\"api_key\": \"{KEY}\"}}").as_bytes())
            .unwrap();
        let zipped = b64(&gz.finish().unwrap());
        assert!(hidden_text(format!("{{\"blob\": \"{zipped}\"}}").as_bytes()).contains(KEY));
    }

    /// gzip inside base64 that inflates past the cap is read up to it, and that is said.
    #[test]
    fn gzip_past_the_cap_is_said() {
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let zipped = |size: usize| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            std::io::Write::write_all(&mut gz, &vec![b'a'; size]).unwrap();
            b64(&gz.finish().unwrap())
        };
        let (_, cut) = hidden(format!("{{\"blob\": \"{}\"}}", zipped(9 << 20)).as_bytes());
        assert!(cut);
        let (text, cut) = hidden(format!("{{\"blob\": \"{}\"}}", zipped(4096)).as_bytes());
        assert!(!cut && text.len() > 4000);
    }

    #[test]
    fn an_escaped_first_character_is_undone() {
        let body = format!("{{\"note\": \"\\u0073{}\"}}", &KEY[1..]);
        assert!(!body.contains(KEY));
        assert!(hidden_text(body.as_bytes()).contains(KEY));
    }

    #[test]
    fn random_bytes_ids_and_plain_text_hide_nothing() {
        // Random bytes in base64, hex digests, prose, escapes of non-ASCII letters.
        let random = base64::engine::general_purpose::STANDARD.encode(
            (0..64u32)
                .map(|i| (i * 97 + 13) as u8 % 251)
                .collect::<Vec<u8>>(),
        );
        for body in [
            format!("{{\"sig\": \"{random}\"}}"),
            r#"{"sha": "3f786850e387550fdab836ed7e6dc881de23001b"}"#.to_owned(),
            "{\"text\": \"caf\\u00e9 au lait, nothing else here\"}".to_owned(),
            "plain words in a sentence with no layers".to_owned(),
        ] {
            assert_eq!(hidden_text(body.as_bytes()), "", "{body}");
        }
    }
}
