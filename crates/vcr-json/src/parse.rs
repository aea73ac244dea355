//! A strict JSON parser with `JSON.parse` semantics.
//!
//! Strict means ECMA-404: only space, tab, line feed and carriage return between tokens, no
//! byte order mark, no trailing commas, no raw control characters in strings. That is what
//! `JSON.parse` accepts, so a file this parser rejects is a file the harness would reject.

use std::borrow::Cow;
use std::fmt;

use super::canonical::{Canonical, Probe};
use super::scan::{plain_run_end, space_run_end};
use super::{LONE_SURROGATE_BASE, Num, Object, Span, Str, Value};

/// How deep arrays and objects may nest before the parser gives up.
///
/// Real cassettes nest a few dozen levels at most; the limit only keeps hostile input from
/// exhausting the stack.
const MAX_DEPTH: usize = 512;

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Byte offset of the problem in the text.
    pub offset: usize,
}

/// What went wrong while parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The text is empty or only whitespace.
    Empty,
    /// The text ends in the middle of a value.
    UnexpectedEnd,
    /// A character that cannot start or continue a value here.
    Unexpected(char),
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// The text starts with a byte order mark, which `JSON.parse` rejects.
    ByteOrderMark,
    /// A raw control character inside a string.
    ControlCharacter(u8),
    /// A backslash escape that JSON does not define.
    InvalidEscape,
    /// A number that does not follow the JSON grammar.
    InvalidNumber,
    /// More text after the value.
    TrailingCharacters,
    /// Nesting deeper than the parser allows.
    TooDeep,
    /// A string mixes lone surrogates with characters of U+100000..U+1007FF, which this
    /// implementation uses to carry lone surrogates.
    Unrepresentable,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ParseErrorKind::Empty => f.write_str("empty file, expected a JSON value"),
            ParseErrorKind::UnexpectedEnd => f.write_str("unexpected end of file (truncated?)"),
            ParseErrorKind::Unexpected(c) => write!(f, "unexpected character {c:?}"),
            ParseErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ParseErrorKind::ByteOrderMark => {
                f.write_str("byte order mark at the start (JSON.parse rejects it)")
            }
            ParseErrorKind::ControlCharacter(b) => {
                write!(f, "raw control character U+{b:04X} in a string")
            }
            ParseErrorKind::InvalidEscape => f.write_str("invalid escape sequence"),
            ParseErrorKind::InvalidNumber => f.write_str("invalid number"),
            ParseErrorKind::TrailingCharacters => {
                f.write_str("trailing characters after the value")
            }
            ParseErrorKind::TooDeep => {
                write!(f, "nesting deeper than {MAX_DEPTH} levels")
            }
            ParseErrorKind::Unrepresentable => f.write_str(
                "string mixes lone surrogates with characters U+100000..U+1007FF (unsupported)",
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON value from `bytes`, as `JSON.parse` would.
pub fn parse(bytes: &[u8]) -> Result<Value<'_>, ParseError> {
    parse_document(bytes, Fields::All)
}

/// Parses a document whose top-level object matters only for the field `key`: that field is
/// built, every other value is checked without being built, to the end of the text.
///
/// Cassette names are a hash of one field; this is what lets `vcr rehash` name a tree without
/// building the rest of each file, while still refusing a file that is not JSON throughout
/// (a payload cut short, a merge conflict after the key).
pub fn parse_field<'a>(bytes: &'a [u8], key: &str) -> Result<Value<'a>, ParseError> {
    parse_document(bytes, Fields::Only(key))
}

