//! libyaml's scalar writers, for one scalar written in the middle of a document.
//!
//! PyYAML (its `CDumper`, which vcrpy uses), Psych and `gopkg.in/yaml.v2` all write scalars
//! with libyaml's emitter (yaml.v2 through its Go port). A rewritten scalar that goes through
//! the same steps (`yaml_emitter_analyze_scalar`, `yaml_emitter_select_scalar_style`, the
//! `write_*_scalar` functions with their column, indentation and width) comes out the way the
//! recorder would have written the new value at that place, folded lines included.

/// What libyaml's `yaml_emitter_analyze_scalar` finds in a value: which styles can hold it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Analysis {
    /// A plain scalar in block context can hold it.
    pub(super) block_plain: bool,
    /// A plain scalar inside `[...]` or `{...}` can hold it.
    pub(super) flow_plain: bool,
    /// A single-quoted scalar can hold it.
    pub(super) single_quoted: bool,
    /// A literal or folded block can hold it.
    pub(super) block: bool,
}

/// Whether libyaml writes `c` as it is (`IS_PRINTABLE`): not a control character, not a
/// byte-order mark, not a non-character, and not above the Basic Multilingual Plane.
pub(super) fn printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// libyaml's line breaks (`IS_BREAK`).
pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Each character of `value` with the one before it and the one after it: what the emitter's
/// rules look at, without a `Vec<char>` of the whole value (four bytes a character: scrubbing
/// a 300 MB body took 1.2 GB more for each pass that made one, issue 25).
pub(super) fn with_neighbours(
    value: &str,
) -> impl Iterator<Item = (Option<char>, char, Option<char>)> + '_ {
    let mut before = None;
    let mut chars = value.chars().peekable();
    std::iter::from_fn(move || {
        let c = chars.next()?;
        let item = (before, c, chars.peek().copied());
        before = Some(c);
        Some(item)
    })
}

