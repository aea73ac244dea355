//! The HTTP scenarios that real recorders record in the tests (issue 9): what a client sends,
//! what the test's server answers, and what the client must see.
//!
//! `placed` plants credentials no detector knows by their shape, which only their place
//! (a credential header, field or parameter) tells.
//!
//! `leaky` plants a made-up credential, generated for each run, in every place a recorder
//! keeps one: an `Authorization: Bearer` header, an `x-api-key` header, an `api_key` query
//! parameter, a JSON request body (`password`, `client_secret` beside `client_id`, `secret`
//! beside `app_id`), a gzip-compressed JSON response (a GitHub token), a `Set-Cookie`
//! session; a home folder sent in a request and echoed back, another one only in a response;
//! an OpenAI-style SSE stream; a UUID and a timestamp in a response. `clean` sends only
//! placeholders (`Bearer OPENAI_API_KEY`, `x-api-key: <API_KEY>`, `Basic` `test:test`) and
//! gets the same kinds of answers: nothing in it is a leak.
//!
//! A recorder program reads the scenario as JSON ([`Scenario::to_json`]): `name` (the
//! cassette's), `base` (the server's URL) and `requests`, each with `name`, `method`,
//! `target`, `headers` (`[name, value]` pairs, in order), `body` (text or null) and `expect`
//! (`status`, `headers` that must be present with these values, and `body`, the text the
//! client sees once any gzip is undone).

use std::io::Write;
use std::time::SystemTime;

use serde_json::json;

use super::server::{Reply, Route, iso_date_time};

/// One request of a scenario and the server's answer.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// A short name, for messages (`models`, `token`, ...).
    pub name: &'static str,
    pub method: &'static str,
    /// Path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    pub reply: Reply,
    /// The response body as the client reads it (after any gzip is undone).
    pub seen: String,
}

/// A scenario: its requests in order and the credentials planted in them.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// `leaky` or `clean`; also the name of the cassette.
    pub name: &'static str,
    pub exchanges: Vec<Exchange>,
    /// Every credential planted, by where it is (`Authorization header`, ...).
    pub secrets: Vec<(&'static str, String)>,
}

/// The home folder a request sends and the server echoes (an error in both).
pub const ECHOED_HOME: &str = "/home/dana/reports/q3-revenue.csv";
/// The home folder only the server's answer holds (a warning).
pub const RESPONSE_HOME: &str = "/home/kofi/.cache/ingest/worker.py";

/// The header names whose values a recorder program checks in every answer.
const CHECKED_HEADERS: &[&str] = &["content-type", "set-cookie", "x-request-id"];

impl Scenario {
    /// Credentials everywhere a recorder keeps them (see the module documentation).
    pub fn leaky() -> Scenario {
        let mut rng = Rng::new();
        let openai = rng.token("sk-proj-", ALNUM, 48);
        let anthropic = rng.token("sk-ant-api03-", ALNUM, 93) + "AA";
        let query_key = rng.token("", ALNUM, 32);
        let password = rng.token("", PASSWORD, 18);
        let client_secret = rng.token("", ALNUM, 40);
        let app_secret = rng.token("", HEX, 32);
        let github = rng.token("ghp_", ALNUM, 36);
        let session = rng.token("", ALNUM, 43);
        let client_id = rng.token("", HEX, 20);

        let token_request = json!({
            "grant_type": "password",
            "username": "dana",
            "password": password,
            "client_id": client_id,
            "client_secret": client_secret,
            "app": {"app_id": "1049", "secret": app_secret},
        });
        let token_answer = json!({
            "access_token": github,
            "token_type": "bearer",
            "scope": "repo",
            "expires_in": 3600,
        });
        let exchanges = vec![
            Exchange::get(
                "models",
                &format!("/v1/models?api_key={query_key}&page=2"),
                &[
                    ("Authorization", &format!("Bearer {openai}")),
                    ("x-api-key", &anthropic),
                ],
                json_reply(200, &models_answer(), &[]),
            ),
            Exchange::post(
                "token",
                "/oauth/token",
                &[("Accept-Encoding", "gzip")],
                &token_request,
                gzip_json_reply(&token_answer),
            ),
            Exchange::post(
                "upload",
                "/v1/files",
                &[],
                &json!({"path": ECHOED_HOME, "purpose": "assistants"}),
                json_reply(
                    201,
                    &json!({
                        "id": format!("file-{}", rng.token("", ALNUM, 24)),
                        "saved_as": ECHOED_HOME,
                        "processed_by": RESPONSE_HOME,
                    }),
                    &[],
                ),
            ),
            Exchange::post(
                "login",
                "/session",
                &[],
                &json!({"username": "dana", "remember": true}),
                json_reply(
                    200,
                    &json!({"ok": true}),
                    &[(
                        "Set-Cookie",
                        &format!("session={session}; Path=/; HttpOnly; SameSite=Lax"),
                    )],
                ),
            ),
            chat(&mut rng, &format!("Bearer {openai}")),
            job(&mut rng, &[]),
        ];
        Scenario {
            name: "leaky",
            exchanges,
            secrets: vec![
                ("Authorization header", openai),
                ("x-api-key header", anthropic),
                ("api_key query parameter", query_key),
                ("password field", password),
                ("client_secret field", client_secret),
                ("secret field beside app_id", app_secret),
                ("access_token in the gzip response", github),
                ("session cookie", session),
            ],
        }
    }

