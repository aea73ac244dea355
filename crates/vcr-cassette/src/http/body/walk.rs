//! Every leaf of a body with where it sits: what the linter checks, and what the scrubber and
//! the diff of HTTP cassettes address.
//!
//! Paths, one syntax per kind of content (appended to the body's own path and layers, as in
//! `interactions[3].response.body (gzip, json) /choices/0/text`):
//!
//! | content | path of a leaf |
//! |---|---|
//! | JSON | a JSON pointer (RFC 6901: `~` is `~0`, `/` is `~1`): `/choices/0/message/content`; the root scalar is the empty path |
//! | JSON lines (`ndjson`) | a pointer whose first step is the line's index among the documents: `/3/response` |
//! | form | `?name` (the query-string look); a name seen before is `?name#2`, `?name#3`, ... |
//! | multipart | `part[name]` (`part[3]` when a part has no name), then its own layers and path: `part[meta] (json) /a`; its headers are `part[file].headers.Content-Type` |
//! | event stream | `event[3].event`, `event[3].id`, `event[3].data` for text data, `event[3].data/choices/0/delta/content` for JSON data |
//! | JSON in a JSON string | the string's path, ` (json) `, then the pointer inside: `/function/arguments (json) /api_key` |
//! | text | the empty path |
//!
//! Object keys are leaves too (a secret can be a key), with the same path as their value and
//! `is_key` set. Null values are not leaves; numbers and booleans are.

use std::collections::HashMap;
use std::fmt::Write as _;

use vcr_doc::{Node, NodeValue, Scalar, Style};

use super::{Content, Decoded, MAX_DEPTH, Part, SseEvent};

/// How deep the walk follows a tree. The parsers stop far earlier (JSON at 512 levels); this
/// only keeps a tree built some other way from overflowing the stack.
const MAX_TREE_DEPTH: usize = 1_024;

/// One scalar of a body, with where it sits.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf<'a> {
    /// Where it is inside the body (the module docs list the syntax per kind of content).
    pub path: &'a str,
    /// The field or parameter that holds it: the object key (for an array item, the key
    /// that holds the array), the form field, the multipart part's name, the header's name,
    /// the event field (`event`, `id`, `data`). `None` for a key itself and for a root.
    pub name: Option<&'a str>,
    /// The entries of the object that holds it (for a form, its fields; for a multipart
    /// body, its text parts), so that a value can be judged by what sits beside it (`secret`
    /// beside `client_id`).
    pub siblings: Option<&'a [(Node, Node)]>,
    /// Its text: a string's value, a number or boolean as written, a key's name.
    pub text: &'a str,
    /// For a node read from the cassette itself ([`for_each_node_leaf`]): its byte offset in
    /// the file (inside JSON held in a string: the string's); `None` inside decoded content.
    pub at: Option<u32>,
    /// Whether this is an object key (or a form field's name) rather than a value.
    pub is_key: bool,
}

