//! Issue 42: the GitHub Action (`action.yml`, composite) run as GitHub's runner runs it, in
//! a real git repository whose cassette a pull request re-recorded.
//!
//! `tests/action/run.js` plays the runner: it reads `action.yml`, evaluates each step's
//! `if:` and `${{ }}` expressions, runs the `run:` steps in bash with the files GitHub gives
//! a step (GITHUB_OUTPUT, GITHUB_PATH) and reports the `uses:` steps it cannot run. The job
//! has what GitHub sets: a `pull_request` event payload (GITHUB_EVENT_PATH), a job summary
//! file (GITHUB_STEP_SUMMARY), RUNNER_TEMP, RUNNER_OS and RUNNER_ARCH; the REST API the
//! comment goes to is the tests' server (GITHUB_API_URL). vcr is installed as a release
//! archive (this build packed as `dist/release` packs it, with its SHA-256), fetched by URL.
//! The Markdown summary is read by a real Markdown parser (`marked`, `tests/action/markdown.js`),
//! and a 500-cassette re-record stays under GitHub's 65,536-character comment limit.
//!
//! `marked` and `yaml` are pinned in `tests/action/` and installed by `npm ci` under Cargo's
//! `target/tmp` when the lock file changed; without npm, node or vcrpy the tests say so on
//! stderr and pass.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::llm::{self, Version};
use common::recorders::{Recorded, Recorder, record};
use common::server::{Reply, Route, Server};
use common::{TestDir, git};
use serde_json::{Value, json};

/// GitHub's limit on a comment, in characters.
const COMMENT_LIMIT: usize = 65_536;

/// The folder the tools are installed in, or `None` after saying why on stderr. Installed once
/// per test process (two `npm ci` into one folder delete each other's modules).
fn tools() -> Option<PathBuf> {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match INSTALLED.get_or_init(install_tools) {
        Ok(dir) => Some(dir.clone()),
        Err(why) => {
            common::skip(&format!(
                "the action's test tools could not be installed (npm ci in tests/action): {why}"
            ));
            None
        }
    }
}

fn install_tools() -> Result<PathBuf, String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/action");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("action-tools");
    let lock = std::fs::read(here.join("package-lock.json")).unwrap();
    let installed = dir.join("installed.lock");
    if std::fs::read(&installed).ok().as_deref() == Some(&lock[..]) {
        return Ok(dir);
    }
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(here.join(file), dir.join(file)).unwrap();
    }
    let out = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("no npm: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    std::fs::write(&installed, &lock).unwrap();
    Ok(dir)
}

/// `node tests/action/<script> args...` with the tools on NODE_PATH; its stdout as JSON.
fn node(tools: &Path, script: &str, args: &[&Path], env: &[(String, String)]) -> Value {
    let mut cmd = Command::new("node");
    cmd.env_clear()
        .env("NODE_PATH", tools.join("node_modules"))
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/action")
                .join(script),
        )
        .args(args);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().expect("node runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{script} printed no JSON ({e}):\n{stderr}"))
}

/// The Markdown file `path` as the parser reads it.
fn markdown(tools: &Path, path: &Path) -> Value {
    node(tools, "markdown.js", &[path], &[])
}

/// The runner's names of this machine's platform, and its Rust target.
fn platform() -> (&'static str, &'static str, String) {
    let os = match std::env::consts::OS {
        "macos" => "macOS",
        "windows" => "Windows",
        _ => "Linux",
    };
    let arch = match std::env::consts::ARCH {
        "aarch64" => "ARM64",
        _ => "X64",
    };
    let target = match (os, arch) {
        ("Linux", "X64") => "x86_64-unknown-linux-gnu",
        ("Linux", "ARM64") => "aarch64-unknown-linux-gnu",
        ("macOS", "X64") => "x86_64-apple-darwin",
        ("macOS", "ARM64") => "aarch64-apple-darwin",
        _ => "x86_64-pc-windows-msvc",
    };
    (os, arch, target.to_owned())
}

