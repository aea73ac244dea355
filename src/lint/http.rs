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

use std::borrow::Cow;
use std::collections::HashSet;

use crate::finding::Severity;
use crate::kind::http::body::{self, Leaf};
use crate::kind::http::{Body, Field, Header, HttpCassette};

use super::{Hit, LeakFamily, MACHINE_PATH, Scanner, credential};

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
}

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
    "secret",
    "x-amz-security-token",
    "x-amz-signature",
    "x-amz-credential",
    "signature",
    "sig",
    "x-goog-signature",
    "x-goog-credential",
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
    "aws_session_token",
    "private_key",
    "bot_token",
];

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

/// Cookie names that hold a session or a credential.
fn is_session_cookie(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
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

/// Which side of the exchange a text is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Request,
    Response,
}

/// One text of the cassette, where it came from and what it means.
struct Text<'a> {
    text: Cow<'a, str>,
    path: String,
    /// Where the text starts in the file, when the scalar holds it as written.
    exact: Option<usize>,
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

/// What the recorder matches by, as the parts of a request it covers.
#[derive(Debug, Clone, Copy, Default)]
struct Matched {
    url: bool,
    headers: bool,
    body: bool,
}

impl Matched {
    fn from(match_on: &[&str]) -> Matched {
        let has = |names: &[&str]| match_on.iter().any(|m| names.contains(m));
        Matched {
            url: has(&["uri", "url", "scheme", "host", "port", "path", "query"]),
            headers: has(&["headers"]),
            body: has(&["body"]),
        }
    }
}

/// Every leak in a cassette read by structure; `file` is its (decompressed) text, and
/// `match_on` what the recorder matches requests by.
pub fn check(
    cassette: &HttpCassette,
    file: &[u8],
    scanner: &Scanner,
    match_on: &[&str],
) -> Vec<HttpLeak> {
    let matched = Matched::from(match_on);
    let mut texts: Vec<Text<'_>> = Vec::new();
    let mut named: Vec<HttpLeak> = Vec::new();
    for (i, interaction) in cassette.interactions.iter().enumerate() {
        let request = &interaction.request;
        let mut url = field_text(&request.url, file, Side::Request, i, " in a request URL");
        url.matched = matched.url;
        texts.push(url);
        for (name, value) in query_pairs(&request.url.text) {
            if is_one_of(&name, CREDENTIAL_PARAMETERS)
                && let Some(hit) = credential::named("credential-parameter", &name, &value, 8)
            {
                named.push(leak_at(
                    hit,
                    &request.url,
                    file,
                    format!("{} ?{name}", request.url.path),
                    " in a request URL",
                ));
            }
        }
        headers(
            &request.headers,
            file,
            Side::Request,
            i,
            matched.headers,
            &mut texts,
            &mut named,
        );
        if let Some(body) = &request.body {
            body_texts(
                body,
                &request.headers,
                file,
                Side::Request,
                i,
                matched.body,
                &mut texts,
                &mut named,
            );
        }
        if let Some(response) = &interaction.response {
            headers(
                &response.headers,
                file,
                Side::Response,
                i,
                false,
                &mut texts,
                &mut named,
            );
            if let Some(body) = &response.body {
                body_texts(
                    body,
                    &response.headers,
                    file,
                    Side::Response,
                    i,
                    false,
                    &mut texts,
                    &mut named,
                );
            }
        }
    }
    let mut leaks = named;
    scan_texts(&texts, scanner, &mut leaks);
    fold(leaks)
}

/// A field's text, placed exactly when the scalar holds it as written (plain, or quoted
/// without escapes).
fn field_text<'a>(
    field: &'a Field,
    file: &[u8],
    side: Side,
    interaction: usize,
    place: &'static str,
) -> Text<'a> {
    Text {
        text: Cow::Borrowed(&field.text),
        path: field.path.clone(),
        exact: exact_offset(field.at.map(|a| a as usize), &field.text, file),
        anchor: field.at.map(|a| a as usize),
        side,
        matched: false,
        place,
        public: false,
        interaction,
    }
}

