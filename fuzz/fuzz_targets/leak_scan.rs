//! The leak scanner and secret masking on any bytes: hits lie inside the input, in order.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use vcr_lint::Scanner;

static SCANNER: LazyLock<Scanner> = LazyLock::new(|| {
    Scanner::new(&[
        ("cwd", "/home/alice/project"),
        ("home", "/home/alice"),
        ("config home", "C:\\Users\\alice\\.claude"),
    ])
});

fuzz_target!(|data: &[u8]| {
    let hits = SCANNER.scan(data);
    let mut last = 0;
    for hit in &hits {
        assert!(hit.start < hit.end && hit.end <= data.len(), "{hit:?}");
        assert!(
            hit.start >= last,
            "hits are in order and do not overlap: {hit:?}"
        );
        last = hit.end;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = SCANNER.mask(text);
    }
});
