//! Real recorders write the HTTP cassettes of the tests (issues 9, 21 and 39): vcrpy,
//! pytest-recording, pytest-vcr, Ruby VCR (webmock), go-vcr, Polly, nock, talkback, WireMock,
//! R's vcr (crul), mountebank, responses' recorder and HTTPretty, each run as a child process
//! by a small program in `tests/recorders/` against the test's own server
//! ([`super::server`]).
//!
//! [`record`] starts the server, runs the program in record mode and returns the project
//! folder holding the cassettes, in `cassettes/` (the pytest plugins: `tests/cassettes/`,
//! their default beside the test module; WireMock: `src/test/resources/`, which holds its
//! `mappings/` and `__files/`; R's vcr: `tests/fixtures/`); [`record_into`] records into a
//! folder of the test's choosing, as a project that keeps its cassettes elsewhere does.
//! [`replay`] runs the same program in replay mode with the server stopped, so a request the
//! cassette does not answer fails. Each program checks every answer it gets against what the
//! server sends, in both modes.
//!
//! A recorder that is not installed makes [`record`] say so on stderr and return `None`;
//! with `VCR_REQUIRE_RECORDERS=1` (CI) it panics instead. `tests/recorders/install`
//! installs them: the Python and node ones under `target/recorders/`, the Debian ones
//! (Ruby VCR, webmock, go-vcr, Java for WireMock, R's vcr and crul) with apt-get.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::scenario::Scenario;
use super::server::{Received, Server};
use super::{Run, TestDir};

/// The variable that turns a missing recorder into a failure.
pub const REQUIRE: &str = "VCR_REQUIRE_RECORDERS";

/// Where Debian's Go packages keep their sources (`golang-github-dnaeon-go-vcr-dev`).
const DEBIAN_GOPATH: &str = "/usr/share/gocode";

/// Where pytest-recording and pytest-vcr put cassettes unless told otherwise: `cassettes/`
/// beside the test module, which the tests put at `tests/test_scenario.py`.
pub const PYTEST_DEFAULT_FOLDER: &str = "tests/cassettes";

/// Where a Maven or Gradle project keeps WireMock's files: its root folder, holding
/// `mappings/` (the stubs) and `__files/` (the bodies kept apart).
pub const WIREMOCK_DEFAULT_FOLDER: &str = "src/test/resources";

/// Where R's vcr 1.x keeps cassettes in a package that `vcr::use_vcr()` set up.
pub const R_VCR_DEFAULT_FOLDER: &str = "tests/fixtures";

/// A recorder, as the tests drive it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorder {
    /// vcrpy's `vcr.use_cassette`, with `urllib.request`.
    Vcrpy,
    /// pytest-recording's `@pytest.mark.vcr`, in a pytest run, with `requests`.
    PytestRecording,
    /// pytest-vcr's `@pytest.mark.vcr`, the same test in a pytest run of its own venv
    /// (pytest-recording refuses to run beside it).
    PytestVcr,
    /// Ruby VCR hooked into webmock, with `Net::HTTP`.
    RubyVcr,
    /// go-vcr's `recorder` as an `http.RoundTripper`.
    GoVcr,
    /// Polly with the node-http adapter and the fs persister.
    Polly,
    /// `nock.back`.
    Nock,
    /// talkback, a recording proxy between the client (node's `http.request`) and the server.
    Talkback,
    /// WireMock standalone (Java) as a recording proxy: its record API, then its mappings
    /// served alone.
    WireMock,
    /// R's vcr (webmockr) with crul's `HttpClient`.
    RVcr,
    /// mountebank: a `proxyAlways` imposter, saved with `mb save --removeProxies`.
    Mountebank,
    /// responses' recorder (`responses._recorder`), with `requests`.
    Responses,
    /// HTTPretty's `record` and `playback`, with `urllib.request`.
    Httpretty,
}

/// Record or replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Record,
    Replay,
}

impl Mode {
    fn arg(self) -> &'static str {
        match self {
            Mode::Record => "record",
            Mode::Replay => "replay",
        }
    }
}

/// A scenario a recorder recorded: the project folder, and what the server received.
pub struct Recorded {
    pub recorder: Recorder,
    /// The project: the cassettes (under [`Recorded::folder`]) and, for pytest, the tests.
    pub dir: TestDir,
    /// The folder the cassettes were recorded into, relative to the project (`cassettes`,
    /// `spec/fixtures/vcr_cassettes`, ...).
    pub folder: String,
    /// What was recorded; [`replay`] sends its requests and checks the answers against it.
    pub scenario: Scenario,
    /// The server's URL, which the replay asks again.
    pub base_url: String,
    /// The requests the server received while recording, in order.
    pub received: Vec<Received>,
    /// The folder of the scenario file, outside the project.
    harness: TestDir,
}

