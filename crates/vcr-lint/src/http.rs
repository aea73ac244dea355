//! Leaks in HTTP cassettes, read by structure.
//!
//! A text scan of a cassette does not know a request from a response, a header from a body, or
//! what a base64 body says; most of its errors on real cassettes were false, and a third of the
//! real credentials sat where it could not see them (a `!!binary` body, a gzip response). Here
//! every text the recorder stored is visited where it means something:
//!
//! - the request left the recording machine: a home folder in it is an error; the response
//!   came back from a server: a home folder there is an error only when the request held it
//!   too (an echo) or it is this machine's, else a warning;
//! - a credential header, query parameter, cookie or form/JSON field is judged by its name,
//!   whatever the value's shape (placeholders, environment-variable names and made-up
//!   `Basic` accounts aside); every detector still runs over every decoded text;
//! - UUIDs and timestamps matter only where the recorder matches requests (`match-on`): there
//!   they break replay; anywhere else they are what servers send.
//!
//! All texts of a cassette are scanned in one pass over their concatenation (one scan per
//! file, like the text scan), and each hit is mapped back to the text it sits in.

mod evidence;
mod outside;
mod places;
mod url;

pub use outside::OUTSIDE;

/// The path of a leak in a whole-line comment, which no reader keeps.
pub const COMMENT: &str = "(comment)";

/// Where a leak is when the judge found it in a layer it decoded and the scrub does not
/// write back (base64 of text inside JSON, a stream's joined deltas, a binary body's
/// printable runs): `normalize` reports it instead of replacing it.
const ENCODED_REQUEST: &str = " in a request body (in a layer it encodes)";
const ENCODED_RESPONSE: &str = " in a response body (in a layer it encodes)";

/// The detector an `unscanned` finding names: the body decoding's inflation budget.
pub const INFLATE_LIMIT: &str = "inflate-limit";

/// How a leaf's path says it is inside a multipart part sent in base64.
const BASE64_PART: &str = "] (base64";

/// Whether a leak's place is inside a layer the scrub does not write back.
pub fn in_encoded_layer(place: &str) -> bool {
    place == ENCODED_REQUEST || place == ENCODED_RESPONSE
}

use crate::finding::Severity;
use vcr_cassette::http::body::{self, Leaf};
use vcr_cassette::http::{Body, Field, Header, HttpCassette, Matched};

use super::{Hit, LeakFamily, MACHINE_PATH, Scanner, credential};
use evidence::{Exchange, Sessions, run_made};
pub use places::{Place, places};
use url::{URL_HEADERS, parameter_credentials, url_credentials};

/// A leak found in an HTTP cassette, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLeak {
    /// The hit (its offsets are not the file's: use `offset`).
    pub hit: Hit,
    /// How bad it is where it sits.
    pub severity: Severity,
    /// Byte offset in the (decompressed) file: the leak itself where the scalar holds the text
    /// as written, else the start of the scalar that holds it.
    pub offset: Option<usize>,
    /// The readable path: `interactions[3].response.body.string (gzip, json) /token`.
    pub path: String,
    /// Where, for messages: ` in a request header`, ` in a response body`.
    pub place: &'static str,
    /// How many more times the file holds the same value (one finding stands for all).
    pub repeats: usize,
    /// Why the value was judged one, where the judgement weighed evidence in the cassette
    /// (` that no earlier response handed out`); empty otherwise.
    pub why: String,
}

/// The reason of a session cookie that counts only where the project's recorder removes the
/// credentials its requests carry (vcrpy's `filter_headers` naming `Authorization`): a
/// server set it while the cassette shows no request that signed in, which is a visit's
/// session, or a login's whose credentials the recorder removed. The cassette cannot tell;
/// the project's configuration can, so whoever reads it decides (issue 41: 119 files of a
/// blind set held such a session).
pub use super::reason::SESSION_OF_REMOVED_LOGIN;

/// Request headers whose value is a credential whatever its shape.
const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "apikey",
    "x-goog-api-key",
    "x-amz-security-token",
    "x-auth-token",
    "x-access-token",
    "x-token",
    "auth-token",
    "private-token",
    "x-vault-token",
    "ocp-apim-subscription-key",
    "x-functions-key",
    "anthropic-api-key",
    "openai-api-key",
    "x-openai-api-key",
    "x-goog-user-project-token",
    "x-shopify-access-token",
    "x-figma-token",
    "x-dd-api-key",
    "dd-api-key",
    "x-dd-application-key",
    "dd-application-key",
    "x-pinecone-api-key",
];

/// Whether a header's value is a credential by its name: one of [`CREDENTIAL_HEADERS`], or
/// a name that says an API key, a secret, a password or a token (`X-APIKeys`,
/// `X-Vendor-Secret`, `X-Session-Token`), not a CSRF token's, a rate limit's or CORS's.
pub(crate) fn is_credential_header(name: &str, side: Side) -> bool {
    thread_local! {
        static REQUEST: NameAnswers<bool> = NameAnswers::default();
        static RESPONSE: NameAnswers<bool> = NameAnswers::default();
    }
    // Every interaction repeats its headers, and the answer takes a copy and a score of
    // substring searches (issue 44).
    let answers = match side {
        Side::Request => &REQUEST,
        Side::Response => &RESPONSE,
    };
    remembered(answers, name, || credential_header_by_name(name, side))
}

/// One thread's answers about names (a field's, a header's), for [`remembered`].
type NameAnswers<V> = std::cell::RefCell<std::collections::HashMap<Box<str>, V>>;

/// What `work` answers about `name`, worked out once per thread and name: a cassette repeats
/// its field and header names in every interaction, and the answers split names into words
/// and search them (issue 44). At most 4,096 names are kept; past that the thread starts
/// again, a bound on its memory.
fn remembered<V: Copy>(
    answers: &'static std::thread::LocalKey<NameAnswers<V>>,
    name: &str,
    work: impl FnOnce() -> V,
) -> V {
    const KEPT: usize = 4096;
    if let Some(known) = answers.with_borrow(|seen| seen.get(name).copied()) {
        return known;
    }
    let answer = work();
    answers.with_borrow_mut(|seen| {
        if seen.len() >= KEPT {
            seen.clear();
        }
        seen.insert(name.into(), answer);
    });
    answer
}

/// [`is_credential_header`], worked out.
fn credential_header_by_name(name: &str, side: Side) -> bool {
    if is_one_of(name, CREDENTIAL_HEADERS) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let not = [
        "csrf",
        "xsrf",
        "access-control",
        "ratelimit",
        "rate-limit",
        "authenticate",
        "continuation",
        "cursor",
        "next",
        "page",
        "pagination",
        "paging",
        // A request's idempotency key (`X-Goog-Gcs-Idempotency-Token`): a retry's id.
        "idempotency",
    ];
    !not.iter().any(|w| lower.contains(w))
        && (["apikey", "api-key", "api_key", "secret", "password", "passwd", "access-key"]
            .iter()
            .any(|w| lower.contains(w))
            || lower.ends_with("-token")
            || lower.ends_with("_token")
            // A request's `key` header: what else a client sends under that name alone is an
            // API key. A longer name ending in `-Key` names other keys too (a file's
            // `x-ms-file-permission-key`, `Sec-WebSocket-Key`).
            || (side == Side::Request && lower == "key")
            // A request's session header carries a session; a response's names one (an
            // Azure ML model session, a request's trace).
            || (side == Side::Request && lower.contains("session")))
}

/// Whether a request header's name ends in `-key` or `_key` and names no key that is not a
/// secret: a WebSocket handshake's nonce, a file's permission descriptor, a retry's
/// idempotency key, a cache or partition key. What else a client sends under such a name
/// (`x-lc-hook-key`, `ftx-key`, `ok-access-key`) is a vendor's API key; in the labelled
/// sets, 128 files leaked one under a name no list held (issue 41).
fn names_a_vendor_key(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    (lower.ends_with("-key") || lower.ends_with("_key"))
        && ![
            "websocket",
            "permission",
            "idempotency",
            "idempotent",
            "cache",
            "partition",
            "routing",
            "dedup",
            "lock",
            "public",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

/// Whether a header's value reads as a random key: random-shaped
/// ([`credential::is_random_shaped`]: a token's alphabet, not words, not a UUID), at least
/// 16 characters, letters and digits both, not the 24 characters of base64 that a 16-byte
/// nonce makes. A name that says `key` alone is weak evidence; the value's shape carries the
/// rest (an id, a word, a number is no key).
fn is_random_key(value: &str) -> bool {
    let nonce = value.len() == 24 && value.ends_with("==");
    value.len() >= 16
        && !nonce
        && value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_alphabetic())
        && credential::is_random_shaped(value)
}

/// Query parameters whose value is a credential.
const CREDENTIAL_PARAMETERS: &[&str] = &[
    "api_key",
    "apikey",
    "api-key",
    "key",
    "token",
    "access_token",
    "auth_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "password",
    "passwd",
    "passcode",
    // A meeting link's passcode (Zoom's `/j/<id>?pwd=...`).
    "pwd",
    "secret",
    "x-amz-security-token",
    "x-amz-signature",
    "x-amz-credential",
    "signature",
    "sig",
    "x-goog-signature",
    "x-goog-credential",
    "session_token",
];

/// Fields (form, JSON, multipart) whose value is a credential.
const CREDENTIAL_FIELDS: &[&str] = &[
    "authorization",
    "api_key",
    "apikey",
    "api-key",
    "x-api-key",
    "token",
    "access_token",
    "access-token",
    "accesstoken",
    "refresh_token",
    "refreshtoken",
    "id_token",
    "auth_token",
    "client_secret",
    "client-secret",
    "clientsecret",
    "password",
    "passwd",
    "secret_key",
    "secret_access_key",
    "aws_secret_access_key",
    "session_token",
    "sessiontoken",
    "aws_session_token",
    "private_key",
    "bot_token",
];

/// The names that make a body worth decoding: a field judged by its name could be in it.
/// Lower-case, to be searched for in a lower-cased copy of the body: without case
/// folding in the automaton, the search runs on aho-corasick's packed (Teddy) prefilter
/// instead of stepping a DFA through every byte, several times faster (issue 12).
fn field_names() -> &'static aho_corasick::AhoCorasick {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            // Leftmost-longest, not overlapping, which a DFA can run (issue 12). Nothing is lost: a name that starts inside a
            // longer one follows a letter, and one that shares its start is followed by one,
            // so neither could pass the boundary checks (see the test).
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            // A DFA: a few hundred states for these names, each byte one table lookup.
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(
                FIELD_NAMES
                    .iter()
                    .flat_map(|l| l.iter())
                    .map(|n| n.to_ascii_lowercase()),
            )
            .expect("literal names build")
    })
}

/// What `names_a_field` looks for: the credential fields, the two names that are
/// credentials beside other keys, and (last, see [`URL_NAMES`]) the query parameters that
/// are no field's name.
const FIELD_NAMES: [&[&str]; 4] = [
    CREDENTIAL_FIELDS,
    &[
        "secret",
        "apikey",
        "session_id",
        "sessionid",
        "secretaccesskey",
    ],
    SECRET_SUFFIXES,
    URL_NAMES,
];

/// The last words of names that say a secret ([`names_a_secret`]): `activationToken`,
/// `tempPassword`; they count where a quote closes the name after them (or `>`, an XML
/// element's: `<SessionToken>`).
const SECRET_SUFFIXES: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "passcode",
    "apikey",
    "api_key",
    "api-key",
    "authcode",
    "auth_code",
    "eppcode",
];

/// The credential query parameters that name no credential field: a body that holds one
/// in a URL (`&X-Amz-Signature=`, `?key=`) is decoded for the URL to be judged. They count
/// only as a URL writes them, after `?` or `&` (or JSON's `\u0026`, HTML's `&amp;`) and
/// before `=`, so that a JSON `"key":` does not make every body worth decoding.
const URL_NAMES: &[&str] = &[
    "key",
    "sig",
    "signature",
    "x-amz-security-token",
    "x-amz-signature",
    "x-amz-credential",
    "x-goog-signature",
    "x-goog-credential",
];

/// How much of a body is lower-cased at a time for the name search: a copy of a small
/// window stays in the cache, and a large body is not copied whole.
const NAME_WINDOW: usize = 1 << 16;

/// Whether a body names a credential field as a key or parameter: the name whole, between
/// quotes (escaped or not) or before `=` (`"password":`, `\"token\"`, `&api_key=`), not
/// inside another word (`max_tokens`). Names are compared without case.
/// The search is the case-folded one unless `folded` is off (`ReadOptions::folded_search`).
fn names_a_field(bytes: &[u8], folded: bool) -> bool {
    if !folded {
        return names_a_field_bytewise(bytes);
    }
    names_a_field_in(bytes, NAME_WINDOW)
}

/// `names_a_field` as it was searched before (the testing hook's path): a DFA that folds
/// case, one step per byte.
fn names_a_field_bytewise(bytes: &[u8]) -> bool {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(FIELD_NAMES.iter().flat_map(|l| l.iter()))
            .expect("literal names build")
    });
    (names.find_iter(bytes)).any(|m| is_name_at(bytes, m.start(), m.end(), m.pattern().as_usize()))
}