    /// Placeholders only: the same kinds of requests and answers, nothing that leaks.
    pub fn clean() -> Scenario {
        let mut rng = Rng::new();
        let exchanges = vec![
            Exchange::get(
                "models",
                "/v1/models?page=2",
                &[
                    ("Authorization", "Bearer OPENAI_API_KEY"),
                    ("x-api-key", "<API_KEY>"),
                ],
                json_reply(200, &models_answer(), &[]),
            ),
            chat(&mut rng, "Bearer OPENAI_API_KEY"),
            // `dGVzdDp0ZXN0` is `test:test`.
            job(&mut rng, &[("Authorization", "Basic dGVzdDp0ZXN0")]),
        ];
        Scenario {
            name: "clean",
            exchanges,
            secrets: Vec::new(),
        }
    }

    /// Credentials with no vendor's shape, found only by where they stand (issue 39): an
    /// `Authorization: Bearer` header, a `token` field of a JSON request body and an
    /// `access_token` query parameter, each a random run of letters and digits; the answers
    /// hold none.
    pub fn placed() -> Scenario {
        let mut rng = Rng::new();
        let bearer = rng.token("", ALNUM, 40);
        let token = rng.token("", ALNUM, 32);
        let access_token = rng.token("", ALNUM, 36);
        let exchanges = vec![
            Exchange::get(
                "models",
                &format!("/v1/models?access_token={access_token}&page=2"),
                &[("Authorization", &format!("Bearer {bearer}"))],
                json_reply(200, &models_answer(), &[]),
            ),
            Exchange::post(
                "link",
                "/v1/links",
                &[],
                &json!({"account": "dana", "token": token}),
                json_reply(201, &json!({"linked": true}), &[]),
            ),
        ];
        Scenario {
            name: "placed",
            exchanges,
            secrets: vec![
                ("Authorization header", bearer),
                ("token field", token),
                ("access_token query parameter", access_token),
            ],
        }
    }