impl Recorded {
    /// The cassette files the recorder wrote (paths relative to the project), sorted: every
    /// file under [`Recorded::folder`], whatever the recorder names them.
    pub fn cassettes(&self) -> Vec<String> {
        self.dir.files(&self.folder).into_keys().collect()
    }
}

impl Recorder {
    pub fn name(self) -> &'static str {
        match self {
            Recorder::Vcrpy => "vcrpy",
            Recorder::PytestRecording => "pytest-recording",
            Recorder::PytestVcr => "pytest-vcr",
            Recorder::RubyVcr => "Ruby VCR",
            Recorder::GoVcr => "go-vcr",
            Recorder::Polly => "Polly",
            Recorder::Nock => "nock",
            Recorder::Talkback => "talkback",
            Recorder::WireMock => "WireMock",
            Recorder::RVcr => "R vcr",
            Recorder::Mountebank => "mountebank",
            Recorder::Responses => "responses",
            Recorder::Httpretty => "HTTPretty",
        }
    }

    /// The folder [`record`] records into, relative to the project.
    fn usual_folder(self) -> &'static str {
        match self {
            _ if self.is_pytest() => PYTEST_DEFAULT_FOLDER,
            Recorder::WireMock => WIREMOCK_DEFAULT_FOLDER,
            Recorder::RVcr => R_VCR_DEFAULT_FOLDER,
            _ => "cassettes",
        }
    }

    /// Whether the recorder is a pytest plugin: a test module runs the scenario and the
    /// plugin names the cassette.
    fn is_pytest(self) -> bool {
        matches!(self, Recorder::PytestRecording | Recorder::PytestVcr)
    }

    /// Why the recorder cannot run here, with how to install it; `None` when it can.
    fn missing(self) -> Option<String> {
        let install = "run tests/recorders/install";
        match self {
            Recorder::Vcrpy | Recorder::PytestRecording => {
                let imports = Command::new(python())
                    .args(["-c", "import vcr, pytest_recording, requests"])
                    .output();
                (!succeeded(imports)).then(|| {
                    format!(
                        "{} cannot import vcr, pytest_recording and requests; {install}",
                        python().display()
                    )
                })
            }
            Recorder::PytestVcr => {
                let imports = Command::new(pytest_vcr_python())
                    .args(["-c", "import vcr, pytest_vcr, requests"])
                    .output();
                (!succeeded(imports)).then(|| {
                    format!(
                        "{} cannot import vcr, pytest_vcr and requests; {install}",
                        pytest_vcr_python().display()
                    )
                })
            }
            Recorder::RubyVcr => {
                let loads = Command::new("ruby")
                    .args(["-e", "require 'vcr'; require 'webmock'"])
                    .output();
                (!succeeded(loads)).then(|| {
                    format!(
                        "ruby cannot load vcr and webmock; install ruby-vcr and ruby-webmock, or {install}"
                    )
                })
            }
            Recorder::GoVcr => {
                let finds = go(&["list", "github.com/dnaeon/go-vcr/recorder"]).output();
                (!succeeded(finds)).then(|| {
                    format!(
                        "go cannot be run, or finds no github.com/dnaeon/go-vcr/recorder in {DEBIAN_GOPATH}; install golang-go and golang-github-dnaeon-go-vcr-dev, or {install}"
                    )
                })
            }
            Recorder::Responses | Recorder::Httpretty => {
                let module = match self {
                    Recorder::Responses => "responses._recorder",
                    _ => "httpretty",
                };
                let imports = Command::new(python())
                    .args(["-c", &format!("import {module}")])
                    .output();
                (!succeeded(imports))
                    .then(|| format!("{} cannot import {module}; {install}", python().display()))
            }
            Recorder::RVcr => {
                let loads = Command::new("Rscript")
                    .args(["-e", "library(vcr); library(crul); library(jsonlite)"])
                    .output();
                (!succeeded(loads)).then(|| {
                    format!(
                        "Rscript cannot load vcr, crul and jsonlite; install r-cran-vcr and r-cran-crul, or {install}"
                    )
                })
            }
            Recorder::WireMock if !succeeded(Command::new("java").arg("-version").output()) => {
                Some(format!(
                    "java cannot be run; install default-jre-headless, or {install}"
                ))
            }
            Recorder::Polly
            | Recorder::Nock
            | Recorder::Talkback
            | Recorder::WireMock
            | Recorder::Mountebank => {
                let package = match self {
                    Recorder::Polly => "@pollyjs/core",
                    Recorder::Nock => "nock",
                    Recorder::WireMock => "wiremock",
                    Recorder::Mountebank => "@mbtest/mountebank",
                    _ => "talkback",
                };
                let node = Command::new("node").arg("--version").output();
                let installed = node_modules().join(package).join("package.json").is_file();
                (!(succeeded(node) && installed)).then(|| {
                    format!(
                        "node cannot be run, or {package} is not in {}; {install}",
                        node_modules().display()
                    )
                })
            }
        }
    }

    /// The command that runs the recorder's program in `mode` over `scenario_file`, in the
    /// project `project`, with the cassettes in `folder` (relative to the project; the pytest
    /// plugins learn it from the project's `conftest.py`, see [`record_into`]).
    fn command(self, mode: Mode, project: &Path, folder: &str, scenario_file: &Path) -> Command {
        let programs = programs();
        let cassettes = project.join(folder);
        let mut cmd = match self {
            Recorder::Vcrpy => {
                let mut cmd = Command::new(python());
                cmd.arg(programs.join("python/vcrpy_scenario.py"));
                cmd
            }
            Recorder::PytestRecording => {
                let record_mode = match mode {
                    Mode::Record => "once",
                    Mode::Replay => "none",
                };
                let mut cmd = Command::new(python());
                cmd.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
                    .arg(format!("--record-mode={record_mode}"))
                    .arg("tests/test_scenario.py")
                    .env("RECORDER_SCENARIO", scenario_file);
                cmd
            }
            Recorder::PytestVcr => {
                let record_mode = match mode {
                    Mode::Record => "once",
                    Mode::Replay => "none",
                };
                let mut cmd = Command::new(pytest_vcr_python());
                cmd.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
                    .arg(format!("--vcr-record={record_mode}"))
                    .arg("tests/test_scenario.py")
                    .env("RECORDER_SCENARIO", scenario_file);
                cmd
            }
            Recorder::RubyVcr => {
                let mut cmd = Command::new("ruby");
                cmd.arg(programs.join("ruby/ruby_vcr.rb"));
                cmd
            }
            Recorder::GoVcr => Command::new(go_program()),
            Recorder::Responses | Recorder::Httpretty => {
                let script = match self {
                    Recorder::Responses => "python/responses_scenario.py",
                    _ => "python/httpretty_scenario.py",
                };
                let mut cmd = Command::new(python());
                cmd.arg(programs.join(script));
                cmd
            }
            Recorder::RVcr => {
                let mut cmd = Command::new("Rscript");
                cmd.arg(programs.join("r/r_vcr.R"));
                cmd
            }
            Recorder::Polly
            | Recorder::Nock
            | Recorder::Talkback
            | Recorder::WireMock
            | Recorder::Mountebank => {
                let script = match self {
                    Recorder::Polly => "node/polly.js",
                    Recorder::Nock => "node/nock_back.js",
                    Recorder::WireMock => "node/wiremock.js",
                    Recorder::Mountebank => "node/mountebank.js",
                    _ => "node/talkback.js",
                };
                let mut cmd = Command::new("node");
                cmd.arg(programs.join(script))
                    .env("NODE_PATH", node_modules());
                cmd
            }
        };
        if !self.is_pytest() {
            cmd.arg(mode.arg()).arg(scenario_file).arg(&cassettes);
        }
        cmd.current_dir(project).env("PYTHONDONTWRITEBYTECODE", "1");
        // The server is on 127.0.0.1: no proxy may stand between.
        for key in ["http_proxy", "https_proxy", "all_proxy"] {
            cmd.env_remove(key).env_remove(key.to_ascii_uppercase());
        }
        cmd
    }
}

