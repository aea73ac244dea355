//! `text/event-stream` bodies, read as the WHATWG HTML standard's event stream parser reads
//! them: lines end with CRLF, LF or CR; a blank line ends an event; `field: value` (one
//! space after the colon dropped); `data` lines joined by `\n`; lines starting with `:` are
//! comments. An event is kept when it has any field (the standard drops events without
//! data; the linter wants `event:` and `id:` too), and a last event without its blank line
//! (a recording cut short) is kept.

use std::borrow::Cow;

use super::{Content, Decoded, MAX_ITEMS, SseEvent};

/// The events of a stream, in order. Past [`MAX_ITEMS`] events, the rest of the stream is
/// one last event whose data is that text.
pub(super) fn parse(text: &str) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let mut pending = Pending::default();
    let mut pos = 0;
    while pos < text.len() {
        let end =
            memchr::memchr2(b'\r', b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i);
        let line = &text[pos..end];
        let line_at = pos;
        pos = match text.as_bytes().get(end..end + 2) {
            Some(b"\r\n") => end + 2,
            _ => end + 1,
        };
        if line.is_empty() {
            if let Some(event) = pending.take(text, events.len()) {
                events.push(event);
            }
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        pending.start.get_or_insert(line_at);
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => pending.event = Some(value),
            "id" => pending.id = Some(value),
            "data" => match &mut pending.data {
                Some(data) => {
                    let data = data.to_mut();
                    data.push('\n');
                    data.push_str(value);
                    pending.data_at = None;
                }
                None => {
                    pending.data = Some(Cow::Borrowed(value));
                    pending.data_at = Some(line_at + (line.len() - value.len()));
                }
            },
            // `retry` and unknown fields say nothing the linter wants.
            _ => continue,
        }
        pending.fields = true;
    }
    if let Some(event) = pending.take(text, events.len()) {
        events.push(event);
    }
    events
}

/// The event being read.
#[derive(Default)]
struct Pending<'t> {
    fields: bool,
    /// Where its first line starts.
    start: Option<usize>,
    event: Option<&'t str>,
    id: Option<&'t str>,
    data: Option<Cow<'t, str>>,
    /// Where the data sits in the body, while it is one line.
    data_at: Option<usize>,
}

impl Pending<'_> {
    /// The event read so far, if it has a field; resets for the next. At the cap, the
    /// event instead holds the rest of the stream as text (and `parse` stops adding).
    fn take(&mut self, text: &str, count: usize) -> Option<SseEvent> {
        let pending = std::mem::take(self);
        if !pending.fields || count >= MAX_ITEMS {
            return None;
        }
        if count == MAX_ITEMS - 1 {
            let rest = &text[pending.start.unwrap_or(0)..];
            return Some(SseEvent {
                event: None,
                id: None,
                data: Decoded {
                    layers: Vec::new(),
                    content: Content::Text(rest.to_owned()),
                },
            });
        }
        Some(SseEvent {
            event: pending.event.map(str::to_owned),
            id: pending.id.map(str::to_owned),
            data: data(pending.data.as_deref().unwrap_or(""), pending.data_at),
        })
    }
}

/// An event's data: JSON where it is a JSON object or array (offsets in the body when the
/// data was one line, else in the joined data), else text.
pub(super) fn data(value: &str, at: Option<usize>) -> Decoded {
    if value.is_empty() {
        return Decoded {
            layers: Vec::new(),
            content: Content::Empty,
        };
    }
    let json = matches!(value.trim_start().as_bytes().first(), Some(b'{' | b'['))
        .then(|| super::json_at(value, at.unwrap_or(0)))
        .flatten();
    match json {
        Some(node) => Decoded {
            layers: vec!["json"],
            content: Content::Json(node),
        },
        None => Decoded {
            layers: Vec::new(),
            content: Content::Text(value.to_owned()),
        },
    }
}
