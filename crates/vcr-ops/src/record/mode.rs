//! How the HTTP recorders of a tree are put in record mode for `vcr record` (issue 21).
//!
//! Claude Code's VCR and dsh take one variable each, which [`super::record_env`] sets. HTTP
//! recorders differ, and most keep their mode in the test code, where vcr cannot reach it.
//! So each recorder whose cassettes the tree holds is put in one of four cases, by what its
//! documentation says:
//!
//! - vcr sets the switch: nock back reads `NOCK_BACK_MODE` when it loads; pytest-recording
//!   and pytest-vcr take a pytest option, added to the command when it runs pytest itself,
//!   else to `PYTEST_ADDOPTS`, which pytest reads however it is started.
//! - the command sets it already (it names the option or the variable): left alone.
//! - the mode is in the test code, and the recorder's default records a cassette that is
//!   missing (vcrpy and Ruby VCR `once`, go-vcr's `recorder.New`, Polly's `recordIfMissing`,
//!   talkback's `RecordMode.NEW`): a run records what is missing, which `--only` arranges.
//! - the mode is outside vcr's reach and its default only replays (httprr's `-httprecord`
//!   flag, which only the test binaries of packages that use httprr accept; Playwright's
//!   `update`): vcr says exactly what to pass, and a run that recorded nothing is no
//!   success, since it could not have recorded.
//!
//! Which pytest plugin a project uses is read from the files that declare its dependencies
//! and from its `conftest.py` files; the plugins' own names are the evidence, since both
//! write vcrpy cassettes and use the same `@pytest.mark.vcr` marker.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use vcr_cassette::http::{self, Format};
use vcr_project::tree::{CassetteKind, Selection};

/// A recorder as `vcr record` drives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecorderMode {
    /// The recorder (`pytest-recording`, `nock`, `go-vcr`, ...).
    pub recorder: &'static str,
    /// How many of the tree's cassettes are its.
    pub cassettes: usize,
    /// One of them, relative to the project root (none before a first recording).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
    /// How it is put in record mode.
    #[serde(flatten)]
    pub how: How,
}

/// How a recorder is put in record mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "mode", content = "how", rename_all = "snake_case")]
pub enum How {
    /// vcr added this to the command or its environment.
    Set(String),
    /// The command or the environment sets it already (this option or variable).
    Given(String),
    /// The test code sets the mode, and the recorder's default records a missing cassette.
    InCode(&'static str),
    /// vcr cannot set it and the default only replays: what to pass.
    Cannot(&'static str),
}

/// What `vcr record` adds to the test command and its environment for the tree's HTTP
/// recorders, and how each one is put in record mode.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRecording {
    /// Variables added to the command's environment.
    pub env: Vec<(String, String)>,
    /// Arguments added after the command's own.
    pub args: Vec<String>,
    /// Each recorder whose cassettes the tree holds, in the order of [`Format`].
    pub recorders: Vec<RecorderMode>,
}

impl HttpRecording {
    /// The recorders that a run can only have replayed, unless the user set them another way.
    pub fn cannot(&self) -> impl Iterator<Item = &RecorderMode> {
        self.recorders
            .iter()
            .filter(|r| matches!(r.how, How::Cannot(_)))
    }
}

/// The pytest plugins that write vcrpy cassettes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plugin {
    PytestRecording,
    PytestVcr,
}

impl Plugin {
    fn name(self) -> &'static str {
        match self {
            Plugin::PytestRecording => "pytest-recording",
            Plugin::PytestVcr => "pytest-vcr",
        }
    }

    /// The option that sets the record mode, and the value that records what is missing.
    fn option(self) -> (&'static str, &'static str) {
        match self {
            Plugin::PytestRecording => ("--record-mode", "--record-mode=once"),
            Plugin::PytestVcr => ("--vcr-record", "--vcr-record=once"),
        }
    }
}

