//! The Talkback reader.

use crate::doc::Node;

use super::{HttpCassette, ReadError};

/// Whether the document is a Talkback cassette.
pub(super) fn matches(root: &Node) -> bool {
    let _ = root;
    false
}

/// Reads a Talkback cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let _ = root;
    unreachable!("matches() said no")
}

/// Whether a text that is not strict JSON looks like a talkback tape (JSON5).
pub(super) fn looks_like(text: &str) -> bool {
    text.contains("meta") && text.contains("req") && text.contains("res")
}
