//! The tests of `vcr` as a user runs it, in one binary (as ripgrep's `tests/tests.rs`): the
//! real binary on real trees in temporary folders, the real recorders, real git repositories,
//! node as the oracle. One module a topic; `common` holds what they share. The library
//! crates' own tests live beside their code (`cargo test` runs both), the packaging tests in
//! `tests/packaging/` (their own CI step), and `zzz_skipped` counts what did not run.

mod common;

mod action;
mod detectors;
mod diff;
mod diff_memory;
mod diff_rerecord;
mod diff_stream;
mod discovery;
mod doc_edit;
mod docs;
mod dsh;
mod dsh_lib;
mod dsh_memory;
mod dsh_stream;
mod errors;
mod escapes;
mod generic;
mod generic_lib;
mod generic_memory;
mod generic_stream;
mod http_diff;
mod http_each_reader;
mod http_generic;
mod http_hoverfly;
mod http_json_readers;
mod http_judge;
mod http_judge_recorded;
mod http_named_readers;
mod http_orphans;
mod http_playwright;
mod http_prune;
mod http_record;
mod http_recorders;
mod http_scrub;
mod http_windows;
mod http_wiremock;
mod http_yaml_readers;
mod js_regex;
mod large_fixture;
mod layers;
mod limits;
mod normalize;
mod oracle;
mod prune;
mod races;
mod record;
mod recorder_folders;
mod recorders_new;
mod rehash;
mod review;
mod selection;
mod streamed;
mod validators;
mod verify;
mod yaml_subset;
