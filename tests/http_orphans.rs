//! `orphan` without a run (issue 10): `vcr verify` guesses, from pytest-recording's naming
//! and vcrpy's `use_cassette` paths, which vcrpy cassettes no test uses any more; a warning
//! that says it is a guess. Anything the `.py` files do not let it map is not judged: the
//! shared corpus (cassettes without their tests) gets no `orphan` at all.

use crate::common;

use common::TestDir;
use serde_json::Value;

const VCRPY: &str = "interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n    uri: http://example.com/\n  response:\n    body:\n      string: ok\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n";

const RUBY_VCR: &str = "---\nhttp_interactions:\n- request:\n    method: get\n    uri: http://example.com/\n    body:\n      encoding: UTF-8\n      string: ''\n    headers: {}\n  response:\n    status:\n      code: 200\n      message: OK\n    headers: {}\n    body:\n      encoding: UTF-8\n      string: ok\n  recorded_at: Tue, 01 Apr 2025 10:00:00 GMT\nrecorded_with: VCR 5.0.0\n";

const TEST_API: &str = r#"import pytest
from helpers import test_imported  # collected here too
from base import Base


@pytest.mark.vcr
def test_models():
    pass


@pytest.mark.vcr
@pytest.mark.parametrize("n", [1, "a/b"])
def test_item(n):
    pass


class TestUsers:
    @pytest.mark.vcr
    def test_me(self):
        pass


class TestInherit(Base):
    pass


@pytest.mark.vcr("extra.yaml")
def test_with_extra():
    pass
"#;

