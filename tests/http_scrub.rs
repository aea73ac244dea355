//! `vcr normalize` scrubs HTTP cassettes written by the real recorders, and replay still
//! passes (issue 10).
//!
//! Each recorder (vcrpy, pytest-recording, Ruby VCR + webmock, go-vcr, Polly, nock) records
//! the leaky scenario (`tests/common/scenario.rs`: credentials in request headers, a query
//! string, JSON request bodies, a gzip JSON response and a `Set-Cookie`) against the test's
//! server; `vcr normalize` scrubs it with the default set; then, with the server stopped, the
//! same program replays it in replay-only mode, set up as `normalize` told it to (the query
//! parameter the recorder matches by is filtered the same way), and checks every answer:
//! the scrubbed ones now hold placeholders. No credential may be left in any byte of the
//! tree, nor in any body once decoded (base64, gzip), and `vcr verify` must find none.
//!
//! A recorder that is not installed is skipped with a message on stderr, unless
//! `VCR_REQUIRE_RECORDERS=1` (CI).

use crate::common;

use std::io::Read as _;

use base64::Engine as _;
use common::loaders::{self, Loader};
use common::recorders::{Recorded, Recorder, record, replay_with};
use common::scenario::Scenario;
use serde_json::{Value, json};

macro_rules! scrub_tests {
    ($($module:ident: $recorder:expr;)*) => {$(
        mod $module {
            #[test]
            fn normalize_scrubs_and_replay_still_passes() {
                super::normalize_scrubs_and_replay_still_passes($recorder);
            }
        }
    )*};
}

scrub_tests! {
    vcrpy: super::Recorder::Vcrpy;
    pytest_recording: super::Recorder::PytestRecording;
    ruby_vcr: super::Recorder::RubyVcr;
    go_vcr: super::Recorder::GoVcr;
    polly: super::Recorder::Polly;
    nock: super::Recorder::Nock;
}

/// The placeholder the default set writes for each planted credential (by the name it is
/// judged by).
pub(crate) fn placeholder_of(place: &str) -> &'static str {
    match place {
        "Authorization header" => "REDACTED_AUTHORIZATION",
        "x-api-key header" => "REDACTED_X_API_KEY",
        "api_key query parameter" => "REDACTED_API_KEY",
        "password field" => "REDACTED_PASSWORD",
        "client_secret field" => "REDACTED_CLIENT_SECRET",
        "secret field beside app_id" => "REDACTED_SECRET",
        "access_token in the gzip response" => "REDACTED_ACCESS_TOKEN",
        "session cookie" => "REDACTED_SESSION",
        other => panic!("no placeholder for {other}"),
    }
}

fn normalize_scrubs_and_replay_still_passes(recorder: Recorder) {
    let Some(mut recorded) = record(recorder, Scenario::leaky()) else {
        return;
    };
    let secrets = recorded.scenario.secrets.clone();
    let query_key = &secrets
        .iter()
        .find(|(place, _)| *place == "api_key query parameter")
        .unwrap()
        .1;

    let loader = match recorder {
        Recorder::Vcrpy | Recorder::PytestRecording | Recorder::PytestVcr => Loader::PyYaml,
        Recorder::RubyVcr => Loader::Psych,
        Recorder::GoVcr => Loader::GoYaml,
        Recorder::Polly | Recorder::Nock => Loader::Json,
        Recorder::Talkback => unreachable!("no loader reads talkback's JSON5 tapes"),
        Recorder::RVcr | Recorder::Responses | Recorder::Httpretty => unreachable!(
            "tests/http_named_readers.rs scrubs {}'s cassettes",
            recorder.name()
        ),
        Recorder::WireMock | Recorder::Mountebank => {
            unreachable!("vcr reads no {} cassette yet", recorder.name())
        }
    };
    let cassette_paths: Vec<std::path::PathBuf> = recorded
        .cassettes()
        .iter()
        .map(|rel| recorded.dir.path(rel))
        .collect();
    let loaded_before = loaders::load_all(loader, &cassette_paths);
    // `verify` finds the credentials and `normalize --check` agrees that it would change.
    recorded.dir.vcr(&["verify"]).code(1);
    recorded.dir.vcr(&["normalize", "--check"]).code(1);
    let run = recorded.dir.vcr(&["normalize", "--format", "json"]);
    run.code(0);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    let events = out["events"].as_array().unwrap();
    let scrubbed: Vec<&Value> = events.iter().filter(|e| e["type"] == "scrubbed").collect();
    assert!(
        scrubbed
            .iter()
            .all(|e| e["written"] == true && e["line"].as_u64().unwrap() > 0),
        "{events:#?}"
    );
    assert!(out["summary"]["replaced"].as_u64().unwrap() >= 6, "{out:#}");
    // The query parameter is what vcrpy, Ruby VCR, go-vcr and nock match requests by: the
    // run says so, with the setting that makes the test match again. Polly finds entries
    // by the `_id` of the live request, which scrubbing does not change.
    let affected: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .collect();
    if recorder == Recorder::Polly {
        assert!(
            affected
                .iter()
                .all(|e| e["setting"].as_str().unwrap().starts_with("nothing")),
            "{affected:#?}"
        );
    } else if recorder == Recorder::Nock {
        // nock matches bodies too: the token request's body was scrubbed.
        let whats: Vec<&str> = affected
            .iter()
            .map(|e| e["what"].as_str().unwrap())
            .collect();
        assert_eq!(
            whats,
            ["query parameter `api_key`", "request body"],
            "{events:#?}"
        );
    } else {
        assert_eq!(affected.len(), 1, "{events:#?}");
        assert_eq!(affected[0]["what"], "query parameter `api_key`");
        assert_eq!(affected[0]["interaction"], 0);
        let expected = match recorder {
            Recorder::Vcrpy | Recorder::PytestRecording | Recorder::PytestVcr => {
                "filter_query_parameters"
            }
            Recorder::RubyVcr => "filter_sensitive_data(\"REDACTED_API_KEY\")",
            Recorder::GoVcr => "SetMatcher",
            Recorder::Nock => "filteringPath",
            Recorder::Polly
            | Recorder::Talkback
            | Recorder::WireMock
            | Recorder::RVcr
            | Recorder::Mountebank
            | Recorder::Responses
            | Recorder::Httpretty => unreachable!(),
        };
        assert!(
            affected[0]["setting"].as_str().unwrap().contains(expected),
            "{affected:#?}"
        );
    }

    // The recorder's own loader reads exactly the data it read before, but for the values
    // replaced (bodies compared once decoded: base64, gzip, JSON).
    if let Some(before) = loaded_before {
        let after = loaders::load_all(loader, &cassette_paths).unwrap();
        let subs: Vec<(String, String)> = secrets
            .iter()
            .map(|(place, secret)| (secret.clone(), placeholder_of(place).to_owned()))
            .collect();
        for ((before, after), path) in before.iter().zip(&after).zip(&cassette_paths) {
            let (before, after) = (before.as_ref().unwrap(), after.as_ref().unwrap());
            if let Err(e) = same_but_replaced(before, after, &subs, "") {
                panic!(
                    "{}: {} reads {} differently after the scrub: {e}",
                    recorder.name(),
                    loader.name(),
                    path.display()
                );
            }
        }
    }
    // No credential left in any byte, nor in any decoded body.
    for (rel, bytes) in recorded.dir.files("") {
        if !rel.contains("cassettes/") {
            continue;
        }
        let texts = decoded_texts(&bytes);
        for (place, secret) in &secrets {
            for text in &texts {
                assert!(
                    !text.contains(secret.as_str()),
                    "{}: the {place} is still in {rel}:\n{text}",
                    recorder.name()
                );
            }
        }
    }
    let verify = recorded.dir.vcr(&["verify", "--format", "json"]);
    let report: Value = serde_json::from_str(&verify.stdout).unwrap();
    let secrets_found: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "leak/secret")
        .collect();
    assert!(secrets_found.is_empty(), "{secrets_found:#?}");
    // `normalize --check` agrees: nothing more to scrub.
    recorded.dir.vcr(&["normalize", "--check"]).code(0);

    if recorder == Recorder::Nock {
        // nock's replay would need `filteringRequestBody` for the scrubbed body it matches;
        // the issue's replay proof covers vcrpy, pytest-recording, Ruby VCR, go-vcr, Polly.
        return;
    }
    // Replay-only, server stopped: the answers now hold the placeholders.
    for exchange in &mut recorded.scenario.exchanges {
        for (place, secret) in &secrets {
            exchange.seen = exchange
                .seen
                .replace(secret.as_str(), placeholder_of(place));
            for (_, value) in &mut exchange.reply.headers {
                *value = value.replace(secret.as_str(), placeholder_of(place));
            }
        }
    }
    let filters = json!({
        "query": [["api_key", "REDACTED_API_KEY"]],
        "sensitive": [["REDACTED_API_KEY", query_key]],
    });
    let run = replay_with(&recorded, filters);
    assert_eq!(
        run.code,
        Some(0),
        "{} did not replay the scrubbed cassette:\nstdout:\n{}\nstderr:\n{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );
    let _ = &mut recorded;
}

