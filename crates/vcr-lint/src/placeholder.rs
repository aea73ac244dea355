//! What is not a leak: placeholders, redacted values, example data, and how leaks are
//! masked in every output.

/// Words that make up the names of fake credentials (`test-api-key`, `invalid_token`,
/// `my-secret-123`): a value made only of these (and numbers) is not a credential.
const FAKE_WORDS: &[&str] = &[
    "test",
    "testing",
    "fake",
    "dummy",
    "mock",
    "invalid",
    "wrong",
    "bad",
    "bogus",
    "sample",
    "example",
    "my",
    "your",
    "the",
    "a",
    "api",
    "key",
    "keys",
    "token",
    "secret",
    "password",
    "pass",
    "here",
    "placeholder",
    "changeme",
    "redacted",
    "scrubbed",
    "foo",
    "bar",
    "baz",
    "sk",
    "pk",
    "id",
    "access",
    "auth",
    "bearer",
    "value",
    "xxx",
    "none",
    "null",
    "default",
    "local",
    "dev",
    "demo",
    "insert",
    "replace",
    "with",
    "goes",
    "set",
    "me",
    "env",
    "expired",
    "revoked",
    "abc",
    "xyz",
    "hello",
    "world",
];

/// Prefixes of keys that are public by design (embedded in web pages): Datadog browser
/// client tokens, PostHog project keys, Stripe publishable keys.
const PUBLIC_KEY_PREFIXES: &[&str] = &["phc_", "pk_live_", "pk_test_"];

/// Values that stand for a credential without being one (compared case-insensitively).
const PLACEHOLDER_WORDS: &[&str] = &[
    "redacted",
    "filtered",
    "removed",
    "hidden",
    "masked",
    "placeholder",
    "dummy",
    "fake",
    "test",
    "testing",
    "example",
    "sample",
    "none",
    "null",
    "nil",
    "undefined",
    "secret",
    "token",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "key",
    "changeme",
    "xxx",
    "your-api-key",
    "your_api_key",
    "your-token",
    "your_token",
    "bearer",
    "basic",
    "string",
    "value",
    "env",
    "unset",
    "na",
    "n/a",
    "scrubbed",
    "sanitized",
    "anonymized",
    "obfuscated",
    "omitted",
    "elided",
];

/// Words that introduce the credential in an `Authorization` value.
const SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "token",
    "bot",
    "digest",
    "apikey",
    "key",
    "jwt",
    "aws4-hmac-sha256",
];

/// Whether `word` is an authorization scheme (`Bearer`, `Basic`, ...).
pub(super) fn is_scheme(word: &[u8]) -> bool {
    SCHEMES
        .iter()
        .any(|s| s.as_bytes().eq_ignore_ascii_case(word))
}

/// Splits `Bearer abc` into the scheme and the credential.
pub(super) fn split_scheme(value: &str) -> (Option<&str>, &str) {
    match value.split_once(' ') {
        Some((scheme, rest)) if is_scheme(scheme.as_bytes()) => (Some(scheme), rest.trim()),
        _ => (None, value),
    }
}

