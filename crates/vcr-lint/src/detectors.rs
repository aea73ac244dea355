//! The leak detectors: what each looks for, as one pattern of the combined matcher.
//!
//! Patterns are written for the `regex` engine with Unicode off and run over raw bytes, so
//! they see JSON and YAML as written: a Windows path may appear with single, doubled
//! (JSON-escaped) or quadrupled (JSON inside JSON) backslashes, or with forward slashes.
//! Each pattern only finds candidates; `super::classify` decides what a candidate is.

/// Which finding a detector produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `leak/secret`
    Secret,
    /// `leak/path`
    Path,
    /// `leak/uuid`
    Uuid,
    /// `leak/timestamp`
    Timestamp,
    /// `leak/email`
    Email,
}

/// What a detector's match is, which decides how it is checked and reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A token whose shape identifies it (`sk-ant-...`, `AKIA...`).
    Token,
    /// A private key block.
    PrivateKey,
    /// A credential in a URL (`https://user:pass@host`).
    UrlCredentials,
    /// `key: value` or `key=value` where the key names a credential; the value follows the
    /// match.
    CredentialKey,
    /// HAR's `{"name": "Authorization", "value": ...}`; the value follows the match.
    CredentialNameValue,
    /// `?token=...` in a URL; the value follows the match.
    CredentialQuery,
    /// A home folder naming a user.
    UserHome,
    /// `/root`.
    RootHome,
    /// A temporary folder.
    TempDir,
    /// A UUID.
    Uuid,
    /// An ISO 8601 / RFC 3339 date-time.
    Timestamp,
    /// An email address.
    Email,
}

/// One detector.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Detector {
    /// A stable name, shown in messages and used by allowlists' `detector`.
    pub(crate) name: &'static str,
    /// What it finds, for messages.
    pub(crate) label: &'static str,
    /// What it finds, in one line, for `vcr verify --list-detectors`.
    pub(crate) description: &'static str,
    pub(crate) family: Family,
    pub(crate) kind: Kind,
    pub(crate) pattern: &'static str,
}

/// Names of fields, headers and parameters whose value is a credential whatever its shape;
/// `{keys}` in a pattern stands for them.
pub(crate) const CREDENTIAL_KEYS: &str = "authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key|api_key|apikey|x-token|x-auth-token|auth-token|auth_token|token|access_token|access-token|refresh_token|id_token|client_secret|client-secret|password|passwd|secret_key|secret_access_key|aws_secret_access_key|private_key";

