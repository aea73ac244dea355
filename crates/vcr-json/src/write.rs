//! `JSON.stringify`, compact and with a 2-space indent, into a [`Sink`].
//!
//! A sink is either a buffer (`Vec<u8>`) or a [`Compare`] against the bytes a file holds:
//! checking that a cassette is in its canonical form then needs no output buffer, stops at
//! the first difference, and skips the strings that sit in the file exactly where the writer
//! puts them (issue 12).

use super::number::number_text;
use super::scan::plain_run_end;
use super::{LONE_SURROGATE_BASE, Str, Value};

/// Where the writers put their bytes.
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends a line feed and `2 * depth` spaces.
    fn newline(&mut self, depth: usize);

    /// Takes a parsed string that the sink may already hold at this point, instead of writing
    /// it; `false` when it must be written.
    fn verbatim(&mut self, _s: &Str<'_>) -> bool {
        false
    }

    /// Whether further bytes no longer matter (a comparison that found its difference).
    fn done(&self) -> bool {
        false
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn newline(&mut self, depth: usize) {
        self.push(b'\n');
        self.resize(self.len() + 2 * depth, b' ');
    }
}

/// A [`Sink`] writing to a file as the bytes are made: a rewritten fixture is never whole in
/// memory (issue 12). The first error ends the writing ([`Sink::done`]) and is kept for
/// [`WriteSink::finish`].
pub struct WriteSink<'w> {
    out: &'w mut dyn std::io::Write,
    error: Option<std::io::Error>,
}

impl<'w> WriteSink<'w> {
    /// A sink writing to `out`, which should be buffered.
    pub fn new(out: &'w mut dyn std::io::Write) -> Self {
        WriteSink { out, error: None }
    }

    /// The first error met, if any.
    pub fn finish(self) -> std::io::Result<()> {
        self.error.map_or(Ok(()), Err)
    }
}

impl Sink for WriteSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.error = Some(e);
        }
    }

    fn newline(&mut self, depth: usize) {
        self.put(b"\n");
        let mut left = 2 * depth;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.put(&SPACES[..n]);
            left -= n;
        }
    }

    fn done(&self) -> bool {
        self.error.is_some()
    }
}

/// A [`Sink`] that compares what is written with `expected`, byte for byte, and remembers
/// the first difference.
#[derive(Debug)]
pub struct Compare<'e> {
    expected: &'e [u8],
    pos: usize,
    difference: Option<usize>,
}

/// Spaces to compare indentation against, a slice at a time.
const SPACES: [u8; 64] = [b' '; 64];

impl<'e> Compare<'e> {
    /// A comparison with `expected`, from its start.
    pub fn new(expected: &'e [u8]) -> Self {
        Compare {
            expected,
            pos: 0,
            difference: None,
        }
    }

    /// The offset of the first byte where what was written and `expected` differ (where the
    /// shorter one ends, when one is a prefix of the other); `None` when they are equal.
    pub fn finish(self) -> Option<usize> {
        self.difference
            .or((self.pos != self.expected.len()).then_some(self.pos))
    }
}

impl Sink for Compare<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if self.difference.is_some() {
            return;
        }
        let end = self.pos + bytes.len();
        match self.expected.get(self.pos..end) {
            // The file's own text at its own place (a canonical item taken as it stands).
            Some(have) if std::ptr::eq(have, bytes) || have == bytes => self.pos = end,
            _ => {
                let rest = &self.expected[self.pos..];
                let same = rest.iter().zip(bytes).take_while(|(a, b)| a == b).count();
                self.difference = Some(self.pos + same);
            }
        }
    }

    fn newline(&mut self, depth: usize) {
        self.put(b"\n");
        let mut left = 2 * depth;
        while left > 0 && self.difference.is_none() {
            let n = left.min(SPACES.len());
            self.put(&SPACES[..n]);
            left -= n;
        }
    }

    /// A string the parser borrowed from these very bytes, at the offset being compared:
    /// equal without looking. Only the parser makes strings that borrow with a known span,
    /// and only for literals without escapes, which the writer prints as they are; the
    /// pointer check makes sure they borrow from `expected` itself.
    fn verbatim(&mut self, s: &Str<'_>) -> bool {
        let span = s.span();
        if self.difference.is_some() {
            return true;
        }
        if !span.is_known() || span.start as usize != self.pos || s.has_lone_surrogates() {
            return false;
        }
        let (start, end) = (span.start as usize, span.end as usize);
        let text = s.as_str().as_bytes();
        let inside = self.expected.get(start + 1..end.saturating_sub(1));
        if end - start == text.len() + 2
            && inside.is_some_and(|inside| std::ptr::eq(inside.as_ptr(), text.as_ptr()))
        {
            self.pos = end;
            return true;
        }
        false
    }

    fn done(&self) -> bool {
        self.difference.is_some()
    }
}

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

