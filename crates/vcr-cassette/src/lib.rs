//! Fixture kinds: how to check, normalize and name each kind of cassette.
//!
//! [`canonicalize`] is the one entry point the commands use: it parses a cassette's bytes,
//! checks the shape of its kind, applies the rules the mode calls for, and returns the bytes
//! the kind's own writer would produce together with the name the harness would look up.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod api_error;
pub mod claude_code;
pub mod dsh;
pub mod finding_id;
pub mod generic;
pub mod http;
pub mod jsonl;
pub mod model;
pub mod rules;

/// The integration tests' skip (`tests/common/skip.rs`), so a unit test that cannot run here
/// is counted with theirs at the end of `cargo test`.
#[cfg(test)]
#[path = "../../../tests/common/skip.rs"]
mod test_skip;

use crate::model::{Cassette, CassetteKind, FixtureDir};
use vcr_json::{ParseError, Position, Value};

pub use claude_code::SchemaError;

/// What to do to a cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Everything `vcr normalize` does: key rules on the key material, payload rules on the
    /// payload, the canonical writer.
    Normalize,
    /// What `vcr rehash` does: key rules on the key material only.
    Rekey,
}

/// A cassette after [`canonicalize`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// The bytes the kind's writer produces for the (rewritten) value.
    pub bytes: Vec<u8>,
    /// Whether the rules changed the key material.
    pub key_changed: bool,
    /// The file name the harness would look up, for content-addressed kinds.
    pub name: Option<String>,
}

/// Why a cassette cannot be processed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// Not JSON.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// JSON, but not the shape of its kind.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A line of a JSONL log (the first problem; `vcr verify` reports them all).
    #[error("{}", .0.message)]
    Log(dsh::Problem),
    /// A generic cassette's problem.
    #[error(transparent)]
    Generic(#[from] generic::GenericError),
    /// A user rule was stopped on one of the file's strings (it backtracks too much); the
    /// file is left as it was.
    #[error("{0}")]
    Rule(#[from] rules::RuleError),
}

impl CassetteError {
    /// The finding the problem is, when a check reports it: `parse`, `schema`, a dsh log's
    /// or a generic cassette's own (a rule stopped at its time limit is a file's problem,
    /// never a finding: `schema` stands for it here).
    pub fn finding_id(&self) -> finding_id::FindingId {
        use finding_id::FindingId;
        match self {
            CassetteError::Parse(_) => FindingId::Parse,
            CassetteError::Log(problem) => problem.id,
            CassetteError::Generic(e) => e.finding_id(),
            CassetteError::Schema(_) | CassetteError::Rule(_) => FindingId::Schema,
        }
    }

    /// The id of the problem as a file's problem reports it (`parse` or `schema`; `limit`
    /// for a rule that was stopped).
    pub fn id(&self) -> &'static str {
        match self {
            CassetteError::Parse(_) => "parse",
            CassetteError::Schema(_) => "schema",
            CassetteError::Log(problem) => problem.id.as_str(),
            CassetteError::Generic(e) => e.id(),
            CassetteError::Rule(_) => "limit",
        }
    }

    /// Where the problem is in `bytes`, when known.
    pub fn position(&self, bytes: &[u8]) -> Option<Position> {
        let offset = match self {
            CassetteError::Parse(e) => Some(e.offset),
            CassetteError::Schema(e) => e.offset,
            CassetteError::Log(problem) => problem.offset,
            CassetteError::Generic(e) => e.offset(),
            CassetteError::Rule(_) => None,
        };
        offset.map(|o| Position::locate(bytes, o))
    }
}

/// A content-addressed cassette's name under the current key rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyed {
    /// The file name the harness would look up.
    pub name: String,
    /// Whether the key rules change the stored key material.
    pub key_changed: bool,
}

