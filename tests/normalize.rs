//! `vcr normalize` as a user runs it: the real binary on real trees in temporary folders.

use crate::common;

use common::{TestDir, fixture, machine_vectors};

/// A tree holding the seed writer's own files for one machine.
fn seed_tree(platform: &str) -> TestDir {
    let t = TestDir::new();
    let vectors = machine_vectors(platform);
    t.write("vcr.toml", vectors[0].machine.config());
    for v in &vectors {
        t.write(&format!("fixtures/{}", v.seed_name), &v.seed_text);
    }
    t
}

/// The same recordings as a harness that forgot to dehydrate wrote them.
fn raw_tree(platform: &str) -> TestDir {
    let t = TestDir::new();
    let vectors = machine_vectors(platform);
    t.write("vcr.toml", vectors[0].machine.config());
    for v in &vectors {
        t.write(&format!("fixtures/{}", v.raw_name), &v.raw);
    }
    t
}

#[test]
fn a_tree_written_by_the_seed_passes_check_untouched() {
    for platform in ["linux", "darwin", "win32"] {
        let t = seed_tree(platform);
        let before = t.files("fixtures");
        t.vcr(&["normalize", "--check"])
            .code(0)
            .stdout_has("0 of 4 cassettes would change");
        t.vcr(&["normalize"])
            .code(0)
            .stdout_has("0 of 4 cassettes normalized");
        assert_eq!(t.files("fixtures"), before, "{platform}");
    }
}

#[test]
fn raw_recordings_become_the_seed_writer_bytes_and_names() {
    for platform in ["linux", "darwin", "win32"] {
        let t = raw_tree(platform);
        let raw = t.files("fixtures");
        let check = t.vcr(&["normalize", "--check"]);
        check
            .code(1)
            .stdout_has("would normalize fixtures/")
            .stdout_has("stale name");
        assert_eq!(t.files("fixtures"), raw, "--check must not write");

        t.vcr(&["normalize"])
            .code(0)
            .stdout_has("4 of 4 cassettes normalized");
        t.vcr(&["rehash"])
            .code(0)
            .stdout_has("4 of 4 cassettes renamed");

        let expected: std::collections::BTreeMap<String, Vec<u8>> = machine_vectors(platform)
            .into_iter()
            .map(|v| {
                (
                    format!("fixtures/{}", v.seed_name),
                    v.seed_text.into_bytes(),
                )
            })
            .collect();
        assert_eq!(t.files("fixtures"), expected, "{platform}");

        // Idempotent: nothing left to do.
        t.vcr(&["normalize", "--check"]).code(0);
        t.vcr(&["rehash", "--dry-run"])
            .code(0)
            .stdout_has("0 of 4 cassettes would be renamed");
    }
}

#[test]
fn diff_shows_what_would_change() {
    let t = raw_tree("linux");
    let run = t.vcr(&["normalize", "--check", "--diff"]);
    run.code(1)
        .stdout_has("--- a/fixtures/")
        .stdout_has("+++ b/fixtures/")
        .stdout_has("-            \"requestId\": \"req_011CS0\",")
        .stdout_has("+      \"requestId\": \"REQUEST_ID\",")
        .stdout_has("+            \"text\": \"I found the bug in [CWD]/src/app.ts (num_files=\\\"[NUM]\\\").\",");
    assert!(!run.stdout.contains('\u{1b}'), "no colour when not asked");
    let coloured = t.vcr(&["--color", "always", "normalize", "--check", "--diff"]);
    assert!(
        coloured.stdout.contains("\u{1b}[32m+"),
        "{}",
        coloured.stdout
    );
}