/// Whether `after` is `before` with each (secret, placeholder) of `subs` replaced, and
/// nothing else changed but lengths (`Content-Length`): strings compared as they are, else
/// as JSON, else as base64 or hex (gunzipped when gzip) decoded.
fn same_but_replaced(
    before: &Value,
    after: &Value,
    subs: &[(String, String)],
    path: &str,
) -> Result<(), String> {
    let differ = || Err(format!("{path}: {before} became {after}"));
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            if a.len() != b.len() || a.keys().zip(b.keys()).any(|(x, y)| x != y) {
                return differ();
            }
            // HAR's `{name, value}` headers: the name says what the value is.
            let named = match a.get("name").and_then(Value::as_str) {
                Some(name) => format!("{path}[{name}]"),
                None => path.to_owned(),
            };
            for (key, value) in a {
                same_but_replaced(value, &b[key], subs, &format!("{named}/{key}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return differ();
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same_but_replaced(x, y, subs, &format!("{path}/{i}"))?;
            }
            Ok(())
        }
        (Value::String(a), Value::String(b)) => {
            if same_text(a.as_bytes(), b.as_bytes(), subs)
                || (path.to_ascii_lowercase().contains("length")
                    && a.parse::<u64>().is_ok()
                    && b.parse::<u64>().is_ok())
            {
                Ok(())
            } else {
                differ()
            }
        }
        _ if before == after => Ok(()),
        (Value::Number(_), Value::Number(_)) if path.to_ascii_lowercase().contains("length") => {
            Ok(())
        }
        _ => differ(),
    }
}

fn same_text(a: &[u8], b: &[u8], subs: &[(String, String)]) -> bool {
    let mut replaced = String::from_utf8_lossy(a).into_owned();
    for (secret, placeholder) in subs {
        replaced = replaced.replace(secret.as_str(), placeholder);
    }
    if replaced.as_bytes() == b {
        return true;
    }
    if let (Ok(x), Ok(y)) = (
        serde_json::from_slice::<Value>(a),
        serde_json::from_slice::<Value>(b),
    ) && (x.is_object() || x.is_array())
    {
        return same_but_replaced(&x, &y, subs, "(json)").is_ok();
    }
    let unwrap = |bytes: &[u8]| -> Option<Vec<u8>> {
        let text = std::str::from_utf8(bytes).ok()?;
        let compact: String = text.split_whitespace().collect();
        let decoded =
            if compact.len().is_multiple_of(2) && compact.bytes().all(|c| c.is_ascii_hexdigit()) {
                (0..compact.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&compact[i..i + 2], 16).ok())
                    .collect::<Option<Vec<u8>>>()?
            } else {
                base64::engine::general_purpose::STANDARD
                    .decode(&compact)
                    .ok()?
            };
        if decoded.starts_with(&[0x1f, 0x8b]) {
            let mut inflated = Vec::new();
            flate2::read::MultiGzDecoder::new(&decoded[..])
                .read_to_end(&mut inflated)
                .ok()?;
            return Some(inflated);
        }
        Some(decoded)
    };
    match (unwrap(a), unwrap(b)) {
        (Some(x), Some(y)) if x != a || y != b => same_text(&x, &y, subs),
        _ => false,
    }
}

