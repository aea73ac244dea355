//! Issue 42: `vcr review` in a real terminal. tmux runs it on a private server (its own
//! socket, a 200-column window); the tests send keys and read the screen with
//! `capture-pane`, as a person at the terminal would press them and read it.
//!
//! The repository holds four recordings of an agent's run (`tests/common/llm.rs`, recorded
//! by vcrpy), re-recorded: three changed their behaviour, one only its ids. Reviewing them
//! in order, the first is rejected (its bytes come back from git, byte for byte), the second
//! accepted after a look at its full diff, the third skipped, and the review quit at the
//! fourth: nothing else is touched, no temporary file or journal is left. Without a terminal
//! nothing is asked; `--accept-same-behaviour` keeps what is not a behaviour change.
//!
//! Without tmux, or without vcrpy, the tests are skipped with a message on stderr.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::llm::{self, Version};
use common::recorders::{Recorder, record};
use common::{TestDir, git};

/// The cassettes of the repository, in the order review shows them, and the recording each
/// holds once re-recorded.
const CASSETTES: [(&str, Version); 4] = [
    ("cassettes/a/agent.yaml", Version::Changed),
    ("cassettes/b/agent.yaml", Version::Changed),
    ("cassettes/c/agent.yaml", Version::Again),
    ("cassettes/d/agent.yaml", Version::Changed),
];

/// Each cassette's bytes at HEAD and in the working tree.
type Sides = Vec<(Vec<u8>, Vec<u8>)>;

/// A repository whose four cassettes were committed as first recorded, then re-recorded in
/// the working tree; `None` when vcrpy is not installed. Returns the tree and the bytes of
/// each cassette at HEAD and now.
fn rerecorded() -> Option<(TestDir, Sides)> {
    let first = record(Recorder::Vcrpy, llm::agent(Version::First))?;
    let changed = record(Recorder::Vcrpy, llm::agent(Version::Changed))?;
    let again = record(Recorder::Vcrpy, llm::agent(Version::Again))?;
    let bytes = |recorded: &common::recorders::Recorded| {
        let files = recorded.dir.files("");
        let cassettes = recorded.cassettes();
        files[&cassettes[0]].clone()
    };
    let t = TestDir::new();
    for (path, _) in CASSETTES {
        t.write(path, bytes(&first));
    }
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "-A"]);
    git(&t.root, &["commit", "-qm", "record"]);
    let mut sides = Vec::new();
    for (path, version) in CASSETTES {
        let now = match version {
            Version::Changed => bytes(&changed),
            _ => bytes(&again),
        };
        t.write(path, &now);
        sides.push((bytes(&first), now));
    }
    Some((t, sides))
}

/// A tmux server of the test's own, running one command in a window of 200 columns.
struct Terminal {
    socket: String,
}

