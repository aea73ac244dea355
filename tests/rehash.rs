//! `vcr rehash` as a user runs it, including being killed at every possible moment.

use crate::common;

use std::collections::BTreeMap;

use common::{TestDir, fixture};

fn prompt(i: usize) -> (String, String) {
    fixture(&[&format!("\"prompt {i}\"")], &format!("answer {i}"))
}

/// A tree with every kind of move: a cycle, a chain, identical twins, a key rewritten by a
/// rule, a cassette already right, a token-count fixture.
fn messy_tree() -> TestDir {
    let t = TestDir::new();
    t.write("vcr.toml", "[[rule]]\nid = \"host\"\nliteral = \"SECRET-HOST\"\nreplace = \"[HOST]\"\nscope = \"key\"\n");
    let (n1, f1) = prompt(1);
    let (n2, f2) = prompt(2);
    let (_, f3) = prompt(3);
    let (n4, f4) = prompt(4);
    let (_, f5) = prompt(5);
    let (n6, f6) = prompt(6);
    t.write(&format!("fixtures/{n2}"), &f1); // cycle: 1 sits at 2's name
    t.write(&format!("fixtures/{n1}"), &f2); // and 2 at 1's
    t.write(&format!("fixtures/{n4}"), &f3); // chain: 3 at 4's name,
    t.write("fixtures/abcdef.json", &f4); // 4 somewhere else
    t.write("fixtures/111111.json", &f5); // twins
    t.write("fixtures/222222.json", &f5);
    t.write(&format!("fixtures/{n6}"), &f6); // right already
    let (raw_name, raw) = fixture(&["\"deploy to SECRET-HOST\""], "deployed to SECRET-HOST");
    t.write(&format!("fixtures/{raw_name}"), &raw);
    t.write(
        "fixtures/token-count-0123456789ab.json",
        "{\n  \"tokenCount\": 42\n}",
    );
    t
}

fn expected_tree() -> BTreeMap<String, Vec<u8>> {
    let mut expected = BTreeMap::new();
    for i in 1..=6 {
        let (name, text) = prompt(i);
        expected.insert(format!("fixtures/{name}"), text.into_bytes());
    }
    let (name, text) = fixture(&["\"deploy to [HOST]\""], "deployed to SECRET-HOST");
    expected.insert(format!("fixtures/{name}"), text.into_bytes());
    expected.insert(
        "fixtures/token-count-0123456789ab.json".into(),
        b"{\n  \"tokenCount\": 42\n}".to_vec(),
    );
    expected.insert(
        "vcr.toml".into(),
        b"[[rule]]\nid = \"host\"\nliteral = \"SECRET-HOST\"\nreplace = \"[HOST]\"\nscope = \"key\"\n".to_vec(),
    );
    expected
}

#[test]
fn cycles_chains_twins_and_rewrites() {
    let t = messy_tree();
    let before = t.files("");
    let dry = t.vcr(&["rehash", "--dry-run"]);
    dry.code(0)
        .stdout_has("would merge fixtures/222222.json into fixtures/")
        .stdout_has("would re-key fixtures/")
        .stdout_has("6 of 8 cassettes would be renamed, 1 identical twin merged");
    assert_eq!(t.files(""), before, "a dry run changes nothing");

    let run = t.vcr(&["-v", "rehash"]);
    run.code(0)
        .stdout_has("renamed fixtures/abcdef.json -> fixtures/")
        .stdout_has("merged fixtures/222222.json into fixtures/")
        .stdout_has("skipped fixtures/token-count-0123456789ab.json: the key of a token-count fixture is not stored")
        .stdout_has("6 of 8 cassettes renamed, 1 identical twin merged");
    assert_eq!(t.files(""), expected_tree());
    assert!(!t.exists(".vcr/journal.json"));

    // Idempotent.
    t.vcr(&["rehash"])
        .code(0)
        .stdout_has("0 of 7 cassettes renamed");
    t.vcr(&["normalize", "--check"]).code(0);
}

#[test]
fn different_cassettes_that_would_share_a_name_stop_everything() {
    let t = TestDir::new();
    let (name, a) = fixture(&["\"same prompt\""], "one answer");
    let (_, b) = fixture(&["\"same prompt\""], "another answer");
    let (_, other) = prompt(9);
    t.write("fixtures/aaaaaa.json", &a);
    t.write("fixtures/bbbbbb.json", &b);
    t.write("fixtures/cccccc.json", &other);
    let before = t.files("");
    t.vcr(&["rehash"])
        .code(2)
        .stderr_has(&format!(
            "collision: fixtures/aaaaaa.json, fixtures/bbbbbb.json would all be named {name}, but they differ; nothing was renamed"
        ))
        .stdout_has("nothing renamed");
    assert_eq!(
        t.files(""),
        before,
        "nothing moves when the plan has a collision"
    );
    t.vcr(&["rehash", "--dry-run"]).code(2);
}

