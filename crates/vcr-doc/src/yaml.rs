//! YAML documents (PyYAML's, Psych's, yaml.v3's output) read into [`Node`]s with positions.
//!
//! `saphyr-parser` does the YAML: it turns the text into events (a scalar, the start or end of
//! a sequence or mapping, an alias) with the span of each. This module builds the tree from
//! them without recursion, so crafted input can neither overflow the stack (nesting past
//! [`MAX_DEPTH`] is an error) nor blow up memory through aliases (the nodes copied by aliases
//! are bounded, `alias_budget`). Only the first document of a stream is read: recorders write
//! one.
//!
//! Positions: saphyr counts characters, a [`Node`] holds byte offsets, so every marker goes
//! through an `Offsets` table (free for ASCII text, the common case). A scalar's `start` is
//! its own first byte (its quote or block indicator), after any tag or anchor before it, so a
//! rewrite replaces the scalar and keeps its tag. A collection's `start` is its first byte (`[`,
//! `{`, the `-` of its first item or its first key) and its `end` one past its last child.
//!
//! Tags keep their full form (`!!binary` is `tag:yaml.org,2002:binary`), and are read as data:
//! nothing is constructed from them. Tags on collections are dropped (the tree has no place
//! for them): dd-trace-py's `!!python/object/apply:multidict._multidict.istr [Accept]` is the
//! one-element sequence `[Accept]`. Merge keys (`<<`) stay ordinary keys.

use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span, Tag};

use super::{DocError, MAX_DEPTH, Node, NodeValue, ReadOptions, Scalar, Style};

mod fast;

/// Reads a YAML stream's first document (an empty stream is a null scalar).
///
/// Like libyaml (PyYAML, Psych), it accepts a quoted scalar whose continuation lines are
/// indented less than the block it sits in (old Psych wrote a body's closing quote in column
/// 0); YAML 1.2 and saphyr do not, so such lines are indented in a copy of the text, which
/// changes no value (a quoted scalar's line breaks fold its leading spaces away), and the
/// positions are mapped back to the original text.
pub fn parse(text: &str) -> Result<Node, DocError> {
    parse_with(text, &ReadOptions::default())
}

/// [`parse`], through the one-pass reader first only when `options` say so
/// ([`ReadOptions::fast_yaml`]).
pub fn parse_with(text: &str, options: &ReadOptions) -> Result<Node, DocError> {
    if options.fast_yaml
        && let Some(node) = read_subset(text)
    {
        return Ok(node);
    }
    parse_events(text)
}

/// The tree of a document in the part of YAML recorders write, read in one pass without
/// saphyr (`None` for any other text): the same tree [`parse_events`] builds, spans
/// included, at a fraction of the cost (issue 12).
pub fn read_subset(text: &str) -> Option<Node> {
    fast::parse(text)
}

/// [`read_subset`], handing each item of the block sequence under one of the top-level keys
/// `keys` (a cassette's `interactions`) to `item` as soon as it is read instead of keeping
/// it: that sequence comes back empty, with its span, so that a cassette of a million
/// interactions can be read a window at a time (issue 25). `None` for a text outside the
/// subset; what was handed out before a `None` is void.
pub fn read_subset_streamed(text: &str, keys: &[&str], item: &mut dyn FnMut(Node)) -> Option<Node> {
    fast::parse_streamed(text, keys, item)
}

/// Every document of a YAML stream (`---` between them), as one sequence whose items are the
/// documents' roots, with their positions: a recorder that writes one record per document
/// (Rust's httpmock) is read whole. Through saphyr's events; an empty stream is an empty
/// sequence.
pub fn parse_documents(text: &str) -> Result<Node, DocError> {
    let mut builder = Builder::new(text);
    builder.documents = Some(Vec::new());
    builder.run()
}

/// [`parse`] through saphyr's events: any YAML, and the errors.
///
/// A byte-order mark inside the text is content to libyaml and PyYAML (`a: m<BOM>b` loads
/// as `m<BOM>b`), and an error to saphyr; the fast reader agrees with the loaders. So, for
/// saphyr, each inner mark is swapped for a private-use character of the same length that the
/// text does not hold, and swapped back in the tree (the fuzz target found the
/// two readers disagreeing, issue 25).
pub fn parse_events(text: &str) -> Result<Node, DocError> {
    const BOM: char = '\u{feff}';
    let body = text.strip_prefix(BOM).unwrap_or(text);
    // A private-use character (three bytes, as the mark is) that the text does not hold.
    let stand_in = ('\u{e000}'..='\u{f8ff}').find(|c| !text.contains(*c));
    if body.contains(BOM)
        && let Some(stand_in) = stand_in
    {
        let lead = &text[..text.len() - body.len()];
        let swapped = format!("{lead}{}", body.replace(BOM, &stand_in.to_string()));
        let mut node = parse_events_as_is(&swapped)?;
        swap_back(&mut node, stand_in, BOM);
        return Ok(node);
    }
    parse_events_as_is(text)
}

/// Every scalar of `node` (keys too) with `from` written as `to`.
fn swap_back(node: &mut Node, from: char, to: char) {
    match &mut node.value {
        NodeValue::Scalar(scalar) => {
            if scalar.text.contains(from) {
                scalar.text = scalar.text.replace(from, &to.to_string());
            }
        }
        NodeValue::Seq(items) => items.iter_mut().for_each(|n| swap_back(n, from, to)),
        NodeValue::Map(entries) => {
            for (k, v) in entries {
                swap_back(k, from, to);
                swap_back(v, from, to);
            }
        }
    }
}

fn parse_events_as_is(text: &str) -> Result<Node, DocError> {
    let mut patch = Reindent::default();
    loop {
        let patched = patch.apply(text);
        let source = patched.as_deref().unwrap_or(text);
        let error = match Builder::new(source).run() {
            Ok(mut node) => {
                patch.map_tree(&mut node);
                return Ok(node);
            }
            Err(e) => e,
        };
        let retry = patch.count() < MAX_REINDENTS
            && match error.message.as_str() {
                QUOTED_INDENT => patch.indent_quoted(source, error.offset),
                QUOTED_TAB => patch.indent_tabs(source, error.offset),
                _ => false,
            };
        if !retry {
            return Err(DocError {
                offset: patch.to_original(error.offset),
                ..error
            });
        }
    }
}

