//! The JSON parser and writers: any bytes parse or fail cleanly (depth, UTF-8, numbers), and
//! what vcr writes reads back to the same text (`JSON.stringify(JSON.parse(text))` is a fixed
//! point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcr::json;

fuzz_target!(|data: &[u8]| {
    // Reading the start of a file never panics, whatever it stops in the middle of.
    for cut in [data.len() / 3, data.len() / 2, data.len()] {
        let _ = json::parse_until_field(&data[..cut], "input", cut == data.len());
    }
    let Ok(value) = json::parse(data) else {
        return;
    };
    let compact = json::to_compact(&value);
    let again = json::parse(&compact).expect("compact output parses");
    assert_eq!(
        json::to_compact(&again),
        compact,
        "compact output is a fixed point"
    );
    let pretty = json::to_pretty(&value);
    let again = json::parse(&pretty).expect("pretty output parses");
    assert_eq!(
        json::to_pretty(&again),
        pretty,
        "pretty output is a fixed point"
    );
});