/// Whether the name of pattern `pattern` of [`FIELD_NAMES`], found at `start..end`, stands
/// as a key or parameter ([`is_field_name_at`]), or for the last list, as a URL's parameter.
fn is_name_at(bytes: &[u8], start: usize, end: usize, pattern: usize) -> bool {
    let fields: usize = FIELD_NAMES[..2].iter().map(|l| l.len()).sum();
    let name = FIELD_NAMES.iter().flat_map(|l| l.iter()).nth(pattern);
    // The last word of a longer name that says a secret (`"activationToken":`), closed by a
    // quote.
    // A name found whole ends with the word as well (`access_token"`): the search does not
    // report the shorter match inside it.
    let ends_in_suffix = |n: &&str| {
        let n = n.to_ascii_lowercase();
        SECRET_SUFFIXES.iter().any(|s| n.ends_with(s))
    };
    if name.is_some_and(ends_in_suffix) {
        let after = &bytes[end.min(bytes.len())..];
        let after = after.strip_prefix(b"\\").unwrap_or(after);
        if matches!(after.first(), Some(b'"' | b'\'' | b'>')) {
            return true;
        }
    }
    if pattern < fields + SECRET_SUFFIXES.len() {
        return pattern < fields && is_field_name_at(bytes, start, end);
    }
    let before = &bytes[..start];
    (before.ends_with(b"?")
        || before.ends_with(b"&")
        || before.ends_with(b"\\u0026")
        || before.ends_with(b"&amp;"))
        && bytes.get(end) == Some(&b'=')
}

/// `names_a_field`, lower-casing `window` bytes at a time. Each window runs on by the
/// longest name less one, so that every name that starts in it is whole. A window may find
/// a name that an earlier window's match overlaps; such a name starts inside another name,
/// after a letter, `_` or `-`, and fails the boundary check as it would over the whole text.
fn names_a_field_in(bytes: &[u8], window: usize) -> bool {
    let longest = FIELD_NAMES.iter().flat_map(|l| l.iter()).map(|n| n.len());
    let ahead = longest.max().unwrap_or(1) - 1;
    let mut folded = Vec::with_capacity(bytes.len().min(window) + ahead);
    let mut from = 0;
    while from < bytes.len() {
        let to = (from + window).min(bytes.len());
        folded.clear();
        folded.extend(
            bytes[from..(to + ahead).min(bytes.len())]
                .iter()
                .map(u8::to_ascii_lowercase),
        );
        let found = field_names().find_iter(&folded).any(|m| {
            let (start, end) = (from + m.start(), from + m.end());
            start < to && is_name_at(bytes, start, end, m.pattern().as_usize())
        });
        if found {
            return true;
        }
        from = to;
    }
    false
}

/// Whether the name found at `start..end` stands as a key or a parameter.
fn is_field_name_at(bytes: &[u8], start: usize, end: usize) -> bool {
    let before = start.checked_sub(1).map(|i| bytes[i]);
    let after = bytes.get(end).copied();
    matches!(
        before,
        None | Some(b'"' | b'\'' | b'\\' | b'&' | b'?' | b'\n' | b' ')
    ) && matches!(after, None | Some(b'"' | b'\'' | b'\\' | b'=' | b':'))
}

/// Whether a field's value is the id of a link its object shares on purpose: a sibling whose
/// name says a public or shared URL (`public_url`, `share_url`, `shareUrl`) holds it (a
/// shared dashboard's `token` is the last segment of its `public_url`, issue 41). Anyone
/// with the link opens it; that is what the object is for.
fn shared_by_link(leaf: &Leaf<'_>) -> bool {
    let value = leaf.text.trim();
    value.len() >= 8
        && leaf.siblings.is_some_and(|entries| {
            // A record shares a file in a few dozen fields; an object of thousands of
            // entries is data (a facet's counts by year or id), and looking through it for
            // each of its values was quadratic (40,000 entries: 20 s).
            entries.len() <= MAX_RECORD_FIELDS
                && entries.iter().any(|(k, v)| {
                    k.as_str().is_some_and(|k| {
                        let k = k.to_ascii_lowercase();
                        (k.contains("public") || k.contains("share")) && k.contains("url")
                    }) && v
                        .as_str()
                        .is_some_and(|url| url.starts_with("http") && url.contains(value))
                })
        })
}

/// The most fields an object has that [`shared_by_link`] reads as a record.
const MAX_RECORD_FIELDS: usize = 256;

/// Keys beside which a `secret` field is a client's or an app's secret.
const CLIENT_KEYS: &[&str] = &[
    "client_id",
    "clientid",
    "client-id",
    "redirect_uri",
    "redirect_url",
    "app_id",
    "appid",
    "application_id",
    "consumer_key",
    "client_name",
    "key_id",
    "access_key",
];

/// Whether a cookie is judged by its name as a credential: a session cookie's name, and a
/// value in a token's characters (session ids and tokens are; a value of words and JSON, a
/// demo app's `Bearer <time>:{"user": ...}`, is not one).
pub(crate) fn is_session_credential(name: &str, value: &str) -> bool {
    let (_, token) = super::placeholder::split_scheme(value);
    is_session_cookie(name) && super::placeholder::is_token_charset(token)
}

/// The name of a body leaf that a credential field's name gives it, when it has one: one of
/// [`CREDENTIAL_FIELDS`], or `secret` beside a client's id. A key itself is none.
fn credential_field_name<'l>(leaf: &Leaf<'l>) -> Option<&'l str> {
    let name = leaf.name.filter(|_| !leaf.is_key)?;
    let client_secret = name.eq_ignore_ascii_case("secret")
        && leaf.siblings.is_some_and(|entries| {
            entries
                .iter()
                .any(|(k, _)| k.as_str().is_some_and(|k| is_one_of(k, CLIENT_KEYS)))
        });
    let (listed, by_words) = field_name_kind(name);
    let page = || {
        leaf.siblings.is_some_and(|entries| {
            is_page_of_results(entries.iter().filter_map(|(k, _)| k.as_str()))
        })
    };
    if name.eq_ignore_ascii_case("token") && page() {
        return None;
    }
    (client_secret || listed || by_words && credential::is_random_shaped(leaf.text.trim()))
        .then_some(name)
}

/// Whether an object's keys say it is a page of results (`total`, `next`, `offset`,
/// `has_more` beside `data`) and none says it is a token's grant (`expires_in`,
/// `token_type`, `scope`): its `token` is the cursor to the next page (a bulk search's).
fn is_page_of_results<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> bool {
    let keys = || keys.clone();
    let paged = [
        "total",
        "next",
        "offset",
        "has_more",
        "hasmore",
        "next_page",
        "nextpage",
        "cursor",
        "total_count",
        "totalcount",
    ];
    let grant = [
        "expires_in",
        "expires",
        "expires_at",
        "token_type",
        "refresh_token",
        "scope",
    ];
    keys().any(|k| paged.iter().any(|p| k.eq_ignore_ascii_case(p)))
        && !keys().any(|k| grant.iter().any(|g| k.eq_ignore_ascii_case(g)))
}