/// `%API_KEY%`: a Windows environment variable (or a template's `%name%`) names the value
/// it stands for, in a name's characters. A random password that happens to start and end
/// with `%` (`%tHYvhGiM+6?w-p%N%`) names nothing and is no placeholder.
fn is_percent_variable(v: &str) -> bool {
    let inner = &v[1..v.len().saturating_sub(1).max(1)];
    !inner.is_empty()
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A value written to stand for a credential: `[REDACTED]`, `<TOKEN>`, `{{api_key}}`,
/// `${OPENAI_API_KEY}`, `***`, `xxxx`, `REDACTED`, `sk-...`, a placeholder word.
pub(super) fn is_placeholder_value(value: &str) -> bool {
    let v = value.trim().trim_matches(|c| c == '"' || c == '\'');
    if v.is_empty() {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    let wrapped = |open: char, close: char| v.starts_with(open) && v.ends_with(close);
    wrapped('[', ']')
        || wrapped('<', '>')
        || wrapped('{', '}')
        || wrapped('(', ')')
        || (wrapped('%', '%') && is_percent_variable(v))
        || v.contains("{{")
        || v.contains("${")
        || v.starts_with('$')
        // A value cut short for display (`sk-...`, `ya29.a0AfH6SM...`); not a long one that
        // runs on in dots ([`without_padding`]).
        || without_padding(v).ends_with("...")
        || v.ends_with('…')
        || PLACEHOLDER_WORDS.contains(&lower.as_str())
        || v.contains("****")
        || lower.contains("<redacted")
        || has_marker(v, VALUE_MARKERS)
        || v.chars()
            .all(|c| c == v.chars().next().unwrap_or('x') || c == '-' || c == '_')
        || lower.split(['-', '_', '.', ' ']).all(|w| {
            w.is_empty() || FAKE_WORDS.contains(&w) || w.bytes().all(|b| b.is_ascii_digit())
        })
        || is_env_name(v)
        || is_env_reference(v)
        || is_named_id(v)
}

/// The longest text before a trailing `...` that is taken for a value cut short: what a
/// document or a log shows of a key before its ellipsis is a prefix, never 64 characters.
const ELLIPSIS_CUT: usize = 64;

/// A long value padded with dots, without its padding (Google's service-account tokens,
/// `ya29.c.` and some 230 random characters, are padded with dots to 1,024: issue 41, 8
/// files of a blind set); any other value as it is, a trailing `...` included.
fn without_padding(value: &str) -> &str {
    let unpadded = value.trim_end_matches('.');
    if unpadded.len() >= ELLIPSIS_CUT && unpadded.len() + 3 <= value.len() {
        unpadded
    } else {
        value
    }
}

/// Whether a value is a variable's name and an id: `API_TOKEN_d2d45845-8aa3-...`, what a
/// test configuration makes to stand for a credential, unique per run and named after what
/// it stands for. A key has no variable's name in front of it.
fn is_named_id(value: &str) -> bool {
    const UUID: usize = 36;
    value.len() > UUID + 1
        && value.is_char_boundary(value.len() - UUID)
        && value.as_bytes()[value.len() - UUID - 1] == b'_'
        && super::credential::is_uuid(&value[value.len() - UUID..])
        && is_env_name(&value[..value.len() - UUID - 1])
}

/// A value that names the environment variable it comes from the way config tools write it
/// (`ENV-cloud9_password`, `env:API_TOKEN`, `env.DB_PASSWORD`): a reference, not a value.
fn is_env_reference(value: &str) -> bool {
    let Some(name) = ["ENV-", "ENV_", "env:", "env.", "ENV:", "ENV."]
        .iter()
        .find_map(|prefix| value.strip_prefix(prefix))
    else {
        return false;
    };
    !name.is_empty()
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && name
            .split(['_', '-', '.'])
            .any(|w| w.len() >= 3 && w.bytes().all(|b| b.is_ascii_alphabetic()))
}

/// The name of an environment variable (`OPENAI_API_KEY`, `ONE_OFF_SCOPE_AUTHORIZATION_TOKEN`)
/// written where its value would go: upper-case words joined by `_`. A real key is random
/// and mixes cases or is hex; it is never a run of upper-case words with underscores.
pub(super) fn is_env_name(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_uppercase()
        && bytes.contains(&b'_')
        && !bytes.windows(2).any(|w| w == b"__")
        && bytes
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && value.split('_').all(|word| {
            // Words, not random characters: every word has a vowel or is short.
            word.len() <= 4 || word.bytes().any(|b| b"AEIOUY".contains(&b))
        })
}

/// Whether a value is made only of fake words, with or without separators (`test`,
/// `testuser`, `none`, `example_token`, `TestTestTest`), numbers allowed between them: what a
/// decoded `Basic` credential or a JWT's claims say when the credential was made up.
///
/// Words may be written in leetspeak (`@S3cur3P@55w0rd`, `r34!_b4d_p455`): a reviewer
/// reads "a secure password" and "real bad pass" at a glance, and so does this.
pub(super) fn is_fake_words(value: &str) -> bool {
    let lower: Vec<u8> = value
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || LEET.iter().any(|(l, _)| l == b))
        .map(|b| b.to_ascii_lowercase())
        .collect();
    if lower.is_empty() {
        return true;
    }
    // Word break by dynamic programming: `reachable[i]` says `lower[..i]` splits into fake
    // words and numbers.
    let mut reachable = vec![false; lower.len() + 1];
    reachable[0] = true;
    for i in 0..lower.len() {
        if !reachable[i] {
            continue;
        }
        let digits = lower[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            reachable[i + digits] = true;
        }
        // Letters in alphabet order (`abc123`, `def456`, `xyz`): typed, not drawn.
        let run = 1 + lower[i..]
            .windows(2)
            .take_while(|w| w[0].is_ascii_lowercase() && w[1] == w[0] + 1)
            .count();
        if run >= 3 {
            reachable[i + run] = true;
        }
        // A symbol that is not standing for a letter separates words (`chars!`).
        if !lower[i].is_ascii_alphanumeric() {
            reachable[i + 1] = true;
        }
        for word in FAKE_WORDS.iter().chain(FAKE_USER_WORDS) {
            let spelled = lower.get(i..i + word.len()).is_some_and(|at| {
                at.iter()
                    .zip(word.bytes())
                    .all(|(&b, w)| b == w || LEET.iter().any(|&(l, letter)| l == b && letter == w))
            });
            if spelled {
                reachable[i + word.len()] = true;
            }
        }
    }
    reachable[lower.len()]
}

/// Leetspeak: the characters written for letters, as `(character, letter)`.
const LEET: &[(u8, u8)] = &[
    (b'4', b'a'),
    (b'@', b'a'),
    (b'3', b'e'),
    (b'1', b'i'),
    (b'1', b'l'),
    (b'!', b'i'),
    (b'!', b'l'),
    (b'0', b'o'),
    (b'5', b's'),
    (b'$', b's'),
    (b'7', b't'),
];

/// Why a JWT is no credential, judged by its claims (each segment decoded once): made up
/// ([`fake_claims`]) or a signed statement ([`statement_claims`]).
pub(super) fn jwt_rejected(token: &str) -> Option<&'static str> {
    let mut parts = token.split('.');
    let (header, payload) = (parts.next()?, parts.next()?);
    with_segment(payload, |claims| {
        if fake_claims(claims) {
            Some(super::reason::FAKE_JWT)
        } else if statement_claims(header, claims) {
            Some(super::reason::STATEMENT_JWT)
        } else {
            None
        }
    })
    .flatten()
}

