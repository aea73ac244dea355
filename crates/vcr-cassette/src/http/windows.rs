//! vcrpy, Ruby VCR and go-vcr cassettes (YAML, or vcrpy's and Ruby VCR's JSON) read a window
//! of interactions at a time, as a large HAR is (`har::read_windows`): a cassette of a
//! hundred thousand interactions built whole held its document and its interactions at once,
//! ten to fourteen times the file (issue 25).
//!
//! The interactions are streamed an item at a time, in one pass: out of the fast YAML reader
//! ([`vcr_doc::yaml::read_subset_streamed`]), or out of the JSON parser
//! ([`vcr_json::parse_streamed_at`]). The recorder is told at the first item, from it and
//! the keys before it (go-vcr's `version: 2` comes first), and checked at the end against
//! what the whole document tells (vcrpy's `version: 1` comes last): a text they disagree on
//! is read whole. Each item is read into its interaction, what no interaction holds is found
//! in the text from the end of the item before (the `- ` between items, and any comment
//! there), and the item's document is dropped unless a scrub keeps it. The text around the
//! sequence goes with the last window, as a HAR's fields beside its entries do. A text the
//! streaming readers do not take (outside the YAML subset, repeated JSON keys, an error) is
//! read whole, which says what it is.

use vcr_doc::{Node, NodeValue};
use vcr_json::Part;

use super::walk::{self, At};
use super::{Format, HttpCassette, Interaction, ReadError};

/// The top-level keys whose sequence holds a recorder's interactions.
const KEYS: &[&str] = &["interactions", "http_interactions"];