impl<'a> Leaf<'a> {
    /// The one leaf of a body that is only its stored text (`decode_stored`): the body's
    /// root, with no name and no offset of its own, as [`for_each_leaf`] gives a text body.
    pub fn stored(text: &'a str) -> Leaf<'a> {
        Leaf {
            path: "",
            name: None,
            siblings: None,
            text,
            at: None,
            is_key: false,
        }
    }
}

/// Calls `f` for every leaf of a decoded body, in document order.
pub fn for_each_leaf(decoded: &Decoded, f: &mut dyn FnMut(&Leaf<'_>)) {
    let mut walker = Walker {
        path: String::new(),
        f,
        at: At::Fixed(None),
        strings: 0,
        depth: 0,
    };
    walker.decoded(decoded, None, None);
}

/// Calls `f` for every leaf of a node read from the cassette itself (a `Body::Data`: nock's
/// JSON bodies, talkback's, pydantic-ai's `parsed_body`), each with its offset in the file.
pub fn for_each_node_leaf(node: &Node, f: &mut dyn FnMut(&Leaf<'_>)) {
    let mut walker = Walker {
        path: String::new(),
        f,
        at: At::Own,
        strings: 0,
        depth: 0,
    };
    walker.node(node, None, None);
}

/// Where the leaves of the current walk sit in the file.
#[derive(Debug, Clone, Copy)]
enum At {
    /// At their own node's offset.
    Own,
    /// All at one place (the string that holds them), or nowhere.
    Fixed(Option<u32>),
}

struct Walker<'f> {
    /// The path of the current position; pushed and truncated as the walk goes.
    path: String,
    f: &'f mut dyn FnMut(&Leaf<'_>),
    at: At,
    /// How many JSON strings deep the walk is.
    strings: usize,
    /// How many arrays and objects deep the walk is.
    depth: usize,
}

impl Walker<'_> {
    /// Reports a leaf at the current path.
    fn emit<'a>(
        &mut self,
        text: &'a str,
        name: Option<&'a str>,
        siblings: Option<&'a [(Node, Node)]>,
        at: Option<u32>,
        is_key: bool,
    ) {
        let Walker { path, f, .. } = self;
        f(&Leaf {
            path,
            name,
            siblings,
            text,
            at,
            is_key,
        });
    }

    /// Runs `inner` with `segment` appended to the path, then restores the path.
    fn within(&mut self, segment: std::fmt::Arguments<'_>, inner: impl FnOnce(&mut Self)) {
        let len = self.path.len();
        let _ = self.path.write_fmt(segment);
        inner(self);
        self.path.truncate(len);
    }

    fn decoded<'a>(
        &mut self,
        decoded: &'a Decoded,
        name: Option<&'a str>,
        siblings: Option<&'a [(Node, Node)]>,
    ) {
        match &decoded.content {
            Content::Empty | Content::Binary(_) => {}
            Content::Json(node) => self.node(node, name, siblings),
            Content::Text(text) => self.emit(text, name, siblings, self.fixed_at(), false),
            Content::Form(pairs) => self.form(pairs),
            Content::Multipart(parts) => self.multipart(parts),
            Content::Sse(events) => self.sse(events),
        }
    }

    /// The offset of leaves that have no node of their own (a form field, an event field).
    fn fixed_at(&self) -> Option<u32> {
        match self.at {
            At::Own => None,
            At::Fixed(at) => at,
        }
    }

    /// The offset a leaf of `node` reports.
    fn at_of(&self, node: &Node) -> Option<u32> {
        match self.at {
            At::Own => node.offset().map(|o| o as u32),
            At::Fixed(at) => at,
        }
    }

    /// Runs `inner` one level deeper, unless the walk is already [`MAX_TREE_DEPTH`] deep
    /// (counted across JSON held in strings too, so the stack stays bounded).
    fn deeper(&mut self, inner: impl FnOnce(&mut Self)) {
        if self.depth < MAX_TREE_DEPTH {
            self.depth += 1;
            inner(self);
            self.depth -= 1;
        }
    }

    fn node<'a>(
        &mut self,
        node: &'a Node,
        name: Option<&'a str>,
        siblings: Option<&'a [(Node, Node)]>,
    ) {
        match &node.value {
            NodeValue::Scalar(scalar) if !node.is_null() => {
                self.string(&scalar.text, self.at_of(node), name, siblings);
            }
            NodeValue::Scalar(_) => {}
            NodeValue::Seq(items) => self.deeper(|w| {
                for (i, item) in items.iter().enumerate() {
                    w.within(format_args!("/{i}"), |w| w.node(item, name, siblings));
                }
            }),
            NodeValue::Map(entries) => self.deeper(|w| {
                for (key, value) in entries {
                    let segment = key.as_scalar().map_or("", |s| s.text.as_str());
                    w.within(format_args!("/{}", Pointer(segment)), |w| {
                        w.key(key, entries);
                        let name = key.as_scalar().map(|s| s.text.as_str());
                        w.node(value, name, Some(entries));
                    });
                }
            }),
        }
    }

    /// An object key: a scalar key is one leaf; a YAML complex key (a mapping or sequence
    /// used as a key) gives its scalars as keys.
    fn key<'a>(&mut self, key: &'a Node, entries: &'a [(Node, Node)]) {
        match &key.value {
            NodeValue::Scalar(scalar) => {
                self.emit(&scalar.text, None, Some(entries), self.at_of(key), true);
            }
            NodeValue::Seq(items) => self.deeper(|w| items.iter().for_each(|k| w.key(k, entries))),
            NodeValue::Map(pairs) => self.deeper(|w| {
                pairs.iter().for_each(|(k, v)| {
                    w.key(k, entries);
                    w.key(v, entries);
                });
            }),
        }
    }

    /// A string value: JSON held in it is walked as JSON (` (json) ` in the path), up to
    /// [`MAX_DEPTH`] strings deep; anything else is one leaf.
    fn string<'a>(
        &mut self,
        text: &'a str,
        at: Option<u32>,
        name: Option<&'a str>,
        siblings: Option<&'a [(Node, Node)]>,
    ) {
        if self.strings < MAX_DEPTH
            && holds_json(text)
            && let Ok(inner) = vcr_doc::from_json(text.as_bytes())
        {
            let outer = self.at;
            self.at = At::Fixed(at);
            self.strings += 1;
            let sep = if self.path.is_empty() {
                "(json) "
            } else {
                " (json) "
            };
            self.within(format_args!("{sep}"), |w| w.node(&inner, name, siblings));
            self.strings -= 1;
            self.at = outer;
            return;
        }
        self.emit(text, name, siblings, at, false);
    }

    fn form(&mut self, pairs: &[(String, String)]) {
        let siblings: Vec<(Node, Node)> = pairs
            .iter()
            .map(|(k, v)| (string_node(k), string_node(v)))
            .collect();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (name, value) in pairs {
            let count = seen.entry(name.as_str()).or_default();
            *count += 1;
            let count = *count;
            let at = self.fixed_at();
            let siblings = Some(siblings.as_slice());
            let body = |w: &mut Self| {
                w.emit(name, None, siblings, at, true);
                w.string(value, at, Some(name), siblings);
            };
            if count == 1 {
                self.within(format_args!("?{name}"), body);
            } else {
                self.within(format_args!("?{name}#{count}"), body);
            }
        }
    }

    fn multipart(&mut self, parts: &[Part]) {
        // The text parts, as the fields of a form would be.
        let siblings: Vec<(Node, Node)> = parts
            .iter()
            .filter_map(|p| match (&p.name, &p.body.content) {
                (Some(name), Content::Text(text)) => Some((string_node(name), string_node(text))),
                _ => None,
            })
            .collect();
        for (i, part) in parts.iter().enumerate() {
            let name = part.name.as_deref();
            let len = self.path.len();
            let _ = match name {
                Some(name) => write!(self.path, "part[{name}]"),
                None => write!(self.path, "part[{i}]"),
            };
            let part_len = self.path.len();
            for (header, value) in &part.headers {
                self.within(format_args!(".headers.{header}"), |w| {
                    let at = w.fixed_at();
                    w.emit(value, Some(header), None, at, false);
                });
            }
            self.path.truncate(part_len);
            if !part.body.layers.is_empty() {
                let _ = write!(self.path, " ({}) ", super::describe(&part.body));
            }
            self.decoded(&part.body, name, Some(&siblings));
            self.path.truncate(len);
        }
    }

    fn sse(&mut self, events: &[SseEvent]) {
        for (i, event) in events.iter().enumerate() {
            self.within(format_args!("event[{i}]"), |w| {
                let at = w.fixed_at();
                for (field, value) in [("event", &event.event), ("id", &event.id)] {
                    if let Some(value) = value {
                        w.within(format_args!(".{field}"), |w| {
                            w.emit(value, Some(field), None, at, false);
                        });
                    }
                }
                w.within(format_args!(".data"), |w| {
                    w.decoded(&event.data, Some("data"), None);
                });
            });
        }
    }
}

