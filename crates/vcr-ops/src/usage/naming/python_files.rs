//! Which `.py` files pytest collects as test modules: its `python_files` setting, for the
//! static orphan guess.
//!
//! pytest reads its configuration from the first file that has a pytest section, folder by
//! folder upwards, and in each folder in this order: `pytest.ini` (or `.pytest.ini`, used
//! even without a `[pytest]` section), `pyproject.toml` (`[tool.pytest.ini_options]`, or
//! pytest 9's `[tool.pytest]`), `tox.ini` (`[pytest]`) and `setup.cfg` (`[tool:pytest]`).
//! `python_files` there is a list of glob patterns matched against a file's name (against its
//! path when a pattern holds a `/`); without it, pytest collects `test_*.py` and `*_test.py`.
//! The guess looks from a test folder up to the project root, the configuration a run of
//! pytest in that folder or above it would read.
//!
//! A configuration that does not read (a `pyproject.toml` that is no TOML, a pattern that is
//! no glob) leaves pytest's choice unknown: the guess is off for the cassettes it would
//! decide, and says why.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// pytest's default `python_files`.
const DEFAULT: &[&str] = &["test_*.py", "*_test.py"];

/// The files pytest collects as test modules in a folder.
#[derive(Debug)]
pub(super) struct TestFiles {
    /// Patterns matched against the file name.
    by_name: GlobSet,
    /// Patterns with a `/`, matched against the whole path.
    by_path: GlobSet,
}

impl TestFiles {
    /// pytest's own default.
    fn default_patterns() -> TestFiles {
        let patterns: Vec<String> = DEFAULT.iter().map(|p| (*p).to_owned()).collect();
        TestFiles::new(&patterns).expect("the default patterns are globs")
    }

    fn new(patterns: &[String]) -> Result<TestFiles, String> {
        let mut by_name = GlobSetBuilder::new();
        let mut by_path = GlobSetBuilder::new();
        for pattern in patterns {
            // fnmatch: `*` crosses `/`, and a relative pattern matches the path's end.
            let (set, glob) = if pattern.contains('/') {
                let anchored = if pattern.starts_with('/') || pattern.starts_with('*') {
                    pattern.clone()
                } else {
                    format!("*/{pattern}")
                };
                (&mut by_path, anchored)
            } else {
                (&mut by_name, pattern.clone())
            };
            let glob = GlobBuilder::new(&glob)
                .literal_separator(false)
                .backslash_escape(false)
                .build()
                .map_err(|e| format!("`python_files` pattern `{pattern}` is no glob: {e}"))?;
            set.add(glob);
        }
        let build = |set: GlobSetBuilder| set.build().map_err(|e| e.to_string());
        Ok(TestFiles {
            by_name: build(by_name)?,
            by_path: build(by_path)?,
        })
    }

    /// Whether pytest collects `path` (a `.py` file) as a test module.
    pub(super) fn matches(&self, path: &Path) -> bool {
        if path.extension().is_none_or(|e| e != "py") {
            return false;
        }
        path.file_name()
            .is_some_and(|name| self.by_name.is_match(Path::new(name)))
            || self.by_path.is_match(path)
    }
}

/// Why the guess cannot know pytest's test modules: the configuration file and what is
/// wrong with it.
pub(super) type Unknown = (PathBuf, String);

/// The test modules of `dir` as pytest would collect them: `python_files` of the first
/// pytest configuration from `dir` up to `root`, else pytest's default.
pub(super) fn test_files(root: &Path, dir: &Path) -> Result<TestFiles, Unknown> {
    let mut at = Some(dir);
    while let Some(folder) = at.filter(|d| d.starts_with(root)) {
        if let Some((path, patterns)) = configuration_in(folder)? {
            return match patterns {
                Some(patterns) => TestFiles::new(&patterns).map_err(|e| (path, e)),
                None => Ok(TestFiles::default_patterns()),
            };
        }
        at = folder.parent();
    }
    Ok(TestFiles::default_patterns())
}

/// The pytest configuration in `folder`, if one of its files has one: the file, and its
/// `python_files` when set.
#[allow(clippy::type_complexity)]
fn configuration_in(folder: &Path) -> Result<Option<(PathBuf, Option<Vec<String>>)>, Unknown> {
    for name in ["pytest.ini", ".pytest.ini"] {
        let path = folder.join(name);
        if let Ok(text) = std::fs::read_to_string(&path) {
            let patterns = ini_value(&text, "pytest", "python_files");
            return Ok(Some((path, patterns)));
        }
    }
    let path = folder.join("pyproject.toml");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let table = toml::from_str::<toml::Table>(&text).map_err(|e| {
            let message = e.message().trim_end().to_owned();
            (path.clone(), format!("does not read as TOML ({message})"))
        })?;
        let pytest = table
            .get("tool")
            .and_then(|t| t.get("pytest"))
            .and_then(toml::Value::as_table);
        if let Some(pytest) = pytest {
            // pytest 9's native table, or the ini-style table of earlier releases.
            let section = pytest
                .get("ini_options")
                .and_then(toml::Value::as_table)
                .unwrap_or(pytest);
            let patterns = match section.get("python_files") {
                None => None,
                Some(toml::Value::String(s)) => Some(words(s)),
                Some(toml::Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|v| v.as_str().map(str::to_owned))
                        .collect::<Option<Vec<String>>>()
                        .ok_or_else(|| {
                            (path.clone(), "`python_files` holds a non-string".to_owned())
                        })?,
                ),
                Some(_) => {
                    return Err((path, "`python_files` is neither a string nor a list".into()));
                }
            };
            return Ok(Some((path, patterns)));
        }
    }
    for (name, section) in [("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")] {
        let path = folder.join(name);
        if let Ok(text) = std::fs::read_to_string(&path)
            && has_section(&text, section)
        {
            let patterns = ini_value(&text, section, "python_files");
            return Ok(Some((path, patterns)));
        }
    }
    Ok(None)
}

