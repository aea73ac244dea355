//! A message fixture checked, rewritten and written an `output` item at a time.
//!
//! Claude Code records a streamed call as one `output` item per stream event, so a long
//! session is a file of a hundred megabytes made of small objects. Built whole, its value
//! takes several times the file's size; here each item is parsed, checked, mapped, written
//! to the sink and dropped before the next one is read (issue 12). The result is the one
//! [`check_message`], [`normalize_message`](crate::normalize_message) and
//! [`vcr_json::write_pretty`] give on the whole value: the same errors in the same order, the
//! same bytes.

use crate::CassetteError;
use crate::model::FixtureDir;
use crate::rules::{RuleError, Scope};
use vcr_json::{Object, Part, PrettyObject, Probe, Sink, Span, Str, Streamed, Value};

use super::{
    SchemaError, check_message, check_output_item, dehydrate_input_element, dehydrate_stream_event,
    input, map_output_item, message_name,
};

/// A part of the fixture as stored, shown to the caller before it is rewritten (for the
/// checks that read the stored value: leaks, recorded errors).
#[derive(Debug)]
pub enum Stored<'v, 'a> {
    /// A top-level field other than `output`.
    Field(&'v Str<'a>, &'v Value<'a>),
    /// The `output` key, before its items.
    Output(&'v Str<'a>),
    /// Item `index` of `output`, and where it is in the file.
    Item(usize, &'v Value<'a>, Span),
}

/// A message fixture after [`stream_message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Whether the key rules changed the key material.
    pub key_changed: bool,
    /// The file name the harness would look up.
    pub name: String,
}

/// Checks the message fixture `bytes` of `dir` and writes what `vcr normalize` makes of it
/// to `out`, an `output` item at a time; `inspect` sees each part as stored, once it is
/// known to be well-shaped. `Ok(None)` when the document cannot be read in parts (see
/// [`vcr_json::parse_streamed`]): the caller then works on the whole value, and what `out` and
/// `inspect` got is to be dropped. After an error too, `out` holds no meaningful bytes.
///
/// An item already in its canonical form that no check or rule reads (see `inert`) is
/// copied to `out` as it stands, without being built or shown to `inspect`, unless `wants`
/// asks for the item at that span.
pub fn stream_message<'a, S: Sink>(
    bytes: &'a [u8],
    dir: &FixtureDir,
    out: &mut S,
    wants: &dyn Fn(Span) -> bool,
    inspect: &mut dyn FnMut(Stored<'_, 'a>),
) -> Result<Option<Message>, CassetteError> {
    let (rules, version) = (&dir.rules, dir.version);
    // The top-level fields, `output` held as an empty array at its place, for the checks of
    // the whole shape at the end.
    let mut root = Object::new();
    let mut key_changed = false;
    // The first problem of each kind, reported at the end in the order the whole-value path
    // meets them: the shape (input, then output, then the items), then the rules (input,
    // assistant items, stream events).
    let mut item_problem: Option<SchemaError> = None;
    let mut input_rule: Option<RuleError> = None;
    let mut item_rule: Option<RuleError> = None;
    let mut event_rule: Option<RuleError> = None;
    let mut index = 0;
    let mut output_offset: Option<usize> = None;
    let mut writer = PrettyObject::new(out);
    let offer = !dir.dehydrate_stream_events;
    let streamed = vcr_json::parse_streamed(bytes, "output", offer, &mut |part| match part {
        Part::Canonical(span, probe) => {
            if !inert(&probe) || wants(span) {
                return false;
            }
            if index == 0 {
                output_offset = probe.first_key.or(output_offset);
            }
            index += 1;
            if item_problem.is_none() {
                writer.item_text(&bytes[span.start as usize..span.end as usize]);
            }
            true
        }
        Part::Field(key, mut value) => {
            inspect(Stored::Field(&key, &value));
            if key.as_str() == "input"
                && let Value::Array(items) = &mut value
            {
                for element in items {
                    match dehydrate_input_element(element, rules, Scope::Key, version) {
                        Ok(changed) => key_changed |= changed,
                        Err(e) => {
                            input_rule.get_or_insert(e);
                            break;
                        }
                    }
                }
            }
            writer.field(&key, &value);
            root.insert(key, value);
            true
        }
        // Only `parse_streamed_at` gives nested fields.
        Part::Nested(..) => true,
        Part::Begin(key) => {
            inspect(Stored::Output(&key));
            writer.begin_array(&key);
            output_offset = key.span().is_known().then_some(key.span().start as usize);
            root.insert(key, Value::Array(Vec::new()));
            true
        }
        Part::Item(mut item, span) => {
            let i = index;
            index += 1;
            if i == 0 {
                // Where the whole-value check points for an item without a position: the
                // array's, which is its first item's, else the key's.
                output_offset = item.source_offset().or(output_offset);
            }
            if item_problem.is_some() {
                return true;
            }
            if let Err(e) = check_output_item(i, &item, &|| output_offset) {
                item_problem = Some(e);
                return true;
            }
            inspect(Stored::Item(i, &item, span));
            if item_rule.is_none()
                && let Err(e) = map_output_item(i, &mut item, rules, version)
            {
                item_rule = Some(e);
            }
            if dir.dehydrate_stream_events
                && event_rule.is_none()
                && let Err(e) = dehydrate_stream_event(&mut item, rules)
            {
                event_rule = Some(e);
            }
            writer.item(&item);
            true
        }
        Part::End => {
            writer.end_array();
            true
        }
    })?;
    if streamed == Streamed::Whole {
        return Ok(None);
    }
    writer.finish();
    let root = Value::Object(root);
    check_message(&root)?;
    if let Some(problem) = item_problem {
        return Err(problem.into());
    }
    if let Some(e) = input_rule.or(item_rule).or(event_rule) {
        return Err(e.into());
    }
    Ok(Some(Message {
        key_changed,
        name: message_name(input(&root)),
    }))
}

/// Whether an `output` item with these `type`s is left alone by every check and rule of
/// [`stream_message`], so that its canonical text can stand for it:
/// [`check_output_item`] and [`map_output_item`] read only `assistant` items,
/// [`recorded_error`](super::recorded_error) only `system` items and `stream_event` items
/// whose event is an `error`, and [`dehydrate_stream_event`] runs only when configured
/// (then nothing is offered). A `type` that is no plain string is none of these; an item
/// that is no object is a schema error.
pub(super) fn inert(probe: &Probe<'_>) -> bool {
    // Anything but an object is a schema error.
    probe.object
        && match probe.kind {
            Some(b"assistant" | b"system") => false,
            Some(b"stream_event") => probe.event_kind != Some(b"error"),
            _ => true,
        }
}
