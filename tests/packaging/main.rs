//! The packaging tests: the wheel and the pre-commit hook installed as a user installs them
//! (`precommit`), and the release archives `dist/release` makes (`release`). Each builds `vcr`
//! again, so they are a step of their own: `cargo test --test packaging` (CI runs it after the
//! main suite; `cargo test` alone does not).

#[path = "../common/skip.rs"]
mod skip;

mod precommit;
mod release;
