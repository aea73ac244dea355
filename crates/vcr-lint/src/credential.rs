//! The value after a credential key: `"Authorization": "Bearer ..."`, `password=...`,
//! HAR's `{"name": "x-api-key", "value": ...}`, `?token=...`. The detectors find the key; this
//! reads the value that follows (quoted at any level of escaping, a list's first item, a bare
//! word) and decides whether it is a credential.
//!
//! Keys, separators and quotes may be escaped (`\"token\": \"...\"`, `\u0022password\u0022`,
//! `password\u003d...`), and a key may follow an escape (`...\nAWS_SECRET_ACCESS_KEY=...`):
//! an escape is a boundary (see `super::escape`), and an escaped quote or separator counts as
//! the character it stands for.

use super::detectors::{self, Kind};
use super::escape;
use super::placeholder::{self, is_placeholder_token, looks_like_credential, mask};
use super::{Hit, LeakFamily, find, is_name_byte, lossy, reason, words};

/// A credential key, HAR header or URL parameter: reads the value that follows and decides
/// whether it is a credential, or what rejects it.
pub(super) fn credential(
    detector: &detectors::Detector,
    bytes: &[u8],
    start: usize,
    end: usize,
) -> Result<Hit, &'static str> {
    let matched = &bytes[start..end];
    // The key is a word of its own: `\npassword=` names one (an escape ends the word before
    // it), `my_password=` does not, nor does `\token=` (a tab, then `oken`); the pattern
    // leaves this to code, which knows escapes.
    let key_start = start + key_offset(matched);
    if detector.kind == Kind::CredentialKey
        && (escape::inside_escape(bytes, key_start)
            || (key_start == start && escape::byte_before(bytes, start).is_some_and(is_name_byte)))
    {
        return Err(reason::KEY_INSIDE_A_NAME);
    }
    let key = credential_key_name(matched, detector.kind);
    // A key found at a `-` inside a longer name (`page-token=` in a query) is that name's,
    // and judged by it: a cursor's name is no credential's.
    if let Some(whole) = hyphenated_name(bytes, key_start, &key)
        && super::http::names_no_secret(&whole)
    {
        return Err(reason::KEY_INSIDE_A_NAME);
    }
    // A key after `?` or `&` is a query parameter whatever pattern found it: its value ends
    // at the next `&`. Read to the end of the line instead, each of a URL's thousand
    // `token=` parameters read all the others (quadratic, issue 44) and its masked text held
    // them.
    let in_query = key_start > 0 && matches!(bytes[key_start - 1], b'?' | b'&');
    let value = read_value(bytes, end, detector.kind, in_query).ok_or(reason::NO_VALUE)?;
    let raw = lossy(&bytes[value.start..value.end]);
    let text = raw.trim();
    if let Some(why) = rejected_whole(text) {
        return Err(why);
    }
    // AWS Signature V4: the signature is bound to one request; the access key id is what
    // identifies the account.
    if text.starts_with("AWS4-HMAC-SHA256") {
        return sigv4_credential(detector, bytes, &value);
    }
    if let Some(why) = rejected_in(text, &words::name_words(&key)) {
        return Err(why);
    }
    let (scheme, credential) = placeholder::split_scheme(text);
    let key_lower = key.to_ascii_lowercase();
    // `token` also names a token of text (logprobs): only a token-like value counts.
    if key_lower == "token" && !is_token_shaped(credential) {
        return Err(reason::TEXT_TOKEN);
    }
    let quoted = has_quote(matched) || value.quoted || value.list_item;
    // A bare value in prose is only taken for a credential when it looks like one; in an
    // assignment that ends its line (`.env`, a shell script) it is one whatever its shape.
    let shaped = looks_like_credential(scheme, credential)
        || (is_assignment(matched) && ends_line(bytes, value.end));
    if detector.kind == Kind::CredentialKey
        && !quoted
        && !(shaped && placeholder::is_token_charset(credential))
    {
        return Err(reason::PROSE);
    }
    if detector.kind == Kind::CredentialQuery && credential.len() < 8 {
        return Err(reason::SHORT_QUERY);
    }
    let masked = match scheme {
        Some(scheme) => format!("{scheme} {}", mask(credential)),
        None => mask(credential),
    };
    Ok(Hit {
        detector: detector.name,
        label: format!("{} in `{key}`", detector.label),
        family: LeakFamily::Secret,
        temporary: false,
        start: value.start,
        end: value.end,
        text: raw,
        masked,
        reason: reason::AFTER_A_KEY,
    })
}

