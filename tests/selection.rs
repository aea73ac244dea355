//! What a run selects (issue 11): nothing checked is not a pass, configured folders and globs
//! must select something, folders are recognised by what they hold, and a whole-tree run and
//! a run over the same files named one by one agree.

use crate::common;

use std::path::Path;

use common::{TestDir, finding_fields, fixture};

#[test]
fn a_tree_without_cassettes_is_an_error_unless_allowed() {
    let t = TestDir::new();
    t.write("README.md", "# not a cassette\n");
    t.write("fixtures/.keep", "");
    for command in [
        &["verify"][..],
        &["normalize", "--check"],
        &["rehash", "--dry-run"],
    ] {
        t.vcr(command)
            .code(2)
            .stderr_has("no cassette found under")
            .stderr_has("Claude Code fixtures folders")
            .stderr_has("--allow-empty");
        let mut allowed = command.to_vec();
        allowed.push("--allow-empty");
        t.vcr(&allowed).code(0);
    }
    // A folder given by name is searched the same way.
    t.vcr(&["verify", "fixtures"])
        .code(2)
        .stderr_has("no cassette found");
    // Files given by name that are not cassettes are skipped, as pre-commit expects.
    t.vcr(&["verify", "README.md"]).code(0);
}

#[cfg(unix)]
#[test]
fn a_linked_fixtures_folder_is_named_in_the_error() {
    let t = TestDir::new();
    let elsewhere = TestDir::example("claude-code");
    std::os::unix::fs::symlink(elsewhere.path("fixtures"), t.path("fixtures")).unwrap();
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("did not follow the symbolic link `fixtures`");
}

#[test]
fn configured_folders_that_cannot_be_used_name_their_key() {
    for (config, message) in [
        (
            "[claude-code]\nfixtures = [\"recorded\"]\n",
            "`[claude-code] fixtures` entry `recorded` does not exist",
        ),
        (
            "[claude-code]\nfixtures = [\"../elsewhere\"]\n",
            "`[claude-code] fixtures` entry `../elsewhere` is outside the project root",
        ),
        (
            "[dsh]\nscenarios = [\"snapshots\"]\n",
            "`[dsh] scenarios` entry `snapshots` does not exist",
        ),
    ] {
        let t = TestDir::example("claude-code");
        t.write("vcr.toml", config);
        t.vcr(&["verify"]).code(2).stderr_has(message);
        // Even an allowed empty run does not excuse a folder that is not there.
        t.vcr(&["verify", "--allow-empty"])
            .code(2)
            .stderr_has(message);
    }
}

#[test]
fn configured_folders_and_globs_that_select_nothing_are_errors() {
    for (config, message) in [
        (
            "[claude-code]\nfixtures = [\"fixtures\", \"empty\"]\n",
            "`[claude-code] fixtures` entry `empty` selects nothing",
        ),
        (
            "[dsh]\nscenarios = [\"empty\"]\n",
            "`[dsh] scenarios` entry `empty` selects nothing",
        ),
        (
            "[verify]\ntext = [\"**/*.har\"]\n",
            "`[verify] text` entry `**/*.har` selects nothing",
        ),
        (
            "[[cassettes]]\nglob = \"recordings/*.json\"\nformat = \"json\"\nkey = \"/request\"\nserialization = \"js\"\ndigest = \"sha256\"\nname = \"{hash:16}.json\"\n",
            "`[[cassettes]]` 1 `glob` entry `recordings/*.json` selects nothing",
        ),
    ] {
        let t = TestDir::example("claude-code");
        t.write("empty/.keep", "");
        t.write("vcr.toml", config);
        t.vcr(&["verify"]).code(2).stderr_has(message);
        t.vcr(&["verify", "--allow-empty"]).code(0);
    }
}