/// Records `scenario` with `recorder` against a fresh server into `cassettes/` (the pytest
/// plugins: their default, `tests/cassettes/`; WireMock: `src/test/resources/`; R's vcr:
/// `tests/fixtures/`); see [`record_into`].
pub fn record(recorder: Recorder, scenario: Scenario) -> Option<Recorded> {
    record_into(recorder, scenario, recorder.usual_folder())
}

/// Records `scenario` with `recorder` against a fresh server, into `folder` (relative to the
/// project); `None` (after saying so on stderr) when the recorder is not installed. Panics
/// when the program fails, or when the server did not receive each request of the scenario
/// once, as the scenario sends it.
///
/// The programs take the folder as an argument. The pytest plugins put cassettes beside the
/// test module (`tests/cassettes/`, [`PYTEST_DEFAULT_FOLDER`]); for any other folder the
/// project gets the `conftest.py` their documentation shows, which overrides the
/// `vcr_cassette_dir` fixture.
pub fn record_into(recorder: Recorder, scenario: Scenario, folder: &str) -> Option<Recorded> {
    if !available(recorder) {
        return None;
    }
    let dir = TestDir::new();
    if recorder.is_pytest() {
        for file in ["scenario.py", "test_scenario.py"] {
            let source = programs().join("python").join(file);
            dir.write(&format!("tests/{file}"), std::fs::read(source).unwrap());
        }
        if folder != PYTEST_DEFAULT_FOLDER {
            dir.write("tests/conftest.py", cassette_dir_conftest(folder));
        }
    }
    let harness = TestDir::new();
    let server = Server::start_with(scenario.answers());
    let base_url = server.base_url();
    harness.write("scenario.json", scenario.to_json(&base_url));
    let run = run_for_at_most(
        recorder.command(
            Mode::Record,
            &dir.root,
            folder,
            &harness.path("scenario.json"),
        ),
        recorder,
    );
    let received = server.stop();
    assert_eq!(
        run.code,
        Some(0),
        "{} failed to record:\nstdout:\n{}\nstderr:\n{}",
        recorder.name(),
        run.stdout,
        run.stderr
    );
    let asked: Vec<_> = received.iter().map(|r| (&*r.method, &*r.target)).collect();
    let scenario_requests: Vec<_> = scenario
        .exchanges
        .iter()
        .map(|e| (e.method, &*e.target))
        .collect();
    assert_eq!(
        asked,
        scenario_requests,
        "{} did not send each request once",
        recorder.name()
    );
    for (got, sent) in received.iter().zip(&scenario.exchanges) {
        for (name, value) in &sent.headers {
            assert_eq!(
                got.header(name),
                Some(value.as_str()),
                "{} sent the `{}` request with another {name}",
                recorder.name(),
                sent.name
            );
        }
        let body = sent.body.as_deref().unwrap_or("").as_bytes();
        assert_eq!(got.body, body, "{}: `{}` body", recorder.name(), sent.name);
    }
    Some(Recorded {
        recorder,
        dir,
        folder: folder.to_owned(),
        scenario,
        base_url,
        received,
        harness,
    })
}

