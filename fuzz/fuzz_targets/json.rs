//! The JSON parser and writers: any bytes parse or fail cleanly (depth, UTF-8, numbers), and
//! what vcr writes reads back to the same text (`JSON.stringify(JSON.parse(text))` is a fixed
//! point). Parsed field by field or streamed, it fails where it fails whole.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Building one field and checking the rest agrees with parsing the whole text (but for
    // strings vcr cannot carry, which it only refuses where it builds them).
    let field = vcr_json::parse_field(data, "input");
    // Streamed through an array nested in objects (a HAR's entries), the same errors at the
    // same offsets; a document that does not stream in order is given up early (issue 25).
    let streamed = vcr_json::parse_streamed_at(data, &["log", "entries"], false, &mut |_| true);
    match (vcr_json::parse(data), streamed) {
        (Err(whole), Err(streamed)) => assert_eq!(
            (whole.kind, whole.offset),
            (streamed.kind, streamed.offset),
            "streamed and whole parses fail differently"
        ),
        (Ok(_), Ok(_)) | (Err(_), Ok(vcr_json::Streamed::Whole)) => {}
        (whole, streamed) => panic!("whole {whole:?}, streamed {streamed:?}"),
    }
    let value = match vcr_json::parse(data) {
        Ok(value) => value,
        Err(e) => {
            assert!(
                field.is_err() || e.kind == vcr_json::ParseErrorKind::Unrepresentable,
                "a text that is not JSON is not JSON field by field: {e}"
            );
            return;
        }
    };
    assert!(field.is_ok(), "a JSON text parses field by field");
    let compact = vcr_json::to_compact(&value);
    let again = vcr_json::parse(&compact).expect("compact output parses");
    assert_eq!(
        vcr_json::to_compact(&again),
        compact,
        "compact output is a fixed point"
    );
    let pretty = vcr_json::to_pretty(&value);
    let again = vcr_json::parse(&pretty).expect("pretty output parses");
    assert_eq!(
        vcr_json::to_pretty(&again),
        pretty,
        "pretty output is a fixed point"
    );
});
