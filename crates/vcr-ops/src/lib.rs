//! The operations of `vcr`, one module each: [`verify`] (the gate), [`normalize`] (with the
//! HTTP [`scrub`]), [`rehash`], [`prune`], [`record`], [`review`], and what they share:
//! [`usage`] (which cassettes a test run read), [`exec`] (running the test command),
//! [`baseline`].
//!
//! An operation takes a selection of the project (`vcr_project::tree::Selection`), reads each
//! file through the kinds of `vcr_cassette`, asks the judge (`vcr_lint`) what leaked, changes
//! files only through `vcr_project::store`, and says what happened as [`event::Event`]s to the
//! caller's [`event::Report`]. Nothing here prints: the `vcr` binary renders the events.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod baseline;
pub mod event;
pub mod exec;
pub mod normalize;
pub mod prune;
pub mod record;
pub mod rehash;
pub mod review;
pub mod scrub;
pub mod usage;
pub mod verify;
