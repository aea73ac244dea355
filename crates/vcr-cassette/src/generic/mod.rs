//! Generic hashed cassettes: JSON files named by a hash of their key material, and JSONL logs
//! whose lines carry a hash of their own material, declared in `vcr.toml` as `[[cassettes]]`.
//!
//! Home-grown record/replay harnesses all follow one recipe with their own details: take some
//! part of the recorded request, serialize it one way or another, hash it, truncate the hex
//! digest, and use it as (part of) the file name or store it beside the request. A
//! [`CassetteConfig`] states those details; [`compile`] checks them once and returns a
//! [`Spec`], and the pure functions of this module do the rest: compute the hash a harness
//! would compute ([`expected_hash`]), read and build file names ([`parse_name`],
//! [`expected_name`], [`name_for`]), check and re-key the hashes stored in JSONL lines
//! ([`check_lines`], [`rekey_lines`]; a line at a time, for logs read line by line:
//! [`Line::record`], [`check_line`], [`rekey_line`], [`render_line_into`]), and write a
//! cassette the way the harness writes it ([`canonical`], [`render`]). Nothing here walks a
//! tree, reads a file or prints.
//!
//! # Key material
//!
//! `key` is a JSON pointer (RFC 6901): the value it points at is serialized and hashed.
//! `key-template` builds a string instead, for harnesses that hash something like
//! `f"{path}:{method}:{json.dumps(body, sort_keys=True)}"`. In a template, `{{` and `}}` are
//! literal braces and a placeholder is a source followed by filters, `{source|filter|...}`:
//!
//! | source | value |
//! |---|---|
//! | `{/a/b}` | the value at the pointer: a string is inserted as it is, anything else serialized |
//! | `{name.N}` | the `N`-th (from 0) `_`-separated segment of the file name without its extension |
//! | `{dir}` | the name of the folder holding the file |
//!
//! | filter | effect |
//! |---|---|
//! | `url-path` | the path of a URL, without its leading `/` (`https://h/v1/x?q` gives `v1/x`) |
//! | `url-path-query` | the same followed by `?` and the query when there is one (`v1/x?q`) |
//! | `strip-prefix:TEXT` | removes `TEXT` from the start of the string when it is there |
//! | `json` | parses the string as JSON and serializes the result (last filter only); the empty string stands for `{}` and a string that is not JSON for itself, as in `json.loads(body) if body else {}` with a fallback to the raw body; a value that is not a string is serialized as it is |
//!
//! # Serialization
//!
//! - `js`: `JSON.stringify(value)` ([`vcr_json::to_compact`]).
//! - `sorted`: the same with the keys of every object in ascending UTF-16 code-unit order, as
//!   `json-stable-stringify` writes them (index-like keys are not moved first).
//! - `python`: `json.dumps(value, sort_keys=True)` of what `json.loads` made of the text:
//!   `", "` and `": "` separators, non-ASCII as `\uXXXX` (surrogate pairs above U+FFFF),
//!   integers as written, other numbers as Python's `repr(float)` (`1.0`, `1e-07`, `1e+16`),
//!   keys sorted by code point.
//!
//! # Writing
//!
//! `write = "keep"` (the default) leaves the bytes alone. `pretty` and `compact` rewrite a
//! cassette with the writer `style` names: `js` (`JSON.stringify(v, null, 2)` /
//! `JSON.stringify(v)`) or `python` (`json.dumps(v, indent=2)` / `json.dumps(v)`, both with
//! `ensure_ascii`); the style defaults to `python` when the serialization is `python`. JSONL
//! is always one compact record per line, each ending in `\n`.
//!
//! # Limits
//!
//! Values are read with `JSON.parse` semantics, so the Python writer sees objects in
//! JavaScript's key order: an object with array-index keys (`"10"`, `"2"`) is written with
//! those keys first, where Python keeps them where they were (hashing is not affected:
//! `python` sorts keys). A `|json` body only Python accepts (`NaN`, `Infinity`) is hashed as
//! a string. Hashes are lowercase hex.

use crate::finding_id::FindingId;
use std::fmt;

use serde::Deserialize;

mod key;
mod lines;
mod write;

pub use key::{
    NameParts, digest_hex, expected_hash, expected_name, key_material, name_for, parse_name,
};
pub use lines::{
    Line, LineCheck, Rekeyed, check_line, check_lines, line_recorded_errors, lines, parse_line,
    recorded_errors, rekey_line, rekey_lines, set_line_hash,
};
pub use write::{canonical, render, render_line, render_line_into, serialize};

