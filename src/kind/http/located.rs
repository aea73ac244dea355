//! A node of a cassette's tree with its readable path: what the tree readers (HAR, nock,
//! talkback) walk with.
//!
//! Every scalar a reader keeps becomes a [`Field`] named by its path in the file with the
//! file's own keys (`log.entries[3].request.headers[2].value`, `[2].reqheaders.authorization`),
//! and every shape a reader refuses is a [`ReadError`] that names the same path and the byte
//! offset of the node, or of the nearest node around it that has one (a JSON number has none
//! of its own).

use crate::doc::{Node, NodeValue, Style};

use super::{Field, Format, Header, ReadError};

/// A node, its readable path and the nearest byte offset known for it.
#[derive(Debug, Clone)]
pub(super) struct Located<'a> {
    /// The node.
    pub(super) node: &'a Node,
    /// Its path in the file (`""` for the root).
    pub(super) path: String,
    /// Its offset, or its parent's when it has none.
    pub(super) offset: usize,
    /// The format whose errors this reports.
    format: Format,
}

impl<'a> Located<'a> {
    /// The root of a document read as `format`.
    pub(super) fn root(format: Format, node: &'a Node) -> Located<'a> {
        Located {
            node,
            path: String::new(),
            offset: node.offset().unwrap_or(0),
            format,
        }
    }

    /// A child of this node at `path`; `near` is where to point when it has no offset of
    /// its own (its key's, else this node's).
    fn child(&self, node: &'a Node, path: String, near: Option<usize>) -> Located<'a> {
        Located {
            node,
            path,
            offset: node.offset().or(near).unwrap_or(self.offset),
            format: self.format,
        }
    }

    /// The value of `key`, if this is a mapping that has it.
    pub(super) fn get(&self, key: &str) -> Option<Located<'a>> {
        let (k, v) = self
            .node
            .as_map()?
            .iter()
            .find(|(k, _)| k.as_scalar().is_some_and(|s| s.text == key))?;
        Some(self.child(v, join(&self.path, key), k.offset()))
    }

    /// The value of `key`, unless it is absent or null.
    pub(super) fn get_some(&self, key: &str) -> Option<Located<'a>> {
        self.get(key).filter(|v| !v.node.is_null())
    }

