//! Shared helpers for the command-line tests: real temporary trees, the real binary.
#![allow(dead_code, unreachable_pub)]

pub mod llm;
pub mod loaders;
pub mod measure;
pub mod recorders;
pub mod rerecord;
pub mod scenario;
pub mod server;
pub mod skip;
pub mod strict_loaders;

pub use skip::skip;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde::Deserialize;

/// A temporary project tree.
pub struct TestDir {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl TestDir {
    pub fn new() -> TestDir {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        TestDir { _dir: dir, root }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &TestDir {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
        self
    }

    /// A temporary tree holding a copy of `examples/<name>`.
    pub fn example(name: &str) -> TestDir {
        TestDir::copy_of(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples")
                .join(name),
        )
    }

    /// A temporary tree holding a copy of `src` (a folder of the repository, or any folder).
    pub fn copy_of(src: &Path) -> TestDir {
        let t = TestDir::new();
        let mut files = BTreeMap::new();
        collect(src, src, &mut files);
        for (rel, content) in files {
            t.write(&rel, content);
        }
        t
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// Every file under `rel` (recursively, `.vcr/` excluded) with its contents.
    pub fn files(&self, rel: &str) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        collect(&self.root, &self.path(rel), &mut out);
        out
    }

    /// Runs `vcr -C <root> args...` with a clean environment.
    pub fn vcr(&self, args: &[&str]) -> Run {
        self.vcr_with(args, &[])
    }

    pub fn vcr_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let output = self.command(args, env).output().unwrap();
        Run::from(output)
    }

    pub fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        self.command_in("", args, env)
    }

    /// Runs `vcr args...` with `env` and returns its exit code, its stdout and its peak
    /// resident memory in bytes ([`measure::peak`]: measured from a fresh process, since the
    /// tests share one).
    pub fn vcr_measured(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, u64) {
        measure::peak(&self.root, args, env)
    }

    /// Runs `vcr -C <root>/<rel> args...`: as if started in a folder of the tree.
    pub fn vcr_in(&self, rel: &str, args: &[&str]) -> Run {
        Run::from(self.command_in(rel, args, &[]).output().unwrap())
    }

    /// The command `vcr -C <root>/<rel> args...` with a clean environment.
    pub fn command_in(&self, rel: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
        let dir = if rel.is_empty() {
            self.root.clone()
        } else {
            self.path(rel)
        };
        vcr_command(&dir, args, env)
    }
}

/// The command `vcr -C <dir> args...` with a clean environment: no `VCR_*`,
/// `CLAUDE_CONFIG_DIR` or `NO_COLOR` from the caller, and `HOME=/home/tester`.
pub fn vcr_command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vcr"));
    cmd.arg("-C").arg(dir).args(args);
    clean_env(&mut cmd, env);
    cmd
}

/// Runs `vcr args...` started in `dir`, with no `-C`, as the pre-commit framework and git
/// hooks run it from the repository's root: the clean environment of [`vcr_command`], and
/// no `GIT_*` variables of the caller's ([`isolate_git`]).
pub fn vcr_at(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vcr"));
    cmd.current_dir(dir).args(args);
    clean_env(&mut cmd, &[]);
    isolate_git(&mut cmd);
    Run::from(cmd.output().unwrap())
}

/// Removes the caller's `VCR_*`, `CLAUDE_CONFIG_DIR` and `NO_COLOR` from `cmd`, sets
/// `HOME=/home/tester`, then `env`.
fn clean_env(cmd: &mut Command, env: &[(&str, &str)]) {
    for (key, _) in std::env::vars() {
        if key.starts_with("VCR_") || key == "CLAUDE_CONFIG_DIR" || key == "NO_COLOR" {
            cmd.env_remove(key);
        }
    }
    cmd.env("HOME", "/home/tester");
    for (key, value) in env {
        cmd.env(key, value);
    }
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == ".vcr" {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            out.insert(rel, std::fs::read(&path).unwrap());
        }
    }
}

/// The result of running the binary.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Run {
    #[track_caller]
    pub fn code(&self, expected: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(expected),
            "exit code; stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Run {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Run {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}:\n{}",
            self.stderr
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

/// The paths of the findings with id `id` of a `--format json` document, in report order.
pub fn finding_paths<'d>(doc: &'d serde_json::Value, id: &str) -> Vec<&'d str> {
    doc["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .filter(|f| f["id"] == id)
        .map(|f| f["path"].as_str().expect("a finding has a path"))
        .collect()
}

