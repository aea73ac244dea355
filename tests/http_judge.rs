//! The leak judge on the classes of values real repositories hold (issue 22): each class is
//! written here as a small cassette of the shape it was found in, and judged through the
//! binary as a user runs it (`vcr verify --format json`). The values are made for these
//! tests: random where the class is a real credential, made up where it is a placeholder.

use crate::common;

use common::TestDir;

/// The error findings of `vcr verify` on one cassette, as `id detector path` lines.
fn errors(name: &str, content: &str) -> Vec<String> {
    let t = TestDir::new();
    t.write(name, content);
    let run = t.vcr(&["verify", "--format", "json", name]);
    let doc = run.json();
    assert!(
        matches!(run.code, Some(0 | 1)),
        "verify failed to run: {}",
        run.stderr
    );
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| format!("{} {} {}", f["id"], f["detector"], f["message"]))
        .collect()
}

/// A vcrpy cassette of one exchange: request headers (YAML lines under `headers:`, indented
/// by six), URI, response body string and response headers.
fn vcrpy(request_headers: &str, uri: &str, body: &str, response_headers: &str) -> String {
    format!(
        "interactions:\n- request:\n    body: null\n    headers:\n{request_headers}    method: GET\n    uri: {uri}\n  response:\n    body:\n      string: '{body}'\n    headers:\n{response_headers}    status:\n      code: 200\n      message: OK\nversion: 1\n"
    )
}

