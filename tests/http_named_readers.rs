//! The readers of issue 39's recorders, each of its own: php-vcr, ExVCR, R's vcr, govcr, DVR,
//! Vinyl, OkReplay, EasyVCR, responses' recorder, HTTPretty, httpmock and httpreplay.
//!
//! Where a registry here carries the recorder (R's vcr, responses, HTTPretty), it records
//! the leaky scenario against the test's server; elsewhere the cassettes come from
//! `tests/formats/`, real cassettes of public repositories cut down, with credentials of the
//! test's own (`tests/formats/README.md`). Either way each planted credential has no vendor's
//! shape, so only its place (a header, a query parameter, a body field) makes it one, and:
//!
//! - `vcr verify` with no configuration finds the cassettes by their content (in the
//!   recorder's default folder, php-vcr's without an extension), reads each as its recorder's
//!   (never a `parse` error, never linted as text), and reports each credential at its place,
//!   masked, whether the tree is walked or the files are named;
//! - `vcr normalize` replaces every one of them, and the file still loads: in the recorder,
//!   which replays it (with the requests sending the placeholders where the recorder matches
//!   them), or, where none runs here, in a strict reader of its syntax (Symfony's YAML parser
//!   for php-vcr, else Python's `json` and PyYAML), to the same data but the placeholders;
//!   `verify` then finds no credential and `normalize --check` nothing more to do.
//!
//! A recorder or loader that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1` (CI; `tests/recorders/install` installs them).

use crate::common;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;

use common::TestDir;
use common::recorders::{Recorded, Recorder, record, replay};
use common::scenario::{Scenario, planted_token};
use common::strict_loaders::{Strict, load_all};

/// A format whose cassettes come from `tests/formats/<folder>/`.
struct Case {
    folder: &'static str,
    /// The format's name as `verify` counts it.
    format: &'static str,
    loader: Strict,
    /// Each planted credential: its marker, the cassette it is in, and the parts of the
    /// readable path its finding names (lower-cased).
    planted: &'static [(&'static str, &'static str, &'static [&'static str])],
}

const CASES: &[Case] = &[
    Case {
        folder: "php-vcr",
        format: "php-vcr",
        loader: Strict::Symfony,
        planted: &[
            (
                "@S1@",
                "tests/fixtures/claims/create",
                &["[0].request.url", "?api_key"],
            ),
            (
                "@S2@",
                "tests/fixtures/claims/create",
                &["[0].response.body", "/client_secret"],
            ),
            (
                "@S3@",
                "tests/fixtures/youtube",
                &["[0].request.headers.x-goog-api-key"],
            ),
        ],
    },
    Case {
        folder: "exvcr",
        format: "ExVCR",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "fixture/vcr_cassettes/app#me.json",
                &["[0].request.headers.authorization"],
            ),
            (
                "@S2@",
                "fixture/vcr_cassettes/app#me.json",
                &["[0].request.options.basic_auth[1]"],
            ),
            (
                "@S3@",
                "fixture/vcr_cassettes/app#me.json",
                &["[1].response.body", "/token"],
            ),
        ],
    },
    Case {
        folder: "govcr",
        format: "govcr",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "govcr-fixtures/ListRoles.cassette",
                &["tracks[0].request.url", "?token"],
            ),
            (
                "@S2@",
                "govcr-fixtures/ListRoles.cassette",
                &["tracks[0].request.header.authorization[0]"],
            ),
            (
                "@S3@",
                "govcr-fixtures/ListRoles.cassette",
                &["tracks[0].response.body", "/api_key"],
            ),
            (
                "@S4@",
                "vcr/TestPing.cassette.gz",
                &["tracks[0].request.header.authorization[0]"],
            ),
        ],
    },
    Case {
        folder: "dvr",
        format: "DVR",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "Tests/ContentfulTests/DVRRecordings/testFetchSpace.json",
                &["interactions[0].request.headers.authorization"],
            ),
            (
                "@S2@",
                "Tests/ContentfulTests/DVRRecordings/testFetchSpace.json",
                &["interactions[0].response.body", "/access_token"],
            ),
        ],
    },
    Case {
        folder: "vinyl",
        format: "Vinyl",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "SwiftNIOMockExampleUITests/Recordings/testPOST.json",
                &["[0].request.headers.cookie", "sails.sid"],
            ),
            (
                "@S2@",
                "SwiftNIOMockExampleUITests/Recordings/testPOST.json",
                &["[0].request.body", "/password"],
            ),
        ],
    },
    Case {
        folder: "okreplay",
        format: "OkReplay",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "src/test/resources/okreplay/tapes/rest_conversation_tape.yaml",
                &["interactions[0].request.headers.x-api-key"],
            ),
            (
                "@S2@",
                "src/test/resources/okreplay/tapes/rest_conversation_tape.yaml",
                &["interactions[1].response.body", "/token"],
            ),
        ],
    },
    Case {
        folder: "easyvcr",
        format: "EasyVCR",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "EasyPost.Tests/cassettes/exceptions/error.json",
                &["[0].request.requestheaders.authorization"],
            ),
            (
                "@S2@",
                "src/test/cassettes/refund/get_next_page.json",
                &["[0].request.uri", "?api_key"],
            ),
        ],
    },
    Case {
        folder: "httpmock",
        format: "httpmock",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "tests/recordings/items_1796626844.yaml",
                &["[0].when.path", "?api_key"],
            ),
            (
                "@S2@",
                "tests/recordings/items_1796626844.yaml",
                &["[0].when.header[0].value", "x-auth-token"],
            ),
        ],
    },
    Case {
        folder: "httpreplay",
        format: "httpreplay",
        loader: Strict::Python,
        planted: &[
            (
                "@S1@",
                "blob/testdata/TestKeys/startwithdigit.replay",
                &["entries[0].request.url", "?access_token"],
            ),
            (
                "@S2@",
                "blob/testdata/TestKeys/startwithdigit.replay",
                &["entries[0].response.body", "/access_token"],
            ),
        ],
    },
];

