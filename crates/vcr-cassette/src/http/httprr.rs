//! The httprr reader: Go's `httprr` traces (`rsc.io/httprr`, langchaingo's
//! `internal/httprr`).
//!
//! A trace is the line `httprr trace v1`, then one record per interaction: a line `N M`,
//! then `N` bytes of the request as Go's `Request.WriteProxy` writes it (request line with
//! the absolute URL, headers, blank line, body) and `M` bytes of the response as
//! `Response.Write` writes it (status line, headers, blank line, body). httprr compares the
//! request bytes whole and hands the response bytes to `http.ReadResponse`, so this reader
//! takes the request body to be the rest of its record, and the response body as Go reads
//! it: chunked (decoded, stored `["chunked"]`), `Content-Length` bytes, or the rest; none
//! for a `HEAD` request or a 1xx, 204 or 304 status. Lines may end in CRLF or LF (hand
//! edits leave bare LFs, and Go accepts them).
//!
//! Positions are byte offsets in the (decompressed) trace: a header's field sits at its
//! value, a body's at its first byte. Paths are `[3].request.headers.Authorization` (a
//! repeated header's second value is `Set-Cookie[1]`), `[3].request.url`,
//! `[3].response.body`.

use super::recorder::{Filtered, Format, How, RecordMode, RecordRun, Recorder};
use super::{Body, Field, Header, HttpCassette, Interaction, ReadError, Request, Response};

/// The first line of every trace.
const MAGIC: &str = "httprr trace v1";

/// Whether the text is an httprr trace.
pub(super) fn is_httprr(text: &str) -> bool {
    text.strip_prefix(MAGIC)
        .is_some_and(|rest| rest.starts_with('\n') || rest.starts_with("\r\n"))
}

/// Reads an httprr trace.
pub(super) fn read(text: &str) -> Result<HttpCassette, ReadError> {
    let mut pos = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut interactions = Vec::new();
    while pos < text.len() {
        let index = interactions.len();
        let (record, next) = record(text, pos, index)?;
        interactions.push(record);
        pos = next;
    }
    Ok(HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    })
}

/// Reads an httprr trace a window of records at a time, as a large HAR is
/// ([`super::read_windows`]): each run of records whose text reaches `window` bytes goes to
/// `visit` as a cassette of its own (named as in the whole trace), then one without records
/// (a trace has nothing outside them). A trace of 16,000 records read whole held its
/// interactions and their judgement at once, 19 times the file (issue 43). How many windows;
/// the first record that does not read is the trace's error, after the windows before it.
pub(super) fn read_windows(
    text: &str,
    window: usize,
    visit: &mut dyn FnMut(HttpCassette, Vec<vcr_doc::Node>),
) -> Result<Option<usize>, ReadError> {
    let cassette = |interactions| HttpCassette {
        format: FORMAT,
        interactions,
        compressed: false,
        outside: Vec::new(),
    };
    let mut pos = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut from = pos;
    let mut index = 0;
    let mut count = 0;
    let mut interactions = Vec::new();
    while pos < text.len() {
        let (record, next) = record(text, pos, index)?;
        index += 1;
        interactions.push(record);
        pos = next;
        if pos - from >= window {
            visit(cassette(std::mem::take(&mut interactions)), Vec::new());
            count += 1;
            from = pos;
        }
    }
    if !interactions.is_empty() {
        visit(cassette(interactions), Vec::new());
        count += 1;
    }
    visit(cassette(Vec::new()), Vec::new());
    Ok(Some(count + 1))
}

/// Where each record's `N M` line sits (its start and the end of its digits) and the
/// lengths it gives: what a rewrite of the trace must write again. Records that do not read
/// end the list (a trace that was read whole has none).
pub fn lengths(text: &str) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    let mut pos = text.find('\n').map_or(text.len(), |i| i + 1);
    while pos < text.len() {
        let line = text[pos..].split('\n').next().unwrap_or_default();
        let digits = line.trim_end_matches('\r');
        let Some((n, m)) = digits.split_once(' ') else {
            break;
        };
        let (Ok(n), Ok(m)) = (n.parse::<usize>(), m.parse::<usize>()) else {
            break;
        };
        out.push((pos, pos + digits.len(), n, m));
        pos += line.len() + 1 + n + m;
    }
    out
}

