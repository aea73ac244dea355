//! Orphans without a run: a static guess from the recorders' naming, for `vcr verify`.
//!
//! pytest-recording puts the cassettes of `<dir>/<module>.py` in
//! `<dir>/cassettes/<module>/`, named after the test (`test_name`, `Class.test_name`,
//! parametrized ids in brackets, forbidden characters replaced), plus the extra cassettes of
//! `@pytest.mark.vcr("name.yaml")` and the names a `default_cassette_name` override or a
//! `default_cassette` mark returns. pytest-vcr puts them in `<dir>/cassettes/` itself, named
//! `<Class.>test_name.yaml` after a test of any module of `<dir>`. vcrpy's
//! `use_cassette("path")` names its cassette outright. What a regex over the `.py` files
//! sees is enough to say, for such a cassette, that no test names it any more; anything it
//! cannot map is not judged:
//!
//! - a pytest-recording or pytest-vcr folder is judged only when its `<dir>` holds test
//!   modules (those pytest collects by the `python_files` of its configuration, `test_*.py`
//!   and `*_test.py` by default, see the `python_files` module; for pytest-vcr, ones that use the
//!   `vcr` mark or fixture) and no `conftest.py` from `<dir>` up moves or renames cassettes
//!   (`vcr_cassette_dir`, `vcr_cassette_name`, `cassette_library_dir`, `path_transformer`,
//!   `func_path_generator`, a persister, a computed `default_cassette_name`); a module that
//!   does, or imports `*`, is not judged. A hook that only registers a matcher or a
//!   serializer (`pytest_recording_configure`) moves nothing. What turns the guess off is
//!   said ([`Guesses::off`]);
//! - a test's name counts as present when it appears as a word anywhere in its module (an
//!   imported test, a decorator, a comment); a class with base classes may inherit any test;
//! - a cassette named by any string literal of its module (an extra cassette, an override) is
//!   named;
//! - a folder is a `use_cassette` folder only when a literal `use_cassette` path names one of
//!   its cassettes, and no `use_cassette` call anywhere takes a computed path.
//!
//! It is a guess, reported as a warning that says so; `vcr prune` deletes only from a run.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use vcr_project::tree::{Cassette, PythonFiles};

mod python_files;

/// What the static guess says about a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guesses {
    /// The cassettes no test uses, in path order.
    pub orphans: Vec<Guess>,
    /// Why cassettes were not judged where the naming would have applied: `(file, reason)`,
    /// the file (relative to the root) that moves or renames cassettes, with how many
    /// cassettes it kept from the guess, in path order.
    pub off: Vec<Off>,
}

/// A file that turned the guess off for some cassettes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Off {
    /// The `.py` file, relative to the root.
    pub path: String,
    /// What it does: `sets \`vcr_cassette_dir\``, `imports \`*\``, ...
    pub reason: String,
    /// How many cassettes were not judged because of it.
    pub cassettes: usize,
}

/// A cassette the naming says no test uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guess {
    /// The cassette, relative to the project root.
    pub rel: String,
    /// Why, naming the module looked in, and that it is a guess.
    pub message: String,
}

/// What a regex sees in one `.py` file.
#[derive(Debug, Default)]
struct Module {
    /// Every identifier.
    words: BTreeSet<String>,
    /// Every one-line string literal's contents.
    strings: Vec<String>,
    /// Classes declared with base classes (they may inherit tests).
    derived: BTreeSet<String>,
    /// What moves or renames cassettes in ways a regex cannot follow (or imports `*`).
    opaque: Option<String>,
}

