//! dsh scenarios compared a model call at a time (issue 12).
//!
//! [`Behaviour::dsh`] derives a scenario's script from the whole bytes of its logs and keeps
//! every event and every call: a 2-million-line `session.jsonl` sat whole in memory, several
//! times over. Here each log is read with [`LineReader`] through [`SessionReader`] and
//! [`Deriver`], and each call, once derived, is compared with the other side's call of the
//! same number ([`CallByCall`]) and dropped: old and new scripts advance in lockstep, one
//! call each. What a side holds is one line, the open call's chunks, the models of the
//! `request/header` events that call spans, the override's entries, and the request hashes
//! of the side that is ahead until two differ; what the comparison holds is the changes the
//! report shows. The entry is the one [`Behaviour::dsh`] and [`compare`](super::compare)
//! give for the same files, errors included (the old side's first, as when it was read
//! first); `VCR_TEST_WHOLE_VALUES=1` keeps the whole-file path so the tests can compare both
//! (`ReadOptions::streaming`, [`vcr_cassette::http::ReadOptions`]).
//!
//! `--full` still builds the unified diff from the files read whole: it is a request for
//! the full text, which cannot be bounded.
//!
//! [`Behaviour::dsh`]: super::Behaviour::dsh

use std::collections::VecDeque;
use std::io::{self, BufRead};

use super::behaviour::{
    self, BehaviourError, Kind, ModelCall, apply_override, count_field, header_model, label,
    model_call, override_call, user_content,
};
use super::compare::CallByCall;
use super::{Blob, Entry, Options, Pair, Snapshot, Status, Unit};
use vcr_cassette::claude_code;
use vcr_cassette::dsh::{self, Deriver, Role, SessionReader, ids};
use vcr_cassette::jsonl::LineReader;
use vcr_json::Value;
use vcr_lint::Scanner;
use vcr_project::run::FileProblem;

/// What stops a side: a file that cannot be read (`(shown path, problem)`, as the whole-file
/// path reports it).
type Failure = (String, FileProblem);

/// One log of a side, to be read.
struct LogInput<'f> {
    /// The file's name in the scenario folder.
    name: &'f str,
    /// The file as errors name it (`<folder>/<name>`).
    file: &'f str,
    /// The file as read errors name it (its own path, as the whole-file path names it).
    shown: &'f str,
    reader: Box<dyn BufRead + 'f>,
}

/// One session log being read: a line at a time, its calls derived as they close.
struct Log<'f> {
    name: &'f str,
    file: &'f str,
    shown: &'f str,
    primary: bool,
    lines: LineReader<Box<dyn BufRead + 'f>>,
    reader: SessionReader<'f>,
    /// Made once the header is read (a child skips its `seedLength` events).
    deriver: Option<Deriver<'f>>,
    /// How many of the reader's problems were looked at.
    checked: usize,
    /// Events still to skip before `request/header` and `user/message` count.
    skip: usize,
    /// `(line, model)` of `request/header` events, from the last one before the open call.
    models: VecDeque<(usize, String)>,
    /// Calls handed over so far.
    calls: usize,
}

/// Why a log stopped being read.
enum LogError {
    Read(io::Error),
    Behaviour(BehaviourError),
}