/// The error of record `index` at `offset`.
fn error(offset: usize, what: impl std::fmt::Display) -> ReadError {
    ReadError {
        format: FORMAT,
        message: what.to_string(),
        offset,
    }
}

/// Reads the record starting at `pos` (its `N M` line): the interaction and where the next
/// record starts.
fn record(text: &str, pos: usize, index: usize) -> Result<(Interaction, usize), ReadError> {
    let path = format!("[{index}]");
    let rest = &text[pos..];
    let line = rest.split('\n').next().unwrap_or_default();
    let corrupt = || {
        error(
            pos,
            format!("{path} has no `N M` length line (found `{line}`)"),
        )
    };
    if !rest.contains('\n') {
        return Err(corrupt());
    }
    let (n, m) = line
        .trim_end_matches('\r')
        .split_once(' ')
        .ok_or_else(corrupt)?;
    let n: usize = n.parse().map_err(|_| corrupt())?;
    let m: usize = m.parse().map_err(|_| corrupt())?;
    let start = pos + line.len() + 1;
    let left = text.len() - start;
    if n > left || m > left - n {
        return Err(error(
            pos,
            format!("{path} claims {n} + {m} bytes, but only {left} remain"),
        ));
    }
    let slice = |from: usize, to: usize| {
        text.get(from..to)
            .ok_or_else(|| error(pos, format!("{path}'s lengths split a UTF-8 character")))
    };
    let request = request(slice(start, start + n)?, start, &path)?;
    let response = response(
        slice(start + n, start + n + m)?,
        start + n,
        &path,
        &request.method.text,
    )?;
    let interaction = Interaction {
        path,
        request,
        response: Some(response),
        recorded_at: None,
    };
    Ok((interaction, start + n + m))
}

/// A message's head (start line and headers) and where its body starts.
struct Head<'t> {
    /// The start line, without its line ending.
    start_line: &'t str,
    /// Headers in order, each name with its value field.
    headers: Vec<Header>,
    /// Offset of the body in the message.
    body: usize,
}

/// Reads the head of a message whose text is `msg`, found at `base` in the trace.
fn head<'t>(msg: &'t str, base: usize, path: &str) -> Result<Head<'t>, ReadError> {
    let mut lines = Lines { msg, pos: 0 };
    let start_line = lines
        .next()
        .ok_or_else(|| error(base, format!("{path} is empty")))?
        .1;
    let mut headers: Vec<Header> = Vec::new();
    loop {
        let Some((at, line)) = lines.next() else {
            return Err(error(
                base + msg.len(),
                format!("{path} ends before the blank line after its headers"),
            ));
        };
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').ok_or_else(|| {
            error(
                base + at,
                format!("{path} has a header line without a colon: `{line}`"),
            )
        })?;
        let lead = value.len() - value.trim_start().len();
        let seen = headers.iter().filter(|h| h.name == name).count();
        let key = match seen {
            0 => format!("{path}.headers.{name}"),
            k => format!("{path}.headers.{name}[{k}]"),
        };
        headers.push(Header {
            name: name.to_owned(),
            value: Field {
                text: value.trim().to_owned(),
                at: Some((base + at + name.len() + 1 + lead) as u32),
                path: key,
            },
        });
    }
    Ok(Head {
        start_line,
        headers,
        body: lines.pos,
    })
}

/// Lines of a message, each with its offset, without its `\n` or `\r\n`.
struct Lines<'t> {
    msg: &'t str,
    pos: usize,
}