/// A field's name with `_` and `-` left out, in lower case.
fn squash(name: &str) -> String {
    name.chars()
        .filter(|&c| c != '_' && c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// [`CREDENTIAL_FIELDS`] squashed ([`squash`]), built once: squashing the list again for
/// every field of every body was a third of `verify`'s CPU on the corpus (issue 44).
fn squashed_fields() -> &'static std::collections::HashSet<String> {
    static FIELDS: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    FIELDS.get_or_init(|| CREDENTIAL_FIELDS.iter().map(|f| squash(f)).collect())
}

/// What a field's name says, remembered for this thread ([`remembered`]): whether it is one
/// of [`CREDENTIAL_FIELDS`] however its words are joined (`SecretAccessKey`,
/// `session-token`), and whether it names a secret or a session by its words
/// ([`names_a_secret`], [`names_a_session`]), which makes a random-shaped value a credential.
fn field_name_kind(name: &str) -> (bool, bool) {
    thread_local! {
        static FIELDS: NameAnswers<(bool, bool)> = NameAnswers::default();
    }
    remembered(&FIELDS, name, || {
        let listed =
            is_one_of(name, CREDENTIAL_FIELDS) || squashed_fields().contains(&squash(name));
        (listed, names_a_secret(name) || names_a_session(name))
    })
}

/// Whether a name's last word is `session` (`X-TFS-Session`).
fn ends_in_session(name: &str) -> bool {
    super::words::name_words(name)
        .last()
        .is_some_and(|w| w == "session")
}

/// Whether a name is a session's id (`session_id`, `sessionId`): a secret when its value
/// is random-shaped (a one-time onboarding link's session), an id when it is a UUID (an
/// agent's conversation).
pub(crate) fn names_a_session(name: &str) -> bool {
    let words = super::words::name_words(name);
    matches!(
        words.iter().map(String::as_str).collect::<Vec<_>>()[..],
        [.., "session", "id"] | [.., "sessionid"]
    )
}

/// Words of a name that say its value is no secret, whatever word ends it: a cursor, a
/// count, a kind, a CSRF pairing, a challenge published by design ([`names_a_secret`]).
const NOT_A_SECRET: &[&str] = &[
    "next",
    "prev",
    "previous",
    "page",
    "pagination",
    "paging",
    "continuation",
    "cursor",
    "csrf",
    "xsrf",
    // Rails' name for its CSRF token (`authenticity_token`).
    "authenticity",
    // A challenge published by design: a domain's validation token is a DNS record, a
    // webhook's is echoed back by the endpoint that receives it.
    "validation",
    "challenge",
    "max",
    "min",
    "count",
    "type",
    "limit",
    "usage",
    "input",
    "output",
    "prompt",
    "completion",
    "total",
    "num",
    "expires",
    "expiry",
    "expiration",
    "length",
    "policy",
    "hint",
    "name",
    "url",
    "uri",
    "endpoint",
    "enabled",
    "required",
    "reset",
    "changed",
    "last",
    "set",
    "has",
    "is",
    "sync",
    "geo",
    "search",
    "query",
    "public",
    "hashed",
    "hash",
    // A request's idempotency key (AWS's `ClientRequestToken`, `idempotencyToken`).
    "idempotency",
    "idempotent",
    // What a link made to be handed out holds (a dashboard's public `share_token`, an
    // activity map's `embed_token`): published by whoever shares it. In two blind sets, 10
    // files held one and none was labelled a leak (issue 41).
    "share",
    "shared",
    "embed",
];

/// Whether a name has a word of [`NOT_A_SECRET`] (`page-token`, `csrf-token`).
pub(crate) fn names_no_secret(name: &str) -> bool {
    (super::words::name_words(name).iter()).any(|w| NOT_A_SECRET.contains(&w.as_str()))
}

/// Whether a field's name says it holds a secret by its last word (`activationToken`,
/// `tempPassword`, `recovery_token`, `webhookSecret`) or two (`mailer_api_key`), and none of its words says it is a
/// cursor, a count, a kind or a CSRF pairing (`next_token`, `max_tokens`, `token_type`).
/// Such a value is then judged as every named one is, and must be random-shaped.
fn names_a_secret(name: &str) -> bool {
    let words = super::words::name_words(name);
    let Some(last) = words.last() else {
        return false;
    };
    if words.len() >= 3 && words[words.len() - 3] == "client" && words[words.len() - 2] == "request"
    {
        return false;
    }
    // An API key by its last words (`mailer_api_key`, `stripeApiKey`); `key` alone names
    // cache keys, object keys and idempotency keys.
    let api_key =
        last == "apikey" || (last == "key" && words.len() >= 2 && words[words.len() - 2] == "api");
    // A domain's transfer secret (`authCode`, EPP's `authInfo` code): whoever holds it moves
    // the domain to another registrar. `code` alone names OAuth's one-time grant and status
    // codes.
    let auth_code = matches!(last.as_str(), "authcode" | "eppcode")
        || (last == "code"
            && words.len() >= 2
            && matches!(words[words.len() - 2].as_str(), "auth" | "epp" | "transfer"));
    (["token", "secret", "password", "passwd", "passcode"].contains(&last.as_str())
        || api_key
        || auth_code)
        && !words.iter().any(|w| NOT_A_SECRET.contains(&w.as_str()))
}

/// Cookie names that hold a session or a credential.
fn is_session_cookie(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if is_browser_cookie(&lower) {
        return false;
    }
    [
        "sess",
        "sid",
        "token",
        "auth",
        "jwt",
        "login",
        "remember",
        "secret",
        "credential",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Cookies (lower-case names) that identify a browser, not a login: analytics and tracking
/// (`session_tracker`, `_ga`), bot protection, web application firewalls and load balancing
/// (`__cf_bm`, `_cfuvid`, Imperva's `incap_ses_*`, Akamai's `ak_bmsc`, Huawei's
/// `HWWAFSESID`, `AWSALB`), and CSRF tokens, which only pair
/// a form with the browser that loaded it.
fn is_browser_cookie(lower: &str) -> bool {
    ["track", "analytic", "visitor", "csrf", "xsrf", "waf"]
        .iter()
        .any(|w| lower.contains(w))
        || [
            "_ga",
            "_gid",
            "__utm",
            "__cf",
            "_cfuvid",
            "cf_",
            "incap_ses",
            "visid_incap",
            "nlbi_",
            "ak_bmsc",
            "bm_sv",
            "_abck",
            "awsalb",
            "datadome",
            "loid",
            "edgebucket",
        ]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// A header value written as `name=value` pairs separated by `;` or `,` (`accessKey=a;
/// secretKey=b;`, `key=...`), each `(name, value)`; none when it is not all such pairs
/// (`Bearer <token>`, base64 that ends in `=`).
fn key_value_pairs(value: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    for part in value
        .split([';', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match part.split_once('=') {
            Some((name, v))
                if !name.is_empty()
                    && !v.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
            {
                pairs.push((name, v.trim()));
            }
            _ => return Vec::new(),
        }
    }
    pairs
}

/// Which side of the exchange a text is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Request,
    Response,
}

/// One text of the cassette, where it came from and what it means. Its characters are in the
/// buffer every text is joined into; its path is built only if something is found in it.
struct Text<'a> {
    /// Where it is in the joined buffer.
    start: usize,
    end: usize,
    path: TextPath<'a>,
    /// The scalar of its own it was read from (a field, a node of a body stored as data):
    /// where a leak is placed exactly when the scalar holds the text as written. Checked only
    /// for texts a leak is found in.
    own: Option<usize>,
    /// The scalar that holds it (the body's scalar for decoded content).
    anchor: Option<usize>,
    side: Side,
    /// Whether the recorder matches requests by it.
    matched: bool,
    place: &'static str,
    /// A Firebase web config's `apiKey`, public by design.
    public: bool,
    /// The interaction it belongs to.
    interaction: usize,
}

// A text is kept for each string a body holds (each leaf of a JSON body, each event of a
// stream): a body of 16,000 secrets held 16,000 of them, 120 bytes each before a header's
// path became one pointer (issue 43).
const _: () = assert!(size_of::<Text<'static>>() <= 104);

/// The readable path of a text, built only for a text a leak is found in (building one for
/// every URL and header cost more than finding nothing in them, issue 12): a field's own path
/// (a URL), a header's, or the `ordinal`-th leaf of the `body`-th body, found again by walking
/// that body.
enum TextPath<'a> {
    Field(&'a str),
    /// A header's value (its path and name are the header's: one pointer keeps a text small,
    /// and a body of thousands of leaves holds a text per leaf, issue 43).
    Header(&'a Header),
    Leaf {
        body: usize,
        ordinal: usize,
    },
}

/// A body whose leaves are among the texts, kept to name a leaf when a leak is found in it.
struct BodyAt<'a> {
    body: &'a Body,
    headers: &'a [Header],
    /// A web page or script served to anyone (see [`Collect::body`]).
    public_page: bool,
}

impl BodyAt<'_> {
    /// Walks the body once (decoding it again) and gives the paths of its leaves numbered
    /// `ordinals` (sorted), in that order.
    fn leaf_paths(&self, ordinals: &[usize]) -> Vec<String> {
        let mut found = Vec::with_capacity(ordinals.len());
        let mut i = 0;
        each_leaf(self.body, self.headers, &mut |leaf, base, described| {
            while found.len() < ordinals.len() && ordinals[found.len()] == i {
                found.push(leaf_path(base, described, leaf.path));
            }
            i += 1;
        });
        // A walk gives the leaves the first one gave; should it not, no leak loses its place.
        found.resize(ordinals.len(), String::new());
        found
    }
}

/// Each leaf of a body, decoded as `headers` say, with the body's own path and how it was
/// decoded (`gzip, json`): the walk [`Collect::body`] makes, for what names a leaf again.
fn each_leaf(body: &Body, headers: &[Header], visit: &mut dyn FnMut(&Leaf<'_>, &str, &str)) {
    match body {
        Body::Bytes { field, bytes, .. } => match body::decode_stored(bytes, headers) {
            // Its one leaf, the text as stored (see `Collect::body`).
            Ok(text) => visit(&Leaf::stored(text), &field.path, ""),
            Err(decoded) => {
                let described = body::describe(&decoded);
                body::for_each_leaf(&decoded, &mut |leaf| {
                    visit(leaf, &field.path, &described);
                });
            }
        },
        Body::Data { path, node } => {
            body::for_each_node_leaf(node, &mut |leaf| visit(leaf, path, ""));
        }
    }
}

/// `interactions[0].response.body.string (gzip, json) /choices/0/text`
fn leaf_path(base: &str, described: &str, leaf: &str) -> String {
    match (described.is_empty(), leaf.is_empty()) {
        (true, true) => base.to_owned(),
        (true, false) => format!("{base} {leaf}"),
        (false, true) => format!("{base} ({described})"),
        (false, false) => format!("{base} ({described}) {leaf}"),
    }
}

/// The size from which a body stored as plain text is scanned where it is rather than
/// joined with the other texts: joining saves a scan per text where texts are many and
/// small, and costs a copy of the text.
const LARGE: usize = 1 << 20;

/// Every text of a cassette, joined, and the leaks found by name on the way.
struct Collect<'a> {
    file: &'a [u8],
    scanner: &'a Scanner,
    /// Bodies read as plain text without being decoded (nothing in them can be a finding),
    /// kept for what an echo or an id handed out earlier is looked up in.
    context: Vec<(usize, Side, &'a [u8])>,
    joined: String,
    texts: Vec<Text<'a>>,
    /// Bodies stored as plain text of [`LARGE`] bytes or more, each its one text, scanned
    /// where they are instead of copied into `joined` (a 500 MB body was held a third time).
    large: Vec<(Text<'a>, &'a str)>,
    bodies: Vec<BodyAt<'a>>,
    named: Vec<HttpLeak>,
    /// What each interaction says of its request's ids and times, by index.
    exchanges: Vec<Exchange>,
    /// What the requests so far did, this window's and the earlier windows'.
    sessions: Sessions,
    /// The ranges of the file that no interaction holds (the recorder's own fields).
    outside: &'a [(u32, u32)],
}

impl<'a> Collect<'a> {
    /// Whether the file holds `value` outside its interactions, where a recorder keeps what
    /// it hands back on replay: Azure's test recorders keep the ids a test made in
    /// `Variables` and `Names`, and the test reads them back instead of making new ones.
    fn kept_by_recorder(&self, value: &str) -> bool {
        let finder = memchr::memmem::Finder::new(value.as_bytes());
        self.outside.iter().any(|&(start, end)| {
            self.file
                .get(start as usize..end as usize)
                .is_some_and(|range| finder.find(range).is_some())
        })
    }

    /// Whether `side` is a response sent while no request so far had carried a credential
    /// or a login: what the server hands to everyone.
    fn anonymous(&self, side: Side, interaction: usize) -> bool {
        side == Side::Response
            && self
                .exchanges
                .get(interaction)
                .is_some_and(|e| !e.credentialed)
    }

    fn push(&mut self, text: &str, mut item: Text<'a>) {
        item.start = self.joined.len();
        self.joined.push_str(text);
        item.end = self.joined.len();
        self.joined.push('\n');
        self.texts.push(item);
    }

    /// A field's text, placed exactly when the scalar holds it as written.
    fn field(
        &mut self,
        field: &Field,
        path: TextPath<'a>,
        side: Side,
        interaction: usize,
        matched: bool,
        place: &'static str,
    ) {
        let item = Text {
            start: 0,
            end: 0,
            path,
            own: field.at.map(|a| a as usize),
            anchor: field.at.map(|a| a as usize),
            side,
            matched,
            place,
            public: false,
            interaction,
        };
        self.push(&field.text, item);
    }

    fn headers(&mut self, headers: &'a [Header], side: Side, interaction: usize, matched: bool) {
        let place = match side {
            Side::Request => " in a request header",
            Side::Response => " in a response header",
        };
        for header in headers {
            let name = header.name.as_str();
            let value = &header.value;
            let path = || header_path(&value.path, name);
            // A session's id that is a UUID names a conversation (Claude Code's
            // `X-Claude-Code-Session-Id`), as a field of that name does: an id, read as
            // any header's text, not judged as a credential.
            // So does a UUID under a name that ends in `session` (Azure DevOps'
            // `X-TFS-Session`, a client's id for its run, echoed as the server's trace id):
            // in the labelled sets, 58 files hold such a header and none a credential.
            let conversation = credential::is_uuid(value.text.trim())
                && (names_a_session(name) || ends_in_session(name));
            // A vendor's key header (`x-lc-hook-key`) that no list holds: a credential when
            // its value is a random key, not a UUID (a request's id) nor a word.
            let vendor_key = side == Side::Request
                && !conversation
                && names_a_vendor_key(name)
                && is_random_key(value.text.trim());
            if !conversation && (vendor_key || is_credential_header(name, side)) {
                // `accessKey=...; secretKey=...` (Tenable's `X-ApiKeys`): each value judged
                // by the name beside it.
                let pairs = key_value_pairs(&value.text);
                if pairs.is_empty()
                    && let Ok(hit) = credential::named("credential-header", name, &value.text, 4)
                {
                    self.named
                        .push(leak_at(hit, value, self.file, path(), place));
                }
                for (key, pair_value) in pairs {
                    if let Ok(hit) = credential::named("credential-header", key, pair_value, 4) {
                        let path = format!("{} {key}", path());
                        self.named.push(leak_at(hit, value, self.file, path, place));
                    }
                }
                continue;
            }
            // A cookie set in answer to a request that carried no credential and no login
            // names a browser (a visit, a bot check), not an account: it is not one.
            if name.eq_ignore_ascii_case("set-cookie") && self.anonymous(side, interaction) {
                if let Some(cookie) = value.text.split(';').next() {
                    self.sessions.anonymous.insert(cookie.trim().to_owned());
                }
                continue;
            }
            if name.eq_ignore_ascii_case("cookie") || name.eq_ignore_ascii_case("set-cookie") {
                // The same cookie sent back before any request signed in is that visit still.
                let signed_in = self.exchanges.get(interaction).is_some_and(|e| e.signed_in);
                let cookies = value.text.split(';');
                let take = if name.eq_ignore_ascii_case("cookie") {
                    usize::MAX
                } else {
                    1
                };
                // Where the header's text starts in the file, found once: each cookie's
                // value is placed inside its own cookie (placing each in the whole header
                // made a header of many cookies quadratic, issue 43).
                let at = value.at.map(|a| a as usize);
                let start = exact_offset(at, &value.text, self.file);
                let mut cookie_at = 0;
                for cookie in cookies.take(take) {
                    let this = cookie_at;
                    cookie_at += cookie.len() + 1;
                    let Some((cookie_name, cookie_value)) = cookie.trim().split_once('=') else {
                        continue;
                    };
                    // A session a server set while no request carried a credential is a
                    // visit's, unless the recorder removed the credentials the requests
                    // carried: judged, and marked so that only a project whose recorder
                    // removes them reports it (`SESSION_OF_REMOVED_LOGIN`).
                    let visit = side == Side::Request
                        && !signed_in
                        && self.sessions.anonymous.contains(cookie.trim());
                    // A cookie's value may be quoted (RFC 6265: `sid="7bea..."`).
                    let cookie_value = body::percent_decode(cookie_value.trim_matches('"'));
                    if is_session_credential(cookie_name, &cookie_value)
                        && let Ok(hit) =
                            credential::named("credential-header", cookie_name, &cookie_value, 8)
                    {
                        let path = format!("{} cookie {cookie_name}", path());
                        let offset = start
                            .and_then(|start| {
                                cookie.find(hit.text.as_str()).map(|i| start + this + i)
                            })
                            .or(at);
                        let mut hit = hit;
                        if visit {
                            hit.reason = SESSION_OF_REMOVED_LOGIN;
                        }
                        let mut leak = leaf_leak(hit, "", (None, None), self.file, path, place);
                        leak.offset = offset;
                        self.named.push(leak);
                    }
                }
                continue;
            }
            // A challenge (`WWW-Authenticate: Bearer authorization="https://login..."`) names
            // where to get a credential; its parameters hold none (issue 41).
            if name.eq_ignore_ascii_case("www-authenticate")
                || name.eq_ignore_ascii_case("proxy-authenticate")
            {
                continue;
            }
            let relative = is_one_of(name, URL_HEADERS) && value.text.starts_with('/');
            if relative || value.text.contains("://") {
                for (hit, parameter) in url_credentials(&value.text, relative) {
                    let path = format!("{} ?{parameter}", path());
                    self.named.push(leak_at(hit, value, self.file, path, place));
                }
            }
            let path = TextPath::Header(header);
            self.field(value, path, side, interaction, matched, place);
        }
    }

    /// Whether a body can hold no finding, judged without decoding it: it is text with no
    /// `Content-Encoding` (nor gzip's magic bytes), names no credential field, and a scan of it
    /// finds nothing but UUIDs and timestamps where they do not count. Most bodies are; decoding
    /// each into a tree only to find nothing was most of the time spent on HTTP cassettes.
    fn nothing_in(&self, bytes: &[u8], headers: &[Header], volatile_counts: bool) -> bool {
        let encoded = bytes.starts_with(&[0x1f, 0x8b])
            || headers.iter().any(|h| {
                h.name.eq_ignore_ascii_case("content-encoding")
                    && !h.value.text.trim().eq_ignore_ascii_case("identity")
            });
        // A stream is read as its events (a key may be split across them), and bytes with a
        // NUL are no text to scan as it stands (issue 41).
        let stream = headers.iter().any(|h| {
            h.name.eq_ignore_ascii_case("content-type")
                && (h.value.text.contains("event-stream") || h.value.text.contains("eventstream"))
        });
        // A multipart part in base64 is decoded to be judged (issue 41). Searched for only in
        // a multipart body (declared, or starting with its delimiter): a search of every body
        // was a pass over all of them.
        let multipart = bytes.starts_with(b"--")
            || headers.iter().any(|h| {
                h.name.eq_ignore_ascii_case("content-type") && h.value.text.contains("multipart")
            });
        let base64_part = multipart
            && (memchr::memmem::find(bytes, b"ransfer-Encoding: base64").is_some()
                || memchr::memmem::find(bytes, b"ransfer-encoding: base64").is_some());
        !encoded
            && !stream
            && !base64_part
            && !bytes.contains(&0)
            && !url::may_hold_a_ticket(bytes)
            && std::str::from_utf8(bytes).is_ok()
            && !names_a_field(bytes, self.scanner.folded_search())
            && self.scanner.scan(bytes).iter().all(|hit| {
                matches!(hit.family, LeakFamily::Uuid | LeakFamily::Timestamp) && !volatile_counts
            })
    }

    fn body(
        &mut self,
        body: &'a Body,
        headers: &'a [Header],
        side: Side,
        interaction: usize,
        matched: bool,
    ) {
        let place = match side {
            Side::Request => " in a request body",
            Side::Response => " in a response body",
        };
        let encoded_place = match side {
            Side::Request => ENCODED_REQUEST,
            Side::Response => ENCODED_RESPONSE,
        };
        // What the stored bytes hide (base64 of text inside JSON, escaped characters):
        // scanned beside them (issue 41).
        let (hidden, cut) = match body {
            Body::Bytes { bytes, .. } => body::hidden(bytes),
            Body::Data { .. } => (String::new(), false),
        };
        // gzip in those layers inflated to the cap, and was read no further: said.
        if cut && let Body::Bytes { field, bytes, .. } = body {
            let anchor = field.at.map(|a| a as usize);
            let leak = unscanned(side, bytes.len(), field.path.clone(), anchor, self.file);
            self.named.push(HttpLeak {
                hit: Hit {
                    reason: crate::reason::HIDDEN_TOO_LARGE,
                    ..leak.hit
                },
                place: encoded_place,
                ..leak
            });
        }
        if let Body::Bytes { bytes, .. } = body
            && hidden.is_empty()
            && self.nothing_in(bytes, headers, side == Side::Request && matched)
        {
            self.context.push((interaction, side, bytes));
            return;
        }
        if let Body::Bytes { field, .. } = body
            && !hidden.is_empty()
        {
            let item = Text {
                start: 0,
                end: 0,
                path: TextPath::Field(&field.path),
                own: None,
                anchor: field.at.map(|a| a as usize),
                side,
                // Decoded layers are no part of what a recorder matches requests by.
                matched: false,
                place: encoded_place,
                public: false,
                interaction,
            };
            self.push(&hidden, item);
        }
        // A web page or script served to a request that carried no credential is what the
        // server hands to everyone: the keys in it that are judged by their name, and browser
        // keys (Google's `AIza`, publishable keys), are public by design.
        let public_page = self.anonymous(side, interaction) && is_web_page(headers);
        let index = self.bodies.len();
        self.bodies.push(BodyAt {
            body,
            headers,
            public_page,
        });
        let mut ordinal = 0;
        let mut visit = |this: &mut Self,
                         leaf: &Leaf<'_>,
                         base: &str,
                         anchor: Option<usize>,
                         described: &str| {
            let leaf_ordinal = ordinal;
            ordinal += 1;
            // A part sent in base64 is decoded to be judged; the scrub writes no base64
            // back, so what is found there is to be removed by hand (issue 41).
            let place = if described.ends_with("multipart") && leaf.path.contains(BASE64_PART) {
                encoded_place
            } else {
                place
            };
            let own = leaf.at.map(|a| a as usize);
            let anchor = own.or(anchor);
            // A Firebase web config's `apiKey` is public by design (it ships in every page).
            let public = leaf.name == Some("apiKey")
                && leaf.siblings.is_some_and(|entries| {
                    entries.iter().any(|(k, _)| {
                        matches!(
                            k.as_str(),
                            Some("authDomain" | "projectId" | "messagingSenderId")
                        )
                    })
                });
            let public = public || shared_by_link(leaf);
            if !public
                && !public_page
                && let Some(name) = credential_field_name(leaf)
                && let Ok(hit) = credential::named("credential-field", name, leaf.text, 4)
            {
                let path = leaf_path(base, described, leaf.path);
                let at = (own, anchor);
                this.named
                    .push(leaf_leak(hit, leaf.text, at, this.file, path, place));
                return;
            }
            // XML elements named for a credential (STS's `<SecretAccessKey>`), judged as
            // fields are (issue 41).
            if !leaf.is_key && leaf.text.trim_start().starts_with('<') && !public_page {
                for (name, value) in xml_elements(leaf.text) {
                    let named = Leaf {
                        name: Some(name),
                        ..leaf.clone()
                    };
                    if credential_field_name(&Leaf {
                        text: value,
                        ..named.clone()
                    })
                    .is_some()
                        && let Ok(hit) = credential::named("credential-field", name, value, 4)
                    {
                        let path = format!("{} <{name}>", leaf_path(base, described, leaf.path));
                        let at = (own, anchor);
                        this.named
                            .push(leaf_leak(hit, leaf.text, at, this.file, path, place));
                    }
                }
            }
            // A URL in markup (an `<iframe src>`) is fetched by every browser that renders
            // it, and oEmbed data is what a provider hands anyone who asks: their keys are
            // public by design.
            let public_markup = || {
                leaf.text.trim_start().starts_with('<')
                    || leaf.text.trim_start().starts_with("&lt;")
                    || leaf.path.to_ascii_lowercase().contains("oembed")
            };
            if !leaf.is_key && leaf.text.contains("://") && !public_markup() {
                let mut found = url_credentials(leaf.text, false);
                // A URL a field names a ticket (`ticket_url`): its last segment, if random.
                if leaf.name.is_some_and(url::says_ticket) {
                    for (hit, parameter) in url::ticket_segments(leaf.text.trim(), true) {
                        if !found.iter().any(|(h, _)| h.text == hit.text) {
                            found.push((hit, parameter));
                        }
                    }
                }
                for (hit, parameter) in found {
                    let path = format!("{} ?{parameter}", leaf_path(base, described, leaf.path));
                    let at = (own, anchor);
                    this.named
                        .push(leaf_leak(hit, leaf.text, at, this.file, path, place));
                }
            }
            let item = Text {
                start: 0,
                end: 0,
                path: TextPath::Leaf {
                    body: index,
                    ordinal: leaf_ordinal,
                },
                own,
                anchor,
                side,
                matched,
                place,
                public,
                interaction,
            };
            this.push(leaf.text, item);
        };
        match body {
            Body::Bytes { field, bytes, .. } => {
                let anchor = field.at.map(|a| a as usize);
                let decoded = match body::decode_stored(bytes, headers) {
                    Ok(text) if text.len() >= LARGE => {
                        // A large text as it is stored: scanned where it is, never copied.
                        let item = Text {
                            start: 0,
                            end: text.len(),
                            path: TextPath::Leaf {
                                body: index,
                                ordinal: 0,
                            },
                            own: None,
                            anchor,
                            side,
                            matched,
                            place,
                            public: false,
                            interaction,
                        };
                        self.large.push((item, text));
                        return;
                    }
                    Ok(text) => {
                        // Text as it is stored: its one leaf is the cassette's bytes, never
                        // copied but into the joined texts (a 300 MB body was held three
                        // times over, issue 25).
                        visit(self, &Leaf::stored(text), &field.path, anchor, "");
                        return;
                    }
                    Err(decoded) => decoded,
                };
                let described = body::describe(&decoded);
                // A body (or a part of it) that inflates past the budget is kept as binary,
                // unread: said, never a silent skip (issue 41).
                if body::unread(&decoded) {
                    let path = leaf_path(&field.path, &described, "");
                    let mut leak = unscanned(side, bytes.len(), path, anchor, self.file);
                    leak.place = place;
                    self.named.push(leak);
                }
                body::for_each_leaf(&decoded, &mut |leaf| {
                    visit(self, leaf, &field.path, anchor, &described);
                });
                // What the leaves do not show whole (issue 41): a body that is not text,
                // read as its printable runs; a stream's pieces, joined.
                let extra = match &decoded.content {
                    body::Content::Binary(_) => body::printable_runs(bytes, 8),
                    body::Content::Sse(events) => joined_deltas(events),
                    _ => String::new(),
                };
                if !extra.is_empty() {
                    let item = Text {
                        start: 0,
                        end: 0,
                        path: TextPath::Field(&field.path),
                        own: None,
                        anchor,
                        side,
                        matched,
                        place: encoded_place,
                        public: false,
                        interaction,
                    };
                    self.push(&extra, item);
                }
            }
            Body::Data { path, node } => {
                body::for_each_node_leaf(node, &mut |leaf| visit(self, leaf, path, None, ""));
            }
        }
    }
}

/// The `unscanned` warning of a body of `len` bytes at `path` that the decoding did not read
/// whole (issue 41); its reason says which guard stopped it.
fn unscanned(side: Side, len: usize, path: String, anchor: Option<usize>, file: &[u8]) -> HttpLeak {
    let side = match side {
        Side::Request => "request",
        Side::Response => "response",
    };
    let hit = Hit {
        detector: INFLATE_LIMIT,
        label: format!("the {side} body of {len} bytes"),
        family: LeakFamily::Unscanned,
        temporary: false,
        start: 0,
        end: 0,
        text: path.clone(),
        masked: String::new(),
        reason: crate::reason::TOO_LARGE_TO_SCAN,
    };
    let mut leak = leaf_leak(hit, "", (None, anchor), file, path, "");
    leak.severity = Severity::Warning;
    leak
}

/// The simple elements of an XML text, `<Name>value</Name>` with text only inside, as
/// `(name, value)`: what AWS's query APIs (STS, IAM) answer with.
fn xml_elements(text: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find('>') else { break };
        let name = &rest[..close];
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            continue;
        }
        let body = &rest[close + 1..];
        let Some(end) = body.find('<') else { break };
        if body[end..].starts_with(&format!("</{name}>")) && end > 0 {
            found.push((name, &body[..end]));
        }
    }
    found
}

/// The text a stream sends in pieces, joined: every event's text leaves (`content`, `text`,
/// `partial_json`, `arguments`, `thinking`, `delta`) grouped by their path inside the
/// event's data (`/choices/0/delta/content`, `/delta/text`,
/// `/delta/partial_json`, `/contentBlockDelta/delta/text`), each group of two pieces or more
/// joined in order, one a line. A model that echoes a key sends it 2 to 5 characters a
/// delta; no piece holds it whole (issue 41), as `vcr diff` already knew.
fn joined_deltas(events: &[body::SseEvent]) -> String {
    let mut groups: Vec<(String, String, usize)> = Vec::new();
    for event in events {
        body::for_each_leaf(&event.data, &mut |leaf| {
            let streamed = [
                "content",
                "text",
                "partial_json",
                "arguments",
                "thinking",
                "delta",
            ];
            if leaf.is_key
                || leaf.text.len() > 256
                || !leaf.name.is_some_and(|n| streamed.contains(&n))
            {
                return;
            }
            match groups.iter_mut().find(|(path, _, _)| path == leaf.path) {
                Some((_, text, pieces)) => {
                    text.push_str(leaf.text);
                    *pieces += 1;
                }
                None => groups.push((leaf.path.to_owned(), leaf.text.to_owned(), 1)),
            }
        });
    }
    let mut out = String::new();
    for (_, text, pieces) in groups {
        if pieces >= 2 {
            out.push_str(&text);
            out.push('\n');
        }
    }
    out
}

/// Every leak in a cassette read by structure; `file` is its (decompressed) text, and
/// `match_on` what the recorder matches requests by.
pub fn check(
    cassette: &HttpCassette,
    file: &[u8],
    scanner: &Scanner,
    match_on: &[&str],
) -> Vec<HttpLeak> {
    let mut leaks = Leaks::new(scanner, match_on);
    leaks.add(cassette, file);
    // One window, read again only for what lies outside its interactions.
    leaks.finish(file, &mut |again| again(Some(cassette)))
}

/// The leaks of a cassette read in windows ([`http::read_windows`](vcr_cassette::http::read_windows)),
/// gathered a window at a time and judged as [`check`] judges the whole cassette. The one
/// judgement that looks across interactions, an id or time a matched request sent that an
/// earlier response handed out, is made within the window; what it leaves open in a window
/// after the first waits for [`Leaks::finish`], which reads the windows again for the
/// responses that hold those values, only when there are any.
pub struct Leaks<'s> {
    scanner: &'s Scanner,
    matched: Matched,
    /// Whether the file's comment lines were scanned (with the first window).
    commented: bool,
    /// How many interactions the windows so far held: the next window's first index.
    base: usize,
    leaks: Vec<HttpLeak>,
    /// What the requests of the earlier windows did.
    sessions: Sessions,
    /// Ids and times judged errors in their window, each with its interaction's index in
    /// the whole cassette, unless an earlier window's response handed them out.
    pending: Vec<(HttpLeak, usize)>,
    /// The secret hits of what no interaction holds, in every window so far.
    outside: Vec<Hit>,
}

impl<'s> Leaks<'s> {
    /// No window yet; the recorder matches requests by `match_on`.
    pub fn new(scanner: &'s Scanner, match_on: &[&str]) -> Leaks<'s> {
        Leaks {
            scanner,
            matched: Matched::from(match_on),
            commented: false,
            base: 0,
            leaks: Vec::new(),
            sessions: Sessions::default(),
            pending: Vec::new(),
            outside: Vec::new(),
        }
    }

    /// The leaks of the next window (`file` is the whole decompressed text).
    pub fn add(&mut self, window: &HttpCassette, file: &[u8]) {
        let sessions = std::mem::take(&mut self.sessions);
        let mut c = collect(window, file, self.scanner, self.matched, sessions);
        self.sessions = std::mem::take(&mut c.sessions);
        let mut leaks = std::mem::take(&mut c.named);
        let defer = (self.base > 0).then_some((&mut self.pending, self.base));
        scan_texts(&c, self.scanner, &mut leaks, defer);
        // Taken whole when nothing came before (one window, or the first): appended, the
        // leaks of a file of thousands of secrets in one scalar were held twice (issue 43).
        if self.leaks.is_empty() {
            self.leaks = leaks;
        } else {
            self.leaks.append(&mut leaks);
        }
        // The whole file's comment lines, with the first window.
        if !self.commented {
            self.commented = true;
            if window.format != vcr_cassette::http::httprr::FORMAT {
                comments(file, self.scanner, &mut self.leaks);
            }
        }
        // Judged in `finish`, against every interaction's leaks and texts: a value the
        // interactions hold is not reported again where no interaction holds it.
        let hits = outside::hits(file, &window.outside, self.scanner, &self.leaks);
        self.outside.extend(hits);
        self.base += window.interactions.len();
    }

    /// A window collected again for what `finish` looks up in it, with no session carried:
    /// nothing is judged from it.
    fn read_again<'a>(&'a self, window: &'a HttpCassette, file: &'a [u8]) -> Collect<'a> {
        collect(
            window,
            file,
            self.scanner,
            self.matched,
            Sessions::default(),
        )
    }

    /// Every leak, one finding per value. `again` gives the windows once more, in the same
    /// order, to the visitor it is handed, when ids or times wait for earlier responses.
    pub fn finish(mut self, file: &[u8], again: &mut dyn FnMut(&mut Visit<'_>)) -> Vec<HttpLeak> {
        if !self.pending.is_empty() {
            let needles: Vec<&str> = self
                .pending
                .iter()
                .map(|(l, _)| l.hit.text.as_str())
                .collect();
            let mut first: std::collections::HashMap<String, usize> = Default::default();
            let mut base = 0;
            again(&mut |window| {
                let Some(window) = window else {
                    first.clear();
                    base = 0;
                    return;
                };
                let c = self.read_again(window, file);
                for (needle, at) in first_responses(&c, needles.iter().copied()) {
                    let slot = first.entry(needle).or_insert(base + at);
                    *slot = (*slot).min(base + at);
                }
                base += window.interactions.len();
            });
            for (leak, interaction) in std::mem::take(&mut self.pending) {
                if first
                    .get(&leak.hit.text)
                    .is_none_or(|&at| at >= interaction)
                {
                    self.leaks.push(leak);
                }
            }
        }
        // What lies outside the interactions, against all of them: a value another window's
        // interaction holds, or one outside several windows, is judged as a whole read
        // judges it (found by the `http` fuzz target).
        let hits = outside::unjudged(std::mem::take(&mut self.outside), &self.leaks);
        if !hits.is_empty() {
            let mut held = outside::Held::new(&hits);
            again(&mut |window| match window {
                Some(window) => held.window(&hits, &self.read_again(window, file)),
                None => held.clear(),
            });
            self.leaks.extend(held.findings(hits));
        }
        fold(self.leaks)
    }
}

/// The bytes of `cassette`'s URLs, header values and bodies as stored, each with a line
/// break: about what [`collect`] joins.
fn stored_size(cassette: &HttpCassette) -> usize {
    let body = |b: &Body| match b {
        Body::Bytes { bytes, .. } if bytes.len() < LARGE => bytes.len() + 1,
        Body::Bytes { .. } => 0,
        Body::Data { node, .. } if node.end != u32::MAX => {
            node.end.saturating_sub(node.start) as usize
        }
        Body::Data { .. } => 0,
    };
    cassette
        .interactions
        .iter()
        .map(|i| {
            i.request.url.text.len()
                + 1
                + i.headers().map(|h| h.value.text.len() + 1).sum::<usize>()
                + i.bodies().map(body).sum::<usize>()
        })
        .sum()
}

/// A cassette read and linted a window at a time by [`check_windows`].
#[derive(Debug)]
pub struct Checked {
    /// The recorder that wrote it.
    pub format: vcr_cassette::http::Format,
    /// How many interactions it holds.
    pub interactions: usize,
    /// Its leaks, one per value ([`check`]'s).
    pub leaks: Vec<HttpLeak>,
}

/// How the judge is handed a cassette: a reader that gives its windows to `visit` (`None`:
/// forget the ones given before) and says which recorder wrote it (`Ok(None)`: it is no
/// cassette). The caller reads, usually with `vcr_cassette::http::read_windows` over the
/// file's bytes and with its read options: the judge opens no file. A cassette read in
/// windows is read a second time to finish its judgement.
pub type Read<'r> = dyn Fn(
        &mut dyn FnMut(Option<HttpCassette>),
    ) -> Result<Option<vcr_cassette::http::Format>, vcr_cassette::http::ReadError>
    + 'r;