struct Patterns {
    word: Regex,
    string: Regex,
    derived: Regex,
    use_cassette: Regex,
    use_cassette_literal: Regex,
    opaque: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| Patterns {
        word: Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("valid regex"),
        string: Regex::new(r#""([^"\\\n]*)"|'([^'\\\n]*)'"#).expect("valid regex"),
        derived: Regex::new(r"(?m)^\s*class\s+([A-Za-z_]\w*)\s*\(\s*[A-Za-z_]")
            .expect("valid regex"),
        use_cassette: Regex::new(r"use_cassette\s*\(").expect("valid regex"),
        use_cassette_literal: Regex::new(
            r#"use_cassette\s*\(\s*(?:path\s*=\s*)?[rRuU]?(?:"([^"\\\n]+)"|'([^'\\\n]+)')\s*[,)]"#,
        )
        .expect("valid regex"),
        opaque: Regex::new(
            r"import\s+\*|\bvcr_cassette_dir\b|\bvcr_cassette_name\b|\bcassette_library_dir\b|\bdefault_cassette_name\b|\bpath_transformer\b|\bfunc_path_generator\b|\bregister_persister\b",
        )
        .expect("valid regex"),
    })
}

impl Module {
    fn read(path: &Path) -> Option<Module> {
        let text = std::fs::read_to_string(path).ok()?;
        let p = patterns();
        Some(Module {
            words: p
                .word
                .find_iter(&text)
                .map(|m| m.as_str().to_owned())
                .collect(),
            strings: p
                .string
                .captures_iter(&text)
                .filter_map(|c| c.get(1).or_else(|| c.get(2)))
                .map(|m| m.as_str().to_owned())
                .collect(),
            derived: p
                .derived
                .captures_iter(&text)
                .map(|c| c[1].to_owned())
                .collect(),
            opaque: opaque(&text),
        })
    }

    /// Whether a string literal names the cassette file `name` (`stem` without extension):
    /// its last path segment is one of them (`name` holds no `/`).
    fn names(&self, name: &str, stem: &str) -> bool {
        self.strings.iter().any(|s| {
            let last = last_segment(s);
            last == name || last == stem
        })
    }
}

/// What follows the last `/` of a string literal (all of it when there is none).
fn last_segment(literal: &str) -> &str {
    literal.rsplit_once('/').map_or(literal, |(_, last)| last)
}

/// A cassette's file name (`rel`'s last segment) and that name without its extension.
fn file_and_stem(rel: &str) -> (&str, &str) {
    let file = last_segment(rel);
    (file, file.rsplit_once('.').map_or(file, |(stem, _)| stem))
}

/// What in a module's text renames or moves cassettes past what a regex sees, said as
/// "imports `*`" or "sets `name`". A `default_cassette_name` override that only returns
/// literals does not: its literals name cassettes like any other string.
fn opaque(text: &str) -> Option<String> {
    let p = patterns();
    let m = p.opaque.find_iter(text).find(|m| {
        if m.as_str() != "default_cassette_name" {
            return true;
        }
        // `def default_cassette_name(...)`: opaque unless every `return` in its body is a
        // literal. A use (a fixture parameter) is not an override.
        let before = text[..m.start()].trim_end();
        if !before.ends_with("def") {
            return false;
        }
        let body = text[m.end()..]
            .lines()
            .skip(1)
            .take_while(|l| l.trim().is_empty() || l.starts_with([' ', '\t']));
        body.filter_map(|l| l.trim().strip_prefix("return"))
            .any(|ret| {
                let ret = ret.trim();
                !(ret.len() >= 2
                    && (ret.starts_with('"') && ret.ends_with('"')
                        || ret.starts_with('\'') && ret.ends_with('\'')))
            })
    })?;
    Some(if m.as_str().starts_with("import") {
        "imports `*`".to_owned()
    } else {
        format!("sets `{}`", m.as_str())
    })
}

/// The `.py` files under `root` a walk of the tree selects (what it leaves out, virtual
/// environments and installed packages among them, is left out here too), for a guess
/// whose run did not walk the whole root.
fn python_modules(root: &Path) -> PythonFiles {
    let python = |path: PathBuf, file_type: std::fs::FileType, ignored: bool| {
        (!ignored && file_type.is_file() && path.extension().is_some_and(|e| e == "py"))
            .then_some(path)
    };
    let policy = vcr_project::tree::Policy {
        gitignore: true,
        exclude: None,
    };
    vcr_project::tree::walk(root, policy, &python)
        .into_iter()
        .flatten()
        .collect()
}