/// saphyr's message for a quoted scalar's line indented less than its block.
const QUOTED_INDENT: &str = "not valid YAML: invalid indentation in quoted scalar";

/// saphyr's message for a quoted scalar's continuation line that starts with a tab left of
/// its block's indentation (the only place it says this).
const QUOTED_TAB: &str = "not valid YAML: tab cannot be used as indentation";

/// How many quoted scalars may be re-indented (each costs a parse of the whole text).
const MAX_REINDENTS: usize = 64;

/// Spaces inserted at the start of lines of quoted scalars: `(offset in the original text,
/// how many)`, sorted.
#[derive(Default)]
struct Reindent {
    inserts: Vec<(usize, usize)>,
    scalars: usize,
}

impl Reindent {
    fn count(&self) -> usize {
        self.scalars
    }

    /// The text with the spaces inserted, if there are any.
    fn apply(&self, text: &str) -> Option<String> {
        if self.inserts.is_empty() {
            return None;
        }
        let mut out =
            String::with_capacity(text.len() + self.inserts.iter().map(|i| i.1).sum::<usize>());
        let mut from = 0;
        for &(at, n) in &self.inserts {
            out.push_str(&text[from..at]);
            out.extend(std::iter::repeat_n(' ', n));
            from = at;
        }
        out.push_str(&text[from..]);
        Some(out)
    }

    /// The offset in the original text of an offset in the patched one.
    fn to_original(&self, patched: usize) -> usize {
        let mut shift = 0;
        for &(at, n) in &self.inserts {
            if patched < at + shift {
                break;
            }
            if patched < at + shift + n {
                return at;
            }
            shift += n;
        }
        patched - shift
    }

    fn map_tree(&self, root: &mut Node) {
        if self.inserts.is_empty() {
            return;
        }
        let mut todo = vec![root];
        while let Some(node) = todo.pop() {
            for o in [&mut node.start, &mut node.end] {
                if *o != u32::MAX {
                    *o = self.to_original(*o as usize) as u32;
                }
            }
            match &mut node.value {
                NodeValue::Scalar(_) => {}
                NodeValue::Seq(items) => todo.extend(items.iter_mut()),
                NodeValue::Map(entries) => {
                    for (k, v) in entries {
                        todo.push(k);
                        todo.push(v);
                    }
                }
            }
        }
    }

    /// Indents the lines of the quoted scalar opening at `quote` (an offset in `source`, the
    /// patched text) to the quote's own column, and those of every later quoted scalar that
    /// opens a line written the same way (`      string: '`): a recorder writes every body
    /// alike, and a cassette of 83 such bodies was a `parse` error when each cost a parse
    /// of its own (libyaml, which Ruby VCR and vcrpy load with, accepts them). Whether
    /// anything changed.
    fn indent_quoted(&mut self, source: &str, quote: usize) -> bool {
        let Some(mut end) = quoted_end(source, quote) else {
            return false;
        };
        let line_start = source[..quote].rfind('\n').map_or(0, |i| i + 1);
        // Offsets in `source` map back through the inserts made before this call only: every
        // scalar's are found first, and taken at once.
        let mut new = self.quoted_inserts(source, line_start, quote, end);
        let opening = &source[line_start..=quote];
        let finder = memchr::memmem::Finder::new(opening.as_bytes());
        while let Some(found) = source
            .get(end..)
            .and_then(|rest| finder.find(rest.as_bytes()))
        {
            let start = end + found;
            let next_quote = start + opening.len() - 1;
            // Only where it opens a line (`start` is past the first scalar's quote).
            if source.as_bytes()[start - 1] != b'\n' {
                end = start + opening.len();
                continue;
            }
            let Some(next_end) = quoted_end(source, next_quote) else {
                break;
            };
            new.extend(self.quoted_inserts(source, start, next_quote, next_end));
            end = next_end;
        }
        let changed = !new.is_empty();
        self.insert(new);
        changed
    }

    /// The spaces that indent the lines of the quoted scalar from `quote` to `end` (offsets
    /// in `source`, its line starting at `line_start`) to the quote's column, as offsets in
    /// the original text.
    fn quoted_inserts(
        &self,
        source: &str,
        line_start: usize,
        quote: usize,
        end: usize,
    ) -> Vec<(usize, usize)> {
        let column = source[line_start..quote].chars().count();
        let mut new = Vec::new();
        let mut at = quote;
        while let Some(nl) = source[at..end].find('\n') {
            let start = at + nl + 1;
            let indent = source[start..].len() - source[start..].trim_start_matches(' ').len();
            let blank = source[start + indent..].starts_with(['\n', '\r']);
            if indent < column && !blank {
                new.push((self.to_original(start), column - indent));
            }
            at = start;
        }
        new
    }

    /// Takes the spaces one scalar's lines get, `(offset in the original text, how many)`.
    fn insert(&mut self, new: Vec<(usize, usize)>) {
        self.scalars += 1;
        self.inserts.extend(new);
        self.inserts.sort_unstable();
    }

    /// Indents the line of the quoted scalar continuation at `tab` (an offset in `source`)
    /// that starts with tabs, and the lines that follow it starting with tabs, by one space
    /// more than the last line before them that does not; whether anything changed.
    ///
    /// PyYAML (vcrpy) and libyaml skip a continuation line's leading spaces and tabs alike,
    /// without measuring them against the block's indentation (a hand-pasted JSON body
    /// indented with tabs loads); saphyr refuses a tab left of that indentation. The spaces
    /// change no value: a quoted scalar's line breaks fold its leading white space away. The
    /// lines that follow are in the same scalar: a line of the document outside it cannot
    /// start with a tab.
    fn indent_tabs(&mut self, source: &str, tab: usize) -> bool {
        let line_start = source[..tab].rfind('\n').map_or(0, |i| i + 1);
        if !source[line_start..].starts_with('\t') {
            return false;
        }
        let spaces = source[..line_start]
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with('\t'))
            .map_or(0, |l| l.len() - l.trim_start_matches(' ').len())
            // Past a key on that line, as YAML wants a continuation line.
            + 1;
        let mut new = Vec::new();
        let mut at = line_start;
        loop {
            let line = &source[at..];
            if line.starts_with('\t') {
                new.push((self.to_original(at), spaces));
            } else if !line.starts_with(['\n', '\r']) {
                break;
            }
            match line.find('\n') {
                Some(nl) => at += nl + 1,
                None => break,
            }
        }
        self.insert(new);
        true
    }
}