/// This build of vcr packed as a release archive is (`vcr-VERSION-TARGET/vcr` in a
/// `.tar.gz`, its SHA-256 in `.sha256` beside it), in `dir`; returns the URL template the
/// action fetches it by.
fn release_archive(dir: &Path) -> String {
    use sha2::Digest;
    let (_, _, target) = platform();
    let version = env!("CARGO_PKG_VERSION");
    let name = format!("vcr-{version}-{target}");
    let stage = dir.join("stage").join(&name);
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_vcr"), stage.join("vcr")).unwrap();
    let archive = dir.join(format!("{name}.tar.gz"));
    let status = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(dir.join("stage"))
        .arg(&name)
        .status()
        .expect("tar runs");
    assert!(status.success());
    let digest = sha2::Sha256::digest(std::fs::read(&archive).unwrap());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(
        dir.join(format!("{name}.tar.gz.sha256")),
        format!("{hex}  {name}.tar.gz\n"),
    )
    .unwrap();
    format!("file://{}/vcr-{{version}}-{{target}}.tar.gz", dir.display())
}

/// The one cassette of a recording, as bytes.
fn bytes(recorded: &Recorded) -> Vec<u8> {
    let cassettes = recorded.cassettes();
    recorded.dir.files("")[&cassettes[0]].clone()
}

/// A repository whose `main` holds `cassettes` as first recorded and whose branch
/// `rerecord` re-recorded them (`(path, new bytes)`); returns the commits of both, the
/// working tree at the branch as a pull request's checkout has it.
fn pull_request(t: &TestDir, first: &[u8], cassettes: &[(String, Vec<u8>)]) -> (String, String) {
    for (path, _) in cassettes {
        t.write(path, first);
    }
    git(&t.root, &["init", "-q", "-b", "main"]);
    git(&t.root, &["add", "-A"]);
    git(&t.root, &["commit", "-qm", "record"]);
    let base = git(&t.root, &["rev-parse", "HEAD"]).trim().to_owned();
    git(&t.root, &["checkout", "-qb", "rerecord"]);
    for (path, new) in cassettes {
        t.write(path, new);
    }
    git(&t.root, &["commit", "-qam", "record again"]);
    let head = git(&t.root, &["rev-parse", "HEAD"]).trim().to_owned();
    (base, head)
}

/// A job: the folders and variables GitHub gives it.
struct Job {
    temp: TestDir,
    env: Vec<(String, String)>,
}

impl Job {
    fn new(workspace: &Path, event_name: &str, event: &Value, api: &str) -> Job {
        let temp = TestDir::new();
        temp.write("event.json", event.to_string());
        temp.write("summary.md", "");
        std::fs::create_dir_all(temp.path("runner")).unwrap();
        let (os, arch, _) = platform();
        let path = std::env::var("PATH").unwrap_or_default();
        let mut env: Vec<(String, String)> = [
            ("PATH", path.as_str()),
            ("HOME", "/home/tester"),
            ("CI", "true"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", event_name),
            ("GITHUB_REPOSITORY", "acme/agent"),
            ("GITHUB_API_URL", api),
            ("GITHUB_SERVER_URL", "https://github.com"),
            ("GITHUB_TOKEN", "ghs_test_token"),
            ("RUNNER_OS", os),
            ("RUNNER_ARCH", arch),
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        for (key, path) in [
            ("GITHUB_EVENT_PATH", temp.path("event.json")),
            ("GITHUB_STEP_SUMMARY", temp.path("summary.md")),
            ("RUNNER_TEMP", temp.path("runner")),
            ("GITHUB_WORKSPACE", workspace.to_owned()),
        ] {
            env.push((key.to_owned(), path.display().to_string()));
        }
        Job { temp, env }
    }

    /// Runs the action with `inputs`; the runner's report.
    fn run(&self, tools: &Path, inputs: &Value) -> Value {
        self.temp.write("inputs.json", inputs.to_string());
        let action = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        node(
            tools,
            "run.js",
            &[&action, &self.temp.path("inputs.json")],
            &self.env,
        )
    }

    fn summary(&self) -> String {
        self.temp.read("summary.md")
    }
}

/// The step of `report` named `name`.
fn step<'r>(report: &'r Value, name: &str) -> &'r Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}: {report:#}"))
}

