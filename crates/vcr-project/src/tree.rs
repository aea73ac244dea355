//! The project: its root, its configuration, its fixture folders and the cassettes in them.
//!
//! Selection follows what users and hooks pass: no paths means the whole configured tree;
//! file paths mean exactly those files, with no walk (the pre-commit framework passes staged
//! file names and expects milliseconds); folder paths are walked. Symbolic links are never
//! followed, and nothing outside the project root is ever selected.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::config::{ClaudeCodeSettings, ConfigError, ConfigFile, Env, Overrides};
use vcr_cassette::claude_code::{self, FileKind};
use vcr_cassette::http::ReadOptions;
use vcr_cassette::rules::{Machine, Rule, RuleSet, claude_code as preset};
use vcr_cassette::{dsh, generic, http};

mod walk;
pub use vcr_cassette::model::{Cassette, CassetteKind, FixtureDir, Scenario};
pub use walk::{Policy, is_skipped_name, walk};

/// The name of the folder Claude Code writes its fixtures to.
pub const FIXTURES_DIR: &str = "fixtures";

/// Prefix of every temporary file vcr creates beside cassettes.
pub const TEMP_PREFIX: &str = ".vcr-";

/// A problem with a path the user gave.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectError {
    /// The path does not exist.
    #[error("{path}: no such file or folder")]
    Missing {
        /// The path as given.
        path: String,
    },
    /// The path is outside the project root.
    #[error("{path}: outside the project root {root}")]
    Outside {
        /// The path as given.
        path: String,
        /// The project root.
        root: String,
    },
    /// The path or one of its parents is a symbolic link.
    #[error("{path}: is a symbolic link; vcr does not follow links")]
    Symlink {
        /// The path as given.
        path: String,
    },
    /// A folder configured in `vcr.toml` cannot be used: missing, outside the project root,
    /// or a symbolic link.
    #[error("{key} entry `{value}` {problem}")]
    Configured {
        /// The key: `` `[claude-code] fixtures` ``.
        key: &'static str,
        /// The entry as written.
        value: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A folder or glob configured in `vcr.toml` selects no cassette (an error unless the
    /// run allows an empty selection).
    #[error("{key} entry `{value}` selects nothing: {looked_for}")]
    SelectsNothing {
        /// The key.
        key: String,
        /// The entry as written.
        value: String,
        /// What it was expected to select.
        looked_for: &'static str,
    },
    /// The tree could not be read.
    #[error("{path}: {message}")]
    Io {
        /// Where.
        path: String,
        /// What the system said.
        message: String,
    },
}

/// The `.py` files a walk met, each folder held once with the names of its files after it.
///
/// A whole-tree `verify` holds them until the static orphan guess reads the modules, at
/// the end: as absolute paths they were most of what the guess held in a monorepo of
/// 19,000 modules (issue 25), each path repeating its folder.
#[derive(Debug, Default)]
pub struct PythonFiles {
    /// Each folder, with the names of its files in the order they came. A folder whose
    /// files are interleaved with a subfolder's comes back as a new group.
    folders: Vec<(PathBuf, Vec<std::ffi::OsString>)>,
}

impl PythonFiles {
    /// Adds a file by its path (a path without a file name is left out).
    pub fn push(&mut self, path: &Path) {
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
            return;
        };
        match self.folders.last_mut() {
            Some((last, names)) if last == folder => names.push(name.to_owned()),
            _ => self
                .folders
                .push((folder.to_owned(), vec![name.to_owned()])),
        }
    }

    /// Each file as its folder and name, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&Path, &std::ffi::OsStr)> {
        (self.folders.iter())
            .flat_map(|(folder, names)| names.iter().map(move |name| (folder.as_path(), &**name)))
    }
}

impl FromIterator<PathBuf> for PythonFiles {
    fn from_iter<I: IntoIterator<Item = PathBuf>>(paths: I) -> Self {
        let mut files = PythonFiles::default();
        for path in paths {
            files.push(&path);
        }
        files
    }
}

/// The cassettes chosen for a command, in path order.
#[derive(Debug, Default)]
pub struct Selection {
    /// The cassettes, sorted by relative path.
    pub cassettes: Vec<Cassette>,
    /// Files given by name that are not cassettes vcr knows (reported in verbose mode).
    pub ignored: Vec<String>,
    /// Temporary files a killed run left beside cassettes.
    pub stray_temps: Vec<PathBuf>,
    /// Paths that could not be selected.
    pub errors: Vec<SelectError>,
    /// The dsh scenarios the selected dsh files belong to, sorted.
    pub scenarios: Vec<Scenario>,
    /// Configured folders and globs that selected nothing: errors unless the run allows an
    /// empty selection.
    pub selects_nothing: Vec<SelectError>,
    /// Whether folders were searched (the whole tree, or folders given): an empty result
    /// then means nothing was found, not that the given files were not cassettes.
    pub searched: bool,
    /// Symbolic links met while searching (never followed), relative to the root.
    pub links: Vec<String>,
    /// The folders searched, as the user gave them (the project root for the whole tree):
    /// what "no cassette found" names.
    pub searched_dirs: Vec<String>,
    /// The Python files (`*.py`) the walk of the whole root met, when it walked it: the
    /// static orphan guess reads the project's test modules, and walking the tree a second
    /// time for them cost a twentieth of a whole-tree `verify` (issue 12).
    pub python_files: Option<PythonFiles>,
    /// Cassettes the walk left out because git ignores them (`--no-ignore` reads them),
    /// relative to the root, sorted: counted, never skipped in silence (issue 21).
    pub git_ignored: Vec<String>,
    /// Cassettes a run checked as the walk found them, without holding them in
    /// `cassettes` (`vcr_ops::verify::run_tree`).
    pub streamed: usize,
}

impl Selection {
    /// Takes one item of a walk: a cassette or a scenario is selected, the rest is noted.
    pub fn add(&mut self, found: Found) -> Result<(), ConfigError> {
        match found {
            Found::Cassette(cassette) => self.cassettes.push(cassette),
            Found::Scenario(scenario) => self.scenarios.push(scenario),
            Found::Broken(e) => return Err(e),
            other => self.note(other),
        }
        Ok(())
    }

    /// Puts what was noted besides the cassettes in order, once: scenarios, stray temporary
    /// files, named files that are no cassettes and git-ignored cassettes sorted, each once
    /// (a folder's walk and a file given by name can meet one twice).
    pub fn settle_notes(&mut self) {
        self.scenarios.sort_by(|a, b| a.rel.cmp(&b.rel));
        self.scenarios.dedup_by(|a, b| a.rel == b.rel);
        self.stray_temps.sort();
        self.stray_temps.dedup();
        self.ignored.sort();
        self.git_ignored.sort();
        self.git_ignored.dedup();
    }

