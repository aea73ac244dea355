//! Key material, hashes and file names: what a harness hashes for a cassette (a pointer or a
//! key template and its filters), the truncated digest, and the file name the hash goes into.
//! Apart from the compile step in `mod.rs`, which runs once per entry; these run per cassette.

use std::borrow::Cow;

use sha1::{Digest as _, Sha1};
use sha2::Sha256;

use super::write::{serialize, serialize_into};
use super::{
    Algorithm, Filter, GenericError, Key, NamePart, Part, Pointer, Serialization, Source, Spec,
    schema,
};
use crate::claude_code::hex_prefix;
use vcr_json::{LONE_SURROGATE_BASE, Str, Value};

/// Follows a pointer; a missing value is a `schema` error that points at the last value
/// reached.
fn resolve<'v, 'a>(root: &'v Value<'a>, pointer: &Pointer) -> Result<&'v Value<'a>, GenericError> {
    resolve_at(root, pointer).map(|(value, _)| value)
}

/// Follows a pointer; also returns the best known offset of the value: its own, else where
/// its key is written, else its container's (numbers, booleans and `null` have no span).
pub(super) fn resolve_at<'v, 'a>(
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
                vcr_json::array_index(token).and_then(|i| items.get(usize::try_from(i).ok()?)),
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

/// The UTF-16 unit a stand-in character carries (see [`vcr_json::Str`]).
pub(super) fn lone_surrogate(c: char) -> Option<u16> {
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
    match vcr_json::parse(text.as_bytes()) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::tests::config;
    use crate::generic::{Format, compile};
    use vcr_json::Position;

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
    fn templates_build_key_material() {
        let mut c = config(Format::Json);
        c.key = None;
        c.key_template = Some(
            "{dir}|{name.1}/{/r/url|url-path-query|strip-prefix:v1/}:{/r/m}:{/r/n}:{/r/body|json}{{}}"
                .into(),
        );
        c.serialization = Some(Serialization::Python);
        let spec = compile(&c).unwrap();
        let value = vcr_json::parse(
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
        let missing = vcr_json::parse(br#"{"r":{"url":1}}"#).unwrap();
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
    fn missing_key_names_the_pointer_and_the_place() {
        let spec = compile(&config(Format::Json)).unwrap();
        let text = b"{\n  \"response\": {}\n}";
        let value = vcr_json::parse(text).unwrap();
        let err = name_for(&spec, &value, "fixtures/x_00000000.json").unwrap_err();
        assert_eq!(err.to_string(), "`/request` is missing");
        assert_eq!(err.position(text), Some(Position { line: 2, column: 3 }));
        let err = name_for(&spec, &value, "fixtures/x.json").unwrap_err();
        assert!(
            err.to_string().contains("does not follow the template"),
            "{err}"
        );
    }
}
