//! The JSON parser and writers: any bytes parse or fail cleanly (depth, UTF-8, numbers), and
//! what vcr writes reads back to the same text (`JSON.stringify(JSON.parse(text))` is a fixed
//! point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcr::json;

fuzz_target!(|data: &[u8]| {
    // Building one field and checking the rest agrees with parsing the whole text (but for
    // strings vcr cannot carry, which it only refuses where it builds them).
    let field = json::parse_field(data, "input");
    let value = match json::parse(data) {
        Ok(value) => value,
        Err(e) => {
            assert!(
                field.is_err() || e.kind == json::ParseErrorKind::Unrepresentable,
                "a text that is not JSON is not JSON field by field: {e}"
            );
            return;
        }
    };
    assert!(field.is_ok(), "a JSON text parses field by field");
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
