//! Credentials in URLs (issue 22): a request URL's query parameters, and those of every URL
//! written inside a header or a body leaf (a presigned URL in a JSON response, a `Location`
//! that redirects to one), judged as the request's are.

use crate::{Hit, credential};
use vcr_cassette::http::body;

use super::{CREDENTIAL_PARAMETERS, is_one_of};

/// A URL's query parameters as written, `(name, value)`, before any `#`.
pub(super) fn query_pairs(url: &str) -> impl Iterator<Item = (&str, &str)> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    (query.split('&'))
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// The names of a URL's query parameters, percent-decoded.
pub(super) fn query_names(url: &str) -> impl Iterator<Item = String> + '_ {
    query_pairs(url).map(|(name, _)| body::percent_decode(name))
}

/// The credentials in a URL's query parameters, each with its parameter's name. Each is
/// judged percent-decoded; with `as_written`, the hit's text is the value as the URL writes
/// it, which is what a scrub finds in a text that holds the URL: writers encode a value's
/// `+`, `/` and `=` each their own way (`%2B` beside a bare `/` in real presigned URLs).
pub(super) fn parameter_credentials(url: &str, as_written: bool) -> Vec<(Hit, String)> {
    let mut found = Vec::new();
    // Whether the URL is a link signed to be handed out (presigned, SAS, CloudFront): it
    // says until when, or whose key signed it.
    let mut presigned = None;
    for (raw_name, raw_value) in query_pairs(url) {
        let name = body::percent_decode(raw_name);
        if !is_one_of(&name, CREDENTIAL_PARAMETERS) && !super::names_a_session(&name) {
            continue;
        }
        // A bare `signature` signs one request (PubNub's, with the request's `timestamp`;
        // an API's HMAC of its query): bound to that request and its moment, no key. Only a
        // link that carries an expiry or its signer's key id is one to use again (issue 41:
        // 40 clean files of a blind set failed on request signatures).
        if is_one_of(&name, &["signature", "sig"])
            && !*presigned.get_or_insert_with(|| is_signed_link(url))
        {
            continue;
        }
        let value = body::percent_decode(raw_value);
        if super::names_a_session(&name) && !credential::is_random_shaped(value.trim()) {
            continue;
        }
        if let Ok(mut hit) = credential::named("credential-parameter", &name, &value, 8) {
            if as_written && hit.text != raw_value && hit.text == value.trim() {
                hit.text = raw_value.trim().to_owned();
            }
            found.push((hit, name));
        }
    }
    found
}

/// The query parameters of a link signed to be used again: an expiry or the signing key's
/// id (S3's `Expires`/`AWSAccessKeyId`, Azure SAS's `se`/`si`/`sv`, CloudFront's
/// `Expires`/`Policy`/`Key-Pair-Id`, Google's `GoogleAccessId`, `X-Amz-*`, `X-Goog-*`).
const SIGNED_LINK_PARAMETERS: &[&str] = &[
    "expires",
    "expiry",
    "expiration",
    "exp",
    "se",
    "si",
    "sv",
    "policy",
    "key-pair-id",
    "awsaccesskeyid",
    "googleaccessid",
    "x-amz-expires",
    "x-amz-credential",
    "x-goog-expires",
    "x-goog-credential",
];

/// Whether `url` is a link signed to be used again ([`SIGNED_LINK_PARAMETERS`]).
fn is_signed_link(url: &str) -> bool {
    query_pairs(url).any(|(name, _)| is_one_of(&body::percent_decode(name), SIGNED_LINK_PARAMETERS))
}

/// Words of a URL's path that say the segment after them is a one-time secret: a ticket,
/// an invitation, a reset, verification or activation link, a magic link.
const TICKET_WORDS: &[&str] = &[
    "ticket",
    "tickets",
    "invite",
    "invites",
    "invitation",
    "invitations",
    "reset",
    "verify",
    "verification",
    "activate",
    "activation",
    "confirm",
    "confirmation",
    "magic",
    "recover",
    "recovery",
    "unlock",
    "onboarding",
    "claim",
];

/// What a segment after `/tokens/` must be followed by to be the token itself, not an id
/// of a token object (`/tokens/<token>/verify`, but `/api-tokens/<id>`).
const TOKEN_ACTIONS: &[&str] = &["verify", "activate", "confirm", "accept", "redeem"];

/// Whether a body may hold a one-time link: a URL and a word of [`TICKET_WORDS`] (as most
/// write them, lower-case or capitalised). Such a body is decoded to be judged.
pub(super) fn may_hold_a_ticket(bytes: &[u8]) -> bool {
    static WORDS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::new([
            "ticket", "Ticket", "invit", "Invit", "reset", "Reset", "verif", "Verif", "activat",
            "Activat", "magic", "Magic",
        ])
        .expect("literal words build")
    });
    memchr::memmem::find(bytes, b"://").is_some() && words.is_match(bytes)
}