/// The recorders of `selection`'s HTTP cassettes and how `argv`, run in `dir` (the project
/// root is `root`) with the variables `env_get` gives, is put in record mode.
pub fn http_recording(
    selection: &Selection,
    root: &Path,
    dir: &Path,
    argv: &[String],
    env_get: &dyn Fn(&str) -> Option<String>,
) -> HttpRecording {
    let mut found: BTreeMap<Recorder, (usize, Option<String>)> = BTreeMap::new();
    let recorders: Vec<(Recorder, &str)> = selection
        .cassettes
        .par_iter()
        .filter(|c| c.kind == CassetteKind::Http)
        .filter_map(|c| Some((recorder_of(&c.path)?, c.rel.as_str())))
        .collect();
    for (recorder, rel) in recorders {
        let entry = found.entry(recorder).or_default();
        entry.0 += 1;
        if entry.1.as_deref().is_none_or(|first| rel < first) {
            entry.1 = Some(rel.to_owned());
        }
    }
    let mut recording = HttpRecording::default();
    // A declared plugin or nock counts before a first recording, which has no cassettes.
    let plugin = pytest_plugin(root, dir);
    if plugin.is_some() {
        found.entry(Recorder::Vcrpy).or_default();
    }
    if declares_nock(root, dir) {
        found.entry(Recorder::Nock).or_default();
    }
    let pytest = runs_pytest(argv);
    let names = |option: &str| {
        argv.iter()
            .any(|a| a == option || a.starts_with(&format!("{option}=")))
    };
    for (recorder, (cassettes, example)) in found {
        let how = match recorder {
            Recorder::Vcrpy => match plugin {
                Some(plugin) => {
                    let (option, once) = plugin.option();
                    let in_addopts = env_get(PYTEST_ADDOPTS).is_some_and(|a| a.contains(option));
                    if names(option) || in_addopts {
                        How::Given(option.to_owned())
                    } else if pytest {
                        recording.args.push(once.to_owned());
                        How::Set(format!("`{once}` added to the command"))
                    } else {
                        // pytest reads this variable wherever it is started from.
                        let addopts = match env_get(PYTEST_ADDOPTS) {
                            Some(given) if !given.trim().is_empty() => format!("{given} {once}"),
                            _ => once.to_owned(),
                        };
                        recording.env.push((PYTEST_ADDOPTS.to_owned(), addopts));
                        How::Set(format!("`{once}` added to `{PYTEST_ADDOPTS}`"))
                    }
                }
                None => How::InCode(
                    "vcrpy's `record_mode` (in `use_cassette` or `vcr.VCR`): `once`, its default, records a missing cassette",
                ),
            },
            Recorder::RubyVcr => How::InCode(
                "`record:` in `VCR.configure`'s `default_cassette_options`: `:once`, the default, records a missing cassette",
            ),
            Recorder::GoVcr => How::InCode(
                "the recorder's mode in the test code: `recorder.New` records a missing cassette (`ModeRecording` in go-vcr 1, `ModeRecordOnce` from 2 on)",
            ),
            Recorder::Polly => How::InCode(
                "Polly's `mode` and `recordIfMissing` (on by default: a missing recording is recorded)",
            ),
            Recorder::Talkback => How::InCode(
                "talkback's `record` option: `RecordMode.NEW`, the default, records a request it has no tape for",
            ),
            Recorder::Nock => {
                if env_get(NOCK_BACK_MODE).is_some() {
                    How::Given(NOCK_BACK_MODE.to_owned())
                } else {
                    recording
                        .env
                        .push((NOCK_BACK_MODE.to_owned(), "record".to_owned()));
                    How::Set(format!(
                        "`{NOCK_BACK_MODE}=record` added to the environment"
                    ))
                }
            }
            Recorder::Httprr => {
                if names("-httprecord") || names("--httprecord") {
                    How::Given("-httprecord".to_owned())
                } else {
                    How::Cannot(
                        "httprr records only with its test flag `-httprecord`, a regular expression of the files to record again: `vcr record -- go test ./PKG -httprecord=.` (only packages that use httprr accept it)",
                    )
                }
            }
            Recorder::Playwright => How::Cannot(
                "Playwright records a HAR only with `update: true` in `routeFromHAR`; set it from a variable of your own and name that in vcr.toml (`[record] env`)",
            ),
        };
        let name = match (recorder, plugin) {
            (Recorder::Vcrpy, Some(plugin)) => plugin.name(),
            _ => recorder.name(),
        };
        recording.recorders.push(RecorderMode {
            recorder: name,
            cassettes,
            example,
            how,
        });
    }
    recording
}

/// nock back's mode variable, read when nock loads.
const NOCK_BACK_MODE: &str = "NOCK_BACK_MODE";

/// The options pytest adds to its command line, wherever it is started from (`tox`, `make`).
const PYTEST_ADDOPTS: &str = "PYTEST_ADDOPTS";

/// A recorder, told apart by its cassettes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Recorder {
    Vcrpy,
    RubyVcr,
    GoVcr,
    Polly,
    Playwright,
    Httprr,
    Nock,
    Talkback,
}

impl Recorder {
    fn name(self) -> &'static str {
        match self {
            Recorder::Vcrpy => "vcrpy",
            Recorder::RubyVcr => "Ruby VCR",
            Recorder::GoVcr => "go-vcr",
            Recorder::Polly => "Polly",
            Recorder::Playwright => "Playwright",
            Recorder::Httprr => "httprr",
            Recorder::Nock => "nock",
            Recorder::Talkback => "talkback",
        }
    }
}