/// Names a content-addressed cassette from its key material (`None` for kinds whose name is
/// not a hash of their contents).
///
/// Only the key material is built; the rest of the file is checked without being built, so
/// a file that is not well-formed throughout is an error here, and never renamed: a name
/// computed from a broken file would make the harness look up something it cannot read.
/// The payload is rewritten only when the key rules change the key material, and by
/// `normalize`.
pub fn key_of(cassette: &Cassette, bytes: &[u8]) -> Result<Option<Keyed>, CassetteError> {
    if !cassette.kind.is_content_addressed() {
        return Ok(None);
    }
    if let Some(spec) = &cassette.dir.spec {
        return generic_key(cassette, spec, bytes).map(Some);
    }
    let mut value = vcr_json::parse_field(bytes, "input")?;
    claude_code::check_input(&value)?;
    let key_changed =
        claude_code::dehydrate_input(&mut value, &cassette.dir.rules, cassette.dir.version)?;
    Ok(Some(Keyed {
        name: claude_code::message_name(claude_code::input(&value)),
        key_changed,
    }))
}

/// A generic cassette's name (JSON: from its key; JSONL: its own, with stale line hashes
/// as a key change that rewrites the file).
fn generic_key(
    cassette: &Cassette,
    spec: &generic::Spec,
    bytes: &[u8],
) -> Result<Keyed, CassetteError> {
    let current = cassette
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(match spec.format() {
        generic::Format::Json => Keyed {
            name: generic::name_for(spec, &vcr_json::parse(bytes)?, &cassette.rel)?,
            key_changed: false,
        },
        generic::Format::Jsonl => Keyed {
            name: current,
            key_changed: generic::rekey_lines(spec, bytes, &cassette.rel)?.changed > 0,
        },
    })
}

/// What `vcr normalize` makes of a checked Claude Code message fixture in `dir`: the
/// writer's mapping under the folder's rules, and its stream events dehydrated when the
/// configuration asks. Returns whether the key material changed.
pub fn normalize_message(
    value: &mut Value<'_>,
    dir: &FixtureDir,
) -> Result<bool, rules::RuleError> {
    let key_changed = claude_code::normalize_message(value, &dir.rules, dir.version)?;
    if dir.dehydrate_stream_events {
        claude_code::dehydrate_stream_events(value, &dir.rules)?;
    }
    Ok(key_changed)
}

/// The `[[cassettes]]` entry of a JSONL log that the commands read line by line (issue 12):
/// `None` for any other cassette, and for every cassette whose read options turn streaming
/// off (`ReadOptions::streaming`: the log is then read whole, as [`generic::check_lines`]
/// and the others take it).
pub fn streamed_log(cassette: &Cassette) -> Option<&generic::Spec> {
    let spec = cassette.dir.spec.as_deref()?;
    (cassette.kind.is_structured()
        && spec.format() == generic::Format::Jsonl
        && cassette.dir.read.streaming)
        .then_some(spec)
}

/// Whether a cassette is in its canonical form under `Mode::Normalize`, found without
/// building the canonical bytes when the kind allows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Where the file first differs from its canonical form; `None` when it is canonical.
    pub difference: Option<usize>,
    /// The file name the harness would look up, for content-addressed kinds.
    pub name: Option<String>,
    /// Whether the file was read in parts (a message fixture): its canonical form can then be
    /// written the same way, without a copy in memory.
    pub streamed: bool,
}

/// [`canonicalize`] with `Mode::Normalize`, compared with `bytes` as it is written: a
/// message fixture is read an `output` item at a time and compared byte for byte, with no
/// copy of its canonical form (issue 12); other kinds are canonicalized and compared.
pub fn check_canonical(cassette: &Cassette, bytes: &[u8]) -> Result<Checked, CassetteError> {
    if cassette.kind == CassetteKind::ClaudeCodeMessage && cassette.dir.read.streaming {
        let mut compare = vcr_json::Compare::new(bytes);
        if let Some(message) = claude_code::stream_message(
            bytes,
            &cassette.dir,
            &mut compare,
            &|_| false,
            &mut |_| {},
        )? {
            return Ok(Checked {
                difference: compare.finish(),
                name: Some(message.name),
                streamed: true,
            });
        }
    }
    let canonical = canonicalize(cassette, bytes, Mode::Normalize)?;
    let difference = (canonical.bytes != bytes).then(|| {
        (bytes.iter().zip(&canonical.bytes))
            .position(|(a, b)| a != b)
            .unwrap_or(bytes.len().min(canonical.bytes.len()))
    });
    Ok(Checked {
        difference,
        name: canonical.name,
        streamed: false,
    })
}