/// One part of a document read by [`parse_streamed`], in source order.
#[derive(Debug)]
pub enum Part<'a> {
    /// A whole top-level field (any but the streamed one).
    Field(Str<'a>, Value<'a>),
    /// A whole field of an object below the top level on the way to the streamed array
    /// ([`parse_streamed_at`]).
    Nested(Str<'a>, Value<'a>),
    /// The streamed field (its key) begins: an array whose items follow.
    Begin(Str<'a>),
    /// One item of the streamed array, and where it is in the text.
    Item(Value<'a>, Span),
    /// An item of the streamed array whose text is exactly what
    /// [`PrettyObject::item`](super::PrettyObject::item) writes for it (see
    /// [`parse_streamed`]), offered before it is built: the visitor returns `true` to take
    /// the text as it stands, and `false` to have the item built and sent as [`Part::Item`].
    Canonical(Span, Probe<'a>),
    /// The streamed array ends.
    End,
}

/// How [`parse_streamed`] read a text that is JSON throughout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streamed {
    /// Every part went to the visitor.
    Done,
    /// The document is not an object of distinct keys that are no array indices, so parts
    /// would not be in JavaScript's order: parse it whole instead (what the visitor got
    /// is to be dropped).
    Whole,
}

/// Parses a document whose top-level object holds, under `key`, an array too large to hold
/// built: each top-level field goes to `visit` whole as soon as it is read, except that
/// array, which goes an item at a time. Memory is then bounded by the largest item, not the
/// file (issue 12).
///
/// The grammar is checked as [`parse`] checks it, to the end of the text, with the same
/// errors at the same offsets; a document whose parts would not come in the order
/// `JSON.parse` gives them (not an object, repeated or array-index keys) is
/// [`Streamed::Whole`].
///
/// With `offer_canonical`, an item already in its canonical form is first offered as
/// [`Part::Canonical`], without being built: checking a fixture whose items no rule changes
/// then costs one read of their text (issue 12). `visit` returns whether it took a
/// [`Part::Canonical`]; what it returns for the other parts is ignored.
pub fn parse_streamed<'a>(
    bytes: &'a [u8],
    key: &str,
    offer_canonical: bool,
    visit: &mut dyn FnMut(Part<'a>) -> bool,
) -> Result<Streamed, ParseError> {
    parse_streamed_at(bytes, &[key], offer_canonical, visit)
}

/// [`parse_streamed`] for an array nested in objects: `path` is the keys that lead to it from
/// the top-level object (`["log", "entries"]`, a HAR's entries). The fields of the top-level
/// object are [`Part::Field`]s and those of the objects below it on the way are
/// [`Part::Nested`]; canonical items are offered only for an array of the top level. A
/// document whose parts would not come in `JSON.parse`'s order at any of those levels is
/// [`Streamed::Whole`]; one where the path leads to no array is [`Streamed::Done`] without a
/// [`Part::Begin`].
pub fn parse_streamed_at<'a>(
    bytes: &'a [u8],
    path: &[&str],
    offer_canonical: bool,
    visit: &mut dyn FnMut(Part<'a>) -> bool,
) -> Result<Streamed, ParseError> {
    let mut parser = Parser::new(bytes)?;
    let mut canonical =
        (offer_canonical && path.len() == 1).then(|| Canonical::new(bytes, MAX_DEPTH));
    if parser.peek() != Some(b'{') {
        return Ok(Streamed::Whole);
    }
    if !parser.stream_object(0, path, canonical.as_mut(), visit)? {
        return Ok(Streamed::Whole);
    }
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error(ParseErrorKind::TrailingCharacters));
    }
    Ok(Streamed::Done)
}

/// [`parse_streamed`] for a document that is an array (a nock cassette's list of
/// definitions): its items go to `visit` one by one as [`Part::Item`]s, between a
/// [`Part::Begin`] with an empty key and [`Part::End`]. The grammar is checked as [`parse`]
/// checks it, to the end of the text, with the same errors at the same offsets; a document
/// that is not an array is [`Streamed::Whole`].
pub fn parse_streamed_array<'a>(
    bytes: &'a [u8],
    visit: &mut dyn FnMut(Part<'a>) -> bool,
) -> Result<Streamed, ParseError> {
    let mut parser = Parser::new(bytes)?;
    if parser.peek() != Some(b'[') {
        return Ok(Streamed::Whole);
    }
    parser.items(0, Str::new(""), None, visit)?;
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error(ParseErrorKind::TrailingCharacters));
    }
    Ok(Streamed::Done)
}

/// Which top-level fields to build.
#[derive(Clone, Copy)]
enum Fields<'k> {
    /// The whole document.
    All,
    /// Only this one; the others are checked and skipped.
    Only(&'k str),
}

fn parse_document<'a>(bytes: &'a [u8], fields: Fields<'_>) -> Result<Value<'a>, ParseError> {
    let mut parser = Parser::new(bytes)?;
    let value = match fields {
        Fields::Only(key) if parser.peek() == Some(b'{') => {
            parser.object_with(0, |k| if k == key { Take::Build } else { Take::Skip })?
        }
        _ => parser.value(0)?,
    };
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error(ParseErrorKind::TrailingCharacters));
    }
    Ok(value)
}