    /// Credentials where a hand-written WireMock stub matches on them (issue 39), each
    /// repeated in the answer where an API echoes it: a `token` in a `url`'s query (the
    /// answer's `next` link holds it too), an `api_key` query parameter (echoed in a text
    /// body), a bearer `Authorization` header (echoed by a body kept under `__files/`), a
    /// `password` in a JSON body, a `client_secret` in a form body, a `refresh_token` a
    /// stub matches with `contains`, and an `access_token` only an answer holds.
    /// `tests/http_wiremock.rs` writes the stubs that answer it.
    pub fn stub_matchers() -> Scenario {
        let mut rng = Rng::new();
        let token = rng.token("", ALNUM, 32);
        let api_key = rng.token("", ALNUM, 30);
        let bearer = rng.token("", ALNUM, 40);
        let password = rng.token("", ALNUM, 24);
        let client_secret = rng.token("", ALNUM, 36);
        let refresh = rng.token("", ALNUM, 34);
        let access = rng.token("", ALNUM, 38);
        let form = "application/x-www-form-urlencoded";
        let exchanges = vec![
            Exchange::get(
                "items",
                &format!("/v1/items?token={token}&page=2"),
                &[],
                json_reply(
                    200,
                    &json!({"items": [1, 2], "next": format!("/v1/items?token={token}&page=3")}),
                    &[],
                ),
            ),
            Exchange::get(
                "search",
                &format!("/v1/search?api_key={api_key}"),
                &[],
                json_reply(200, &json!({"hits": 0, "api_key": api_key}), &[]),
            ),
            Exchange::get(
                "whoami",
                "/v1/whoami",
                &[("Authorization", &format!("Bearer {bearer}"))],
                json_reply(200, &json!({"login": "dana", "session_token": bearer}), &[]),
            ),
            Exchange::post(
                "login",
                "/v1/login",
                &[],
                &json!({"username": "dana", "password": password}),
                json_reply(200, &json!({"ok": true}), &[]),
            ),
            Exchange::new(
                "token",
                "POST",
                "/oauth/token",
                &[("Content-Type", form)],
                Some(format!(
                    "grant_type=client_credentials&client_secret={client_secret}"
                )),
                json_reply(
                    200,
                    &json!({"access_token": access, "expires_in": 3600}),
                    &[],
                ),
            ),
            Exchange::new(
                "refresh",
                "POST",
                "/oauth/refresh",
                &[("Content-Type", form)],
                Some(format!("grant_type=refresh_token&refresh_token={refresh}")),
                json_reply(200, &json!({"ok": true}), &[]),
            ),
        ];
        Scenario {
            name: "stub_matchers",
            exchanges,
            secrets: vec![
                ("token in a url", token),
                ("api_key query parameter", api_key),
                ("Authorization header", bearer),
                ("password in a JSON body", password),
                ("client_secret in a form body", client_secret),
                ("refresh_token a stub contains", refresh),
                ("access_token in an answer only", access),
            ],
        }
    }

    /// The scenario with each `(old, new)` replaced in what the client sends and sees: what
    /// a test sends once a scrub replaced its recorded credentials by placeholders.
    pub fn replacing(mut self, pairs: &[(&str, &str)]) -> Scenario {
        let swap = |text: &str| {
            pairs
                .iter()
                .fold(text.to_owned(), |text, (old, new)| text.replace(old, new))
        };
        for e in &mut self.exchanges {
            e.target = swap(&e.target);
            for (_, value) in &mut e.headers {
                *value = swap(value);
            }
            e.body = e.body.as_deref().map(swap);
            e.seen = swap(&e.seen);
        }
        self.secrets.clear();
        self
    }

