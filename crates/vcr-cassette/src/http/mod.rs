//! HTTP cassettes (vcrpy, Ruby VCR, go-vcr, HAR, httprr, nock, talkback, and the recorders
//! of other ecosystems [`RECORDERS`] lists) read by structure.
//!
//! Every recorder writes the same thing in its own shape: a list of interactions, each a
//! request that left the recording machine and the response a server sent back. Each reader
//! (one module per format) turns a file into that one model, [`HttpCassette`], keeping where
//! every scalar sits, so that `verify` can lint a header as a header and a decoded body as
//! what the client saw, and report the file's line and column with a readable path
//! (`interactions[3].response.body (gzip, json) /choices/0/text`). Nothing in a cassette is
//! executed: YAML tags such as `!!python/object/apply:...` are read as data.
//!
//! [`read`] chooses the reader by content, never by name: a file that is none of these
//! formats is `Ok(None)` (it stays text), a file that is one of them but does not parse is an
//! error with its offset.

pub mod body;
pub mod recorder;
pub mod sniff;
mod time;
mod walk;
mod windows;

/// Declares each recorder's module (its file beside this one) and lists it in [`RECORDERS`]:
/// adding a recorder is its file and its line in the table below.
macro_rules! recorders {
    ($($(#[$doc:meta])* $module:ident,)*) => {
        $($(#[$doc])* pub mod $module;)*

        /// The recorders vcr reads, in the order they are tried (the first whose
        /// [`Recorder::matches`] accepts a document reads it) and reported.
        pub static RECORDERS: &[Format] = &[$($module::FORMAT,)*];
    };
}

// The recorders, one file each: the first whose `matches` accepts a document reads it.
recorders! {
    /// First: the recorders whose files another reader would take for its own (R's vcr for
    /// Ruby VCR, DVR for go-vcr, ExVCR for vcrpy), each by markers of its own.
    php_vcr,
    exvcr,
    easyvcr,
    httpretty,
    vinyl,
    okreplay,
    dvr,
    r_vcr,
    govcr,
    responses,
    httpmock,
    httpreplay,
    vcrpy,
    ruby_vcr,
    go_vcr,
    har,
    httprr,
    nock,
    talkback,
    wiremock,
    hoverfly,
    /// Last: any records of requests and responses, read by their shapes.
    generic,
}

use std::path::Path;

pub use vcr_doc::ReadOptions;
use vcr_doc::{DocError, Node, NodeValue};

pub use recorder::{Format, Recorder};
pub use time::parse as parse_time;
pub use time::{Recorded, format_date};

/// What a recorder matches requests by (`match-on`), as the parts of a request it covers:
/// what must stay as recorded for replay to find an interaction.
#[derive(Debug, Clone, Copy, Default)]
pub struct Matched {
    /// Some part of the URL (scheme, host, port, path or query).
    pub url: bool,
    /// The query string.
    pub query: bool,
    /// The scheme, host, port or path: the URL before its query.
    pub host_or_path: bool,
    /// The headers.
    pub headers: bool,
    /// The body.
    pub body: bool,
}

impl Matched {
    /// From the recorder's names (vcrpy's `match_on`, Ruby VCR's `match_requests_on`, ...).
    /// A name vcr does not know (a project's own matcher, registered with the recorder) may
    /// compare anything in the request: it covers every part.
    pub fn from(match_on: &[&str]) -> Matched {
        const URL: &[&str] = &["uri", "url", "scheme", "host", "port", "path", "query"];
        const BODY: &[&str] = &["body", "raw_body", "json_body", "body_as_json"];
        // What covers no part of the request's contents: the method, Polly's order.
        const OTHER: &[&str] = &["method", "order"];
        let has = |names: &[&str]| match_on.iter().any(|m| names.contains(m));
        let unknown = (match_on.iter()).any(|m| {
            ![URL, BODY, OTHER, &["headers"]]
                .iter()
                .any(|known| known.contains(m))
        });
        Matched {
            url: unknown || has(URL),
            query: unknown || has(&["uri", "url", "query"]),
            host_or_path: unknown || has(&["uri", "url", "scheme", "host", "port", "path"]),
            headers: unknown || has(&["headers"]),
            body: unknown || has(BODY),
        }
    }
}

/// A scalar of the cassette: its value and where it sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The value as the recorder meant it (escapes, folding and quoting resolved); empty for
    /// the field of a body stored as text, whose bytes are that text (`Body::text`).
    pub text: String,
    /// Byte offset of the scalar in the file, when it has one of its own.
    pub at: Option<u32>,
    /// The readable path of the scalar (`interactions[3].request.headers.Authorization[0]`).
    pub path: String,
}

/// One header (a header repeated, or a header with a list of values, is several).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The name as recorded.
    pub name: String,
    /// The value.
    pub value: Field,
}

/// A body as the cassette stores it.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Bytes: the scalar that holds them, and the bytes on the wire after the cassette's own
    /// encoding is undone (`!!binary`, `base64_string`, HAR `encoding: base64`, nock's hex
    /// chunks) but before `Content-Encoding` is (gzip is still gzip here).
    Bytes {
        /// Where the body sits (for a body split over several scalars, the first).
        field: Field,
        /// The bytes.
        bytes: Vec<u8>,
        /// The cassette's own encodings undone to get `bytes`, outermost first (`base64`,
        /// `binary`, `hex`).
        stored: Vec<&'static str>,
    },
    /// Data the recorder stored already parsed (a nock JSON body, talkback's JSON bodies,
    /// pydantic-ai's `parsed_body`): its own nodes, each with its position in the file.
    Data {
        /// The readable path of the node.
        path: String,
        /// The node.
        node: Node,
    },
}

impl Body {
    /// A body stored as the text of its scalar: its bytes are that text, moved out of the
    /// field rather than copied, so the field keeps its place and path and an empty text.
    /// A copy of every body was the largest part of a cassette's memory (a 300 MB body took
    /// 600 MB, issue 25).
    pub(crate) fn text(mut field: Field) -> Body {
        let bytes = std::mem::take(&mut field.text).into_bytes();
        Body::Bytes {
            field,
            bytes,
            stored: Vec::new(),
        }
    }
}

/// The request that left the recording machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: Field,
    /// The absolute URL, query included.
    pub url: Field,
    /// Headers in recorded order.
    pub headers: Vec<Header>,
    /// The body, if one was recorded.
    pub body: Option<Body>,
}