/// What to do with an object field.
enum Take {
    Build,
    Skip,
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    /// A parser at the first token of `bytes`, which must be UTF-8 without a byte order
    /// mark and hold more than whitespace.
    fn new(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                return Err(ParseError {
                    kind: ParseErrorKind::InvalidUtf8,
                    offset: e.valid_up_to(),
                });
            }
        };
        if text.starts_with('\u{feff}') {
            return Err(ParseError {
                kind: ParseErrorKind::ByteOrderMark,
                offset: 0,
            });
        }
        let mut parser = Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        };
        parser.skip_ws();
        if parser.pos == parser.bytes.len() {
            return Err(parser.error(ParseErrorKind::Empty));
        }
        Ok(parser)
    }

    /// An object of [`parse_streamed_at`], at `{`, whose field `path[0]` leads on to the
    /// streamed array: `false`, at once, when it or an object below it cannot be streamed in
    /// `JSON.parse`'s order (repeated or array-index keys): the parts given are then to be
    /// dropped and the document parsed whole, which checks the rest of its grammar.
    fn stream_object(
        &mut self,
        depth: usize,
        path: &[&str],
        mut canonical: Option<&mut Canonical<'a>>,
        visit: &mut dyn FnMut(Part<'a>) -> bool,
    ) -> Result<bool, ParseError> {
        let top = depth == 0;
        let depth = self.enter(depth)?;
        self.pos += 1; // {
        let mut seen: Vec<Str<'a>> = Vec::new();
        let mut streamed = false;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(true);
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let name = self.string()?;
            if super::array_index(name.as_str()).is_some()
                || seen.iter().any(|k| k.as_str() == name.as_str())
            {
                return Ok(false);
            }
            seen.push(name.clone());
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected());
            }
            self.pos += 1;
            self.skip_ws();
            let on_path = !streamed && name.as_str() == path[0];
            if on_path && path.len() == 1 && self.peek() == Some(b'[') {
                self.items(depth, name, canonical.take(), visit)?;
                streamed = true;
            } else if on_path && path.len() > 1 && self.peek() == Some(b'{') {
                if !self.stream_object(depth, &path[1..], None, visit)? {
                    return Ok(false);
                }
                streamed = true;
            } else {
                let value = self.value(depth)?;
                visit(if top {
                    Part::Field(name, value)
                } else {
                    Part::Nested(name, value)
                });
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(true);
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// The streamed array of [`parse_streamed`], at `[`, its items handed out one by one.
    fn items(
        &mut self,
        depth: usize,
        name: Str<'a>,
        mut canonical: Option<&mut Canonical<'a>>,
        visit: &mut dyn FnMut(Part<'a>) -> bool,
    ) -> Result<(), ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1; // [
        visit(Part::Begin(name));
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            visit(Part::End);
            return Ok(());
        }
        loop {
            self.skip_ws();
            let start = self.pos;
            // The items of the top-level object's array are written two levels deep.
            let taken = canonical
                .as_mut()
                .and_then(|c| c.value_end(start, 2, depth));
            if let Some((end, probe)) = taken {
                self.pos = end;
                let span = self.span_from(start);
                if !span.is_known() || !visit(Part::Canonical(span, probe)) {
                    self.pos = start;
                }
            }
            if self.pos == start {
                let item = self.value(depth)?;
                visit(Part::Item(item, self.span_from(start)));
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    visit(Part::End);
                    return Ok(());
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError {
            kind,
            offset: self.pos,
        }
    }

    fn unexpected(&self) -> ParseError {
        match self.text[self.pos..].chars().next() {
            Some(c) => self.error(ParseErrorKind::Unexpected(c)),
            None => self.error(ParseErrorKind::UnexpectedEnd),
        }
    }

    fn skip_ws(&mut self) {
        loop {
            match self.bytes.get(self.pos) {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                // Indentation follows a newline: skip its spaces a word at a time.
                Some(b'\n') => self.pos = space_run_end(self.bytes, self.pos + 1),
                _ => return,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        match self.peek() {
            None => Err(self.error(ParseErrorKind::UnexpectedEnd)),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(_) => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &str, value: Value<'a>) -> Result<Value<'a>, ParseError> {
        for &expected in word.as_bytes() {
            if self.peek() != Some(expected) {
                return Err(self.unexpected());
            }
            self.pos += 1;
        }
        Ok(value)
    }

    fn enter(&self, depth: usize) -> Result<usize, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(ParseErrorKind::TooDeep));
        }
        Ok(depth + 1)
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1; // [
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        self.object_with(depth, |_| Take::Build)
    }

    /// An object whose fields are built or skipped (checked only), as `take` decides by key.
    fn object_with(
        &mut self,
        depth: usize,
        take: impl Fn(&str) -> Take,
    ) -> Result<Value<'a>, ParseError> {
        let depth = self.enter(depth)?;
        self.pos += 1; // {
        let mut entries = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(Object::from_parsed(entries)));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected());
            }
            self.pos += 1;
            self.skip_ws();
            match take(key.as_str()) {
                Take::Skip => self.skip(depth)?,
                Take::Build => {
                    let value = self.value(depth)?;
                    entries.push((key, value));
                }
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(Object::from_parsed(entries)));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// Checks one value as [`Parser::value`] would, without building it.
    fn skip(&mut self, depth: usize) -> Result<(), ParseError> {
        match self.peek() {
            None => Err(self.error(ParseErrorKind::UnexpectedEnd)),
            Some(open @ (b'{' | b'[')) => {
                let depth = self.enter(depth)?;
                let close = if open == b'{' { b'}' } else { b']' };
                self.pos += 1;
                self.skip_ws();
                if self.peek() == Some(close) {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    self.skip_ws();
                    if open == b'{' {
                        if self.peek() != Some(b'"') {
                            return Err(self.unexpected());
                        }
                        self.skip_string()?;
                        self.skip_ws();
                        if self.peek() != Some(b':') {
                            return Err(self.unexpected());
                        }
                        self.pos += 1;
                        self.skip_ws();
                    }
                    self.skip(depth)?;
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b) if b == close => {
                            self.pos += 1;
                            return Ok(());
                        }
                        _ => return Err(self.unexpected()),
                    }
                }
            }
            Some(b'"') => self.skip_string(),
            Some(_) => self.value(depth).map(drop),
        }
    }

    /// Checks a string literal without decoding it.
    fn skip_string(&mut self) -> Result<(), ParseError> {
        self.pos += 1; // opening quote
        loop {
            self.pos = plain_run_end(self.bytes, self.pos);
            match self.peek() {
                None => return Err(self.error(ParseErrorKind::UnexpectedEnd)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    let escape_at = self.pos;
                    self.pos += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1;
                        }
                        Some(b'u') => {
                            self.pos += 1;
                            self.hex4(escape_at)?;
                        }
                        Some(_) => {
                            self.pos = escape_at;
                            return Err(self.error(ParseErrorKind::InvalidEscape));
                        }
                        None => return Err(self.error(ParseErrorKind::UnexpectedEnd)),
                    }
                }
                Some(b) => return Err(self.error(ParseErrorKind::ControlCharacter(b))),
            }
        }
    }

    fn number(&mut self) -> Result<Value<'a>, ParseError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error(ParseErrorKind::InvalidNumber)),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.error(ParseErrorKind::InvalidNumber));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error(ParseErrorKind::InvalidNumber));
            }
        }
        Ok(Value::Number(Num(Cow::Borrowed(
            &self.text[start..self.pos],
        ))))
    }

    fn string(&mut self) -> Result<Str<'a>, ParseError> {
        let start = self.pos;
        self.pos += 1; // opening quote
        let content_start = self.pos;
        // Fast path: no escapes, borrow the slice.
        self.pos = plain_run_end(self.bytes, self.pos);
        match self.peek() {
            None => return Err(self.error(ParseErrorKind::UnexpectedEnd)),
            Some(b'"') => {
                let text = &self.text[content_start..self.pos];
                self.pos += 1;
                return Ok(Str::parsed(
                    Cow::Borrowed(text),
                    self.span_from(start),
                    false,
                ));
            }
            Some(b'\\') => {}
            Some(b) => return Err(self.error(ParseErrorKind::ControlCharacter(b))),
        }
        let mut out = String::with_capacity(self.pos - content_start + 16);
        out.push_str(&self.text[content_start..self.pos]);
        let mut lone = 0usize;
        loop {
            let run_start = self.pos;
            self.pos = plain_run_end(self.bytes, self.pos);
            match self.peek() {
                None => return Err(self.error(ParseErrorKind::UnexpectedEnd)),
                Some(b'"' | b'\\') => {}
                Some(b) => return Err(self.error(ParseErrorKind::ControlCharacter(b))),
            }
            out.push_str(&self.text[run_start..self.pos]);
            if self.peek() == Some(b'"') {
                self.pos += 1;
                break;
            }
            // A backslash escape.
            let escape_at = self.pos;
            self.pos += 1;
            let c = match self.peek() {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => {
                    self.pos += 1;
                    let unit = self.hex4(escape_at)?;
                    match unit {
                        0xD800..=0xDBFF => {
                            // A high surrogate pairs with an immediately following low one.
                            let save = self.pos;
                            let low = if self.bytes[self.pos..].starts_with(b"\\u") {
                                self.pos += 2;
                                let low = self.hex4(save)?;
                                (0xDC00..=0xDFFF).contains(&low).then_some(low)
                            } else {
                                None
                            };
                            match low {
                                Some(low) => {
                                    let cp = 0x10000
                                        + ((u32::from(unit) - 0xD800) << 10)
                                        + (u32::from(low) - 0xDC00);
                                    out.push(char::from_u32(cp).expect("valid surrogate pair"));
                                }
                                None => {
                                    self.pos = save;
                                    lone += 1;
                                    out.push(lone_char(unit));
                                }
                            }
                            continue;
                        }
                        0xDC00..=0xDFFF => {
                            lone += 1;
                            out.push(lone_char(unit));
                            continue;
                        }
                        _ => {
                            out.push(char::from_u32(u32::from(unit)).expect("not a surrogate"));
                            continue;
                        }
                    }
                }
                Some(_) => {
                    self.pos = escape_at;
                    return Err(self.error(ParseErrorKind::InvalidEscape));
                }
                None => return Err(self.error(ParseErrorKind::UnexpectedEnd)),
            };
            out.push(c);
            self.pos += 1;
        }
        // Lone surrogates travel as private-use stand-ins; a real character of that range
        // beside them could not be told apart.
        if lone > 0 && out.chars().filter(|&c| is_stand_in(c)).count() > lone {
            return Err(ParseError {
                kind: ParseErrorKind::Unrepresentable,
                offset: start,
            });
        }
        Ok(Str::parsed(
            Cow::Owned(out),
            self.span_from(start),
            lone > 0,
        ))
    }

    /// Reads four hex digits after `\u`; errors point at the escape's backslash.
    fn hex4(&mut self, escape_at: usize) -> Result<u16, ParseError> {
        let digits = self.bytes.get(self.pos..self.pos + 4);
        let value = digits
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .and_then(|d| u16::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok());
        match value {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None if digits.is_none() && self.bytes.len() - self.pos < 4 => {
                Err(self.error(ParseErrorKind::UnexpectedEnd))
            }
            None => Err(ParseError {
                kind: ParseErrorKind::InvalidEscape,
                offset: escape_at,
            }),
        }
    }

    fn span_from(&self, start: usize) -> Span {
        // Files past 4 GiB lose positions rather than failing.
        match (u32::try_from(start), u32::try_from(self.pos)) {
            (Ok(start), Ok(end)) => Span { start, end },
            _ => Span::NONE,
        }
    }
}

