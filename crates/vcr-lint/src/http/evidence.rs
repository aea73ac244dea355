//! The evidence an interaction holds for judging the ids and times its request sent
//! (issue 22): when it was recorded, whether the server answered for what the request named,
//! and whether a credential had gone out; and the judgement made with it.

use crate::{Hit, LeakFamily, credential};
use vcr_cassette::http::{Body, Interaction};

/// The evidence an interaction holds for judging the ids and times its request sent.
pub(super) struct Exchange {
    /// When it was recorded: its own recorded time, else its response's `Date`.
    pub(super) time: Option<i64>,
    /// Whether the server answered with success but `201 Created` (or `304`): an object the
    /// request's path names was one the server already had, whether it was read, deleted or
    /// updated (`PUT`, `PATCH`: issue 41); only a `201` says the request made it, under an
    /// id the client may have chosen.
    pub(super) resolved: bool,
    /// Whether the request was a `POST`: what it names last may be what it creates, even
    /// when the server answers `200`; only the objects it names before are surely the
    /// server's.
    pub(super) posted: bool,
    /// Whether this request or one before it carried a credential or a login: a credential
    /// header, a cookie, a credential query parameter, or a body that names a credential
    /// field. A response while none had is what the server hands to everyone.
    pub(super) credentialed: bool,
    /// Whether this request or one before it signed in: carried a credential other than a
    /// cookie, or completed a login. A cookie a server set while none had is a browser's
    /// visit (a PHP session of an anonymous download) until one does.
    pub(super) signed_in: bool,
    /// Whether the request went to the recording machine itself (`localhost`, a loopback
    /// address): what its response holds of a home folder (Ollama's `/api/show` answers
    /// with the path of the model file) is the recording person's, not a far server's.
    pub(super) local: bool,
}

impl Exchange {
    /// The evidence of `interaction`, after what the requests before it did (`before`).
    pub(super) fn of(interaction: &Interaction, before: &Sessions) -> Exchange {
        let status = interaction.response.as_ref().and_then(|r| r.status);
        let date = || {
            (interaction.response.iter())
                .flat_map(|r| &r.headers)
                .find(|h| h.name.eq_ignore_ascii_case("date"))
                .and_then(|h| vcr_cassette::http::parse_time(&h.value.text))
        };
        let carried = carried(interaction);
        let login = is_login(interaction);
        let signed_in = before.signed_in || carried != Carried::Nothing || login;
        let credentialed = before.credentialed
            || carried == Carried::Credential
            || login
            || sent_a_cookie(interaction);
        Exchange {
            credentialed,
            signed_in,
            local: is_loopback_url(&interaction.request.url.text),
            time: (interaction.recorded_at.as_ref())
                .and_then(|f| vcr_cassette::http::parse_time(&f.text))
                .or_else(date),
            resolved: status.is_some_and(|s| (200..300).contains(&s) && s != 201 || s == 304),
            posted: interaction
                .request
                .method
                .text
                .trim()
                .eq_ignore_ascii_case("POST"),
        }
    }
}

/// Whether `url`'s host is this machine: `localhost` (or a name under it), `127.x.x.x`,
/// `[::1]`, `0.0.0.0`, `host.docker.internal`.
fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "0.0.0.0"
        || host == "host.docker.internal"
}

/// What the requests of a file so far did, carried from window to window of a large one.
#[derive(Debug, Default)]
pub(super) struct Sessions {
    /// Whether a request carried a credential, a cookie or a login.
    pub(super) credentialed: bool,
    /// Whether a request signed in ([`Exchange::signed_in`]).
    pub(super) signed_in: bool,
    /// The cookies (`name=value`) set in answer to requests while none had carried a
    /// credential, a cookie or a login: a browser's anonymous session, which the requests
    /// after send back. One is a credential again once a request signs in.
    pub(super) anonymous: std::collections::HashSet<String>,
}

impl Sessions {
    /// Takes in what `exchange` did.
    pub(super) fn after(&mut self, exchange: &Exchange) {
        self.credentialed |= exchange.credentialed;
        self.signed_in |= exchange.signed_in;
    }
}

/// What a request carried in a credential header or a credential query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carried {
    Nothing,
    /// Only values a filter replaced (`Basic <%= ... %>`, `<API_KEY>`): the real ones went
    /// out, so the request signed in, though the cassette holds no secret of it.
    Filtered,
    /// A value the judge takes for a secret. A placeholder the test made up (`SSWS
    /// myAPIToken`, a fake Basic account) is neither: a cookie a server sets in answer to
    /// it is no evidence of a login (issue 41).
    Credential,
}