/// The offset past the closing quote of the quoted scalar opening at `quote`.
fn quoted_end(text: &str, quote: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let q = *bytes.get(quote)?;
    let mut i = quote + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if q == b'"' => i += 2,
            b'\'' if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == q => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// How many nodes and text bytes aliases may copy in all, for a text of `len` bytes: a real
/// cassette aliases little or nothing, a billion-laughs file aliases exponentially.
fn alias_budget(len: usize) -> usize {
    len.saturating_mul(4).max(1 << 20)
}

/// Character index to byte offset, for the markers saphyr reports.
struct Offsets {
    /// Byte offset of every `STRIDE`-th character; empty for ASCII text, where the two agree.
    table: Vec<u32>,
    text_len: usize,
}

impl Offsets {
    const STRIDE: usize = 64;

    fn new(text: &str) -> Offsets {
        let table = if text.is_ascii() {
            Vec::new()
        } else {
            text.char_indices()
                .step_by(Self::STRIDE)
                .map(|(at, _)| at as u32)
                .collect()
        };
        Offsets {
            table,
            text_len: text.len(),
        }
    }

    /// The byte offset of character `index` of `text` (the text's length past its end).
    fn byte(&self, text: &str, index: usize) -> usize {
        if self.table.is_empty() {
            return index.min(self.text_len);
        }
        let Some(&base) = self.table.get(index / Self::STRIDE) else {
            return self.text_len;
        };
        let base = base as usize;
        text[base..]
            .char_indices()
            .nth(index % Self::STRIDE)
            .map_or(self.text_len, |(at, _)| base + at)
    }
}

/// A collection being built.
enum Open {
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>, Option<Node>),
}

struct Frame {
    start: u32,
    /// `[...]` or `{...}`: it ends at its bracket.
    flow: bool,
    anchor: usize,
    open: Open,
}

/// An anchored node, kept for the aliases that copy it.
struct Anchored {
    node: Node,
    /// Nodes plus text bytes: what one copy costs.
    weight: usize,
    /// Levels of nesting below and including the node.
    height: usize,
}

