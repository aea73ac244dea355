//! The replay script: G2 `deriveReplayScript` (`formats.md` B.4), and what a call did.
//!
//! The harness walks the events in order with one open group keyed `"${turn}/${step}"`:
//! an `assistant/chunk` whose key differs from a non-empty group's closes it first, every
//! `finish` chunk closes its group (so retries sharing a turn/step are separate calls), and
//! a `compaction/summary` closes the group and, when it marks an LLM stream call
//! (`llmStreamCall === true`), becomes a call of its own rebuilt from `rawOutput`. Closing a
//! group whose last chunk is not `finish` throws: the stream threw while recording, and only
//! an override can say what it did. Here every such call is collected instead.

use std::borrow::Cow;

use vcr_json::{Num, Object, Str, Value};

use super::session::{Event, SessionLog};
use super::{Place, Problem, check_from_request, ids, js_number};

/// One stream chunk of a derived call.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The `StreamChunk` object (owned, so calls outlive the file's bytes).
    pub value: Value<'static>,
    /// 1-based line of the row it came from.
    pub line: usize,
    /// Byte offset where that line starts: string spans in `value` are relative to it.
    pub offset: usize,
}

/// One model call of the script: one `stream()` the replay will answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// `"${turn}/${step}"` as the harness spells it (`"compaction"` for a call rebuilt from a
    /// `compaction/summary`).
    pub key: String,
    /// 1-based line of the call's first chunk (of the summary, for a compaction call).
    pub line: usize,
    /// The chunks, ending with `finish`.
    pub chunks: Vec<Chunk>,
    /// Whether the call was synthesised from a `compaction/summary`.
    pub compaction: bool,
}

/// A model call that ended without `finish` (a stream that threw while recording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// `"${turn}/${step}"`, as in the harness's message.
    pub key: String,
    /// The index the call would have had in the script (how many calls precede it).
    pub at: usize,
    /// 1-based line of its first chunk.
    pub line: usize,
    /// Byte offset of that line.
    pub offset: usize,
    /// 1-based line of its last chunk.
    pub last_line: usize,
}

impl Unfinished {
    /// The harness's own error for this call.
    pub fn message(&self) -> String {
        format!(
            "llm-replay: model call {} ended without a finish chunk (a thrown stream); \
             this scenario needs a replay.override.json sidecar",
            self.key
        )
    }
}

/// The script [`derive_script`] derived from one log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DerivedScript {
    /// The calls, in order: the script the harness would replay.
    pub calls: Vec<Call>,
    /// Every call without `finish`, in order; the harness throws at the first.
    pub unfinished: Vec<Unfinished>,
    /// `schema` problems in the events the derivation reads (an `assistant/chunk` without a
    /// chunk, a stream-call `compaction/summary` without `rawOutput`, ...), each of which
    /// stops the harness.
    pub problems: Vec<Problem>,
}

/// Derives the replay script from `log.events[skip..]` (B.4).
///
/// `skip` is `0` for the primary log and the header's `seedLength` for a child, whose
/// first events are inherited from its parent. `file` names the file in problems. A log too
/// large to hold is derived event by event with [`Deriver`], which this wraps.
pub fn derive_script(log: &SessionLog<'_>, skip: usize, file: &str) -> DerivedScript {
    let mut deriver = Deriver::new(file, skip, false);
    let mut calls = Vec::new();
    for event in &log.events {
        deriver.event(event, log.bytes, &mut |call, _| calls.push(call));
    }
    let mut out = deriver.finish(&mut |call, _| calls.push(call));
    out.calls = calls;
    out
}

/// [`derive_script`] one event at a time (issue 12): it holds the open call's chunks and
/// hands each call to the caller as it closes, so a script of any length is derived in the
/// memory of its largest call. With `placeholders`, each chunk's `{{fromRequest:}}`
/// problems are found while its line is at hand (they need the line for their column) and
/// handed over with the call; an unfinished call drops them, as the harness never replays it.
#[derive(Debug)]
pub struct Deriver<'f> {
    file: &'f str,
    skip: usize,
    placeholders: bool,
    group: Vec<Chunk>,
    group_problems: Vec<Problem>,
    key: String,
    out: DerivedScript,
    calls: usize,
}

