//! `kind::http::read` on any bytes, then `lint::http::check` and the default scrub on what it
//! read: a file is an HTTP cassette, not one, or a read error with an offset inside the text;
//! reading, linting and scrubbing never panic, overflow the stack or exhaust memory (YAML
//! aliases, gzip, nested bodies are all bounded), every leak lies at an offset inside the
//! text, and a scrub that succeeds reads back as a cassette of the same format. Any YAML the
//! one-pass reader takes, saphyr's events read to the same tree (issue 12).
#![no_main]

mod default_scrub;

use std::path::Path;

use default_scrub::SCANNER;
use libfuzzer_sys::fuzz_target;
use vcr::doc::yaml;
use vcr::kind::http;

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
    }
    match http::read(path, data) {
        Ok(None) => {}
        Err(e) => assert!(e.offset <= text.len(), "error offset past the text"),
        Ok(Some(cassette)) => {
            let leaks = vcr::lint::http::check(
                &cassette,
                &text,
                &SCANNER,
                cassette.format.default_match_on(),
            );
            for leak in leaks {
                if let Some(offset) = leak.offset {
                    assert!(offset <= text.len(), "leak offset past the text");
                }
            }
            if let Ok(scrubbed) = default_scrub::scrub(&cassette, &text) {
                let again = http::read(path, &scrubbed.text);
                assert!(
                    matches!(again, Ok(Some(ref c)) if c.format == cassette.format),
                    "a scrubbed cassette reads back"
                );
            }
        }
    }
});