/// The file's text, and every body hidden in it decoded: base64 runs (`!!binary`,
/// `base64_string`, HAR base64, Polly's chunks), hex runs (nock), each gunzipped when gzip.
pub(crate) fn decoded_texts(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut out = vec![text.clone()];
    let mut blobs: Vec<Vec<u8>> = Vec::new();
    // Base64, possibly wrapped over lines (a YAML block, a folded quoted scalar ending in
    // `\`): a line of base64 alone continues the run the line before ended with.
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || "+/=".contains(c);
    let mut runs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line
            .trim()
            .trim_start_matches("- ")
            .trim_matches(|c| c == '"' || c == '\'')
            .trim_end_matches('\\');
        if !trimmed.is_empty() && trimmed.chars().all(is_b64) {
            current.push_str(trimmed);
            continue;
        }
        runs.push(std::mem::take(&mut current));
        let tokens: Vec<&str> = trimmed.split(|c: char| !is_b64(c)).collect();
        runs.extend(tokens.iter().map(|t| (*t).to_owned()));
        current = tokens.last().map(|t| (*t).to_owned()).unwrap_or_default();
    }
    runs.push(current);
    for run in runs {
        if run.len() >= 16
            && let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(&run)
        {
            blobs.push(decoded);
        }
    }
    for run in text.split(|c: char| !c.is_ascii_hexdigit()) {
        if run.len() >= 16 && run.len().is_multiple_of(2) {
            let bytes: Vec<u8> = (0..run.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&run[i..i + 2], 16).unwrap())
                .collect();
            blobs.push(bytes);
        }
    }
    for blob in blobs {
        if blob.starts_with(&[0x1f, 0x8b]) {
            let mut inflated = Vec::new();
            if flate2::read::MultiGzDecoder::new(&blob[..])
                .read_to_end(&mut inflated)
                .is_ok()
            {
                out.push(String::from_utf8_lossy(&inflated).into_owned());
            }
        } else {
            out.push(String::from_utf8_lossy(&blob).into_owned());
        }
    }
    out
}

/// Every recorder's cassette of the leaky scenario holds the gzip body that the scrub must
/// re-encode: a sanity check of what the test decodes, on the unscrubbed cassette.
#[test]
fn the_decoder_of_this_test_finds_the_gzip_token() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::leaky()) else {
        return;
    };
    let github = &recorded
        .scenario
        .secrets
        .iter()
        .find(|(place, _)| place.contains("gzip"))
        .unwrap()
        .1;
    let files = recorded.dir.files("");
    let (_, bytes) = files
        .iter()
        .find(|(rel, _)| rel.contains("cassettes/"))
        .unwrap();
    assert!(!String::from_utf8_lossy(bytes).contains(github.as_str()));
    assert!(
        decoded_texts(bytes)
            .iter()
            .any(|t| t.contains(github.as_str()))
    );
    let _: &Recorded = &recorded;
}

/// `[http.scrub]` rules replace what they name, with the default set turned off: a header
/// (requests and responses), a query parameter (encoded as the URL needs), a body field by
/// JSON pointer in a JSON request body, a field by name; a user `[[rule]]` applies to decoded
/// body texts; nothing else changes (the credentials the defaults would take stay).
#[test]
fn scrub_rules_replace_what_they_name() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::leaky()) else {
        return;
    };
    let t = &recorded.dir;
    t.write(
        "vcr.toml",
        r#"
[http.scrub]
defaults = false
headers = ["x-api-key"]
query = [{ name = "page", replacement = "<PAGE 9>" }]
fields = ["/username", { name = "purpose", replacement = "PURPOSE" }]

[[rule]]
id = "region"
literal = "q3-revenue"
replace = "[REPORT]"
"#,
    );
    let before = t.read("cassettes/leaky.yaml");
    let run = t.vcr(&["normalize"]);
    run.code(0);
    let after = t.read("cassettes/leaky.yaml");
    let secrets = &recorded.scenario.secrets;
    let secret = |place: &str| &secrets.iter().find(|(p, _)| *p == place).unwrap().1;
    assert!(after.contains("REDACTED_X_API_KEY"), "{after}");
    assert!(!after.contains(secret("x-api-key header").as_str()));
    assert!(after.contains("page=%3CPAGE%209%3E"), "{after}");
    assert!(after.contains("REDACTED_USERNAME"), "{after}");
    assert!(!after.contains(r#"\"username\": \"dana\""#), "{after}");
    assert!(after.contains("PURPOSE"), "{after}");
    assert!(after.contains("[REPORT]"), "{after}");
    // The defaults are off: the bearer token and the query key stay.
    assert!(after.contains(secret("Authorization header").as_str()));
    assert!(after.contains(secret("api_key query parameter").as_str()));
    // Each change is reported by its rule.
    for rule in [
        "header x-api-key",
        "query page",
        "field /username",
        "field purpose",
        "rule region",
    ] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.contains("scrubbed") && l.contains(rule)),
            "{rule}:\n{}",
            run.stdout
        );
    }
    // Only the scalars that changed did: the lines of the file outside them are the same.
    let unchanged = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.contains("x-api-key") && !l.contains("uri:") && !l.contains("body:"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(before.lines().count(), after.lines().count());
    assert_eq!(unchanged(&before).len(), unchanged(&after).len());
    // Run again: nothing left to change.
    t.vcr(&["normalize", "--check"]).code(0);
}

/// A configuration that names nothing usable is an error naming the key; an unknown key too.
#[test]
fn bad_scrub_configuration_is_an_error_naming_the_key() {
    let t = common::TestDir::new();
    t.write("cassettes/a.yaml", "interactions: []\nversion: 1\n");
    t.write("vcr.toml", "[http.scrub]\nheaders = [\"\"]\n");
    let run = t.vcr(&["normalize"]);
    run.code(2);
    assert!(
        run.stderr.contains("`http.scrub.headers[0]`"),
        "{}",
        run.stderr
    );
    t.write("vcr.toml", "[http.scrub]\nheader = [\"x\"]\n");
    let run = t.vcr(&["normalize"]);
    run.code(2);
    assert!(run.stderr.contains("header"), "{}", run.stderr);
}

/// A cassette that does not read whole is never rewritten: it is a `parse` error with its
/// line, and its bytes stay.
#[test]
fn an_unreadable_cassette_is_never_rewritten() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::leaky()) else {
        return;
    };
    let t = &recorded.dir;
    let mut text = t.read("cassettes/leaky.yaml");
    text.push_str("- request: [unclosed\n");
    t.write("cassettes/leaky.yaml", &text);
    let run = t.vcr(&["normalize"]);
    run.code(2);
    assert!(
        run.stderr.contains("cassettes/leaky.yaml:"),
        "{}",
        run.stderr
    );
    assert_eq!(t.read("cassettes/leaky.yaml"), text);
}

