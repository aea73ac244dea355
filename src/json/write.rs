//! `JSON.stringify`, compact and with a 2-space indent.

use super::scan::plain_run_end;
use super::{LONE_SURROGATE_BASE, Str, Value, format_number};

/// `JSON.stringify(value)`.
pub fn to_compact(value: &Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    write_compact(value, &mut out);
    out
}

/// `JSON.stringify(value, null, 2)`: no trailing newline.
pub fn to_pretty(value: &Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    write_pretty(value, &mut out);
    out
}

/// Appends `JSON.stringify(value)` to `out`.
pub fn write_compact(value: &Value<'_>, out: &mut Vec<u8>) {
    match value {
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(item, out);
            }
            out.push(b']');
        }
        Value::Object(object) => {
            out.push(b'{');
            for (i, (key, item)) in object.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(key, out);
                out.push(b':');
                write_compact(item, out);
            }
            out.push(b'}');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// Appends `JSON.stringify(value, null, 2)` to `out`.
pub fn write_pretty(value: &Value<'_>, out: &mut Vec<u8>) {
    write_indented(value, out, 0);
}

fn write_indented(value: &Value<'_>, out: &mut Vec<u8>, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, depth + 1);
                write_indented(item, out, depth + 1);
            }
            newline(out, depth);
            out.push(b']');
        }
        Value::Object(object) if !object.is_empty() => {
            out.push(b'{');
            for (i, (key, item)) in object.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, depth + 1);
                write_string(key, out);
                out.extend_from_slice(b": ");
                write_indented(item, out, depth + 1);
            }
            newline(out, depth);
            out.push(b'}');
        }
        Value::Array(_) => out.extend_from_slice(b"[]"),
        Value::Object(_) => out.extend_from_slice(b"{}"),
        scalar => write_scalar(scalar, out),
    }
}

fn newline(out: &mut Vec<u8>, depth: usize) {
    out.push(b'\n');
    out.resize(out.len() + 2 * depth, b' ');
}

fn write_scalar(value: &Value<'_>, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => format_number(&n.0, out),
        Value::String(s) => write_string(s, out),
        Value::Array(_) | Value::Object(_) => unreachable!("containers are written by callers"),
    }
}

/// What a byte needs when written inside a JSON string: 0 = nothing, else the escape letter
/// (`u` for `\u00xx`).
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes a quoted string as `JSON.stringify` does: only `"`, `\` and control characters are
/// escaped (never `/`, U+2028/U+2029 or non-ASCII), lone surrogates as lowercase `\udxxx`.
pub(crate) fn write_string(s: &Str<'_>, out: &mut Vec<u8>) {
    out.push(b'"');
    if s.has_lone_surrogates() {
        for c in s.as_str().chars() {
            let cp = c as u32;
            if (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&cp) {
                let unit = cp - LONE_SURROGATE_BASE + 0xD800;
                out.extend_from_slice(b"\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((unit >> shift) & 0xF) as usize]);
                }
            } else {
                write_escaped(c.encode_utf8(&mut [0; 4]).as_bytes(), out);
            }
        }
    } else {
        write_escaped(s.as_str().as_bytes(), out);
    }
    out.push(b'"');
}

fn write_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    loop {
        let i = plain_run_end(bytes, start);
        let Some(&b) = bytes.get(i) else { break };
        let escape = ESCAPE[b as usize];
        out.extend_from_slice(&bytes[start..i]);
        out.push(b'\\');
        out.push(escape);
        if escape == b'u' {
            out.extend_from_slice(b"00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 0xF) as usize]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[track_caller]
    fn compact(text: &str, expected: &str) {
        let value = parse(text.as_bytes()).unwrap();
        assert_eq!(String::from_utf8(to_compact(&value)).unwrap(), expected);
    }

    #[test]
    fn compact_matches_json_stringify() {
        compact(
            r#" { "b" : [ 1.0 , -0 ] , "a" : "x\/y" } "#,
            r#"{"b":[1,0],"a":"x/y"}"#,
        );
        compact(
            r#""\u0001\u001f\u007f\b\f\n\r\t\"\\""#,
            "\"\\u0001\\u001f\u{7f}\\b\\f\\n\\r\\t\\\"\\\\\"",
        );
        compact(r#""\u2028\u00e9""#, "\"\u{2028}é\"");
        compact(r#""\uD800""#, r#""\ud800""#);
        compact(r#""\uDBFF\uDBFF\uDFFF""#, "\"\\udbff\u{10ffff}\"");
        compact(
            r#"{"b":1,"1":2,"a":3,"0":4,"b":5}"#,
            r#"{"0":4,"1":2,"b":5,"a":3}"#,
        );
    }

    #[test]
    fn pretty_matches_json_stringify_with_two_spaces() {
        let value = parse(br#"{"a":[],"b":{},"c":[1,{"d":null}]}"#).unwrap();
        let expected = "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null\n    }\n  ]\n}";
        assert_eq!(String::from_utf8(to_pretty(&value)).unwrap(), expected);
    }
}
