//! govcr cassettes (Go, seborama/govcr): `json.MarshalIndent` of Go's own structs.
//!
//! `{"Tracks": [...]}` (v5 and later; v1 to v4 add the cassette's `Name` and keep them in
//! `./govcr-fixtures/<name>.cassette`), each track `{Request, Response, ErrType, ErrMsg,
//! UUID}`:
//! - `Request`: `Method`, `URL` as Go's `url.URL` (`Scheme`, `Host`, `Path`, `RawPath`,
//!   `RawQuery`, ...), `Header` (name to a list of values), `Body`, and the rest of
//!   `http.Request`;
//! - `Response`: `Status` (`"200 OK"`), `StatusCode`, `Header`, `Body`, ... (`null` when the
//!   track recorded an error).
//!
//! A `Body` is Go's `[]byte`, so always base64 (`""` for none). The URL is read as the text
//! Go's `URL.String()` would give for a request (scheme, host, path, query), placed at the
//! scalar its end comes from (the query, else the path, else the host), so that a finding
//! in the query points at it and a scrub rewrites only that scalar.
//!
//! A cassette named `*.gz` is gzip'd whole ("long play"); a cassette that govcr encrypted
//! starts with `$ENC:V2$` (v1: `$ENC$`), then the nonce and ciphertext: it cannot be read
//! without the key, and is reported as such (`Recorder::encrypted`).

use std::path::Path;

use vcr_doc::Node;

use super::recorder::{
    Filtered, Format, Head, How, MissNames, MissRule, RecordMode, RecordRun, Recorder, has,
};
use super::walk::{self, At};
use super::{Field, HttpCassette, Interaction, ReadError, Request, Response, Sidecars};

/// The prefixes of govcr's encrypted cassettes (v2, then v1).
const ENCRYPTED: [&[u8]; 2] = [b"$ENC:V2$", b"$ENC$"];

/// Whether the document is a govcr cassette: a mapping with a `Tracks` list (`null`, Go's
/// empty slice, for none).
pub(super) fn matches(root: &Node) -> bool {
    root.get("Tracks")
        .is_some_and(|tracks| tracks.is_null() || tracks.as_seq().is_some())
}

/// Reads a govcr cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    if root.get("Tracks").is_some_and(Node::is_null) {
        return Ok(HttpCassette {
            format: FORMAT,
            interactions: Vec::new(),
            compressed: false,
            outside: Vec::new(),
        });
    }
    walk::cassette(root, FORMAT, "Tracks", track)
}

fn track(item: &At<'_>) -> Result<Interaction, ReadError> {
    let request = item.need("Request")?;
    Ok(Interaction {
        path: item.path.clone(),
        request: Request {
            method: request.need("Method")?.into_field()?,
            url: url(&request.need("URL")?)?,
            headers: request.headers_in("Header")?,
            body: request.get("Body").map_or(Ok(None), |b| b.body_base64())?,
        },
        response: match item.get("Response") {
            Some(response) => Some(Response {
                status: match (response.get("StatusCode"), response.get("Status")) {
                    (Some(code), _) => Some(code.status()?),
                    (None, Some(status)) => Some(status.status()?),
                    (None, None) => None,
                },
                headers: response.headers_in("Header")?,
                body: response.get("Body").map_or(Ok(None), |b| b.body_base64())?,
            }),
            None => None,
        },
        recorded_at: None,
    })
}