/// A scrub killed halfway leaves each cassette either as it was or scrubbed whole (each is
/// written to a temporary file beside it and renamed), and the next run finishes the job.
#[test]
fn a_killed_scrub_leaves_whole_files_and_the_next_run_finishes() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::leaky()) else {
        return;
    };
    let t = &recorded.dir;
    let original = t.read("cassettes/leaky.yaml");
    for i in 0..4 {
        t.write(&format!("cassettes/copy{i}.yaml"), &original);
    }
    t.vcr(&["normalize", "cassettes/copy0.yaml"]).code(0);
    let scrubbed = t.read("cassettes/copy0.yaml");
    assert_ne!(scrubbed, original);
    t.write("cassettes/copy0.yaml", &original);
    // Each file takes two steps (its temporary file, its rename): six steps let one to three
    // files through whatever order the threads take, then the run is killed.
    let crashed = t.vcr_with(&["normalize"], &[("VCR_FAULT_KILL_AFTER", "6")]);
    assert_ne!(crashed.code, Some(0), "the fault hook kills the run");
    let files = t.files("cassettes");
    let mut done = 0;
    // Temporary files of the writes the kill cut short may be there; the next run removes
    // them.
    let cassettes: Vec<_> = files
        .iter()
        .filter(|(rel, _)| !rel.contains(".vcr-"))
        .collect();
    assert_eq!(cassettes.len(), 5);
    for (rel, bytes) in &cassettes {
        let text = String::from_utf8((*bytes).clone()).unwrap();
        assert!(
            text == original || text == scrubbed,
            "{rel} is neither the original nor the scrubbed cassette"
        );
        done += usize::from(text == scrubbed);
    }
    assert!(
        done >= 1 && done < cassettes.len(),
        "{done} of {} scrubbed",
        cassettes.len()
    );
    // A temporary file a killed write left (planted, since whether the kill left one depends
    // on the threads) is removed by the next run, even among HTTP cassettes.
    t.write("cassettes/.vcr-tmp-planted", "half a cassette");
    t.vcr(&["normalize"]).code(0);
    let files = t.files("cassettes");
    assert_eq!(
        files.len(),
        5,
        "only the cassettes are left: {:?}",
        files.keys()
    );
    for (rel, bytes) in files {
        assert_eq!(String::from_utf8(bytes).unwrap(), scrubbed, "{rel}");
    }
}

/// A credential where no rewrite reaches (a whole-line YAML comment, which `verify` scans) is
/// an error naming where it is, after the rest of the cassette was scrubbed and written.
#[test]
fn a_credential_the_scrub_cannot_reach_is_an_error_after_the_rest_is_written() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::leaky()) else {
        return;
    };
    let t = &recorded.dir;
    let openai = &recorded.scenario.secrets[0].1;
    let text = format!(
        "# pasted by hand: {openai}\n{}",
        t.read("cassettes/leaky.yaml")
    );
    t.write("cassettes/leaky.yaml", &text);
    let run = t.vcr(&["normalize"]);
    run.code(2);
    assert!(
        run.stderr
            .contains("a credential is still there after the scrub"),
        "{}",
        run.stderr
    );
    let after = t.read("cassettes/leaky.yaml");
    assert!(after.starts_with(&format!("# pasted by hand: {openai}\n")));
    // Everything else was scrubbed: the bearer header holds the placeholder.
    assert!(after.contains("Bearer REDACTED_AUTHORIZATION"), "{after}");
    let query_key = &recorded.scenario.secrets[2].1;
    assert!(!after.contains(query_key.as_str()));
}

/// `vcr normalize` over a copy of the corpus: every cassette with a credential `verify`
/// reports is scrubbed, each changed file still reads (in vcr, and in its recorder's own
/// loader where one is installed) as the same data but for values now holding a placeholder,
/// and `verify` then finds no credential. Prints what it replaced, per rule.
#[test]
fn normalize_over_the_corpus() {
    let Some(corpus) = common::corpus("") else {
        return;
    };
    let t = common::TestDir::new();
    copy_tree(&corpus, &t.root);
    t.write(
        "vcr.toml",
        "[http]\ncassettes = [\"**/*.yaml\", \"**/*.yml\", \"**/*.json\", \"**/*.har\", \"**/*.httprr\", \"**/*.gz\", \"**/*.json5\"]\n",
    );
    let run = t.vcr(&["normalize", "--format", "json"]);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    let events = out["events"].as_array().unwrap();
    // The one file that does not parse (talkback's own test of a broken tape) is an error,
    // left as it was; and so is a kubeconfig's token inside base64 (a layer the scrub does
    // not write back), reported for a person to remove.
    let errors: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "file_error")
        .collect();
    assert!(
        errors.iter().all(|e| {
            let path = e["path"].as_str().unwrap();
            (e["id"] == "parse" && path.ends_with("malformed-tape.json"))
                || (e["id"] == "scrub"
                    && path.ends_with("test-get-kubeconfig-legacy.cassette.yaml")
                    && e["message"]
                        .as_str()
                        .unwrap()
                        .contains("where vcr cannot rewrite it"))
        }),
        "{errors:#?}"
    );
    let changed: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "normalized")
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(!changed.is_empty());
    let mut per_rule = std::collections::BTreeMap::<String, usize>::new();
    for e in events.iter().filter(|e| e["type"] == "scrubbed") {
        for rule in e["rule"].as_str().unwrap().split(", ") {
            *per_rule.entry(rule.to_owned()).or_default() += 1;
        }
    }
    // Each changed file loads in its recorder's loader as before, but for placeholders.
    let mut by_loader = std::collections::BTreeMap::<&str, Vec<&str>>::new();
    for rel in &changed {
        let text = std::fs::read_to_string(corpus.join(rel)).unwrap_or_default();
        let loader = if rel.ends_with(".json") || rel.ends_with(".har") {
            Some(Loader::Json)
        } else if text.contains("http_interactions") {
            Some(Loader::Psych)
        } else if text.contains("proto_major") || text.contains("\n    url: ") {
            Some(Loader::GoYaml)
        } else if text.contains("interactions:") {
            Some(Loader::PyYaml)
        } else {
            None
        };
        let name = loader.map_or("(vcr only)", Loader::name);
        by_loader.entry(name).or_default().push(rel);
    }
    for (name, rels) in &by_loader {
        let Some(loader) = Loader::ALL.into_iter().find(|l| l.name() == *name) else {
            continue;
        };
        let before_paths: Vec<_> = rels.iter().map(|r| corpus.join(r)).collect();
        let after_paths: Vec<_> = rels.iter().map(|r| t.path(r)).collect();
        let (Some(before), Some(after)) = (
            loaders::load_all(loader, &before_paths),
            loaders::load_all(loader, &after_paths),
        ) else {
            continue;
        };
        for ((b, a), rel) in before.iter().zip(&after).zip(rels) {
            let (b, a) = (b.as_ref().unwrap(), a.as_ref().unwrap());
            if let Err(e) = same_but_placeholders(b, a, "") {
                panic!("{name} reads {rel} differently after the scrub: {e}");
            }
        }
    }
    let verify = t.vcr(&["verify", "--format", "json"]);
    let report: Value = serde_json::from_str(&verify.stdout).unwrap();
    let left: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "leak/secret")
        // What sits in a layer the scrub does not write back is reported above instead.
        .filter(|f| {
            !f["message"]
                .as_str()
                .unwrap()
                .contains("in a layer it encodes")
        })
        .collect();
    assert!(left.is_empty(), "{left:#?}");
    eprintln!(
        "corpus: {} files read, {} changed, {} values replaced, {} the recorder matches by",
        out["summary"]["files"],
        out["summary"]["written"],
        out["summary"]["replaced"],
        out["summary"]["replay_affected"]
    );
    for (rule, n) in &per_rule {
        eprintln!("  {n:4}  {rule}");
    }
    for (name, rels) in &by_loader {
        eprintln!("  loaded by {name}: {} changed files", rels.len());
    }
}

