//! A plan applies only to what it read (issue 11): a cassette that another process (an
//! editor, `git checkout`) replaces while a command runs is left as it is and reported, never
//! renamed, rewritten, deleted or moved aside on the strength of what the command read before.
//!
//! Each test stops the command at its first change to the tree (`VCR_TEST_BARRIER`), after it
//! has read every file of its plan, and saves a cassette there as an editor would; the last
//! test races a real writer against `rehash` with no barrier at all.

use crate::common;

use common::{TestDir, fixture, git, save_as_editor, with_change_at_barrier};

const RULE: &str =
    "[[rule]]\nid = \"host\"\nliteral = \"SECRET-HOST\"\nreplace = \"[HOST]\"\nscope = \"key\"\n";

/// No temporary file of vcr's is left anywhere in the tree.
#[track_caller]
fn no_leftovers(t: &TestDir) {
    let left: Vec<String> = t
        .files("")
        .into_keys()
        .filter(|rel| {
            rel.rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with(".vcr-"))
        })
        .collect();
    assert!(left.is_empty(), "leftovers: {left:?}");
    assert!(!t.exists(".vcr/journal.json") && !t.exists(".vcr/journal.next.json"));
}

#[test]
fn rehash_leaves_a_cassette_renamed_under_it() {
    let t = TestDir::new();
    let (name, text) = fixture(&["\"hello\""], "recorded answer");
    let (_, edited) = fixture(&["\"hello\""], "answer edited while rehash ran");
    let (other_name, other) = fixture(&["\"other\""], "other answer");
    t.write("fixtures/aaaaaa.json", &text);
    t.write("fixtures/bbbbbb.json", &other);
    let run = with_change_at_barrier(&t, &["rehash"], || {
        save_as_editor(&t.path("fixtures/aaaaaa.json"), edited.as_bytes());
    });
    run.code(2)
        .stderr_has("fixtures/aaaaaa.json changed during the run, not renamed");
    assert_eq!(t.read("fixtures/aaaaaa.json"), edited, "the edit is kept");
    assert!(!t.exists(&format!("fixtures/{name}")));
    // The rest of the plan went ahead.
    assert_eq!(t.read(&format!("fixtures/{other_name}")), other);
    no_leftovers(&t);
    // Machine-readable output carries it as the run's error.
    let t = TestDir::new();
    t.write("fixtures/cccccc.json", &text);
    let run = with_change_at_barrier(&t, &["rehash", "--format", "json"], || {
        save_as_editor(&t.path("fixtures/cccccc.json"), edited.as_bytes());
    });
    let doc = run.code(2).json();
    assert_eq!(doc["error"]["problems"][0]["id"], "changed", "{doc:#}");
    assert_eq!(doc["error"]["problems"][0]["path"], "fixtures/cccccc.json");
}

/// The defect of issue 11: the edit was moved aside and replaced by the re-keyed old content.
#[test]
fn rehash_never_replaces_an_edit_with_a_rekeyed_old_copy() {
    let t = TestDir::new();
    t.write("vcr.toml", RULE);
    let (raw_name, raw) = fixture(&["\"deploy to SECRET-HOST\""], "deployed");
    let (new_name, _) = fixture(&["\"deploy to [HOST]\""], "deployed");
    let (_, edited) = fixture(&["\"deploy to SECRET-HOST\""], "deployed, edited by hand");
    t.write(&format!("fixtures/{raw_name}"), &raw);
    let run = with_change_at_barrier(&t, &["rehash"], || {
        save_as_editor(&t.path(&format!("fixtures/{raw_name}")), edited.as_bytes());
    });
    run.code(2).stderr_has(&format!(
        "fixtures/{raw_name} changed during the run, not renamed"
    ));
    assert_eq!(t.read(&format!("fixtures/{raw_name}")), edited);
    assert!(!t.exists(&format!("fixtures/{new_name}")));
    no_leftovers(&t);
    // Run again, and the edit itself is re-keyed.
    t.vcr(&["rehash"]).code(0);
    assert!(
        t.read(&format!("fixtures/{new_name}"))
            .contains("edited by hand")
    );
}

/// A move whose target name is held by a file that stayed (because it changed) is left
/// undone too, and so is a move that needed the name that file freed.
#[test]
fn rehash_leaves_what_depends_on_a_changed_cassette() {
    let t = TestDir::new();
    let (n1, f1) = fixture(&["\"one\""], "1");
    let (n2, f2) = fixture(&["\"two\""], "2");
    let (_, f2_edited) = fixture(&["\"two\""], "2, edited");
    // A cycle: each sits at the other's name.
    t.write(&format!("fixtures/{n2}"), &f1);
    t.write(&format!("fixtures/{n1}"), &f2);
    let run = with_change_at_barrier(&t, &["rehash"], || {
        save_as_editor(&t.path(&format!("fixtures/{n1}")), f2_edited.as_bytes());
    });
    run.code(2)
        .stderr_has(&format!(
            "fixtures/{n1} changed during the run, not renamed"
        ))
        .stderr_has(&format!(
            "fixtures/{n2} changed during the run, not renamed (the name it was to take"
        ));
    assert_eq!(t.read(&format!("fixtures/{n1}")), f2_edited);
    assert_eq!(t.read(&format!("fixtures/{n2}")), f1);
    no_leftovers(&t);
}

