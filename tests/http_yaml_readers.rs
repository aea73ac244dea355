//! The document-based HTTP readers (vcrpy, Ruby VCR, go-vcr, langchain-aws's gzip YAML) and
//! the JSON5 reader, on every file of the shared corpus of third-party cassettes (issue 9).
//!
//! Every real cassette of these formats must read without an error; the counts per format are
//! printed (`cargo test --test http_yaml_readers -- --nocapture`), and a failure lists each
//! file with its message and line.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vcr_cassette::http::{self, Format};

/// The formats these readers own.
const OURS: [Format; 3] = [
    http::vcrpy::FORMAT,
    http::ruby_vcr::FORMAT,
    http::go_vcr::FORMAT,
];

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect();
    out.sort();
    out
}

/// Line and column (1-based) of a byte offset.
fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.len()
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, column)
}

#[test]
fn every_corpus_cassette_of_these_formats_reads() {
    let Some(corpus) = common::corpus("") else {
        return;
    };
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut yaml_time = Duration::ZERO;
    for path in files(&corpus) {
        let bytes = std::fs::read(&path).unwrap();
        // httprr traces are another reader's (tests/http_readers.rs).
        if flate2_text(&bytes).starts_with(b"httprr trace v1\n") {
            continue;
        }
        let start = Instant::now();
        let result = http::read(&path, &bytes);
        let elapsed = start.elapsed();
        let rel = path.strip_prefix(&corpus).unwrap().display().to_string();
        match result {
            Ok(Some(cassette)) => {
                if OURS.contains(&cassette.format) && !bytes.starts_with(b"{") {
                    yaml_time += elapsed;
                }
                let entry = counts.entry(cassette.format.name()).or_default();
                entry.0 += 1;
                entry.1 += cassette.interactions.len();
            }
            Ok(None) => {}
            Err(e) if OURS.contains(&e.format) => {
                // Positions are in the decompressed text for `.gz` files.
                let text = flate2_text(&bytes);
                let (line, column) = line_col(&text, e.offset);
                failures.push(format!("{rel}:{line}:{column}: {}", e.message));
            }
            Err(_) => {}
        }
    }
    for (format, (files, interactions)) in &counts {
        eprintln!("{format}: {files} files, {interactions} interactions");
    }
    eprintln!("reading the YAML cassettes of these formats took {yaml_time:?}");
    assert!(
        failures.is_empty(),
        "{} unreadable:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // What the corpus holds (MANIFEST.md): if a count drops, a reader stopped recognising
    // its files.
    for format in OURS {
        assert!(
            counts.get(format.name()).is_some_and(|c| c.0 > 0),
            "no {} cassette was read",
            format.name()
        );
    }
}

/// The file's text, gunzipped when it is gzip.
fn flate2_text(bytes: &[u8]) -> Vec<u8> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return bytes.to_vec();
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(bytes), &mut out).unwrap();
    out
}

/// talkback's tapes are JSON5: all of them parse (the one named `malformed-tape.json` is
/// malformed on purpose, and not JSON5 either).
#[test]
fn every_talkback_tape_is_json5() {
    let Some(root) = common::corpus("ijpiantanida__talkback") else {
        return;
    };
    let mut read = 0;
    for path in files(&root) {
        let text = std::fs::read_to_string(&path).unwrap();
        let result = vcr_doc::json5::parse(&text);
        if path.file_name().is_some_and(|n| n == "malformed-tape.json") {
            assert!(result.is_err(), "{} read", path.display());
            continue;
        }
        if let Err(e) = result {
            let (line, column) = line_col(text.as_bytes(), e.offset);
            panic!("{}:{line}:{column}: {}", path.display(), e.message);
        }
        read += 1;
    }
    eprintln!("talkback: {read} tapes parsed as JSON5");
    assert!(read > 0);
}