/// How an interaction of a recorder is read from its item.
pub(super) type Reader<'r> = &'r dyn Fn(&At<'_>) -> Result<Interaction, ReadError>;

/// Reads the YAML `text` in windows of `window` bytes of interactions, each given to `visit`
/// with its items' documents when `keep`, the last one holding no interaction but what lies
/// around them (with the rest of the document when `keep`). How many windows, or `Ok(None)`
/// when the text is not read so (what `visit` was given is then void): outside the fast
/// reader's subset, or not a cassette whose interactions are a top-level sequence, or one
/// whose recorder the whole document tells otherwise than its head did.
pub(super) fn read_windows(
    text: &str,
    window: usize,
    keep: bool,
    visit: &mut dyn FnMut(HttpCassette, Vec<Node>),
) -> Result<Option<usize>, ReadError> {
    let mut windows = Windows::new(text, window, keep, visit);
    let Some(rest) = vcr_doc::yaml::read_subset_streamed(text, KEYS, &mut |item| {
        let span = (item.start, item.end);
        windows.item(item, span, |first| yaml_head(text, first));
    }) else {
        return Ok(None);
    };
    if !windows.agrees(rest.clone()) {
        return Ok(None);
    }
    windows.finish(vec![rest])
}

/// [`read_windows`] for a JSON text: an object whose `interactions` (vcrpy) or
/// `http_interactions` (Ruby VCR) array is streamed, the other fields read whole.
pub(super) fn read_json_windows(
    text: &str,
    window: usize,
    keep: bool,
    visit: &mut dyn FnMut(HttpCassette, Vec<Node>),
) -> Result<Option<usize>, ReadError> {
    let bytes = text.as_bytes();
    let key = match super::json_format_hint(super::head_of(bytes)) {
        Some(format) if format == super::ruby_vcr::FORMAT => "http_interactions",
        Some(format) if format == super::vcrpy::FORMAT => "interactions",
        _ => return Ok(None),
    };
    let mut windows = Windows::new(text, window, keep, visit);
    let mut fields: Vec<(Node, Node)> = Vec::new();
    let mut begun = false;
    let streamed = vcr_json::parse_streamed_at(bytes, &[key], false, &mut |part| {
        match part {
            Part::Field(name, value) => fields.push(super::field_nodes(name, &value, bytes)),
            Part::Begin(_) => begun = true,
            Part::Item(value, span) => {
                let item = vcr_doc::from_value_in(&value, bytes);
                windows.item(item, (span.start, span.end), |first| {
                    let mut entries = fields.clone();
                    entries.push((plain(key), Node::new(NodeValue::Seq(vec![first.clone()]))));
                    Some(Node::new(NodeValue::Map(entries)))
                });
            }
            Part::Nested(..) | Part::Canonical(..) | Part::End => {}
        }
        true
    });
    match streamed {
        Err(e) => return not_json(text, &e),
        Ok(vcr_json::Streamed::Done) if begun => {}
        Ok(_) => return Ok(None),
    }
    fields.push((plain(key), Node::new(NodeValue::Seq(Vec::new()))));
    let rest = Node::new(NodeValue::Map(fields));
    if !windows.agrees(rest.clone()) {
        return Ok(None);
    }
    windows.finish(vec![rest])
}

/// [`read_windows`] for a JSON text that is an array: a nock cassette, its definitions
/// streamed. The recorder is told at the first item, as a whole read tells it from a list
/// holding that item alone: the recorders of a top-level list (nock, and those before it in
/// [`super::RECORDERS`]) look at its first item only, but nock also wants every item a
/// mapping, which each item is checked for. A text whose first item is no nock definition,
/// or with an item that is no mapping, is read whole, which says what it is.
pub(super) fn read_array_windows(
    text: &str,
    window: usize,
    keep: bool,
    visit: &mut dyn FnMut(HttpCassette, Vec<Node>),
) -> Result<Option<usize>, ReadError> {
    let bytes = text.as_bytes();
    let mut windows = Windows::new(text, window, keep, visit);
    let mut readable = true;
    let streamed = vcr_json::parse_streamed_array(bytes, &mut |part| {
        let Part::Item(value, span) = part else {
            return true;
        };
        if !readable {
            return true;
        }
        let item = vcr_doc::from_value_in(&value, bytes);
        if item.as_map().is_none() {
            readable = false;
            return true;
        }
        let item = if windows.recorder.is_none() {
            // The item is moved into a list of its own for the test, not copied (a first
            // definition's body can be hundreds of megabytes).
            let list = Node::new(NodeValue::Seq(vec![item]));
            let told = super::RECORDERS
                .iter()
                .copied()
                .find(|f| f.recorder().matches(&list));
            let reader: Reader<'static> = &super::nock::interaction;
            windows.recorder = Some((told == Some(super::nock::FORMAT)).then_some((
                super::nock::FORMAT,
                "",
                reader,
            )));
            match list.value {
                NodeValue::Seq(items) => items.into_iter().next(),
                _ => None,
            }
        } else {
            Some(item)
        };
        if let Some(item) = item {
            windows.item(item, (span.start, span.end), |_| None);
        }
        true
    });
    match streamed {
        Err(e) => return not_json(text, &e),
        Ok(vcr_json::Streamed::Done) if readable => {}
        Ok(_) => return Ok(None),
    }
    windows.finish(Vec::new())
}

/// What a whole read says of a JSON text that does not parse: an error of the format its keys
/// hint at, or no cassette at all (read whole, which says so); a text that opens as a
/// talkback tape is read whole as JSON5 (found by the `http` fuzz target).
pub(super) fn not_json(text: &str, e: &vcr_json::ParseError) -> Result<Option<usize>, ReadError> {
    if super::talkback::looks_like(text) {
        return Ok(None);
    }
    match super::json_format_hint(text) {
        Some(format) => Err(ReadError {
            format,
            message: format!("not valid JSON: {e}"),
            offset: e.offset,
        }),
        None => Ok(None),
    }
}

/// A plain scalar, placed nowhere in the text.
fn plain(text: &str) -> Node {
    Node::new(NodeValue::Scalar(vcr_doc::Scalar {
        text: text.to_owned(),
        style: vcr_doc::Style::Plain,
        tag: None,
    }))
}

/// `node` with the texts of its values left out: all a recorder is told by is which keys an
/// item has (a first item's body can be hundreds of megabytes).
fn skeleton(node: &Node) -> Node {
    let value = match &node.value {
        NodeValue::Scalar(scalar) => NodeValue::Scalar(vcr_doc::Scalar {
            text: String::new(),
            style: scalar.style,
            tag: None,
        }),
        NodeValue::Seq(items) => NodeValue::Seq(items.iter().map(skeleton).collect()),
        NodeValue::Map(entries) => NodeValue::Map(
            (entries.iter())
                .map(|(k, v)| (k.clone(), skeleton(v)))
                .collect(),
        ),
    };
    Node { value, ..*node }
}

/// The document a whole read would tell the recorder from, as far as the text before the
/// first item shows it: the key of the sequence (the last top-level key before the item)
/// holding that item, and go-vcr's `version` when it comes first. `None` when the head is
/// not plain enough to say (a quoted key): the text is then read whole.
fn yaml_head(text: &str, first: &Node) -> Option<Node> {
    let before = text.get(..first.start as usize)?;
    let mut key = None;
    let mut version = None;
    for line in before.lines() {
        if let Some((name, value)) = line.split_once(':') {
            match name {
                "interactions" | "http_interactions" => key = Some(name),
                "version" => version = Some(value.trim()),
                _ => {}
            }
        }
    }
    let mut entries = Vec::new();
    if let Some(version) = version {
        entries.push((plain("version"), plain(version)));
    }
    let items = Node::new(NodeValue::Seq(vec![first.clone()]));
    entries.push((plain(key?), items));
    Some(Node::new(NodeValue::Map(entries)))
}

/// The recorder of a document read without its interactions but `first`, as a whole read
/// tells it, with the key of its interactions and their reader; `None` for any other
/// document (read whole, which says what it is).
fn recorder(
    mut root: Node,
    first: Option<Node>,
) -> Option<(Format, &'static str, Reader<'static>)> {
    // A Pact contract is no cassette; langchain-aws's `requests` and `responses` pair up.
    if super::is_pact(&root) || (root.get("requests").is_some() && root.get("responses").is_some())
    {
        return None;
    }
    let NodeValue::Map(entries) = &mut root.value else {
        return None;
    };
    // One sequence of interactions, or the items streamed came from two.
    let named = |k: &Node| {
        k.as_scalar()
            .is_some_and(|k| KEYS.contains(&k.text.as_str()))
    };
    if entries.iter().filter(|(k, _)| named(k)).count() != 1 {
        return None;
    }
    let seq = entries.iter_mut().find_map(|(k, v)| match &mut v.value {
        NodeValue::Seq(items) if named(k) => Some(items),
        _ => None,
    })?;
    seq.extend(first);
    // The recorder a whole read would choose ([`super::RECORDERS`]'s order): one that is
    // not read in windows (DVR's `interactions`, R's vcr's `http_interactions`) is read
    // whole.
    let format = super::RECORDERS
        .iter()
        .copied()
        .find(|f| f.recorder().matches(&root))?;
    if format == super::vcrpy::FORMAT {
        Some((
            super::vcrpy::FORMAT,
            "interactions",
            &super::vcrpy::interaction,
        ))
    } else if format == super::ruby_vcr::FORMAT {
        Some((
            super::ruby_vcr::FORMAT,
            "http_interactions",
            &super::ruby_vcr::interaction,
        ))
    } else if format == super::go_vcr::FORMAT {
        Some((
            super::go_vcr::FORMAT,
            "interactions",
            &super::go_vcr::interaction,
        ))
    } else {
        None
    }
}

/// The interactions of a cassette read in windows, gathered into the window being filled
/// (a HAR's entries too, `har::read_windows`).
pub(super) struct Windows<'t, 'v, 'r> {
    text: &'t str,
    /// The recorder the items are read as, with the path of their list and their reader:
    /// told by the head of the text at the first item (`None` inside when it cannot be) and
    /// checked against the whole document at the end ([`Windows::agrees`]), or known from
    /// the start (a HAR).
    recorder: Option<Option<(Format, &'static str, Reader<'r>)>>,
    /// The first item's keys ([`skeleton`]), which the whole document's recorder is told
    /// from at the end.
    first: Option<Node>,
    /// How many bytes of interactions make a window.
    window: usize,
    /// Whether the items' documents go with their window.
    keep: bool,
    visit: &'v mut dyn FnMut(HttpCassette, Vec<Node>),
    /// The window's items' documents, when kept.
    nodes: Vec<Node>,
    interactions: Vec<Interaction>,
    /// What no interaction holds in the window's text.
    outside: Vec<(u32, u32)>,
    /// Where the window starts (the end of the item before its first, or its first) and
    /// ends in the text.
    range: (u32, u32),
    /// The ranges of the windows given so far.
    ranges: Vec<(u32, u32)>,
    /// Where the last item read ends.
    last_end: Option<u32>,
    /// The next item's index in the sequence.
    index: usize,
    /// The first item that could not be read: no window goes out after it.
    error: Option<ReadError>,
}

