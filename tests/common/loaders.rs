//! The recorders' own loaders and writers, as the oracles of tests that rewrite cassettes
//! (issue 10): a rewritten cassette must load, in the loader its recorder replays it with, to
//! exactly the data it held with only the rewritten values changed.
//!
//! - [`Loader::PyYaml`]: PyYAML with the libyaml `CLoader`, as vcrpy loads (the python of
//!   `target/recorders/venv`); `!!python/...` tags are kept as data, never run;
//! - [`Loader::Psych`]: Ruby's `YAML.unsafe_load`, as Ruby VCR loads;
//! - [`Loader::GoYaml`]: `gopkg.in/yaml.v2`'s `Unmarshal` into an `interface{}` (go-vcr 1.2),
//!   a small Go program built once per test run in GOPATH mode;
//! - [`Loader::Json`]: node's `JSON.parse` (Polly's HAR, nock).
//!
//! Each runs one process for a whole list of files ([`load_all`]), so a table of thousands of
//! documents costs one start-up. The data comes back as JSON, with what JSON lacks spelled
//! out the same way by every loader: bytes (`!!binary`, Ruby's binary strings, Go strings that
//! are not UTF-8) as `{"$binary": base64}` (so line wrapping of the base64 does not count),
//! dates and times `{"$timestamp": text}`, NaN and infinities `{"$float": text}`, Ruby symbols
//! `{"$symbol": name}`, `!!python/...` objects `{"$tag": tag, "value": ...}`, mappings with
//! keys that are not strings `{"$map": [[key, value], ...]}`.
//!
//! [`dump_all`] runs the writer that goes with each loader (PyYAML's `yaml.dump` with the
//! `CDumper`, as vcrpy; Psych's `to_yaml`; yaml.v2's `Marshal`; `JSON.stringify(data, null,
//! 2)`), so tests can make documents the way the recorders make them.
//!
//! A loader that is not installed makes these functions say so on stderr and return `None`;
//! with `VCR_REQUIRE_RECORDERS=1` they panic instead. The programs are in
//! `tests/recorders/loaders/`; `tests/recorders/install` installs what they need (PyYAML comes
//! with vcrpy; Ruby, Go with yaml.v2, and node with the recorders).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

use super::recorders::{self, REQUIRE};

/// A recorder's loader (and writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Loader {
    /// PyYAML (vcrpy, pytest-recording).
    PyYaml,
    /// Psych (Ruby VCR).
    Psych,
    /// `gopkg.in/yaml.v2` (go-vcr 1.2).
    GoYaml,
    /// `JSON.parse` (HAR, nock).
    Json,
}

