//! Documents read by structure: one tree for JSON, JSON5 and YAML, with where each node sits.
//!
//! HTTP cassettes come in all three (vcrpy writes YAML or JSON, Polly writes HAR as JSON or
//! YAML, talkback writes JSON5), and their readers want the same things of each: a mapping's
//! fields in source order, a scalar's text, its YAML tag (`!!binary`,
//! `!!python/object/apply:...`, read as data, never executed) and the byte range it came from,
//! so that a finding names its line and column and a later rewrite can replace one scalar and
//! leave every other byte alone.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod edit;
pub mod json5;
pub mod udiff;
pub mod yaml;

/// How cassettes are read. The defaults are the fast paths every command takes; each other
/// path is what the code did before an optimisation, kept so that the tests can compare the
/// two in one process (the binary sets them from its `VCR_TEST_*` hooks, and nothing else
/// does). It is passed down as a value: a project holds its own, and each cassette's folder
/// a copy (`vcr_cassette::model::FixtureDir`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// YAML read in one pass by the reader of the subset recorders write (`yaml::fast`,
    /// issue 12); off: every document through saphyr's events (`VCR_TEST_YAML_EVENTS=1`).
    pub fast_yaml: bool,
    /// Message fixtures and `[[cassettes]]` JSONL logs read a part at a time, and dsh
    /// scenarios diffed a call at a time (issue 12); off: whole values
    /// (`VCR_TEST_WHOLE_VALUES=1`).
    pub streaming: bool,
    /// Credential names in HTTP bodies and comment lines found by a case-folded search
    /// (issue 12); off: the byte search before it (`VCR_TEST_BYTE_SEARCH=1`).
    pub folded_search: bool,
    /// How many bytes of interactions make a window of a cassette read in windows, and from
    /// how many bytes a cassette is read so (`VCR_TEST_HTTP_WINDOW`); `None`: a 64th of the
    /// file between 512 KiB and 16 MiB, from 4 MiB (issue 25).
    pub http_window: Option<usize>,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            fast_yaml: true,
            streaming: true,
            folded_search: true,
            http_window: None,
        }
    }
}

use vcr_json::Value;

/// One node of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte offset where the node starts in its source (for a scalar: its first byte,
    /// quotes or block indicator included). `u32::MAX` when unknown (a JSON number).
    pub start: u32,
    /// Byte offset one past its end (`u32::MAX` when unknown).
    pub end: u32,
    /// What it holds.
    pub value: NodeValue,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    /// A scalar: a string, number, boolean or null, as text.
    Scalar(Scalar),
    /// A sequence (array).
    Seq(Vec<Node>),
    /// A mapping (object), entries in source order.
    Map(Vec<(Node, Node)>),
}

/// How a scalar was written: what a rewrite must keep, and whether the text is a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A YAML plain scalar (may resolve to a number, a boolean or null), or a JSON number,
    /// `true`, `false` or `null`.
    Plain,
    /// YAML `'...'`.
    SingleQuoted,
    /// YAML `"..."`, or a JSON / JSON5 string.
    DoubleQuoted,
    /// YAML `|`.
    Literal,
    /// YAML `>`.
    Folded,
}

/// A scalar's text and how it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The value, escapes and folding resolved.
    pub text: String,
    /// How it was written.
    pub style: Style,
    /// The YAML tag as written after resolving handles (`!!binary` is
    /// `tag:yaml.org,2002:binary`; `!!python/object/apply:x` is
    /// `tag:yaml.org,2002:python/object/apply:x`), or `None`.
    pub tag: Option<String>,
}

/// The tag `!!binary` resolves to.
pub const BINARY_TAG: &str = "tag:yaml.org,2002:binary";

/// How deep collections may nest in a document (as in JSON): deeper is an error, so that crafted
/// input cannot exhaust the stack of whatever walks the tree.
pub const MAX_DEPTH: usize = 512;

/// A document that could not be read: what and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DocError {
    /// What went wrong.
    pub message: String,
    /// Byte offset of the problem.
    pub offset: usize,
}

impl Node {
    /// A node built by code (no source position).
    pub fn new(value: NodeValue) -> Node {
        Node {
            start: u32::MAX,
            end: u32::MAX,
            value,
        }
    }