/// The GitHub API of the tests: the pull request's comments, `existing` among them.
fn api(existing: Option<&str>) -> Server {
    let list = match existing {
        Some(body) => json!([{"id": 7, "body": "LGTM"}, {"id": 42, "body": body}]),
        None => json!([{"id": 7, "body": "LGTM"}]),
    };
    let reply = |status: u16, body: &Value| Reply {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    };
    let route = |method: &str, target: &str, reply: Reply| Route {
        method: method.to_owned(),
        target: target.to_owned(),
        reply,
    };
    Server::start(vec![
        route(
            "GET",
            "/repos/acme/agent/issues/12/comments?per_page=100",
            reply(200, &list),
        ),
        route(
            "POST",
            "/repos/acme/agent/issues/12/comments",
            reply(201, &json!({"id": 43})),
        ),
        route(
            "PATCH",
            "/repos/acme/agent/issues/comments/42",
            reply(200, &json!({"id": 42})),
        ),
    ])
}

fn pull_request_event(base: &str, head: &str) -> Value {
    json!({"action": "synchronize", "number": 12,
        "pull_request": {"number": 12, "base": {"ref": "main", "sha": base},
            "head": {"ref": "rerecord", "sha": head}},
        "repository": {"full_name": "acme/agent"}})
}

#[test]
fn on_a_pull_request_the_action_checks_summarizes_and_comments() {
    let Some(tools) = tools() else { return };
    let (Some(first), Some(changed)) = (
        record(Recorder::Vcrpy, llm::agent(Version::First)),
        record(Recorder::Vcrpy, llm::agent(Version::Changed)),
    ) else {
        return;
    };
    let repo = TestDir::new();
    let cassette = "tests/cassettes/agent.yaml".to_owned();
    let (base, head) = pull_request(
        &repo,
        &bytes(&first),
        &[(cassette.clone(), bytes(&changed))],
    );
    let server = api(None);
    let job = Job::new(
        &repo.root,
        "pull_request",
        &pull_request_event(&base, &head),
        &server.base_url(),
    );
    let releases = TestDir::new();
    let report = job.run(
        &tools,
        &json!({
            "install": "release",
            "version": env!("CARGO_PKG_VERSION"),
            "source": release_archive(&releases.root),
            "comment": "true",
            "fail-on": "behaviour",
        }),
    );
    let received = server.stop();

    // Installed from the archive, its SHA-256 checked, then found on PATH by later steps.
    let install = step(&report, "Install vcr");
    assert_eq!(install["exit"], 0, "{report:#}");
    assert!(
        install["stdout"]
            .as_str()
            .unwrap()
            .starts_with(&format!("vcr {}", env!("CARGO_PKG_VERSION"))),
        "{report:#}"
    );
    // verify: the leaked key of the re-recording as an annotation, and a SARIF log that
    // the upload step is given.
    let verify = step(&report, "vcr verify");
    assert_eq!(verify["exit"], 0, "{report:#}");
    assert_eq!(verify["outputs"]["code"], "1", "{report:#}");
    assert!(
        verify["stdout"]
            .as_str()
            .unwrap()
            .contains(&format!("::error file={cassette},")),
        "{report:#}"
    );
    let upload = step(&report, "Upload vcr's findings to code scanning");
    assert_eq!(upload["uses"], "github/codeql-action/upload-sarif@v3");
    let sarif_path = upload["with"]["sarif_file"].as_str().unwrap();
    assert_eq!(sarif_path, report["outputs"]["sarif-file"]);
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(sarif_path).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert!(
        !sarif["runs"][0]["results"].as_array().unwrap().is_empty(),
        "{sarif:#}"
    );

    // The job summary: the verdict, the lines that say what changed; rendered as meant.
    let summary = job.summary();
    assert!(summary.starts_with("<!-- vcr-diff -->\n"), "{summary}");
    assert!(
        !summary.contains(&llm::query_key(Version::First)[12..]),
        "the key is shown"
    );
    assert!(
        !summary.contains(&llm::query_key(Version::Changed)[12..]),
        "the key is shown"
    );
    job.temp.write("parsed.md", &summary);
    let parsed = markdown(&tools, &job.temp.path("parsed.md"));
    assert_eq!(
        parsed["headings"][0],
        json!({"depth": 3, "text": "vcr diff: 1 behaviour change"}),
        "{parsed:#}"
    );
    assert_eq!(
        parsed["tables"][0],
        json!({"header": ["verdict", "cassettes"], "rows": 1}),
        "{parsed:#}"
    );
    let items: Vec<&str> = parsed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap())
        .collect();
    assert!(
        items
            .iter()
            .any(|i| i.starts_with(&format!("`{cassette}` (http): "))),
        "{items:#?}"
    );
    for line in [
        "#4 GET /v1/models: status 200 -> 429",
        "#2 POST /v1/chat/completions: get_weather(Paris): arguments changed (unit)",
        "#3 POST /v1/chat/completions: stop reason stop -> length",
    ] {
        let rendered = parsed["rendered"].as_str().unwrap();
        let html = line.replace('>', "&gt;");
        assert!(
            rendered.contains(&html),
            "{line:?} not rendered:\n{rendered}"
        );
    }
    assert!(parsed["characters"].as_u64().unwrap() < COMMENT_LIMIT as u64);

    // The comment: the summary, posted once with the job's token.
    let comment = step(&report, "Comment the summary on the pull request");
    assert_eq!(comment["exit"], 0, "{report:#}");
    let posts: Vec<_> = received.iter().filter(|r| r.method == "POST").collect();
    assert_eq!(posts.len(), 1, "{received:#?}");
    assert_eq!(posts[0].target, "/repos/acme/agent/issues/12/comments");
    assert_eq!(
        posts[0].header("Authorization"),
        Some("Bearer ghs_test_token")
    );
    let posted: Value = serde_json::from_slice(&posts[0].body).unwrap();
    assert_eq!(posted["body"].as_str().unwrap(), summary);

    // The job fails: verify found a leak, and fail-on behaviour meets a behaviour change.
    let result = step(&report, "Result");
    assert_eq!(result["exit"], 1, "{report:#}");
    let said = result["stderr"].as_str().unwrap();
    assert!(said.contains("vcr verify found errors"), "{said}");
    assert!(said.contains("fail-on behaviour"), "{said}");
    assert_eq!(report["failed"], true);
}

