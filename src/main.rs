//! The `vcr` command line: a thin adapter over the `vcr` library.
//!
//! Arguments are parsed (`cli`), resolved once into a `Context` (`context`), handed to one
//! command module (`commands`), and the outcome becomes an exit code in `app`, the only place
//! that decides how the process ends.

mod app;
mod cli;
mod commands;
mod context;
mod generate;
#[cfg(test)]
mod generated;
mod report;

/// mimalloc, not the system allocator: see its entry in `Cargo.toml` (the library itself
/// leaves the choice to whoever links it).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    purge_freed_memory_after(PURGE_DELAY_MS);
    vcr_ops::scrub::on_give_back(give_back_freed_memory);
    app::run(std::env::args_os())
}

/// How long mimalloc keeps memory freed before it gives it back to the system. Its own
/// default, 10 ms, gives back memory that a run allocates again at once: `vcr verify` of one
/// cassette of gzip'd bodies faulted 80,000 pages in instead of 36,000 and took a fifth
/// longer (0.58 s against 0.47, medians of 10 runs). At 100 ms it takes less than with
/// mimalloc 3 (0.49, which waits 1 s), and a whole-tree `verify` of 32 copies of the corpus
/// peaks at 64-67 MB resident instead of mimalloc 3's 116-118 (issue 25).
const PURGE_DELAY_MS: std::ffi::c_long = 100;

/// mimalloc 2's `mi_option_purge_delay` (its `mi_option_e`).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

unsafe extern "C" {
    /// mimalloc's own setter (`mimalloc.h`), in the library the `mimalloc` crate links.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    /// mimalloc's collection (`mimalloc.h`): with `force`, frees the calling thread's empty
    /// pages and purges what waits for the purge delay, now.
    fn mi_collect(force: bool);
}

/// Gives what was freed back to the system now, between the phases of a large file's scrub
/// ([`vcr_ops::scrub::on_give_back`]): a few calls per file, where a purge delay of 0 for
/// the whole run cost a tenth more CPU time on the corpus (issue 43).
fn give_back_freed_memory() {
    // SAFETY: mimalloc's collection takes no pointer and may be called from any thread.
    unsafe { mi_collect(true) };
}

/// Sets mimalloc's purge delay, unless `MIMALLOC_PURGE_DELAY` chooses one: the variable
/// mimalloc reads stays the way to tune it.
fn purge_freed_memory_after(ms: std::ffi::c_long) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain setter of an option that takes any integer, called before any
        // other thread exists.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, ms) };
    }
}