/// The response a server sent back.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The status code, when recorded.
    pub status: Option<u16>,
    /// Headers in recorded order.
    pub headers: Vec<Header>,
    /// The body, if one was recorded.
    pub body: Option<Body>,
}

/// One request and its response.
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    /// The readable path of the interaction (`interactions[3]`, `log.entries[0]`, `[2]`).
    pub path: String,
    /// The request.
    pub request: Request,
    /// The response (absent for a recorded error without one).
    pub response: Option<Response>,
    /// When it was recorded, as written (`recorded_at`, HAR `startedDateTime`).
    pub recorded_at: Option<Field>,
}

impl Interaction {
    /// The request's headers, then the response's.
    pub fn headers(&self) -> impl Iterator<Item = &Header> {
        let response = self.response.iter().flat_map(|r| &r.headers);
        self.request.headers.iter().chain(response)
    }

    /// The request's body, then the response's.
    pub fn bodies(&self) -> impl Iterator<Item = &Body> {
        let response = self.response.as_ref().and_then(|r| r.body.as_ref());
        self.request.body.iter().chain(response)
    }
}

/// A cassette read by structure.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpCassette {
    /// The recorder that wrote it.
    pub format: Format,
    /// Its interactions in file order.
    pub interactions: Vec<Interaction>,
    /// Whether the file was gzip-compressed (`.yaml.gz`, `.httprr.gz`): positions are then
    /// in the decompressed text.
    pub compressed: bool,
    /// The byte ranges of the (decompressed) text that no interaction holds: the scalars the
    /// reader did not take (a value a duplicated JSON key hides, a HAR `comment`, a
    /// recorder's fields of its own) and what follows the first YAML document. The leak
    /// check scans them too: everything in the file is scanned (issue 25).
    pub outside: Vec<(u32, u32)>,
}

/// Why a file that is an HTTP cassette could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadError {
    /// The format it looked like.
    pub format: Format,
    /// What went wrong (`not valid YAML: ...`, ``interactions[2].request has no `uri` ``).
    pub message: String,
    /// Byte offset of the problem in the (decompressed) text.
    pub offset: usize,
}

impl ReadError {
    fn from_doc(format: Format, e: DocError) -> ReadError {
        ReadError {
            format,
            message: e.message,
            offset: e.offset,
        }
    }
}

/// Reads `bytes` (the file at `path`, whose folder holds any sidecar files) as an HTTP
/// cassette, choosing the reader by content: `Ok(None)` when it is none of the formats.
pub fn read(path: &Path, bytes: &[u8]) -> Result<Option<HttpCassette>, ReadError> {
    read_with(path, bytes, &Sidecars::new(), &ReadOptions::default())
}

/// Sidecar files (Playwright's `_file` bodies) by the name the HAR gives them, read from here
/// instead of from the HAR's folder: a scrub's new bodies, read back before they are written.
pub type Sidecars = std::collections::BTreeMap<String, Vec<u8>>;

/// [`read`], with the sidecars `replaced` names taken from it rather than from disk, read as
/// `options` say.
pub fn read_with(
    path: &Path,
    bytes: &[u8],
    replaced: &Sidecars,
    options: &ReadOptions,
) -> Result<Option<HttpCassette>, ReadError> {
    let (bytes, compressed) = match gunzip(bytes) {
        Some(inflated) => (std::borrow::Cow::Owned(inflated), true),
        None => (std::borrow::Cow::Borrowed(bytes), false),
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(None);
    };
    let mut cassette = match read_text(path, text, replaced, options)? {
        Some((cassette, _)) => cassette,
        None => return Ok(None),
    };
    cassette.compressed = compressed;
    Ok(Some(cassette))
}

/// [`read`] of a text (decompressed already), with the document it was read from, whose
/// large bodies' texts were moved into the cassette (`None` for an httprr trace, which has
/// none): what a scrub plans its edits in. Parsing the text again for that held a huge
/// body's text a third time, beside the file and the cassette (issue 25).
pub fn read_document(
    path: &Path,
    text: &[u8],
    options: &ReadOptions,
) -> Result<Option<(HttpCassette, Option<Node>)>, ReadError> {
    match std::str::from_utf8(text) {
        Ok(text) => read_text(path, text, &Sidecars::new(), options),
        Err(_) => Ok(None),
    }
}

/// The size from which a body's text is held once, where it is, rather than copied: moved
/// out of the document a reader built (`walk::fill_deferred`), and not kept again in a
/// scrub's document (`scrub`). A copy of a 500 MB body was the largest part of the memory
/// of reading and scrubbing it (issue 25).
pub const LARGE_BODY: usize = 1 << 20;

/// From how many bytes a cassette is read in windows ([`read_windows`]). A cassette of many
/// interactions built whole takes ten to fifteen times its size (its document, and its
/// interactions); below this, that is still a few tens of megabytes.
const WINDOWS_FROM: usize = 4 << 20;

