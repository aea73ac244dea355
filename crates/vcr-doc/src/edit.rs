//! Rewriting one scalar of a document in place, and nothing else.
//!
//! `vcr normalize` scrubs a credential out of a cassette that a recorder wrote. Writing the
//! whole document again would reformat every line of it (key order, quoting, folding, line
//! width all differ between PyYAML, Psych and Go's YAML), burying the one change in a diff
//! nobody reviews. So a change is an [`Edit`]: the byte range of one scalar as it stands in
//! the file (quotes or block indicator included, tag and anchor excluded) and the text that
//! replaces it, written so that the recorder's own loader reads back exactly the new value.
//!
//! The new text is what the recorder's writer would have written for the new value at that
//! place, in the scalar's own style where that style can hold the value:
//! - YAML goes through libyaml's scalar writers (`emit`), which PyYAML's `CDumper`, Psych and
//!   yaml.v2 share: a plain scalar stays plain when the loader reads the new value as that
//!   string (`resolve`: `yes`, `~`, `1_000`, `12:30`, `2024-01-01` are not) and nothing in it
//!   would start a comment, sequence or mapping, else it is quoted as the writer quotes;
//!   quoted scalars keep their quotes, and are folded again at the width and continuation
//!   indentation the original shows (80 and two more than their parent when it shows none);
//!   a literal or folded block keeps its header and indentation, the chomping indicator
//!   changed only when the new value's trailing line breaks need another; what a style
//!   cannot hold (control characters, a line break after a space...) is double-quoted.
//!   PyYAML writes non-ASCII characters escaped unless `allow_unicode` was on, so a file
//!   that is all ASCII stays so.
//! - JSON is escaped as the writer escaped the file: `\uXXXX` for non-ASCII characters in a
//!   file that escapes them (Python's `ensure_ascii`), as they are otherwise
//!   (`JSON.stringify`); `\/` where the file escapes slashes (Ruby's JSON); JSON5's single
//!   quotes kept.
//! - Line breaks are the file's own (CRLF stays CRLF).

mod emit;
mod resolve;

use super::{Node, NodeValue, Scalar, Style};
use emit::{Analysis, Emitter};

/// Whose loader reads the document back: what a rewritten scalar must mean to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// JSON (and JSON5), read by `JSON.parse` or Python's `json`.
    Json,
    /// YAML 1.1 as PyYAML reads it (vcrpy, pytest-recording).
    PyYaml,
    /// YAML 1.1 as Ruby's Psych reads it (Ruby VCR).
    Psych,
    /// YAML as Go's `gopkg.in/yaml` reads it (go-vcr).
    GoYaml,
    /// YAML as PHP's Symfony Yaml component reads it (php-vcr).
    Symfony,
}

/// One replacement: the bytes `start..end` of the source become `text`.
///
/// For a scalar, `start` is the node's own start; `end` is its end, except for a block scalar
/// whose chomping keeps (or now keeps) its trailing empty lines: those lines belong to the
/// scalar, and the edit covers them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// What takes their place.
    pub text: String,
}

/// The edit that makes the scalar `node` of `source` read as `value` in `dialect`.
///
/// `node` must be a scalar with a known span in `source`, as `doc::yaml::parse`,
/// `doc::from_json` and `doc::json5::parse` give them (a JSON string; any YAML scalar). A
/// `!!binary` scalar's `value` is its base64 text, with line breaks where the writer put them
/// (PyYAML: 76 columns and a final line break; yaml.v2: 70 columns, a final line break when
/// there is more than one line; Psych: one line); the tag stays.
///
/// This reads `source` again to find where the scalar sits (in a flow collection or not): an
/// editor of many scalars of one document finds that as it walks the tree, and calls
/// [`scalar_in`].
pub fn scalar(source: &str, node: &Node, value: &str, dialect: Dialect) -> Edit {
    let site = Site {
        in_flow: dialect != Dialect::Json && in_flow(source, node.start as usize),
    };
    scalar_in(source, &Facts::of(source), node, site, value, dialect)
}

