//! Findings: what `vcr verify` reports, with ids that are part of the contract.

use serde::Serialize;
use sha2::{Digest, Sha256};

pub use vcr_cassette::finding_id::FindingId;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run (exit 1).
    Error,
    /// Reported; never fails the run.
    Warning,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The finding id (`leak/secret`, `name/stale`, ...).
    pub id: FindingId,
    /// Error or warning.
    pub severity: Severity,
    /// The file, relative to the project root, `/`-separated.
    pub path: String,
    /// 1-based line, when the finding has a place in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong, and what fixes it.
    pub message: String,
    /// For leaks: the matched text, masked.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
    /// For leaks: which detector found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detector: Option<&'static str>,
    /// The JSON pointer of the value, when the file was parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// For leaks: why the judge took the value for one (the rule, and the checks it passed);
    /// `verify -v` shows it, `verify --explain` says why a value was not taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A hash of the offending value (or of the message), which with the id, path and
    /// pointer identifies the finding across edits that move lines: the baseline key.
    pub fingerprint: String,
}

/// The fingerprint of a value: 16 hex digits of its SHA-256.
pub fn fingerprint(value: &str) -> String {
    let digest = Sha256::digest(value.as_bytes());
    // Hex by hand: a `format!` per byte was a string allocation per byte of every finding.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(16);
    for b in &digest[..8] {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

impl Finding {
    /// A finding about a whole file or a place in it, not a leak.
    pub fn new(id: FindingId, severity: Severity, path: &str, message: String) -> Finding {
        Finding {
            id,
            severity,
            path: path.to_owned(),
            line: None,
            column: None,
            fingerprint: fingerprint(&message),
            message,
            matched: None,
            detector: None,
            pointer: None,
            reason: None,
        }
    }

    /// Places the finding at a line and column.
    pub fn at(mut self, position: Option<vcr_json::Position>) -> Finding {
        if let Some(p) = position {
            self.line = Some(p.line);
            self.column = Some(p.column);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    /// The first 8 bytes of SHA-256, in lower-case hex (what baselines store).
    #[test]
    fn fingerprints_are_the_first_bytes_of_sha256_in_hex() {
        assert_eq!(fingerprint(""), "e3b0c44298fc1c14");
        assert_eq!(fingerprint("abc"), "ba7816bf8f01cfea");
    }
}
