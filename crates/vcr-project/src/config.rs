//! `vcr.toml`: where it is found, what it may say, and how it layers with the environment and
//! the command line.
//!
//! Precedence, low to high: built-in defaults, the configuration file (the nearest `vcr.toml`,
//! `.vcr.toml` or `pyproject.toml` with a `[tool.vcr]` table walking up from the working
//! directory to the repository root, or the file given with `--config` / `VCR_CONFIG`),
//! environment variables, command-line flags. Unknown keys are errors that name the key: a
//! typo must not silently change what gets rewritten.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use unicode_normalization::UnicodeNormalization;

use vcr_cassette::claude_code::Version;
use vcr_cassette::rules::{Platform, RuleConfig};

/// Names of the configuration file, in the order they are looked for in each folder; after
/// them, a [`PYPROJECT`] that has a `[tool.vcr]` table.
pub const FILE_NAMES: [&str; 2] = ["vcr.toml", ".vcr.toml"];

/// Python's project file, where Python users look for a tool's settings first: its
/// `[tool.vcr]` table says what a `vcr.toml` would. A `vcr.toml` in the same folder wins.
pub const PYPROJECT: &str = "pyproject.toml";

/// A `pyproject.toml` as vcr reads it: its `[tool.vcr]` table, every other key ignored (they
/// are Python's and other tools'). Read whole, so an error names the file's own line.
#[derive(Deserialize)]
struct Pyproject {
    #[serde(default)]
    tool: PyprojectTools,
}

#[derive(Default, Deserialize)]
struct PyprojectTools {
    vcr: Option<ConfigFile>,
}

/// The contents of a `vcr.toml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ConfigFile {
    /// Settings of Claude Code fixture trees.
    pub claude_code: ClaudeCodeConfig,
    /// Rules added after the preset of each kind, in order.
    #[serde(rename = "rule")]
    pub rules: Vec<RuleConfig>,
    /// Settings of `vcr verify`.
    pub verify: VerifyConfig,
    /// Settings of DeepSeek-Harness (dsh) scenario trees.
    pub dsh: DshConfig,
    /// Generic hashed cassettes (`[[cassettes]]`), in order: a file is of the first entry
    /// whose glob matches it.
    pub cassettes: Vec<vcr_cassette::generic::CassetteConfig>,
    /// Settings of `vcr record`.
    pub record: RecordConfig,
    /// HTTP cassettes (vcrpy, Ruby VCR, go-vcr, HAR, httprr, nock, talkback).
    pub http: HttpConfig,
    /// Globs, relative to the project root, of files and folders no command reads when it
    /// walks the tree (as ruff names it). Files named on the command line are still read.
    pub exclude: Vec<String>,
    /// Globs of files read by their content whatever their name or extension: as the
    /// cassette their content shows, else linted as text (`[verify] text`, the older
    /// spelling, lints as text only).
    pub extend_include: Vec<String>,
}

/// The `[http]` table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct HttpConfig {
    /// Globs, relative to the project root, of HTTP cassettes, each optionally with what the
    /// recorder matches requests by. They add to the well-known folders
    /// ([`DEFAULT_HTTP_CASSETTES`]) and to discovery by content, never replace them.
    pub cassettes: Option<Vec<HttpCassettes>>,
    /// What `vcr normalize` scrubs out of HTTP cassettes (`[http.scrub]`).
    pub scrub: Option<HttpScrubConfig>,
}

/// The `[http.scrub]` table: values `vcr normalize` replaces in HTTP cassettes, on top of
/// (or, with `defaults = false`, instead of) every value `verify` reports as `leak/secret`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct HttpScrubConfig {
    /// Whether every value `verify` reports as `leak/secret` is replaced (default `true`).
    pub defaults: bool,
    /// Header names whose values are replaced whole (requests and responses).
    pub headers: Vec<ScrubEntry>,
    /// Query parameter names whose values are replaced (request URLs).
    pub query: Vec<ScrubEntry>,
    /// Body fields whose values are replaced: JSON pointers (`/user/token`) or field names
    /// (`token`), in JSON, form and multipart bodies and event-stream data.
    pub fields: Vec<ScrubEntry>,
}