impl<'f> Log<'f> {
    /// A log to read; a `primary` one is derived in full, a child after its seed.
    fn new(input: LogInput<'f>, primary: bool) -> Log<'f> {
        Log {
            name: input.name,
            file: input.file,
            shown: input.shown,
            primary,
            lines: LineReader::new(input.reader),
            // As `dsh::parse_session` reads a log for `vcr diff`: the strictest role.
            reader: SessionReader::new(input.file, Role::Child { ordered: true }),
            deriver: None,
            checked: 0,
            skip: 0,
            models: VecDeque::new(),
            calls: 0,
        }
    }

    /// Reads the next line, adding the calls it closes (with their number in the log) to
    /// `calls` and the request hashes it holds to `requests`; `false` after the last line.
    fn step(
        &mut self,
        calls: &mut Vec<(usize, ModelCall)>,
        requests: &mut Vec<String>,
    ) -> Result<bool, LogError> {
        let (name, file, primary) = (self.name, self.file, self.primary);
        let Log {
            lines,
            reader,
            deriver,
            checked,
            skip,
            models,
            calls: handed,
            ..
        } = self;
        let Some(line) = lines.next_line().map_err(LogError::Read)? else {
            let reader = std::mem::replace(reader, SessionReader::new(file, Role::Primary));
            let (_, _, problems) = reader.finish();
            first_error(&problems[*checked..], file)?;
            if let Some(d) = deriver.take() {
                d.finish(&mut |call, _| {
                    calls.push((*handed, model_call(&call, name, *handed, models.iter())));
                    *handed += 1;
                });
            }
            return Ok(false);
        };
        let place = dsh::Place::line(line.text, line.start, line.number);
        reader.line(line.text, line.start, line.number, &mut |event| {
            if *skip > 0 {
                *skip -= 1;
            } else if let Some(data) = event.data() {
                match event.event_type() {
                    Some("request/header") => {
                        if let Some(model) = header_model(data) {
                            models.push_back((event.line, model));
                        }
                    }
                    Some("user/message") => {
                        requests.push(claude_code::message_segment(&user_content(data)));
                    }
                    _ => {}
                }
            }
            let Some(d) = deriver.as_mut() else { return };
            d.event(&event, place, &mut |call, _| {
                calls.push((*handed, model_call(&call, name, *handed, models.iter())));
                *handed += 1;
            });
            // Every call still to come starts at the open call's line or later: only the
            // last model before it can still be asked for.
            let horizon = d.open_line().unwrap_or(event.line);
            while models.get(1).is_some_and(|(line, _)| *line <= horizon) {
                models.pop_front();
            }
        });
        first_error(&reader.problems()[*checked..], file)?;
        *checked = reader.problems().len();
        if deriver.is_none()
            && let Some(header) = reader.header()
        {
            *skip = if primary { 0 } else { header.seed_length };
            *deriver = Some(Deriver::new(file, *skip, false));
        }
        Ok(true)
    }
}

/// The first problem that makes the harness fail on the log, as
/// [`Behaviour::dsh`](super::Behaviour::dsh) reports it (`dsh/persistence` problems do not).
fn first_error(problems: &[dsh::Problem], file: &str) -> Result<(), LogError> {
    match problems.iter().find(|p| p.id != ids::PERSISTENCE) {
        Some(p) => Err(LogError::Behaviour(BehaviourError::Schema {
            file: file.to_owned(),
            message: p.message.clone(),
        })),
        None => Ok(()),
    }
}

/// What `replay.override.json` does to the primary log's calls.
enum Primary {
    /// Nothing (no override, or one of another shape): the calls as derived.
    Derived,
    /// A bare array: the log is read for its errors and requests, and these calls replace
    /// its script.
    Replaced(Vec<ModelCall>),
    /// Patches, in order, each `(at, entry)` (the valid ones).
    Patched(Vec<(usize, ModelCall)>),
}

/// One side of a scenario as a stream of calls, in script order: the primary log (or a bare
/// override), then each child by number.
struct Script<'f> {
    sessions: Vec<String>,
    primary: Primary,
    logs: VecDeque<Log<'f>>,
    ready: VecDeque<ModelCall>,
    requests: Vec<String>,
    handed: Vec<(usize, ModelCall)>,
}

