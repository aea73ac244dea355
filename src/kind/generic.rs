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
//! - `js`: `JSON.stringify(value)` ([`json::to_compact`]).
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

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use sha1::{Digest as _, Sha1};
use sha2::Sha256;

use crate::json::{self, LONE_SURROGATE_BASE, ParseError, Position, Str, Value};
use crate::kind::api_error::{self, RecordedError};
use crate::kind::claude_code::hex_prefix;
use crate::kind::jsonl;

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
        (Format::Json, Some(text)) if text.len() > crate::rehash::MAX_NAME_BYTES => {
            return Err(entry.err(
                "name",
                format!(
                    "is {} bytes long; a file name has at most {}",
                    text.len(),
                    crate::rehash::MAX_NAME_BYTES
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
    Parse(ParseError),
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
    /// The finding id: `parse`, `schema`, or `name/stale` for a name that does not follow
    /// the template.
    pub fn id(&self) -> &'static str {
        match self {
            GenericError::Parse(_) => "parse",
            GenericError::Schema { .. } => "schema",
            GenericError::Name { .. } => "name/stale",
        }
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
    pub fn position(&self, bytes: &[u8]) -> Option<Position> {
        self.offset().map(|o| Position::locate(bytes, o))
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

// ------------------------------------------------------------------------------------------
// Key material and hashes
// ------------------------------------------------------------------------------------------

/// Follows a pointer; a missing value is a `schema` error that points at the last value
/// reached.
fn resolve<'v, 'a>(root: &'v Value<'a>, pointer: &Pointer) -> Result<&'v Value<'a>, GenericError> {
    resolve_at(root, pointer).map(|(value, _)| value)
}

/// Follows a pointer; also returns the best known offset of the value: its own, else where
/// its key is written, else its container's (numbers, booleans and `null` have no span).
fn resolve_at<'v, 'a>(
    root: &'v Value<'a>,
    pointer: &Pointer,
) -> Result<(&'v Value<'a>, Option<usize>), GenericError> {
    let mut current = root;
    let mut offset = root.source_offset();
    for token in &pointer.tokens {
        let (next, key_offset) = match current {
            Value::Object(o) => (
                o.get(token),
                o.key_span(token).map(|span| span.start as usize),
            ),
            Value::Array(items) => (
                json::array_index(token).and_then(|i| items.get(usize::try_from(i).ok()?)),
                None,
            ),
            _ => (None, None),
        };
        match next {
            Some(v) => {
                offset = v.source_offset().or(key_offset).or(offset);
                current = v;
            }
            None => return Err(schema(pointer, "is missing", offset)),
        }
    }
    Ok((current, offset))
}

/// Where a cassette sits: the file name and the folder holding it.
struct Location<'p> {
    rel_path: &'p str,
}

impl<'p> Location<'p> {
    fn file_name(&self) -> &'p str {
        self.rel_path
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(self.rel_path)
    }

    fn dir(&self) -> Option<&'p str> {
        let mut parts = self.rel_path.rsplit(['/', '\\']);
        parts.next();
        parts.next().filter(|d| !d.is_empty())
    }

    fn stem(&self) -> &'p str {
        let name = self.file_name();
        match name.rfind('.') {
            Some(i) if i > 0 => &name[..i],
            _ => name,
        }
    }
}

/// A value on its way through a placeholder's filters.
enum Piece<'v, 'a> {
    Value(&'v Value<'a>),
    Text(Cow<'v, str>),
    Bytes(Vec<u8>),
}

/// The key material of a cassette (for JSONL, of one line's value): the bytes that are
/// hashed. `rel_path` is the cassette's path (only its file name and folder are used, by
/// `{name.N}` and `{dir}`).
pub fn key_material(
    spec: &Spec,
    value: &Value<'_>,
    rel_path: &str,
) -> Result<Vec<u8>, GenericError> {
    let location = Location { rel_path };
    let mut out = Vec::new();
    match &spec.key {
        Key::Pointer(pointer) => {
            serialize_into(resolve(value, pointer)?, spec.serialization, &mut out);
        }
        Key::Template(parts) => {
            for part in parts {
                match part {
                    Part::Literal(text) => out.extend_from_slice(text.as_bytes()),
                    Part::Placeholder { source, filters } => {
                        placeholder(spec, value, &location, source, filters, &mut out)?;
                    }
                }
            }
        }
    }
    Ok(out)
}

fn placeholder(
    spec: &Spec,
    value: &Value<'_>,
    location: &Location<'_>,
    source: &Source,
    filters: &[Filter],
    out: &mut Vec<u8>,
) -> Result<(), GenericError> {
    let name_error = |problem: String| GenericError::Name {
        name: location.file_name().to_owned(),
        problem,
    };
    let mut at = None;
    let mut piece = match source {
        Source::Pointer(pointer) => {
            let (value, offset) = resolve_at(value, pointer)?;
            at = offset;
            Piece::Value(value)
        }
        Source::Dir => Piece::Text(Cow::Borrowed(
            location
                .dir()
                .ok_or_else(|| name_error("has no folder for `{dir}`".into()))?,
        )),
        Source::NameSegment(n) => Piece::Text(Cow::Borrowed(
            location.stem().split('_').nth(*n).ok_or_else(|| {
                name_error(format!(
                    "has no `_`-separated segment {n} for `{{name.{n}}}`"
                ))
            })?,
        )),
    };
    for filter in filters {
        piece = match (filter, piece) {
            (Filter::Json, Piece::Value(v)) if v.as_str().is_none() => {
                Piece::Bytes(serialize(v, spec.serialization))
            }
            (Filter::Json, p) => {
                let text = piece_text(&p, source, filter, at)?;
                Piece::Bytes(json_filter(&text, spec.serialization))
            }
            (Filter::UrlPath, p) => {
                let text = piece_text(&p, source, filter, at)?;
                Piece::Text(Cow::Owned(url_path(&text, false).to_owned()))
            }
            (Filter::UrlPathQuery, p) => {
                let text = piece_text(&p, source, filter, at)?;
                Piece::Text(Cow::Owned(url_path_query(&text)))
            }
            (Filter::StripPrefix(prefix), p) => {
                let text = piece_text(&p, source, filter, at)?;
                Piece::Text(Cow::Owned(
                    text.strip_prefix(prefix.as_str())
                        .unwrap_or(&text)
                        .to_owned(),
                ))
            }
        };
    }
    match piece {
        Piece::Value(Value::String(s)) => push_raw(s, out),
        Piece::Value(v) => serialize_into(v, spec.serialization, out),
        Piece::Text(t) => out.extend_from_slice(t.as_bytes()),
        Piece::Bytes(b) => out.extend_from_slice(&b),
    }
    Ok(())
}

/// The text a string filter works on.
fn piece_text<'v>(
    piece: &Piece<'v, '_>,
    source: &Source,
    filter: &Filter,
    at: Option<usize>,
) -> Result<Cow<'v, str>, GenericError> {
    match piece {
        Piece::Value(Value::String(s)) => Ok(Cow::Owned(raw_text(s))),
        Piece::Text(t) => Ok(t.clone()),
        Piece::Value(v) => {
            let Source::Pointer(pointer) = source else {
                unreachable!("only pointers yield JSON values")
            };
            Err(schema(
                pointer,
                format!(
                    "must be a string for the `{}` filter, found {}",
                    filter_name(filter),
                    v.type_name()
                ),
                at,
            ))
        }
        Piece::Bytes(_) => unreachable!("`json` is the last filter"),
    }
}