/// Where `JSON.stringify(value, null, 2)` first differs from `expected` (see
/// [`Compare::finish`]), without building it.
pub fn pretty_difference(value: &Value<'_>, expected: &[u8]) -> Option<usize> {
    let mut compare = Compare::new(expected);
    write_pretty(value, &mut compare);
    compare.finish()
}

/// Appends `JSON.stringify(value)` to `out`.
pub fn write_compact<S: Sink>(value: &Value<'_>, out: &mut S) {
    match value {
        Value::Array(items) => {
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_compact(item, out);
            }
            out.put(b"]");
        }
        Value::Object(object) => {
            out.put(b"{");
            for (i, (key, item)) in object.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_string(key, out);
                out.put(b":");
                write_compact(item, out);
            }
            out.put(b"}");
        }
        scalar => write_scalar(scalar, out),
    }
}

/// Appends `JSON.stringify(value, null, 2)` to `out`.
pub fn write_pretty<S: Sink>(value: &Value<'_>, out: &mut S) {
    write_indented(value, out, 0);
}

fn write_indented<S: Sink>(value: &Value<'_>, out: &mut S, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if out.done() {
                    return;
                }
                if i > 0 {
                    out.put(b",");
                }
                out.newline(depth + 1);
                write_indented(item, out, depth + 1);
            }
            out.newline(depth);
            out.put(b"]");
        }
        Value::Object(object) if !object.is_empty() => {
            out.put(b"{");
            for (i, (key, item)) in object.iter().enumerate() {
                if out.done() {
                    return;
                }
                if i > 0 {
                    out.put(b",");
                }
                out.newline(depth + 1);
                write_string(key, out);
                out.put(b": ");
                write_indented(item, out, depth + 1);
            }
            out.newline(depth);
            out.put(b"}");
        }
        Value::Array(_) => out.put(b"[]"),
        Value::Object(_) => out.put(b"{}"),
        scalar => write_scalar(scalar, out),
    }
}

/// `JSON.stringify(object, null, 2)` written a field at a time, one field's array an item
/// at a time: what lets a cassette whose `output` holds a million events be checked and
/// rewritten while only one event is built (issue 12). The bytes are those of
/// [`write_pretty`] on the whole object.
pub struct PrettyObject<'s, S: Sink> {
    out: &'s mut S,
    fields: usize,
    items: usize,
}

impl<'s, S: Sink> PrettyObject<'s, S> {
    /// An object about to be written to `out`, at the top level.
    pub fn new(out: &'s mut S) -> Self {
        PrettyObject {
            out,
            fields: 0,
            items: 0,
        }
    }

    fn key(&mut self, key: &Str<'_>) {
        self.out.put(if self.fields == 0 { b"{" } else { b"," });
        self.fields += 1;
        self.out.newline(1);
        write_string(key, self.out);
        self.out.put(b": ");
    }

    /// Writes one field.
    pub fn field(&mut self, key: &Str<'_>, value: &Value<'_>) {
        self.key(key);
        write_indented(value, self.out, 1);
    }

    /// Starts a field whose value is an array written by [`PrettyObject::item`].
    pub fn begin_array(&mut self, key: &Str<'_>) {
        self.key(key);
        self.items = 0;
    }

    /// Writes the next item of the array begun last.
    pub fn item(&mut self, value: &Value<'_>) {
        self.out.put(if self.items == 0 { b"[" } else { b"," });
        self.items += 1;
        self.out.newline(2);
        write_indented(value, self.out, 2);
    }

    /// Writes the next item of the array begun last as `text`, which must be what
    /// [`PrettyObject::item`] writes for it (a [`Part::Canonical`](super::Part::Canonical)).
    pub fn item_text(&mut self, text: &[u8]) {
        self.out.put(if self.items == 0 { b"[" } else { b"," });
        self.items += 1;
        self.out.newline(2);
        self.out.put(text);
    }

    /// Ends the array begun last.
    pub fn end_array(&mut self) {
        if self.items == 0 {
            self.out.put(b"[]");
        } else {
            self.out.newline(1);
            self.out.put(b"]");
        }
    }