    /// Where the node starts, when known.
    pub fn offset(&self) -> Option<usize> {
        (self.start != u32::MAX).then_some(self.start as usize)
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            NodeValue::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar's text, if this is a scalar that is not null.
    pub fn as_str(&self) -> Option<&str> {
        self.as_scalar()
            .filter(|_| !self.is_null())
            .map(|s| s.text.as_str())
    }

    /// The items, if this is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            NodeValue::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            NodeValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value of the first entry whose key is the scalar `key`, in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_scalar().is_some_and(|s| s.text == key))
            .map(|(_, v)| v)
    }

    /// Whether this is null: JSON `null`, YAML `~`, `null`, `Null`, `NULL` or an empty plain
    /// scalar.
    pub fn is_null(&self) -> bool {
        matches!(&self.value, NodeValue::Scalar(s)
            if s.style == Style::Plain
                && s.tag.is_none()
                && matches!(s.text.as_str(), "" | "~" | "null" | "Null" | "NULL"))
    }

    /// Whether the scalar is tagged `!!binary` (its text is base64).
    pub fn is_binary(&self) -> bool {
        self.as_scalar()
            .is_some_and(|s| s.tag.as_deref() == Some(BINARY_TAG))
    }
}

/// Reads JSON (strict, as `JSON.parse` reads it) into a document tree.
///
/// Object entries keep JavaScript's enumeration order (index-like keys first), which is what
/// every JSON recorder here wrote them in.
pub fn from_json(bytes: &[u8]) -> Result<Node, DocError> {
    let value = vcr_json::parse(bytes).map_err(|e| DocError {
        message: format!("not valid JSON: {e}"),
        offset: e.offset,
    })?;
    Ok(from_value_in(&value, bytes))
}

/// Turns a parsed JSON value into a node (the position of booleans and null, and of numbers
/// not read from a source, is unknown: `u32::MAX`).
pub fn from_value(value: &Value<'_>) -> Node {
    from_value_in(value, &[])
}

/// [`from_value`] for a value parsed from `source`: a number's text is a slice of it, which
/// gives its position (a scrub keeps a length such as a HAR's `content.size` true by
/// rewriting its digits).
pub fn from_value_in(value: &Value<'_>, source: &[u8]) -> Node {
    let scalar = |text: String, style| {
        NodeValue::Scalar(Scalar {
            text,
            style,
            tag: None,
        })
    };
    match value {
        Value::Null => Node::new(scalar("null".into(), Style::Plain)),
        Value::Bool(b) => Node::new(scalar(b.to_string(), Style::Plain)),
        Value::Number(n) => {
            let mut node = Node::new(scalar(n.0.to_string(), Style::Plain));
            if let std::borrow::Cow::Borrowed(text) = &n.0 {
                let start = (text.as_ptr() as usize).wrapping_sub(source.as_ptr() as usize);
                if start < source.len() && start + text.len() <= source.len() {
                    node.start = start as u32;
                    node.end = (start + text.len()) as u32;
                }
            }
            node
        }
        Value::String(s) => {
            let span = s.span();
            Node {
                start: span.start,
                end: span.end,
                value: scalar(s.as_str().to_owned(), Style::DoubleQuoted),
            }
        }
        Value::Array(items) => {
            let nodes: Vec<Node> = items.iter().map(|v| from_value_in(v, source)).collect();
            let start = nodes
                .iter()
                .find_map(Node::offset)
                .map_or(u32::MAX, |o| o as u32);
            Node {
                start,
                end: u32::MAX,
                value: NodeValue::Seq(nodes),
            }
        }
        Value::Object(object) => {
            let entries: Vec<(Node, Node)> = object
                .iter()
                .map(|(k, v)| {
                    let span = k.span();
                    let key = Node {
                        start: span.start,
                        end: span.end,
                        value: scalar(k.as_str().to_owned(), Style::DoubleQuoted),
                    };
                    (key, from_value_in(v, source))
                })
                .collect();
            let start = entries.first().map_or(u32::MAX, |(k, _)| k.start);
            Node {
                start,
                end: u32::MAX,
                value: NodeValue::Map(entries),
            }
        }
    }
}