fn filter_name(filter: &Filter) -> &'static str {
    match filter {
        Filter::Json => "json",
        Filter::UrlPath => "url-path",
        Filter::UrlPathQuery => "url-path-query",
        Filter::StripPrefix(_) => "strip-prefix",
    }
}

/// A string as a harness would hash it raw: lone surrogates become U+FFFD, as UTF-8
/// encoders (node's `hash.update(string)`) make of them.
fn raw_text(s: &Str<'_>) -> String {
    if !s.has_lone_surrogates() {
        return s.as_str().to_owned();
    }
    s.as_str()
        .chars()
        .map(|c| {
            if lone_surrogate(c).is_some() {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

fn push_raw(s: &Str<'_>, out: &mut Vec<u8>) {
    if s.has_lone_surrogates() {
        out.extend_from_slice(raw_text(s).as_bytes());
    } else {
        out.extend_from_slice(s.as_str().as_bytes());
    }
}

/// The UTF-16 unit a stand-in character carries (see [`json::Str`]).
fn lone_surrogate(c: char) -> Option<u16> {
    let cp = c as u32;
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800)
        .contains(&cp)
        .then(|| (cp - LONE_SURROGATE_BASE + 0xD800) as u16)
}

/// The `json` filter: `json.loads(s) if s else {}`, falling back to the string itself.
fn json_filter(text: &str, serialization: Serialization) -> Vec<u8> {
    if text.is_empty() {
        return b"{}".to_vec();
    }
    match json::parse(text.as_bytes()) {
        Ok(parsed) => serialize(&parsed, serialization),
        Err(_) => serialize(&Value::string(text), serialization),
    }
}

/// The part of a URL after `scheme://host`, up to `?` or `#`, without the leading `/`. A
/// text without `://` is taken as a path already.
fn url_path(url: &str, with_query: bool) -> &str {
    let rest = match url.find("://") {
        Some(i) => {
            let after = &url[i + 3..];
            let host_end = after.find(['/', '?', '#']).unwrap_or(after.len());
            &after[host_end..]
        }
        None => url,
    };
    let end = if with_query {
        rest.find('#')
    } else {
        rest.find(['?', '#'])
    }
    .unwrap_or(rest.len());
    let target = &rest[..end];
    target.strip_prefix('/').unwrap_or(target)
}

/// The path and, when not empty, `?` and the query.
fn url_path_query(url: &str) -> String {
    let target = url_path(url, true);
    match target.split_once('?') {
        Some((path, "")) => path.to_owned(),
        _ => target.to_owned(),
    }
}

/// The truncated lowercase hex digest of key material.
pub fn digest_hex(spec: &Spec, material: &[u8]) -> String {
    match spec.algorithm {
        Algorithm::Sha1 => hex_prefix(&Sha1::digest(material), spec.hex_length),
        Algorithm::Sha256 => hex_prefix(&Sha256::digest(material), spec.hex_length),
    }
}

/// The hash the harness computes for a cassette (for JSONL, for one line's value).
pub fn expected_hash(
    spec: &Spec,
    value: &Value<'_>,
    rel_path: &str,
) -> Result<String, GenericError> {
    Ok(digest_hex(spec, &key_material(spec, value, rel_path)?))
}

// ------------------------------------------------------------------------------------------
// Names
// ------------------------------------------------------------------------------------------

/// What a file name holds, read against the name template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameParts {
    /// The text `{stem}` matched (empty when the template has none).
    pub stem: String,
    /// The hash in the name.
    pub hash: String,
}

/// Reads a file name against the entry's name template; `None` when it does not follow it
/// (or the entry is a JSONL one).
pub fn parse_name(spec: &Spec, file_name: &str) -> Option<NameParts> {
    let template = spec.name.as_ref()?;
    let caps = template.regex.captures(file_name)?;
    Some(NameParts {
        stem: caps
            .name("stem")
            .map_or_else(String::new, |m| m.as_str().to_owned()),
        hash: caps.name("hash")?.as_str().to_owned(),
    })
}

/// The file name the template gives for `parts` and a hash (from [`expected_hash`]). For a
/// JSONL entry, which has no name template, the stem is returned.
pub fn expected_name(spec: &Spec, parts: &NameParts, hash: &str) -> String {
    let Some(template) = &spec.name else {
        return parts.stem.clone();
    };
    let mut name = String::new();
    for part in &template.parts {
        match part {
            NamePart::Literal(l) => name.push_str(l),
            NamePart::Stem => name.push_str(&parts.stem),
            NamePart::Hash => name.push_str(hash),
        }
    }
    name
}

/// The file name a JSON cassette should have: its current name (the last component of
/// `rel_path`) read against the template, with the hash of its key material.
pub fn name_for(spec: &Spec, value: &Value<'_>, rel_path: &str) -> Result<String, GenericError> {
    let file_name = Location { rel_path }.file_name();
    let parts = parse_name(spec, file_name).ok_or_else(|| GenericError::Name {
        name: file_name.to_owned(),
        problem: match &spec.name {
            Some(t) => format!(
                "does not follow the template `{}` ({} lowercase hex digits{})",
                t.text,
                spec.hex_length,
                if t.has_stem { " where `{hash}` is" } else { "" }
            ),
            None => "is not named by a hash (`format = \"jsonl\"`)".into(),
        },
    })?;
    let hash = expected_hash(spec, value, rel_path)?;
    Ok(expected_name(spec, &parts, &hash))
}

// ------------------------------------------------------------------------------------------
// Recorded API errors
// ------------------------------------------------------------------------------------------

/// The `response` objects of a cassette that record an API error (`recorded/error`): an
/// HTTP status of 401, 402, 403, 429 or 5xx, or a provider error body naming one of those
/// kinds ([`api_error::in_response`]). The key material is never looked at, because it is
/// the request. For JSON, `parsed` is the document when the caller has parsed it already.
/// For JSONL, every record line is read and pointers start with the line's index (`/3/response`
/// is on line 4). Lines that do not parse are left to the other checks.
pub fn recorded_errors(
    spec: &Spec,
    bytes: &[u8],
    parsed: Option<&Value<'_>>,
) -> Vec<RecordedError> {
    let skip = |pointer: &str| spec.is_key_pointer(pointer);
    match spec.format {
        Format::Json => match parsed {
            Some(value) => api_error::responses(value, "", &skip),
            None => json::parse(bytes)
                .map(|value| api_error::responses(&value, "", &skip))
                .unwrap_or_default(),
        },
        Format::Jsonl => lines(bytes)
            .filter_map(|line| {
                let value = parse_line(&line).ok()?;
                Some(line_recorded_errors(spec, &line, &value))
            })
            .flatten()
            .collect(),
    }
}

/// [`recorded_errors`] of one JSONL record line (`value` is [`parse_line`]'s), placed in the
/// file.
pub fn line_recorded_errors(spec: &Spec, line: &Line<'_>, value: &Value<'_>) -> Vec<RecordedError> {
    let skip = |pointer: &str| spec.is_key_pointer(pointer);
    let prefix = format!("/{}", line.number - 1);
    let mut found = api_error::responses(value, &prefix, &skip);
    for error in &mut found {
        error.offset = error.offset.map(|o| o + line.offset);
    }
    found
}

// ------------------------------------------------------------------------------------------
// JSONL
// ------------------------------------------------------------------------------------------

/// One record line of a JSONL cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'b> {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line's first byte in the file.
    pub offset: usize,
    /// The line, without its `\n`.
    pub text: &'b [u8],
}

/// The record lines of a JSONL file: lines holding only whitespace are not records and are
/// skipped.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let mut offset = 0;
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(move |(i, text)| {
            let line = Line {
                number: i + 1,
                offset,
                text,
            };
            offset += text.len() + 1;
            is_record(text).then_some(line)
        })
}