#[test]
fn a_file_already_holding_the_name_counts_too() {
    let t = TestDir::new();
    let (name, a) = fixture(&["\"prompt\""], "recorded last week");
    let (_, b) = fixture(&["\"prompt\""], "recorded today");
    t.write(&format!("fixtures/{name}"), &a);
    t.write("fixtures/dddddd.json", &b);
    t.vcr(&["rehash", "fixtures/dddddd.json"])
        .code(2)
        .stderr_has(&format!(
            "fixtures/{name}, fixtures/dddddd.json would all be named {name}"
        ));
    assert!(t.exists("fixtures/dddddd.json"));
    // An identical file under the right name is a twin: the stale copy goes.
    t.write("fixtures/dddddd.json", &a);
    t.vcr(&["rehash", "fixtures/dddddd.json"])
        .code(0)
        .stdout_has("merged fixtures/dddddd.json");
    assert!(!t.exists("fixtures/dddddd.json"));
    assert_eq!(t.read(&format!("fixtures/{name}")), a);
}

#[test]
fn names_too_long_for_the_file_system_are_refused() {
    let t = TestDir::new();
    let inputs: Vec<String> = (0..40).map(|i| format!("\"message {i}\"")).collect();
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let (name, text) = fixture(&inputs, "long conversation");
    assert!(name.len() > 255);
    t.write("fixtures/eeeeee.json", &text);
    let (_, short) = prompt(1);
    t.write("fixtures/ffffff.json", &short);
    t.vcr(&["rehash"])
        .code(2)
        .stderr_has("fixtures/eeeeee.json would get a 284-byte name");
    assert!(t.exists("fixtures/eeeeee.json") && t.exists("fixtures/ffffff.json"));
}

#[test]
fn json_lists_every_change() {
    let t = messy_tree();
    let run = t.vcr(&["rehash", "--format", "json"]);
    run.code(0);
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["summary"]["renamed"], 6);
    assert_eq!(doc["summary"]["merged"], 1);
    let events = doc["events"].as_array().unwrap();
    let renamed: Vec<_> = events.iter().filter(|e| e["type"] == "renamed").collect();
    assert_eq!(renamed.len(), 6);
    assert!(
        renamed
            .iter()
            .any(|e| e["from"] == "fixtures/abcdef.json" && e["done"] == true)
    );
    assert_eq!(renamed.iter().filter(|e| e["rewritten"] == true).count(), 1);
}

/// Every original cassette of the messy tree, or its rewritten form, is somewhere in `t`.
#[track_caller]
fn nothing_lost(
    t: &TestDir,
    originals: &std::collections::BTreeSet<Vec<u8>>,
    expected: &BTreeMap<String, Vec<u8>>,
    steps: usize,
) {
    let present: Vec<Vec<u8>> = t.files("").into_values().collect();
    for original in originals {
        let rewritten = expected
            .values()
            .any(|e| present.contains(e) && !originals.contains(e));
        assert!(
            present.contains(original) || rewritten,
            "step {steps}: a cassette was lost"
        );
    }
}

/// Every mutation step of a rehash, killed before it happens; the next run must finish the
/// job with nothing lost, duplicated or half-written.
#[cfg(unix)]
#[test]
fn killed_at_every_step_the_next_run_finishes_the_job() {
    let expected = expected_tree();
    let contents: std::collections::BTreeSet<Vec<u8>> =
        messy_tree().files("").into_values().collect();
    let mut steps = 0;
    loop {
        let t = messy_tree();
        let crashed = t.vcr_with(&["rehash"], &[("VCR_FAULT_KILL_AFTER", &steps.to_string())]);
        if crashed.code == Some(0) {
            assert_eq!(t.files(""), expected);
            break;
        }
        assert_eq!(
            crashed.code, None,
            "step {steps}: killed by a signal\n{}",
            crashed.stderr
        );
        // Right after the crash every original cassette, or its rewritten form, still
        // exists somewhere in the tree.
        nothing_lost(&t, &contents, &expected, steps);
        t.vcr(&["rehash"]).code(0);
        assert_eq!(
            t.files(""),
            expected,
            "step {steps}: the tree after recovery"
        );
        assert!(!t.exists(".vcr/journal.json"));
        steps += 1;
        assert!(steps < 200, "the fault hook never let a run finish");
    }
    assert!(steps > 15, "only {steps} steps: the hook is not counting");
}

/// Real `kill -9` at random moments of a larger rehash: a few rounds in every run, many in
/// the stress run (`--ignored`, in release by CI).
#[cfg(unix)]
#[test]
fn killed_at_random_moments_nothing_is_lost() {
    killed_at_random_moments(4);
}