/// The static guess over the vcrpy cassettes under `root`, given one at a time as a run
/// reads them ([`Guessing::add`]), then [`Guessing::finish`]ed once the tree's `.py` files
/// are known.
///
/// Each cassette is judged by pytest-recording's and pytest-vcr's naming when it comes
/// (their modules read then, once per folder); only those the naming leaves to vcrpy's
/// `use_cassette` paths are kept, by folder and file name (`Paths`), until `finish` reads
/// the tree's modules. Holding every cassette to the end took about 20 MB of the peak over
/// 64 copies of the corpus (40,000 vcrpy cassettes), most of what a whole-tree `verify` grew
/// by with the number of files (issue 25).
pub struct Guessing {
    root: PathBuf,
    modules: Modules,
    off: BTreeMap<(String, String), usize>,
    orphans: Vec<Guess>,
    /// What the naming leaves to `use_cassette` paths: not pytest-recording's or pytest-vcr's,
    /// or theirs with the guess turned off.
    rest: Paths,
}

impl Guessing {
    /// A guess over the tree at `root` (absolute), with no cassette yet.
    pub fn new(root: &Path) -> Self {
        Guessing {
            root: root.to_owned(),
            modules: Modules::default(),
            off: BTreeMap::new(),
            orphans: Vec::new(),
            rest: Paths::default(),
        }
    }

    /// Judges a vcrpy cassette under the root by pytest-recording's and pytest-vcr's naming,
    /// keeping it for [`Guessing::finish`] where their naming does not decide.
    pub fn add(&mut self, cassette: &Cassette) {
        let rel = cassette.rel.as_str();
        match pytest_recording(&self.root, &cassette.path, &mut self.modules) {
            Judged::Orphan(message) => self.orphans.push(Guess {
                rel: rel.to_owned(),
                message,
            }),
            Judged::Used => {}
            Judged::Off(path, reason) => {
                *self
                    .off
                    .entry((vcr_project::tree::relative(&self.root, &path), reason))
                    .or_default() += 1;
                self.rest.push(rel);
            }
            Judged::NotMine => self.rest.push(rel),
        }
    }

    /// The cassettes given that the naming of pytest-recording and vcrpy's `use_cassette`
    /// calls say no test uses, in order. `python_files` are the `.py` files under the root
    /// when a walk of it has listed them already (the selection's); `None` walks the root
    /// for them.
    pub fn finish(self, python_files: Option<&PythonFiles>) -> Guesses {
        let Guessing {
            root,
            off: mut off_by,
            orphans,
            rest,
            ..
        } = self;
        let mut guesses = Guesses {
            orphans,
            off: Vec::new(),
        };
        if guesses.orphans.is_empty() && rest.is_empty() {
            return guesses;
        }
        let rest: Vec<CassettePath> = rest.iter().collect();
        // A module anywhere may name a flat folder's cassette by a literal path.
        let wanted: HashSet<&str> = (guesses.orphans.iter().map(|g| g.rel.as_str()))
            .chain(rest.iter().map(|c| c.name))
            .flat_map(|rel| {
                let (file, stem) = file_and_stem(rel);
                [file, stem]
            })
            .collect();
        let modules = read_tree_modules(&root, python_files, &wanted);
        guesses.orphans.retain(|guess| {
            let (file, stem) = file_and_stem(&guess.rel);
            !(guess.message.contains("pytest-vcr") && modules.names(file, stem))
        });
        let (by_use_cassette, dynamic) = use_cassette(&rest, &modules);
        guesses.orphans.extend(by_use_cassette);
        if let Some((path, n)) = dynamic {
            *off_by
                .entry((path, "calls `use_cassette` with a computed path".to_owned()))
                .or_default() += n;
        }
        guesses.orphans.sort_by(|a, b| a.rel.cmp(&b.rel));
        guesses.off = off_by
            .into_iter()
            .map(|((path, reason), cassettes)| Off {
                path,
                reason,
                cassettes,
            })
            .collect();
        guesses
    }
}