/// How many bytes of interactions make a window of a cassette of `len` bytes: a 64th of it,
/// between 512 KiB and 16 MiB, so that a window's document and interactions (ten to fifteen
/// times its text) stay well under the file's own size (issue 25: at most three times the
/// file in all). Smaller windows cost nothing measurable; larger ones left their memory
/// resident beside the file's new text.
/// `options` may set it ([`ReadOptions::http_window`]): with a few bytes every entry is a
/// window of its own, and the tests compare what the commands report and write with the
/// whole file read at once.
fn window_for(len: usize, options: &ReadOptions) -> usize {
    match options.http_window {
        None => (len / 64).clamp(512 << 10, 16 << 20),
        Some(set) => set.max(1),
    }
}

/// Whether [`read_windows`] tries to read `text` a window at a time: a JSON HAR (an object
/// whose first key is `log`), a cassette of vcrpy, Ruby VCR or go-vcr (YAML, or vcrpy's
/// and Ruby VCR's JSON), a nock cassette (a JSON list of definitions) or an httprr trace, of
/// more than 4 MiB (or the window `options` set).
pub fn in_windows(text: &[u8], options: &ReadOptions) -> bool {
    let from = options.http_window.map_or(WINDOWS_FROM, |set| set.max(1));
    text.len() > from
        && (is_json_har(text)
            || is_recorder_cassette(text)
            || is_nock_list(text)
            || httprr::is_httprr(head_of(text)))
}

/// Whether `text` opens as a nock cassette: a JSON list whose first item is an object, and
/// whose head holds a `scope` that is an origin (nock's own marker).
fn is_nock_list(text: &[u8]) -> bool {
    text.trim_ascii_start()
        .strip_prefix(b"[")
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"{"))
        && nock::FORMAT.recorder().identified(head_of(text))
}

/// Whether `text` opens as a JSON HAR: an object whose first key is `log`.
fn is_json_har(text: &[u8]) -> bool {
    text.trim_ascii_start()
        .strip_prefix(b"{")
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"\"log\""))
}

/// The first 64 KiB of `text`, as far as they are UTF-8: where the keys that hint at a
/// recorder are looked for.
fn head_of(text: &[u8]) -> &str {
    let head = &text[..text.len().min(1 << 16)];
    match std::str::from_utf8(head) {
        Ok(head) => head,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Whether the keys at the head of `text` are those of a recorder whose interactions can be
/// read in windows (`windows`): vcrpy, Ruby VCR or go-vcr in YAML, vcrpy or Ruby VCR in JSON.
fn is_recorder_cassette(text: &[u8]) -> bool {
    let head = head_of(text);
    let windowed = [vcrpy::FORMAT, ruby_vcr::FORMAT, go_vcr::FORMAT];
    if head.trim_start().starts_with('{') {
        json_format_hint(head).is_some_and(|f| windowed[..2].contains(&f))
    } else {
        !head.trim_start().starts_with('[')
            && yaml_format_hint(head).is_some_and(|f| windowed.contains(&f))
    }
}

/// Reads `text` (the file at `path`, or its decompressed text) as an HTTP cassette, as
/// [`read_with`] does, but hands it to `visit` in parts: a JSON HAR or a recorder's cassette
/// ([`in_windows`]) goes a window of interactions at a time (a 64th of the file, between
/// 512 KiB and 16 MiB), each a cassette of its own (its interactions named and placed as in the
/// whole file, its `outside` within the window), then one without interactions that holds
/// the rest of the file; any other cassette goes whole, once. A HAR of a million entries
/// built whole as one document took 17 times its size, a cassette of a hundred thousand
/// interactions 10 to 14 times (issue 25); a window at a time, the memory is the file's
/// and one window's.
///
/// `visit(None)` voids what it was given before (a large HAR that turned out not to stream
/// in `JSON.parse`'s order, read whole after all). `Ok(None)`: the text is no HTTP cassette.
/// An error comes after the windows before it were given.
pub fn read_windows(
    path: &Path,
    text: &[u8],
    replaced: &Sidecars,
    options: &ReadOptions,
    visit: &mut dyn FnMut(Option<HttpCassette>),
) -> Result<Option<Format>, ReadError> {
    if in_windows(text, options) {
        let mut format = None;
        let read = windows_of(path, text, replaced, false, options, &mut |part, _| {
            format.get_or_insert(part.format);
            visit(Some(part));
        });
        match read {
            Ok(Some(_)) => return Ok(format),
            Err(e) if identified(e.format, text) => return Err(e),
            // Read whole below, where what is not identified is no cassette either.
            Ok(None) | Err(_) => visit(None),
        }
    }
    Ok(read_with(path, text, replaced, options)?.map(|cassette| {
        let format = cassette.format;
        visit(Some(cassette));
        format
    }))
}

/// The format of the cassette in `bytes` (the file at `path`), as [`read`] finds it, read a
/// window at a time when it is large: what needs only the recorder (`prune`, `record`)
/// takes the memory `verify` does, not a whole document (17 times its size).
pub fn format_of(
    path: &Path,
    bytes: &[u8],
    options: &ReadOptions,
) -> Result<Option<Format>, ReadError> {
    read_windows(path, bytes, &Sidecars::new(), options, &mut |_| {})
}

/// The windows of `text` when [`read_windows`] reads it in windows, each with its entries'
/// documents when `keep` (a scrub plans over them); how many, or `Ok(None)` when it is not
/// read so (what `visit` was given is then void).
pub fn windows_of(
    path: &Path,
    text: &[u8],
    replaced: &Sidecars,
    keep: bool,
    options: &ReadOptions,
    visit: &mut dyn FnMut(HttpCassette, Vec<Node>),
) -> Result<Option<usize>, ReadError> {
    match std::str::from_utf8(text) {
        Ok(text) if in_windows(text.as_bytes(), options) => {
            let window = window_for(text.len(), options);
            if is_json_har(text.as_bytes()) {
                har::read_windows(text, path, replaced, window, keep, visit)
            } else if httprr::is_httprr(text) {
                httprr::read_windows(text, window, visit)
            } else if text.trim_start().starts_with('{') {
                windows::read_json_windows(text, window, keep, visit)
            } else if text.trim_start().starts_with('[') {
                windows::read_array_windows(text, window, keep, visit)
            } else if options.fast_yaml {
                windows::read_windows(text, window, keep, visit)
            } else {
                // Windows are read by the one-pass YAML reader only; saphyr's events read
                // the document whole.
                Ok(None)
            }
        }
        _ => Ok(None),
    }
}

/// The file's text as the readers see it: decompressed when it is gzip (positions of
/// findings are in this text).
pub fn decompressed(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match gunzip(bytes) {
        Some(inflated) => std::borrow::Cow::Owned(inflated),
        None => std::borrow::Cow::Borrowed(bytes),
    }
}

/// The whole file decompressed, if it is gzip (`.yaml.gz`, `.httprr.gz`).
/// A file's contents gzip-compressed again (a scrubbed `.yaml.gz`).
pub fn compress(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, bytes)?;
    encoder.finish()
}

fn gunzip(bytes: &[u8]) -> Option<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let limit = MAX_INFLATED as usize;
    // The inflated data is read into parts that are never regrown: a vector growing by
    // doubling copies what it holds each time, and the allocator keeps both copies for a
    // while (a bomb's 64 MiB read peaked at three times that, issue 12). The first part
    // is as large as the trailer says the data is (modulo 4 GiB; the last member's only),
    // so that what gzip writers record is read into one allocation; each further part is
    // as large as all before it. A wrong size only costs more parts.
    let size = bytes
        .last_chunk::<4>()
        .map_or(0, |size| u32::from_le_bytes(*size) as usize);
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut total = 0;
    let mut next = size.clamp(1 << 16, limit + 1);
    loop {
        let mut part = Vec::with_capacity(next);
        let read = std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut decoder, next as u64),
            &mut part,
        )
        .ok()?;
        total += read;
        parts.push(part);
        // A crafted file that inflates past any cassette is not read (it stays text).
        if total > limit {
            return None;
        }
        if read < next {
            break;
        }
        next = total.min(limit + 1 - total);
    }
    if parts.len() == 1 {
        return parts.pop();
    }
    Some(parts.concat())
}