    /// Notes what a walk found that is neither a cassette nor a scenario.
    pub fn note(&mut self, found: Found) {
        match found {
            Found::Link(rel) => self.links.push(rel),
            Found::GitIgnored(rel) => self.git_ignored.push(rel),
            Found::StrayTemp(path) => self.stray_temps.push(path),
            Found::Python(path) => self.python_files.get_or_insert_default().push(&path),
            Found::Error(e) => self.errors.push(e),
            Found::Cassette(_) | Found::Scenario(_) | Found::Broken(_) => {}
        }
    }

    /// Why a search that found no cassette at all is not a pass: what vcr looked for, and
    /// the links it did not follow. `None` when something was found, or only files were
    /// given.
    pub fn nothing_found(&self, root: &Path) -> Option<String> {
        if !self.searched || !self.cassettes.is_empty() || self.streamed > 0 {
            return None;
        }
        let searched = if self.searched_dirs.is_empty() {
            root.display().to_string()
        } else {
            self.searched_dirs.join(", ")
        };
        let recorders: Vec<&str> = http::RECORDERS
            .iter()
            .map(|f| f.recorder().known_as())
            .collect();
        let (last, rest) = recorders.split_last().expect("recorders");
        let recorders = format!("{} and {last}", rest.join(", "));
        let extensions: Vec<String> = http::sniff::EXTENSIONS
            .iter()
            .map(|e| format!("`.{e}`"))
            .collect();
        let (last, rest) = extensions.split_last().expect("extensions");
        let extensions = format!("{} and {last}", rest.join(", "));
        let folders: Vec<String> = http::sniff::EXTENSIONLESS_FOLDERS
            .iter()
            .map(|[a, b]| format!("`{a}/{b}/`"))
            .collect();
        let folders = folders.join(" or ");
        let words: Vec<String> = http::sniff::RECORDING_FOLDER_WORDS
            .iter()
            .map(|w| format!("`{w}`"))
            .collect();
        let words = words.join(", ");
        let mut text = format!(
            "no cassette found under {searched}: vcr looked for HTTP cassettes by their content in every {extensions} file (and their `.gz`), and every file without an extension under {folders} or a folder named for recordings ({words}): {recorders}; Claude Code fixtures folders (`fixtures/` holding `<6hex>.json` or `token-count-<12hex>.json` files); DeepSeek-Harness scenario folders (holding `session.jsonl` or `replay.override.json`); and the files `[[cassettes]]`, `[http] cassettes` and `[verify] text` globs select. A cassette vcr did not recognise can be named in `vcr.toml` (`[verify] text = [\"path/**/*.json\"]` lints it as text, `[[cassettes]]` declares a hashed one)"
        );
        if !self.links.is_empty() {
            let shown: Vec<String> = self
                .links
                .iter()
                .take(3)
                .map(|l| format!("`{l}`"))
                .collect();
            text.push_str(&format!(
                "; it did not follow the symbolic link{} {} (vcr never follows links: name the real folder, or run with -C there)",
                if self.links.len() == 1 { "" } else { "s" },
                shown.join(", ")
            ));
        }
        if let Some(first) = self.git_ignored.first() {
            text.push_str(&format!(
                "; it left out {} git ignores, such as `{first}` (--no-ignore reads {})",
                if self.git_ignored.len() == 1 {
                    "1 cassette".to_owned()
                } else {
                    format!("{} cassettes", self.git_ignored.len())
                },
                if self.git_ignored.len() == 1 {
                    "it"
                } else {
                    "them"
                }
            ));
        }
        text.push_str(
            "; nothing checked is not a pass (give the right folder, or --allow-empty to accept an empty tree)",
        );
        Some(text)
    }
}

/// A project: a root folder, its configuration and its settings after layering.
#[derive(Debug)]
pub struct Project {
    root: PathBuf,
    config_path: Option<PathBuf>,
    config: ConfigFile,
    claude_code: ClaudeCodeSettings,
    user_rules: Vec<Rule>,
    rule_sets: std::sync::Mutex<HashMap<String, Arc<RuleSet>>>,
    /// `[verify] text`: cassettes linted as text.
    text_globs: Option<globset::GlobSet>,
    /// `[[cassettes]]`, compiled, in order.
    generic: Vec<Arc<generic::Spec>>,
    /// `[http] cassettes` (or the default folders), compiled, in order.
    http: HttpGlobs,
    /// `exclude`: paths no walk enters or selects.
    exclude: Option<globset::GlobSet>,
    /// `extend-include`: files read by their content whatever their name, linted as text
    /// when no reader knows them.
    extend_include: Option<globset::GlobSet>,
    /// `--no-ignore`: files git ignores are selected too.
    no_ignore: bool,
    /// How cassettes are read: each folder's cassettes carry it ([`FixtureDir::read`]).
    read: ReadOptions,
    /// The folders (relative, `/`-separated) a PHPUnit bootstrap sets as php-vcr's cassette
    /// path ([`php_vcr_folders`]): their files without an extension are sniffed as
    /// `tests/fixtures/`'s are.
    php_vcr_folders: Vec<String>,
}

/// The PHPUnit configurations whose `bootstrap` attribute names the file that configures
/// php-vcr, in PHPUnit's order of preference.
const PHPUNIT_CONFIGS: &[&str] = &["phpunit.xml", "phpunit.xml.dist", "phpunit.dist.xml"];

/// The bootstrap files read when no PHPUnit configuration names one.
const PHP_BOOTSTRAPS: &[&str] = &["tests/bootstrap.php", "test/bootstrap.php"];

/// The largest PHPUnit configuration or bootstrap file read for php-vcr's cassette path.
const MAX_PHP_CONFIG: u64 = 1 << 20;

