//! JSON5 documents (talkback's tapes) read into [`Node`]s with positions.
//!
//! JSON5 is JSON with what people write by hand: comments, unquoted identifier keys,
//! single-quoted strings, trailing commas, hexadecimal numbers, a leading or trailing decimal
//! point, `+`, `Infinity` and `NaN`, line continuations and `\x` escapes in strings. Every
//! node keeps its byte span (a string's quotes included, a number as written), so a finding
//! names its line and a rewrite can replace one scalar. Strings are [`Style::DoubleQuoted`]
//! whichever quote they use (the source byte at `start` tells which); unquoted keys and
//! numbers, booleans and null are [`Style::Plain`], their text as written.
//!
//! The parser recurses once per level of nesting, and stops at [`MAX_DEPTH`].

use super::{DocError, MAX_DEPTH, Node, NodeValue, Scalar, Style};

/// Reads a JSON5 document.
pub fn parse(text: &str) -> Result<Node, DocError> {
    let mut parser = Parser { text, at: 0 };
    parser.skip_space()?;
    let node = parser.value(0)?;
    parser.skip_space()?;
    if parser.at < text.len() {
        return Err(parser.error(parser.at, "unexpected text after the document"));
    }
    Ok(node)
}

struct Parser<'t> {
    text: &'t str,
    /// The byte offset of the next character.
    at: usize,
}

/// JSON5's white space: JSON's, the ECMAScript ones, and Unicode's space separators.
fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn is_ident_start(c: char) -> bool {
    c == '$' || c == '_' || c.is_alphabetic()
}

fn is_ident_part(c: char) -> bool {
    is_ident_start(c) || c.is_alphanumeric() || matches!(c, '\u{200c}' | '\u{200d}')
}