/// A dsh scenario in (or being) a folder named `fixtures` was skipped, because any
/// `fixtures/` folder was taken for Claude Code's.
#[test]
fn scenario_folders_are_found_in_folders_named_fixtures() {
    let t = TestDir::new();
    let dsh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dsh/tests/snapshots");
    for (from, to) in [
        ("read-and-fix", "tests/fixtures/read-and-fix"),
        ("cancel", "e2e/fixtures"),
    ] {
        for entry in std::fs::read_dir(dsh.join(from)).unwrap() {
            let entry = entry.unwrap();
            t.write(
                &format!("{to}/{}", entry.file_name().to_string_lossy()),
                std::fs::read(entry.path()).unwrap(),
            );
        }
    }
    let (name, text) = fixture(&["\"hello\""], "hi");
    t.write(&format!("app/fixtures/{name}"), &text);
    let run = t.vcr(&["-v", "verify"]);
    run.code(0)
        .stdout_has("scenario tests/fixtures/read-and-fix:")
        .stdout_has("scenario e2e/fixtures:")
        .stdout_has("checked 4 files");

    // Every file named on the command line gives the same result as the whole tree.
    let whole = t.vcr(&["verify", "--format", "json"]).json();
    let files: Vec<String> = t.files("").into_keys().collect();
    let mut args = vec!["verify", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let mut named = t.vcr(&args).json();
    // Named files that are no cassette (the scenarios' `input.json`, ...) are linted as text
    // and counted, never dropped unjudged (issues 21 and 39); the rest is the same.
    let summary = named["summary"].as_object_mut().unwrap();
    assert_eq!(
        summary.remove("as_text"),
        Some(serde_json::json!(2)),
        "{named}"
    );
    let files = summary["files"].as_u64().unwrap();
    summary.insert("files".into(), serde_json::json!(files - 2));
    assert_eq!(whole, named);
}

/// A Claude Code fixture and a finding in a `fixtures` folder that also holds scenario
/// folders: both are read, by a whole-tree run and by named files alike.
#[test]
fn whole_tree_and_named_files_agree_on_a_mixed_fixtures_folder() {
    let t = TestDir::new();
    let (name, text) = fixture(&["\"hello\""], "hi");
    let stale = text.replace("\"hi\"", "\"hi there\"");
    t.write(&format!("fixtures/{name}"), &text);
    t.write("fixtures/abcdef.json", &stale);
    copy_goal_scenario(&t, "fixtures/goal");
    let whole = t.vcr(&["verify", "--format", "json"]);
    whole.code(1);
    let whole = whole.json();
    assert_eq!(whole["summary"]["files"], 4, "{whole:#}");
    let files: Vec<String> = t.files("").into_keys().collect();
    let mut args = vec!["verify", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    assert_eq!(t.vcr(&args).json(), whole);
}

/// `-C` with an absolute folder does not need the current folder, which may be gone.
#[cfg(unix)]
#[test]
fn an_absolute_dash_c_works_when_the_current_folder_is_gone() {
    let t = TestDir::example("claude-code");
    let gone = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "cd \"$1\" && rmdir \"$1\" && exec \"$2\" -C \"$3\" verify",
            "sh",
        ])
        .arg(gone.path())
        .arg(env!("CARGO_BIN_EXE_vcr"))
        .arg(&t.root)
        .env("HOME", "/home/tester")
        .output()
        .unwrap();
    let run = common::Run::from(out);
    run.code(0).stdout_has("checked 5 files: 0 errors");
    // A relative -C needs it, and says so.
    let gone = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "cd \"$1\" && rmdir \"$1\" && exec \"$2\" -C . verify",
            "sh",
        ])
        .arg(gone.path())
        .arg(env!("CARGO_BIN_EXE_vcr"))
        .output()
        .unwrap();
    common::Run::from(out)
        .code(2)
        .stderr_has("cannot read the current directory (give -C an absolute path)");
}

/// A file in a fixtures folder that a `[verify] text` glob also selects is read once, as a
/// fixture (its name is checked), while the glob still takes the other files of the folder
/// and of other folders: the one walk that finds both must not lose either (issue 12).
#[test]
fn a_fixture_a_text_glob_selects_is_read_once_as_a_fixture() {
    let t = TestDir::example("claude-code");
    let fixtures: Vec<String> = t.files("fixtures").into_keys().collect();
    std::fs::rename(t.path(&fixtures[0]), t.path("fixtures/aaaaaa-bbbbbb.json")).unwrap();
    let key =
        "sk-ant-api03-x7Kq2mZ9vR4tL8wN3bY6cH1jF5dG0sPeQuVaXiOkTlMnBrCzDyEhWgJfUo_q9Yd-8vLxMZ2kTQAA";
    t.write("fixtures/notes.json", format!("{{\"note\": \"{key}\"}}\n"));
    t.write("notes/today.json", format!("{{\"note\": \"{key}\"}}\n"));
    // A fixture's name outside a fixtures folder is only a name: the glob takes it as text.
    t.write(
        "notes/cccccc-dddddd.json",
        format!("{{\"note\": \"{key}\"}}\n"),
    );
    t.write(
        "vcr.toml",
        "[verify]\ntext = [\"fixtures/*.json\", \"notes/*.json\"]\n",
    );
    let run = t.vcr(&["verify", "--format", "json"]);
    let doc = run.code(1).json();
    assert_eq!(
        finding_fields(&doc, &["id", "path"]),
        [
            "name/stale fixtures/aaaaaa-bbbbbb.json",
            "leak/secret fixtures/notes.json",
            "leak/secret notes/cccccc-dddddd.json",
            "leak/secret notes/today.json",
        ],
        "{doc:#}"
    );
    assert_eq!(doc["summary"]["files"], fixtures.len() + 3, "{doc:#}");
    // The same files named one by one give the same report.
    let mut named = vec!["verify", "--format", "json"];
    let paths: Vec<String> = t.files("fixtures").into_keys().collect();
    named.extend(paths.iter().map(String::as_str));
    named.extend(["notes/cccccc-dddddd.json", "notes/today.json"]);
    assert_eq!(t.vcr(&named).json(), doc);
}