// ------------------------------------------------------------------------------------------
// Configuration
// ------------------------------------------------------------------------------------------

/// One `[[cassettes]]` entry of `vcr.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CassetteConfig {
    /// The cassettes this entry covers: a glob relative to the project root (`*` stays
    /// within a folder, `**` crosses folders).
    pub glob: String,
    /// `json` (one document per file, named by its hash) or `jsonl` (one record per line,
    /// each holding its own hash).
    pub format: Format,
    /// A JSON pointer to the key material (`/request`), serialized with `serialization`.
    /// Exactly one of `key` and `key-template` is given.
    pub key: Option<String>,
    /// A template that builds the key material (see the module docs), e.g.
    /// `{dir}/{/request/url|url-path-query}:{/request/method}:{/request/body|json}`.
    pub key_template: Option<String>,
    /// How JSON values in the key material are serialized: `js` (default), `sorted` or
    /// `python`.
    pub serialization: Option<Serialization>,
    /// The hash function: `sha1` or `sha256`.
    pub digest: Algorithm,
    /// How many hex digits of the digest are used (1 to 40 for sha1, 1 to 64 for sha256).
    /// Without it, the length `{hash:N}` gives in `name`, else the whole digest.
    pub hex_length: Option<usize>,
    /// For `json`: the file name template, e.g. `{stem}_{hash}.json`. `{hash}` (or
    /// `{hash:N}`) is the truncated hex digest; `{stem}`, optional, is any text, kept from the
    /// current name when a cassette is renamed.
    pub name: Option<String>,
    /// For `jsonl`: a JSON pointer, within each line, to the stored hash (`/request_hash`).
    pub hash_field: Option<String>,
    /// What `normalize` writes: `keep` (default: the bytes are left alone), `pretty` or
    /// `compact`.
    pub write: Option<WriteMode>,
    /// Whose JSON writer `pretty` and `compact` reproduce: `js` or `python`. Defaults to
    /// `python` when the serialization is `python`, else `js`.
    pub style: Option<Style>,
    /// For `json` with `pretty` or `compact`: end the file with a newline (default false,
    /// as both `JSON.stringify` and `json.dump` write none).
    pub trailing_newline: Option<bool>,
}

/// How a cassette file holds its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// One JSON document; the file name carries the hash.
    Json,
    /// One JSON object per line; each line carries its hash in a field.
    Jsonl,
}

/// How JSON values become key material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Serialization {
    /// `JSON.stringify(value)`.
    Js,
    /// `JSON.stringify` with object keys sorted by UTF-16 code units (`json-stable-stringify`).
    Sorted,
    /// Python's `json.dumps(value, sort_keys=True)`.
    Python,
}

/// The hash function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// SHA-1 (40 hex digits).
    Sha1,
    /// SHA-256 (64 hex digits).
    Sha256,
}

impl Algorithm {
    /// The number of hex digits of a whole digest.
    pub fn hex_digits(self) -> usize {
        match self {
            Algorithm::Sha1 => 40,
            Algorithm::Sha256 => 64,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Algorithm::Sha1 => "sha1",
            Algorithm::Sha256 => "sha256",
        }
    }
}

/// What `normalize` does to a cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteMode {
    /// Leave the bytes as they are.
    #[default]
    Keep,
    /// Indented with two spaces (JSON only).
    Pretty,
    /// Compact (for JSONL, one record per line).
    Compact,
}

/// Whose JSON writer to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// `JSON.stringify`.
    Js,
    /// Python's `json.dumps` with its defaults (`ensure_ascii`, `", "` and `": "`).
    Python,
}

// ------------------------------------------------------------------------------------------
// Compiled entries
// ------------------------------------------------------------------------------------------

/// A checked `[[cassettes]]` entry, ready to use.
#[derive(Debug, Clone)]
pub struct Spec {
    matcher: globset::GlobMatcher,
    format: Format,
    key: Key,
    serialization: Serialization,
    algorithm: Algorithm,
    hex_length: usize,
    name: Option<NameTemplate>,
    hash_field: Option<Pointer>,
    write: WriteMode,
    style: Style,
    trailing_newline: bool,
}

#[derive(Debug, Clone)]
enum Key {
    Pointer(Pointer),
    Template(Vec<Part>),
}

/// A JSON pointer: its text as configured (escaped) and its reference tokens (unescaped).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pointer {
    text: String,
    tokens: Vec<String>,
}