/// The secrets the judge finds in the HTTP cassette in `text`, which `read` reads, each with
/// its masked form: what outputs that show a cassette's contents hide beside the scan's own
/// hits ([`Scanner::mask_with`]); none when `text` is no HTTP cassette.
pub fn secret_values(text: &[u8], scanner: &Scanner, read: &Read<'_>) -> Vec<(String, String)> {
    let checked = check_windows(
        text,
        scanner,
        true,
        &|format| format.match_on_in(text).to_vec(),
        &mut |_| {},
        read,
    );
    match checked {
        Ok(Some(checked)) => secrets(checked.leaks),
        _ => Vec::new(),
    }
}

/// [`secret_values`] of a cassette read already from `text`: not read a second time (a huge
/// body was then held again).
pub fn secret_values_of(
    cassette: &HttpCassette,
    text: &[u8],
    scanner: &Scanner,
) -> Vec<(String, String)> {
    secrets(check(
        cassette,
        text,
        scanner,
        cassette.format.match_on_in(text),
    ))
}

fn secrets(leaks: Vec<HttpLeak>) -> Vec<(String, String)> {
    (leaks.into_iter())
        .filter(|l| l.hit.family == LeakFamily::Secret)
        .map(|l| (l.hit.text, l.hit.masked))
        .collect()
}