/// Where a scalar sits in its document, as the caller found it walking the tree: what the
/// edit of one scalar would otherwise parse the whole document again to learn (once per edit,
/// a scrub of many values of one file was quadratic, issue 43).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Site {
    /// The scalar is an item, key or value of a flow collection (`[...]`, `{...}`), where
    /// `,`, `[`, `]`, `{` and `}` end a plain scalar.
    pub in_flow: bool,
}

/// What the writer of a whole file did that every edit of it follows: whether it wrote
/// ASCII only, escaped non-ASCII characters (Python's `ensure_ascii`), escaped `/`. Found once
/// per file: found again for each edit, a scrub of many values was quadratic (issue 25).
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    ascii: bool,
    escapes_non_ascii: bool,
    escaped_slash: bool,
}

impl Facts {
    /// The facts of `source`.
    pub fn of(source: &str) -> Facts {
        Facts {
            ascii: source.is_ascii(),
            escapes_non_ascii: escapes_non_ascii(source),
            escaped_slash: source.contains("\\/"),
        }
    }
}

/// [`scalar`], with the facts of `source` found already and the scalar's `site` given.
///
/// `node`'s text must be the scalar's value, except for a block scalar (`|`, `>`) without an
/// indentation indicator, whose text may be left empty (a huge body held elsewhere).
pub fn scalar_in(
    source: &str,
    facts: &Facts,
    node: &Node,
    site: Site,
    value: &str,
    dialect: Dialect,
) -> Edit {
    debug_assert!(
        node.start <= node.end && node.end as usize <= source.len(),
        "a scalar of the source"
    );
    let end = (node.end as usize).min(source.len());
    let start = (node.start as usize).min(end);
    let scalar = match &node.value {
        NodeValue::Scalar(s) => Some(s),
        _ => None,
    };
    match dialect {
        Dialect::Json => Edit {
            start,
            end,
            text: json_literal(facts, &source[start..end], value),
        },
        Dialect::PyYaml | Dialect::Psych | Dialect::GoYaml | Dialect::Symfony => {
            yaml_scalar(source, facts, (start, end), scalar, site, value, dialect)
        }
    }
}

/// `source` with `edits` applied. Edits must not overlap; their order does not matter.
pub fn apply(source: &str, edits: &mut [Edit]) -> String {
    edits.sort_by_key(|e| (e.start, e.end));
    // At its final size: a text that grows past the source's would be regrown by doubling,
    // holding a huge file at twice its size for a moment (issue 25).
    let grown: usize = edits.iter().map(|e| e.text.len()).sum();
    let shrunk: usize = edits.iter().map(|e| e.end - e.start).sum();
    let mut out = String::with_capacity((source.len() + grown).saturating_sub(shrunk));
    let mut at = 0;
    for edit in edits.iter() {
        debug_assert!(edit.start >= at, "edits do not overlap");
        out.push_str(&source[at..edit.start]);
        out.push_str(&edit.text);
        at = edit.end;
    }
    out.push_str(&source[at..]);
    out
}