/// A value that a cassette's structure names as a credential (a credential header, query
/// parameter, session cookie or form/JSON field `name`): a hit when it is one, whatever its
/// shape, unless it is a placeholder, an environment variable's name, a made-up `Basic`
/// account, a key public by design, or shorter than `min_len`. The hit's offsets are within
/// `value`; `detector` names the detector it is reported as.
pub(crate) fn named(
    detector: &'static str,
    name: &str,
    value: &str,
    min_len: usize,
) -> Result<Hit, &'static str> {
    let label = detectors::DETECTORS
        .iter()
        .find(|d| d.name == detector)
        .map_or("a credential", |d| d.label);
    let text = value.trim();
    let lead = value.len() - value.trim_start().len();
    if let Some(why) = rejected_whole(text) {
        return Err(why);
    }
    if let Some(at) = text
        .find("Credential=")
        .filter(|_| text.starts_with("AWS4-HMAC-SHA256"))
    {
        let at = at + "Credential=".len();
        let id = text[at..].split(['/', ',', ' ']).next().unwrap_or_default();
        if id.len() < 8 {
            return Err(reason::TOO_SHORT);
        }
        if placeholder::is_placeholder_value(id) || is_placeholder_token(id) {
            return Err(reason::PLACEHOLDER);
        }
        return Ok(Hit {
            detector,
            label: "an access key id in an AWS signature".into(),
            family: LeakFamily::Secret,
            temporary: false,
            start: lead + at,
            end: lead + at + id.len(),
            text: id.to_owned(),
            masked: mask(id),
            reason: reason::SIGV4,
        });
    }
    let (scheme, credential) = split_any_scheme(text);
    if let Some(why) = rejected_in(text, &words::name_words(name)) {
        return Err(why);
    }
    if credential.len() < min_len.max(4) {
        return Err(reason::TOO_SHORT);
    }
    if name.eq_ignore_ascii_case("token") && !is_token_shaped(credential) {
        return Err(reason::TEXT_TOKEN);
    }
    if is_letterless_count(credential) && !names_a_password(name) {
        return Err(reason::NO_LETTERS);
    }
    // One English word (`safe`, what R vcr's `filter_request_headers` writes) is no key or
    // token; people do pick one for a password.
    if !names_a_password(name)
        && credential.bytes().all(|b| b.is_ascii_lowercase())
        && words::is_word(credential)
    {
        return Err(reason::ONE_WORD);
    }
    let start = lead + (text.len() - credential.len());
    Ok(Hit {
        detector,
        label: format!("{label} in `{name}`"),
        family: LeakFamily::Secret,
        temporary: false,
        start,
        end: start + credential.len(),
        text: credential.to_owned(),
        masked: match scheme {
            Some(scheme) => format!("{scheme} {}", mask(credential)),
            None => mask(credential),
        },
        reason: match detector {
            "credential-parameter" => reason::NAMED_PARAMETER,
            "credential-field" => reason::NAMED_FIELD,
            _ => reason::NAMED_HEADER,
        },
    })
}

/// A value with no letter, below [`TOKEN_FLOOR_BITS`], and not a number alone (`0:-1#13`,
/// Cosmos DB's session token, a log position): no API key or bearer token is written
/// without letters, and a number alone is left to the rules that judge numbers.
fn is_letterless_count(value: &str) -> bool {
    !value.bytes().any(|b| b.is_ascii_alphabetic())
        && !value.bytes().all(|b| b.is_ascii_digit())
        && shape_bits(value) < TOKEN_FLOOR_BITS
}

