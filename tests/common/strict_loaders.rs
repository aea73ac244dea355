//! Loaders for the cassettes of recorders that cannot run here (issue 39): what the
//! recorder's own loader reads, these read too, so a rewritten cassette that they refuse is
//! one its recorder would refuse.
//!
//! - [`Strict::Symfony`]: PHP with Symfony's YAML component (Debian `php-cli`,
//!   `php-symfony-yaml`), the parser php-vcr's YAML storage reads with, and `json_decode`
//!   for its JSON storage (`tests/recorders/loaders/symfony_yaml.php`);
//! - [`Strict::Python`]: Python's `json` (strict) and PyYAML's safe loader
//!   (`tests/recorders/loaders/strict.py`, the python of `target/recorders/venv`), which
//!   takes a stream of documents (httpmock), local tags (OkReplay's `!tape`) and `.gz` files.
//!
//! Each runs once for a list of files; the data comes back as JSON (`{"$binary": base64}`
//! for bytes). A loader that is not installed makes [`load_all`] say so on stderr and return
//! `None`; with `VCR_REQUIRE_RECORDERS=1` it panics instead.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::recorders::{self, REQUIRE};

/// A strict loader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strict {
    /// Symfony's YAML parser and `json_decode` (php-vcr).
    Symfony,
    /// `json.loads` and PyYAML's safe loader.
    Python,
}

impl Strict {
    fn command(self) -> Command {
        let loaders = recorders::programs().join("loaders");
        match self {
            Strict::Symfony => {
                let mut cmd = Command::new("php");
                cmd.arg(loaders.join("symfony_yaml.php"));
                cmd
            }
            Strict::Python => {
                let mut cmd = Command::new(recorders::python());
                cmd.arg(loaders.join("strict.py"));
                cmd
            }
        }
    }

    fn missing(self) -> Option<String> {
        let (cmd, args): (Command, &[&str]) = match self {
            Strict::Symfony => (
                Command::new("php"),
                &["-r", "require 'Symfony/Component/Yaml/autoload.php';"],
            ),
            Strict::Python => (Command::new(recorders::python()), &["-c", "import yaml"]),
        };
        let mut cmd = cmd;
        let ok = cmd.args(args).output().is_ok_and(|o| o.status.success());
        (!ok).then(|| match self {
            Strict::Symfony => "php cannot load Symfony's YAML component; install php-cli and php-symfony-yaml, or run tests/recorders/install --apt".to_owned(),
            Strict::Python => format!(
                "{} cannot import yaml; run tests/recorders/install",
                recorders::python().display()
            ),
        })
    }
}

/// What `loader` makes of each of `paths`: the data, or its error; `None` (said on stderr)
/// when the loader is not installed.
pub fn load_all(loader: Strict, paths: &[PathBuf]) -> Option<Vec<Result<Value, String>>> {
    if let Some(why) = loader.missing() {
        if std::env::var_os(REQUIRE).is_some() {
            panic!("the {loader:?} loader is required ({REQUIRE} is set): {why}");
        }
        super::skip(&format!("the {loader:?} loader is not installed ({why})"));
        return None;
    }
    let mut child = loader
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the loader starts");
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the {loader:?} loader failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    Some(
        answers
            .into_iter()
            .map(|answer| match answer.get("ok") {
                Some(data) => Ok(data.clone()),
                None => Err(answer["error"].as_str().unwrap_or("?").to_owned()),
            })
            .collect(),
    )
}