/// On the next push the comment is updated, not posted again; outside a pull request
/// nothing is compared or posted; `install: none` uses the vcr on PATH.
#[test]
fn the_comment_is_updated_and_a_push_is_only_checked() {
    let Some(tools) = tools() else { return };
    let (Some(first), Some(again)) = (
        record(Recorder::Vcrpy, llm::agent(Version::First)),
        record(Recorder::Vcrpy, llm::agent(Version::Again)),
    ) else {
        return;
    };
    let repo = TestDir::new();
    let cassette = "tests/cassettes/agent.yaml".to_owned();
    let (base, head) = pull_request(&repo, &bytes(&first), &[(cassette, bytes(&again))]);
    let server = api(Some("<!-- vcr-diff -->\n### vcr diff: 1 behaviour change"));
    let mut job = Job::new(
        &repo.root,
        "pull_request",
        &pull_request_event(&base, &head),
        &server.base_url(),
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_vcr")).parent().unwrap();
    for (key, value) in &mut job.env {
        if key == "PATH" {
            *value = format!("{}:{value}", bin.display());
        }
    }
    let inputs = json!({"install": "none", "comment": "true", "fail-on": "behaviour"});
    let report = job.run(&tools, &inputs);
    let received = server.stop();
    let summary = job.summary();
    assert!(
        summary.contains("### vcr diff: 1 same behaviour"),
        "{summary}"
    );
    let patches: Vec<_> = received.iter().filter(|r| r.method == "PATCH").collect();
    assert_eq!(patches.len(), 1, "{received:#?}");
    assert!(received.iter().all(|r| r.method != "POST"), "{received:#?}");
    let patched: Value = serde_json::from_slice(&patches[0].body).unwrap();
    assert_eq!(patched["body"].as_str().unwrap(), summary);
    // A same-behaviour re-recording passes fail-on behaviour; verify's findings still fail.
    assert_eq!(
        step(&report, "vcr diff")["outputs"]["code"],
        "0",
        "{report:#}"
    );

    // A push: verify runs, the comparison and the comment are skipped.
    let server = api(None);
    let mut push = Job::new(
        &repo.root,
        "push",
        &json!({"ref": "refs/heads/rerecord", "after": head}),
        &server.base_url(),
    );
    push.env.clone_from(&job.env);
    for (key, value) in &mut push.env {
        match key.as_str() {
            "GITHUB_EVENT_NAME" => "push".clone_into(value),
            "GITHUB_EVENT_PATH" => *value = push.temp.path("event.json").display().to_string(),
            "GITHUB_STEP_SUMMARY" => {
                *value = push.temp.path("summary.md").display().to_string();
            }
            _ => {}
        }
    }
    let report = push.run(&tools, &inputs);
    assert!(server.stop().is_empty());
    assert_eq!(step(&report, "vcr verify")["exit"], 0, "{report:#}");
    assert_eq!(step(&report, "vcr diff")["skipped"], true, "{report:#}");
    assert_eq!(
        step(&report, "Comment the summary on the pull request")["skipped"],
        true
    );
    assert_eq!(push.summary(), "");
}

/// A re-record of 500 cassettes: the summary stays under GitHub's comment limit by
/// collapsing, still parses, lists every behaviour change and counts every cassette.
#[test]
fn a_500_cassette_rerecord_fits_a_comment() {
    let Some(tools) = tools() else { return };
    let (Some(first), Some(changed), Some(again)) = (
        record(Recorder::Vcrpy, llm::agent(Version::First)),
        record(Recorder::Vcrpy, llm::agent(Version::Changed)),
        record(Recorder::Vcrpy, llm::agent(Version::Again)),
    ) else {
        return;
    };
    let repo = TestDir::new();
    let cassettes: Vec<(String, Vec<u8>)> = (0..500)
        .map(|i| {
            let new = if i % 10 == 0 { &changed } else { &again };
            (format!("tests/cassettes/test_{i:03}.yaml"), bytes(new))
        })
        .collect();
    pull_request(&repo, &bytes(&first), &cassettes);
    let run = repo.vcr(&["diff", "--rev", "main...rerecord", "--format", "markdown"]);
    run.code(1);
    repo.write("summary.md", &run.stdout);
    let parsed = markdown(&tools, &repo.path("summary.md"));
    let characters = parsed["characters"].as_u64().unwrap() as usize;
    assert!(characters <= COMMENT_LIMIT, "{characters} characters");
    assert!(
        characters > COMMENT_LIMIT / 2,
        "{characters}: collapsed too far"
    );
    assert_eq!(
        parsed["headings"][0]["text"],
        "vcr diff: 50 behaviour change, 450 same behaviour"
    );
    assert_eq!(parsed["details"]["open"], parsed["details"]["close"]);
    assert_eq!(
        parsed["summaries"],
        json!(["Same behaviour (450)"]),
        "{parsed:#}"
    );
    let listed: Vec<&str> = parsed["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["depth"] == 0)
        .map(|i| i["text"].as_str().unwrap())
        .collect();
    for i in (0..500).step_by(10) {
        let path = format!("`tests/cassettes/test_{i:03}.yaml` (http): ");
        assert!(
            listed.iter().any(|l| l.starts_with(&path)),
            "behaviour change {i} not listed"
        );
    }
    // What could not be listed is counted, never dropped in silence.
    let shown = listed.len();
    if shown < 500 {
        assert!(
            run.stdout
                .contains(&format!("_{} cassettes not listed here", 500 - shown)),
            "{}",
            &run.stdout[run.stdout.len() - 300..]
        );
    }
}
