//! The `vcr` engine: reading, checking and rewriting the fixture trees of record/replay
//! tests of LLM agents.
//!
//! This library never prints. Everything it has to say goes back to the caller as values
//! (plans, outcomes, typed errors) or through the callbacks the caller passes in; the `vcr`
//! binary is the only place that writes to a terminal.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod baseline;
pub mod config;
pub mod diff;
pub mod doc;
pub mod event;
pub mod exec;
pub mod finding;
pub mod git;
pub mod js_regex;
pub mod json;
pub mod kind;
pub mod lint;
pub mod normalize;
pub mod provider;
pub mod prune;
pub mod record;
pub mod rehash;
pub mod rules;
pub mod store;
pub mod tree;
pub mod udiff;
pub mod usage;
pub mod verify;

/// The integration tests' skip (`tests/common/skip.rs`), so a unit test that cannot run here
/// is counted with theirs at the end of `cargo test`.
#[cfg(test)]
#[path = "../tests/common/skip.rs"]
mod test_skip;
