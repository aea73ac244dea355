//! The Nock reader.

use crate::doc::Node;

use super::{HttpCassette, ReadError};

/// Whether the document is a Nock cassette.
pub(super) fn matches(root: &Node) -> bool {
    let _ = root;
    false
}

/// Reads a Nock cassette.
pub(super) fn read(root: &Node) -> Result<HttpCassette, ReadError> {
    let _ = root;
    unreachable!("matches() said no")
}
