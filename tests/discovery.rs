//! Every cassette, with no configuration (issue 21): HTTP cassettes found by content wherever
//! they live, files named on the command line read by content, and what was not read counted.

use crate::common;

use common::{TestDir, finding_fields};

/// A credential no placeholder rule accepts (random letters, nothing fake in it).
const KEY: &str = "sk-proj-Qm7vT2xLp9RkW4nZc8HbY3fJ6sDg1AeUoPiKtNrVw5";

fn go_vcr() -> String {
    format!(
        "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    proto: HTTP/1.1\n    body: \"\"\n    form: {{}}\n    headers:\n      Authorization:\n      - Bearer {KEY}\n    url: https://golang.org/\n    method: GET\n  response:\n    proto: HTTP/2.0\n    headers: {{}}\n    body: hello\n    status: 200 OK\n    code: 200\n    duration: 1ms\n"
    )
}

fn talkback() -> String {
    format!(
        "{{\n  meta: {{\n    createdAt: '2024-01-02T03:04:05.000Z',\n    host: 'https://api.example.test',\n  }},\n  req: {{\n    url: '/v1/items',\n    method: 'GET',\n    headers: {{\n      authorization: 'Bearer {KEY}',\n    }},\n    body: '',\n  }},\n  res: {{\n    status: 200,\n    headers: {{}},\n    body: 'ok',\n  }},\n}}\n"
    )
}

fn nock() -> String {
    format!(
        "[\n  {{\n    \"scope\": \"https://api.example.test:443\",\n    \"method\": \"POST\",\n    \"path\": \"/login\",\n    \"body\": {{\"password\": \"{KEY}\"}},\n    \"status\": 200,\n    \"response\": {{\"ok\": true}}\n  }}\n]\n"
    )
}

/// The issue's case: cassettes of go-vcr, talkback and nock in folders no default glob
/// names were never read, so their credentials passed the gate.
#[test]
fn cassettes_are_found_by_content_wherever_they_live() {
    let t = TestDir::new();
    t.write("examples/fixtures/golang-org.yaml", go_vcr());
    t.write("test/integration/fixtures/deep/er/x.yaml", go_vcr());
    t.write("server/tapes/auth.json5", talkback());
    t.write("test/unit/recording/login.json", nock());
    // Files of the same extensions that are no cassette stay unread.
    t.write(
        "package.json",
        "{\"name\": \"app\", \"version\": \"1.0.0\"}\n",
    );
    t.write(".github/workflows/ci.yml", "name: CI\non: push\n");
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(
        doc["summary"]["http"],
        serde_json::json!({"go-vcr": 2, "nock": 1, "talkback": 1}),
        "{doc}"
    );
    assert_eq!(doc["summary"]["files"], 4, "{doc}");
    let secrets: Vec<String> = finding_fields(&doc, &["id", "path"])
        .into_iter()
        .filter(|f| f.starts_with("leak/secret"))
        .collect();
    assert_eq!(
        secrets,
        [
            "leak/secret examples/fixtures/golang-org.yaml",
            "leak/secret server/tapes/auth.json5",
            "leak/secret test/integration/fixtures/deep/er/x.yaml",
            "leak/secret test/unit/recording/login.json",
        ],
        "{doc}"
    );
    // A folder given by name is searched by content too.
    t.vcr(&["verify", "test/integration/fixtures"])
        .code(1)
        .stdout_has("checked 1 file (1 go-vcr read as HTTP cassettes)");
}