impl Default for HttpScrubConfig {
    fn default() -> Self {
        HttpScrubConfig {
            defaults: true,
            headers: Vec::new(),
            query: Vec::new(),
            fields: Vec::new(),
        }
    }
}

/// One `[http.scrub]` entry: a name (replaced by `REDACTED_<NAME>`), or a name with its
/// replacement.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ScrubEntry {
    /// `"x-internal-token"`
    Name(String),
    /// `{ name = "x-tenant", replacement = "TENANT" }`
    Entry(ScrubEntryTable),
}

/// `{ name = "...", replacement = "..." }`
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScrubEntryTable {
    /// The header, parameter or field.
    pub name: String,
    /// What its value becomes.
    pub replacement: Option<String>,
}

impl ScrubEntry {
    /// The header, parameter or field.
    pub fn name(&self) -> &str {
        match self {
            ScrubEntry::Name(name) => name,
            ScrubEntry::Entry(entry) => &entry.name,
        }
    }

    /// The replacement, if given.
    pub fn replacement(&self) -> Option<&str> {
        match self {
            ScrubEntry::Name(_) => None,
            ScrubEntry::Entry(entry) => entry.replacement.as_deref(),
        }
    }
}

/// One `[http] cassettes` entry: a glob, or a glob with `match-on`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum HttpCassettes {
    /// `"tests/cassettes/**"`
    Glob(String),
    /// `{ glob = "...", match-on = ["method", "uri", "body"] }`
    Entry(HttpCassettesEntry),
}

/// A glob with what the recorder matches requests by.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HttpCassettesEntry {
    /// The glob.
    pub glob: String,
    /// What the recorder compares to find a request's recording (vcrpy's `match_on`, Ruby
    /// VCR's `match_requests_on`): `method`, `uri`/`url`, `scheme`, `host`, `port`, `path`,
    /// `query`, `headers`, `body`. Without it, the recorder's defaults.
    pub match_on: Option<Vec<String>>,
}

impl HttpCassettes {
    /// The glob.
    pub fn glob(&self) -> &str {
        match self {
            HttpCassettes::Glob(glob) => glob,
            HttpCassettes::Entry(entry) => &entry.glob,
        }
    }

    /// The `match-on` list, if given.
    pub fn match_on(&self) -> Option<&[String]> {
        match self {
            HttpCassettes::Glob(_) => None,
            HttpCassettes::Entry(entry) => entry.match_on.as_deref(),
        }
    }
}

/// The folders vcrpy, pytest-recording, Ruby VCR and Polly.js users keep cassettes in: their
/// files are read as possible HTTP cassettes whatever their first bytes show (linted as text
/// when no reader knows them); elsewhere, discovery goes by content.
pub const DEFAULT_HTTP_CASSETTES: &[&str] = &[
    "**/cassettes/**",
    "**/__recordings__/**",
    "**/recordings/**",
    "**/fixtures/vcr_cassettes/**",
    "**/testdata/**/*.httprr",
    "**/testdata/**/*.httprr.gz",
];

/// What `match-on` can name.
pub const MATCH_ON: &[&str] = &[
    "method", "uri", "url", "scheme", "host", "port", "path", "query", "headers", "body",
];

/// The `[record]` table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RecordConfig {
    /// The variables that put the harness in record mode. When set, they replace the
    /// defaults (`VCR_RECORD=1` for Claude Code trees, `DSH_SNAPSHOT=record` for dsh), so a
    /// home-grown harness can name its own.
    pub env: Option<std::collections::BTreeMap<String, String>>,
}

/// The `[dsh]` table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct DshConfig {
    /// Folders holding scenarios, relative to the project root. Without it, every folder
    /// under the root that holds a `session.jsonl` (or a `replay.override.json`, or a child
    /// log) is a scenario.
    pub scenarios: Option<Vec<PathBuf>>,
    /// The absolute folder the scenarios were recorded in, which `vcr normalize` turns into
    /// `{{cwd}}` (the harness records in a generated folder; tell vcr which one leaked).
    /// Without it, the project root.
    pub cwd: Option<String>,
}