/// Whether a line (without its `\n`) is a record: anything but whitespace.
fn is_record(text: &[u8]) -> bool {
    !text.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

impl<'b> Line<'b> {
    /// A line as [`jsonl::LineReader`] reads it, as [`lines`] gives it (a `\r` before the
    /// `\n` kept in the text, where the parser takes it for whitespace, so that errors land
    /// where they land in the whole file); `None` for a line that is no record. Lets a log be
    /// read a line at a time (issue 12).
    pub fn record(line: &jsonl::Line<'b>) -> Option<Line<'b>> {
        let text = line.raw.strip_suffix(b"\n").unwrap_or(line.raw);
        is_record(text).then_some(Line {
            number: line.number,
            offset: line.start,
            text,
        })
    }
}

/// Parses one record line; errors are placed in the file.
pub fn parse_line<'b>(line: &Line<'b>) -> Result<Value<'b>, GenericError> {
    let value = json::parse(line.text).map_err(|mut e| {
        e.offset += line.offset;
        GenericError::Parse(e)
    })?;
    if value.as_object().is_none() {
        return Err(GenericError::Schema {
            pointer: String::new(),
            problem: format!("(the line) must be an object, found {}", value.type_name()),
            offset: Some(line.offset),
        });
    }
    Ok(value)
}

