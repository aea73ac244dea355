//! Orphans without a run: a static guess from the recorders' naming, for `vcr verify`.
//!
//! pytest-recording puts the cassettes of `<dir>/<module>.py` in
//! `<dir>/cassettes/<module>/`, named after the test (`test_name`, `Class.test_name`,
//! parametrized ids in brackets, forbidden characters replaced), plus the extra cassettes of
//! `@pytest.mark.vcr("name.yaml")` and the names a `default_cassette_name` override or a
//! `default_cassette` mark returns. vcrpy's `use_cassette("path")` names its cassette
//! outright. What a regex over the `.py` files sees is enough to say, for such a cassette,
//! that no test names it any more; anything it cannot map is not judged:
//!
//! - a pytest-recording folder is judged only when its `<dir>` holds test modules
//!   (`test_*.py`, `*_test.py`) and no `conftest.py` from `<dir>` up moves or renames
//!   cassettes (`vcr_cassette_dir`, `cassette_library_dir`, `default_cassette_name`,
//!   `pytest_recording_configure`); a module that does, or imports `*`, is not judged;
//! - a test's name counts as present when it appears as a word anywhere in its module (an
//!   imported test, a decorator, a comment); a class with base classes may inherit any test;
//! - a cassette named by any string literal of its module (an extra cassette, an override) is
//!   named;
//! - a folder is a `use_cassette` folder only when a literal `use_cassette` path names one of
//!   its cassettes, and no `use_cassette` call anywhere takes a computed path.
//!
//! It is a guess, reported as a warning that says so; `vcr prune` deletes only from a run.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use crate::tree::Cassette;

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
    /// Literal `use_cassette` paths.
    use_cassette: Vec<String>,
    /// A `use_cassette` call with a computed (or no) path.
    dynamic_use_cassette: bool,
    /// It moves or renames cassettes in ways a regex cannot follow, or imports `*`.
    opaque: bool,
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
            r"import\s+\*|\bvcr_cassette_dir\b|\bcassette_library_dir\b|\bdefault_cassette_name\b|\bpytest_recording_configure\b|\bpath_transformer\b",
        )
        .expect("valid regex"),
    })
}

impl Module {
    fn read(path: &Path) -> Option<Module> {
        let text = std::fs::read_to_string(path).ok()?;
        let p = patterns();
        let literal_calls: Vec<String> = p
            .use_cassette_literal
            .captures_iter(&text)
            .filter_map(|c| c.get(1).or_else(|| c.get(2)))
            .map(|m| m.as_str().to_owned())
            .collect();
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
            dynamic_use_cassette: p.use_cassette.find_iter(&text).count() > literal_calls.len(),
            use_cassette: literal_calls,
            opaque: opaque(&text),
        })
    }

    /// Whether a string literal names the cassette file `name` (`stem` without extension).
    fn names(&self, name: &str, stem: &str) -> bool {
        self.strings.iter().any(|s| {
            s == name
                || s == stem
                || s.ends_with(&format!("/{name}"))
                || s.ends_with(&format!("/{stem}"))
        })
    }
}

/// Whether a module's text renames or moves cassettes past what a regex sees. A
/// `default_cassette_name` override that only returns literals is not: its literals name
/// cassettes like any other string.
fn opaque(text: &str) -> bool {
    let p = patterns();
    p.opaque.find_iter(text).any(|m| {
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
    })
}

/// Folders never searched for `.py` files: virtual environments and installed packages.
fn skipped(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "node_modules" | "target" | "__pycache__" | "site-packages" | "dist-packages" | "venv"
        )
}

/// The `.py` files under `root` outside the `skipped` folders: those of `listed`, a walk's
/// list of every `.py` file under `root` (one that skipped at most what `skipped` skips),
/// else those a walk of `root` finds.
fn python_modules(root: &Path, listed: Option<&[PathBuf]>) -> Vec<PathBuf> {
    let Some(listed) = listed else {
        let python = |path: PathBuf, file_type: std::fs::FileType| {
            let name = path.file_name()?.to_string_lossy();
            (file_type.is_file() && name.ends_with(".py") && !skipped(&name)).then_some(path)
        };
        return crate::tree::walk(root, &skipped, &python)
            .into_iter()
            .flatten()
            .collect();
    };
    listed
        .iter()
        .filter(|path| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            !rel.components()
                .any(|c| skipped(&c.as_os_str().to_string_lossy()))
        })
        .cloned()
        .collect()
}

/// The cassettes of `cassettes` (vcrpy cassettes, absolute paths under `root`) that the
/// naming of pytest-recording and vcrpy's `use_cassette` calls say no test uses, in order.
/// `python_files` are the `.py` files under `root` when a walk of it has listed them
/// already (the selection's); `None` walks `root` for them.
pub fn orphans(
    root: &Path,
    cassettes: &[&Cassette],
    python_files: Option<&[PathBuf]>,
) -> Vec<Guess> {
    if cassettes.is_empty() {
        return Vec::new();
    }
    let mut cache = Modules::default();
    let mut guesses = Vec::new();
    let mut rest = Vec::new();
    for cassette in cassettes {
        match pytest_recording(root, cassette, &mut cache) {
            Judged::Orphan(message) => guesses.push(Guess {
                rel: cassette.rel.clone(),
                message,
            }),
            Judged::Used => {}
            Judged::NotMine => rest.push(*cassette),
        }
    }
    guesses.extend(use_cassette(root, &rest, python_files));
    guesses.sort_by(|a, b| a.rel.cmp(&b.rel));
    guesses
}