impl<'f> Deriver<'f> {
    /// A derivation of `file` that skips its first `skip` events.
    pub fn new(file: &'f str, skip: usize, placeholders: bool) -> Deriver<'f> {
        Deriver {
            file,
            skip,
            placeholders,
            group: Vec::new(),
            group_problems: Vec::new(),
            key: String::new(),
            out: DerivedScript::default(),
            calls: 0,
        }
    }

    /// Reads the next event; `text` places its offsets (its line, or the whole file). Each
    /// call it closes goes to `on_call` with its `{{fromRequest:}}` problems.
    pub fn event<'b>(
        &mut self,
        event: &Event<'_>,
        text: impl Into<Place<'b>>,
        on_call: &mut dyn FnMut(Call, Vec<Problem>),
    ) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        let text = text.into();
        let file = self.file;
        match event.event_type() {
            Some("compaction/summary") => {
                self.close(on_call);
                if let Some(call) = compaction_call(event, text, file, &mut self.out.problems) {
                    let problems = self.placeholder_problems(&call.chunks, text);
                    self.calls += 1;
                    on_call(call, problems);
                }
            }
            Some("assistant/chunk") => {
                let Some((turn_step, chunk)) = chunk_of(event, text, file, &mut self.out.problems)
                else {
                    return;
                };
                if !self.group.is_empty() && turn_step != self.key {
                    self.close(on_call);
                }
                if self.group.is_empty() {
                    self.key = turn_step;
                }
                let finish = chunk_type(&chunk) == Some("finish");
                let chunk = Chunk {
                    value: chunk,
                    line: event.line,
                    offset: event.offset,
                };
                let problems = self.placeholder_problems(std::slice::from_ref(&chunk), text);
                self.group_problems.extend(problems);
                self.group.push(chunk);
                if finish {
                    self.close(on_call);
                }
            }
            _ => {}
        }
    }

    /// Closes the last call: the calls (empty: they went to `on_call`), the unfinished calls
    /// and the derivation's problems.
    pub fn finish(mut self, on_call: &mut dyn FnMut(Call, Vec<Problem>)) -> DerivedScript {
        self.close(on_call);
        self.out
    }

    /// How many calls were handed over so far.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The line of the open call's first chunk, if a call is open: every call still to come
    /// starts there or later, so a caller keeping facts by line (`vcr diff`'s models) can drop
    /// what lies before it.
    pub fn open_line(&self) -> Option<usize> {
        self.group.first().map(|chunk| chunk.line)
    }

    fn placeholder_problems(&self, chunks: &[Chunk], text: Place<'_>) -> Vec<Problem> {
        if !self.placeholders {
            return Vec::new();
        }
        chunks
            .iter()
            .flat_map(|chunk| check_from_request(&chunk.value, text, chunk.offset, self.file))
            .collect()
    }

    /// The harness's `close`: an empty group is nothing, a group ending in `finish` is a
    /// call, anything else is an unfinished call.
    fn close(&mut self, on_call: &mut dyn FnMut(Call, Vec<Problem>)) {
        let chunks = std::mem::take(&mut self.group);
        let problems = std::mem::take(&mut self.group_problems);
        let (Some(first), Some(last)) = (chunks.first(), chunks.last()) else {
            return;
        };
        if chunk_type(&last.value) != Some("finish") {
            self.out.unfinished.push(Unfinished {
                key: self.key.clone(),
                at: self.calls,
                line: first.line,
                offset: first.offset,
                last_line: last.line,
            });
            return;
        }
        let call = Call {
            key: self.key.clone(),
            line: first.line,
            chunks,
            compaction: false,
        };
        self.calls += 1;
        on_call(call, problems);
    }
}

fn chunk_type<'v>(chunk: &'v Value<'_>) -> Option<&'v str> {
    chunk.as_object()?.get("type")?.as_str()
}