/// [`apply`] in the buffer `source` already holds, when it can hold the result: a scrub of a
/// large file held its text and the new one at once (issue 43). Segments that move left are
/// moved first, from the left; those that move right, from the right; the new texts are
/// written last, between them. Edits must not overlap.
pub fn apply_owned(source: String, edits: &mut [Edit]) -> String {
    edits.sort_by_key(|e| (e.start, e.end));
    let old_len = source.len();
    let grown: usize = edits.iter().map(|e| e.text.len()).sum();
    let shrunk: usize = edits.iter().map(|e| e.end - e.start).sum();
    let new_len = (old_len + grown).saturating_sub(shrunk);
    if new_len > source.capacity() {
        // It would be moved to a larger buffer anyway.
        return apply(&source, edits);
    }
    let mut bytes = source.into_bytes();
    bytes.resize(old_len.max(new_len), 0);
    // The text between edits: its place in the source, and in the result.
    let mut segments = Vec::with_capacity(edits.len() + 1);
    let (mut from, mut to) = (0usize, 0usize);
    for edit in edits.iter() {
        debug_assert!(edit.start >= from, "edits do not overlap");
        segments.push((from, to, edit.start - from));
        to += edit.start - from + edit.text.len();
        from = edit.end;
    }
    segments.push((from, to, old_len - from));
    for &(src, dst, len) in segments.iter().filter(|(src, dst, _)| dst < src) {
        bytes.copy_within(src..src + len, dst);
    }
    for &(src, dst, len) in segments.iter().rev().filter(|(src, dst, _)| dst > src) {
        bytes.copy_within(src..src + len, dst);
    }
    for (edit, &(_, dst, len)) in edits.iter().zip(&segments) {
        let at = dst + len;
        bytes[at..at + edit.text.len()].copy_from_slice(edit.text.as_bytes());
    }
    bytes.truncate(new_len);
    // Each edit replaced whole characters with whole characters.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A JSON (or JSON5) string literal for `value`, escaped as the `original` literal's file is.
fn json_literal(facts: &Facts, original: &str, value: &str) -> String {
    let quote = if original.starts_with('\'') {
        '\''
    } else {
        '"'
    };
    let ascii = facts.escapes_non_ascii;
    let slash = facts.escaped_slash;
    // At its final size at most: an escaped byte adds at most 5 (`\u001f`), and each byte
    // of a character escaped as non-ASCII at most 6 (its `\uXXXX`, or a surrogate pair's).
    let extra: usize = value
        .bytes()
        .map(|b| match b {
            b'\\' | b'"' | b'\'' | b'/' => 1,
            0..0x20 => 5,
            0x80.. if ascii => 6,
            _ => 0,
        })
        .sum();
    let mut out = String::with_capacity(value.len() + extra + 2);
    out.push(quote);
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '/' if slash => out.push_str("\\/"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The width libyaml folds at unless told otherwise (PyYAML, Psych and yaml.v2 keep it).
const DEFAULT_WIDTH: usize = 80;

/// Whether a JSON file was written with non-ASCII characters escaped (Python's
/// `ensure_ascii`): it is all ASCII and escapes at least one such character.
fn escapes_non_ascii(source: &str) -> bool {
    source.is_ascii()
        && source.match_indices("\\u").any(|(at, _)| {
            let hex = source.get(at + 2..at + 6).unwrap_or("");
            // An escaped backslash before `u` is not an escape.
            let backslashes = source[..at]
                .bytes()
                .rev()
                .take_while(|&b| b == b'\\')
                .count();
            backslashes % 2 == 0 && u32::from_str_radix(hex, 16).is_ok_and(|c| c >= 0x80)
        })
}

/// Where a YAML scalar sits: what its writer's emitter state was when it wrote it.
struct Place<'s> {
    source: &'s str,
    start: usize,
    end: usize,
    /// Start of the scalar's first line.
    line_start: usize,
    /// Characters before the scalar on its first line.
    column: usize,
    line_break: &'static str,
    /// Whether the writer wrote non-ASCII characters as they are.
    unicode: bool,
}

impl<'s> Place<'s> {
    fn new(
        source: &'s str,
        facts: &Facts,
        start: usize,
        end: usize,
        dialect: Dialect,
    ) -> Place<'s> {
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_break = match source.find('\n') {
            Some(i) if source[..i].ends_with('\r') => "\r\n",
            _ => "\n",
        };
        Place {
            source,
            start,
            end,
            line_start,
            column: source[line_start..start].chars().count(),
            line_break,
            unicode: !(dialect == Dialect::PyYaml && facts.ascii),
        }
    }

    fn original(&self) -> &'s str {
        &self.source[self.start..self.end]
    }

    /// The emitter's indentation for the scalar's continuation lines (or a block's content):
    /// the original's own continuation lines show it; else libyaml's, two more than the
    /// collection that holds the scalar (the column of its key, or of its `-`).
    fn indent(&self) -> usize {
        let continued = self.original().split('\n').skip(1).find_map(|line| {
            let line = line.trim_end_matches('\r');
            let text = line.trim_start_matches(' ');
            (!text.is_empty()).then(|| line.len() - text.len())
        });
        continued.unwrap_or_else(|| self.default_indent())
    }

    /// libyaml's indentation for a scalar at this place: two more than its parent's.
    fn default_indent(&self) -> usize {
        let prefix = &self.source[self.line_start..self.start];
        let mut rest = prefix.trim_start_matches(' ');
        if rest.trim().is_empty() {
            return self.column;
        }
        let mut column = prefix.len() - rest.len();
        let mut dash = None;
        while let Some(after) = rest.strip_prefix('-') {
            if !(after.is_empty() || after.starts_with(' ')) {
                break;
            }
            dash = Some(column);
            let trimmed = after.trim_start_matches(' ');
            column += 1 + after.len() - trimmed.len();
            rest = trimmed;
        }
        // Properties (a tag, an anchor) are not the parent.
        let only_properties = rest
            .split_whitespace()
            .all(|token| token.starts_with(['!', '&']));
        match dash {
            Some(dash) if only_properties => dash + 2,
            _ => prefix[..column].chars().count() + 2,
        }
    }

    /// The width the writer folded at: the widest break it did not take, if it took none or
    /// 80 fits, else the narrowest that explains its folds; no folding when it left a
    /// break past 80 untaken and took none.
    fn width(&self, quoted: bool) -> usize {
        const DEFAULT: usize = DEFAULT_WIDTH;
        let text = &self.source[self.line_start..self.end];
        let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
        let (mut lower, mut upper) = (0usize, usize::MAX);
        for (n, line) in lines.iter().enumerate() {
            let length = line.chars().count();
            let from = if n == 0 {
                self.column + usize::from(quoted)
            } else {
                0
            };
            let folded =
                lines.get(n + 1).is_some_and(|next| !next.trim().is_empty()) && length > from;
            if folded {
                upper = upper.min(length);
            }
            let first = line.chars().next();
            for (i, (before, c, after)) in emit::with_neighbours(line).enumerate().skip(from.max(1))
            {
                if c == ' '
                    && !matches!(before, Some(' ' | '\\'))
                    && after.is_some_and(|a| a != ' ' && !(quoted && Some(a) == first))
                {
                    lower = lower.max(i);
                }
            }
        }
        if upper == usize::MAX {
            if lower <= DEFAULT {
                DEFAULT
            } else {
                usize::MAX
            }
        } else if lower <= DEFAULT && DEFAULT < upper {
            DEFAULT
        } else if lower < upper {
            lower
        } else {
            DEFAULT
        }
    }

    /// Where the edit of the block scalar at this place ends: past the empty lines that
    /// follow it when they are (or would become) its value's, with `keeps`.
    fn block_end(&self, keeps: bool) -> usize {
        let mut end = self.end;
        if keeps && self.original().ends_with('\n') {
            while let Some(nl) = self.source[end..].find('\n') {
                let line = self.source[end..end + nl].trim_end_matches('\r');
                if !line.trim_start_matches(' ').is_empty() {
                    break;
                }
                end += nl + 1;
            }
        }
        end
    }

    fn emitter(&self, quoted: bool, indent: usize) -> Emitter {
        Emitter::new(
            self.column,
            indent,
            self.width(quoted),
            self.unicode,
            self.line_break,
        )
    }
}