/// Whether a name says it holds a password or a PIN, which people do write with digits and
/// symbols alone.
fn names_a_password(name: &str) -> bool {
    words::name_words(name).iter().any(|w| {
        w.contains("pass") || w.contains("pwd") || matches!(w.as_str(), "pin" | "code" | "otp")
    })
}

/// Whether a value is a URL with no user-info (`https://host/path?q`): the address of a
/// service, whatever name holds it (an endpoint list keyed by product, `"Token":
/// "https://..."`). The credentials a URL can carry, in its user-info or its query, are
/// judged where they stand by the URL rules.
fn is_plain_url(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    matches!(
        scheme.to_ascii_lowercase().as_str(),
        "http" | "https" | "wss" | "ws"
    ) && !authority.is_empty()
        && !authority.contains('@')
        && !text.contains(char::is_whitespace)
}

/// Whether an `Authorization` value is an OAuth 1.0 signature (`OAuth oauth_consumer_key="..",
/// oauth_token="..", oauth_signature="..", ...`, RFC 5849 section 3.5.1): the consumer key
/// and the token are the identifiers of their pairs, which the protocol sends in the clear
/// with every request, and sign nothing without the shared secrets, which the header never
/// holds; the signature covers one request, its nonce and its time. Not with the
/// `PLAINTEXT` method, whose signature *is* the two secrets, nor a value with any parameter
/// OAuth 1.0 does not define (`OAuth <token>`, an OAuth 2 bearer token some APIs take under
/// that scheme's name). A token secret, where a cassette holds one (`oauth_token_secret=` in
/// a token response), is judged by its name.
fn is_oauth1_signature(text: &str) -> bool {
    let Some((scheme, params)) = text.split_once(char::is_whitespace) else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("oauth") {
        return false;
    }
    let mut signed = false;
    for param in params.split(',') {
        let Some((name, value)) = param.trim().split_once('=') else {
            return false;
        };
        let value = value.trim().trim_matches('"');
        match name.trim() {
            "oauth_signature" => signed = true,
            "oauth_signature_method" if value.eq_ignore_ascii_case("plaintext") => return false,
            "realm" => {}
            name if name.starts_with("oauth_") => {}
            _ => return false,
        }
    }
    signed
}

/// Whether a named credential's value is words a reviewer reads as a test value: fake words
/// glued or separated (`testkey`, `mySecret`, `test-client_secret`), in leetspeak
/// (`@S3cur3P@55w0rd`), behind a vendor's prefix (`ghp_TEST_TOKEN`); letters required, so a
/// number alone is judged as it is. A JWT is judged by its claims ([`placeholder::is_fake_jwt`]).
fn is_test_words(credential: &str) -> bool {
    (credential.bytes().any(|b| b.is_ascii_alphabetic()) && placeholder::is_fake_words(credential))
        || (credential.starts_with("eyJ") && placeholder::is_fake_jwt(credential))
        || is_reference(credential)
}