    /// The leaks of issue 41, each where the judge did not look or did not know: a key split
    /// across the deltas of an AWS event stream (Bedrock `converse-stream`) and of an OpenAI
    /// SSE stream, STS credentials as JSON (AWS's own camel case) and as XML, a session
    /// cookie set after logins that send no `password` (`pass=` in a form, a one-time code),
    /// a 14-character hex API token in a `token` parameter, a ticket URL whose last segment
    /// is random, and an EasyPost-style Basic key with no password.
    pub fn judge41() -> Scenario {
        let mut rng = Rng::new();
        let bedrock_key = rng.token("sk-proj-", ALNUM, 40);
        let sse_key = rng.token("sk-ant-api03-", ALNUM, 40);
        let key_id = rng.token("ASIA", UPPER_DIGITS, 16);
        let secret = rng.token("", BASE64, 40);
        let session_token = rng.token("IQoJb3JpZ2luX2Vj", BASE64, 120);
        let xml_secret = rng.token("", BASE64, 40);
        let xml_token = rng.token("FwoGZXIvYXdzE", BASE64, 100);
        let form_session = rng.token("", ALNUM, 32);
        let otp_session = rng.token("", ALNUM, 40);
        let hex_token = rng.token("", HEX, 14);
        let ticket = rng.token("", ALNUM, 32);
        let api_key = rng.token("EZTK", ALNUM, 40);
        let service_key = rng.token("", ALNUM, 32);
        let contents_key = rng.token("sk-ant-api03-", ALNUM, 60);
        let double_key = rng.token("ghp_", ALNUM, 36);
        let zipped_key = rng.token("sk-proj-", ALNUM, 48);
        let escaped_key = rng.token("sk-proj-", ALNUM, 48);
        let part_key = rng.token("sk-proj-", ALNUM, 48);
        // A multipart answer whose part is sent as `Content-Transfer-Encoding: base64`, its
        // lines broken at 76 characters as mail writers do.
        let part_body = {
            let lines =
                super::base64_lines(format!("OPENAI_API_KEY={part_key}\nREGION=eu\n").as_bytes());
            format!(
                "--part\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename=\"app.env\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n--part--\r\n",
                lines.join("\r\n")
            )
        };
        let b64 = |bytes: &[u8]| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(bytes)
        };
        // GitHub's contents API: the file as base64, a line break every 60 characters.
        let contents =
            b64(format!("import os\nANTHROPIC_API_KEY = \"{contents_key}\"\n").as_bytes())
                .as_bytes()
                .chunks(60)
                .map(|c| String::from_utf8(c.to_vec()).unwrap())
                .collect::<Vec<_>>()
                .join("\n");
        let double = b64(b64(format!("token: {double_key}").as_bytes()).as_bytes());
        let zipped = {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(json!({"api_key": zipped_key}).to_string().as_bytes())
                .unwrap();
            b64(&gz.finish().unwrap())
        };
        let events: Vec<u8> = bedrock_key
            .as_bytes()
            .chunks(4)
            .flat_map(|piece| {
                let payload = json!({"contentBlockIndex": 0, "delta": {"text": std::str::from_utf8(piece).unwrap()}});
                event_frame("contentBlockDelta", &payload.to_string())
            })
            .collect();
        let sse: String = sse_key
            .as_bytes()
            .chunks(3)
            .map(|piece| {
                let chunk = json!({"choices": [{"index": 0, "delta": {"content": std::str::from_utf8(piece).unwrap()}}]});
                format!("data: {chunk}\n\n")
            })
            .chain(["data: [DONE]\n\n".to_owned()])
            .collect();
        let basic = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(format!("{api_key}:"))
        };
        let exchanges = vec![
            Exchange::post(
                "converse-stream",
                "/model/anthropic.claude-3-haiku/converse-stream",
                &[],
                &json!({"messages": [{"role": "user", "content": [{"text": "echo my key"}]}]}),
                Reply {
                    status: 200,
                    headers: vec![(
                        "Content-Type".into(),
                        "application/vnd.amazon.eventstream".into(),
                    )],
                    body: events,
                },
            ),
            Exchange::post(
                "stream",
                "/v1/chat/completions",
                &[("Authorization", "Bearer OPENAI_API_KEY")],
                &json!({"model": "gpt-4o-mini", "stream": true, "messages": []}),
                Reply {
                    status: 200,
                    headers: vec![("Content-Type".into(), "text/event-stream".into())],
                    body: sse.into_bytes(),
                },
            ),
            Exchange::get(
                "sts-json",
                "/?Action=AssumeRole&Version=2011-06-15",
                &[("Accept", "application/json")],
                json_reply(
                    200,
                    &json!({"AssumeRoleResponse": {"AssumeRoleResult": {"Credentials": {
                        "AccessKeyId": key_id, "SecretAccessKey": secret,
                        "SessionToken": session_token, "Expiration": 1_767_225_600}}}}),
                    &[],
                ),
            ),
            Exchange::get(
                "sts-xml",
                "/?Action=GetSessionToken&Version=2011-06-15",
                &[],
                Reply {
                    status: 200,
                    headers: vec![("Content-Type".into(), "text/xml".into())],
                    body: format!("<GetSessionTokenResponse><GetSessionTokenResult><Credentials><AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId><SecretAccessKey>{xml_secret}</SecretAccessKey><SessionToken>{xml_token}</SessionToken></Credentials></GetSessionTokenResult></GetSessionTokenResponse>").into_bytes(),
                },
            ),
            Exchange::new(
                "form-login",
                "POST",
                "/login",
                &[("Content-Type", "application/x-www-form-urlencoded")],
                Some("user=dana&pass=<PASSWORD>".to_owned()),
                json_reply(200, &json!({"ok": true}), &[("Set-Cookie", &format!("auth={form_session}; Path=/; HttpOnly"))]),
            ),
            Exchange::post(
                "otp-login",
                "/api/verify-otp",
                &[],
                &json!({"otp": "000000"}),
                json_reply(200, &json!({"ok": true}), &[("Set-Cookie", &format!("sid={otp_session}; Path=/; Secure"))]),
            ),
            Exchange::get(
                "hex-token",
                &format!("/v2/geocode?address=Main+St&token={hex_token}"),
                &[],
                json_reply(200, &json!({"results": []}), &[]),
            ),
            Exchange::get(
                "ticket",
                "/api/v2/tickets/7",
                &[("Authorization", &format!("Basic {basic}"))],
                json_reply(200, &json!({"id": 7, "ticket_url": format!("https://support.example.net/p/ad/{ticket}")}), &[]),
            ),
            Exchange::get(
                "service-keys",
                "/api/v1/integrations/3",
                &[],
                json_reply(200, &json!({"id": 3, "mailer_api_key": service_key, "mailer_api_key_hint": "abcd"}), &[]),
            ),
            Exchange::get(
                "contents",
                "/repos/octo/app/contents/config.py",
                &[],
                json_reply(200, &json!({"name": "config.py", "encoding": "base64", "content": contents}), &[]),
            ),
            Exchange::get(
                "blobs",
                "/v1/blobs/7",
                &[],
                json_reply(200, &json!({"data": double, "archive": zipped}), &[]),
            ),
            Exchange::get(
                "escaped",
                "/v1/notes/7",
                &[],
                Reply {
                    status: 200,
                    headers: vec![("Content-Type".into(), "application/json".into())],
                    body: format!("{{\"note\": \"\\u0073{}\"}}", &escaped_key[1..]).into_bytes(),
                },
            ),
            Exchange::get(
                "attachment",
                "/v1/messages/7/attachments",
                &[],
                Reply {
                    status: 200,
                    headers: vec![(
                        "Content-Type".into(),
                        "multipart/mixed; boundary=part".into(),
                    )],
                    body: part_body.into_bytes(),
                },
            ),
        ];
        Scenario {
            name: "judge41",
            exchanges,
            secrets: vec![
                ("a key split across Bedrock event frames", bedrock_key),
                ("a key split across SSE deltas", sse_key),
                ("an STS key id", key_id),
                ("an STS secret (JSON)", secret),
                ("an STS session token (JSON)", session_token),
                ("an STS secret (XML)", xml_secret),
                ("an STS session token (XML)", xml_token),
                ("a session cookie after a `pass=` login", form_session),
                ("a session cookie after a one-time code", otp_session),
                ("a 14-character hex token", hex_token),
                ("a ticket URL's random segment", ticket),
                ("a Basic key with no password", api_key),
                ("a key under a name that ends in `api_key`", service_key),
                (
                    "a key in a file GitHub's contents API sent as base64 (hidden)",
                    contents_key,
                ),
                ("a key in base64 of base64 (hidden)", double_key),
                ("a key in gzip inside base64 (hidden)", zipped_key),
                (
                    "a key whose first character JSON escaped (hidden)",
                    escaped_key,
                ),
                (
                    "a key in a multipart part sent in base64 (hidden)",
                    part_key,
                ),
            ],
        }
    }

    /// The false errors of issue 41, each a value a project holds with no secret in it: an
    /// unknown scheme before words (`SSWS myAPIToken`) and the servlet cookie a server sets
    /// in answer to it, test words a vocabulary did not list (`test-refresh-token`), a
    /// value that describes itself (`SESSIONID` under `TNS_SESSIONID`), a pagination cursor
    /// in `X-Continuation-Token`, an object's id in the URL of a `PUT` the server answered,
    /// a password of ordinary words, and the credentials AWS publishes as examples, as JSON
    /// and percent-encoded.
    pub fn judge41_clean() -> Scenario {
        let mut rng = Rng::new();
        let cursor = rng.token("", BASE64, 48);
        let network = rng.uuid();
        // Layers that hide no secret: a README through GitHub's contents API, a thumbnail's
        // bytes, a commit's digest.
        let readme = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .encode("# app\n\nRun `make test`; the tests replay their cassettes.\n")
        };
        let thumbnail = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .encode((0..96u32).map(|i| (i * 131 + 7) as u8).collect::<Vec<u8>>())
        };
        let idempotency = rng.uuid();
        let client_request = rng.uuid();
        let tenant = rng.uuid();
        let exchanges = vec![
            // Idempotency keys a client draws for each request, and the challenge of a
            // server that wants a token: none is a credential.
            Exchange::post(
                "create-stack",
                "/v1/stacks",
                &[("X-Goog-Gcs-Idempotency-Token", &idempotency)],
                &json!({"StackName": "app", "ClientRequestToken": client_request}),
                json_reply(
                    401,
                    &json!({"error": "unauthorized"}),
                    &[(
                        "WWW-Authenticate",
                        &format!(
                            "Bearer authorization=\"https://login.microsoftonline.com/{tenant}\", resource_id=\"https://storage.azure.com\""
                        ),
                    )],
                ),
            ),
            Exchange::get(
                "readme",
                "/repos/octo/app/contents/README.md",
                &[],
                json_reply(
                    200,
                    &json!({"encoding": "base64", "content": readme, "thumbnail": thumbnail, "sha": rng.token("", HEX, 40)}),
                    &[],
                ),
            ),
            Exchange::get(
                "users",
                "/api/v1/users?limit=2",
                &[("Authorization", "SSWS myAPIToken")],
                json_reply(
                    200,
                    &json!([]),
                    &[(
                        "Set-Cookie",
                        &format!(
                            "JSESSIONID={}; Path=/; Secure; HttpOnly",
                            rng.token("", HEX, 32).to_ascii_uppercase()
                        ),
                    )],
                ),
            ),
            Exchange::post(
                "refresh",
                "/oauth2/v1/introspect",
                &[("Cookie", "TNS_SESSIONID=SESSIONID")],
                &json!({"refresh_token": "test-refresh-token", "client_secret": "oauth-test-client-secret"}),
                json_reply(200, &json!({"active": false}), &[]),
            ),
            Exchange::get(
                "search",
                "/api/v3/assets/search?limit=2",
                &[],
                json_reply(
                    200,
                    &json!({"assets": []}),
                    &[("X-Continuation-Token", &cursor)],
                ),
            ),
            Exchange::new(
                "edit",
                "PUT",
                &format!("/networks/{network}"),
                &[("Content-Type", "application/json")],
                Some(
                    json!({"name": "renamed", "password": "correct-horse-battery-staple"})
                        .to_string(),
                ),
                json_reply(200, &json!({"uuid": network, "name": "renamed"}), &[]),
            ),
            // The credentials vendors publish as examples (AWS's CLI user guide), as JSON and
            // percent-encoded in a form: no secret.
            Exchange::get(
                "example-config",
                "/v1/config/aws",
                &[],
                json_reply(
                    200,
                    &json!({"aws_access_key_id": "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}),
                    &[],
                ),
            ),
            Exchange::get(
                "example-form",
                "/v1/config/aws.form",
                &[],
                Reply {
                    status: 200,
                    headers: vec![(
                        "Content-Type".into(),
                        "application/x-www-form-urlencoded".into(),
                    )],
                    body: b"AWSAccessKeyId=AKIAI44QH8DHBEXAMPLE&AWSSecretKey=je7MtGbClwBF%2F2Zp9Utk%2Fh3yCo8nvbEXAMPLEKEY".to_vec(),
                },
            ),
        ];
        Scenario {
            name: "judge41_clean",
            exchanges,
            secrets: Vec::new(),
        }
    }

    /// The scenario without the exchanges named `names` (what a recorder cannot keep), and
    /// without the credentials planted only in them.
    pub fn without(mut self, names: &[&str]) -> Scenario {
        self.exchanges.retain(|e| !names.contains(&e.name));
        let kept = &self.exchanges;
        self.secrets.retain(|(_, secret)| {
            kept.iter().any(|e| {
                e.target.contains(secret.as_str())
                    || e.headers.iter().any(|(_, v)| v.contains(secret.as_str()))
                    || e.body
                        .as_deref()
                        .is_some_and(|b| b.contains(secret.as_str()))
                    || e.seen.contains(secret.as_str())
                    || e.reply
                        .headers
                        .iter()
                        .any(|(_, v)| v.contains(secret.as_str()))
            })
        });
        self
    }

    /// What the server answers.
    pub fn routes(&self) -> Vec<Route> {
        self.exchanges
            .iter()
            .map(|e| Route {
                method: e.method.to_owned(),
                target: e.target.clone(),
                reply: e.reply.clone(),
            })
            .collect()
    }

    /// How the server answers: the exchange with the request's method and target, and,
    /// where several share them (a fake LLM API's one path), the one whose body the request
    /// sent.
    pub fn answers(&self) -> std::sync::Arc<super::server::Answer> {
        let exchanges = self.exchanges.clone();
        std::sync::Arc::new(move |request: &super::server::Received| {
            let same_target: Vec<&Exchange> = exchanges
                .iter()
                .filter(|e| e.method == request.method && e.target == request.target)
                .collect();
            let by_body = same_target
                .iter()
                .find(|e| e.body.as_deref().unwrap_or("").as_bytes() == request.body);
            by_body.or(same_target.first()).map(|e| e.reply.clone())
        })
    }

    /// The scenario as the recorder programs read it, against the server at `base`.
    pub fn to_json(&self, base: &str) -> String {
        let requests: Vec<_> = self
            .exchanges
            .iter()
            .map(|e| {
                let expected_headers: serde_json::Map<_, _> = e
                    .reply
                    .headers
                    .iter()
                    .filter(|(k, _)| CHECKED_HEADERS.contains(&k.to_ascii_lowercase().as_str()))
                    .map(|(k, v)| (k.to_ascii_lowercase(), json!(v)))
                    .collect();
                json!({
                    "name": e.name,
                    "method": e.method,
                    "target": e.target,
                    "headers": e.headers,
                    "body": e.body,
                    "expect": {
                        "status": e.reply.status,
                        "headers": expected_headers,
                        "body": e.seen,
                    },
                })
            })
            .collect();
        serde_json::to_string_pretty(&json!({
            "name": self.name,
            "base": base,
            "requests": requests,
        }))
        .unwrap()
    }
}