/// The edit of a YAML scalar, the bytes `start..end` of `source`.
fn yaml_scalar(
    source: &str,
    facts: &Facts,
    (start, end): (usize, usize),
    scalar: Option<&Scalar>,
    site: Site,
    value: &str,
    dialect: Dialect,
) -> Edit {
    let place = Place::new(source, facts, start, end, dialect);
    let style = scalar.map_or(Style::DoubleQuoted, |s| s.style);
    // A tag decides the type: only the syntax limits a plain scalar.
    let tagged = scalar.is_some_and(|s| s.tag.is_some());
    let analysis = emit::analyze(value, place.unicode);
    let text = match style {
        Style::Plain => {
            let plain = analysis.block_plain
                && (tagged || resolve::plain_is_string(dialect, value))
                && (analysis.flow_plain || !site.in_flow);
            if plain {
                let mut e = place.emitter(false, place.indent());
                e.plain(value);
                e.out
            } else {
                let double = dialect == Dialect::Psych && resolve::psych_prefers_double(value);
                quoted(&place, value, analysis, !double)
            }
        }
        Style::SingleQuoted => quoted(&place, value, analysis, true),
        Style::DoubleQuoted => quoted(&place, value, analysis, false),
        Style::Literal | Style::Folded => {
            let old = scalar.map_or("", |s| s.text.as_str());
            if let Some(edit) = block(&place, style, old, value, analysis) {
                return edit;
            }
            // Double quotes hold anything; the block's last line break (and its empty lines,
            // if it kept them) go, the line break that ends the line stays.
            let original = place.original();
            let mut e = Emitter::new(
                place.column,
                place.default_indent(),
                DEFAULT_WIDTH,
                place.unicode,
                place.line_break,
            );
            e.double_quoted(value);
            let mut text = e.out;
            if original.ends_with('\n') {
                text.push_str(place.line_break);
            }
            let end = place.block_end(header_chomp(original) == Some('+'));
            return Edit { start, end, text };
        }
    };
    Edit { start, end, text }
}

