//! Reading a `session.jsonl` log as G2 `parseSessionLog` reads it (`formats.md` B.2).
//!
//! The harness splits the text on `\r?\n`, skips blank lines anywhere (`line.trim()` empty),
//! takes the first remaining line as the header and decodes every other line on its own:
//! a row missing its `seq`/`time` envelope (`seq0`/`time0` for a packed row) gets the running
//! count of decoded events and `0`, and a packed chunk row is validated exactly and expanded
//! into `assistant/chunk` events. Where the harness stops at the first bad line, this reader
//! reports every one and keeps reading. The header line is checked in [`super::header`],
//! against llm-replay and the harness's session store.

use vcr_json::{Object, Span, Str, Value};

use super::header::{HeaderLine, read_header};
use super::{Header, Place, Problem, Role, ids, safe_integer};

/// The packed storage rows (`dsh-session` chunk rows) and the delta chunk each member becomes.
pub(super) const PACKED: [(&str, &str); 3] = [
    ("text-chunks", "text-delta"),
    ("reasoning-chunks", "reasoning-delta"),
    ("tool-call-chunks", "tool-call-delta"),
];

/// A parsed session log. Values borrow from the file's bytes.
#[derive(Debug, Clone)]
pub struct SessionLog<'a> {
    /// The whole file, so that positions inside events can be turned into lines and columns.
    pub bytes: &'a [u8],
    /// The header line.
    pub header: Header,
    /// The body events in log order, packed rows expanded.
    pub events: Vec<Event<'a>>,
}

/// One body event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<'a> {
    /// The event object as stored; for a member of a packed row, the `assistant/chunk` event
    /// the harness reconstructs (`{"type":"assistant/chunk","data":{turn,step,chunk}}`),
    /// built from the row's own values. Never holds the `seq`/`time` the reader filled in.
    pub row: Object<'a>,
    /// 1-based line of the row in the file.
    pub line: usize,
    /// Byte offset where the row's line starts: string spans inside `row` are relative to it.
    pub offset: usize,
    /// `seq` as stored when it is a safe integer, else the running count the harness fills
    /// in (a packed row's members count one each, from `seq0`).
    pub seq: i64,
    /// `time` as stored when it is a safe integer, else `0`.
    pub time: i64,
    /// Whether the event was expanded from a packed row.
    pub packed: bool,
}

impl<'a> Event<'a> {
    /// The event's `type`, when it is a string.
    pub fn event_type(&self) -> Option<&str> {
        self.row.get("type").and_then(Value::as_str)
    }

    /// The event's `data`, when it is an object.
    pub fn data(&self) -> Option<&Object<'a>> {
        self.row.get("data").and_then(Value::as_object)
    }
}

/// What [`read_session`] found in a log.
#[derive(Debug, Clone)]
pub struct SessionRead<'a> {
    /// The log: the header as llm-replay reads it, and every body row that could be read.
    /// A header with problems does not stop this, because llm-replay skips the first line.
    pub log: SessionLog<'a>,
    /// The 1-based lines of body rows that could not be read (not JSON objects, malformed
    /// packed rows). The harness stops at the first of them. The events after it are still
    /// read, so the other checks can run, but a script derived from them may miss a chunk of
    /// these lines.
    pub unread: Vec<usize>,
    /// Everything wrong, line by line: `parse` and `schema` problems stop the harness;
    /// `dsh/persistence` problems are for what only the harness's session store refuses.
    pub problems: Vec<Problem>,
}

/// Reads a session log, reporting every problem (see the module docs and [`Header`]).
///
/// `file` names the file in the problems; `role` says how the log is bound at replay, which
/// decides what its header needs. Messages use the harness's wording: `session snapshot line
/// N contains invalid JSON`, `session snapshot line N must be a JSON object`, `session
/// snapshot line N: malformed <tag> storage row: <why>`. A log too large to hold is read
/// line by line with [`SessionReader`], which this wraps.
pub fn read_session<'a>(bytes: &'a [u8], file: &str, role: Role) -> SessionRead<'a> {
    let mut reader = SessionReader::new(file, role);
    let mut events = Vec::new();
    for (index, (start, line)) in lines(bytes).enumerate() {
        reader.line(line, start, index + 1, &mut |event| events.push(event));
    }
    let (header, unread, problems) = reader.finish();
    SessionRead {
        log: SessionLog {
            bytes,
            header,
            events,
        },
        unread,
        problems,
    }
}