#[derive(Debug, Clone)]
enum Part {
    Literal(String),
    Placeholder {
        source: Source,
        filters: Vec<Filter>,
    },
}

#[derive(Debug, Clone)]
enum Source {
    Pointer(Pointer),
    NameSegment(usize),
    Dir,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Filter {
    Json,
    UrlPath,
    UrlPathQuery,
    StripPrefix(String),
}

#[derive(Debug, Clone)]
struct NameTemplate {
    text: String,
    parts: Vec<NamePart>,
    regex: regex::Regex,
    has_stem: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum NamePart {
    Literal(String),
    Stem,
    Hash,
}

/// A `[[cassettes]]` entry that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{entry}: `{key}` {message}")]
pub struct SpecError {
    /// Which entry: `[[cassettes]] entry 2 (glob `x/*.json`)`.
    pub entry: String,
    /// The offending key (`hex-length`).
    pub key: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl Spec {
    /// Whether the entry covers a cassette, given its path relative to the project root with
    /// `/` separators.
    pub fn matches(&self, rel_path: &str) -> bool {
        self.matcher.is_match(rel_path)
    }

    /// The glob as configured.
    pub fn glob(&self) -> &str {
        self.matcher.glob().glob()
    }

    /// JSON or JSONL.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether `normalize` rewrites the cassette with a writer (`write` is not `keep`).
    pub fn rewrites(&self) -> bool {
        self.write != WriteMode::Keep
    }

    /// How many hex digits of the digest are used.
    pub fn hex_length(&self) -> usize {
        self.hex_length
    }

    /// The pointers the key material is read from (for JSONL, within a line).
    pub fn key_pointers(&self) -> Vec<&str> {
        match &self.key {
            Key::Pointer(p) => vec![p.text.as_str()],
            Key::Template(parts) => parts
                .iter()
                .filter_map(|part| match part {
                    Part::Placeholder {
                        source: Source::Pointer(p),
                        ..
                    } => Some(p.text.as_str()),
                    _ => None,
                })
                .collect(),
        }
    }

    /// Whether the value at `pointer` (escaped as RFC 6901 writes it; for JSONL, within a
    /// line) is part of the key material: the pointer is a key pointer or lies below one.
    pub fn is_key_pointer(&self, pointer: &str) -> bool {
        self.key_pointers()
            .iter()
            .any(|key| is_within(pointer, key))
    }
}

/// Whether `pointer` is `ancestor` or lies below it.
fn is_within(pointer: &str, ancestor: &str) -> bool {
    pointer
        .strip_prefix(ancestor)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Checks a `[[cassettes]]` entry; errors name the entry by its glob.
pub fn compile(config: &CassetteConfig) -> Result<Spec, SpecError> {
    compile_entry(
        config,
        format!("`[[cassettes]]` entry `{}`", short(&config.glob)),
    )
}

/// A glob as errors quote it: whole, or its start when it is too long to read.
fn short(glob: &str) -> String {
    match glob.char_indices().nth(80) {
        Some((end, _)) => format!("{}...", &glob[..end]),
        None => glob.to_owned(),
    }
}

/// Checks every `[[cassettes]]` entry; errors name the entry by its position (from 1) and
/// glob.
pub fn compile_all(configs: &[CassetteConfig]) -> Result<Vec<Spec>, SpecError> {
    configs
        .iter()
        .enumerate()
        .map(|(i, config)| {
            compile_entry(
                config,
                format!(
                    "`[[cassettes]]` entry {} (`{}`)",
                    i + 1,
                    short(&config.glob)
                ),
            )
        })
        .collect()
}

/// Builds the errors of one entry.
struct Entry<'c> {
    config: &'c CassetteConfig,
    label: String,
}

impl Entry<'_> {
    fn err(&self, key: &'static str, message: impl Into<String>) -> SpecError {
        SpecError {
            entry: self.label.clone(),
            key,
            message: message.into(),
        }
    }
}

/// The longest glob compiled, in bytes: the longest path Linux opens. (`globset` panics when
/// a glob's automaton outgrows its size limit, which a glob of a few hundred kilobytes does.)
const MAX_GLOB_LEN: usize = 4096;

fn compile_entry(config: &CassetteConfig, label: String) -> Result<Spec, SpecError> {
    let entry = Entry { config, label };
    if config.glob.is_empty() {
        return Err(entry.err("glob", "is empty"));
    }
    if config.glob.len() > MAX_GLOB_LEN {
        return Err(entry.err(
            "glob",
            format!(
                "is {} bytes long; vcr compiles globs of at most {MAX_GLOB_LEN} bytes",
                config.glob.len()
            ),
        ));
    }
    let matcher = globset::GlobBuilder::new(&config.glob)
        .literal_separator(true)
        .build()
        .map_err(|e| entry.err("glob", format!("is not a valid glob: {}", e.kind())))?
        .compile_matcher();
    let serialization = config.serialization.unwrap_or(Serialization::Js);
    let key = compile_key(&entry)?;
    let (name, hex_length) = compile_name(&entry)?;
    let spec = Spec {
        matcher,
        format: config.format,
        key,
        serialization,
        algorithm: config.digest,
        hex_length,
        name,
        hash_field: compile_hash_field(&entry)?,
        write: config.write.unwrap_or_default(),
        style: config.style.unwrap_or(match serialization {
            Serialization::Python => Style::Python,
            Serialization::Js | Serialization::Sorted => Style::Js,
        }),
        trailing_newline: config.trailing_newline.unwrap_or(false),
    };
    check_hash_not_in_key(&entry, &spec)?;
    check_writer(&entry, &spec)?;
    Ok(spec)
}

fn compile_key(entry: &Entry<'_>) -> Result<Key, SpecError> {
    match (&entry.config.key, &entry.config.key_template) {
        (Some(_), Some(_)) => Err(entry.err("key", "and `key-template` are both given: use one")),
        (None, None) => Err(entry.err(
            "key",
            "is missing: give a JSON pointer in `key` or a template in `key-template`",
        )),
        (Some(pointer), None) => Pointer::parse(pointer)
            .map(Key::Pointer)
            .map_err(|m| entry.err("key", format!("`{pointer}` {m}"))),
        (None, Some(template)) => parse_template(template)
            .map(Key::Template)
            .map_err(|m| entry.err("key-template", format!("`{template}` {m}"))),
    }
}

/// The name template (JSON only) and the hex length, from `hex-length` or `{hash:N}`.
fn compile_name(entry: &Entry<'_>) -> Result<(Option<NameTemplate>, usize), SpecError> {
    let config = entry.config;
    let parsed = match (config.format, &config.name) {
        (Format::Json, None) => {
            return Err(entry.err(
                "name",
                "is missing: a `json` cassette is named by a template such as `{stem}_{hash}.json`",
            ));
        }
        (Format::Jsonl, Some(_)) => {
            return Err(entry.err(
                "name",
                "is not used with `format = \"jsonl\"`: the hashes are stored in `hash-field`",
            ));
        }
        (Format::Json, Some(text)) if text.len() > crate::model::MAX_NAME_BYTES => {
            return Err(entry.err(
                "name",
                format!(
                    "is {} bytes long; a file name has at most {}",
                    text.len(),
                    crate::model::MAX_NAME_BYTES
                ),
            ));
        }
        (Format::Json, Some(text)) => Some(
            parse_name_template(text).map_err(|m| entry.err("name", format!("`{text}` {m}")))?,
        ),
        (Format::Jsonl, None) => None,
    };
    let max = config.digest.hex_digits();
    let hex_length = match (config.hex_length, parsed.as_ref().and_then(|p| p.1)) {
        (Some(a), Some(b)) if a != b => {
            return Err(entry.err(
                "hex-length",
                format!("is {a} but `name` says `{{hash:{b}}}`"),
            ));
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => max,
    };
    if !(1..=max).contains(&hex_length) {
        let key = if config.hex_length.is_some() {
            "hex-length"
        } else {
            "name"
        };
        return Err(entry.err(
            key,
            format!(
                "gives {hex_length} hex digits; {} has 1 to {max}",
                config.digest.name()
            ),
        ));
    }
    let template = parsed.map(|(parts, _)| {
        NameTemplate::new(config.name.clone().unwrap_or_default(), parts, hex_length)
    });
    Ok((template, hex_length))
}

fn compile_hash_field(entry: &Entry<'_>) -> Result<Option<Pointer>, SpecError> {
    match (entry.config.format, &entry.config.hash_field) {
        (Format::Json, None) => Ok(None),
        (Format::Json, Some(_)) => Err(entry.err(
            "hash-field",
            "is only used with `format = \"jsonl\"`: a `json` cassette's hash is in its name",
        )),
        (Format::Jsonl, None) => Err(entry.err(
            "hash-field",
            "is missing: a `jsonl` cassette stores each line's hash in a field such as `/request_hash`",
        )),
        (Format::Jsonl, Some(text)) => {
            let pointer = Pointer::parse(text)
                .map_err(|m| entry.err("hash-field", format!("`{text}` {m}")))?;
            if pointer.tokens.is_empty() {
                return Err(entry.err(
                    "hash-field",
                    "cannot be the whole line: point at the field holding the hash",
                ));
            }
            Ok(Some(pointer))
        }
    }
}

/// A line's hash cannot be part of what it is the hash of.
fn check_hash_not_in_key(entry: &Entry<'_>, spec: &Spec) -> Result<(), SpecError> {
    let Some(field) = &spec.hash_field else {
        return Ok(());
    };
    let key_name = match spec.key {
        Key::Pointer(_) => "key",
        Key::Template(_) => "key-template",
    };
    match spec
        .key_pointers()
        .into_iter()
        .find(|key| is_within(&field.text, key))
    {
        Some(key) => Err(entry.err(
            key_name,
            format!(
                "reads `{key}`, which holds the hash field `{}`: a hash cannot cover itself",
                field.text
            ),
        )),
        None => Ok(()),
    }
}

/// `write` and `trailing-newline` must mean something for the format.
fn check_writer(entry: &Entry<'_>, spec: &Spec) -> Result<(), SpecError> {
    if spec.format == Format::Jsonl && spec.write == WriteMode::Pretty {
        return Err(entry.err(
            "write",
            "cannot be `pretty` for `jsonl`: a record is one line (use `compact` or `keep`)",
        ));
    }
    if entry.config.trailing_newline.is_some() {
        if spec.format == Format::Jsonl {
            return Err(entry.err(
                "trailing-newline",
                "is not used with `jsonl`: every record ends with a newline",
            ));
        }
        if spec.write == WriteMode::Keep {
            return Err(entry.err(
                "trailing-newline",
                "has no effect with `write = \"keep\"`: set `write` to `pretty` or `compact`",
            ));
        }
    }
    Ok(())
}

impl Pointer {
    /// Parses an RFC 6901 pointer: empty (the whole value) or `/`-separated tokens where `~0`
    /// is `~` and `~1` is `/`.
    fn parse(text: &str) -> Result<Pointer, String> {
        if text.is_empty() {
            return Ok(Pointer {
                text: String::new(),
                tokens: Vec::new(),
            });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err("is not a JSON pointer: it must start with `/`".into());
        };
        let mut tokens = Vec::new();
        for raw in rest.split('/') {
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c != '~' {
                    token.push(c);
                    continue;
                }
                match chars.next() {
                    Some('0') => token.push('~'),
                    Some('1') => token.push('/'),
                    _ => {
                        return Err(
                            "is not a JSON pointer: `~` must be followed by `0` or `1`".into()
                        );
                    }
                }
            }
            tokens.push(token);
        }
        Ok(Pointer {
            text: text.to_owned(),
            tokens,
        })
    }
}

/// Splits a template into literal text and `{...}` placeholders (`{{`, `}}` are braces).
fn split_template(text: &str) -> Result<Vec<Result<String, String>>, String> {
    let mut out: Vec<Result<String, String>> = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '}' => return Err("has a `}` without a `{` (write `}}` for a brace)".into()),
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some('{') => {
                            return Err("has a `{` inside a placeholder".into());
                        }
                        Some(c) => inner.push(c),
                        None => return Err("has a `{` that is never closed".into()),
                    }
                }
                if !literal.is_empty() {
                    out.push(Ok(std::mem::take(&mut literal)));
                }
                out.push(Err(inner));
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        out.push(Ok(literal));
    }
    Ok(out)
}