/// A file that is one of these formats (its recorder's own markers say so) but is not valid
/// YAML or JSON is an error of that format with the position of the problem; YAML that is no
/// cassette, or only looks like one, stays text (issue 39).
#[test]
fn broken_cassettes_are_errors_with_their_position() {
    #[track_caller]
    fn case(name: &str, text: &str, format: Format, at: &str) {
        let e = http::read(Path::new(name), text.as_bytes()).unwrap_err();
        assert_eq!(e.format, format, "{name}: {}", e.message);
        assert!(
            text[e.offset..].starts_with(at),
            "{name}: {} at {:?}",
            e.message,
            &text[e.offset..]
        );
    }
    case(
        "vcrpy.yaml",
        "interactions:\n- request:\n    body: 'unterminated\n    method: GET\nversion: 1\n",
        http::vcrpy::FORMAT,
        "'unterminated",
    );
    case(
        "ruby.yml",
        "---\nhttp_interactions:\n- request:\n    method: get\n   uri: http://x/\nrecorded_with: VCR 6.3.1\n",
        http::ruby_vcr::FORMAT,
        "uri",
    );
    case(
        "go.yaml",
        "---\nversion: 2\ninteractions:\n    - id: 0\n      request:\n        method: GET\n       url: http://x/\n",
        http::go_vcr::FORMAT,
        "url",
    );
    case(
        "vcrpy.json",
        "{\"interactions\": [{\"request\": {\"uri\": \"http://x/\",}}], \"version\": 1}",
        http::vcrpy::FORMAT,
        "}}],",
    );
    // A cassette of these formats with a field missing.
    case(
        "go.yaml",
        "version: 2\ninteractions:\n    - id: 0\n      request:\n        method: GET\n      response: {}\n",
        http::go_vcr::FORMAT,
        "method: GET",
    );
    let text = "version: 2\nsteps:\n  - run: make\n";
    assert_eq!(http::read(Path::new("ci.yaml"), text.as_bytes()), Ok(None));
    // A shape that only looks like vcrpy's (no `version: 1` beside `interactions`) is no
    // cassette of a format vcr reads.
    let text = "interactions:\n- request:\n    body: 'unterminated\n    method: GET\n";
    assert_eq!(
        http::read(Path::new("vcrpy.yaml"), text.as_bytes()),
        Ok(None)
    );
    // R's vcr (`recorded_with: vcr/1.2.0`) beside Ruby VCR's `http_interactions`, DVR
    // beside go-vcr's `url`, ExVCR's list beside vcrpy's old layout: each is read as its own
    // recorder's (issue 39).
    for (name, text, format) in [
        (
            "r.yml",
            "http_interactions:\n- request:\n    method: get\n    uri: http://x/\n  response:\n    status:\n      status_code: '200'\nrecorded_with: vcr/1.2.0, webmockr/0.9.0\n",
            http::r_vcr::FORMAT,
        ),
        (
            "dvr.json",
            "{\"name\": \"a\", \"interactions\": [{\"request\": {\"method\": \"GET\", \"url\": \"http://x/\"}, \"response\": {\"url\": \"http://x/\", \"status\": 200, \"body\": {\"a\": 1}}}]}",
            http::dvr::FORMAT,
        ),
        (
            "exvcr.json",
            "[{\"request\": {\"method\": \"get\", \"url\": \"http://x/\", \"options\": []}, \"response\": {\"status_code\": 200, \"type\": \"ok\"}}]",
            http::exvcr::FORMAT,
        ),
    ] {
        let read = http::read(Path::new(name), text.as_bytes());
        assert_eq!(
            read.map(|c| c.map(|c| c.format)),
            Ok(Some(format)),
            "{name}"
        );
    }
}

/// What vcrpy loads, vcr reads (issue 25): a request body aiohttp recorded as a mapping (was
/// a `parse` error, so its key was never scrubbed), a merge key, a tab inside a quoted scalar,
/// a quoted scalar whose lines start with tabs.
/// Each is read as vcrpy; the key in the mapping is found and scrubbed, and the result still
/// holds a mapping.
#[test]
fn what_vcrpy_loads_is_read() {
    let tail = "    headers: {}\n    method: POST\n    uri: https://api.example.com/v1/a\n  response:\n    body:\n      string: ok\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n";
    let t = common::TestDir::new();
    t.write(
        "cassettes/aiohttp.yaml",
        format!("interactions:\n- request:\n    body:\n      model: gpt-4o\n      api_key: sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd\n{tail}"),
    )
    .write(
        "cassettes/merge.yaml",
        // The method and a header only through the merge key, as a hand edit leaves them.
        "base: &base\n  method: GET\n  headers:\n    Authorization:\n    - Bearer sk-proj-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxw\ninteractions:\n- request:\n    <<: *base\n    body: null\n    uri: https://api.example.com/v1/a\n  response:\n    body:\n      string: ok\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
    )
    .write(
        "cassettes/tab.yaml",
        format!("interactions:\n- request:\n    body: \"a\tb\"\n{tail}"),
    )
    .write(
        // A JSON body pasted with tabs, its lines left of the block's indentation (a real
        // repository's cassette; PyYAML skips a continuation line's leading tabs).
        "cassettes/tabbed.yaml",
        format!(
            "interactions:\n- request:\n    body:\n      '{{\n\t\t\"model\": \"gpt-4o\",\n\t\t\"api_key\": \"sk-proj-QwErTyUiOpAsDfGhJkLzXcVbNm0123456789qwer\"\n\t}}'\n{tail}"
        ),
    );
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["summary"]["http"]["vcrpy"], 4, "{doc:#}");
    let ids: Vec<(&str, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ids,
        [
            ("cassettes/aiohttp.yaml", "leak/secret"),
            ("cassettes/merge.yaml", "leak/secret"),
            ("cassettes/tabbed.yaml", "leak/secret")
        ]
    );
    t.vcr(&["normalize"]).code(0);
    // The merged header is scrubbed where it is written, under the anchor.
    let merged = t.read("cassettes/merge.yaml");
    assert!(
        merged.contains("  headers:\n    Authorization:\n    - Bearer REDACTED_AUTHORIZATION\n"),
        "{merged}"
    );
    let scrubbed = t.read("cassettes/aiohttp.yaml");
    assert!(
        scrubbed.contains("    body:\n      model: gpt-4o\n      api_key: REDACTED_API_KEY\n"),
        "{scrubbed}"
    );
    // Only the key's bytes change: the tabs stay as they were.
    let scrubbed = t.read("cassettes/tabbed.yaml");
    assert!(
        scrubbed.contains(
            "\n      '{\n\t\t\"model\": \"gpt-4o\",\n\t\t\"api_key\": \"REDACTED_API_KEY\"\n\t}'\n"
        ),
        "{scrubbed}"
    );
    t.vcr(&["verify"]).code(0);
}