/// Where `text` starts in `file` if the scalar at `at` holds it as written (after an opening
/// quote, if any).
fn exact_offset(at: Option<usize>, text: &str, file: &[u8]) -> Option<usize> {
    let at = at?;
    [at, at + 1]
        .into_iter()
        .find(|&start| file.get(start..start + text.len()) == Some(text.as_bytes()))
}

fn leak_at(hit: Hit, field: &Field, file: &[u8], path: String, place: &'static str) -> HttpLeak {
    let offset = exact_offset(field.at.map(|a| a as usize), &field.text, file)
        .and_then(|start| field.text.find(hit.text.as_str()).map(|i| start + i))
        .or(field.at.map(|a| a as usize));
    HttpLeak {
        hit,
        severity: Severity::Error,
        offset,
        path,
        place,
    }
}

fn is_one_of(name: &str, list: &[&str]) -> bool {
    list.iter().any(|n| n.eq_ignore_ascii_case(name))
}

fn headers<'a>(
    headers: &'a [Header],
    file: &[u8],
    side: Side,
    interaction: usize,
    matched: bool,
    texts: &mut Vec<Text<'a>>,
    named: &mut Vec<HttpLeak>,
) {
    let place = match side {
        Side::Request => " in a request header",
        Side::Response => " in a response header",
    };
    for header in headers {
        let name = header.name.as_str();
        let value = &header.value;
        if is_one_of(name, CREDENTIAL_HEADERS) {
            if let Some(hit) = credential::named("credential-header", name, &value.text, 4) {
                named.push(leak_at(hit, value, file, value.path.clone(), place));
            }
            continue;
        }
        if name.eq_ignore_ascii_case("cookie") || name.eq_ignore_ascii_case("set-cookie") {
            let cookies: Vec<&str> = if name.eq_ignore_ascii_case("cookie") {
                value.text.split(';').collect()
            } else {
                value.text.split(';').take(1).collect()
            };
            for cookie in cookies {
                let Some((cookie_name, cookie_value)) = cookie.trim().split_once('=') else {
                    continue;
                };
                if is_session_cookie(cookie_name)
                    && let Some(hit) =
                        credential::named("credential-header", cookie_name, cookie_value, 8)
                {
                    named.push(leak_at(
                        hit,
                        value,
                        file,
                        format!("{} cookie {cookie_name}", value.path),
                        place,
                    ));
                }
            }
            continue;
        }
        let mut text = field_text(value, file, side, interaction, place);
        text.matched = matched;
        texts.push(text);
    }
}

#[allow(clippy::too_many_arguments)]
fn body_texts<'a>(
    body: &'a Body,
    headers: &[Header],
    file: &[u8],
    side: Side,
    interaction: usize,
    matched: bool,
    texts: &mut Vec<Text<'a>>,
    named: &mut Vec<HttpLeak>,
) {
    let place = match side {
        Side::Request => " in a request body",
        Side::Response => " in a response body",
    };
    let mut visit = |leaf: &Leaf<'_>, base: &str, anchor: Option<usize>, described: &str| {
        let path = if described.is_empty() {
            format!("{base} {}", leaf.path)
        } else {
            format!("{base} ({described}) {}", leaf.path)
        };
        let exact = leaf
            .at
            .and_then(|at| exact_offset(Some(at as usize), leaf.text, file));
        let anchor = leaf.at.map(|a| a as usize).or(anchor);
        if !leaf.is_key
            && let Some(name) = leaf.name
        {
            let client_secret = name.eq_ignore_ascii_case("secret")
                && leaf.siblings.is_some_and(|entries| {
                    entries
                        .iter()
                        .any(|(k, _)| k.as_str().is_some_and(|k| is_one_of(k, CLIENT_KEYS)))
                });
            if (is_one_of(name, CREDENTIAL_FIELDS) || client_secret)
                && let Some(hit) = credential::named("credential-field", name, leaf.text, 4)
            {
                let offset = exact
                    .and_then(|start| leaf.text.find(hit.text.as_str()).map(|i| start + i))
                    .or(anchor);
                named.push(HttpLeak {
                    hit,
                    severity: Severity::Error,
                    offset,
                    path,
                    place,
                });
                return;
            }
        }
        let public = leaf.siblings.is_some_and(|entries| {
            leaf.name == Some("apiKey")
                && entries.iter().any(|(k, _)| {
                    matches!(
                        k.as_str(),
                        Some("authDomain" | "projectId" | "messagingSenderId")
                    )
                })
        });
        texts.push(Text {
            text: Cow::Owned(leaf.text.to_owned()),
            path,
            exact,
            anchor,
            side,
            matched,
            place,
            public,
            interaction,
        });
    };
    match body {
        Body::Bytes { field, bytes, .. } => {
            let decoded = body::decode(bytes, headers);
            let described = body::describe(&decoded);
            let anchor = field.at.map(|a| a as usize);
            body::for_each_leaf(&decoded, &mut |leaf| {
                visit(leaf, &field.path, anchor, &described);
            });
        }
        Body::Data { path, node } => {
            body::for_each_node_leaf(node, &mut |leaf| visit(leaf, path, None, ""));
        }
    }
}

