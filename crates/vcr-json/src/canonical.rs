//! Recognising a value that is already in its canonical form, without building it.
//!
//! Checking a message fixture means parsing each `output` item, applying the rules and
//! comparing what `JSON.stringify(value, null, 2)` writes with the file. Most items are
//! stream events no rule touches, stored exactly as the writer puts them: for those, building
//! the value only to write it back was most of `vcr verify`'s time (issue 12). [`Canonical`]
//! reads such a value's text once, checking both that it is JSON and that the writer would
//! print these very bytes at this indentation; the caller then takes the text as it stands.
//!
//! The check only ever says yes when it is sure: anything it does not cover (an escape
//! other than the writer's own, a number JavaScript would print otherwise, an array-index or
//! repeated key, nesting near the parser's limit, a large object) is a no, and the caller
//! parses the value as before, which then also reports any error at its place.

use super::number::number_text;
use super::scan::{plain_run_end, space_run_end};

/// Objects with more keys than this are left to the parser, which checks repeated keys with
/// a hash set; here they are compared pairwise.
const MAX_KEYS: usize = 64;

/// What a canonical value tells about itself: the text of two fields the caller decides by
/// (an `output` item's `type`, and the `type` of its `event`), as they stand between their
/// quotes (a canonical string whose text has no escapes is its value).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Probe<'a> {
    /// Whether the value is an object.
    pub object: bool,
    /// Offset of the value's first key, where an object's position is reported.
    pub first_key: Option<usize>,
    /// The string under `type`, if it is one without escapes.
    pub kind: Option<&'a [u8]>,
    /// The string under `event` → `type`, if it is one without escapes.
    pub event_kind: Option<&'a [u8]>,
}

/// The field of the item a key's value is, for [`Probe`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Watch {
    /// Nothing to record below.
    None,
    /// The item itself.
    Item,
    /// The item's `event`.
    Event,
}

/// The checker, holding the keys of the objects being read (reused from value to value).
pub(super) struct Canonical<'a> {
    bytes: &'a [u8],
    pos: usize,
    keys: Vec<&'a [u8]>,
    max_depth: usize,
}

impl<'a> Canonical<'a> {
    /// A checker over `bytes`, which must be valid UTF-8 (the parser checks it first), that
    /// gives up at nesting `max_depth` (the parser's limit, so that it reports it).
    pub(super) fn new(bytes: &'a [u8], max_depth: usize) -> Self {
        Canonical {
            bytes,
            pos: 0,
            keys: Vec::new(),
            max_depth,
        }
    }

    /// Where the value starting at `start` ends, when its text is valid JSON and exactly
    /// what the writer prints for it at `indent` (two spaces a level), nested `depth` deep
    /// in the document; `None` when it may not be.
    pub(super) fn value_end(
        &mut self,
        start: usize,
        indent: usize,
        depth: usize,
    ) -> Option<(usize, Probe<'a>)> {
        self.pos = start;
        self.keys.clear();
        let mut probe = Probe::default();
        self.value(indent, depth, Watch::Item, &mut probe)?;
        Some((self.pos, probe))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, expected: &[u8]) -> Option<()> {
        let end = self.pos + expected.len();
        (self.bytes.get(self.pos..end)? == expected).then(|| self.pos = end)
    }

    /// A line feed and exactly `2 * indent` spaces.
    fn newline(&mut self, indent: usize) -> Option<()> {
        self.eat(b"\n")?;
        let end = self.pos + 2 * indent;
        (space_run_end(self.bytes, self.pos) == end).then(|| self.pos = end)
    }