/// pre-commit passes file names: a named cassette no glob selects was skipped, and the hook
/// said `Passed` over a leaked key. Every other named file is judged too, as text (issue 39:
/// a cassette of a recorder vcr has no reader for was skipped with exit 0).
#[test]
fn named_files_are_read_by_content_and_the_rest_are_linted_as_text() {
    let t = TestDir::new();
    t.write("examples/fixtures/golang-org.yaml", go_vcr());
    t.write("main.go", "package main\n");
    t.write("README.md", "# app\n");
    t.vcr(&["verify", "examples/fixtures/golang-org.yaml"])
        .code(1)
        .stdout_has("leak/secret")
        .stdout_has("checked 1 file (1 go-vcr read as HTTP cassettes)");
    // Only non-cassettes named, and clean: a pass that says how they were read.
    t.vcr(&["verify", "main.go", "README.md"])
        .code(0)
        .stdout_has("checked 2 files: 0 errors, 0 warnings; 2 files linted as text (no reader knows their shapes) (-v lists them)");
    t.vcr(&["-v", "verify", "main.go", "README.md"])
        .stdout_has("main.go: linted as text: no reader knows its shape");
    let doc = t
        .vcr(&[
            "verify",
            "--format",
            "json",
            "main.go",
            "examples/fixtures/golang-org.yaml",
        ])
        .json();
    assert_eq!(doc["summary"]["as_text"], 1, "{doc}");
    assert_eq!(doc["summary"]["files"], 2, "{doc}");
    // A file of no shape vcr knows that holds a credential fails the gate when named.
    t.write(
        "tests/fixtures/example_api",
        "-\n    request:\n        method: GET\n        headers:\n            Authorization: 'Bearer q7Lm2Xv9Rt4Kp8Zs3Nw6Yb1Hc5Jd0Fg'\n",
    );
    t.vcr(&["verify", "tests/fixtures/example_api"])
        .code(1)
        .stdout_has("leak/secret")
        .stdout_has("1 file linted as text");
}

/// Configuring `[http] cassettes` used to replace the default folders: cassettes checked a
/// moment before were no longer checked.
#[test]
fn configured_http_globs_add_to_discovery() {
    let t = TestDir::new();
    t.write("tests/cassettes/a.yaml", go_vcr());
    t.write("spec/vcr/b.yaml", go_vcr());
    t.write(
        "vcr.toml",
        "[http]\ncassettes = [{ glob = \"spec/vcr/**\", match-on = [\"method\", \"uri\"] }]\n",
    );
    let doc = t.vcr(&["verify", "--format", "json"]).json();
    assert_eq!(
        doc["summary"]["http"],
        serde_json::json!({"go-vcr": 2}),
        "{doc}"
    );
    // A configured glob that selects nothing is still an error.
    t.write("vcr.toml", "[http]\ncassettes = [\"nowhere/**\"]\n");
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("`[http] cassettes` entry `nowhere/**` selects nothing");
}

/// A file that looks like a cassette but that no reader knows is linted as text, and said.
#[test]
fn cassette_looking_files_no_reader_knows_are_counted() {
    let t = TestDir::new();
    t.write(
        "tests/cassettes/odd.json",
        "{\"interactions\": \"none yet\"}\n",
    );
    t.write("tests/cassettes/a.yaml", go_vcr());
    t.vcr(&["verify"])
        .stdout_has("1 file linted as text (no reader knows its shape) (-v lists them)");
    t.vcr(&["-v", "verify"])
        .stdout_has("tests/cassettes/odd.json: linted as text");
    let doc = t.vcr(&["verify", "--format", "json"]).json();
    assert_eq!(doc["summary"]["as_text"], 1, "{doc}");
}

/// "No cassette found" named the project root instead of the folder given, and said nothing
/// of HTTP cassettes.
#[test]
fn no_cassette_found_names_the_folder_and_every_format() {
    let t = TestDir::new();
    t.write("sdk/test/data/notes.yaml", "title: not a cassette\n");
    t.vcr(&["verify", "sdk/test"])
        .code(2)
        .stderr_has("no cassette found under sdk/test:")
        .stderr_has("go-vcr")
        .stderr_has("nock, talkback, WireMock")
        .stderr_has("Hoverfly")
        .stderr_has("any JSON or YAML records of requests and responses")
        .stderr_has("[verify] text");
}