/// The key and chunk of an `assistant/chunk` event, or a `schema` problem where the harness
/// would crash reading it (`const { turn, step, chunk } = event.data; chunk.type`).
fn chunk_of(
    event: &Event<'_>,
    bytes: Place<'_>,
    file: &str,
    problems: &mut Vec<Problem>,
) -> Option<(String, Value<'static>)> {
    let data = event.data();
    match data.and_then(|d| d.get("chunk")) {
        Some(chunk @ Value::Object(_)) => {
            let data = data?;
            let key = format!(
                "{}/{}",
                js_template(data.get("turn")),
                js_template(data.get("step"))
            );
            Some((key, chunk.clone().into_owned()))
        }
        _ => {
            let at = event.row.key_span("data").map_or(0, |s| s.start as usize);
            problems.push(Problem::at(
                ids::SCHEMA,
                file,
                bytes,
                event.offset + at,
                format!(
                    "session snapshot line {}: `assistant/chunk` needs `data.chunk` as an \
                     object (llm-replay reads `data.turn`, `data.step` and `data.chunk`)",
                    event.line
                ),
            ));
            None
        }
    }
}

/// The call a `compaction/summary` stands for, when it marks an LLM stream call.
fn compaction_call(
    event: &Event<'_>,
    bytes: Place<'_>,
    file: &str,
    problems: &mut Vec<Problem>,
) -> Option<Call> {
    let mut problem = |key: Option<&str>, message: String| {
        let at = key
            .and_then(|k| event.data().and_then(|d| d.key_span(k)))
            .or_else(|| event.row.key_span("data"))
            .map_or(0, |s| s.start as usize);
        problems.push(Problem::at(
            ids::SCHEMA,
            file,
            bytes,
            event.offset + at,
            message,
        ));
    };
    let data = match event.row.get("data") {
        Some(Value::Object(data)) => data,
        None | Some(Value::Null) => {
            problem(
                None,
                format!(
                    "session snapshot line {}: `compaction/summary` has no `data` object",
                    event.line
                ),
            );
            return None;
        }
        // `persisted.llmStreamCall` of a primitive is `undefined`: not a stream call.
        Some(_) => return None,
    };
    if !matches!(data.get("llmStreamCall"), Some(Value::Bool(true))) {
        return None;
    }
    let blocks = match data.get("rawOutput") {
        None => {
            problem(
                Some("llmStreamCall"),
                "llm-replay: compaction/summary marks an LLM stream call without rawOutput"
                    .to_owned(),
            );
            return None;
        }
        Some(Value::Array(blocks)) => blocks,
        Some(_) => {
            problem(
                Some("rawOutput"),
                format!(
                    "session snapshot line {}: `compaction/summary` `data.rawOutput` must be \
                     an array of content blocks",
                    event.line
                ),
            );
            return None;
        }
    };
    if let Some(i) = blocks.iter().position(|b| b.as_object().is_none()) {
        problem(
            Some("rawOutput"),
            format!(
                "session snapshot line {}: `compaction/summary` `data.rawOutput[{i}]` must be \
                 a content block object",
                event.line
            ),
        );
        return None;
    }
    let chunk = |value: Object<'static>| Chunk {
        value: Value::Object(value),
        line: event.line,
        offset: event.offset,
    };
    let mut chunks = Vec::with_capacity(blocks.len() * 2 + 2);
    for (i, block) in blocks.iter().enumerate() {
        let index = Value::Number(Num(Cow::Owned(i.to_string())));
        let mut start = object([
            ("type", Value::string("block-start")),
            ("index", index.clone()),
        ]);
        if let Some(kind) = block.as_object().and_then(|b| b.get("type")) {
            start.insert(Str::new("blockType"), kind.clone().into_owned());
        }
        chunks.push(chunk(start));
        chunks.push(chunk(object([
            ("type", Value::string("block-end")),
            ("index", index),
            ("block", block.clone().into_owned()),
        ])));
    }
    if let Some(usage) = data.get("usage") {
        chunks.push(chunk(object([
            ("type", Value::string("usage")),
            ("usage", usage.clone().into_owned()),
        ])));
    }
    let stop = object([("kind", Value::string("stop"))]);
    chunks.push(chunk(object([
        ("type", Value::string("finish")),
        ("reason", Value::Object(stop)),
    ])));
    Some(Call {
        key: "compaction".to_owned(),
        line: event.line,
        chunks,
        compaction: true,
    })
}

fn object<const N: usize>(entries: [(&'static str, Value<'static>); N]) -> Object<'static> {
    entries.into_iter().map(|(k, v)| (Str::new(k), v)).collect()
}

