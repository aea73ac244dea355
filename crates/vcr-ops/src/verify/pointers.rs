//! Where a leak is: the JSON pointer of the string that holds each hit, rendered only for the
//! strings that hold one, for a value, a message fixture a part at a time, or a JSONL log.

use vcr_json::Value;
use vcr_lint::Hit;

/// For each hit (in source order), the JSON pointer of the string (value or key) that holds
/// it. Pointers are rendered only for those strings: most files have a
/// hit or two among thousands of strings, and building every pointer cost more than the scan.
pub(super) fn pointers_of(value: &Value<'_>, hits: &[Hit]) -> Vec<Option<String>> {
    let mut pointers = Pointers::new(hits);
    pointers.value(&mut Vec::new(), value);
    pointers.out
}

/// A step of a JSON pointer.
enum Segment<'a> {
    Index(usize),
    Key(&'a str),
}

/// Whether one of `hits` (in file order) starts in `span`.
pub(super) fn any_hit_in(hits: &[Hit], span: vcr_json::Span) -> bool {
    let first = hits.partition_point(|h| h.start < span.start as usize);
    span.is_known() && hits.get(first).is_some_and(|h| h.start < span.end as usize)
}

/// [`pointers_of`] a part at a time: a message fixture's parts are shown one by one and
/// dropped (`vcr_cassette::claude_code::stream_message`).
pub(super) struct Pointers<'h> {
    hits: &'h [Hit],
    /// The pointer of each hit, once its string has been shown.
    pub(super) out: Vec<Option<String>>,
}

impl<'h> Pointers<'h> {
    pub(super) fn new(hits: &'h [Hit]) -> Self {
        Pointers {
            hits,
            out: vec![None; hits.len()],
        }
    }

    fn string(&mut self, path: &[Segment<'_>], span: vcr_json::Span) {
        if !span.is_known() {
            return;
        }
        let (start, end) = (span.start as usize, span.end as usize);
        let first = self.hits.partition_point(|h| h.start < start);
        let last = self.hits.partition_point(|h| h.start < end);
        if first == last {
            return;
        }
        let mut pointer = String::new();
        for segment in path {
            pointer.push('/');
            match segment {
                Segment::Index(i) => pointer.push_str(&i.to_string()),
                Segment::Key(k) => pointer.push_str(&k.replace('~', "~0").replace('/', "~1")),
            }
        }
        for slot in &mut self.out[first..last] {
            *slot = Some(pointer.clone());
        }
    }

    /// A value, under `path`.
    fn value<'v>(&mut self, path: &mut Vec<Segment<'v>>, value: &'v Value<'v>) {
        match value {
            Value::String(s) => self.string(path, s.span()),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(Segment::Index(i));
                    self.value(path, item);
                    path.pop();
                }
            }
            Value::Object(object) => {
                for (key, item) in object.iter() {
                    path.push(Segment::Key(key));
                    self.string(path, key.span());
                    self.value(path, item);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// A part of a message fixture shown by `vcr_cassette::claude_code::stream_message`; an `output` item
    /// is walked only when a hit is in it.
    pub(super) fn stored(&mut self, stored: &vcr_cassette::claude_code::Stored<'_, '_>) {
        match *stored {
            vcr_cassette::claude_code::Stored::Field(key, value) => {
                let mut path = vec![Segment::Key(key.as_str())];
                self.string(&path, key.span());
                self.value(&mut path, value);
            }
            vcr_cassette::claude_code::Stored::Output(key) => {
                self.string(&[Segment::Key(key.as_str())], key.span());
            }
            vcr_cassette::claude_code::Stored::Item(i, item, span) => {
                if any_hit_in(self.hits, span) {
                    let mut path = vec![Segment::Key("output"), Segment::Index(i)];
                    self.value(&mut path, item);
                }
            }
        }
    }
}

/// [`pointers_of`] for a JSONL log: each line is parsed only if it holds a hit, and pointers
/// start with the line's 0-based index (`/12/data/chunk/text`).
/// `first_line` is the index of the first line of `bytes` in its file.
pub(super) fn jsonl_pointers(bytes: &[u8], hits: &[Hit], first_line: usize) -> Vec<Option<String>> {
    let mut out = vec![None; hits.len()];
    let mut first = 0;
    let mut start = 0;
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let end = start + line.len();
        let last = first + hits[first..].partition_point(|h| h.start < end);
        if last > first {
            if let Ok(value) = vcr_json::parse(line) {
                let shifted: Vec<Hit> = hits[first..last]
                    .iter()
                    .map(|h| Hit {
                        start: h.start - start,
                        end: h.end.saturating_sub(start),
                        ..h.clone()
                    })
                    .collect();
                for (slot, pointer) in out[first..last]
                    .iter_mut()
                    .zip(pointers_of(&value, &shifted))
                {
                    *slot = pointer.map(|p| format!("/{}{p}", first_line + index));
                }
            }
            first = last;
        }
        start = end + 1;
    }
    out
}
