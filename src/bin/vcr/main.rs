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
    app::run(std::env::args_os())
}