fn parse_template(text: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    for piece in split_template(text)? {
        let inner = match piece {
            Ok(literal) => {
                parts.push(Part::Literal(literal));
                continue;
            }
            Err(inner) => inner,
        };
        let mut fields = inner.split('|');
        let head = fields.next().unwrap_or_default();
        let source = if head.starts_with('/') {
            Source::Pointer(
                Pointer::parse(head)
                    .map_err(|m| format!("placeholder `{{{inner}}}`: `{head}` {m}"))?,
            )
        } else if head == "dir" {
            Source::Dir
        } else if let Some(n) = head.strip_prefix("name.") {
            Source::NameSegment(n.parse().map_err(|_| {
                format!("placeholder `{{{inner}}}`: `name.` must be followed by a segment number")
            })?)
        } else {
            return Err(format!(
                "has an unknown placeholder `{{{inner}}}`: expected `{{/json/pointer}}`, `{{name.N}}` or `{{dir}}`"
            ));
        };
        let mut filters = Vec::new();
        for f in fields {
            if filters.last() == Some(&Filter::Json) {
                return Err(format!(
                    "placeholder `{{{inner}}}`: `json` must be the last filter"
                ));
            }
            filters.push(match f {
                "json" => Filter::Json,
                "url-path" => Filter::UrlPath,
                "url-path-query" => Filter::UrlPathQuery,
                _ => match f.strip_prefix("strip-prefix:") {
                    Some(prefix) => Filter::StripPrefix(prefix.to_owned()),
                    None => {
                        return Err(format!(
                            "placeholder `{{{inner}}}`: unknown filter `{f}` (expected `json`, `url-path`, `url-path-query` or `strip-prefix:TEXT`)"
                        ));
                    }
                },
            });
        }
        parts.push(Part::Placeholder { source, filters });
    }
    if !parts.iter().any(|p| matches!(p, Part::Placeholder { .. })) {
        return Err("has no placeholder: every cassette would get the same hash".into());
    }
    Ok(parts)
}