/// A vcrpy cassette whose request sends an API key.
fn vcrpy_with_key(uri: &str) -> String {
    format!(
        "interactions:\n- request:\n    body: null\n    headers:\n      Authorization:\n      - Bearer sk-proj-Xq7Lm2Nv9Rt4Kp8Wz3Yb6Hc1Jf5Gd0SaEuQiOvTnMlBrCx\n    method: GET\n    uri: {uri}\n  response:\n    body:\n      string: '{{\"ok\": true}}'\n    headers:\n      Content-Type:\n      - application/json\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    )
}

/// A whole-tree `verify` checks each file as the walk finds it, holding no list of the tree
/// (issue 25). It reports what a run over the same folder given by name reports, which
/// selects every file first: the same findings in the same order (`a-b/...` before `a/...`,
/// as the paths sort as strings). Two fixtures of one folder that share a name still
/// collide when another folder's files come between them, and the same name in other
/// folders is no collision.
#[test]
fn a_whole_tree_run_as_the_walk_goes_reports_what_a_selected_run_does() {
    let t = TestDir::new();
    let (name, text) = fixture(&["\"hello\""], "hi");
    assert!(!name.starts_with('f'), "{name} sorts after the subfolder");
    t.write(&format!("fixtures/{name}"), &text);
    t.write(&format!("fixtures/f0-sub/fixtures/{name}"), &text);
    t.write(
        "fixtures/f0-sub/cassettes/models.yaml",
        vcrpy_with_key("https://api.example.com/v1/models"),
    );
    t.write("fixtures/ffffff.json", &text);
    t.write(&format!("other/fixtures/{name}"), &text);
    t.write(
        "a-b/cassettes/one.yaml",
        vcrpy_with_key("https://api.example.com/v1/one"),
    );
    t.write(
        "a/cassettes/two.yaml",
        vcrpy_with_key("https://api.example.com/v1/two"),
    );
    copy_goal_scenario(&t, "scenarios/goal");
    let whole = t.vcr(&["verify", "--format", "json"]);
    let whole = whole.code(1).json();
    let collisions: Vec<String> = finding_fields(&whole, &["id", "path"])
        .into_iter()
        .filter(|f| f.starts_with("name/collision"))
        .collect();
    assert_eq!(
        collisions,
        [
            format!("name/collision fixtures/{name}"),
            "name/collision fixtures/ffffff.json".to_owned(),
        ],
        "{whole:#}"
    );
    let secrets: Vec<String> = finding_fields(&whole, &["id", "path"])
        .into_iter()
        .filter(|f| f.starts_with("leak/secret"))
        .collect();
    assert_eq!(
        secrets,
        [
            "leak/secret a-b/cassettes/one.yaml",
            "leak/secret a/cassettes/two.yaml",
            "leak/secret fixtures/f0-sub/cassettes/models.yaml",
        ],
        "{whole:#}"
    );
    assert_eq!(whole["summary"]["files"], 9, "{whole:#}");
    assert_eq!(t.vcr(&["verify", ".", "--format", "json"]).json(), whole);
    // The human report, scenario lines and summary included, is the same too.
    let human = |args: &[&str]| {
        let run = t.vcr(args);
        (run.stdout.clone(), run.stderr.clone())
    };
    assert_eq!(human(&["verify", "-v"]), human(&["verify", "-v", "."]));
}

/// A configured fixtures folder the walk does not enter (here, one `exclude` leaves out) is
/// still read, as configuration names it: last, by a whole-tree run that checks files as
/// the walk finds them.
#[test]
fn a_configured_fixtures_folder_the_walk_leaves_out_is_still_read() {
    let t = TestDir::new();
    let (name, text) = fixture(&["\"hello\""], "hi");
    t.write(&format!("recorded/{name}"), &text);
    t.write(
        "recorded/abcdef.json",
        text.replace("\"hi\"", "\"hi there\""),
    );
    t.write(
        "a/cassettes/two.yaml",
        vcrpy_with_key("https://api.example.com/v1/two"),
    );
    t.write(
        "vcr.toml",
        "exclude = [\"recorded\"]\n[claude-code]\nfixtures = [\"recorded\"]\n",
    );
    let whole = t.vcr(&["verify", "--format", "json"]);
    let whole = whole.code(1).json();
    assert_eq!(
        finding_fields(&whole, &["id", "path"]),
        [
            "leak/secret a/cassettes/two.yaml".to_owned(),
            "name/stale recorded/abcdef.json".to_owned(),
            format!("name/collision recorded/{name}"),
            "name/collision recorded/abcdef.json".to_owned(),
        ],
        "{whole:#}"
    );
    assert_eq!(whole["summary"]["files"], 3, "{whole:#}");
    assert_eq!(t.vcr(&["verify", ".", "--format", "json"]).json(), whole);
}

/// Copies the example dsh scenario `goal` into `folder` of `t`.
fn copy_goal_scenario(t: &TestDir, folder: &str) {
    let dsh = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dsh/tests/snapshots/goal");
    for entry in std::fs::read_dir(&dsh).unwrap() {
        let entry = entry.unwrap();
        t.write(
            &format!("{folder}/{}", entry.file_name().to_string_lossy()),
            std::fs::read(entry.path()).unwrap(),
        );
    }
}
