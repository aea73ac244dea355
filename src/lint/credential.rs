//! The value after a credential key: `"Authorization": "Bearer ..."`, `password=...`,
//! HAR's `{"name": "x-api-key", "value": ...}`, `?token=...`. The detectors find the key; this
//! reads the value that follows (quoted at any level of escaping, a list's first item, a bare
//! word) and decides whether it is a credential.

use super::detectors::{self, Kind};
use super::placeholder::{self, is_placeholder_token, looks_like_credential, mask};
use super::{Hit, LeakFamily, find, lossy};

/// A credential key, HAR header or URL parameter: reads the value that follows and decides
/// whether it is a credential.
pub(super) fn credential(
    detector: &detectors::Detector,
    bytes: &[u8],
    start: usize,
    end: usize,
) -> Option<Hit> {
    let key_text = lossy(&bytes[start..end]);
    let key = credential_key_name(&key_text, detector.kind);
    let value = read_value(bytes, end, detector.kind)?;
    let raw = lossy(&bytes[value.start..value.end]);
    let text = raw.trim();
    if text.is_empty() || placeholder::is_placeholder_value(text) {
        return None;
    }
    // AWS Signature V4: the signature is bound to one request; the access key id is what
    // identifies the account.
    if text.starts_with("AWS4-HMAC-SHA256") {
        return sigv4_credential(detector, bytes, &value);
    }
    let (scheme, credential) = placeholder::split_scheme(text);
    if credential.len() < 4
        || placeholder::is_placeholder_value(credential)
        || is_placeholder_token(credential)
        || placeholder::is_public_key(credential)
    {
        return None;
    }
    let key_lower = key.to_ascii_lowercase();
    // `token` also names a token of text (logprobs): only a token-like value counts.
    if key_lower == "token" && (credential.len() < 16 || !placeholder::is_token_charset(credential))
    {
        return None;
    }
    let quoted = key_text.contains(['"', '\'']) || value.quoted || value.list_item;
    if detector.kind == Kind::CredentialKey
        && !quoted
        && !(looks_like_credential(scheme, credential) && placeholder::is_token_charset(credential))
    {
        return None;
    }
    if detector.kind == Kind::CredentialQuery && credential.len() < 8 {
        return None;
    }
    let masked = match scheme {
        Some(scheme) => format!("{scheme} {}", mask(credential)),
        None => mask(credential),
    };
    Some(Hit {
        detector: detector.name,
        label: format!("{} in `{key}`", detector.label),
        family: LeakFamily::Secret,
        temporary: false,
        start: value.start,
        end: value.end,
        text: raw,
        masked,
    })
}

/// The access key id of an AWS Signature V4 `Authorization` value, if it is a real one.
fn sigv4_credential(
    detector: &detectors::Detector,
    bytes: &[u8],
    value: &ValueSpan,
) -> Option<Hit> {
    // Offsets are counted in bytes: text that is not UTF-8 grows when made lossy.
    let raw = bytes.get(value.start..value.end)?;
    let at = find(raw, b"Credential=")? + "Credential=".len();
    let id_len = raw[at..]
        .iter()
        .position(|b| matches!(b, b'/' | b',' | b' '))
        .unwrap_or(raw.len() - at);
    let id = lossy(&raw[at..at + id_len]);
    if id.len() < 8 || placeholder::is_placeholder_value(&id) || is_placeholder_token(&id) {
        return None;
    }
    let start = value.start + at;
    Some(Hit {
        detector: detector.name,
        label: "an access key id in an AWS signature".into(),
        family: LeakFamily::Secret,
        temporary: false,
        start,
        end: start + id_len,
        masked: mask(&id),
        text: id,
    })
}

/// The key name inside a credential match (`"Authorization":` → `Authorization`).
fn credential_key_name(matched: &str, kind: Kind) -> String {
    let trim = |s: &str| {
        s.trim_matches(|c: char| {
            matches!(c, '\\' | '"' | '\'' | ' ' | '\t' | ':' | '=' | '?' | '&')
        })
        .to_owned()
    };
    match kind {
        Kind::CredentialNameValue => {
            // `"name": "Authorization", "value":` → the second quoted word.
            let mut words = matched
                .split('"')
                .map(|w| w.trim_matches('\\'))
                .filter(|w| !w.trim().is_empty() && !w.contains([':', ',']));
            words.nth(1).unwrap_or("header").to_owned()
        }
        _ => trim(matched),
    }
}