/// Parses, checks and rewrites one cassette (see the module docs).
pub fn canonicalize(
    cassette: &Cassette,
    bytes: &[u8],
    mode: Mode,
) -> Result<Canonical, CassetteError> {
    if cassette.kind == CassetteKind::ClaudeCodeMessage
        && mode == Mode::Normalize
        && cassette.dir.read.streaming
    {
        // An `output` item at a time: the largest item built, not the whole file.
        let mut out = Vec::with_capacity(bytes.len());
        if let Some(message) =
            claude_code::stream_message(bytes, &cassette.dir, &mut out, &|_| false, &mut |_| {})?
        {
            return Ok(Canonical {
                bytes: out,
                key_changed: message.key_changed,
                name: Some(message.name),
            });
        }
    }
    match cassette.kind {
        CassetteKind::DshSession => {
            let canonical = dsh::normalize_session(bytes, &cassette.rel, Some(&cassette.dir.cwd))
                .map_err(|problems| {
                CassetteError::Log(problems.into_iter().next().expect("at least one"))
            })?;
            return Ok(Canonical {
                bytes: canonical,
                key_changed: false,
                name: None,
            });
        }
        CassetteKind::Generic => {
            let spec = cassette
                .dir
                .spec
                .as_deref()
                .expect("generic cassettes carry a spec");
            let (bytes, key_changed) = match (mode, spec.format()) {
                (Mode::Rekey, generic::Format::Jsonl) => {
                    let rekeyed = generic::rekey_lines(spec, bytes, &cassette.rel)?;
                    (rekeyed.bytes, rekeyed.changed > 0)
                }
                (Mode::Rekey, generic::Format::Json) => (bytes.to_vec(), false),
                (Mode::Normalize, _) => (generic::canonical(spec, bytes)?, false),
            };
            let name = match spec.format() {
                generic::Format::Json => Some(generic::name_for(
                    spec,
                    &vcr_json::parse(&bytes)?,
                    &cassette.rel,
                )?),
                generic::Format::Jsonl => None,
            };
            return Ok(Canonical {
                bytes,
                key_changed,
                name,
            });
        }
        // Overrides are hand-written (no formatter defines them); text is not parsed; HTTP
        // cassettes are the recorder's to write.
        CassetteKind::DshOverride | CassetteKind::Text | CassetteKind::Http => {
            return Ok(Canonical {
                bytes: bytes.to_vec(),
                key_changed: false,
                name: None,
            });
        }
        _ => {}
    }
    let mut value = vcr_json::parse(bytes)?;
    match cassette.kind {
        CassetteKind::ClaudeCodeMessage => {
            claude_code::check_message(&value)?;
            let rules = &cassette.dir.rules;
            let version = cassette.dir.version;
            let key_changed = match mode {
                Mode::Normalize => normalize_message(&mut value, &cassette.dir)?,
                Mode::Rekey => claude_code::dehydrate_input(&mut value, rules, version)?,
            };
            Ok(Canonical {
                bytes: vcr_json::to_pretty(&value),
                key_changed,
                name: Some(claude_code::message_name(claude_code::input(&value))),
            })
        }
        CassetteKind::ClaudeCodeTokenCount => {
            claude_code::check_token_count(&value)?;
            Ok(Canonical {
                bytes: vcr_json::to_pretty(&value),
                key_changed: false,
                name: None,
            })
        }
        CassetteKind::DshSession
        | CassetteKind::DshOverride
        | CassetteKind::Generic
        | CassetteKind::Text
        | CassetteKind::Http => unreachable!("handled above"),
    }
}
