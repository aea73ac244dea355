//! Node is the oracle: the committed vectors in `tests/vectors/` were produced by
//! `node tests/oracle/gen.js` (JSON.parse/JSON.stringify, crypto SHA-1 and the seed's own
//! dehydration and writer). These tests hold the library to them, and, where node is
//! installed, regenerate them to prove the committed files are what node says today.

use crate::common::skip;

use std::path::Path;
use std::process::Command;

use serde::Deserialize;
use vcr_cassette::claude_code::{self, Version};
use vcr_cassette::rules::{Machine, Platform, RuleSet, claude_code as preset};

fn vectors(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn records<T: for<'de> Deserialize<'de>>(file: &str) -> Vec<T> {
    vectors(file)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[derive(Deserialize)]
struct JsonVector {
    name: String,
    text: String,
    compact: String,
    pretty: String,
    sha1: String,
}

#[test]
fn json_matches_node() {
    let cases: Vec<JsonVector> = records("json.jsonl");
    assert!(cases.len() > 400);
    for case in cases {
        let value = vcr_json::parse(case.text.as_bytes())
            .unwrap_or_else(|e| panic!("{}: {e} in {:?}", case.name, case.text));
        let compact = String::from_utf8(vcr_json::to_compact(&value)).unwrap();
        assert_eq!(
            compact, case.compact,
            "compact: {} {:?}",
            case.name, case.text
        );
        let pretty = String::from_utf8(vcr_json::to_pretty(&value)).unwrap();
        assert_eq!(pretty, case.pretty, "pretty: {} {:?}", case.name, case.text);
        let name = claude_code::message_name(std::slice::from_ref(&value));
        assert_eq!(
            name,
            format!("{}.json", &case.sha1[..6]),
            "sha1: {}",
            case.name
        );
    }
}

#[derive(Deserialize)]
struct NodeMachine {
    cwd: String,
    #[serde(rename = "configHome")]
    config_home: String,
    platform: String,
}

fn rules(m: &NodeMachine) -> RuleSet {
    let platform = if m.platform == "win32" {
        Platform::Windows
    } else {
        Platform::Unix
    };
    RuleSet::new(preset(&Machine {
        cwd: m.cwd.clone(),
        config_home: m.config_home.clone(),
        platform,
    }))
    .unwrap()
}

#[derive(Deserialize)]
struct DehydrateVector {
    machine: NodeMachine,
    input: String,
    output: String,
}

#[test]
fn dehydration_matches_the_seed_in_node() {
    let cases: Vec<DehydrateVector> = records("dehydrate.jsonl");
    assert!(cases.len() > 60);
    for case in cases {
        let got = rules(&case.machine)
            .apply(&case.input, vcr_cassette::rules::Scope::Both)
            .unwrap();
        assert_eq!(
            got, case.output,
            "{} on {:?}",
            case.machine.platform, case.input
        );
    }
}

#[derive(Deserialize)]
struct FixtureVector {
    machine: NodeMachine,
    #[serde(rename = "rawName")]
    raw_name: String,
    raw: String,
    #[serde(rename = "seedName")]
    seed_name: String,
    #[serde(rename = "seedText")]
    seed_text: String,
}

fn normalized(text: &str, rules: &RuleSet) -> (String, String) {
    let mut value = vcr_json::parse(text.as_bytes()).unwrap();
    claude_code::check_message(&value).unwrap();
    claude_code::normalize_message(&mut value, rules, Version::V2_1_88).unwrap();
    let name = claude_code::message_name(claude_code::input(&value));
    (
        name,
        String::from_utf8(vcr_json::to_pretty(&value)).unwrap(),
    )
}

#[test]
fn raw_recordings_normalize_to_the_seed_writer_bytes() {
    let cases: Vec<FixtureVector> = records("fixtures.jsonl");
    assert_eq!(cases.len(), 12);
    for case in cases {
        let rules = rules(&case.machine);
        // The seed's own file is already canonical and correctly named.
        let (name, text) = normalized(&case.seed_text, &rules);
        assert_eq!(text, case.seed_text, "seed file {} changed", case.seed_name);
        assert_eq!(name, case.seed_name);
        // A raw recording comes out byte-identical to what the seed would have written.
        let raw_value = vcr_json::parse(case.raw.as_bytes()).unwrap();
        assert_eq!(
            claude_code::message_name(claude_code::input(&raw_value)),
            case.raw_name
        );
        let (name, text) = normalized(&case.raw, &rules);
        assert_eq!(
            text, case.seed_text,
            "raw {} on {}",
            case.raw_name, case.machine.platform
        );
        assert_eq!(name, case.seed_name);
    }
}

/// Regenerates every vector file with node and compares it with the committed one.
#[test]
fn committed_vectors_are_what_node_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let node = Command::new("node").arg("--version").output();
    if node.is_err() {
        if std::env::var_os("VCR_REQUIRE_NODE").is_some() {
            panic!("node is required (VCR_REQUIRE_NODE is set) but was not found on PATH");
        }
        skip("node not found on PATH");
        return;
    }
    for file in ["json.jsonl", "dehydrate.jsonl", "fixtures.jsonl"] {
        let out = Command::new("node")
            .arg(root.join("tests/oracle/gen.js"))
            .args(["--print", file])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == vectors(file).as_bytes(),
            "tests/vectors/{file} is stale: run `node tests/oracle/gen.js` and commit the result"
        );
    }
}