struct Builder<'t> {
    text: &'t str,
    offsets: Offsets,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    alias_budget: usize,
    /// Every document's root so far, when the whole stream is read ([`parse_documents`]);
    /// `None` reads the first document only.
    documents: Option<Vec<Node>>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Builder<'t> {
        Builder {
            text,
            offsets: Offsets::new(text),
            stack: Vec::new(),
            anchors: HashMap::new(),
            alias_budget: alias_budget(text.len()),
            documents: None,
        }
    }

    fn byte(&self, marker: Marker) -> usize {
        self.offsets.byte(self.text, marker.index())
    }

    fn error(&self, marker: Marker, what: &str) -> DocError {
        DocError {
            message: format!("not valid YAML: {what}"),
            offset: self.byte(marker),
        }
    }

    fn run(mut self) -> Result<Node, DocError> {
        let mut parser = Parser::new_from_str(self.text);
        let mut root = None;
        while let Some(event) = parser.next_event() {
            let (event, span) = event.map_err(|e| self.error(*e.marker(), e.info()))?;
            match event {
                Event::DocumentEnd if self.documents.is_some() => {}
                Event::DocumentEnd | Event::StreamEnd => break,
                Event::Scalar(text, style, anchor, tag) => {
                    let node =
                        self.scalar(text.into_owned(), style, tag.as_deref(), anchor != 0, span);
                    root = self.finish(node, anchor);
                }
                Event::Alias(id) => {
                    let node = self.alias(id, span)?;
                    root = self.finish(node, 0);
                }
                Event::SequenceStart(anchor, _) => {
                    self.open(Open::Seq(Vec::new()), anchor, span)?;
                }
                Event::MappingStart(anchor, _) => {
                    self.open(Open::Map(Vec::new(), None), anchor, span)?;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let node = self.close(span)?;
                    root = self.finish(node.0, node.1);
                }
                Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => {}
            }
            if let Some(documents) = &mut self.documents
                && let Some(document) = root.take()
            {
                documents.push(document);
                continue;
            }
            if root.is_some() {
                break;
            }
        }
        if let Some(documents) = self.documents.take() {
            let start = documents.first().map_or(0, |d| d.start);
            let end = documents.last().map_or(0, |d| d.end);
            return Ok(Node {
                start,
                end,
                value: NodeValue::Seq(documents),
            });
        }
        Ok(root.unwrap_or_else(|| Node {
            start: 0,
            end: 0,
            value: NodeValue::Scalar(Scalar {
                text: String::new(),
                style: Style::Plain,
                tag: None,
            }),
        }))
    }

    /// A scalar node; `anchored` when an anchor names it (its span then starts at the
    /// anchor, as it does at a tag).
    fn scalar(
        &self,
        text: String,
        style: ScalarStyle,
        tag: Option<&Tag>,
        anchored: bool,
        span: Span,
    ) -> Node {
        let mut start = self.byte(span.start);
        let mut end = self.byte(span.end).max(start);
        // Known from the event, not from the text: a block scalar's span may start at its
        // content, which may itself start with `&` or `!` (issue 12).
        let properties = tag.is_some() || anchored;
        if properties {
            start = skip_properties(self.text, start, end);
        }
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            // Without a tag or anchor, saphyr starts a block scalar's span at its content,
            // after the header: the span is to start at the indicator (issue 10), even when
            // the content itself starts with `|` or `>` (issue 12, found by comparing this
            // reader with `fast`).
            if !properties {
                start = block_header(self.text, start).unwrap_or(start);
            }
            // A block scalar's span runs into the indentation of the line after it.
            end = start + self.text[start..end].trim_end_matches([' ', '\t']).len();
        }
        let style = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::SingleQuoted,
            ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        Node {
            start: start as u32,
            end: end as u32,
            value: NodeValue::Scalar(Scalar {
                text,
                style,
                tag: tag.map(|t| format!("{}{}", t.handle, t.suffix)),
            }),
        }
    }

    fn alias(&mut self, id: usize, span: Span) -> Result<Node, DocError> {
        let Some(anchored) = self.anchors.get(&id) else {
            // saphyr has resolved the name, so the anchor is open: the alias is inside the
            // node it names.
            return Err(self.error(span.start, "an alias refers to the node that contains it"));
        };
        if self.stack.len() + anchored.height > MAX_DEPTH {
            return Err(self.error(span.start, &depth_message()));
        }
        if anchored.weight > self.alias_budget {
            return Err(self.error(
                span.start,
                "aliases expand past the size limit (an alias bomb?)",
            ));
        }
        self.alias_budget -= anchored.weight;
        let mut node = anchored.node.clone();
        node.start = self.byte(span.start) as u32;
        node.end = self.byte(span.end) as u32;
        Ok(node)
    }

    fn open(&mut self, open: Open, anchor: usize, span: Span) -> Result<(), DocError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(span.start, &depth_message()));
        }
        let mut start = self.byte(span.start);
        let end = self.byte(span.end).max(start);
        if self.text[start..].starts_with(['!', '&']) {
            start = skip_properties(self.text, start, end);
        }
        self.stack.push(Frame {
            start: start as u32,
            flow: matches!(self.text.as_bytes().get(start), Some(b'[' | b'{')),
            anchor,
            open,
        });
        Ok(())
    }

    /// Closes the innermost collection: the node and its anchor id.
    fn close(&mut self, span: Span) -> Result<(Node, usize), DocError> {
        let Some(frame) = self.stack.pop() else {
            return Err(self.error(span.start, "a collection ends that never started"));
        };
        let (value, last_end) = match frame.open {
            Open::Seq(items) => {
                let last = items.last().map(|n| n.end);
                (NodeValue::Seq(items), last)
            }
            Open::Map(entries, _) => {
                let last = entries.last().map(|(_, v)| v.end);
                (NodeValue::Map(merge_keys(entries)), last)
            }
        };
        // A flow collection ends at its bracket (the end event starts there; its end may lie
        // past a comment); a block one where its last child does (its end event sits at the
        // next token).
        let bracket = self.byte(span.start);
        let at_bracket = matches!(self.text.as_bytes().get(bracket), Some(b']' | b'}'));
        let end = match last_end {
            // saphyr starts a block sequence whose first item is a flow collection at that
            // item's bracket (`-  [t]`): its end event, not its start, tells (the fuzz target
            // found the two readers disagreeing, issue 25).
            Some(end) if !frame.flow || !at_bracket => end,
            _ if at_bracket => bracket as u32 + 1,
            _ => (self.byte(span.end) as u32).max(frame.start),
        };
        Ok((
            Node {
                start: frame.start,
                end,
                value,
            },
            frame.anchor,
        ))
    }

    /// Places a finished node in its parent, remembering it under its anchor; the node itself
    /// when it is the root.
    fn finish(&mut self, node: Node, anchor: usize) -> Option<Node> {
        if anchor != 0 {
            let (weight, height) = measure(&node);
            self.anchors.insert(
                anchor,
                Anchored {
                    node: node.clone(),
                    weight,
                    height,
                },
            );
        }
        let Some(frame) = self.stack.last_mut() else {
            return Some(node);
        };
        match &mut frame.open {
            Open::Seq(items) => items.push(node),
            Open::Map(entries, key) => match key.take() {
                Some(k) => entries.push((k, node)),
                None => *key = Some(node),
            },
        }
        None
    }
}

/// YAML's merge key (`<<: *base`, or `<<: [*a, *b]`) as PyYAML and Psych load it: the
/// merged mappings' entries come first (of a list, the last mapping's first), then the
/// mapping's own, and a key given more than once keeps its first place and its last value,
/// so that the mapping's own keys win, then the earlier mappings of a list. A `<<` whose
/// value is no mapping stays an ordinary key. Recorders never write merge keys, people
/// editing cassettes by hand do, and the loaders read them (issue 25).
fn merge_keys(entries: Vec<(Node, Node)>) -> Vec<(Node, Node)> {
    let is_merge = |key: &Node| {
        key.as_scalar().is_some_and(|s| {
            s.text == "<<"
                && s.style == Style::Plain
                && s.tag
                    .as_deref()
                    .is_none_or(|t| t == "tag:yaml.org,2002:merge")
        })
    };
    let mergeable = |value: &Node| match &value.value {
        NodeValue::Map(_) => true,
        NodeValue::Seq(items) => items.iter().all(|i| i.as_map().is_some()),
        NodeValue::Scalar(_) => false,
    };
    if !entries.iter().any(|(k, v)| is_merge(k) && mergeable(v)) {
        return entries;
    }
    let mut merged: Vec<(Node, Node)> = Vec::new();
    let mut own: Vec<(Node, Node)> = Vec::new();
    for (key, value) in entries {
        if !(is_merge(&key) && mergeable(&value)) {
            own.push((key, value));
            continue;
        }
        match value.value {
            NodeValue::Map(pairs) => merged.extend(pairs),
            NodeValue::Seq(maps) => {
                for map in maps.into_iter().rev() {
                    if let NodeValue::Map(pairs) = map.value {
                        merged.extend(pairs);
                    }
                }
            }
            NodeValue::Scalar(_) => {}
        }
    }
    let mut out: Vec<(Node, Node)> = Vec::with_capacity(merged.len() + own.len());
    let mut place: HashMap<String, usize> = HashMap::new();
    for (key, value) in merged.into_iter().chain(own) {
        let Some(name) = key.as_scalar().map(|s| s.text.clone()) else {
            out.push((key, value));
            continue;
        };
        match place.get(&name) {
            Some(&i) => out[i].1 = value,
            None => {
                place.insert(name, out.len());
                out.push((key, value));
            }
        }
    }
    out
}

fn depth_message() -> String {
    format!("nesting deeper than {MAX_DEPTH} levels")
}

