//! The HAR 1.2 reader.

use std::path::Path;

use crate::doc::Node;

use super::{HttpCassette, ReadError};

/// Whether the document is a HAR log.
pub(super) fn matches(root: &Node) -> bool {
    let _ = root;
    false
}

/// Reads a HAR log; `path` is the file, whose folder holds Playwright's `_file` sidecars.
pub(super) fn read(root: &Node, path: &Path) -> Result<HttpCassette, ReadError> {
    let _ = (root, path);
    unreachable!("matches() said no")
}