/// The `[verify]` table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct VerifyConfig {
    /// Globs, relative to the project root, of cassettes vcr does not parse (vcrpy and Ruby
    /// VCR YAML, HAR, httprr, ...): they are linted for leaks as text.
    pub text: Vec<String>,
    /// Per finding id (`"leak/email" = "error"`): `error`, `warning` or `off`.
    pub severity: std::collections::BTreeMap<String, Level>,
    /// Findings accepted on purpose.
    pub allow: Vec<AllowConfig>,
    /// HTTP cassettes recorded longer ago than this (`90d`, `12w`, `1y`) are `expired`.
    pub max_age: Option<String>,
    /// Report `orphan` warnings without a usage log, guessed from pytest-recording's
    /// naming and vcrpy's `use_cassette` paths (default: on). A guess never deletes:
    /// `vcr prune` needs a run.
    pub static_orphans: Option<bool>,
}

/// A severity a finding id can be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Fails the run.
    Error,
    /// Reported; never fails the run.
    Warning,
    /// Not reported.
    Off,
}

/// One `[[verify.allow]]` entry: a finding is accepted when every condition given holds.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct AllowConfig {
    /// The finding id (`leak/path`), or a family (`leak/*`).
    pub id: String,
    /// The detector (`user-home`, `anthropic-key`, ...), for leaks.
    pub detector: Option<String>,
    /// A text the matched value contains.
    #[serde(rename = "match")]
    pub contains: Option<String>,
    /// A JavaScript regex the matched value matches.
    pub regex: Option<String>,
    /// Globs of the files it applies to, relative to the project root.
    pub paths: Vec<String>,
    /// Why it is accepted (for people; shown with `-v`).
    pub reason: Option<String>,
}

/// The `[claude-code]` table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ClaudeCodeConfig {
    /// Fixture folders, relative to the project root. Without it, every `fixtures/` folder
    /// under the root that holds Claude Code fixtures.
    pub fixtures: Option<Vec<PathBuf>>,
    /// What `[CWD]` stands for. Without it, the parent of each fixtures folder (the seed
    /// writes to `<cwd>/fixtures`).
    pub cwd: Option<String>,
    /// What `[CONFIG_HOME]` stands for. Without it, `$CLAUDE_CONFIG_DIR` or `~/.claude`.
    pub config_home: Option<String>,
    /// Whose path forms to replace: `unix` or `windows`. Without it, this machine's.
    pub platform: Option<Platform>,
    /// Which Claude Code writer to reproduce: `2.1.88` (default) or `2.1.195`.
    pub version: Option<Version>,
    /// Apply the payload rules to `stream_event` items too. Off by default: Claude Code
    /// stores them raw, and `vcr normalize` then keeps the seed's bytes.
    pub dehydrate_stream_events: Option<bool>,
}

/// Why the configuration cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, or has unknown keys or wrong types.
    #[error("invalid config file {}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said, with line and column.
        message: String,
    },
    /// A folder setting longer than any path: vcr looks for it in every file, and a pattern
    /// that long is past what its matchers compile.
    #[error("{setting} is {len} bytes long; a path has at most {MAX_PATH_BYTES}")]
    PathTooLong {
        /// Where the value came from (the key in `vcr.toml`, or the environment variable).
        setting: String,
        /// Its length in bytes.
        len: usize,
    },
    /// An environment variable has a value vcr does not understand.
    #[error("environment variable `{name}` has an invalid value `{value}`: {expected}")]
    Env {
        /// The variable.
        name: String,
        /// Its value.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// A `[verify]` setting is wrong.
    #[error("in {}: {message}", path.as_deref().map_or("the configuration".into(), |p| p.display().to_string()))]
    Verify {
        /// The configuration file.
        path: Option<PathBuf>,
        /// What is wrong, naming the setting.
        message: String,
    },
    /// An `[http]` setting is wrong.
    #[error("in {}: {message}", path.as_deref().map_or("the configuration".into(), |p| p.display().to_string()))]
    Http {
        /// The configuration file.
        path: Option<PathBuf>,
        /// What is wrong, naming the setting.
        message: String,
    },
    /// A rule does not compile.
    #[error("in {}", path.as_deref().map_or("the built-in rules".into(), |p| p.display().to_string()))]
    Rule {
        /// The configuration file, if the rule came from one.
        path: Option<PathBuf>,
        /// The problem.
        #[source]
        source: vcr_cassette::rules::RuleError,
    },
}

