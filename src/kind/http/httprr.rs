//! The httprr reader.

use super::{HttpCassette, ReadError};

/// Whether the text is an httprr trace.
pub(super) fn is_httprr(text: &str) -> bool {
    text.starts_with("httprr trace v1\n")
}

/// Reads an httprr trace.
pub(super) fn read(text: &str) -> Result<HttpCassette, ReadError> {
    let _ = text;
    unreachable!("not yet")
}
