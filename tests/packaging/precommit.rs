//! The shipped `.pre-commit-hooks.yaml`, used as a user uses it: `pre-commit` from PyPI in a
//! fresh virtual environment, this repository as the hook repository (a git snapshot of the
//! working tree, so uncommitted edits are what is tested), and a project repository whose
//! `git commit` runs the hook. A commit that leaks a home directory into a cassette is
//! refused and names the finding; the fixed commit goes through.
//!
//! The hook builds vcr on its first run with `cargo install --locked --path` of the snapshot
//! (`dist/pre-commit-hook`), exactly as for a user, with three differences that change nothing it checks but keep the test fast:
//! the cargo target folder lives in Cargo's `target/tmp` (dependencies compile once, then are
//! reused), the release profile is built without optimization or LTO, and cargo stays
//! offline (the crates are already in the local registry cache, since this test was just
//! built).
//!
//! When `pre-commit` cannot be installed (no Python, no `venv`, no network to PyPI) the test
//! says so on stderr and passes, unless `VCR_REQUIRE_PRE_COMMIT=1` (CI sets it).

use crate::skip;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

const REQUIRE: &str = "VCR_REQUIRE_PRE_COMMIT";

#[test]
fn the_hook_refuses_a_commit_with_a_leaked_cassette_and_accepts_the_fixed_one() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tmp = std::fs::canonicalize(dir.path()).unwrap();
    let env = Env::new(&tmp);

    let Some(pre_commit) = pre_commit_or_skip(&tmp) else {
        return;
    };
    let version = run(env.command(&pre_commit).arg("--version"), &tmp);
    eprintln!(
        "{} installed in {:.1?}",
        version.all.trim(),
        started.elapsed()
    );

    // The hook repository: this repository as it would be committed now.
    let hooks = tmp.join("hooks");
    let rev = snapshot_of_this_repository(&env, &hooks);
    assert!(
        hooks.join(".pre-commit-hooks.yaml").is_file(),
        "the repository has no .pre-commit-hooks.yaml"
    );

    // The user's project: the clean example tree and some files that are not cassettes.
    let project = tmp.join("project");
    std::fs::create_dir_all(&project).unwrap();
    git(&env, &project, &["init", "-q"]);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code/fixtures");
    let mut fixtures = Vec::new();
    for entry in std::fs::read_dir(&examples).unwrap() {
        let from = entry.unwrap().path();
        let name = from.file_name().unwrap().to_str().unwrap().to_owned();
        write(
            &project,
            &format!("fixtures/{name}"),
            &std::fs::read(&from).unwrap(),
        );
        fixtures.push(name);
    }
    fixtures.sort();
    write(
        &project,
        "README.md",
        b"# A project with recorded LLM calls\n",
    );
    write(&project, "package.json", b"{\n  \"name\": \"app\"\n}\n");
    write(&project, "config/settings.yaml", b"retries: 3\n");
    let config = format!(
        "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: vcr-verify\n",
        serde_json::to_string(hooks.to_str().unwrap()).unwrap()
    );
    write(&project, ".pre-commit-config.yaml", config.as_bytes());

    install_hooks(&env, &pre_commit, &project);

    // A clean commit, with files that are not cassettes among those the hook is given. Its
    // first run builds vcr, with the lockfile.
    git(&env, &project, &["add", "-A"]);
    let build = Instant::now();
    let clean = commit(&env, &project, "Record the cassettes");
    eprintln!(
        "the first commit (the hook's cargo install --locked of vcr) took {:.1?}",
        build.elapsed()
    );
    assert!(clean.ok, "the clean commit was refused:\n{}", clean.all);
    assert_passed(&clean);
    assert_eq!(commits(&env, &project), 1);
    let binary = hook_binary(&env.pre_commit_home);
    assert!(
        binary.is_some(),
        "no vcr binary in a .pre-commit-build of {}: did the hook build vcr?",
        env.pre_commit_home.display()
    );

    // A home directory leaks into a recorded answer (payload: the name stays right).
    let (leaky, original) = fixtures
        .iter()
        .find_map(|name| {
            let rel = format!("fixtures/{name}");
            let text = std::fs::read_to_string(project.join(&rel)).unwrap();
            let output = text.find("\"output\":")?;
            let at = output + text[output..].find(TEXT)? + TEXT.len();
            Some(((rel, at), text))
        })
        .expect("an example fixture with a text block in its output");
    let (rel, at) = leaky;
    let home = format!("/{}/alice/shop/src/cart.ts ", "home");
    let leaked = format!("{}{home}{}", &original[..at], &original[at..]);
    write(&project, &rel, leaked.as_bytes());
    git(&env, &project, &["add", "-A"]);
    let refused = commit(&env, &project, "Re-record the cart test");
    assert!(
        !refused.ok,
        "the commit with a leaked home directory went through:\n{}",
        refused.all
    );
    for needle in [
        "vcr verify",
        "Failed",
        "- hook id: vcr-verify",
        "- exit code: 1",
        rel.as_str(),
        "leak/path",
    ] {
        assert!(
            refused.all.contains(needle),
            "the refused commit's output lacks {needle:?}:\n{}",
            refused.all
        );
    }
    assert_eq!(commits(&env, &project), 1, "the refused commit was made");

    // Dehydrated, as `vcr normalize` with a rule would write it: the commit goes through.
    let fixed = format!("{}[CWD]/src/cart.ts {}", &original[..at], &original[at..]);
    write(&project, &rel, fixed.as_bytes());
    git(&env, &project, &["add", "-A"]);
    let accepted = commit(&env, &project, "Re-record the cart test");
    assert!(
        accepted.ok,
        "the fixed commit was refused:\n{}",
        accepted.all
    );
    assert_passed(&accepted);
    assert_eq!(commits(&env, &project), 2);

    eprintln!("pre-commit test took {:.1?} in all", started.elapsed());
}