/// The detectors, in priority order: where two could match at the same place, the first
/// wins.
///
/// The scanner does not run these patterns over every byte: a rule in `super::anchors` says
/// where each detector's matches can start (after a `-`, a literal prefix...). A new detector
/// needs one, and a changed pattern may need its rule changed; the scanner's tests compare it
/// with a scan of every byte, and without a rule it falls back to that slow scan.
pub(crate) const DETECTORS: &[Detector] = &[
    Detector {
        name: "private-key",
        label: "a private key",
        description: "A PEM private key block (`-----BEGIN ... PRIVATE KEY-----`)",
        family: Family::Secret,
        kind: Kind::PrivateKey,
        pattern: r"-----BEGIN[ A-Z0-9_-]*PRIVATE KEY( BLOCK)?-----",
    },
    Detector {
        name: "credential-field",
        label: "a credential",
        description: "The value of a credential field, header or parameter (`Authorization:`, `\"password\":`, `token=`) that is not a placeholder",
        family: Family::Secret,
        kind: Kind::CredentialKey,
        // The key, its quotes (escaped or not, `\u0022` too), and the separator (`\u003d` too);
        // blanks may be escaped tabs. That the key is a word of its own is checked by code,
        // which knows that an escape before it ends the word before it (`\npassword=`). The
        // value is read by code.
        pattern: r#"(?i)(?:[\\"']|(?-i:\\u00(?:22|27)))*(?:{keys})(?:[\\"']|(?-i:\\u00(?:22|27)))*(?:[ \t]|(?-i:\\+t))*(?:[:=]|(?-i:\\+u003[aAdD]))"#,
    },
    Detector {
        name: "credential-header",
        label: "a credential",
        description: "The value of a credential header written as `{\"name\": \"Authorization\", \"value\": ...}` (HAR)",
        family: Family::Secret,
        kind: Kind::CredentialNameValue,
        pattern: r#"(?i)[\\]*"name[\\]*"[ \t]*:[ \t]*[\\]*"(?:{keys})[\\]*"[ \t]*,[ \t]*[\\]*"value[\\]*"[ \t]*:"#,
    },
    Detector {
        name: "credential-parameter",
        label: "a credential in a URL",
        description: "A credential in a URL query (`?access_token=`, `&api_key=`, `&password=`)",
        family: Family::Secret,
        kind: Kind::CredentialQuery,
        // `&` may be escaped (`\u0026`, as Go's encoder writes it).
        pattern: r"(?i)(?:[?&]|(?-i:\\+u0026))(?:access_token|token|api_key|apikey|client_secret|password)=",
    },
    Detector {
        name: "anthropic-key",
        label: "an Anthropic API key",
        description: "An Anthropic API key (`sk-ant-...`)",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"sk-ant-[A-Za-z0-9_-]{32,}",
    },
    Detector {
        name: "openai-key",
        label: "an OpenAI API key",
        description: "An OpenAI API key (`sk-proj-...`, `sk-...`)",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{32,}",
    },
    Detector {
        name: "aws-access-key",
        label: "an AWS access key id",
        description: "An AWS access key id (`AKIA...`, `ASIA...`)",
        family: Family::Secret,
        kind: Kind::Token,
        // The prefixes of keys (long-term, temporary, bearer, context-specific). Not those of
        // resource ids AWS hands out with the same shape (users `AIDA`, roles `AROA`, groups
        // `AGPA`, instance profiles `AIPA`, policies `ANPA`/`ANVA`): an IAM response lists
        // them, and they open nothing. Nor `APKA`: a CloudFront key-pair id is the public
        // half's name, written in every signed URL (`Key-Pair-Id=`); the URL's `Signature` is
        // what is judged.
        pattern: r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
    },
    Detector {
        name: "github-token",
        label: "a GitHub token",
        description: "A GitHub token (`ghp_...`, `github_pat_...`)",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}",
    },
    Detector {
        name: "google-api-key",
        label: "a Google API key",
        description: "A Google API key (`AIza...`)",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"AIza[0-9A-Za-z_-]{35}",
    },
    Detector {
        name: "slack-token",
        label: "a Slack token",
        description: "A Slack token (`xoxb-...`) or incoming webhook URL",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"xox[abposr]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}",
    },
    Detector {
        name: "stripe-live-key",
        label: "a Stripe live key",
        description: "A Stripe live secret or restricted key (`sk_live_...`, `rk_live_...`)",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"(?:sk|rk)_live_[A-Za-z0-9]{16,}",
    },
    Detector {
        name: "jwt",
        label: "a JSON Web Token",
        description: "A JSON Web Token (three base64url segments, the first starting `eyJ`)",
        family: Family::Secret,
        kind: Kind::Token,
        pattern: r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    },
    Detector {
        name: "url-credentials",
        label: "a password in a URL",
        description: "A password in a URL (`https://user:password@host`)",
        family: Family::Secret,
        kind: Kind::UrlCredentials,
        pattern: r#"[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>\\]+:[^/\s@"'<>\\]+@[A-Za-z0-9.-]+"#,
    },
    Detector {
        name: "user-home",
        label: "a home folder",
        description: "A home folder naming a user (`/home/u`, `/Users/u`, `C:\\Users\\u` in every form)",
        family: Family::Path,
        kind: Kind::UserHome,
        pattern: r#"/(?:home|Users)/[^/\s"'<>:*?|\\]+|[A-Za-z]:(?:\\+|/)(?:Users|Documents and Settings)(?:\\+|/)[^/\s"'<>:*?|\\]+"#,
    },
    Detector {
        name: "root-home",
        label: "the root user's home folder",
        description: "The root user's home folder (`/root/...`)",
        family: Family::Path,
        kind: Kind::RootHome,
        // Stops at a backslash like the other path detectors: in JSON, `\n` after a path is
        // an escape, not part of it.
        pattern: r#"/root(?:/[^\s"'<>\\]*)?"#,
    },
    Detector {
        name: "temp-dir",
        label: "a temporary folder",
        description: "A temporary folder (`/tmp/...`, `/var/folders/...`): an error in key material, a warning in payload",
        family: Family::Path,
        kind: Kind::TempDir,
        pattern: r#"/(?:tmp|private/tmp|private/var/folders|var/folders)/[^\s"'<>\\]+"#,
    },
    Detector {
        name: "uuid",
        label: "a UUID",
        description: "A UUID: an error in key material, a warning in payload",
        family: Family::Uuid,
        kind: Kind::Uuid,
        pattern: r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
    },
    Detector {
        name: "timestamp",
        label: "a timestamp",
        description: "An ISO 8601 / RFC 3339 date-time: an error in key material, a warning in payload",
        family: Family::Timestamp,
        kind: Kind::Timestamp,
        pattern: r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?",
    },
    Detector {
        name: "email",
        label: "an email address",
        description: "An email address that is not a made-up one (`user@example.com`)",
        family: Family::Email,
        kind: Kind::Email,
        pattern: r"[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z][A-Za-z]+",
    },
];

/// The detector of this machine's own paths (its working directory, home and config home),
/// which `super::Scanner` matches after the table's.
pub const MACHINE_PATH: &str = "machine-path";

/// A detector as users see it: the name `vcr verify -v` prints and `[[verify.allow]]
/// detector` takes, the finding it produces, and what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DetectorInfo {
    /// The stable name (`anthropic-key`, `user-home`, ...).
    pub name: &'static str,
    /// The finding id its matches become (`leak/secret`, ...).
    pub id: crate::finding::FindingId,
    /// What it finds, in one line.
    pub description: &'static str,
}

/// Every detector, in priority order, this machine's paths last.
pub fn list() -> Vec<DetectorInfo> {
    let table = DETECTORS.iter().map(|d| DetectorInfo {
        name: d.name,
        id: super::LeakFamily::from(d.family).id(),
        description: d.description,
    });
    let machine = DetectorInfo {
        name: MACHINE_PATH,
        id: super::LeakFamily::Path.id(),
        description: "This machine's working directory, home folder or Claude config folder",
    };
    table.chain([machine]).collect()
}