/// The folders `root`'s PHP tests set as php-vcr's cassette path
/// (`VCR::configure()->setCassettePath(...)`, [`http::php_vcr::cassette_paths`]), read from
/// the bootstrap its PHPUnit configuration names and from `tests/bootstrap.php`: php-vcr
/// names a cassette file as the test does, without an extension, and a project that moves
/// them from `tests/fixtures/` says where in that call. A file that cannot be read, or is
/// larger than [`MAX_PHP_CONFIG`], says nothing: discovery goes on without it.
fn php_vcr_folders(root: &Path) -> Vec<String> {
    let read = |rel: &str| -> Option<String> {
        let path = root.join(rel);
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_PHP_CONFIG {
            return None;
        }
        std::fs::read_to_string(path).ok()
    };
    let mut bootstraps: Vec<String> = Vec::new();
    for config in PHPUNIT_CONFIGS {
        let Some(xml) = read(config) else { continue };
        if let Some(at) = xml.find("bootstrap=\"") {
            let rest = &xml[at + "bootstrap=\"".len()..];
            if let Some(end) = rest.find('"') {
                bootstraps.push(rest[..end].trim_start_matches("./").to_owned());
            }
        }
        break;
    }
    bootstraps.extend(PHP_BOOTSTRAPS.iter().map(|b| (*b).to_owned()));
    let mut folders = Vec::new();
    for bootstrap in &bootstraps {
        if bootstrap.starts_with('/') || bootstrap.split('/').any(|p| p == "..") {
            continue;
        }
        let Some(php) = read(bootstrap) else { continue };
        let dir = bootstrap.rsplit_once('/').map_or("", |(dir, _)| dir);
        for folder in http::php_vcr::cassette_paths(&php, dir) {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
    }
    folders
}

/// The globs that select HTTP cassettes, each with its `match-on`: the configured ones
/// first (their `match-on` wins), then the well-known cassette folders, which configuration
/// adds to and never replaces (issue 21). Files none selects are still found by content
/// ([`vcr_cassette::http::sniff`]).
#[derive(Debug)]
struct HttpGlobs {
    /// The configured entries, in order: one that holds no cassette is an error.
    globs: Vec<(globset::GlobMatcher, Option<Vec<String>>)>,
    /// How many of `globs` are configured (all of them).
    configured: usize,
    /// The well-known folders, in one matcher (every file of the walk meets them; six
    /// matchers one after another were a twentieth of a monorepo's discovery, issue 21).
    /// They take only files with a cassette's extension.
    defaults: globset::GlobSet,
}

/// Extensions of the files the default HTTP folders are searched for.
const HTTP_EXTENSIONS: &[&str] = &[
    ".yaml",
    ".yml",
    ".json",
    ".har",
    ".json5",
    ".httprr",
    ".cassette",
    ".replay",
    ".gz",
];

impl HttpGlobs {
    fn compile(config: Option<&[crate::config::HttpCassettes]>) -> Result<HttpGlobs, String> {
        let compile = |glob: &str| {
            globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("`http.cassettes`: invalid glob `{glob}`: {}", e.kind()))
        };
        let mut globs = Vec::new();
        for (i, entry) in config.unwrap_or_default().iter().enumerate() {
            // A name vcr does not know is a project's own matcher, which may compare anything
            // in the request (`Matched::from`); only what cannot name one is refused.
            if let Some(bad) = entry.match_on().and_then(|names| {
                names.iter().find(|m| {
                    m.is_empty() || !m.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                })
            }) {
                return Err(format!(
                    "`http.cassettes[{i}].match-on`: `{bad}` is no matcher's name (the recorders' own are {}; a project's own matcher is named as the recorder knows it)",
                    crate::config::MATCH_ON.join(", ")
                ));
            }
            globs.push((
                compile(entry.glob())?,
                entry.match_on().map(<[String]>::to_vec),
            ));
        }
        let configured = globs.len();
        let defaults: Vec<String> = crate::config::DEFAULT_HTTP_CASSETTES
            .iter()
            .map(|g| (*g).to_owned())
            .collect();
        let defaults = compile_globs(&defaults)?.expect("the defaults are not empty");
        Ok(HttpGlobs {
            globs,
            configured,
            defaults,
        })
    }

    /// The first configured entry that selects `rel`, or `configured` when only the
    /// well-known folders do.
    fn find(&self, rel: &str) -> Option<usize> {
        self.globs
            .iter()
            .position(|(glob, _)| glob.is_match(rel))
            .or_else(|| {
                let candidate = HTTP_EXTENSIONS.iter().any(|ext| rel.ends_with(ext));
                (candidate && self.defaults.is_match(rel)).then_some(self.configured)
            })
    }
}

/// Compiles globs written relative to the project root (`*` stays within a folder, `**`
/// crosses them). The error names the bad glob.
pub fn compile_globs(globs: &[String]) -> Result<Option<globset::GlobSet>, String> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = globset::GlobSetBuilder::new();
    for glob in globs {
        let compiled = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid glob `{glob}`: {}", e.kind()))?;
        builder.add(compiled);
    }
    builder.build().map(Some).map_err(|e| e.to_string())
}