/// The chomping indicator of a block scalar's header (`None`: clip).
fn header_chomp(original: &str) -> Option<char> {
    original
        .chars()
        .skip(1)
        .take_while(|c| matches!(c, '1'..='9' | '+' | '-'))
        .find(|c| matches!(c, '+' | '-'))
}

/// `value` single-quoted (when `single` is asked and can hold it) or double-quoted, folded
/// as at `place`.
fn quoted(place: &Place<'_>, value: &str, analysis: Analysis, single: bool) -> String {
    let original_quoted = place.original().starts_with(['\'', '"']);
    // A plain original shows its continuation lines' indentation too, but a block does not.
    let indent = if place.original().starts_with(['|', '>']) {
        place.default_indent()
    } else {
        place.indent()
    };
    let mut e = place.emitter(original_quoted, indent);
    if single && analysis.single_quoted {
        e.single_quoted(value);
    } else {
        e.double_quoted(value);
    }
    e.out
}

/// A literal or folded block holding `value` in place of the one at `place` (whose value was
/// `old`), its header kept; `None` when no block can hold `value` there.
fn block(
    place: &Place<'_>,
    style: Style,
    old: &str,
    value: &str,
    analysis: Analysis,
) -> Option<Edit> {
    let original = place.original();
    if !analysis.block || original.is_empty() {
        return None;
    }
    let body = value.trim_end_matches('\n');
    if style == Style::Folded && body.contains(emit::is_break) {
        return None;
    }
    let header_end = original.find('\n').unwrap_or(original.len());
    let header = original[..header_end].trim_end_matches('\r');
    let indicators: String = header[1..]
        .chars()
        .take_while(|c| matches!(c, '1'..='9' | '+' | '-'))
        .collect();
    let explicit = indicators.contains(|c: char| c.is_ascii_digit());
    let chomp = indicators.chars().find(|c| matches!(c, '+' | '-'));
    // Content lines of the original, their indentation.
    let content = original.get(header_end + 1..).unwrap_or("");
    let indents = content.split('\n').filter_map(|line| {
        let line = line.trim_end_matches('\r');
        let text = line.trim_start_matches(' ');
        (!text.is_empty()).then(|| line.len() - text.len())
    });
    let indent = if explicit {
        // The block's indentation is the least of its lines' only when one of the value's
        // lines does not start with a space.
        let least = indents.min()?;
        let some_line_flush = if old.is_empty() {
            // The value is held elsewhere (a huge body): a line is flush when it is indented
            // as the loader indents the block, its parent's indentation and the indicator.
            let digit = indicators.chars().find_map(|c| c.to_digit(10))? as usize;
            place.default_indent().checked_sub(2)? + digit == least
        } else {
            old.split('\n')
                .any(|l| !l.is_empty() && !l.starts_with(' '))
        };
        if !some_line_flush {
            return None;
        }
        least
    } else {
        if value.starts_with(' ') || value.starts_with(emit::is_break) {
            // Only an indentation indicator, which this header lacks, could say where the
            // content starts.
            return None;
        }
        let mut indents = indents;
        indents.next().unwrap_or_else(|| place.default_indent())
    };
    let trailing = value.len() - body.len();
    let needed = match trailing {
        0 => Some('-'),
        1 if value != "\n" => None,
        _ => Some('+'),
    };
    let keeps = |c: Option<char>| c == Some('+');
    let new_chomp = if chomp == needed || (keeps(chomp) && trailing >= 1) {
        chomp
    } else {
        needed
    };
    let mut text = String::with_capacity(value.len() + 16);
    text.push_str(&header[..1]);
    let mut digits = indicators.chars().filter(char::is_ascii_digit);
    if new_chomp == chomp {
        text.push_str(&indicators);
    } else {
        text.extend(digits.next());
        text.extend(new_chomp);
    }
    text.push_str(&header[1 + indicators.len()..]);
    let mut e = Emitter::new(0, indent, DEFAULT_WIDTH, place.unicode, place.line_break);
    if style == Style::Literal {
        e.literal_body(value);
    } else {
        e.folded_line(body);
        for _ in 0..trailing {
            e.out.push_str(place.line_break);
        }
    }
    let ends_line = original.ends_with('\n');
    if ends_line && !e.out.ends_with('\n') {
        e.end_line();
    }
    text.push_str(&e.out);
    Some(Edit {
        start: place.start,
        end: place.block_end(keeps(chomp) || keeps(new_chomp)),
        text,
    })
}