/// The tree is read as git would commit it: what git ignores is left out but counted (and
/// read with `--no-ignore`), environments and dependencies are never read, hidden folders
/// are, and a file named on the command line is read whatever ignores it.
#[test]
fn what_git_ignores_is_counted_and_environments_are_never_read() {
    let t = TestDir::new();
    common::git(&t.root, &["init", "-q"]);
    t.write(".gitignore", "build/\n*.local.yaml\n");
    t.write("build/cassettes/copied.yaml", go_vcr());
    t.write("tests/fixtures/mine.local.yaml", go_vcr());
    t.write(".venv/pyvenv.cfg", "home = /usr/bin\n");
    t.write(
        ".venv/lib/python3.12/site-packages/x/cassettes/y.yaml",
        go_vcr(),
    );
    t.write("env/conda-meta/history", "");
    t.write("env/pkgs/cassettes/z.yaml", go_vcr());
    t.write("go.mod", "module example.test/app\n");
    t.write("vendor/example.test/dep/fixtures/d.yaml", go_vcr());
    let clean = go_vcr().replace(KEY, "<REDACTED>");
    t.write(".ci/cassettes/hidden.yaml", &clean);
    let run = t.vcr(&["verify"]);
    run.code(0)
        .stdout_has("checked 1 file (1 go-vcr read as HTTP cassettes)")
        .stdout_has("2 cassettes ignored by git (--no-ignore reads them) (-v lists them)");
    t.vcr(&["-v", "verify"])
        .stdout_has("build/cassettes/copied.yaml: ignored by git");
    let doc = t.vcr(&["verify", "--format", "json"]).json();
    assert_eq!(doc["summary"]["git_ignored"], 2, "{doc}");
    // `--no-ignore` reads them; environments and dependencies stay unread.
    let doc = t.vcr(&["--no-ignore", "verify", "--format", "json"]).json();
    assert_eq!(doc["summary"]["files"], 3, "{doc}");
    assert_eq!(doc["summary"]["errors"], 2, "{doc}");
    // A named file is read, ignored or not (a force-added file pre-commit passes).
    t.vcr(&["verify", "tests/fixtures/mine.local.yaml"])
        .code(1)
        .stdout_has("leak/secret");
    // When all a search finds is ignored, "no cassette found" says where they went.
    t.vcr(&["verify", "build"]).code(1);
    std::fs::remove_dir_all(t.path(".ci")).unwrap();
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("it left out 2 cassettes git ignores, such as `build/cassettes/copied.yaml` (--no-ignore reads them)");
}

/// `exclude` narrows every walk; `extend-include` widens discovery to files of any name,
/// read as the cassette their content shows, else linted as text; a glob that selects
/// nothing is an error.
#[test]
fn exclude_and_extend_include_narrow_and_widen_discovery() {
    let t = TestDir::new();
    t.write("legacy/cassettes/old.yaml", go_vcr());
    t.write("tests/recorded/login.cassette", go_vcr());
    t.write("tests/recorded/notes.cassette", format!("token {KEY}\n"));
    t.write(
        "vcr.toml",
        "exclude = [\"legacy\"]\nextend-include = [\"tests/recorded/*.cassette\"]\n",
    );
    let doc = t.vcr(&["verify", "--format", "json"]).json();
    assert_eq!(doc["summary"]["files"], 2, "{doc}");
    assert_eq!(
        doc["summary"]["http"],
        serde_json::json!({"go-vcr": 1}),
        "{doc}"
    );
    let paths: Vec<String> = finding_fields(&doc, &["path"]);
    assert!(paths.iter().all(|p| !p.starts_with("legacy/")), "{doc}");
    assert!(
        paths.contains(&"tests/recorded/notes.cassette".to_owned()),
        "{doc}"
    );
    // A named file is read even when excluded.
    t.vcr(&["verify", "legacy/cassettes/old.yaml"]).code(1);
    t.write("vcr.toml", "extend-include = [\"nowhere/*.cassette\"]\n");
    t.vcr(&["verify"])
        .code(2)
        .stderr_has("`extend-include` entry `nowhere/*.cassette` selects nothing");
}

/// A Pact contract (`consumer`, `provider`, `interactions`) is no recording: not selected by
/// the walk and, named, not read as a vcrpy cassette (it was a `parse` error of each, which
/// failed `verify` in every repository with Pact tests).
#[test]
fn pact_contracts_are_not_cassettes() {
    let t = TestDir::new();
    let pact = r#"{
  "consumer": {"name": "web"},
  "provider": {"name": "billing"},
  "interactions": [
    {"description": "a bill", "request": {"method": "GET", "path": "/bills/1"},
     "response": {"status": 200, "body": {"id": 1}}}
  ],
  "metadata": {"pactSpecification": {"version": "2.0.0"}}
}
"#;
    t.write("packages/web/pacts/web-billing.json", pact)
        .write("tests/cassettes/real.yaml", "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: https://api.example.com/\n  response:\n    body:\n      string: ok\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n");
    let run = t.vcr(&["verify", "--show-files"]);
    run.code(0);
    assert!(!run.stdout.contains("pacts"), "{}", run.stdout);
    assert!(
        run.stdout.contains("tests/cassettes/real.yaml"),
        "{}",
        run.stdout
    );
    // Named, it is judged as text: no `parse` error, no pass unread.
    t.vcr(&["verify", "packages/web/pacts/web-billing.json"])
        .code(0)
        .stdout_has("1 file linted as text");
}

