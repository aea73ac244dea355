//! Tests that cannot run here (a recorder, node, the shared corpus, a validator missing) say
//! so, and are counted. A skip prints `skipped: <test>: <why>` on the process's stderr (the
//! harness captures `eprintln!`) and leaves a record that `tests/zzz_skipped.rs`, the last
//! test target `cargo test` runs (targets run in name order), counts in one line at the end.
//! Records are kept per `cargo test` run: every test binary of a run is a child of the same
//! cargo process.
#![allow(dead_code, unreachable_pub)]

use std::io::Write;
use std::path::PathBuf;

/// Says on stderr that the running test is skipped and why, and records it for the count.
pub fn skip(why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
    let Some(dir) = records() else {
        return;
    };
    let _ = std::fs::create_dir_all(&dir);
    let binary = std::env::args()
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // One file per skip: binaries and threads record at once, and nothing is appended.
    let name = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let binary = binary.split('-').next().unwrap_or_default().to_owned();
    let _ = std::fs::write(dir.join(name), format!("{binary}::{test}\t{why}\n"));
}

/// Where the skips of this `cargo test` run are recorded: a folder named after the cargo
/// process every test binary of the run is a child of.
pub fn records() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        let cargo = std::os::unix::process::parent_id();
        Some(std::env::temp_dir().join(format!("vcr-test-skips-{cargo}")))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