/// The `orphan` findings of `vcr verify --format json`: path and message.
fn orphans(t: &TestDir, args: &[&str]) -> Vec<(String, String)> {
    let run = t.vcr(args);
    let doc: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "orphan")
        .map(|f| {
            assert_eq!(f["severity"], "warning", "{f}");
            (
                f["path"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn project() -> TestDir {
    let t = TestDir::new();
    t.write("tests/test_api.py", TEST_API)
        .write("tests/helpers.py", "def test_imported():\n    pass\n")
        .write(
            "tests/test_custom.py",
            "import pytest\n\n@pytest.fixture\ndef default_cassette_name():\n    return \"custom_name\"\n\n@pytest.mark.vcr\ndef test_a():\n    pass\n",
        )
        .write(
            "tests/dynamic/test_dyn.py",
            "import pytest\n\n@pytest.fixture\ndef default_cassette_name(request):\n    return request.node.name + \"_x\"\n",
        )
        .write(
            "tests/moved/conftest.py",
            "import pytest\n\n@pytest.fixture(scope=\"module\")\ndef vcr_cassette_dir(request):\n    return \"elsewhere\"\n",
        )
        .write("tests/moved/test_m.py", "def test_m():\n    pass\n")
        .write(
            "tests/plain/test_plain.py",
            "import vcr\n\nOTHER = \"gamma.yaml\"\n\ndef test_plain():\n    with vcr.use_cassette(\"tests/fixtures/vcr_cassettes/alpha.yaml\"):\n        pass\n",
        );
    for used in [
        "test_api/test_models.yaml",
        "test_api/test_item[1].yaml",
        "test_api/test_item[a-b].yaml",
        "test_api/TestUsers.test_me.yaml",
        "test_api/TestInherit.test_inherited.yaml",
        "test_api/extra.yaml",
        "test_api/test_imported.yaml",
        "test_api/test_a_very_long_name...0123456789abcdef0123456789abcdef.yaml",
        "test_custom/custom_name.yaml",
        "test_custom/test_a.yaml",
        // Orphans:
        "test_api/TestUsers.test_gone.yaml",
        "test_api/test_removed.yaml",
        "test_api/test_removed_param[3].yaml",
        "test_custom/stale.yaml",
        "test_deleted/test_x.yaml",
    ] {
        t.write(&format!("tests/cassettes/{used}"), VCRPY);
    }
    // Not judged: another recorder's cassette, a computed name, a moved folder, a folder
    // with no test modules (cassettes without their tests, as in the corpus), a `.yml`.
    t.write("tests/cassettes/test_api/test_ruby.yaml", RUBY_VCR)
        .write("tests/dynamic/cassettes/test_dyn/anything.yaml", VCRPY)
        .write("tests/moved/cassettes/test_m/old.yaml", VCRPY)
        .write("tests/notests/cassettes/test_gone/test_x.yaml", VCRPY)
        .write("tests/cassettes/test_api/test_other.yml", VCRPY)
        .write("tests/fixtures/vcr_cassettes/alpha.yaml", VCRPY)
        .write("tests/fixtures/vcr_cassettes/beta.yaml", VCRPY)
        .write("tests/fixtures/vcr_cassettes/gamma.yaml", VCRPY);
    t
}

#[test]
fn pytest_recording_naming_and_use_cassette_paths() {
    let t = project();
    let found = orphans(&t, &["verify", "--format", "json"]);
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "tests/cassettes/test_api/TestUsers.test_gone.yaml",
            "tests/cassettes/test_api/test_removed.yaml",
            "tests/cassettes/test_api/test_removed_param[3].yaml",
            "tests/cassettes/test_custom/stale.yaml",
            "tests/cassettes/test_deleted/test_x.yaml",
            "tests/fixtures/vcr_cassettes/beta.yaml",
        ],
        "{found:#?}"
    );
    let message = |path: &str| &found.iter().find(|(p, _)| p.ends_with(path)).unwrap().1;
    assert_eq!(
        message("TestUsers.test_gone.yaml"),
        "no test `TestUsers.test_gone` in `tests/test_api.py` (a guess from pytest-recording's naming; `vcr prune -- pytest` decides from a run)"
    );
    assert!(
        message("test_removed_param[3].yaml").starts_with("no test `test_removed_param` in"),
        "{found:?}"
    );
    assert!(
        message("test_deleted/test_x.yaml")
            .starts_with("no test module `tests/test_deleted.py` for this cassette"),
        "{found:?}"
    );
    assert!(
        message("beta.yaml").contains("no `use_cassette` call names `beta.yaml`")
            && message("beta.yaml").contains("tests/plain/test_plain.py")
            && message("beta.yaml").contains("a guess"),
        "{found:?}"
    );
    // A warning: verify still passes; a guess never deletes (prune needs a run).
    t.vcr(&["verify"]).code(0).stdout_has("orphan");
}

#[test]
fn a_computed_use_cassette_path_stops_the_use_cassette_guesses() {
    let t = project();
    t.write(
        "tests/plain/test_more.py",
        "import vcr\n\ndef test_more(name):\n    with vcr.use_cassette(f\"tests/fixtures/vcr_cassettes/{name}.yaml\"):\n        pass\n",
    );
    let found = orphans(&t, &["verify", "--format", "json"]);
    assert!(
        found.iter().all(|(p, _)| !p.contains("vcr_cassettes")),
        "{found:?}"
    );
    assert_eq!(found.len(), 5, "{found:?}");
    // The summary says what turned the guess off, and -v says it per file.
    t.vcr(&["verify"]).stdout_has("no orphan guess for ");
    t.vcr(&["-v", "verify"])
        .stdout_has("calls `use_cassette` with a computed path")
        .stdout_has(
            "tests/moved/conftest.py: sets `vcr_cassette_dir`: no orphan guess for 1 cassette",
        )
        .stdout_has("tests/dynamic/test_dyn.py: sets `default_cassette_name`");
}

/// pytest-vcr names a test's cassette `<dir>/cassettes/<Class.>test_name.yaml`, in no
/// module folder; a `conftest.py` hook that only registers a matcher moves nothing.
#[test]
fn pytest_vcr_naming_and_a_matcher_only_hook() {
    let t = TestDir::new();
    t.write(
        "tests/test_weather.py",
        "import pytest\n\n@pytest.mark.vcr()\ndef test_today():\n    pass\n\nclass TestCity:\n    @pytest.mark.vcr()\n    def test_paris(self):\n        pass\n",
    )
    .write(
        "tests/conftest.py",
        "def pytest_recording_configure(config, vcr):\n    vcr.register_matcher(\"body\", lambda a, b: True)\n",
    )
    .write("tests/test_other.py", "import vcr\n\ndef test_x():\n    pass\n");
    for name in [
        "test_today",
        "TestCity.test_paris",
        "test_yesterday",
        "TestCity.test_rome",
    ] {
        t.write(&format!("tests/cassettes/{name}.yaml"), VCRPY);
    }
    // A flat folder whose tests use no `vcr` mark or fixture is another harness's.
    t.write("other/test_plain.py", "def test_gone():\n    pass\n")
        .write("other/cassettes/test_missing.yaml", VCRPY);
    let found = orphans(&t, &["verify", "--format", "json"]);
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "tests/cassettes/TestCity.test_rome.yaml",
            "tests/cassettes/test_yesterday.yaml",
        ],
        "{found:#?}"
    );
    assert_eq!(
        found[1].1,
        "no test `test_yesterday` in the test modules of `tests/` (a guess from pytest-vcr's naming; `vcr prune -- pytest` decides from a run)"
    );
    // A literal path anywhere names a cassette.
    t.write(
        "scripts/replay.py",
        "import vcr\nvcr.use_cassette(\"tests/cassettes/test_yesterday.yaml\")\n",
    );
    let found = orphans(&t, &["verify", "--format", "json"]);
    assert_eq!(found.len(), 1, "{found:#?}");
    // A conftest that moves cassettes turns the guess off, and the summary says why (the
    // script's literal path would still judge the folder it names).
    std::fs::remove_file(t.path("scripts/replay.py")).unwrap();
    t.write(
        "tests/conftest.py",
        "import pytest\n\n@pytest.fixture\ndef vcr_cassette_dir():\n    return \"recorded\"\n",
    );
    assert_eq!(orphans(&t, &["verify", "--format", "json"]), []);
    t.vcr(&["verify"]).stdout_has(
        "no orphan guess for 2 cassettes (`tests/conftest.py` sets `vcr_cassette_dir`)",
    );
}