/// Parses a name template; returns its parts and the length `{hash:N}` gives, if any.
fn parse_name_template(text: &str) -> Result<(Vec<NamePart>, Option<usize>), String> {
    if text.contains('/') || text.contains('\\') {
        return Err("is a file name: it cannot contain `/` or `\\`".into());
    }
    let mut parts = Vec::new();
    let mut length = None;
    for piece in split_template(text)? {
        match piece {
            Ok(literal) => parts.push(NamePart::Literal(literal)),
            Err(inner) if inner == "stem" => {
                if parts.contains(&NamePart::Stem) {
                    return Err("has `{stem}` twice".into());
                }
                if parts.last() == Some(&NamePart::Hash) {
                    return Err("has `{stem}` right after `{hash}`: put text between them".into());
                }
                parts.push(NamePart::Stem);
            }
            Err(inner) if inner == "hash" || inner.starts_with("hash:") => {
                if parts.contains(&NamePart::Hash) {
                    return Err("has `{hash}` twice".into());
                }
                if let Some(n) = inner.strip_prefix("hash:") {
                    length = Some(n.parse().map_err(|_| {
                        format!("has `{{{inner}}}`: the length after `hash:` must be a number")
                    })?);
                }
                parts.push(NamePart::Hash);
            }
            Err(inner) => {
                return Err(format!(
                    "has an unknown placeholder `{{{inner}}}`: expected `{{stem}}` or `{{hash}}`"
                ));
            }
        }
    }
    if !parts.contains(&NamePart::Hash) {
        return Err("has no `{hash}`".into());
    }
    Ok((parts, length))
}