#[test]
fn diffs_never_show_a_secret() {
    // Built at run time so that this file holds no secret-shaped literal.
    let key = format!("sk-ant-api03-{}", "Zq7XvB2mKp9LwR4tYc8NdF3hJs6G");
    let pem = format!(
        "-----BEGIN {}-----\\nMIIEvQIBADANBgkqhkiG9w0B\\n-----END {}-----",
        "PRIVATE KEY", "PRIVATE KEY"
    );
    let t = TestDir::new();
    let raw = format!(
        "{{\"input\":[\"hello\"],\"output\":[{{\"type\":\"system\",\"note\":\"{key}\",\"pem\":\"{pem}\"}}]}}"
    );
    t.write("fixtures/aaf4c6.json", &raw);
    let run = t.vcr(&["normalize", "--check", "--diff"]);
    run.code(1).stdout_has("+      \"note\": \"sk-ant-a");
    assert!(!run.stdout.contains(&key), "{}", run.stdout);
    assert!(
        !run.stdout.contains("MIIEvQIBADANBgkqhkiG9w0B"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("-----BEGIN PRIVATE KEY-----"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_output_is_one_versioned_document() {
    let t = raw_tree("linux");
    let run = t.vcr(&["normalize", "--check", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["command"], "normalize");
    assert_eq!(doc["summary"]["files"], 4);
    assert_eq!(doc["summary"]["changed"], 4);
    let events = doc["events"].as_array().unwrap();
    assert_eq!(
        events.iter().filter(|e| e["type"] == "normalized").count(),
        4
    );
    assert_eq!(
        events.iter().filter(|e| e["type"] == "stale_name").count(),
        4
    );
    assert!(events.iter().all(|e| e["written"] != true));
}

#[test]
fn bad_files_are_reported_with_position_and_left_alone() {
    let t = TestDir::new();
    let (_, good) = fixture(&[r#""hello""#], "hi");
    // A good file with CRLF line endings, so something is still written.
    t.write("fixtures/000000.json", good.replace('\n', "\r\n"));
    let bad: [(&str, &[u8], &str); 7] = [
        (
            "fixtures/111111.json",
            b"{\n  \"input\": [\n    \"x\"",
            "fixtures/111111.json:3:8: unexpected end of file (truncated?) [parse]",
        ),
        (
            "fixtures/222222.json",
            b"not json at all",
            "fixtures/222222.json:1:2: unexpected character 'o' [parse]",
        ),
        (
            "fixtures/333333.json",
            b"{\"input\": [\"\xff\"]}",
            "fixtures/333333.json:1:13: invalid UTF-8 [parse]",
        ),
        (
            "fixtures/444444.json",
            "\u{feff}{}".as_bytes(),
            "fixtures/444444.json:1:1: byte order mark at the start (JSON.parse rejects it) [parse]",
        ),
        (
            "fixtures/555555.json",
            b"{\"input\": [],\n \"output\": {\"type\": \"assistant\"}}",
            "fixtures/555555.json:2:2: `output` is a single object: this is the old 0.2.x fixture shape, re-record it [schema]",
        ),
        (
            "fixtures/666666.json",
            b"{\"input\": [], \"output\": [{\"type\": \"assistant\"}]}",
            "fixtures/666666.json:1:27: `output[0].message` is missing [schema]",
        ),
        (
            "fixtures/token-count-0123456789ab.json",
            b"{\"tokenCount\": \"12\"}",
            "fixtures/token-count-0123456789ab.json:1:16: `tokenCount` must be a number or null, found a string [schema]",
        ),
    ];
    for (path, bytes, _) in &bad {
        t.write(path, bytes);
    }
    for args in [&["normalize", "--check"][..], &["normalize"][..]] {
        let run = t.vcr(args);
        run.code(2);
        for (_, _, message) in &bad {
            run.stderr_has(message);
        }
        run.stdout_has("7 unreadable files");
    }
    let after = t.files("fixtures");
    for (path, bytes, _) in &bad {
        assert_eq!(after[*path], *bytes, "{path} must be left alone");
    }
    assert_eq!(
        String::from_utf8_lossy(&after["fixtures/000000.json"]),
        good,
        "the good file was still normalized"
    );
}

#[test]
fn unreadable_files_are_reported() {
    let t = TestDir::new();
    let (name, text) = fixture(&[r#""hello""#], "hi");
    t.write(&format!("fixtures/{name}"), &text);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let path = t.path(&format!("fixtures/{name}"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read(&path).is_ok() {
            common::skip("running as root, permissions do not apply");
            return;
        }
        t.vcr(&["normalize"])
            .code(2)
            .stderr_has(&format!("fixtures/{name}: Permission denied"));
    }
}

#[test]
fn crlf_files_become_lf() {
    let t = TestDir::new();
    let (name, text) = fixture(&[r#""hello""#], "hi");
    t.write(&format!("fixtures/{name}"), text.replace('\n', "\r\n"));
    t.vcr(&["normalize"])
        .code(0)
        .stdout_has("1 of 1 cassette normalized");
    assert_eq!(t.read(&format!("fixtures/{name}")), text);
}

#[test]
fn user_rules_apply_to_their_scope() {
    let t = TestDir::new();
    t.write(
        "vcr.toml",
        r#"
[[rule]]
id = "build-host"
regex = "build-(\\d+)\\.ci\\.internal"
replace = "[HOST:$1]"
scope = "payload"

[[rule]]
id = "ticket"
literal = "TICKET-42"
replace = "[TICKET]"
scope = "key"
"#,
    );
    let (name, text) = fixture(
        &[r#""fix TICKET-42 on build-7.ci.internal""#],
        "done on build-7.ci.internal for TICKET-42",
    );
    t.write(&format!("fixtures/{name}"), &text);
    t.vcr(&["normalize"]).code(0).stdout_has("stale name");
    let out = t.read(&format!("fixtures/{name}"));
    assert!(
        out.contains(r#""fix [TICKET] on build-7.ci.internal""#),
        "{out}"
    );
    assert!(out.contains(r#""done on [HOST:7] for TICKET-42""#), "{out}");
}

#[test]
fn configuration_errors_name_the_problem() {
    let t = TestDir::new();
    t.write("vcr.toml", "[claude-code]\ncwdd = \"/x\"\n");
    t.vcr(&["normalize"])
        .code(2)
        .stderr_has("invalid config file")
        .stderr_has("vcr.toml")
        .stderr_has("unknown field `cwdd`");

    t.write(
        "vcr.toml",
        "[[rule]]\nid = \"broken\"\nregex = \"(a\"\nreplace = \"x\"\n",
    );
    t.vcr(&["normalize"])
        .code(2)
        .stderr_has("rule `broken` has an invalid regex");

    t.write("other.toml", "[claude-code]\nplatform = \"beos\"\n");
    t.vcr(&["--config", "other.toml", "normalize"])
        .code(2)
        .stderr_has("other.toml")
        .stderr_has("unknown variant `beos`");

    t.vcr_with(&["normalize"], &[("VCR_CONFIG", "missing.toml")])
        .code(2)
        .stderr_has("cannot read config file");
}

#[test]
fn config_is_found_above_the_working_directory() {
    let t = TestDir::new();
    t.write(".git/HEAD", "ref: refs/heads/main\n");
    t.write("vcr.toml", "[claude-code]\ncwd = \"/srv/app\"\n");
    let (name, text) = fixture(&[r#""hello""#], "see /srv/app/x");
    t.write(&format!("fixtures/{name}"), &text);
    t.write("sub/dir/readme.txt", "");
    let run = t
        .command(&["-v", "normalize"], &[])
        .arg("-C")
        .arg(t.path("sub/dir"))
        .output()
        .unwrap();
    let run = common::Run::from(run);
    run.code(0)
        .stderr_has(&format!("config file: {}", t.path("vcr.toml").display()));
    assert!(t.read(&format!("fixtures/{name}")).contains("see [CWD]/x"));
}

/// Issue 24: `[tool.vcr]` in `pyproject.toml` is found as `vcr.toml` is; a `vcr.toml` beside
/// it wins; a `pyproject.toml` without the table is not a configuration; an unknown key in
/// the table is an error that names the file and its line.
#[test]
fn tool_vcr_in_pyproject_is_a_configuration() {
    let t = TestDir::new();
    t.write(".git/HEAD", "ref: refs/heads/main\n");
    let pyproject = "[project]\nname = \"app\"\n\n[tool.ruff]\nline-length = 100\n\n[tool.vcr.claude-code]\ncwd = \"/srv/app\"\n";
    t.write("pyproject.toml", pyproject);
    let (name, text) = fixture(&[r#""hello""#], "see /srv/app/x and /srv/web/y");
    let rel = format!("fixtures/{name}");
    t.write(&rel, &text);
    t.write("sub/dir/readme.txt", "");
    let run = t
        .command(&["-v", "normalize"], &[])
        .arg("-C")
        .arg(t.path("sub/dir"))
        .output()
        .unwrap();
    common::Run::from(run).code(0).stderr_has(&format!(
        "config file: {}",
        t.path("pyproject.toml").display()
    ));
    assert!(
        t.read(&rel).contains("see [CWD]/x and /srv/web/y"),
        "{}",
        t.read(&rel)
    );

    // A vcr.toml beside it wins.
    t.write(&rel, &text);
    t.write("vcr.toml", "[claude-code]\ncwd = \"/srv/web\"\n");
    t.vcr(&["-v", "normalize"])
        .code(0)
        .stderr_has(&format!("config file: {}", t.path("vcr.toml").display()));
    assert!(
        t.read(&rel).contains("see /srv/app/x and [CWD]/y"),
        "{}",
        t.read(&rel)
    );

    // Without the table, the file is Python's alone.
    std::fs::remove_file(t.path("vcr.toml")).unwrap();
    t.write("pyproject.toml", "[project]\nname = \"app\"\n");
    t.vcr(&["-v", "verify"])
        .code(0)
        .stderr_has("config file: none");

    // A typo in the table is an error at its line.
    t.write(
        "pyproject.toml",
        "[project]\nname = \"app\"\n\n[tool.vcr.verify]\ntexts = [\"*.md\"]\n",
    );
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("pyproject.toml")
        .stderr_has("line 5")
        .stderr_has("unknown field `texts`");
}

#[test]
fn given_paths_limit_the_run() {
    let t = TestDir::new();
    let (a, a_text) = fixture(&[r#""a""#], "x");
    let (b, b_text) = fixture(&[r#""b""#], "y");
    t.write(&format!("fixtures/{a}"), a_text.replace('\n', "\r\n"));
    t.write(&format!("fixtures/{b}"), b_text.replace('\n', "\r\n"));
    t.write("fixtures/notes.txt", "not a cassette");
    t.vcr(&[
        "-v",
        "normalize",
        &format!("fixtures/{a}"),
        "fixtures/notes.txt",
    ])
    .code(0)
    .stdout_has("1 of 1 cassette normalized")
    .stdout_has("skipped fixtures/notes.txt: not a cassette vcr knows");
    assert_eq!(t.read(&format!("fixtures/{a}")), a_text);
    assert_eq!(
        t.read(&format!("fixtures/{b}")),
        b_text.replace('\n', "\r\n")
    );

    t.vcr(&["normalize", "fixtures/nope.json"])
        .code(2)
        .stderr_has("fixtures/nope.json: no such file or folder");
    let outside = TestDir::new();
    outside.write("fixtures/abcdef.json", "{}");
    t.vcr(&[
        "normalize",
        outside.path("fixtures/abcdef.json").to_str().unwrap(),
    ])
    .code(2)
    .stderr_has("outside the project root");
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_never_written_through() {
    let t = TestDir::new();
    let elsewhere = TestDir::new();
    let (name, text) = fixture(&[r#""a""#], "x");
    let crlf = text.replace('\n', "\r\n");
    elsewhere.write(&format!("fixtures/{name}"), &crlf);
    std::fs::create_dir_all(t.path("fixtures")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path(&format!("fixtures/{name}")),
        t.path(&format!("fixtures/{name}")),
    )
    .unwrap();
    // Walking skips the link (and, finding nothing else, says so); naming it is an error.
    t.vcr(&["normalize"]).code(2).stderr_has(&format!(
        "did not follow the symbolic link `fixtures/{name}`"
    ));
    t.vcr(&["normalize", "--allow-empty"]).code(0);
    t.vcr(&["normalize", &format!("fixtures/{name}")])
        .code(2)
        .stderr_has("is a symbolic link");
    std::os::unix::fs::symlink(elsewhere.path("fixtures"), t.path("linked")).unwrap();
    t.vcr(&["normalize", "linked"])
        .code(2)
        .stderr_has("is a symbolic link");
    assert_eq!(elsewhere.read(&format!("fixtures/{name}")), crlf);
}

#[test]
fn leftovers_of_a_killed_run_are_removed_but_never_old_copies() {
    let t = TestDir::new();
    let (name, text) = fixture(&[r#""a""#], "x");
    t.write(&format!("fixtures/{name}"), &text);
    t.write("fixtures/.vcr-tmp-AbC123", "half a fil");
    t.write("fixtures/.vcr-new-XyZ789", "{}");
    t.write("fixtures/.vcr-old-1f-0", "only copy?");
    t.vcr(&["-v", "normalize"])
        .code(0)
        .stdout_has("removed leftover fixtures/.vcr-tmp-AbC123");
    assert!(!t.exists("fixtures/.vcr-tmp-AbC123"));
    assert!(!t.exists("fixtures/.vcr-new-XyZ789"));
    assert!(t.exists("fixtures/.vcr-old-1f-0"));
    // --check writes nothing, so it removes nothing either.
    t.write("fixtures/.vcr-tmp-again", "x");
    t.vcr(&["normalize", "--check"]).code(0);
    assert!(t.exists("fixtures/.vcr-tmp-again"));
}

#[test]
fn a_second_mutating_run_waits_for_none_and_refuses() {
    let t = TestDir::new();
    let (name, text) = fixture(&[r#""a""#], "x");
    t.write(&format!("fixtures/{name}"), &text);
    t.vcr(&["normalize"]).code(0);
    let lock = std::fs::File::options()
        .write(true)
        .open(t.path(".vcr/lock"))
        .unwrap();
    lock.lock().unwrap();
    t.vcr(&["normalize"])
        .code(2)
        .stderr_has("another vcr is working on this project");
    t.vcr(&["normalize", "--check"]).code(0);
    drop(lock);
    t.vcr(&["normalize"]).code(0);
    assert_eq!(
        std::fs::read_to_string(t.path(".vcr/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
}

#[test]
fn fixtures_folders_are_found_anywhere_under_the_root() {
    let t = TestDir::new();
    let (name, text) = fixture(&[r#""a""#], "x");
    t.write(
        &format!("packages/cli/fixtures/{name}"),
        text.replace('\n', "\r\n"),
    );
    t.write(&format!("node_modules/pkg/fixtures/{name}"), "ignored");
    t.write("test/fixtures/data.json", "{\"unrelated\": true}");
    t.vcr(&["normalize"])
        .code(0)
        .stdout_has("normalized packages/cli/fixtures/")
        .stdout_has("1 of 1 cassette normalized");
}

/// The trees in `examples/` must stay what the README says: a clean tree, and a raw one
/// that normalize + rehash turn into it.
#[test]
fn shipped_examples_stay_true() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let clean = TestDir::new();
    let raw = TestDir::new();
    for (dir, tree) in [("claude-code", &clean), ("claude-code-raw", &raw)] {
        for entry in walk(&examples.join(dir)) {
            let rel = entry
                .strip_prefix(examples.join(dir))
                .unwrap()
                .to_string_lossy()
                .into_owned();
            tree.write(&rel, std::fs::read(&entry).unwrap());
        }
    }
    clean
        .vcr(&["normalize", "--check"])
        .code(0)
        .stdout_has("0 of 5 cassettes would change");
    raw.vcr(&["normalize", "--check"]).code(1);
    raw.vcr(&["normalize"]).code(0);
    raw.vcr(&["rehash"]).code(0);
    assert_eq!(raw.files("fixtures"), clean.files("fixtures"));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