#[test]
fn the_switch_and_a_usage_log_turn_the_guess_off() {
    let t = project();
    t.write("vcr.toml", "[verify]\nstatic-orphans = false\n");
    assert_eq!(orphans(&t, &["verify", "--format", "json"]), []);
    // With a usage log the run decides, per recorder format: it read one vcrpy cassette.
    t.write("vcr.toml", "")
        .write("usage.log", "tests/cassettes/test_api/test_models.yaml\n");
    let found = orphans(
        &t,
        &["verify", "--format", "json", "--usage-log", "usage.log"],
    );
    assert!(
        found
            .iter()
            .all(|(_, m)| m.starts_with("no test read this cassette in the usage log")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(p, _)| p.ends_with("test_custom/custom_name.yaml"))
    );
    // The Ruby VCR cassette is not judged: the log names none of that format.
    assert!(found.iter().all(|(p, _)| !p.ends_with("test_ruby.yaml")));
}

/// The `use_cassette` guess reads the same modules whether `verify` walked the whole tree
/// (it then takes the `.py` files the selection's walk met) or was given a folder (it walks
/// for them): never those of a virtual environment (known by its `pyvenv.cfg`), installed
/// packages or test-environment folders.
#[test]
fn the_use_cassette_guess_reads_the_same_modules_however_the_tree_was_walked() {
    let t = project();
    let names_beta = "import vcr\n\ndef test_b():\n    with vcr.use_cassette(\"tests/fixtures/vcr_cassettes/beta.yaml\"):\n        pass\n";
    t.write("env/pyvenv.cfg", "home = /usr/bin\n");
    for skipped in [
        "env/lib/test_b.py",
        "lib/site-packages/pkg/test_b.py",
        "lib/dist-packages/test_b.py",
        ".tox/test_b.py",
        "node_modules/pkg/test_b.py",
    ] {
        t.write(skipped, names_beta);
    }
    let beta_is_orphan = |args: &[&str]| {
        orphans(&t, args)
            .iter()
            .any(|(p, _)| p == "tests/fixtures/vcr_cassettes/beta.yaml")
    };
    for args in [
        &["verify", "--format", "json"][..],
        &["verify", "--format", "json", "tests"][..],
    ] {
        assert!(beta_is_orphan(args), "{args:?}");
    }
    t.write("scripts/record_b.py", names_beta);
    for args in [
        &["verify", "--format", "json"][..],
        &["verify", "--format", "json", "tests"][..],
    ] {
        assert!(!beta_is_orphan(args), "{args:?}");
    }
}

