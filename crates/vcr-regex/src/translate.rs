//! JavaScript regex syntax (without the `u` flag, with Annex B) to the `regex` crate's `Hir`.
//!
//! The translation keeps JavaScript's meanings: `\d`, `\w` and `\b` are ASCII, `\s` is
//! ECMAScript's WhiteSpace and LineTerminator set, `.` stops at `\n`, `\r`, U+2028 and
//! U+2029 unless `s`, `i` compares `Canonicalize`d characters ([`super::fold`]), `[^]`
//! matches anything and `[]` nothing, `\cX`, `\xHH` and `\uHHHH` are characters, and an
//! unknown escape (`\/`, `\a`, `\u{3}` without `u`) is the character itself. The patterns
//! are built as `Hir` directly, so nothing is re-escaped for another syntax.
//!
//! Whatever the `regex` crate cannot mean exactly is declined (`None`), and the caller keeps
//! `regress`: look-around and back-references, which need backtracking; legacy octal escapes;
//! a repetition whose body can match the empty string (JavaScript rejects an empty
//! iteration and backtracks into the body, the `regex` crate accepts it: `/(?:|a)*/` takes
//! `aa` in JavaScript, nothing in Rust); capture groups that may sit out a repeated
//! iteration (JavaScript resets them each time round: `/(?:(a)|b)+/` leaves group 1
//! `undefined` on `ab`); `^` and `$` under `m` (JavaScript's line terminators are four);
//! characters outside the Basic Multilingual Plane in the pattern (two code units each to
//! JavaScript); surrogate escapes; modifier groups; and the `u`, `v` and `y` flags.
//!
//! [`Mode::Superset`] translates the declined features into something that matches at
//! least as much (a look-around becomes empty, a back-reference `.*`): a prefilter that
//! tells, in linear time, that a backtracking pattern cannot match a string at all.

use regex_syntax::hir::{Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition};

use super::fold;
use super::{Flags, MAX_NESTING};

/// What the translation must mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Exactly what JavaScript means, captures included.
    Exact,
    /// Matches wherever JavaScript matches (and maybe elsewhere); no captures.
    Superset,
}

/// A translated pattern.
#[derive(Debug)]
pub(super) struct Translation {
    /// The pattern for the `regex` crate.
    pub(super) hir: Hir,
    /// Named groups and their numbers (`Exact` only).
    pub(super) names: Vec<(String, usize)>,
    /// How many capture groups the pattern has (`Exact` only).
    pub(super) captures: usize,
}

/// Translates `pattern`, or `None` when the `regex` crate cannot mean the same.
///
/// The pattern is expected to be valid JavaScript (the caller compiled it with `regress`
/// first) and within the limits; anything unexpected is declined, never guessed.
pub(super) fn translate(pattern: &str, flags: Flags, mode: Mode) -> Option<Translation> {
    if flags.unicode || flags.unicode_sets || flags.sticky {
        return None;
    }
    let mut parser = Parser {
        chars: pattern.chars().collect(),
        pos: 0,
        flags,
        mode,
        captures: 0,
        names: Vec::new(),
        leading: None,
        trailing: None,
        alternatives: 0,
    };
    let mut hir = parser.disjunction(0)?;
    if parser.pos != parser.chars.len() {
        return None;
    }
    // A match of `(?<=X)Y` is preceded by a match of X, one of `Y(?=X)` followed by one:
    // `XY` and `YX` match wherever they do, and are far better prefilters than `Y` alone
    // (`(?<=token=)\w+`).
    if parser.alternatives == 1 {
        let leading = parser.leading.take().into_iter();
        let trailing = parser.trailing.take().into_iter();
        hir = Hir::concat(leading.chain([hir]).chain(trailing).collect());
    }
    let captures = match mode {
        Mode::Exact => parser.captures,
        Mode::Superset => 0,
    };
    // The smart constructors never drop a capture group the parser kept; make sure.
    if hir.properties().explicit_captures_len() != captures {
        return None;
    }
    Some(Translation {
        hir,
        names: parser.names,
        captures,
    })
}