/// A value written as a program's name for a secret (`client_secret=consumer_secret`,
/// `api_key: self.api_key`): lower-case words joined by `_` or `.` whose last word names a
/// secret. It refers to the value; a secret itself is random.
fn is_reference(value: &str) -> bool {
    let value = value.trim_end_matches([',', ';', ')']);
    let names_one = [
        "secret", "key", "token", "password", "passwd", "pwd", "pass",
    ]
    .iter()
    .any(|w| value.ends_with(w));
    names_one
        && value.contains(['_', '.'])
        && value.split(['_', '.']).all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The floor of entropy a `token` shorter than 16 characters must reach to be one, in bits
/// (issue 41: a 14-character hex API token is 56 bits): 12 hex digits, or 9 letters of both
/// cases and digits. A token of text (`Hello`, a logprob's ` the`) stays below it.
pub(crate) const TOKEN_FLOOR_BITS: f64 = 48.0;

/// The entropy a value would have if each of its characters were drawn at random from the
/// classes it uses (hex counts as 16 symbols, lower-case letters 26, upper-case 26, digits
/// 10, other characters 16), in bits.
pub(crate) fn shape_bits(value: &str) -> f64 {
    let bytes = value.as_bytes();
    let hex = bytes.iter().all(u8::is_ascii_hexdigit)
        && (bytes.iter().all(|b| !b.is_ascii_uppercase())
            || bytes.iter().all(|b| !b.is_ascii_lowercase()));
    let alphabet = if hex {
        16
    } else {
        let has = |f: fn(&u8) -> bool| bytes.iter().any(f);
        26 * usize::from(has(u8::is_ascii_lowercase))
            + 26 * usize::from(has(u8::is_ascii_uppercase))
            + 10 * usize::from(has(u8::is_ascii_digit))
            + 16 * usize::from(has(|b| !b.is_ascii_alphanumeric()))
    };
    bytes.len() as f64 * (alphabet.max(2) as f64).log2()
}

/// Whether a `token` value is shaped like a credential: in a token's characters, and 16
/// characters or more, or letters and digits above [`TOKEN_FLOOR_BITS`] (a word of text,
/// `Translate`, has no digit).
pub(crate) fn is_token_shaped(value: &str) -> bool {
    let digits_and_letters =
        value.bytes().any(|b| b.is_ascii_digit()) && value.bytes().any(|b| b.is_ascii_alphabetic());
    placeholder::is_token_charset(value)
        && (value.len() >= 16 || (digits_and_letters && shape_bits(value) >= TOKEN_FLOOR_BITS))
}

/// The entropy floor of a value judged by a name that says secret but is no credential
/// field of the fixed list (`activationToken`), or of a URL's path segment beside a word
/// that says ticket or reset: 64 bits (11 letters of both cases and digits, 16 hex digits).
pub(crate) const RANDOM_FLOOR_BITS: f64 = 64.0;

/// Whether a value is random-shaped: in a token's characters, above
/// [`RANDOM_FLOOR_BITS`], mixing letters and digits or both cases, and no typed words.
pub(crate) fn is_random_shaped(value: &str) -> bool {
    let bytes = value.as_bytes();
    let mixed = (bytes.iter().any(u8::is_ascii_digit) && bytes.iter().any(u8::is_ascii_alphabetic))
        || (bytes.iter().any(u8::is_ascii_uppercase) && bytes.iter().any(u8::is_ascii_lowercase));
    placeholder::is_token_charset(value)
        && mixed
        && shape_bits(value) >= RANDOM_FLOOR_BITS
        && words::typed(value, &[]).is_none()
        && !is_uuid(value)
}

/// `Bearer abc`, and any word of a scheme's shape before one credential (`SSWS abc`, `DPoP
/// abc`): an `Authorization` value names its scheme first, whatever it is.
pub(crate) fn split_any_scheme(value: &str) -> (Option<&str>, &str) {
    if let (Some(scheme), credential) = placeholder::split_scheme(value) {
        return (Some(scheme), credential);
    }
    match value.split_once(' ') {
        Some((scheme, rest))
            if (2..=20).contains(&scheme.len())
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && scheme
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphabetic())
                && !rest.trim().is_empty()
                && !rest.trim().contains(' ') =>
        {
            (Some(scheme), rest.trim())
        }
        _ => (None, value),
    }
}

/// Why a value that a structure names as a credential is none (`named`'s judgement, and
/// what `vcr verify --explain` says), or `None` when it is one. The order is the judge's.
pub fn rejected(value: &str) -> Option<&'static str> {
    rejected_in(value, &[])
}