macro_rules! case_tests {
    ($($module:ident: $folder:literal;)*) => {$(
        mod $module {
            #[test]
            fn verify_finds_each_planted_credential_and_normalize_leaves_a_loadable_file() {
                super::check_case($folder);
            }
        }
    )*};
}

case_tests! {
    php_vcr: "php-vcr";
    exvcr: "exvcr";
    govcr: "govcr";
    dvr: "dvr";
    vinyl: "vinyl";
    okreplay: "okreplay";
    easyvcr: "easyvcr";
    httpmock: "httpmock";
    httpreplay: "httpreplay";
}

/// `tests/formats/`.
fn formats() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats")
}

/// The project a case's folder makes, with a made-up credential for each marker: the
/// cassettes (relative paths) and the credentials by marker.
fn project(folder: &str) -> (TestDir, Vec<String>, BTreeMap<String, String>) {
    let source = formats().join(folder);
    let mut secrets: BTreeMap<String, String> = BTreeMap::new();
    let mut plant = |text: &str| {
        let mut text = text.to_owned();
        while let Some(start) = text.find("@S") {
            let end = start + text[start + 1..].find('@').unwrap() + 2;
            let marker = text[start..end].to_owned();
            let secret = secrets.entry(marker.clone()).or_insert_with(planted_token);
            text.replace_range(start..end, secret);
        }
        text
    };
    let body = std::fs::read_to_string(source.join("body.json"))
        .map(|b| plant(&b))
        .unwrap_or_default();
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let gzip = |bytes: &[u8]| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut encoder, bytes).unwrap();
        encoder.finish().unwrap()
    };
    // ExVCR's binary body: `:erlang.term_to_binary` of the gzip'd bytes.
    let gzipped = gzip(body.as_bytes());
    let mut term = vec![131, 109];
    term.extend((gzipped.len() as u32).to_be_bytes());
    term.extend(&gzipped);
    let t = TestDir::new();
    let mut cassettes = Vec::new();
    for entry in walkdir::WalkDir::new(&source).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(&source)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if !entry.file_type().is_file() || rel == "body.json" {
            continue;
        }
        let text = plant(&std::fs::read_to_string(entry.path()).unwrap())
            .replace("@BODY_B64@", &b64(body.as_bytes()))
            .replace("@GZIP_TERM@", &b64(&term));
        match rel.strip_suffix(".gz.in") {
            Some(stem) => {
                let rel = format!("{stem}.gz");
                t.write(&rel, gzip(text.as_bytes()));
                cassettes.push(rel);
            }
            None => {
                t.write(&rel, text);
                cassettes.push(rel);
            }
        }
    }
    (t, cassettes, secrets)
}