impl NameTemplate {
    fn new(text: String, parts: Vec<NamePart>, hex_length: usize) -> NameTemplate {
        let mut pattern = String::from("^");
        for part in &parts {
            match part {
                NamePart::Literal(l) => pattern.push_str(&regex::escape(l)),
                NamePart::Stem => pattern.push_str("(?P<stem>.*)"),
                NamePart::Hash => pattern.push_str(&format!("(?P<hash>[0-9a-f]{{{hex_length}}})")),
            }
        }
        pattern.push('$');
        let regex = regex::Regex::new(&pattern).expect("escaped literals and fixed groups compile");
        NameTemplate {
            has_stem: parts.contains(&NamePart::Stem),
            text,
            parts,
            regex,
        }
    }
}

// ------------------------------------------------------------------------------------------
// Errors about one cassette
// ------------------------------------------------------------------------------------------

/// Why a cassette cannot be checked; every variant knows where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GenericError {
    /// Not JSON (or a JSONL line that is not); the offset is in the whole file.
    #[error("{0}")]
    Parse(vcr_json::ParseError),
    /// JSON, but the key material or the hash field cannot be read.
    #[error("`{pointer}` {problem}")]
    Schema {
        /// The pointer that cannot be followed (for JSONL, within the line).
        pointer: String,
        /// What is wrong.
        problem: String,
        /// Byte offset in the file of the closest value, when known.
        offset: Option<usize>,
    },
    /// The file name does not fit the entry: it does not follow the name template, or a
    /// `{name.N}` or `{dir}` placeholder has nothing to read.
    #[error("the file name `{name}` {problem}")]
    Name {
        /// The file name.
        name: String,
        /// What is wrong.
        problem: String,
    },
}

