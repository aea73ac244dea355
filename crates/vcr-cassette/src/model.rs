//! The cassette model every layer above shares: one file (`Cassette`) of a kind
//! (`CassetteKind`) in a folder with the rules that apply to it (`FixtureDir`), and a dsh
//! scenario folder checked whole (`Scenario`). The project (`vcr_project::tree`) finds them;
//! the kinds of this crate read, check and rewrite them.

use std::path::PathBuf;
use std::sync::Arc;

use crate::claude_code::Version;
use crate::generic;
use crate::rules::RuleSet;

/// The longest file name common file systems accept, in bytes: a name past it is one the
/// harness cannot open (`name/too-long`), whatever writes it.
pub const MAX_NAME_BYTES: usize = 255;

/// What kind of cassette a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CassetteKind {
    /// A Claude Code message fixture.
    ClaudeCodeMessage,
    /// A Claude Code token-count fixture.
    ClaudeCodeTokenCount,
    /// A generic hashed cassette declared in `[[cassettes]]` (its spec is in its folder's
    /// [`FixtureDir::spec`]).
    Generic,
    /// A dsh session log: `session.jsonl` or a child `session.N.jsonl` of a scenario.
    DshSession,
    /// A dsh scenario's hand-written `replay.override.json` (checked, never rewritten).
    DshOverride,
    /// A cassette of a format vcr does not parse, selected by `[verify] text` globs: linted
    /// for leaks as text only (or by structure, when its content is an HTTP cassette).
    Text,
    /// A possible HTTP cassette: selected by `[http] cassettes`, a well-known cassette folder,
    /// or its content ([`crate::http::sniff`]). Read by structure when it is one (vcrpy, Ruby VCR,
    /// go-vcr, HAR, httprr, nock, talkback), else linted as text. Never renamed.
    Http,
}

impl CassetteKind {
    /// The kind's name in machine-readable output (`verify --show-files --format json`).
    pub fn name(self) -> &'static str {
        match self {
            CassetteKind::ClaudeCodeMessage => "claude-code",
            CassetteKind::ClaudeCodeTokenCount => "claude-code-token-count",
            CassetteKind::Generic => "generic",
            CassetteKind::DshSession => "dsh-session",
            CassetteKind::DshOverride => "dsh-override",
            CassetteKind::Text => "text",
            CassetteKind::Http => "http",
        }
    }

    /// Whether the file's name is a hash of its contents (and can be re-keyed).
    pub fn is_content_addressed(self) -> bool {
        matches!(
            self,
            CassetteKind::ClaudeCodeMessage | CassetteKind::Generic
        )
    }

    /// Whether vcr reads the file's structure (and so can normalize and name it).
    pub fn is_structured(self) -> bool {
        !matches!(self, CassetteKind::Text | CassetteKind::Http)
    }

    /// Whether the file is a Claude Code fixture.
    pub fn is_claude_code(self) -> bool {
        matches!(
            self,
            CassetteKind::ClaudeCodeMessage | CassetteKind::ClaudeCodeTokenCount
        )
    }

    /// Whether the file belongs to a dsh scenario, which is checked as a whole.
    pub fn is_dsh(self) -> bool {
        matches!(self, CassetteKind::DshSession | CassetteKind::DshOverride)
    }
}

/// A dsh scenario folder: checked as a whole, since its script spans its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// The folder, absolute.
    pub path: PathBuf,
    /// The folder relative to the project root, `/`-separated.
    pub rel: String,
}

/// A folder of Claude Code fixtures, with the rules that apply to it.
#[derive(Debug)]
pub struct FixtureDir {
    /// The folder, absolute.
    pub path: PathBuf,
    /// The rules: the `claude-code` preset for this folder's `[CWD]`, then the user's.
    pub rules: Arc<RuleSet>,
    /// Which writer to reproduce.
    pub version: Version,
    /// Whether `stream_event` items get the payload rules (`[claude-code]
    /// dehydrate-stream-events`); Claude Code stores them raw.
    pub dehydrate_stream_events: bool,
    /// The absolute folder recordings were made in: what `[CWD]` (Claude Code) or `{{cwd}}`
    /// (dsh) stands for.
    pub cwd: String,
    /// For generic cassettes: the `[[cassettes]]` entry that describes them.
    pub spec: Option<Arc<generic::Spec>>,
    /// How its cassettes are read (the project's).
    pub read: vcr_doc::ReadOptions,
}

/// One cassette file.
#[derive(Debug, Clone)]
pub struct Cassette {
    /// The file, absolute.
    pub path: PathBuf,
    /// The path relative to the project root, `/`-separated: how every report names it.
    pub rel: String,
    /// Its kind.
    pub kind: CassetteKind,
    /// The folder it lives in.
    pub dir: Arc<FixtureDir>,
}