/// Whether a JWT's claims say it was made up ([`fake_claims`]).
pub(super) fn is_fake_jwt(token: &str) -> bool {
    token
        .split('.')
        .nth(1)
        .and_then(|payload| with_segment(payload, fake_claims))
        .unwrap_or(false)
}

/// What `read` makes of a JWT segment's JSON object (base64url), if the segment is one.
fn with_segment<R>(segment: &str, read: impl FnOnce(&vcr_json::Object<'_>) -> R) -> Option<R> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(segment.trim_end_matches('='))
        .ok()?;
    let value = vcr_json::parse(&bytes).ok()?;
    Some(read(value.as_object()?))
}

/// Whether a JWT's claims say it was made up: its subject (or, without one, its name or
/// issuer) is fake words (`{"sub": "test"}`, `{"sub": "1234567890", "name": "John Doe"}` is
/// not, being a real-looking example that is still a token shape).
fn fake_claims(claims: &vcr_json::Object<'_>) -> bool {
    let fake = |claim: &str| {
        claims
            .get(claim)
            .and_then(|v| v.as_str())
            .map(|v| v.split_once('@').map_or(v, |(local, _)| local))
            .is_some_and(|v| is_fake_words(v) && v.bytes().any(|b| b.is_ascii_alphabetic()))
    };
    // The subject names who the token is for (an e-mail by its local part: `noone@ibm.com`);
    // without one, or without an issuer to vouch for it, the name says it.
    let subject = ["sub", "name", "iss"]
        .iter()
        .find(|claim| claims.get(claim).and_then(|v| v.as_str()).is_some());
    subject.is_some_and(|claim| fake(claim)) || (claims.get("iss").is_none() && fake("name"))
}

/// Claims that say whom a JWT is for or who may use it: an audience, a subject, a scope or
/// role, a client, an account, a session.
const WHO_CLAIMS: &[&str] = &[
    "aud",
    "sub",
    "scp",
    "scope",
    "scopes",
    "roles",
    "role",
    "permissions",
    "azp",
    "appid",
    "app_id",
    "client_id",
    "cid",
    "oid",
    "uid",
    "user_id",
    "userid",
    "email",
    "upn",
    "unique_name",
    "username",
    "preferred_username",
    "sid",
    "session_id",
    "tid",
    "act",
    "cnf",
];

/// Whether a claim's name is an id's (`id`, `host_id`, `userId`, `accountID`): whose token it
/// is (TheTVDB's `{"id": ..}`, a host's registration token). A name with a hyphen is a
/// namespaced statement's (`x-ms-sgx-product-id`), not an account's.
fn names_an_id(claim: &str) -> bool {
    !claim.contains('-')
        && (claim.eq_ignore_ascii_case("id")
            || claim.to_ascii_lowercase().ends_with("_id")
            || claim.ends_with("Id")
            || claim.ends_with("ID"))
}

/// The claims every JWT may hold that say nothing of what it is for (RFC 7519's registered
/// claims, less the audience and subject).
const TIME_CLAIMS: &[&str] = &["iss", "iat", "exp", "nbf", "jti"];

/// Whether a JWT's claims make it a signed statement, not a bearer credential: they name no one it
/// is for or who may use it ([`WHO_CLAIMS`], an id's name), and either its header says where
/// anyone fetches the keys that verify it (`jku`, `x5u`: an attestation service's report of
/// an enclave, made for third parties to check) or it holds times alone and no issuer (a
/// proof's nonce). A token of an issuer and times only (a GitHub App's JWT: `iss`, `iat`,
/// `exp`) authenticates its issuer, and one of claims in a vendor's own words (`xuu`,
/// `xcu`) may name its user: both stay credentials. Regression (issue 41): 40 clean files of
/// a blind set held attestation tokens under `token`.
fn statement_claims(header: &str, claims: &vcr_json::Object<'_>) -> bool {
    let raw: Vec<&str> = claims.iter().map(|(k, _)| k.as_str()).collect();
    let names: Vec<String> = raw.iter().map(|k| k.to_ascii_lowercase()).collect();
    if names.is_empty()
        || names.iter().any(|n| WHO_CLAIMS.contains(&n.as_str()))
        || raw.iter().any(|k| names_an_id(k))
    {
        return false;
    }
    let published_keys = with_segment(header, |header| {
        header
            .iter()
            .any(|(k, _)| matches!(k.as_str(), "jku" | "x5u"))
    })
    .unwrap_or(false);
    let times_alone = names.iter().all(|n| TIME_CLAIMS.contains(&n.as_str()))
        && !names.iter().any(|n| n == "iss");
    published_keys || times_alone
}

/// More words of made-up accounts (`testuser:testpass`, `admin:admin`).
const FAKE_USER_WORDS: &[&str] = &[
    "user",
    "users",
    "username",
    "admin",
    "root",
    "login",
    "pwd",
    "passwd",
    "passw0rd",
    "client",
    "app",
    "one",
    "off",
    "scope",
    "authorization",
    "s3cr3t",
    "qwerty",
    // `root` backwards, and a word that says no: passwords tests send to be refused.
    "toor",
    "nope",
    "guest",
    "anonymous",
    "letmein",
    "unknown",
    "fixture",
    "stub",
    "no",
    "noone",
    "nobody",
    "secure",
    "very",
    "real",
    "strong",
    "super",
    "word",
    // Vendors' token prefixes: `ghp_TEST_TOKEN` is fake words behind GitHub's prefix.
    "ghp",
    "gho",
    "ghu",
    "ghs",
    "github",
    "pat",
    "xoxb",
    "xoxp",
    "aws",
    "some",
    "something",
    "somewhere",
    "from",
    "write",
    "only",
    "at",
    "least",
    "chars",
    "updated",
    "new",
    "old",
    // Local model servers' documented dummy keys.
    "ollama",
    "lm",
    "studio",
];

/// A key that is public by design, not a secret.
pub(super) fn is_public_key(value: &str) -> bool {
    let datadog_client_token = value.len() == 35
        && value.starts_with("pub")
        && value[3..].bytes().all(|b| b.is_ascii_hexdigit());
    datadog_client_token || PUBLIC_KEY_PREFIXES.iter().any(|p| value.starts_with(p))
}

/// Whether every character is one that API keys and tokens are written with (base64,
/// base64url, hex, JWT, `key:secret`): code and prose have parentheses, quotes, spaces.
pub(super) fn is_token_charset(value: &str) -> bool {
    value.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b':' | b'-')
    })
}

