//! A user rule compiled from any pattern and applied to any text: it compiles or is refused
//! with an error, and applying it answers or reports the rule as stopped; never a panic,
//! stack overflow or hang. The input is `FLAGS PATTERN\nREPLACEMENT\nTEXT`, where FLAGS is
//! any of `i` (ignore case) and `1` (first match only) followed by a space.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vcr_cassette::rules::{Rule, RuleConfig, RuleSet, Scope};

#[path = "common.rs"]
mod common;

fuzz_target!(init: common::tolerate_caught_regex_panics(), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (head, rest) = text.split_once('\n').unwrap_or((text, ""));
    let (replace, subject) = rest.split_once('\n').unwrap_or((rest, ""));
    let (flags, pattern) = head.split_once(' ').unwrap_or(("", head));
    let config = RuleConfig {
        id: "fuzz".into(),
        regex: Some(pattern.into()),
        literal: None,
        replace: replace.into(),
        scope: None,
        global: Some(!flags.contains('1')),
        ignore_case: Some(flags.contains('i')),
    };
    let Ok(rule) = Rule::from_config(&config) else {
        return;
    };
    let set = RuleSet::new(vec![rule]).expect("one rule");
    let _ = set.apply(subject, Scope::Both);
});
