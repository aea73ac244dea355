//! The project `vcr` works on: its configuration, its files and how they are changed.
//!
//! [`config`] finds and layers `vcr.toml` (or `[tool.vcr]` in `pyproject.toml`) into the
//! settings every command reads; [`tree::Project`] is the project root with those settings,
//! and selects the cassettes a command works on ([`tree::Selection`]: named files, staged
//! files, or the whole tree as one walk finds it, [`tree::walk`]), each a
//! [`vcr_cassette::model::Cassette`]; [`store::Store`] is the only way a file changes
//! (temporary files renamed into place, multi-file moves through a journal that a killed run
//! leaves recoverable); [`git`] reads staged blobs and revisions. [`run`] is the parallel
//! runtime every operation uses: files processed on every core, results in path order, a file
//! that cannot be processed a [`run::FileProblem`] and never the end of the run.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod config;
pub mod git;
pub mod run;
pub mod store;
pub mod tree;