impl ConfigFile {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let parsed = if is_pyproject(path) {
            ConfigFile::parse_pyproject(&text)
        } else {
            ConfigFile::parse(&text)
        };
        parsed.map_err(|message| ConfigError::Parse {
            path: path.to_owned(),
            message,
        })
    }

    /// Parses a `pyproject.toml`'s `[tool.vcr]` table (empty settings when it has none); the
    /// error message carries the line and column in the file, and names keys as the table
    /// holds them.
    pub fn parse_pyproject(text: &str) -> Result<ConfigFile, String> {
        toml::from_str::<Pyproject>(text)
            .map(|p| p.tool.vcr.unwrap_or_default())
            .map_err(|e| e.to_string().trim_end().to_owned())
    }

    /// Parses configuration text; the error message carries the line and column.
    pub fn parse(text: &str) -> Result<ConfigFile, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_owned())
    }
}

/// Finds the configuration file for a working directory: the nearest `vcr.toml`,
/// `.vcr.toml` or `pyproject.toml` with a `[tool.vcr]` table in it or an ancestor (in that
/// order within a folder), not looking above the repository root (the first folder holding
/// `.git`).
pub fn discover(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        for name in FILE_NAMES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        let pyproject = dir.join(PYPROJECT);
        if pyproject.is_file() && has_vcr_table(&pyproject) {
            return Some(pyproject);
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    None
}

/// Whether a file is read as a `pyproject.toml` (its `[tool.vcr]` table).
fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == PYPROJECT)
}

/// Whether a `pyproject.toml` has a `[tool.vcr]` table. One that does not parse counts when
/// its text names the table, so that loading it reports the error instead of vcr running
/// without the settings the user wrote.
fn has_vcr_table(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    match toml::from_str::<toml::Table>(&text) {
        Ok(table) => table
            .get("tool")
            .and_then(toml::Value::as_table)
            .is_some_and(|tool| tool.contains_key("vcr")),
        Err(_) => text.contains("tool.vcr"),
    }
}

/// The environment as vcr reads it, so tests can supply their own.
pub trait Env {
    /// The value of a variable, if set and not empty.
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
}

/// Settings the command line may override.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--platform`.
    pub platform: Option<Platform>,
    /// `--no-ignore`: walks select files git ignores too.
    pub no_ignore: bool,
    /// How cassettes are read (the binary's `VCR_TEST_*` hooks set the slower paths).
    pub read: vcr_cassette::http::ReadOptions,
}

/// The machine-dependent settings of Claude Code trees, after layering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeCodeSettings {
    /// `[CWD]`, if fixed for every tree; otherwise each tree's fixtures parent.
    pub cwd: Option<String>,
    /// `[CONFIG_HOME]`, NFC-normalized.
    pub config_home: String,
    /// Whose path forms to replace.
    pub platform: Platform,
    /// Which writer to reproduce.
    pub version: Version,
    /// Whether `stream_event` items get the payload rules.
    pub dehydrate_stream_events: bool,
}