impl Terminal {
    /// Starts `vcr args` in `dir` with a clean environment and `env`, then a line with its
    /// exit code; `None` (after saying so) without tmux.
    fn start(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Option<Terminal> {
        if Command::new("tmux").arg("-V").output().is_err() {
            common::skip("tmux is not installed");
            return None;
        }
        let socket = format!(
            "vcr-review-{}-{}",
            std::process::id(),
            std::thread::current()
                .name()
                .unwrap_or("test")
                .replace("::", "-")
        );
        let vcr = env!("CARGO_BIN_EXE_vcr");
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}='{v}'")).collect();
        let script = format!(
            "cd '{}' && env -i PATH=\"$PATH\" HOME=/home/tester TERM=xterm-256color GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null {} '{vcr}' {}; echo \"EXIT=$?\"; sleep 600",
            dir.display(),
            env.join(" "),
            quoted.join(" ")
        );
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "200", "-y", "50", "sh", "-c", &script])
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux did not start");
        Some(Terminal { socket })
    }

    /// The whole screen, its scrollback included, lines joined where they wrapped.
    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-J", "-S", "-"])
            .output()
            .expect("tmux captures the pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen shows `text` `times` times; returns the screen.
    #[track_caller]
    fn wait_for(&self, text: &str, times: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= times {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {text:?} {times} times:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn press(&self, key: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", key])
            .status()
            .expect("tmux sends the key");
        assert!(status.success());
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

/// What a run left beside the cassettes that is not one: temporary files, a journal.
#[track_caller]
fn assert_nothing_half_done(t: &TestDir) {
    let left: Vec<String> = t
        .files("")
        .into_keys()
        .filter(|rel| rel.contains(".vcr-") || rel.contains("journal"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(!t.path(".vcr/journal.json").exists());
}

#[test]
fn accept_reject_skip_and_quit_in_a_terminal() {
    let Some((t, sides)) = rerecorded() else {
        return;
    };
    let Some(term) = Terminal::start(&t.root, &[], &["review"]) else {
        return;
    };
    // The first cassette: its verdict and what changed, then the question.
    let screen = term.wait_for("[1/4] a accept", 1);
    assert!(
        screen.contains("behaviour change cassettes/a/agent.yaml (http)"),
        "{screen}"
    );
    assert!(
        screen.contains("#4 GET /v1/models: status 200 -> 429"),
        "{screen}"
    );
    term.press("r");
    let screen = term.wait_for("[2/4] a accept", 1);
    assert!(
        screen.contains("rejected cassettes/a/agent.yaml: put back cassettes/a/agent.yaml"),
        "{screen}"
    );
    // Rejected: the bytes the revision has, byte for byte, at once.
    assert_eq!(
        std::fs::read(t.path(CASSETTES[0].0)).unwrap(),
        sides[0].0,
        "the rejected cassette is not HEAD's"
    );
    // A look at the full diff, then accepted: the new recording stays.
    term.press("d");
    let screen = term.wait_for("[2/4] a accept", 2);
    assert!(screen.contains("@@ "), "no unified diff:\n{screen}");
    term.press("a");
    term.wait_for("[3/4] a accept", 1);
    term.press("s");
    let screen = term.wait_for("[4/4] a accept", 1);
    assert!(
        screen.contains("same behaviour cassettes/c/agent.yaml (http)"),
        "{screen}"
    );
    // Quit in the middle: the last cassette is left as it is.
    term.press("q");
    let screen = term.wait_for("EXIT=", 1);
    assert!(
        screen.contains("4 cassettes changed since HEAD: 1 accepted, 1 rejected, 2 left undecided"),
        "{screen}"
    );
    assert!(screen.contains("EXIT=1"), "{screen}");
    for (i, (path, _)) in CASSETTES.iter().enumerate().skip(1) {
        assert_eq!(
            std::fs::read(t.path(path)).unwrap(),
            sides[i].1,
            "{path} changed although it was accepted, skipped or not reached"
        );
    }
    assert_nothing_half_done(&t);
    // What is left to review is what was not rejected.
    let left = t.vcr(&["diff", "--rev", "HEAD", "--format", "json"]).json();
    let paths: Vec<&str> = left["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["status"] != "unchanged")
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [CASSETTES[1].0, CASSETTES[2].0, CASSETTES[3].0],
        "{left:#}"
    );
}

#[test]
fn same_behaviour_is_accepted_without_asking() {
    let Some((t, sides)) = rerecorded() else {
        return;
    };
    let Some(term) = Terminal::start(&t.root, &[], &["review", "--accept-same-behaviour"]) else {
        return;
    };
    // Three behaviour changes are asked about; the re-recording with new ids is not.
    for (i, key) in ["a", "a", "r"].into_iter().enumerate() {
        term.wait_for(&format!("[{}/4] a accept", [1, 2, 4][i]), 1);
        term.press(key);
    }
    let screen = term.wait_for("EXIT=", 1);
    assert!(!screen.contains("[3/4]"), "{screen}");
    assert!(
        screen.contains("accepted cassettes/c/agent.yaml (not a behaviour change)"),
        "{screen}"
    );
    assert!(
        screen.contains("4 cassettes changed since HEAD: 3 accepted, 1 rejected"),
        "{screen}"
    );
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert_eq!(std::fs::read(t.path(CASSETTES[3].0)).unwrap(), sides[3].0);
    assert_eq!(std::fs::read(t.path(CASSETTES[2].0)).unwrap(), sides[2].1);
    assert_nothing_half_done(&t);
}

/// Without a terminal nothing is asked: what is not a behaviour change is accepted with
/// `--accept-same-behaviour`, the rest left undecided (exit 1), every file as it was.
#[test]
fn without_a_terminal_nothing_is_asked() {
    let Some((t, sides)) = rerecorded() else {
        return;
    };
    let run = t.vcr(&["review", "--accept-same-behaviour"]);
    run.code(1);
    assert!(
        run.stdout
            .contains("accepted cassettes/c/agent.yaml (not a behaviour change)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "4 cassettes changed since HEAD: 1 accepted, 0 rejected, 3 left undecided (vcr review asks on a terminal)"
        ),
        "{}",
        run.stdout
    );
    for (i, (path, _)) in CASSETTES.iter().enumerate() {
        assert_eq!(std::fs::read(t.path(path)).unwrap(), sides[i].1, "{path}");
    }
    let doc = t
        .vcr(&["review", "--accept-same-behaviour", "--format", "json"])
        .json();
    assert_eq!(doc["command"], "review");
    assert_eq!(
        doc["summary"],
        serde_json::json!({"changed": 4, "accepted": 1, "rejected": 0, "skipped": 3, "errors": 0})
    );
    // A range is two trees, not the working tree review keeps or puts back.
    t.vcr(&["review", "--rev", "HEAD~1..HEAD"]).code(2);
    assert_nothing_half_done(&t);
}

/// A rejection killed at any step of its writes is completed or undone by the next vcr
/// command: the cassette is HEAD's or the re-recording's, whole, never a mix, and nothing is
/// left beside it.
#[test]
fn a_rejection_killed_at_any_step_leaves_a_whole_cassette() {
    let Some((t, sides)) = rerecorded() else {
        return;
    };
    let path = CASSETTES[0].0;
    let (mut completed, mut killed) = (false, 0);
    for step in 0..16 {
        t.write(path, &sides[0].1);
        let kill = step.to_string();
        let Some(term) = Terminal::start(
            &t.root,
            &[("VCR_FAULT_KILL_AFTER", &kill)],
            &["review", "cassettes/a"],
        ) else {
            return;
        };
        term.wait_for("[1/1] a accept", 1);
        term.press("r");
        let screen = term.wait_for("EXIT=", 1);
        drop(term);
        // The next mutating command finishes what the killed one began, or removes what it
        // staged (nothing is asked without a terminal: exit 1, the cassettes undecided).
        t.vcr(&["review"]).code(1);
        let now = std::fs::read(t.path(path)).unwrap();
        assert!(
            now == sides[0].0 || now == sides[0].1,
            "step {step}: the cassette is neither HEAD's nor the re-recording's\n{screen}"
        );
        assert_nothing_half_done(&t);
        if screen.contains("EXIT=0") {
            assert_eq!(now, sides[0].0, "step {step}: rejected, not put back");
            completed = true;
            break;
        }
        assert!(
            screen.contains("EXIT=134"),
            "step {step}: not killed\n{screen}"
        );
        killed += 1;
    }
    assert!(completed, "the rejection never ran to its end in 16 steps");
    // Staging, the journal's two writes, moving aside, placing, removing: each a step.
    assert!(killed >= 5, "killed at {killed} steps only");
}