/// Issue 11: the README's `.pre-commit-config.yaml` (a `local` hook running the installed
/// `vcr`, nothing to fill in) works as pasted: the clean commit passes, a leaked home folder
/// is refused.
#[test]
fn the_readme_local_hook_runs_the_installed_vcr() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = std::fs::canonicalize(dir.path()).unwrap();
    let env = Env::new(&tmp);
    let Some(pre_commit) = pre_commit_or_skip(&tmp) else {
        return;
    };
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let config = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .find(|block| block.contains("repo: local"))
        .expect("the README's local pre-commit configuration");

    let project = tmp.join("project");
    std::fs::create_dir_all(&project).unwrap();
    git(&env, &project, &["init", "-q"]);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code/fixtures");
    let mut leaky = None;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let from = entry.unwrap().path();
        let rel = format!("fixtures/{}", from.file_name().unwrap().to_str().unwrap());
        let text = std::fs::read_to_string(&from).unwrap();
        if leaky.is_none() && text.contains(TEXT) {
            leaky = Some((rel.clone(), text.clone()));
        }
        write(&project, &rel, text.as_bytes());
    }
    write(&project, ".pre-commit-config.yaml", config.as_bytes());
    // The hook runs the `vcr` on PATH: this build's.
    let bin = Path::new(env!("CARGO_BIN_EXE_vcr")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    install_hooks(&env, &pre_commit, &project);
    let commit = |message: &str| {
        run(
            env.command("git")
                .env("PATH", &path)
                .arg("-C")
                .arg(&project)
                .args(["commit", "-m", message]),
            &project,
        )
    };

    git(&env, &project, &["add", "-A"]);
    let clean = commit("Record the cassettes");
    assert!(clean.ok, "the clean commit was refused:\n{}", clean.all);
    assert_passed(&clean);

    let (rel, text) = leaky.expect("an example fixture with a text block");
    let home = format!("/{}/alice/shop/src/cart.ts ", "home");
    write(
        &project,
        &rel,
        text.replacen(TEXT, &format!("{TEXT}{home}"), 1).as_bytes(),
    );
    git(&env, &project, &["add", "-A"]);
    let refused = commit("Re-record the cart test");
    assert!(!refused.ok, "the leak went through:\n{}", refused.all);
    assert!(refused.all.contains("leak/path"), "{}", refused.all);
    assert_eq!(commits(&env, &project), 1);

    // Issue 21: a go-vcr cassette where go-vcr's users keep them, with no `vcr.toml` saying
    // so, staged alone: the hook reads it by content and refuses its key; scrubbed by
    // `vcr normalize`, it goes through.
    write(&project, &rel, text.as_bytes());
    let cassette = "test/integration/fixtures/login.yaml";
    write(
        &project,
        cassette,
        b"---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    proto: HTTP/1.1\n    content_length: 0\n    body: \"\"\n    form: {}\n    headers:\n      Authorization:\n      - Bearer sk-proj-Q7vLm2XkP9rTz4NwB8sYd3HfJ6gVc1RbE5uK0pA\n    url: https://api.example.com/v1/models\n    method: GET\n  response:\n    proto: HTTP/1.1\n    content_length: 2\n    body: '{}'\n    headers: {}\n    status: 200 OK\n    code: 200\n    duration: 1ms\n",
    );
    git(&env, &project, &["add", "-A"]);
    let refused = commit("Record the login test");
    assert!(!refused.ok, "the go-vcr key went through:\n{}", refused.all);
    for needle in [cassette, "leak/secret"] {
        assert!(refused.all.contains(needle), "{needle}:\n{}", refused.all);
    }
    let normalized = run(
        env.command(env!("CARGO_BIN_EXE_vcr"))
            .arg("-C")
            .arg(&project)
            .args(["normalize", cassette]),
        &project,
    );
    assert!(normalized.ok, "{}", normalized.all);
    git(&env, &project, &["add", "-A"]);
    let accepted = commit("Record the login test");
    assert!(
        accepted.ok,
        "the scrubbed cassette was refused:\n{}",
        accepted.all
    );
    assert_eq!(commits(&env, &project), 2);
}