fn check_case(folder: &str) {
    let case = CASES.iter().find(|c| c.folder == folder).unwrap();
    let (t, cassettes, secrets) = project(folder);
    let paths: Vec<PathBuf> = cassettes.iter().map(|c| t.path(c)).collect();
    let Some(loaded_before) = load_all(case.loader, &paths) else {
        return;
    };
    for (loaded, path) in loaded_before.iter().zip(&cassettes) {
        assert!(
            loaded.is_ok(),
            "{path} does not load as written: {loaded:?}"
        );
    }

    // The walk finds every cassette, with no configuration, and lists it.
    let listed = t.vcr(&["verify", "--show-files"]);
    for cassette in &cassettes {
        listed.stdout_has(cassette);
    }
    let named: Vec<&str> = ["verify", "--format", "json"]
        .into_iter()
        .chain(cassettes.iter().map(String::as_str))
        .collect();
    for args in [&["verify", "--format", "json"][..], &named] {
        let run = t.vcr(args);
        let context = format!("{} ({args:?}):\n{}", case.format, run.stdout);
        run.code(1);
        let doc = run.json();
        assert_eq!(
            doc["summary"]["http"][case.format].as_u64(),
            Some(cassettes.len() as u64),
            "{context}"
        );
        assert!(
            doc["summary"]["as_text"].as_u64().unwrap_or(0) == 0,
            "{context}"
        );
        let findings = doc["findings"].as_array().unwrap();
        assert!(findings.iter().all(|f| f["id"] != "parse"), "{context}");
        for (marker, file, parts) in case.planted {
            let found = findings.iter().find(|f| {
                let pointer = f["pointer"].as_str().unwrap_or("").to_ascii_lowercase();
                f["id"] == "leak/secret"
                    && f["path"] == *file
                    && parts.iter().all(|p| pointer.contains(p))
            });
            let Some(found) = found else {
                panic!("no leak/secret for {marker} at {file} {parts:?}: {context}");
            };
            assert!(found["line"].as_u64().is_some(), "{marker}: {context}");
        }
        for secret in secrets.values() {
            assert!(!run.stdout.contains(secret.as_str()), "unmasked: {context}");
        }
    }

    // normalize replaces them all, and the files still load, to the same data but the
    // placeholders.
    t.vcr(&["normalize", "--check"]).code(1);
    t.vcr(&["normalize"]).code(0);
    let secrets: Vec<String> = secrets.into_values().collect();
    let loaded_after = load_all(case.loader, &paths).unwrap();
    for ((before, after), cassette) in loaded_before.iter().zip(&loaded_after).zip(&cassettes) {
        let after = after
            .as_ref()
            .unwrap_or_else(|e| panic!("{cassette} no longer loads after normalize: {e}"));
        if let Some(left) = secret_in(after, &secrets) {
            panic!("{cassette} still holds a credential after normalize: {left}");
        }
        if let Err(e) = same_but_placeholders(before.as_ref().unwrap(), after, &secrets, "") {
            panic!("{cassette} reads differently after normalize: {e}");
        }
    }
    let run = t.vcr(&["verify", "--format", "json"]);
    let doc = run.json();
    let left: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "leak/secret" || f["id"] == "parse")
        .collect();
    assert!(left.is_empty(), "{left:#?}");
    t.vcr(&["normalize", "--check"]).code(0);
}

/// A string of `data` (or the text of one that decodes: base64, an Erlang binary, gzip)
/// that holds one of `secrets`.
fn secret_in(data: &Value, secrets: &[String]) -> Option<String> {
    match data {
        Value::String(s) => {
            let decoded = decoded(s);
            [Some(s.as_str()), decoded.as_deref()]
                .into_iter()
                .flatten()
                .find(|text| secrets.iter().any(|secret| text.contains(secret.as_str())))
                .map(str::to_owned)
        }
        Value::Array(items) => items.iter().find_map(|v| secret_in(v, secrets)),
        Value::Object(map) => map.values().find_map(|v| secret_in(v, secrets)),
        _ => None,
    }
}

/// The text a string stores as its cassette's recorders store bytes: base64, maybe of an
/// Erlang binary's term, maybe gzip'd; `None` when it is none of those.
fn decoded(text: &str) -> Option<String> {
    let compact: String = text.split_ascii_whitespace().collect();
    let mut bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()?;
    if bytes.starts_with(&[131, 109]) && bytes.len() >= 6 {
        bytes.drain(..6);
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut inflated = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut inflated)
            .ok()?;
        bytes = inflated;
    }
    String::from_utf8(bytes).ok()
}