/// Whether the body of a PEM block (what lies between its `BEGIN` and `END` markers, as
/// written: line breaks, escaped ones too) holds no key: nothing, or a placeholder
/// (`REDACTED`, `<PRIVATE KEY>`, `...`). What redacted the key kept the markers.
pub(super) fn is_placeholder_pem_body(body: &str) -> bool {
    let body = body.replace("\\n", "");
    let body = body.replace(['\n', '\r', ' ', '\t', '\\'], "");
    body.is_empty() || is_placeholder_value(&body) || is_placeholder_token(&body)
}

/// Words that mark a value as written to stand for a credential, wherever they stand as a
/// word in it (see [`has_marker`]).
const VALUE_MARKERS: &[&str] = &[
    "redacted",
    "filtered",
    "placeholder",
    "your",
    "dummy",
    "changeme",
    "xxx",
];

/// The markers of a token-shaped value (`sk-FAKE-...`, `AKIA...EXAMPLE`, `...XXXX`).
const TOKEN_MARKERS: &[&str] = &[
    "xxx",
    "redacted",
    "filtered",
    "example",
    "placeholder",
    "dummy",
    "fake",
    "your",
];

/// Whether one of `markers` (lower-case) stands as a word in `value`: written in one case
/// (`FAKE`, `fake`, `Fake`; a run of `x` counts whole, `xxxxxxxx`), and beginning or ending
/// at an edge of the value, at a character that is not a letter or digit (`sk-FAKE`,
/// `YOUR_KEY`, `...XXXX`), or at a change of case that starts or ends a word (`myFakeKey`).
/// A word found inside a random key is none of these: about one random key in 1,000 to
/// 2,500 holds `fake`, `your` or `xxx` in some mix of cases (issue 22), and a reviewer
/// reads them as the key they are.
pub(super) fn has_marker(value: &str, markers: &[&str]) -> bool {
    let bytes = value.as_bytes();
    let lower = value.to_ascii_lowercase();
    markers.iter().any(|marker| {
        lower.match_indices(marker).any(|(start, _)| {
            let mut end = start + marker.len();
            if marker.bytes().all(|b| b == b'x') {
                while lower.as_bytes().get(end) == Some(&b'x') {
                    end += 1;
                }
            }
            let word = &bytes[start..end];
            let one_case = word.iter().all(u8::is_ascii_uppercase)
                || word.iter().all(u8::is_ascii_lowercase)
                || (word[0].is_ascii_uppercase() && word[1..].iter().all(u8::is_ascii_lowercase));
            if !one_case {
                return false;
            }
            let before = start.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(end).copied();
            // An edge of the value or a symbol sets a word apart whatever the rest is.
            if before.is_none_or(|b| !b.is_ascii_alphanumeric())
                || after.is_none_or(|b| !b.is_ascii_alphanumeric())
            {
                return true;
            }
            let starts = before.is_some_and(|b| {
                b.is_ascii_lowercase()
                    && word[0].is_ascii_uppercase()
                    && word.len() > 1
                    && word[1].is_ascii_lowercase()
            });
            let ends = after.is_some_and(|b| {
                b.is_ascii_uppercase() && word[word.len() - 1].is_ascii_lowercase()
            });
            // A change of case starts a word only in a value written as words (`myFakeKey`):
            // a random key changes case at every other character, and `cXxx03` in one is no
            // marker (5 random `sk-proj-` keys in 20,000 were taken for placeholders, issue
            // 41). So the run of letters and digits that holds the marker must be words.
            (starts || ends) && in_words(value, start, end)
        })
    })
}

