//! `Content-Encoding` undone: gzip (also found by its magic bytes), deflate (zlib or raw),
//! br; `identity` and unknown tokens pass through.
//!
//! Recorders disagree about what they store: many keep `Content-Encoding: gzip` beside a
//! body they already decompressed, and many drop the header beside a body they did not. So a
//! layer is undone only when the bytes are what it says (gzip's magic, zlib's header check,
//! or a br/raw deflate stream that decodes whole into something no less textual than its
//! input), and gzip is recognised by its magic bytes without any header. A layer that does
//! not apply is not named.

use std::borrow::Cow;
use std::io::{ErrorKind, Read};

use super::TRUNCATED;

/// How much one body may decompress to, all its layers and parts together: 100 times its
/// recorded size (real bodies compress 2 to 15 times), at least 4 KiB (a tiny body may
/// compress better) and at most 64 MiB. Past it the body is binary named
/// [`TOO_LARGE`](super::TOO_LARGE), never an abort.
///
/// The floor is small on purpose: it is granted to every body, and a cassette of many tiny
/// br bodies (27 bytes of br can say 16 MiB) must cost about 100 times its size, not a
/// floor's worth per body.
#[derive(Debug)]
pub(super) struct Budget {
    left: usize,
}

/// The most a body decompresses to.
pub(super) const MAX_OUTPUT: usize = 64 << 20;
const MIN_OUTPUT: usize = 4 << 10;
const MAX_RATIO: usize = 100;

/// How many layers are undone at most (`gzip, gzip, gzip, ...` is hostile).
const MAX_LAYERS: usize = 4;

impl Budget {
    /// The budget of a body of `len` recorded bytes.
    pub(super) fn for_input(len: usize) -> Budget {
        Budget {
            left: len.saturating_mul(MAX_RATIO).clamp(MIN_OUTPUT, MAX_OUTPUT),
        }
    }
}

/// The body decompressed past its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TooLarge;

/// Undoes `encodings` (in the order they were applied, as the header lists them) in reverse,
/// then any gzip the magic bytes show, naming each layer undone in `layers`.
pub(super) fn undo<'b>(
    bytes: &'b [u8],
    encodings: &[&str],
    budget: &mut Budget,
    layers: &mut Vec<&'static str>,
) -> Result<Cow<'b, [u8]>, TooLarge> {
    let mut body = Cow::Borrowed(bytes);
    let mut undone = 0;
    for token in encodings.iter().rev() {
        let coding = match token.to_ascii_lowercase().as_str() {
            "gzip" | "x-gzip" => Coding::Gzip,
            "deflate" => Coding::Deflate,
            "br" => Coding::Brotli,
            // `identity`, and codings nothing here reads (`zstd`, `compress`): a body still
            // in one of those is not text, and the content step says so.
            _ => continue,
        };
        if undone == MAX_LAYERS {
            break;
        }
        if let Some(out) = coding.undo(&body, budget, layers)? {
            body = Cow::Owned(out);
            undone += 1;
        }
    }
    while undone < MAX_LAYERS && is_gzip(&body) {
        let Some(out) = Coding::Gzip.undo(&body, budget, layers)? else {
            break;
        };
        body = Cow::Owned(out);
        undone += 1;
    }
    Ok(body)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Gzip,
    Deflate,
    Brotli,
}

impl Coding {
    /// The bytes with this coding undone and the layer named, or `None` when the bytes are
    /// not in this coding (the layer was already undone by the recorder).
    fn undo(
        self,
        bytes: &[u8],
        budget: &mut Budget,
        layers: &mut Vec<&'static str>,
    ) -> Result<Option<Vec<u8>>, TooLarge> {
        let name = match self {
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
            Coding::Brotli => "br",
        };
        let read = match self {
            Coding::Gzip if is_gzip(bytes) => read_capped(
                flate2::read::MultiGzDecoder::new(bytes),
                budget,
                name,
                layers,
            )?,
            Coding::Gzip => return Ok(None),
            Coding::Deflate if is_zlib(bytes) => {
                read_capped(flate2::read::ZlibDecoder::new(bytes), budget, name, layers)?
            }
            Coding::Deflate => raw_deflate(bytes, budget, name, layers)?,
            Coding::Brotli => read_capped(
                brotli_decompressor::Decompressor::new(bytes, 4096),
                budget,
                name,
                layers,
            )?,
        };
        let out = match read {
            Inflated::Whole(out) => out,
            // Only a stream that says what it is (gzip's magic, zlib's header) is trusted
            // when cut short: raw deflate and br have no header to prove it.
            Inflated::Truncated(out) if self == Coding::Gzip || is_zlib(bytes) => {
                layers.push(name);
                layers.push(TRUNCATED);
                return Ok(Some(out));
            }
            Inflated::Truncated(_) | Inflated::Failed => return Ok(None),
        };
        // A br or raw deflate "stream" that is really the text itself can decode into
        // garbage: text in, non-text out means the recorder stored it decoded.
        let weak = matches!(self, Coding::Brotli) || !is_zlib(bytes) && self == Coding::Deflate;
        if weak && std::str::from_utf8(bytes).is_ok() && std::str::from_utf8(&out).is_err() {
            return Ok(None);
        }
        layers.push(name);
        Ok(Some(out))
    }
}