#[cfg(unix)]
#[test]
#[ignore = "stress: run in release by CI (`cargo test --release -- --ignored`)"]
fn killed_at_random_moments_nothing_is_lost_stress() {
    killed_at_random_moments(64);
}

#[cfg(unix)]
fn killed_at_random_moments(rounds: usize) {
    let build = || {
        let t = TestDir::new();
        for i in 0..150 {
            let (a_name, a) = prompt(2 * i);
            let (b_name, b) = prompt(2 * i + 1);
            t.write(&format!("fixtures/{b_name}"), &a);
            t.write(&format!("fixtures/{a_name}"), &b);
        }
        t
    };
    let reference = build();
    reference.vcr(&["rehash"]).code(0);
    let expected = reference.files("");
    let started = std::time::Instant::now();
    build().vcr(&["rehash"]).code(0);
    let duration = started.elapsed().as_micros() as u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("random kill seed {seed}, a full run takes {duration} us");
    for round in 0..rounds {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let delay = (seed >> 33) % duration.max(1);
        let t = build();
        let mut child = t.command(&["rehash"], &[]).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_micros(delay));
        let _ = child.kill();
        let _ = child.wait();
        t.vcr(&["rehash"]).code(0);
        assert_eq!(
            t.files(""),
            expected,
            "round {round}, killed after {delay} us"
        );
    }
}

/// Key material longer than the first read of a file (and a multi-byte character across the
/// boundary) is read in full before the name is computed.
#[test]
fn large_key_material_is_read_in_full() {
    let t = TestDir::new();
    let long = "é".repeat(40_000) + "x";
    let (name, text) = fixture(
        &[
            &format!("\"{long}\""),
            &format!("\"{}\"", "y".repeat(70_000)),
        ],
        "ok",
    );
    t.write("fixtures/aaaaaa.json", &text);
    t.vcr(&["rehash"])
        .code(0)
        .stdout_has("1 of 1 cassette renamed");
    assert_eq!(t.read(&format!("fixtures/{name}")), text);
    t.vcr(&["rehash"])
        .code(0)
        .stdout_has("0 of 1 cassette renamed");
}

/// A file cut short inside its key material is an error, not a guess.
#[test]
fn a_truncated_key_is_an_error() {
    let t = TestDir::new();
    let (_, text) = fixture(&[&format!("\"{}\"", "z".repeat(50_000))], "ok");
    t.write("fixtures/aaaaaa.json", &text[..30_000]);
    t.vcr(&["rehash"])
        .code(2)
        .stderr_has("fixtures/aaaaaa.json:3:");
    assert!(t.exists("fixtures/aaaaaa.json"));
}

/// Regression (issue 11): a full disk at any step of a rehash. The run stops with an error;
/// if it had to leave cassettes aside, every read-only command says so (exit 2) instead of
/// passing over a tree that is not whole, and the next mutating run finishes the job.
#[test]
fn a_full_disk_at_any_step_is_reported_and_finished_by_the_next_run() {
    let expected = expected_tree();
    let contents: std::collections::BTreeSet<Vec<u8>> =
        messy_tree().files("").into_values().collect();
    let mut steps = 0;
    let mut reported = 0;
    loop {
        let t = messy_tree();
        let failed = t.vcr_with(&["rehash"], &[("VCR_FAULT_FAIL_AFTER", &steps.to_string())]);
        if failed.code == Some(0) {
            assert_eq!(t.files(""), expected);
            break;
        }
        failed
            .code(2)
            .stderr_has("no space left on device (simulated)");
        nothing_lost(&t, &contents, &expected, steps);
        let aside = t
            .files("fixtures")
            .keys()
            .filter(|rel| rel.contains("/.vcr-old-"))
            .count();
        if aside > 0 {
            reported += 1;
            let message = format!("an interrupted `vcr rehash` left {aside} cassette");
            t.vcr(&["verify"]).code(2).stderr_has(&message);
            t.vcr(&["normalize", "--check"])
                .code(2)
                .stderr_has(&message);
            t.vcr(&["rehash", "--dry-run"]).code(2).stderr_has(&message);
            let doc = t.vcr(&["verify", "--format", "json"]).code(2).json();
            assert_eq!(doc["error"]["problems"][0]["id"], "interrupted", "{doc:#}");
        }
        t.vcr(&["rehash"]).code(0);
        assert_eq!(
            t.files(""),
            expected,
            "step {steps}: the tree after the next run"
        );
        assert!(!t.exists(".vcr/journal.json"));
        steps += 1;
        assert!(steps < 200, "the fault hook never let a run finish");
    }
    assert!(
        steps > 15 && reported > 0,
        "{steps} steps, {reported} reported"
    );
}

