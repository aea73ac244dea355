//! JSON exactly as JavaScript sees it.
//!
//! Cassette names are hashes of `JSON.stringify(value)` and cassettes are written with
//! `JSON.stringify(value, null, 2)`, where `value` is what `JSON.parse` made of the stored
//! text. Matching those bytes from Rust means reproducing three things serde_json does not:
//! object key order as JavaScript enumerates it (array-index keys first, ascending), number
//! formatting as ECMAScript `Number::toString` formats the parsed double, and strings holding
//! lone UTF-16 surrogates, which a Rust `String` cannot carry.
//!
//! The parser borrows from the input wherever a string has no escapes, and records where each
//! string sits in the source so that later passes (the leak linter) can point at a line and
//! column. It never prints and never panics on bad input: every problem is a [`ParseError`]
//! with a byte offset that [`Position::locate`] turns into a line and column.
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod canonical;
mod number;
mod parse;
mod scan;
mod write;

use std::borrow::Cow;
use std::collections::HashSet;

pub use canonical::Probe;
pub use number::format_number;
pub use parse::{
    ParseError, ParseErrorKind, Part, Streamed, parse, parse_field, parse_streamed,
    parse_streamed_array, parse_streamed_at,
};
pub use write::{
    Compare, PrettyObject, Sink, WriteSink, pretty_difference, to_compact, to_pretty,
    write_compact, write_pretty, write_string,
};

/// A byte range of the source text, `[start, end)`.
///
/// Values built by code rather than parsed carry [`Span::NONE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// The span of a value that was not read from a source text.
    pub const NONE: Span = Span {
        start: u32::MAX,
        end: u32::MAX,
    };

    /// Whether the value this span belongs to was read from a source text.
    pub fn is_known(self) -> bool {
        self.start != u32::MAX
    }
}

/// A 1-based line and column (counted in characters) in a source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in Unicode scalar values.
    pub column: usize,
}

impl Position {
    /// Turns a byte offset of `text` into a line and column.
    ///
    /// Computed on demand: parsing does not track lines, because positions are only needed
    /// for the rare file that has something to report.
    pub fn locate(text: &[u8], offset: usize) -> Position {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        Position { line, column }
    }
}

/// A JSON number, kept as the text it was written with.
///
/// Formatting goes through [`format_number`], which prints the parsed double as JavaScript
/// does, so `1.0`, `1E+21` and `-0` come out as `1`, `1e+21` and `0`.
#[derive(Debug, Clone, PartialEq)]
pub struct Num<'a>(pub Cow<'a, str>);

impl Num<'_> {
    /// The number as JavaScript's `JSON.parse` reads it.
    pub fn as_f64(&self) -> f64 {
        // The grammar was checked by the parser; Rust's float parsing is correctly rounded,
        // like ECMAScript's.
        self.0.parse().unwrap_or(f64::NAN)
    }
}

/// A JSON string value or object key.
///
/// Lone UTF-16 surrogates (`"\ud800"`), which JavaScript strings may hold, are stored as the
/// private-use characters U+100000..U+1007FF and `lone_surrogates` is set, so the writer can
/// print them back as `\udxxx` escapes the way `JSON.stringify` does.
#[derive(Debug, Clone)]
pub struct Str<'a> {
    text: Cow<'a, str>,
    span: Span,
    lone_surrogates: bool,
}

/// First character used to stand for a lone surrogate (U+D800 maps here).
pub const LONE_SURROGATE_BASE: u32 = 0x10_0000;

impl<'a> Str<'a> {
    /// A string built by code (no source position, no lone surrogates).
    pub fn new(text: impl Into<Cow<'a, str>>) -> Self {
        Str {
            text: text.into(),
            span: Span::NONE,
            lone_surrogates: false,
        }
    }

    /// A string as the parser read it: where it sits in the source, and whether it holds
    /// lone surrogates (escapes a Rust `String` cannot carry).
    pub fn parsed(text: Cow<'a, str>, span: Span, lone_surrogates: bool) -> Self {
        Str {
            text,
            span,
            lone_surrogates,
        }
    }

    /// The text; lone surrogates appear as private-use characters (see the type docs).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Where the string literal (quotes included) sits in the source.
    pub fn span(&self) -> Span {
        self.span
    }

    /// Whether the string holds lone surrogates.
    pub fn has_lone_surrogates(&self) -> bool {
        self.lone_surrogates
    }

    /// Replaces the text, keeping the source position.
    ///
    /// Rules never produce surrogate stand-ins of their own, so the flag is kept as it was.
    pub fn set(&mut self, text: String) {
        self.text = Cow::Owned(text);
    }