impl ClaudeCodeSettings {
    /// Layers defaults, the file, the environment and the command line.
    ///
    /// Environment: `VCR_PLATFORM` (`unix`/`windows`), `VCR_CWD`, `CLAUDE_CONFIG_DIR` (the
    /// variable Claude Code itself reads), `HOME` for the default `~/.claude`.
    pub fn resolve(
        file: &ClaudeCodeConfig,
        root: &Path,
        env: &dyn Env,
        cli: &Overrides,
    ) -> Result<ClaudeCodeSettings, ConfigError> {
        let env_platform = match env.var("VCR_PLATFORM") {
            None => None,
            Some(v) => Some(parse_platform(&v).ok_or_else(|| ConfigError::Env {
                name: "VCR_PLATFORM".into(),
                value: v.clone(),
                expected: "expected `unix` or `windows`".into(),
            })?),
        };
        let platform = cli
            .platform
            .or(env_platform)
            .or(file.platform)
            .unwrap_or_else(Platform::native);
        let cwd = first_folder([
            (env.var("VCR_CWD"), "environment variable `VCR_CWD`"),
            (file.cwd.clone(), "`[claude-code] cwd`"),
        ])?
        .map(|cwd| absolute_from(root, &cwd));
        let config_home = first_folder([
            (
                env.var("CLAUDE_CONFIG_DIR"),
                "environment variable `CLAUDE_CONFIG_DIR`",
            ),
            (file.config_home.clone(), "`[claude-code] config-home`"),
            (
                env.var("HOME").map(|home| join_like_node(&home, ".claude")),
                "environment variable `HOME`",
            ),
        ])?
        .unwrap_or_default();
        Ok(ClaudeCodeSettings {
            cwd,
            config_home: config_home.nfc().collect(),
            platform,
            version: file.version.unwrap_or_default(),
            dehydrate_stream_events: file.dehydrate_stream_events.unwrap_or(false),
        })
    }
}

/// The longest folder setting, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// The first folder setting given, of candidates in precedence order (value, where it came
/// from); refused when it is longer than a path can be (issue 11: the leak scanner looks for
/// the config home in every file, and a pattern of megabytes is past what its matcher
/// compiles).
fn first_folder<const N: usize>(
    candidates: [(Option<String>, &str); N],
) -> Result<Option<String>, ConfigError> {
    match candidates
        .into_iter()
        .find_map(|(value, setting)| value.map(|v| (v, setting)))
    {
        Some((v, setting)) if v.len() > MAX_PATH_BYTES => Err(ConfigError::PathTooLong {
            setting: setting.to_owned(),
            len: v.len(),
        }),
        found => Ok(found.map(|(v, _)| v)),
    }
}

fn parse_platform(value: &str) -> Option<Platform> {
    match value {
        "unix" | "linux" | "macos" | "darwin" => Some(Platform::Unix),
        "windows" | "win32" => Some(Platform::Windows),
        _ => None,
    }
}

/// A configured path as the harness would have seen it: relative paths are taken from the
/// project root; absolute ones, and Windows paths, are kept as written.
fn absolute_from(root: &Path, value: &str) -> String {
    let looks_absolute =
        value.starts_with('/') || value.starts_with('\\') || value.as_bytes().get(1) == Some(&b':');
    if looks_absolute {
        value.to_owned()
    } else {
        let joined = root.join(value);
        std::fs::canonicalize(&joined)
            .unwrap_or(joined)
            .to_string_lossy()
            .into_owned()
    }
}