/// Whether `after` is `before` with each of `secrets` replaced by a placeholder
/// (`REDACTED_<NAME>`), strings compared as they are or as the text they decode to, and a
/// length beside a body (`Content-Length`, govcr's `ContentLength`) free to follow it.
fn same_but_placeholders(
    before: &Value,
    after: &Value,
    secrets: &[String],
    path: &str,
) -> Result<(), String> {
    let length = path
        .to_ascii_lowercase()
        .replace(['-', '_'], "")
        .ends_with("contentlength");
    match (before, after) {
        (Value::String(a), Value::String(b)) => {
            let ok = a == b
                || replaced(a, b, secrets)
                || length
                || matches!((decoded(a), decoded(b)), (Some(x), Some(y)) if replaced(&x, &y, secrets));
            ok.then_some(())
                .ok_or_else(|| format!("{path}: {a:?} became {b:?}"))
        }
        (Value::Number(_), Value::Number(_)) if length => Ok(()),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same_but_placeholders(x, y, secrets, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Object(a), Value::Object(b)) if a.keys().eq(b.keys()) => {
            for (key, x) in a {
                same_but_placeholders(x, &b[key], secrets, &format!("{path}.{key}"))?;
            }
            Ok(())
        }
        _ if before == after => Ok(()),
        _ => Err(format!("{path}: {before} became {after}")),
    }
}

/// Whether `after` is `before` with every occurrence of `secrets` replaced by a
/// `REDACTED_<NAME>` placeholder.
fn replaced(mut before: &str, mut after: &str, secrets: &[String]) -> bool {
    loop {
        let next = secrets
            .iter()
            .filter_map(|s| before.find(s.as_str()).map(|at| (at, s.len())))
            .min();
        let Some((at, len)) = next else {
            return before == after;
        };
        let Some(rest) = after
            .strip_prefix(&before[..at])
            .and_then(|a| a.strip_prefix("REDACTED_"))
        else {
            return false;
        };
        let name = rest
            .bytes()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        if name == 0 {
            return false;
        }
        after = &rest[name..];
        before = &before[at + len..];
    }
}