/// Like [`same_but_replaced`] when the replaced values are not known: a string may differ
/// only where the new one holds a placeholder (decoded bodies compared likewise).
fn same_but_placeholders(before: &Value, after: &Value, path: &str) -> Result<(), String> {
    match (before, after) {
        (Value::String(a), Value::String(b)) if a != b => {
            let length = path.to_ascii_lowercase().contains("length") && b.parse::<u64>().is_ok();
            if b.contains("REDACTED_") || placeholder_in_decoded(b) || length {
                Ok(())
            } else {
                Err(format!("{path}: {a:?} became {b:?}"))
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            if a.keys().ne(b.keys()) {
                return Err(format!("{path}: other keys"));
            }
            let named = match a.get("name").and_then(Value::as_str) {
                Some(name) => format!("{path}[{name}]"),
                None => path.to_owned(),
            };
            for (key, value) in a {
                // go-vcr's own length follows its body: it may change, to the new length.
                if key == "content_length" && value != &b[key] {
                    let body = b.get("body").and_then(Value::as_str).map(str::len);
                    if body.is_some_and(|n| b[key].as_u64() == Some(n as u64)) {
                        continue;
                    }
                    return Err(format!(
                        "{named}/{key}: {value} became {}, not the body's length",
                        b[key]
                    ));
                }
                same_but_placeholders(value, &b[key], &format!("{named}/{key}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same_but_placeholders(x, y, &format!("{path}/{i}"))?;
            }
            Ok(())
        }
        _ if before == after => Ok(()),
        _ => Err(format!("{path}: {before} became {after}")),
    }
}

/// Whether a base64 body (gzip or not) holds a placeholder once decoded.
fn placeholder_in_decoded(text: &str) -> bool {
    let compact: String = text.split_whitespace().collect();
    decoded_texts(compact.as_bytes())
        .iter()
        .any(|t| t.contains("REDACTED_"))
}

/// Copies a folder tree (regular files only).
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The file at `path` inflated by Python's `gzip` module, a reader vcr shares no code with
/// (it checks the CRC and size trailer as Go's `gzip.Reader` does); `None` when it is not
/// gzip or does not inflate.
fn gunzip_with_python(path: &std::path::Path) -> Option<Vec<u8>> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())",
        ])
        .arg(path)
        .output()
        .expect("python3 runs");
    out.status.success().then_some(out.stdout)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, bytes).unwrap();
    encoder.finish().unwrap()
}

/// Regression (issue 25): a scrubbed `.httprr.gz` was written back as plain text under its
/// `.gz` name, which Go's httprr opens with a gzip reader and cannot replay. It is written
/// back compressed, its record lengths true for the new bytes.
#[test]
fn a_scrubbed_httprr_gz_stays_gzip_with_true_lengths() {
    let t = common::TestDir::new();
    let request = "GET http://api.example.com/v1/models HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH\r\n\r\n";
    let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
    let trace = format!(
        "httprr trace v1\n{} {}\n{request}{response}",
        request.len(),
        response.len()
    );
    t.write("testdata/models.httprr.gz", gzip(trace.as_bytes()));
    t.vcr(&["verify"]).code(1).stdout_has("leak/secret");
    t.vcr(&["normalize"]).code(0);

    let inflated = gunzip_with_python(&t.path("testdata/models.httprr.gz"))
        .expect("the scrubbed .httprr.gz is gzip");
    let text = String::from_utf8(inflated).unwrap();
    assert!(!text.contains("sk-proj-"), "{text}");
    // The trace as httprr reads it: the magic line, `N M`, then exactly N + M bytes.
    let rest = text.strip_prefix("httprr trace v1\n").expect("magic line");
    let (lengths, records) = rest.split_once('\n').unwrap();
    let (n, m) = lengths.split_once(' ').unwrap();
    let (n, m): (usize, usize) = (n.parse().unwrap(), m.parse().unwrap());
    assert_eq!(records.len(), n + m, "{text}");
    assert!(records[..n].starts_with("GET ") && records[..n].ends_with("\r\n\r\n"));
    assert_eq!(&records[n..], response);
    t.vcr(&["verify"]).code(0);
}

/// The same for a vcrpy `.yaml.gz` (langchain-aws's persister gzips vcrpy's YAML): the
/// cassette real vcrpy recorded, gzipped, scrubbed, is still gzip that PyYAML loads, with no
/// credential left.
#[test]
fn a_scrubbed_yaml_gz_stays_gzip_and_loads() {
    let Some(recorded) = record(Recorder::Vcrpy, Scenario::leaky()) else {
        return;
    };
    let t = &recorded.dir;
    let plain = t.path("cassettes/leaky.yaml");
    let gz = t.path("cassettes/leaky.yaml.gz");
    std::fs::write(&gz, gzip(&std::fs::read(&plain).unwrap())).unwrap();
    std::fs::remove_file(&plain).unwrap();
    t.vcr(&["normalize"]).code(0);
    let inflated = gunzip_with_python(&gz).expect("the scrubbed .yaml.gz is gzip");
    let text = String::from_utf8(inflated).unwrap();
    for (place, secret) in &recorded.scenario.secrets {
        assert!(!text.contains(secret.as_str()), "{place} left in:\n{text}");
    }
    let loaded = common::TestDir::new();
    loaded.write("leaky.yaml", &text);
    if let Some(doc) = loaders::load(Loader::PyYaml, &loaded.path("leaky.yaml")) {
        assert!(
            doc["interactions"]
                .as_array()
                .is_some_and(|i| !i.is_empty())
        );
    }
    // The scrub replaces credentials; the scenario's home paths are left for review.
    let run = t.vcr(&["verify"]);
    assert!(!run.stdout.contains("leak/secret"), "{}", run.stdout);
}