/// Why `bytes`, which open as gzip, could not be inflated ([`decompressed`] gave them back
/// as they are), with what did inflate before the problem (at most 64 MiB):
/// a compressed cassette that cannot be read is an error, never a pass, and what can be
/// read of it is still scanned. `None` when `bytes` are no gzip or inflate whole.
pub fn inflate_problem(bytes: &[u8]) -> Option<(Vec<u8>, String)> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    // Reserved whole (pages are only taken as they are written): a growing vector would
    // hold two copies of a bomb's 64 MiB while it moves them.
    let mut inflated = Vec::with_capacity(MAX_INFLATED as usize + 1);
    let mut decoder =
        std::io::Read::take(flate2::read::MultiGzDecoder::new(bytes), MAX_INFLATED + 1);
    let why = match std::io::Read::read_to_end(&mut decoder, &mut inflated) {
        Ok(_) if inflated.len() as u64 > MAX_INFLATED => format!(
            "it inflates past {} MiB, the most vcr reads of a compressed cassette",
            MAX_INFLATED >> 20
        ),
        Ok(_) => return None,
        Err(e) => format!("gzip data that does not inflate ({e})"),
    };
    inflated.truncate(MAX_INFLATED as usize);
    Some((inflated, why))
}

/// The most a compressed cassette may inflate to: far above any real one (the corpus's
/// largest `.yaml.gz` inflates to under 1 MB), far below what exhausts a machine.
const MAX_INFLATED: u64 = 64 << 20;

/// Reads `text` as the cassette its shape shows. A text that does not read is a `parse`
/// error only when its recorder's own markers identify it ([`identified`]); one that only
/// looked like a cassette of a format (an ExVCR list taken for vcrpy's old layout, R's vcr
/// taken for Ruby VCR) is no cassette of a format vcr reads, and is linted as text: what a
/// recorder loads is never a `parse` error (issue 39).
fn read_text(
    path: &Path,
    text: &str,
    replaced: &Sidecars,
    options: &ReadOptions,
) -> Result<Option<(HttpCassette, Option<Node>)>, ReadError> {
    match read_shape(path, text, replaced, options) {
        Err(e) if !identified(e.format, text.as_bytes()) => Ok(None),
        Err(e) if e.format == ruby_vcr::FORMAT && text.contains("<%") => {
            // Ruby VCR runs a cassette through ERB first when a test says `erb: true`
            // (`uri: https://<%= sid %>@api.example.com/...`): its tags are the test's to
            // fill. Each is read as a run of `_` as long as it, so every place in the file
            // stays where it is, and what stays a `parse` error is one ERB does not explain.
            let masked = without_erb_tags(text);
            match read_shape(path, &masked, replaced, options) {
                Ok(read) => Ok(read),
                Err(_) => Err(e),
            }
        }
        read => read,
    }
}

