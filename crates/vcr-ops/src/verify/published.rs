//! Values the repository publishes outside its cassettes (issue 41): a key written in the
//! project's own test sources (a sandbox key pair as the fallback of an `ENV` lookup, a token
//! copied into a spec helper, a private key a test sends) is test data the repository chose
//! to publish. No name or shape tells it from a real key; the repository does.
//!
//! Such a secret is reported as a **warning that names the source file**, not dropped: the
//! cassette adds nothing the repository does not already show, so it does not block the gate,
//! but a real key pasted into a test helper is still a real key, and the warning says where
//! to look. The same value in another cassette does not count: only files that are not
//! cassettes (source code, `.env`, configuration) are read.
//!
//! Only what the repository publishes counts: a file that `.gitignore` (or `.git/info/exclude`,
//! or the user's global excludes) leaves out, a hidden file (`.env`, `.env.local`) and any
//! `*.env` file are where a team keeps its *real* keys, and the same key in a cassette is the
//! leak this gate exists for; such files are never read, so their values stay errors.
//!
//! The sources are read once per run, only when a secret (or a `leak/uuid`, which a
//! constant the sources write is not) is found: every file under the
//! project root with a source extension, up to 1 MiB each and 20,000 in all, without the
//! folders tools make (`.git`, `node_modules`, `target`, virtualenvs, caches). Each is cut into
//! runs of token characters of 12 or more, and string literals of 6 or more (decoded too
//! when percent-encoded), kept as hashes. A YAML or JSON file a source names in a string
//! literal (`File.read('fixtures/keys.yml')`), from the root or beside the source, is read
//! the same way unless it is a cassette: the keys a test loads from it are published with it.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The extensions of source and configuration files (never a cassette's: `.yaml`, `.json`
/// and `.har` hold cassettes).
const SOURCE_EXTENSIONS: &[&str] = &[
    "py",
    "rb",
    "go",
    "js",
    "mjs",
    "cjs",
    "jsx",
    "ts",
    "tsx",
    "java",
    "kt",
    "kts",
    "cs",
    "php",
    "rs",
    "r",
    "jl",
    "pl",
    "lua",
    "dart",
    "groovy",
    "clj",
    // Gherkin: BDD suites write the values a scenario sends in its feature files.
    "feature",
    "ex",
    "exs",
    "swift",
    "scala",
    "sh",
    "bash",
    "cfg",
    "ini",
    "conf",
    "properties",
    "toml",
    "erb",
    "pem",
    "key",
    "txt",
];

/// Folders never read: what tools make and keep.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    "dist",
    "build",
    ".vcr",
    "vendor",
];

const MAX_FILE: u64 = 1 << 20;
const MAX_FILES: usize = 20_000;
/// The shortest and longest string literal kept whole ([`literals`]): six, the least a
/// password rule asks (`:password => "smartvm"`, a product's default login in its specs).
const MIN_LITERAL: usize = 6;
const MAX_LITERAL: usize = 128;
/// The shortest run that is looked up.
const MIN_RUN: usize = 12;

/// The repository's sources, read when first asked.
#[derive(Debug)]
pub(super) struct Published {
    root: PathBuf,
    index: OnceLock<Index>,
}

#[derive(Debug, Default)]
struct Index {
    /// Each run's hash, and the first file (relative, `/`-separated) that holds it.
    runs: HashMap<u64, String>,
    hasher: std::collections::hash_map::RandomState,
    /// The query parameters the project's Python sources tell vcrpy to filter, each with
    /// the first file that does.
    filtered_query: HashMap<String, String>,
    /// The request headers (lower-case) the project's Python sources tell vcrpy to filter,
    /// each with the first file that does.
    filtered_headers: HashMap<String, String>,
}

impl Index {
    fn hash(&self, run: &str) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(run.as_bytes());
        h.finish()
    }
}

impl Published {
    pub(super) fn new(root: &Path) -> Published {
        Published {
            root: root.to_owned(),
            index: OnceLock::new(),
        }
    }

    /// The project root the sources are read under.
    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    /// The source file that tells the project's recorder to filter the query parameter
    /// `name` (vcrpy's `filter_query_parameters`), which then takes no part in matching:
    /// vcrpy filters the requests a cassette holds when it loads it, as well as the ones it
    /// matches, so an id an older recording kept there does not break replay.
    pub(super) fn filters_query(&self, name: &str) -> Option<&str> {
        let index = self.index.get_or_init(|| read(&self.root));
        index.filtered_query.get(name).map(String::as_str)
    }