/// Regression (issue 25): a compressed cassette that does not inflate (cut short, garbage
/// after it, a wrong size or checksum trailer, past the 64 MiB vcr reads) was "checked 1
/// file: 0 errors". Each is a `parse` error that says why, what did inflate is still
/// scanned, `normalize` leaves it as it is, and none is called "linted as text".
#[test]
fn a_compressed_cassette_that_does_not_inflate_is_an_error() {
    let yaml = "interactions:\n- request:\n    body: null\n    headers:\n      Authorization:\n      - Bearer sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH\n    method: GET\n    uri: https://api.example.com/v1/models\n  response:\n    body:\n      string: '{}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n";
    let whole = gzip(yaml.as_bytes());
    let mut wrong_size = whole.clone();
    *wrong_size.last_mut().unwrap() ^= 0xff;
    let mut garbage = whole.clone();
    garbage.extend_from_slice(b"garbage!");
    let mut bomb = yaml.as_bytes().to_vec();
    bomb.resize(yaml.len() + (65 << 20), b' ');
    let cases = [
        (
            "cut.yaml.gz",
            whole[..whole.len() - 12].to_vec(),
            "does not inflate",
        ),
        ("garbage.yaml.gz", garbage, "does not inflate"),
        ("size.yaml.gz", wrong_size, "does not inflate"),
        ("bomb.yaml.gz", gzip(&bomb), "inflates past 64 MiB"),
    ];
    let t = common::TestDir::new();
    for (name, bytes, _) in &cases {
        t.write(&format!("cassettes/{name}"), bytes);
    }
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    for (name, _, why) in &cases {
        let rel = format!("cassettes/{name}");
        let of_file: Vec<&Value> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["path"] == rel.as_str())
            .collect();
        assert!(
            of_file
                .iter()
                .any(|e| e["id"] == "parse" && e["message"].as_str().unwrap().contains(why)),
            "{rel}: {of_file:#?}"
        );
        // What inflated before the problem still shows the key.
        assert!(
            of_file.iter().any(|e| e["id"] == "leak/secret"),
            "{rel}: {of_file:#?}"
        );
    }
    assert_eq!(
        doc["summary"]["as_text"].as_u64().unwrap_or(0),
        0,
        "{doc:#}"
    );
    let before = t.files("cassettes");
    t.vcr(&["normalize"])
        .code(2)
        .stderr_has("a compressed cassette vcr cannot read");
    assert!(t.files("cassettes") == before, "normalize rewrote one");
}

/// Regression (issue 25): a PEM private key found in a body kept its whole body after the
/// scrub; only the `BEGIN` line was replaced. The block is replaced to its `END` line, in
/// a text body and in JSON inside a body string alike.
#[test]
fn a_private_key_is_scrubbed_whole() {
    let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\n";
    let cassette = |body: &str| {
        format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/v1/keys\n  response:\n    body:\n      string: {}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
            serde_json::to_string(body).unwrap()
        )
    };
    let t = common::TestDir::new();
    t.write(
        "cassettes/text.yaml",
        cassette(&format!("the deploy key: {key}")),
    )
    .write(
        "cassettes/json.yaml",
        cassette(&json!({"note": "deploy key", "data": key}).to_string()),
    );
    t.vcr(&["verify"])
        .code(1)
        .stdout_has("a private key leaked");
    t.vcr(&["normalize"]).code(0);
    for rel in ["cassettes/text.yaml", "cassettes/json.yaml"] {
        let text = t.read(rel);
        for line in key.lines() {
            assert!(!text.contains(line), "{rel} keeps `{line}`:\n{text}");
        }
        assert!(text.contains("REDACTED_PRIVATE_KEY"), "{text}");
    }
    t.vcr(&["verify"]).code(0);
}

/// Regression (issue 25): go-vcr's own `content_length` stayed at the old length after the
/// scrub changed a body (as `Content-Length` did not). Both say the new length, and
/// `content_length` stays a number, which go-vcr reads into an `int64` (yaml.v2 is the
/// oracle).
#[test]
fn go_vcr_content_length_says_the_scrubbed_length() {
    let body = r#"{"token":"sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"}"#;
    let n = body.len();
    let cassette = format!(
        "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    proto: HTTP/1.1\n    content_length: {n}\n    host: api.example.com\n    body: '{body}'\n    form: {{}}\n    headers:\n      Content-Type:\n      - application/json\n    url: https://api.example.com/v1/login\n    method: POST\n  response:\n    proto: HTTP/1.1\n    content_length: {n}\n    uncompressed: false\n    body: '{body}'\n    headers:\n      Content-Length:\n      - \"{n}\"\n    status: 200 OK\n    code: 200\n    duration: 1ms\n"
    );
    let t = common::TestDir::new();
    t.write("fixtures/login.yaml", &cassette);
    t.vcr(&["normalize"]).code(0);
    let text = t.read("fixtures/login.yaml");
    assert!(!text.contains("sk-proj-"), "{text}");
    let Some(doc) = loaders::load(Loader::GoYaml, &t.path("fixtures/login.yaml")) else {
        return;
    };
    let interaction = &doc["interactions"][0];
    for side in ["request", "response"] {
        let scrubbed = interaction[side]["body"].as_str().unwrap();
        assert_ne!(scrubbed.len(), n);
        assert_eq!(
            interaction[side]["content_length"],
            json!(scrubbed.len()),
            "{side}: {text}"
        );
    }
    assert_eq!(
        interaction["response"]["headers"]["Content-Length"][0],
        json!(
            interaction["response"]["body"]
                .as_str()
                .unwrap()
                .len()
                .to_string()
        )
    );
}