/// `text` with each ERB tag (`<%= ... %>`, `<% ... %>`) written as as many `_` as it has
/// bytes, its line breaks kept.
fn without_erb_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<%") {
        let Some(close) = rest[open..].find("%>") else {
            break;
        };
        out.push_str(&rest[..open]);
        let tag = &rest[open..open + close + 2];
        for c in tag.chars() {
            match c {
                '\n' => out.push('\n'),
                // A character of several bytes becomes as many `_`.
                c => out.extend(std::iter::repeat_n('_', c.len_utf8())),
            }
        }
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    out
}

/// Whether `text` carries the markers only `format`'s recorder writes
/// ([`Recorder::identified`]), found in its first and last 64 KiB: a file that does not
/// parse has no document to look in, and recorders write their markers first or last.
pub fn identified(format: Format, text: &[u8]) -> bool {
    format.recorder().identified(&head_and_tail(text))
}

/// The recorder that encrypted `bytes` (a whole file, as it is on disk), if one did
/// ([`Recorder::encrypted`]): such a file cannot be read without its key.
pub fn encrypted(bytes: &[u8]) -> Option<Format> {
    RECORDERS
        .iter()
        .copied()
        .find(|format| format.recorder().encrypted(bytes))
}

/// The first recorder of [`RECORDERS`] whose own markers `text` carries.
fn identifying(text: &str) -> Option<Format> {
    let text = head_and_tail(text.as_bytes());
    RECORDERS
        .iter()
        .copied()
        .find(|format| format.recorder().identified(&text))
}

/// The first and last 64 KiB of `text` (as far as they are UTF-8), where a recorder's
/// top-level markers are: vcrpy writes `version` last, Ruby VCR `recorded_with` last.
fn head_and_tail(text: &[u8]) -> std::borrow::Cow<'_, str> {
    const PART: usize = 1 << 16;
    if text.len() <= 2 * PART {
        return String::from_utf8_lossy(text);
    }
    let mut joined = String::from_utf8_lossy(&text[..PART]).into_owned();
    joined.push('\n');
    joined.push_str(&String::from_utf8_lossy(&text[text.len() - PART..]));
    std::borrow::Cow::Owned(joined)
}

fn read_shape(
    path: &Path,
    text: &str,
    replaced: &Sidecars,
    options: &ReadOptions,
) -> Result<Option<(HttpCassette, Option<Node>)>, ReadError> {
    if let Some(raw) = RECORDERS.iter().find(|f| f.recorder().is_raw(text)) {
        return raw
            .recorder()
            .read_text(text)
            .map(|cassette| Some((cassette, None)));
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    // A talkback tape may open with a `//` comment before its `{`.
    let looks_json =
        trimmed.starts_with('{') || trimmed.starts_with('[') || talkback::looks_like(text);
    // A text that does not parse is an error of the recorder its markers identify.
    let unparsed = |e: DocError| match identifying(text) {
        Some(format) => Err(ReadError::from_doc(format, e)),
        None => Ok(None),
    };
    let mut root = if looks_json {
        match vcr_doc::from_json(text.as_bytes()) {
            Ok(root) => root,
            // talkback writes JSON5 (unquoted keys, trailing commas, comments).
            Err(_) if talkback::looks_like(text) => {
                vcr_doc::json5::parse(text).map_err(|e| ReadError::from_doc(talkback::FORMAT, e))?
            }
            // A recorder whose loader takes trailing commas and comments (ExVCR's jsx) loads
            // what a hand edit left so: read as JSON5, it is never a `parse` error.
            Err(e) => match RECORDERS.iter().find(|f| f.recorder().loads_json5(text)) {
                Some(format) => {
                    vcr_doc::json5::parse(text).map_err(|e| ReadError::from_doc(*format, e))?
                }
                None => return unparsed(e),
            },
        }
    } else {
        if yaml_format_hint(text).is_none() {
            return Ok(None);
        }
        let mut end = text.len().min(sniff::HEAD);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let head = &text[..end];
        let parsed = if RECORDERS.iter().any(|f| f.recorder().documents(head)) {
            vcr_doc::yaml::parse_documents(text)
        } else {
            vcr_doc::yaml::parse_with(text, options)
        };
        match parsed {
            Ok(root) => root,
            Err(e) => return unparsed(e),
        }
    };
    if is_pact(&root) {
        return Ok(None);
    }
    // The first recorder that matches and reads it: one whose read fails without its own
    // markers only looked like it, and the next is tried (the generic reader last).
    let mut unread = None;
    let mut read = None;
    for format in RECORDERS.iter().filter(|f| f.recorder().matches(&root)) {
        match format.recorder().read(&root, path, replaced) {
            Ok(cassette) => {
                read = Some(cassette);
                break;
            }
            Err(e) if identified(e.format, text.as_bytes()) => return Err(e),
            Err(e) => {
                unread.get_or_insert(e);
            }
        }
    }
    let mut cassette = match (read, unread) {
        (Some(cassette), _) => cassette,
        (None, Some(e)) => return Err(e),
        (None, None) => return Ok(None),
    };
    walk::fill_deferred(&mut cassette, &mut root);
    cassette.outside = outside(
        &cassette.interactions,
        std::slice::from_ref(&root),
        &[],
        (0, text.len() as u32),
    );
    Ok(Some((cassette, Some(root))))
}

/// The largest file read as a body stored apart from its cassette (Playwright's `_file`,
/// WireMock's `__files/`).
const MAX_SIDECAR: u64 = 256 << 20;

/// Reads `folder/name`, refusing what resolves outside `folder` (a link out of it), what is
/// not a regular file, and what is larger than [`MAX_SIDECAR`]: the readers of bodies stored
/// apart (Playwright's `_file`, WireMock's `bodyFileName`) share it.
pub(super) fn read_inside(folder: &Path, name: &Path) -> std::io::Result<Vec<u8>> {
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let folder = folder.canonicalize()?;
    let target = folder.join(name).canonicalize()?;
    let refuse = |what: &str| Err(std::io::Error::other(what.to_owned()));
    if !target.starts_with(&folder) {
        return refuse("it resolves outside the folder it is read from");
    }
    // Checked before opening: opening a named pipe would wait for a writer.
    let meta = std::fs::metadata(&target)?;
    if !meta.is_file() {
        return refuse("it is not a regular file");
    }
    if meta.len() > MAX_SIDECAR {
        return refuse("it is larger than 256 MiB");
    }
    let file = std::fs::File::open(&target)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_SIDECAR), &mut bytes)?;
    Ok(bytes)
}