/// Regression (issue 25): a body of a mebibyte or more is moved out of the document once the
/// cassette is read rather than copied while the document holds it; every body gets its text
/// (an anchor and the aliases that repeat it), placed where it is written.
#[test]
fn a_large_body_is_read_whole_into_every_body_that_names_it() {
    let big = "lorem ipsum dolor sit amet ".repeat(50_000);
    assert!(big.len() > 1 << 20);
    let text = format!(
        "interactions:\n- request:\n    body: &big '{big}'\n    headers: {{}}\n    method: POST\n    uri: https://api.example.com/a\n  response:\n    body:\n      string: *big\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\n- request:\n    body: small\n    headers: {{}}\n    method: POST\n    uri: https://api.example.com/b\n  response:\n    body:\n      string: *big\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    );
    let cassette = http::read(Path::new("c.yaml"), text.as_bytes())
        .unwrap()
        .unwrap();
    let scalar = text.find("'lorem").unwrap() as u32;
    let mut seen = 0;
    for interaction in &cassette.interactions {
        for body in interaction.bodies() {
            let http::Body::Bytes {
                field,
                bytes,
                stored,
            } = body
            else {
                panic!("a text body");
            };
            if bytes.len() < 1 << 20 {
                assert_eq!(bytes.as_slice(), b"small");
                continue;
            }
            seen += 1;
            assert!(stored.is_empty(), "{stored:?}");
            assert!(bytes.as_slice() == big.as_bytes());
            assert!(field.text.is_empty());
            // The anchor's scalar, or the alias that repeats it.
            let at = field.at.unwrap() as usize;
            assert!(
                at == scalar as usize || text[at..].starts_with("*big"),
                "{}",
                field.path
            );
        }
    }
    assert_eq!(seen, 3);
}

/// Regression (issue 25): a key written as it is in a body scalar is replaced where it
/// stands, its bytes only (a 500 MB body was copied three times, and normalize took 10 s);
/// a key the file writes otherwise (split by an escaped line break, spelled with an escape) goes
/// through the whole scalar written again. Either way PyYAML loads the body vcrpy would,
/// with the placeholder where the key was.
#[test]
fn keys_are_replaced_where_they_stand_or_the_scalar_is_written_again() {
    let key = "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9";
    let escaped = format!("\\x73{}", &key[1..]);
    let (head, tail) = key.split_at(20);
    let cassette = |body: &str| {
        format!(
            "interactions:\n- request:\n    body: null\n    headers: {{}}\n    method: GET\n    uri: https://api.example.com/a\n  response:\n    body:\n      string: {body}\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
        )
    };
    let t = common::TestDir::new();
    t.write(
        "cassettes/as_is.yaml",
        cassette(&format!("'first line\n\n\t\tapi_key={key} and more'")),
    )
    .write(
        "cassettes/folded.yaml",
        // An escaped line break joins the lines with nothing between.
        cassette(&format!("\"api_key={head}\\\n        {tail}\"")),
    )
    .write(
        "cassettes/escaped.yaml",
        cassette(&format!("\"api_key={escaped}\"")),
    );
    t.vcr(&["normalize"]).code(0);
    let as_is = t.read("cassettes/as_is.yaml");
    assert!(
        as_is.contains("'first line\n\n\t\tapi_key=REDACTED_STRING and more'"),
        "{as_is}"
    );
    for name in ["as_is", "folded", "escaped"] {
        assert!(!t.read(&format!("cassettes/{name}.yaml")).contains(tail));
    }
    t.vcr(&["verify"]).code(0);
    let Some(loaded) = common::loaders::load(
        common::loaders::Loader::PyYaml,
        &t.root.join("cassettes/as_is.yaml"),
    ) else {
        return;
    };
    let body = &loaded["interactions"][0]["response"]["body"]["string"];
    assert_eq!(body, "first line\napi_key=REDACTED_STRING and more");
    for name in ["folded", "escaped"] {
        let loaded = common::loaders::load(
            common::loaders::Loader::PyYaml,
            &t.root.join(format!("cassettes/{name}.yaml")),
        )
        .unwrap();
        let body = &loaded["interactions"][0]["response"]["body"]["string"];
        assert!(
            body.as_str().unwrap().starts_with("api_key=REDACTED"),
            "{name}: {body}"
        );
    }
}