/// A value as a JavaScript template literal prints it (`${turn}`): `undefined` when absent.
fn js_template(value: Option<&Value<'_>>) -> String {
    match value {
        None => "undefined".to_owned(),
        Some(Value::Null) => "null".to_owned(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => js_number(&n.0),
        Some(Value::String(s)) => s.as_str().to_owned(),
        // `Array.prototype.join`: null and undefined elements print as nothing.
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::Null => String::new(),
                v => js_template(Some(v)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".to_owned(),
    }
}

/// What one call did, for behaviour summaries (`vcr diff`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallSummary {
    /// The text the model wrote: each text block's final text (its `block-end`), or its
    /// deltas joined when the block never ended.
    pub text: String,
    /// The reasoning, assembled the same way.
    pub reasoning: String,
    /// The tool calls, in block order.
    pub tool_calls: Vec<ToolCall>,
    /// The finish reason's `kind` (`stop`, `tool-calls`, `max-tokens`, `aborted`, `error`).
    pub finish: Option<String>,
    /// The `usage` chunk's token counts, as recorded.
    pub usage: Option<Value<'static>>,
}

/// One tool call a model call made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    /// The call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, a raw JSON string as the model wrote it.
    pub arguments: String,
}

/// The block at `index`, added at the end when it is new.
fn block_at<'b>(blocks: &'b mut Vec<(String, Block)>, index: &str) -> &'b mut Block {
    let at = match blocks.iter().position(|(i, _)| i == index) {
        Some(at) => at,
        None => {
            blocks.push((index.to_owned(), Block::default()));
            blocks.len() - 1
        }
    };
    &mut blocks[at].1
}

/// One content block while a summary is assembled.
#[derive(Default)]
struct Block {
    kind: String,
    deltas: String,
    id: Option<String>,
    name: Option<String>,
    end: Option<Object<'static>>,
}

impl Call {
    /// Summarises the call's behaviour from its chunks (B.3).
    pub fn summary(&self) -> CallSummary {
        let mut summary = CallSummary::default();
        let mut blocks: Vec<(String, Block)> = Vec::new();
        for chunk in &self.chunks {
            let Some(c) = chunk.value.as_object() else {
                continue;
            };
            let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
            let index = js_template(c.get("index"));
            match c.get("type").and_then(Value::as_str) {
                Some("block-start") => {
                    block_at(&mut blocks, &index).kind = text("blockType").unwrap_or_default();
                }
                Some(kind @ ("text-delta" | "reasoning-delta")) => {
                    let b = block_at(&mut blocks, &index);
                    if b.kind.is_empty() {
                        b.kind = kind.trim_end_matches("-delta").to_owned();
                    }
                    b.deltas.push_str(&text("text").unwrap_or_default());
                }
                Some("tool-call-delta") => {
                    let (id, name) = (text("id"), text("name"));
                    let b = block_at(&mut blocks, &index);
                    b.kind = "tool-call".to_owned();
                    b.id = b.id.take().or(id);
                    b.name = b.name.take().or(name);
                    b.deltas
                        .push_str(&text("argumentsDelta").unwrap_or_default());
                }
                Some("block-end") => {
                    if let Some(Value::Object(end)) = c.get("block") {
                        let b = block_at(&mut blocks, &index);
                        if let Some(kind) = end.get("type").and_then(Value::as_str) {
                            b.kind = kind.to_owned();
                        }
                        b.end = Some(end.clone());
                    }
                }
                Some("usage") => summary.usage = c.get("usage").cloned(),
                Some("finish") => {
                    summary.finish = c
                        .get("reason")
                        .and_then(Value::as_object)
                        .and_then(|r| r.get("kind"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
                _ => {}
            }
        }
        for (_, b) in blocks {
            let end = |k: &str| {
                b.end
                    .as_ref()
                    .and_then(|e| e.get(k))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            match b.kind.as_str() {
                "text" => summary.text.push_str(&end("text").unwrap_or(b.deltas)),
                "reasoning" => summary.reasoning.push_str(&end("text").unwrap_or(b.deltas)),
                "tool-call" => summary.tool_calls.push(ToolCall {
                    id: end("id").or(b.id).unwrap_or_default(),
                    name: end("name").or(b.name).unwrap_or_default(),
                    arguments: end("arguments").unwrap_or(b.deltas),
                }),
                _ => {}
            }
        }
        summary
    }
}