/// The URL as a request's `URL.String()` reads (`scheme://host/path?query`), placed at the
/// scalar that ends it; a URL written as a string is read as it is.
fn url(url: &At<'_>) -> Result<Field, ReadError> {
    if url.node.as_scalar().is_some() {
        return url.field();
    }
    let part = |key: &str| -> Result<Option<Field>, ReadError> {
        Ok(url
            .get(key)
            .map(|p| p.field())
            .transpose()?
            .filter(|f| !f.text.is_empty()))
    };
    let scheme = part("Scheme")?;
    let host = part("Host")?;
    let path = match part("RawPath")? {
        Some(raw) => Some(raw),
        None => part("Path")?,
    };
    let query = part("RawQuery")?;
    let opaque = part("Opaque")?;
    let mut text = String::new();
    if let Some(scheme) = &scheme {
        text.push_str(&scheme.text);
        text.push(':');
    }
    match &opaque {
        Some(opaque) => text.push_str(&opaque.text),
        None => {
            if let Some(host) = &host {
                text.push_str("//");
                text.push_str(&host.text);
            }
            if let Some(path) = &path {
                if host.is_some() && !path.text.starts_with('/') {
                    text.push('/');
                }
                text.push_str(&path.text);
            }
        }
    }
    if let Some(query) = &query {
        text.push('?');
        text.push_str(&query.text);
    }
    let last = query
        .or(if opaque.is_some() {
            opaque
        } else {
            path.or(host)
        })
        .or(scheme);
    Ok(Field {
        text,
        at: last.and_then(|f| f.at),
        path: url.path.clone(),
    })
}

/// govcr.
pub struct Govcr;

/// govcr's [`Format`].
pub const FORMAT: Format = Format::new(&Govcr);