/// Relative paths, in the order given, each folder held once: the cassettes of a folder
/// come together, and a path costs its file name and an offset, not an allocation of its
/// own (whole paths in one buffer peaked 6 MB higher over 64 copies of the corpus).
#[derive(Default)]
struct Paths {
    /// Each folder (`""` for the root), with the number of paths before its first.
    folders: Vec<(String, usize)>,
    /// The file names, one after the other.
    names: String,
    /// Where each path's name ends in `names`.
    ends: Vec<usize>,
}

impl Paths {
    /// Adds `rel`, `/`-separated.
    fn push(&mut self, rel: &str) {
        let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if self.folders.last().is_none_or(|(last, _)| last != folder) {
            self.folders.push((folder.to_owned(), self.ends.len()));
        }
        self.names.push_str(name);
        self.ends.push(self.names.len());
    }

    fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each path as its folder (`""` for the root) and file name.
    fn iter(&self) -> impl Iterator<Item = CassettePath<'_>> {
        let mut folders = self.folders.iter().peekable();
        let mut folder = "";
        let mut start = 0;
        self.ends.iter().enumerate().map(move |(i, &end)| {
            while let Some((next, _)) = folders.next_if(|(_, first)| *first <= i) {
                folder = next;
            }
            let name = &self.names[start..end];
            start = end;
            CassettePath { folder, name }
        })
    }
}

/// A cassette's relative path as its folder and file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct CassettePath<'a> {
    /// The folder, `/`-separated, `""` for the root.
    folder: &'a str,
    /// The file name.
    name: &'a str,
}

impl CassettePath<'_> {
    /// The relative path, `/`-separated.
    fn rel(&self) -> String {
        if self.folder.is_empty() {
            self.name.to_owned()
        } else {
            format!("{}/{}", self.folder, self.name)
        }
    }
}

enum Judged {
    Orphan(String),
    Used,
    /// Where pytest-recording or pytest-vcr would put it, but a module (the path) moves or
    /// renames cassettes (the reason).
    Off(PathBuf, String),
    /// Not where pytest-recording or pytest-vcr put cassettes.
    NotMine,
}

#[derive(Default)]
struct Modules {
    read: HashMap<PathBuf, Option<Module>>,
    /// The test modules of a folder as pytest's `python_files` says (or why that is unknown),
    /// by folder: asked once per cassette, and a folder's cassettes are many (the corpus's
    /// were 2 ms of a 200 ms `verify`, issue 12).
    tests: HashMap<PathBuf, Result<Vec<PathBuf>, python_files::Unknown>>,
}

impl Modules {
    fn get(&mut self, path: &Path) -> Option<&Module> {
        self.read
            .entry(path.to_owned())
            .or_insert_with(|| Module::read(path))
            .as_ref()
    }

    /// The test modules directly in `dir`, in name order: the `.py` files pytest collects
    /// there by the `python_files` of its configuration (`test_*.py` and `*_test.py` by
    /// default), or the configuration file that does not read and why.
    fn tests_in(&mut self, root: &Path, dir: &Path) -> Result<&[PathBuf], python_files::Unknown> {
        let tests = self.tests.entry(dir.to_owned()).or_insert_with(|| {
            let files = python_files::test_files(root, dir)?;
            let mut tests: Vec<PathBuf> = std::fs::read_dir(dir)
                .map(|entries| {
                    entries
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                        .map(|e| e.path())
                        .filter(|p| files.matches(p))
                        .collect()
                })
                .unwrap_or_default();
            tests.sort();
            Ok(tests)
        });
        match tests {
            Ok(tests) => Ok(tests),
            Err(unknown) => Err(unknown.clone()),
        }
    }

    /// The first `conftest.py` in `dir` or a folder above it (up to `root`) that moves or
    /// renames cassettes, with what it does.
    fn conftest_opaque(&mut self, root: &Path, dir: &Path) -> Option<(PathBuf, String)> {
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| d.starts_with(root)) {
            let conftest = d.join("conftest.py");
            if let Some(reason) = self.get(&conftest).and_then(|m| m.opaque.clone()) {
                return Some((conftest, reason));
            }
            at = d.parent();
        }
        None
    }
}