impl<'f> Script<'f> {
    /// A side from its logs and its override (bytes and how errors name it); an override
    /// that is not JSON is the side's error, before any log is read.
    fn new(
        logs: Vec<LogInput<'f>>,
        override_file: Option<(&[u8], &str)>,
    ) -> Result<Script<'f>, BehaviourError> {
        let doc = match override_file {
            Some((bytes, file)) => Some(behaviour::parse(bytes, file)?),
            None => None,
        };
        let mut logs: Vec<(u64, LogInput<'f>)> = logs
            .into_iter()
            .filter_map(|log| {
                let n = if log.name == dsh::PRIMARY {
                    Some(0)
                } else {
                    dsh::child_index(log.name)
                };
                n.map(|n| (n, log))
            })
            .collect();
        logs.sort_by_key(|(n, _)| *n);
        let mut script = Script {
            sessions: Vec::new(),
            primary: Primary::Derived,
            logs: VecDeque::new(),
            ready: VecDeque::new(),
            requests: Vec::new(),
            handed: Vec::new(),
        };
        let has_primary = logs.first().is_some_and(|(n, _)| *n == 0);
        if let Some(doc) = &doc {
            if has_primary {
                script.primary = match doc {
                    Value::Array(_) => {
                        Primary::Replaced(apply_override(Vec::new(), doc, dsh::PRIMARY))
                    }
                    Value::Object(o) => Primary::Patched(
                        o.get("patches")
                            .and_then(Value::as_array)
                            .unwrap_or(&[])
                            .iter()
                            .filter_map(|patch| {
                                let patch = patch.as_object()?;
                                let at = count_field(patch, "at")? as usize;
                                Some((at, override_call(patch.get("entry")?)?))
                            })
                            .collect(),
                    ),
                    _ => Primary::Derived,
                };
            } else {
                // A bare override without a log is the whole primary script.
                script.sessions.push(dsh::REPLAY_OVERRIDE.to_owned());
                script
                    .ready
                    .extend(apply_override(Vec::new(), doc, dsh::REPLAY_OVERRIDE));
            }
        }
        for (n, log) in logs {
            script.sessions.push(log.name.to_owned());
            script.logs.push_back(Log::new(log, n == 0));
        }
        Ok(script)
    }

    /// One session log on its own, as [`Behaviour::dsh_log`](super::Behaviour::dsh_log)
    /// reads it: no session names, no override, no seed skipped, calls numbered `#<n>`.
    fn single(input: LogInput<'f>) -> Script<'f> {
        Script {
            sessions: Vec::new(),
            primary: Primary::Derived,
            logs: VecDeque::from([Log::new(input, true)]),
            ready: VecDeque::new(),
            requests: Vec::new(),
            handed: Vec::new(),
        }
    }

    /// The next call, `None` after the last (and after an error).
    fn next_call(&mut self) -> Result<Option<ModelCall>, (String, LogError)> {
        loop {
            if let Some(call) = self.ready.pop_front() {
                return Ok(Some(call));
            }
            let Some(log) = self.logs.front_mut() else {
                return Ok(None);
            };
            let more = match log.step(&mut self.handed, &mut self.requests) {
                Ok(more) => more,
                Err(e) => {
                    let shown = log.shown.to_owned();
                    self.logs.clear();
                    return Err((shown, e));
                }
            };
            let (primary, name, n) = (log.name == dsh::PRIMARY, log.name, log.calls);
            for (i, call) in self.handed.drain(..) {
                if !primary {
                    self.ready.push_back(call);
                    continue;
                }
                match &self.primary {
                    Primary::Derived => self.ready.push_back(call),
                    Primary::Replaced(_) => {}
                    Primary::Patched(patches) => {
                        let patched = patches.iter().rev().find(|(at, _)| *at == i);
                        self.ready.push_back(match patched {
                            Some((_, entry)) => ModelCall {
                                label: format!("{}, override", label(name, i)),
                                model: call.model,
                                ..entry.clone()
                            },
                            None => call,
                        });
                    }
                }
            }
            if !more {
                if primary {
                    let tail = self.primary_tail(name, n);
                    self.ready.extend(tail);
                }
                self.logs.pop_front();
            }
        }
    }

    /// The calls the override puts after the primary log's `n` calls: a bare override's
    /// whole script, or the entries patches append (each at the script's length then).
    fn primary_tail(&mut self, name: &str, n: usize) -> Vec<ModelCall> {
        match std::mem::replace(&mut self.primary, Primary::Derived) {
            Primary::Derived => Vec::new(),
            Primary::Replaced(calls) => calls,
            Primary::Patched(patches) => {
                let mut tail: Vec<ModelCall> = Vec::new();
                for (at, entry) in patches {
                    if at < n {
                        continue; // applied as the call came
                    }
                    if at < n + tail.len() {
                        let model = tail[at - n].model.take();
                        tail[at - n] = ModelCall { model, ..entry };
                    } else if at == n + tail.len() {
                        tail.push(entry);
                    }
                }
                for (k, call) in tail.iter_mut().enumerate() {
                    call.label = format!("{}, override", label(name, n + k));
                }
                tail
            }
        }
    }
}

/// A unit's files opened for a streamed read: each log's names and reader, the override's
/// bytes.
struct Opened<'s> {
    /// `(name, as errors name it, as read errors name it)` per log.
    names: Vec<(String, String, String)>,
    readers: Vec<Box<dyn BufRead + 's>>,
    override_file: Option<(Vec<u8>, String)>,
}