impl Loader {
    /// Every loader.
    pub const ALL: [Loader; 4] = [Loader::PyYaml, Loader::Psych, Loader::GoYaml, Loader::Json];

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Loader::PyYaml => "PyYAML",
            Loader::Psych => "Psych",
            Loader::GoYaml => "yaml.v2",
            Loader::Json => "JSON.parse",
        }
    }

    /// Whether it can run here; when it cannot, says so on stderr (or panics when
    /// `VCR_REQUIRE_RECORDERS` is set).
    pub fn available(self) -> bool {
        static CHECKED: OnceLock<[Option<String>; 4]> = OnceLock::new();
        let missing = &CHECKED.get_or_init(|| Loader::ALL.map(Loader::missing))[self as usize];
        let Some(why) = missing else {
            return true;
        };
        if std::env::var_os(REQUIRE).is_some() {
            panic!("{} is required ({REQUIRE} is set): {why}", self.name());
        }
        super::skip(&format!("{} is not installed ({why})", self.name()));
        false
    }

    /// Why it cannot run here, if it cannot.
    fn missing(self) -> Option<String> {
        let install = "run tests/recorders/install";
        let runs = |mut cmd: Command| cmd.output().is_ok_and(|o| o.status.success());
        match self {
            Loader::PyYaml => {
                let mut cmd = Command::new(recorders::python());
                cmd.args(["-c", "import yaml"]);
                (!runs(cmd)).then(|| {
                    format!(
                        "{} cannot import yaml; {install}",
                        recorders::python().display()
                    )
                })
            }
            Loader::Psych => {
                let mut cmd = Command::new("ruby");
                cmd.args(["-e", "require 'yaml'; require 'json'"]);
                (!runs(cmd)).then(|| format!("ruby cannot be run; install ruby, or {install}"))
            }
            Loader::GoYaml => {
                (!runs(recorders::go(&["list", "gopkg.in/yaml.v2"]))).then(|| {
                    format!(
                        "go cannot be run, or finds no gopkg.in/yaml.v2; install golang-go and golang-gopkg-yaml.v2-dev, or {install}"
                    )
                })
            }
            Loader::Json => {
                let mut cmd = Command::new("node");
                cmd.arg("--version");
                (!runs(cmd)).then(|| format!("node cannot be run; install Node.js, or {install}"))
            }
        }
    }

    /// The command that runs its program with `verb` (`load` or `dump`).
    fn command(self, verb: &str) -> Command {
        let programs = recorders::programs().join("loaders");
        let mut cmd = match self {
            Loader::PyYaml => {
                let mut cmd = Command::new(recorders::python());
                cmd.arg(programs.join("pyyaml.py"));
                cmd
            }
            Loader::Psych => {
                let mut cmd = Command::new("ruby");
                cmd.arg(programs.join("psych.rb"));
                cmd
            }
            Loader::GoYaml => Command::new(go_program()),
            Loader::Json => {
                let mut cmd = Command::new("node");
                cmd.arg(programs.join("json.js"));
                cmd
            }
        };
        cmd.arg(verb).env("PYTHONDONTWRITEBYTECODE", "1");
        cmd
    }

    /// Runs its program with `verb`, `input` on stdin; its stdout. Panics when it fails.
    fn run(self, verb: &str, input: Vec<u8>) -> Vec<u8> {
        let mut child = self
            .command(verb)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.name()));
        let mut stdin = child.stdin.take().unwrap();
        // Written from a thread: the program may fill its stdout before it reads all of this.
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(
            out.status.success(),
            "{} {verb} failed: {}",
            self.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }
}

/// The yaml.v2 program, built once per test run into a temporary folder.
fn go_program() -> PathBuf {
    static BUILT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let binary = dir.path().join("yaml_v2");
            recorders::go_build(&recorders::programs().join("loaders/yaml_v2.go"), &binary);
            (dir, binary)
        })
        .1
        .clone()
}

/// What `loader` reads from `path`; `None` when the loader is not installed. Panics when it
/// cannot load the file, with its message.
pub fn load(loader: Loader, path: &Path) -> Option<Value> {
    let mut all = load_all(loader, &[path.to_path_buf()])?;
    match all.pop() {
        Some(Ok(value)) => Some(value),
        Some(Err(e)) => panic!("{} cannot load {}: {e}", loader.name(), path.display()),
        None => unreachable!("one result per file"),
    }
}

/// What `loader` reads from each of `paths` (its error message where it cannot), in one
/// process; `None` when the loader is not installed.
pub fn load_all(loader: Loader, paths: &[PathBuf]) -> Option<Vec<Result<Value, String>>> {
    if !loader.available() {
        return None;
    }
    let mut input = String::new();
    for path in paths {
        let path = path.to_str().expect("a UTF-8 path");
        assert!(!path.contains('\n'), "a path on one line");
        input.push_str(path);
        input.push('\n');
    }
    let out = loader.run("load", input.into_bytes());
    let results: Vec<Value> = serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("{} printed no JSON array: {e}", loader.name()));
    assert_eq!(
        results.len(),
        paths.len(),
        "{}: one result per file",
        loader.name()
    );
    Some(
        results
            .into_iter()
            .map(|mut r| match r.get_mut("ok").map(Value::take) {
                Some(ok) => Ok(ok),
                None => Err(match r.get("error") {
                    Some(Value::String(e)) => e.clone(),
                    _ => format!("unexpected result {r}"),
                }),
            })
            .collect(),
    )
}

/// Writes each `(path, data)` with the writer that goes with `loader` (bytes given as
/// `{"$binary": base64}`), in one process; `None` when it is not installed.
pub fn dump_all(loader: Loader, items: &[(PathBuf, Value)]) -> Option<()> {
    if !loader.available() {
        return None;
    }
    let input: Vec<Value> = items
        .iter()
        .map(|(path, data)| serde_json::json!({"path": path, "data": data}))
        .collect();
    loader.run("dump", serde_json::to_vec(&input).unwrap());
    Some(())
}