impl<'t, 'v, 'r> Windows<'t, 'v, 'r> {
    /// No item yet; `visit` is given each window of `window` bytes of items of `text`.
    pub(super) fn new(
        text: &'t str,
        window: usize,
        keep: bool,
        visit: &'v mut dyn FnMut(HttpCassette, Vec<Node>),
    ) -> Windows<'t, 'v, 'r> {
        Windows {
            text,
            recorder: None,
            first: None,
            window,
            keep,
            visit,
            nodes: Vec::new(),
            interactions: Vec::new(),
            outside: Vec::new(),
            range: (u32::MAX, 0),
            ranges: Vec::new(),
            last_end: None,
            index: 0,
            error: None,
        }
    }

    /// [`Windows::new`] for items of a known recorder: `format`, listed under `key` (the
    /// readable path of the list), each read by `reader`.
    pub(super) fn of(
        mut self,
        format: Format,
        key: &'static str,
        reader: Reader<'r>,
    ) -> Windows<'t, 'v, 'r> {
        self.recorder = Some(Some((format, key, reader)));
        self
    }

    /// The next item, which lies at `span` in the text; `head` makes of the first item's
    /// [`skeleton`] the document as far as the text before it shows it (not called when the
    /// recorder is known).
    pub(super) fn item(
        &mut self,
        mut node: Node,
        span: (u32, u32),
        head: impl FnOnce(&Node) -> Option<Node>,
    ) {
        let recorder = *self.recorder.get_or_insert_with(|| {
            let first = skeleton(&node);
            let told = recorder(head(&first)?, None);
            self.first = Some(first);
            told
        });
        let Some((format, key, reader)) = recorder else {
            return;
        };
        if self.error.is_some() {
            return;
        }
        let path = format!("{key}[{}]", self.index);
        self.index += 1;
        let interaction = match reader(&At::placed(&node, format, path)) {
            Ok(interaction) => interaction,
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        let mut one = HttpCassette {
            format,
            interactions: vec![interaction],
            compressed: false,
            outside: Vec::new(),
        };
        walk::fill_deferred(&mut one, &mut node);
        let within = (self.last_end.unwrap_or(span.0), span.1);
        self.last_end = Some(span.1);
        let outside = super::outside(&one.interactions, std::slice::from_ref(&node), &[], within);
        self.outside.extend(outside);
        self.interactions.append(&mut one.interactions);
        // The item's document is dropped here unless kept.
        if self.keep {
            self.nodes.push(node);
        }
        self.range = (self.range.0.min(within.0), self.range.1.max(within.1));
        if (self.range.1 - self.range.0) as usize >= self.window {
            self.flush();
        }
    }

    /// Gives the window filled so far, if it holds an interaction.
    fn flush(&mut self) {
        let Some(Some((format, ..))) = self.recorder else {
            return;
        };
        if self.interactions.is_empty() {
            return;
        }
        let cassette = HttpCassette {
            format,
            interactions: std::mem::take(&mut self.interactions),
            compressed: false,
            outside: std::mem::take(&mut self.outside),
        };
        self.ranges.push(self.range);
        self.range = (u32::MAX, 0);
        (self.visit)(cassette, std::mem::take(&mut self.nodes));
    }

    /// Whether `root`, the document without its items, tells the recorder the items were read
    /// as (a document without items: whether it tells one).
    fn agrees(&mut self, root: Node) -> bool {
        let told = recorder(root, self.first.take());
        match (told, self.recorder) {
            (Some(told), Some(Some(read))) => (told.0, told.1) == (read.0, read.1),
            (Some(told), None) => {
                self.recorder = Some(Some(told));
                true
            }
            _ => false,
        }
    }

    /// The last window, once every item is read: what lies around the items, `rest` (the
    /// document without them, or the fields beside them). How many windows, or the first item
    /// that could not be read.
    pub(super) fn finish(mut self, rest: Vec<Node>) -> Result<Option<usize>, ReadError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.flush();
        let Some(Some((format, ..))) = self.recorder else {
            return Ok(None);
        };
        let last = HttpCassette {
            format,
            interactions: Vec::new(),
            compressed: false,
            outside: super::outside(&[], &rest, &self.ranges, (0, self.text.len() as u32)),
        };
        let count = self.ranges.len() + 1;
        (self.visit)(last, if self.keep { rest } else { Vec::new() });
        Ok(Some(count))
    }
}