/// `path.join(home, name)` for the common cases: one separator between the parts.
fn join_like_node(home: &str, name: &str) -> String {
    format!("{}/{name}", home.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct MapEnv(HashMap<&'static str, &'static str>);

    impl Env for MapEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|v| (*v).to_owned())
        }
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = ConfigFile::parse("[claude-code]\ncwdd = \"/x\"\n").unwrap_err();
        assert!(err.contains("unknown field `cwdd`"), "{err}");
        assert!(err.contains("line 2"), "{err}");
        let err = ConfigFile::parse("colour = 1\n").unwrap_err();
        assert!(err.contains("unknown field `colour`"), "{err}");
        let err = ConfigFile::parse(
            "[[rule]]\nid = \"a\"\nregex = \"x\"\nreplace = \"y\"\nscop = \"key\"\n",
        )
        .unwrap_err();
        assert!(err.contains("unknown field `scop`"), "{err}");
    }

    #[test]
    fn rules_and_settings_parse() {
        let file = ConfigFile::parse(
            "[claude-code]\nplatform = \"windows\"\nversion = \"2.1.195\"\n\n[[rule]]\nid = \"host\"\nliteral = \"build-7\"\nreplace = \"[HOST]\"\nscope = \"payload\"\n",
        )
        .unwrap();
        assert_eq!(file.claude_code.platform, Some(Platform::Windows));
        assert_eq!(file.claude_code.version, Some(Version::V2_1_195));
        assert_eq!(file.rules[0].id, "host");
    }

    #[test]
    fn cli_over_env_over_file_over_defaults() {
        let file = ClaudeCodeConfig {
            platform: Some(Platform::Windows),
            config_home: Some("/file/.claude".into()),
            cwd: Some("/file/cwd".into()),
            ..ClaudeCodeConfig::default()
        };
        let root = Path::new("/project");
        let none = MapEnv(HashMap::new());
        let s = ClaudeCodeSettings::resolve(&file, root, &none, &Overrides::default()).unwrap();
        assert_eq!(s.platform, Platform::Windows);
        assert_eq!(s.config_home, "/file/.claude");
        assert_eq!(s.cwd.as_deref(), Some("/file/cwd"));

        let env = MapEnv(HashMap::from([
            ("VCR_PLATFORM", "unix"),
            ("CLAUDE_CONFIG_DIR", "/env/claude"),
            ("VCR_CWD", "/env/cwd"),
        ]));
        let s = ClaudeCodeSettings::resolve(&file, root, &env, &Overrides::default()).unwrap();
        assert_eq!(s.platform, Platform::Unix);
        assert_eq!(s.config_home, "/env/claude");
        assert_eq!(s.cwd.as_deref(), Some("/env/cwd"));

        let cli = Overrides {
            platform: Some(Platform::Windows),
            ..Overrides::default()
        };
        let s = ClaudeCodeSettings::resolve(&file, root, &env, &cli).unwrap();
        assert_eq!(s.platform, Platform::Windows);

        let home = MapEnv(HashMap::from([("HOME", "/home/u/")]));
        let s = ClaudeCodeSettings::resolve(
            &ClaudeCodeConfig::default(),
            root,
            &home,
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(s.config_home, "/home/u/.claude");
        assert_eq!(s.cwd, None);
    }

    #[test]
    fn bad_env_values_are_named() {
        let env = MapEnv(HashMap::from([("VCR_PLATFORM", "beos")]));
        let err = ClaudeCodeSettings::resolve(
            &ClaudeCodeConfig::default(),
            Path::new("/"),
            &env,
            &Overrides::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "environment variable `VCR_PLATFORM` has an invalid value `beos`: expected `unix` or `windows`"
        );
    }

    #[test]
    fn folders_longer_than_a_path_are_refused() {
        let long = format!("/{}", "a".repeat(MAX_PATH_BYTES));
        let file = ClaudeCodeConfig {
            config_home: Some(long.clone()),
            ..ClaudeCodeConfig::default()
        };
        let none = MapEnv(HashMap::new());
        let err = ClaudeCodeSettings::resolve(&file, Path::new("/"), &none, &Overrides::default())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`[claude-code] config-home` is 4097 bytes long; a path has at most 4096"
        );
        let home: &'static str = Box::leak(long.into_boxed_str());
        let env = MapEnv(HashMap::from([("HOME", home)]));
        let err = ClaudeCodeSettings::resolve(
            &ClaudeCodeConfig::default(),
            Path::new("/"),
            &env,
            &Overrides::default(),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("environment variable `HOME` is"),
            "{err}"
        );
        // Only the setting in use counts.
        let file = ClaudeCodeConfig {
            config_home: Some("/ci/.claude".into()),
            ..ClaudeCodeConfig::default()
        };
        let s = ClaudeCodeSettings::resolve(&file, Path::new("/"), &env, &Overrides::default());
        assert_eq!(s.unwrap().config_home, "/ci/.claude");
    }

    #[test]
    fn config_home_is_nfc() {
        // "e" + combining acute (NFD) becomes "é" (NFC), as `.normalize('NFC')` does.
        let env = MapEnv(HashMap::from([(
            "CLAUDE_CONFIG_DIR",
            "/home/jose\u{301}/.claude",
        )]));
        let s = ClaudeCodeSettings::resolve(
            &ClaudeCodeConfig::default(),
            Path::new("/"),
            &env,
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(s.config_home, "/home/jos\u{e9}/.claude");
    }
}