impl<'t> Iterator for Lines<'t> {
    type Item = (usize, &'t str);

    fn next(&mut self) -> Option<(usize, &'t str)> {
        let rest = &self.msg[self.pos..];
        let len = rest.find('\n')?;
        let at = self.pos;
        self.pos += len + 1;
        Some((at, rest[..len].trim_end_matches('\r')))
    }
}

/// Reads the request of record `path` (`msg`, at `base` in the trace).
fn request(msg: &str, base: usize, path: &str) -> Result<Request, ReadError> {
    let path = format!("{path}.request");
    let head = head(msg, base, &path)?;
    let mut parts = head.start_line.splitn(3, ' ');
    let (Some(method), Some(url), Some(proto)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(error(
            base,
            format!(
                "{path} does not start with `METHOD URL HTTP/1.1`: `{}`",
                head.start_line
            ),
        ));
    };
    if !proto.starts_with("HTTP/") {
        return Err(error(
            base,
            format!(
                "{path} does not start with `METHOD URL HTTP/1.1`: `{}`",
                head.start_line
            ),
        ));
    }
    let field = |text: &str, at: usize, key: &str| Field {
        text: text.to_owned(),
        at: Some((base + at) as u32),
        path: format!("{path}.{key}"),
    };
    let body = &msg[head.body..];
    let body = if body.is_empty() {
        None
    } else if chunked(&head.headers) {
        Some(dechunk(body, base + head.body, &path)?)
    } else {
        Some(plain_body(body, base + head.body, &path))
    };
    Ok(Request {
        method: field(method, 0, "method"),
        url: field(url, method.len() + 1, "url"),
        headers: head.headers,
        body,
    })
}

/// Reads the response of record `path` (`msg`, at `base`), as Go reads the response to a
/// `method` request.
fn response(msg: &str, base: usize, path: &str, method: &str) -> Result<Response, ReadError> {
    let path = format!("{path}.response");
    let head = head(msg, base, &path)?;
    let mut parts = head.start_line.splitn(3, ' ');
    let status = match (parts.next(), parts.next()) {
        (Some(proto), Some(code)) if proto.starts_with("HTTP/") && code.len() == 3 => {
            code.parse::<u16>().ok()
        }
        _ => None,
    }
    .ok_or_else(|| {
        error(
            base,
            format!(
                "{path} does not start with `HTTP/1.1 200 OK`: `{}`",
                head.start_line
            ),
        )
    })?;
    let rest = &msg[head.body..];
    let at = base + head.body;
    let bodiless = method.eq_ignore_ascii_case("HEAD")
        || (100..200).contains(&status)
        || status == 204
        || status == 304;
    let body = if bodiless || rest.is_empty() {
        None
    } else if chunked(&head.headers) {
        Some(dechunk(rest, at, &path)?)
    } else if let Some(length) = super::first_header(&head.headers, "content-length") {
        let length: usize = length.trim().parse().map_err(|_| {
            error(
                at,
                format!("{path} has a `Content-Length` that is not a number: `{length}`"),
            )
        })?;
        let body = rest.as_bytes().get(..length).ok_or_else(|| {
            error(
                at,
                format!(
                    "{path} body is shorter ({} bytes) than its `Content-Length` ({length})",
                    rest.len()
                ),
            )
        })?;
        // The text is already UTF-8: only a body cut inside a character needs the lossy
        // copy (which validated every byte again: 2% of `verify` over the corpus, issue 12).
        let text = rest
            .get(..length)
            .map_or_else(|| String::from_utf8_lossy(body), std::borrow::Cow::Borrowed);
        Some(Body::Bytes {
            field: body_field(&text, at, &path),
            bytes: body.to_vec(),
            stored: Vec::new(),
        })
    } else {
        Some(plain_body(rest, at, &path))
    };
    Ok(Response {
        status: Some(status),
        headers: head.headers,
        body,
    })
}

/// Whether the last `Transfer-Encoding` is `chunked`.
fn chunked(headers: &[Header]) -> bool {
    super::first_header(headers, "transfer-encoding")
        .is_some_and(|v| v.trim().to_ascii_lowercase().ends_with("chunked"))
}

/// The field of a body whose text starts at `at`.
fn body_field(text: &str, at: usize, path: &str) -> Field {
    Field {
        text: text.to_owned(),
        at: Some(at as u32),
        path: format!("{path}.body"),
    }
}

/// A body taken as it stands.
fn plain_body(text: &str, at: usize, path: &str) -> Body {
    Body::Bytes {
        field: body_field(text, at, path),
        bytes: text.as_bytes().to_vec(),
        stored: Vec::new(),
    }
}

/// Decodes a chunked body (`text`, at `at`): chunk sizes in hex (extensions after `;`
/// ignored), each chunk's data then a line ending, a last chunk of size 0, optional trailers
/// and a blank line. The body's field holds the chunked text. Chunks are bytes: one may end
/// inside a UTF-8 character that the next one completes.
fn dechunk(text: &str, at: usize, path: &str) -> Result<Body, ReadError> {
    let bytes = text.as_bytes();
    let bad =
        |pos: usize, what: &str| error(at + pos, format!("{path} body is not chunked: {what}"));
    // The line at `pos` (without its line ending) and where the next one starts.
    let line_at = |pos: usize| -> Option<(&[u8], usize)> {
        let len = bytes.get(pos..)?.iter().position(|&b| b == b'\n')?;
        let line = &bytes[pos..pos + len];
        Some((line.strip_suffix(b"\r").unwrap_or(line), pos + len + 1))
    };
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let (line, next) = line_at(pos).ok_or_else(|| bad(pos, "it ends early"))?;
        let line = String::from_utf8_lossy(line);
        let size = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| bad(pos, &format!("`{line}` is not a chunk size")))?;
        pos = next;
        if size == 0 {
            break;
        }
        let data = bytes
            .get(pos..pos.saturating_add(size))
            .ok_or_else(|| bad(pos, "a chunk is longer than what is left"))?;
        out.extend_from_slice(data);
        pos += size;
        pos += match &bytes[pos..] {
            [b'\r', b'\n', ..] => 2,
            [b'\n', ..] => 1,
            _ => return Err(bad(pos, "a chunk does not end with a line break")),
        };
    }
    // Trailers, up to the blank line (a trace cut right after the last chunk is accepted).
    while let Some((line, next)) = line_at(pos) {
        pos = next;
        if line.is_empty() {
            break;
        }
    }
    let raw = String::from_utf8_lossy(&bytes[..pos.min(bytes.len())]);
    Ok(Body::Bytes {
        field: body_field(&raw, at, path),
        bytes: out,
        stored: vec!["chunked"],
    })
}