/// [`read_session`] one line at a time: what it keeps between lines is the header, the
/// running `seq`, and the problems and unread lines found so far, so a log of any length is
/// read in the memory of its largest line (issue 12).
#[derive(Debug)]
pub struct SessionReader<'f> {
    file: &'f str,
    role: Role,
    header: Option<Header>,
    next_seq: i64,
    blank_before: bool,
    unread: Vec<usize>,
    problems: Vec<Problem>,
}

impl<'f> SessionReader<'f> {
    /// A reader for the log `file`, bound at replay as `role`.
    pub fn new(file: &'f str, role: Role) -> SessionReader<'f> {
        SessionReader {
            file,
            role,
            header: None,
            next_seq: 0,
            blank_before: false,
            unread: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The header, once its line was read.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The problems found so far, in line order: a caller that stops at the first error
    /// (`vcr diff`, as [`parse_session`] does for a log read whole) looks at the new ones
    /// after each line instead of waiting for [`SessionReader::finish`].
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Reads the line `number` (its text without the line break, starting at file offset
    /// `start`), passing each body event it holds to `emit`, in order.
    pub fn line<'l>(
        &mut self,
        line: &'l [u8],
        start: usize,
        number: usize,
        emit: &mut dyn FnMut(Event<'l>),
    ) {
        let file = self.file;
        let place = Place::line(line, start, number);
        if is_blank(line) {
            self.blank_before |= self.header.is_none();
            return;
        }
        if self.header.is_none() {
            let value = match vcr_json::parse(line) {
                Ok(value) => Some(value),
                Err(e) => {
                    self.problems.push(Problem::at(
                        ids::PARSE,
                        file,
                        place,
                        start + e.offset,
                        format!(
                            "session header (line {number}) is not valid JSON: llm-replay's \
                             `parseSessionHeader` fails on it: {e}"
                        ),
                    ));
                    None
                }
            };
            let at = HeaderLine {
                value: value.as_ref(),
                line: number,
                start,
                blank_before: self.blank_before,
            };
            self.header = Some(read_header(&at, place, file, self.role, &mut self.problems));
            return;
        }
        let row = match parse_row(line, start, number, file) {
            Ok(row) => row,
            Err(problem) => {
                self.problems.push(problem);
                self.unread.push(number);
                return;
            }
        };
        let tag = row.get("type").and_then(Value::as_str);
        match tag.and_then(|t| PACKED.iter().find(|(name, _)| *name == t)) {
            Some(&(tag, delta)) => match expand(&row, tag, delta, self.next_seq, number, start) {
                Ok(members) => {
                    self.next_seq += members.len() as i64;
                    members.into_iter().for_each(&mut *emit);
                }
                Err((why, span)) => {
                    let at = span
                        .filter(|s| s.is_known())
                        .map_or(0, |s| s.start as usize);
                    self.problems.push(Problem::at(
                        ids::SCHEMA,
                        file,
                        place,
                        start + at,
                        format!(
                            "session snapshot line {number}: malformed {tag} storage row: {why}"
                        ),
                    ));
                    self.unread.push(number);
                }
            },
            None => {
                let seq = row
                    .get("seq")
                    .and_then(safe_integer)
                    .unwrap_or(self.next_seq);
                let time = row.get("time").and_then(safe_integer).unwrap_or(0);
                self.next_seq += 1;
                emit(Event {
                    row,
                    line: number,
                    offset: start,
                    seq,
                    time,
                    packed: false,
                });
            }
        }
    }

    /// The header (the default when the log has none, which is a problem), the lines that
    /// could not be read, and every problem, in line order.
    pub fn finish(mut self) -> (Header, Vec<usize>, Vec<Problem>) {
        let header = self.header.take().unwrap_or_else(|| {
            // llm-replay reads an empty log as no calls at all; the scenario then fails on its
            // first model call ("script exhausted").
            self.problems.push(Problem::at(
                ids::SCHEMA,
                self.file,
                Place::line(&[], 0, 1),
                0,
                "the session log is empty: llm-replay derives no model call from it, and its \
                 first line must be the session header (`{\"type\":\"session\",...}`)"
                    .to_owned(),
            ));
            Header::default()
        });
        (header, self.unread, self.problems)
    }
}

/// Parses a session log the way llm-replay reads it: `Ok` when the harness reads it without
/// an error, else every `parse` and `schema` problem. The header is checked as a child's among
/// siblings, the strictest role; `dsh/persistence` problems do not make it fail (see
/// [`read_session`] for all of them).
pub fn parse_session<'a>(bytes: &'a [u8], file: &str) -> Result<SessionLog<'a>, Vec<Problem>> {
    let read = read_session(bytes, file, Role::Child { ordered: true });
    let errors: Vec<Problem> = read
        .problems
        .into_iter()
        .filter(|p| p.id != ids::PERSISTENCE)
        .collect();
    if errors.is_empty() {
        Ok(read.log)
    } else {
        Err(errors)
    }
}

/// The lines of `bytes` as the harness's `split(/\r?\n/)` makes them, each with the offset
/// where it starts.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let rest = &bytes[start..];
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], start + i + 1),
            None => {
                done = true;
                (rest, bytes.len())
            }
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let item = (start, line);
        start = next;
        Some(item)
    })
}