#[cfg(test)]
mod tests {
    use super::{read_array_windows, read_json_windows, read_windows};
    use crate::http::HttpCassette;

    fn windows(text: &str, window: usize) -> Option<Vec<HttpCassette>> {
        let mut out = Vec::new();
        read_windows(text, window, false, &mut |cassette, _| out.push(cassette))
            .unwrap()
            .map(|count| {
                assert_eq!(count, out.len());
                out
            })
    }

    const VCRPY: &str = "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://a.example/1\n  response:\n    body: {string: one}\n    headers: {}\n    status: {code: 200, message: OK}\n# key: sk-the-comment\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://a.example/2\n  response:\n    body: {string: two}\n    headers: {}\n    status: {code: 200, message: OK}\nversion: 1\n# key: sk-the-last-one\n";

    /// Each item its own window, named as in the whole file, then the rest: what no
    /// interaction holds (the comment between two items) is in a window's `outside`, and
    /// what lies around the sequence in the last one's.
    #[test]
    fn a_vcrpy_cassette_goes_an_interaction_at_a_time_then_the_rest() {
        let parts = windows(VCRPY, 1).unwrap();
        assert_eq!(parts.len(), 3);
        assert!(parts.iter().all(|p| p.format == crate::http::vcrpy::FORMAT));
        let paths: Vec<&str> = (parts.iter())
            .flat_map(|p| p.interactions.iter().map(|i| i.path.as_str()))
            .collect();
        assert_eq!(paths, ["interactions[0]", "interactions[1]"]);
        let holds = |part: &HttpCassette, what: &str| {
            let at = VCRPY.find(what).unwrap() as u32;
            (part.outside.iter()).any(|&(start, end)| start <= at && at < end)
        };
        assert!(holds(&parts[1], "sk-the-comment"), "{:?}", parts[1].outside);
        assert!(
            holds(&parts[2], "sk-the-last-one"),
            "{:?}",
            parts[2].outside
        );
        // One window for both items when it is large enough.
        assert_eq!(windows(VCRPY, 1 << 20).unwrap().len(), 2);
        // As a whole read, one interaction that does not read is the file's error.
        let broken = VCRPY.replacen("  response:", "  responses:", 2);
        let mut given = 0;
        let read = read_windows(&broken, 1, false, &mut |_, _| given += 1);
        assert!(read.is_err(), "{read:?}");
        assert_eq!(given, 0);
    }

