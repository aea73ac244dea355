//! Running the user's test command for `vcr record` and `vcr prune`, and gathering what it
//! says about the cassettes it used.
//!
//! The command runs in the project root with the environment vcr was given plus what the
//! caller adds (`VCR_USAGE_LOG`, the record variables). Its stdout and stderr are copied to
//! the caller's writers as they arrive, chunk by chunk (a progress line without a newline
//! still shows), and scanned line by line for missing-cassette messages (the seeds' and the
//! HTTP recorders', `usage::MissScanner`). SIGINT and
//! SIGTERM that vcr receives are forwarded to it (`signals`), so the caller can always clean
//! up after it. On Linux the given folders are watched for file opens while it runs
//! (`watch`): harnesses that write no usage log are still seen reading cassettes.
//!
//! This module runs and observes; it decides nothing. Whether a run was good enough to prune
//! from, or to keep a recording of, is the caller's business.

mod signals;
mod watch;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::usage::{Miss, MissScanner};

/// What to run.
#[derive(Debug, Clone, Copy)]
pub struct Spec<'a> {
    /// The program and its arguments.
    pub argv: &'a [String],
    /// The folder to run it in (the project root).
    pub dir: &'a Path,
    /// Variables added to the inherited environment.
    pub env: &'a [(String, String)],
    /// Folders to watch for file opens (Linux only; empty: no watching).
    pub watch: &'a [PathBuf],
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

/// Whether file opens were watched, and how well.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watch {
    /// Nothing was asked to be watched.
    Off,
    /// Every folder was watched and every open seen.
    Complete,
    /// Watching is not available here (not Linux).
    Unavailable,
    /// Watching failed or lost events: the opens seen are not all the opens made.
    Incomplete {
        /// Why.
        reason: String,
    },
}

/// What a finished run did and said.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub status: Status,
    /// The signal vcr received while it ran (and forwarded), if any.
    pub interrupted: Option<i32>,
    /// Files opened in the watched folders, absolute.
    pub opened: BTreeSet<PathBuf>,
    /// Cassettes the output said were missing, as printed.
    pub missing: Vec<String>,
    /// Lookups the output said missed without naming a cassette (go-vcr), as printed.
    pub unnamed_misses: Vec<String>,
    /// How well the opens were watched.
    pub watch: Watch,
}

impl Finished {
    /// Whether the command exited 0 and was not interrupted.
    pub fn succeeded(&self) -> bool {
        self.status == Status::Code(0) && self.interrupted.is_none()
    }

    /// The exit code to pass on: the command's own, 128 + the signal that ended it (as a
    /// shell reports it), or 130 when it exited 0 after vcr was interrupted.
    pub fn exit_code(&self) -> u8 {
        let code = match self.status {
            Status::Code(0) => self.interrupted.map_or(0, |s| 128 + s),
            Status::Code(code) => code,
            Status::Signal(signal) => 128 + signal,
        };
        u8::try_from(code).unwrap_or(1).max(u8::from(code != 0))
    }

    /// How it ended, for messages: `exited with code 3`, `was ended by signal 2`.
    pub fn describe(&self) -> String {
        let ended = match self.status {
            Status::Code(code) => format!("exited with code {code}"),
            Status::Signal(signal) => format!("was ended by signal {signal}"),
        };
        match self.interrupted {
            Some(signal) => format!("{ended} after vcr received signal {signal}"),
            None => ended,
        }
    }
}

