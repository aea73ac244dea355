//! AWS event streams (`application/vnd.amazon.eventstream`): the binary frames Bedrock's
//! `converse-stream` and `invoke-with-response-stream` answer with. Read here, below the
//! judge and the providers, so that both see the same events (issue 41: the judge never
//! scanned these bodies, which `vcr diff` already read).
//!
//! A frame is its total length and its headers' length (big-endian `u32`s), the prelude's
//! CRC, the headers, the payload and the message's CRC; the CRCs are not checked: a frame
//! that has exactly its length, with headers that parse, is one.

/// One frame: the event it names (`:event-type`, or `:exception-type` for an exception) and
/// its payload's bytes (JSON, for Bedrock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'b> {
    /// The event's type, when a header names it.
    pub kind: Option<String>,
    /// The payload.
    pub payload: &'b [u8],
}

/// The frames of an event stream, in order; `None` unless `bytes` are such frames from end
/// to end.
pub fn frames(bytes: &[u8]) -> Option<Vec<Frame<'_>>> {
    let u32_at = |b: &[u8], at: usize| -> Option<usize> {
        let word: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_be_bytes(word) as usize)
    };
    let mut frames = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let total = u32_at(rest, 0)?;
        let headers_len = u32_at(rest, 4)?;
        if total < 16 + headers_len || total > rest.len() {
            return None;
        }
        let headers = &rest[12..12 + headers_len];
        let payload = &rest[12 + headers_len..total - 4];
        let mut kind = None;
        let mut at = 0;
        while at < headers.len() {
            let name_len = usize::from(headers[at]);
            let name = headers.get(at + 1..at + 1 + name_len)?;
            at += 1 + name_len;
            let value_type = *headers.get(at)?;
            at += 1;
            let value_len = match value_type {
                0 | 1 => 0,
                2 => 1,
                3 => 2,
                4 => 4,
                5 | 8 => 8,
                9 => 16,
                6 | 7 => {
                    let len = headers.get(at..at + 2)?;
                    at += 2;
                    usize::from(u16::from_be_bytes([len[0], len[1]]))
                }
                _ => return None,
            };
            let value = headers.get(at..at + value_len)?;
            at += value_len;
            // An exception frame names itself by `:exception-type`.
            if matches!(name, b":event-type" | b":exception-type") && value_type == 7 {
                kind = Some(String::from_utf8_lossy(value).into_owned());
            }
        }
        frames.push(Frame { kind, payload });
        rest = &rest[total..];
    }
    (!frames.is_empty()).then_some(frames)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One frame with an `:event-type` header (and a `:message-type` one, as AWS writes
    /// them); the CRCs are zero, which the reader does not check.
    pub(crate) fn frame(kind: &str, payload: &str) -> Vec<u8> {
        let mut headers = Vec::new();
        for (name, value) in [(":event-type", kind), (":message-type", "event")] {
            headers.push(name.len() as u8);
            headers.extend_from_slice(name.as_bytes());
            headers.push(7);
            headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
            headers.extend_from_slice(value.as_bytes());
        }
        let total = 16 + headers.len() + payload.len();
        let mut out = Vec::new();
        out.extend_from_slice(&(total as u32).to_be_bytes());
        out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&headers);
        out.extend_from_slice(payload.as_bytes());
        out.extend_from_slice(&[0; 4]);
        out
    }

    #[test]
    fn frames_are_read_from_end_to_end() {
        let mut bytes = frame("messageStart", r#"{"role":"assistant"}"#);
        bytes.extend(frame("contentBlockDelta", r#"{"delta":{"text":"Hi"}}"#));
        let frames = frames(&bytes).expect("frames");
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[1].kind.as_deref(), Some("contentBlockDelta"));
        assert_eq!(frames[1].payload, br#"{"delta":{"text":"Hi"}}"#);
        assert!(super::frames(&bytes[..bytes.len() - 1]).is_none());
        assert!(super::frames(b"data: {}\n\n").is_none());
        assert!(super::frames(b"").is_none());
    }
}