/// Issue 24: the wheel that `maturin build` makes of this repository installs into a fresh
/// virtual environment with no Rust toolchain on `PATH` and runs; the pre-commit mirror's
/// `language: python` hook installs it (from a local folder standing for PyPI) and refuses a
/// staged cassette with a planted key.
#[test]
fn the_wheel_installs_without_rust_and_its_python_hook_refuses_a_leaked_key() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = std::fs::canonicalize(dir.path()).unwrap();
    let env = Env::new(&tmp);
    let Some(tools) = tools_or_skip(&tmp, &["pre-commit", "maturin>=1.5,<2"]) else {
        return;
    };
    let this = Path::new(env!("CARGO_MANIFEST_DIR"));
    let version = env!("CARGO_PKG_VERSION");

    // maturin runs `cargo metadata`, offline here, which reads every package of the
    // lockfile, other platforms' too; building on this machine fetched only its own (a fresh
    // machine failed on `anstyle-wincon`), so the rest are fetched first.
    let fetched = run(
        Command::new(env!("CARGO"))
            .args(["fetch", "--locked"])
            .current_dir(this),
        this,
    );
    if !fetched.ok {
        let why = format!("`cargo fetch --locked` failed:\n{}", fetched.all);
        assert!(
            std::env::var(REQUIRE).as_deref() != Ok("1"),
            "{REQUIRE}=1 and {why}"
        );
        skip::skip(&why);
        return;
    }

    // The repository's command (see pyproject.toml), into a folder of our own.
    let dist = tmp.join("dist");
    let started = Instant::now();
    let built = run(
        env.command(tools.join("maturin"))
            .args(["build", "--release", "--quiet", "-o"])
            .arg(&dist)
            .current_dir(this),
        this,
    );
    assert!(built.ok, "maturin build failed:\n{}", built.all);
    eprintln!("maturin built the wheel in {:.1?}", started.elapsed());
    let wheels: Vec<PathBuf> = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    let wheel = &wheels[0];
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!("vcr_cassettes-{version}-py3-none-")),
        "{name}"
    );

    // A fresh environment whose PATH holds no cargo and no rustc.
    let no_rust = std::env::join_paths(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .filter(|dir| !dir.join("cargo").exists() && !dir.join("rustc").exists()),
    )
    .unwrap();
    let fresh = tmp.join("fresh");
    let made = run(
        env.command("python3").args(["-m", "venv"]).arg(&fresh),
        &tmp,
    );
    assert!(made.ok, "{}", made.all);
    let bin = venv_bin(&fresh);
    let path =
        std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(&no_rust)))
            .unwrap();
    let started = Instant::now();
    let installed = run(
        env.command(bin.join("python"))
            .env("PATH", &path)
            .args(["-m", "pip", "install", "--quiet", "--no-index"])
            .arg(wheel),
        &tmp,
    );
    assert!(
        installed.ok,
        "pip install of the wheel failed:\n{}",
        installed.all
    );
    eprintln!("pip installed the wheel in {:.1?}", started.elapsed());
    let vcr = |args: &[&str], dir: &Path| {
        let mut cmd = env.command("vcr");
        cmd.env("PATH", &path).args(args).current_dir(dir);
        run(&mut cmd, dir)
    };
    let shown = vcr(&["--version"], &tmp);
    assert!(
        shown.ok && shown.all.trim() == format!("vcr {version}"),
        "{}",
        shown.all
    );
    // The GitHub Action's install step (issue 42) with `install: wheel`: the wheel into a
    // virtual environment of the runner's temporary folder, that folder's `bin` handed to
    // the later steps through GITHUB_PATH.
    let runner = tmp.join("runner");
    std::fs::create_dir_all(&runner).unwrap();
    let github_path = tmp.join("github_path");
    std::fs::write(&github_path, "").unwrap();
    let step = run(
        env.command(this.join("dist/action/vcr-action"))
            .arg("install")
            .env("PATH", &no_rust)
            .env("VCR_INSTALL", "wheel")
            .env("VCR_SOURCE", wheel)
            .env("RUNNER_TEMP", &runner)
            .env("GITHUB_PATH", &github_path),
        &tmp,
    );
    assert!(step.ok, "the action's install step failed:\n{}", step.all);
    assert!(step.all.contains(&format!("vcr {version}")), "{}", step.all);
    let added = std::fs::read_to_string(&github_path).unwrap();
    let added = Path::new(added.trim());
    assert!(added.starts_with(&runner), "{}", added.display());
    let from_step = run(Command::new(added.join("vcr")).arg("--version"), &tmp);
    assert!(
        from_step.ok && from_step.all.trim() == format!("vcr {version}"),
        "{}",
        from_step.all
    );
    let example = tmp.join("example");
    for entry in walkdir::WalkDir::new(this.join("examples/claude-code")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(this.join("examples/claude-code"))
                .unwrap();
            write(
                &example,
                rel.to_str().unwrap(),
                &std::fs::read(entry.path()).unwrap(),
            );
        }
    }
    let verified = vcr(&["verify"], &example);
    assert!(verified.ok, "{}", verified.all);
    assert!(verified.all.contains("0 errors"), "{}", verified.all);

    // The mirror pins this version of the wheel.
    let mirror = std::fs::read_to_string(this.join("pre-commit-mirror/pyproject.toml")).unwrap();
    for pin in [
        format!("version = \"{version}\""),
        format!("\"vcr-cassettes=={version}\""),
    ] {
        assert!(
            mirror.contains(&pin),
            "pre-commit-mirror/pyproject.toml lacks {pin}"
        );
    }
    let hooks = tmp.join("mirror");
    let rev = snapshot(&env, "pre-commit-mirror/", &hooks);
    let project = tmp.join("project");
    std::fs::create_dir_all(&project).unwrap();
    git(&env, &project, &["init", "-q"]);
    let cassette = "tests/cassettes/models.yaml";
    write(
        &project,
        cassette,
        b"interactions:\n- request:\n    body: null\n    headers:\n      Authorization:\n      - Bearer sk-proj-Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k\n    method: GET\n    uri: https://api.openai.com/v1/models\n  response:\n    body:\n      string: '{}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
    );
    let config = format!(
        "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: vcr-verify\n",
        serde_json::to_string(hooks.to_str().unwrap()).unwrap()
    );
    write(&project, ".pre-commit-config.yaml", config.as_bytes());
    git(&env, &project, &["add", "-A"]);
    let started = Instant::now();
    let refused = run(
        env.command(tools.join("pre-commit"))
            .env(
                "PATH",
                std::env::join_paths(
                    std::iter::once(tools.clone()).chain(std::env::split_paths(&no_rust)),
                )
                .unwrap(),
            )
            .env("PIP_FIND_LINKS", &dist)
            .args(["run", "--files", cassette])
            .current_dir(&project),
        &project,
    );
    eprintln!(
        "pre-commit installed the python hook and ran it in {:.1?}",
        started.elapsed()
    );
    assert!(
        !refused.ok,
        "the planted key went through:\n{}",
        refused.all
    );
    for needle in ["vcr verify", "Failed", cassette, "leak/secret"] {
        assert!(refused.all.contains(needle), "{needle}:\n{}", refused.all);
    }
    assert!(
        !refused.all.contains("Q7x9q2LmZp3xR8vLT5nB1cD4eF6gHj2k"),
        "{}",
        refused.all
    );
}