/// Regression (issue 25): what the readers do not take into the interactions was never
/// scanned: the first value of a JSON key given twice (`JSON.parse` keeps the last), a
/// second YAML document, a HAR entry's `comment`. Each credential there is a `leak/secret`
/// "outside the interactions", and `normalize` replaces it where it was found.
#[test]
fn credentials_outside_the_interactions_are_found() {
    // Keys of a real shape (a run of one character would be a placeholder).
    let key = |c: char| format!("sk-proj-{c}Q7vLm2XkP9rTz4NwB8sYd3HfJ6gVc1RbE5uK0pA");
    let t = common::TestDir::new();
    t.write(
        "recordings/dup.json",
        format!(
            r#"[{{"scope":"https://api.example.com:443","method":"POST","path":"/v1/a","body":{{"note":"x"}},"status":200,"response":{{"token":"{}","token":"none"}},"rawHeaders":[]}}]"#,
            key('a')
        ),
    )
    .write(
        "cassettes/two.yaml",
        format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/v1/a\n  response:\n    body:\n      string: ok\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n---\nleftover: {}\n",
            key('b')
        ),
    )
    .write(
        "recordings/comment.har",
        json!({"log": {"version": "1.2", "creator": {"name": "Polly.JS", "version": "6"},
            "entries": [{"startedDateTime": "2025-01-01T00:00:00.000Z", "time": 1,
                "comment": format!("debugged with {}", key('c')),
                "request": {"method": "GET", "url": "https://api.example.com/", "httpVersion": "HTTP/1.1",
                    "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": -1},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [], "content": {"size": 2, "mimeType": "text/plain", "text": "ok"},
                    "headersSize": -1, "bodySize": -1, "redirectURL": ""},
                "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}})
        .to_string(),
    );
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    let mut found: Vec<(&str, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["pointer"].as_str().unwrap_or(""),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("cassettes/two.yaml", "(outside the interactions)"),
            ("recordings/comment.har", "(outside the interactions)"),
            ("recordings/dup.json", "(outside the interactions)"),
        ],
        "{doc:#}"
    );
    // Each replaced where the scan found it; the files still read as before.
    t.vcr(&["normalize"]).code(0);
    for rel in [
        "cassettes/two.yaml",
        "recordings/comment.har",
        "recordings/dup.json",
    ] {
        let text = t.read(rel);
        assert!(!text.contains("sk-proj-"), "{rel}:\n{text}");
        assert!(text.contains("REDACTED_OPENAI_KEY"), "{rel}:\n{text}");
    }
    assert!(
        t.read("cassettes/two.yaml")
            .ends_with("---\nleftover: REDACTED_OPENAI_KEY\n")
    );
    t.vcr(&["verify"]).code(0);
}

/// Regression (issue 25): a body of a mebibyte or more is no longer held in the plan's
/// document (only its place and style are): scrubbed, it is written as its writer would,
/// quotes and folding included, and PyYAML reads back the old text with the key replaced.
#[test]
fn a_large_body_is_scrubbed_in_its_own_style() {
    let t = common::TestDir::new();
    let key = ["sk", "proj", "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9"].join("-");
    let filler = "it's lorem ipsum dolor sit amet ".repeat(20_000);
    let body = format!("{filler}api_key={key} {filler}");
    assert!(body.len() > 1 << 20);
    let quoted = body.replace('\'', "''");
    let yaml = format!(
        "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/big\n  response:\n    body:\n      string: '{quoted}'\n    headers:\n      content-type:\n      - text/plain\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    t.write("cassettes/big.yaml", &yaml);
    t.vcr(&["normalize"]).code(0);
    let text = t.read("cassettes/big.yaml");
    assert!(!text.contains(&key));
    // Only the body's scalar changed, single-quoted as it was.
    let expected = yaml.replace(&key, "REDACTED_STRING");
    assert_eq!(text.len(), expected.len());
    assert!(text == expected, "the rest of the file changed");
    if let Some(run) = common::recorders::vcrpy_replays_file(&t.path("cassettes/big.yaml")) {
        run.code(0);
    }
    if let Some(doc) = loaders::load(Loader::PyYaml, &t.path("cassettes/big.yaml")) {
        let loaded = doc["interactions"][0]["response"]["body"]["string"].as_str();
        assert_eq!(loaded, Some(body.replace(&key, "REDACTED_STRING").as_str()));
    }
}

/// A key of a real shape, distinct for each `i` (a run of one character would be a
/// placeholder).
fn distinct_key(i: usize) -> String {
    let alphabet: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
    let mut n = i.wrapping_mul(2_654_435_761).wrapping_add(97);
    let tail: String = (0..40)
        .map(|_| {
            n = n
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            alphabet[(n >> 33) % alphabet.len()]
        })
        .collect();
    format!("sk-proj-{tail}")
}

/// Issue 43: many secrets inside one scalar (a JSON list, a `Cookie` header, an SSE body),
/// which the scrub replaces in one pass, and plain scalars in flow collections (which the
/// scrub now tells apart as it walks the tree, without parsing the file again per value):
/// every key is replaced, the rest of each scalar is kept, PyYAML loads the result and reads
/// the same structure, and `verify` finds nothing left.
#[test]
fn many_secrets_in_one_scalar_are_all_replaced() {
    let keys: Vec<String> = (0..300).map(distinct_key).collect();
    let list = json!({"keys": keys[..100]}).to_string();
    let cookie = keys[100..200]
        .iter()
        .enumerate()
        .map(|(i, k)| format!("session{i}={k}"))
        .collect::<Vec<_>>()
        .join("; ");
    let sse: String = keys[200..]
        .iter()
        .enumerate()
        .map(|(i, k)| format!("data: {{\"i\": {i}, \"key\": \"{k}\"}}\n\n"))
        .collect();
    let cassette = format!(
        "interactions:\n- request:\n    body: null\n    headers: {{Authorization: [Bearer {}], Cookie: [{}], X-Trace: [plain-value]}}\n    method: GET\n    uri: https://api.example.com/v1/keys\n  response:\n    body:\n      string: {}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/v1/stream\n  response:\n    body:\n      string: {}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
        distinct_key(1000),
        serde_json::to_string(&cookie).unwrap(),
        serde_json::to_string(&list).unwrap(),
        serde_json::to_string(&sse).unwrap(),
    );
    let t = common::TestDir::new();
    t.write("cassettes/many.yaml", &cassette);
    t.vcr(&["verify"]).code(1).stdout_has("leak/secret");
    t.vcr(&["normalize"]).code(0);
    let text = t.read("cassettes/many.yaml");
    for key in keys.iter().chain([&distinct_key(1000)]) {
        assert!(!text.contains(key.as_str()), "a key is left:\n{text}");
    }
    if let Some(run) = common::recorders::vcrpy_replays_file(&t.path("cassettes/many.yaml")) {
        run.code(0);
    }
    t.vcr(&["verify"]).code(0);
    let Some(doc) = loaders::load(Loader::PyYaml, &t.path("cassettes/many.yaml")) else {
        return;
    };
    let first = &doc["interactions"][0];
    let cookies = first["request"]["headers"]["Cookie"][0].as_str().unwrap();
    assert_eq!(cookies.split("; ").count(), 100, "{cookies}");
    assert!(cookies.starts_with("session0="), "{cookies}");
    assert_eq!(
        first["request"]["headers"]["X-Trace"],
        json!(["plain-value"])
    );
    let authorization = first["request"]["headers"]["Authorization"][0]
        .as_str()
        .unwrap();
    assert!(
        authorization.starts_with("Bearer REDACTED"),
        "{authorization}"
    );
    let body: Value =
        serde_json::from_str(first["response"]["body"]["string"].as_str().unwrap()).unwrap();
    assert_eq!(body["keys"].as_array().unwrap().len(), 100);
    let stream = doc["interactions"][1]["response"]["body"]["string"]
        .as_str()
        .unwrap();
    assert_eq!(stream.matches("data: {\"i\": ").count(), 100, "{stream}");
}

/// Regression (issue 43): the value of a credential header was replaced wherever its bytes
/// occurred in the file, inside an unrelated hash, an ETag, an id. It is replaced where it
/// stands as a token of its own (an echo of it in a body), and nowhere inside other text.
#[test]
fn a_credential_header_value_is_replaced_only_where_it_stands_as_a_token() {
    let value = "7d3f9a2cbe41d0c5";
    let body = json!({
        "hash": format!("aa{value}bb"),
        "etag": format!("W/\"{value}0\""),
        "id": format!("x{value}"),
        "echo": value,
    })
    .to_string();
    let cassette = format!(
        "interactions:\n- request:\n    body: null\n    headers:\n      X-Api-Key:\n      - {value}\n    method: GET\n    uri: https://api.example.com/v1/items\n  response:\n    body:\n      string: {}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
        serde_json::to_string(&body).unwrap()
    );
    let t = common::TestDir::new();
    t.write("cassettes/items.yaml", &cassette);
    t.vcr(&["normalize"]).code(0);
    let text = t.read("cassettes/items.yaml");
    if let Some(run) = common::recorders::vcrpy_replays_file(&t.path("cassettes/items.yaml")) {
        run.code(0);
    }
    assert!(
        !text.contains(&format!("- {value}")),
        "the header keeps it:\n{text}"
    );
    for kept in [
        format!("aa{value}bb"),
        format!("W/\\\\\\\"{value}0"),
        format!("x{value}"),
    ] {
        assert!(text.contains(&kept), "`{kept}` was changed:\n{text}");
    }
    assert!(
        !text.contains(&format!("\\\"echo\\\":\\\"{value}\\\"")),
        "the echo keeps it:\n{text}"
    );
    t.vcr(&["verify"]).code(0);
}

/// Regression (issue 43): a Slack webhook in a request URL was replaced host and all
/// (`https://REDACTED_SLACK_TOKEN`), and a secret in the URL's path broke replay with no
/// note although vcrpy matches on host and path. The token is replaced, the host and the
/// path's words stay, and the run says replay is affected, in which interaction.
#[test]
fn a_webhook_in_a_url_is_replaced_as_its_token_with_a_replay_note() {
    let token = "T04QKZ7XNB2/B05RMW8YPC3/Qx7Lm2Kp9Rt4Nw8Sy3Hf6Gv1";
    let cassette = format!(
        "interactions:\n- request:\n    body: '{{\"text\": \"deployed\"}}'\n    headers: {{}}\n    method: POST\n    uri: https://api.example.com/v1/status\n  response:\n    body:\n      string: ok\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\n- request:\n    body: '{{\"text\": \"deployed\"}}'\n    headers: {{}}\n    method: POST\n    uri: https://hooks.slack.com/services/{token}\n  response:\n    body:\n      string: ok\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    let t = common::TestDir::new();
    t.write("cassettes/notify.yaml", &cassette);
    t.vcr(&["verify"]).code(1).stdout_has("leak/secret");
    let run = t.vcr(&["normalize", "--format", "json"]);
    run.code(0);
    let text = t.read("cassettes/notify.yaml");
    if let Some(run) = common::recorders::vcrpy_replays_file(&t.path("cassettes/notify.yaml")) {
        run.code(0);
    }
    assert!(!text.contains("Qx7Lm2Kp9Rt4Nw8Sy3Hf6Gv1"), "{text}");
    assert!(
        text.contains("    uri: https://hooks.slack.com/services/REDACTED_"),
        "the host and the path's words are kept:\n{text}"
    );
    assert!(
        text.contains("    uri: https://api.example.com/v1/status\n"),
        "{text}"
    );
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    let affected: Vec<(u64, &str)> = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "replay_affected")
        .map(|e| {
            (
                e["interaction"].as_u64().unwrap(),
                e["what"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(affected, [(1, "request URL (host or path)")], "{out:#}");
    t.vcr(&["verify"]).code(0);
}

/// Regression (issue 43): `normalize --diff` and `diff --full` printed a key whole when its
/// writer had split it over two lines (a YAML double-quoted scalar folded with `\`): neither
/// part alone is a key the masker knew. Both parts are masked.
#[test]
fn a_key_split_over_two_lines_is_masked_in_both_parts_of_a_diff() {
    let (first, rest) = ("sk-proj-Zq8Xw3Lm9Kp2", "Rt7Nv4Sy6Hf1Gb5Jd0Cc3Ee8Aa2Uu");
    let cassette = |note: &str| {
        format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/v1/a\n  response:\n    body:\n      string: \"{{\\\"note\\\": \\\"{note}\\\", \\\"api_key\\\": \\\"{first}\\\n        {rest}\\\", \\\"more\\\": \\\"x\\\"}}\"\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
        )
    };
    let t = common::TestDir::new();
    t.write(
        "old/cassettes/a.yaml",
        cassette("a long enough line of text to push the key"),
    )
    .write(
        "new/cassettes/a.yaml",
        cassette("another line of text, as long, to push it"),
    );
    let printed = |out: &str| {
        for part in [first, rest] {
            assert!(!out.contains(part), "`{part}` is printed:\n{out}");
        }
    };
    let run = t.vcr_in("old", &["normalize", "--check", "--diff"]);
    run.code(1);
    assert!(run.stdout.contains("REDACTED_API_KEY"), "{}", run.stdout);
    printed(&run.stdout);
    let run = t.vcr(&["diff", "old", "new", "--full"]);
    assert!(run.stdout.contains("@@"), "{}", run.stdout);
    printed(&run.stdout);
    // The file holds the key whole, as its loader reads it.
    let Some(doc) = loaders::load(Loader::PyYaml, &t.path("old/cassettes/a.yaml")) else {
        return;
    };
    let body = doc["interactions"][0]["response"]["body"]["string"]
        .as_str()
        .unwrap();
    assert!(body.contains(&format!("{first}{rest}")), "{body}");
}
