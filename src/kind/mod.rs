//! Fixture kinds: how to recognise, check, normalize and name each kind of cassette.

pub mod claude_code;