/// The weight (nodes plus text bytes) and height of a node, without recursion.
fn measure(node: &Node) -> (usize, usize) {
    let mut weight = 0usize;
    let mut height = 0usize;
    let mut todo = vec![(node, 1usize)];
    while let Some((n, depth)) = todo.pop() {
        height = height.max(depth);
        weight = weight.saturating_add(1);
        match &n.value {
            NodeValue::Scalar(s) => weight = weight.saturating_add(s.text.len()),
            NodeValue::Seq(items) => todo.extend(items.iter().map(|i| (i, depth + 1))),
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    todo.push((k, depth + 1));
                    todo.push((v, depth + 1));
                }
            }
        }
    }
    (weight, height)
}

/// The offset of the `|` or `>` of the block scalar whose content starts at `content`: on the
/// last line before it that is not blank, followed only by indicators and a comment.
fn block_header(text: &str, content: usize) -> Option<usize> {
    let mut end = text[..content].rfind('\n')?;
    loop {
        let line_start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[line_start..end];
        if line.trim().is_empty() {
            end = line_start.checked_sub(1)?;
            continue;
        }
        let code = match line.find(" #").or_else(|| line.find("\t#")) {
            Some(comment) => &line[..comment],
            None => line,
        };
        let code = code.trim_end();
        let indicators = code.len()
            - code
                .trim_end_matches(|c: char| matches!(c, '1'..='9' | '+' | '-'))
                .len();
        let at = (code.len() - indicators).checked_sub(1)?;
        return matches!(code.as_bytes().get(at), Some(b'|' | b'>')).then_some(line_start + at);
    }
}

/// The offset of a node's own first byte, past the tag and anchor (and any space, line break
/// or comment) that `start` points at; never past `end`.
fn skip_properties(text: &str, start: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = start;
    while at < end && matches!(bytes[at], b'!' | b'&') {
        // A verbatim tag `!<...>` may hold no space; other properties end at a space.
        while at < end && !matches!(bytes[at], b' ' | b'\t' | b'\r' | b'\n') {
            at += 1;
        }
        loop {
            match bytes.get(at) {
                Some(b' ' | b'\t' | b'\r' | b'\n') if at < end => at += 1,
                Some(b'#') if at < end => {
                    while at < end && bytes[at] != b'\n' {
                        at += 1;
                    }
                }
                _ => break,
            }
        }
    }
    at.min(end)
}

#[cfg(test)]
mod tests {
    use super::{MAX_DEPTH, Node, NodeValue, Style, parse_documents, parse_events, read_subset};
    use crate::{BINARY_TAG, DocError};

    /// httpmock writes one mock per document: every document is read, each placed in the
    /// stream's text; the first-document reader stops after the first.
    #[test]
    fn every_document_of_a_stream_is_read_in_place() {
        let text = "when:\n  method: GET\nthen:\n  status: 200\n---\nwhen:\n  method: POST\nthen:\n  status: 201\n";
        let stream = parse_documents(text).unwrap();
        let docs = stream.as_seq().unwrap();
        assert_eq!(docs.len(), 2);
        let status = docs[1].get("then").unwrap().get("status").unwrap();
        assert_eq!(status.as_str(), Some("201"));
        assert!(text[status.start as usize..].starts_with("201\n"));
        assert_eq!(
            parse_events(text)
                .unwrap()
                .get("then")
                .unwrap()
                .get("status")
                .unwrap()
                .as_str(),
            Some("200")
        );
        assert_eq!(
            parse_documents("").unwrap().as_seq().map(<[Node]>::len),
            Some(0)
        );
        assert!(parse_documents("a: 1\n---\nb: [\n").is_err());
    }

    #[test]
    fn a_block_sequence_of_a_flow_collection_ends_where_both_readers_say() {
        // saphyr starts the block sequence at the `[`; it still ends at its item's end.
        let node = parse("z[ ~:\n-  [t] \n").unwrap();
        assert_eq!(node.end, 12, "{node:?}");
    }

    #[test]
    fn a_byte_order_mark_inside_a_scalar_is_content_to_both_readers() {
        // PyYAML (C and Python loaders) and Psych load these with the mark in the value.
        for text in [
            "a: m\u{feff}b\n",
            "a: \u{feff}b\n",
            "- m\u{feff}b\n",
            "\u{feff}a: m\u{feff}b\n",
            "k: 'q\u{feff}'\n",
            // At a line's start, and beside the first stand-in (found by the fuzz target).
            "e1:\n\u{feff}xxx *(-\u{e000}:\n",
        ] {
            let node = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
            assert!(
                format!("{node:?}").contains("\\u{feff}"),
                "{text:?}: {node:?}"
            );
        }
    }

    /// The text read through saphyr's events; where the one-pass reader takes the text too,
    /// it must build the same tree, so every case here checks both.
    #[track_caller]
    fn parse(text: &str) -> Result<Node, DocError> {
        let events = parse_events(text);
        if let Some(fast) = read_subset(text) {
            assert_eq!(events.as_ref(), Ok(&fast), "the readers differ on {text:?}");
        }
        events
    }