impl Project {
    /// Opens the project for a working directory.
    ///
    /// With `config` (from `--config` or `VCR_CONFIG`), that file is used and the root is the
    /// working directory. Otherwise the nearest `vcr.toml` up to the repository root is used,
    /// and its folder is the root; with none, the working directory is the root.
    pub fn open(
        working_dir: &Path,
        config: Option<&Path>,
        env: &dyn Env,
        overrides: &Overrides,
    ) -> Result<Project, ConfigError> {
        let working_dir =
            std::fs::canonicalize(working_dir).map_err(|source| ConfigError::Read {
                path: working_dir.to_owned(),
                source,
            })?;
        let (root, config_path) = match config {
            Some(path) => (working_dir.clone(), Some(working_dir.join(path))),
            None => match crate::config::discover(&working_dir) {
                Some(found) => (
                    found.parent().map_or(working_dir.clone(), Path::to_owned),
                    Some(found),
                ),
                None => (working_dir.clone(), None),
            },
        };
        let config_file = match &config_path {
            Some(path) => ConfigFile::load(path)?,
            None => ConfigFile::default(),
        };
        let claude_code =
            ClaudeCodeSettings::resolve(&config_file.claude_code, &root, env, overrides)?;
        let user_rules = config_file
            .rules
            .iter()
            .map(Rule::from_config)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| ConfigError::Rule {
                path: config_path.clone(),
                source,
            })?;
        let text_globs =
            compile_globs(&config_file.verify.text).map_err(|message| ConfigError::Verify {
                path: config_path.clone(),
                message: format!("`verify.text`: {message}"),
            })?;
        let generic = generic::compile_all(&config_file.cassettes)
            .map_err(|e| ConfigError::Verify {
                path: config_path.clone(),
                message: e.to_string(),
            })?
            .into_iter()
            .map(Arc::new)
            .collect();
        let http =
            HttpGlobs::compile(config_file.http.cassettes.as_deref()).map_err(|message| {
                ConfigError::Verify {
                    path: config_path.clone(),
                    message,
                }
            })?;
        let compile = |key: &str, globs: &[String]| {
            compile_globs(globs).map_err(|message| ConfigError::Verify {
                path: config_path.clone(),
                message: format!("`{key}`: {message}"),
            })
        };
        let exclude = compile("exclude", &config_file.exclude)?;
        let extend_include = compile("extend-include", &config_file.extend_include)?;
        let php_vcr_folders = php_vcr_folders(&root);
        let project = Project {
            php_vcr_folders,
            http,
            exclude,
            extend_include,
            no_ignore: overrides.no_ignore,
            read: overrides.read,
            root,
            config_path,
            config: config_file,
            claude_code,
            user_rules,
            rule_sets: std::sync::Mutex::default(),
            text_globs,
            generic,
        };
        // Compile one rule set now so that duplicate ids fail before any work starts.
        project.rules_for_cwd("/")?;
        Ok(project)
    }

    /// The project root, absolute and canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether walks select files git ignores too (`--no-ignore`).
    pub fn no_ignore(&self) -> bool {
        self.no_ignore
    }

    /// The configuration file in use, if any.
    pub fn config_path(&self) -> Option<&Path> {
        self.config_path.as_deref()
    }

    /// The configuration file's contents (defaults when there is none).
    pub fn config(&self) -> &ConfigFile {
        &self.config
    }

    /// The Claude Code settings after layering.
    pub fn claude_code(&self) -> &ClaudeCodeSettings {
        &self.claude_code
    }

    /// Where vcr keeps its journal, stash and lock.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".vcr")
    }

    /// The user's own `[[rule]]`s, without any preset (what applies to HTTP bodies).
    pub fn user_rules(&self) -> Result<RuleSet, ConfigError> {
        RuleSet::new(self.user_rules.clone()).map_err(|source| ConfigError::Rule {
            path: self.config_path.clone(),
            source,
        })
    }

    /// The rule set for a fixtures folder whose `[CWD]` is `cwd`.
    pub fn rules_for_cwd(&self, cwd: &str) -> Result<Arc<RuleSet>, ConfigError> {
        let mut cache = self.rule_sets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(set) = cache.get(cwd) {
            return Ok(Arc::clone(set));
        }
        let machine = Machine {
            cwd: cwd.to_owned(),
            config_home: self.claude_code.config_home.clone(),
            platform: self.claude_code.platform,
        };
        let mut rules = preset(&machine);
        rules.extend(self.user_rules.iter().cloned());
        let set = Arc::new(RuleSet::new(rules).map_err(|source| ConfigError::Rule {
            path: self.config_path.clone(),
            source,
        })?);
        cache.insert(cwd.to_owned(), Arc::clone(&set));
        Ok(set)
    }

    /// The fixtures folder at `path` (absolute), with its rules.
    fn fixture_dir(&self, path: &Path) -> Result<Arc<FixtureDir>, ConfigError> {
        let cwd = match &self.claude_code.cwd {
            Some(cwd) => cwd.clone(),
            None => path.parent().unwrap_or(path).to_string_lossy().into_owned(),
        };
        Ok(Arc::new(FixtureDir {
            path: path.to_owned(),
            rules: self.rules_for_cwd(&cwd)?,
            version: self.claude_code.version,
            dehydrate_stream_events: self.claude_code.dehydrate_stream_events,
            cwd,
            spec: None,
            read: self.read,
        }))
    }

    /// The path of `path` relative to the root, `/`-separated.
    pub fn rel(&self, path: &Path) -> String {
        relative(&self.root, path)
    }

    /// Chooses the cassettes for a command: every cassette of the configured tree when
    /// `paths` is empty, else the given files (no walk) and the cassettes under the given
    /// folders. Relative paths are taken from `working_dir`.
    pub fn select(&self, paths: &[PathBuf], working_dir: &Path) -> Result<Selection, ConfigError> {
        let mut selection = Selection::default();
        let mut scenario_dirs: std::collections::BTreeSet<PathBuf> = Default::default();
        if paths.is_empty() {
            self.start_tree(&mut selection);
            self.walk_found(&self.root, false, |found| {
                for found in found {
                    selection.add(found)?;
                }
                Ok::<_, ConfigError>(())
            })?;
        }
        let mut files: Vec<(PathBuf, FileKind)> = Vec::new();
        for given in paths {
            let shown = given.display().to_string();
            let absolute = lexical_absolute(&working_dir.join(given));
            let Ok(inside) = absolute.strip_prefix(&self.root) else {
                selection.errors.push(SelectError::Outside {
                    path: shown,
                    root: self.root.display().to_string(),
                });
                continue;
            };
            match link_in(&self.root, inside) {
                Err(LinkCheck::Missing) => {
                    selection.errors.push(SelectError::Missing { path: shown });
                    continue;
                }
                Err(LinkCheck::Link) => {
                    selection.errors.push(SelectError::Symlink { path: shown });
                    continue;
                }
                Ok(()) => {}
            }
            if absolute.is_dir() {
                selection.searched = true;
                selection.searched_dirs.push(shown);
                self.walk_found(&absolute, false, |found| {
                    for found in found {
                        selection.add(found)?;
                    }
                    Ok::<_, ConfigError>(())
                })?;
            } else {
                let kind = absolute
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(claude_code::classify)
                    .filter(|_| absolute.parent().is_some_and(|p| self.is_fixture_dir(p)));
                let scenario = absolute
                    .parent()
                    .filter(|dir| self.is_dsh_file(dir, &absolute));
                match kind {
                    Some(kind) => files.push((absolute, kind)),
                    None if scenario.is_some() => {
                        // A scenario is checked whole: one changed log selects its folder.
                        scenario_dirs.extend(scenario.map(Path::to_owned));
                    }
                    None => match self.glob_cassette(&absolute, true) {
                        Some(cassette) => selection.cassettes.push(cassette),
                        None => selection.ignored.push(self.rel(&absolute)),
                    },
                }
            }
        }
        let mut by_dir: HashMap<PathBuf, Arc<FixtureDir>> = HashMap::new();
        for (path, kind) in files {
            let parent = path.parent().map(Path::to_owned).unwrap_or_default();
            let dir = match by_dir.get(&parent) {
                Some(dir) => Arc::clone(dir),
                None => {
                    let dir = self.fixture_dir(&parent)?;
                    by_dir.insert(parent, Arc::clone(&dir));
                    dir
                }
            };
            selection.cassettes.push(Cassette {
                rel: self.rel(&path),
                path,
                kind: cassette_kind(kind),
                dir,
            });
        }
        for dir in scenario_dirs {
            for found in self.list_scenario(&dir) {
                selection.add(found)?;
            }
        }
        // A folder's walk and a file given by name can select a file twice; a file both in
        // a fixtures folder and matched by a text glob (given by name) is read as a fixture.
        selection.cassettes.sort_by(|a, b| {
            a.rel.cmp(&b.rel).then(
                a.kind
                    .is_structured()
                    .cmp(&b.kind.is_structured())
                    .reverse(),
            )
        });
        selection.cassettes.dedup_by(|a, b| a.rel == b.rel);
        selection.settle_notes();
        if paths.is_empty() {
            let mut coverage = self.coverage();
            for cassette in &selection.cassettes {
                self.cover(&mut coverage, cassette);
            }
            for scenario in &selection.scenarios {
                self.cover_scenario(&mut coverage, scenario);
            }
            selection.selects_nothing = self.selects_nothing(&coverage, &selection.errors);
        }
        Ok(selection)
    }

    /// Makes every file named on the command line that is no cassette of a known kind a
    /// cassette linted as text (`verify`'s gate fails closed, issue 39): a recorder's
    /// cassette vcr has no reader for, named by pre-commit, is judged by every detector
    /// instead of being skipped with exit 0. `normalize` and `rehash` keep skipping them:
    /// they have nothing to rewrite there.
    pub fn read_named_as_text(&self, selection: &mut Selection) {
        if selection.ignored.is_empty() {
            return;
        }
        for rel in std::mem::take(&mut selection.ignored) {
            let path = self.root.join(&rel);
            selection.cassettes.push(Cassette {
                dir: self.plain_dir(path.parent().unwrap_or(&path), None),
                path,
                rel,
                kind: CassetteKind::Text,
            });
        }
        selection.cassettes.sort_by(|a, b| a.rel.cmp(&b.rel));
    }

    /// How the project's cassettes are read.
    pub fn read_options(&self) -> ReadOptions {
        self.read
    }

    /// The folders (relative to the root, `/`-separated) the PHPUnit bootstrap sets as
    /// php-vcr's cassette path, whose files without an extension discovery sniffs.
    pub fn php_vcr_folders(&self) -> &[String] {
        &self.php_vcr_folders
    }

    /// What a selection of the whole tree starts with: the configured folders that cannot
    /// be used, and that the root is searched.
    pub fn start_tree(&self, selection: &mut Selection) {
        self.check_configured_dirs(selection);
        selection.searched = true;
        selection
            .searched_dirs
            .push(self.root.display().to_string());
        selection.python_files = Some(PythonFiles::default());
    }

    /// Walks the whole tree and hands what it finds to `then`, one item at a time, in the
    /// order of the paths (files are met as the walk reads their folder, with no list of the
    /// tree: a whole-tree `verify` draws its files from it, issue 25). Cassettes of
    /// configured fixtures folders the walk does not enter (excluded, ignored) come last.
    pub fn walk_tree<T>(
        &self,
        then: impl FnOnce(&mut (dyn Iterator<Item = Found> + Send)) -> T,
    ) -> T {
        self.walk_found(&self.root, true, then)
    }

    /// Configured folders that cannot be used: missing, outside the root, or links.
    fn check_configured_dirs(&self, selection: &mut Selection) {
        let configured = [
            (
                "`[claude-code] fixtures`",
                &self.config.claude_code.fixtures,
            ),
            ("`[dsh] scenarios`", &self.config.dsh.scenarios),
        ];
        for (key, dirs) in configured {
            for dir in dirs.iter().flatten() {
                let absolute = lexical_absolute(&self.root.join(dir));
                let problem = match absolute.strip_prefix(&self.root) {
                    Err(_) => Some("is outside the project root"),
                    Ok(rel) => match link_in(&self.root, rel) {
                        Err(LinkCheck::Missing) => Some("does not exist"),
                        Err(LinkCheck::Link) => {
                            Some("is, or goes through, a symbolic link, which vcr does not follow")
                        }
                        Ok(()) if !absolute.is_dir() => Some("is not a folder"),
                        Ok(()) => None,
                    },
                };
                if let Some(problem) = problem {
                    selection.errors.push(SelectError::Configured {
                        key,
                        value: dir.display().to_string(),
                        problem,
                    });
                }
            }
        }
    }

    /// A tally of which configured folders and globs selected something, empty.
    pub fn coverage(&self) -> Coverage {
        Coverage {
            fixtures: vec![
                false;
                self.config
                    .claude_code
                    .fixtures
                    .as_ref()
                    .map_or(0, Vec::len)
            ],
            scenarios: vec![false; self.config.dsh.scenarios.as_ref().map_or(0, Vec::len)],
            specs: vec![false; self.generic.len()],
            http: vec![false; self.http.configured],
            text: vec![false; self.config.verify.text.len()],
            include: vec![false; self.config.extend_include.len()],
        }
    }

    /// Counts a selected cassette in `coverage`.
    pub fn cover(&self, coverage: &mut Coverage, cassette: &Cassette) {
        if cassette.kind.is_claude_code() {
            for (i, dir) in self
                .config
                .claude_code
                .fixtures
                .iter()
                .flatten()
                .enumerate()
            {
                if !coverage.fixtures[i]
                    && cassette.dir.path == lexical_absolute(&self.root.join(dir))
                {
                    coverage.fixtures[i] = true;
                }
            }
        }
        if let Some(spec) = &cassette.dir.spec
            && let Some(i) = self.generic.iter().position(|s| Arc::ptr_eq(s, spec))
        {
            coverage.specs[i] = true;
        }
        if cassette.kind == CassetteKind::Http
            && let Some(i) = self.http.find(&cassette.rel)
            && i < self.http.configured
        {
            coverage.http[i] = true;
        }
        if matches!(cassette.kind, CassetteKind::Text | CassetteKind::Http) {
            for (globs, matched) in [
                (&self.text_globs, &mut coverage.text),
                (&self.extend_include, &mut coverage.include),
            ] {
                if let Some(globs) = globs {
                    for i in globs.matches(&cassette.rel) {
                        matched[i] = true;
                    }
                }
            }
        }
    }

    /// Counts a selected dsh scenario in `coverage`.
    pub fn cover_scenario(&self, coverage: &mut Coverage, scenario: &Scenario) {
        for (i, dir) in self.config.dsh.scenarios.iter().flatten().enumerate() {
            if !coverage.scenarios[i]
                && scenario
                    .path
                    .starts_with(lexical_absolute(&self.root.join(dir)))
            {
                coverage.scenarios[i] = true;
            }
        }
    }

    /// Configured folders and globs (that exist: `errors` has those that do not) under
    /// which nothing was selected, by the tally of what was.
    pub fn selects_nothing(&self, coverage: &Coverage, errors: &[SelectError]) -> Vec<SelectError> {
        let unusable: std::collections::HashSet<&str> = errors
            .iter()
            .filter_map(|e| match e {
                SelectError::Configured { value, .. } => Some(value.as_str()),
                _ => None,
            })
            .collect();
        let nothing = |key: &str, value: String, looked_for| SelectError::SelectsNothing {
            key: key.to_owned(),
            value,
            looked_for,
        };
        let mut out = Vec::new();
        for (dir, found) in self
            .config
            .claude_code
            .fixtures
            .iter()
            .flatten()
            .zip(&coverage.fixtures)
        {
            let shown = dir.display().to_string();
            if !found && !unusable.contains(shown.as_str()) {
                out.push(nothing(
                    "`[claude-code] fixtures`",
                    shown,
                    "no Claude Code fixture (`<6hex>.json`, `token-count-<12hex>.json`) in it",
                ));
            }
        }
        for (dir, found) in self
            .config
            .dsh
            .scenarios
            .iter()
            .flatten()
            .zip(&coverage.scenarios)
        {
            let shown = dir.display().to_string();
            if !found && !unusable.contains(shown.as_str()) {
                out.push(nothing(
                    "`[dsh] scenarios`",
                    shown,
                    "no scenario folder (one holding `session.jsonl` or `replay.override.json`) under it",
                ));
            }
        }
        for (i, (spec, found)) in self.generic.iter().zip(&coverage.specs).enumerate() {
            if !found {
                out.push(nothing(
                    &format!("`[[cassettes]]` {} `glob`", i + 1),
                    spec.glob().to_owned(),
                    "no file matches it (globs are relative to the project root)",
                ));
            }
        }
        for ((glob, _), found) in self.http.globs.iter().zip(&coverage.http) {
            if !found {
                out.push(nothing(
                    "`[http] cassettes`",
                    glob.glob().glob().to_owned(),
                    "no file matches it (globs are relative to the project root)",
                ));
            }
        }
        for (key, listed, matched) in [
            ("`[verify] text`", &self.config.verify.text, &coverage.text),
            (
                "`extend-include`",
                &self.config.extend_include,
                &coverage.include,
            ),
        ] {
            for (glob, matched) in listed.iter().zip(matched) {
                if !matched {
                    out.push(nothing(
                        key,
                        glob.clone(),
                        "no file matches it (globs are relative to the project root)",
                    ));
                }
            }
        }
        out
    }

    /// Whether `dir`, holding a file with a Claude Code fixture's name, is a Claude Code
    /// fixtures folder: a configured one, or (without configuration) one named `fixtures`.
    /// A `fixtures` folder is decided by what it holds, never by its name alone: a
    /// DeepSeek-Harness scenario folder may sit in, or be, a folder named `fixtures`.
    fn is_fixture_dir(&self, dir: &Path) -> bool {
        match &self.config.claude_code.fixtures {
            Some(configured) => configured
                .iter()
                .any(|c| lexical_absolute(&self.root.join(c)) == dir),
            None => dir.file_name().is_some_and(|n| n == FIXTURES_DIR),
        }
    }

    /// Walks `start` and hands what it finds to `then` ([`Found`], in the order of the
    /// paths), reading folders ahead on the pool's cores, or on threads of their own when
    /// `drawn` (a run that draws from the walk keeps the pool busy).
    /// One walk finds the Claude Code fixture folders (configured ones, or folders named
    /// `fixtures` holding a file with a fixture's name), the dsh scenario folders (any
    /// folder holding a session log or an override, in a `fixtures` folder too; under the
    /// configured `[dsh] scenarios` folders only, when set) and the cassettes the globs or
    /// their content select: a second walk of the tree was a tenth of a whole-tree `verify`
    /// (issue 12). The same rules decide a file given by name, so a whole-tree run and a run
    /// over named files agree.
    fn walk_found<T>(
        &self,
        start: &Path,
        drawn: bool,
        then: impl FnOnce(&mut (dyn Iterator<Item = Found> + Send)) -> T,
    ) -> T {
        let whole_root = start == self.root;
        let visited = std::sync::Mutex::new(Vec::new());
        let excluded = |path: &Path| {
            self.exclude
                .as_ref()
                .is_some_and(|globs| globs.is_match(self.rel(path)))
        };
        let policy = Policy {
            gitignore: !self.no_ignore,
            exclude: self.exclude.is_some().then_some(&excluded),
        };
        let visit = |dir: &Path, entries: Vec<walk::Entry>, out: &mut Vec<(usize, Found)>| {
            self.found_in(dir, entries, whole_root, &visited, out);
        };
        let io = |(path, e): walk::WalkError| {
            Found::Error(SelectError::Io {
                path: self.rel(&path),
                message: e.to_string(),
            })
        };
        let late = || self.unvisited_fixture_dirs(start, &visited);
        let found = |met: &mut (dyn Iterator<Item = walk::Met<Found>> + Send)| {
            then(
                &mut met
                    .map(|met| met.unwrap_or_else(io))
                    .chain(std::iter::once_with(late).flatten()),
            )
        };
        if drawn {
            walk::drawn(start, policy, &visit, found)
        } else {
            found(&mut walk::collect(start, policy, &visit).into_iter())
        }
    }

    /// What one folder the walk read holds ([`walk::Visit`]), decided on the core that read
    /// it. A fixtures folder (configured, or named `fixtures` and holding a fixture git does
    /// not ignore) gives all its fixtures and stray temporary files; a scenario folder
    /// (holding a scenario file git does not ignore) gives itself and all its scenario
    /// files; every other file is offered to the globs and its content (issue 21). Links
    /// are met, never followed; files git ignores that would be selected are counted; Python
    /// files are kept for the static orphan guess when `python` (the whole root is walked).
    fn found_in(
        &self,
        dir: &Path,
        entries: Vec<walk::Entry>,
        python: bool,
        visited: &std::sync::Mutex<Vec<PathBuf>>,
        out: &mut Vec<(usize, Found)>,
    ) {
        let read = |e: &walk::Entry| !e.ignored && !e.file_type.is_symlink();
        let is_fixture_dir = self.is_fixture_dir(dir);
        let fixtures = is_fixture_dir
            && (self.config.claude_code.fixtures.is_some()
                || entries.iter().any(|e| {
                    read(e)
                        && e.name
                            .to_str()
                            .is_some_and(|n| claude_code::classify(n).is_some())
                }));
        let fixture_dir = if fixtures {
            if self.config.claude_code.fixtures.is_some() {
                visited
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(dir.to_owned());
            }
            match self.fixture_dir(dir) {
                Ok(fixture_dir) => Some(fixture_dir),
                Err(e) => {
                    out.push((0, Found::Broken(e)));
                    None
                }
            }
        } else {
            None
        };
        let scenario = entries
            .iter()
            .any(|e| read(e) && e.name.to_str().is_some_and(|n| self.is_dsh_name(dir, n)))
            .then(|| {
                out.push((
                    0,
                    Found::Scenario(Scenario {
                        path: dir.to_owned(),
                        rel: self.rel(dir),
                    }),
                ));
                self.scenario_dir(dir)
            });
        for (i, entry) in entries.into_iter().enumerate() {
            let walk::Entry {
                path,
                name,
                file_type,
                ignored,
            } = entry;
            if file_type.is_symlink() {
                if !ignored {
                    out.push((i, Found::Link(self.rel(&path))));
                }
                continue;
            }
            let is_file = file_type.is_file();
            let name = name.to_str().unwrap_or_default();
            let fixture = claude_code::classify(name).filter(|_| is_fixture_dir);
            if ignored && is_file && self.would_select(dir, &path, name, fixture.is_some()) {
                out.push((i, Found::GitIgnored(self.rel(&path))));
            }
            if let Some(fixture_dir) = &fixture_dir
                && is_file
            {
                if name.starts_with(TEMP_PREFIX) {
                    out.push((i, Found::StrayTemp(path)));
                    continue;
                }
                if let Some(kind) = fixture {
                    out.push((
                        i,
                        Found::Cassette(Cassette {
                            rel: self.rel(&path),
                            path,
                            kind: cassette_kind(kind),
                            dir: Arc::clone(fixture_dir),
                        }),
                    ));
                    continue;
                }
            }
            if let Some(scenario) = &scenario
                && is_file
                && let Some(kind) = scenario_kind(name)
            {
                out.push((
                    i,
                    Found::Cassette(Cassette {
                        rel: self.rel(&path),
                        path,
                        kind,
                        dir: Arc::clone(scenario),
                    }),
                ));
                continue;
            }
            if ignored || !is_file {
                continue;
            }
            let is_python = python && path.extension().is_some_and(|e| e == "py");
            // A fixture is read as one even when a glob selects it too: matching it would
            // be wasted.
            if fixture.is_none() {
                if name.starts_with(TEMP_PREFIX) {
                    // A killed rewrite of a cassette the globs select (an HTTP cassette
                    // scrubbed by `normalize`) leaves its temporary file beside it.
                    out.push((i, Found::StrayTemp(path.clone())));
                } else if let Some(cassette) = self.glob_cassette(&path, false) {
                    out.push((i, Found::Cassette(cassette)));
                }
            }
            if is_python {
                out.push((i, Found::Python(path)));
            }
        }
    }

    /// Whether a file git ignores in `dir` would have been selected: a scenario file, a
    /// fixture in a fixtures folder (`fixture`), a cassette the globs or its content select.
    fn would_select(&self, dir: &Path, path: &Path, name: &str, fixture: bool) -> bool {
        fixture
            || self.is_dsh_name(dir, name)
            || (!name.starts_with(TEMP_PREFIX) && self.glob_cassette(path, false).is_some())
    }

    /// The configured fixtures folders under `start` the walk did not enter (`visited` has
    /// those it did): listed whole, as configuration names them.
    fn unvisited_fixture_dirs(
        &self,
        start: &Path,
        visited: &std::sync::Mutex<Vec<PathBuf>>,
    ) -> Vec<Found> {
        let Some(configured) = &self.config.claude_code.fixtures else {
            return Vec::new();
        };
        let mut visited = visited
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut found = Vec::new();
        for dir in configured {
            let path = lexical_absolute(&self.root.join(dir));
            let usable = path
                .strip_prefix(&self.root)
                .is_ok_and(|rel| link_in(&self.root, rel).is_ok());
            if !path.starts_with(start) || !usable || !path.is_dir() || visited.contains(&path) {
                continue;
            }
            match self.fixture_dir(&path) {
                Ok(fixture_dir) => self.list_dir(&fixture_dir, &mut found),
                Err(e) => found.push(Found::Broken(e)),
            }
            visited.push(path);
        }
        found
    }

    /// Whether `file` (in `dir`) is a dsh scenario file: a session log, a child log or an
    /// override, in a configured scenarios folder when `[dsh] scenarios` is set.
    fn is_dsh_file(&self, dir: &Path, file: &Path) -> bool {
        file.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|name| self.is_dsh_name(dir, name))
    }

    /// [`Project::is_dsh_file`] by the file's name.
    fn is_dsh_name(&self, dir: &Path, name: &str) -> bool {
        if !dsh::is_scenario_file(name) {
            return false;
        }
        match &self.config.dsh.scenarios {
            Some(roots) => roots
                .iter()
                .any(|r| dir.starts_with(lexical_absolute(&self.root.join(r)))),
            None => true,
        }
    }

    /// What `{{cwd}}` stands for in dsh logs: `[dsh] cwd`, else the project root.
    pub fn dsh_cwd(&self) -> String {
        match &self.config.dsh.cwd {
            Some(cwd) => cwd.clone(),
            None => self.root.to_string_lossy().into_owned(),
        }
    }

    /// The folder of a dsh scenario's cassettes.
    fn scenario_dir(&self, dir: &Path) -> Arc<FixtureDir> {
        Arc::new(FixtureDir {
            path: dir.to_owned(),
            rules: Arc::new(RuleSet::default()),
            version: self.claude_code.version,
            dehydrate_stream_events: self.claude_code.dehydrate_stream_events,
            cwd: self.dsh_cwd(),
            spec: None,
            read: self.read,
        })
    }

    /// A scenario folder named by one of its files: the scenario and its session logs and
    /// override.
    fn list_scenario(&self, dir: &Path) -> Vec<Found> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                return vec![Found::Error(SelectError::Io {
                    path: self.rel(dir),
                    message: e.to_string(),
                })];
            }
        };
        let scenario = self.scenario_dir(dir);
        let mut found = vec![Found::Scenario(Scenario {
            rel: self.rel(dir),
            path: dir.to_owned(),
        })];
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let Some(kind) = scenario_kind(&name) else {
                continue;
            };
            let path = entry.path();
            found.push(Found::Cassette(Cassette {
                rel: self.rel(&path),
                path,
                kind,
                dir: Arc::clone(&scenario),
            }));
        }
        found
    }

    fn is_text_cassette(&self, rel: &str) -> bool {
        self.text_globs
            .as_ref()
            .is_some_and(|globs| globs.is_match(rel))
    }

    /// The generic, HTTP or text cassette at `path`: what `[[cassettes]]` (the first entry
    /// whose glob matches wins), `[http] cassettes` and the well-known cassette folders, or
    /// `[verify] text` select; else, a file whose head shows an HTTP cassette's shape
    /// ([`http::sniff`]): any file `named` on the command line or `extend-include` selects
    /// (linted as text when it shows none), a file of the walk with a cassette's extension.
    /// Coverage is a property of content (issue 21).
    /// The folder of a cassette that is no Claude Code fixture (no rules, no `[CWD]`): one
    /// value for the cassettes of a folder that one `[[cassettes]]` entry describes, or none
    /// does. A value each was a third of the selection's memory, which grew with the number
    /// of files (issue 25). The last one made on this thread is kept: a folder's files are
    /// met one after the other.
    fn plain_dir(&self, folder: &Path, spec: Option<&Arc<generic::Spec>>) -> Arc<FixtureDir> {
        thread_local! {
            static LAST: std::cell::RefCell<Option<Arc<FixtureDir>>> =
                const { std::cell::RefCell::new(None) };
        }
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            if let Some(dir) = last.as_ref()
                && dir.path == folder
                && dir.version == self.claude_code.version
                && dir.read == self.read
                && dir.dehydrate_stream_events == self.claude_code.dehydrate_stream_events
                && match (&dir.spec, spec) {
                    (None, None) => true,
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    _ => false,
                }
            {
                return Arc::clone(dir);
            }
            let dir = Arc::new(FixtureDir {
                path: folder.to_owned(),
                rules: Arc::new(RuleSet::default()),
                version: self.claude_code.version,
                dehydrate_stream_events: self.claude_code.dehydrate_stream_events,
                cwd: String::new(),
                spec: spec.cloned(),
                read: self.read,
            });
            *last = Some(Arc::clone(&dir));
            dir
        })
    }

    fn glob_cassette(&self, path: &Path, named: bool) -> Option<Cassette> {
        // Without globs of any file name, a file the walk meets is a cassette only with a
        // cassette's extension (a well-known folder's or the sniff's): the rest (most of a monorepo) is dropped before its relative
        // path is made (that string was a thirteenth of discovery, issue 21).
        if !named
            && self.generic.is_empty()
            && self.http.configured == 0
            && self.extend_include.is_none()
            && self.text_globs.is_none()
            && !path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|name| HTTP_EXTENSIONS.iter().any(|ext| name.ends_with(ext)))
            && !self.is_extensionless_candidate(path)
        {
            return None;
        }
        let rel = self.rel(path);
        let spec = self.generic.iter().find(|spec| spec.matches(&rel));
        let globbed = spec.is_none() && self.http.find(&rel).is_some();
        let included = spec.is_none()
            && !globbed
            && self
                .extend_include
                .as_ref()
                .is_some_and(|globs| globs.is_match(&rel));
        let text = spec.is_none() && !globbed && !included && self.is_text_cassette(&rel);
        let http = globbed
            || (spec.is_none()
                && !text
                && (named
                    || included
                    || path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(http::sniff::is_candidate_name)
                    || self.is_extensionless_candidate(path))
                && http::sniff::sniff_file(path));
        let text = text || (included && !http);
        if spec.is_none() && !http && !text {
            return None;
        }
        Some(Cassette {
            rel,
            dir: self.plain_dir(path.parent().unwrap_or(path), spec),
            path: path.to_owned(),
            kind: if spec.is_some() {
                CassetteKind::Generic
            } else if http {
                CassetteKind::Http
            } else {
                CassetteKind::Text
            },
        })
    }

    /// Whether `path` is a file without an extension in a folder where a recorder writes
    /// such cassettes (php-vcr's `tests/fixtures/`,
    /// [`http::sniff::EXTENSIONLESS_FOLDERS`], or the cassette path the project's PHPUnit
    /// bootstrap sets, [`php_vcr_folders`]): its head is sniffed like a `.yaml`'s. Only
    /// names without a dot get as far as the folders' test.
    fn is_extensionless_candidate(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(http::sniff::has_no_extension)
            && path.strip_prefix(&self.root).is_ok_and(|rel| {
                http::sniff::is_extensionless_candidate(rel)
                    || self
                        .php_vcr_folders
                        .iter()
                        .any(|folder| rel.starts_with(folder))
            })
    }

    /// Lists the cassettes (and stray temporary files) directly in a fixtures folder.
    fn list_dir(&self, dir: &Arc<FixtureDir>, found: &mut Vec<Found>) {
        let entries = match std::fs::read_dir(&dir.path) {
            Ok(entries) => entries,
            Err(e) => {
                found.push(Found::Error(SelectError::Io {
                    path: self.rel(&dir.path),
                    message: e.to_string(),
                }));
                return;
            }
        };
        let mut listed: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|entry| Some((entry.file_name().into_string().ok()?, entry.path())))
            .collect();
        listed.sort();
        for (name, path) in listed {
            if name.starts_with(TEMP_PREFIX) {
                found.push(Found::StrayTemp(path));
            } else if let Some(kind) = claude_code::classify(&name) {
                found.push(Found::Cassette(Cassette {
                    rel: self.rel(&path),
                    path,
                    kind: cassette_kind(kind),
                    dir: Arc::clone(dir),
                }));
            }
        }
    }
}