/// Whether `root` is a Pact contract (`consumer`, `provider`, `interactions`): it holds the
/// requests a consumer expects, not recordings, so it is no cassette, whatever keys it
/// shares with one.
fn is_pact(root: &Node) -> bool {
    root.get("consumer").is_some() && root.get("provider").is_some()
}

/// A field of a JSON object read as it streams: its key and value as nodes placed in
/// `source`.
fn field_nodes(
    name: vcr_json::Str<'_>,
    value: &vcr_json::Value<'_>,
    source: &[u8],
) -> (Node, Node) {
    let key = vcr_doc::from_value_in(&vcr_json::Value::String(name), source);
    (key, vcr_doc::from_value_in(value, source))
}

/// The ranges of `within` (a range of the text) that none of `interactions` holds: every
/// scalar value of `nodes` that starts where no field the reader took does and lies in no
/// body it kept as data, and the text between the scalars and the `opaque` ranges (the
/// windows of a cassette read in windows: [`read_windows`]); that is syntax, or what no node
/// holds.
fn outside(
    interactions: &[Interaction],
    nodes: &[Node],
    opaque: &[(u32, u32)],
    within: (u32, u32),
) -> Vec<(u32, u32)> {
    let mut taken: Vec<u32> = Vec::new();
    let mut data: Vec<(u32, u32)> = Vec::new();
    let mut field = |f: &Field| {
        if let Some(at) = f.at {
            taken.push(at);
        }
    };
    for interaction in interactions {
        field(&interaction.request.method);
        field(&interaction.request.url);
        for header in interaction.headers() {
            field(&header.value);
        }
        for body in interaction.bodies() {
            match body {
                Body::Bytes { field: f, .. } => field(f),
                Body::Data { node, .. } => data.push((node.start, node.end)),
            }
        }
        if let Some(recorded) = &interaction.recorded_at {
            field(recorded);
        }
    }
    // The fields come in runs (an interaction's, in the reader's order), which a stable
    // sort merges in one pass (an unstable sort was most of this function's time).
    taken.sort();
    data.sort();
    let in_data = |start: u32| {
        let i = data.partition_point(|&(s, _)| s <= start);
        i > 0 && start < data[i - 1].1
    };
    let mut out = Vec::new();
    // Every scalar's span, keys too: what lies between them is syntax, or text no node
    // holds (the value of a JSON key given twice, which `JSON.parse` drops; a comment; a
    // second YAML document).
    // In document order, so the spans come sorted (a sort was a fortieth of `verify`).
    fn walk(node: &Node, spans: &mut Vec<(u32, u32)>, untaken: &mut dyn FnMut(&Node)) {
        match &node.value {
            NodeValue::Scalar(_) => {
                if node.start != u32::MAX && node.end != u32::MAX {
                    spans.push((node.start, node.end));
                    untaken(node);
                }
            }
            NodeValue::Seq(items) => items.iter().for_each(|n| walk(n, spans, untaken)),
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    if k.start != u32::MAX && k.end != u32::MAX {
                        spans.push((k.start, k.end));
                    }
                    walk(v, spans, untaken);
                }
            }
        }
    }
    let mut spans = Vec::new();
    for node in nodes {
        walk(node, &mut spans, &mut |node| {
            if taken.binary_search(&node.start).is_err() && !in_data(node.start) {
                out.push((node.start, node.end));
            }
        });
    }
    spans.extend_from_slice(opaque);
    if !spans.is_sorted() {
        // Aliases point back; opaque ranges come last.
        spans.sort_unstable();
    }
    let (mut at, end) = within;
    for (start, stop) in spans {
        if start > at {
            out.push((at, start.min(end)));
        }
        at = at.max(stop);
    }
    if at < end {
        out.push((at, end));
    }
    // Merged, and only what is long enough to hold a credential (the shortest is 8 bytes).
    // The scalars no field took, then the text between scalars: two sorted runs.
    if !out.is_sorted() {
        out.sort();
    }
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(out.len());
    for (start, end) in out {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged.retain(|(start, end)| end - start >= 8);
    merged
}

/// The recorder a JSON text is likely to be, judged by the keys it holds: which recorders'
/// JSON cassettes can be read in windows ([`is_recorder_cassette`]).
fn json_format_hint(text: &str) -> Option<Format> {
    let has = |key: &str| text.contains(key);
    if has("\"http_interactions\"") {
        Some(ruby_vcr::FORMAT)
    } else if has("\"interactions\"") {
        Some(vcrpy::FORMAT)
    } else {
        None
    }
}