#[test]
fn normalize_leaves_a_cassette_saved_under_it() {
    let t = TestDir::new();
    let (name, text) = fixture(&["\"hello\""], "answer");
    let compact =
        serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
    t.write(&format!("fixtures/{name}"), &compact);
    let edited = compact.replace("answer", "answer edited meanwhile");
    let run = with_change_at_barrier(&t, &["normalize"], || {
        save_as_editor(&t.path(&format!("fixtures/{name}")), edited.as_bytes());
    });
    run.code(2).stderr_has(&format!(
        "fixtures/{name} changed during the run, not rewritten"
    ));
    assert_eq!(t.read(&format!("fixtures/{name}")), edited);
    no_leftovers(&t);
}

#[test]
fn prune_keeps_an_orphan_saved_during_the_run() {
    let t = TestDir::new();
    let (used, used_text) = fixture(&["\"used\""], "used");
    let (orphan, orphan_text) = fixture(&["\"orphan\""], "orphan");
    let (gone, gone_text) = fixture(&["\"gone\""], "gone");
    for (name, text) in [
        (&used, &used_text),
        (&orphan, &orphan_text),
        (&gone, &gone_text),
    ] {
        t.write(&format!("fixtures/{name}"), text);
    }
    git(&t.root, &["init", "-q"]);
    git(&t.root, &["add", "fixtures"]);
    git(&t.root, &["commit", "-q", "-m", "cassettes"]);
    t.write("usage.log", format!("fixtures/{used}\n"));
    let edited = orphan_text.replace("orphan\"", "orphan, edited\"");
    let run = with_change_at_barrier(
        &t,
        &["prune", "--delete", "--usage-log", "usage.log"],
        || save_as_editor(&t.path(&format!("fixtures/{orphan}")), edited.as_bytes()),
    );
    run.code(2)
        .stderr_has(&format!(
            "fixtures/{orphan} changed during the run, not deleted"
        ))
        .stdout_has("deleted 1 orphan");
    assert_eq!(t.read(&format!("fixtures/{orphan}")), edited);
    assert!(!t.exists(&format!("fixtures/{gone}")));
    no_leftovers(&t);
}

#[test]
fn record_does_not_move_aside_a_cassette_saved_under_it() {
    let t = TestDir::new();
    let (name, text) = fixture(&["\"hello\""], "recorded");
    t.write(&format!("fixtures/{name}"), &text);
    t.write("harness.sh", "touch ran\n");
    let edited = text.replace("recorded", "edited by hand");
    let run = with_change_at_barrier(
        &t,
        &["record", "--only", "fixtures/*", "--", "sh", "harness.sh"],
        || save_as_editor(&t.path(&format!("fixtures/{name}")), edited.as_bytes()),
    );
    run.code(2)
        .stderr_has(&format!(
            "fixtures/{name} changed during the run, not moved aside"
        ))
        .stderr_has("nothing was recorded");
    assert!(!t.exists("ran"), "the test command did not run");
    assert_eq!(t.read(&format!("fixtures/{name}")), edited);
    assert!(!t.exists(".vcr/stash/manifest.json"));
    no_leftovers(&t);
}

/// No barrier: a writer saves one cassette as fast as it can while `rehash` re-keys the
/// tree around it, and stops at a random moment of the run. Its last save is in the tree,
/// whether rehash re-keyed it (under the new name) or left it (under its own).
#[cfg(unix)]
#[test]
fn a_racing_writer_never_loses_its_last_save() {
    racing_writer(4);
}

/// The same, many rounds (`--ignored`, in release by CI).
#[cfg(unix)]
#[test]
#[ignore = "stress: run in release by CI (`cargo test --release -- --ignored`)"]
fn a_racing_writer_never_loses_its_last_save_stress() {
    racing_writer(64);
}

#[cfg(unix)]
fn racing_writer(rounds: usize) {
    use std::time::{Duration, Instant};
    let build = || {
        let t = TestDir::new();
        t.write("vcr.toml", RULE);
        for i in 0..200 {
            let (name, text) = fixture(&[&format!("\"deploy {i} to SECRET-HOST\"")], "done");
            t.write(&format!("fixtures/{name}"), &text);
        }
        t
    };
    let started = Instant::now();
    build().vcr(&["rehash"]).code(0);
    let duration = started.elapsed();
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("racing writer seed {seed}, a run takes {duration:?}");
    let mut caught_in_the_act = 0;
    for round in 0..rounds {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let stop_after = duration.mul_f64((seed >> 11) as f64 / (1u64 << 53) as f64);
        let t = build();
        let (raw_name, _) = fixture(&["\"deploy 7 to SECRET-HOST\""], "done");
        let target = t.path(&format!("fixtures/{raw_name}"));
        let child = t
            .command(&["rehash"], &[])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let writer = std::thread::spawn(move || {
            let start = Instant::now();
            let mut version = 0;
            while version == 0 || start.elapsed() < stop_after {
                version += 1;
                let (_, text) =
                    fixture(&["\"deploy 7 to SECRET-HOST\""], &format!("edit {version}"));
                save_as_editor(&target, text.as_bytes());
                std::thread::sleep(Duration::from_micros(100));
            }
            format!("edit {version}\"")
        });
        let run = common::Run::from(child.wait_with_output().unwrap());
        let last = writer.join().unwrap();
        assert!(
            matches!(run.code, Some(0 | 2)),
            "round {round}: {}",
            run.stderr
        );
        caught_in_the_act += usize::from(run.code == Some(2));
        let holders: Vec<String> = t
            .files("fixtures")
            .into_iter()
            .filter(|(_, bytes)| String::from_utf8_lossy(bytes).contains(&last))
            .map(|(rel, _)| rel)
            .collect();
        assert_eq!(
            holders.len(),
            1,
            "round {round}: the last save ({last}) is in exactly one file"
        );
        no_leftovers(&t);
    }
    eprintln!("{caught_in_the_act} of {rounds} rounds saw the writer change a file under the plan");
}