/// Whether the run of letters and digits around `start..end` in `value` is written as
/// words: typed words (`myFakeKey`, `YourApiKeyHere`) or fake words.
fn in_words(value: &str, start: usize, end: usize) -> bool {
    let bytes = value.as_bytes();
    let from = bytes[..start]
        .iter()
        .rposition(|b| !b.is_ascii_alphanumeric())
        .map_or(0, |i| i + 1);
    let to = bytes[end..]
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .map_or(bytes.len(), |i| end + i);
    let run = &value[from..to];
    crate::words::typed(run, &[]).is_some() || is_fake_words(run)
}

/// The length of the longest run of one character in `value`.
fn longest_run(value: &str) -> usize {
    let bytes = value.as_bytes();
    let mut longest = 0;
    let mut start = 0;
    for i in 1..=bytes.len() {
        if i == bytes.len() || bytes[i] != bytes[start] {
            longest = longest.max(i - start);
            start = i;
        }
    }
    longest
}

/// Credentials their vendors publish in their documentation as examples, in one place
/// (issue 41): a value that holds one (as it is, percent-encoded, JSON-escaped, in a base64
/// layer the judge undoes, with a suffix) is no leak, whatever name holds it. A real key that
/// differs from one by a character is still a key. Each is listed with where it is
/// published.
const KNOWN_EXAMPLES: &[&str] = &[
    // AWS Command Line Interface User Guide, `aws configure` (the default profile).
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    // The same guide, a named profile (`aws configure --profile user2`).
    "AKIAI44QH8DHBEXAMPLE",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    // Stripe's API reference, "Authentication": the sample test key of every example.
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
];

