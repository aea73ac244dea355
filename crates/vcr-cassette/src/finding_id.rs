//! The finding ids, the contract every output and baseline shares (`DESIGN.md`'s table).
//!
//! An id is a [`FindingId`], never a string: a misspelt id does not compile. It is defined
//! here, at the lowest layer that reports one (a dsh scenario's problems carry theirs), and
//! the judge's `Finding` (`vcr_lint::finding`) carries it to every output, written as its
//! text (`leak/secret`).

/// A finding id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FindingId {
    /// `parse`: not valid JSON, JSONL or YAML, or not a cassette its recorder loads.
    Parse,
    /// `schema`: valid, but not the shape of its kind.
    Schema,
    /// `name/stale`: the name is not the hash of the key material under the current rules.
    NameStale,
    /// `name/collision`: two cassettes have, or would have, the same name.
    NameCollision,
    /// `name/too-long`: a name longer than file systems allow.
    NameTooLong,
    /// `format/unnormalized`: the file differs from what `vcr normalize` would write.
    FormatUnnormalized,
    /// `format/line-endings`: CRLF line endings where the harness writes LF.
    FormatLineEndings,
    /// `leak/secret`: an API key, token, password or private key.
    LeakSecret,
    /// `leak/path`: an absolute machine path.
    LeakPath,
    /// `leak/uuid`: a UUID where a run makes it.
    LeakUuid,
    /// `leak/timestamp`: a date-time where a run makes it.
    LeakTimestamp,
    /// `leak/email`: an email address.
    LeakEmail,
    /// `missing`: a cassette a run looked for and did not find, or a scenario file absent.
    Missing,
    /// `orphan`: a cassette no test run read.
    Orphan,
    /// `dsh/unfinished-call`: a dsh model call without `finish` that no override covers.
    DshUnfinishedCall,
    /// `dsh/override`: an invalid `replay.override.json`.
    DshOverride,
    /// `dsh/from-request`: an unterminated or invalid `{{fromRequest:...}}` placeholder.
    DshFromRequest,
    /// `recorded/error`: a recorded call that is an API error.
    RecordedError,
    /// `expired`: an HTTP cassette recorded longer ago than `--max-age`.
    Expired,
    /// `dsh/persistence`: a dsh session header the harness's session store refuses.
    DshPersistence,
    /// `encrypted`: an HTTP cassette its recorder encrypted, which cannot be read without
    /// the key.
    Encrypted,
    /// `unscanned`: a body the judge did not scan, because it decompresses past what any
    /// real body does (a zip-bomb guard).
    Unscanned,
}

impl FindingId {
    /// Every id, in the order `DESIGN.md` and the SARIF rules list them.
    pub const ALL: [FindingId; 22] = [
        FindingId::Parse,
        FindingId::Schema,
        FindingId::NameStale,
        FindingId::NameCollision,
        FindingId::NameTooLong,
        FindingId::FormatUnnormalized,
        FindingId::FormatLineEndings,
        FindingId::LeakSecret,
        FindingId::LeakPath,
        FindingId::LeakUuid,
        FindingId::LeakTimestamp,
        FindingId::LeakEmail,
        FindingId::Missing,
        FindingId::Orphan,
        FindingId::DshUnfinishedCall,
        FindingId::DshOverride,
        FindingId::DshFromRequest,
        FindingId::RecordedError,
        FindingId::Expired,
        FindingId::DshPersistence,
        FindingId::Encrypted,
        FindingId::Unscanned,
    ];