/// Where a JSON string value of a `text` field starts, in vcr's normalized layout.
const TEXT: &str = "\"text\": \"";

/// The environment every process of the test runs in: the caller's, without anything that
/// would make git, pre-commit or vcr behave differently from a fresh user's setup.
struct Env {
    pre_commit_home: PathBuf,
    git_config: PathBuf,
    cargo_target: PathBuf,
}

impl Env {
    fn new(tmp: &Path) -> Env {
        let git_config = tmp.join("gitconfig");
        std::fs::write(&git_config, "").unwrap();
        Env {
            pre_commit_home: tmp.join("pre-commit-home"),
            git_config,
            cargo_target: Path::new(env!("CARGO_TARGET_TMPDIR")).join("pre-commit-target"),
        }
    }

    fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        for (key, _) in std::env::vars_os() {
            let Some(name) = key.to_str() else { continue };
            if name.starts_with("GIT_")
                || name.starts_with("PRE_COMMIT")
                || name.starts_with("VCR_")
                || name == "CLAUDE_CONFIG_DIR"
            {
                cmd.env_remove(&key);
            }
        }
        cmd.env("PRE_COMMIT_HOME", &self.pre_commit_home)
            .env("PRE_COMMIT_COLOR", "never")
            .env("GIT_CONFIG_GLOBAL", &self.git_config)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Tester")
            .env("GIT_AUTHOR_EMAIL", "tester@example.com")
            .env("GIT_COMMITTER_NAME", "Tester")
            .env("GIT_COMMITTER_EMAIL", "tester@example.com")
            .env("CARGO_TARGET_DIR", &self.cargo_target)
            .env("CARGO_NET_OFFLINE", "true")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
            .env("CARGO_TERM_COLOR", "never");
        cmd
    }
}