/// Whether `value` holds a credential of [`KNOWN_EXAMPLES`], as written or with its `/`
/// percent-encoded (`%2F`) or JSON-escaped (`\/`, `\u002F`).
pub(super) fn is_known_example(value: &str) -> bool {
    // Asked of every value judged: one pass, and none for values shorter than any example.
    static EXAMPLES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    if value.len() < 20 {
        return false;
    }
    let examples = EXAMPLES.get_or_init(|| {
        aho_corasick::AhoCorasick::new(KNOWN_EXAMPLES).expect("literal examples build")
    });
    if examples.is_match(value) {
        return true;
    }
    if !value.contains(['%', '\\']) {
        return false;
    }
    let mut undone = value.to_owned();
    for (escaped, slash) in [
        ("%2F", "/"),
        ("%2f", "/"),
        ("\\/", "/"),
        ("\\u002F", "/"),
        ("\\u002f", "/"),
    ] {
        undone = undone.replace(escaped, slash);
    }
    KNOWN_EXAMPLES
        .iter()
        .any(|example| undone.contains(example))
}

/// The longest vendor prefix before a key's body (`sk-ant-api03-` is 13 characters).
const MAX_PREFIX: usize = 16;

/// A token-shaped value that is not a real token: redacted (`sk-ant-***`, `...XXXX`),
/// documentation examples (`AKIAIOSFODNN7EXAMPLE`), or too uniform to be random.
pub(super) fn is_placeholder_token(token: &str) -> bool {
    // A long token padded with dots is judged without its padding.
    let token = without_padding(token);
    if ["****", "…", "..."].iter().any(|w| token.contains(w)) || has_marker(token, TOKEN_MARKERS)
    {
        return true;
    }
    // A vendor's prefix, then words a person typed (`sk-proj-test-key-for-unit-tests`): the
    // whole value after the prefix is words, which a random body never is (issue 41).
    if token
        .match_indices(['-', '_'])
        .take_while(|(at, _)| *at <= MAX_PREFIX)
        .any(|(at, _)| {
            let tail = &token[at + 1..];
            tail.len() >= 8 && crate::words::typed(tail, &[]).is_some()
        })
    {
        return true;
    }
    // Key ids are upper-case: one that spells `TEST` was made for a test (`AKIATESTKEY...`).
    let upper = token.to_ascii_uppercase();
    if token.bytes().all(|b| !b.is_ascii_lowercase()) && upper.contains("TEST") {
        return true;
    }
    // Nor is a key padded with one character (`AKIA0000000000001234`): a run of six or more
    // that is a quarter of the value or more. A long random token can hold such a run where
    // its bytes are structure (an AWS session token's `//////////`, bytes 0xFF in base64),
    // a small part of it.
    if longest_run(token) >= 6.max(token.len() / 4) {
        return true;
    }
    // Real keys are random: a body of few distinct characters (`sk-ant-aaaa...`) is not one.
    let body = token.rsplit(['-', '_', ':']).next().unwrap_or(token);
    let mut seen = [false; 256];
    let distinct = body
        .bytes()
        .filter(|&b| !std::mem::replace(&mut seen[b as usize], true))
        .count();
    body.len() >= 8 && distinct < 6
}

