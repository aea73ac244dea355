//! ECMAScript number formatting.

/// Appends `raw`, a JSON number text, as `JSON.stringify(JSON.parse(raw))` prints it.
///
/// JavaScript reads the text into the nearest double and prints the shortest text that reads
/// back to it (`Number::toString`): `1.0` is `1`, `-0` is `0`, `1E+21` is `1e+21`,
/// `123456789012345678901234` is `1.2345678901234569e+23`, and a number too large for a double
/// (`1e400`) is `Infinity`, which `JSON.stringify` writes as `null`.
pub fn format_number(raw: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(number_text(raw, &mut ryu_js::Buffer::new()).as_bytes());
}

/// [`format_number`] as a string: `raw` itself when it prints unchanged, else the text in
/// `buffer`.
pub(crate) fn number_text<'t>(raw: &'t str, buffer: &'t mut ryu_js::Buffer) -> &'t str {
    if is_plain_integer(raw) {
        return raw;
    }
    let value: f64 = raw.parse().unwrap_or(f64::NAN);
    if !value.is_finite() {
        "null"
    } else if value == 0.0 {
        "0"
    } else {
        buffer.format_finite(value)
    }
}

/// Integers of at most 15 digits without a leading zero print unchanged: every such integer
/// is exact in a double and below 1e21, where JavaScript switches to exponent notation.
fn is_plain_integer(raw: &str) -> bool {
    let digits = raw.strip_prefix('-').unwrap_or(raw).as_bytes();
    match digits {
        [b'0'] => digits.len() == raw.len(),
        [b'1'..=b'9', rest @ ..] => rest.len() < 15 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn js(raw: &str, expected: &str) {
        let mut out = Vec::new();
        format_number(raw, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), expected, "{raw}");
    }

    #[test]
    fn formats_like_number_to_string() {
        js("0", "0");
        js("-0", "0");
        js("-0.0e5", "0");
        js("1.0", "1");
        js("1E+21", "1e+21");
        js("1e21", "1e+21");
        js("100000000000000000000", "100000000000000000000");
        js("0.000001", "0.000001");
        js("0.0000001", "1e-7");
        js("123456789012345678901234", "1.2345678901234569e+23");
        js("9007199254740993", "9007199254740992");
        js("999999999999999", "999999999999999");
        js("-42", "-42");
        js("1e400", "null");
        js("-1e400", "null");
        js("1e-400", "0");
        js("5e-324", "5e-324");
        js("0.1", "0.1");
        js("1.5e300", "1.5e+300");
    }
}