    /// The source file that tells the project's recorder to remove the request header
    /// `name` (lower-case; vcrpy's `filter_headers`) before it writes a request.
    pub(super) fn filters_header(&self, name: &str) -> Option<&str> {
        let index = self.index.get_or_init(|| read(&self.root));
        index.filtered_headers.get(name).map(String::as_str)
    }

    /// The source file that holds `value` (a secret as the judge found it: a key, the
    /// credential of an `Authorization` value, a PEM block), when the repository publishes
    /// it: every run of 12 token characters or more of it (of what a `Basic` credential
    /// decodes to, for one) is in the sources, or for a PEM block, most of its lines.
    pub(super) fn source_of(&self, value: &str) -> Option<&str> {
        let index = self.index.get_or_init(|| read(&self.root));
        if index.runs.is_empty() {
            return None;
        }
        if let Some(file) = index.runs.get(&index.hash(value.trim())) {
            return Some(file.as_str());
        }
        let mut runs: Vec<String> = runs(value).map(str::to_owned).collect();
        if let Some(decoded) = basic(value) {
            // A password a source writes whole, however short its runs (`smartvm`).
            if let Some((_, password)) = decoded.split_once(':')
                && password.len() >= MIN_LITERAL
                && let Some(file) = index.runs.get(&index.hash(password))
            {
                return Some(file.as_str());
            }
            runs = runs_of(&decoded);
        }
        if runs.is_empty() {
            return None;
        }
        let found: Vec<&String> = runs
            .iter()
            .filter_map(|r| index.runs.get(&index.hash(r)))
            .collect();
        let pem = value.contains("-----BEGIN");
        let enough = if pem {
            found.len() * 5 >= runs.len() * 4
        } else {
            found.len() == runs.len()
        };
        if !enough {
            return None;
        }
        found.first().map(|s| s.as_str())
    }
}

/// What a `Basic` credential's base64 decodes to, when it is text: `user:password` holds
/// the two values a source writes apart.
fn basic(value: &str) -> Option<String> {
    use base64::Engine;
    let b64 = value.trim();
    let b64 = b64.strip_prefix("Basic ").unwrap_or(b64);
    if b64.len() < 16
        || !b64
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.contains(':').then_some(text)
}

fn runs_of(text: &str) -> Vec<String> {
    runs(text).map(str::to_owned).collect()
}

/// The runs of token characters (letters, digits, `_-+/=.~`) of 12 or more in `text`.
fn runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_-+/=.~".contains(c)))
        .map(|r| r.trim_matches('.'))
        .filter(|r| r.len() >= MIN_RUN)
}

/// The string literals of `text` (between `"` or `'` on one line, no space inside) of
/// [`MIN_LITERAL`] to [`MAX_LITERAL`] characters: a test password whose runs of token
/// characters are all short (`thiZ_is_v&ry_s3cret`) is published whole.
fn literals(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|line| {
        let mut out = Vec::new();
        for quote in ['"', '\''] {
            let mut parts = line.split(quote);
            parts.next();
            // Every other part is inside the quotes.
            while let Some(inside) = parts.next() {
                if (MIN_LITERAL..=MAX_LITERAL).contains(&inside.len())
                    && !inside.contains(char::is_whitespace)
                {
                    out.push(inside);
                }
                parts.next();
            }
        }
        out
    })
}

/// What reads the names a vcrpy setting lists from a Python source.
type Reader = fn(&str) -> Vec<String>;