/// What a decoder gave.
enum Inflated {
    /// The whole stream.
    Whole(Vec<u8>),
    /// The stream ended early; what decoded before that.
    Truncated(Vec<u8>),
    /// Not this coding.
    Failed,
}

/// Reads a decoder to its end within the budget (which it then draws from).
fn read_capped(
    decoder: impl Read,
    budget: &mut Budget,
    name: &'static str,
    layers: &mut Vec<&'static str>,
) -> Result<Inflated, TooLarge> {
    let mut out = Vec::new();
    let result = decoder.take(budget.left as u64 + 1).read_to_end(&mut out);
    if out.len() > budget.left {
        layers.push(name);
        return Err(TooLarge);
    }
    budget.left -= out.len();
    Ok(match result {
        Ok(_) => Inflated::Whole(out),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof && !out.is_empty() => {
            Inflated::Truncated(out)
        }
        Err(_) => Inflated::Failed,
    })
}

/// Raw deflate (what some servers send as `deflate`, against the RFC): accepted only when
/// the stream ends where the bytes do.
fn raw_deflate(
    bytes: &[u8],
    budget: &mut Budget,
    name: &'static str,
    layers: &mut Vec<&'static str>,
) -> Result<Inflated, TooLarge> {
    let mut decoder = flate2::bufread::DeflateDecoder::new(bytes);
    let read = read_capped(&mut decoder, budget, name, layers)?;
    let rest = decoder.into_inner();
    Ok(match read {
        Inflated::Whole(_) if !rest.iter().all(u8::is_ascii_whitespace) => Inflated::Failed,
        read => read,
    })
}

/// gzip's magic bytes and its only compression method (deflate).
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b, 0x08])
}

