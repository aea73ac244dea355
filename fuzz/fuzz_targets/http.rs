//! `kind::http::read` on any bytes, then `lint::http::check` and the default scrub on what it
//! read: a file is an HTTP cassette, not one, or a read error with an offset inside the text;
//! reading, linting and scrubbing never panic, overflow the stack or exhaust memory (YAML
//! aliases, gzip, nested bodies are all bounded), every leak lies at an offset inside the
//! text, and a scrub that succeeds reads back as a cassette of the same format. Any YAML the
//! one-pass reader takes, saphyr's events read to the same tree (issue 12); read in windows
//! of one entry each, a cassette gives the same leaks or the same error (issue 25).
#![no_main]

mod default_scrub;

use std::path::Path;

use default_scrub::SCANNER;
use libfuzzer_sys::fuzz_target;
use vcr_cassette::http;
use vcr_doc::yaml;

fuzz_target!(|data: &[u8]| {
    // No sidecars: Playwright's `_file` bodies are looked for in a folder that does not exist.
    let path = Path::new("/nonexistent-vcr-fuzz/recording.har");
    let text = http::decompressed(data);
    if let Ok(yaml) = std::str::from_utf8(&text)
        && let Some(fast) = yaml::read_subset(yaml)
    {
        assert_eq!(
            yaml::parse_events(yaml).as_ref(),
            Ok(&fast),
            "the one-pass YAML reader and saphyr's events disagree"
        );
        streamed_as_whole(yaml, fast);
    }
    match http::read(path, data) {
        Ok(None) => {}
        Err(e) => {
            assert!(e.offset <= text.len(), "error offset past the text");
            assert_eq!(
                windowed_leaks(path, &text, e.format).err().as_ref(),
                Some(&e),
                "a cassette read in windows and read whole disagree"
            );
        }
        Ok(Some(cassette)) => {
            let leaks = vcr_lint::http::check(
                &cassette,
                &text,
                &SCANNER,
                cassette.format.default_match_on(),
            );
            for leak in &leaks {
                if let Some(offset) = leak.offset {
                    assert!(offset <= text.len(), "leak offset past the text");
                }
            }
            // Read in windows, every entry its own, the same leaks (issue 25).
            let windowed = windowed_leaks(path, &text, cassette.format);
            assert_eq!(
                windowed.map(|leaks| summary(&leaks)),
                Ok(summary(&leaks)),
                "a cassette read in windows and read whole disagree"
            );
            if let Ok(scrubbed) = default_scrub::scrub(&cassette, &text) {
                let again = http::read(path, scrubbed.text.as_deref().unwrap_or(&text));
                assert!(
                    matches!(again, Ok(Some(ref c)) if c.format == cassette.format),
                    "a scrubbed cassette reads back"
                );
            }
        }
    }
});

/// The items of a top-level `interactions` sequence the one-pass reader hands out as it
/// reads them are those of the whole document, which comes back with that sequence empty
/// (issue 25: YAML cassettes read in windows).
fn streamed_as_whole(yaml: &str, mut whole: vcr_doc::Node) {
    use vcr_doc::NodeValue;
    const KEYS: &[&str] = &["interactions", "http_interactions"];
    let mut items = Vec::new();
    let streamed = yaml::read_subset_streamed(yaml, KEYS, &mut |item| items.push(item))
        .expect("what the one-pass reader reads whole, it reads streamed");
    let mut expected = Vec::new();
    // A block mapping's block sequences only (a flow collection starts with its bracket).
    let flow = |node: &vcr_doc::Node| {
        matches!(yaml.as_bytes().get(node.start as usize), Some(b'[' | b'{'))
    };
    if !flow(&whole)
        && let NodeValue::Map(entries) = &mut whole.value
    {
        for (key, value) in entries {
            let named = key
                .as_scalar()
                .is_some_and(|k| KEYS.contains(&k.text.as_str()));
            let block = !flow(value);
            if let (true, true, NodeValue::Seq(seq)) = (named, block, &mut value.value) {
                expected.append(seq);
            }
        }
    }
    assert_eq!(items, expected, "the streamed items are not the document's");
    assert_eq!(
        streamed, whole,
        "the streamed document is not the whole one"
    );
}

/// The leaks of `text` read in windows of one entry each ([`http::read_windows`]), as
/// [`vcr_lint::http::Leaks`] gathers them; `Ok(vec![])` when it is no cassette.
fn windowed_leaks(
    path: &Path,
    text: &[u8],
    format: http::Format,
) -> Result<Vec<vcr_lint::http::HttpLeak>, http::ReadError> {
    let options = http::ReadOptions {
        http_window: Some(1),
        ..http::ReadOptions::default()
    };
    let sidecars = http::Sidecars::new();
    let read = |visit: &mut dyn FnMut(Option<http::HttpCassette>)| {
        http::read_windows(path, text, &sidecars, &options, visit)
    };
    let checked = vcr_lint::http::check_windows(
        text,
        &SCANNER,
        true,
        &|_| format.default_match_on().to_vec(),
        &mut |_| {},
        &read,
    );
    Ok(checked?.map_or_else(Vec::new, |c| c.leaks))
}

/// What a leak says: its detector, value, severity, place, path and count.
fn summary(leaks: &[vcr_lint::http::HttpLeak]) -> Vec<String> {
    leaks
        .iter()
        .map(|l| {
            format!(
                "{} {:?} {:?} {:?} {} {} {}",
                l.hit.detector, l.hit.text, l.severity, l.offset, l.path, l.place, l.repeats
            )
        })
        .collect()
}