/// What `recorder` would have recorded of `scenario`, written by the test itself into
/// `folder` of `dir` (a hand-written WireMock stub, say): [`replay`] then asks the scenario's
/// requests of what the files hold. `None` (after saying so on stderr) when the recorder is
/// not installed.
pub fn written(
    recorder: Recorder,
    scenario: Scenario,
    dir: TestDir,
    folder: &str,
) -> Option<Recorded> {
    if !available(recorder) {
        return None;
    }
    Some(Recorded {
        recorder,
        dir,
        folder: folder.to_owned(),
        scenario,
        // No server runs: a request the files do not answer must fail, not reach one.
        base_url: "http://127.0.0.1:9".to_owned(),
        received: Vec::new(),
        harness: TestDir::new(),
    })
}

/// Whether `recorder` can run here. When it cannot, says so on stderr (the test is then
/// skipped visibly) and returns `false`; with `VCR_REQUIRE_RECORDERS=1` it panics instead.
pub fn available(recorder: Recorder) -> bool {
    let Some(why) = recorder.missing() else {
        return true;
    };
    if std::env::var_os(REQUIRE).is_some() {
        panic!("{} is required ({REQUIRE} is set): {why}", recorder.name());
    }
    super::skip(&format!("{} is not installed ({why})", recorder.name()));
    false
}

/// A `conftest.py` for `tests/` that moves the pytest plugins' cassettes to `folder` at the
/// project root: the `vcr_cassette_dir` override that pytest-recording and pytest-vcr
/// document.
fn cassette_dir_conftest(folder: &str) -> String {
    // A JSON string is a Python string literal too.
    let folder = serde_json::to_string(folder).unwrap();
    format!(
        r#"import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def vcr_cassette_dir():
    """The cassettes are kept in {folder} at the project root."""
    return os.path.join(ROOT, {folder})
"#
    )
}