/// Judges the cassette in `text` as `read` hands it over, a window at a time: with `lint`,
/// each window is linted as it comes, with what the recorder of its format matches by
/// (`match_on`); `each` sees every window too (`None`: forget the ones before). What
/// `verify`, a scrub's read-back and the fuzz targets share: memory is the file's and one
/// window's. `Ok(None)` when the text is no HTTP cassette.
pub fn check_windows<'m>(
    text: &[u8],
    scanner: &Scanner,
    lint: bool,
    match_on: &dyn Fn(vcr_cassette::http::Format) -> Vec<&'m str>,
    each: &mut dyn FnMut(Option<&HttpCassette>),
    read: &Read<'_>,
) -> Result<Option<Checked>, vcr_cassette::http::ReadError> {
    let mut leaks: Option<Leaks<'_>> = None;
    let mut interactions = 0;
    // A cassette read whole is kept until `finish`, which may look at it again; one read in
    // windows is read again then.
    let mut windows = 0;
    let mut whole: Option<HttpCassette> = None;
    let format = read(&mut |window| {
        each(window.as_ref());
        match window {
            Some(window) => {
                interactions += window.interactions.len();
                if lint {
                    leaks
                        .get_or_insert_with(|| Leaks::new(scanner, &match_on(window.format)))
                        .add(&window, text);
                }
                windows += 1;
                whole = (lint && windows == 1).then_some(window);
            }
            None => {
                leaks = None;
                interactions = 0;
                windows = 0;
                whole = None;
            }
        }
    })?;
    let Some(format) = format else {
        return Ok(None);
    };
    let leaks = leaks.map_or_else(Vec::new, |leaks| {
        leaks.finish(text, &mut |visit| match &whole {
            Some(cassette) => visit(Some(cassette)),
            None => {
                // Read as the first time, which it was.
                let _ = read(&mut |window| visit(window.as_ref()));
            }
        })
    });
    Ok(Some(Checked {
        format,
        interactions,
        leaks,
    }))
}

/// What [`Leaks::finish`] hands the windows to when it reads them again: each window, or
/// `None` to forget the windows before (see [`http::read_windows`](vcr_cassette::http::read_windows)).
pub type Visit<'a> = dyn FnMut(Option<&HttpCassette>) + 'a;

/// Every text of `cassette`'s interactions, joined, with the leaks found by name;
/// `logged_in`: whether a request before them carried a credential or a login.
fn collect<'a>(
    cassette: &'a HttpCassette,
    file: &'a [u8],
    scanner: &'a Scanner,
    matched: Matched,
    sessions: Sessions,
) -> Collect<'a> {
    let mut c = Collect {
        file,
        scanner,
        context: Vec::new(),
        // What the texts take, as stored (decoded bodies may be more): one allocation
        // instead of a doubling series, each copying what was joined so far. Counted, not
        // taken as the file's size: a window of a huge file holds a small part of it.
        joined: String::with_capacity(stored_size(cassette).min(file.len())),
        texts: Vec::new(),
        large: Vec::new(),
        bodies: Vec::new(),
        named: Vec::new(),
        exchanges: Vec::new(),
        sessions,
        outside: &cassette.outside,
    };
    for (i, interaction) in cassette.interactions.iter().enumerate() {
        let exchange = Exchange::of(interaction, &c.sessions);
        c.sessions.after(&exchange);
        c.exchanges.push(exchange);
        let request = &interaction.request;
        let url = &request.url;
        c.field(
            url,
            TextPath::Field(&url.path),
            Side::Request,
            i,
            matched.url,
            URL_PLACE,
        );
        let tickets = url::ticket_segments(&url.text, false).into_iter();
        for (hit, name) in parameter_credentials(&url.text, false)
            .into_iter()
            .chain(tickets)
        {
            let path = format!("{} ?{name}", url.path);
            c.named
                .push(leak_at(hit, url, file, path, " in a request URL"));
        }
        c.headers(&request.headers, Side::Request, i, matched.headers);
        if let Some(body) = &request.body {
            c.body(body, &request.headers, Side::Request, i, matched.body);
        }
        if let Some(response) = &interaction.response {
            c.headers(&response.headers, Side::Response, i, false);
            if let Some(body) = &response.body {
                c.body(body, &response.headers, Side::Response, i, false);
            }
        }
    }
    c
}