/// Scans every text in one pass over their concatenation and turns hits into leaks by
/// where they sit.
fn scan_texts(texts: &[Text<'_>], scanner: &Scanner, leaks: &mut Vec<HttpLeak>) {
    let mut joined = String::new();
    let mut starts = Vec::with_capacity(texts.len());
    for text in texts {
        starts.push(joined.len());
        joined.push_str(&text.text);
        joined.push('\n');
    }
    let hits = scanner.scan(joined.as_bytes());
    if hits.is_empty() {
        return;
    }
    // What each interaction's request holds, for echoes of a home folder in its response.
    let request_holds = |interaction: usize, needle: &str| {
        texts.iter().any(|t| {
            t.interaction == interaction && t.side == Side::Request && t.text.contains(needle)
        })
    };
    for mut hit in hits {
        let i = starts.partition_point(|&s| s <= hit.start) - 1;
        let text = &texts[i];
        let local = hit.start - starts[i];
        let severity = match hit.family {
            LeakFamily::Secret if text.public => continue,
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
                Side::Response => Severity::Warning,
            },
            LeakFamily::Uuid | LeakFamily::Timestamp => {
                if text.side == Side::Request && text.matched {
                    Severity::Error
                } else {
                    continue;
                }
            }
            LeakFamily::Email => Severity::Warning,
        };
        let offset = text.exact.map(|e| e + local).or(text.anchor);
        hit.end = hit.end - hit.start + local;
        hit.start = local;
        leaks.push(HttpLeak {
            hit,
            severity,
            offset,
            path: text.path.clone(),
            place: text.place,
        });
    }
}

/// One finding per leaked value where the file repeats it: an email address once per file,
/// and a token's truncated display (its first characters, shown after the full value) folded
/// into the finding of the full value.
fn fold(mut leaks: Vec<HttpLeak>) -> Vec<HttpLeak> {
    let secrets: Vec<String> = leaks
        .iter()
        .filter(|l| l.hit.family == LeakFamily::Secret)
        .map(|l| l.hit.text.clone())
        .collect();
    let mut emails = HashSet::new();
    let mut seen = HashSet::new();
    leaks.retain(|leak| {
        if !seen.insert((leak.path.clone(), leak.hit.text.clone(), leak.hit.family)) {
            return false;
        }
        match leak.hit.family {
            LeakFamily::Email => emails.insert(leak.hit.text.to_ascii_lowercase()),
            LeakFamily::Secret => {
                let text = &leak.hit.text;
                !(text.len() >= 8
                    && secrets
                        .iter()
                        .any(|full| full.len() > text.len() && full.starts_with(text.as_str())))
            }
            _ => true,
        }
    });
    leaks.sort_by_key(|l| l.offset);
    leaks
}

/// The query parameters of a URL, percent-decoded.
fn query_pairs(url: &str) -> Vec<(String, String)> {
    let Some((_, query)) = url.split_once('?') else {
        return Vec::new();
    };
    let query = query.split('#').next().unwrap_or_default();
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (body::percent_decode(name), body::percent_decode(value))
        })
        .collect()
}