/// A string made into a node (a form field's or a part's name and value, as siblings).
fn string_node(text: &str) -> Node {
    Node::new(NodeValue::Scalar(Scalar {
        text: text.to_owned(),
        style: Style::DoubleQuoted,
        tag: None,
    }))
}

/// Whether a string's text is a JSON object or array, whitespace around it allowed (checked
/// by its first and last characters before anything is parsed).
fn holds_json(text: &str) -> bool {
    let trimmed = text.trim();
    matches!(
        (trimmed.as_bytes().first(), trimmed.as_bytes().last()),
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']'))
    )
}

/// A JSON pointer reference token: `~` as `~0`, `/` as `~1`.
struct Pointer<'a>(&'a str);

impl std::fmt::Display for Pointer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.0.contains(['~', '/']) {
            return f.write_str(self.0);
        }
        for c in self.0.chars() {
            match c {
                '~' => f.write_str("~0")?,
                '/' => f.write_str("~1")?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Paths, names, siblings and offsets of leaves (issue 9).

    use super::super::tests::{UPLOAD, headers};
    use super::super::{decode, describe};
    use super::*;
    use vcr_doc::from_json;

    /// Every leaf as `path = text` (`path : text` for a key) with its name.
    fn rendered(decoded: &Decoded) -> Vec<String> {
        let mut out = Vec::new();
        for_each_leaf(decoded, &mut |leaf| out.push(render(leaf)));
        out
    }

    fn render(leaf: &Leaf<'_>) -> String {
        let sep = if leaf.is_key { ":" } else { "=" };
        match leaf.name {
            Some(name) => format!("{} {sep} {} <{name}>", leaf.path, leaf.text),
            None => format!("{} {sep} {}", leaf.path, leaf.text),
        }
    }

    fn json(text: &str) -> Decoded {
        decode(
            text.as_bytes(),
            &headers(&[("Content-Type", "application/json")]),
        )
    }

    #[test]
    fn json_pointers_keys_and_names() {
        let decoded = json(r#"{"a/b~c":["x",{"k":"v"}],"n":null,"t":true,"":1}"#);
        assert_eq!(
            rendered(&decoded),
            [
                "/a~1b~0c : a/b~c",
                // An array item is named by the key that holds the array.
                "/a~1b~0c/0 = x <a/b~c>",
                "/a~1b~0c/1/k : k",
                "/a~1b~0c/1/k = v <k>",
                // A null value is no leaf; its key is.
                "/n : n",
                "/t : t",
                "/t = true <t>",
                "/ : ",
                "/ = 1 <>",
            ]
        );
        let root = json(r#""just a string""#);
        assert_eq!(rendered(&root), [" = just a string"]);
    }

    #[test]
    fn siblings_are_the_enclosing_object() {
        let decoded = json(r#"{"app":{"client_id":"c","secret":"s"},"secret":"top"}"#);
        let mut seen = Vec::new();
        for_each_leaf(&decoded, &mut |leaf| {
            if leaf.name == Some("secret") {
                let keys: Vec<&str> = leaf
                    .siblings
                    .unwrap()
                    .iter()
                    .map(|(k, _)| k.as_str().unwrap())
                    .collect();
                seen.push(format!("{} {}", leaf.text, keys.join(",")));
            }
        });
        assert_eq!(seen, ["s client_id,secret", "top app,secret"]);
    }

    /// JSON inside a JSON string is walked as JSON (issue 9: tool call arguments carry
    /// `{"api_key": ...}` as a string).
    #[test]
    fn json_inside_a_string() {
        let decoded = json(
            r#"{"function":{"name":"f","arguments":" {\"api_key\": \"sk\", \"list\": \"[\\\"deeper\\\"]\"} "},"not":"{nope}"}"#,
        );
        assert_eq!(
            rendered(&decoded),
            [
                "/function : function",
                "/function/name : name",
                "/function/name = f <name>",
                "/function/arguments : arguments",
                "/function/arguments (json) /api_key : api_key",
                "/function/arguments (json) /api_key = sk <api_key>",
                "/function/arguments (json) /list : list",
                "/function/arguments (json) /list (json) /0 = deeper <list>",
                "/not : not",
                "/not = {nope} <not>",
            ]
        );
    }

    /// JSON in a string in a string ... is expanded `MAX_DEPTH` strings deep; deeper, the
    /// string is one leaf (issue 9: bounded work on crafted nesting).
    #[test]
    fn json_inside_strings_stops_at_the_depth_limit() {
        let mut text = r#"{"k":"v"}"#.to_owned();
        for _ in 0..10 {
            text = format!(r#"{{"k":{}}}"#, serde_json::to_string(&text).unwrap());
        }
        let all = rendered(&json(&text));
        let deepest = all.iter().rfind(|l| !l.contains(" : ")).unwrap();
        assert_eq!(deepest.matches(" (json) ").count(), MAX_DEPTH, "{deepest}");
        assert!(deepest.contains(r#"= {"k":"#), "{deepest}");
    }

    #[test]
    fn form_fields() {
        let decoded = decode(
            b"a=1&a=2&b=%7B%22t%22%3A%22x%22%7D&c%20d=e",
            &headers(&[("Content-Type", "application/x-www-form-urlencoded")]),
        );
        assert_eq!(
            rendered(&decoded),
            [
                "?a : a",
                "?a = 1 <a>",
                "?a#2 : a",
                "?a#2 = 2 <a>",
                "?b : b",
                "?b (json) /t : t",
                "?b (json) /t = x <t>",
                "?c d : c d",
                "?c d = e <c d>",
            ]
        );
        let mut beside = Vec::new();
        for_each_leaf(&decoded, &mut |leaf| {
            if leaf.name == Some("a") {
                beside.extend(
                    leaf.siblings
                        .unwrap()
                        .iter()
                        .map(|(k, _)| k.as_str().unwrap().to_owned()),
                );
            }
        });
        assert_eq!(beside[..4], ["a", "a", "b", "c d"]);
    }

    #[test]
    fn multipart_parts() {
        let ct = "multipart/form-data; boundary=-----------RubyMultipartPost-735cd2";
        let decoded = decode(UPLOAD.as_bytes(), &headers(&[("Content-Type", ct)]));
        assert_eq!(
            rendered(&decoded),
            [
                "part[file].headers.Content-Disposition = form-data; name=\"file\"; filename=\"sentiment.jsonl\" <Content-Disposition>",
                "part[file].headers.Content-Length = 24 <Content-Length>",
                "part[file].headers.Content-Type = text/plain <Content-Type>",
                "part[file].headers.Content-Transfer-Encoding = binary <Content-Transfer-Encoding>",
                "part[file] = line one\r\nline \"two\"\r\n <file>",
                "part[purpose].headers.Content-Disposition = form-data; name=\"purpose\" <Content-Disposition>",
                "part[purpose] = fine-tune <purpose>",
                "part[meta].headers.Content-Disposition = form-data; name=\"meta\" <Content-Disposition>",
                "part[meta].headers.Content-Type = application/json <Content-Type>",
                "part[meta] (json) /api_key : api_key",
                "part[meta] (json) /api_key = k <api_key>",
            ]
        );
        let mut purpose_siblings = Vec::new();
        for_each_leaf(&decoded, &mut |leaf| {
            if leaf.name == Some("purpose") {
                purpose_siblings.extend(
                    leaf.siblings
                        .unwrap()
                        .iter()
                        .map(|(k, v)| format!("{}={}", k.as_str().unwrap(), v.as_str().unwrap())),
                );
            }
        });
        assert_eq!(
            purpose_siblings,
            ["file=line one\r\nline \"two\"\r\n", "purpose=fine-tune"]
        );
        // A part without a name is known by its index.
        let unnamed = decode(
            b"--b\r\n\r\nx\r\n--b\r\n\r\ny\r\n--b--",
            &headers(&[("Content-Type", "multipart/mixed; boundary=b")]),
        );
        assert_eq!(rendered(&unnamed), ["part[0] = x", "part[1] = y"]);
    }

    #[test]
    fn event_stream_fields() {
        let decoded = decode(
            b"id: 1\nevent: delta\ndata: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
            &headers(&[("Content-Type", "text/event-stream")]),
        );
        assert_eq!(describe(&decoded), "sse");
        assert_eq!(
            rendered(&decoded),
            [
                "event[0].event = delta <event>",
                "event[0].id = 1 <id>",
                "event[0].data/choices : choices",
                "event[0].data/choices/0/delta : delta",
                "event[0].data/choices/0/delta/content : content",
                "event[0].data/choices/0/delta/content = hi <content>",
                "event[1].data = [DONE] <data>",
            ]
        );
    }

    #[test]
    fn json_lines_text_and_binary() {
        let lines = decode(
            b"{\"a\":1}\n\n{\"a\":2}\n",
            &headers(&[("Content-Type", "application/x-ndjson")]),
        );
        assert_eq!(
            rendered(&lines),
            ["/0/a : a", "/0/a = 1 <a>", "/1/a : a", "/1/a = 2 <a>"]
        );
        let text = decode(b"<html/>", &headers(&[("Content-Type", "text/html")]));
        assert_eq!(rendered(&text), [" = <html/>"]);
        let binary = decode(b"\xff\xfe", &[]);
        assert!(rendered(&binary).is_empty());
    }

    /// Leaves of a node read from the file carry their offsets; JSON held in a string
    /// carries the string's.
    #[test]
    fn node_leaves_carry_file_offsets() {
        let file = r#"{"body": {"token": "t", "n": 5, "args": "{\"api_key\": \"k\"}"}}"#;
        let root = from_json(file.as_bytes()).unwrap();
        let body = root.get("body").unwrap();
        let mut got = Vec::new();
        for_each_node_leaf(body, &mut |leaf| {
            let at = leaf
                .at
                .map(|at| &file[at as usize..(at as usize + 6).min(file.len())]);
            got.push(format!("{} {} {:?}", render(leaf), leaf.is_key, at));
        });
        assert_eq!(
            got,
            [
                r#"/token : token true Some("\"token")"#,
                r#"/token = t <token> false Some("\"t\", \"")"#,
                r#"/n : n true Some("\"n\": 5")"#,
                // A JSON number read from the file has its position too.
                r#"/n = 5 <n> false Some("5, \"ar")"#,
                r#"/args : args true Some("\"args\"")"#,
                r#"/args (json) /api_key : api_key true Some("\"{\\\"ap")"#,
                r#"/args (json) /api_key = k <api_key> false Some("\"{\\\"ap")"#,
            ]
        );
        // Decoded content has no offsets in the file.
        let mut offsets = Vec::new();
        for_each_leaf(&json(file), &mut |leaf| offsets.push(leaf.at));
        assert!(offsets.iter().all(Option::is_none));
    }

    /// The walk stops `MAX_TREE_DEPTH` levels down, counted through JSON held in strings,
    /// so a tree built deeper than any parser allows cannot overflow the stack (issue 9).
    #[test]
    fn the_walk_is_bounded_in_depth() {
        let mut node = Node::new(NodeValue::Scalar(Scalar {
            text: "deep".into(),
            style: Style::DoubleQuoted,
            tag: None,
        }));
        for _ in 0..MAX_TREE_DEPTH + 10 {
            node = Node::new(NodeValue::Seq(vec![node]));
        }
        let node = Node::new(NodeValue::Seq(vec![
            Node::new(NodeValue::Scalar(Scalar {
                text: "shallow".into(),
                style: Style::DoubleQuoted,
                tag: None,
            })),
            node,
        ]));
        let mut texts = Vec::new();
        for_each_node_leaf(&node, &mut |leaf| texts.push(leaf.text.to_owned()));
        assert_eq!(texts, ["shallow"]);
        // The deepest JSON the parser reads (512 levels), held in a string held in JSON as
        // deep, is walked to the bottom on a test thread's stack (2 MiB).
        let deep = format!("{}\"x\"{}", "[".repeat(512), "]".repeat(512));
        let outer = format!(
            "{}{}{}",
            "[".repeat(512),
            serde_json::to_string(&deep).unwrap(),
            "]".repeat(512)
        );
        let mut count = 0;
        for_each_leaf(&json(&outer), &mut |_| count += 1);
        assert_eq!(count, 1);
    }
}