/// The corpus holds cassettes without their tests: no guess may call them orphans.
#[test]
fn the_corpus_has_no_static_orphans() {
    let Some(corpus) = common::corpus("") else {
        return;
    };
    let run = common::vcr_command(&corpus, &["verify", "--format", "json"], &[])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stderr)));
    let orphans: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "orphan")
        .collect();
    assert_eq!(orphans, Vec::<&Value>::new());
    assert!(
        doc["summary"]["http"]["vcrpy"].as_u64().unwrap() > 100,
        "{}",
        doc["summary"]
    );
}

/// A project whose pytest collects `test-*.py` (its `python_files`): pytest-recording
/// records the cassettes of `tests/test-scenario.py` under `tests/cassettes/test-scenario/`,
/// and the guess judges them against that module instead of passing over a folder with no
/// `test_*.py` in it.
#[test]
fn the_guess_reads_pytest_python_files() {
    use common::recorders::{Recorder, available, programs, python};
    use common::scenario::Scenario;
    use common::server::Server;

    if !available(Recorder::PytestRecording) {
        return;
    }
    let t = TestDir::new();
    let python_dir = programs().join("python");
    t.write(
        "tests/scenario.py",
        std::fs::read(python_dir.join("scenario.py")).unwrap(),
    )
    .write(
        "tests/test-scenario.py",
        "import os\n\nimport pytest\n\nimport scenario\n\n\n@pytest.mark.vcr\ndef test_scenario():\n    problems = scenario.run(scenario.load(os.environ[\"RECORDER_SCENARIO\"]))\n    assert not problems, \"\\n\".join(problems)\n",
    )
    .write("pytest.ini", "[pytest]\npython_files = test-*.py\n");

    // The real plugin records, collecting the module by the project's `python_files`.
    let scenario = Scenario::clean();
    let server = Server::start_with(scenario.answers());
    let harness = TestDir::new();
    harness.write("scenario.json", scenario.to_json(&server.base_url()));
    let mut pytest = std::process::Command::new(python());
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .arg("--record-mode=once")
        .current_dir(t.path(""))
        .env("RECORDER_SCENARIO", harness.path("scenario.json"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    for key in ["http_proxy", "https_proxy", "all_proxy"] {
        pytest.env_remove(key).env_remove(key.to_ascii_uppercase());
    }
    let run = common::Run::from(pytest.output().unwrap());
    server.stop();
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let recorded = "tests/cassettes/test-scenario/test_scenario.yaml";
    assert!(t.exists(recorded), "{:?}", t.files("tests").keys());

    // A cassette whose test is gone, beside the one in use.
    let stale = "tests/cassettes/test-scenario/test_gone.yaml";
    t.write(stale, t.read(recorded));
    let found = orphans(&t, &["verify", "--format", "json"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, stale);
    assert!(
        found[0]
            .1
            .starts_with("no test `test_gone` in `tests/test-scenario.py`"),
        "{found:?}"
    );

    // A configuration vcr cannot read turns the guess off there, and says why.
    std::fs::remove_file(t.path("pytest.ini")).unwrap();
    t.write("pyproject.toml", "[tool.pytest.ini_options\n");
    assert_eq!(orphans(&t, &["verify", "--format", "json"]), []);
    t.vcr(&["verify"])
        .stdout_has("no orphan guess for 2 cassettes (`pyproject.toml` does not read as TOML (");
}