/// Where each of the leaky scenario's credentials is, as parts of its finding's readable
/// path (lower-cased), for the recorders that keep it.
fn places(recorder: Recorder) -> Vec<(&'static str, &'static [&'static str])> {
    let all: [(&str, &[&str]); 8] = [
        ("Authorization header", &["request.headers.authorization"]),
        ("x-api-key header", &["request.headers.x-api-key"]),
        ("api_key query parameter", &["?api_key"]),
        ("password field", &["request.body", "/password"]),
        ("client_secret field", &["request.body", "/client_secret"]),
        (
            "secret field beside app_id",
            &["request.body", "/app/secret"],
        ),
        (
            "access_token in the gzip response",
            &["response.body", "/access_token"],
        ),
        (
            "session cookie",
            &["response.headers.set-cookie", "session"],
        ),
    ];
    // responses' recorder keeps no request headers and no request body.
    let kept = |label: &str| match recorder {
        Recorder::Responses => [
            "api_key query parameter",
            "access_token in the gzip response",
            "session cookie",
        ]
        .contains(&label),
        _ => true,
    };
    all.into_iter().filter(|(label, _)| kept(label)).collect()
}

/// The format each recorder's cassettes are read as, and the one file it writes.
fn format_of(recorder: Recorder) -> (&'static str, &'static str) {
    match recorder {
        Recorder::RVcr => ("R vcr", "tests/fixtures/leaky.yml"),
        Recorder::Responses => ("responses", "cassettes/leaky.yaml"),
        Recorder::Httpretty => ("HTTPretty", "cassettes/leaky.json"),
        other => unreachable!("{} has a test of its own", other.name()),
    }
}

macro_rules! recorder_tests {
    ($($module:ident: $recorder:expr, $scenario:expr;)*) => {$(
        mod $module {
            use super::*;

            #[test]
            fn verify_finds_each_planted_credential_and_the_scrubbed_cassette_replays() {
                super::check_recorder($recorder, $scenario);
            }
        }
    )*};
}

// HTTPretty keeps neither the gzip answer nor the 201 (`tests/recorders_new.rs`).
recorder_tests! {
    r_vcr: Recorder::RVcr, Scenario::leaky();
    responses: Recorder::Responses, Scenario::leaky();
    httpretty: Recorder::Httpretty, Scenario::leaky().without(&["token", "upload"]);
}

fn check_recorder(recorder: Recorder, scenario: Scenario) {
    let Some(mut recorded) = record(recorder, scenario) else {
        return;
    };
    let (format, cassette) = format_of(recorder);
    assert_eq!(recorded.cassettes(), [cassette]);
    let secrets = recorded.scenario.secrets.clone();
    for args in [
        &["verify", "--format", "json"][..],
        &["verify", "--format", "json", cassette],
    ] {
        let run = recorded.dir.vcr(args);
        let context = format!("{} ({args:?}):\n{}", recorder.name(), run.stdout);
        run.code(1);
        let doc = run.json();
        assert_eq!(doc["summary"]["http"][format], 1, "{context}");
        assert_eq!(doc["summary"]["files"], 1, "{context}");
        let findings = doc["findings"].as_array().unwrap();
        assert!(findings.iter().all(|f| f["id"] != "parse"), "{context}");
        for (label, parts) in places(recorder) {
            if !secrets.iter().any(|(l, _)| *l == label) {
                continue;
            }
            let found = findings.iter().any(|f| {
                let pointer = f["pointer"].as_str().unwrap_or("").to_ascii_lowercase();
                f["id"] == "leak/secret"
                    && f["line"].as_u64().is_some()
                    && parts.iter().all(|p| pointer.contains(p))
            });
            assert!(
                found,
                "no leak/secret for the {label} at {parts:?}: {context}"
            );
        }
        for (label, secret) in &secrets {
            assert!(
                !run.stdout.contains(secret.as_str()),
                "the {label} unmasked: {context}"
            );
        }
    }

    recorded.dir.vcr(&["normalize"]).code(0);
    let text = recorded.dir.read(cassette);
    for (label, secret) in &secrets {
        if places(recorder).iter().any(|(l, _)| l == label) {
            assert!(
                !text.contains(secret.as_str()),
                "the {label} is still in:\n{text}"
            );
        }
    }
    let doc = recorded.dir.vcr(&["verify", "--format", "json"]).json();
    assert!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["id"] != "leak/secret" && f["id"] != "parse"),
        "{doc:#}"
    );

    // The recorder replays what normalize wrote, the test sending the placeholders where
    // the recorder matches them (R's vcr and responses the URL), and every answer now as
    // the cassette holds it.
    sending_placeholders(&mut recorded);
    let run = replay(&recorded);
    assert_eq!(
        run.code,
        Some(0),
        "{} did not replay the scrubbed cassette:\nstdout:\n{}\nstderr:\n{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );
}

/// The scenario as a test sends and expects it once its cassette is scrubbed: each
/// credential its placeholder, in requests and answers alike.
fn sending_placeholders(recorded: &mut Recorded) {
    let secrets = recorded.scenario.secrets.clone();
    for exchange in &mut recorded.scenario.exchanges {
        for (place, secret) in &secrets {
            let placeholder = crate::http_scrub::placeholder_of(place);
            exchange.target = exchange.target.replace(secret.as_str(), placeholder);
            exchange.seen = exchange.seen.replace(secret.as_str(), placeholder);
            for (_, value) in exchange
                .headers
                .iter_mut()
                .chain(&mut exchange.reply.headers)
            {
                *value = value.replace(secret.as_str(), placeholder);
            }
            if let Some(body) = &mut exchange.body {
                *body = body.replace(secret.as_str(), placeholder);
            }
        }
    }
}