/// Whether JavaScript's `line.trim()` leaves nothing (WhiteSpace and LineTerminator), for
/// the line's text as `String::from_utf8_lossy` makes it (a byte that is not UTF-8 becomes
/// U+FFFD, which is not blank).
///
/// Leading ASCII is decided a byte at a time, so that a line of JSON is decided on its first
/// byte: the whole line made lossy first was 1% of a whole-tree `verify` over the corpus,
/// twice for each line of a session log (issue 12).
pub(crate) fn is_blank(line: &[u8]) -> bool {
    // ASCII white space is JavaScript's too; any other ASCII byte is not.
    let rest = match line
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' '))
    {
        None => return true,
        Some(i) => &line[i..],
    };
    !rest[0].is_ascii() && String::from_utf8_lossy(rest).chars().all(is_js_space)
}

/// ECMAScript's WhiteSpace and LineTerminator.
fn is_js_space(c: char) -> bool {
    const JS_SPACE: [char; 14] = [
        '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{1680}', '\u{2028}', '\u{2029}',
        '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
    ];
    JS_SPACE.contains(&c) || ('\u{2000}'..='\u{200a}').contains(&c)
}

/// One line (line `number`, starting at file offset `start`) as a JSON object, or the
/// harness's `parse` message.
pub(crate) fn parse_row<'a>(
    line: &'a [u8],
    start: usize,
    number: usize,
    file: &str,
) -> Result<Object<'a>, Problem> {
    let bytes = Place::line(line, start, number);
    match vcr_json::parse(line) {
        Ok(Value::Object(row)) => Ok(row),
        Ok(_) => Err(Problem::at(
            ids::PARSE,
            file,
            bytes,
            start,
            format!("session snapshot line {number} must be a JSON object"),
        )),
        Err(e) => Err(Problem::at(
            ids::PARSE,
            file,
            bytes,
            start + e.offset,
            format!("session snapshot line {number} contains invalid JSON: {e}"),
        )),
    }
}

/// Why a packed row is malformed, and the span (relative to its line) to point at.
type Malformed = (String, Option<Span>);