/// `<dir>/cassettes/<module>/<name>.yaml|json`, judged against `<dir>/<module>.py`.
fn pytest_recording(root: &Path, path: &Path, modules: &mut Modules) -> Judged {
    let (Some(file), Some(folder)) = (path.file_name().and_then(|f| f.to_str()), path.parent())
    else {
        return Judged::NotMine;
    };
    let Some(stem) = file
        .strip_suffix(".yaml")
        .or_else(|| file.strip_suffix(".json"))
    else {
        return Judged::NotMine;
    };
    let (Some(module_name), Some(cassettes_dir)) =
        (folder.file_name().and_then(|f| f.to_str()), folder.parent())
    else {
        return Judged::NotMine;
    };
    if module_name == "cassettes" {
        return pytest_vcr(root, cassettes_dir, file, stem, modules);
    }
    let Some(dir) = cassettes_dir
        .file_name()
        .filter(|n| *n == "cassettes")
        .and_then(|_| cassettes_dir.parent())
    else {
        return Judged::NotMine;
    };
    match modules.tests_in(root, dir) {
        Ok([]) => return Judged::NotMine,
        Ok(_) => {}
        Err((config, reason)) => return Judged::Off(config, reason),
    }
    if let Some((conftest, reason)) = modules.conftest_opaque(root, dir) {
        return Judged::Off(conftest, reason);
    }
    let module_path = dir.join(format!("{module_name}.py"));
    let shown = vcr_project::tree::relative(root, &module_path);
    let hint = "a guess from pytest-recording's naming; `vcr prune -- pytest` decides from a run";
    let Some(module) = modules.get(&module_path) else {
        return Judged::Orphan(format!(
            "no test module `{shown}` for this cassette ({hint})"
        ));
    };
    if let Some(reason) = &module.opaque {
        return Judged::Off(module_path, reason.clone());
    }
    if module.names(file, stem) || test_present(stem, [module]) {
        return Judged::Used;
    }
    Judged::Orphan(format!("no test `{}` in `{shown}` ({hint})", base(stem)))
}

/// The test name of a cassette's stem: `test_x[param-id]` is `test_x`.
fn base(stem: &str) -> &str {
    stem.split('[').next().unwrap_or(stem)
}

/// Whether the test a cassette's stem names (`test_x`, `test_x[id]`, `Class.test_x`) is
/// present in one of `modules`. A long name the recorder shortened to `prefix...<md5>`
/// cannot be mapped back: present.
fn test_present<'a>(stem: &str, modules: impl IntoIterator<Item = &'a Module>) -> bool {
    let base = base(stem);
    if base.contains("...") {
        return true;
    }
    let (class, test) = match base.rsplit_once('.') {
        Some((class, test)) => (Some(class), test),
        None => (None, base),
    };
    modules.into_iter().any(|module| match class {
        Some(class) => {
            module.words.contains(class)
                && (module.words.contains(test) || module.derived.contains(class))
        }
        None => module.words.contains(test),
    })
}

/// `<dir>/cassettes/<Class.>test_name.yaml`, pytest-vcr's naming, judged against the test
/// modules of `<dir>` that use the `vcr` mark or fixture (without one, the folder is some
/// other harness's).
fn pytest_vcr(root: &Path, dir: &Path, file: &str, stem: &str, modules: &mut Modules) -> Judged {
    if !file.ends_with(".yaml") {
        return Judged::NotMine;
    }
    let tests = match modules.tests_in(root, dir) {
        Ok(tests) => tests.to_vec(),
        Err((config, reason)) => return Judged::Off(config, reason),
    };
    let mut read: Vec<(PathBuf, &Module)> = Vec::new();
    for path in &tests {
        modules.get(path);
    }
    for path in &tests {
        if let Some(module) = modules.read.get(path).and_then(Option::as_ref) {
            read.push((path.clone(), module));
        }
    }
    if !read.iter().any(|(_, m)| m.words.contains("vcr")) {
        return Judged::NotMine;
    }
    if let Some((path, module)) = read.iter().find(|(_, m)| m.opaque.is_some()) {
        return Judged::Off(path.clone(), module.opaque.clone().unwrap_or_default());
    }
    let found = read.iter().any(|(_, m)| m.names(file, stem))
        || test_present(stem, read.iter().map(|(_, m)| *m));
    if found {
        return Judged::Used;
    }
    if let Some((conftest, reason)) = modules.conftest_opaque(root, dir) {
        return Judged::Off(conftest, reason);
    }
    Judged::Orphan(format!(
        "no test `{}` in the test modules of `{}/` (a guess from pytest-vcr's naming; `vcr prune -- pytest` decides from a run)",
        base(stem),
        vcr_project::tree::relative(root, dir)
    ))
}