    fn value(
        &mut self,
        indent: usize,
        depth: usize,
        watch: Watch,
        probe: &mut Probe<'a>,
    ) -> Option<()> {
        match self.peek()? {
            b'{' => {
                probe.object |= watch == Watch::Item;
                self.object(indent, depth, watch, probe)
            }
            b'[' => self.array(indent, depth),
            b'"' => self.string().map(drop),
            b't' => self.eat(b"true"),
            b'f' => self.eat(b"false"),
            b'n' => self.eat(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn array(&mut self, indent: usize, depth: usize) -> Option<()> {
        if depth >= self.max_depth {
            return None;
        }
        if self.eat(b"[]").is_some() {
            return Some(());
        }
        self.pos += 1; // [
        loop {
            self.newline(indent + 1)?;
            self.value(indent + 1, depth + 1, Watch::None, &mut Probe::default())?;
            if self.eat(b",").is_none() {
                break;
            }
        }
        self.newline(indent)?;
        self.eat(b"]")
    }

    fn object(
        &mut self,
        indent: usize,
        depth: usize,
        watch: Watch,
        probe: &mut Probe<'a>,
    ) -> Option<()> {
        if depth >= self.max_depth {
            return None;
        }
        if self.eat(b"{}").is_some() {
            return Some(());
        }
        self.pos += 1; // {
        let first = self.keys.len();
        loop {
            self.newline(indent + 1)?;
            if watch == Watch::Item && probe.first_key.is_none() {
                probe.first_key = Some(self.pos);
            }
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            let seen = &self.keys[first..];
            if seen.len() >= MAX_KEYS
                || seen.contains(&key)
                || key.first().is_some_and(u8::is_ascii_digit)
            {
                // Array-index keys are ordered first by the writer (any key starting with a
                // digit is sent to the parser, which knows which ones are).
                return None;
            }
            self.keys.push(key);
            self.eat(b": ")?;
            let value_start = self.pos;
            let below = match (watch, key) {
                (Watch::Item, b"event") => Watch::Event,
                _ => Watch::None,
            };
            self.value(indent + 1, depth + 1, below, probe)?;
            if watch != Watch::None && key == b"type" && self.bytes[value_start] == b'"' {
                let text = &self.bytes[value_start + 1..self.pos - 1];
                if !text.contains(&b'\\') {
                    match watch {
                        Watch::Item => probe.kind = Some(text),
                        _ => probe.event_kind = Some(text),
                    }
                }
            }
            if self.eat(b",").is_none() {
                break;
            }
        }
        self.keys.truncate(first);
        self.newline(indent)?;
        self.eat(b"}")
    }

    /// A string as the writer prints it; returns its text between the quotes.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.pos + 1;
        self.pos = start;
        loop {
            self.pos = plain_run_end(self.bytes, self.pos);
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(&self.bytes[start..self.pos - 1]);
                }
                b'\\' => {
                    let escape = *self.bytes.get(self.pos + 1)?;
                    match escape {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 2,
                        b'u' => {
                            // The writer's `\u00xx`: a control character without a short
                            // escape, in lowercase hex.
                            let hex = self.bytes.get(self.pos + 2..self.pos + 6)?;
                            let unit = match hex {
                                [b'0', b'0', high @ (b'0' | b'1'), low] => {
                                    let low = match low {
                                        b'0'..=b'9' => low - b'0',
                                        b'a'..=b'f' => low - b'a' + 10,
                                        _ => return None,
                                    };
                                    (high - b'0') << 4 | low
                                }
                                _ => return None,
                            };
                            if matches!(unit, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                                return None;
                            }
                            self.pos += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None, // a raw control character: the parser reports it
            }
        }
    }

    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let digits = |c: &mut Self| {
            let from = c.pos;
            while matches!(c.peek(), Some(b'0'..=b'9')) {
                c.pos += 1;
            }
            c.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        let raw = std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
        (number_text(raw, &mut ryu_js::Buffer::new()) == raw).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Object, PrettyObject, Str, Value, parse};

    /// `value` as the pretty writer prints it as an item of the top-level array: the text
    /// between `[\n    ` and `\n  ]`.
    fn item_text(value: &Value<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = PrettyObject::new(&mut out);
        writer.begin_array(&Str::new("output"));
        writer.item(value);
        writer.end_array();
        writer.finish();
        let start = b"{\n  \"output\": [\n    ".len();
        out[start..out.len() - b"\n  ]\n}".len()].to_vec()
    }

    /// What the checker says of `text` as an item (two levels deep, as the parser nests it).
    fn check(text: &[u8]) -> Option<(usize, Probe<'_>)> {
        Canonical::new(text, 512).value_end(0, 2, 2)
    }

    /// The property the fast path rests on: whenever the checker takes a text, the text is
    /// JSON and the writer prints exactly it.
    #[track_caller]
    fn sound(text: &[u8]) {
        if std::str::from_utf8(text).is_err() {
            return; // the parser refuses such a file before any item is checked
        }
        if let Some((end, _)) = check(text) {
            let value = parse(&text[..end]).unwrap_or_else(|e| {
                panic!(
                    "{:?} taken but not JSON: {e}",
                    String::from_utf8_lossy(text)
                )
            });
            assert_eq!(
                String::from_utf8_lossy(&item_text(&value)),
                String::from_utf8_lossy(&text[..end]),
                "taken but not canonical"
            );
        }
    }

    const DOCUMENTS: &[&str] = &[
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b\\c\n\t\u0001\u001f\u007f é 😀 \u2028"}}}"#,
        r#"{"type":"stream_event","event":{"type":"error","error":{"message":"x"}},"n":[1,-2,0,0.5,1e21,1.5e-7,123456789012345,-0,1.0,12345678901234567890]}"#,
        r#"{"type":"assistant","message":{"content":[],"id":"m"},"e":{},"a":[],"aa":[[]],"o":{"p":{"q":[{}]}}}"#,
        r#"{"b":1,"2":3,"a":{"1":2}}"#,
        r#"{"k":"\ud800","l":"\ud83d\ude00","m":"\/"}"#,
        r#"[1,"x",{"type":"t"},[],{}]"#,
        r#""just a string""#,
        r#"{"type":"a\nb","event":"no object"}"#,
        r#"{"type":{"type":"inner"},"event":{"x":{"type":"deep"}}}"#,
        "true",
        "null",
        "-12",
    ];

    #[test]
    fn canonical_texts_are_taken_whole_with_their_probe() {
        for doc in DOCUMENTS {
            let value = parse(doc.as_bytes()).unwrap();
            let text = item_text(&value);
            sound(&text);
            // Everything the writer prints is taken, except what the checker leaves to the
            // parser: a key starting with a digit, an escape other than `\u00xx`.
            let refused = doc.contains("\"2\"") || doc.contains("\"1\"") || doc.contains("\\ud8");
            match check(&text) {
                Some((end, _)) => assert_eq!(end, text.len(), "{doc}"),
                None => assert!(
                    refused,
                    "{doc} refused:\n{}",
                    String::from_utf8_lossy(&text)
                ),
            }
        }
    }

    #[test]
    fn the_probe_reads_the_item_and_event_types() {
        let probe = |doc: &str| {
            let text = item_text(&parse(doc.as_bytes()).unwrap());
            let (_, p) = check(&text).unwrap();
            let s = |b: Option<&[u8]>| b.map(|b| String::from_utf8(b.to_vec()).unwrap());
            (
                p.object,
                s(p.kind),
                s(p.event_kind),
                p.first_key.map(|k| text[k]),
            )
        };
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            probe(DOCUMENTS[0]),
            (
                true,
                some("stream_event"),
                some("content_block_delta"),
                Some(b'"')
            )
        );
        assert_eq!(
            probe(r#"{"event":{"type":"error"},"type":"stream_event"}"#).2,
            some("error")
        );
        // Only the item's own `type` and its event's: not deeper, not other objects'.
        assert_eq!(probe(DOCUMENTS[8]), (true, None, None, Some(b'"')));
        assert_eq!(
            probe(r#"{"x":{"type":"no"},"event":{"y":{"type":"no"}}}"#).1,
            None
        );
        // A type with an escape is no plain string (and no type the checks look for).
        assert_eq!(probe(DOCUMENTS[7]).1, None);
        assert_eq!(
            probe(r#"[{"type":"assistant"}]"#),
            (false, None, None, None)
        );
        assert_eq!(probe("{}"), (true, None, None, None));
    }

    /// Every text one edit away from a canonical one: the checker either refuses it or it is
    /// canonical after all (it never takes a text the writer would print otherwise).
    #[test]
    fn edited_texts_are_refused_unless_canonical() {
        let mut tried = 0;
        for doc in DOCUMENTS {
            let text = item_text(&parse(doc.as_bytes()).unwrap());
            for at in 0..=text.len() {
                for edit in [
                    &b" "[..],
                    b"\n",
                    b"0",
                    b"\"",
                    b",",
                    b"\\",
                    b"e",
                    b"}",
                    b".5",
                ] {
                    let mut inserted = text.clone();
                    inserted.splice(at..at, edit.iter().copied());
                    sound(&inserted);
                    if at < text.len() {
                        let mut replaced = text.clone();
                        replaced.splice(at..at + 1, edit.iter().copied());
                        sound(&replaced);
                        let mut removed = text.clone();
                        removed.remove(at);
                        sound(&removed);
                    }
                    tried += 1;
                }
            }
        }
        assert!(tried > 5_000, "{tried}");
    }

    #[test]
    fn repeated_keys_and_deep_or_wide_values_go_to_the_parser() {
        let text = b"{\n      \"a\": 1,\n      \"a\": 2\n    }";
        assert_eq!(check(text), None);
        // Nesting at the parser's limit: refused, so that the parser reports it.
        let deep = "[".repeat(600) + &"]".repeat(600);
        assert_eq!(
            Canonical::new(deep.as_bytes(), 512).value_end(0, 2, 2),
            None
        );
        // More keys than are compared pairwise.
        let mut wide = Object::new();
        for i in 0..=MAX_KEYS {
            wide.insert(Str::new(format!("k{i}")), Value::Null);
        }
        assert_eq!(check(&item_text(&Value::Object(wide))), None);
    }
}
