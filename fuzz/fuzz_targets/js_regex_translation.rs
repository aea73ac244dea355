//! The linear-time translation against `regress`: where a pattern translates, both engines
//! give the same first match, groups and global replacement on the same text.
//!
//! `regress` itself departs from JavaScript in one place, where the translation follows node
//! (the oracle of `tests/js_regex.rs`): case under `i` for characters such as `ſ` and the
//! Kelvin sign (so also for classes that hold them: `[\W]` matches `k` under `i` in regress,
//! not in node). Those inputs are skipped here. The input is `FLAGS PATTERN\nTEXT`, FLAGS any
//! of `i`, `s`, `m`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcr_regex::JsRegex;

#[path = "common.rs"]
mod common;

fuzz_target!(init: common::tolerate_caught_regex_panics(), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (head, subject) = text.split_once('\n').unwrap_or((text, ""));
    let (flags, pattern) = head.split_once(' ').unwrap_or(("", head));
    let flags: String = flags.chars().filter(|c| "ism".contains(*c)).collect();
    let wide_class = ["\\W", "\\S", "\\D", "[^", "."]
        .iter()
        .any(|class| pattern.contains(class));
    if flags.contains('i') && (!text.is_ascii() || wide_class) {
        return;
    }
    let Ok(linear) = JsRegex::new(pattern, &flags) else {
        return;
    };
    if !linear.is_linear() {
        return;
    }
    let reference = JsRegex::backtracking(pattern, &flags).expect("it compiled once");
    let (Ok(ours), Ok(theirs)) = (linear.exec(subject), reference.exec(subject)) else {
        return;
    };
    assert_eq!(ours, theirs, "exec /{pattern}/{flags} on {subject:?}");
    let replacement = "<$&|$1|$2|$<n>>";
    let (Ok(ours), Ok(theirs)) = (
        linear.replace(subject, replacement, true),
        reference.replace(subject, replacement, true),
    ) else {
        return;
    };
    assert_eq!(ours, theirs, "replace /{pattern}/g{flags} on {subject:?}");
});