    /// The recorder is told as a whole read tells it, from the first item and every
    /// top-level key (go-vcr's `version: 2` first); what is not a cassette of theirs is
    /// left to the whole read.
    #[test]
    fn the_recorder_is_the_whole_reads() {
        let go = "version: 2\ninteractions:\n- request:\n    method: GET\n    url: https://a.example/\n  response:\n    code: 200\n";
        assert_eq!(
            windows(go, 1).unwrap()[0].format,
            crate::http::go_vcr::FORMAT
        );
        let ruby = "http_interactions:\n- request:\n    method: get\n    uri: https://a.example/\n  response:\n    status: {code: 200}\n  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT\nrecorded_with: VCR 6.2.0\n";
        assert_eq!(
            windows(ruby, 1).unwrap()[0].format,
            crate::http::ruby_vcr::FORMAT
        );
        let pact = "consumer: {name: a}\nprovider: {name: b}\ninteractions:\n- request: {method: GET}\n  response: {}\n";
        assert!(windows(pact, 1).is_none());
        let paired = "requests:\n- {method: GET, uri: x}\nresponses:\n- {status: {code: 200}}\n";
        assert!(windows(paired, 1).is_none());
    }

    /// vcrpy's and Ruby VCR's JSON: the array streamed, an item at a time, named as in the
    /// whole file; the other fields with the last window; repeated keys (which `JSON.parse`
    /// reads in another order) and anything else left to the whole read.
    #[test]
    fn a_json_cassette_goes_an_interaction_at_a_time() {
        let item = |n: u32| {
            format!(
                r#"{{"request": {{"body": null, "headers": {{}}, "method": "GET", "uri": "https://a.example/{n}"}}, "response": {{"body": {{"string": "x"}}, "headers": {{}}, "status": {{"code": 200, "message": "OK"}}}}}}"#
            )
        };
        let text = format!(
            r#"{{"interactions": [{}, {}], "version": 1, "note": "sk-the-last-one-1234"}}"#,
            item(0),
            item(1)
        );
        let mut parts = Vec::new();
        let count = read_json_windows(&text, 1, false, &mut |c, _| parts.push(c)).unwrap();
        assert_eq!(count, Some(3));
        assert!(parts.iter().all(|p| p.format == crate::http::vcrpy::FORMAT));
        assert_eq!(parts[1].interactions[0].path, "interactions[1]");
        let at = text.find("sk-the-last").unwrap() as u32;
        assert!(parts[2].outside.iter().any(|&(s, e)| s <= at && at < e));
        let ruby = text.replace("\"interactions\"", "\"http_interactions\"");
        let mut formats = Vec::new();
        read_json_windows(&ruby, 1, false, &mut |c, _| formats.push(c.format)).unwrap();
        assert_eq!(formats.first(), Some(&crate::http::ruby_vcr::FORMAT));
        let repeated = text.replace("\"version\": 1", "\"version\": 1, \"version\": 2");
        assert_eq!(
            read_json_windows(&repeated, 1, false, &mut |_, _| {}),
            Ok(None)
        );
        // Not JSON, but a talkback tape's opening: read whole, as JSON5 (found by fuzzing).
        let tape = "{meta: -5, \"http_interactions\": [";
        assert_eq!(read_json_windows(tape, 1, false, &mut |_, _| {}), Ok(None));
        // Not JSON, with a recorder's key: what a whole read says.
        let cut = &text[..text.len() / 2];
        let read = read_json_windows(cut, 1, false, &mut |_, _| {});
        assert!(
            matches!(&read, Err(e) if e.format == crate::http::vcrpy::FORMAT),
            "{read:?}"
        );
    }