/// A bare (unquoted) value in prose or a header line is only taken for a credential when it
/// looks like one: after a scheme, or long and mixing letters with digits or symbols.
pub(super) fn looks_like_credential(scheme: Option<&str>, value: &str) -> bool {
    if value.contains(char::is_whitespace) {
        return false;
    }
    let mixed = value.chars().any(|c| c.is_ascii_digit())
        || value.chars().any(|c| !c.is_ascii_alphanumeric())
        || (value.chars().any(|c| c.is_ascii_uppercase())
            && value.chars().any(|c| c.is_ascii_lowercase()));
    (scheme.is_some() && value.len() >= 8) || (value.len() >= 8 && mixed) || value.len() >= 20
}

/// User names in documentation and sanitised logs: `/home/USER/`, `/Users/me/`,
/// `/home/$USER/`, `C:\Users\Public\`, `/home/linuxbrew` (a system prefix).
pub(super) fn is_placeholder_user(user: &str) -> bool {
    let lower = user.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "user"
            | "username"
            | "user_name"
            | "yourname"
            | "your-name"
            | "your_name"
            | "yourusername"
            | "me"
            | "you"
            | "name"
            | "someone"
            | "example"
            | "shared"
            | "public"
            | "default"
            | "default user"
            | "all users"
            | "linuxbrew"
            | "..."
            | "."
            | ".."
            | "*"
            | "~"
    ) || user.starts_with(['$', '{', '%', '[', '<', '*'])
        || (user.len() > 1 && user.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
}

/// Email addresses that are not personal data: example domains, no-reply senders,
/// `git@host` remotes, and file names like `icon@2x.png`.
pub(super) fn is_example_email(local: &str, domain: &str) -> bool {
    let domain = domain.to_ascii_lowercase();
    let local = local.to_ascii_lowercase();
    let tld = domain.rsplit('.').next().unwrap_or_default();
    ["example.com", "example.org", "example.net"]
        .iter()
        .any(|d| domain == *d || domain.ends_with(&format!(".{d}")))
        || ["example", "test", "invalid", "localhost", "local"].contains(&tld)
        || [
            "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "js", "mjs", "ts", "css", "json",
            "yaml", "yml", "md", "txt", "py", "rs", "go", "html", "lock", "toml", "zip", "gz",
        ]
        .contains(&tld)
        || domain.ends_with("noreply.github.com")
        || [
            "noreply",
            "no-reply",
            "donotreply",
            "do-not-reply",
            "git",
            "user",
            "username",
            "email",
            "name",
            "someone",
            "your.email",
            "your-email",
            "you",
            "me",
        ]
        .contains(&local.as_str())
        || !is_top_level_domain(tld)
}

/// Whether `tld` (lower case) is a top-level domain of the DNS root: an address on any other
/// (`the@agent.instructions`, `a@b.c`) is made up, or a name in some text that looks like
/// one. A domain in its encoded international form (`xn--...`) is taken as real: the list
/// holds ASCII labels.
fn is_top_level_domain(tld: &str) -> bool {
    static TLDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let tlds = TLDS.get_or_init(|| {
        include_str!("tlds.txt")
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .collect()
    });
    tld.starts_with("xn--") || tlds.binary_search(&tld).is_ok()
}