enum Judged {
    Orphan(String),
    Used,
    /// Not where pytest-recording puts cassettes, or not judged there.
    NotMine,
}

#[derive(Default)]
struct Modules {
    read: HashMap<PathBuf, Option<Module>>,
    /// Whether a folder holds test modules, by folder: asked once per cassette, and a
    /// folder's cassettes are many (the corpus's were 2 ms of a 200 ms `verify`, issue 12).
    holds_tests: HashMap<PathBuf, bool>,
}

impl Modules {
    fn get(&mut self, path: &Path) -> Option<&Module> {
        self.read
            .entry(path.to_owned())
            .or_insert_with(|| Module::read(path))
            .as_ref()
    }

    /// Whether `dir` holds test modules (`test_*.py`, `*_test.py`).
    fn holds_tests(&mut self, dir: &Path) -> bool {
        *self.holds_tests.entry(dir.to_owned()).or_insert_with(|| {
            std::fs::read_dir(dir).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.ends_with(".py")
                        && (name.starts_with("test_") || name.ends_with("_test.py"))
                })
            })
        })
    }

    /// Whether a `conftest.py` in `dir` or a folder above it (up to `root`) is opaque.
    fn conftest_opaque(&mut self, root: &Path, dir: &Path) -> bool {
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| d.starts_with(root)) {
            if self.get(&d.join("conftest.py")).is_some_and(|m| m.opaque) {
                return true;
            }
            at = d.parent();
        }
        false
    }
}

/// `<dir>/cassettes/<module>/<name>.yaml|json`, judged against `<dir>/<module>.py`.
fn pytest_recording(root: &Path, cassette: &Cassette, modules: &mut Modules) -> Judged {
    let path = &cassette.path;
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
    let Some(dir) = cassettes_dir
        .file_name()
        .filter(|n| *n == "cassettes")
        .and_then(|_| cassettes_dir.parent())
    else {
        return Judged::NotMine;
    };
    if !modules.holds_tests(dir) || modules.conftest_opaque(root, dir) {
        return Judged::NotMine;
    }
    let module_path = dir.join(format!("{module_name}.py"));
    let shown = crate::tree::relative(root, &module_path);
    let hint = "a guess from pytest-recording's naming; `vcr prune -- pytest` decides from a run";
    let Some(module) = modules.get(&module_path) else {
        return Judged::Orphan(format!(
            "no test module `{shown}` for this cassette ({hint})"
        ));
    };
    if module.opaque || module.names(file, stem) {
        return Judged::Used;
    }
    // `test_x[param-id]`, `Class.test_x`; a long name pytest-recording shortened to
    // `prefix...<md5>` cannot be mapped back.
    let base = stem.split('[').next().unwrap_or(stem);
    if base.contains("...") {
        return Judged::Used;
    }
    let (class, test) = match base.rsplit_once('.') {
        Some((class, test)) => (Some(class), test),
        None => (None, base),
    };
    let present = match class {
        Some(class) => {
            module.words.contains(class)
                && (module.words.contains(test) || module.derived.contains(class))
        }
        None => module.words.contains(test),
    };
    if present {
        return Judged::Used;
    }
    Judged::Orphan(format!("no test `{base}` in `{shown}` ({hint})"))
}

/// Cassettes in folders that literal `use_cassette` paths name, that none of them names.
fn use_cassette(
    root: &Path,
    cassettes: &[&Cassette],
    python_files: Option<&[PathBuf]>,
) -> Vec<Guess> {
    if cassettes.is_empty() {
        return Vec::new();
    }
    let mut modules: BTreeMap<String, Module> = BTreeMap::new();
    for path in &python_modules(root, python_files) {
        if let Some(module) = Module::read(path) {
            modules.insert(crate::tree::relative(root, path), module);
        }
    }
    if modules.values().any(|m| m.dynamic_use_cassette) {
        return Vec::new();
    }
    // A literal names a cassette when their file names are equal and the literal's folders
    // end the cassette's folder path.
    let names = |literal: &str, rel: &str| {
        let literal = literal.trim_start_matches("./");
        let (l_dir, l_name) = literal.rsplit_once('/').unwrap_or(("", literal));
        let (c_dir, c_name) = rel.rsplit_once('/').unwrap_or(("", rel));
        l_name == c_name
            && (l_dir.is_empty() || c_dir == l_dir || c_dir.ends_with(&format!("/{l_dir}")))
    };
    let mut named_folders: BTreeMap<&str, &str> = BTreeMap::new();
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for (module_rel, module) in &modules {
        for literal in &module.use_cassette {
            for cassette in cassettes.iter().filter(|c| names(literal, &c.rel)) {
                named.insert(&cassette.rel);
                let folder = cassette.rel.rsplit_once('/').map_or("", |(d, _)| d);
                named_folders.entry(folder).or_insert(module_rel);
            }
        }
    }
    cassettes
        .iter()
        .filter(|c| !named.contains(c.rel.as_str()))
        .filter_map(|c| {
            let (folder, file) = c.rel.rsplit_once('/').unwrap_or(("", &c.rel));
            let example = named_folders.get(folder)?;
            let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
            if modules.values().any(|m| m.names(file, stem)) {
                return None;
            }
            Some(Guess {
                rel: c.rel.clone(),
                message: format!(
                    "no `use_cassette` call names `{file}`, though calls name the other cassettes of `{folder}/` (e.g. in `{example}`) (a guess from vcrpy's `use_cassette` paths; `vcr prune -- pytest` decides from a run)"
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_makes_a_module_opaque() {
        #[track_caller]
        fn case(text: &str, expected: bool) {
            assert_eq!(opaque(text), expected, "{text}");
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
    }
}