    /// The node at `path` (keys and indexes) below `root`.
    #[track_caller]
    fn at<'n>(root: &'n Node, path: &[&str]) -> &'n Node {
        path.iter()
            .fold(root, |node, step| match step.parse::<usize>() {
                Ok(i) => &node.as_seq().expect("a sequence")[i],
                Err(_) => node.get(step).unwrap_or_else(|| panic!("no `{step}`")),
            })
    }

    /// The text of the scalar at `path`, its style, and the source text of its span.
    #[track_caller]
    fn scalar<'t>(text: &'t str, path: &[&str]) -> (String, Style, &'t str) {
        let root = parse(text).unwrap();
        let node = at(&root, path);
        let s = node.as_scalar().expect("a scalar");
        (
            s.text.clone(),
            s.style,
            &text[node.start as usize..node.end as usize],
        )
    }

    /// Values are what PyYAML 6 (`yaml.safe_load`) reads from the same text.
    #[test]
    fn reads_pyyaml_scalar_styles() {
        #[track_caller]
        fn case(text: &str, expected: &str, style: Style) {
            let (value, got_style, _) = scalar(text, &["s"]);
            assert_eq!(value, expected, "in {text:?}");
            assert_eq!(got_style, style, "in {text:?}");
        }
        // Single-quoted, folded at width 80: a line break is a space, an empty line a newline.
        case(
            "s: '{\"content\":\"Hello there, this\n  is long.\n\n\n  Second.\"}'\n",
            "{\"content\":\"Hello there, this is long.\n\nSecond.\"}",
            Style::SingleQuoted,
        );
        case("s: 'trailing\n\n  '\n", "trailing\n", Style::SingleQuoted);
        case("s: 'it''s'\n", "it's", Style::SingleQuoted);
        // Double-quoted with escapes, folded (the libyaml CDumper's shape).
        case(
            "s: \"ctrl\\x01char and tab\\t and \\xE9 and\n  folding\"\n",
            "ctrl\x01char and tab\t and \u{e9} and folding",
            Style::DoubleQuoted,
        );
        case(
            "s: \"\\x01ab  ab\n  \\ ab  \\ttail\"\n",
            "\x01ab  ab  ab  \ttail",
            Style::DoubleQuoted,
        );
        // The pure-Python Dumper's line continuations.
        case(
            "s: \"\\x01ab  ab\\\n  \\  ab  \\ttail\"\n",
            "\x01ab  ab  ab  \ttail",
            Style::DoubleQuoted,
        );
        case(
            "s: \"\\u2028 \\U0001F600 \\N\"\n",
            "\u{2028} \u{1F600} \u{85}",
            Style::DoubleQuoted,
        );
        // Plain, and plain continued on the next line.
        case(
            "s: a plain\n  continued line\n",
            "a plain continued line",
            Style::Plain,
        );
        case("s: '172'\n", "172", Style::SingleQuoted);
    }

    #[test]
    fn reads_binary_blocks_with_their_full_tag_and_their_own_span() {
        let text = "body:\n  string: !!binary |\n    H4sIAGJp\n    //4=\nnext: 1\n";
        let root = parse(text).unwrap();
        let node = at(&root, &["body", "string"]);
        assert!(node.is_binary());
        let s = node.as_scalar().unwrap();
        assert_eq!(s.tag.as_deref(), Some(BINARY_TAG));
        assert_eq!(s.text, "H4sIAGJp\n//4=\n");
        assert_eq!(s.style, Style::Literal);
        // The span is the scalar (from its `|`), not its tag.
        assert_eq!(
            &text[node.start as usize..node.end as usize],
            "|\n    H4sIAGJp\n    //4=\n"
        );
    }

    /// Issue 10: an untagged block scalar spans from its indicator too (saphyr starts it at its
    /// content), so that a rewrite replaces the header with the lines.
    #[test]
    fn untagged_block_scalars_span_from_their_header() {
        #[track_caller]
        fn case(text: &str, span: &str) {
            assert_eq!(scalar(text, &["s"]).2, span, "in {text:?}");
        }
        case("s: |-\n  x\n  y\nn: 1\n", "|-\n  x\n  y\n");
        case("s: >2 # note\n\n    x\nn: 1\n", ">2 # note\n\n    x\n");
        case("s: |+\n  x\n\nn: 1\n", "|+\n  x\n\n");
        case("s: &a |\n    x\n", "|\n    x\n");
        // Content that starts with an indicator is still content.
        case("s: |\n  |x\nn: 1\n", "|\n  |x\n");
        case("s: >-\n\n  > x\nn: 1\n", ">-\n\n  > x\n");
        case("s: |\n  &-\nn: 1\n", "|\n  &-\n");
        case("s: |\n  !x\nn: 1\n", "|\n  !x\n");
    }

    #[test]
    fn resolves_tags_to_their_full_form() {
        #[track_caller]
        fn case(text: &str, tag: Option<&str>) {
            let root = parse(text).unwrap();
            let s = at(&root, &["s"]).as_scalar().unwrap();
            assert_eq!(s.tag.as_deref(), tag, "in {text:?}");
        }
        case("s: !!binary aGk=\n", Some(BINARY_TAG));
        case(
            "s: !!python/unicode 'x'\n",
            Some("tag:yaml.org,2002:python/unicode"),
        );
        // Psych's legacy binary tag is local: kept as written.
        case("s: !binary |-\n  //4=\n", Some("!binary"));
        case(
            "s: !<tag:example.com,2000:x> y\n",
            Some("tag:example.com,2000:x"),
        );
        case(
            "%TAG !e! tag:example.com,2000:\n---\ns: !e!foo y\n",
            Some("tag:example.com,2000:foo"),
        );
        case("s: plain\n", None);
    }

    /// dd-trace-py's multidict headers: a tagged one-element sequence as the key.
    #[test]
    fn reads_tagged_collections_as_plain_data() {
        let text = "headers:\n  ? !!python/object/apply:multidict._multidict.istr\n  - Accept\n  : - application/json\n  Content-Length:\n  - '172'\n";
        let root = parse(text).unwrap();
        let entries = at(&root, &["headers"]).as_map().unwrap();
        assert_eq!(entries.len(), 2);
        let (key, value) = &entries[0];
        assert_eq!(key.as_seq().unwrap()[0].as_str(), Some("Accept"));
        assert_eq!(
            value.as_seq().unwrap()[0].as_str(),
            Some("application/json")
        );
        // The key's span starts at its own first item, past the tag.
        assert_eq!(&text[key.start as usize..key.end as usize], "- Accept");
        assert_eq!(entries[1].1.as_seq().unwrap()[0].as_str(), Some("172"));
    }

    /// Psych (Ruby VCR) writes a document marker, `|+` / `|-` blocks and raw UTF-8.
    #[test]
    fn reads_psych_output() {
        let text = "---\nhttp_interactions:\n- request:\n    method: post\n    body:\n      encoding: UTF-8\n      string: '{\"a\":\"line one\n        ok\"}'\n  response:\n    body:\n      string: |+\n        data: {\"x\":1}\n\n        data: [DONE]\n\n    b2: café ☃ snow\n    b3: !binary |-\n      //4=\n  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT\nrecorded_with: VCR 6.2.0\n";
        let root = parse(text).unwrap();
        let i = at(&root, &["http_interactions", "0"]);
        assert_eq!(
            at(i, &["request", "body", "string"]).as_str(),
            Some("{\"a\":\"line one ok\"}")
        );
        assert_eq!(
            at(i, &["response", "body", "string"]).as_str(),
            Some("data: {\"x\":1}\n\ndata: [DONE]\n\n")
        );
        // Offsets are bytes, though saphyr counts characters.
        let b2 = at(i, &["response", "b2"]);
        assert_eq!(&text[b2.start as usize..b2.end as usize], "café ☃ snow");
        let b3 = at(i, &["response", "b3"]);
        assert_eq!(b3.as_scalar().unwrap().tag.as_deref(), Some("!binary"));
        assert_eq!(
            &text[b3.start as usize..b3.end as usize],
            "|-\n      //4=\n"
        );
        let with = at(&root, &["recorded_with"]);
        assert_eq!(&text[with.start as usize..with.end as usize], "VCR 6.2.0");
    }

    /// yaml.v3 (go-vcr) indents by four and double-quotes what would not stay a string.
    #[test]
    fn reads_yaml_v3_output() {
        let text = "---\nversion: 2\ninteractions:\n    - id: 0\n      request:\n        body: \"\"\n        form: {}\n        headers:\n            Age:\n                - \"6220\"\n      response:\n        status: 200 OK\n        code: 200\n";
        let root = parse(text).unwrap();
        let i = at(&root, &["interactions", "0"]);
        assert_eq!(at(i, &["request", "body"]).as_str(), Some(""));
        assert!(!at(i, &["request", "body"]).is_null());
        assert_eq!(
            at(i, &["request", "form"]).as_map().map(<[_]>::len),
            Some(0)
        );
        assert_eq!(
            at(i, &["request", "headers", "Age", "0"]).as_str(),
            Some("6220")
        );
        assert_eq!(at(i, &["response", "status"]).as_str(), Some("200 OK"));
        let form = at(i, &["request", "form"]);
        assert_eq!(&text[form.start as usize..form.end as usize], "{}");
    }

    #[test]
    fn collections_span_from_their_first_byte_to_their_last_child() {
        let text = "a:\n  - x\n  - [1, 2]   # comment\nb: {c: d}\n";
        let root = parse(text).unwrap();
        let span = |n: &Node| &text[n.start as usize..n.end as usize];
        assert_eq!(span(&root), "a:\n  - x\n  - [1, 2]   # comment\nb: {c: d}");
        assert_eq!(span(at(&root, &["a"])), "- x\n  - [1, 2]");
        assert_eq!(span(at(&root, &["a", "1"])), "[1, 2]");
        assert_eq!(span(at(&root, &["b"])), "{c: d}");
    }

    #[test]
    fn merge_keys_merge_as_pyyaml_loads_them() {
        // PyYAML loads `m` as {'y': 1, 'z': 3, 'x': 1, 'w': 0}: the last mapping of the
        // list first, each key at its first place with its last value, the own keys last.
        let text = "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nm:\n  w: 0\n  <<: [*a, *b]\n  z: 3\n";
        let root = parse_events(text).unwrap();
        let m: Vec<(String, String)> = root
            .get("m")
            .and_then(Node::as_map)
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().unwrap().to_owned(),
                    v.as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(m, pairs(&[("y", "1"), ("z", "3"), ("x", "1"), ("w", "0")]));
        // One mapping; a `<<` of a scalar is an ordinary key.
        let root = parse_events("b: &b {k: 1}\nm:\n  <<: *b\n  j: 2\nn:\n  <<: s\n").unwrap();
        let keys = |name: &str| -> Vec<String> {
            root.get(name)
                .and_then(Node::as_map)
                .unwrap()
                .iter()
                .map(|(k, _)| k.as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(keys("m"), ["k", "j"]);
        assert_eq!(keys("n"), ["<<"]);
    }

    #[test]
    fn an_alias_is_a_copy_of_its_anchored_node() {
        let text = "base: &h\n  Accept: [x]\nother: *h\ns: &v value\nt: *v\n";
        let root = parse(text).unwrap();
        assert_eq!(at(&root, &["other", "Accept", "0"]).as_str(), Some("x"));
        assert_eq!(at(&root, &["t"]).as_str(), Some("value"));
        // The anchored scalar's span is its own text, not its anchor.
        let s = at(&root, &["s"]);
        assert_eq!(&text[s.start as usize..s.end as usize], "value");
        let t = at(&root, &["t"]);
        assert_eq!(&text[t.start as usize..t.end as usize], "*v");
    }

    /// Issue 9: crafted input must not blow memory, overflow the stack or panic.
    #[test]
    fn bounds_alias_bombs_and_nesting() {
        let mut bomb = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for i in 1..12u8 {
            let prev = (b'a' + i - 1) as char;
            let name = (b'a' + i) as char;
            bomb.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        let e = parse(&bomb).unwrap_err();
        assert!(e.message.contains("size limit"), "{}", e.message);
        assert!(e.offset > 0 && e.offset < bomb.len());

        // Block nesting stops at our limit, flow nesting at saphyr's (255 levels).
        let block: String = (0..MAX_DEPTH + 2)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect();
        let e = parse(&block).unwrap_err();
        assert_eq!(
            e.message,
            format!("not valid YAML: nesting deeper than {MAX_DEPTH} levels")
        );
        let line = block.lines().nth(MAX_DEPTH).unwrap();
        assert_eq!(&block[e.offset..e.offset + line.trim().len()], line.trim());
        let fine: String = (0..MAX_DEPTH - 1)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect();
        assert!(parse(&fine).is_ok());
        assert!(
            parse(&"[".repeat(100_000))
                .unwrap_err()
                .message
                .starts_with("not valid YAML: ")
        );

        // Aliases cannot make a tree deeper than the limit either.
        let nested = |indent: usize, n: usize, leaf: &str| -> String {
            let mut out: String = (indent..indent + n)
                .map(|i| format!("{}k:\n", " ".repeat(i)))
                .collect();
            out.push_str(&format!("{}{leaf}\n", " ".repeat(indent + n)));
            out
        };
        let chain = format!("a: &a\n{}b:\n{}", nested(1, 300, "x"), nested(1, 300, "*a"));
        let Err(e) = parse(&chain) else {
            panic!("an alias past the depth limit was read")
        };
        assert!(e.message.contains("nesting deeper"), "{}", e.message);
        assert_eq!(&chain[e.offset..e.offset + 2], "*a");
        assert!(
            parse(&format!(
                "a: &a\n{}b:\n{}",
                nested(1, 200, "x"),
                nested(1, 200, "*a")
            ))
            .is_ok()
        );
        let e = parse("a: &a [*a]\n").unwrap_err();
        assert!(e.message.starts_with("not valid YAML: "), "{}", e.message);
    }

    #[test]
    fn errors_name_the_byte_where_reading_stopped() {
        #[track_caller]
        fn case(text: &str, offset: usize) {
            let e = parse(text).unwrap_err();
            assert!(e.message.starts_with("not valid YAML: "), "{}", e.message);
            assert_eq!(e.offset, offset, "{text:?}: {}", e.message);
        }
        // An unterminated quote: where the scalar starts.
        case("a: 'unterminated\n", 3);
        case("a: b\n c: d\n", 7);
        case("a: [1, 2\n", 9);
        case("a: *nope\n", 3);
        case("a:\n\t- x\n", 4);
        // Offsets are bytes past multi-byte characters (saphyr counts characters).
        case("é: 'ü\n", 4);
        case("é: x\nü: y\n  z: 1\n", "é: x\nü: y\n  z".len());
    }

    /// Issue 9: old Psych wrote a quoted body's closing quote in column 0, which libyaml
    /// (PyYAML, Psych) reads and YAML 1.2 forbids. Values are PyYAML's.
    #[test]
    fn reads_quoted_scalars_indented_less_than_their_block_as_libyaml_does() {
        let text = "r:\n    body: ! '<p>\n\n      <hr>\n\n      <address>Apache</address>\n\n      </body>\n\n'\n    next: 'a\n  b'\n    é: 'x\n y'\n    after: z\n";
        let root = parse(text).unwrap();
        let r = at(&root, &["r"]);
        assert_eq!(
            at(r, &["body"]).as_str(),
            Some("<p>\n<hr>\n<address>Apache</address>\n</body>\n")
        );
        assert_eq!(at(r, &["next"]).as_str(), Some("a b"));
        assert_eq!(at(r, &["é"]).as_str(), Some("x y"));
        // Positions are in the original text.
        let span = |n: &Node| &text[n.start as usize..n.end as usize];
        assert!(span(at(r, &["body"])).starts_with("'<p>\n\n      <hr>"));
        assert!(span(at(r, &["body"])).ends_with("</body>\n\n'"));
        assert_eq!(span(at(r, &["next"])), "'a\n  b'");
        assert_eq!(span(at(r, &["é"])), "'x\n y'");
        assert_eq!(span(at(r, &["after"])), "z");
        // Still an error where libyaml has one too.
        let e = parse("a: 'x\n\nb: [\n").unwrap_err();
        assert!(e.message.starts_with("not valid YAML: "), "{}", e.message);
    }

    /// Old Psych wrote every body of a cassette so, and a cassette of more bodies than the
    /// re-parses allowed was a `parse` error (a real Azure SDK cassette: 83 interactions).
    /// Every scalar opening a line written the same way is indented at once; each keeps
    /// its value and its place in the original text.
    #[test]
    fn reads_many_quoted_scalars_indented_less_than_their_block() {
        let mut text = String::from("http_interactions:\n");
        for i in 0..(super::MAX_REINDENTS * 3) {
            text.push_str(&format!(
                "- response:\n    body:\n      string: '{{\"id\":{i}}}\n\n'\n    note: 'n{i}\n  m'\n"
            ));
        }
        let root = parse(&text).unwrap();
        let NodeValue::Seq(items) = &at(&root, &["http_interactions"]).value else {
            panic!("a sequence");
        };
        assert_eq!(items.len(), super::MAX_REINDENTS * 3);
        for (i, item) in items.iter().enumerate() {
            let body = at(item, &["response", "body", "string"]);
            assert_eq!(body.as_str(), Some(format!("{{\"id\":{i}}}\n").as_str()));
            let span = &text[body.start as usize..body.end as usize];
            assert_eq!(span, format!("'{{\"id\":{i}}}\n\n'"));
            assert_eq!(
                at(item, &["response", "note"]).as_str(),
                Some(format!("n{i} m").as_str())
            );
        }
    }

    /// A quoted scalar whose continuation lines start with tabs, left of their block's
    /// indentation (a JSON body pasted into a vcrpy cassette, in a real repository): PyYAML
    /// and libyaml load it, saphyr alone refuses it. Values are PyYAML's.
    #[test]
    fn reads_quoted_scalars_whose_lines_start_with_tabs_as_pyyaml_does() {
        let text = "r:\n  body:\n    string:\n      '{\n\t\t\"a\": 1,\n\n\t\t  \"b\": 2\n\t}'\n  next: \"x\n\ty\"\n  after: z\n";
        let root = parse(text).unwrap();
        let r = at(&root, &["r"]);
        assert_eq!(
            at(r, &["body", "string"]).as_str(),
            Some("{ \"a\": 1,\n\"b\": 2 }")
        );
        assert_eq!(at(r, &["next"]).as_str(), Some("x y"));
        let span = |n: &Node| &text[n.start as usize..n.end as usize];
        assert_eq!(span(at(r, &["next"])), "\"x\n\ty\"");
        assert_eq!(span(at(r, &["after"])), "z");
        // A tab as a block's indentation is still an error.
        assert!(parse("a:\n\t- x\n").is_err());
    }

    #[test]
    fn reads_the_first_document_and_empty_streams() {
        let root = parse("a: 1\n---\nb: [\n").unwrap();
        assert_eq!(root.get("a").and_then(Node::as_str), Some("1"));
        assert!(parse("").unwrap().is_null());
        assert!(parse("# only a comment\n").unwrap().is_null());
        assert!(matches!(parse("- a\n").unwrap().value, NodeValue::Seq(_)));
    }
}