/// Cassettes of ExVCR, R's vcr and Swift's DVR were `parse` errors on healthy files, taken
/// for vcrpy, Ruby VCR and go-vcr (issue 39), then linted as text: each is read as its own
/// recorder's now, named or found by the walk, and a credential in them fails the gate at
/// its place.
#[test]
fn files_that_only_looked_like_a_known_format_are_read_as_their_own() {
    let t = TestDir::new();
    let key = "q7Lm2Xv9Rt4Kp8Zs3Nw6Yb1Hc5Jd0Fg";
    t.write(
        "fixture/vcr_cassettes/items.json",
        format!("[{{\"request\": {{\"body\": \"\", \"headers\": {{\"Authorization\": \"Bearer {key}\"}}, \"method\": \"get\", \"options\": [], \"request_body\": \"\", \"url\": \"https://api.example.com/v1/items\"}}, \"response\": {{\"binary\": false, \"body\": \"{{}}\", \"headers\": {{}}, \"status_code\": 200, \"type\": \"ok\"}}}}]\n"),
    );
    t.write(
        "tests/fixtures/items.yml",
        format!("http_interactions:\n- request:\n    method: get\n    uri: https://api.example.com/v1/items\n    body:\n      encoding: ''\n      string: ''\n    headers:\n      Authorization: Bearer {key}\n  response:\n    status:\n      status_code: '200'\n      message: OK\n    headers: {{}}\n    body:\n      encoding: UTF-8\n      file: no\n      string: '{{}}'\n  recorded_at: 2023-01-01 00:00:00 GMT\n  recorded_with: vcr/1.2.0, webmockr/0.9.0\n"),
    );
    t.write(
        "Tests/Fixtures/items.json",
        format!("{{\"name\": \"items\", \"interactions\": [{{\"recorded_at\": 1500000000.0, \"request\": {{\"method\": \"GET\", \"url\": \"https://api.example.com/v1/items\", \"headers\": {{\"Authorization\": \"Bearer {key}\"}}}}, \"response\": {{\"url\": \"https://api.example.com/v1/items\", \"status\": 200, \"headers\": {{}}, \"body\": {{\"ok\": true}}}}}}]}}\n"),
    );
    let files = [
        "Tests/Fixtures/items.json",
        "fixture/vcr_cassettes/items.json",
        "tests/fixtures/items.yml",
    ];
    for args in [vec!["verify", "--format", "json"], {
        let mut named = vec!["verify", "--format", "json"];
        named.extend(files);
        named
    }] {
        let run = t.vcr(&args);
        run.code(1);
        assert!(!run.stdout.contains(key), "{}", run.stdout);
        let doc = run.json();
        let findings = doc["findings"].as_array().unwrap();
        assert!(findings.iter().all(|f| f["id"] != "parse"), "{doc:#}");
        for file in files {
            assert!(
                findings.iter().any(|f| f["path"] == file
                    && f["id"] == "leak/secret"
                    && f["pointer"]
                        .as_str()
                        .unwrap()
                        .contains("request.headers.Authorization")),
                "{file}: {doc:#}"
            );
        }
        assert_eq!(
            doc["summary"]["as_text"].as_u64().unwrap_or(0),
            0,
            "{doc:#}"
        );
        for format in ["DVR", "ExVCR", "R vcr"] {
            assert_eq!(doc["summary"]["http"][format], 1, "{doc:#}");
        }
    }
}