fn cassette_kind(kind: FileKind) -> CassetteKind {
    match kind {
        FileKind::Message => CassetteKind::ClaudeCodeMessage,
        FileKind::TokenCount => CassetteKind::ClaudeCodeTokenCount,
    }
}

/// The kind of a scenario folder's file by its name: a session log (the primary or a
/// child's) or the override.
fn scenario_kind(name: &str) -> Option<CassetteKind> {
    if name == dsh::REPLAY_OVERRIDE {
        Some(CassetteKind::DshOverride)
    } else if name == dsh::PRIMARY || dsh::child_index(name).is_some() {
        Some(CassetteKind::DshSession)
    } else {
        None
    }
}

/// What a walk of the tree finds, one item at a time ([`Project::walk_tree`]).
#[derive(Debug)]
pub enum Found {
    /// A cassette.
    Cassette(Cassette),
    /// A dsh scenario folder (its files come as cassettes too).
    Scenario(Scenario),
    /// A symbolic link (never followed), relative to the root.
    Link(String),
    /// A file git ignores that would have been selected, relative to the root.
    GitIgnored(String),
    /// A temporary file a killed run left beside cassettes.
    StrayTemp(PathBuf),
    /// A Python file, met by a walk of the whole root (the static orphan guess reads them).
    Python(PathBuf),
    /// A folder or entry that could not be read.
    Error(SelectError),
    /// A fixtures folder whose rules cannot be built.
    Broken(ConfigError),
}

