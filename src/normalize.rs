//! `vcr normalize`: bring every cassette to the bytes its harness's own writer would produce.
//!
//! Rules apply to the scoped fields, ids become deterministic, the canonical writer formats
//! the result. Names are not changed (that is `vcr rehash`), but names that went stale under
//! the current rules are reported. Each file is rewritten atomically on its own, so a run
//! killed halfway leaves some files normalized and the others untouched; running again
//! finishes the job. A file that changed after it was read is left as it is and reported.

use similar::TextDiff;

use crate::event::{Event, FileProblem, Progress, Report, error_chain, par_ordered};
use crate::kind::{self, Mode};
use crate::lint::Scanner;
use crate::store::{ContentHash, Store, StoreError};
use crate::tree::{Cassette, Selection};

/// How `normalize` runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Write nothing; only report what would change.
    pub check: bool,
    /// Compute the unified diff of each change.
    pub diff: bool,
}

/// Counts of what `normalize` found and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Cassettes read.
    pub files: usize,
    /// Cassettes that differ from their canonical form.
    pub changed: usize,
    /// Cassettes written.
    pub written: usize,
    /// Cassettes whose name is stale.
    pub stale: usize,
    /// Files that could not be processed.
    pub errors: usize,
}

struct FileResult {
    changed: bool,
    written: bool,
    /// The file changed after it was read, so it was not rewritten.
    changed_meanwhile: bool,
    diff: Option<String>,
    stale: Option<String>,
    error: Option<FileProblem>,
}

/// Runs `normalize` over the selected cassettes. With `check` unset, the caller must hold
/// the store's lock.
pub fn run(
    selection: &Selection,
    store: &Store,
    options: Options,
    report: &dyn Report,
    progress: &dyn Progress,
) -> Summary {
    let mut summary = Summary::default();
    let structured: Vec<&Cassette> = selection
        .cassettes
        .iter()
        .filter(|c| c.kind.is_structured())
        .collect();
    // Diffs show file contents: secrets in them are masked as in every other output.
    let masker = options.diff.then(|| Scanner::new(&[]));
    par_ordered(
        &structured,
        progress,
        |cassette| normalize_one(cassette, store, options, masker.as_ref()),
        |cassette, result| {
            summary.files += 1;
            if let Some(problem) = &result.error {
                summary.errors += 1;
                problem.report(&cassette.rel, report);
                return;
            }
            if result.changed_meanwhile {
                summary.errors += 1;
                report.report(&Event::Changed {
                    path: &cassette.rel,
                    action: "rewritten",
                });
                return;
            }
            if result.changed {
                summary.changed += 1;
                summary.written += usize::from(result.written);
                report.report(&Event::Normalized {
                    path: &cassette.rel,
                    written: result.written,
                    diff: result.diff.as_deref(),
                });
            }
            if let Some(expected) = &result.stale {
                summary.stale += 1;
                report.report(&Event::StaleName {
                    path: &cassette.rel,
                    expected,
                });
            }
        },
    );
    summary
}

fn normalize_one(
    cassette: &Cassette,
    store: &Store,
    options: Options,
    masker: Option<&Scanner>,
) -> FileResult {
    let mut result = FileResult {
        changed: false,
        written: false,
        changed_meanwhile: false,
        diff: None,
        stale: None,
        error: None,
    };
    let bytes = match std::fs::read(&cassette.path) {
        Ok(bytes) => bytes,
        Err(e) => {
            result.error = Some(FileProblem::io(&e));
            return result;
        }
    };
    let canonical = match kind::canonicalize(cassette, &bytes, Mode::Normalize) {
        Ok(canonical) => canonical,
        Err(e) => {
            result.error = Some(FileProblem::cassette(&e, &bytes));
            return result;
        }
    };
    let file_name = cassette.path.file_name().and_then(|n| n.to_str());
    result.stale = canonical
        .name
        .filter(|name| Some(name.as_str()) != file_name);
    if canonical.bytes == bytes {
        return result;
    }
    result.changed = true;
    if let Some(masker) = masker {
        let diff = unified_diff(&cassette.rel, &bytes, &canonical.bytes);
        result.diff = Some(masker.mask(&diff));
    }
    if !options.check {
        match store.replace_file(&cassette.path, &canonical.bytes, ContentHash::of(&bytes)) {
            Ok(()) => result.written = true,
            Err(StoreError::Changed { .. }) => result.changed_meanwhile = true,
            Err(e) => result.error = Some(FileProblem::io(&error_chain(&e))),
        }
    }
    result
}

/// A unified diff of two versions of a file, `a/` and `b/` prefixed like git's.
pub fn unified_diff(rel: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header(&format!("a/{rel}"), &format!("b/{rel}"))
        .to_string()
}