/// Discovery (issue 39): a file without an extension is sniffed below `tests/fixtures/` or
/// `test/fixtures/` (php-vcr's default folder, where it names a cassette as the test does,
/// with no extension), never elsewhere; `.cassette` (govcr) and `.replay` (httpreplay) files
/// are sniffed like `.json` ones; `--show-files` lists what is read.
#[test]
fn files_without_an_extension_below_fixtures_and_new_extensions_are_sniffed() {
    let t = TestDir::new();
    t.write("tests/fixtures/golang-org", go_vcr());
    t.write("pkg/test/fixtures/deep/golang", go_vcr());
    t.write("docs/golang-org", go_vcr());
    t.write("tests/fixtures/login.cassette", nock());
    t.write("testdata/login.replay", nock());
    t.write("tests/fixtures/.gitkeep", "");
    t.write("tests/fixtures/README", "Fixtures of the tests.\n");
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(
        doc["summary"]["http"],
        serde_json::json!({"go-vcr": 2, "nock": 2}),
        "{doc}"
    );
    assert_eq!(doc["summary"]["files"], 4, "{doc}");
    let listed = t.vcr(&["verify", "--show-files"]);
    for file in [
        "tests/fixtures/golang-org",
        "pkg/test/fixtures/deep/golang",
        "tests/fixtures/login.cassette",
        "testdata/login.replay",
    ] {
        listed.stdout_has(file);
    }
    assert!(
        !listed.stdout.contains("docs/golang-org"),
        "{}",
        listed.stdout
    );
    assert!(!listed.stdout.contains("README"), "{}", listed.stdout);
}

/// Discovery: vcrpy writes a cassette under exactly the name the test gives it, so projects
/// that name cassettes after their tests (`tests/cassettes/test_trakt.TestTrakt.test_search`)
/// have files whose "extension" is a test's name. Below a folder named for recordings
/// (`cassettes`, `vcr_cassettes`, `recordings`, `tapes`) such files are sniffed, for
/// `verify` and for `diff` alike; an image's extension stays an extension. Regression: a
/// real project's tree of such cassettes was skipped with exit 0.
#[test]
fn cassettes_named_after_their_tests_are_found_below_recording_folders() {
    let key = "57e188bcb9750c79ed452e1674925bc6848bd126";
    let cassette = |host: &str| {
        format!(
            "interactions:\n- request:\n    body: null\n    headers:\n      trakt-api-key: [{key}]\n    method: GET\n    uri: https://{host}/search?query=Shameless\n  response:\n    body: {{string: '[]'}}\n    headers: {{}}\n    status: {{code: 200, message: OK}}\nversion: 1\n"
        )
    };
    let t = TestDir::new();
    let name = "app/tests/cassettes/test_trakt.TestTraktShowLookup.test_search_results";
    t.write(name, cassette("api-v2launch.trakt.tv"));
    t.write("spec/vcr_cassettes/get_user", cassette("api.trakt.tv"));
    t.write("tests/cassettes/logo.PNG", "not a cassette");
    t.write(
        "docs/test_trakt.TestTraktShowLookup.test_search_results",
        cassette("x.org"),
    );
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    assert_eq!(
        doc["summary"]["http"],
        serde_json::json!({"vcrpy": 2}),
        "{doc}"
    );
    let leaked: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "leak/secret")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(leaked.contains(&name), "{leaked:?}");

    // `diff` of two trees pairs them and compares them as cassettes.
    let t = TestDir::new();
    t.write(&format!("old/{name}"), cassette("api-v2launch.trakt.tv"));
    t.write(&format!("new/{name}"), cassette("api.trakt.tv"));
    t.vcr(&["diff", "old", "new"])
        .stdout_has("same behaviour")
        .stdout_has("server https://api-v2launch.trakt.tv -> https://api.trakt.tv");
}

/// A Maven or Cargo `target` folder is build output and never read, unless the repository
/// keeps it: in a git repository that does not ignore it, its cassettes are the project's
/// (a project kept its recorded sessions in `target/test-classes`, issue 41) and are judged.
/// Outside a repository, or ignored, it stays unread.
#[test]
fn a_build_folder_the_repository_keeps_is_read() {
    let t = TestDir::new();
    t.write("pom.xml", "<project/>\n");
    t.write("target/test-classes/fixtures/kept.yaml", go_vcr());
    t.write(
        "src/test/resources/fixtures/clean.yaml",
        go_vcr().replace(KEY, "<REDACTED>"),
    );
    // No repository: build output.
    t.vcr(&["verify"]).code(0).stdout_has("checked 1 file");
    common::git(&t.root, &["init", "-q"]);
    t.vcr(&["verify"])
        .code(1)
        .stdout_has("target/test-classes/fixtures/kept.yaml")
        .stdout_has("checked 2 files");
    t.write(".gitignore", "target/\n");
    t.vcr(&["verify"]).code(0).stdout_has("checked 1 file");
}