    /// Ends the object.
    pub fn finish(self) {
        if self.fields == 0 {
            self.out.put(b"{}");
        } else {
            self.out.newline(0);
            self.out.put(b"}");
        }
    }

    /// Whether further bytes no longer matter (see [`Sink::done`]).
    pub fn done(&self) -> bool {
        self.out.done()
    }
}

fn write_scalar<S: Sink>(value: &Value<'_>, out: &mut S) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => out.put(number_text(&n.0, &mut ryu_js::Buffer::new()).as_bytes()),
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
pub fn write_string<S: Sink>(s: &Str<'_>, out: &mut S) {
    if out.verbatim(s) {
        return;
    }
    out.put(b"\"");
    if s.has_lone_surrogates() {
        for c in s.as_str().chars() {
            let cp = c as u32;
            if (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&cp) {
                let unit = cp - LONE_SURROGATE_BASE + 0xD800;
                let mut escape = *b"\\u0000";
                for (i, shift) in [12, 8, 4, 0].into_iter().enumerate() {
                    escape[2 + i] = HEX[((unit >> shift) & 0xF) as usize];
                }
                out.put(&escape);
            } else {
                write_escaped(c.encode_utf8(&mut [0; 4]).as_bytes(), out);
            }
        }
    } else {
        write_escaped(s.as_str().as_bytes(), out);
    }
    out.put(b"\"");
}

fn write_escaped<S: Sink>(bytes: &[u8], out: &mut S) {
    let mut start = 0;
    loop {
        let i = plain_run_end(bytes, start);
        let Some(&b) = bytes.get(i) else { break };
        let escape = ESCAPE[b as usize];
        out.put(&bytes[start..i]);
        if escape == b'u' {
            out.put(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xF) as usize],
            ]);
        } else {
            out.put(&[b'\\', escape]);
        }
        start = i + 1;
    }
    out.put(&bytes[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

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

    /// The first difference as the buffer and a plain comparison find it.
    fn buffered_difference(value: &Value<'_>, expected: &[u8]) -> Option<usize> {
        let canonical = to_pretty(value);
        (canonical != expected).then(|| {
            (expected.iter().zip(&canonical))
                .position(|(a, b)| a != b)
                .unwrap_or(expected.len().min(canonical.len()))
        })
    }

    /// Regression (issue 12): comparing while writing finds what writing the canonical
    /// bytes and comparing them finds, for the canonical text and for every one-byte change,
    /// cut and insertion of it (strings the parser borrowed are skipped unread, so a change
    /// inside one must still show where the string is rewritten).
    #[test]
    fn comparing_while_writing_agrees_with_writing_then_comparing() {
        let sources: [&[u8]; 4] = [
            br#"{"input": ["a\nb", "plain", [{"type": "text", "text": "x\u00e9"}]], "output": [{"n": 1.50, "m": -0, "s": "\ud800", "e": [], "o": {}}, null, true, "1"]}"#,
            br#"[1, [2, [3, {"a": "b"}]], "\u0001", 1e21]"#,
            br#""only a string""#,
            br#"{"2": 1, "1": 2, "a": {"b": {"c": [[], [{}]]}}, "a": 3}"#,
        ];
        for source in sources {
            let value = parse(source).unwrap();
            let canonical = to_pretty(&value);
            let mut texts = vec![source.to_vec(), canonical.clone()];
            for i in 0..canonical.len() {
                let mut changed = canonical.clone();
                changed[i] = if changed[i] == b'x' { b'y' } else { b'x' };
                texts.push(changed);
                texts.push(canonical[..i].to_vec());
                let mut longer = canonical.clone();
                longer.insert(i, b' ');
                texts.push(longer);
            }
            texts.push([canonical.as_slice(), b"\n"].concat());
            for text in &texts {
                assert_eq!(
                    pretty_difference(&value, text),
                    buffered_difference(&value, text),
                    "{}",
                    String::from_utf8_lossy(text)
                );
            }
            // The value parsed from the very bytes compared: borrowed strings are skipped.
            for text in &texts {
                if let Ok(own) = parse(text) {
                    assert_eq!(
                        pretty_difference(&own, text),
                        buffered_difference(&own, text),
                        "{}",
                        String::from_utf8_lossy(text)
                    );
                }
            }
        }
    }

    #[test]
    fn pretty_matches_json_stringify_with_two_spaces() {
        let value = parse(br#"{"a":[],"b":{},"c":[1,{"d":null}]}"#).unwrap();
        let expected = "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null\n    }\n  ]\n}";
        assert_eq!(String::from_utf8(to_pretty(&value)).unwrap(), expected);
    }
}
