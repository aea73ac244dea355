//! YAML documents (PyYAML's, Psych's, yaml.v3's output) read into [`Node`]s with positions.

use super::{DocError, Node};

/// Reads a YAML stream's first document.
pub fn parse(text: &str) -> Result<Node, DocError> {
    let _ = text;
    Err(DocError {
        message: "YAML is not read yet".into(),
        offset: 0,
    })
}