impl Exchange {
    fn get(name: &'static str, target: &str, headers: &[(&str, &str)], reply: Reply) -> Exchange {
        Exchange::new(name, "GET", target, headers, None, reply)
    }

    fn post(
        name: &'static str,
        target: &str,
        headers: &[(&str, &str)],
        body: &serde_json::Value,
        reply: Reply,
    ) -> Exchange {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        Exchange::new(name, "POST", target, &all, Some(body.to_string()), reply)
    }

    /// An exchange; `seen` is the reply's body as the client reads it (gzip undone).
    pub fn new(
        name: &'static str,
        method: &'static str,
        target: &str,
        headers: &[(&str, &str)],
        body: Option<String>,
        reply: Reply,
    ) -> Exchange {
        let gzipped = reply
            .headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("content-encoding") && v == "gzip");
        let seen = if gzipped {
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut flate2::read::GzDecoder::new(&reply.body[..]),
                &mut text,
            )
            .unwrap();
            text
        } else {
            String::from_utf8(reply.body.clone()).unwrap()
        };
        Exchange {
            name,
            method,
            target: target.to_owned(),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            body,
            reply,
            seen,
        }
    }
}

fn models_answer() -> serde_json::Value {
    json!({
        "object": "list",
        "page": 2,
        "data": [{"id": "gpt-4o-mini", "object": "model", "owned_by": "system"}],
    })
}