/// `bytes` in base64 (standard alphabet, padded), in lines of 76 characters, as mail writers
/// and vcrpy's `!!binary` break it.
pub fn base64_lines(bytes: &[u8]) -> Vec<String> {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    encoded
        .as_bytes()
        .chunks(76)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

/// The fields `keys` of every finding of a `--format json` document, in report order, each
/// finding as its values joined by spaces (`"recorded/error warning 12"`).
pub fn finding_fields(doc: &serde_json::Value, keys: &[&str]) -> Vec<String> {
    doc["findings"]
        .as_array()
        .expect("findings is an array")
        .iter()
        .map(|f| {
            let values: Vec<String> = keys
                .iter()
                .map(|k| match &f[*k] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            values.join(" ")
        })
        .collect()
}

/// A recorded call from `tests/vectors/fixtures.jsonl`, generated by node with the seed's
/// own writer.
#[derive(Debug, Clone, Deserialize)]
pub struct SeedVector {
    pub machine: SeedMachine,
    #[serde(rename = "rawName")]
    pub raw_name: String,
    pub raw: String,
    #[serde(rename = "seedName")]
    pub seed_name: String,
    #[serde(rename = "seedText")]
    pub seed_text: String,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct SeedMachine {
    pub cwd: String,
    #[serde(rename = "configHome")]
    pub config_home: String,
    pub platform: String,
}

impl SeedMachine {
    /// A `vcr.toml` that makes vcr dehydrate as this machine did.
    pub fn config(&self) -> String {
        let platform = if self.platform == "win32" {
            "windows"
        } else {
            "unix"
        };
        format!(
            "[claude-code]\ncwd = {:?}\nconfig-home = {:?}\nplatform = {platform:?}\n",
            self.cwd, self.config_home
        )
    }
}

pub fn seed_vectors() -> Vec<SeedVector> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/fixtures.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The seed vectors of one machine (4 recorded calls each).
pub fn machine_vectors(platform: &str) -> Vec<SeedVector> {
    seed_vectors()
        .into_iter()
        .filter(|v| v.machine.platform == platform)
        .collect()
}

/// A message fixture for `inputs` (JSON texts of input elements) with a small output, in
/// the seed's canonical form, and the name the harness gives it.
pub fn fixture(inputs: &[&str], answer: &str) -> (String, String) {
    let answer = serde_json::to_string(answer).unwrap();
    let text = format!(
        r#"{{"input":[{}],"output":[{{"uuid":"UUID-0","requestId":"REQUEST_ID","timestamp":"2026-11-30T10:00:00.000Z","message":{{"id":"msg_01","type":"message","role":"assistant","content":[{{"type":"text","text":{answer},"citations":[]}}]}},"type":"assistant"}}]}}"#,
        inputs.join(",")
    );
    let parsed = vcr_json::parse(text.as_bytes()).unwrap();
    let name = vcr_cassette::claude_code::message_name(vcr_cassette::claude_code::input(&parsed));
    (
        name,
        String::from_utf8(vcr_json::to_pretty(&parsed)).unwrap(),
    )
}

/// A message fixture whose answer is Claude Code's API error message (`text`), written as
/// 2.1.88's `mapAssistantMessage` writes what `createAssistantAPIErrorMessage` makes: model
/// `<synthetic>`, empty usage, `isApiErrorMessage` dropped. Returns its name and contents.
pub fn api_error_fixture(inputs: &[&str], text: &str) -> (String, String) {
    let text = serde_json::to_string(text).unwrap();
    let doc = format!(
        r#"{{"input":[{}],"output":[{{"uuid":"UUID-0","requestId":"REQUEST_ID","timestamp":"2026-11-30T10:00:00.000Z","message":{{"id":"msg_01","container":null,"model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","stop_sequence":"","type":"message","usage":{{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"content":[{{"type":"text","text":{text},"citations":[]}}],"context_management":null}},"type":"assistant"}}]}}"#,
        inputs.join(",")
    );
    let parsed = vcr_json::parse(doc.as_bytes()).unwrap();
    let name = vcr_cassette::claude_code::message_name(vcr_cassette::claude_code::input(&parsed));
    (
        name,
        String::from_utf8(vcr_json::to_pretty(&parsed)).unwrap(),
    )
}

/// `git` in `dir`, isolated from the user's configuration and from any repository the tests
/// themselves run in (a hook sets `GIT_DIR` and `GIT_INDEX_FILE`); returns its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    isolate_git(&mut cmd);
    let out = cmd
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Tester",
            "-c",
            "user.email=tester@example.com",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Removes the caller's `GIT_*` variables and configuration from a git command.
pub fn isolate_git(cmd: &mut Command) {
    for (key, _) in std::env::vars() {
        if key.starts_with("GIT_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
}

/// A folder of the shared corpus of third-party cassettes (read in place, never copied into
/// the repository), or `None` after saying on stderr that the test is skipped: a user's
/// clone has no corpus. (Written to the stderr handle: the harness captures `eprintln!`.)
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")).join(sub);
    if path.is_dir() {
        return Some(path);
    }
    skip(&format!("the corpus at {} is absent", path.display()));
    None
}

/// Waits (up to 10 s) until `path` exists.
#[track_caller]
pub fn wait_for(path: &Path) {
    let start = std::time::Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Runs `vcr -C <root> args...` until it reaches its first change to the tree (the
/// `VCR_TEST_BARRIER` hook: every file of its plan has been read), calls `meanwhile` there,
/// then lets it finish.
pub fn with_change_at_barrier(t: &TestDir, args: &[&str], meanwhile: impl FnOnce()) -> Run {
    let barrier = tempfile::tempdir().unwrap();
    let mut child = t
        .command(
            args,
            &[("VCR_TEST_BARRIER", barrier.path().to_str().unwrap())],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let reached = barrier.path().join("reached");
    let start = std::time::Instant::now();
    while !reached.exists() {
        if let Ok(Some(_)) = child.try_wait() {
            let run = Run::from(child.wait_with_output().unwrap());
            panic!("vcr ended before its barrier: {run:?}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    meanwhile();
    std::fs::write(barrier.path().join("release"), "").unwrap();
    Run::from(child.wait_with_output().unwrap())
}

/// Replaces a file the way an editor saves it: a new file renamed over the old one.
pub fn save_as_editor(path: &Path, content: &[u8]) {
    let temp = path.with_extension("editor-swp");
    std::fs::write(&temp, content).unwrap();
    std::fs::rename(&temp, path).unwrap();
}