/// Go's httprr (golang.org/x/oscar's, rsc.io/httprr).
pub struct Httprr;

/// httprr's [`Format`].
pub const FORMAT: Format = Format::new(&Httprr);

impl Recorder for Httprr {
    fn name(&self) -> &'static str {
        "httprr"
    }

    fn sniff(&self, head: &super::recorder::Head<'_>) -> bool {
        is_httprr(head.text)
    }

    fn is_raw(&self, text: &str) -> bool {
        is_httprr(text)
    }

    fn read_text(&self, text: &str) -> Result<HttpCassette, ReadError> {
        read(text)
    }

    /// Its first line, `httprr trace v1`.
    fn identified(&self, text: &str) -> bool {
        is_httprr(text)
    }

    fn default_match_on(&self) -> &'static [&'static str] {
        &["method", "url", "body"]
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => {
                format!("httprr's rr.ScrubReq setting `{name}` to \"{placeholder}\" in the request")
            }
            Filtered::Header { name } => {
                format!("httprr's rr.ScrubReq setting `{name}` to its placeholder")
            }
            Filtered::Body => {
                "httprr's rr.ScrubReq writing the same placeholders in the body".into()
            }
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["httprr"]
    }

    fn record_mode(&self, tool: &'static str, run: &RecordRun<'_>) -> RecordMode {
        if run.names("-httprecord") || run.names("--httprecord") {
            RecordMode::only(tool, How::Given("-httprecord".to_owned()))
        } else {
            RecordMode::only(
                tool,
                How::Cannot(
                    "httprr records only with its test flag `-httprecord`, a regular expression of the files to record again: `vcr record -- go test ./PKG -httprecord=.` (only packages that use httprr accept it)",
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::testing::{assert_error, bytes, headers};

    /// A trace of `(request, response)` records, each framed by its `N M` line.
    fn trace(records: &[(&str, &str)]) -> String {
        let mut text = String::from("httprr trace v1\n");
        for (request, response) in records {
            text += &format!("{} {}\n{request}{response}", request.len(), response.len());
        }
        text
    }

    const POST: &str = "POST https://api.example.test/v1/chat?key=k HTTP/1.1\r\n\
        Host: api.example.test\r\nUser-Agent: langchaingo-httprr\n\
        Authorization:  Bearer sk-abc \r\nContent-Length: 7\r\n\r\n{\"q\":1}";
    const OK: &str = "HTTP/2.0 200 OK\r\nContent-Length: 6\r\nSet-Cookie: a=1\r\n\
        Set-Cookie: b=2\r\n\r\n{\"a\":1}";

    #[test]
    fn recognises_the_first_line() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(is_httprr(text), expected, "{text:?}");
        }
        case("httprr trace v1\n", true);
        case("httprr trace v1\r\n12 3\n", true);
        case("httprr trace v1", false);
        case("httprr trace v2\n", false);
        case("httprr trace v10\n", false);
        case(" httprr trace v1\n", false);
    }

    #[test]
    fn reads_requests_and_responses_with_offsets_and_paths() {
        let text = trace(&[(POST, OK), (POST, OK)]);
        let cassette = read(&text).unwrap();
        assert_eq!(cassette.format, FORMAT);
        assert_eq!(cassette.interactions.len(), 2);
        let second = &cassette.interactions[1];
        assert_eq!(second.path, "[1]");
        let at = |field: &Field| &text[field.at.unwrap() as usize..];
        let request = &second.request;
        assert_eq!(
            (request.method.text.as_str(), request.method.path.as_str()),
            ("POST", "[1].request.method")
        );
        assert!(at(&request.method).starts_with("POST https"));
        assert_eq!(request.url.text, "https://api.example.test/v1/chat?key=k");
        assert!(at(&request.url).starts_with("https://api.example.test/v1/chat?key=k HTTP/1.1"));
        let headers = headers(&request.headers);
        assert_eq!(
            headers,
            [
                ("Host", "api.example.test", "[1].request.headers.Host"),
                (
                    "User-Agent",
                    "langchaingo-httprr",
                    "[1].request.headers.User-Agent"
                ),
                (
                    "Authorization",
                    "Bearer sk-abc",
                    "[1].request.headers.Authorization"
                ),
                ("Content-Length", "7", "[1].request.headers.Content-Length"),
            ]
        );
        assert!(at(&request.headers[2].value).starts_with("Bearer sk-abc \r\n"));
        let (body, stored, field) = bytes(request.body.as_ref());
        assert_eq!(
            (body, stored, field.path.as_str()),
            (&b"{\"q\":1}"[..], &[][..], "[1].request.body")
        );
        assert!(
            at(field).starts_with("{\"q\":1}HTTP/2.0 200"),
            "{}",
            at(field)
        );

        let response = second.response.as_ref().unwrap();
        assert_eq!(response.status, Some(200));
        let cookies: Vec<&str> = response
            .headers
            .iter()
            .map(|h| h.value.path.as_str())
            .collect();
        assert_eq!(
            cookies,
            [
                "[1].response.headers.Content-Length",
                "[1].response.headers.Set-Cookie",
                "[1].response.headers.Set-Cookie[1]"
            ]
        );
        // `Content-Length: 6` of a 7-byte body: Go reads 6 bytes.
        let (body, _, field) = bytes(response.body.as_ref());
        assert_eq!(
            (body, field.path.as_str()),
            (&b"{\"a\":1"[..], "[1].response.body")
        );
        assert!(at(field).starts_with("{\"a\":1}"));
    }

    #[test]
    fn reads_response_bodies_as_go_does() {
        #[track_caller]
        fn case(request: &str, response: &str, expected: Option<(&[u8], &[&str])>) {
            let text = trace(&[(request, response)]);
            let cassette = read(&text).unwrap_or_else(|e| panic!("{response:?}: {e}"));
            let got = &cassette.interactions[0].response.as_ref().unwrap().body;
            match (got, expected) {
                (None, None) => {}
                (
                    Some(Body::Bytes {
                        bytes,
                        stored,
                        field,
                    }),
                    Some((want, want_stored)),
                ) => {
                    assert_eq!(
                        (&bytes[..], &stored[..]),
                        (want, want_stored),
                        "{response:?}"
                    );
                    assert_eq!(
                        &text[field.at.unwrap() as usize..][..field.text.len()],
                        field.text
                    );
                }
                (got, _) => panic!("{response:?}: {got:?}"),
            }
        }
        let get = "GET http://h.test/ HTTP/1.1\r\nHost: h.test\r\n\r\n";
        let head = "HEAD http://h.test/ HTTP/1.1\r\nHost: h.test\r\n\r\n";
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        case(
            get,
            &format!("{chunked}5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n"),
            Some((b"hello, world", &["chunked"])),
        );
        // Trailers after the last chunk; LF line endings.
        case(
            get,
            &format!("{chunked}3\nabc\n0\nX-Trailer: 1\n\n"),
            Some((b"abc", &["chunked"])),
        );
        // Chunks of a multi-byte text.
        case(
            get,
            &format!("{chunked}2\r\n\u{e9}\r\n3\r\n\u{20ac}\r\n0\r\n\r\n"),
            Some(("\u{e9}\u{20ac}".as_bytes(), &["chunked"])),
        );
        case(
            get,
            "HTTP/1.1 200 OK\r\n\r\nuntil the end",
            Some((b"until the end", &[])),
        );
        case(get, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", None);
        case(head, "HTTP/1.1 200 OK\r\nContent-Length: 52\r\n\r\n", None);
        case(
            get,
            "HTTP/1.1 304 Not Modified\r\nContent-Length: 52\r\n\r\n",
            None,
        );
        case(get, "HTTP/1.1 204 No Content\r\n\r\n", None);
    }

    /// A `Content-Length` body is the text it covers, and where that length ends inside a
    /// character, the bytes it covers with the cut character replaced.
    #[test]
    fn a_length_body_is_its_text_even_cut_inside_a_character() {
        let get = "GET http://h.test/ HTTP/1.1\r\n\r\n";
        for (length, text, bytes) in [
            (3, "\u{e9}a", "\u{e9}a".as_bytes()),
            (2, "\u{e9}", "\u{e9}".as_bytes()),
            (1, "\u{fffd}", &[0xc3][..]),
            (4, "\u{e9}a\u{fffd}", &[0xc3, 0xa9, b'a', 0xe2][..]),
        ] {
            let response =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n\u{e9}a\u{20ac}");
            let cassette = read(&trace(&[(get, &response)])).unwrap();
            let Some(Body::Bytes {
                field, bytes: got, ..
            }) = &cassette.interactions[0].response.as_ref().unwrap().body
            else {
                panic!("{response:?}");
            };
            assert_eq!((field.text.as_str(), &got[..]), (text, bytes), "{length}");
        }
    }

    #[test]
    fn a_corrupt_trace_is_an_error_at_the_record() {
        #[track_caller]
        fn case(text: &str, message: &str, at: &str) {
            assert_error(&read(text).unwrap_err(), text, FORMAT, message, at);
        }
        let ok = "HTTP/1.1 200 OK\r\n\r\n";
        let get = "GET http://h.test/ HTTP/1.1\r\n\r\n";
        let good = trace(&[(get, ok)]);
        case(
            &format!("{good}12 x\n"),
            "[1] has no `N M` length line (found `12 x`)",
            "12 x",
        );
        case(
            &format!("{good}12"),
            "[1] has no `N M` length line (found `12`)",
            "12",
        );
        case(
            &format!("{good}5 1000\nGET /"),
            "[1] claims 5 + 1000 bytes, but only 5 remain",
            "5 1000",
        );
        case(
            &trace(&[("GET /\r\n\r\n", ok)]),
            "[0].request does not start with `METHOD URL HTTP/1.1`: `GET /`",
            "GET /",
        );
        case(
            &trace(&[(get, "HTTP/1.1 OK\r\n\r\n")]),
            "[0].response does not start with `HTTP/1.1 200 OK`: `HTTP/1.1 OK`",
            "HTTP/1.1 OK",
        );
        case(
            &trace(&[("GET http://h.test/ HTTP/1.1\r\nHost h\r\n\r\n", ok)]),
            "[0].request has a header line without a colon: `Host h`",
            "Host h",
        );
        case(
            &trace(&[("GET http://h.test/ HTTP/1.1\r\nHost: h\r\n", ok)]),
            "[0].request ends before the blank line after its headers",
            "HTTP/1.1 200",
        );
        case(
            &trace(&[(get, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")]),
            "[0].response body is shorter (5 bytes) than its `Content-Length` (10)",
            "short",
        );
        case(
            &trace(&[(
                get,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            )]),
            "[0].response body is not chunked: `zz` is not a chunk size",
            "zz",
        );
        case(
            &trace(&[(
                get,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nabc\r\n0\r\n\r\n",
            )]),
            "[0].response body is not chunked: a chunk is longer than what is left",
            "abc",
        );
        case(
            &trace(&[(
                get,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
            )]),
            "[0].response body is not chunked: a chunk does not end with a line break",
            "c\r\n0",
        );
        case(
            &trace(&[(
                get,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
            )]),
            "[0].response body is not chunked: it ends early",
            "",
        );
        // Lengths that cut a character in two.
        case(
            "httprr trace v1\n1 0\n\u{e9}",
            "[0]'s lengths split a UTF-8 character",
            "1 0",
        );
    }
}
