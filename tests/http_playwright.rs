//! Playwright's HAR with its bodies in `_file` sidecars (issue 25), recorded and replayed by
//! Playwright itself (`tests/recorders/node/playwright_har.js`, the system's Chromium): `vcr
//! normalize` scrubs a credential in a sidecar body by writing that file again, from
//! whichever folder it runs in, keeps every length the HAR records true, and Playwright's
//! `routeFromHAR` replays the scrubbed HAR with the server gone.
//!
//! Skipped with a message when playwright-core or Chromium is missing, unless
//! `VCR_REQUIRE_RECORDERS=1` (CI); `tests/recorders/install --apt` installs both.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::TestDir;
use common::recorders::{REQUIRE, node_modules, programs};

/// A GitHub token as GitHub issues them (the checksum is not checked by the linter).
const TOKEN: &str = "ghp_R8x2Lm4Qz7Wn1Vb5Tc9Ky3Hd6Jf0Sa2Pe8Uo";

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// Whether Playwright can run here; says why not on stderr (or panics under `REQUIRE`).
fn available() -> bool {
    let installed = node_modules()
        .join("playwright-core/package.json")
        .is_file();
    let browser = chromium().is_file();
    if installed && browser {
        return true;
    }
    let why = format!(
        "playwright-core in {} and Chromium at {} are needed; run tests/recorders/install --apt",
        node_modules().display(),
        chromium().display()
    );
    if std::env::var_os(REQUIRE).is_some() {
        panic!("Playwright is required ({REQUIRE} is set): {why}");
    }
    common::skip(&format!("Playwright is not installed ({why})"));
    false
}

/// Runs the Playwright program; its stdout (the body the page got) when it succeeds.
fn playwright(args: &[&str]) -> String {
    let output = Command::new("node")
        .arg(programs().join("node/playwright_har.js"))
        .args(args)
        .env("NODE_PATH", node_modules())
        .env("CHROMIUM", chromium())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "playwright_har.js {args:?} failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The one sidecar Playwright wrote beside `har` (its name is a hash of the body).
fn sidecar(har: &Path) -> PathBuf {
    let folder = har.parent().unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(files.len(), 1, "one sidecar body: {files:?}");
    files.pop().unwrap()
}

#[test]
fn a_sidecar_body_is_scrubbed_in_its_file_and_playwright_replays_it() {
    if !available() {
        return;
    }
    let t = TestDir::new();
    common::git(&t.path(""), &["init", "-q"]);
    let har = t.path("tests/e2e/hars/session.har");
    std::fs::create_dir_all(har.parent().unwrap()).unwrap();
    let recorded = playwright(&["record", har.to_str().unwrap(), TOKEN]);
    assert!(recorded.contains(TOKEN), "{recorded}");
    let body = sidecar(&har);
    assert!(std::fs::read_to_string(&body).unwrap().contains(TOKEN));
    let before = std::fs::read_to_string(&har).unwrap();
    assert!(
        before.contains("\"_file\""),
        "Playwright kept the body beside the HAR"
    );

    // Both copies of the token are errors: the header in the HAR, the body in its sidecar.
    let run = t.vcr(&["verify", "--format", "json"]);
    run.code(1);
    let doc = run.json();
    let paths = common::finding_fields(&doc, &["id", "path"]);
    assert_eq!(
        paths,
        [
            "leak/secret tests/e2e/hars/session.har",
            "leak/secret tests/e2e/hars/session.har"
        ],
        "{doc:#}"
    );

    // Run from the project root, not the HAR's folder: the sidecar is found beside the HAR.
    let run = t.vcr(&["normalize", "--check", "--diff"]);
    run.code(1)
        .stdout_has(&format!(
            "+++ b/tests/e2e/hars/{}",
            body.file_name().unwrap().to_str().unwrap()
        ))
        .stdout_has("\"token\":\"REDACTED_");
    assert!(
        std::fs::read_to_string(&body).unwrap().contains(TOKEN),
        "--check wrote nothing"
    );
    // Playwright writes the HAR on one line: the diff shows each change with the bytes around
    // it, never the whole line twice.
    assert!(!before.trim_end().contains('\n') && before.len() > 1000);
    assert!(
        run.stdout.contains("only its changes are shown"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.len() < before.len(), "{}", run.stdout);
    assert!(
        run.stdout.contains("\"value\":\"Bearer REDACTED_"),
        "{}",
        run.stdout
    );
    t.vcr(&["normalize"]).code(0).stdout_has("content._file");

    let scrubbed = std::fs::read_to_string(&body).unwrap();
    assert!(
        !scrubbed.contains(TOKEN) && scrubbed.contains("REDACTED_"),
        "{scrubbed}"
    );
    assert_eq!(sidecar(&har), body, "the sidecar keeps its name");
    let after = std::fs::read_to_string(&har).unwrap();
    assert!(!after.contains(TOKEN), "{after}");
    // The response's Content-Length (Node's server sends one) says the new length.
    let doc: serde_json::Value = serde_json::from_str(&after).unwrap();
    let length = doc["log"]["entries"][0]["response"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| {
            h["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("content-length")
        })
        .map(|h| h["value"].as_str().unwrap().to_owned());
    assert_eq!(length.as_deref(), Some(scrubbed.len().to_string().as_str()));
    // And so does the HAR's own `content.size`, still a number.
    let size = &doc["log"]["entries"][0]["response"]["content"]["size"];
    assert_eq!(size.as_u64(), Some(scrubbed.len() as u64), "{size}");
    t.vcr(&["verify"]).code(0);

    // Playwright replays the scrubbed HAR, the server gone, and answers with the new body.
    let replayed = playwright(&["replay", har.to_str().unwrap()]);
    assert_eq!(replayed.trim_end(), scrubbed.trim_end());
}