    /// The value of `key`, which must be there (and not null).
    pub(super) fn require(&self, key: &str) -> Result<Located<'a>, ReadError> {
        self.get_some(key)
            .ok_or_else(|| self.error(format!("has no `{key}`")))
    }

    /// The items, which must be a sequence.
    pub(super) fn items(&self) -> Result<Vec<Located<'a>>, ReadError> {
        let items = self
            .node
            .as_seq()
            .ok_or_else(|| self.error("is not a list"))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, item)| self.child(item, format!("{}[{i}]", self.path), None))
            .collect())
    }

    /// The entries, which must be a mapping: each key's text and its value.
    pub(super) fn entries(&self) -> Result<Vec<(&'a str, Located<'a>)>, ReadError> {
        let entries = self
            .node
            .as_map()
            .ok_or_else(|| self.error("is not a mapping"))?;
        Ok(entries
            .iter()
            .filter_map(|(k, v)| {
                let key = k.as_scalar()?.text.as_str();
                Some((key, self.child(v, join(&self.path, key), k.offset())))
            })
            .collect())
    }

    /// The items of a sequence, or this node alone (a header's value or list of values).
    pub(super) fn one_or_many(&self) -> Result<Vec<Located<'a>>, ReadError> {
        match self.node.as_seq() {
            Some(_) => self.items(),
            None => Ok(vec![self.clone()]),
        }
    }

    /// Headers written as a mapping from name to a value or a list of values (one
    /// [`Header`] per value).
    pub(super) fn mapping_headers(&self) -> Result<Vec<Header>, ReadError> {
        let mut headers = Vec::new();
        for (name, value) in self.entries()? {
            for value in value.one_or_many()? {
                headers.push(Header {
                    name: name.to_owned(),
                    value: value.field()?,
                });
            }
        }
        Ok(headers)
    }

    /// Whether this is a mapping.
    pub(super) fn is_map(&self) -> bool {
        self.node.as_map().is_some()
    }

    /// The scalar's text, which must be a scalar that is not null.
    pub(super) fn text(&self) -> Result<&'a str, ReadError> {
        self.node
            .as_str()
            .ok_or_else(|| self.error("is not a string"))
    }

    /// The scalar as a field of the model.
    pub(super) fn field(&self) -> Result<Field, ReadError> {
        Ok(Field {
            text: self.text()?.to_owned(),
            at: self.node.offset().map(|o| o as u32),
            path: self.path.clone(),
        })
    }

    /// Whether this is a scalar written as a string (quoted in JSON, JSON5 or YAML, or a
    /// YAML block or plain scalar that resolves to no other type).
    pub(super) fn is_string(&self) -> bool {
        match &self.node.value {
            NodeValue::Scalar(s) => match s.style {
                Style::Plain => !self.node.is_null() && !is_plain_non_string(&s.text),
                _ => true,
            },
            _ => false,
        }
    }

    /// A boolean flag: `true` only when the scalar says `true`.
    pub(super) fn is_true(&self) -> bool {
        self.node
            .as_scalar()
            .is_some_and(|s| s.style == Style::Plain && s.text == "true")
    }

    /// The scalar as an HTTP status: `Ok(None)` for a number outside `0..=65535` (a browser
    /// writes `-1` or `0` for a request that got no response), an error for anything that is
    /// not a number.
    pub(super) fn status(&self) -> Result<Option<u16>, ReadError> {
        let text = self.text()?;
        let number: i64 = text
            .trim()
            .parse()
            .map_err(|_| self.error(format!("is not a number (`{text}`)")))?;
        Ok(u16::try_from(number).ok())
    }

    /// An error about this node: its path, then `what`.
    pub(super) fn error(&self, what: impl std::fmt::Display) -> ReadError {
        let message = if self.path.is_empty() {
            format!("the document {what}")
        } else {
            format!("{} {what}", self.path)
        };
        ReadError {
            format: self.format,
            message,
            offset: self.offset,
        }
    }
}

/// `path.key` (`key` alone at the root).
pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Whether a plain scalar resolves to a number, a boolean or null rather than a string (the
/// JSON and YAML 1.2 core schema's forms; JSON5's `Infinity` and `NaN`).
fn is_plain_non_string(text: &str) -> bool {
    matches!(
        text,
        "true" | "false" | "True" | "False" | "TRUE" | "FALSE" | "null" | "Null" | "NULL" | "~"
    ) || text.parse::<f64>().is_ok()
        || text.starts_with("0x")
        || text.starts_with("-0x")
        || text.starts_with("+0x")
}

/// What the readers' tests share.
#[cfg(test)]
pub(super) mod testing {
    use super::super::{Format, Header, ReadError};

    /// Each header's name, value and path.
    pub(in crate::kind::http) fn headers(headers: &[Header]) -> Vec<(&str, &str, &str)> {
        headers
            .iter()
            .map(|h| {
                (
                    h.name.as_str(),
                    h.value.text.as_str(),
                    h.value.path.as_str(),
                )
            })
            .collect()
    }

    /// Asserts that `error`, from reading `text`, is `format`'s `message` at the place where
    /// `at` is written.
    #[track_caller]
    pub(in crate::kind::http) fn assert_error(
        error: &ReadError,
        text: &str,
        format: Format,
        message: &str,
        at: &str,
    ) {
        assert_eq!(
            (error.format, error.message.as_str()),
            (format, message),
            "{text}"
        );
        let rest = &text[error.offset..];
        assert!(rest.starts_with(at), "{text}: at {rest:?}, not {at:?}");
    }
}