/// One JSONL record's stored and expected hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineCheck {
    /// 1-based line number.
    pub line: usize,
    /// The hash stored in the line.
    pub stored: String,
    /// The hash of the line's key material.
    pub expected: String,
    /// Byte offset in the file of the stored hash's string literal (its opening quote).
    pub offset: usize,
}

impl LineCheck {
    /// Whether the stored hash is not the expected one.
    pub fn is_stale(&self) -> bool {
        self.stored != self.expected
    }
}

/// The stored hash of a record: its text and the span of its literal, relative to the line.
fn stored_hash<'v>(spec: &Spec, value: &'v Value<'_>) -> Result<&'v Str<'v>, GenericError> {
    let field = spec
        .hash_field
        .as_ref()
        .expect("JSONL entries have a hash field");
    match resolve_at(value, field)? {
        (Value::String(s), _) => Ok(s),
        (other, at) => Err(schema(
            field,
            format!("must be a string, found {}", other.type_name()),
            at,
        )),
    }
}

/// Checks every record of a JSONL cassette: its stored hash against the hash of its key
/// material. Stops at the first line that cannot be read.
pub fn check_lines(
    spec: &Spec,
    bytes: &[u8],
    rel_path: &str,
) -> Result<Vec<LineCheck>, GenericError> {
    let mut out = Vec::new();
    for line in lines(bytes) {
        let value = parse_line(&line)?;
        out.push(check_line(spec, &line, &value, rel_path)?);
    }
    Ok(out)
}

/// Checks one record line (`value` is [`parse_line`]'s): its stored hash against the hash
/// of its key material; errors are placed in the file.
pub fn check_line(
    spec: &Spec,
    line: &Line<'_>,
    value: &Value<'_>,
    rel_path: &str,
) -> Result<LineCheck, GenericError> {
    let checked = (|| {
        let stored = stored_hash(spec, value)?;
        let expected = expected_hash(spec, value, rel_path)?;
        Ok::<_, GenericError>((stored.as_str().to_owned(), stored.span(), expected))
    })()
    .map_err(|e| e.shifted(line.offset))?;
    let (stored, span, expected) = checked;
    Ok(LineCheck {
        line: line.number,
        stored,
        expected,
        offset: line.offset + span.start as usize,
    })
}

/// A JSONL cassette with its stored hashes rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rekeyed {
    /// The new contents.
    pub bytes: Vec<u8>,
    /// How many lines changed.
    pub changed: usize,
}

