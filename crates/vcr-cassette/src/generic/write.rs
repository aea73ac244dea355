//! Serialization and writers: key material as `js`, `sorted` or `python`, and cassettes written
//! back the way `JSON.stringify` or Python's `json.dumps` writes them. Apart because it only
//! turns values into bytes: no hashes, no names.

use super::key::lone_surrogate;
use super::lines::{lines, parse_line};
use super::{Format, GenericError, Serialization, Spec, Style, WriteMode};
use vcr_json::{Str, Value};

/// Serializes a value as key material.
pub fn serialize(value: &Value<'_>, serialization: Serialization) -> Vec<u8> {
    let mut out = Vec::new();
    serialize_into(value, serialization, &mut out);
    out
}

pub(super) fn serialize_into(value: &Value<'_>, serialization: Serialization, out: &mut Vec<u8>) {
    match serialization {
        Serialization::Js => vcr_json::write_compact(value, out),
        Serialization::Sorted => write_sorted(value, out),
        Serialization::Python => write_python(value, out, None, true),
    }
}

/// `JSON.stringify` with every object's keys in UTF-16 code-unit order.
fn write_sorted(value: &Value<'_>, out: &mut Vec<u8>) {
    match value {
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_sorted(item, out);
            }
            out.push(b']');
        }
        Value::Object(object) => {
            let mut entries: Vec<_> = object.iter().collect();
            entries.sort_by(|(a, _), (b, _)| utf16_units(a).cmp(utf16_units(b)));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                vcr_json::write_string(key, out);
                out.push(b':');
                write_sorted(item, out);
            }
            out.push(b'}');
        }
        scalar => vcr_json::write_compact(scalar, out),
    }
}

/// The UTF-16 code units of a string as JavaScript holds it.
fn utf16_units<'s>(s: &'s Str<'_>) -> impl Iterator<Item = u16> + 's {
    s.as_str().chars().flat_map(|c| {
        let mut buf = [0u16; 2];
        let units: Vec<u16> = match lone_surrogate(c) {
            Some(unit) => vec![unit],
            None => c.encode_utf16(&mut buf).to_vec(),
        };
        units
    })
}

/// The code points of a string as Python holds it (lone surrogates as themselves).
fn code_points<'s>(s: &'s Str<'_>) -> impl Iterator<Item = u32> + 's {
    s.as_str()
        .chars()
        .map(|c| lone_surrogate(c).map_or(c as u32, u32::from))
}

/// Python's `json.dumps(value, indent=indent, sort_keys=sort)` with `ensure_ascii`.
fn write_python(value: &Value<'_>, out: &mut Vec<u8>, indent: Option<usize>, sort: bool) {
    write_python_at(value, out, indent, sort, 0);
}

fn write_python_at(
    value: &Value<'_>,
    out: &mut Vec<u8>,
    indent: Option<usize>,
    sort: bool,
    depth: usize,
) {
    let newline = |out: &mut Vec<u8>, depth: usize| {
        if let Some(width) = indent {
            out.push(b'\n');
            out.resize(out.len() + width * depth, b' ');
        }
    };
    let separator: &[u8] = if indent.is_some() { b"," } else { b", " };
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => python_number(&n.0, out),
        Value::String(s) => python_string(s, out),
        Value::Array(items) if items.is_empty() => out.extend_from_slice(b"[]"),
        Value::Object(object) if object.is_empty() => out.extend_from_slice(b"{}"),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(separator);
                }
                newline(out, depth + 1);
                write_python_at(item, out, indent, sort, depth + 1);
            }
            newline(out, depth);
            out.push(b']');
        }
        Value::Object(object) => {
            let mut entries: Vec<_> = object.iter().collect();
            if sort {
                entries.sort_by(|(a, _), (b, _)| code_points(a).cmp(code_points(b)));
            }
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(separator);
                }
                newline(out, depth + 1);
                python_string(key, out);
                out.extend_from_slice(b": ");
                write_python_at(item, out, indent, sort, depth + 1);
            }
            newline(out, depth);
            out.push(b'}');
        }
    }
}

/// A string as `json.dumps` writes it with `ensure_ascii`: printable ASCII as is, `"`, `\`
/// and the usual controls as short escapes, everything else as lowercase `\uXXXX` (UTF-16).
fn python_string(s: &Str<'_>, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let unit = |u: u16, out: &mut Vec<u8>| {
        out.extend_from_slice(b"\\u");
        for shift in [12, 8, 4, 0] {
            out.push(HEX[usize::from((u >> shift) & 0xF)]);
        }
    };
    out.push(b'"');
    for c in s.as_str().chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(c as u8),
            c => match lone_surrogate(c).filter(|_| s.has_lone_surrogates()) {
                Some(u) => unit(u, out),
                None => {
                    let mut buf = [0u16; 2];
                    for &u in c.encode_utf16(&mut buf).iter() {
                        unit(u, out);
                    }
                }
            },
        }
    }
    out.push(b'"');
}

/// A number as `json.dumps(json.loads(raw))` writes it: an integer text (no `.`, `e`, `E`)
/// stays an exact integer; anything else is a float printed by `repr`.
fn python_number(raw: &str, out: &mut Vec<u8>) {
    if !raw.contains(['.', 'e', 'E']) {
        let digits = raw.strip_prefix('-').unwrap_or(raw);
        if digits.bytes().all(|b| b == b'0') {
            out.push(b'0');
        } else {
            out.extend_from_slice(raw.as_bytes());
        }
        return;
    }
    out.extend_from_slice(python_float_repr(raw.parse().unwrap_or(f64::NAN)).as_bytes());
}