    /// The id as every output writes it (`leak/secret`).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingId::Parse => "parse",
            FindingId::Schema => "schema",
            FindingId::NameStale => "name/stale",
            FindingId::NameCollision => "name/collision",
            FindingId::NameTooLong => "name/too-long",
            FindingId::FormatUnnormalized => "format/unnormalized",
            FindingId::FormatLineEndings => "format/line-endings",
            FindingId::LeakSecret => "leak/secret",
            FindingId::LeakPath => "leak/path",
            FindingId::LeakUuid => "leak/uuid",
            FindingId::LeakTimestamp => "leak/timestamp",
            FindingId::LeakEmail => "leak/email",
            FindingId::Missing => "missing",
            FindingId::Orphan => "orphan",
            FindingId::DshUnfinishedCall => "dsh/unfinished-call",
            FindingId::DshOverride => "dsh/override",
            FindingId::DshFromRequest => "dsh/from-request",
            FindingId::RecordedError => "recorded/error",
            FindingId::Expired => "expired",
            FindingId::DshPersistence => "dsh/persistence",
            FindingId::Encrypted => "encrypted",
            FindingId::Unscanned => "unscanned",
        }
    }

    /// What it means, in one line (SARIF's rule descriptions, `--help`).
    pub fn describe(self) -> &'static str {
        match self {
            FindingId::Parse => "Not valid JSON/JSONL",
            FindingId::Schema => "Valid JSON, but not the shape of its kind",
            FindingId::NameStale => {
                "The name is not the hash of the key material under the current rules"
            }
            FindingId::NameCollision => "Two cassettes have, or would have, the same name",
            FindingId::NameTooLong => "A name longer than file systems allow",
            FindingId::FormatUnnormalized => {
                "The file differs from what `vcr normalize` would write"
            }
            FindingId::FormatLineEndings => "CRLF line endings where the harness writes LF",
            FindingId::LeakSecret => "An API key, token, password or private key",
            FindingId::LeakPath => {
                "An absolute machine path: a home folder, a temporary folder, this machine's folders"
            }
            FindingId::LeakUuid => "A UUID (in key material it changes the name on every run)",
            FindingId::LeakTimestamp => {
                "An ISO 8601 date-time (in key material it changes the name on every run)"
            }
            FindingId::LeakEmail => "An email address",
            FindingId::Missing => {
                "A cassette a test run looked for and did not find, or a scenario file absent"
            }
            FindingId::Orphan => "A cassette no test run read",
            FindingId::DshUnfinishedCall => {
                "A dsh model call without a `finish` chunk that no override covers"
            }
            FindingId::DshOverride => {
                "An invalid `replay.override.json` (the harness's own message)"
            }
            FindingId::DshFromRequest => {
                "An unterminated or invalid `{{fromRequest:...}}` placeholder"
            }
            FindingId::RecordedError => {
                "A recorded call that is an API error (authentication, billing, rate limit, server error)"
            }
            FindingId::Expired => {
                "An HTTP cassette recorded longer ago than `--max-age` (`[verify] max-age`)"
            }
            FindingId::DshPersistence => {
                "A dsh session header that replay reads but the harness's session store refuses"
            }
            FindingId::Encrypted => {
                "An HTTP cassette its recorder encrypted (govcr's `$ENC:V2$`): nothing in it can be checked without the key"
            }
            FindingId::Unscanned => {
                "A body not scanned: it decompresses past 100 times its recorded size (a zip-bomb guard)"
            }
        }
    }

    /// Whether it is a `leak/*` id: a value the judge found, masked in every output.
    pub fn is_leak(self) -> bool {
        matches!(
            self,
            FindingId::LeakSecret
                | FindingId::LeakPath
                | FindingId::LeakUuid
                | FindingId::LeakTimestamp
                | FindingId::LeakEmail
        )
    }

    /// The id written as `text`, as `vcr.toml` and baselines write it.
    pub fn parse(text: &str) -> Option<FindingId> {
        FindingId::ALL.into_iter().find(|id| id.as_str() == text)
    }
}

/// Written as its text, padded as the format asks (the human report aligns ids in a column).
impl std::fmt::Display for FindingId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Ordered as their text is (findings sort by id after path and place).
impl PartialOrd for FindingId {
    fn partial_cmp(&self, other: &FindingId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FindingId {
    fn cmp(&self, other: &FindingId) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl serde::Serialize for FindingId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::FindingId;

    #[test]
    fn every_id_reads_back_from_its_text() {
        for id in FindingId::ALL {
            assert_eq!(FindingId::parse(id.as_str()), Some(id));
        }
        assert_eq!(FindingId::parse("leak/secrets"), None);
    }

    /// Regression: the human report's id column lost its padding when ids became an enum.
    #[test]
    fn an_id_is_padded_as_its_text_is() {
        assert_eq!(format!("{:<12}|", FindingId::Parse), "parse       |");
        assert_eq!(format!("{:>6}", FindingId::Orphan), "orphan");
    }
}