/// A class item: one character (which can end a range) or a set (which cannot).
enum ClassAtom {
    Char(char),
    Set(ClassUnicode),
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    flags: Flags,
    mode: Mode,
    captures: usize,
    names: Vec<(String, usize)>,
    /// `Superset`: the look-behind the pattern starts with, if it does.
    leading: Option<Hir>,
    /// `Superset`: the look-ahead the pattern ends with, if it does.
    trailing: Option<Hir>,
    /// How many alternatives the whole pattern has.
    alternatives: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        self.pos += usize::from(found);
        found
    }

    fn eat_str(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        let found = self.chars.len() >= self.pos + n
            && self.chars[self.pos..self.pos + n]
                .iter()
                .copied()
                .eq(s.chars());
        if found {
            self.pos += n;
        }
        found
    }

    fn disjunction(&mut self, depth: usize) -> Option<Hir> {
        if depth > MAX_NESTING {
            return None;
        }
        let mut alternatives = vec![self.alternative(depth)?];
        while self.eat('|') {
            alternatives.push(self.alternative(depth)?);
        }
        if depth == 0 {
            self.alternatives = alternatives.len();
        }
        Some(Hir::alternation(alternatives))
    }

    fn alternative(&mut self, depth: usize) -> Option<Hir> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            items.push(self.term(depth)?);
        }
        Some(Hir::concat(items))
    }

    fn term(&mut self, depth: usize) -> Option<Hir> {
        let assertion = match (self.peek()?, self.peek_at(1)) {
            ('^', _) => Some(Look::Start),
            ('$', _) => Some(Look::End),
            ('\\', Some('b')) => Some(Look::WordAscii),
            ('\\', Some('B')) => Some(Look::WordAsciiNegate),
            _ => None,
        };
        if let Some(look) = assertion {
            self.pos += if matches!(look, Look::Start | Look::End) {
                1
            } else {
                2
            };
            // JavaScript's `m` has four line terminators; Rust's `(?m)` knows `\n` only.
            if self.flags.multiline && matches!(look, Look::Start | Look::End) {
                return None;
            }
            return Some(Hir::look(look));
        }
        if self.peek() == Some('(') && self.peek_at(1) == Some('?') {
            let start = self.pos;
            let lookaround = ["(?=", "(?!", "(?<=", "(?<!"]
                .into_iter()
                .find(|opener| self.eat_str(opener));
            if lookaround == Some("(?<=") && start == 0 && self.mode == Mode::Superset {
                let behind = self.disjunction(depth + 1)?;
                self.leading = Some(behind);
                return self.eat(')').then(Hir::empty);
            }
            if lookaround == Some("(?=") && depth == 0 && self.mode == Mode::Superset {
                let ahead = self.disjunction(depth + 1)?;
                if !self.eat(')') {
                    return None;
                }
                if self.pos == self.chars.len() {
                    self.trailing = Some(ahead);
                }
                return self.quantified(Hir::empty());
            }
            if lookaround.is_some() {
                // JavaScript without `u` (Annex B) may quantify a look-ahead.
                return self.lookaround(depth);
            }
        }
        let atom = self.atom(depth)?;
        self.quantified(atom)
    }

    /// The rest of a look-around: the superset treats it as empty (it only constrains).
    fn lookaround(&mut self, depth: usize) -> Option<Hir> {
        if self.mode == Mode::Exact {
            return None;
        }
        self.disjunction(depth + 1)?;
        if !self.eat(')') {
            return None;
        }
        let empty = Hir::empty();
        self.quantified(empty)
    }

    /// Applies a quantifier following `atom`, if there is one.
    fn quantified(&mut self, atom: Hir) -> Option<Hir> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match self.braced()? {
                Some((min, max, len)) => {
                    self.pos += len - 1;
                    (min, max)
                }
                None => return Some(atom),
            },
            _ => return Some(atom),
        };
        self.pos += 1;
        let greedy = !self.eat('?');
        if max.is_some_and(|max| max < min) {
            return None;
        }
        if self.mode == Mode::Exact {
            let props = atom.properties();
            let repeats = max != Some(min);
            // JavaScript refuses an empty iteration beyond the minimum and backtracks.
            if repeats && props.minimum_len() == Some(0) {
                return None;
            }
            // JavaScript clears the captures of a repeated atom at each iteration.
            let groups = props.explicit_captures_len();
            let every_group_every_time = props.static_explicit_captures_len() == Some(groups);
            if groups > 0 && max.is_none_or(|max| max > 1) && !every_group_every_time {
                return None;
            }
            if groups > 0 && max == Some(0) {
                return None;
            }
        }
        Some(Hir::repetition(Repetition {
            min,
            max,
            greedy,
            sub: Box::new(atom),
        }))
    }

    /// A braced quantifier at the cursor (`{n}`, `{n,}`, `{n,m}`): `Some(None)` when the
    /// brace is a literal (JavaScript without `u`), `Some(Some((min, max, length)))` for a
    /// quantifier, `None` for one whose numbers the `regex` crate cannot take (declined).
    #[allow(clippy::option_option)]
    fn braced(&self) -> Option<Option<(u32, Option<u32>, usize)>> {
        let rest = &self.chars[self.pos..];
        let digits = |from: usize| {
            rest[from.min(rest.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count()
        };
        let number = |from: usize, len: usize| -> Option<u32> {
            rest[from..from + len]
                .iter()
                .collect::<String>()
                .parse()
                .ok()
        };
        if rest.first() != Some(&'{') {
            return Some(None);
        }
        let min_len = digits(1);
        if min_len == 0 {
            return Some(None);
        }
        let mut end = 1 + min_len;
        let max_len = if rest.get(end) == Some(&',') {
            let len = digits(end + 1);
            end += 1 + len;
            Some(len)
        } else {
            None
        };
        if rest.get(end) != Some(&'}') {
            return Some(None);
        }
        let min = number(1, min_len)?;
        let max = match max_len {
            None => Some(min),
            Some(0) => None,
            Some(len) => Some(number(2 + min_len, len)?),
        };
        Some(Some((min, max, end + 1)))
    }

    fn atom(&mut self, depth: usize) -> Option<Hir> {
        let c = self.peek()?;
        self.pos += 1;
        match c {
            '.' => {
                let mut class = if self.flags.dot_all {
                    ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)])
                } else {
                    line_terminators()
                };
                if !self.flags.dot_all {
                    class.negate();
                }
                Some(self.class(class))
            }
            '[' => self.bracket(),
            '(' => self.group(depth),
            '\\' => self.atom_escape(),
            // A quantifier with nothing to repeat, or a brace that is one: a syntax error.
            '*' | '+' | '?' | ')' | '|' => None,
            '{' if {
                self.pos -= 1;
                let literal = self.braced() == Some(None);
                self.pos += 1;
                !literal
            } =>
            {
                None
            }
            c => self.char(c),
        }
    }

    fn group(&mut self, depth: usize) -> Option<Hir> {
        let capture = if self.eat('?') {
            if self.eat(':') {
                None
            } else if self.eat('<') {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '>' && c != '\\') {
                    self.pos += 1;
                }
                if !self.eat('>') {
                    return None;
                }
                let name: String = self.chars[start..self.pos - 1].iter().collect();
                Some(Some(name))
            } else {
                return None;
            }
        } else {
            Some(None)
        };
        let index = match (&capture, self.mode) {
            (Some(name), Mode::Exact) => {
                self.captures += 1;
                if let Some(name) = name {
                    // Duplicate names (ES2025, in separate alternatives) are left to regress.
                    if self.names.iter().any(|(n, _)| n == name) {
                        return None;
                    }
                    self.names.push((name.clone(), self.captures));
                }
                Some(self.captures)
            }
            _ => None,
        };
        let sub = self.disjunction(depth + 1)?;
        if !self.eat(')') {
            return None;
        }
        Some(match index {
            Some(index) => Hir::capture(Capture {
                index: u32::try_from(index).ok()?,
                name: None,
                sub: Box::new(sub),
            }),
            None => sub,
        })
    }

    /// An escape outside a class (`\b` and `\B` are assertions, handled by `term`).
    fn atom_escape(&mut self) -> Option<Hir> {
        let c = self.peek()?;
        if let Some(set) = class_escape(c) {
            self.pos += 1;
            return Some(self.class(set));
        }
        match c {
            '1'..='9' | 'k' => {
                // A back-reference (or, without such a group, a legacy octal escape).
                if self.mode == Mode::Exact || c == 'k' {
                    return None;
                }
                self.pos += 1;
                while self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    self.pos += 1;
                }
                let any = ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)]);
                Some(Hir::repetition(Repetition {
                    min: 0,
                    max: None,
                    greedy: true,
                    sub: Box::new(Hir::class(Class::Unicode(any))),
                }))
            }
            _ => {
                let c = self.character_escape(false)?;
                self.char(c)
            }
        }
    }

    /// A character escape after `\` (the cursor on the letter); `in_class` allows `\b`
    /// (backspace) and `\c` with a digit or `_`.
    fn character_escape(&mut self, in_class: bool) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        let hex = |parser: &mut Parser, digits: usize| -> Option<u32> {
            let text: String = parser
                .chars
                .get(parser.pos..parser.pos + digits)?
                .iter()
                .collect();
            if text.len() != digits || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            parser.pos += digits;
            u32::from_str_radix(&text, 16).ok()
        };
        Some(match c {
            'f' => '\x0C',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0B',
            'b' if in_class => '\x08',
            'c' => {
                let letter = self.peek()?;
                let ok = letter.is_ascii_alphabetic()
                    || (in_class && (letter.is_ascii_digit() || letter == '_'));
                // Otherwise `\c` is a backslash and a `c` (Annex B): declined.
                if !ok {
                    return None;
                }
                self.pos += 1;
                char::from_u32(letter as u32 % 32)?
            }
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => '\0',
            // Legacy octal escapes.
            '0'..='9' => return None,
            'x' => match hex(self, 2) {
                Some(n) => char::from_u32(n)?,
                None => 'x',
            },
            'u' => match hex(self, 4) {
                // A surrogate is half a character here: declined.
                Some(n) => char::from_u32(n)?,
                None => 'u',
            },
            'k' => return None,
            c if (c as u32) > 0xFFFF => return None,
            // Identity escapes: `\/`, `\.`, `\a`, `\p` (no `u`), ...
            c => c,
        })
    }

    fn bracket(&mut self) -> Option<Hir> {
        let negated = self.eat('^');
        let mut set = ClassUnicode::empty();
        loop {
            if self.eat(']') {
                break;
            }
            let first = self.class_atom()?;
            let range_follows =
                self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']');
            if !range_follows {
                add(&mut set, first);
                continue;
            }
            self.pos += 1;
            let second = self.class_atom()?;
            match (first, second) {
                (ClassAtom::Char(a), ClassAtom::Char(b)) => {
                    if a > b {
                        return None;
                    }
                    set.push(ClassUnicodeRange::new(a, b));
                }
                // A class escape cannot bound a range: both and `-` (Annex B).
                (first, second) => {
                    add(&mut set, first);
                    add(&mut set, ClassAtom::Char('-'));
                    add(&mut set, second);
                }
            }
        }
        if self.flags.ignore_case {
            fold::close_over_case(&mut set);
        }
        if negated {
            set.negate();
        }
        Some(Hir::class(Class::Unicode(set)))
    }

    fn class_atom(&mut self) -> Option<ClassAtom> {
        let c = self.peek()?;
        self.pos += 1;
        if c != '\\' {
            return (c as u32 <= 0xFFFF).then_some(ClassAtom::Char(c));
        }
        let next = self.peek()?;
        if let Some(set) = class_escape(next) {
            self.pos += 1;
            return Some(ClassAtom::Set(set));
        }
        if next == '-' {
            self.pos += 1;
            return Some(ClassAtom::Char('-'));
        }
        self.character_escape(true).map(ClassAtom::Char)
    }

    /// A literal character.
    fn char(&self, c: char) -> Option<Hir> {
        if c as u32 > 0xFFFF {
            return None;
        }
        if self.flags.ignore_case {
            let same = fold::equivalents(c);
            if !same.is_empty() {
                let ranges = same.iter().map(|&c| ClassUnicodeRange::new(c, c));
                return Some(Hir::class(Class::Unicode(ClassUnicode::new(ranges))));
            }
        }
        let mut buf = [0; 4];
        Some(Hir::literal(c.encode_utf8(&mut buf).as_bytes()))
    }

    /// A class outside brackets (an escape, `.`), case-closed under `i`.
    fn class(&self, mut set: ClassUnicode) -> Hir {
        if self.flags.ignore_case {
            fold::close_over_case(&mut set);
        }
        Hir::class(Class::Unicode(set))
    }
}

