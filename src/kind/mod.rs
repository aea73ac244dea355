//! Fixture kinds: how to check, normalize and name each kind of cassette.
//!
//! [`canonicalize`] is the one entry point the commands use: it parses a cassette's bytes,
//! checks the shape of its kind, applies the rules the mode calls for, and returns the bytes
//! the kind's own writer would produce together with the name the harness would look up.

pub mod claude_code;
pub mod dsh;
pub mod generic;

use crate::json::{self, ParseError, Position};
use crate::tree::{Cassette, CassetteKind};

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
    #[error("{0}")]
    Parse(#[from] ParseError),
    /// JSON, but not the shape of its kind.
    #[error("{0}")]
    Schema(#[from] SchemaError),
    /// A line of a JSONL log (the first problem; `vcr verify` reports them all).
    #[error("{}", .0.message)]
    Log(dsh::Problem),
    /// A generic cassette's problem.
    #[error("{0}")]
    Generic(#[from] generic::GenericError),
    /// A user rule was stopped on one of the file's strings (it backtracks too much); the
    /// file is left as it was.
    #[error("{0}")]
    Rule(#[from] crate::rules::RuleError),
}

impl CassetteError {
    /// The finding id of the problem (`parse` or `schema`; `limit` for a rule that was
    /// stopped).
    pub fn id(&self) -> &'static str {
        match self {
            CassetteError::Parse(_) => "parse",
            CassetteError::Schema(_) => "schema",
            CassetteError::Log(problem) => problem.id,
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

/// What reading the start of a cassette told about its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRead {
    /// The bytes end before the key material does: read more.
    NeedMore,
    /// The kind's name is not a hash of its contents.
    NotAddressed,
    /// The name under the current key rules.
    Keyed(Keyed),
}

/// Names a content-addressed cassette from its key material alone, given the first bytes of
/// the file (`complete` when they are all of it). Nothing after the key material is read:
/// that is what makes `rehash` fast. The payload is read, checked and rewritten only when
/// the key rules change the key material, and by `normalize` and `verify`.
pub fn key_from_prefix(
    cassette: &Cassette,
    bytes: &[u8],
    complete: bool,
) -> Result<KeyRead, CassetteError> {
    if !cassette.kind.is_content_addressed() {
        return Ok(KeyRead::NotAddressed);
    }
    if let Some(spec) = &cassette.dir.spec {
        // A generic key may sit anywhere in the file (or on every line): read it all.
        if !complete {
            return Ok(KeyRead::NeedMore);
        }
        return generic_key(cassette, spec, bytes);
    }
    let Some(mut value) = json::parse_until_field(bytes, "input", complete)? else {
        return Ok(KeyRead::NeedMore);
    };
    if !complete && value.as_object().is_some_and(|o| !o.contains_key("input")) {
        return Ok(KeyRead::NeedMore);
    }
    claude_code::check_input(&value)?;
    let key_changed =
        claude_code::dehydrate_input(&mut value, &cassette.dir.rules, cassette.dir.version)?;
    Ok(KeyRead::Keyed(Keyed {
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
) -> Result<KeyRead, CassetteError> {
    let current = cassette
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(KeyRead::Keyed(match spec.format() {
        generic::Format::Json => Keyed {
            name: generic::name_for(spec, &json::parse(bytes)?, &cassette.rel)?,
            key_changed: false,
        },
        generic::Format::Jsonl => Keyed {
            name: current,
            key_changed: generic::rekey_lines(spec, bytes, &cassette.rel)?.changed > 0,
        },
    }))
}

/// Parses, checks and rewrites one cassette (see the module docs).
pub fn canonicalize(
    cassette: &Cassette,
    bytes: &[u8],
    mode: Mode,
) -> Result<Canonical, CassetteError> {
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
                    &json::parse(&bytes)?,
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
        // Overrides are hand-written (no formatter defines them); text is not parsed.
        CassetteKind::DshOverride | CassetteKind::Text => {
            return Ok(Canonical {
                bytes: bytes.to_vec(),
                key_changed: false,
                name: None,
            });
        }
        _ => {}
    }
    let mut value = json::parse(bytes)?;
    match cassette.kind {
        CassetteKind::ClaudeCodeMessage => {
            claude_code::check_message(&value)?;
            let rules = &cassette.dir.rules;
            let version = cassette.dir.version;
            let key_changed = match mode {
                Mode::Normalize => claude_code::normalize_message(&mut value, rules, version)?,
                Mode::Rekey => claude_code::dehydrate_input(&mut value, rules, version)?,
            };
            Ok(Canonical {
                bytes: json::to_pretty(&value),
                key_changed,
                name: Some(claude_code::message_name(claude_code::input(&value))),
            })
        }
        CassetteKind::ClaudeCodeTokenCount => {
            claude_code::check_token_count(&value)?;
            Ok(Canonical {
                bytes: json::to_pretty(&value),
                key_changed: false,
                name: None,
            })
        }
        CassetteKind::DshSession
        | CassetteKind::DshOverride
        | CassetteKind::Generic
        | CassetteKind::Text => unreachable!("handled above"),
    }
}