/// Rewrites the stale hashes of a JSONL cassette in place: only each stale hash's string
/// literal is replaced, every other byte is kept.
pub fn rekey_lines(spec: &Spec, bytes: &[u8], rel_path: &str) -> Result<Rekeyed, GenericError> {
    let checks = check_lines(spec, bytes, rel_path)?;
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    let mut changed = 0;
    for check in checks.iter().filter(|c| c.is_stale()) {
        // The literal's length in the file: the parser's span, found again from the offset.
        let len = literal_len(&bytes[check.offset..]);
        out.extend_from_slice(&bytes[copied..check.offset]);
        json::write_string(&Str::new(check.expected.as_str()), &mut out);
        copied = check.offset + len;
        changed += 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    Ok(Rekeyed {
        bytes: out,
        changed,
    })
}

/// Writes one line of a JSONL cassette (`raw`, as stored, its line break included, starting
/// at byte `start` of the file) as [`rekey_lines`] does: with the stale hash `check` found in
/// it replaced, every other byte kept. Lets a log be re-keyed a line at a time (issue 12).
pub fn rekey_line(check: Option<&LineCheck>, raw: &[u8], start: usize, out: &mut Vec<u8>) {
    match check.filter(|c| c.is_stale()) {
        Some(check) => {
            let at = check.offset - start;
            let len = literal_len(&raw[at..]);
            out.extend_from_slice(&raw[..at]);
            json::write_string(&Str::new(check.expected.as_str()), out);
            out.extend_from_slice(&raw[at + len..]);
        }
        None => out.extend_from_slice(raw),
    }
}

/// The length of the JSON string literal at the start of `bytes` (quotes included).
fn literal_len(bytes: &[u8]) -> usize {
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Sets the stored hash of a JSONL record's value (after rules changed its key material).
/// Returns whether it changed.
pub fn set_line_hash(
    spec: &Spec,
    value: &mut Value<'_>,
    rel_path: &str,
) -> Result<bool, GenericError> {
    let expected = expected_hash(spec, value, rel_path)?;
    if stored_hash(spec, value)?.as_str() == expected {
        return Ok(false);
    }
    let field = spec
        .hash_field
        .as_ref()
        .expect("JSONL entries have a hash field");
    let mut current = value;
    for token in &field.tokens {
        current = match current {
            Value::Object(o) => o.get_mut(token),
            Value::Array(items) => {
                json::array_index(token).and_then(|i| items.get_mut(usize::try_from(i).ok()?))
            }
            _ => None,
        }
        .expect("the stored hash was found above");
    }
    if let Value::String(s) = current {
        s.set(expected);
    }
    Ok(true)
}

// ------------------------------------------------------------------------------------------
// Serialization and writing
// ------------------------------------------------------------------------------------------

/// Serializes a value as key material.
pub fn serialize(value: &Value<'_>, serialization: Serialization) -> Vec<u8> {
    let mut out = Vec::new();
    serialize_into(value, serialization, &mut out);
    out
}

fn serialize_into(value: &Value<'_>, serialization: Serialization, out: &mut Vec<u8>) {
    match serialization {
        Serialization::Js => json::write_compact(value, out),
        Serialization::Sorted => write_sorted(value, out),
        Serialization::Python => write_python(value, out, None, true),
    }
}

/// `JSON.stringify` with every object's keys in UTF-16 code-unit order.
fn write_sorted(value: &Value<'_>, out: &mut Vec<u8>) {
    match value {
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_sorted(item, out);
            }
            out.push(b']');
        }
        Value::Object(object) => {
            let mut entries: Vec<_> = object.iter().collect();
            entries.sort_by(|(a, _), (b, _)| utf16_units(a).cmp(utf16_units(b)));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json::write_string(key, out);
                out.push(b':');
                write_sorted(item, out);
            }
            out.push(b'}');
        }
        scalar => json::write_compact(scalar, out),
    }
}

/// The UTF-16 code units of a string as JavaScript holds it.
fn utf16_units<'s>(s: &'s Str<'_>) -> impl Iterator<Item = u16> + 's {
    s.as_str().chars().flat_map(|c| {
        let mut buf = [0u16; 2];
        let units: Vec<u16> = match lone_surrogate(c) {
            Some(unit) => vec![unit],
            None => c.encode_utf16(&mut buf).to_vec(),
        };
        units
    })
}

/// The code points of a string as Python holds it (lone surrogates as themselves).
fn code_points<'s>(s: &'s Str<'_>) -> impl Iterator<Item = u32> + 's {
    s.as_str()
        .chars()
        .map(|c| lone_surrogate(c).map_or(c as u32, u32::from))
}

/// Python's `json.dumps(value, indent=indent, sort_keys=sort)` with `ensure_ascii`.
fn write_python(value: &Value<'_>, out: &mut Vec<u8>, indent: Option<usize>, sort: bool) {
    write_python_at(value, out, indent, sort, 0);
}