/// [`rejected`], for a value held by a name whose words are `own` (a value made of them
/// describes itself).
pub(crate) fn rejected_in(value: &str, own: &[String]) -> Option<&'static str> {
    let text = value.trim();
    if is_oauth1_signature(text) {
        return Some(reason::OAUTH1_SIGNED);
    }
    if let Some(why) = rejected_whole(text) {
        return Some(why);
    }
    let (scheme, credential) = split_any_scheme(text);
    if scheme.is_some_and(|s| s.eq_ignore_ascii_case("basic")) && is_fake_basic(credential) {
        return Some(reason::FAKE_BASIC);
    }
    if credential.len() < 4 {
        return Some(reason::TOO_SHORT);
    }
    if placeholder::is_placeholder_value(credential) {
        return Some(reason::PLACEHOLDER);
    }
    if is_placeholder_token(credential) {
        return Some(reason::PLACEHOLDER_TOKEN);
    }
    if placeholder::is_public_key(credential) {
        return Some(reason::PUBLIC_KEY);
    }
    if credential.starts_with("eyJ")
        && let Some(why) = placeholder::jwt_rejected(credential)
    {
        return Some(why);
    }
    if is_reference(credential) {
        return Some(reason::REFERENCE);
    }
    if is_test_words(credential) {
        return Some(reason::TEST_WORDS);
    }
    if is_id_made_password(credential) {
        return Some(reason::ID_MADE_PASSWORD);
    }
    let mut own: Vec<&str> = own.iter().map(String::as_str).collect();
    own.extend(scheme);
    if let Some(typed) = words::typed(credential, &own) {
        return Some(typed_reason(typed));
    }
    None
}

/// A UUID with a few characters after it that a password rule asks for (`<uuid>Tt!`): what
/// a test makes up for an account it creates, random only in its id.
fn is_id_made_password(value: &str) -> bool {
    value.len() > 36
        && value.len() <= 40
        && value.is_char_boundary(36)
        && is_uuid(&value[..36])
        && !value[36..]
            .bytes()
            .any(|b| b.is_ascii_hexdigit() && b.is_ascii_lowercase())
}

/// Whether `text` is a UUID (8-4-4-4-12 hex digits).
pub(crate) fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// The reason a value of typed words gives.
pub(crate) fn typed_reason(typed: words::Typed) -> &'static str {
    match typed {
        words::Typed::OwnName => reason::SELF_DESCRIBING,
        words::Typed::Words => reason::TYPED_WORDS,
    }
}

/// What rejects a value whole, before any scheme is split from it.
fn rejected_whole(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        Some(reason::EMPTY)
    } else if placeholder::is_known_example(text) {
        Some(reason::KNOWN_EXAMPLE)
    } else if placeholder::is_placeholder_value(text) {
        Some(reason::PLACEHOLDER)
    } else if redacted_pem(text) {
        Some(reason::REDACTED_PEM)
    } else if is_plain_url(text) {
        Some(reason::PLAIN_URL)
    } else {
        None
    }
}

/// Whether a value is a PEM block whose body is a placeholder (`-----BEGIN PRIVATE
/// KEY-----<PRIVATE KEY>-----END PRIVATE KEY-----`): what redacted it kept the markers.
fn redacted_pem(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("-----BEGIN ") else {
        return false;
    };
    let Some((_, rest)) = rest.split_once("-----") else {
        return false;
    };
    rest.split_once("-----END ")
        .is_some_and(|(body, _)| placeholder::is_placeholder_pem_body(body))
}

/// Whether a `Basic` credential decodes to a made-up account (`test:test`,
/// `testuser:none`, `admin:example_password`): its password is fake words or a placeholder.
pub(super) fn is_fake_basic(credential: &str) -> bool {
    use base64::Engine;
    let Ok(decoded) = base64::engine::general_purpose::STANDARD
        .decode(credential.trim())
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(credential.trim()))
    else {
        return false;
    };
    let decoded = String::from_utf8_lossy(&decoded);
    let (user, password) = decoded.split_once(':').unwrap_or(("", &decoded));
    // An API key sent as the user with no password (Stripe's, EasyPost's `EZTK...:`) is
    // judged as the key it is.
    let secret = if password.is_empty() { user } else { password };
    // A user too short to be a key, with no password, is a public client's name (the Cloud
    // Foundry CLI's `cf:`): there is nothing secret in it.
    if password.is_empty() && user.len() < 8 {
        return true;
    }
    placeholder::is_fake_words(secret)
        || placeholder::is_placeholder_value(secret)
        || is_placeholder_token(secret)
        || words::typed(secret, &[]).is_some()
}