/// Regression (issue 11): `rehash` read only the key material, so it renamed files whose
/// payload was cut short or held a merge conflict. A file is renamed only when it is
/// well-formed throughout.
#[test]
fn a_file_broken_after_its_key_material_is_not_renamed() {
    let t = TestDir::new();
    let (_, text) = prompt(1);
    let cut = &text[..text.find("\"output\"").unwrap() + 20];
    t.write("fixtures/aaaaaa.json", cut);
    let conflict = text.replacen("\"output\"", "<<<<<<< HEAD\n  \"output\"", 1);
    t.write("fixtures/bbbbbb.json", &conflict);
    let (good_name, good) = prompt(2);
    t.write("fixtures/cccccc.json", &good);
    t.vcr(&["rehash"])
        .code(2)
        .stderr_has("fixtures/aaaaaa.json:")
        .stderr_has("unexpected end of file")
        .stderr_has("fixtures/bbbbbb.json:")
        .stderr_has("unexpected character '<'")
        .stdout_has("1 of 1 cassette renamed");
    assert_eq!(t.read("fixtures/aaaaaa.json"), cut);
    assert_eq!(t.read("fixtures/bbbbbb.json"), conflict);
    assert_eq!(t.read(&format!("fixtures/{good_name}")), good);
}

/// Regression (issue 11): `.vcr` or `.vcr/stash` as a symbolic link would have vcr write its
/// journal, lock and stash wherever the link points; it refuses before creating anything.
#[cfg(unix)]
#[test]
fn a_linked_state_folder_is_refused_before_anything_is_written() {
    for linked in [".vcr", ".vcr/stash"] {
        let t = messy_tree();
        let elsewhere = tempfile::tempdir().unwrap();
        if linked == ".vcr/stash" {
            std::fs::create_dir(t.path(".vcr")).unwrap();
        }
        std::os::unix::fs::symlink(elsewhere.path(), t.path(linked)).unwrap();
        let before = t.files("fixtures");
        let run = if linked == ".vcr" {
            t.vcr(&["rehash"])
        } else {
            t.vcr(&["record", "--only", "fixtures/111111.json", "--", "true"])
        };
        run.code(2).stderr_has(&format!(
            "refusing to use {}: it is a symbolic link",
            t.path(linked).display()
        ));
        assert_eq!(t.files("fixtures"), before, "{linked}: nothing moved");
        assert_eq!(
            std::fs::read_dir(elsewhere.path()).unwrap().count(),
            0,
            "{linked}: nothing created through the link"
        );
    }
}

/// Regression (issue 43): a rehash killed while it wrote its journal left the temporary
/// file of that write in `.vcr/`, which no later run removed. Killed at every step, the next
/// run leaves no temporary file there.
#[cfg(unix)]
#[test]
fn a_killed_rehash_leaves_no_temporary_file_in_the_state_folder_after_the_next_run() {
    let temps = |t: &TestDir| -> Vec<String> {
        std::fs::read_dir(t.path(".vcr"))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|name| name.starts_with(".vcr-"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut left_by_a_kill = 0;
    for steps in 0..200 {
        let t = messy_tree();
        let crashed = t.vcr_with(&["rehash"], &[("VCR_FAULT_KILL_AFTER", &steps.to_string())]);
        if crashed.code == Some(0) {
            break;
        }
        left_by_a_kill += usize::from(!temps(&t).is_empty());
        t.vcr(&["rehash"]).code(0);
        assert_eq!(temps(&t), Vec::<String>::new(), "step {steps}");
    }
    // The case the test is about happened.
    assert!(left_by_a_kill > 0, "no kill left a temporary file in .vcr/");
}

/// An HTTP-only tree has nothing to re-key: `rehash` says why instead of a bare `0 of 0`.
#[test]
fn an_http_only_tree_says_why_nothing_is_renamed() {
    let t = TestDir::new();
    let cassette = "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://api.example.com/v1/models\n  response:\n    body:\n      string: '{}'\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n";
    t.write("tests/cassettes/test_api/test_models.yaml", cassette)
        .write("tests/cassettes/test_api/test_list.yaml", cassette);
    let before = t.files("tests");
    t.vcr(&["rehash"]).code(0).stdout_has(
        "0 of 0 cassettes renamed; 2 HTTP cassettes left as they are (named by their tests, not by a hash of their content)",
    );
    t.vcr(&["-v", "rehash", "--dry-run"]).code(0).stdout_has(
        "skipped tests/cassettes/test_api/test_list.yaml: named by its test, not by a hash of its content",
    );
    assert_eq!(t.files("tests"), before);
}