fn write_python_at(
    value: &Value<'_>,
    out: &mut Vec<u8>,
    indent: Option<usize>,
    sort: bool,
    depth: usize,
) {
    let newline = |out: &mut Vec<u8>, depth: usize| {
        if let Some(width) = indent {
            out.push(b'\n');
            out.resize(out.len() + width * depth, b' ');
        }
    };
    let separator: &[u8] = if indent.is_some() { b"," } else { b", " };
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => python_number(&n.0, out),
        Value::String(s) => python_string(s, out),
        Value::Array(items) if items.is_empty() => out.extend_from_slice(b"[]"),
        Value::Object(object) if object.is_empty() => out.extend_from_slice(b"{}"),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(separator);
                }
                newline(out, depth + 1);
                write_python_at(item, out, indent, sort, depth + 1);
            }
            newline(out, depth);
            out.push(b']');
        }
        Value::Object(object) => {
            let mut entries: Vec<_> = object.iter().collect();
            if sort {
                entries.sort_by(|(a, _), (b, _)| code_points(a).cmp(code_points(b)));
            }
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(separator);
                }
                newline(out, depth + 1);
                python_string(key, out);
                out.extend_from_slice(b": ");
                write_python_at(item, out, indent, sort, depth + 1);
            }
            newline(out, depth);
            out.push(b'}');
        }
    }
}

/// A string as `json.dumps` writes it with `ensure_ascii`: printable ASCII as is, `"`, `\`
/// and the usual controls as short escapes, everything else as lowercase `\uXXXX` (UTF-16).
fn python_string(s: &Str<'_>, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let unit = |u: u16, out: &mut Vec<u8>| {
        out.extend_from_slice(b"\\u");
        for shift in [12, 8, 4, 0] {
            out.push(HEX[usize::from((u >> shift) & 0xF)]);
        }
    };
    out.push(b'"');
    for c in s.as_str().chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(c as u8),
            c => match lone_surrogate(c).filter(|_| s.has_lone_surrogates()) {
                Some(u) => unit(u, out),
                None => {
                    let mut buf = [0u16; 2];
                    for &u in c.encode_utf16(&mut buf).iter() {
                        unit(u, out);
                    }
                }
            },
        }
    }
    out.push(b'"');
}

/// A number as `json.dumps(json.loads(raw))` writes it: an integer text (no `.`, `e`, `E`)
/// stays an exact integer; anything else is a float printed by `repr`.
fn python_number(raw: &str, out: &mut Vec<u8>) {
    if !raw.contains(['.', 'e', 'E']) {
        let digits = raw.strip_prefix('-').unwrap_or(raw);
        if digits.bytes().all(|b| b == b'0') {
            out.push(b'0');
        } else {
            out.extend_from_slice(raw.as_bytes());
        }
        return;
    }
    out.extend_from_slice(python_float_repr(raw.parse().unwrap_or(f64::NAN)).as_bytes());
}

/// Python's `repr(float)`: the shortest digits that read back, in fixed notation when the
/// decimal exponent is in `-4..16`, else `d.ddde±XX`; `.0` added to integral values.
fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Rust prints the shortest round-tripping digits, like Python's `repr`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponents are integers");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let decpt = exponent + 1;
    let len = digits.len() as i32;
    let body = if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let e = decpt - 1;
        format!(
            "{first}{fraction}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt < len {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{int}.{frac}")
    } else {
        format!("{digits}{}.0", "0".repeat((decpt - len) as usize))
    };
    format!("{sign}{body}")
}

/// Writes a JSON cassette's value the way the entry's writer does. With `write = "keep"`
/// (which has no writer of its own) the value is written `pretty` in the entry's style:
/// that is what rewriting a cassette after its key material changed falls back to.
pub fn render(spec: &Spec, value: &Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    match (spec.format, spec.write, spec.style) {
        (Format::Jsonl, _, _) => render_line_into(spec, value, &mut out),
        (Format::Json, WriteMode::Compact, Style::Js) => json::write_compact(value, &mut out),
        (Format::Json, WriteMode::Compact, Style::Python) => {
            write_python(value, &mut out, None, false);
        }
        (Format::Json, _, Style::Js) => json::write_pretty(value, &mut out),
        (Format::Json, _, Style::Python) => write_python(value, &mut out, Some(2), false),
    }
    if spec.format == Format::Json && spec.trailing_newline {
        out.push(b'\n');
    }
    out
}

/// Writes one JSONL record: compact in the entry's style, ending in `\n`.
pub fn render_line(spec: &Spec, value: &Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    render_line_into(spec, value, &mut out);
    out
}

/// [`render_line`] into `out`: a log rewritten a line at a time reuses one buffer.
pub fn render_line_into(spec: &Spec, value: &Value<'_>, out: &mut Vec<u8>) {
    match spec.style {
        Style::Js => json::write_compact(value, out),
        Style::Python => write_python(value, out, None, false),
    }
    out.push(b'\n');
}