fn json_reply(status: u16, body: &serde_json::Value, headers: &[(&str, &str)]) -> Reply {
    let mut all = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    all.extend(
        headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    Reply {
        status,
        headers: all,
        body: body.to_string().into_bytes(),
    }
}

fn gzip_json_reply(body: &serde_json::Value) -> Reply {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(body.to_string().as_bytes()).unwrap();
    Reply {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Content-Encoding".into(), "gzip".into()),
        ],
        body: gz.finish().unwrap(),
    }
}

/// An OpenAI chat completion streamed as server-sent events.
fn chat(rng: &mut Rng, authorization: &str) -> Exchange {
    let id = format!("chatcmpl-{}", rng.token("", ALNUM, 29));
    let created = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    };
    let events = [
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": "Hi"}), None),
        chunk(json!({"content": " there!"}), None),
        chunk(json!({}), Some("stop")),
    ];
    let mut stream: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    stream.push_str("data: [DONE]\n\n");
    Exchange::post(
        "chat",
        "/v1/chat/completions",
        &[("Authorization", authorization)],
        &json!({
            "model": "gpt-4o-mini",
            "stream": true,
            "messages": [{"role": "user", "content": "Say hi"}],
        }),
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "text/event-stream".into())],
            body: stream.into_bytes(),
        },
    )
}