/// The access key id of an AWS Signature V4 `Authorization` value, if it is a real one.
fn sigv4_credential(
    detector: &detectors::Detector,
    bytes: &[u8],
    value: &ValueSpan,
) -> Result<Hit, &'static str> {
    // Offsets are counted in bytes: text that is not UTF-8 grows when made lossy.
    let raw = bytes.get(value.start..value.end).ok_or(reason::NO_VALUE)?;
    let at = find(raw, b"Credential=").ok_or(reason::NO_VALUE)? + "Credential=".len();
    let id_len = raw[at..]
        .iter()
        .position(|b| matches!(b, b'/' | b',' | b' '))
        .unwrap_or(raw.len() - at);
    let id = lossy(&raw[at..at + id_len]);
    if id.len() < 8 {
        return Err(reason::TOO_SHORT);
    }
    if placeholder::is_placeholder_value(&id) || is_placeholder_token(&id) {
        return Err(reason::PLACEHOLDER);
    }
    let start = value.start + at;
    Ok(Hit {
        detector: detector.name,
        label: "an access key id in an AWS signature".into(),
        family: LeakFamily::Secret,
        temporary: false,
        start,
        end: start + id_len,
        masked: mask(&id),
        text: id,
        reason: reason::SIGV4,
    })
}

/// The whole name when the key at `key_start` follows a `-` that joins it to a word before
/// (`page-token`), else `None`.
fn hyphenated_name(bytes: &[u8], key_start: usize, key: &str) -> Option<String> {
    if key_start < 2 || bytes[key_start - 1] != b'-' || !is_name_byte(bytes[key_start - 2]) {
        return None;
    }
    let from = bytes[..key_start]
        .iter()
        .rposition(|&b| !(is_name_byte(b) || b == b'-'))
        .map_or(0, |i| i + 1);
    Some(format!("{}{key}", lossy(&bytes[from..key_start])))
}

/// The key name inside a credential match (`"Authorization":` → `Authorization`).
fn credential_key_name(matched: &[u8], kind: Kind) -> String {
    match kind {
        Kind::CredentialNameValue => {
            // `"name": "Authorization", "value":` → the second quoted word.
            let matched = lossy(matched);
            let mut words = matched
                .split('"')
                .map(|w| w.trim_matches('\\'))
                .filter(|w| !w.trim().is_empty() && !w.contains([':', ',']));
            words.nth(1).unwrap_or("header").to_owned()
        }
        _ => {
            let key = &matched[key_offset(matched)..];
            lossy(&key[..key_len(key)])
        }
    }
}

/// Where the key begins in a credential match: after its quotes, escaped or not
/// (`\"`, `\u0022`), or the `?` or `&` (`\u0026`) of a query.
fn key_offset(matched: &[u8]) -> usize {
    let mut i = 0;
    loop {
        match matched.get(i) {
            Some(b'"' | b'\'' | b'?' | b'&') => i += 1,
            Some(b'\\') => match matched.get(i + 1..i + 6) {
                Some(b"u0022" | b"u0027" | b"u0026") => i += 6,
                _ => i += 1,
            },
            _ => return i,
        }
    }
}

/// The length of the key name at the start of `key`.
fn key_len(key: &[u8]) -> usize {
    key.iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        .count()
}

/// Whether a credential match quotes its key: `"token":`, `\"token\":`, `\u0022token\u0022:`.
fn has_quote(matched: &[u8]) -> bool {
    matched.iter().any(|&b| b == b'"' || b == b'\'')
        || find(matched, b"\\u0022").is_some()
        || find(matched, b"\\u0027").is_some()
}