/// Where a value starts and ends, and how it was written.
struct ValueSpan {
    start: usize,
    end: usize,
    quoted: bool,
    list_item: bool,
}

/// Reads the value after a `key:`/`key=`/`"value":`: a quoted string (with any level of
/// backslash escaping), the first string of a list, a YAML block list item, or a bare word
/// (a scheme word like `Bearer` takes the token after it).
fn read_value(bytes: &[u8], mut at: usize, kind: Kind) -> Option<ValueSpan> {
    let skip_blanks = |at: &mut usize| {
        while matches!(bytes.get(*at), Some(b' ' | b'\t')) {
            *at += 1;
        }
    };
    if kind == Kind::CredentialQuery {
        let start = at;
        while let Some(&b) = bytes.get(at) {
            if b.is_ascii_whitespace()
                || matches!(b, b'&' | b'#' | b'"' | b'\'' | b'\\' | b'<' | b'>')
            {
                break;
            }
            at += 1;
        }
        return Some(ValueSpan {
            start,
            end: at,
            quoted: false,
            list_item: false,
        });
    }
    skip_blanks(&mut at);
    let mut list_item = false;
    // A YAML block list on the next lines: `X-Token:\n    - value`.
    if matches!(bytes.get(at), Some(b'\n' | b'\r')) {
        let mut next = at;
        while matches!(bytes.get(next), Some(b'\n' | b'\r' | b' ' | b'\t')) {
            next += 1;
        }
        if bytes.get(next) == Some(&b'-') && matches!(bytes.get(next + 1), Some(b' ')) {
            at = next + 2;
            skip_blanks(&mut at);
            list_item = true;
        } else {
            return None;
        }
    }
    if bytes.get(at) == Some(&b'[') {
        at += 1;
        skip_blanks(&mut at);
        list_item = true;
    }
    // Quotes, possibly escaped: `"`, `\"`, `\\\"`.
    let mut slashes = 0;
    while bytes.get(at + slashes) == Some(&b'\\') {
        slashes += 1;
    }
    match bytes.get(at + slashes) {
        Some(&quote @ (b'"' | b'\'')) => {
            let start = at + slashes + 1;
            let mut i = start;
            while i < bytes.len() {
                let b = bytes[i];
                if b == b'\n' {
                    return None;
                }
                if b == quote
                    && bytes[start.max(i.saturating_sub(slashes))..i]
                        .iter()
                        .filter(|&&c| c == b'\\')
                        .count()
                        == slashes
                {
                    // The closing quote carries as many backslashes as the opening one.
                    let end = i - slashes;
                    return Some(ValueSpan {
                        start,
                        end,
                        quoted: true,
                        list_item,
                    });
                }
                if b == b'\\' && slashes == 0 {
                    i += 2;
                    continue;
                }
                i += 1;
            }
            None
        }
        Some(b'{' | b'[') | None => None,
        Some(_) => {
            let start = at;
            let word_end = |mut i: usize| {
                while let Some(&b) = bytes.get(i) {
                    if b.is_ascii_whitespace()
                        || matches!(
                            b,
                            b',' | b'}' | b']' | b';' | b'"' | b'\'' | b'\\' | b'<' | b'>'
                        )
                    {
                        break;
                    }
                    i += 1;
                }
                i
            };
            let mut end = word_end(start);
            let word = &bytes[start..end];
            if placeholder::is_scheme(word) && bytes.get(end) == Some(&b' ') {
                end = word_end(end + 1);
            }
            let word = &bytes[start..end];
            if matches!(word, b"true" | b"false" | b"null" | b"~")
                || word
                    .iter()
                    .all(|b| b.is_ascii_digit() || *b == b'.' || *b == b'-')
            {
                return None;
            }
            Some(ValueSpan {
                start,
                end,
                quoted: false,
                list_item,
            })
        }
    }
}
