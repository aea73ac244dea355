//! `kind::http::read` on any bytes, then `lint::http::check` on what it read: a file is an
//! HTTP cassette, not one, or a read error with an offset inside the text; reading and
//! linting never panic, overflow the stack or exhaust memory (YAML aliases, gzip, nested
//! bodies are all bounded), and every leak lies at an offset inside the text.
#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use vcr::kind::http;
use vcr::lint::Scanner;

static SCANNER: LazyLock<Scanner> = LazyLock::new(|| Scanner::new(&[]));

fuzz_target!(|data: &[u8]| {
    // No sidecars: Playwright's `_file` bodies are looked for in a folder that does not exist.
    let path = Path::new("/nonexistent-vcr-fuzz/recording.har");
    let text = http::decompressed(data);
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
        }
    }
});