/// What the tree's `.py` files say about the cassettes being judged: which of their file
/// names and stems a string literal holds (as its last path segment), and the literal and
/// computed `use_cassette` calls.
#[derive(Default)]
struct TreeModules {
    /// The judged cassettes' file names and stems some string literal ends with.
    named: HashSet<String>,
    /// Literal `use_cassette` paths, by module (relative path).
    use_cassette: BTreeMap<String, Vec<String>>,
    /// The first module (by relative path) calling `use_cassette` with a computed path.
    dynamic: Option<String>,
}

impl TreeModules {
    /// Whether a string literal of some module names the cassette file `name` (`stem`
    /// without its extension), as [`Module::names`] asks of one module.
    fn names(&self, name: &str, stem: &str) -> bool {
        self.named.contains(name) || self.named.contains(stem)
    }
}

/// Reads the tree's `.py` files on every core for what [`TreeModules`] holds. A file that
/// holds none of `wanted` (the judged cassettes' file names and stems) and no `use_cassette`
/// says nothing, and is found so by one automaton pass: building every module's words and
/// literals was most of the static orphan guess's time in a monorepo (0.5 s of 0.95 s over
/// 19,000 `.py` files, issue 25).
fn read_tree_modules(
    root: &Path,
    python_files: Option<&PythonFiles>,
    wanted: &HashSet<&str>,
) -> TreeModules {
    use rayon::prelude::*;
    let mut needles: Vec<&str> = wanted.iter().copied().collect();
    needles.push("use_cassette");
    let finder = aho_corasick::AhoCorasick::new(&needles).ok();
    let p = patterns();
    let walked;
    let python_files = match python_files {
        Some(listed) => listed,
        None => {
            walked = python_modules(root);
            &walked
        }
    };
    // Borrowed, not copied: a path is joined only while its file is read.
    let files: Vec<(&Path, &std::ffi::OsStr)> = python_files.iter().collect();
    let read: Vec<(String, Vec<String>, Vec<String>, bool)> = files
        .par_iter()
        .filter_map(|&(folder, name)| {
            let path = folder.join(name);
            let text = std::fs::read_to_string(&path).ok()?;
            if finder.as_ref().is_some_and(|f| !f.is_match(&text)) {
                return None;
            }
            let named: Vec<String> = (p.string.captures_iter(&text))
                .filter_map(|c| c.get(1).or_else(|| c.get(2)))
                .map(|m| last_segment(m.as_str()))
                .filter(|last| wanted.contains(*last))
                .map(str::to_owned)
                .collect();
            let literal: Vec<String> = (p.use_cassette_literal.captures_iter(&text))
                .filter_map(|c| c.get(1).or_else(|| c.get(2)))
                .map(|m| m.as_str().to_owned())
                .collect();
            let dynamic = p.use_cassette.find_iter(&text).count() > literal.len();
            Some((
                vcr_project::tree::relative(root, &path),
                named,
                literal,
                dynamic,
            ))
        })
        .collect();
    let mut modules = TreeModules::default();
    for (rel, named, literal, dynamic) in read {
        modules.named.extend(named);
        if dynamic && modules.dynamic.as_ref().is_none_or(|first| rel < *first) {
            modules.dynamic = Some(rel.clone());
        }
        if !literal.is_empty() {
            modules.use_cassette.insert(rel, literal);
        }
    }
    modules
}