/// Reads the sources under `root`.
fn read(root: &Path) -> Index {
    let mut index = Index::default();
    let mut files = 0;
    // Hidden files and what git is told to ignore are skipped, in a repository or not
    // (`require_git(false)`): an export of a project keeps its `.gitignore`. A hidden
    // `.env` is where teams keep their real keys: never published.
    let walk = ignore::WalkBuilder::new(root)
        .follow_links(false)
        .hidden(true)
        .parents(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(false)
        .ignore(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.depth() > 0
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        })
        .build();
    // Data files (YAML, JSON) the walk passes, and the ones the sources name: a test that
    // loads `fixtures/keys.yml` publishes the keys in it as its sources do.
    let mut data_files: Vec<String> = Vec::new();
    let mut named_data: std::collections::HashSet<String> = std::collections::HashSet::new();
    for entry in walk.filter_map(Result::ok) {
        if files >= MAX_FILES {
            break;
        }
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file())
            && data_files.len() < MAX_FILES * 4
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| DATA_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            data_files.push(relative(root, path));
            continue;
        }
        let source = entry.file_type().is_some_and(|t| t.is_file())
            && (path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
                || is_key_file(path))
            && entry.metadata().is_ok_and(|m| m.len() <= MAX_FILE);
        if !source {
            continue;
        }
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        files += 1;
        let text = String::from_utf8_lossy(&bytes);
        let rel = relative(root, path);
        named_data.extend(data_names(&text, &rel));
        if rel.ends_with(".py") {
            use vcr_cassette::http::vcrpy;
            // vcrpy's filters, each name with the first source that sets it.
            let settings: [(&str, Reader, &mut HashMap<String, String>); 2] = [
                (
                    "filter_query_parameters",
                    vcrpy::filtered_query_parameters,
                    &mut index.filtered_query,
                ),
                (
                    "filter_headers",
                    vcrpy::filtered_headers,
                    &mut index.filtered_headers,
                ),
            ];
            for (setting, names, kept) in settings {
                if text.contains(setting) {
                    for name in names(&text) {
                        kept.entry(name).or_insert_with(|| rel.clone());
                    }
                }
            }
        }
        index.add(&text, &rel);
    }
    for rel in data_files {
        if !named_data.contains(&rel) {
            continue;
        }
        let path = root.join(&rel);
        if !std::fs::metadata(&path).is_ok_and(|m| m.len() <= MAX_FILE) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        // A cassette a test names (`use_cassette("cassettes/x.yaml")`) is no source.
        if vcr_cassette::http::sniff::sniff(&bytes[..bytes.len().min(HEAD)]) {
            continue;
        }
        index.add(&String::from_utf8_lossy(&bytes), &rel);
    }
    index
}

impl Index {
    /// Keeps the runs and literals of `text`, the file `rel`.
    /// A literal written percent-encoded (`'Fmjtd%7Clu...'`, a key as a URL takes it) is
    /// kept decoded too: the judge finds the key decoded.
    fn add(&mut self, text: &str, rel: &str) {
        let mut decoded = Vec::new();
        for run in runs(text).chain(literals(text)) {
            let hash = self.hash(run);
            self.runs.entry(hash).or_insert_with(|| rel.to_owned());
            if run.contains('%') {
                decoded.push(vcr_cassette::http::body::percent_decode(run));
            }
        }
        for text in decoded {
            for run in runs(&text).chain(std::iter::once(text.as_str())) {
                let hash = self.hash(run);
                self.runs.entry(hash).or_insert_with(|| rel.to_owned());
            }
        }
    }
}

/// The extensions of the data files a test may load its keys from (never read unless a
/// source names them, and never when they are cassettes).
const DATA_EXTENSIONS: &[&str] = &["yml", "yaml", "json"];

/// How much of a named data file is sniffed for a cassette's shape.
const HEAD: usize = 8 << 10;

/// Whether a file is a key or certificate a test loads (`spec/support/test_rsa`,
/// `fixtures/server.key`): a PEM file, by its extension or, without one, by its first line.
/// A private key a test sends is published where the repository keeps it.
fn is_key_file(path: &Path) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) => ["pem", "key"].contains(&e.to_ascii_lowercase().as_str()),
        None => {
            let mut head = [0u8; 11];
            std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok()
                && &head == b"-----BEGIN "
        }
    }
}