/// A job's status: a UUID (in the body and in `x-request-id`) and timestamps, which change
/// on every recording and are not leaks in a response.
fn job(rng: &mut Rng, headers: &[(&str, &str)]) -> Exchange {
    let now = SystemTime::now();
    let id = rng.uuid();
    let request_id = rng.uuid();
    Exchange::get(
        "job",
        "/v1/jobs/latest",
        headers,
        json_reply(
            200,
            &json!({
                "id": id,
                "status": "succeeded",
                "created_at": iso_date_time(now - std::time::Duration::from_secs(90)),
                "finished_at": iso_date_time(now),
            }),
            &[("x-request-id", &request_id)],
        ),
    )
}

/// A made-up credential with no vendor's shape (no prefix, no checksum): 32 random letters
/// and digits, drawn anew on every call. A judge can only find it by where it sits.
pub fn planted_token() -> String {
    Rng::new().token("", ALNUM, 32)
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// One AWS event stream frame (`:event-type` and `:message-type` headers), as Bedrock
/// streams: small enough that every length byte is ASCII, its CRCs left zero (readers of the
/// recorded bytes do not check them), so the body is text a recorder keeps as it is.
fn event_frame(kind: &str, payload: &str) -> Vec<u8> {
    let mut headers = Vec::new();
    for (name, value) in [(":event-type", kind), (":message-type", "event")] {
        headers.push(name.len() as u8);
        headers.extend_from_slice(name.as_bytes());
        headers.push(7);
        headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
        headers.extend_from_slice(value.as_bytes());
    }
    let total = 16 + headers.len() + payload.len();
    assert!(total < 128, "a frame's length bytes stay ASCII");
    let mut out = Vec::new();
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&headers);
    out.extend_from_slice(payload.as_bytes());
    out.extend_from_slice(&[0; 4]);
    out
}
const HEX: &[u8] = b"0123456789abcdef";
const PASSWORD: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%*+-.:=?@^_~";

