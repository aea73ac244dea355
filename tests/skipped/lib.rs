//! The count of the tests that did not run: `cargo test` runs each package's tests in the
//! order of the packages' names, so this package (`vcr-skipped`, after every `vcr-*` crate)
//! comes last and prints, in one line, how many tests of this run skipped (a
//! recorder, node, the shared corpus or a validator missing: see `tests/common/skip.rs`)
//! and why, and where `docs/development.md` says how to run them all.

#![cfg(test)]

#[path = "../common/skip.rs"]
mod skip;

use std::collections::BTreeMap;
use std::io::Write;

#[test]
fn the_tests_that_did_not_run_are_counted() {
    let Some(dir) = skip::records() else {
        return;
    };
    let mut tests = Vec::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        for line in text.lines() {
            let (test, why) = line.split_once('\t').unwrap_or((line, ""));
            tests.push(test.to_owned());
            *reasons.entry(why.to_owned()).or_default() += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let line = if tests.is_empty() {
        "every test ran: none was skipped".to_owned()
    } else {
        let why: Vec<String> = reasons
            .iter()
            .map(|(why, n)| format!("{n} × {why}"))
            .collect();
        format!(
            "{} skipped, not run here: {}; docs/development.md's \"Running every test\" says how to run them all",
            if tests.len() == 1 {
                "1 test".to_owned()
            } else {
                format!("{} tests", tests.len())
            },
            why.join("; ")
        )
    };
    // Straight to the process's stderr: the harness captures `eprintln!`.
    let _ = writeln!(std::io::stderr(), "{line}");
}