/// What `interaction`'s request carried, in one pass over its headers and its query.
fn carried(interaction: &Interaction) -> Carried {
    let request = &interaction.request;
    if !super::url::parameter_credentials(&request.url.text, false).is_empty() {
        return Carried::Credential;
    }
    let filtered =
        |why: &str| [crate::reason::PLACEHOLDER, crate::reason::PLACEHOLDER_TOKEN].contains(&why);
    let mut carried = Carried::Nothing;
    for h in &request.headers {
        if !super::is_credential_header(&h.name, super::Side::Request) {
            continue;
        }
        match credential::named("credential-header", &h.name, h.value.text.trim(), 4) {
            Ok(_) => return Carried::Credential,
            Err(why) if filtered(why) => carried = Carried::Filtered,
            Err(_) => {}
        }
    }
    carried
}

/// Whether a request sent a cookie: the browser holds a session already.
fn sent_a_cookie(interaction: &Interaction) -> bool {
    (interaction.request.headers.iter())
        .any(|h| h.name.eq_ignore_ascii_case("cookie") && !h.value.text.trim().is_empty())
}

/// Whether a request completes a login, whatever the values it sent (a filtered password
/// still logged in): a login field (a password, a one-time code, a session token to
/// exchange, an OAuth `code` or a SAML response) in its body or query, sent to a path that
/// names a login, a session or a token; a `SAMLResponse`, or a `code` beside a `state`, in
/// any query. A body that names a password on its way to `/users` creates an account: no
/// login.
fn is_login(interaction: &Interaction) -> bool {
    let request = &interaction.request;
    let url = &request.url.text;
    let query: Vec<String> = super::url::query_names(url)
        .map(|n| n.to_ascii_lowercase())
        .collect();
    let has = |name: &str| query.iter().any(|n| n == name);
    if has("samlresponse") || (has("code") && has("state")) {
        return true;
    }
    // A SOAP login names itself in its body, whatever the path (`POST /sdk` with
    // `<Login><userName>..</userName><password>..</password></Login>`).
    if let Some(Body::Bytes { bytes, .. }) = &request.body
        && bytes.len() <= 1 << 16
        && memchr::memmem::find(bytes, b"<").is_some()
    {
        let lower = bytes.to_ascii_lowercase();
        if names_element(&lower, &["password", "passwd"])
            && names_element(&lower, &["username", "user", "login", "name"])
        {
            return true;
        }
    }
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let path = path.split_once("://").map_or(path, |(_, rest)| rest);
    let path = path
        .split_once('/')
        .map_or("", |(_, p)| p)
        .to_ascii_lowercase();
    let login_path = path
        .split(['/', '-', '_', '.'])
        .any(|w| LOGIN_PATH_WORDS.contains(&w));
    if !login_path {
        return false;
    }
    if query.iter().any(|n| LOGIN_FIELDS.contains(&n.as_str())) {
        return true;
    }
    // The body is read only for a request to such a path (few are).
    match &request.body {
        Some(Body::Bytes { bytes, .. }) => {
            let lower = bytes.to_ascii_lowercase();
            names_field(&lower, LOGIN_FIELDS)
                || names_field(&lower, &["samlresponse"])
                || (names_field(&lower, &["code"]) && names_field(&lower, &["state"]))
        }
        // A body the recorder stored parsed (talkback's, nock's JSON): its keys, at any depth.
        Some(Body::Data { node, .. }) => {
            let mut keys: Vec<String> = Vec::new();
            vcr_cassette::http::body::for_each_node_leaf(node, &mut |leaf| {
                if leaf.is_key {
                    keys.push(leaf.text.to_ascii_lowercase());
                }
            });
            let has = |names: &[&str]| keys.iter().any(|k| names.contains(&k.as_str()));
            has(LOGIN_FIELDS) || has(&["samlresponse"]) || (has(&["code"]) && has(&["state"]))
        }
        None => false,
    }
}

/// Words of a URL path that name a login, a session or a token endpoint.
const LOGIN_PATH_WORDS: &[&str] = &[
    "login",
    "logon",
    "signin",
    "sign",
    "session",
    "sessions",
    "authn",
    "auth",
    "authenticate",
    "authorize",
    "oauth",
    "oauth2",
    "token",
    "tokens",
    "saml",
    "sso",
    "callback",
    "verify",
    "magic",
    "mfa",
    "otp",
    "factors",
    "2fa",
    "connect",
];