impl GenericError {
    /// The finding it is: `parse`, `schema`, or `name/stale` for a name that does not
    /// follow the template.
    pub fn finding_id(&self) -> FindingId {
        match self {
            GenericError::Parse(_) => FindingId::Parse,
            GenericError::Schema { .. } => FindingId::Schema,
            GenericError::Name { .. } => FindingId::NameStale,
        }
    }

    /// The finding id as text.
    pub fn id(&self) -> &'static str {
        self.finding_id().as_str()
    }

    /// The byte offset of the problem in the file, when known.
    pub fn offset(&self) -> Option<usize> {
        match self {
            GenericError::Parse(e) => Some(e.offset),
            GenericError::Schema { offset, .. } => *offset,
            GenericError::Name { .. } => None,
        }
    }

    /// The line and column of the problem in `bytes`, when known.
    pub fn position(&self, bytes: &[u8]) -> Option<vcr_json::Position> {
        self.offset().map(|o| vcr_json::Position::locate(bytes, o))
    }

    /// Places an error found in a JSONL line (which starts at byte `by`) in the file; an
    /// unknown offset becomes the start of the line.
    fn shifted(self, by: usize) -> GenericError {
        match self {
            GenericError::Parse(mut e) => {
                e.offset += by;
                GenericError::Parse(e)
            }
            GenericError::Schema {
                pointer,
                problem,
                offset,
            } => GenericError::Schema {
                pointer,
                problem,
                offset: Some(offset.map_or(by, |o| o + by)),
            },
            other => other,
        }
    }
}