/// A finished process: whether it succeeded, and its stdout and stderr together.
struct Ran {
    ok: bool,
    all: String,
}

fn run(cmd: &mut Command, what: &Path) -> Ran {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("could not run {cmd:?} in {}: {e}", what.display()));
    ran(&output)
}

fn ran(output: &Output) -> Ran {
    Ran {
        ok: output.status.success(),
        all: format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// `pre-commit install --install-hooks` in `project`: the git hook, and the hook's build.
fn install_hooks(env: &Env, pre_commit: &Path, project: &Path) {
    let installed = run(
        env.command(pre_commit)
            .args(["install", "--install-hooks"])
            .current_dir(project),
        project,
    );
    assert!(
        installed.ok,
        "pre-commit install failed:\n{}",
        installed.all
    );
}

/// `pre-commit` installed in a virtual environment under `tmp`; `None` after saying on
/// stderr why the test is skipped (it panics instead when CI requires pre-commit).
fn pre_commit_or_skip(tmp: &Path) -> Option<PathBuf> {
    tools_or_skip(tmp, &["pre-commit"]).map(|bin| bin.join("pre-commit"))
}

/// `packages` installed from PyPI in a virtual environment under `tmp`, whose scripts
/// folder is returned; `None` after saying on stderr why the test is skipped (it panics
/// instead when CI requires them).
fn tools_or_skip(tmp: &Path, packages: &[&str]) -> Option<PathBuf> {
    match install_into_venv(&tmp.join("venv"), packages) {
        Ok(bin) => Some(bin),
        Err(reason) if std::env::var(REQUIRE).as_deref() == Ok("1") => {
            panic!("{REQUIRE}=1 and pre-commit could not be installed: {reason}")
        }
        Err(reason) => {
            skip::skip(&format!(
                "{} could not be installed: {reason}",
                packages.join(", ")
            ));
            None
        }
    }
}

/// Creates a virtual environment in `venv` and installs `packages` into it from PyPI;
/// returns its scripts folder, or why it could not.
fn install_into_venv(venv: &Path, packages: &[&str]) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    let mut created = false;
    for python in ["python3", "python"] {
        match Command::new(python).args(["-m", "venv"]).arg(venv).output() {
            Ok(output) if output.status.success() => {
                created = true;
                break;
            }
            Ok(output) => tried.push(format!(
                "`{python} -m venv` failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            )),
            Err(e) => tried.push(format!("no {python}: {e}")),
        }
    }
    if !created {
        return Err(tried.join("; "));
    }
    let bin = venv_bin(venv);
    let output = Command::new(bin.join("python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(packages)
        .output()
        .map_err(|e| format!("could not run pip: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`pip install {}` failed: {}",
            packages.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(bin)
}

/// A virtual environment's scripts folder.
fn venv_bin(venv: &Path) -> PathBuf {
    venv.join(if cfg!(windows) { "Scripts" } else { "bin" })
}

/// Copies the files of this repository that a commit would hold now (tracked and untracked,
/// not ignored, as they are in the working tree) into a new git repository at `to`, commits
/// them, and returns that commit.
fn snapshot_of_this_repository(env: &Env, to: &Path) -> String {
    snapshot(env, "", to)
}

/// [`snapshot_of_this_repository`] of the folder `under` (`dir/`) alone, as the root of the
/// new repository (`""`: the whole repository).
fn snapshot(env: &Env, under: &str, to: &Path) -> String {
    let this = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = git(
        env,
        this,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    );
    for rel in listed.split('\0').filter(|rel| !rel.is_empty()) {
        let from = this.join(rel);
        let Some(inside) = rel.strip_prefix(under) else {
            continue;
        };
        // Deleted in the working tree but still in the index: not part of the next commit.
        // Copied with its permissions: the hook's script must stay executable.
        if from.is_file() {
            let path = to.join(inside);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::copy(&from, &path).unwrap();
        }
    }
    git(env, to, &["init", "-q"]);
    git(env, to, &["add", "-A"]);
    git(env, to, &["commit", "-q", "--no-verify", "-m", "Snapshot"]);
    git(env, to, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// Runs git in `dir`; panics unless it succeeds; returns its stdout.
fn git(env: &Env, dir: &Path, args: &[&str]) -> String {
    let output = env
        .command("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("could not run git: {e}"));
    assert!(
        output.status.success(),
        "git {args:?} failed in {}:\n{}",
        dir.display(),
        ran(&output).all
    );
    String::from_utf8(output.stdout).unwrap()
}

/// `git commit`, which runs the installed pre-commit hook.
fn commit(env: &Env, dir: &Path, message: &str) -> Ran {
    run(
        env.command("git")
            .arg("-C")
            .arg(dir)
            .args(["commit", "-m", message]),
        dir,
    )
}

fn commits(env: &Env, dir: &Path) -> usize {
    git(env, dir, &["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .unwrap()
}

#[track_caller]
fn assert_passed(commit: &Ran) {
    let line = commit
        .all
        .lines()
        .find(|line| line.starts_with("vcr verify"))
        .unwrap_or_else(|| panic!("the hook did not run:\n{}", commit.all));
    assert!(
        line.ends_with("Passed"),
        "the hook did not pass (skipped?):\n{}",
        commit.all
    );
}

/// The `vcr` the hook built in pre-commit's clone of the hook repository
/// (`<clone>/.pre-commit-build/bin/vcr`).
fn hook_binary(pre_commit_home: &Path) -> Option<PathBuf> {
    let exe = if cfg!(windows) { "vcr.exe" } else { "vcr" };
    walkdir::WalkDir::new(pre_commit_home)
        .max_depth(4)
        .into_iter()
        .flatten()
        .map(walkdir::DirEntry::into_path)
        .find(|path| {
            path.file_name().is_some_and(|name| name == exe)
                && path.parent().is_some_and(|bin| {
                    bin.file_name().is_some_and(|name| name == "bin")
                        && bin
                            .parent()
                            .and_then(Path::file_name)
                            .is_some_and(|root| root == ".pre-commit-build")
                })
        })
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}