fn add(set: &mut ClassUnicode, atom: ClassAtom) {
    match atom {
        ClassAtom::Char(c) => set.push(ClassUnicodeRange::new(c, c)),
        ClassAtom::Set(other) => set.union(&other),
    }
}

/// `\n`, `\r`, U+2028, U+2029.
fn line_terminators() -> ClassUnicode {
    ClassUnicode::new(['\n', '\r', '\u{2028}', '\u{2029}'].map(|c| ClassUnicodeRange::new(c, c)))
}

/// ECMAScript's WhiteSpace and LineTerminator (Rust's Unicode `\s` differs: it has U+0085
/// and lacks U+FEFF).
fn whitespace() -> ClassUnicode {
    ClassUnicode::new(
        [
            ('\t', '\r'),
            (' ', ' '),
            ('\u{A0}', '\u{A0}'),
            ('\u{1680}', '\u{1680}'),
            ('\u{2000}', '\u{200A}'),
            ('\u{2028}', '\u{2029}'),
            ('\u{202F}', '\u{202F}'),
            ('\u{205F}', '\u{205F}'),
            ('\u{3000}', '\u{3000}'),
            ('\u{FEFF}', '\u{FEFF}'),
        ]
        .map(|(a, b)| ClassUnicodeRange::new(a, b)),
    )
}

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W`: ASCII digits and word characters, as without `u`.
fn class_escape(c: char) -> Option<ClassUnicode> {
    let mut set = match c.to_ascii_lowercase() {
        'd' => ClassUnicode::new([ClassUnicodeRange::new('0', '9')]),
        'w' => ClassUnicode::new(
            [('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')]
                .map(|(a, b)| ClassUnicodeRange::new(a, b)),
        ),
        's' => whitespace(),
        _ => return None,
    };
    if c.is_ascii_uppercase() {
        set.negate();
    }
    Some(set)
}