/// Fields whose sending is a login's (their values may be filtered).
const LOGIN_FIELDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "otp",
    "passcode",
    "totp",
    "sessiontoken",
    "session_token",
    "samlresponse",
    "code",
    "token",
    "assertion",
    "client_secret",
    "refresh_token",
    "username",
    "login",
];

/// Whether a lower-cased body names one of `names` (lower-case) as a JSON key or a form field: the
/// name between quotes or after `&`/the start, then `:` or `=`.
fn names_field(lower: &[u8], names: &[&str]) -> bool {
    names.iter().any(|name| {
        memchr::memmem::find_iter(lower, name.as_bytes()).any(|at| {
            let before = at.checked_sub(1).map(|i| lower[i]);
            let after = &lower[at + name.len()..];
            let after = (after.strip_prefix(b"\\\""))
                .or_else(|| after.strip_prefix(b"\""))
                .or_else(|| after.strip_prefix(b"'"))
                .unwrap_or(after);
            let after = after.trim_ascii_start();
            matches!(before, None | Some(b'"' | b'\'' | b'&' | b'?'))
                && matches!(after.first(), Some(b':' | b'='))
        })
    })
}

/// Whether a lower-cased XML body has an element of one of `names`, in any namespace
/// (`<password versionId="5.5">`, `<ns:password>`).
fn names_element(lower: &[u8], names: &[&str]) -> bool {
    names.iter().any(|name| {
        memchr::memmem::find_iter(lower, name.as_bytes()).any(|at| {
            let before = at.checked_sub(1).map(|i| lower[i]);
            let after = lower.get(at + name.len()).copied();
            let opens = match before {
                Some(b'<') => true,
                Some(b':') => {
                    // A namespace prefix: `<` then letters, digits, `_` or `-` up to the `:`.
                    let head = &lower[..at - 1];
                    let prefix = head
                        .iter()
                        .rev()
                        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
                        .count();
                    prefix > 0 && head.len() > prefix && head[head.len() - prefix - 1] == b'<'
                }
                _ => false,
            };
            opens && matches!(after, Some(b'>' | b' ' | b'/' | b'\t' | b'\n'))
        })
    })
}

/// The name of the query parameter whose value a URL's text `before` a value ends in
/// (`...?a=1&leaseid=` gives `leaseid`), or `None` when the value is not in the query.
pub(super) fn query_parameter(before: &str) -> Option<&str> {
    before
        .rsplit(['?', '&'])
        .next()
        .filter(|_| before.contains('?'))
        .and_then(|p| p.split_once('='))
        .map(|(name, _)| name)
}

/// Why an id or time a matched request sent is one a run makes, or `None` when the cassette
/// shows it is a constant of the test, which replays as recorded:
/// - a UUID made up by hand (`c1234567-2222-2222-3333-444444444444`, [`is_made_up_uuid`]);
/// - a UUID in the URL's host (a server's endpoint: a client cannot make up a host that
///   answers), or in its path or query when the server answered a read or a delete with
///   success (an object it already had: one the fixture created earlier), unless the query
///   parameter names the request itself (`request_id`, `nonce`, `trace_id`, `state`);
/// - a timestamp more than a year from when the interaction was recorded, or a midnight
///   more than a day from it: a date the test passes (`since=2011-01-15T00:00:00` in a
///   cassette recorded in 2013). A time a run makes lies near the recording.
///
/// `exchange` is the interaction's evidence, `in_url` whether the hit is in its request URL,
/// `content` the text the hit's offsets are in.
pub(super) fn run_made(
    exchange: Option<&Exchange>,
    hit: &Hit,
    in_url: bool,
    content: &str,
) -> Option<String> {
    if hit.family == LeakFamily::Uuid {
        if is_made_up_uuid(&hit.text) {
            return None;
        }
        if in_url {
            let before = &content[..hit.start.min(content.len())];
            let after_scheme = before.find("://").map(|i| &before[i + 3..]);
            if after_scheme.is_some_and(|host| !host.contains('/')) {
                return None;
            }
            let parameter = query_parameter(before).map(str::to_ascii_lowercase);
            let names_a_request = parameter.as_deref().is_some_and(|name| {
                [
                    "request",
                    "nonce",
                    "trace",
                    "correlation",
                    "idempotency",
                    "session",
                    "state",
                ]
                .iter()
                .any(|w| name.contains(w))
            });
            // Whether more of the path follows the id: a `POST` under an object
            // (`/networks/<id>/scanners`) adds to one the server has.
            let after = &content[hit.end.min(content.len())..];
            let parent = after.starts_with('/') && after.len() > 1;
            let resolved = exchange.is_some_and(|e| e.resolved && (!e.posted || parent));
            if !names_a_request && resolved {
                return None;
            }
        }
        return Some(" that no earlier response handed out".to_owned());
    }
    let Some(at) = vcr_cassette::http::parse_time(&hit.text) else {
        return Some(String::new());
    };
    // The interaction's own time: each interaction is judged by its own evidence, the same
    // whether the cassette is read whole or a window at a time.
    let Some(recorded) = exchange.and_then(|e| e.time) else {
        return Some(" (the cassette records no time to tell it from a fixed date)".to_owned());
    };
    let apart = at.abs_diff(recorded);
    const DAY: u64 = 86_400;
    let midnight = at.rem_euclid(86_400) == 0;
    if apart > 366 * DAY || (midnight && apart > DAY) {
        return None;
    }
    Some(format!(" {} from when it was recorded", span(apart)))
}