/// Whether an INI text has the section `[name]`.
fn has_section(text: &str, name: &str) -> bool {
    text.lines().any(|l| section_name(l) == Some(name))
}

/// The section a line opens, if it does.
fn section_name(line: &str) -> Option<&str> {
    line.trim_end()
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .map(str::trim)
}

/// `key` of `[section]` in an INI text, as pytest reads a list: words split on whitespace,
/// over the indented lines that continue the value.
fn ini_value(text: &str, section: &str, key: &str) -> Option<Vec<String>> {
    let mut in_section = false;
    let mut value: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = section_name(line) {
            if value.is_some() {
                break;
            }
            in_section = name == section;
            continue;
        }
        if !in_section {
            continue;
        }
        let continues = line.starts_with([' ', '\t']);
        if let Some(value) = value.as_mut() {
            if continues {
                value.push(' ');
                value.push_str(line.trim());
                continue;
            }
            break;
        }
        let trimmed = line.trim();
        if continues || trimmed.starts_with(['#', ';']) {
            continue;
        }
        let Some((name, rest)) = trimmed.split_once(['=', ':']) else {
            continue;
        };
        if name.trim() == key {
            value = Some(rest.trim().to_owned());
        }
    }
    value.map(|v| words(&v))
}

/// A setting's words, as pytest splits a list (`shlex`, without quotes here).
fn words(value: &str) -> Vec<String> {
    value
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '"' || c == '\'').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collected(files: &TestFiles, names: &[&str]) -> Vec<String> {
        names
            .iter()
            .filter(|n| files.matches(&Path::new("/p/tests").join(n)))
            .map(|n| (*n).to_owned())
            .collect()
    }

    const NAMES: &[&str] = &[
        "test_api.py",
        "api_test.py",
        "test-api.py",
        "check_api.py",
        "test_api.txt",
        "conftest.py",
    ];

    #[test]
    fn each_configuration_file_is_read_in_pytest_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let tests = root.join("tests");
        std::fs::create_dir(&tests).unwrap();
        let read = || test_files(root, &tests).unwrap();
        assert_eq!(
            collected(&read(), NAMES),
            ["test_api.py", "api_test.py"],
            "pytest's default"
        );
        // A setup.cfg without pytest's section is no configuration.
        std::fs::write(root.join("setup.cfg"), "[metadata]\nname = x\n").unwrap();
        assert_eq!(collected(&read(), NAMES), ["test_api.py", "api_test.py"]);
        std::fs::write(
            root.join("setup.cfg"),
            "[tool:pytest]\npython_files =\n    check_*.py\n    test_*.py\n",
        )
        .unwrap();
        assert_eq!(collected(&read(), NAMES), ["test_api.py", "check_api.py"]);
        std::fs::write(root.join("tox.ini"), "[pytest]\npython_files = test-*.py\n").unwrap();
        assert_eq!(collected(&read(), NAMES), ["test-api.py"]);
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.pytest.ini_options]\npython_files = [\"*_test.py\"]\n",
        )
        .unwrap();
        assert_eq!(collected(&read(), NAMES), ["api_test.py"]);
        // pytest.ini wins, even with no `python_files`: the default.
        std::fs::write(root.join("pytest.ini"), "[pytest]\naddopts = -q\n").unwrap();
        assert_eq!(collected(&read(), NAMES), ["test_api.py", "api_test.py"]);
        // The nearest folder first.
        std::fs::write(tests.join("pytest.ini"), "[pytest]\npython_files=check_*\n").unwrap();
        assert_eq!(collected(&read(), NAMES), ["check_api.py"]);
    }

    #[test]
    fn a_configuration_that_does_not_read_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("pyproject.toml"), "[tool.pytest\n").unwrap();
        let (path, why) = test_files(root, root).unwrap_err();
        assert_eq!(path, root.join("pyproject.toml"));
        assert!(why.starts_with("does not read as TOML"), "{why}");
        std::fs::write(
            root.join("pytest.ini"),
            "[pytest]\npython_files = test_[.py\n",
        )
        .unwrap();
        let (path, why) = test_files(root, root).unwrap_err();
        assert_eq!(path, root.join("pytest.ini"));
        assert!(why.contains("`test_[.py` is no glob"), "{why}");
    }
}