/// Replays what `recorded` holds with its recorder, the server stopped: the program asks
/// the requests of `recorded.scenario` again and checks the answers the cassettes give
/// against it (a test that rewrites an answer in the cassettes changes it there too).
pub fn replay(recorded: &Recorded) -> Run {
    let file = recorded.harness.path("scenario.json");
    std::fs::write(&file, recorded.scenario.to_json(&recorded.base_url)).unwrap();
    run_for_at_most(
        recorded
            .recorder
            .command(Mode::Replay, &recorded.dir.root, &recorded.folder, &file),
        recorded.recorder,
    )
}

/// Replays like [`replay`], with `filters` added to the scenario file: what the test sets
/// in its recorder so that requests match a scrubbed cassette (issue 10). `query` pairs
/// (name, placeholder) become vcrpy's `filter_query_parameters` and go-vcr's matcher;
/// `sensitive` pairs (placeholder, real value) become Ruby VCR's `filter_sensitive_data`.
pub fn replay_with(recorded: &Recorded, filters: serde_json::Value) -> Run {
    let file = recorded.harness.path("scenario.json");
    let mut scenario: serde_json::Value =
        serde_json::from_str(&recorded.scenario.to_json(&recorded.base_url)).unwrap();
    scenario["filters"] = filters;
    std::fs::write(&file, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    run_for_at_most(
        recorded
            .recorder
            .command(Mode::Replay, &recorded.dir.root, &recorded.folder, &file),
        recorded.recorder,
    )
}

/// vcrpy replays the cassette at `path` as it stands (`python/vcrpy_replay_file.py`): every
/// request it holds is sent again inside `use_cassette(record_mode="none")`, and each answer
/// must be the body it recorded. For cassettes a test writes by hand, which no scenario
/// describes (issue 43: a scrubbed cassette counts when its recorder replays it). `None`,
/// said on stderr, when vcrpy is not installed.
pub fn vcrpy_replays_file(path: &Path) -> Option<Run> {
    if !available(Recorder::Vcrpy) {
        return None;
    }
    let mut cmd = Command::new(python());
    cmd.arg(programs().join("python/vcrpy_replay_file.py"))
        .arg(path);
    Some(run_for_at_most(cmd, Recorder::Vcrpy))
}

/// Runs a recorder program; kills it and panics after two minutes (a recorder waiting on a
/// socket that never answers must not hang the suite).
fn run_for_at_most(mut cmd: Command, recorder: Recorder) -> Run {
    let limit = Duration::from_secs(120);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", recorder.name()));
    // Both pipes are drained while the program runs, so a chatty one never blocks.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        code: status.and_then(|s| s.code()),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    assert!(
        status.is_some(),
        "{} ran for over {limit:?}: {run:?}",
        recorder.name()
    );
    run
}

/// Whether a command ran and exited 0.
fn succeeded(output: std::io::Result<std::process::Output>) -> bool {
    output.is_ok_and(|o| o.status.success())
}

/// `tests/recorders/`: the recorder programs.
pub fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recorders")
}

/// `target/recorders/`: what `tests/recorders/install` installs (cleared by `cargo clean`).
pub fn installed() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("recorders")
}

/// The Python of the installed recorders (vcrpy, pytest-recording, requests).
pub fn python() -> PathBuf {
    installed().join("venv/bin/python")
}

/// The Python of pytest-vcr (with vcrpy and requests), a venv of its own: pytest-recording
/// refuses to run where pytest-vcr is installed.
pub fn pytest_vcr_python() -> PathBuf {
    installed().join("venv-pytest-vcr/bin/python")
}

pub fn node_modules() -> PathBuf {
    installed().join("node/node_modules")
}

/// `go` in GOPATH mode over Debian's Go sources, its build cache under `target/`.
pub fn go(args: &[&str]) -> Command {
    let mut cmd = Command::new("go");
    cmd.args(args)
        .env("GO111MODULE", "off")
        .env("GOPATH", DEBIAN_GOPATH)
        .env("GOCACHE", installed().join("go-build"))
        .env("GOFLAGS", "");
    cmd
}

/// The go-vcr program, built once per test run.
fn go_program() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let binary = installed().join("bin/go-vcr-scenario");
            go_build(&programs().join("go/go_vcr.go"), &binary);
            binary
        })
        .clone()
}

/// Builds the Go program `source` into `binary` (GOPATH mode, see [`go`]); panics with
/// the compiler's output when it fails.
pub fn go_build(source: &Path, binary: &Path) {
    let out = go(&["build", "-o"])
        .arg(binary)
        .arg(source)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "go build {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