/// Discovery (issue 39): php-vcr's cassettes without an extension are found below
/// `tests/fixtures/` (and `test/fixtures/`), never elsewhere; govcr's `.cassette` and
/// httpreplay's `.replay` are sniffed like the others, and grpcreplay's binary `.replay`
/// is not taken for one; git's ignore rules apply to them as to every file, and
/// `--show-files` lists what `verify` reads.
#[test]
fn files_without_an_extension_and_new_extensions_are_discovered_as_the_others() {
    let t = TestDir::new();
    let php = |secret: &str| {
        format!(
            "\n-\n    request:\n        method: GET\n        url: 'https://api.example.com/v1/a?api_key={secret}'\n        headers:\n            Host: api.example.com\n    response:\n        status:\n            code: 200\n            message: OK\n        headers: {{  }}\n        body: ok\n        curl_info:\n            http_code: 200\n"
        )
    };
    let (found, elsewhere, ignored) = (planted_token(), planted_token(), planted_token());
    t.write("tests/fixtures/users/list", php(&found))
        .write("packages/api/test/fixtures/orders", php(&found))
        .write("docs/users-list", php(&elsewhere))
        .write("tests/fixtures/ignored", php(&ignored))
        .write("tests/fixtures/README", "How the fixtures were recorded.\n")
        .write(".gitignore", "tests/fixtures/ignored\n")
        .write(
            "testdata/TestOpen.replay",
            "{\"Initial\": \"AQ==\", \"Version\": \"0.2\", \"Converter\": {}, \"Entries\": null}",
        )
        .write(
            "testdata/TestGrpc.replay",
            b"RPCReplay\n\x00\x00\x01\x02binary".as_slice(),
        )
        .write(
            "govcr-fixtures/Empty.cassette",
            "{\"Name\": \"Empty\", \"Tracks\": []}",
        );
    common::git(&t.root, &["init", "-q"]);

    let listed = t.vcr(&["verify", "--show-files"]);
    listed.code(0);
    for file in [
        "tests/fixtures/users/list",
        "packages/api/test/fixtures/orders",
        "testdata/TestOpen.replay",
        "govcr-fixtures/Empty.cassette",
    ] {
        listed.stdout_has(file);
    }
    for file in [
        "docs/users-list",
        "tests/fixtures/ignored",
        "tests/fixtures/README",
        "TestGrpc.replay",
    ] {
        assert!(!listed.stdout.contains(file), "{file}:\n{}", listed.stdout);
    }

    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["php-vcr"], 2, "{doc:#}");
    assert_eq!(doc["summary"]["http"]["httpreplay"], 1, "{doc:#}");
    assert_eq!(doc["summary"]["http"]["govcr"], 1, "{doc:#}");
    assert_eq!(doc["summary"]["git_ignored"], 1, "{doc:#}");
    assert!(!run.stdout.contains(&elsewhere) && !run.stdout.contains(&found));
    let secrets = common::finding_paths(&doc, "leak/secret");
    assert_eq!(
        secrets,
        [
            "packages/api/test/fixtures/orders",
            "tests/fixtures/users/list"
        ],
        "{doc:#}"
    );
    // `--no-ignore` reads the ignored one; named, the one elsewhere is read too.
    let doc = t.vcr(&["verify", "--no-ignore", "--format", "json"]).json();
    assert_eq!(doc["summary"]["http"]["php-vcr"], 3, "{doc:#}");
    let doc = t
        .vcr(&["verify", "--format", "json", "docs/users-list"])
        .json();
    assert_eq!(doc["summary"]["http"]["php-vcr"], 1, "{doc:#}");
}