/// The recorder a YAML text is likely to be, from its top-level keys: only such files are
/// parsed as YAML (any other YAML stays text), and which can be read in windows.
fn yaml_format_hint(text: &str) -> Option<Format> {
    let named = text.lines().take(400).find_map(|line| {
        let key = line.split(':').next()?;
        match key {
            // go-vcr 3 and 4 write their version first (vcrpy sorts `version` last).
            "version" if line.trim_end() == "version: 2" => Some(go_vcr::FORMAT),
            "http_interactions" => Some(ruby_vcr::FORMAT),
            "interactions" | "requests" | "- request" => Some(vcrpy::FORMAT),
            "log" => Some(har::FORMAT),
            // Records of requests and responses, by their shapes.
            "imposters" => Some(generic::FORMAT),
            // php-vcr's Symfony writer opens each record with a `-` alone.
            "-" if line.trim_end() == "-" => Some(php_vcr::FORMAT),
            "responses" => Some(responses::FORMAT),
            "when" => Some(httpmock::FORMAT),
            _ => None,
        }
    });
    // Records of requests and responses under any other keys, by their shapes.
    named.or_else(|| generic::shows_records(head_of(text.as_bytes())).then_some(generic::FORMAT))
}

/// Decodes hexadecimal text (nock's and old Polly's binary bodies), either case; `None` when
/// it is not an even number of hex digits.
pub(super) fn decode_hex(text: &str) -> Option<Vec<u8>> {
    fn digit(b: u8) -> Option<u8> {
        match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            b'A'..=b'F' => Some(b - b'A' + 10),
            _ => None,
        }
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// The value of the first header named `name` (compared without case).
pub(super) fn first_header<'h>(headers: &'h [Header], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.text.as_str())
}

/// Whether a scalar is written as a string (quoted in JSON, JSON5 or YAML, or a YAML block or
/// plain scalar that resolves to no other type), not a number, a boolean or null.
pub(super) fn is_string(node: &Node) -> bool {
    let Some(scalar) = node.as_scalar() else {
        return false;
    };
    let text = scalar.text.as_str();
    let other_type = matches!(
        text,
        "true"
            | "false"
            | "True"
            | "False"
            | "TRUE"
            | "FALSE"
            | "null"
            | "Null"
            | "NULL"
            | "~"
            | ""
    ) || text.parse::<f64>().is_ok()
        || text.trim_start_matches(['-', '+']).starts_with("0x");
    scalar.style != vcr_doc::Style::Plain || !other_type
}

/// Whether a scalar is the boolean `true`.
pub(super) fn is_true(node: &Node) -> bool {
    node.as_scalar()
        .is_some_and(|s| s.style == vcr_doc::Style::Plain && s.text == "true")
}

/// What the readers' tests share.
#[cfg(test)]
mod testing {
    use super::{Body, Field, Format, Header, ReadError};

    /// A body's bytes, how they were stored and its field; a test failure if it is not bytes.
    #[track_caller]
    pub(super) fn bytes(body: Option<&Body>) -> (&[u8], &[&'static str], &Field) {
        match body {
            Some(Body::Bytes {
                bytes,
                stored,
                field,
            }) => (bytes, stored, field),
            other => panic!("not bytes: {other:?}"),
        }
    }

    /// Each header's name, value and path.
    pub(super) fn headers(headers: &[Header]) -> Vec<(&str, &str, &str)> {
        headers
            .iter()
            .map(|h| {
                (
                    h.name.as_str(),
                    h.value.text.as_str(),
                    h.value.path.as_str(),
                )
            })
            .collect()
    }

    /// Asserts that `error`, from reading `text`, is `format`'s `message` at the place where
    /// `at` is written.
    #[track_caller]
    pub(super) fn assert_error(
        error: &ReadError,
        text: &str,
        format: Format,
        message: &str,
        at: &str,
    ) {
        assert_eq!(
            (error.format, error.message.as_str()),
            (format, message),
            "{text}"
        );
        let rest = &text[error.offset..];
        assert!(rest.starts_with(at), "{text}: at {rest:?}, not {at:?}");
    }
}

#[cfg(test)]
mod tests {
    /// A Ruby VCR cassette a test runs through ERB (`erb: true`) is read with its tags as
    /// runs of `_`, every place unmoved; without the tags it was a `parse` error, which Ruby
    /// VCR never raises on it.
    #[test]
    fn a_ruby_vcr_cassette_with_erb_tags_is_read_around_them() {
        let text = "---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://<%= sid %>:<%= token %>@api.example.com/Accounts/<%= sid %>/Calls.json\n    body:\n      encoding: UTF-8\n      string: From=<%= CGI.escape from %>&To=1\n    headers:\n      Authorization:\n      - Bearer Zq8vN2kL5mR7pT3wYc1Nd5Fh\n  response:\n    status:\n      code: 400\n      message: Bad Request\n    headers: {}\n    body:\n      encoding: UTF-8\n      string: '{\"code\": <%= code %>, \"message\": <%= message.inspect.gsub(\"'\", \"''\") %>}'\n    http_version:\n  recorded_at: Tue, 01 Mar 2016 10:00:00 GMT\nrecorded_with: VCR 3.0.1\n";
        let cassette = read(Path::new("c.yml"), text.as_bytes()).unwrap().unwrap();
        assert_eq!(cassette.format, ruby_vcr::FORMAT);
        let request = &cassette.interactions[0].request;
        assert!(
            request.url.text.starts_with("https://__________:"),
            "{}",
            request.url.text
        );
        let header = &request.headers[0];
        let at = header.value.at.unwrap() as usize;
        assert_eq!(&text[at..at + header.value.text.len()], header.value.text);
        // What ERB does not explain is still the YAML error it was.
        let broken = text.replace("    http_version:\n", "    http_version: [\n");
        assert!(read(Path::new("c.yml"), broken.as_bytes()).is_err());
    }