impl Opened<'_> {
    /// Opens every file of `unit` (in its order: the first that cannot be opened is the
    /// error the whole-file path would report).
    fn open<'s>(unit: &Unit<'s>, side: &Snapshot) -> Result<Opened<'s>, Failure> {
        let dir = side.display(&unit.rel);
        let named = |name: &str| {
            if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            }
        };
        let mut opened = Opened {
            names: Vec::new(),
            readers: Vec::new(),
            override_file: None,
        };
        for (name, rel, blob) in &unit.files {
            let io = |e: io::Error| (side.display(rel), FileProblem::io(&e));
            if name == dsh::REPLAY_OVERRIDE {
                let bytes = blob.read().map_err(io)?.into_owned();
                opened.override_file = Some((bytes, named(name)));
            } else {
                opened.readers.push(blob.open().map_err(io)?);
                opened
                    .names
                    .push((name.clone(), named(name), side.display(rel)));
            }
        }
        Ok(opened)
    }

    /// The side's script; an override that is not JSON is its error.
    fn script(&mut self, dir: &str) -> Result<Script<'_>, Failure> {
        let logs = self
            .names
            .iter()
            .zip(self.readers.drain(..))
            .map(|((name, file, shown), reader)| LogInput {
                name,
                file,
                shown,
                reader,
            })
            .collect();
        let override_file = self
            .override_file
            .as_ref()
            .map(|(bytes, file)| (bytes.as_slice(), file.as_str()));
        Script::new(logs, override_file).map_err(|e| super::problem(e, dir.to_owned()))
    }
}

/// A side's failure as the whole-file path reports it.
fn failure(dir: &str, (shown, e): SideError) -> Failure {
    match e {
        LogError::Read(e) => (shown, FileProblem::io(&e)),
        LogError::Behaviour(e) => super::problem(e, dir.to_owned()),
    }
}

/// Reads a side to its end, handing each call to `each`.
fn drain(
    script: &mut Script<'_>,
    dir: &str,
    mut each: impl FnMut(ModelCall),
) -> Result<(), Failure> {
    while let Some(call) = script.next_call().map_err(|e| failure(dir, e))? {
        each(call);
    }
    Ok(())
}

/// Compares a pair of dsh scenarios (either side may be absent) reading their logs a line
/// at a time; the entry, or the first failure, the old side's first.
pub(super) fn compare_pair(
    pair: &Pair<'_>,
    old_side: &Snapshot,
    new_side: &Snapshot,
    options: &Options,
    masker: &Scanner,
) -> Result<Option<Entry>, Failure> {
    let entry = match (&pair.old, &pair.new) {
        (Some(old), Some(new)) => both_sides(old, new, old_side, new_side, masker)?,
        (Some(unit), None) => one_side(unit, old_side, Status::Removed, masker)?,
        (None, Some(unit)) => one_side(unit, new_side, Status::Added, masker)?,
        (None, None) => return Ok(None),
    };
    let diff = if options.full {
        let load = |unit: Option<&Unit<'_>>, side| unit.map(|u| super::load(u, side)).transpose();
        let old_files = load(pair.old.as_ref(), old_side)?.unwrap_or_default();
        let new_files = load(pair.new.as_ref(), new_side)?.unwrap_or_default();
        Some(masker.mask(&super::full_diff(&old_files, &new_files))).filter(|d| !d.is_empty())
    } else {
        None
    };
    Ok(Some(Entry { diff, ..entry }))
}

/// An added or removed scenario: its calls listed, one line each.
fn one_side(
    unit: &Unit<'_>,
    side: &Snapshot,
    status: Status,
    masker: &Scanner,
) -> Result<Entry, Failure> {
    let dir = side.display(&unit.rel);
    let mut opened = Opened::open(unit, side)?;
    let mut script = opened.script(&dir)?;
    let mut calls = Vec::new();
    drain(&mut script, &dir, |call| {
        calls.push(masker.mask(&call.one_line()));
    })?;
    Ok(super::listed(unit, status, calls, None))
}

