//! A cassette's nodes with their readable paths: what the document-based readers (vcrpy,
//! Ruby VCR, go-vcr) share.
//!
//! Every reader walks a [`Node`] tree down to the scalars it keeps, and every scalar it keeps
//! becomes a [`Field`] whose path is the way to it in the file's own keys
//! (`interactions[3].request.headers.Authorization[0]`). [`At`] carries that path along, and
//! turns a missing or mistyped field into a [`ReadError`] that names it and points at the
//! nearest position the file gives.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use vcr_doc::Node;

use super::{Body, Field, Format, Header, HttpCassette, Interaction, ReadError};

/// Reads the list under `key` of `root`, one interaction per item.
pub(super) fn cassette(
    root: &Node,
    format: Format,
    key: &str,
    interaction: fn(&At<'_>) -> Result<Interaction, ReadError>,
) -> Result<HttpCassette, ReadError> {
    of_items(&At::root(root, format).need(key)?, format, interaction)
}

/// Reads a cassette that is a list at its root (nock, ExVCR, php-vcr, HTTPretty), one
/// interaction per item.
pub(super) fn root_cassette(
    root: &Node,
    format: Format,
    interaction: fn(&At<'_>) -> Result<Interaction, ReadError>,
) -> Result<HttpCassette, ReadError> {
    of_items(&At::root(root, format), format, interaction)
}

fn of_items(
    list: &At<'_>,
    format: Format,
    interaction: fn(&At<'_>) -> Result<Interaction, ReadError>,
) -> Result<HttpCassette, ReadError> {
    let interactions = list
        .items()?
        .iter()
        .map(interaction)
        .collect::<Result<_, _>>()?;
    Ok(HttpCassette {
        format,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// A node of a cassette, the path that leads to it, and the format being read.
#[derive(Debug, Clone)]
pub(super) struct At<'n> {
    /// The node.
    pub(super) node: &'n Node,
    /// Its readable path (empty for the root).
    pub(super) path: String,
    format: Format,
    /// The node's offset, or its nearest ancestor's (JSON numbers have none).
    offset: usize,
}

/// What a deferred body's `stored` says until [`fill_deferred`] gives it its bytes.
const DEFERRED: &str = "deferred";

/// Gives each body [`At::body_bytes`] deferred the text of its scalar, moved out of `root`
/// (the document the cassette was read from, whose scalar texts nothing reads afterwards but
/// for their spans). An alias is a node of its own, at its own place, so no two bodies name
/// one scalar.
pub(super) fn fill_deferred(cassette: &mut HttpCassette, root: &mut Node) {
    let deferred = |body: &Body| match body {
        Body::Bytes { field, stored, .. } if stored.as_slice() == [DEFERRED] => field.at,
        _ => None,
    };
    let wanted: std::collections::HashSet<u32> = cassette
        .interactions
        .iter()
        .flat_map(Interaction::bodies)
        .filter_map(deferred)
        .collect();
    if wanted.is_empty() {
        return;
    }
    let mut texts: std::collections::HashMap<u32, String> = std::collections::HashMap::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &mut node.value {
            vcr_doc::NodeValue::Scalar(scalar) => {
                if wanted.contains(&node.start) {
                    texts.insert(node.start, std::mem::take(&mut scalar.text));
                }
            }
            vcr_doc::NodeValue::Seq(items) => stack.extend(items.iter_mut()),
            vcr_doc::NodeValue::Map(entries) => {
                stack.extend(entries.iter_mut().map(|(_, v)| v));
            }
        }
    }
    for interaction in &mut cassette.interactions {
        let response = interaction.response.as_mut().and_then(|r| r.body.as_mut());
        for body in interaction
            .request
            .body
            .as_mut()
            .into_iter()
            .chain(response)
        {
            if let Some(at) = deferred(body)
                && let Body::Bytes { bytes, stored, .. } = body
            {
                *bytes = texts.remove(&at).unwrap_or_default().into_bytes();
                stored.clear();
            }
        }
    }
}

/// Base64 as recorders write it: standard alphabet, line breaks anywhere (PyYAML's `!!binary`,
/// Ruby's `Base64.encode64`), padding or not.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The bytes of base64 text, line breaks and spaces ignored.
pub(super) fn base64_bytes(text: &str) -> Option<Vec<u8>> {
    let compact: String = text.split_ascii_whitespace().collect();
    BASE64.decode(compact).ok()
}

/// Ruby's `Base64.decode64` (`unpack1("m")`): characters outside the alphabet are skipped,
/// and `=` in the third or fourth place of a group ends the data; what a last incomplete
/// group holds is kept. It never fails.
pub(super) fn ruby_decode64(text: &str) -> Vec<u8> {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut group = [0u8; 4];
    let mut filled = 0;
    for &b in text.as_bytes() {
        if b == b'=' && filled >= 2 {
            break;
        }
        let Some(v) = value(b) else { continue };
        group[filled] = v;
        filled += 1;
        if filled == 4 {
            out.push(group[0] << 2 | group[1] >> 4);
            out.push(group[1] << 4 | group[2] >> 2);
            out.push(group[2] << 6 | group[3]);
            filled = 0;
        }
    }
    if filled >= 2 {
        out.push(group[0] << 2 | group[1] >> 4);
        if filled == 3 {
            out.push(group[1] << 4 | group[2] >> 2);
        }
    }
    out
}

impl<'n> At<'n> {
    /// The document's root.
    pub(super) fn root(node: &'n Node, format: Format) -> At<'n> {
        At {
            node,
            path: String::new(),
            format,
            offset: node.offset().unwrap_or(0),
        }
    }

    /// A node read on its own whose path in the document is `path` (an entry of a HAR read
    /// in windows).
    pub(super) fn placed(node: &'n Node, format: Format, path: String) -> At<'n> {
        At {
            node,
            path,
            format,
            offset: node.offset().unwrap_or(0),
        }
    }

    fn child(&self, node: &'n Node, path: String) -> At<'n> {
        At {
            node,
            path,
            format: self.format,
            offset: node.offset().unwrap_or(self.offset),
        }
    }

    /// The path of `key` below this node.
    fn key_path(&self, key: &str) -> String {
        self.path_below(Some(key), None)
    }

    /// The path of the `i`-th item below this node.
    fn item_path(&self, i: usize) -> String {
        self.path_below(None, Some(i))
    }

    /// The path of the `i`-th item of the list under `key`: `key_path(key)` and then
    /// `item_path(i)` below it, in one allocation.
    fn key_item_path(&self, key: &str, i: usize) -> String {
        self.path_below(Some(key), Some(i))
    }

    /// This node's path, then `.key`, then `[i]`, each if given. Built by hand at its final
    /// size: `format!` grows its buffer several times, for every field of every cassette
    /// (issue 12).
    fn path_below(&self, key: Option<&str>, item: Option<usize>) -> String {
        // `.` and the key; `[`, at most 20 digits, `]`.
        let size = self.path.len() + key.map_or(0, |k| k.len() + 1) + item.map_or(0, |_| 22);
        let mut path = String::with_capacity(size);
        path.push_str(&self.path);
        if let Some(key) = key {
            if !self.path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
        }
        if let Some(i) = item {
            // Writing to a `String` cannot fail.
            let _ = std::fmt::Write::write_fmt(&mut path, format_args!("[{i}]"));
        }
        path
    }

    /// The value of `key`, if this is a mapping that holds it and it is not null.
    pub(super) fn get(&self, key: &str) -> Option<At<'n>> {
        let node = self.node.get(key).filter(|n| !n.is_null())?;
        Some(self.child(node, self.key_path(key)))
    }

    /// Whether this is a mapping that holds `key` with a value that is not null: `get`
    /// without the path, for a reader that only looks.
    pub(super) fn has(&self, key: &str) -> bool {
        self.node.get(key).is_some_and(|n| !n.is_null())
    }

    /// The value of `key`, which the format requires.
    pub(super) fn need(&self, key: &str) -> Result<At<'n>, ReadError> {
        self.get(key).ok_or_else(|| {
            let whose = if self.path.is_empty() {
                "the cassette".to_owned()
            } else {
                self.path.clone()
            };
            self.error(format!("{whose} has no `{key}`"))
        })
    }

    /// The items, if this is a sequence; an error naming the path otherwise.
    pub(super) fn items(&self) -> Result<Vec<At<'n>>, ReadError> {
        let items = self
            .node
            .as_seq()
            .ok_or_else(|| self.error(format!("{} is not a list", self.path)))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, node)| self.child(node, self.item_path(i)))
            .collect())
    }

    /// The scalar as a field; an error naming the path if this is a list or a mapping. A
    /// `!!binary` (or Psych's `!binary`) scalar is read as the text its bytes spell.
    pub(super) fn field(&self) -> Result<Field, ReadError> {
        self.clone().into_field()
    }

    /// [`At::field`], taking the `At`, whose path becomes the field's: where the `At` is
    /// made for the field alone (a header's value), no copy of its path.
    pub(super) fn into_field(self) -> Result<Field, ReadError> {
        let scalar = self
            .node
            .as_scalar()
            .ok_or_else(|| self.error(format!("{} is not a single value", self.path)))?;
        let text = if is_binary(self.node) {
            let bytes = self.base64()?;
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        } else {
            scalar.text.clone()
        };
        Ok(Field {
            text,
            at: self.node.offset().map(|o| o as u32),
            path: self.path,
        })
    }

    /// The scalar as an HTTP status code.
    pub(super) fn status(&self) -> Result<u16, ReadError> {
        let field = self.field()?;
        let digits = field.text.split_whitespace().next().unwrap_or("");
        digits.parse().map_err(|_| {
            self.error(format!(
                "{} is not an HTTP status: `{}`",
                self.path, field.text
            ))
        })
    }

    /// A status: `{code, message}` (vcrpy, Ruby VCR) or a scalar (`200`, go-vcr's `200 OK`).
    pub(super) fn status_code(&self) -> Result<u16, ReadError> {
        match self.node.as_map() {
            Some(_) => self.need("code")?.status(),
            None => self.status(),
        }
    }

    /// The headers under `key` (none when it is absent or null).
    pub(super) fn headers_in(&self, key: &str) -> Result<Vec<Header>, ReadError> {
        self.get(key).map_or(Ok(Vec::new()), |h| h.headers())
    }

    /// The scalar's text read as base64.
    fn base64(&self) -> Result<Vec<u8>, ReadError> {
        let text = self.node.as_scalar().map_or("", |s| s.text.as_str());
        base64_bytes(text).ok_or_else(|| self.error(format!("{} is not valid base64", self.path)))
    }

    /// A body held in this scalar: its text, or the bytes of a `!!binary` scalar; `None` when
    /// it is empty (a recorder writes `''` for "no body").
    pub(super) fn body_bytes(&self) -> Result<Option<Body>, ReadError> {
        if let Some(scalar) = self.node.as_scalar()
            && scalar.text.len() >= super::LARGE_BODY
            && !is_binary(self.node)
            && let Some(at) = self.node.offset()
        {
            // A large text is moved out of the document once it is read, not copied while
            // the document holds it (see `fill_deferred`).
            return Ok(Some(Body::Bytes {
                field: Field {
                    text: String::new(),
                    at: Some(at as u32),
                    path: self.path.clone(),
                },
                bytes: Vec::new(),
                stored: vec![DEFERRED],
            }));
        }
        let field = self.field_raw()?;
        let body = if is_binary(self.node) {
            Body::Bytes {
                field,
                bytes: self.base64()?,
                stored: vec!["binary"],
            }
        } else {
            Body::text(field)
        };
        Ok(match &body {
            Body::Bytes { bytes, .. } if bytes.is_empty() => None,
            _ => Some(body),
        })
    }

    /// A body held as base64 text in this scalar (Ruby VCR's `base64_string`); `None` when
    /// it is empty.
    pub(super) fn body_base64(&self) -> Result<Option<Body>, ReadError> {
        // Ruby VCR's `base64_string` is read back by `Base64.decode64`, which skips what is
        // not in the alphabet: such a file replays, so it is read as Ruby reads it.
        let bytes = match self.base64() {
            Ok(bytes) => bytes,
            Err(_) if self.format == super::ruby_vcr::FORMAT => {
                ruby_decode64(self.node.as_scalar().map_or("", |s| s.text.as_str()))
            }
            Err(e) => return Err(e),
        };
        if bytes.is_empty() {
            return Ok(None);
        }
        Ok(Some(Body::Bytes {
            field: self.field_raw()?,
            bytes,
            stored: vec!["base64"],
        }))
    }

    /// This node as a body the recorder stored already parsed (pydantic-ai's `parsed_body`, a
    /// go-vcr form).
    pub(super) fn body_data(&self) -> Body {
        Body::Data {
            path: self.path.clone(),
            node: self.node.clone(),
        }
    }

    /// The scalar as written (a `!!binary` scalar's base64 text, not its bytes).
    fn field_raw(&self) -> Result<Field, ReadError> {
        let scalar = self
            .node
            .as_scalar()
            .ok_or_else(|| self.error(format!("{} is not a single value", self.path)))?;
        Ok(Field {
            text: scalar.text.clone(),
            at: self.node.offset().map(|o| o as u32),
            path: self.path.clone(),
        })
    }

    /// An error at this node.
    pub(super) fn error(&self, message: String) -> ReadError {
        ReadError {
            format: self.format,
            message,
            offset: self.offset,
        }
    }

    /// The headers held here: a mapping of name to a list of values or to one value (every
    /// recorder), a list of `[name, value]` or `[name, [values]]` pairs (old vcrpy's
    /// `frozenset` and lists of `!!python/tuple`, a `multidict` as written by
    /// `!!python/object/apply`, up to two wrapping lists), or a list
    /// of `name: value` lines (old vcrpy responses). Null or absent is none.
    pub(super) fn headers(&self) -> Result<Vec<Header>, ReadError> {
        let mut out = Vec::new();
        if self.node.is_null() {
            return Ok(out);
        }
        if let Some(entries) = self.node.as_map() {
            for (key, value) in entries {
                let name = key_name(key).ok_or_else(|| {
                    self.error(format!("{} has a header without a name", self.path))
                })?;
                if value.is_null() {
                    continue;
                }
                match value.as_seq() {
                    // Each value's path made at once (`...headers.Name[i]`): no path of the
                    // list, no list of its items.
                    Some(items) => {
                        for (i, item) in items.iter().enumerate() {
                            let path = self.key_item_path(name, i);
                            self.child(item, path).header_values(name, &mut out, 0)?;
                        }
                    }
                    None => self
                        .child(value, self.key_path(name))
                        .header_values(name, &mut out, 0)?,
                }
            }
            return Ok(out);
        }
        self.header_list(&mut out, 0)?;
        Ok(out)
    }

    /// One item of a header's list of values: a scalar, or, where a hand edit wrote a YAML
    /// list or mapping (`- [REDACTED]` is a list holding `REDACTED`), each scalar inside it,
    /// at its own place. A recorder loads such a file and vcrpy replays it (request headers
    /// are not matched by default), so it is read, not refused as a `parse` error; the
    /// scalars are judged and scrubbed like any other value.
    fn header_values(
        &self,
        name: &str,
        out: &mut Vec<Header>,
        depth: usize,
    ) -> Result<(), ReadError> {
        let inner: Vec<At<'n>> = if let Some(items) = self.node.as_seq() {
            items
                .iter()
                .enumerate()
                .map(|(i, node)| self.child(node, self.item_path(i)))
                .collect()
        } else if let Some(entries) = self.node.as_map() {
            entries
                .iter()
                .filter_map(|(key, value)| {
                    let key = key.as_scalar()?.text.as_str();
                    Some(self.child(value, self.key_path(key)))
                })
                .collect()
        } else {
            out.push(Header {
                name: name.to_owned(),
                value: self.clone().into_field()?,
            });
            return Ok(());
        };
        // Lists in lists are a hand edit too; deeper than this is no header value.
        if depth >= 4 {
            return Err(self.error(format!("{} is not a header value", self.path)));
        }
        for item in inner {
            if !item.node.is_null() {
                item.header_values(name, out, depth + 1)?;
            }
        }
        Ok(())
    }

    fn header_list(&self, out: &mut Vec<Header>, depth: usize) -> Result<(), ReadError> {
        for item in self.items()? {
            match item.node.as_seq() {
                // `(name, value)` or `(name, [values])`.
                Some([name, value]) if name.as_scalar().is_some() => {
                    let name = name.as_scalar().map(|s| s.text.clone()).unwrap_or_default();
                    let value = item.child(value, format!("{}[1]", item.path));
                    let values = match value.node.as_seq() {
                        Some(_) => value.items()?,
                        None => vec![value],
                    };
                    for value in values {
                        out.push(Header {
                            name: name.clone(),
                            value: value.field()?,
                        });
                    }
                }
                Some(_) if depth < 2 => item.header_list(out, depth + 1)?,
                Some(_) => return Err(item.error(format!("{} is not a header", item.path))),
                None => {
                    let line = item.field()?;
                    let Some((name, value)) = line.text.split_once(':') else {
                        return Err(
                            item.error(format!("{} is not a `name: value` header", item.path))
                        );
                    };
                    out.push(Header {
                        name: name.trim().to_owned(),
                        value: Field {
                            text: value.trim().to_owned(),
                            ..line
                        },
                    });
                }
            }
        }
        Ok(())
    }
}

