//! `kind::canonicalize` and `kind::key_of` on any bytes as a Claude Code fixture,
//! under the preset and two user rules (one linear, one with a look-behind): a fixture
//! is rewritten or refused with an error, and the rewritten form is a fixed point (a
//! normalized tree passes `vcr normalize --check`), and a file named from its key material
//! is well-formed throughout (`vcr rehash` renames nothing broken).
#![no_main]

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use vcr_cassette::claude_code::Version;
use vcr_cassette::rules::{Machine, Platform, Rule, RuleConfig, RuleSet, claude_code};
use vcr_cassette::{Mode, canonicalize, key_of};
use vcr_project::tree::{Cassette, CassetteKind, FixtureDir};

#[path = "common.rs"]
mod common;

fn user(id: &str, regex: &str, replace: &str) -> Rule {
    Rule::from_config(&RuleConfig {
        id: id.into(),
        regex: Some(regex.into()),
        literal: None,
        replace: replace.into(),
        scope: None,
        global: None,
        ignore_case: None,
    })
    .expect("the fuzz rules compile")
}

static DIR: LazyLock<Arc<FixtureDir>> = LazyLock::new(|| {
    let mut rules = claude_code(&Machine {
        cwd: "/home/alice/project".into(),
        config_home: "/home/alice/.claude".into(),
        platform: Platform::Unix,
    });
    rules.push(user("date", r"\d{4}-\d\d-\d\d", "[DATE]"));
    rules.push(user("token", r"(?<=token=)\w+", "[TOKEN]"));
    Arc::new(FixtureDir {
        path: PathBuf::from("/home/alice/project/fixtures"),
        rules: Arc::new(RuleSet::new(rules).expect("unique ids")),
        version: Version::V2_1_88,
        cwd: "/home/alice/project".into(),
        spec: None,
        dehydrate_stream_events: true,
        read: vcr_cassette::http::ReadOptions::default(),
    })
});

fn cassette(kind: CassetteKind, name: &str) -> Cassette {
    Cassette {
        path: DIR.path.join(name),
        rel: format!("fixtures/{name}"),
        kind,
        dir: Arc::clone(&DIR),
    }
}

fuzz_target!(init: common::tolerate_caught_regex_panics(), |data: &[u8]| {
    let message = cassette(CassetteKind::ClaudeCodeMessage, "abcdef.json");
    if let Ok(canonical) = canonicalize(&message, data, Mode::Normalize) {
        let again = canonicalize(&message, &canonical.bytes, Mode::Normalize)
            .expect("the canonical form is a valid fixture");
        assert_eq!(
            String::from_utf8_lossy(&again.bytes),
            String::from_utf8_lossy(&canonical.bytes),
            "the canonical form is a fixed point"
        );
        assert_eq!(again.name, canonical.name);
        assert!(!again.key_changed);
    }
    let _ = canonicalize(&message, data, Mode::Rekey);
    if let Ok(Some(_)) = key_of(&message, data) {
        assert!(
            vcr_json::parse(data).is_ok(),
            "a file named from its key material is JSON throughout"
        );
    }
    let count = cassette(CassetteKind::ClaudeCodeTokenCount, "token-count-0123456789ab.json");
    let _ = canonicalize(&count, data, Mode::Normalize);
});
