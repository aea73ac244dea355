//! The dsh session parser, script derivation, override check, `{{fromRequest:}}` check and
//! scenario check on any bytes. The input is a scenario: `session.jsonl`, then (after a NUL
//! byte) `replay.override.json`, then (after another) `session.1.jsonl`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcr_cassette::dsh;

const CWD: &str = "/home/alice/project";

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let log = parts.next().unwrap_or_default();
    let overrides = parts.next();
    let child = parts.next();

    if let Ok(parsed) = dsh::parse_session(log, "session.jsonl") {
        let _ = dsh::derive_script(&parsed, 0, "session.jsonl");
    }
    if let Ok(normal) = dsh::normalize_session(log, "session.jsonl", Some(CWD)) {
        let again = dsh::normalize_session(&normal, "session.jsonl", Some(CWD))
            .expect("the normal form parses");
        assert_eq!(again, normal, "the normal form is a fixed point");
    }
    if let Some(overrides) = overrides {
        let _ = dsh::check_override(overrides, "replay.override.json", Some(3));
    }
    let mut files = vec![(dsh::PRIMARY, log)];
    files.extend(overrides.map(|o| (dsh::REPLAY_OVERRIDE, o)));
    files.extend(child.map(|c| ("session.1.jsonl", c)));
    let _ = dsh::check_scenario(&files, "tests/snapshots/fuzz", Some(CWD));
});