impl Recorder for Govcr {
    fn name(&self) -> &'static str {
        "govcr"
    }

    /// `Tracks` (v1 to v4 write the cassette's `Name` first), or an encrypted cassette.
    fn sniff(&self, head: &Head<'_>) -> bool {
        (!head.list && head.has("Tracks"))
            || ENCRYPTED
                .iter()
                .any(|p| head.text.as_bytes().starts_with(p))
    }

    fn matches(&self, root: &Node) -> bool {
        matches(root)
    }

    fn read(&self, root: &Node, _: &Path, _: &Sidecars) -> Result<HttpCassette, ReadError> {
        read(root)
    }

    fn encrypted(&self, bytes: &[u8]) -> bool {
        ENCRYPTED.iter().any(|p| bytes.starts_with(p))
    }

    /// `Tracks` with Go's own field names (`ProtoMajor`, `RawQuery`, `ErrType`).
    fn identified(&self, text: &str) -> bool {
        has(text, "\"Tracks\"")
            && ["\"ProtoMajor\"", "\"RawQuery\"", "\"ErrType\""]
                .iter()
                .any(|key| has(text, key))
    }

    /// `NewStrictRequestMatchers()`: headers, method, URL, body (and trailers).
    fn default_match_on(&self) -> &'static [&'static str] {
        &["headers", "method", "url", "body"]
    }

    fn dialect(&self) -> vcr_doc::edit::Dialect {
        vcr_doc::edit::Dialect::Json
    }

    fn filter(&self, what: Filtered<'_>, _: Option<&str>) -> Option<String> {
        Some(match what {
            Filtered::Query { name, placeholder } => format!(
                "a govcr request matcher (`WithRequestMatchers(...)`) that compares URLs with `{name}` set to \"{placeholder}\""
            ),
            Filtered::Header { name } => format!(
                "govcr's `WithRequestMatchers(...)` with a header matcher that ignores `{name}` (or `NewMethodURLRequestMatchers()`, which leaves headers out)"
            ),
            Filtered::Body => "govcr's `WithRequestMatchers(...)` without the body matcher (`NewMethodURLRequestMatchers()`)".into(),
        })
    }

    fn tools(&self) -> &'static [&'static str] {
        &["govcr"]
    }

    fn record_mode(&self, tool: &'static str, _: &RecordRun<'_>) -> RecordMode {
        RecordMode::only(
            tool,
            How::InCode(
                "`govcr.NewVCR` records what a cassette does not hold; `WithOfflineMode()` and `WithReadOnlyMode()` only replay",
            ),
        )
    }

    fn misses(&self) -> &'static [MissRule] {
        &[MissRule {
            headline: r"no track matched on cassette and offline mode is active",
            names: MissNames::Nowhere,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::{FORMAT, matches, read};
    use crate::http::HttpCassette;
    use crate::http::testing::{bytes, headers};
    use vcr_doc::from_json;

    #[track_caller]
    fn read_text(text: &str) -> HttpCassette {
        let root = from_json(text.as_bytes()).unwrap();
        assert!(matches(&root), "not govcr: {text}");
        read(&root).unwrap()
    }

    /// As govcr v13 writes it (`json.MarshalIndent`, `&` escaped by Go), and a track that
    /// recorded an error.
    #[test]
    fn reads_govcr_cassettes() {
        let text = r#"{
  "Tracks": [
    {
      "Request": {
        "Method": "POST",
        "URL": {"Scheme": "https", "Opaque": "", "User": null, "Host": "api.example.com", "Path": "/v1/items", "RawPath": "", "OmitHost": false, "ForceQuery": false, "RawQuery": "api_key=k7Qw2Rt9\u0026page=2", "Fragment": "", "RawFragment": ""},
        "Proto": "HTTP/1.1", "ProtoMajor": 1, "ProtoMinor": 1,
        "Header": {"Authorization": ["Token 0037d0"]},
        "Body": "eyJwYXNzd29yZCI6InMzY3IzdCJ9",
        "ContentLength": 21
      },
      "Response": {
        "Status": "201 Created", "StatusCode": 201,
        "Header": {"Content-Type": ["application/json"]},
        "Body": "eyJpZCI6MX0=",
        "TLS": null
      },
      "ErrType": null, "ErrMsg": null, "UUID": "901fb1a7-7740-4cdb-9b86-b225164814af"
    },
    {
      "Request": {"Method": "GET", "URL": {"Scheme": "http", "Host": "localhost:8000", "Path": "", "RawQuery": ""}, "Header": {}, "Body": ""},
      "Response": null,
      "ErrType": "*url.Error", "ErrMsg": "connection refused"
    }
  ]
}"#;
        let cassette = read_text(text);
        let [first, second] = &cassette.interactions[..] else {
            panic!("two tracks expected");
        };
        assert_eq!(first.path, "Tracks[0]");
        let url = &first.request.url;
        assert_eq!(
            url.text,
            "https://api.example.com/v1/items?api_key=k7Qw2Rt9&page=2"
        );
        assert_eq!(url.path, "Tracks[0].Request.URL");
        assert!(text[url.at.unwrap() as usize..].starts_with("\"api_key="));
        assert_eq!(
            headers(&first.request.headers),
            [(
                "Authorization",
                "Token 0037d0",
                "Tracks[0].Request.Header.Authorization[0]"
            )]
        );
        let (body, stored, _) = bytes(first.request.body.as_ref());
        assert_eq!(body, br#"{"password":"s3cr3t"}"#);
        assert_eq!(stored, ["base64"]);
        let response = first.response.as_ref().unwrap();
        assert_eq!(response.status, Some(201));
        assert_eq!(bytes(response.body.as_ref()).0, br#"{"id":1}"#);
        assert_eq!(second.request.url.text, "http://localhost:8000");
        assert_eq!(second.request.body, None);
        assert!(second.response.is_none());
    }

    /// v4's `Name` beside `Tracks`; an encrypted cassette is known by its prefix.
    #[test]
    fn reads_v4_and_knows_encrypted_files() {
        let cassette = read_text(
            r#"{"Name": "ListRoles", "Tracks": [{"Request": {"Method": "GET", "URL": {"Scheme": "http", "Host": "localhost:8000", "Path": "/api/ipam/roles/"}, "Header": {}, "Body": ""}, "Response": {"Status": "200 OK", "StatusCode": 200, "Header": {}, "Body": ""}}]}"#,
        );
        assert_eq!(
            cassette.interactions[0].request.url.text,
            "http://localhost:8000/api/ipam/roles/"
        );
        // No tracks: Go's nil slice.
        let empty = from_json(br#"{"Name": "Empty", "Tracks": null}"#).unwrap();
        assert!(matches(&empty));
        assert!(read(&empty).unwrap().interactions.is_empty());
        assert!(FORMAT.recorder().encrypted(b"$ENC:V2$\x00\x01\x02"));
        assert!(FORMAT.recorder().encrypted(b"$ENC$\x00"));
        assert!(!FORMAT.recorder().encrypted(b"{\"Tracks\": []}"));
    }
}