/// Leaks in whole-line comments (`# ...` in YAML, `// ...` in JSON5), which no reader keeps
/// but a hand edit can leave a credential in. A line that only looks like a comment (inside a
/// block scalar) holds what its scalar's leaf already reported: such repeats are dropped.
fn comments(file: &[u8], scanner: &Scanner, leaks: &mut Vec<HttpLeak>) {
    let mut found = Vec::new();
    // Lines are found with `memchr` (issue 12): a byte-at-a-time split of every line of every
    // cassette cost more than the scan of the few comment lines there are.
    let ends: Box<dyn Iterator<Item = usize>> = if scanner.folded_search() {
        let ends = memchr::memchr_iter(b'\n', file).map(|nl| nl + 1);
        Box::new(ends.chain((file.last() != Some(&b'\n')).then_some(file.len())))
    } else {
        // The testing hook's path: the split this replaced.
        let mut end = 0;
        Box::new(file.split_inclusive(|&b| b == b'\n').map(move |line| {
            end += line.len();
            end
        }))
    };
    let mut start = 0;
    for end in ends {
        let line = &file[start..end];
        let line_start = start;
        start = end;
        let trimmed = line.trim_ascii_start();
        if !(trimmed.starts_with(b"#") || trimmed.starts_with(b"//")) {
            continue;
        }
        for mut hit in scanner.scan(line) {
            let severity = match hit.family {
                // No scan finds what the body decoding did not read.
                LeakFamily::Uuid | LeakFamily::Timestamp | LeakFamily::Unscanned => continue,
                LeakFamily::Email => Severity::Warning,
                LeakFamily::Path if hit.temporary => Severity::Warning,
                LeakFamily::Secret | LeakFamily::Path => Severity::Error,
            };
            if leaks.iter().any(|l| l.hit.text == hit.text) {
                continue;
            }
            let at = line_start + hit.start;
            hit.end -= hit.start;
            hit.start = 0;
            found.push(HttpLeak {
                hit,
                severity,
                offset: Some(at),
                path: COMMENT.to_owned(),
                place: " in a comment",
                repeats: 0,
                why: String::new(),
            });
        }
    }
    leaks.extend(found);
}

/// Where `text` starts in `file` if the scalar at `at` holds it as written (after an opening
/// quote, if any).
fn exact_offset(at: Option<usize>, text: &str, file: &[u8]) -> Option<usize> {
    let at = at?;
    [at, at + 1]
        .into_iter()
        .find(|&start| file.get(start..start + text.len()) == Some(text.as_bytes()))
}

/// A leak judged by name in a body leaf whose text is `text`: placed at the value when the
/// leaf's own scalar (`at.0`) holds the text as written, else at the body's (`at.1`).
fn leaf_leak(
    hit: Hit,
    text: &str,
    at: (Option<usize>, Option<usize>),
    file: &[u8],
    path: String,
    place: &'static str,
) -> HttpLeak {
    let offset = exact_offset(at.0, text, file)
        .and_then(|start| text.find(hit.text.as_str()).map(|i| start + i))
        .or(at.1);
    HttpLeak {
        hit,
        severity: Severity::Error,
        offset,
        path,
        place,
        repeats: 0,
        why: String::new(),
    }
}

/// A leak judged by name in a field (a header, a URL): placed at the value when the scalar
/// holds the field as written, else at the scalar.
fn leak_at(hit: Hit, field: &Field, file: &[u8], path: String, place: &'static str) -> HttpLeak {
    let at = field.at.map(|a| a as usize);
    leaf_leak(hit, &field.text, (at, at), file, path, place)
}

/// A header's readable path. HAR and httprr keep headers in a list: the path says
/// `headers[2].value`, the finding must say which header that is.
fn header_path(path: &str, name: &str) -> String {
    let names_it = name.is_empty()
        || path
            .as_bytes()
            .windows(name.len())
            .any(|w| w.eq_ignore_ascii_case(name.as_bytes()));
    if names_it {
        path.to_owned()
    } else {
        format!("{path} ({name})")
    }
}

fn is_one_of(name: &str, list: &[&str]) -> bool {
    list.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// Scans every text in one pass over their concatenation and turns hits into leaks by
/// where they sit.
///
/// Everything a hit needs to be judged is looked up once, not per hit (issue 25: a cassette of
/// 30,000 home folders in gzip'd response bodies took 10 s): the texts of one interaction by a
/// binary search (they are pushed in interaction order), the first response that holds each
/// request id by one search over every response, and the paths of body leaves by one walk of
/// each body that holds a leak.
///
/// With `defer` (a window after the first, and the index of its first interaction in the
/// whole cassette), an id or time no earlier response of the window handed out goes there
/// with its interaction's index, to be judged against the earlier windows' responses.
fn scan_texts(
    c: &Collect<'_>,
    scanner: &Scanner,
    leaks: &mut Vec<HttpLeak>,
    mut defer: Option<(&mut Vec<(HttpLeak, usize)>, usize)>,
) {
    // Every hit, its offsets made its text's own: the joined texts in one scan, each large
    // text where it is. The hits stay in the scans' own lists, found again with their text
    // when judged, and each becomes a leak as it is judged: a scalar of 16,000 secrets held
    // its hits, a list of them with their texts, and a list of leaks waiting for their paths,
    // all at once, 30 times the file (issue 43).
    let mut joined = scanner.scan(c.joined.as_bytes());
    // The index of the text each joined hit is in (the texts are ordered in the buffer).
    let mut joined_in: Vec<usize> = Vec::with_capacity(joined.len());
    for hit in &mut joined {
        let i = c.texts.partition_point(|t| t.start <= hit.start) - 1;
        let text = &c.texts[i];
        hit.start -= text.start;
        hit.end -= text.start;
        joined_in.push(i);
    }
    let mut large: Vec<(usize, Vec<Hit>)> = Vec::new();
    for (i, (_, content)) in c.large.iter().enumerate() {
        let found = scanner.scan(content.as_bytes());
        if !found.is_empty() {
            large.push((i, found));
        }
    }
    if joined.is_empty() && large.is_empty() {
        return;
    }
    // Each hit with the text it is in and that text's characters, in the order they were
    // found: the joined texts', then each large text's.
    let joined_text = |i: usize| {
        let text = &c.texts[i];
        (text, &c.joined[text.start..text.end])
    };
    let located = || {
        joined
            .iter()
            .zip(&joined_in)
            .map(|(hit, &i)| {
                let (text, content) = joined_text(i);
                (hit, text, content)
            })
            .chain(large.iter().flat_map(|(i, found)| {
                let (text, content) = &c.large[*i];
                found.iter().map(move |hit| (hit, text, *content))
            }))
    };
    // What each interaction's request holds, for echoes of a home folder in its response.
    let request_holds = |interaction: usize, needle: &str| {
        let first = c.texts.partition_point(|t| t.interaction < interaction);
        let last = c.texts.partition_point(|t| t.interaction <= interaction);
        let mut texts = c.texts[first..last]
            .iter()
            .map(|t| (t, &c.joined[t.start..t.end]))
            .chain(c.large.iter().map(|(t, content)| (t, *content)));
        texts.any(|(t, content)| {
            t.interaction == interaction && t.side == Side::Request && content.contains(needle)
        }) || c.context.iter().any(|(i, s, bytes)| {
            *i == interaction
                && *s == Side::Request
                && memchr::memmem::find(bytes, needle.as_bytes()).is_some()
        })
    };
    let volatile = |hit: &Hit, text: &Text| {
        matches!(hit.family, LeakFamily::Uuid | LeakFamily::Timestamp)
            && text.side == Side::Request
            && text.matched
    };
    // The first interaction whose response holds each id or time a matched request sent.
    let handed_out = first_responses(
        c,
        located()
            .filter(|(hit, text, _)| volatile(hit, text))
            .map(|(hit, _, _)| hit.text.as_str()),
    );
    // The copies judged by their name already, by place and value (a set: a file can hold
    // a key per interaction, issue 25).
    let named = std::mem::take(leaks);
    let judged: std::collections::HashSet<(Option<usize>, &str)> = named
        .iter()
        .map(|n| (n.offset, n.hit.text.as_str()))
        .collect();
    // A hit judged: its leak, and whether it is an id or time left open in this window.
    let judge = |hit: Hit, text: &Text, content: &str| -> Option<(HttpLeak, bool)> {
        let mut open = false;
        let mut why = String::new();
        let severity = match hit.family {
            // No scan finds what the body decoding did not read.
            LeakFamily::Unscanned => return None,
            LeakFamily::Secret if text.public => return None,
            LeakFamily::Secret
                if PAGE_KEYS.contains(&hit.detector)
                        && matches!(text.path, TextPath::Leaf { body, .. } if c.bodies[body].public_page)
                        // A vendor's secret key written under a key's name is still one.
                        && !scanner.scan(hit.text.as_bytes()).iter().any(|inner| {
                            inner.family == LeakFamily::Secret && !PAGE_KEYS.contains(&inner.detector)
                        }) =>
            {
                return None;
            }
            LeakFamily::Secret => Severity::Error,
            LeakFamily::Path if hit.detector == MACHINE_PATH => Severity::Error,
            LeakFamily::Path if hit.temporary => {
                if text.side == Side::Request && text.matched {
                    Severity::Error
                } else {
                    Severity::Warning
                }
            }
            LeakFamily::Path => match text.side {
                Side::Request => Severity::Error,
                Side::Response if request_holds(text.interaction, &hit.text) => Severity::Error,
                // A server on the recording machine answers with that machine's paths.
                Side::Response if c.exchanges.get(text.interaction).is_some_and(|e| e.local) => {
                    Severity::Error
                }
                Side::Response => Severity::Warning,
            },
            LeakFamily::Uuid | LeakFamily::Timestamp => {
                // An id a server handed out earlier in the recording (`/servers/<uuid>`)
                // replays as recorded: only one the client made up changes between runs.
                let earlier = handed_out
                    .get(hit.text.as_str())
                    .is_some_and(|&first| first < text.interaction);
                if !volatile(&hit, text) || earlier || c.kept_by_recorder(&hit.text) {
                    return None;
                }
                let exchange = c.exchanges.get(text.interaction);
                match run_made(exchange, &hit, text.place == URL_PLACE, content) {
                    Some(reason) => why = reason,
                    None => return None,
                }
                open = true;
                Severity::Error
            }
            LeakFamily::Email => Severity::Warning,
        };
        let offset = exact_offset(text.own, content, c.file)
            .map(|e| e + hit.start)
            .or(text.anchor);
        // A copy a name already judged (a query parameter's value, found again by the key's
        // own pattern in the URL's text) is one copy, not "once more in this file".
        if hit.family == LeakFamily::Secret && judged.contains(&(offset, hit.text.as_str())) {
            return None;
        }
        let mut path = match text.path {
            TextPath::Field(path) => path.to_owned(),
            TextPath::Header(header) => header_path(&header.value.path, &header.name),
            // Named below, one walk per body.
            TextPath::Leaf { .. } => String::new(),
        };
        // An id or time in a query parameter is named with it (`request.uri ?leaseid`):
        // the parameter is what a filter names, and what a project that filters it
        // already leaves out of matching.
        if open
            && text.place == URL_PLACE
            && let Some(name) = evidence::query_parameter(content.get(..hit.start).unwrap_or(""))
        {
            path = format!("{path} ?{name}");
        }
        let leak = HttpLeak {
            hit,
            severity,
            offset,
            path,
            place: text.place,
            repeats: 0,
            why,
        };
        Some((leak, open))
    };
    // The leaves whose paths are named after, one walk per body: (body, ordinal, whether the
    // leak was deferred, its index there or in `leaks`).
    let mut wanted: Vec<(usize, usize, bool, usize)> = Vec::new();
    // Each leak goes where it belongs as it is judged.
    let mut place = |hit: Hit, text: &Text, content: &str| {
        let Some((leak, open)) = judge(hit, text, content) else {
            return;
        };
        let leaf = match text.path {
            TextPath::Leaf { body, ordinal } => Some((body, ordinal)),
            _ => None,
        };
        let deferred = match &mut defer {
            Some((deferred, base)) if open => {
                deferred.push((leak, *base + text.interaction));
                Some(deferred.len() - 1)
            }
            _ => {
                leaks.push(leak);
                None
            }
        };
        if let Some((body, ordinal)) = leaf {
            wanted.push(match deferred {
                Some(i) => (body, ordinal, true, i),
                None => (body, ordinal, false, leaks.len() - 1),
            });
        }
    };
    for (hit, i) in joined.into_iter().zip(joined_in) {
        let (text, content) = joined_text(i);
        place(hit, text, content);
    }
    for (i, found) in large {
        let (text, content) = &c.large[i];
        for hit in found {
            place(hit, text, content);
        }
    }
    wanted.sort_unstable();
    for group in wanted.chunk_by(|a, b| a.0 == b.0) {
        let ordinals: Vec<usize> = group.iter().map(|&(_, ordinal, _, _)| ordinal).collect();
        let paths = c.bodies[group[0].0].leaf_paths(&ordinals);
        for (&(_, _, deferred, i), path) in group.iter().zip(paths) {
            match (&mut defer, deferred) {
                (Some((d, _)), true) => d[i].0.path = path,
                _ => leaks[i].path = path,
            }
        }
    }
    // What the names judged come first, as they came.
    if !named.is_empty() {
        leaks.splice(0..0, named);
    }
}

/// The place of a request URL's texts.
const URL_PLACE: &str = " in a request URL";

/// For each of `needles`, the first interaction whose response holds it (in a text or in a
/// body read as plain text): one search of every response for all of them at once.
fn first_responses<'n>(
    c: &Collect<'_>,
    needles: impl Iterator<Item = &'n str>,
) -> std::collections::HashMap<String, usize> {
    let mut needles: Vec<&str> = needles.collect();
    needles.sort_unstable();
    needles.dedup();
    let mut first = std::collections::HashMap::new();
    if needles.is_empty() {
        return first;
    }
    let Ok(searcher) = aho_corasick::AhoCorasick::new(&needles) else {
        return first;
    };
    let responses = c
        .texts
        .iter()
        .filter(|t| t.side == Side::Response)
        .map(|t| (t.interaction, &c.joined.as_bytes()[t.start..t.end]))
        .chain(
            c.large
                .iter()
                .filter(|(t, _)| t.side == Side::Response)
                .map(|(t, content)| (t.interaction, content.as_bytes())),
        )
        .chain(
            c.context
                .iter()
                .filter(|(_, side, _)| *side == Side::Response)
                .map(|&(i, _, bytes)| (i, bytes)),
        );
    for (interaction, bytes) in responses {
        for found in searcher.find_overlapping_iter(bytes) {
            let entry = first.entry(needles[found.pattern().as_usize()].to_owned());
            let slot = entry.or_insert(interaction);
            *slot = (*slot).min(interaction);
        }
    }
    first
}