/// A `!!binary` header value, as vcrpy writes one (base64, 76 characters a line).
fn binary_header(name: &str, value: &str) -> String {
    let lines = common::base64_lines(value.as_bytes());
    format!(
        "      {name}:\n      - !!binary |\n{}\n",
        lines
            .iter()
            .map(|l| format!("        {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// A random-looking AWS session token: base64 with the run of `/` real ones hold (their
/// bytes 0xFF), long enough to wrap in a `!!binary` scalar.
fn session_token() -> String {
    let mut token = String::from("IQoJb3JpZ2luX2VjEFkaCXVzLWVhc3QtMSJHMEUCIQDk7Vq2");
    token.push_str(&"/".repeat(10));
    token.push_str("wEaDDk3NTA1MDI0ODQ2NyIM1x9Kq3Rz8mP4tW2vLnB6cY0dH5gJ7sA9eF2iU4oQ8rT1yX3zC6vB0nM5kL7jG9hD2fS4aP6wE8qR1tY3uI5oK7lZ9xC2vB4nM6");
    token
}

#[test]
fn a_session_token_with_a_run_of_slashes_in_a_binary_header_is_an_error() {
    let headers = binary_header("X-Amz-Security-Token", &session_token());
    let found = errors(
        "cassettes/bedrock.yaml",
        &vcrpy(
            &headers,
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/invoke",
            "{}",
            "      Content-Type:\n      - application/json\n",
        ),
    );
    assert!(
        found.iter().any(|f| f.contains("X-Amz-Security-Token")),
        "{found:?}"
    );
}

#[test]
fn a_random_key_that_spells_a_marker_is_an_error_and_a_marked_one_is_not() {
    for (key, real) in [
        ("sk-proj-a9fAkE2kQ7mZp3xR8vLwT5nB1cD4eF6g", true),
        ("sk-proj-Q7x9YOURq2LmZp3xR8vLT5nB1cD4eF6g", true),
        ("sk-proj-FAKE-Q7x9q2LmZp3xR8vLT5nB1cD4eF6g", false),
        ("sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gXXXX", false),
    ] {
        let headers = format!("      Authorization:\n      - Bearer {key}\n");
        let found = errors(
            "cassettes/openai.yaml",
            &vcrpy(&headers, "https://api.openai.com/v1/models", "{}", ""),
        );
        assert_eq!(!found.is_empty(), real, "{key}: {found:?}");
    }
}

/// A presigned URL as S3-compatible stores write it: a bare `/` beside `%2B` in its token.
fn presigned(host: &str) -> String {
    format!(
        "https://{host}/bucket/object?Signature=Kq7vZ2mXw9Lr4Tb8Yc1Nd5Fh3Jk%2F&Expires=1778670916&AWSAccessKeyId=JQ8X2M4N6P1R3T5V7W9Y&x-amz-security-token=MQpmODAwOTNlZTli/MTE0ZWY1%2BMTY1ZTA4NzMxMjRk=="
    )
}

#[test]
fn credentials_in_urls_inside_bodies_and_headers_are_errors_and_normalize_removes_them() {
    let t = TestDir::new();
    let body = format!(
        "{{\"url\": \"{}\", \"exists\": true}}",
        presigned("gb-lon-1.example-objects.com")
    );
    let location = format!(
        "      Location:\n      - {}\n",
        presigned("eu-1.example-objects.com")
    );
    t.write(
        "cassettes/upload.yaml",
        vcrpy(
            "      Accept:\n      - '*/*'\n",
            "https://api.example.com/v4/object-url",
            &body,
            &location,
        ),
    );
    let run = t.vcr(&["verify", "--format", "json", "cassettes/upload.yaml"]);
    run.code(1);
    let found = common::finding_fields(&run.json(), &["id", "message", "path"]);
    for (name, place) in [
        ("Signature", "response body"),
        ("x-amz-security-token", "response body"),
        ("Signature", "response header"),
        ("x-amz-security-token", "response header"),
    ] {
        assert!(
            found
                .iter()
                .any(|f| f.contains(&format!("`{name}`")) && f.contains(place)),
            "{name} in a {place}: {found:?}"
        );
    }
    t.vcr(&["normalize", "cassettes/upload.yaml"]).code(0);
    let text = t.read("cassettes/upload.yaml");
    assert!(!text.contains("Kq7vZ2mXw9Lr4Tb8"), "{text}");
    assert!(!text.contains("MQpmODAwOTNlZTli"), "{text}");
    t.vcr(&["verify", "cassettes/upload.yaml"]).code(0);
}

#[test]
fn a_url_whose_parameters_hold_no_credential_is_no_finding() {
    let body = "{\"next\": \"https://api.example.com/items?page=2&key=YOUR_API_KEY&signature=REDACTED\", \"key\": \"primary\"}";
    let found = errors(
        "cassettes/list.yaml",
        &vcrpy("", "https://api.example.com/items", body, ""),
    );
    assert!(found.is_empty(), "{found:?}");
}

/// A JWT with the given claims (header and signature made up).
fn jwt(claims: &str) -> String {
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    format!(
        "{}.{}.Zk3q9XvL2mP8rT5wY1nB4cD7eF0gH6jK",
        b64(r#"{"alg":"HS256","typ":"JWT"}"#),
        b64(claims)
    )
}

#[test]
fn test_values_a_reviewer_reads_at_a_glance_are_no_finding_and_real_ones_are() {
    use base64::Engine;
    let basic = |account: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(account)
        )
    };
    let cases = [
        // Leetspeak of "a secure password", "real bad pass": test passwords.
        (
            r#"{"password": "@S3cur3P@55w0rd"}"#.to_owned(),
            String::new(),
            false,
        ),
        (
            r#"{"password": "r34!_b4d_p455"}"#.to_owned(),
            String::new(),
            false,
        ),
        // Fake words glued together.
        (
            r#"{"secret_access_key": "testkey", "access_key_id": "testid"}"#.to_owned(),
            String::new(),
            false,
        ),
        // A vendor's prefix before fake words, in HTTP Basic.
        ("{}".to_owned(), basic("testuser:ghp_TEST_TOKEN"), false),
        // What a reviewer reads as a test value: a secret named "my secret", a client
        // secret named after itself, a password that spells "password".
        (
            r#"{"client_secret": "mySecret"}"#.to_owned(),
            String::new(),
            false,
        ),
        (
            r#"{"client_secret": "test-client_secret"}"#.to_owned(),
            String::new(),
            false,
        ),
        (
            r#"{"password": "Passw0rd!"}"#.to_owned(),
            String::new(),
            false,
        ),
        // Values typed for a test: an alphabet run, glued upper-case words, a program's
        // name for the secret, words with a symbol.
        (
            r#"{"client_secret": "abcd123"}"#.to_owned(),
            String::new(),
            false,
        ),
        (
            r#"{"secret_access_key": "AWSSECRETKEY"}"#.to_owned(),
            String::new(),
            false,
        ),
        (
            r#"{"client_secret": "consumer_secret"}"#.to_owned(),
            String::new(),
            false,
        ),
        (
            r#"{"client_secret": "write_only_secret_value_at_least_32_chars!"}"#.to_owned(),
            String::new(),
            false,
        ),
        // A local model server's documented dummy key.
        ("{}".to_owned(), "Bearer ollama".to_owned(), false),
        // A public client with no secret (the Cloud Foundry CLI's `cf:`), and a header
        // filtered with a sentence about it (R vcr's habit).
        ("{}".to_owned(), basic("cf:"), false),
        ("{}".to_owned(), "My bearer token is safe".to_owned(), false),
        // A key sent as the user with no password is still a key.
        ("{}".to_owned(), basic("Xq8vN2kL5mR7pT3wZ9c4:"), true),
        // A JWT whose claims are made up: no issuer, a name that is no one.
        (
            format!(
                r#"{{"access_token": "{}"}}"#,
                jwt(r#"{"name":"none","sub":"noone@example.org","iat":1708593737}"#)
            ),
            String::new(),
            false,
        ),
        // Real ones: a random password, a real-looking Basic account, a JWT with an issuer.
        (
            r#"{"password": "k7#Vq2!mZx9Lp4Rw"}"#.to_owned(),
            String::new(),
            true,
        ),
        ("{}".to_owned(), basic("deploy-bot:Xq8vN2kL5mR7pT3w"), true),
        (
            format!(
                r#"{{"access_token": "{}"}}"#,
                jwt(
                    r#"{"iss":"https://login.example-idp.com","sub":"8f2c1a9e","name":"Dana Reyes","iat":1708593737}"#
                )
            ),
            String::new(),
            true,
        ),
    ];
    for (body, authorization, real) in cases {
        let headers = if authorization.is_empty() {
            String::new()
        } else {
            format!("      Authorization:\n      - {authorization}\n")
        };
        let request = format!(
            "interactions:\n- request:\n    body: '{body}'\n    headers:\n{headers}      Content-Type:\n      - application/json\n    method: POST\n    uri: https://api.example.com/v1/login\n  response:\n    body:\n      string: '{{}}'\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
        );
        let found = errors("cassettes/login.yaml", &request);
        assert_eq!(!found.is_empty(), real, "{body} {authorization}: {found:?}");
    }
}

/// A Ruby VCR cassette (JSON) of GET requests, each `(uri, status, recorded_at)`.
fn ruby_vcr(exchanges: &[(&str, u16, &str)]) -> String {
    let items: Vec<String> = exchanges
        .iter()
        .map(|(uri, status, at)| {
            format!(
                r#"{{"request": {{"method": "get", "uri": "{uri}", "body": {{"encoding": "UTF-8", "string": ""}}, "headers": {{}}}}, "response": {{"status": {{"code": {status}, "message": "OK"}}, "headers": {{}}, "body": {{"encoding": "UTF-8", "string": "{{}}"}}}}, "recorded_at": "{at}"}}"#
            )
        })
        .collect();
    format!(
        r#"{{"http_interactions": [{}], "recorded_with": "VCR 6.1.0"}}"#,
        items.join(", ")
    )
}

#[test]
fn ids_and_times_a_test_passes_are_constants_and_those_a_run_makes_are_errors() {
    let recorded = "Wed, 05 Jun 2013 10:00:00 GMT";
    let cases = [
        // A date the test passes, years before the recording.
        (
            "https://api.example.com/commits?since=2011-01-15T00:00:00Z",
            200,
            false,
        ),
        // A time the run made: minutes before the recording.
        (
            "https://api.example.com/commits?since=2013-06-05T09:58:12Z",
            200,
            true,
        ),
        // An object the server already had: its id in the path of a request it answered.
        (
            "https://api.example.com/sarifs/fb31fa2c-095d-11ee-98fe-c609abca1772",
            200,
            false,
        ),
        // The same id that the server did not know: made up by the run.
        (
            "https://api.example.com/sarifs/fb31fa2c-095d-11ee-98fe-c609abca1772",
            404,
            true,
        ),
        // An id in the host: a server's endpoint.
        (
            "https://a036eada-c328-482e-9329-5fbb79ca3c05.gw.example.net/api/v1/nodes",
            404,
            false,
        ),
        // An id written by hand, wherever it is.
        (
            "https://api.example.com/jobs?project_id=c1234567-2222-2222-3333-444444444444",
            404,
            false,
        ),
        // A client's request id in the query: a run makes it.
        (
            "https://api.example.com/jobs?request_id=3f9c2e7a-81d4-4b6e-9a05-d27c4e1b8f63",
            200,
            true,
        ),
        // An object's id in the query of a read the server answered: the server's object.
        (
            "https://api.example.com/collection?collection_id=847e4548-a3b5-4ad7-afb4-edbfc2ed0a6b",
            200,
            false,
        ),
    ];
    for (uri, status, run_made) in cases {
        let found = errors(
            "spec/cassettes/commits.json",
            &ruby_vcr(&[(uri, status, recorded)]),
        );
        assert_eq!(!found.is_empty(), run_made, "{uri} {status}: {found:?}");
        if run_made {
            assert!(
                found[0].contains("from when it was recorded")
                    || found[0].contains("no earlier response handed out"),
                "the message says why: {found:?}"
            );
        }
    }
    // Without a recorded time, a timestamp is judged as a run's, and the message says why.
    let found = errors(
        "spec/cassettes/commits.json",
        &ruby_vcr(&[(
            "https://api.example.com/commits?since=2011-01-15T00:00:00Z",
            200,
            "",
        )])
        .replace(r#", "recorded_at": """#, ""),
    );
    assert!(
        found.iter().any(|f| f.contains("records no time")),
        "{found:?}"
    );
}

#[test]
fn a_ruby_vcr_body_is_decoded_as_ruby_decodes_it_and_judged() {
    use base64::Engine;
    let body = r#"{"license": "abc", "password": "Zq7!vK2m#Lx9Rw4T"}"#;
    let encoded = base64::engine::general_purpose::STANDARD.encode(body);
    // Characters outside the alphabet, which `Base64.decode64` skips: Ruby VCR loads it.
    let lenient = format!("{}_{}-{}", &encoded[..8], &encoded[8..20], &encoded[20..]);
    let cassette = format!(
        r#"{{"http_interactions": [{{"request": {{"method": "post", "uri": "https://ghe.example.com/setup/api/upgrade", "body": {{"encoding": "ASCII-8BIT", "base64_string": "{lenient}"}}, "headers": {{}}}}, "response": {{"status": {{"code": 202, "message": "Accepted"}}, "headers": {{}}, "body": {{"encoding": "UTF-8", "string": ""}}}}, "recorded_at": "Wed, 05 Jun 2013 10:00:00 GMT"}}], "recorded_with": "VCR 6.1.0"}}"#
    );
    let found = errors("spec/cassettes/upgrade.json", &cassette);
    assert!(
        !found.iter().any(|f| f.starts_with("\"parse\"")),
        "{found:?}"
    );
    assert!(found.iter().any(|f| f.contains("`password`")), "{found:?}");
}

#[test]
fn what_a_server_hands_to_everyone_is_public_and_a_login_session_is_not() {
    let google = "AIzaSyB7q9XvL2mP8rT5wY1nB4cD7eF0gH6jKq3";
    let session = "BAh7B0kiD3Nlc3Npb25faWQGOgZFVEkiJTk0ZGE3Y2M5";
    let page = format!(
        r#"<html><script>window.config = {{\"sdk\": \"x.js\", \"apiKey\": \"{google}\"}};</script></html>"#
    );
    let response_headers = format!(
        "      Content-Type:\n      - text/html; charset=utf-8\n      Set-Cookie:\n      - _app_session={session}; path=/; HttpOnly\n      - __cf_bm=Kq7vZ2mXw9Lr4Tb8Yc1Nd5Fh3Jk; path=/\n"
    );
    // A visit: no credential went out, so the page's browser key and the cookies it set
    // name the page and the browser, not an account.
    let found = errors(
        "cassettes/home.yaml",
        &vcrpy("", "https://www.example.com/", &page, &response_headers),
    );
    assert!(found.is_empty(), "{found:?}");
    // The same answer to a login: the session cookie is the login's credential.
    let login = vcrpy(
        "      Cookie:\n      - visitor=1\n",
        "https://www.example.com/",
        &page,
        &response_headers,
    );
    let found = errors("cassettes/login.yaml", &login);
    assert!(
        found.iter().any(|f| f.contains("_app_session")),
        "{found:?}"
    );
    // Cookies that name a browser are none even after a login: analytics, bot checks.
    assert!(!found.iter().any(|f| f.contains("__cf_bm")), "{found:?}");
    for browser in ["session_tracker", "HWWAFSESID"] {
        let tracked = login.replace("_app_session=", &format!("{browser}="));
        let found = errors("cassettes/login.yaml", &tracked);
        assert!(!found.iter().any(|f| f.contains(browser)), "{found:?}");
    }
    // A vendor's secret key in a public page is still a leak.
    let leaked = page.replace(google, "sk_live_51Hq8vN2kL5mR7pT3wZx9Qa4Bc");
    let found = errors(
        "cassettes/home.yaml",
        &vcrpy("", "https://www.example.com/", &leaked, &response_headers),
    );
    assert!(found.iter().any(|f| f.contains("`apiKey`")), "{found:?}");
}

/// `normalize` removes a private key's whole block in every encoding `verify` reads it in:
/// a YAML block scalar, gzip'd `!!binary`, Ruby VCR's `base64_string`, a JSON string.
#[test]
fn a_private_key_goes_whole_in_every_encoding() {
    use base64::Engine;
    use std::io::Write;
    let key = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBq9XvL2mP8rT5wY1nB4cD7eF0gH6jKq3Zx9Qa4Bc51HoAoGCCqGSM49\nAwEHoUQDQgAE7q9XvL2mP8rT5wY1nB4cD7eF0gH6jKq3Zx9Qa4Bc51Hq8vN2kL5m\n-----END EC PRIVATE KEY-----\n";
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(key.as_bytes()).unwrap();
    let gzipped = b64(&gz.finish().unwrap());
    let block: String = key.lines().map(|l| format!("        {l}\n")).collect();
    let vcrpy_body = |body: &str, headers: &str| {
        format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/keys\n  response:\n    body:\n      string: {body}\n    headers:\n{headers}    status:\n      code: 200\n      message: OK\nversion: 1\n"
        )
    };
    let t = TestDir::new();
    t.write(
        "cassettes/block.yaml",
        vcrpy_body(&format!("|\n{}", block.trim_end()), "      Content-Type:\n      - text/plain\n"),
    )
    .write(
        "cassettes/gzip.yaml",
        vcrpy_body(
            &format!("!!binary |\n        {gzipped}"),
            "      Content-Encoding:\n      - gzip\n",
        ),
    )
    .write(
        "spec/cassettes/ruby.json",
        format!(
            r#"{{"http_interactions": [{{"request": {{"method": "get", "uri": "https://api.example.com/keys", "body": {{"encoding": "UTF-8", "string": ""}}, "headers": {{}}}}, "response": {{"status": {{"code": 200, "message": "OK"}}, "headers": {{}}, "body": {{"encoding": "ASCII-8BIT", "base64_string": "{}"}}}}, "recorded_at": "Wed, 05 Jun 2013 10:00:00 GMT"}}], "recorded_with": "VCR 6.1.0"}}"#,
            b64(key.as_bytes())
        ),
    )
    .write(
        "cassettes/json.yaml",
        vcrpy_body(
            &serde_json::to_string(&serde_json::json!({"deploy": key}).to_string()).unwrap(),
            "      Content-Type:\n      - application/json\n",
        ),
    );
    let files = [
        "cassettes/block.yaml",
        "cassettes/gzip.yaml",
        "spec/cassettes/ruby.json",
        "cassettes/json.yaml",
    ];
    let mut args = vec!["verify"];
    args.extend(files);
    let run = t.vcr(&args);
    run.code(1);
    for file in files {
        assert!(
            run.stdout.contains(file),
            "{file} has no finding:\n{}",
            run.stdout
        );
    }
    let mut args = vec!["normalize"];
    args.extend(files);
    t.vcr(&args).code(0);
    args[0] = "verify";
    t.vcr(&args).code(0);
    // Read back as each recorder reads it: no line of the key's body is left.
    let texts = [
        t.read("cassettes/block.yaml"),
        decoded_binary(&t.read("cassettes/gzip.yaml")),
        decoded_ruby(&t.read("spec/cassettes/ruby.json")),
        t.read("cassettes/json.yaml"),
    ];
    for (file, text) in files.iter().zip(texts) {
        for line in key.lines().skip(1) {
            assert!(!text.contains(line), "{file} keeps `{line}`:\n{text}");
        }
    }
}

/// The gunzipped bytes of the `!!binary` body of a vcrpy cassette, as text.
fn decoded_binary(cassette: &str) -> String {
    use base64::Engine;
    use std::io::Read;
    let start = cassette.find("!!binary |").unwrap() + "!!binary |".len();
    let encoded: String = cassette[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("        "))
        .map(str::trim)
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// The decoded `base64_string` of a Ruby VCR cassette's first response.
fn decoded_ruby(cassette: &str) -> String {
    use base64::Engine;
    let doc: serde_json::Value = serde_json::from_str(cassette).unwrap();
    let encoded = doc["http_interactions"][0]["response"]["body"]["base64_string"]
        .as_str()
        .unwrap()
        .replace('\n', "");
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap(),
    )
    .unwrap()
}

/// A key in a query, judged by its parameter's name and found again by its own pattern, is
/// one copy; the same key sent twice is two.
#[test]
fn one_copy_found_by_two_detectors_is_not_once_more() {
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k";
    let once = vcrpy(
        "",
        &format!("https://api.example.com/v1/models?api_key={key}"),
        "{\"next\": \"https://api.example.com/v1/models?page=2&token=ghp_Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2kLm4N\"}",
        "",
    );
    let found = errors("cassettes/once.yaml", &once);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|f| !f.contains("more")), "{found:?}");
    // The same request twice: the key is in the file twice.
    let exchange = &once["interactions:\n".len()..once.find("version: 1").unwrap()];
    let twice = format!("interactions:\n{exchange}{exchange}version: 1\n");
    let found = errors("cassettes/twice.yaml", &twice);
    assert!(
        found.iter().any(|f| f.contains("(once more in this file)")),
        "{found:?}"
    );
}

/// Keys in markup a browser renders (an `<iframe src>`), and in oEmbed data, are handed to
/// everyone; a signed URL the API issued to the account is not.
#[test]
fn urls_in_markup_and_oembed_are_public_and_an_issued_one_is_not() {
    let listing = r#"{"media": {"oembed": {"html": "<iframe src=\"https://cdn.embed.example.com/widgets/media.html?src=x&key=2aa3c4d5f3de4f5b9120b660ad850dc9\"></iframe>", "thumbnail_url": "https://cdn.example-video.com/i.jpg?Expires=1776112957&Signature=B275sxTEs9wdb04sKXCS7fFJAAnWkd4Y0bgLJmoYgHVv"}}}"#;
    let found = errors(
        "cassettes/listing.yaml",
        &vcrpy("", "https://api.example.com/r/all", listing, ""),
    );
    assert!(found.is_empty(), "{found:?}");
    let issued = r#"{"download_url": "https://storage.example.com/b/o?X-Goog-Credential=svc%2F20220507&X-Goog-Signature=9fe139a2b7c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6"}"#;
    let found = errors(
        "cassettes/job.yaml",
        &vcrpy("", "https://api.example.com/compliance/jobs", issued, ""),
    );
    assert!(
        found.iter().any(|f| f.contains("X-Goog-Signature")),
        "{found:?}"
    );
}

/// A private key whose body was redacted, markers kept, holds no key.
#[test]
fn a_private_key_block_with_a_redacted_body_is_no_finding() {
    for body in ["REDACTED", "\\n...\\n", "<PRIVATE KEY>"] {
        let request = format!(
            r#"{{"serviceAccountJson": {{"private_key": "-----BEGIN PRIVATE KEY-----{body}-----END PRIVATE KEY-----", "private_key_id": "KEY_ID"}}}}"#
        );
        let found = errors(
            "cassettes/push.yaml",
            &vcrpy("", "https://api.example.com/push-providers", &request, ""),
        );
        assert!(found.is_empty(), "{body}: {found:?}");
    }
}

/// A secret `vcr normalize` would replace says so, and that history keeps it; one in a
/// comment line, which the scrub does not rewrite, does not claim it.
#[test]
fn a_secret_says_whether_normalize_replaces_it() {
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k";
    let body = vcrpy(
        &format!("      Authorization:\n      - Bearer {key}\n"),
        "https://api.example.com/v1/me",
        "{}",
        "",
    );
    let found = errors("cassettes/me.yaml", &body);
    assert!(
        found[0].contains("`vcr normalize` replaces it") && found[0].contains("git history"),
        "{found:?}"
    );
    let t = TestDir::new();
    t.write("cassettes/me.yaml", &body);
    t.vcr(&["normalize", "cassettes/me.yaml"]).code(0);
    t.vcr(&["verify", "cassettes/me.yaml"]).code(0);
    let commented = format!("# old key: {key}\n{}", body.replace(key, "REDACTED"));
    let found = errors("cassettes/me.yaml", &commented);
    assert!(
        found.len() == 1 && !found[0].contains("vcr normalize"),
        "{found:?}"
    );
}

/// No output prints a secret (issue 22): one secret of each kind the structure judges, in
/// each place it can sit, and every output format of `verify`, `normalize --check --diff`
/// and `diff --full`, stdout and stderr, searched for each.
#[test]
fn no_output_prints_a_secret() {
    let secrets = [
        ("cookie", "Kq7vZ2mXw9Lr4Tb8Yc1Nd5Fh3JkQ7x9q2"),
        ("set-cookie", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"),
        ("query", "Tb8Yc1Nd5Fh3JkQ7x9q2Kq7vZ2mXw9Lr4"),
        ("header", "Nd5Fh3JkQ7x9q2Kq7vZ2mXw9Lr4Tb8Yc1"),
        ("field", "Jk7Q2x9qKq7vZ2mXw9Lr4Tb8Yc1Nd5Fh3"),
        ("url in body", "Xw9Lr4Tb8Yc1Nd5Fh3JkQ7x9q2Kq7vZ2m"),
    ];
    let cassette = |tweak: &str| {
        format!(
            "interactions:\n- request:\n    body: '{{\"password\": \"{field}\"}}'\n    headers:\n      Cookie:\n      - sessionid={cookie}\n      X-Api-Key:\n      - {header}\n    method: POST\n    uri: https://api.example.com/v1/login?token={query}\n  response:\n    body:\n      string: '{{\"next\": \"https://files.example.com/o?Expires=1735689600&Signature={url}\", \"n\": \"{tweak}\"}}'\n    headers:\n      Set-Cookie:\n      - _app_session={set_cookie}; path=/\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
            field = secrets[4].1,
            cookie = secrets[0].1,
            header = secrets[3].1,
            query = secrets[2].1,
            url = secrets[5].1,
            set_cookie = secrets[1].1,
        )
    };
    let t = TestDir::new();
    t.write("cassettes/login.yaml", cassette("1"))
        .write("old/login.yaml", cassette("1"))
        .write("new/login.yaml", cassette("2"));
    let mut runs: Vec<(String, common::Run)> = Vec::new();
    for format in ["human", "json", "sarif", "github"] {
        let args = ["verify", "-v", "--format", format, "cassettes/login.yaml"];
        runs.push((args.join(" "), t.vcr(&args)));
    }
    // Every place explained: the findings there, then (a place with none) its values.
    for place in [
        "interactions[0]",
        "interactions[0].request.body",
        "interactions[0].response.body.string (json) /n",
    ] {
        let place = format!("cassettes/login.yaml#{place}");
        let args = ["verify", "--explain", &place];
        runs.push((args.join(" "), t.vcr(&args)));
    }
    for args in [
        &["normalize", "--check", "--diff", "cassettes/login.yaml"][..],
        &[
            "normalize",
            "--check",
            "--diff",
            "--format",
            "json",
            "cassettes/login.yaml",
        ],
        &["diff", "--full", "old/login.yaml", "new/login.yaml"],
        &[
            "diff",
            "--full",
            "--format",
            "json",
            "old/login.yaml",
            "new/login.yaml",
        ],
    ] {
        runs.push((args.join(" "), t.vcr(args)));
    }
    for (args, run) in &runs {
        assert!(
            run.code.is_some_and(|c| c < 2),
            "{args}: {}\n{}",
            run.stdout,
            run.stderr
        );
        for (kind, secret) in secrets {
            let shown = format!("{}{}", run.stdout, run.stderr);
            assert!(
                !shown.contains(secret),
                "`{args}` prints the {kind} secret:\n{shown}"
            );
        }
    }
}

/// A secret written as a JSON key is part of its finding's pointer: shown masked there, in
/// the JSON document, SARIF and the baseline file, which still accepts the finding.
#[test]
fn a_secret_used_as_a_key_is_masked_in_pointers_and_baselines() {
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k";
    let t = TestDir::new();
    t.write(
        "cassettes/keys.yaml",
        vcrpy(
            "",
            "https://api.example.com/v1/keys",
            &format!("{{\"keys\": {{\"{key}\": \"primary\"}}}}"),
            "",
        ),
    );
    for format in ["json", "sarif"] {
        let run = t.vcr(&["verify", "--format", format, "cassettes/keys.yaml"]);
        run.code(1);
        assert!(!run.stdout.contains(key), "{format}:\n{}", run.stdout);
    }
    t.vcr(&[
        "verify",
        "--write-baseline",
        "baseline.json",
        "cassettes/keys.yaml",
    ])
    .code(0);
    assert!(!t.read("baseline.json").contains(key));
    t.vcr(&[
        "verify",
        "--baseline",
        "baseline.json",
        "cassettes/keys.yaml",
    ])
    .code(0)
    .stdout_has("1 accepted");
}

/// A read error that quotes a field's value (a key where a status code belongs) is masked in
/// `normalize` and `diff`, text and JSON, as `verify` masks it.
#[test]
fn error_messages_that_quote_a_file_are_masked() {
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k";
    let bad = vcrpy("", "https://api.example.com/v1/me", "{}", "")
        .replace("      code: 200\n", &format!("      code: {key}\n"));
    let t = TestDir::new();
    t.write("cassettes/bad.yaml", &bad)
        .write("old/bad.yaml", &bad)
        .write("new/bad.yaml", bad.replace("message: OK", "message: Fine"));
    for args in [
        &["verify", "cassettes/bad.yaml"][..],
        &["normalize", "--check", "cassettes/bad.yaml"],
        &[
            "normalize",
            "--check",
            "--format",
            "json",
            "cassettes/bad.yaml",
        ],
        &["diff", "old/bad.yaml", "new/bad.yaml"],
        &["diff", "--format", "json", "old", "new"],
    ] {
        let run = t.vcr(args);
        let shown = format!("{}{}", run.stdout, run.stderr);
        assert!(shown.contains("is not an HTTP status"), "{args:?}: {shown}");
        assert!(!shown.contains(key), "{args:?} prints the key:\n{shown}");
    }
}

/// A `match-on` that names a matcher vcr does not know (a project's own, registered with
/// the recorder) may compare anything in the request: an id the run made in the body counts.
#[test]
fn an_unknown_matcher_may_compare_anything() {
    let body = vcrpy("", "https://api.example.com/v1/jobs", "{}", "").replace(
        "    body: null\n",
        "    body: '{\"request_id\": \"3f9c2e7a-81d4-4b6e-9a05-d27c4e1b8f63\"}'\n",
    );
    for (match_on, counts) in [
        (r#"["method", "uri"]"#, false),
        (r#"["method", "uri", "my_body_matcher"]"#, true),
    ] {
        let t = TestDir::new();
        t.write(
            "vcr.toml",
            format!("[http]\ncassettes = [{{ glob = \"cassettes/**\", match-on = {match_on} }}]\n"),
        )
        .write("cassettes/jobs.yaml", &body);
        let run = t.vcr(&["verify", "--format", "json"]);
        let uuid = run.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "leak/uuid" && f["severity"] == "error");
        assert_eq!(uuid, counts, "{match_on}: {}", run.stdout);
    }
}

/// A value that names the environment variable it comes from is a reference, in a body as
/// in a URL.
#[test]
fn an_environment_reference_is_no_credential() {
    for value in ["ENV-cloud9_password", "env:DB_PASSWORD"] {
        let body = vcrpy("", "https://api.example.com/v1/db", "{}", "").replace(
            "    body: null\n",
            &format!("    body: '{{\"password\": \"{value}\"}}'\n"),
        );
        let found = errors("cassettes/db.yaml", &body);
        assert!(found.is_empty(), "{value}: {found:?}");
    }
}

/// `verify --explain VALUE` gives the judge's verdict on a value and why, and lists its
/// findings in the files checked, the value masked throughout.
#[test]
fn explain_says_why_a_value_is_or_is_not_a_credential() {
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k";
    let t = TestDir::new();
    t.write(
        "cassettes/me.yaml",
        vcrpy(
            &format!("      Authorization:\n      - Bearer {key}\n"),
            "https://api.example.com/v1/me",
            "{}",
            "",
        ),
    );
    let run = t.vcr(&["verify", "--explain", key, "cassettes/me.yaml"]);
    run.code(0)
        .stdout_has("names a credential: one, as none of")
        .stdout_has("as text: `openai-key` finds an OpenAI API key")
        .stdout_has("cassettes/me.yaml")
        .stdout_has("1 finding of this value in 1 file checked");
    assert!(!run.stdout.contains(key), "{}", run.stdout);
    let run = t.vcr(&[
        "verify",
        "--explain",
        "@S3cur3P@55w0rd",
        "cassettes/me.yaml",
    ]);
    run.code(0)
        .stdout_has("names a credential: not one: test words")
        .stdout_has("as text: no detector's pattern matches it")
        .stdout_has("0 findings of this value");
    // A key-shaped placeholder: the detector that looks for its kind says what rejects it.
    let run = t.vcr(&[
        "verify",
        "--explain",
        "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE",
    ]);
    run.code(0).stdout_has(
        "as text: `github-token` looks for a GitHub token here, and rejects it: a placeholder token",
    );
    t.vcr(&["verify", "--explain", key, "--format", "json"])
        .code(2)
        .stderr_has("--explain prints text");
}

/// A CloudFront key-pair id (`APKA...`) is the public half's name, written in every signed
/// URL; the signature beside it is the credential.
#[test]
fn a_cloudfront_key_pair_id_is_public_and_its_signature_is_not() {
    let body = r#"{"download": "https://d111111abcdef8.cloudfront.net/report.pdf?Expires=1776112957&Key-Pair-Id=APKAQ7X9Q2LMZP3XR8VL&Signature=B275sxTEs9wdb04sKXCS7fFJAAnWkd4Y0bgLJmoYgHVv"}"#;
    let found = errors(
        "cassettes/report.yaml",
        &vcrpy("", "https://api.example.com/v1/reports/1", body, ""),
    );
    assert!(found.iter().any(|f| f.contains("`Signature`")), "{found:?}");
    assert!(
        !found.iter().any(|f| f.contains("aws-access-key")),
        "{found:?}"
    );
}

/// The unique ids AWS gives users, roles, groups, instance profiles and policies share an
/// access key id's shape but open nothing: an IAM response lists them. An access key id is
/// still an error.
#[test]
fn aws_resource_ids_are_not_access_keys() {
    let body = r#"{"User": {"UserId": "AIDAQ7X9Q2LMZP3XR8VL", "Arn": "arn:aws:iam::123456789012:user/ci"}, "Role": {"RoleId": "AROAQ7X9Q2LMZP3XR8VM"}, "Group": {"GroupId": "AGPAQ7X9Q2LMZP3XR8VN"}, "Policy": {"PolicyId": "ANPAQ7X9Q2LMZP3XR8VP"}}"#;
    let found = errors(
        "cassettes/iam.yaml",
        &vcrpy("", "https://iam.amazonaws.com/?Action=GetUser", body, ""),
    );
    assert!(found.is_empty(), "{found:?}");
    let body = r#"{"AccessKey": {"AccessKeyId": "AKIAQ7X9Q2LMZP3XR8VL", "Status": "Active"}}"#;
    let found = errors(
        "cassettes/key.yaml",
        &vcrpy(
            "",
            "https://iam.amazonaws.com/?Action=CreateAccessKey",
            body,
            "",
        ),
    );
    assert!(
        found.iter().any(|f| f.contains("aws-access-key")),
        "{found:?}"
    );
}

#[test]
fn an_address_on_a_domain_the_root_does_not_hold_is_no_finding() {
    let t = TestDir::new();
    let body =
        r#"{"to": "jane.doe@acme-mail.com", "prompt": "send the@agent.instructions to a@b.c"}"#;
    t.write(
        "cassettes/mail.yaml",
        vcrpy("", "https://api.example.org/v1/send", body, ""),
    );
    let doc = t
        .vcr(&["verify", "--format", "json", "cassettes/mail.yaml"])
        .json();
    let emails: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "leak/email")
        .map(|f| f["match"].as_str().unwrap())
        .collect();
    assert_eq!(emails, ["j***@acme-mail.com"]);
}

/// Every leak finding says why the judge took its value for one: JSON's `reason`, SARIF's
/// property, the line under it with `-v`; an id a matched request sent adds the evidence.
#[test]
fn every_leak_says_why_it_was_judged_one() {
    let t = TestDir::new();
    let cassette = vcrpy(
        "      X-Api-Key:\n      - Nd5Fh3JkQ7x9q2Kq7vZ2mXw9Lr4Tb8Yc1\n",
        "https://api.example.com/v1/runs/5f0c6f1e-8d3b-4a7e-9c21-3b6f2d9e7a41",
        r#"{"token": "ghp_Ab3dEf9hIj2kLm5nOp8qRs1tUv4wXy7zAb0c", "home": "/home/janedoe/proj"}"#,
        "",
    );
    t.write(
        "cassettes/run.yaml",
        cassette.replace("method: GET", "method: POST"),
    );
    let doc = t
        .vcr(&["verify", "--format", "json", "cassettes/run.yaml"])
        .json();
    let reasons: Vec<(String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["detector"].as_str().unwrap().to_owned(),
                f["reason"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let reason = |detector: &str| {
        reasons
            .iter()
            .find(|(d, _)| d == detector)
            .map(|(_, r)| r.as_str())
            .unwrap_or_else(|| panic!("no {detector} finding: {reasons:?}"))
    };
    assert!(
        reason("credential-header").starts_with("the value of a header that carries a credential")
    );
    assert!(reason("credential-field").starts_with("the value of a field named for a credential"));
    assert!(reason("user-home").starts_with("a user's home folder"));
    assert!(
        reason("uuid").contains("it sits in what vcrpy matches requests by")
            && reason("uuid").contains("no earlier response"),
        "{reasons:?}"
    );
    let sarif = t
        .vcr(&["verify", "--format", "sarif", "cassettes/run.yaml"])
        .json();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().all(|r| r["properties"]["reason"]
            .as_str()
            .is_some_and(|r| !r.is_empty())),
        "{results:?}"
    );
    let plain = t.vcr(&["verify", "cassettes/run.yaml"]);
    assert!(!plain.stdout.contains("why:"), "{}", plain.stdout);
    let verbose = t.vcr(&["verify", "-v", "cassettes/run.yaml"]);
    verbose.stdout_has("why: the value of a header that carries a credential");
}

/// `--explain FILE#POINTER`: a place with a finding gives the finding and why; a place with
/// none gives the judge's verdict on each value there; a place with nothing is an error.
#[test]
fn explain_a_place_says_why_there_is_or_is_not_a_finding() {
    let t = TestDir::new();
    t.write(
        "cassettes/me.yaml",
        vcrpy(
            "      Authorization:\n      - Bearer sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k\n",
            "https://api.example.com/v1/me",
            r#"{"token": "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"}"#,
            "",
        ),
    );
    t.vcr(&[
        "verify",
        "--explain",
        "cassettes/me.yaml#interactions[0].request.headers.Authorization",
    ])
    .code(0)
    .stdout_has(
        "cassettes/me.yaml#interactions[0].request.headers.Authorization[0]: error leak/secret",
    )
    .stdout_has("  why: the value of a header that carries a credential");
    t.vcr(&[
        "verify",
        "--explain",
        "cassettes/me.yaml#interactions[0].response.body.string (json) /token",
    ])
    .code(0)
    .stdout_has("no finding at")
    .stdout_has("by its name `token`: not a credential: a placeholder token")
    .stdout_has("`github-token` looks for a GitHub token here, and rejects it");
    t.vcr(&["verify", "--explain", "cassettes/me.yaml#nowhere"])
        .code(2)
        .stderr_has("no finding at `nowhere`");
}

/// A key the repository commits in its own test sources is test data it publishes: a
/// warning that names the file. The same key kept where teams keep real ones (a hidden
/// `.env`, a `*.env` file, a file `.gitignore` leaves out) is never taken for published, so
/// the cassette that recorded it still fails the gate.
#[test]
fn a_key_the_sources_publish_is_a_warning_and_one_kept_out_of_git_is_an_error() {
    let key = "Zq8vN2kL5mR7pT3wYc1Nd5FhXa4";
    let cassette = vcrpy(
        &format!("      X-Api-Key:\n      - {key}\n"),
        "https://api.example.com/v1/items",
        "ok",
        "",
    );
    let verify = |t: &TestDir| {
        let run = t.vcr(&["verify", "--format", "json", "tests/cassettes/items.yaml"]);
        let found: Vec<(String, String)> = run.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["detector"] != "uuid")
            .map(|f| {
                (
                    f["severity"].as_str().unwrap().to_owned(),
                    f["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (run.code, found)
    };

    let t = TestDir::new();
    t.write("tests/cassettes/items.yaml", &cassette);
    t.write("tests/helpers.py", format!("API_KEY = \"{key}\"\n"));
    let (code, found) = verify(&t);
    assert_eq!(code, Some(0), "{found:?}");
    assert!(
        found.iter().any(
            |(severity, message)| severity == "warning" && message.contains("tests/helpers.py")
        ),
        "the warning names the source: {found:?}"
    );

    for (file, extra) in [
        (".env", None),
        ("ci.env", None),
        ("config/local.py", Some((".gitignore", "config/local.py\n"))),
    ] {
        let t = TestDir::new();
        t.write("tests/cassettes/items.yaml", &cassette);
        t.write(file, format!("API_KEY = \"{key}\"\n"));
        if let Some((ignore, rule)) = extra {
            t.write(ignore, rule);
        }
        let (code, found) = verify(&t);
        assert_eq!(code, Some(1), "{file}: {found:?}");
        assert!(
            found.iter().any(|(severity, _)| severity == "error"),
            "{file}: {found:?}"
        );
    }
}

/// gzip whose `Content-Encoding` the recorder did not keep (vcrpy writes the bytes as
/// `!!binary`) is undone by its magic bytes and judged. Regression (issue 41): it was read as
/// binary and passed.
#[test]
fn gzip_with_no_content_encoding_is_decoded_and_judged() {
    use base64::Engine;
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2kWm4v";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, format!("{{\"note\": \"{key}\"}}").as_bytes()).unwrap();
    let body = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
    let cassette = format!(
        "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/v1/exports/7\n  response:\n    body:\n      string: !!binary |\n        {body}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    let found = errors("tests/cassettes/export.yaml", &cassette);
    assert!(
        found.iter().any(|f| f.contains("openai")),
        "the key inside the gzip is found: {found:?}"
    );
}

/// A key in a cassette's file name or folder (issue 41) is an error on the path, and no
/// output prints it: not the findings in any format, not the annotations, not the headers of
/// `normalize --diff`. `normalize` renames nothing (the test opens the file by that name) and
/// says so, as an error.
#[test]
fn a_key_in_a_file_name_is_an_error_that_no_output_prints() {
    // Made for this test: random-looking, of OpenAI's project-key shape.
    let key = format!(
        "sk-proj-{}",
        "Qm4vT8kZ2nR6wP1xLc9Hd3FjYa7Ub5Ns0GeKi2Vo8MtWq4Rz"
    );
    let ghp = format!("ghp_{}", "Rb7Kd2Nq9Xw4Lm6Tz1Vc8Hy3Pf5Gs0JaEu4Oi");
    let t = TestDir::new();
    let file = format!("cassettes/test_{key}.yaml");
    let folder = format!("cassettes/{ghp}/list.yaml");
    let body = vcrpy(
        "      Authorization:\n      - Bearer Xk29fJq7LmZ4tR8wNc3Vb6Hd1Gy5Ps0Ta\n",
        "https://api.example.org/v1/things",
        "{}",
        "      Content-Type:\n      - application/json\n",
    );
    t.write(&file, &body);
    t.write(&folder, &body);
    let leaked = |run: &common::Run, what: &str| {
        for secret in [&key, &ghp] {
            assert!(
                !run.stdout.contains(secret.as_str()) && !run.stderr.contains(secret.as_str()),
                "{what} printed a key of a path:\n{}\n{}",
                run.stdout,
                run.stderr
            );
        }
    };
    let run = t.vcr(&["verify", "--format", "json", "cassettes"]);
    leaked(&run, "verify --format json");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let doc = run.json();
    let named: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("the file's path"))
        .collect();
    let detectors: Vec<&str> = named
        .iter()
        .map(|f| f["detector"].as_str().unwrap())
        .collect();
    assert_eq!(detectors, ["github-token", "openai-key"], "{named:?}");
    for finding in &named {
        assert_eq!(finding["id"], "leak/secret");
        assert_eq!(finding["severity"], "error");
        assert!(finding.get("line").is_none(), "{finding}");
    }
    assert!(
        named[1]["path"]
            .as_str()
            .unwrap()
            .starts_with("cassettes/test_sk-proj-…("),
        "{named:?}"
    );
    for format in ["human", "sarif", "github"] {
        let run = t.vcr(&["verify", "--format", format, "cassettes"]);
        assert_eq!(run.code, Some(1), "{format}: {}", run.stderr);
        leaked(&run, format);
    }
    let run = t.vcr(&["normalize", "--check", "--diff", "cassettes"]);
    leaked(&run, "normalize --check --diff");
    assert!(
        run.stdout.contains("--- a/cassettes/test_sk-proj-…("),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("`vcr normalize` does not rename files"),
        "{}",
        run.stderr
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let run = t.vcr(&["normalize", "--format", "json", "cassettes"]);
    leaked(&run, "normalize --format json");
    assert!(
        t.exists(&file) && t.exists(&folder),
        "normalize renamed a file"
    );
}

/// The bodies of one class of value in each encoding the judge decodes: as written in JSON,
/// percent-encoded in a form, JSON-escaped (`\/`), in base64 inside JSON (GitHub's contents
/// API), and with a suffix; each as `(what, content type, body)`.
fn in_every_encoding(name: &str, value: &str) -> Vec<(&'static str, &'static str, String)> {
    use base64::Engine;
    let config = format!("[default]\n{name} = {value}\n");
    let base64 = base64::engine::general_purpose::STANDARD.encode(config);
    vec![
        (
            "raw",
            "application/json",
            format!(r#"{{"{name}": "{value}"}}"#),
        ),
        (
            "percent-encoded",
            "application/x-www-form-urlencoded",
            format!("{name}={}&region=us-east-1", value.replace('/', "%2F")),
        ),
        (
            "JSON-escaped",
            "application/json",
            format!(r#"{{"{name}": "{}"}}"#, value.replace('/', "\\/")),
        ),
        (
            "base64",
            "application/json",
            format!(r#"{{"encoding": "base64", "content": "{base64}"}}"#),
        ),
        (
            "with a suffix",
            "application/json",
            format!(r#"{{"{name}": "{value}-1"}}"#),
        ),
    ]
}

/// The credentials vendors publish as examples in their documentation (AWS's two pairs,
/// Stripe's sample test key) are no leak in any encoding the judge decodes (issue 41); a
/// key that differs from one by one character is still an error in each (a real key is not
/// an example because it looks like one).
#[test]
fn documented_example_credentials_pass_in_every_encoding_and_a_near_miss_does_not() {
    let examples = [
        (
            "aws_secret_access_key",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        (
            "aws_secret_access_key",
            "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        ),
        ("api_key", "sk_test_BQokikJOvBiI2HlWgH4olfQ2"),
    ];
    for (name, example) in examples {
        // One character changed, in the middle: a real-looking key, not the example.
        let mid = example.len() / 2;
        let changed = if &example[mid..=mid] == "Q" { "R" } else { "Q" };
        let near = format!("{}{changed}{}", &example[..mid], &example[mid + 1..]);
        for (value, leak) in [(example, false), (near.as_str(), true)] {
            for (what, content_type, body) in in_every_encoding(name, value) {
                let found = errors(
                    "cassettes/config.yaml",
                    &vcrpy(
                        "",
                        "https://api.example.org/v1/config",
                        &body,
                        &format!("      Content-Type:\n      - {content_type}\n"),
                    ),
                );
                assert_eq!(
                    !found.is_empty(),
                    leak,
                    "{name} {what}{}: {found:?}",
                    if leak { " (one character off)" } else { "" }
                );
            }
        }
    }
    // The key ids beside them, and Stripe's key as a bearer token.
    for (header, value, leak) in [
        (
            "Authorization",
            "Bearer sk_test_BQokikJOvBiI2HlWgH4olfQ2",
            false,
        ),
        (
            "Authorization",
            "Bearer sk_test_BQokikJOvBiI2HlWgH4olfQ3",
            true,
        ),
        ("X-Aws-Access-Key-Id", "AKIAI44QH8DHBEXAMPLE", false),
    ] {
        let found = errors(
            "cassettes/auth.yaml",
            &vcrpy(
                &format!("      {header}:\n      - {value}\n"),
                "https://api.example.org/v1/things",
                "{}",
                "",
            ),
        );
        assert_eq!(!found.is_empty(), leak, "{header}: {value}: {found:?}");
    }
}

/// A multipart part sent as `Content-Transfer-Encoding: base64` is decoded and judged
/// (issue 41): a key inside is an error whose place names the layer, and `normalize`, which
/// writes no base64 back, leaves the file as it is and says to remove it by hand.
#[test]
fn a_key_in_a_base64_multipart_part_is_found_and_its_place_names_the_layer() {
    use base64::Engine;
    let key = format!(
        "sk-proj-{}",
        "Tq3vK8mZ2nR6wP1xLc9Hd4FjYa7Ub5Ns0GeKi2Vo8MtWq4Rz"
    );
    let content =
        base64::engine::general_purpose::STANDARD.encode(format!("OPENAI_API_KEY={key}\n"));
    let (first, second) = content.split_at(40);
    let body = format!(
        r#"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"env.txt\"\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n{first}\r\n{second}\r\n--b--\r\n"#
    );
    let cassette = format!(
        "interactions:\n- request:\n    body: \"{body}\"\n    headers:\n      Content-Type:\n      - multipart/form-data; boundary=b\n    method: POST\n    uri: https://api.example.org/v1/files\n  response:\n    body:\n      string: '{{}}'\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    let t = TestDir::new();
    t.write("cassettes/upload.yaml", &cassette);
    let run = t.vcr(&["verify", "--format", "json", "cassettes"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let doc = run.json();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    let finding = &findings[0];
    assert_eq!(finding["id"], "leak/secret");
    assert!(
        finding["pointer"]
            .as_str()
            .unwrap()
            .contains("part[file] (base64, form)"),
        "{finding}"
    );
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("in a layer it encodes"),
        "{finding}"
    );
    assert!(!run.stdout.contains(&key));
    let run = t.vcr(&["normalize", "cassettes"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("remove it by hand"), "{}", run.stderr);
    assert_eq!(t.read("cassettes/upload.yaml"), cassette);
}

/// A gzip body that inflates past 100 times its size is not read whole (the zip-bomb guard
/// of the body decoding), and that is said (issue 41): an `unscanned` warning at the body,
/// whose pointer names the layers. The same key in a body that compresses as real ones do
/// is found.
#[test]
fn a_gzip_body_past_the_inflation_guard_is_reported_not_skipped() {
    use std::io::Write;
    let key = format!(
        "sk-proj-{}",
        "Tq3vK8mZ2nR6wP1xLc9Hd4FjYa7Ub5Ns0GeKi2Vo8MtWq4Rz"
    );
    let cassette = |pad: usize| {
        use base64::Engine;
        let json = format!(r#"{{"pad": "{}", "api_key": "{key}"}}"#, "a".repeat(pad));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(json.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        let ratio = json.len() / gz.len();
        let encoded = base64::engine::general_purpose::STANDARD.encode(&gz);
        let lines: Vec<String> = encoded
            .as_bytes()
            .chunks(76)
            .map(|c| format!("        {}", std::str::from_utf8(c).unwrap()))
            .collect();
        let text = format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.org/v1/big\n  response:\n    body:\n      string: !!binary |\n{}\n    headers:\n      Content-Encoding:\n      - gzip\n      Content-Type:\n      - application/json\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
            lines.join("\n")
        );
        (text, ratio)
    };
    let (bomb, ratio) = cassette(2_000_000);
    assert!(ratio > 100, "{ratio}");
    let t = TestDir::new();
    t.write("cassettes/big.yaml", &bomb);
    let run = t.vcr(&["verify", "--format", "json", "cassettes"]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let doc = run.json();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    let finding = &findings[0];
    assert_eq!(finding["id"], "unscanned");
    assert_eq!(finding["severity"], "warning");
    assert_eq!(
        finding["pointer"],
        "interactions[0].response.body.string (gzip, too large)"
    );
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("was not scanned whole: it decompresses past 100 times its recorded size"),
        "{finding}"
    );
    // Compressed as real bodies are, the key inside is an error.
    let (plain, ratio) = cassette(200);
    assert!(ratio < 100, "{ratio}");
    t.write("cassettes/big.yaml", &plain);
    let found = t.vcr(&["verify", "--format", "json", "cassettes"]).json();
    let ids: Vec<&str> = found["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["leak/secret"]);
}

/// gzip inside base64 inside a JSON string (a layer the judge undoes) that inflates past its
/// cap is read up to the cap, and that is said too (issue 41).
#[test]
fn gzip_inside_base64_past_its_cap_is_reported() {
    use base64::Engine;
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&vec![b'a'; 9 << 20]).unwrap();
    let blob = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
    let t = TestDir::new();
    t.write(
        "cassettes/blob.yaml",
        vcrpy(
            "",
            "https://api.example.org/v1/blobs/7",
            &format!(r#"{{"archive": "{blob}"}}"#),
            "      Content-Type:\n      - application/json\n",
        ),
    );
    let run = t.vcr(&["verify", "--format", "json", "cassettes"]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let doc = run.json();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["id"], "unscanned");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(message.contains("inflates past 8 MiB"), "{message}");
    assert!(message.contains("was not scanned whole"), "{message}");
}

/// An id in a matched request URL that the repository's test sources write (a Go test's
/// `invalidOrgGUID = "..."`) is a constant every run sends: no `leak/uuid`. The same id
/// nowhere in the sources is one a run made, and stays an error. Regression (issue 41): a
/// Terraform provider's tests for missing objects failed the gate on their own constant.
#[test]
fn an_id_the_test_sources_write_is_a_constant_not_a_run_made_id() {
    let id = "40b73419-5e01-4be0-baea-932d46cea45b";
    let cassette = format!(
        "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    proto: HTTP/1.1\n    body: \"\"\n    form: {{}}\n    headers: {{}}\n    url: https://api.example.com/v3/organizations/{id}/domains\n    method: GET\n  response:\n    proto: HTTP/1.1\n    body: '{{\"errors\": [{{\"title\": \"CF-ResourceNotFound\"}}]}}'\n    headers: {{}}\n    status: 404 Not Found\n    code: 404\n    duration: 1ms\n"
    );
    let uuids = |t: &TestDir| -> Vec<String> {
        t.vcr(&["verify", "--format", "json", "."]).json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["id"] == "leak/uuid")
            .map(|f| f["severity"].as_str().unwrap().to_owned())
            .collect()
    };
    let t = TestDir::new();
    t.write("provider/fixtures/domains_invalid.yaml", &cassette);
    assert_eq!(uuids(&t), ["error"], "an id no source writes");
    t.write(
        "provider/utils_test.go",
        format!("package provider\n\nvar invalidOrgGUID = \"{id}\"\n"),
    );
    assert_eq!(uuids(&t), Vec::<String>::new(), "the test's constant");
    // A BDD suite writes the id in its feature file.
    let t = TestDir::new();
    t.write("provider/fixtures/domains_invalid.yaml", &cassette);
    t.write(
        "tests/features/domains.feature",
        format!(
            "Scenario: a missing organization
  Given request contains \"org_id\" parameter with value \"{id}\"
"
        ),
    );
    assert_eq!(
        uuids(&t),
        Vec::<String>::new(),
        "the feature file's constant"
    );

    // An R package's tests publish their key in `R/`: a warning that names the file.
    let key = "Zq8vN2kL5mR7pT3wYc1Nd5FhXa4";
    let t = TestDir::new();
    t.write(
        "tests/fixtures/search.yml",
        vcrpy(
            "",
            &format!("https://api.example.com/v1/search?apikey={key}"),
            "ok",
            "",
        ),
    );
    t.write("R/getkey.R", format!("getkey <- function() \"{key}\"\n"));
    let run = t.vcr(&["verify", "--format", "json", "."]);
    let findings = run.json()["findings"].as_array().unwrap().clone();
    assert!(
        findings
            .iter()
            .any(|f| f["severity"] == "warning"
                && f["message"].as_str().unwrap().contains("R/getkey.R")),
        "{findings:?}"
    );
    assert_eq!(run.code, Some(0), "{findings:?}");
}

/// A cassette replayed with the clock frozen at its recording (a `<name>.freeze` file beside
/// it, as DataDog's API clients write and read back to set the test clock) sends the same
/// times on every run: no `leak/timestamp`. Without the file the same time is one the run
/// made. Regression (issue 41): every time-window query of such a client failed the gate.
#[test]
fn times_in_a_cassette_replayed_with_a_frozen_clock_are_constants() {
    let recorded = "Wed, 05 Jun 2013 10:00:00 GMT";
    let cassette = ruby_vcr(&[(
        "https://api.example.com/api/v2/logs/events?filter[from]=2013-06-05T06:00:00Z",
        200,
        recorded,
    )]);
    let times = |t: &TestDir| -> usize {
        t.vcr(&["verify", "--format", "json", "."]).json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["id"] == "leak/timestamp")
            .count()
    };
    let t = TestDir::new();
    t.write("cassettes/features/v2/Search_logs.json", &cassette);
    assert_eq!(times(&t), 1, "a time the run made");
    t.write(
        "cassettes/features/v2/Search_logs.freeze",
        "2013-06-05T10:00:00.000Z",
    );
    assert_eq!(times(&t), 0, "the frozen clock's time");
}

/// A field whose value is the id of a link its object shares on purpose (a shared
/// dashboard's `token`, the last segment of its `public_url`) is public by design; the same
/// token with no such link beside it is a credential. Regression (issue 41): an API client's
/// shared-dashboard tests failed the gate.
#[test]
fn a_token_that_is_the_id_of_a_public_link_is_no_credential() {
    let token = "fasjyqdbcgwwc2uc-a0de932128a4590dd2936030efe4536f";
    let body = |url: &str| {
        format!(r#"{{"id": 7, "token": "{token}", "{url}": "https://p.example.com/sb/{token}"}}"#)
    };
    for (field, real) in [
        ("public_url", false),
        ("share_url", false),
        ("api_url", true),
    ] {
        let found = errors(
            "cassettes/share.yaml",
            &vcrpy(
                "",
                "https://api.example.com/v1/dashboard/public",
                &body(field),
                "",
            ),
        );
        assert_eq!(!found.is_empty(), real, "{field}: {found:?}");
    }
}

/// A vcrpy cassette whose project hooks keep the response body as data (`body: {data:
/// {...}}`, as Cloud Custodian's Azure tests write it and turn back into text on replay) is
/// read and judged: no `parse` error, and a key inside the data is found. Regression: 400
/// files of one project were each a false `parse` error.
#[test]
fn a_body_kept_as_data_by_the_projects_hooks_is_read_and_judged() {
    let cassette = |data: &str| {
        format!(
            "{{\"version\": 1, \"interactions\": [{{\"request\": {{\"method\": \"GET\", \"uri\": \"https://management.example.com/subscriptions/1/accounts\", \"body\": null, \"headers\": {{}}}}, \"response\": {{\"status\": {{\"code\": 200, \"message\": \"OK\"}}, \"headers\": {{\"content-type\": [\"application/json\"]}}, \"body\": {{\"data\": {data}}}}}}}]}}"
        )
    };
    let t = TestDir::new();
    t.write(
        "tests/cassettes/accounts.json",
        cassette(r#"{"value": [{"id": "/subscriptions/1/accounts/a", "name": "a"}]}"#),
    );
    let run = t.vcr(&["verify", "--format", "json", "."]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(run.json()["summary"]["http"]["vcrpy"], 1, "{}", run.stdout);

    let t = TestDir::new();
    t.write(
        "tests/cassettes/keys.json",
        cassette(r#"{"keys": [{"name": "key1", "value": "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2kWm4v"}]}"#),
    );
    let found = t.vcr(&["verify", "--format", "json", "."]).json()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>();
    assert!(found.contains(&"leak/secret".to_owned()), "{found:?}");
    assert!(!found.contains(&"parse".to_owned()), "{found:?}");
}

/// A HAR header without `value` (Polly writes so a header whose value was `undefined`, and
/// loads it) is a header with nothing in it; the file is read and judged, and `normalize`
/// scrubs it leaving that header as it was. Regression: every such file was a `parse` error.
#[test]
fn a_har_header_without_a_value_is_read() {
    let key = "sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2kWm4v";
    let har = format!(
        r#"{{"log": {{"version": "1.2", "creator": {{"name": "Polly.JS", "version": "6"}}, "entries": [{{"request": {{"method": "GET", "url": "https://api.example.com/v1/blocks", "headers": [{{"name": "x-api-key", "value": "{key}"}}], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0, "httpVersion": "HTTP/1.1"}}, "response": {{"status": 200, "statusText": "OK", "headers": [{{"name": "hasprop"}}, {{"name": "content-type", "value": "application/json"}}], "content": {{"mimeType": "application/json", "text": "{{}}", "size": 2}}, "cookies": [], "headersSize": -1, "bodySize": -1, "redirectURL": "", "httpVersion": "HTTP/1.1"}}, "startedDateTime": "2025-01-01T00:00:00.000Z", "time": 1, "timings": {{}}, "cache": {{}}}}]}}}}"#
    );
    let t = TestDir::new();
    t.write("recordings/blocks/recording.har", &har);
    let doc = t.vcr(&["verify", "--format", "json", "."]).json();
    let ids: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["leak/secret"], "{doc:#}");
    t.vcr(&["normalize"]).code(0);
    let after = t.read("recordings/blocks/recording.har");
    assert!(!after.contains(key), "{after}");
    assert!(after.contains(r#"{"name": "hasprop"}"#), "{after}");
}

/// A request header naming a session's id whose value is a UUID (Claude Code's
/// `X-Claude-Code-Session-Id`) names a conversation: no finding; a random session token in
/// the same header is still a credential. Regression (issue 41): every recorded call of a
/// tracer's Claude Code tests failed the gate.
#[test]
fn a_session_id_that_is_a_uuid_names_a_conversation() {
    for (value, real) in [
        ("eba7676d-4c5a-4e8a-8f82-9fc2c50cf6e1", false),
        ("Q7fKz2PmA9xLw3RtYb8NcV5hJ1sDk4Wm", true),
    ] {
        let found = errors(
            "cassettes/agent.yaml",
            &vcrpy(
                &format!("      X-Claude-Code-Session-Id:\n      - {value}\n"),
                "https://api.example.com/v1/messages",
                "ok",
                "",
            ),
        );
        assert_eq!(!found.is_empty(), real, "{value}: {found:?}");
    }
}

/// What a name or a value says of itself, each beside the real credential it must not hide
/// (issue 41, classes of a blind set): a pagination cursor, Rails' CSRF token and a domain's
/// published validation token are no secrets by their names; a service's URL under a
/// credential's name, a product's tier (`ManagedDiskS4`) and a session's log position without
/// letters (`0:-1#13`) are none by their values. The same names with random keys, a URL with
/// a key in its query, and a letterless password stay errors.
#[test]
fn names_and_values_that_say_they_are_no_credential() {
    let key = "Q7fKz2PmA9xLw3RtYb8NcV5hJ1sDk4Wm";
    let field = |name: &str, value: &str| {
        errors(
            "cassettes/api.yaml",
            &vcrpy(
                "",
                "https://api.example.com/v1/items",
                &format!(r#"{{"{name}": "{value}", "id": 3}}"#),
                "",
            ),
        )
    };
    for (name, value, real) in [
        ("PaginationToken", key, false),
        ("authenticity_token", key, false),
        ("validationToken", key, false),
        ("refreshToken", key, true),
        ("Token", "https://eastus.api.example.com/speech/v1", false),
        ("Token", key, true),
        ("_skuToken", "ManagedDiskS4", false),
        ("_skuToken", "Kq7vZ2mXw9Lr4TS4", true),
        ("password", "4821:9930#7", true),
        // One word is a weak password under a password's name.
        ("password", "safe", true),
    ] {
        let found = field(name, value);
        assert_eq!(!found.is_empty(), real, "{name}={value}: {found:?}");
    }
    // One word under a token's name is a filter's replacement (R vcr's
    // `filter_request_headers = list("X-Authentication-Token" = "safe")`).
    for (value, real) in [("safe", false), (key, true)] {
        let found = errors(
            "cassettes/cites.yaml",
            &vcrpy(
                &format!("      X-Authentication-Token:\n      - {value}\n"),
                "https://api.example.com/v1/taxa",
                "{}",
                "",
            ),
        );
        assert_eq!(!found.is_empty(), real, "{value}: {found:?}");
    }
    // A page of results names its cursor `token`; a grant beside it makes it a credential.
    for (body, real) in [
        (
            format!(r#"{{"total": 2674, "token": "{key}", "data": []}}"#),
            false,
        ),
        (
            format!(r#"{{"total": 1, "token": "{key}", "expires_in": 3600}}"#),
            true,
        ),
    ] {
        let found = errors(
            "cassettes/bulk.yaml",
            &vcrpy("", "https://api.example.com/v1/search/bulk?q=a", &body, ""),
        );
        assert_eq!(!found.is_empty(), real, "{body}: {found:?}");
    }
    // A key in the query of a URL under the same name is judged where it stands.
    let found = field(
        "Token",
        &format!("https://api.example.com/v1/hook?api_key={key}"),
    );
    assert!(found.iter().any(|f| f.contains("api_key")), "{found:?}");
    for (value, real) in [("0:-1#13", false), (key, true)] {
        let found = errors(
            "cassettes/cosmos.yaml",
            &vcrpy(
                "",
                "https://db.example.com/dbs/d/colls/c",
                "{}",
                &format!("      x-ms-session-token:\n      - '{value}'\n"),
            ),
        );
        assert_eq!(!found.is_empty(), real, "{value}: {found:?}");
    }
}

/// A vcrpy interaction as YAML list item: method, URI, request headers and body (YAML lines
/// indented by six), response headers.
fn exchange(
    method: &str,
    uri: &str,
    request_headers: &str,
    body: &str,
    response_headers: &str,
) -> String {
    format!(
        "- request:\n    body: {body}\n    headers:\n{request_headers}    method: {method}\n    uri: {uri}\n  response:\n    body:\n      string: ok\n    headers:\n{response_headers}    status:\n      code: 200\n      message: OK\n"
    )
}

/// A session cookie a site set in answer to an anonymous visit and got back is that visit's
/// (a subtitle site's PHP session while a test downloads a file): no credential. The same
/// cookie is one once a request signs in with it (a login form, a filtered `Authorization`,
/// whose real value went out), and a cookie the cassette never saw set is judged as ever.
/// Regression (issue 41): 21 files of one project failed the gate on anonymous sessions.
#[test]
fn a_session_cookie_of_an_anonymous_visit_is_no_credential() {
    let sid = "5mq7715p5aoo1rpgkibn1pir54";
    let set = format!("      Set-Cookie:\n      - PHPSESSID={sid}; path=/\n");
    let sent = format!("      Cookie:\n      - PHPSESSID={sid}\n");
    let cassette = |first_headers: &str, second: &str| {
        format!(
            "interactions:\n{}{}{}version: 1\n",
            exchange(
                "GET",
                "https://subs.example.com/",
                first_headers,
                "null",
                &set
            ),
            second,
            exchange("GET", "https://subs.example.com/file/1", &sent, "null", ""),
        )
    };
    let login = exchange(
        "POST",
        "https://subs.example.com/login",
        &sent,
        "'username=ann&password=%3CPASSWORD%3E'",
        "",
    );
    for (content, real, why) in [
        (cassette("", ""), false, "anonymous visit"),
        (cassette("", &login), true, "a login with that session"),
        (
            cassette("      Authorization:\n      - Basic <FILTERED>\n", ""),
            true,
            "a filtered Authorization went out",
        ),
        (
            format!(
                "interactions:\n{}version: 1\n",
                exchange("GET", "https://subs.example.com/file/1", &sent, "null", "")
            ),
            true,
            "never seen set",
        ),
    ] {
        let found = errors("cassettes/subs.yaml", &content);
        let cookie = found.iter().any(|f| f.contains("PHPSESSID"));
        assert_eq!(cookie, real, "{why}: {found:?}");
    }
}

/// Names a request gives a credential that no list holds: a `key` header (a UUID is a key
/// there), a meeting link's `pwd`; and a key word inside a longer name is that name's
/// (`page-token` is a cursor, `access-token` a credential). Regressions (issue 41): an API
/// key sent in every request under `key` passed; every paged request of a client failed.
#[test]
fn a_key_header_and_a_meeting_passcode_are_credentials_a_page_token_is_not() {
    let uuid = "376bf3a1-8c2e-4d7f-9b1a-5e6c7d8f9a0b";
    let header = |name: &str| {
        errors(
            "cassettes/key.yaml",
            &vcrpy(
                &format!("      {name}:\n      - {uuid}\n"),
                "https://sentinel.example.com/api/whoami",
                "{}",
                "",
            ),
        )
    };
    assert!(!header("key").is_empty(), "a `key` request header");
    assert!(header("Sec-WebSocket-Key").is_empty(), "a protocol nonce");
    assert!(
        header("x-ms-file-permission-key").is_empty(),
        "a file's permission descriptor"
    );
    let url = |query: &str| {
        errors(
            "cassettes/url.yaml",
            &vcrpy(
                "",
                &format!("https://api.example.com/v2/pipeline?{query}"),
                "{}",
                "",
            ),
        )
    };
    let random = "AO9ui98bRBMcS5zJdLZ_2nQNXj02hSloERalNRu7GlP40GJ7t";
    assert!(url(&format!("org=a&page-token={random}")).is_empty());
    assert!(!url(&format!("org=a&access-token={random}")).is_empty());
    assert!(!url("j=4440405982&pwd=c0JidmL0Qm9yZ2RhS3pLbmN4VnpqZz09").is_empty());
}

/// A SOAP login names itself in its body, whatever the path (vCenter's `POST /sdk` with
/// `<Login><userName>..</userName><password>..</password></Login>`), and a cookie's value
/// may be quoted (RFC 6265): the session it sets is a credential, in the answer and sent
/// back. The same exchange without a password element is an anonymous visit. Regression
/// (issue 41): 16 files of an SDK's vCenter sessions passed.
#[test]
fn a_session_set_by_a_soap_login_is_a_credential_even_quoted() {
    let sid = "7bea484612c4a9d17d2b5e8f3a6c0d9e1b2f4a7c";
    let set =
        format!("      set-cookie:\n      - vmware_soap_session=\"{sid}\"; Path=/; HttpOnly;\n");
    let sent = format!("      Cookie:\n      - vmware_soap_session=\"{sid}\"\n");
    let cassette = |element: &str| {
        let body = format!(
            "'<soapenv:Envelope><soapenv:Body><Login xmlns=\"urn:vim25\"><userName>my_user</userName><{element}>my_password</{element}></Login></soapenv:Body></soapenv:Envelope>'"
        );
        format!(
            "interactions:\n{}{}version: 1\n",
            exchange("POST", "https://vcsa/sdk", "", &body, &set),
            exchange("POST", "https://vcsa/sdk", &sent, "null", ""),
        )
    };
    let found = errors("cassettes/vc.yaml", &cassette("password"));
    assert_eq!(
        found
            .iter()
            .filter(|f| f.contains("vmware_soap_session"))
            .count(),
        2,
        "{found:?}"
    );
    let found = errors("cassettes/vc.yaml", &cassette("locale"));
    assert!(found.is_empty(), "{found:?}");
}

/// An OAuth 1.0 signed request (RFC 5849): the consumer key and the token are identifiers
/// the protocol sends in the clear with every request, and the signature covers one request,
/// so nothing in the header signs another (issue 41: 19 files of a LinkedIn client blocked),
/// whether the token is made up or an account's. The `PLAINTEXT` method sends the two
/// secrets as the signature, and `OAuth <token>` is an OAuth 2 bearer token under that
/// scheme's name: both stay errors.
#[test]
fn an_oauth1_signature_is_no_credential_unless_it_is_plaintext() {
    let header = |value: &str| format!("      Authorization:\n      - {value}\n");
    let signed = |method: &str, signature: &str| {
        format!(
            "OAuth oauth_consumer_key=\"Xk4pQ9mZ2vL7rT1w\", oauth_nonce=\"KkLqrO8OnlnRKJFUnwnHvyDpmT5lzyVuPPU38MHKXE\", oauth_signature=\"{signature}\", oauth_signature_method=\"{method}\", oauth_timestamp=\"1389649903\", oauth_token=\"key\", oauth_version=\"1.0\""
        )
    };
    let judged = |value: &str| {
        errors(
            "cassettes/linkedin.yaml",
            &vcrpy(
                &header(value),
                "https://api.linkedin.com/v1/people/~",
                "{}",
                "",
            ),
        )
    };
    let hmac = judged(&signed("HMAC-SHA1", "kR6yrQ2vB9xL4mT7pZ1cW8nF3dE%3D"));
    assert!(hmac.is_empty(), "{hmac:?}");
    let real_token = judged(
        &signed("HMAC-SHA1", "kR6yrQ2vB9xL4mT7pZ1cW8nF3dE%3D").replace(
            "oauth_token=\"key\"",
            "oauth_token=\"3fe7Kq9vN2mZx8Lp4Rw7eT1yB6cD0hJ5\"",
        ),
    );
    assert!(real_token.is_empty(), "{real_token:?}");
    let plaintext = judged(&signed(
        "PLAINTEXT",
        "Hq8vN2kL5mR7pT3wYc1Nd5Fh%26Zq8vN2kL5mR7pT3wYc1Nd",
    ));
    assert!(
        plaintext.iter().any(|f| f.contains("Authorization")),
        "{plaintext:?}"
    );
    let oauth2 = judged("OAuth y0_AgAAAAAbK7mQAAq8vN2kL5mR7pT3wYc1Nd5Fh");
    assert!(
        oauth2.iter().any(|f| f.contains("Authorization")),
        "{oauth2:?}"
    );
}

/// A domain's transfer secret in a registrar's answer (`"authCode"`, EPP's auth code):
/// whoever holds it moves the domain away (issue 41: a DNS client's 25 cassettes). A
/// status `code` and a made-up one are not.
#[test]
fn a_domain_transfer_auth_code_is_an_error() {
    let judged = |body: &str| {
        errors(
            "cassettes/registrar.yaml",
            &vcrpy(
                "",
                "https://api.registrar.example/v1/domains/example.org",
                body,
                "",
            ),
        )
    };
    let found =
        judged(r#"{"authCode":"7QK2R9F8C8M24X9D","domain":"example.org","status":"ACTIVE"}"#);
    assert!(found.iter().any(|f| f.contains("authCode")), "{found:?}");
    let found =
        judged(r#"{"auth_code":"AUTH_CODE","code":"Q7K2R9F8C8M24X9D","domain":"example.org"}"#);
    assert!(found.is_empty(), "{found:?}");
}

/// A UUID under a header whose name ends in `session` (Azure DevOps' `X-TFS-Session`: the
/// client's id for its run, which the server echoes as its trace id) is an id, as one under
/// `*-Session-Id` is (issue 41: 28 cassettes of a CLI blocked). A random token under the
/// same name is still a credential.
#[test]
fn a_uuid_under_a_session_header_is_an_id_and_a_token_is_not() {
    let judged = |value: &str| {
        let headers = format!("      X-TFS-Session:\n      - {value}\n");
        errors(
            "cassettes/devops.yaml",
            &vcrpy(
                &headers,
                "https://dev.azure.com/org/_apis/projects",
                "{}",
                "",
            ),
        )
    };
    let found = judged("ad3174f2-944f-4bf0-ba38-c46df780a74e");
    assert!(found.is_empty(), "{found:?}");
    let found = judged("Zq8vN2kL5mR7pT3wYc1Nd5FhQx7Lm2Vb");
    assert!(
        found.iter().any(|f| f.contains("X-TFS-Session")),
        "{found:?}"
    );
}

/// An id a test made that Azure's test recorder keeps in the cassette's `Variables` (or
/// `Names`) is read back on replay instead of made again: not a `leak/uuid` (issue 41: 343
/// cassettes of an Azure SDK blocked). The same id kept nowhere else is one a run makes.
#[test]
fn an_id_the_recorder_keeps_for_replay_is_no_run_made_uuid() {
    let cassette = |variables: &str| {
        format!(
            r#"{{"Entries":[{{"RequestUri":"/subscriptions/7d2e9c41-5b3a-4f8e-9c17-2a6b0e4d8f53/resourcegroups/rg20c63426?api-version=2021-01-01","EncodedRequestUri":"L3N1YnM=","RequestMethod":"PUT","RequestBody":"{{}}","RequestHeaders":{{}},"ResponseHeaders":{{}},"ResponseBody":"{{}}","StatusCode":201}}],"Names":{{"CanCreate":["rg20c63426"]}},"Variables":{{{variables}}}}}"#
        )
    };
    let kept = errors(
        "SessionRecords/CanCreate.json",
        &cassette(r#""SubscriptionId":"7d2e9c41-5b3a-4f8e-9c17-2a6b0e4d8f53""#),
    );
    assert!(kept.is_empty(), "{kept:?}");
    let made = errors(
        "SessionRecords/CanCreate.json",
        &cassette(r#""SubscriptionId":"00000000-0000-0000-0000-000000000000""#),
    );
    assert!(made.iter().any(|f| f.contains("leak/uuid")), "{made:?}");
}

/// A vendor's key header that no list holds (`x-lc-hook-key`, `ftx-key`) is judged by its
/// value: a random key is an error; a UUID (a request's id), a WebSocket nonce, an
/// idempotency or cache key, or words are not. Regression (issue 41): a blind set held 128
/// files that sent such a key and passed.
#[test]
fn a_vendor_key_header_with_a_random_value_is_an_error() {
    let header = |name: &str, value: &str| {
        errors(
            "cassettes/key.yaml",
            &vcrpy(
                &format!("      {name}:\n      - {value}\n"),
                "https://api.example.com/1.1/classes/Todo",
                "{}",
                "",
            ),
        )
    };
    let random = "2iCbUZDgEF0sQk7mR4tWx9Lp";
    assert!(!header("x-lc-hook-key", random).is_empty(), "a hook key");
    assert!(!header("FTX-KEY", random).is_empty(), "an exchange's key");
    for (name, value, why) in [
        (
            "x-lc-hook-key",
            "376bf3a1-8c2e-4d7f-9b1a-5e6c7d8f9a0b",
            "a UUID",
        ),
        (
            "Sec-WebSocket-Key",
            "dGhlIHNhbXBsZSBub25jZQ==",
            "a protocol nonce",
        ),
        ("Idempotency-Key", random, "a retry's id"),
        ("X-Cache-Key", random, "a cache's key"),
        ("x-lc-hook-key", "hook-key-for-the-tests", "words"),
    ] {
        assert!(header(name, value).is_empty(), "{why}");
    }
}

/// A URL in a page's escaped markup ends at its escaped quote: `https://github.com&quot;,
/// &quot;email&quot;:&quot;help@example.com` holds no password. A password in a URL written
/// plainly still is one. Regression (issue 41): 81 files of a blind set failed on such a page.
#[test]
fn a_url_in_escaped_markup_holds_no_password() {
    let page = "<script>window.env = {&quot;github&quot;:&quot;https://github.com&quot;,&quot;support_email&quot;:&quot;support@example.com&quot;}</script>";
    let found = errors(
        "cassettes/page.yaml",
        &vcrpy("", "https://app.example.com/", page, ""),
    );
    assert!(found.is_empty(), "{found:?}");
    let plain = "clone https://deploy:Zq8vN2kL5mR7pT3wYc1N@git.example.com/app.git";
    let found = errors(
        "cassettes/clone.yaml",
        &vcrpy("", "https://app.example.com/", plain, ""),
    );
    assert!(
        found.iter().any(|f| f.contains("url-credentials")),
        "{found:?}"
    );
}

/// A session a server set while the cassette shows no credential, sent back by the client,
/// is a visit's, unless the project's recorder removes the `Authorization` its requests
/// carried (vcrpy's `filter_headers`): then it answered a login, and it is an error that
/// names the source. Regression (issue 41): 119 files of a blind set held the session of an
/// API login whose Basic credentials vcrpy had removed, and passed.
#[test]
fn a_session_after_a_removed_login_is_an_error_where_the_recorder_removes_it() {
    let session = "3dc933aedb17acddf8dda4ac9c6f18ce";
    let cassette = format!(
        "interactions:\n- request:\n    body: null\n    headers:\n      Accept:\n      - application/json\n    method: GET\n    uri: https://foreman.example.com/api/status\n  response:\n    body:\n      string: '{{\"status\":200}}'\n    headers:\n      Set-Cookie:\n      - _session_id={session}; path=/; secure; HttpOnly\n    status:\n      code: 200\n      message: OK\n- request:\n    body: null\n    headers:\n      Cookie:\n      - _session_id={session}\n    method: GET\n    uri: https://foreman.example.com/api/architectures\n  response:\n    body:\n      string: '{{\"results\":[]}}'\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    let verify = |wrapper: Option<&str>| {
        let t = TestDir::new();
        t.write("tests/fixtures/architecture-0.yml", &cassette);
        if let Some(source) = wrapper {
            t.write("tests/vcr_wrapper.py", source);
        }
        let run = t.vcr(&["verify", "--format", "json", "tests/fixtures"]);
        let messages: Vec<String> = run.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .map(|f| f["message"].as_str().unwrap().to_owned())
            .collect();
        (run.code, messages)
    };
    let (code, found) = verify(None);
    assert_eq!(code, Some(0), "a visit's session: {found:?}");
    let (code, found) = verify(Some(
        "import vcr\n\nFILTER_REQUEST_HEADERS = ['Authorization', 'Cookie']\n\nwith vcr.use_cassette(path, filter_headers=FILTER_REQUEST_HEADERS):\n    run()\n",
    ));
    assert_eq!(code, Some(1), "{found:?}");
    assert!(
        found
            .iter()
            .any(|m| m.contains("_session_id") && m.contains("tests/vcr_wrapper.py")),
        "the error names the session and the source: {found:?}"
    );
    // A recorder told to remove something else says nothing of a login.
    let (code, found) = verify(Some("import vcr\nvcr.VCR(filter_headers=['User-Agent'])\n"));
    assert_eq!(code, Some(0), "{found:?}");
}

/// What a link made to be handed out holds (a public dashboard's `share_token`, an
/// activity map's `embed_token`) is published by whoever shares it; the same value under
/// `access_token` is a credential. Regression (issue 41): 10 files of two blind sets.
#[test]
fn share_and_embed_tokens_are_no_credentials() {
    let value = "fasjyydbcgwwc2uc9Kq7vZ2mXw9Lr4Tb8Yc1NdHs3pQ";
    let body = |name: &str| {
        errors(
            "cassettes/share.yaml",
            &vcrpy(
                "",
                "https://api.example.com/api/v1/dashboard/shared",
                &format!(
                    "{{\"{name}\": \"{value}\", \"public_url\": \"https://p.example.com/sb/x\"}}"
                ),
                "      Content-Type:\n      - application/json\n",
            ),
        )
    };
    assert!(body("share_token").is_empty());
    assert!(body("embed_token").is_empty());
    assert!(!body("access_token").is_empty());
}

/// A private key the repository keeps as a test's key file (`spec/support/test_rsa`, no
/// extension; `server.pem`) is published there: the cassette that sends it gets a warning
/// naming the file, not an error. Regression (issue 41): 4 files of a blind set.
#[test]
fn a_private_key_the_repository_keeps_in_a_key_file_is_a_warning() {
    let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAwwuwmtxV5vZwAuZKSEPrgdmu0oSZI8D74zSUrCNa5s9mfHlw\nzCzhFtPKhlwYxVpQ7WZBrQMNlPFJmhyj3Cd2DPkrObMNLEVEq8vN2kL5mR7pT3wY\nc1Nd5FhXa4Zq8vN2kL5mR7pT3wYc1Nd5FhXa4Bq9XvL2mP8rT5wY1nB4cD7eF0gH\n-----END RSA PRIVATE KEY-----\n";
    let escaped = key.replace('\n', "\\n");
    let cassette = format!(
        "interactions:\n- request:\n    body: '{{\"hostname\":\"hostname\",\"private_key\":\"{escaped}\"}}'\n    headers:\n      Content-Type:\n      - application/json\n    method: POST\n    uri: https://ci.example.com/api/v1.1/project/x/ssh-key\n  response:\n    body:\n      string: ''\n    headers: {{}}\n    status:\n      code: 201\n      message: Created\nversion: 1\n"
    );
    for file in [
        None,
        Some("spec/support/test_rsa"),
        Some("spec/fixtures/server.pem"),
    ] {
        let t = TestDir::new();
        t.write("spec/cassettes/ssh_key.yml", &cassette);
        if let Some(file) = file {
            t.write(file, key);
        }
        let run = t.vcr(&["verify", "--format", "json", "spec/cassettes/ssh_key.yml"]);
        let findings = run.json()["findings"].as_array().unwrap().clone();
        let key_findings: Vec<_> = findings
            .iter()
            .filter(|f| f["id"] == "leak/secret")
            .collect();
        assert!(!key_findings.is_empty(), "{file:?}: {findings:?}");
        match file {
            None => assert_eq!(run.code, Some(1), "{findings:?}"),
            Some(file) => {
                assert_eq!(run.code, Some(0), "{file}: {findings:?}");
                assert!(
                    key_findings.iter().all(|f| f["severity"] == "warning"
                        && f["message"].as_str().unwrap().contains(file)),
                    "{file}: {findings:?}"
                );
            }
        }
    }
}

/// Azure's .NET recorder before the test-proxy (records with `EncodedRequestUri`) matches a
/// request by its method and URI, never its body: an id a run makes in a request body
/// breaks no replay there, while the test-proxy, which compares bodies, does break on it.
/// Regression (issue 41): 34 clean cassettes of a blind set failed on such ids.
#[test]
fn azures_older_recorder_matches_no_body() {
    let id = "8819d69b-7f31-4c27-9414-95e1d90b657b";
    let entry = |encoded: &str| {
        format!(
            r#"{{"Entries":[{{"RequestUri":"/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/images/img?api-version=2021-01-01",{encoded}"RequestMethod":"PUT","RequestBody":"{{\"properties\":{{\"osDisk\":{{\"uri\":\"https://store.blob.example.net/vhds/{id}.vhd\"}}}}}}","RequestHeaders":{{}},"ResponseHeaders":{{}},"ResponseBody":"{{}}","StatusCode":200}}],"Names":{{}},"Variables":{{}}}}"#
        )
    };
    let older = errors(
        "SessionRecords/Images.json",
        &entry(r#""EncodedRequestUri":"L3N1YnM=","#),
    );
    assert!(older.is_empty(), "{older:?}");
    let proxy = errors("SessionRecords/Images.json", &entry(""));
    assert!(proxy.iter().any(|f| f.contains("leak/uuid")), "{proxy:?}");
}

/// A home folder whose user the repository's sources write (`userName = "tirekicker"`, the
/// admin of a VM a test creates) is the test's account: a warning naming the source. The
/// same folder with no source that names its user is an error. Regression (issue 41): 22
/// clean cassettes of a blind set failed on a test VM's home folder.
#[test]
fn a_home_folder_of_a_user_the_sources_name_is_a_warning() {
    let cassette = vcrpy(
        "",
        "https://management.example.com/vm/1",
        "ok",
        "",
    )
    .replace(
        "    body: null\n",
        "    body: '{\"osProfile\": {\"ssh\": {\"path\": \"/home/tirekicker/.ssh/authorized_keys\"}}}'\n",
    );
    for source in [None, Some("src/test/java/VmTests.java")] {
        let t = TestDir::new();
        t.write("session-records/canCreateVm.yaml", &cassette);
        if let Some(file) = source {
            t.write(
                file,
                "class VmTests {\n    final String userName = \"tirekicker\";\n}\n",
            );
        }
        let run = t.vcr(&[
            "verify",
            "--format",
            "json",
            "session-records/canCreateVm.yaml",
        ]);
        let homes: Vec<serde_json::Value> = run.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["detector"] == "user-home")
            .cloned()
            .collect();
        assert!(!homes.is_empty(), "{source:?}");
        match source {
            None => assert!(homes.iter().any(|f| f["severity"] == "error"), "{homes:?}"),
            Some(file) => {
                let named = |f: &serde_json::Value| {
                    f["severity"] == "warning" && f["message"].as_str().unwrap().contains(file)
                };
                assert!(homes.iter().all(named), "{homes:?}");
            }
        }
    }
}

/// A `signature` that signs one request (PubNub's `signature=v2.<hmac>` beside the request's
/// `timestamp`) is bound to that request and no credential; one in a link signed to be used
/// again, which says until when or whose key signed it (S3's `Expires`, a SAS's `se`), is.
/// Regression (issue 41): 40 clean files of a blind set failed on request signatures.
#[test]
fn a_request_signature_is_no_credential_and_a_signed_links_is() {
    let url = |query: &str| {
        errors(
            "cassettes/signed.yaml",
            &vcrpy(
                "",
                &format!("https://ps.example.com/v2/presence/sub-key/demo?{query}"),
                "{}",
                "",
            ),
        )
    };
    let sig = "v2.Kq7vZ2mXw9Lr4Tb8Yc1Nd5Fh3JkQ7x9q2Zp";
    assert!(url(&format!("pnsdk=Ruby&timestamp=1660000000&signature={sig}")).is_empty());
    assert!(
        !url(&format!(
            "Expires=1735689600&AWSAccessKeyId=AKIAABCDEFGHIJKLMNOP&Signature={sig}"
        ))
        .is_empty()
    );
    assert!(
        !url(&format!(
            "sv=2021-08-06&se=2030-01-01T00%3A00%3A00Z&sp=r&sig={sig}"
        ))
        .is_empty()
    );
}

/// A JWT is judged by its claims: one that names no audience, subject, scope, client or user
/// and states facts (an attestation service's report of an enclave) or holds times alone is
/// a signed statement, no credential; an access token that names its audience, and a GitHub
/// App's JWT (an issuer and times: the app authenticating), are. Regression (issue 41): 40
/// clean files of a blind set held attestation tokens under `token`.
#[test]
fn a_jwt_that_names_no_one_is_a_statement_and_an_access_token_is_not() {
    let answer = |token: &str| {
        errors(
            "recordings/Attest.yaml",
            &vcrpy(
                "",
                "https://shared.attest.example.net/attest/SgxEnclave",
                &format!("{{\"token\": \"{token}\"}}"),
                "      Content-Type:\n      - application/json\n",
            ),
        )
    };
    let report = {
        use base64::Engine;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!(
            "{}.{}.Zk3q9XvL2mP8rT5wY1nB4cD7eF0gH6jK",
            b64(
                r#"{"alg":"RS256","jku":"https://shared.attest.example.net/certs","kid":"k1","typ":"JWT"}"#
            ),
            b64(
                r#"{"exp":1700003600,"iat":1700000000,"iss":"https://shared.attest.example.net","jti":"9f2c","x-ms-attestation-type":"sgx","x-ms-sgx-mrenclave":"4b1c3f","x-ms-ver":"1.0"}"#
            )
        )
    };
    assert!(answer(&report).is_empty(), "an attestation's report");
    let nonce = jwt(r#"{"iat":1700000000,"exp":1700000300}"#);
    assert!(answer(&nonce).is_empty(), "a proof's nonce");
    let access = jwt(
        r#"{"aud":"https://management.example.com","iss":"https://login.example.com/t/","exp":1700003600,"oid":"7d2e9c41"}"#,
    );
    assert!(!answer(&access).is_empty(), "an access token");
    let app = jwt(r#"{"iss":"123456","iat":1700000000,"exp":1700000600}"#);
    assert!(!answer(&app).is_empty(), "an app's JWT");
    // An account's or a host's id says whose token it is.
    for claims in [
        r#"{"exp":1700003600,"id":"58213","orig_iat":1700000000}"#,
        r#"{"exp":1700003600,"host_id":12,"iat":1700000000,"jti":"a1"}"#,
        r#"{"exp":1700003600,"accountId":"7d2e9c41","kind":"session"}"#,
        // Claims in a vendor's own words, with no published keys: a session's.
        r#"{"exp":1700003600,"iat":1700000000,"iss":"cloud","xuu":"42","xcu":"7"}"#,
    ] {
        assert!(!answer(&jwt(claims)).is_empty(), "{claims}");
    }
}

/// Google's service-account access tokens (`ya29.c.` and some 230 random characters) are
/// padded with dots to 1,024: a whole token, not one cut short (`ya29.a0AfH6SM...`).
/// Regression (issue 41): 8 files of a blind set sent one and passed.
#[test]
fn a_token_padded_with_dots_is_whole_and_one_cut_short_is_not() {
    let header = |token: &str| {
        errors(
            "recordings/query.yaml",
            &vcrpy(
                &format!("      Authorization:\n      - Bearer {token}\n"),
                "https://bigquery.example.com/bigquery/v2/projects/p/queries",
                "{}",
                "",
            ),
        )
    };
    let padded = format!(
        "ya29.c.b0AXv0zTOU9-p50a{}{}",
        "Kq7vZ2mXw9Lr4Tb8".repeat(14),
        ".".repeat(790)
    );
    assert!(!header(&padded).is_empty(), "a padded token");
    assert!(header("ya29.a0AfH6SMBx...").is_empty(), "a token cut short");
}