/// `3 minutes`, `5 hours`, `12 days`: a span for messages.
fn span(seconds: u64) -> String {
    let (n, unit) = match seconds {
        s if s < 120 => (s, "second"),
        s if s < 2 * 3600 => (s / 60, "minute"),
        s if s < 2 * 86_400 => (s / 3600, "hour"),
        s => (s / 86_400, "day"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// A UUID written by hand: few distinct digits (`00000000-0000-0000-0000-000000000001`,
/// `c1234567-2222-2222-3333-444444444444`), or a run of six counting up
/// (`12345678-1234-...`). A random UUID has 14 to 16 distinct digits of its 32; eight or
/// fewer happen about once in 80,000, a counting run of six about once in 50,000.
fn is_made_up_uuid(uuid: &str) -> bool {
    let digits: Vec<u8> = uuid
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    let mut seen = [false; 256];
    let distinct = digits
        .iter()
        .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
        .count();
    let value = |b: u8| (b as char).to_digit(16).unwrap_or(0);
    let counting = digits
        .windows(6)
        .any(|w| w.windows(2).all(|p| value(p[1]) == value(p[0]) + 1));
    // Groups of one character repeated (`aaaaaaaa-bbbb-cccc-dddd-<time>`): one 4-digit group
    // is so about once in 4,096, two about once in 16 million.
    let repeated = uuid
        .split('-')
        .take(4)
        .filter(|group| {
            let mut bytes = group.bytes().map(|b| b.to_ascii_lowercase());
            let first = bytes.next();
            first.is_some() && bytes.all(|b| Some(b) == first)
        })
        .count();
    distinct <= 8 || counting || repeated >= 2 || uuid.eq_ignore_ascii_case(OPENAPI_EXAMPLE_UUID)
}

/// The UUID Swagger and OpenAPI tools fill in as an example (`format: uuid`): generated
/// tests and documentation send it for an object that does not exist.
const OPENAPI_EXAMPLE_UUID: &str = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_written_by_hand_are_told_from_random_ones() {
        for uuid in [
            "00000000-0000-0000-0000-000000000001",
            "c1234567-2222-2222-3333-444444444444",
            "12345678-1234-1234-1234-123456789abc",
            "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
            // Hand-written groups before a time, and OpenAPI's example.
            "aaaaaaaa-bbbb-cccc-dddd-1692865299ee",
            "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        ] {
            assert!(is_made_up_uuid(uuid), "{uuid}");
        }
        // One repeated group happens by chance about once in 4,096 random UUIDs.
        assert!(!is_made_up_uuid("7c1e9a04-aaaa-4f3b-9d2e-5b8c7a6f1e30"));
        for uuid in [
            "a036eada-c328-482e-9329-5fbb79ca3c05",
            "fb31fa2c-095d-11ee-98fe-c609abca1772",
            "3f9c2e7a-81d4-4b6e-9a05-d27c4e1b8f63",
        ] {
            assert!(!is_made_up_uuid(uuid), "{uuid}");
        }
        assert_eq!(span(61), "61 seconds");
        assert_eq!(span(3600), "60 minutes");
        assert_eq!(span(86_400 * 3), "3 days");
    }
}