/// Which configured folders and globs selected something ([`Project::coverage`]): a
/// configured one that selects nothing is an error unless the run allows an empty selection.
#[derive(Debug, Default)]
pub struct Coverage {
    fixtures: Vec<bool>,
    scenarios: Vec<bool>,
    specs: Vec<bool>,
    http: Vec<bool>,
    text: Vec<bool>,
    include: Vec<bool>,
}

/// `path` relative to `root`, `/`-separated on every platform (a backslash in a Unix file
/// name stays a backslash).
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut out = String::new();
    for component in rel.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&component.as_os_str().to_string_lossy());
    }
    out
}

/// Removes `.` and `..` without touching the file system (the path may not exist yet).
pub fn lexical_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Why a path inside the root cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LinkCheck {
    /// It does not exist.
    Missing,
    /// It, or a folder on the way to it, is a symbolic link.
    Link,
}

/// Checks every component of `rel` under `root` for symbolic links.
pub(crate) fn link_in(root: &Path, rel: &Path) -> Result<(), LinkCheck> {
    let mut path = root.to_owned();
    for component in rel.components() {
        path.push(component);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(LinkCheck::Link),
            Ok(_) => {}
            Err(_) => return Err(LinkCheck::Missing),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_files_give_back_each_path_in_order() {
        let given = [
            "/p/tests/a.py",
            "/p/tests/b.py",
            "/p/tests/sub/c.py",
            "/p/tests/d.py",
            "/p/top.py",
        ];
        let files: PythonFiles = given.iter().map(PathBuf::from).collect();
        assert_eq!(files.iter().count(), given.len());
        assert!(!files.folders.is_empty());
        let back: Vec<PathBuf> = files
            .iter()
            .map(|(folder, name)| folder.join(name))
            .collect();
        assert_eq!(back, given.map(PathBuf::from));
        // Consecutive files of a folder share it; a folder whose files a subfolder's
        // interrupt is held again.
        assert_eq!(files.folders.len(), 4);
        let mut none = PythonFiles::default();
        none.push(Path::new("/"));
        assert!(none.folders.is_empty());
        assert_eq!(none.iter().count(), 0);
    }

    #[test]
    fn relative_paths_use_slashes_and_keep_backslashes_in_names() {
        let root = Path::new("/p");
        assert_eq!(
            relative(root, Path::new("/p/fixtures/a.json")),
            "fixtures/a.json"
        );
        // Regression: the journal once turned this into `fixtures/a/b.json`.
        #[cfg(unix)]
        assert_eq!(
            relative(root, Path::new("/p/fixtures/a\\b.json")),
            "fixtures/a\\b.json"
        );
    }

    #[test]
    fn lexical_absolute_resolves_dots() {
        assert_eq!(
            lexical_absolute(Path::new("/p/a/../b/./c")),
            Path::new("/p/b/c")
        );
    }
}