/// Whether a scalar holds base64 bytes: `!!binary`, or Psych's legacy `!binary`.
fn is_binary(node: &Node) -> bool {
    node.is_binary()
        || node
            .as_scalar()
            .is_some_and(|s| s.tag.as_deref() == Some("!binary"))
}

/// A header name: a scalar key, or the scalar inside a tagged one-element list (dd-trace-py's
/// `? !!python/object/apply:multidict._multidict.istr [Accept]`).
fn key_name(key: &Node) -> Option<&str> {
    match key.as_seq() {
        Some([inner]) => inner.as_scalar().map(|s| s.text.as_str()),
        Some(_) => None,
        None => key.as_scalar().map(|s| s.text.as_str()),
    }
}

/// What the readers' tests share.
#[cfg(test)]
pub(super) mod testing {
    use crate::http::{HttpCassette, ReadError};
    use vcr_doc::{Node, yaml};

    /// Asserts that `read` fails on the YAML `text` with `message`, at the offset where `at`
    /// starts.
    #[track_caller]
    pub(in crate::http) fn assert_read_error(
        read: fn(&Node) -> Result<HttpCassette, ReadError>,
        text: &str,
        message: &str,
        at: &str,
    ) {
        let e = read(&yaml::parse(text).unwrap()).unwrap_err();
        assert_eq!(e.message, message);
        assert!(
            text[e.offset..].starts_with(at),
            "{message} at {:?}",
            &text[e.offset..]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::ruby_decode64;

    /// `Base64.decode64` as Ruby runs it is the oracle: characters outside the alphabet
    /// skipped, `=` ending the data, a last incomplete group kept.
    #[test]
    #[allow(clippy::print_stderr)] // says, visibly, that the oracle was missing
    fn ruby_decode64_reads_as_ruby_reads() {
        let inputs = [
            "aGVs_bG8=d29ybGQ",
            "a_G",
            "aGVsbG8h\n=x",
            "aGVs bG8-gd29y_bGQh",
            "=aGk=",
            "YW=Jj",
            "",
            "%%",
        ];
        let script = "require 'base64'; STDIN.each_line { |l| puts Base64.decode64(l.chomp.unpack1('m0')).unpack1('H*') }";
        let input: String = inputs
            .iter()
            .map(|i| {
                use base64::Engine;
                base64::engine::general_purpose::STANDARD.encode(i) + "\n"
            })
            .collect();
        let run = std::process::Command::new("ruby")
            .args(["-e", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(input.as_bytes())?;
                child.wait_with_output()
            });
        let Some(output) = run.ok().filter(|o| o.status.success()) else {
            assert!(
                std::env::var_os("VCR_REQUIRE_RECORDERS").is_none(),
                "VCR_REQUIRE_RECORDERS is set and `ruby` did not run"
            );
            crate::test_skip::skip("no `ruby` to compare Base64.decode64 with");
            return;
        };
        let expected: Vec<&str> = std::str::from_utf8(&output.stdout)
            .unwrap()
            .lines()
            .collect();
        for (input, expected) in inputs.iter().zip(expected) {
            let ours: String = ruby_decode64(input)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(ours, expected, "{input:?}");
        }
    }
}
