//! A large Claude Code message fixture made of small stream events is verified and
//! normalized in at most three times its size (issue 12): its `output` is read an item at a
//! time, compared as it is written, and never held whole. A test binary of its own, so that
//! the peak memory of the children it waited for is that of these runs only.

use crate::common;

use common::TestDir;

/// A canonical message fixture of about `mb` megabytes made by `bench/gen-large-fixture`
/// (in a child process: a fork of this process would count its memory as the child's).
/// Returns its path relative to `t`.
fn large_fixture(t: &TestDir, mb: u32) -> String {
    let made = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/bench/gen-large-fixture"
        ))
        .arg(t.path(""))
        .args(["--mb", &mb.to_string(), "--turns", "4"])
        .output()
        .expect("python3 runs");
    assert!(made.status.success(), "{made:?}");
    let mut names: Vec<String> = std::fs::read_dir(t.path("fixtures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 1);
    format!("fixtures/{}", names.remove(0))
}

#[test]
fn a_large_fixture_of_stream_events_is_verified_and_normalized_in_three_times_its_size() {
    let t = TestDir::new();
    let rel = large_fixture(&t, 40);
    let size = std::fs::metadata(t.path(&rel)).unwrap().len();
    for (args, says) in [
        (&["verify", &rel][..], "checked 1 file"),
        (
            &["normalize", "--check", &rel],
            "0 of 1 cassette would change",
        ),
        (&["normalize", &rel], "0 of 1 cassette normalized"),
    ] {
        let (code, stdout, peak) = t.vcr_measured(args, &[]);
        assert_eq!(code, 0, "{args:?}: {stdout}");
        assert!(stdout.contains(says), "{args:?}: {stdout}");
        assert!(
            peak <= 3 * size,
            "{args:?}: peak {} MiB for a file of {} MiB",
            peak >> 20,
            size >> 20
        );
    }
}

/// The same fixture stored compact, which `normalize` must rewrite: its canonical form
/// (nearly twice as large) is written to the temporary file an item at a time, so memory
/// holds the file it read and one item, not also its rewritten copy (issue 12). Everything
/// large is done in child processes, so that this process's memory (which a child starts
/// with) stays small.
#[test]
fn a_compact_large_fixture_is_rewritten_without_a_copy_in_memory() {
    let t = TestDir::new();
    let rel = large_fixture(&t, 40);
    std::fs::copy(t.path(&rel), t.path("pretty.json")).unwrap();
    let compacted = std::process::Command::new("python3")
        .args(["-c", COMPACT])
        .arg(t.path(&rel))
        .status()
        .expect("python3 runs");
    assert!(compacted.success());
    let size = std::fs::metadata(t.path(&rel)).unwrap().len();
    let (code, stdout, peak) = t.vcr_measured(&["normalize", &rel], &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("1 of 1 cassette normalized"), "{stdout}");
    let same = std::process::Command::new("cmp")
        .arg(t.path(&rel))
        .arg(t.path("pretty.json"))
        .status()
        .expect("cmp runs");
    assert!(
        same.success(),
        "normalize wrote other bytes than the canonical form"
    );
    // The file, one item and the process's fixed cost (about 18 MiB for a debug build); a
    // copy of the canonical form alone would add 1.7 times the file.
    assert!(
        peak <= size + size / 2 + (16 << 20),
        "peak {} MiB for a file of {} MiB",
        peak >> 20,
        size >> 20
    );
}

/// Rewrites the JSON file `argv[1]` compact, as `JSON.stringify` does.
const COMPACT: &str = "import json, sys
p = sys.argv[1]
d = json.load(open(p, encoding='utf-8'))
open(p, 'w', encoding='utf-8').write(json.dumps(d, separators=(',', ':'), ensure_ascii=False))";