/// Python's `repr(float)`: the shortest digits that read back, in fixed notation when the
/// decimal exponent is in `-4..16`, else `d.ddde±XX`; `.0` added to integral values.
fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Rust prints the shortest round-tripping digits, like Python's `repr`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponents are integers");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let decpt = exponent + 1;
    let len = digits.len() as i32;
    let body = if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let e = decpt - 1;
        format!(
            "{first}{fraction}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt < len {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{int}.{frac}")
    } else {
        format!("{digits}{}.0", "0".repeat((decpt - len) as usize))
    };
    format!("{sign}{body}")
}

/// Writes a JSON cassette's value the way the entry's writer does. With `write = "keep"`
/// (which has no writer of its own) the value is written `pretty` in the entry's style:
/// that is what rewriting a cassette after its key material changed falls back to.
pub fn render(spec: &Spec, value: &Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    match (spec.format, spec.write, spec.style) {
        (Format::Jsonl, _, _) => render_line_into(spec, value, &mut out),
        (Format::Json, WriteMode::Compact, Style::Js) => vcr_json::write_compact(value, &mut out),
        (Format::Json, WriteMode::Compact, Style::Python) => {
            write_python(value, &mut out, None, false);
        }
        (Format::Json, _, Style::Js) => vcr_json::write_pretty(value, &mut out),
        (Format::Json, _, Style::Python) => write_python(value, &mut out, Some(2), false),
    }
    if spec.format == Format::Json && spec.trailing_newline {
        out.push(b'\n');
    }
    out
}

/// Writes one JSONL record: compact in the entry's style, ending in `\n`.
pub fn render_line(spec: &Spec, value: &Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    render_line_into(spec, value, &mut out);
    out
}

/// [`render_line`] into `out`: a log rewritten a line at a time reuses one buffer.
pub fn render_line_into(spec: &Spec, value: &Value<'_>, out: &mut Vec<u8>) {
    match spec.style {
        Style::Js => vcr_json::write_compact(value, out),
        Style::Python => write_python(value, out, None, false),
    }
    out.push(b'\n');
}

/// What `normalize` makes of a cassette: the bytes unchanged with `write = "keep"`, else
/// rewritten by the entry's writer (JSONL: record lines only, blank lines dropped). The
/// cassette is parsed either way, so a file that is not JSON is an error.
pub fn canonical(spec: &Spec, bytes: &[u8]) -> Result<Vec<u8>, GenericError> {
    match spec.format {
        Format::Json => {
            let value = vcr_json::parse(bytes).map_err(GenericError::Parse)?;
            Ok(match spec.write {
                WriteMode::Keep => bytes.to_vec(),
                _ => render(spec, &value),
            })
        }
        Format::Jsonl => {
            let mut out = Vec::with_capacity(bytes.len());
            for line in lines(bytes) {
                let value = parse_line(&line)?;
                if spec.write != WriteMode::Keep {
                    render_line_into(spec, &value, &mut out);
                }
            }
            Ok(match spec.write {
                WriteMode::Keep => bytes.to_vec(),
                _ => out,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::compile;
    use crate::generic::tests::config;

    #[test]
    fn python_floats_follow_repr() {
        for (x, expected) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e-7, "1e-07"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123.456, "123.456"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (0.1, "0.1"),
            (1234567890123456.7, "1234567890123456.8"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(python_float_repr(x), expected, "{x}");
        }
        let mut out = Vec::new();
        python_number("-0", &mut out);
        python_number("12345678901234567890123", &mut out);
        assert_eq!(out, b"012345678901234567890123");
    }

    #[test]
    fn sorted_uses_utf16_order_without_moving_index_keys() {
        let value =
            vcr_json::parse("{\"b\":1,\"10\":2,\"2\":3,\"\u{ff61}\":4,\"\u{1F600}\":5}".as_bytes())
                .unwrap();
        let js = String::from_utf8(serialize(&value, Serialization::Sorted)).unwrap();
        assert_eq!(
            js,
            "{\"10\":2,\"2\":3,\"b\":1,\"\u{1F600}\":5,\"\u{ff61}\":4}"
        );
        let py = String::from_utf8(serialize(&value, Serialization::Python)).unwrap();
        assert_eq!(
            py,
            r#"{"10": 2, "2": 3, "b": 1, "\uff61": 4, "\ud83d\ude00": 5}"#
        );
    }

    #[test]
    fn canonical_writers() {
        let mut c = config(Format::Json);
        let text = "{\"a\": [1.0, \"\u{e9}\"], \"b\": {}}";
        assert_eq!(
            canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap(),
            text.as_bytes()
        );
        c.write = Some(WriteMode::Pretty);
        c.trailing_newline = Some(true);
        assert_eq!(
            String::from_utf8(canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap()).unwrap(),
            "{\n  \"a\": [\n    1,\n    \"\u{e9}\"\n  ],\n  \"b\": {}\n}\n"
        );
        c.style = Some(Style::Python);
        c.trailing_newline = None;
        assert_eq!(
            String::from_utf8(canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap()).unwrap(),
            "{\n  \"a\": [\n    1.0,\n    \"\\u00e9\"\n  ],\n  \"b\": {}\n}"
        );
        c.write = Some(WriteMode::Compact);
        assert_eq!(
            String::from_utf8(canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap()).unwrap(),
            "{\"a\": [1.0, \"\\u00e9\"], \"b\": {}}"
        );
        let mut l = config(Format::Jsonl);
        l.write = Some(WriteMode::Compact);
        let spec = compile(&l).unwrap();
        assert_eq!(
            canonical(&spec, b"{ \"a\" : 1 }\r\n\n{\"b\":2}").unwrap(),
            b"{\"a\":1}\n{\"b\":2}\n"
        );
        assert_eq!(canonical(&spec, b"[1]\n").unwrap_err().id(), "schema");
    }
}