/// One finding per leaked value: a recording repeats a credential in every request, and a
/// finding per copy buries the rest. The first place is reported, with how many more there
/// are; an email address once per file; and a token's truncated display (its first
/// characters, shown after the full value) folds into the finding of the full value.
///
/// Folded in place, over the texts as the leaks hold them: copies of every text in a set and a
/// map beside a second list of the leaks took more memory than the leaks themselves, the
/// largest part of a scrub of many keys (issue 43).
fn fold(mut leaks: Vec<HttpLeak>) -> Vec<HttpLeak> {
    use std::hash::{Hash, Hasher};
    // By offset, ties in the order found: sorted as indexes and put in that order in place
    // (a stable sort of the leaks themselves takes a buffer of half of them).
    let mut order: Vec<usize> = (0..leaks.len()).collect();
    order.sort_unstable_by_key(|&i| (leaks[i].offset, i));
    apply_order(&mut leaks, order);
    // Sorted, so the values a text is a prefix of follow it: the first value after it tells
    // (a search of every value for each leak was quadratic in the leaks of a file, issue 25).
    let shadowed: Vec<bool> = {
        let mut secrets: Vec<&str> = leaks
            .iter()
            .filter(|l| l.hit.family == LeakFamily::Secret)
            .map(|l| l.hit.text.as_str())
            .collect();
        secrets.sort_unstable();
        secrets.dedup();
        let holds_longer = |text: &str| {
            let after = secrets.partition_point(|s| *s <= text);
            secrets
                .get(after)
                .is_some_and(|next| next.starts_with(text))
        };
        leaks
            .iter()
            .map(|l| {
                l.hit.family == LeakFamily::Secret
                    && l.hit.text.len() >= 8
                    && holds_longer(&l.hit.text)
            })
            .collect()
    };
    // Per place: a value the request sent and the response echoed is two findings, the echo
    // being what makes a home folder in a response an error. An email address is one per
    // file, whatever its case.
    let key_of = |leak: &HttpLeak| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        match leak.hit.family {
            LeakFamily::Email => {
                for b in leak.hit.text.bytes() {
                    b.to_ascii_lowercase().hash(&mut hasher);
                }
                (LeakFamily::Email, hasher.finish(), "")
            }
            family => {
                leak.hit.text.hash(&mut hasher);
                (family, hasher.finish(), leak.place)
            }
        }
    };
    let same = |a: &HttpLeak, b: &HttpLeak| match a.hit.family {
        LeakFamily::Email => a.hit.text.eq_ignore_ascii_case(&b.hit.text),
        _ => a.hit.text == b.hit.text,
    };
    // The leaks kept are moved to the front, in order; a repeat adds to the one kept first.
    // Each key's first leak by its place there; the others of a key (two texts that share
    // a hash, by a rare chance) in `also`.
    let mut first: std::collections::HashMap<(LeakFamily, u64, &'static str), usize> =
        std::collections::HashMap::new();
    let mut also: Vec<((LeakFamily, u64, &'static str), usize)> = Vec::new();
    let mut kept = 0;
    for i in 0..leaks.len() {
        if shadowed[i] {
            continue;
        }
        let key = key_of(&leaks[i]);
        let earlier = first.get(&key).copied().and_then(|k| {
            std::iter::once(k)
                .chain(
                    also.iter()
                        .filter(|(other, _)| *other == key)
                        .map(|&(_, k)| k),
                )
                .find(|&k| same(&leaks[k], &leaks[i]))
        });
        match earlier {
            Some(k) => {
                // The worst place wins: an echoed home folder is an error even if its first
                // copy (in a request) came first.
                let severity = leaks[i].severity;
                let earlier = &mut leaks[k];
                earlier.severity = earlier.severity.min(severity);
                earlier.repeats += 1;
            }
            None => {
                leaks.swap(kept, i);
                match first.entry(key) {
                    std::collections::hash_map::Entry::Occupied(_) => also.push((key, kept)),
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(kept);
                    }
                }
                kept += 1;
            }
        }
    }
    leaks.truncate(kept);
    leaks
}

/// `items` in `order` (`order[k]` is the index of the item that goes to `k`), moved in place
/// along the permutation's cycles.
fn apply_order<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        // Each cycle is walked once, from its smallest index; visited places point to
        // themselves.
        let mut at = start;
        while order[at] != start {
            let from = order[at];
            items.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// The detectors whose keys a public web page may hold by design: a key judged by the name
/// it is written under, and Google's browser keys (`AIza`, restricted by referrer). A secret
/// key of a vendor (`sk_live_`, an AWS secret, a private key) in a page is still a leak.
const PAGE_KEYS: &[&str] = &["credential-field", "google-api-key"];

/// Whether a body is a web page or a script, by its `Content-Type`.
fn is_web_page(headers: &[Header]) -> bool {
    headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("content-type") && {
            let media = h.value.text.split(';').next().unwrap_or_default().trim();
            [
                "text/html",
                "application/xhtml+xml",
                "text/javascript",
                "application/javascript",
            ]
            .iter()
            .any(|m| media.eq_ignore_ascii_case(m))
        }
    })
}

#[cfg(test)]
mod tests {
    //! True and false vectors of each rule (issue 9), on small vcrpy cassettes read by the real
    //! reader. The recorders' own cassettes are checked end to end in `tests/http_recorders.rs`.

    use super::*;

    /// The leaks are put in offset order in place: every permutation, as a sort would.
    #[test]
    fn apply_order_moves_items_where_the_order_says() {
        let items: Vec<usize> = (0..6).collect();
        let mut order: Vec<usize> = items.clone();
        // Each of a few permutations of 6 (rotations and a reversal, with fixed points).
        for shift in 0..6 {
            for reverse in [false, true] {
                order.rotate_left(shift);
                if reverse {
                    order.reverse();
                }
                let mut moved = items.clone();
                apply_order(&mut moved, order.clone());
                assert_eq!(moved, order, "{order:?}");
            }
        }
    }

    /// A header's path names it once: written out when the path already says it (in any
    /// case), added after a list's `headers[2].value`.
    #[test]
    fn a_header_path_names_its_header() {
        let path = "interactions[0].request.headers.X-Trace[0]";
        assert_eq!(header_path(path, "x-trace"), path);
        assert_eq!(
            header_path("log.entries[1].request.headers[2].value", "X-Trace"),
            "log.entries[1].request.headers[2].value (X-Trace)"
        );
        assert_eq!(header_path("[0].headers", ""), "[0].headers");
        assert_eq!(header_path("h", "longer than h"), "h (longer than h)");
    }