/// What `normalize` makes of a cassette: the bytes unchanged with `write = "keep"`, else
/// rewritten by the entry's writer (JSONL: record lines only, blank lines dropped). The
/// cassette is parsed either way, so a file that is not JSON is an error.
pub fn canonical(spec: &Spec, bytes: &[u8]) -> Result<Vec<u8>, GenericError> {
    match spec.format {
        Format::Json => {
            let value = json::parse(bytes).map_err(GenericError::Parse)?;
            Ok(match spec.write {
                WriteMode::Keep => bytes.to_vec(),
                _ => render(spec, &value),
            })
        }
        Format::Jsonl => {
            let mut out = Vec::with_capacity(bytes.len());
            for line in lines(bytes) {
                let value = parse_line(&line)?;
                if spec.write != WriteMode::Keep {
                    render_line_into(spec, &value, &mut out);
                }
            }
            Ok(match spec.write {
                WriteMode::Keep => bytes.to_vec(),
                _ => out,
            })
        }
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

    fn config(format: Format) -> CassetteConfig {
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
    fn names_parse_and_rebuild() {
        let spec = compile(&config(Format::Json)).unwrap();
        let parts = parse_name(&spec, "openai_chat_post_0123abcd.json").unwrap();
        assert_eq!(parts.stem, "openai_chat_post");
        assert_eq!(parts.hash, "0123abcd");
        assert_eq!(
            expected_name(&spec, &parts, "ffffffff"),
            "openai_chat_post_ffffffff.json"
        );
        assert_eq!(parse_name(&spec, "openai_chat_post_0123ABCD.json"), None);
        assert_eq!(parse_name(&spec, "openai_chat_post_0123abc.json"), None);
        assert_eq!(parse_name(&spec, "_0123abcd.json").unwrap().stem, "");
        let mut c = config(Format::Json);
        c.name = Some("{{{hash:8}}}.json".into());
        let spec = compile(&c).unwrap();
        assert_eq!(
            parse_name(&spec, "{0123abcd}.json").unwrap().hash,
            "0123abcd"
        );
        assert!(parse_name(&spec, "x{0123abcd}.json").is_none());
    }

    #[test]
    fn urls() {
        assert_eq!(url_path("https://h.io/v1/x?q=1#f", false), "v1/x");
        assert_eq!(url_path_query("https://h.io/v1/x?q=1#f"), "v1/x?q=1");
        assert_eq!(url_path_query("https://h.io/v1/x?"), "v1/x");
        assert_eq!(url_path_query("https://h.io"), "");
        assert_eq!(url_path_query("https://h.io?a"), "?a");
        assert_eq!(url_path("/local/path?x", false), "local/path");
    }

    #[test]
    fn python_floats_follow_repr() {
        for (x, expected) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e-7, "1e-07"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123.456, "123.456"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (0.1, "0.1"),
            (1234567890123456.7, "1234567890123456.8"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(python_float_repr(x), expected, "{x}");
        }
        let mut out = Vec::new();
        python_number("-0", &mut out);
        python_number("12345678901234567890123", &mut out);
        assert_eq!(out, b"012345678901234567890123");
    }

    #[test]
    fn templates_build_key_material() {
        let mut c = config(Format::Json);
        c.key = None;
        c.key_template = Some(
            "{dir}|{name.1}/{/r/url|url-path-query|strip-prefix:v1/}:{/r/m}:{/r/n}:{/r/body|json}{{}}"
                .into(),
        );
        c.serialization = Some(Serialization::Python);
        let spec = compile(&c).unwrap();
        let value = json::parse(
            br#"{"r":{"url":"https://x.io/v1/a?b=1","m":"POST","n":[1.0,"\u00e9"],"body":"{\"z\":1,\"a\":[1e5]}"}}"#,
        )
        .unwrap();
        let material = key_material(&spec, &value, "fixtures/openai/p_q_r.json").unwrap();
        assert_eq!(
            String::from_utf8(material).unwrap(),
            r#"openai|q/a?b=1:POST:[1.0, "\u00e9"]:{"a": [100000.0], "z": 1}{}"#
        );
        let err = key_material(&spec, &value, "top.json").unwrap_err();
        assert_eq!(err.id(), "name/stale");
        let missing = json::parse(br#"{"r":{"url":1}}"#).unwrap();
        let err = key_material(&spec, &missing, "a/b_c.json").unwrap_err();
        assert_eq!(err.id(), "schema");
        assert!(
            err.to_string().contains("`/r/url` must be a string"),
            "{err}"
        );
    }

    #[test]
    fn json_filter_falls_back_like_the_python_idiom() {
        assert_eq!(json_filter("", Serialization::Python), b"{}");
        assert_eq!(
            json_filter("not json", Serialization::Python),
            b"\"not json\""
        );
        assert_eq!(json_filter(" [1, 2] ", Serialization::Js), b"[1,2]");
    }

    #[test]
    fn sorted_uses_utf16_order_without_moving_index_keys() {
        let value =
            json::parse("{\"b\":1,\"10\":2,\"2\":3,\"\u{ff61}\":4,\"\u{1F600}\":5}".as_bytes())
                .unwrap();
        let js = String::from_utf8(serialize(&value, Serialization::Sorted)).unwrap();
        assert_eq!(
            js,
            "{\"10\":2,\"2\":3,\"b\":1,\"\u{1F600}\":5,\"\u{ff61}\":4}"
        );
        let py = String::from_utf8(serialize(&value, Serialization::Python)).unwrap();
        assert_eq!(
            py,
            r#"{"10": 2, "2": 3, "b": 1, "\uff61": 4, "\ud83d\ude00": 5}"#
        );
    }

    #[test]
    fn missing_key_names_the_pointer_and_the_place() {
        let spec = compile(&config(Format::Json)).unwrap();
        let text = b"{\n  \"response\": {}\n}";
        let value = json::parse(text).unwrap();
        let err = name_for(&spec, &value, "fixtures/x_00000000.json").unwrap_err();
        assert_eq!(err.to_string(), "`/request` is missing");
        assert_eq!(err.position(text), Some(Position { line: 2, column: 3 }));
        let err = name_for(&spec, &value, "fixtures/x.json").unwrap_err();
        assert!(
            err.to_string().contains("does not follow the template"),
            "{err}"
        );
    }

    #[test]
    fn jsonl_lines_are_checked_and_rekeyed_in_place() {
        let spec = compile(&config(Format::Jsonl)).unwrap();
        let request = br#"{"a":1}"#;
        let good = digest_hex(&spec, request);
        let text = format!(
            "{{\"request_hash\":\"{good}\",\"request\":{{\"a\":1}}}}\n\n{{\"request\" : {{\"a\":1}}, \"request_hash\" : \"st\\u0061le\", \"x\": 1.0}}\n"
        );
        let checks = check_lines(&spec, text.as_bytes(), "f.jsonl").unwrap();
        assert_eq!(checks.len(), 2);
        assert!(!checks[0].is_stale());
        assert!(checks[1].is_stale());
        assert_eq!(checks[1].stored, "stale");
        assert_eq!(checks[1].line, 3);
        assert_eq!(
            Position::locate(text.as_bytes(), checks[1].offset),
            Position {
                line: 3,
                column: 40
            }
        );
        let rekeyed = rekey_lines(&spec, text.as_bytes(), "f.jsonl").unwrap();
        assert_eq!(rekeyed.changed, 1);
        let expected = text.replace("\"st\\u0061le\"", &format!("\"{good}\""));
        assert_eq!(String::from_utf8(rekeyed.bytes.clone()).unwrap(), expected);
        assert!(
            check_lines(&spec, &rekeyed.bytes, "f.jsonl")
                .unwrap()
                .iter()
                .all(|c| !c.is_stale())
        );

        let bad = b"{\"request_hash\":\"x\",\"request\":{}}\n{\"request_hash\":1,\"request\":{}}\n";
        let err = check_lines(&spec, bad, "f.jsonl").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`/request_hash` must be a string, found a number"
        );
        assert_eq!(err.position(bad).unwrap().line, 2);
        let broken = b"{\"request_hash\":\"x\",\"request\":{}}\n{\"request_hash\":\n";
        let err = check_lines(&spec, broken, "f.jsonl").unwrap_err();
        assert_eq!(err.id(), "parse");
        assert_eq!(err.position(broken).unwrap().line, 2);
    }

    #[test]
    fn canonical_writers() {
        let mut c = config(Format::Json);
        let text = "{\"a\": [1.0, \"\u{e9}\"], \"b\": {}}";
        assert_eq!(
            canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap(),
            text.as_bytes()
        );
        c.write = Some(WriteMode::Pretty);
        c.trailing_newline = Some(true);
        assert_eq!(
            String::from_utf8(canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap()).unwrap(),
            "{\n  \"a\": [\n    1,\n    \"\u{e9}\"\n  ],\n  \"b\": {}\n}\n"
        );
        c.style = Some(Style::Python);
        c.trailing_newline = None;
        assert_eq!(
            String::from_utf8(canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap()).unwrap(),
            "{\n  \"a\": [\n    1.0,\n    \"\\u00e9\"\n  ],\n  \"b\": {}\n}"
        );
        c.write = Some(WriteMode::Compact);
        assert_eq!(
            String::from_utf8(canonical(&compile(&c).unwrap(), text.as_bytes()).unwrap()).unwrap(),
            "{\"a\": [1.0, \"\\u00e9\"], \"b\": {}}"
        );
        let mut l = config(Format::Jsonl);
        l.write = Some(WriteMode::Compact);
        let spec = compile(&l).unwrap();
        assert_eq!(
            canonical(&spec, b"{ \"a\" : 1 }\r\n\n{\"b\":2}").unwrap(),
            b"{\"a\":1}\n{\"b\":2}\n"
        );
        assert_eq!(canonical(&spec, b"[1]\n").unwrap_err().id(), "schema");
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