/// Validates a packed row exactly as `dsh-session`'s `validateChunkRow` does (after the
/// reader filled in a missing `seq0`/`time0`) and expands it into its events.
fn expand<'a>(
    row: &Object<'a>,
    tag: &str,
    delta: &'static str,
    next_seq: i64,
    line: usize,
    offset: usize,
) -> Result<Vec<Event<'a>>, Malformed> {
    let why = |text: &str, span: Option<Span>| (text.to_owned(), span);
    const ENVELOPE: [&str; 4] = ["type", "seq0", "time0", "data"];
    if !row.iter().all(|(k, _)| ENVELOPE.contains(&k.as_str())) || !row.contains_key("data") {
        return Err(why(
            "envelope must be exactly {type, seq0, time0, data}",
            None,
        ));
    }
    let seq0 = match row.get("seq0") {
        None => next_seq,
        Some(v) => safe_integer(v).filter(|&n| n >= 0).ok_or_else(|| {
            why(
                "seq0 must be a non-negative safe integer",
                row.key_span("seq0"),
            )
        })?,
    };
    let time0 = match row.get("time0") {
        None => 0,
        Some(v) => safe_integer(v)
            .ok_or_else(|| why("time0 must be a safe integer", row.key_span("time0")))?,
    };
    let data_span = row.key_span("data");
    let data = match row.get("data") {
        Some(Value::Object(data)) => data,
        // An array passes the harness's `typeof === 'object'` test and fails the key test.
        Some(Value::Array(_)) => {
            let keys = if tag == "tool-call-chunks" {
                "data must be exactly {turn, step, index, id, name?, dt, args}"
            } else {
                "data must be exactly {turn, step, index, dt, texts}"
            };
            return Err(why(keys, data_span));
        }
        _ => return Err(why("data must be an object", data_span)),
    };
    let exact =
        |keys: &[&str]| data.len() == keys.len() && keys.iter().all(|k| data.contains_key(k));
    let payload_key = if tag == "tool-call-chunks" {
        let with_name = exact(&["turn", "step", "index", "id", "name", "dt", "args"]);
        if !with_name && !exact(&["turn", "step", "index", "id", "dt", "args"]) {
            return Err(why(
                "data must be exactly {turn, step, index, id, name?, dt, args}",
                data_span,
            ));
        }
        let strings = data.get("id").and_then(Value::as_str).is_some()
            && (!with_name || data.get("name").and_then(Value::as_str).is_some());
        if !strings {
            return Err(why(
                "id (and name when present) must be strings",
                data.key_span("id"),
            ));
        }
        "args"
    } else {
        if !exact(&["turn", "step", "index", "dt", "texts"]) {
            return Err(why(
                "data must be exactly {turn, step, index, dt, texts}",
                data_span,
            ));
        }
        "texts"
    };
    let number = |k: &str| matches!(data.get(k), Some(Value::Number(_)));
    if !(number("turn") && number("step") && number("index")) {
        return Err(why("turn/step/index must be numbers", data_span));
    }
    let members: Vec<&Str<'a>> = match data.get(payload_key) {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or_else(|| {
                why(
                    &format!("{payload_key} must be a non-empty string array"),
                    data.key_span(payload_key),
                )
            })?,
        _ => {
            return Err(why(
                &format!("{payload_key} must be a non-empty string array"),
                data.key_span(payload_key),
            ));
        }
    };
    let dt: Vec<i64> = match data.get("dt") {
        Some(Value::Array(items)) => items
            .iter()
            .map(safe_integer)
            .collect::<Option<_>>()
            .ok_or_else(|| why("dt must be an array of safe integers", data.key_span("dt")))?,
        _ => {
            return Err(why(
                "dt must be an array of safe integers",
                data.key_span("dt"),
            ));
        }
    };
    if dt.len() + 1 != members.len() {
        return Err(why(
            &format!(
                "dt length {} does not match {} members",
                dt.len(),
                members.len()
            ),
            data.key_span("dt"),
        ));
    }
    const MAX_SAFE: i64 = 9_007_199_254_740_991;
    if seq0 + members.len() as i64 - 1 > MAX_SAFE {
        return Err(why("member seqs must stay safe integers", None));
    }
    let mut times = Vec::with_capacity(members.len());
    let mut time = time0;
    times.push(time);
    for gap in &dt {
        time = time
            .checked_add(*gap)
            .filter(|t| t.abs() <= MAX_SAFE)
            .ok_or_else(|| why("member times must stay safe integers", data.key_span("dt")))?;
        times.push(time);
    }

    let get = |k: &str| data.get(k).cloned().unwrap_or(Value::Null);
    let events = members
        .into_iter()
        .zip(times)
        .enumerate()
        .map(|(k, (text, time))| {
            let mut chunk = Object::new();
            chunk.insert(Str::new("type"), Value::string(delta));
            chunk.insert(Str::new("index"), get("index"));
            if tag == "tool-call-chunks" {
                chunk.insert(Str::new("id"), get("id"));
                if let Some(name) = data.get("name") {
                    chunk.insert(Str::new("name"), name.clone());
                }
                chunk.insert(Str::new("argumentsDelta"), Value::String(text.clone()));
            } else {
                chunk.insert(Str::new("text"), Value::String(text.clone()));
            }
            let mut event_data = Object::new();
            event_data.insert(Str::new("turn"), get("turn"));
            event_data.insert(Str::new("step"), get("step"));
            event_data.insert(Str::new("chunk"), Value::Object(chunk));
            let mut event = Object::new();
            event.insert(Str::new("type"), Value::string("assistant/chunk"));
            event.insert(Str::new("data"), Value::Object(event_data));
            Event {
                row: event,
                line,
                offset,
                seq: seq0 + k as i64,
                time,
                packed: true,
            }
        })
        .collect();
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_blank` as it was: the whole line made lossy, then trimmed as JavaScript trims.
    fn blank_by_lossy(line: &[u8]) -> bool {
        String::from_utf8_lossy(line).chars().all(is_js_space)
    }

    #[test]
    fn blank_lines_are_decided_as_the_lossy_text_trims() {
        let pieces: &[&[u8]] = &[
            b" ",
            b"\t",
            b"\r",
            b"\n",
            b"\x0b",
            b"\x0c",
            b"a",
            b"{",
            b"\x00",
            b"\x7f",
            "\u{a0}".as_bytes(),
            "\u{1680}".as_bytes(),
            "\u{2000}".as_bytes(),
            "\u{200a}".as_bytes(),
            "\u{200b}".as_bytes(),
            "\u{2028}".as_bytes(),
            "\u{2029}".as_bytes(),
            "\u{202f}".as_bytes(),
            "\u{205f}".as_bytes(),
            "\u{3000}".as_bytes(),
            "\u{feff}".as_bytes(),
            "\u{fffd}".as_bytes(),
            "\u{85}".as_bytes(),
            "é".as_bytes(),
            "\u{1F600}".as_bytes(),
            // Not UTF-8: a lone continuation, overlong forms, a surrogate, cut sequences,
            // bytes that never start a character.
            b"\x80",
            b"\xc0\x80",
            b"\xc1\xbf",
            b"\xe0\x80\x80",
            b"\xed\xa0\x80",
            b"\xe2\x80",
            b"\xe2",
            b"\xf0\x9f\x98",
            b"\xf4\x90\x80\x80",
            b"\xf5\x80\x80\x80",
            b"\xff",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..100_000 {
            let mut line = Vec::new();
            let len = next() % 6;
            // Mostly blank pieces, so that lines that are blank are common.
            for _ in 0..len {
                let i = if next() % 3 == 0 {
                    next() as usize % pieces.len()
                } else {
                    [0, 1, 2, 3, 10, 12, 13, 15, 20][next() as usize % 9]
                };
                line.extend_from_slice(pieces[i]);
            }
            assert_eq!(is_blank(&line), blank_by_lossy(&line), "{line:?}");
        }
        assert!(is_blank(b""));
        assert!(is_blank(" \t\u{3000}\u{feff}".as_bytes()));
        assert!(!is_blank(b"  {}"));
        assert!(!is_blank(b" \xe2\x80"));
    }
}