    /// Every way of reading a cassette gives the same interactions, in one process: the
    /// read options are a value, so both paths run side by side (issue 40).
    #[test]
    fn every_read_path_gives_the_same_interactions() {
        let vcrpy = "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://api.example.com/a?x=1\n  response:\n    body:\n      string: one\n    headers: {}\n    status:\n      code: 200\n      message: OK\n- request:\n    body: '{\"q\": 2}'\n    headers:\n      Authorization:\n      - Bearer abc\n    method: POST\n    uri: https://api.example.com/b\n  response:\n    body:\n      string: two\n    headers: {}\n    status:\n      code: 201\n      message: Created\nversion: 1\n";
        let read = |options: &ReadOptions| {
            let mut seen = Vec::new();
            let format =
                read_windows(
                    Path::new("c.yaml"),
                    vcrpy.as_bytes(),
                    &Sidecars::new(),
                    options,
                    &mut |window| match window {
                        Some(window) => seen.extend(window.interactions.into_iter().map(|i| {
                            (i.request.method.text, i.request.url.text, i.request.url.at)
                        })),
                        None => seen.clear(),
                    },
                );
            (format.unwrap(), seen)
        };
        let fast = read(&ReadOptions::default());
        assert_eq!(fast.1.len(), 2);
        for other in [
            ReadOptions {
                fast_yaml: false,
                ..ReadOptions::default()
            },
            ReadOptions {
                http_window: Some(1),
                ..ReadOptions::default()
            },
        ] {
            assert_eq!(read(&other), fast, "{other:?}");
        }
    }

    /// A nock cassette and an httprr trace are read in windows (issue 43: read whole, one
    /// of 16,000 interactions took 18 to 19 times its size to scrub): one interaction a window
    /// when the window is a byte, and the same interactions, at the same places, as a whole
    /// read.
    #[test]
    fn nock_and_httprr_are_read_in_windows_as_whole() {
        use super::{ReadOptions, Sidecars, in_windows, read_windows, read_with};
        let nock = r#"[
  {"scope": "https://api.example.com:443", "method": "POST", "path": "/a", "body": {"k": "v1"}, "status": 200, "response": {"ok": true}, "rawHeaders": ["Content-Type", "application/json"]},
  {"scope": "https://api.example.com:443", "method": "GET", "path": "/b?x=1", "status": 201, "response": "two"}
]
"#;
        let request = "GET https://api.example.com/a HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer abc\r\n\r\n";
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        let record = format!("{} {}\n{request}{response}", request.len(), response.len());
        let httprr = format!("httprr trace v1\n{record}{record}");
        let windowed = ReadOptions {
            http_window: Some(1),
            ..ReadOptions::default()
        };
        for text in [nock, httprr.as_str()] {
            let path = Path::new("c.json");
            assert!(in_windows(text.as_bytes(), &windowed), "{text}");
            assert!(!in_windows(text.as_bytes(), &ReadOptions::default()));
            let whole = read_with(path, text.as_bytes(), &Sidecars::new(), &windowed)
                .unwrap()
                .unwrap();
            let mut windows = 0;
            let mut seen = Vec::new();
            let format = read_windows(
                path,
                text.as_bytes(),
                &Sidecars::new(),
                &windowed,
                &mut |w| {
                    let w = w.expect("never read whole");
                    windows += 1;
                    seen.extend(w.interactions);
                },
            )
            .unwrap();
            assert_eq!(format, Some(whole.format));
            assert_eq!(windows, 3, "{text}");
            assert_eq!(seen, whole.interactions, "{text}");
        }
    }

    use super::*;

    /// Over several members (the trailer gives the last one's size only, so the first part
    /// is too small), the inflated bytes are whole; past the limit, nothing is inflated,
    /// whatever the trailer says.
    #[test]
    fn gzip_is_inflated_whole_in_parts_and_not_past_the_limit() {
        let same = |got: Option<Vec<u8>>, want: &[u8]| got.is_some_and(|got| got == want);
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let gzip = compress(&data).unwrap();
        assert!(same(gunzip(&gzip), &data));
        // A trailer that does not match is an error of the gzip reader: the file stays text.
        let mut lying = gzip.clone();
        let at = lying.len() - 4;
        lying[at..].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(gunzip(&lying), None);
        // Two members: the trailer gives the last one's size only.
        let mut two = compress(&data).unwrap();
        two.extend(compress(b"tail").unwrap());
        let mut both = data.clone();
        both.extend(b"tail");
        assert!(same(gunzip(&two), &both));
        // The first member small, the second large: many parts.
        let mut many = compress(b"head").unwrap();
        many.extend(compress(&data).unwrap());
        many.extend(compress(b"tail").unwrap());
        let mut all = b"head".to_vec();
        all.extend(&data);
        all.extend(b"tail");
        assert!(same(gunzip(&many), &all));
        assert!(same(gunzip(&compress(b"").unwrap()), b""));
        assert_eq!(gunzip(b"not gzip"), None);
        // One byte more than the limit, whatever the trailer says.
        let over = compress(&vec![b' '; MAX_INFLATED as usize + 1]).unwrap();
        assert!(gunzip(&over).is_none());
        let mut small_trailer = over.clone();
        let at = small_trailer.len() - 4;
        small_trailer[at..].copy_from_slice(&0u32.to_le_bytes());
        assert!(gunzip(&small_trailer).is_none());
        let exactly = compress(&vec![b' '; MAX_INFLATED as usize]).unwrap();
        assert_eq!(
            gunzip(&exactly).map(|v| v.len()),
            Some(MAX_INFLATED as usize)
        );
    }
}