/// Cassettes in folders that literal `use_cassette` paths name, that none of them names;
/// with, when a `use_cassette` call takes a computed path (which could name any cassette,
/// and turns this guess off), the first module that makes one and how many cassettes the
/// guess would have judged.
fn use_cassette(
    cassettes: &[CassettePath],
    modules: &TreeModules,
) -> (Vec<Guess>, Option<(String, usize)>) {
    if cassettes.is_empty() {
        return (Vec::new(), None);
    }
    if let Some(path) = &modules.dynamic {
        return (Vec::new(), Some((path.clone(), cassettes.len())));
    }
    // A literal names a cassette when their file names are equal and the literal's folders
    // end the cassette's folder path.
    let names = |literal: &str, cassette: &CassettePath| {
        let literal = literal.trim_start_matches("./");
        let (l_dir, l_name) = literal.rsplit_once('/').unwrap_or(("", literal));
        let (c_dir, c_name) = (cassette.folder, cassette.name);
        l_name == c_name
            && (l_dir.is_empty() || c_dir == l_dir || c_dir.ends_with(&format!("/{l_dir}")))
    };
    let mut named_folders: BTreeMap<&str, &str> = BTreeMap::new();
    let mut named: BTreeSet<CassettePath> = BTreeSet::new();
    for (module_rel, literals) in &modules.use_cassette {
        for literal in literals {
            for cassette in cassettes.iter().filter(|c| names(literal, c)) {
                named.insert(*cassette);
                named_folders.entry(cassette.folder).or_insert(module_rel);
            }
        }
    }
    let guesses = cassettes
        .iter()
        .filter(|c| !named.contains(*c))
        .filter_map(|c| {
            let folder = c.folder;
            let example = named_folders.get(folder)?;
            let (file, stem) = file_and_stem(c.name);
            if modules.names(file, stem) {
                return None;
            }
            Some(Guess {
                rel: c.rel(),
                message: format!(
                    "no `use_cassette` call names `{file}`, though calls name the other cassettes of `{folder}/` (e.g. in `{example}`) (a guess from vcrpy's `use_cassette` paths; `vcr prune -- pytest` decides from a run)"
                ),
            })
        })
        .collect();
    (guesses, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_give_back_what_was_pushed_in_order() {
        let mut paths = Paths::default();
        assert!(paths.is_empty());
        assert_eq!(paths.iter().count(), 0);
        // An empty path, a name with a line break and one with non-ASCII characters are
        // kept apart by their offsets, not by a separator.
        let given = [
            "a/cassettes/x.yaml",
            "",
            "b/odd\nname.yaml",
            "c/ünï.yaml",
            "a/cassettes/x.yaml",
        ];
        for path in given {
            paths.push(path);
        }
        assert!(!paths.is_empty());
        let back: Vec<String> = paths.iter().map(|c| c.rel()).collect();
        assert_eq!(back, given);
        assert_eq!(
            paths.folders.len(),
            5,
            "a folder that comes again is held again"
        );
    }

    #[test]
    fn what_makes_a_module_opaque() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(opaque(text).is_some(), expected, "{text}");
        }
        case("def test_a():\n    pass\n", false);
        case("from helpers import *\n", true);
        case(
            "@pytest.fixture\ndef vcr_cassette_dir(request):\n    return 'x'\n",
            true,
        );
        case(
            "def vcr_config():\n    return {\"cassette_library_dir\": \"x\"}\n",
            true,
        );
        // A literal override names its cassette; a computed one could name anything.
        case(
            "def default_cassette_name():\n    return \"custom\"\n",
            false,
        );
        case(
            "def default_cassette_name(request):\n    return request.node.name\n",
            true,
        );
        // A test taking the fixture is no override.
        case("def test_a(default_cassette_name):\n    pass\n", false);
        // A hook that only registers a matcher moves nothing; one that sets a folder does.
        case(
            "def pytest_recording_configure(config, vcr):\n    vcr.register_matcher('body', match_body)\n",
            false,
        );
        case(
            "def pytest_recording_configure(config, vcr):\n    vcr.register_persister(DbPersister)\n",
            true,
        );
        assert_eq!(
            opaque("@pytest.fixture\ndef vcr_cassette_dir():\n    return 'x'\n").as_deref(),
            Some("sets `vcr_cassette_dir`")
        );
        assert_eq!(opaque("from x import *\n").as_deref(), Some("imports `*`"));
    }
}