/// A scenario on both sides: unchanged bytes, or the two scripts compared in lockstep.
fn both_sides(
    old_unit: &Unit<'_>,
    new_unit: &Unit<'_>,
    old_side: &Snapshot,
    new_side: &Snapshot,
    masker: &Scanner,
) -> Result<Entry, Failure> {
    let old_dir = old_side.display(&old_unit.rel);
    let new_dir = new_side.display(&new_unit.rel);
    let mut old_opened = Opened::open(old_unit, old_side)?;
    let mut old = old_opened.script(&old_dir)?;
    // A failure of the new side waits for the old side to be read: its own comes first.
    let mut new_opened = Opened::open(new_unit, new_side);
    let new = match &mut new_opened {
        Ok(opened) => opened.script(&new_dir),
        Err(e) => Err(e.clone()),
    };
    let mut new = match new {
        Ok(script) => script,
        Err(e) => {
            drain(&mut old, &old_dir, drop)?;
            return Err(e);
        }
    };
    // Most scenarios of a tree are unchanged: the new side is then not derived again.
    let same = same_files(old_unit, new_unit, old_side, new_side, false)?;
    let changes = if same {
        drain(&mut old, &old_dir, drop)?;
        Vec::new()
    } else {
        lockstep(&mut old, &mut new)
            .map_err(|(is_old, e)| failure(if is_old { &old_dir } else { &new_dir }, e))?
    };
    let equal =
        changes.is_empty() && (same || same_files(old_unit, new_unit, old_side, new_side, true)?);
    let mut entry = super::entry_of(changes, equal, Kind::Dsh, masker);
    entry.path.clone_from(&new_unit.rel);
    Ok(entry)
}

/// Whether the file holds a dsh session log of more than one line, as
/// [`Behaviour::detect`](super::Behaviour::detect) tells one: its first line that is not
/// blank is a JSON object whose `type` is `session`, and another line that is not blank
/// follows (so the whole file is not one JSON value). A log of one line is left to the
/// whole-file path.
pub(super) fn is_session_log(reader: Box<dyn BufRead + '_>) -> io::Result<bool> {
    let mut lines = LineReader::new(reader);
    let mut header = false;
    while let Some(line) = lines.next_line()? {
        if line.text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if header {
            return Ok(true);
        }
        let value = vcr_json::parse(line.text);
        let is_header = value
            .as_ref()
            .ok()
            .and_then(Value::as_object)
            .is_some_and(|o| o.get("type").and_then(Value::as_str) == Some("session"));
        if !is_header {
            return Ok(false);
        }
        header = true;
    }
    Ok(false)
}

/// Two session logs compared as [`super::compare_files`] compares them, a call at a time:
/// the entry, or the old log's first error, then the new one's.
pub(super) fn compare_logs(
    old: (&str, &Blob),
    new: (&str, &Blob),
    options: &Options,
    masker: &Scanner,
) -> Result<Entry, super::DiffError> {
    let error = |(file, e): SideError| match e {
        LogError::Read(source) => super::DiffError::Read { file, source },
        LogError::Behaviour(e) => super::DiffError::Behaviour(e),
    };
    let read = |file: &str| {
        let file = file.to_owned();
        move |source| super::DiffError::Read { file, source }
    };
    let (old_reader, new_reader) = (
        old.1.open().map_err(read(old.0))?,
        new.1.open().map_err(read(new.0))?,
    );
    let single = |file, reader| {
        Script::single(LogInput {
            name: "",
            file,
            shown: file,
            reader,
        })
    };
    let (mut old_script, mut new_script) = (single(old.0, old_reader), single(new.0, new_reader));
    let changes = lockstep(&mut old_script, &mut new_script).map_err(|(_, e)| error(e))?;
    let equal = changes.is_empty()
        && same_bytes(old.1, new.1).map_err(|(is_old, source)| super::DiffError::Read {
            file: if is_old { old.0 } else { new.0 }.to_owned(),
            source,
        })?;
    let mut entry = super::entry_of(changes, equal, Kind::Dsh, masker);
    entry.path = new.0.to_owned();
    if old.0 != new.0 {
        entry.old_path = Some(old.0.to_owned());
    }
    if options.full {
        let load = |(file, blob): (&str, &Blob)| -> Result<super::Loaded, super::DiffError> {
            let bytes = blob.read().map_err(|source| super::DiffError::Read {
                file: file.to_owned(),
                source,
            })?;
            Ok(vec![(
                dsh::PRIMARY.to_owned(),
                file.to_owned(),
                bytes.into_owned(),
            )])
        };
        let diff = super::full_diff(&load(old)?, &load(new)?);
        entry.diff = Some(masker.mask(&diff)).filter(|d| !d.is_empty());
    }
    Ok(entry)
}