/// Words that make a value look made up to a leak scanner (and to a reader): a value
/// generated at random that happens to hold one is drawn again.
const FAKE_LOOKING: &[&str] = &[
    "test",
    "fake",
    "dummy",
    "mock",
    "example",
    "sample",
    "xxx",
    "redact",
    "filter",
    "your",
    "placeholder",
    "changeme",
    "invalid",
    "none",
    "null",
    "demo",
];

/// A small random generator (SplitMix64), seeded differently on every run.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        use std::hash::BuildHasher;
        let seed = std::collections::hash_map::RandomState::new().hash_one(SystemTime::now());
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `prefix` and `len` random characters of `alphabet`, never looking made up, and with a
    /// digit and a letter when the alphabet has both: a short draw can be all digits (one
    /// 14-character hex token in about 700), which is a number, not a token, and made a test
    /// fail once in that many runs.
    fn token(&mut self, prefix: &str, alphabet: &[u8], len: usize) -> String {
        let mixed_alphabet =
            alphabet.iter().any(u8::is_ascii_digit) && alphabet.iter().any(u8::is_ascii_alphabetic);
        loop {
            let body: String = (0..len)
                .map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize] as char)
                .collect();
            let lower = body.to_ascii_lowercase();
            let repeats = body
                .as_bytes()
                .windows(3)
                .any(|w| w[0] == w[1] && w[1] == w[2]);
            let mixed = body.bytes().any(|b| b.is_ascii_digit())
                && body.bytes().any(|b| b.is_ascii_alphabetic());
            if !repeats
                && (mixed || !mixed_alphabet)
                && !FAKE_LOOKING.iter().any(|w| lower.contains(w))
            {
                return format!("{prefix}{body}");
            }
        }
    }

    /// A random (version 4) UUID.
    fn uuid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        let a = (a & !0xf000) | 0x4000;
        let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    }
}