/// `path` relative to `root`, `/`-separated.
fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The data files the source `rel` names in its string literals (`'fixtures/keys.yml'`), as
/// paths from the root: as written (a test run from the root), and beside the source.
fn data_names(text: &str, rel: &str) -> Vec<String> {
    let folder = rel.rsplit_once('/').map_or("", |(folder, _)| folder);
    let mut out = Vec::new();
    for literal in literals(text) {
        let lower = literal.to_ascii_lowercase();
        if !DATA_EXTENSIONS
            .iter()
            .any(|e| lower.strip_suffix(e).is_some_and(|s| s.ends_with('.')))
        {
            continue;
        }
        let name = literal.trim_start_matches("./");
        out.push(name.to_owned());
        if !folder.is_empty() {
            out.push(format!("{folder}/{name}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_written_in_a_source_is_found_with_its_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("spec")).unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/x")).unwrap();
        std::fs::write(
            dir.path().join("spec/helper.rb"),
            "TOKEN = ENV.fetch('T', 'Zq8vN2kL5mR7pT3wYc1Nd5Fh')\nPUB = 'k7Vq2mZx9Lp4Rw8e'\nPRIV = 'f3a9c1e5b7d2f4a6c8e0b2d4f6a8c0e2'\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("node_modules/x/a.js"),
            "'Hq8vN2kL5mR7pT3wYc1Nd5Fh'",
        )
        .unwrap();
        std::fs::write(dir.path().join("c.yaml"), "Wq8vN2kL5mR7pT3wYc1Nd5Fh").unwrap();
        // Where real keys are kept: hidden files, `*.env`, what git ignores.
        std::fs::write(dir.path().join(".env"), "KEY=Aq8vN2kL5mR7pT3wYc1Nd5Fh\n").unwrap();
        std::fs::write(dir.path().join("ci.env"), "KEY=Bq8vN2kL5mR7pT3wYc1Nd5Fh\n").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "local.properties\n").unwrap();
        std::fs::write(
            dir.path().join("spec/local.properties"),
            "key=Cq8vN2kL5mR7pT3wYc1Nd5Fh\n",
        )
        .unwrap();
        let published = Published::new(dir.path());
        assert_eq!(
            published.source_of("Zq8vN2kL5mR7pT3wYc1Nd5Fh"),
            Some("spec/helper.rb")
        );
        // A Basic credential whose two halves a source writes apart.
        use base64::Engine;
        let basic = base64::engine::general_purpose::STANDARD
            .encode("k7Vq2mZx9Lp4Rw8e:f3a9c1e5b7d2f4a6c8e0b2d4f6a8c0e2");
        assert_eq!(published.source_of(&basic), Some("spec/helper.rb"));
        // A product's default login, its password written whole and short in a spec.
        std::fs::write(
            dir.path().join("spec/provider_spec.rb"),
            "let(:attrs) { {:username => \"admin\", :password => \"smartvm\"} }\n",
        )
        .unwrap();
        let published = Published::new(dir.path());
        let login = |pair: &str| base64::engine::general_purpose::STANDARD.encode(pair);
        assert_eq!(
            published.source_of(&format!("Basic {}", login("admin:smartvm"))),
            Some("spec/provider_spec.rb")
        );
        assert_eq!(published.source_of(&login("admin:smartvn")), None);
        // A test password whose runs are all short, written whole in a string literal (a
        // Terraform configuration inside a Go test); a piece of it is not the password.
        std::fs::write(
            dir.path().join("spec/db_test.go"),
            "const config = `\n  password = \"thiZ_is_v&ry_s3cret\"\n`\n",
        )
        .unwrap();
        let published = Published::new(dir.path());
        assert_eq!(
            published.source_of("thiZ_is_v&ry_s3cret"),
            Some("spec/db_test.go")
        );
        assert_eq!(published.source_of("thiZ_is_v"), None);
        // Not published: in a dependency's folder, in a cassette, in a file kept out of git, nowhere.
        for value in [
            "Hq8vN2kL5mR7pT3wYc1Nd5Fh",
            "Wq8vN2kL5mR7pT3wYc1Nd5Fh",
            "Yq8vN2kL5mR7pT3wYc1Nd5Fh",
            "Aq8vN2kL5mR7pT3wYc1Nd5Fh",
            "Bq8vN2kL5mR7pT3wYc1Nd5Fh",
            "Cq8vN2kL5mR7pT3wYc1Nd5Fh",
        ] {
            assert_eq!(published.source_of(value), None, "{value}");
        }
    }
    /// A data file the tests load (`YAML.load(File.read('fixtures/keys.yml'))`) publishes
    /// the keys in it, percent-encoded ones too (a key as a URL takes it); a data file no
    /// source names, and a cassette a source names, publish nothing.
    #[test]
    fn a_data_file_a_source_loads_publishes_its_values() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "test/test_base.rb",
            "@keys = YAML.load(File.read('fixtures/keys.yml'))\nVCR.use_cassette('fixtures/cassettes/geo.yml')\n",
        );
        write(
            "fixtures/keys.yml",
            "geo:\n  key: 'Zq8vN2kL5mR7pT3wYc1Nd5Fh'\nquest:\n  key: 'Fmjtd%7Clu2Rq8vN2kL5mR%2C2s%3Do5-9a8lhz'\n",
        );
        write("fixtures/other.yml", "key: 'Hq8vN2kL5mR7pT3wYc1Nd5Fh'\n");
        write(
            "fixtures/cassettes/geo.yml",
            "http_interactions:\n- request:\n    uri: https://geo.example/?key=Wq8vN2kL5mR7pT3wYc1Nd5Fh\n",
        );
        let published = Published::new(dir.path());
        assert_eq!(
            published.source_of("Zq8vN2kL5mR7pT3wYc1Nd5Fh"),
            Some("fixtures/keys.yml")
        );
        assert_eq!(
            published.source_of("Fmjtd|lu2Rq8vN2kL5mR,2s=o5-9a8lhz"),
            Some("fixtures/keys.yml")
        );
        assert_eq!(published.source_of("Hq8vN2kL5mR7pT3wYc1Nd5Fh"), None);
        assert_eq!(published.source_of("Wq8vN2kL5mR7pT3wYc1Nd5Fh"), None);
    }
}