/// Whether the scalar starting at `start` sits in a flow collection (`[...]`, `{...}`),
/// where `,`, `[`, `]`, `{` and `}` end a plain scalar. When unsure, says yes.
fn in_flow(source: &str, start: usize) -> bool {
    let Ok(root) = super::yaml::parse(source) else {
        return true;
    };
    match find_scalar(&root, start) {
        Some((_, Some(parent))) => matches!(
            source.as_bytes().get(parent.start as usize),
            Some(b'[' | b'{')
        ),
        Some((_, None)) => false,
        None => true,
    }
}

/// The scalar of `root` that starts at `start`, and the collection that holds it.
fn find_scalar(root: &Node, start: usize) -> Option<(&Scalar, Option<&Node>)> {
    let mut todo: Vec<(&Node, Option<&Node>)> = vec![(root, None)];
    while let Some((node, parent)) = todo.pop() {
        match &node.value {
            NodeValue::Scalar(s) if node.start as usize == start => return Some((s, parent)),
            NodeValue::Scalar(_) => {}
            NodeValue::Seq(items) => todo.extend(items.iter().map(|i| (i, Some(node)))),
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    todo.push((k, Some(node)));
                    todo.push((v, Some(node)));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Dialect, apply, scalar};
    use crate::{Node, yaml};

    /// `text` with the scalar at `path` (keys; indexes for sequences) set to `value`; our own
    /// reader must read the value back. (The recorders' loaders check the same in
    /// `tests/doc_edit.rs`.)
    #[track_caller]
    fn edited(text: &str, path: &[&str], value: &str, dialect: Dialect) -> String {
        let read = |text: &str| {
            if dialect == Dialect::Json {
                crate::from_json(text.as_bytes()).unwrap()
            } else {
                yaml::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
            }
        };
        let find = |root: &Node| -> Node {
            path.iter()
                .fold(root, |node, step| match step.parse::<usize>() {
                    Ok(i) => &node.as_seq().unwrap()[i],
                    Err(_) => node.get(step).unwrap(),
                })
                .clone()
        };
        let edit = scalar(text, &find(&read(text)), value, dialect);
        let out = apply(text, &mut [edit]);
        assert_eq!(
            find(&read(&out)).as_scalar().unwrap().text,
            value,
            "{out:?}"
        );
        out
    }

    /// Issue 43: edits applied in the buffer the source holds give what a new buffer does,
    /// whether the text grows or shrinks, at the start, the end, or in between.
    #[test]
    fn applying_in_place_gives_the_same_text() {
        use super::{Edit, apply_owned};
        let source = "0123456789abcdefghij";
        let edit = |start, end, text: &str| Edit {
            start,
            end,
            text: text.to_owned(),
        };
        let cases: Vec<Vec<Edit>> = vec![
            vec![],
            vec![edit(0, 5, "x")],
            vec![edit(0, 1, "xxxxxx"), edit(18, 20, "")],
            vec![
                edit(2, 3, "LONGER"),
                edit(5, 15, "s"),
                edit(16, 17, "LONGEST!!"),
            ],
            vec![
                edit(3, 10, ""),
                edit(12, 13, "wider text here"),
                edit(20, 20, "end"),
            ],
            vec![edit(0, 0, "start"), edit(10, 10, "mid")],
        ];
        for mut edits in cases {
            let expected = apply(source, &mut edits.clone());
            let mut owned = String::with_capacity(64);
            owned.push_str(source);
            assert_eq!(apply_owned(owned, &mut edits), expected);
            // Without room to grow, a new buffer.
            assert_eq!(apply_owned(source.to_owned(), &mut edits), expected);
        }
    }

    /// Issue 10: each case is what the recorder's writer writes for the new value there.
    #[test]
    fn rewrites_a_yaml_scalar_as_its_writer_would() {
        let long = "word ".repeat(20);
        let long = long.trim_end();
        // A line breaks at the first space past column 80: after 16 words.
        let w16 = ["word"; 16].join(" ");
        let cases: &[(&str, &[&str], &str, Dialect, &str)] = &[
            // Plain stays plain where the loader reads a string, else is quoted.
            (
                "a: x\nb: 1\n",
                &["a"],
                "it's",
                Dialect::PyYaml,
                "a: it's\nb: 1\n",
            ),
            ("a: x\n", &["a"], "yes", Dialect::PyYaml, "a: 'yes'\n"),
            ("a: x\n", &["a"], "- a", Dialect::GoYaml, "a: '- a'\n"),
            ("a: x\n", &["a"], "#x", Dialect::Psych, "a: \"#x\"\n"),
            ("a: x\n", &["a"], "y", Dialect::PyYaml, "a: y\n"),
            ("a: x\n", &["a"], "y", Dialect::GoYaml, "a: 'y'\n"),
            // Commas end a plain scalar only in a flow collection.
            ("a: x\n", &["a"], "p, q", Dialect::GoYaml, "a: p, q\n"),
            (
                "a: [x, y]\n",
                &["a", "0"],
                "p, q",
                Dialect::GoYaml,
                "a: ['p, q', y]\n",
            ),
            // PyYAML escapes non-ASCII unless the file shows `allow_unicode`.
            (
                "a: x\n",
                &["a"],
                "café",
                Dialect::PyYaml,
                "a: \"caf\\xE9\"\n",
            ),
            (
                "a: x\nb: é\n",
                &["a"],
                "café",
                Dialect::PyYaml,
                "a: café\nb: é\n",
            ),
            // Long values fold at 80 with the continuation indentation of their parent.
            (
                "a:\n  - x\n",
                &["a", "0"],
                &format!("{long} {long}"),
                Dialect::PyYaml,
                &format!("a:\n  - {w16}\n    {w16}\n    {}\n", ["word"; 8].join(" ")),
            ),
            // A block keeps its header, the chomping changed to what the value needs.
            (
                "a: |-\n  x\n  y\nb: 1\n",
                &["a"],
                "p\nq\n\n",
                Dialect::Psych,
                "a: |+\n  p\n  q\n\nb: 1\n",
            ),
            (
                "a: |+\n  x\n\nb: 1\n",
                &["a"],
                "p",
                Dialect::Psych,
                "a: |-\n  p\nb: 1\n",
            ),
            (
                "a: |2\n  x\n    y\nb: 1\n",
                &["a"],
                "  p\n",
                Dialect::Psych,
                "a: |2\n    p\nb: 1\n",
            ),
            // (Where every line of the original starts with a space, its indentation is
            // unknown.)
            (
                "a: |2\n    x\nb: 1\n",
                &["a"],
                "  p\n",
                Dialect::Psych,
                "a: \"  p\\n\"\nb: 1\n",
            ),
            // What no block can hold is double-quoted, the line still ended.
            (
                "a: |\n  x\nb: 1\n",
                &["a"],
                "trailing ",
                Dialect::Psych,
                "a: \"trailing \"\nb: 1\n",
            ),
            (
                "a: |\n  x\nb: 1\n",
                &["a"],
                " lead\n",
                Dialect::Psych,
                "a: \" lead\\n\"\nb: 1\n",
            ),
            // CRLF files keep CRLF.
            (
                "a: 'x'\r\nb: 1\r\n",
                &["a"],
                "p\nq",
                Dialect::PyYaml,
                "a: 'p\r\n\r\n  q'\r\nb: 1\r\n",
            ),
        ];
        for &(text, path, value, dialect, expected) in cases {
            assert_eq!(
                edited(text, path, value, dialect),
                expected,
                "{text:?} <- {value:?}"
            );
        }
    }

    /// Issue 10: a folded quoted scalar is folded again at the width it was folded at.
    #[test]
    fn refolds_at_the_width_the_original_shows() {
        let words = |n: usize| vec!["abcd"; n].join(" ");
        // Folded at 40 (the first break past column 40), continuation indented by 4.
        let text = format!("k: '{}\n    {}'\n", words(8), words(3));
        let out = edited(&text, &["k"], &words(16), Dialect::PyYaml);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("k: '{}", words(8)));
        assert_eq!(lines[1], format!("    {}'", words(8)));
        // Never folded past 80 though it could have been: the writer had no width.
        let text = format!("k: '{}'\n", words(30));
        assert_eq!(
            edited(&text, &["k"], &words(31), Dialect::PyYaml)
                .lines()
                .count(),
            1
        );
    }

    #[test]
    fn escapes_json_as_the_file_does() {
        let cases: &[(&str, &str, &str)] = &[
            // JSON.stringify: raw non-ASCII, control characters as `\u00XX`.
            (
                "{\"a\": \"x\"}",
                "é/\u{1}\n\"",
                "{\"a\": \"é/\\u0001\\n\\\"\"}",
            ),
            // Python's ensure_ascii: non-ASCII escaped, surrogate pairs beyond the BMP.
            (
                "{\"a\": \"x\", \"b\": \"\\u00e9\"}",
                "é😀",
                "{\"a\": \"\\u00e9\\ud83d\\ude00\", \"b\": \"\\u00e9\"}",
            ),
            // An escaped backslash before `u` is no escape.
            (
                "{\"a\": \"x\", \"b\": \"\\\\u00e9\"}",
                "é",
                "{\"a\": \"é\", \"b\": \"\\\\u00e9\"}",
            ),
            // Ruby's `\/`.
            (
                "{\"a\": \"x\", \"u\": \"http:\\/\\/h\"}",
                "a/b",
                "{\"a\": \"a\\/b\", \"u\": \"http:\\/\\/h\"}",
            ),
        ];
        for &(text, value, expected) in cases {
            assert_eq!(
                edited(text, &["a"], value, Dialect::Json),
                expected,
                "{text:?}"
            );
        }
        // JSON5's single quotes stay.
        let text = "{a: 'x'}";
        let root = crate::json5::parse(text).unwrap();
        let edit = scalar(text, root.get("a").unwrap(), "it's \"q\"", Dialect::Json);
        assert_eq!(apply(text, &mut [edit]), "{a: 'it\\'s \"q\"'}");
    }
}