/// A zlib header: method 8 (deflate), a window of at most 32 KiB, and the header check.
pub fn is_zlib(bytes: &[u8]) -> bool {
    match bytes {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    //! Every `Content-Encoding` against bytes made by real compressors (issue 9): node's
    //! zlib at test time, and a few vectors node made once, committed with the line that
    //! made them so that decoding is tested where node is absent too.

    use std::io::Write as _;
    use std::process::{Command, Stdio};

    use super::super::tests::{headers, leaves};
    use super::super::{Content, Decoded, TOO_LARGE, TRUNCATED, decode, describe};
    use super::*;

    /// Runs `script` in node with `input` on stdin and returns what it wrote; `None` (said on
    /// stderr) where node is absent, unless `VCR_REQUIRE_NODE` is set.
    fn node(script: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
        let child = Command::new("node")
            .arg("-e")
            .arg(script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(child) => child,
            Err(e) if std::env::var_os("VCR_REQUIRE_NODE").is_none() => {
                let _ = writeln!(std::io::stderr(), "SKIPPED: node is not available ({e})");
                return None;
            }
            Err(e) => panic!("node is required (VCR_REQUIRE_NODE is set): {e}"),
        };
        child.stdin.take().unwrap().write_all(input).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        Some(output.stdout)
    }

    /// `input` compressed by each chain of node's zlib methods (applied in the order given),
    /// in one run of node.
    fn compress(chains: &[&[&str]], input: &[u8]) -> Option<Vec<Vec<u8>>> {
        let script = "const z = require('zlib'); const input = require('fs').readFileSync(0); \
            for (const chain of JSON.parse(process.argv[1])) { let b = input; \
            for (const m of chain) b = z[m](b); console.log(b.toString('hex')); }";
        let chains = serde_json::to_string(chains).unwrap();
        let out = node(script, &[&chains], input)?;
        Some(String::from_utf8(out).unwrap().lines().map(hex).collect())
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    const BODY: &str = r#"{"api_key":"sk-live"}"#;

    #[test]
    fn every_encoding_from_node() {
        let json = [("Content-Type", "application/json")];
        // (Content-Encoding headers, node methods applied in order, layers undone)
        let cases: &[(&[&str], &[&str], &str)] = &[
            (&["gzip"], &["gzipSync"], "gzip, json"),
            (&["x-gzip"], &["gzipSync"], "gzip, json"),
            (&["GZIP"], &["gzipSync"], "gzip, json"),
            (&["deflate"], &["deflateSync"], "deflate, json"),
            (&["deflate"], &["deflateRawSync"], "deflate, json"),
            (&["br"], &["brotliCompressSync"], "br, json"),
            // Layers listed in the order applied, undone in reverse.
            (
                &["gzip, br"],
                &["gzipSync", "brotliCompressSync"],
                "br, gzip, json",
            ),
            (
                &["deflate", "gzip"],
                &["deflateSync", "gzipSync"],
                "gzip, deflate, json",
            ),
            (&["identity, gzip"], &["gzipSync"], "gzip, json"),
            // No header: gzip is known by its magic bytes, even twice.
            (&[], &["gzipSync"], "gzip, json"),
            (&[], &["gzipSync", "gzipSync"], "gzip, gzip, json"),
        ];
        let chains: Vec<&[&str]> = cases.iter().map(|(_, methods, _)| *methods).collect();
        let Some(vectors) = compress(&chains, BODY.as_bytes()) else {
            return;
        };
        for ((encodings, methods, layers), bytes) in cases.iter().zip(vectors) {
            let mut pairs = json.to_vec();
            pairs.extend(encodings.iter().map(|e| ("Content-Encoding", *e)));
            let decoded = decode(&bytes, &headers(&pairs));
            assert_eq!(describe(&decoded), *layers, "{encodings:?} {methods:?}");
            assert_eq!(
                leaves(&decoded),
                ["/api_key : api_key", "/api_key = sk-live"]
            );
        }
    }

    /// The same bodies from vectors node made once:
    /// `node -e "const z=require('zlib'),t='{\"api_key\":\"sk-live\"}';for(const m of
    /// ['gzipSync','deflateSync','deflateRawSync','brotliCompressSync'])console.log(z[m](t).toString('hex'))"`
    #[test]
    fn committed_vectors_from_node() {
        let vectors = [
            (
                "gzip",
                "1f8b0800000000000003ab564a2cc88ccf4ead54b2522aced6cdc92c4b55aa05004c6ddc9215000000",
            ),
            (
                "deflate",
                "789cab564a2cc88ccf4ead54b2522aced6cdc92c4b55aa050051250758",
            ),
            ("deflate", "ab564a2cc88ccf4ead54b2522aced6cdc92c4b55aa0500"),
            ("br", "0b0a807b226170695f6b6579223a22736b2d6c697665227d03"),
        ];
        for (encoding, vector) in vectors {
            let decoded = decode(&hex(vector), &headers(&[("Content-Encoding", encoding)]));
            assert_eq!(describe(&decoded), format!("{encoding}, json"));
            assert_eq!(leaves(&decoded)[1], "/api_key = sk-live");
        }
    }

    /// Recorders often store a body decoded and keep its `Content-Encoding`: such a body is
    /// read as it is, no layer named, whatever the coding (raw deflate and br have no magic
    /// bytes, and text can look like a deflate stream).
    #[test]
    fn a_header_over_an_already_decoded_body_is_ignored() {
        for encoding in ["gzip", "deflate", "br", "gzip, deflate, br", "zstd, gzip"] {
            let decoded = decode(BODY.as_bytes(), &headers(&[("Content-Encoding", encoding)]));
            assert_eq!(describe(&decoded), "json", "{encoding}");
        }
        let text = decode(
            b"{plain text}",
            &headers(&[("Content-Encoding", "deflate")]),
        );
        assert_eq!(
            text.content,
            Content::Text("{plain text}".into()),
            "{:?}",
            text.layers
        );
    }

    #[test]
    fn unknown_and_broken_encodings_leave_the_bytes() {
        // zstd is not read: bytes after its magic number stay binary.
        let zstd = hex("28b52ffd20021100007b7dff");
        let decoded = decode(&zstd, &headers(&[("Content-Encoding", "zstd")]));
        assert_eq!(
            decoded,
            Decoded {
                layers: vec![],
                content: Content::Binary(zstd.len())
            }
        );
        // gzip's magic followed by garbage: not gzip after all.
        let garbage = b"\x1f\x8b\x08\x00garbage, not deflate \xff\xff\xff\xff";
        let decoded = decode(garbage, &[]);
        assert_eq!(decoded.content, Content::Binary(garbage.len()));
    }

    /// A gzip body cut short (a recording that stopped early) keeps what decompressed,
    /// named `truncated`.
    #[test]
    fn truncated_gzip_keeps_what_decompressed() {
        let Some(vectors) = compress(&[&["gzipSync"]], BODY.as_bytes()) else {
            return;
        };
        let bytes = &vectors[0];
        // Without its 8-byte trailer (CRC and length) the text is whole.
        let cut = &bytes[..bytes.len() - 8];
        let decoded = decode(cut, &headers(&[("Content-Encoding", "gzip")]));
        assert_eq!(decoded.layers, ["gzip", TRUNCATED, "json"]);
    }

    /// A gzip bomb (16 MiB of zeros in 16 KiB) is past the budget: binary, named
    /// `too large`, after at most the budget's worth of work (issue 9).
    #[test]
    fn gzip_bomb_is_binary_named_too_large() {
        let script = "process.stdout.write(require('zlib').gzipSync(Buffer.alloc(16 << 20)))";
        let Some(bomb) = node(script, &[], b"") else {
            return;
        };
        assert!(bomb.len() < 64 << 10, "{}", bomb.len());
        for pairs in [&[][..], &[("Content-Encoding", "gzip")]] {
            let decoded = decode(&bomb, &headers(pairs));
            assert_eq!(decoded.layers, ["gzip", TOO_LARGE]);
            assert_eq!(decoded.content, Content::Binary(bomb.len()));
        }
    }

    /// The same for br, from a committed vector (16 MiB of zeros in 27 bytes):
    /// `node -e "console.log(require('zlib').brotliCompressSync(Buffer.alloc(16<<20)).toString('hex'))"`
    #[test]
    fn brotli_bomb_is_binary_named_too_large() {
        let bomb = hex("cbffff3ff82700e2b14020f7fe2ffffffff04f00c4611180eefd1f");
        let decoded = decode(&bomb, &headers(&[("Content-Encoding", "br")]));
        assert_eq!(decoded.layers, ["br", TOO_LARGE]);
        assert_eq!(decoded.content, Content::Binary(bomb.len()));
    }

    /// The budget is the whole body's: parts that each fit cannot add up past it (issue 9).
    #[test]
    fn the_budget_is_shared_by_all_parts() {
        let script = "const z = require('zlib'); process.stdout.write(z.gzipSync(Buffer.alloc(64 << 10, 'a')))";
        let Some(gzip) = node(script, &[], b"") else {
            return;
        };
        let mut body = Vec::new();
        for _ in 0..2 {
            body.extend_from_slice(b"--b\r\nContent-Encoding: gzip\r\n\r\n");
            body.extend_from_slice(&gzip);
            body.extend_from_slice(b"\r\n");
        }
        // A plain part that brings the budget between one part's size and two.
        body.extend_from_slice(b"--b\r\n\r\n");
        body.resize(1_000, b'.');
        body.extend_from_slice(b"\r\n--b--\r\n");
        let budget = Budget::for_input(body.len()).left;
        assert!((64 << 10..128 << 10).contains(&budget), "{budget}");
        let decoded = decode(
            &body,
            &headers(&[("Content-Type", "multipart/mixed; boundary=b")]),
        );
        let Content::Multipart(parts) = &decoded.content else {
            panic!("not multipart: {:?}", decoded.layers);
        };
        let layers: Vec<_> = parts.iter().map(|p| describe(&p.body)).collect();
        assert_eq!(layers, ["gzip", "gzip, too large", ""]);
    }

    #[test]
    fn budgets() {
        assert_eq!(Budget::for_input(0).left, MIN_OUTPUT);
        assert_eq!(Budget::for_input(40).left, MIN_OUTPUT);
        assert_eq!(Budget::for_input(100 << 10).left, 100 * (100 << 10));
        assert_eq!(Budget::for_input(10 << 20).left, MAX_OUTPUT);
        assert_eq!(Budget::for_input(usize::MAX).left, MAX_OUTPUT);
    }

    #[test]
    fn zlib_headers() {
        for (bytes, zlib) in [
            (&b"\x78\x9c"[..], true),
            (b"\x78\x01", true),
            (b"\x78\xda", true),
            (b"\x78\x00", false),
            (b"{\"", false),
            (b"\x78", false),
        ] {
            assert_eq!(is_zlib(bytes), zlib, "{bytes:?}");
        }
    }
}