/// Whether a name says ticket, invite, reset... (`ticket_url`, `resetPasswordUrl`).
pub(super) fn says_ticket(name: &str) -> bool {
    crate::words::name_words(name)
        .iter()
        .any(|w| TICKET_WORDS.contains(&w.as_str()))
}

/// The random segments of a URL's path that follow a word of [`TICKET_WORDS`]
/// (`/reset_password/<random>`, `/invite/<random>`), or a token's with an action after it
/// (`/tokens/<random>/verify`), or, when `named` (the URL is
/// held by a field whose name says ticket, invite, reset...: `ticket_url`), its last
/// segment if random; each judged as a named credential must be, and random-shaped
/// ([`credential::is_random_shaped`]). A UUID is an object's id, not a ticket.
pub(super) fn ticket_segments(url: &str, named: bool) -> Vec<(Hit, String)> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let path = match path.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, p)| p),
        None => path.trim_start_matches('/'),
    };
    let segments: Vec<&str> = path.split('/').collect();
    let says = |segment: &str| {
        segment
            .to_ascii_lowercase()
            .split(['-', '_', '.'])
            .any(|w| TICKET_WORDS.contains(&w))
    };
    let mut found = Vec::new();
    let is = |segment: Option<&&str>, words: &[&str]| {
        segment.is_some_and(|s| words.contains(&s.to_ascii_lowercase().as_str()))
    };
    for (i, segment) in segments.iter().enumerate() {
        let before = i.checked_sub(1).and_then(|j| segments.get(j));
        let token = is(before, &["token", "tokens"]) && is(segments.get(i + 1), TOKEN_ACTIONS);
        let beside = before.is_some_and(|s| says(s)) || token || (named && i + 1 == segments.len());
        // A file's extension is the format asked for (`/tickets/9223372036854775807.json`:
        // a support ticket's number), and a number is an object's id.
        let bare = segment
            .rsplit_once('.')
            .filter(|(_, ext)| {
                (1..=5).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphabetic())
            })
            .map_or(*segment, |(stem, _)| stem);
        if bare.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if segment.len() < 16 || !beside || !credential::is_random_shaped(segment) {
            continue;
        }
        let word = before.copied().unwrap_or("ticket");
        if let Ok(mut hit) = credential::named("credential-parameter", word, segment, 16) {
            hit.reason = crate::reason::TICKET_PATH;
            hit.label = format!("a one-time link's secret beside `{word}`");
            found.push((hit, format!("/{word}/")));
        }
    }
    found
}

/// Headers whose value is a URL, which may be written without its scheme and host.
pub(super) const URL_HEADERS: &[&str] = &["location", "content-location", "refresh"];

/// The credentials in the query parameters of every URL written inside `text` (a presigned
/// URL in a JSON response, a `Location` header that redirects to one), judged as a request
/// URL's are; with `whole`, `text` is one URL that may lack its scheme and host.
pub(super) fn url_credentials(text: &str, whole: bool) -> Vec<(Hit, String)> {
    if whole {
        return parameter_credentials(text, true);
    }
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("://").map(|i| from + i) {
        // Past the character before the scheme, which may take more than a byte (`…`: the
        // fuzz target found the cut inside one).
        let start = text[..at]
            .char_indices()
            .rev()
            .find(|&(_, c)| !c.is_ascii_alphanumeric() && !matches!(c, '+' | '-' | '.'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | '\\'))
            .map_or(text.len(), |i| at + i);
        if start < at {
            found.extend(parameter_credentials(&text[start..end], true));
            found.extend(ticket_segments(&text[start..end], false));
        }
        from = end.max(at + 3);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a character of more than a byte just before a URL's scheme (`…`) made the
    /// cut land inside it, and the lint panicked (found by the `http` fuzz target).
    #[test]
    fn a_url_after_a_wide_character_is_read() {
        let text = "Be\"http…teractionbeare://api.example.org/v1?token=x and a…b://h/?k=1";
        // Must not panic; the URLs found start past the wide character.
        let _ = url_credentials(text, false);
        let presigned = "see…https://bucket.example.com/o?X-Amz-Signature=8f3a9c1e5b7d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c";
        let found = url_credentials(presigned, false);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, "X-Amz-Signature");
    }

    /// A support ticket's number in a path (Zendesk's `/tickets/<id>.json`) is an object's
    /// id; a random segment after `/reset_password/` is a one-time link's secret.
    /// Regression (issue 41): every deleted-ticket test of a Zendesk client failed the gate.
    #[test]
    fn a_tickets_number_is_no_one_time_link() {
        for url in [
            "https://x.zendesk.com/api/v2/tickets/9223372036854775807.json",
            "https://x.zendesk.com/api/v2/ticket_fields/360012345678901.json",
        ] {
            assert!(ticket_segments(url, false).is_empty(), "{url}");
        }
        let found = ticket_segments(
            "https://app.example.com/reset_password/Q7fKz2PmA9xLw3RtYb8N",
            false,
        );
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