/// A log of a side that stopped: how read errors name it, and why.
type SideError = (String, LogError);

/// Both sides' calls compared in lockstep; the changes, or the first error with its side
/// (`true`: the old): the old side's, read to its end when the new side failed first.
fn lockstep(
    old: &mut Script<'_>,
    new: &mut Script<'_>,
) -> Result<Vec<super::Change>, (bool, SideError)> {
    let mut by_call = CallByCall::default();
    let mut new_error = None;
    loop {
        let o = old.next_call().map_err(|e| (true, e))?;
        for hash in old.requests.drain(..) {
            by_call.request(true, hash);
        }
        let n = match new_error {
            Some(_) => None,
            None => new.next_call().unwrap_or_else(|e| {
                new_error = Some(e);
                None
            }),
        };
        for hash in new.requests.drain(..) {
            by_call.request(false, hash);
        }
        match (o, n) {
            (Some(o), Some(n)) => by_call.pair(&o, &n),
            (Some(o), None) => by_call.old_only(&o),
            (None, Some(n)) => by_call.new_only(&n),
            (None, None) => break,
        }
    }
    match new_error {
        Some(e) => Err((false, e)),
        None => Ok(by_call.finish(&old.sessions, &new.sessions)),
    }
}

/// Whether the two units hold the same files with the same bytes (`canonical: false`), or
/// with the same canonical forms as the whole-file path compares them (`canonical: true`:
/// the override as JSON, the logs byte for byte); read a block at a time, sizes first.
fn same_files(
    old: &Unit<'_>,
    new: &Unit<'_>,
    old_side: &Snapshot,
    new_side: &Snapshot,
    canonical: bool,
) -> Result<bool, Failure> {
    if old.files.len() != new.files.len() {
        return Ok(false);
    }
    for ((old_name, old_rel, old_blob), (new_name, new_rel, new_blob)) in
        old.files.iter().zip(&new.files)
    {
        if old_name != new_name {
            return Ok(false);
        }
        let io = |old: bool, e: io::Error| {
            let shown = if old {
                old_side.display(old_rel)
            } else {
                new_side.display(new_rel)
            };
            (shown, FileProblem::io(&e))
        };
        let equal = if canonical && old_name.ends_with(".json") {
            let o = old_blob.read().map_err(|e| io(true, e))?;
            let n = new_blob.read().map_err(|e| io(false, e))?;
            o == n || super::canonical(old_name, &o) == super::canonical(new_name, &n)
        } else {
            same_bytes(old_blob, new_blob).map_err(|(old, e)| io(old, e))?
        };
        if !equal {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether two blobs hold the same bytes, compared a buffer at a time; a read error says
/// which side (`true`: the first) it came from.
fn same_bytes(a: &Blob, b: &Blob) -> Result<bool, (bool, io::Error)> {
    if let (Some(x), Some(y)) = (a.size(), b.size())
        && x != y
    {
        return Ok(false);
    }
    let mut a = a.open().map_err(|e| (true, e))?;
    let mut b = b.open().map_err(|e| (false, e))?;
    loop {
        let x = a.fill_buf().map_err(|e| (true, e))?;
        let y = b.fill_buf().map_err(|e| (false, e))?;
        let n = x.len().min(y.len());
        if n == 0 {
            return Ok(x.is_empty() && y.is_empty());
        }
        if x[..n] != y[..n] {
            return Ok(false);
        }
        a.consume(n);
        b.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Behaviour;

    /// The script of one side read a call at a time, as [`Behaviour::dsh`] reads it whole.
    fn streamed(files: &[(&str, &str)]) -> Result<Vec<ModelCall>, String> {
        let logs = files
            .iter()
            .filter(|(name, _)| *name != dsh::REPLAY_OVERRIDE)
            .map(|(name, text)| LogInput {
                name,
                file: name,
                shown: name,
                reader: Box::new(text.as_bytes()),
            })
            .collect();
        let override_file = files
            .iter()
            .find(|(name, _)| *name == dsh::REPLAY_OVERRIDE)
            .map(|(name, text)| (text.as_bytes(), *name));
        let mut script = Script::new(logs, override_file).map_err(|e| e.to_string())?;
        let mut calls = Vec::new();
        while let Some(call) = script.next_call().map_err(|(_, e)| match e {
            LogError::Read(e) => e.to_string(),
            LogError::Behaviour(e) => e.to_string(),
        })? {
            calls.push(call);
        }
        Ok(calls)
    }

    fn whole(files: &[(&str, &str)]) -> Result<Vec<ModelCall>, String> {
        let named: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
        Behaviour::dsh(&named, "")
            .map(|b| b.calls)
            .map_err(|e| e.to_string())
    }

    const HEADER: &str = r#"{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"{{cwd}}","delegationDepth":0}"#;

    fn call(turn: usize, model: Option<&str>, text: &str) -> String {
        let mut out = String::new();
        if let Some(model) = model {
            out.push_str(&format!(
                r#"{{"type":"request/header","data":{{"header":{{"config":{{"model":"{model}"}}}}}}}}"#
            ));
            out.push('\n');
        }
        out.push_str(&format!(
            r#"{{"type":"user/message","data":{{"content":[{{"type":"text","text":"go {turn}"}}]}}}}
{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"text-delta","index":0,"text":"{text}"}}}}}}
{{"type":"assistant/chunk","data":{{"turn":{turn},"step":1,"chunk":{{"type":"finish","reason":{{"kind":"stop"}}}}}}}}
"#
        ));
        out
    }

    #[test]
    fn overrides_apply_to_the_streamed_primary_as_to_the_whole_one() {
        let log = format!(
            "{HEADER}\n{}{}{}",
            call(1, Some("m1"), "a"),
            call(2, None, "b"),
            call(3, Some("m2"), "c")
        );
        let entry = |text: &str| {
            format!(
                r#"{{"kind":"chunks","chunks":[{{"type":"text-delta","index":0,"text":"{text}"}},{{"type":"finish","reason":{{"kind":"stop"}}}}]}}"#
            )
        };
        let overrides = [
            format!("[{}]", entry("x")),
            format!(
                r#"{{"patches":[{{"at":1,"entry":{}}},{{"at":3,"entry":{}}},{{"at":1,"entry":{}}},{{"at":4,"entry":{}}},{{"at":3,"entry":{}}},{{"at":9,"entry":{}}}]}}"#,
                entry("p"),
                entry("q"),
                entry("r"),
                entry("s"),
                entry("t"),
                entry("u")
            ),
            r#"{"patches":[{"at":0,"entry":{"kind":"bogus"}}]}"#.to_owned(),
            "7".to_owned(),
        ];
        for doc in &overrides {
            let files = [
                ("replay.override.json", doc.as_str()),
                ("session.jsonl", &log),
            ];
            assert_eq!(streamed(&files), whole(&files), "{doc}");
            let files = [("replay.override.json", doc.as_str())];
            assert_eq!(streamed(&files), whole(&files), "{doc}");
        }
        let child = format!("{HEADER}\n{}", call(9, Some("m3"), "z"));
        let files = [
            ("session.2.jsonl", child.as_str()),
            ("session.jsonl", &log),
            ("session.1.jsonl", &child),
        ];
        assert_eq!(streamed(&files), whole(&files));
        assert_eq!(streamed(&files).unwrap().len(), 5);
    }

    #[test]
    fn the_first_error_is_the_whole_readers() {
        for log in [
            String::new(),
            format!(
                "{HEADER}\n{}not json\n{}",
                call(1, None, "a"),
                call(2, None, "b")
            ),
            format!("{HEADER}\n{}[1]\n", call(1, None, "a")),
            "{\"type\":\"session\"\n".to_owned(),
        ] {
            let files = [("session.jsonl", log.as_str())];
            let got = streamed(&files);
            assert!(got.is_err(), "{log}");
            assert_eq!(got, whole(&files), "{log}");
        }
    }
}