/// `KEY=` with nothing between the bare key and its `=` (or `\u003d`): an assignment, as in
/// a `.env` file or a shell script, not `key = ...` in code or `key: ...` in prose.
fn is_assignment(matched: &[u8]) -> bool {
    if key_offset(matched) != 0 {
        return false;
    }
    let rest = &matched[key_len(matched)..];
    let slashes = rest.iter().take_while(|&&b| b == b'\\').count();
    rest == b"=" || (slashes > 0 && rest[slashes..].eq_ignore_ascii_case(b"u003d"))
}

/// Whether a bare value that ends at `end` is the last thing on its line: the end of the
/// text, a line break (escaped or not), or the double quote that closes the string holding
/// the line (`"...\npassword=hunter2"`).
fn ends_line(bytes: &[u8], end: usize) -> bool {
    let slashes = bytes[end..].iter().take_while(|&&b| b == b'\\').count();
    match bytes.get(end + slashes) {
        None => slashes == 0,
        Some(b'\n' | b'\r') => slashes == 0,
        Some(b'"') => true,
        Some(_) => {
            escape::line_break_at(bytes, end).is_some()
                || escape::escaped_quote_at(bytes, end).is_some_and(|(_, quote)| quote == b'"')
        }
    }
}

/// Where a value starts and ends, and how it was written.
struct ValueSpan {
    start: usize,
    end: usize,
    quoted: bool,
    list_item: bool,
}

/// The length of the blank at `at`: a space or a tab, escaped (`\t`, at any level) or not;
/// with `lines`, a line break too.
fn blank_at(bytes: &[u8], at: usize, lines: bool) -> Option<usize> {
    match *bytes.get(at)? {
        b' ' | b'\t' => Some(1),
        b'\n' | b'\r' if lines => Some(1),
        b'\\' => {
            let slashes = bytes[at..].iter().take_while(|&&b| b == b'\\').count();
            match bytes.get(at + slashes) {
                Some(b't') => Some(slashes + 1),
                _ if lines => escape::line_break_at(bytes, at),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Reads the value after a `key:`/`key=`/`"value":`: a quoted string (with any level of
/// backslash escaping, or `\u0022`), the first string of a list, a YAML block list item, or a
/// bare word (a scheme word like `Bearer` takes the token after it).
fn read_value(bytes: &[u8], mut at: usize, kind: Kind, in_query: bool) -> Option<ValueSpan> {
    let skip_blanks = |at: &mut usize| {
        while let Some(len) = blank_at(bytes, *at, false) {
            *at += len;
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
    // A YAML block list on the next lines: `X-Token:\n    - value` (the line break escaped
    // when the YAML sits in a JSON string).
    if matches!(bytes.get(at), Some(b'\n' | b'\r')) || escape::line_break_at(bytes, at).is_some() {
        let mut next = at;
        while let Some(len) = blank_at(bytes, next, true) {
            next += len;
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
    if let Some((len, quote)) = escape::escaped_quote_at(bytes, at) {
        return escaped_quoted(bytes, at + len, len, quote, list_item);
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
                        || (in_query && matches!(b, b'&' | b'#'))
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

/// The value that starts at `start`, after an escaped quote (`\u0022`, `\\u0027`) `len` bytes
/// long, up to the same escaped quote.
fn escaped_quoted(
    bytes: &[u8],
    start: usize,
    len: usize,
    quote: u8,
    list_item: bool,
) -> Option<ValueSpan> {
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' => return None,
            b'\\' => {
                if escape::escaped_quote_at(bytes, i) == Some((len, quote)) {
                    return Some(ValueSpan {
                        start,
                        end: i,
                        quoted: true,
                        list_item,
                    });
                }
                // The whole run of backslashes and the byte it escapes.
                i += bytes[i..].iter().take_while(|&&b| b == b'\\').count() + 1;
            }
            _ => i += 1,
        }
    }
    None
}