fn schema(pointer: &Pointer, problem: impl Into<String>, offset: Option<usize>) -> GenericError {
    GenericError::Schema {
        pointer: pointer.text.clone(),
        problem: problem.into(),
        offset,
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Json => "json",
            Format::Jsonl => "jsonl",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn config(format: Format) -> CassetteConfig {
        CassetteConfig {
            glob: "fixtures/*.json".into(),
            format,
            key: Some("/request".into()),
            key_template: None,
            serialization: None,
            digest: Algorithm::Sha256,
            hex_length: None,
            name: (format == Format::Json).then(|| "{stem}_{hash:8}.json".into()),
            hash_field: (format == Format::Jsonl).then(|| "/request_hash".into()),
            write: None,
            style: None,
            trailing_newline: None,
        }
    }

    #[track_caller]
    fn rejects(edit: impl FnOnce(&mut CassetteConfig), key: &str, needle: &str) {
        let mut c = config(Format::Json);
        edit(&mut c);
        let err = compile(&c).unwrap_err();
        assert_eq!(err.key, key, "{err}");
        let text = err.to_string();
        assert!(text.contains(needle), "{text}");
        assert!(text.contains(&format!("`{}`", c.glob)), "{text}");
    }

    #[test]
    fn bad_entries_name_the_entry_and_the_key() {
        rejects(|c| c.glob = "a/[b".into(), "glob", "not a valid glob");
        // Issue 11: a glob of 600 KB made globset panic.
        let long = "*a".repeat(300_000);
        let mut c = config(Format::Json);
        c.glob = long;
        let err = compile(&c).unwrap_err();
        assert_eq!(err.key, "glob");
        assert!(
            err.to_string()
                .ends_with("is 600000 bytes long; vcr compiles globs of at most 4096 bytes"),
            "{err}"
        );
        assert!(err.to_string().len() < 300, "{err}");
        rejects(
            |c| c.name = Some(format!("{{hash}}{}.json", "x".repeat(300))),
            "name",
            "a file name has at most 255",
        );
        rejects(
            |c| c.key = Some("request".into()),
            "key",
            "must start with `/`",
        );
        rejects(
            |c| c.key = Some("/a~2".into()),
            "key",
            "`~` must be followed",
        );
        rejects(|c| c.key = None, "key", "is missing");
        rejects(
            |c| c.key_template = Some("{/a}".into()),
            "key",
            "both given",
        );
        rejects(
            |c| {
                c.key = None;
                c.key_template = Some("{/a|yaml}".into());
            },
            "key-template",
            "unknown filter `yaml`",
        );
        rejects(
            |c| {
                c.key = None;
                c.key_template = Some("{/a|json|url-path}".into());
            },
            "key-template",
            "`json` must be the last filter",
        );
        rejects(
            |c| {
                c.key = None;
                c.key_template = Some("{host}".into());
            },
            "key-template",
            "unknown placeholder `{host}`",
        );
        rejects(
            |c| {
                c.key = None;
                c.key_template = Some("{/a".into());
            },
            "key-template",
            "never closed",
        );
        rejects(
            |c| {
                c.key = None;
                c.key_template = Some("plain".into());
            },
            "key-template",
            "no placeholder",
        );
        rejects(
            |c| c.name = Some("{stem}.json".into()),
            "name",
            "no `{hash}`",
        );
        rejects(
            |c| c.name = Some("x/{hash}".into()),
            "name",
            "cannot contain",
        );
        rejects(|c| c.name = Some("{hash}{hsah}".into()), "name", "`{hsah}`");
        rejects(|c| c.name = None, "name", "is missing");
        rejects(|c| c.hex_length = Some(9), "hex-length", "`{hash:8}`");
        rejects(
            |c| {
                c.name = Some("{hash}.json".into());
                c.hex_length = Some(65);
            },
            "hex-length",
            "sha256 has 1 to 64",
        );
        rejects(
            |c| {
                c.digest = Algorithm::Sha1;
                c.name = Some("{hash:41}.json".into());
            },
            "name",
            "sha1 has 1 to 40",
        );
        rejects(
            |c| c.name = Some("{hash:0}.json".into()),
            "name",
            "gives 0 hex digits",
        );
        rejects(
            |c| c.hash_field = Some("/h".into()),
            "hash-field",
            "only used with",
        );
        rejects(
            |c| c.trailing_newline = Some(true),
            "trailing-newline",
            "no effect",
        );
    }

    #[test]
    fn jsonl_entries_are_checked() {
        let mut c = config(Format::Jsonl);
        c.hash_field = Some("/request/hash".into());
        let err = compile(&c).unwrap_err();
        assert_eq!(err.key, "key");
        assert!(err.to_string().contains("cannot cover itself"), "{err}");
        let mut c = config(Format::Jsonl);
        c.name = Some("{hash}.jsonl".into());
        assert_eq!(compile(&c).unwrap_err().key, "name");
        let mut c = config(Format::Jsonl);
        c.hash_field = None;
        assert_eq!(compile(&c).unwrap_err().key, "hash-field");
        let mut c = config(Format::Jsonl);
        c.write = Some(WriteMode::Pretty);
        assert_eq!(compile(&c).unwrap_err().key, "write");
        let spec = compile(&config(Format::Jsonl)).unwrap();
        assert_eq!(spec.hex_length(), 64);
        let err = compile_all(&[config(Format::Json), c]).unwrap_err();
        assert!(
            err.to_string().starts_with("`[[cassettes]]` entry 2 ("),
            "{err}"
        );
    }

    #[test]
    fn toml_names_unknown_keys_and_values() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct File {
            cassettes: Vec<CassetteConfig>,
        }
        let base = "[[cassettes]]\nglob = \"a/*.json\"\nformat = \"json\"\nkey = \"/r\"\nname = \"{hash}.json\"\n";
        let err = toml::from_str::<File>(&format!("{base}digest = \"md5\"\n")).unwrap_err();
        assert!(err.to_string().contains("unknown variant `md5`"), "{err}");
        let err = toml::from_str::<File>(&format!("{base}digest = \"sha1\"\nhex-lenght = 6\n"))
            .unwrap_err();
        assert!(
            err.to_string().contains("unknown field `hex-lenght`"),
            "{err}"
        );
        let file: File =
            toml::from_str(&format!("{base}digest = \"sha1\"\nhex-length = 6\n")).unwrap();
        assert_eq!(file.cassettes[0].hex_length, Some(6));
    }

    #[test]
    fn key_pointers_cover_their_subtrees() {
        let mut c = config(Format::Json);
        c.key = None;
        c.key_template = Some("{/request/url|url-path}:{/request/body|json}".into());
        let spec = compile(&c).unwrap();
        assert!(spec.is_key_pointer("/request/url"));
        assert!(spec.is_key_pointer("/request/body"));
        assert!(!spec.is_key_pointer("/request/bodyx"));
        assert!(!spec.is_key_pointer("/request/headers/x"));
        assert!(!spec.is_key_pointer("/response"));
        let spec = compile(&config(Format::Json)).unwrap();
        assert!(spec.is_key_pointer("/request/headers/x"));
    }
}