    /// The leftmost-longest search of the field names, over a lower-cased copy a window at a
    /// time, finds a name at a boundary exactly when every overlapping match without case
    /// would (issue 12): over every name, alone and inside every boundary and non-boundary
    /// neighbour, and pairs of names run together, with windows cut anywhere.
    #[test]
    fn field_names_are_found_as_an_overlapping_search_finds_them() {
        let all = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(
                CREDENTIAL_FIELDS
                    .iter()
                    .chain(&[
                        "secret",
                        "apikey",
                        "session_id",
                        "sessionid",
                        "secretaccesskey",
                    ])
                    .chain(SECRET_SUFFIXES),
            )
            .unwrap();
        let overlapping = |bytes: &[u8]| {
            all.find_overlapping_iter(bytes).any(|m| {
                let before = m.start().checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(m.end()).copied();
                let name = &bytes[m.start()..m.end()];
                let rest = &bytes[m.end()..];
                let rest = rest.strip_prefix(b"\\").unwrap_or(rest);
                // A name that ends in a secret's word, closed by a quote (issue 41).
                let suffix = SECRET_SUFFIXES
                    .iter()
                    .any(|s| s.as_bytes().eq_ignore_ascii_case(name))
                    && matches!(rest.first(), Some(b'"' | b'\'' | b'>'));
                suffix
                    || matches!(
                        before,
                        None | Some(b'"' | b'\'' | b'\\' | b'&' | b'?' | b'\n' | b' ')
                    ) && matches!(after, None | Some(b'"' | b'\'' | b'\\' | b'=' | b':'))
            })
        };
        let names: Vec<&str> = CREDENTIAL_FIELDS
            .iter()
            .copied()
            .chain([
                "secret",
                "apikey",
                "max_tokens",
                "x",
                "key_id",
                "TOKEN",
                "PassWord",
            ])
            .collect();
        let around = [
            "", "\"", "'", "\\", "&", "?", "\n", " ", "=", ":", "_", "-", "a", "9",
        ];
        let mut checked = 0;
        for a in &names {
            for b in ["", "_", "-"]
                .iter()
                .flat_map(|sep| names.iter().map(move |b| format!("{sep}{b}")))
            {
                for before in around {
                    for after in around {
                        let text = format!("{before}{a}{b}{after}");
                        let expected = overlapping(text.as_bytes());
                        assert_eq!(names_a_field(text.as_bytes(), true), expected, "{text:?}");
                        // Windows of 1 to 8 bytes, ending anywhere in the texts, names
                        // cut included.
                        let window = 1 + checked % 8;
                        assert_eq!(
                            names_a_field_in(text.as_bytes(), window),
                            expected,
                            "{text:?}, window {window}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000);
    }
    use vcr_cassette::http;

    /// (id, severity, path, leaked text) of every leak in a vcrpy cassette of `interactions`.
    fn leaks(interactions: &str) -> Vec<(&'static str, Severity, String, String)> {
        let text = format!("interactions:\n{interactions}version: 1\n");
        let cassette = http::read(std::path::Path::new("c.yaml"), text.as_bytes())
            .expect("reads")
            .expect("a vcrpy cassette");
        let match_on = cassette.format.default_match_on();
        check(&cassette, text.as_bytes(), &Scanner::new(&[]), match_on)
            .into_iter()
            .map(|l| (l.hit.family.id().as_str(), l.severity, l.path, l.hit.text))
            .collect()
    }

    /// One interaction: request headers (YAML lines), URL, request body, response body.
    fn exchange(headers: &str, uri: &str, body: &str, response: &str) -> String {
        format!(
            "- request:\n    body: {body}\n    headers:\n{headers}    method: POST\n    uri: {uri}\n  response:\n    body:\n      string: {response}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\n"
        )
    }

    fn header(name: &str, value: &str) -> String {
        format!("      {name}:\n      - '{value}'\n")
    }

    const KEY: &str = "Q7fKz2PmA9xLw3RtYb8NcV5hJ1sD";
    const URL: &str = "https://api.example.org/v1/things";

    fn secrets(interactions: &str) -> Vec<String> {
        leaks(interactions)
            .into_iter()
            .filter(|l| l.0 == "leak/secret")
            .map(|l| l.3)
            .collect()
    }

    #[test]
    fn credential_headers_are_secrets_unless_placeholders() {
        let bearer = header("Authorization", &format!("Bearer {KEY}"));
        assert_eq!(secrets(&exchange(&bearer, URL, "null", "ok")), [KEY]);
        for fake in [
            "Bearer OPENAI_API_KEY",
            "token ONE_OFF_SCOPE_AUTHORIZATION_TOKEN",
            "Basic dGVzdDp0ZXN0",
            "Basic dGVzdHVzZXI6TVlfVEVTVF9UT0tFTg==",
            "Bearer <API_KEY>",
            "Bearer sk-...",
        ] {
            let headers = header("Authorization", fake);
            assert_eq!(
                secrets(&exchange(&headers, URL, "null", "ok")),
                [] as [String; 0],
                "{fake}"
            );
        }
        // `deploy:Xk9mQ2vL7pwZ` is a real account.
        let basic = header("Authorization", "Basic ZGVwbG95OlhrOW1RMnZMN3B3Wg==");
        assert_eq!(secrets(&exchange(&basic, URL, "null", "ok")).len(), 1);
        let amz = header("X-Amz-Security-Token", KEY);
        assert_eq!(secrets(&exchange(&amz, URL, "null", "ok")), [KEY]);
        // SigV4: the key id is what is reported; one spelling TEST is made up.
        let sigv4 = |id: &str| {
            header(
                "Authorization",
                &format!(
                    "AWS4-HMAC-SHA256 Credential={id}/20240101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=0d1f"
                ),
            )
        };
        assert_eq!(
            secrets(&exchange(&sigv4("AKIA4QJ7XZ2MB5NRC6WD"), URL, "null", "ok")),
            ["AKIA4QJ7XZ2MB5NRC6WD"]
        );
        assert!(secrets(&exchange(&sigv4("AKIAIOSTESTKEY123456"), URL, "null", "ok")).is_empty());
    }

    #[test]
    fn query_parameters_and_cookies_are_judged_by_name() {
        let url = format!("{URL}?api_key={KEY}&page=2");
        assert_eq!(
            secrets(&exchange(&header("Accept", "*/*"), &url, "null", "ok")),
            [KEY]
        );
        let url = format!("{URL}?page={KEY}");
        assert!(secrets(&exchange(&header("Accept", "*/*"), &url, "null", "ok")).is_empty());
        let cookie = header("Cookie", &format!("theme=dark; sessionid={KEY}"));
        assert_eq!(secrets(&exchange(&cookie, URL, "null", "ok")), [KEY]);
        let cookie = header("Cookie", "theme=dark; lang=en-GB-oxendict");
        assert!(secrets(&exchange(&cookie, URL, "null", "ok")).is_empty());
        // A demo app's session of words and JSON, percent-encoded: not a token.
        let demo =
            "app-jwt=Bearer%202025-09-12T12%3A35%3A22.361Z%3A%7B%22username%22%3A%22dana%22%7D";
        assert!(secrets(&exchange(&header("Cookie", demo), URL, "null", "ok")).is_empty());
        let rails = format!("_app_session={KEY}%3D%3D--0a1b2c3d4e5f60718293a4b5c6d7e8f9");
        assert_eq!(
            secrets(&exchange(&header("Cookie", &rails), URL, "null", "ok")).len(),
            1
        );
    }

    #[test]
    fn secret_fields_beside_a_client_are_secrets() {
        let body = |json: &str| format!("'{json}'");
        let client = body(&format!(r#"{{"client_id": "abc", "secret": "{KEY}"}}"#));
        let json = header("Content-Type", "application/json");
        assert_eq!(secrets(&exchange(&json, URL, &client, "ok")), [KEY]);
        let riddle = body(r#"{"question": "the answer", "secret": "forty-two is the answer"}"#);
        assert!(secrets(&exchange(&json, URL, &riddle, "ok")).is_empty());
        let password = body(&format!(r#"{{"user": "ann", "password": "{KEY}"}}"#));
        assert_eq!(secrets(&exchange(&json, URL, &password, "ok")), [KEY]);
    }

    #[test]
    fn public_and_repeated_keys_are_one_finding_or_none() {
        let google = "AIzaSyD4f8Qx2LmN7pR9sT1uV3wX5yZ6aB8cDeF";
        let firebase = format!(
            r#"'{{"apiKey": "{google}", "authDomain": "demo.firebaseapp.com", "projectId": "demo"}}'"#
        );
        let json = header("Content-Type", "application/json");
        assert!(secrets(&exchange(&json, URL, "null", &firebase)).is_empty());
        let elsewhere = format!(r#"'{{"key": "{google}"}}'"#);
        assert_eq!(secrets(&exchange(&json, URL, "null", &elsewhere)), [google]);
        // The full token and its display (its first 16 characters) are one finding.
        let token = format!("ghp_{KEY}abcdefgh");
        let display = &token[..16];
        let shown = format!(r#"'{{"token": "{token}", "token_display": "{display}"}}'"#);
        assert_eq!(
            secrets(&exchange(&json, URL, "null", &shown)),
            std::slice::from_ref(&token)
        );
        // The same token in three requests: one finding.
        let bearer = header("Authorization", &format!("Bearer {KEY}"));
        let three = exchange(&bearer, URL, "null", "ok").repeat(3);
        let found = check_repeats(&three);
        assert_eq!(found, [(KEY.to_owned(), 2)]);
    }

    fn check_repeats(interactions: &str) -> Vec<(String, usize)> {
        let text = format!("interactions:\n{interactions}version: 1\n");
        let cassette = http::read(std::path::Path::new("c.yaml"), text.as_bytes())
            .unwrap()
            .unwrap();
        check(&cassette, text.as_bytes(), &Scanner::new(&[]), &[])
            .into_iter()
            .map(|l| (l.hit.text, l.repeats))
            .collect()
    }

    #[test]
    fn home_folders_depend_on_the_side() {
        let json = header("Content-Type", "application/json");
        let paths = |body: &str, response: &str| -> Vec<(Severity, String)> {
            leaks(&exchange(&json, URL, body, response))
                .into_iter()
                .filter(|l| l.0 == "leak/path")
                .map(|l| (l.1, l.2))
                .collect()
        };
        let sent = r#"'{"path": "/home/dana/q3.csv"}'"#;
        let echoed = r#"'{"saved": "/home/dana/q3.csv"}'"#;
        let other = r#"'{"worker": "/home/kofi/w.py"}'"#;
        let found = paths(sent, echoed);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found.iter().all(|(s, _)| *s == Severity::Error),
            "{found:?}"
        );
        assert!(found[1].1.contains("response"), "{found:?}");
        assert_eq!(
            paths("null", other),
            [(
                Severity::Warning,
                "interactions[0].response.body.string (json) /worker".to_owned()
            )]
        );
        // XML's `</root>` is not the root user's home; `/root/...` in a response is a path.
        assert!(paths("null", "'<root><a>1</a></root>'").is_empty());
        assert_eq!(paths("null", "'run /root/build.sh'").len(), 1);
    }

    #[test]
    fn a_home_folder_from_a_server_on_the_recording_machine_is_an_error() {
        // Ollama's `/api/show` answers with the path of the model file on the machine that
        // ran it: the recording person's home.
        let json = header("Content-Type", "application/json");
        let modelfile = r#"'{"modelfile": "FROM /Users/dana/.ollama/models/blobs/sha256-1"}'"#;
        for (url, severity) in [
            ("http://localhost:11434/api/show", Severity::Error),
            ("http://127.0.0.1:11434/api/show", Severity::Error),
            ("http://[::1]:11434/api/show", Severity::Error),
            ("https://ollama.example.org/api/show", Severity::Warning),
            ("http://localhost.example.org/api/show", Severity::Warning),
        ] {
            let found: Vec<Severity> = leaks(&exchange(&json, url, "null", modelfile))
                .into_iter()
                .filter(|l| l.0 == "leak/path")
                .map(|l| l.1)
                .collect();
            assert_eq!(found, [severity], "{url}");
        }
    }

    #[test]
    fn uuids_and_timestamps_count_only_where_requests_are_matched() {
        let accept = header("Accept", "*/*");
        let uuid = "3f2b8c1e-9d4a-4e7b-a6c5-0f1e2d3c4b5a";
        let ids = |interactions: &str| -> Vec<(Severity, String)> {
            leaks(interactions)
                .into_iter()
                .filter(|l| l.0 == "leak/uuid" || l.0 == "leak/timestamp")
                .map(|l| (l.1, l.2))
                .collect()
        };
        // In the URL (vcrpy matches path and query by default): it breaks replay.
        let url = format!("{URL}/{uuid}?since=2024-05-01T12:00:00Z");
        let found = ids(&exchange(&accept, &url, "null", "ok"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|(s, _)| *s == Severity::Error));
        // In a response, or a request body vcrpy does not match: nothing.
        let body = format!("'{{\"id\": \"{uuid}\"}}'");
        assert!(ids(&exchange(&accept, URL, &body, &body)).is_empty());
        // An id a server handed out earlier replays as recorded.
        let created = exchange(&accept, URL, "null", &body);
        let fetched = exchange(&accept, &format!("{URL}/{uuid}"), "null", "ok");
        assert!(ids(&format!("{created}{fetched}")).is_empty());
    }

    #[test]
    fn each_leak_is_judged_by_its_own_interaction_and_named_by_its_own_leaf() {
        let json = header("Content-Type", "application/json");
        let uuid = "3f2b8c1e-9d4a-4e7b-a6c5-0f1e2d3c4b5a";
        // The second request sends an id only a later response hands out: it was made up.
        let sent = exchange(&json, URL, r#"'{"path": "/home/dana/a.csv"}'"#, "ok");
        let listed = exchange(
            &json,
            &format!("{URL}/{uuid}"),
            "null",
            r#"'{"files": ["/home/dana/a.csv", "/home/kofi/b.csv", "/home/ines/c.csv"]}'"#,
        );
        let created = exchange(&json, URL, "null", &format!("'{{\"id\": \"{uuid}\"}}'"));
        let found: Vec<(&str, Severity, String)> = leaks(&format!("{sent}{listed}{created}"))
            .into_iter()
            .map(|l| (l.0, l.1, l.2))
            .collect();
        let body = "interactions[1].response.body.string (json)";
        assert_eq!(
            found,
            [
                (
                    "leak/path",
                    Severity::Error,
                    "interactions[0].request.body (json) /path".to_owned()
                ),
                (
                    "leak/uuid",
                    Severity::Error,
                    "interactions[1].request.uri".to_owned()
                ),
                // Echoed, but by another interaction than the one that sent it.
                ("leak/path", Severity::Warning, format!("{body} /files/0")),
                ("leak/path", Severity::Warning, format!("{body} /files/1")),
                ("leak/path", Severity::Warning, format!("{body} /files/2")),
            ],
        );
    }

    #[test]
    fn a_large_body_is_judged_as_a_small_one() {
        let plain = header("Content-Type", "text/plain");
        let found = |filler: usize| {
            let body = format!(
                "'{}run /home/dana/job.sh with api_key=sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9 id {}'",
                "word ".repeat(filler),
                "3f2b8c1e-9d4a-4e7b-a6c5-0f1e2d3c4b5a"
            );
            // The request sends the folder, the response echoes it: both are errors.
            let sent = exchange(&plain, URL, &body, "ok");
            let echoed = exchange(&plain, URL, "'/home/dana/job.sh'", &body);
            leaks(&format!("{sent}{echoed}"))
                .into_iter()
                .map(|l| (l.0, l.1, l.2))
                .collect::<Vec<_>>()
        };
        let small = found(10);
        let large = found(LARGE / 5 + 1);
        assert!(!small.is_empty());
        assert_eq!(large, small);
    }

    #[test]
    fn emails_are_one_warning_per_address_and_comments_are_read() {
        let json = header("Content-Type", "application/json");
        let body = r#"'{"to": "dana.kofi@corp-mail.net", "cc": "Dana.Kofi@corp-mail.net"}'"#;
        let found = leaks(&exchange(&json, URL, body, body));
        let emails: Vec<_> = found.iter().filter(|l| l.0 == "leak/email").collect();
        assert_eq!(emails.len(), 1, "{found:?}");
        assert_eq!(emails[0].1, Severity::Warning);
        let commented = format!(
            "# the key was {KEY_ANTHROPIC}\n{}",
            exchange(&json, URL, "null", "ok")
        );
        assert_eq!(secrets(&commented), [KEY_ANTHROPIC]);
    }

    /// Comment lines are found where a line-by-line split finds them (issue 12: lines are
    /// now found with `memchr`): first and last line, with and without a final line break,
    /// indented, CRLF, `//`, and `#` that does not open its line.
    #[test]
    fn comment_lines_are_the_lines_a_split_finds() {
        let scanner = Scanner::new(&[]);
        let split = |file: &[u8]| -> Vec<usize> {
            let mut offset = 0;
            let mut at = Vec::new();
            for line in file.split_inclusive(|&b| b == b'\n') {
                let start = offset;
                offset += line.len();
                let trimmed = line.trim_ascii_start();
                if trimmed.starts_with(b"#") || trimmed.starts_with(b"//") {
                    at.extend(scanner.scan(line).iter().map(|h| start + h.start));
                }
            }
            at
        };
        for end in ["", "\n", "\r\n"] {
            let file = format!(
                "# {KEY_ANTHROPIC}\nkey: value # {KEY_ANTHROPIC}\n  \t// {KEY_ANTHROPIC}\r\n\n   \n  # {KEY_ANTHROPIC}{end}"
            );
            let mut leaks = Vec::new();
            comments(file.as_bytes(), &scanner, &mut leaks);
            let found: Vec<usize> = leaks.iter().filter_map(|l| l.offset).collect();
            assert_eq!(found, split(file.as_bytes()), "{file:?}");
            assert_eq!(found.len(), 3, "{file:?}");
        }
        let mut leaks = Vec::new();
        comments(b"", &scanner, &mut leaks);
        assert!(leaks.is_empty());
    }

    const KEY_ANTHROPIC: &str = "sk-ant-api03-vNbqEEbM8eQttjiQNV-0C4L2oXrW8wSzJ88z2QCkmJI2TW6JH6tJ7aYz7NxWpoiPuj5FDZQlr25wy0OiW1ZjoKHtAj1f9AA";
}