/// The recorder that wrote the cassette at `path`; `None` when it is no HTTP cassette vcr
/// reads, or a HAR file no test recorder wrote (a browser's export).
fn recorder_of(path: &Path) -> Option<Recorder> {
    let bytes = std::fs::read(path).ok()?;
    let format = http::format_of(path, &bytes).ok()??;
    Some(match format {
        Format::Vcrpy => Recorder::Vcrpy,
        Format::RubyVcr => Recorder::RubyVcr,
        Format::GoVcr => Recorder::GoVcr,
        Format::Httprr => Recorder::Httprr,
        Format::Nock => Recorder::Nock,
        Format::Talkback => Recorder::Talkback,
        Format::Har => {
            // The HAR's `creator.name`, near its start.
            let text = http::decompressed(&bytes);
            let head = String::from_utf8_lossy(&text[..text.len().min(4096)]).into_owned();
            if head.contains("Polly.JS") {
                Recorder::Polly
            } else if head.contains("Playwright") {
                Recorder::Playwright
            } else {
                return None;
            }
        }
    })
}

/// Whether `argv` runs pytest itself (`pytest`, `py.test`, `python -m pytest`, behind a
/// runner such as `uv run` or `poetry run`), so an option added at its end reaches pytest.
fn runs_pytest(argv: &[String]) -> bool {
    argv.iter().enumerate().any(|(i, word)| {
        let name = Path::new(word)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        matches!(name, "pytest" | "py.test") || (word == "pytest" && i > 0 && argv[i - 1] == "-m")
    })
}

/// The files that declare a Python project's dependencies and pytest plugins.
const DECLARATIONS: &[&str] = &[
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "pytest.ini",
    "Pipfile",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "requirements.txt",
    "requirements-dev.txt",
    "requirements-test.txt",
    "dev-requirements.txt",
    "test-requirements.txt",
    "conftest.py",
];

/// The folders whose declarations count for a command run in `dir`: its test folders, then
/// `dir` and each folder above it up to the project root `root`, nearest first.
fn declaring_folders(root: &Path, dir: &Path) -> Vec<std::path::PathBuf> {
    let mut folders = vec![dir.join("tests"), dir.join("test")];
    folders.extend(
        dir.ancestors()
            .take_while(|d| d.starts_with(root))
            .map(Path::to_path_buf),
    );
    if !dir.starts_with(root) {
        folders.push(root.to_path_buf());
    }
    folders
}

/// Whether a `package.json` of `dir` or above it (up to `root`) depends on nock.
fn declares_nock(root: &Path, dir: &Path) -> bool {
    declaring_folders(root, dir).iter().any(|folder| {
        std::fs::read_to_string(folder.join("package.json"))
            .is_ok_and(|text| text.contains("\"nock\""))
    })
}

/// The pytest plugin the project in `dir` (up to `root`) declares, or names in a
/// `conftest.py` of `dir` or its `tests` folder; `None` when it names neither.
fn pytest_plugin(root: &Path, dir: &Path) -> Option<Plugin> {
    for folder in declaring_folders(root, dir) {
        for name in DECLARATIONS {
            let Ok(text) = std::fs::read_to_string(folder.join(name)) else {
                continue;
            };
            // The distribution's name, or its module's.
            for plugin in [Plugin::PytestRecording, Plugin::PytestVcr] {
                let dist = plugin.name();
                let module = dist.replace('-', "_");
                if text.contains(dist) || text.contains(&module) {
                    return Some(plugin);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn pytest_is_recognised_behind_runners_only_as_the_program() {
        for line in [
            "pytest",
            "pytest tests -k llm",
            "py.test",
            "python -m pytest -x",
            "uv run pytest",
            "poetry run pytest tests",
            ".venv/bin/pytest",
        ] {
            assert!(runs_pytest(&words(line)), "{line}");
        }
        for line in [
            "tox -e py312",
            "make test",
            "python run_pytest.py",
            "npm test",
        ] {
            assert!(!runs_pytest(&words(line)), "{line}");
        }
    }

    #[test]
    fn the_plugin_is_read_from_the_nearest_declaration() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let suite = root.join("services/api");
        std::fs::create_dir_all(suite.join("tests")).unwrap();
        assert_eq!(pytest_plugin(root, &suite), None);
        std::fs::write(
            root.join("pyproject.toml"),
            "[dependency-groups]\ntest = [\"pytest-vcr>=1\"]\n",
        )
        .unwrap();
        assert_eq!(pytest_plugin(root, &suite), Some(Plugin::PytestVcr));
        // The suite's own conftest.py is nearer than the root's declaration.
        std::fs::write(
            suite.join("tests/conftest.py"),
            "pytest_plugins = [\"pytest_recording\"]\n",
        )
        .unwrap();
        assert_eq!(pytest_plugin(root, &suite), Some(Plugin::PytestRecording));
    }
}