/// php-vcr's cassette path where a project moved it (issue 39): the folder its PHPUnit
/// bootstrap sets with `VCR::configure()->setCassettePath(...)`, found through the
/// `bootstrap` that `phpunit.xml.dist` names (`__DIR__ . '/http_data'`) and in
/// `tests/bootstrap.php` (a string literal, relative to the root), is searched for files
/// without an extension as `tests/fixtures/` is; without that call the same files are not
/// found, and a folder the call does not name is never searched.
#[test]
fn php_vcr_cassettes_are_found_where_the_phpunit_bootstrap_sets_the_cassette_path() {
    let php = |secret: &str| {
        format!(
            "\n-\n    request:\n        method: GET\n        url: 'https://api.example.com/v1/a?api_key={secret}'\n        headers:\n            Host: api.example.com\n    response:\n        status:\n            code: 200\n            message: OK\n        headers: {{  }}\n        body: ok\n"
        )
    };
    let t = TestDir::new();
    let (tape, literal, elsewhere) = (planted_token(), planted_token(), planted_token());
    t.write("src/Tests/http_data/claims/create", php(&tape))
        .write("var/stubs/orders", php(&literal))
        .write("var/other/users", php(&elsewhere));
    common::git(&t.root, &["init", "-q"]);
    let listed = t.vcr(&["verify", "--show-files"]);
    for file in ["claims/create", "var/stubs/orders", "var/other/users"] {
        assert!(!listed.stdout.contains(file), "{file}:\n{}", listed.stdout);
    }

    t.write(
        "phpunit.xml.dist",
        "<?xml version=\"1.0\"?>\n<phpunit bootstrap=\"./src/Tests/bootstrap.php\" colors=\"true\">\n</phpunit>\n",
    )
    .write(
        "src/Tests/bootstrap.php",
        "<?php\nrequire __DIR__ . '/../../vendor/autoload.php';\n\\VCR\\VCR::configure()\n    ->setCassettePath(__DIR__ . '/http_data')\n    ->enableLibraryHooks(['curl']);\n",
    )
    .write(
        "tests/bootstrap.php",
        "<?php\nVCR::configure()->setCassettePath('var/stubs');\n",
    );
    let listed = t.vcr(&["verify", "--show-files"]);
    listed.code(0);
    listed.stdout_has("src/Tests/http_data/claims/create");
    listed.stdout_has("var/stubs/orders");
    assert!(
        !listed.stdout.contains("var/other/users"),
        "{}",
        listed.stdout
    );
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["php-vcr"], 2, "{doc:#}");
    let secrets = common::finding_paths(&doc, "leak/secret");
    assert_eq!(
        secrets,
        ["src/Tests/http_data/claims/create", "var/stubs/orders"],
        "{doc:#}"
    );

    // `vcr diff --rev` compares them too: a re-recording whose status changed.
    common::git(&t.root, &["add", "-A"]);
    common::git(&t.root, &["commit", "-q", "-m", "recorded"]);
    let orders = t.read("var/stubs/orders");
    t.write("var/stubs/orders", orders.replace("code: 200", "code: 503"));
    let run = t.vcr(&["diff", "--rev", "HEAD", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    let changed: Vec<(&str, &str)> = doc["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "diff" && e["verdict"] != "identical")
        .map(|e| {
            (
                e["path"].as_str().unwrap_or(""),
                e["verdict"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        changed,
        [("var/stubs/orders", "behaviour_change")],
        "{doc:#}"
    );
}

/// A cassette govcr encrypted (`$ENC:V2$`) is said to be one, a warning: no `parse` error,
/// not linted as text (its ciphertext holds nothing readable), whether found or named.
#[test]
fn an_encrypted_govcr_cassette_is_reported_as_such() {
    let t = TestDir::new();
    let mut encrypted = b"$ENC:V2$".to_vec();
    encrypted.extend((0..200u32).map(|i| (i.wrapping_mul(151) % 251) as u8));
    t.write("govcr-fixtures/Secret.cassette", &encrypted);
    for args in [
        &["verify", "--format", "json"][..],
        &[
            "verify",
            "--format",
            "json",
            "govcr-fixtures/Secret.cassette",
        ],
    ] {
        let run = t.vcr(args);
        run.code(0);
        let doc = run.json();
        let findings = doc["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{doc:#}");
        assert_eq!(findings[0]["id"], "encrypted", "{doc:#}");
        assert_eq!(findings[0]["severity"], "warning", "{doc:#}");
        assert!(
            findings[0]["message"].as_str().unwrap().contains("govcr"),
            "{doc:#}"
        );
        assert_eq!(
            doc["summary"]["as_text"].as_u64().unwrap_or(0),
            0,
            "{doc:#}"
        );
    }
    // normalize leaves it alone.
    t.vcr(&["normalize", "--check"]).code(0);
    assert_eq!(
        std::fs::read(t.path("govcr-fixtures/Secret.cassette")).unwrap(),
        encrypted
    );
}

/// A cassette that does not read is a `parse` error only when its recorder's own markers
/// identify it (php-vcr's `curl_info`, ExVCR's `request_body`, OkReplay's `!tape`); what
/// the recorder loads is never one (ExVCR's jsx takes a trailing comma a hand edit left,
/// as edgurgel/tentacat's `issues/comments#filter_all.json` has), and a Vinyl file, which
/// nothing identifies, is linted as text when it does not read.
#[test]
fn a_broken_cassette_is_a_parse_error_only_when_its_recorder_is_identified() {
    let t = TestDir::new();
    t.write(
        "tests/fixtures/broken",
        "\n-\n    request:\n        method: GET\n        url: 'https://x/\n    response:\n        curl_info:\n            http_code: 200\n",
    )
    .write(
        "fixture/vcr_cassettes/comments#filter_all.json",
        "[\n  {\n    \"request\": {\n      \"body\": \"\",\n      \"headers\": {\n        \"User-agent\": \"tentacat\",\n        \"Authorization\": \"token yourtokencomeshere\",\n      },\n      \"method\": \"get\",\n      \"options\": [],\n      \"request_body\": \"\",\n      \"url\": \"https://api.github.com/issues/comments\"\n    },\n    \"response\": {\"body\": \"[]\", \"headers\": {}, \"status_code\": 200, \"type\": \"ok\"}\n  }\n]\n",
    )
    .write(
        "src/test/resources/okreplay/tapes/broken.yaml",
        "!tape\nname: broken\ninteractions:\n- recorded: 2012-10-21T14:04:39.797Z\n  request: [\n",
    )
    .write(
        "Recordings/testGET.json",
        "[{\"request\": {\"url\": \"http://localhost:8080/\", \"method\": \"GET\"}, \"response\": {\"url\": \"http://localhost:8080/\", \"status\": 200",
    );
    let doc = t
        .vcr(&[
            "verify",
            "--format",
            "json",
            "tests/fixtures/broken",
            "fixture/vcr_cassettes/comments#filter_all.json",
            "src/test/resources/okreplay/tapes/broken.yaml",
            "Recordings/testGET.json",
        ])
        .json();
    let parse: Vec<(&str, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "parse")
        .map(|f| (f["path"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(parse.len(), 2, "{doc:#}");
    assert!(
        parse[0].0 == "src/test/resources/okreplay/tapes/broken.yaml"
            && parse[0].1.contains("OkReplay"),
        "{parse:?}"
    );
    assert!(
        parse[1].0 == "tests/fixtures/broken" && parse[1].1.contains("php-vcr"),
        "{parse:?}"
    );
    assert_eq!(doc["summary"]["http"]["ExVCR"], 1, "{doc:#}");
    assert_eq!(doc["summary"]["as_text"], 1, "{doc:#}");
}

/// `vcr diff` reads these cassettes through the same readers: HTTPretty's file written
/// again with other indentation is the same recording; one answer changed is a difference.
#[test]
fn diff_reads_them_by_structure() {
    let Some(recorded) = record(
        Recorder::Httpretty,
        Scenario::leaky().without(&["token", "upload"]),
    ) else {
        return;
    };
    let text = recorded.dir.read("cassettes/leaky.json");
    let data: Value = serde_json::from_str(&text).unwrap();
    recorded
        .dir
        .write("again/leaky.json", serde_json::to_string(&data).unwrap());
    assert_ne!(recorded.dir.read("again/leaky.json"), text);
    let same = recorded
        .dir
        .vcr(&["diff", "cassettes/leaky.json", "again/leaky.json"]);
    same.code(0);
    recorded
        .dir
        .write("again/leaky.json", text.replace("system", "sistem"));
    let changed = recorded
        .dir
        .vcr(&["diff", "cassettes/leaky.json", "again/leaky.json"]);
    changed.code(1);
    changed.stdout_has("leaky.json");
}

/// `vcr prune` hears R's vcr say it found no recording: the run is partial, and prune
/// refuses, naming the cassette.
#[test]
fn prune_hears_r_vcr_miss() {
    let Some(recorded) = record(Recorder::RVcr, Scenario::leaky()) else {
        return;
    };
    // The `models` interaction (the first) recorded no more.
    let cassette = "tests/fixtures/leaky.yml";
    let text = recorded.dir.read(cassette);
    let first = text.find("\n- request:").unwrap();
    let second = first + 1 + text[first + 1..].find("\n- request:").unwrap();
    recorded
        .dir
        .write(cassette, format!("http_interactions:{}", &text[second..]));
    common::git(&recorded.dir.root, &["init", "-q"]);
    common::git(&recorded.dir.root, &["add", "-A"]);
    common::git(&recorded.dir.root, &["commit", "-qm", "cassettes"]);
    let harness = TestDir::new();
    harness.write(
        "scenario.json",
        recorded.scenario.to_json(&recorded.base_url),
    );
    let scenario = harness.path("scenario.json");
    let program = common::recorders::programs().join("r/r_vcr.R");
    let folder = recorded.dir.path("tests/fixtures");
    let run = recorded.dir.vcr(&[
        "prune",
        "--delete",
        "--",
        "Rscript",
        program.to_str().unwrap(),
        "replay",
        scenario.to_str().unwrap(),
        folder.to_str().unwrap(),
    ]);
    // The R program reports the miss and exits 1; the miss names the cassette.
    run.code(2)
        .stderr_has("looking for 1 cassette it did not find (tests/fixtures/leaky.yml)");
    assert!(recorded.dir.exists(cassette));
}
