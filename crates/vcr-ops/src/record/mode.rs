//! How the HTTP recorders of a tree are put in record mode for `vcr record` (issue 21).
//!
//! Claude Code's VCR and dsh take one variable each, which [`super::record_env`] sets. HTTP
//! recorders differ, and most keep their mode in the test code, where vcr cannot reach it.
//! So each recorder whose cassettes the tree holds is put in one of four cases, by what its
//! documentation says:
//!
//! - vcr sets the switch: nock back reads `NOCK_BACK_MODE` when it loads; pytest-recording
//!   and pytest-vcr take a pytest option, added to the command when it runs pytest itself,
//!   else to `PYTEST_ADDOPTS`, which pytest reads however it is started.
//! - the command sets it already (it names the option or the variable): left alone.
//! - the mode is in the test code, and the recorder's default records a cassette that is
//!   missing (vcrpy and Ruby VCR `once`, go-vcr's `recorder.New`, Polly's `recordIfMissing`,
//!   talkback's `RecordMode.NEW`): a run records what is missing, which `--only` arranges.
//! - the mode is outside vcr's reach and its default only replays (httprr's `-httprecord`
//!   flag, which only the test binaries of packages that use httprr accept; Playwright's
//!   `update`): vcr says exactly what to pass, and a run that recorded nothing is no
//!   success, since it could not have recorded.
//!
//! Each recorder says which case it is in, in its own file (`vcr_cassette::http::Recorder`'s
//! `record_mode`, and `declared` for a tool a project declares before its first cassette);
//! this module gathers them for the tree.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use vcr_cassette::http::recorder::RecordRun;
use vcr_cassette::http::{self, Format, RECORDERS};
use vcr_project::tree::{Cassette, CassetteKind, Selection};

/// A recorder as `vcr record` drives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecorderMode {
    /// The recorder (`pytest-recording`, `nock`, `go-vcr`, ...).
    pub recorder: &'static str,
    /// How many of the tree's cassettes are its.
    pub cassettes: usize,
    /// One of them, relative to the project root (none before a first recording).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
    /// How it is put in record mode.
    #[serde(flatten)]
    pub how: How,
}

pub use vcr_cassette::http::recorder::How;

/// What `vcr record` adds to the test command and its environment for the tree's HTTP
/// recorders, and how each one is put in record mode.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRecording {
    /// Variables added to the command's environment.
    pub env: Vec<(String, String)>,
    /// Arguments added after the command's own.
    pub args: Vec<String>,
    /// Each recorder whose cassettes the tree holds, in the order of [`RECORDERS`].
    pub recorders: Vec<RecorderMode>,
}

impl HttpRecording {
    /// The recorders that a run can only have replayed, unless the user set them another way.
    pub fn cannot(&self) -> impl Iterator<Item = &RecorderMode> {
        self.recorders
            .iter()
            .filter(|r| matches!(r.how, How::Cannot(_)))
    }
}

/// The recorders of `selection`'s HTTP cassettes and how `argv`, run in `dir` (the project
/// root is `root`) with the variables `env_get` gives, is put in record mode: each recorder
/// says it ([`Recorder::record_mode`](vcr_cassette::http::Recorder::record_mode)).
pub fn http_recording(
    selection: &Selection,
    root: &Path,
    dir: &Path,
    argv: &[String],
    env_get: &dyn Fn(&str) -> Option<String>,
) -> HttpRecording {
    // By recorder and tool, in the order of the table and of each recorder's tools.
    let mut found: BTreeMap<(Format, usize, &'static str), (usize, Option<String>)> =
        BTreeMap::new();
    let tools: Vec<((Format, usize, &'static str), &str)> = selection
        .cassettes
        .par_iter()
        .filter(|c| c.kind == CassetteKind::Http)
        .filter_map(|c| Some((tool_of(c)?, c.rel.as_str())))
        .collect();
    for (tool, rel) in tools {
        let entry = found.entry(tool).or_default();
        entry.0 += 1;
        if entry.1.as_deref().is_none_or(|first| rel < first) {
            entry.1 = Some(rel.to_owned());
        }
    }
    let run = RecordRun {
        root,
        dir,
        argv,
        env: env_get,
    };
    // A declared tool counts before a first recording, which has no cassettes.
    for format in RECORDERS {
        if let Some(tool) = format.recorder().declared(&run) {
            found.entry(key(*format, tool)).or_default();
        }
    }
    let mut recording = HttpRecording::default();
    for ((format, _, tool), (cassettes, example)) in found {
        let mode = format.recorder().record_mode(tool, &run);
        recording.env.extend(mode.env);
        recording.args.extend(mode.args);
        recording.recorders.push(RecorderMode {
            recorder: mode.tool,
            cassettes,
            example,
            how: mode.how,
        });
    }
    recording
}

/// A tool's place: its recorder, its rank among the recorder's tools, its name.
fn key(format: Format, tool: &'static str) -> (Format, usize, &'static str) {
    let rank = format.recorder().tools().iter().position(|t| *t == tool);
    (format, rank.unwrap_or(usize::MAX), tool)
}

/// The tool that wrote `cassette`; `None` when it is no HTTP cassette vcr reads, or a file
/// no test recorder wrote (a browser's HAR export).
fn tool_of(cassette: &Cassette) -> Option<(Format, usize, &'static str)> {
    let bytes = std::fs::read(&cassette.path).ok()?;
    let format = http::format_of(&cassette.path, &bytes, &cassette.dir.read).ok()??;
    let tool = format.recorder().tool(&http::decompressed(&bytes))?;
    Some(key(format, tool))
}