fn is_stand_in(c: char) -> bool {
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&(c as u32))
}

/// The private-use character standing for the lone surrogate `unit`.
fn lone_char(unit: u16) -> char {
    char::from_u32(LONE_SURROGATE_BASE + u32::from(unit - 0xD800)).expect("plane 16 character")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    #[track_caller]
    fn fails(text: &str, kind: ParseErrorKind, line: usize, column: usize) {
        let err = parse(text.as_bytes()).expect_err(text);
        assert_eq!(err.kind, kind, "{text:?}");
        let at = Position::locate(text.as_bytes(), err.offset);
        assert_eq!((at.line, at.column), (line, column), "{text:?}: {err}");
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        fails("", ParseErrorKind::Empty, 1, 1);
        fails("  \n", ParseErrorKind::Empty, 2, 1);
        fails("{\"a\":1", ParseErrorKind::UnexpectedEnd, 1, 7);
        fails("{\"a\":1,}", ParseErrorKind::Unexpected('}'), 1, 8);
        fails("[1,\n 2,\n x]", ParseErrorKind::Unexpected('x'), 3, 2);
        fails("\"a\u{1}\"", ParseErrorKind::ControlCharacter(1), 1, 3);
        fails("\"\\x\"", ParseErrorKind::InvalidEscape, 1, 2);
        fails("\"\\u12g4\"", ParseErrorKind::InvalidEscape, 1, 2);
        fails("01", ParseErrorKind::TrailingCharacters, 1, 2);
        fails("1.", ParseErrorKind::InvalidNumber, 1, 3);
        fails("-", ParseErrorKind::InvalidNumber, 1, 2);
        fails("1e+", ParseErrorKind::InvalidNumber, 1, 4);
        fails("\u{feff}{}", ParseErrorKind::ByteOrderMark, 1, 1);
        fails("{} {}", ParseErrorKind::TrailingCharacters, 1, 4);
        fails("\u{a0}1", ParseErrorKind::Unexpected('\u{a0}'), 1, 1);
        fails("tru", ParseErrorKind::UnexpectedEnd, 1, 4);
    }

    /// Regression (issue 11): `rehash` renamed files broken after their key material. Every
    /// field but the wanted one is checked, before and after it, to the end of the text.
    #[test]
    fn the_other_fields_are_checked_before_and_after_the_wanted_one() {
        let good =
            br#"{"output": [{"x": "\u00e9", "y": [1.5e3, true, null]}], "input": ["b"], "z": {}}"#;
        let value = parse_field(good, "input").unwrap();
        assert_eq!(value.as_object().unwrap().len(), 1);
        for (bad, kind) in [
            (
                &br#"{"output": [1,], "input": []}"#[..],
                ParseErrorKind::Unexpected(']'),
            ),
            (
                br#"{"output": "\q", "input": []}"#,
                ParseErrorKind::InvalidEscape,
            ),
            (
                b"{\"output\": \"a\x01\", \"input\": []}",
                ParseErrorKind::ControlCharacter(1),
            ),
            (
                br#"{"output": 01, "input": []}"#,
                ParseErrorKind::Unexpected('1'),
            ),
            // Cut short after the key material.
            (
                br#"{"input": ["a"], "output": [{"type": "assistant""#,
                ParseErrorKind::UnexpectedEnd,
            ),
            // A merge conflict in the payload.
            (
                b"{\"input\": [\"a\"],\n<<<<<<< HEAD\n  \"output\": []\n}",
                ParseErrorKind::Unexpected('<'),
            ),
            (br#"{"input": []} {}"#, ParseErrorKind::TrailingCharacters),
        ] {
            let full = parse(bad).unwrap_err();
            let only = parse_field(bad, "input").unwrap_err();
            assert_eq!(only, full, "{}", String::from_utf8_lossy(bad));
            assert_eq!(only.kind, kind);
        }
        // A text without the field parses whole, to an object without it.
        assert!(
            parse_field(b"{\"a\": 1}", "input")
                .unwrap()
                .as_object()
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn invalid_utf8_is_located() {
        let err = parse(b"{\"a\":\n\"\xff\"}").unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::InvalidUtf8);
        assert_eq!(err.offset, 7);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(100_000);
        assert_eq!(
            parse(text.as_bytes()).unwrap_err().kind,
            ParseErrorKind::TooDeep
        );
    }

    #[test]
    fn strings_borrow_when_unescaped_and_record_spans() {
        let text = br#"{"k": "plain", "e": "a\nb"}"#;
        let value = parse(text).unwrap();
        let o = value.as_object().unwrap();
        let Value::String(plain) = o.get("k").unwrap() else {
            panic!()
        };
        assert_eq!(
            &text[plain.span().start as usize..plain.span().end as usize],
            b"\"plain\""
        );
        assert_eq!(o.get("e").unwrap().as_str(), Some("a\nb"));
    }

    #[test]
    fn lone_surrogates_are_kept_and_pairs_decoded() {
        let value = parse(br#"["\ud83d\ude00", "\ud800x", "\udc00\ud800"]"#).unwrap();
        let items = value.as_array().unwrap();
        let Value::String(pair) = &items[0] else {
            panic!()
        };
        assert_eq!(pair.as_str(), "😀");
        assert!(!pair.has_lone_surrogates());
        let Value::String(lone) = &items[1] else {
            panic!()
        };
        assert!(lone.has_lone_surrogates());
        assert_eq!(lone.as_str(), "\u{100000}x");
    }

    #[test]
    fn lone_surrogates_next_to_stand_in_characters_are_refused() {
        let err = parse("\"\\ud800\u{100001}\"".as_bytes()).unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::Unrepresentable);
    }

    /// What `parse_streamed_at` gives for a document: each part as a line.
    fn streamed_at(text: &str, path: &[&str]) -> Result<(Streamed, Vec<String>), ParseError> {
        let compact = |v: &Value<'_>| String::from_utf8(super::super::to_compact(v)).unwrap();
        let mut parts = Vec::new();
        let streamed = parse_streamed_at(text.as_bytes(), path, false, &mut |part| {
            parts.push(match part {
                Part::Field(k, v) => format!("field {} {}", k.as_str(), compact(&v)),
                Part::Nested(k, v) => format!("nested {} {}", k.as_str(), compact(&v)),
                Part::Begin(k) => format!("begin {}", k.as_str()),
                Part::Item(v, span) => format!(
                    "item {} {}",
                    compact(&v),
                    &text[span.start as usize..span.end as usize]
                ),
                Part::Canonical(..) => "canonical".into(),
                Part::End => "end".into(),
            });
            true
        })?;
        Ok((streamed, parts))
    }

    #[test]
    fn an_array_nested_in_objects_streams_an_item_at_a_time() {
        let text =
            r#"{"log": {"version": "1.2", "entries": [{"a": 1}, [2] ], "pages": []}, "x": null}"#;
        let (streamed, parts) = streamed_at(text, &["log", "entries"]).unwrap();
        assert_eq!(streamed, Streamed::Done);
        assert_eq!(
            parts,
            [
                r#"nested version "1.2""#,
                "begin entries",
                r#"item {"a":1} {"a": 1}"#,
                "item [2] [2]",
                "end",
                "nested pages []",
                "field x null",
            ]
        );
        // A path that leads to no array: every field whole, no `begin`.
        let (streamed, parts) =
            streamed_at(r#"{"log": {"entries": 3}}"#, &["log", "entries"]).unwrap();
        assert_eq!(
            (streamed, parts),
            (Streamed::Done, vec!["nested entries 3".to_owned()])
        );
        // Keys JavaScript would order otherwise, or repeat, at any level on the way: whole.
        for text in [
            r#"{"log": {"entries": [], "entries": []}}"#,
            r#"{"log": {"1": 0, "entries": []}}"#,
            r#"{"log": {"entries": []}, "log": 1}"#,
        ] {
            assert_eq!(
                streamed_at(text, &["log", "entries"]).unwrap().0,
                Streamed::Whole,
                "{text}"
            );
        }
        // The grammar is checked to the end, with `parse`'s errors at its offsets.
        for text in [
            r#"{"log": {"entries": [{"a": 1}, {"a": }]}}"#,
            r#"{"log": {"entries": [1]}} x"#,
            r#"{"log": {"entries": [1]"#,
        ] {
            let whole = parse(text.as_bytes()).unwrap_err();
            let streamed = streamed_at(text, &["log", "entries"]).unwrap_err();
            assert_eq!(
                (streamed.kind, streamed.offset),
                (whole.kind, whole.offset),
                "{text}"
            );
        }
    }

    #[test]
    fn a_top_level_array_streams_an_item_at_a_time() {
        let text = r#" [{"a": 1}, [2] , "x"] "#;
        let mut parts = Vec::new();
        let streamed = parse_streamed_array(text.as_bytes(), &mut |part| {
            parts.push(match part {
                Part::Begin(k) => format!("begin {:?}", k.as_str()),
                Part::Item(v, span) => format!(
                    "item {} {}",
                    String::from_utf8(super::super::to_compact(&v)).unwrap(),
                    &text[span.start as usize..span.end as usize]
                ),
                Part::End => "end".into(),
                _ => "other".into(),
            });
            true
        });
        assert_eq!(streamed, Ok(Streamed::Done));
        assert_eq!(
            parts,
            [
                r#"begin """#,
                r#"item {"a":1} {"a": 1}"#,
                "item [2] [2]",
                r#"item "x" "x""#,
                "end",
            ]
        );
        // Not an array: read whole.
        let whole = parse_streamed_array(br#"{"a": []}"#, &mut |_| true);
        assert_eq!(whole, Ok(Streamed::Whole));
        // The grammar is checked to the end, with `parse`'s errors at its offsets.
        for text in [r#"[{"a": 1}, {"a": }]"#, "[1] x", "[1", "[1,]"] {
            let whole = parse(text.as_bytes()).unwrap_err();
            let streamed = parse_streamed_array(text.as_bytes(), &mut |_| true).unwrap_err();
            assert_eq!(
                (streamed.kind, streamed.offset),
                (whole.kind, whole.offset),
                "{text}"
            );
        }
    }
}