    /// Detaches the string from the source buffer.
    pub fn into_owned(self) -> Str<'static> {
        Str {
            text: Cow::Owned(self.text.into_owned()),
            span: self.span,
            lone_surrogates: self.lone_surrogates,
        }
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.lone_surrogates == other.lone_surrogates
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// A JSON value as JavaScript holds it after `JSON.parse`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, kept as written.
    Number(Num<'a>),
    /// A string.
    String(Str<'a>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object, in JavaScript enumeration order.
    Object(Object<'a>),
}

impl<'a> Value<'a> {
    /// A string value built by code.
    pub fn string(text: impl Into<Cow<'a, str>>) -> Self {
        Value::String(Str::new(text))
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The object, mutably, if this is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// A short name of the value's JSON type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// JavaScript truthiness (`filter(Boolean)`, `x || default`).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => {
                let f = n.as_f64();
                f != 0.0 && !f.is_nan()
            }
            Value::String(s) => !s.is_empty(),
            Value::Array(_) | Value::Object(_) => true,
        }
    }

    /// Calls `f` on every string leaf (not object keys), depth first.
    pub fn for_each_string_mut(&mut self, f: &mut dyn FnMut(&mut Str<'a>)) {
        match self {
            Value::String(s) => f(s),
            Value::Array(items) => items.iter_mut().for_each(|v| v.for_each_string_mut(f)),
            Value::Object(o) => o
                .values_mut()
                .for_each(|v: &mut Value<'a>| v.for_each_string_mut(f)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Calls `f` on every string leaf (not object keys), depth first.
    pub fn for_each_string(&self, f: &mut dyn FnMut(&Str<'a>)) {
        match self {
            Value::String(s) => f(s),
            Value::Array(items) => items.iter().for_each(|v| v.for_each_string(f)),
            Value::Object(o) => o.values().for_each(|v| v.for_each_string(f)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Where the value starts in the source, when it can be told: strings know their span,
    /// objects the span of their first key, arrays that of their first element.
    pub fn source_offset(&self) -> Option<usize> {
        let span = match self {
            Value::String(s) => Some(s.span()),
            Value::Object(o) => o.iter().next().map(|(k, _)| k.span()),
            Value::Array(items) => return items.first().and_then(Value::source_offset),
            Value::Null | Value::Bool(_) | Value::Number(_) => None,
        };
        span.filter(|s| s.is_known()).map(|s| s.start as usize)
    }

    /// Detaches the value from the source buffer.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Number(n) => Value::Number(Num(Cow::Owned(n.0.into_owned()))),
            Value::String(s) => Value::String(s.into_owned()),
            Value::Array(items) => Value::Array(items.into_iter().map(Value::into_owned).collect()),
            Value::Object(o) => Value::Object(Object {
                entries: o
                    .entries
                    .into_iter()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect(),
            }),
        }
    }
}

/// An object whose entries are in JavaScript's own-property order.
///
/// Insertion follows `CreateDataProperty`: a repeated key keeps its first position and takes
/// the new value; a key that is an array index (`"0"`, `"7"`, ... below 2^32 - 1, no leading
/// zeros) goes among the leading index keys in ascending order; any other key goes last.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    entries: Vec<(Str<'a>, Value<'a>)>,
}

/// Objects larger than this use a hash set to find repeated keys while parsing.
const LINEAR_KEY_SCAN: usize = 16;

impl<'a> Object<'a> {
    /// An empty object.
    pub fn new() -> Self {
        Object {
            entries: Vec::new(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    }

    /// The value under `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value<'a>> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Where `key` is written in the source, when the object was parsed.
    pub fn key_span(&self, key: &str) -> Option<Span> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(k, _)| k.span())
            .filter(|s| s.is_known())
    }

    /// Sets `key` with JavaScript's property order (see the type docs).
    pub fn insert(&mut self, key: Str<'a>, value: Value<'a>) {
        if let Some(slot) = self.get_mut(key.as_str()) {
            *slot = value;
            return;
        }
        self.insert_new(key, value);
    }

    /// Inserts a key known to be absent.
    fn insert_new(&mut self, key: Str<'a>, value: Value<'a>) {
        match array_index(key.as_str()) {
            None => self.entries.push((key, value)),
            Some(index) => {
                let at = self
                    .entries
                    .iter()
                    .position(|(k, _)| array_index(k.as_str()).is_none_or(|i| i > index))
                    .unwrap_or(self.entries.len());
                self.entries.insert(at, (key, value));
            }
        }
    }

    /// Builds an object from parsed entries, applying JavaScript's rules for repeated and
    /// array-index keys.
    pub(crate) fn from_parsed(entries: Vec<(Str<'a>, Value<'a>)>) -> Self {
        let needs_order = entries
            .iter()
            .any(|(k, _)| array_index(k.as_str()).is_some());
        let has_duplicates = if entries.len() <= LINEAR_KEY_SCAN {
            entries
                .iter()
                .enumerate()
                .any(|(i, (k, _))| entries[..i].iter().any(|(p, _)| p.as_str() == k.as_str()))
        } else {
            let mut seen = HashSet::with_capacity(entries.len());
            !entries.iter().all(|(k, _)| seen.insert(k.as_str()))
        };
        if !needs_order && !has_duplicates {
            return Object { entries };
        }
        // As many `insert`s would give, in O(n log n): each key where it first appeared with
        // the last value given it, then the array indices moved first in numeric order (an
        // object of 40,000 year or id keys took each key a scan of those before it).
        let n = entries.len();
        // For each key's first place, the place of its last value.
        let mut last = vec![usize::MAX; n];
        {
            let mut first: std::collections::HashMap<&str, usize> =
                std::collections::HashMap::with_capacity(n);
            for (j, (k, _)) in entries.iter().enumerate() {
                match first.entry(k.as_str()) {
                    std::collections::hash_map::Entry::Occupied(e) => last[*e.get()] = j,
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(j);
                        last[j] = j;
                    }
                }
            }
        }
        let mut slots: Vec<Option<(Str<'a>, Value<'a>)>> = entries.into_iter().map(Some).collect();
        let mut unique: Vec<(Str<'a>, Value<'a>)> = Vec::with_capacity(n);
        for i in 0..n {
            if last[i] == usize::MAX {
                continue;
            }
            let Some((key, mut value)) = slots[i].take() else {
                continue;
            };
            if last[i] != i
                && let Some((_, v)) = slots[last[i]].take()
            {
                value = v;
            }
            unique.push((key, value));
        }
        let (mut indices, names): (Vec<_>, Vec<_>) = unique
            .into_iter()
            .partition(|(k, _)| array_index(k.as_str()).is_some());
        indices.sort_by_key(|(k, _)| array_index(k.as_str()));
        indices.extend(names);
        Object { entries: indices }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value<'a>> {
        let at = self.entries.iter().position(|(k, _)| k.as_str() == key)?;
        Some(self.entries.remove(at).1)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&Str<'a>, &Value<'a>)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in order, values mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&Str<'a>, &mut Value<'a>)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The values in order.
    pub fn values(&self) -> impl Iterator<Item = &Value<'a>> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in order, mutably.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value<'a>> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Consumes the object into its entries.
    pub fn into_entries(self) -> Vec<(Str<'a>, Value<'a>)> {
        self.entries
    }
}

impl<'a> FromIterator<(Str<'a>, Value<'a>)> for Object<'a> {
    fn from_iter<I: IntoIterator<Item = (Str<'a>, Value<'a>)>>(iter: I) -> Self {
        let mut object = Object::new();
        for (k, v) in iter {
            object.insert(k, v);
        }
        object
    }
}

/// The array index a property key denotes, if any: a canonical decimal integer below
/// 2^32 - 1 (ECMAScript's definition, which decides enumeration order).
pub fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    (n < u64::from(u32::MAX)).then_some(n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn index(key: &str, expected: Option<u32>) {
        assert_eq!(array_index(key), expected, "key {key:?}");
    }

    #[test]
    fn array_index_follows_ecmascript() {
        index("0", Some(0));
        index("7", Some(7));
        index("4294967294", Some(4_294_967_294));
        index("4294967295", None);
        index("01", None);
        index("-1", None);
        index("1.0", None);
        index("", None);
        index("99999999999", None);
    }

    #[test]
    fn insert_orders_index_keys_first() {
        let mut o = Object::new();
        for k in ["b", "2", "a", "0", "10", "b"] {
            o.insert(Str::new(k), Value::Null);
        }
        let keys: Vec<&str> = o.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["0", "2", "10", "b", "a"]);
    }

    #[test]
    fn truthiness_matches_javascript() {
        assert!(!Value::Null.is_truthy());
        assert!(!Value::string("").is_truthy());
        assert!(Value::string("x").is_truthy());
        assert!(!Value::Number(Num("0".into())).is_truthy());
        assert!(!Value::Number(Num("-0.0".into())).is_truthy());
        assert!(Value::Array(vec![]).is_truthy());
    }

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\né\"x";
        assert_eq!(
            Position::locate(text.as_bytes(), 0),
            Position { line: 1, column: 1 }
        );
        // after "é" (two bytes) and the quote
        let quote = text.find('"').unwrap();
        assert_eq!(
            Position::locate(text.as_bytes(), quote),
            Position { line: 2, column: 2 }
        );
    }
}