/// The command could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// No command was given.
    #[error("no command to run")]
    Empty,
    /// The program could not be started.
    #[error("cannot run `{program}`")]
    Spawn {
        /// The program.
        program: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for it failed.
    #[error("lost track of `{program}`")]
    Wait {
        /// The program.
        program: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
}

/// Runs the command to its end, copying its stdout to `out` and its stderr to `err`.
pub fn run(
    spec: Spec<'_>,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> Result<Finished, ExecError> {
    let (program, args) = spec.argv.split_first().ok_or(ExecError::Empty)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(spec.dir)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let watcher = watch::Watcher::start(spec.watch);
    // Installed before the spawn, so a signal that arrives in between is not lost: it is
    // forwarded as soon as the child exists.
    let guard = signals::install();
    let mut child = command.spawn().map_err(|source| ExecError::Spawn {
        program: program.clone(),
        source,
    })?;
    guard.set_child(child.id());
    let child_out = child.stdout.take().expect("piped stdout");
    let child_err = child.stderr.take().expect("piped stderr");
    let (status, missing) = std::thread::scope(|scope| {
        let a = scope.spawn(move || pass_through(child_out, out));
        let b = scope.spawn(move || pass_through(child_err, err));
        let status = child.wait();
        // Reaped: its pid may be reused while a leftover process keeps the pipes open.
        guard.child_exited();
        let mut missing = a.join().unwrap_or_default();
        missing.extend(b.join().unwrap_or_default());
        (status, missing)
    });
    let interrupted = guard.received();
    drop(guard);
    let status = status.map_err(|source| ExecError::Wait {
        program: program.clone(),
        source,
    })?;
    let (opened, watch) = watcher.finish();
    let (mut named, mut unnamed) = (Vec::new(), Vec::new());
    for miss in missing {
        match miss {
            Miss::Cassette(path) => named.push(path),
            Miss::Unnamed(line) => unnamed.push(line),
        }
    }
    Ok(Finished {
        status: exit_status(status),
        interrupted,
        opened,
        missing: named,
        unnamed_misses: unnamed,
        watch,
    })
}

#[cfg(unix)]
fn exit_status(status: std::process::ExitStatus) -> Status {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Status::Code(code),
        (None, Some(signal)) => Status::Signal(signal),
        (None, None) => Status::Code(1),
    }
}

#[cfg(not(unix))]
fn exit_status(status: std::process::ExitStatus) -> Status {
    Status::Code(status.code().unwrap_or(1))
}

/// The longest line kept for scanning; a longer one is scanned in pieces of this size.
const MAX_LINE: usize = 1 << 20;

/// Copies a child's stream to `sink` as it arrives and returns the misses its lines report.
/// The copy goes on when `sink` fails (a closed pipe), so the child never blocks on a full
/// pipe.
fn pass_through(mut from: impl Read, sink: &mut (dyn Write + Send)) -> Vec<Miss> {
    let mut missing = Vec::new();
    let mut scanner = MissScanner::default();
    let mut line = Vec::new();
    let mut buf = [0u8; 8192];
    let mut sink_ok = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if sink_ok {
            sink_ok = sink
                .write_all(&buf[..n])
                .and_then(|()| sink.flush())
                .is_ok();
        }
        for &byte in &buf[..n] {
            if byte == b'\n' || line.len() >= MAX_LINE {
                missing.extend(scanner.line(&String::from_utf8_lossy(&line)));
                line.clear();
            } else {
                line.push(byte);
            }
        }
    }
    missing.extend(scanner.line(&String::from_utf8_lossy(&line)));
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_copied_whole_and_scanned() {
        let text = "ok 1\nError: Fixture missing: /p/fixtures/token-count-0123456789ab.json. Re-run tests\npartial";
        let mut sink = Vec::new();
        let missing = pass_through(text.as_bytes(), &mut sink);
        assert_eq!(sink, text.as_bytes());
        assert_eq!(
            missing,
            [Miss::Cassette(
                "/p/fixtures/token-count-0123456789ab.json".into()
            )]
        );
    }

    #[test]
    fn exit_codes_follow_the_shell() {
        let finished = |status, interrupted| Finished {
            status,
            interrupted,
            opened: BTreeSet::new(),
            missing: Vec::new(),
            unnamed_misses: Vec::new(),
            watch: Watch::Off,
        };
        assert_eq!(finished(Status::Code(0), None).exit_code(), 0);
        assert!(finished(Status::Code(0), None).succeeded());
        assert_eq!(finished(Status::Code(3), None).exit_code(), 3);
        assert_eq!(finished(Status::Code(256), None).exit_code(), 1);
        assert_eq!(finished(Status::Signal(15), None).exit_code(), 143);
        let interrupted = finished(Status::Code(0), Some(2));
        assert!(!interrupted.succeeded());
        assert_eq!(interrupted.exit_code(), 130);
    }
}