/// Hides most of a secret: its first characters, then `…` and the length.
pub(super) fn mask(secret: &str) -> String {
    let chars = secret.chars().count();
    let keep = (chars / 4).clamp(2, 8);
    let head: String = secret.chars().take(keep).collect();
    format!("{head}…({chars} chars)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_recognised() {
        for v in [
            "[REDACTED]",
            "<TOKEN>",
            "{{api_key}}",
            "${OPENAI_API_KEY}",
            "$KEY",
            "***",
            "xxxx",
            "REDACTED",
            "sk-...",
            "dummy",
            "null",
            "your-api-key-here",
            "test",
            "Bearer",
            "%API_KEY%",
            "%password%",
            "ENV-cloud9_password",
            "env:API_TOKEN",
            // A variable's name and a run's id, what a test configuration makes.
            "API_TOKEN_d2d45845-8aa3-492d-8e04-e7ab46240f6e",
            "ya29.a0AfH6SMBx...",
        ] {
            assert!(is_placeholder_value(v), "{v}");
        }
        // A service-account token padded with dots is whole.
        let padded = format!(
            "ya29.c.b0AXv0zTOU9-p50a{}{}",
            "Kq7vZ2mXw9Lr4Tb8".repeat(12),
            ".".repeat(700)
        );
        assert!(!is_placeholder_value(&padded));
        assert!(!is_placeholder_token(&padded));
        assert!(is_placeholder_token("ya29.a0AfH6SMBx..."));
        for v in [
            "hunter22",
            // An id after random capitals, or after no name at all.
            "QXZWKT_d2d45845-8aa3-492d-8e04-e7ab46240f6e",
            "_d2d45845-8aa3-492d-8e04-e7ab46240f6e",
            // Random, between two `%` by chance.
            "%tHYvhGiM+6?w-p%N%",
            "a8f3K2m9",
            "PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA",
        ] {
            assert!(!is_placeholder_value(v), "{v}");
        }
    }

    /// A marker word counts where it stands as a word, not where a random key spells it.
    #[test]
    fn a_placeholder_is_known_by_its_shape_not_a_word_inside_it() {
        for v in [
            "sk-FAKE-abc123def456ghi789",
            "sk-proj-fakekey0123456789",
            "myFakeApiKey123456",
            "YOUR_API_KEY_123456",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "abcd1234efgh5678XXXX",
            "AKIA0000000000001234",
        ] {
            assert!(is_placeholder_token(v), "{v}");
        }
        // Random keys that spell a marker in a mix of cases or inside other characters, and
        // an AWS session token whose bytes 0xFF make a run of `/` in its base64.
        let session = format!(
            "IQoJb3JpZ2luX2VjEFkaCXVz{}wEaCXVzLWVhc3QtMSJGMEQCIATPQNTQLWi+yR783RDlvzFAdOYBy4zAeODFqnqPzF4YAiA",
            "/".repeat(10)
        );
        for v in [
            "a9fAkE2kQ7mZp3xR8vLw",
            "Q7x9FAKEq2LmZp3xR8vL",
            "h3YoUr8kQ7mZp3xR8vLw",
            "m2kxXxq9Lw7Zp3R8vQa1",
            session.as_str(),
        ] {
            assert!(!is_placeholder_token(v), "{v}");
            assert!(!is_placeholder_value(v), "{v}");
        }
    }

    #[test]
    fn addresses_on_a_domain_the_root_does_not_hold_are_made_up() {
        for (local, domain) in [
            ("the", "agent.instructions"),
            ("a", "b.c"),
            ("x", "corp.internal"),
        ] {
            assert!(is_example_email(local, domain), "{local}@{domain}");
        }
        for (local, domain) in [
            ("jane", "acme.com"),
            ("jane", "acme.io"),
            ("jane", "Acme.DE"),
            ("jane", "acme.technology"),
            ("jane", "xn--caf-dma.xn--p1ai"),
        ] {
            assert!(!is_example_email(local, domain), "{local}@{domain}");
        }
        let tlds: Vec<&str> = include_str!("tlds.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect();
        assert!(
            tlds.windows(2).all(|w| w[0] < w[1]),
            "tlds.txt is sorted, once each"
        );
    }

    #[test]
    fn masks_keep_only_a_prefix() {
        assert_eq!(mask("sk-ant-api03-abcdefghijklmnop"), "sk-ant-…(29 chars)");
        assert_eq!(mask("abc"), "ab…(3 chars)");
    }
}