/// `yaml_emitter_analyze_scalar`; `unicode` is the emitter's setting (PyYAML's
/// `allow_unicode`, on in Psych and yaml.v2).
pub(super) fn analyze(value: &str, unicode: bool) -> Analysis {
    if value.is_empty() {
        return Analysis {
            block_plain: true,
            flow_plain: false,
            single_quoted: true,
            block: false,
        };
    }
    let (mut block_indicators, mut flow_indicators) = (false, false);
    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (before, c, after) in with_neighbours(value) {
        let (first, last) = (before.is_none(), after.is_none());
        let followed_by_whitespace = after.is_none_or(|n| matches!(n, ' ' | '\t') || is_break(n));
        if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !printable(c) || (!unicode && !c.is_ascii()) {
            special = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t') || is_break(c);
    }
    let mut a = Analysis {
        block_plain: true,
        flow_plain: true,
        single_quoted: true,
        block: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a = Analysis {
            block_plain: false,
            flow_plain: false,
            single_quoted: false,
            block: false,
        };
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}

/// The emitter's state while it writes one scalar: what it has written and where it is.
pub(super) struct Emitter {
    pub(super) out: String,
    /// Characters since the start of the line.
    column: usize,
    /// Where continuation lines start.
    indent: usize,
    /// Past this column a space may become a line break (`usize::MAX`: never).
    width: usize,
    unicode: bool,
    /// The last character written was white space (or the line is empty).
    whitespace: bool,
    /// Only indentation is on the line so far.
    indention: bool,
    line_break: &'static str,
}

impl Emitter {
    /// An emitter at `column` of a line whose scalars continue at `indent`.
    pub(super) fn new(
        column: usize,
        indent: usize,
        width: usize,
        unicode: bool,
        line_break: &'static str,
    ) -> Emitter {
        Emitter {
            out: String::new(),
            column,
            indent,
            width,
            unicode,
            whitespace: true,
            indention: false,
            line_break,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push_str(self.line_break);
        self.column = 0;
    }

    /// A line break of the value (`\n` as the document's line break, others as they are).
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        if !self.indention
            || self.column > self.indent
            || (self.column == self.indent && !self.whitespace)
        {
            self.put_break();
        }
        while self.column < self.indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn indicator(&mut self, text: &str) {
        for c in text.chars() {
            self.put(c);
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// Room for `value` as written: grown by doubling instead, a huge scalar's new text was
    /// held at twice its size for a moment (issue 25). At most what escapes and doubled
    /// quotes add (a control character's `\x1f` 3 bytes, a byte of a character escaped as
    /// non-ASCII 4), and the line breaks and indentation of folding at the width.
    fn reserve_for(&mut self, value: &str) {
        let escapes: usize = value
            .bytes()
            .map(|b| match b {
                b'\'' | b'"' | b'\\' => 1,
                0..0x20 => 3,
                0x80.. if !self.unicode => 4,
                _ => 0,
            })
            .sum();
        let folds = match self.width {
            usize::MAX => 0,
            width => (value.len() / width.max(1) + 1) * (self.indent + 2),
        };
        self.out.reserve(value.len() + escapes + folds + 16);
    }

    /// `yaml_emitter_write_plain_scalar` (the separating space is already in the document).
    pub(super) fn plain(&mut self, value: &str) {
        self.reserve_for(value);
        let (mut spaces, mut breaks) = (false, false);
        for (_, c, after) in with_neighbours(value) {
            if c == ' ' {
                if !spaces && self.column > self.width && after != Some(' ') {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_single_quoted_scalar`, with libyaml 0.2.5's indentation of a
    /// closing quote that follows a line break.
    pub(super) fn single_quoted(&mut self, value: &str) {
        self.reserve_for(value);
        self.indicator("'");
        let (mut spaces, mut breaks) = (false, false);
        for (before, c, after) in with_neighbours(value) {
            if c == ' ' {
                if !spaces
                    && self.column > self.width
                    && before.is_some()
                    && after.is_some_and(|n| n != ' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if breaks {
            self.write_indent();
        }
        self.indicator("'");
    }

    /// `yaml_emitter_write_double_quoted_scalar`.
    pub(super) fn double_quoted(&mut self, value: &str) {
        self.reserve_for(value);
        self.indicator("\"");
        let mut spaces = false;
        for (before, c, after) in with_neighbours(value) {
            if !printable(c)
                || (!self.unicode && !c.is_ascii())
                || c == '\u{FEFF}'
                || is_break(c)
                || c == '"'
                || c == '\\'
            {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{b}' => Some('v'),
                    '\u{c}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1b}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{A0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match short {
                    Some(s) => self.put(s),
                    None => {
                        let v = c as u32;
                        let (letter, digits) = match v {
                            0..=0xFF => ('x', 2),
                            0x100..=0xFFFF => ('u', 4),
                            _ => ('U', 8),
                        };
                        self.put(letter);
                        for k in (0..digits).rev() {
                            let digit = (v >> (k * 4)) & 0xF;
                            self.put(
                                char::from_digit(digit, 16).map_or('0', |d| d.to_ascii_uppercase()),
                            );
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if !spaces && self.column > self.width && before.is_some() && after.is_some() {
                    self.write_indent();
                    if after == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"");
    }

    /// The lines of a literal block (its header already written): each line of the value at
    /// the block's indentation, empty lines empty.
    pub(super) fn literal_body(&mut self, value: &str) {
        self.reserve_for(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    /// The one line of a folded block holding a value without line breaks (its header already
    /// written), folded at single spaces past the width.
    pub(super) fn folded_line(&mut self, value: &str) {
        self.reserve_for(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        self.write_indent();
        for (before, c, after) in with_neighbours(value) {
            let single = c == ' ' && before.is_some_and(|b| b != ' ');
            if single && after.is_some_and(|n| n != ' ') && self.column > self.width {
                self.write_indent();
            } else {
                self.put(c);
                self.indention = false;
            }
        }
    }

    /// Ends the output with a line break, as a block scalar's last line does.
    pub(super) fn end_line(&mut self) {
        if self.column != 0 {
            self.put_break();
        }
    }
}