    /// A nock cassette: its definitions streamed, an item at a time, named as in the whole
    /// file; a list that a whole read would not read as nock's (its first item no definition,
    /// an item no mapping) is left to the whole read.
    #[test]
    fn a_nock_list_goes_a_definition_at_a_time() {
        let def = |n: u32| {
            format!(
                r#"{{"scope": "https://a.example:443", "method": "GET", "path": "/{n}", "status": 200, "response": {{"ok": true}}}}"#
            )
        };
        let text = format!("[\n  {},\n  {}\n]\n", def(0), def(1));
        let mut parts = Vec::new();
        let count = read_array_windows(&text, 1, false, &mut |c, _| parts.push(c)).unwrap();
        assert_eq!(count, Some(3));
        assert!(parts.iter().all(|p| p.format == crate::http::nock::FORMAT));
        let paths: Vec<&str> = (parts.iter())
            .flat_map(|p| p.interactions.iter().map(|i| i.path.as_str()))
            .collect();
        assert_eq!(paths, ["[0]", "[1]"]);
        assert_eq!(
            parts[1].interactions[0].request.url.text,
            "https://a.example:443/1"
        );
        for other in [
            format!("[{}, 3]", def(0)),
            format!(r#"[{{"scope": "ftp://a"}}, {}]"#, def(0)),
            "[]".to_owned(),
        ] {
            assert_eq!(
                read_array_windows(&other, 1, false, &mut |_, _| {}),
                Ok(None),
                "{other}"
            );
        }
    }
}