impl Parser<'_> {
    fn error(&self, offset: usize, what: &str) -> DocError {
        DocError {
            message: format!("not valid JSON5: {what}"),
            offset,
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.at += c.len_utf8();
        }
        found
    }

    /// Skips white space and comments.
    fn skip_space(&mut self) -> Result<(), DocError> {
        loop {
            let rest = &self.text[self.at..];
            if rest.starts_with("//") {
                let end = rest.find(is_line_break).unwrap_or(rest.len());
                self.at += end;
            } else if let Some(body) = rest.strip_prefix("/*") {
                let Some(end) = body.find("*/") else {
                    return Err(self.error(self.at, "a `/*` comment is not closed"));
                };
                self.at += end + 4;
            } else {
                match self.peek() {
                    Some(c) if is_space(c) => self.at += c.len_utf8(),
                    _ => return Ok(()),
                }
            }
        }
    }

    fn scalar(&self, start: usize, text: String, style: Style) -> Node {
        Node {
            start: start as u32,
            end: self.at as u32,
            value: NodeValue::Scalar(Scalar {
                text,
                style,
                tag: None,
            }),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, DocError> {
        let start = self.at;
        match self.peek() {
            Some('{') => self.object(depth),
            Some('[') => self.array(depth),
            Some(quote @ ('"' | '\'')) => {
                let text = self.string(quote)?;
                Ok(self.scalar(start, text, Style::DoubleQuoted))
            }
            Some(c) if c.is_ascii_digit() || matches!(c, '+' | '-' | '.') => self.number(),
            Some(c) if is_ident_start(c) => {
                let word = self.identifier()?;
                match word.as_str() {
                    "null" | "true" | "false" | "Infinity" | "NaN" => {
                        Ok(self.scalar(start, word, Style::Plain))
                    }
                    _ => Err(self.error(start, &format!("unexpected word `{word}`"))),
                }
            }
            Some(c) => Err(self.error(start, &format!("unexpected character `{c}`"))),
            None => Err(self.error(start, "unexpected end of text, a value was expected")),
        }
    }

    fn enter(&self, depth: usize) -> Result<usize, DocError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(self.at, &format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(depth + 1)
    }

    fn object(&mut self, depth: usize) -> Result<Node, DocError> {
        let depth = self.enter(depth)?;
        let start = self.at;
        self.at += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_space()?;
            if self.eat('}') {
                break;
            }
            let key = self.key()?;
            self.skip_space()?;
            if !self.eat(':') {
                return Err(self.error(self.at, "expected `:` after a key"));
            }
            self.skip_space()?;
            let value = self.value(depth)?;
            entries.push((key, value));
            self.skip_space()?;
            if self.eat('}') {
                break;
            }
            if !self.eat(',') {
                return Err(self.error(self.at, "expected `,` or `}` in an object"));
            }
        }
        Ok(Node {
            start: start as u32,
            end: self.at as u32,
            value: NodeValue::Map(entries),
        })
    }

    fn key(&mut self) -> Result<Node, DocError> {
        let start = self.at;
        match self.peek() {
            Some(quote @ ('"' | '\'')) => {
                let text = self.string(quote)?;
                Ok(self.scalar(start, text, Style::DoubleQuoted))
            }
            Some(c) if is_ident_start(c) || c == '\\' => {
                let text = self.identifier()?;
                Ok(self.scalar(start, text, Style::Plain))
            }
            Some(c) => Err(self.error(
                start,
                &format!("unexpected character `{c}`, a key was expected"),
            )),
            None => Err(self.error(start, "unexpected end of text in an object")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node, DocError> {
        let depth = self.enter(depth)?;
        let start = self.at;
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space()?;
            if self.eat(']') {
                break;
            }
            items.push(self.value(depth)?);
            self.skip_space()?;
            if self.eat(']') {
                break;
            }
            if !self.eat(',') {
                return Err(self.error(self.at, "expected `,` or `]` in an array"));
            }
        }
        Ok(Node {
            start: start as u32,
            end: self.at as u32,
            value: NodeValue::Seq(items),
        })
    }

    /// An identifier (a key, or `null`, `true`, `Infinity`...), `\uXXXX` escapes resolved.
    fn identifier(&mut self) -> Result<String, DocError> {
        let mut out = String::new();
        loop {
            let at = self.at;
            match self.peek() {
                Some('\\') => {
                    self.at += 1;
                    if !self.eat('u') {
                        return Err(self.error(at, "only `\\u` escapes may appear in a key"));
                    }
                    let c = self.unicode_escape(at)?;
                    let fits = if out.is_empty() {
                        is_ident_start(c)
                    } else {
                        is_ident_part(c)
                    };
                    if !fits {
                        return Err(self.error(at, "the escape is not a letter of a key"));
                    }
                    out.push(c);
                }
                Some(c)
                    if (out.is_empty() && is_ident_start(c))
                        || (!out.is_empty() && is_ident_part(c)) =>
                {
                    self.at += c.len_utf8();
                    out.push(c);
                }
                _ => return Ok(out),
            }
        }
    }

    /// A number as ECMAScript writes one: an optional sign, then `Infinity`, `NaN`, a hex
    /// integer, or decimal digits with an optional point (leading or trailing) and exponent.
    fn number(&mut self) -> Result<Node, DocError> {
        let start = self.at;
        let _ = self.eat('+') || self.eat('-');
        let rest = &self.text[self.at..];
        let ok = if let Some(word) = ["Infinity", "NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w))
        {
            self.at += word.len();
            true
        } else if rest.starts_with("0x") || rest.starts_with("0X") {
            self.at += 2;
            self.digits(|c| c.is_ascii_hexdigit()) > 0
        } else {
            // `01` is an octal literal in old ECMAScript, not JSON5.
            let octal =
                rest.len() > 1 && rest.starts_with('0') && rest.as_bytes()[1].is_ascii_digit();
            let int = self.digits(|c| c.is_ascii_digit());
            let frac = if self.eat('.') {
                self.digits(|c| c.is_ascii_digit())
            } else {
                0
            };
            let mantissa = int > 0 || frac > 0;
            let mut exponent = true;
            if mantissa && matches!(self.peek(), Some('e' | 'E')) {
                self.at += 1;
                let _ = self.eat('+') || self.eat('-');
                exponent = self.digits(|c| c.is_ascii_digit()) > 0;
            }
            mantissa && exponent && !octal
        };
        let ends_well = self.peek().is_none_or(|c| !is_ident_part(c) && c != '.');
        if !ok || !ends_well {
            return Err(self.error(start, "not a number"));
        }
        Ok(self.scalar(start, self.text[start..self.at].to_owned(), Style::Plain))
    }

    fn digits(&mut self, is_digit: impl Fn(char) -> bool) -> usize {
        let len = self.text[self.at..]
            .find(|c: char| !is_digit(c))
            .unwrap_or(self.text.len() - self.at);
        self.at += len;
        len
    }

    fn string(&mut self, quote: char) -> Result<String, DocError> {
        let start = self.at;
        self.at += 1;
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote, backslash or line break at once.
            let rest = &self.text[self.at..];
            let run = rest.find([quote, '\\', '\n', '\r']).unwrap_or(rest.len());
            out.push_str(&rest[..run]);
            self.at += run;
            let at = self.at;
            match self.bump() {
                Some(c) if c == quote => return Ok(out),
                Some('\\') => self.escape(at, &mut out)?,
                Some(_) => return Err(self.error(at, "a line break inside a string")),
                None => return Err(self.error(start, "a string is not closed")),
            }
        }
    }

    /// The escape after a backslash at `at`, appended to `out`.
    fn escape(&mut self, at: usize, out: &mut String) -> Result<(), DocError> {
        let Some(c) = self.bump() else {
            return Err(self.error(at, "a string is not closed"));
        };
        match c {
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => out.push('\0'),
            '1'..='9' | '0' => return Err(self.error(at, "a digit may not be escaped")),
            'x' => {
                let hex = self
                    .hex(2)
                    .ok_or_else(|| self.error(at, "`\\x` needs two hex digits"))?;
                out.push(char::from_u32(hex).unwrap_or('\u{fffd}'));
            }
            'u' => out.push(self.unicode_escape(at)?),
            // A line continuation: the backslash and the line break are nothing.
            '\r' => {
                let _ = self.eat('\n');
            }
            '\n' | '\u{2028}' | '\u{2029}' => {}
            other => out.push(other),
        }
        Ok(())
    }

    /// The character of a `\uXXXX` escape (after the `u`), pairing surrogates; a lone
    /// surrogate is U+FFFD, as a Rust string cannot hold it.
    fn unicode_escape(&mut self, at: usize) -> Result<char, DocError> {
        let bad = |p: &Self| p.error(at, "`\\u` needs four hex digits");
        let high = self.hex(4).ok_or_else(|| bad(self))?;
        if (0xd800..0xdc00).contains(&high) && self.text[self.at..].starts_with("\\u") {
            let save = self.at;
            self.at += 2;
            match self.hex(4) {
                Some(low) if (0xdc00..0xe000).contains(&low) => {
                    let c = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
                    return Ok(char::from_u32(c).unwrap_or('\u{fffd}'));
                }
                _ => self.at = save,
            }
        }
        Ok(char::from_u32(high).unwrap_or('\u{fffd}'))
    }

    fn hex(&mut self, len: usize) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + len)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += len;
        u32::from_str_radix(digits, 16).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_DEPTH, Node, Style, parse};

    /// The text of the scalar a one-value document holds.
    #[track_caller]
    fn text(doc: &str) -> String {
        parse(doc)
            .unwrap()
            .as_scalar()
            .expect("a scalar")
            .text
            .clone()
    }

    /// Values are what the `json5` package (2.x, the reference parser) reads from the same
    /// text; numbers keep their source text.
    #[test]
    fn reads_what_json5_reads() {
        #[track_caller]
        fn case(doc: &str, expected: &str) {
            assert_eq!(text(doc), expected, "{doc:?}");
        }
        case("0x1F", "0x1F");
        case("+.5", "+.5");
        case("5.", "5.");
        case("1.e5", "1.e5");
        case("-Infinity", "-Infinity");
        case("NaN", "NaN");
        case("\"a\\\nb\"", "ab");
        case("'a\\\r\nb'", "ab");
        case("\"a\\\u{2028}b\"", "ab");
        case("\"\\x41\\u00e9\\v\\0\"", "A\u{e9}\u{b}\0");
        case("'it\\x27s'", "it's");
        case("'say \"hi\"'", "say \"hi\"");
        case("\"\\a\"", "a");
        case("\"\\ud83d\\ude00\"", "\u{1F600}");
        case("\"\\ud83d\"", "\u{fffd}");
        case("\"line\u{2028}sep\"", "line\u{2028}sep");
    }

    #[test]
    fn rejects_what_json5_rejects() {
        #[track_caller]
        fn case(doc: &str, offset: usize) {
            let e = parse(doc).unwrap_err();
            assert!(e.message.starts_with("not valid JSON5: "), "{}", e.message);
            assert_eq!(e.offset, offset, "{doc:?}: {}", e.message);
        }
        case("01", 0);
        case("00", 0);
        case(".e5", 0);
        case("\"\\08\"", 1);
        case("\"\\8\"", 1);
        case("{a:1 b:2}", 5);
        case("{\"a\": 1", 7);
        case("\"open", 0);
        case("\"a\nb\"", 2);
        case("/* open", 0);
        case("[1] 2", 4);
        case("{a: undefined}", 4);
        case("", 0);
        // Offsets are bytes.
        case("{\"é\": x}", 7);
    }

    #[test]
    fn reads_a_talkback_tape_with_positions() {
        let doc = "// This file is in JSON5 format, so it can have comments\n{\n    meta: {\n        createdAt: '2017-09-10T23:19:27.010Z', /* block */\n    },\n    \"req\": {\n        \"url\": \"/test/3\",\n        headers: {accept: \"*/*\",},\n        body: \"\",\n    },\n    \"res\": {status: 0x0C8, body: [1, 2,]},\n}\n";
        let root = parse(doc).unwrap();
        let span = |n: &Node| &doc[n.start as usize..n.end as usize];
        assert!(span(&root).starts_with('{') && span(&root).ends_with('}'));
        let created = root.get("meta").and_then(|m| m.get("createdAt")).unwrap();
        assert_eq!(created.as_str(), Some("2017-09-10T23:19:27.010Z"));
        assert_eq!(span(created), "'2017-09-10T23:19:27.010Z'");
        let req = root.get("req").unwrap();
        assert_eq!(req.get("url").map(span), Some("\"/test/3\""));
        assert_eq!(req.get("headers").map(span), Some("{accept: \"*/*\",}"));
        let (key, _) = &req.get("headers").unwrap().as_map().unwrap()[0];
        assert_eq!(
            (span(key), key.as_scalar().unwrap().style),
            ("accept", Style::Plain)
        );
        assert_eq!(req.get("body").and_then(Node::as_str), Some(""));
        let res = root.get("res").unwrap();
        assert_eq!(res.get("status").map(span), Some("0x0C8"));
        assert_eq!(
            res.get("body").and_then(Node::as_seq).map(<[_]>::len),
            Some(2)
        );
    }

    #[test]
    fn keys_may_be_identifiers_with_escapes() {
        let root = parse("{\\u0061b: 1, $x_1: 2, ünï: 3, 'q': 4, null: 5}").unwrap();
        let keys: Vec<&str> = root
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_scalar().unwrap().text.as_str())
            .collect();
        assert_eq!(keys, ["ab", "$x_1", "ünï", "q", "null"]);
    }

    /// Issue 9: crafted input must not overflow the stack.
    #[test]
    fn nesting_is_bounded() {
        let e = parse(&"[".repeat(100_000)).unwrap_err();
        assert_eq!(
            e.message,
            format!("not valid JSON5: nesting deeper than {MAX_DEPTH} levels")
        );
        assert_eq!(e.offset, MAX_DEPTH);
        let fine = format!(
            "{}1{}",
            "[{a:".repeat(MAX_DEPTH / 2),
            "}]".repeat(MAX_DEPTH / 2)
        );
        assert!(parse(&fine).is_ok());
    }
}
