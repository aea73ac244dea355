//! `vcr normalize`: bring every cassette to the bytes its harness's own writer would produce.
//!
//! Rules apply to the scoped fields, ids become deterministic, the canonical writer formats
//! the result. Names are not changed (that is `vcr rehash`), but names that went stale under
//! the current rules are reported. Each file is rewritten atomically on its own, so a run
//! killed halfway leaves some files normalized and the others untouched; running again
//! finishes the job. A file that changed after it was read is left as it is and reported.

use crate::event::{Event, FileProblem, Progress, Report, error_chain, par_ordered};
use crate::scrub;
use crate::verify::Checks;
use vcr_cassette::dsh::LineNormalizer;
use vcr_cassette::http;
use vcr_cassette::jsonl::FirstDifference;
use vcr_cassette::jsonl::LineReader;
use vcr_cassette::rules::RuleSet;
use vcr_cassette::{Mode, generic};
use vcr_json::Position;
use vcr_lint::Scanner;
use vcr_project::store::{ContentHash, Store, StoreError};
use vcr_project::tree::{Cassette, CassetteKind, Selection};

/// How `normalize` runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Write nothing; only report what would change.
    pub check: bool,
    /// Compute the unified diff of each change.
    pub diff: bool,
}

/// What scrubbing HTTP cassettes needs: `verify`'s checks (its scanner, allowlist and
/// `match-on`, so that the default set is exactly what `verify` reports), the `[http.scrub]`
/// rules and the user's `[[rule]]`s.
pub struct HttpScrub<'a> {
    /// `verify`'s checks.
    pub checks: &'a Checks,
    /// `[http.scrub]`.
    pub rules: &'a scrub::Rules,
    /// The user's rules (not the preset), applied to decoded body texts.
    pub user_rules: Option<&'a RuleSet>,
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
    /// Values replaced in HTTP cassettes.
    pub replaced: usize,
    /// Replaced values the recorder matches requests by.
    pub replay_affected: usize,
}

struct FileResult {
    /// An HTTP cassette: what was scrubbed (`None` for other files, and for a file selected as
    /// text that is no HTTP cassette, which is then not counted).
    http: Option<HttpResult>,
    changed: bool,
    written: bool,
    /// The file changed after it was read, so it was not rewritten.
    changed_meanwhile: bool,
    diff: Option<String>,
    stale: Option<String>,
    error: Option<FileProblem>,
    /// What is wrong with a file that was still processed (a credential a scrub could not
    /// reach): reported after what was done.
    unfinished: Option<FileProblem>,
}

impl FileResult {
    fn new(http: Option<HttpResult>) -> FileResult {
        FileResult {
            http,
            changed: false,
            written: false,
            changed_meanwhile: false,
            diff: None,
            stale: None,
            error: None,
            unfinished: None,
        }
    }
}

#[derive(Default)]
struct HttpResult {
    /// Whether the file is an HTTP cassette at all.
    read: bool,
    replaced: Vec<scrub::Replaced>,
    interference: Vec<scrub::Interference>,
}

/// Runs `normalize` over the selected cassettes; HTTP cassettes are scrubbed when `http` is
/// given. With `check` unset, the caller must hold the store's lock.
pub fn run(
    selection: &Selection,
    store: &Store,
    options: Options,
    http: Option<&HttpScrub<'_>>,
    report: &dyn Report,
    progress: &dyn Progress,
) -> Summary {
    let mut summary = Summary::default();
    let structured: Vec<&Cassette> = selection
        .cassettes
        .iter()
        .filter(|c| {
            c.kind.is_structured()
                || (http.is_some() && matches!(c.kind, CassetteKind::Http | CassetteKind::Text))
        })
        .collect();
    // Diffs show file contents: secrets in them are masked as in every other output.
    let masker = options.diff.then(|| Scanner::new(&[]));
    par_ordered(
        &structured,
        progress,
        |cassette| match http {
            Some(http) if !cassette.kind.is_structured() => {
                scrub_one(cassette, store, options, http, masker.as_ref())
            }
            // A log streams line by line, unless a diff of it is asked for.
            _ if cassette.kind == CassetteKind::DshSession && !options.diff => {
                normalize_log(cassette, store, options)
            }
            _ if !options.diff
                && let Some(spec) = vcr_cassette::streamed_log(cassette) =>
            {
                normalize_generic_log(cassette, spec, store, options)
            }
            _ => normalize_one(cassette, store, options, masker.as_ref()),
        },
        |cassette, result| {
            if result.http.as_ref().is_some_and(|h| !h.read) {
                return;
            }
            summary.files += 1;
            // A key in the file's path (issue 41): renaming the file would break the test
            // that opens it, so it is an error that says what to do, and nothing is renamed.
            let named = vcr_lint::file_name::secrets_in(&cassette.rel);
            if let Some(hit) = named.first() {
                summary.errors += 1;
                let problem = FileProblem {
                    id: "leak/secret",
                    line: None,
                    column: None,
                    message: format!(
                        "{} leaked in the file's path: `vcr normalize` does not rename files, since the test or configuration that opens it names it; rename both by hand and rotate the key",
                        hit.label
                    ),
                };
                crate::event::report_problem(report, &cassette.rel, &problem);
            }
            if let Some(problem) = &result.error {
                summary.errors += 1;
                crate::event::report_problem(report, &cassette.rel, problem);
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
            if let Some(http) = &result.http {
                summary.replaced += http.replaced.len();
                for replaced in &http.replaced {
                    report.report(&Event::Scrubbed {
                        path: &cassette.rel,
                        line: replaced.at.line,
                        column: replaced.at.column,
                        pointer: &replaced.path,
                        rule: &replaced.rule,
                        written: result.written,
                    });
                }
                summary.replay_affected += http.interference.len();
                for i in &http.interference {
                    report.report(&Event::ReplayAffected {
                        path: &cassette.rel,
                        interaction: i.interaction,
                        what: &i.what,
                        setting: &i.setting,
                    });
                }
            }
            if let Some(problem) = &result.unfinished {
                summary.errors += 1;
                crate::event::report_problem(report, &cassette.rel, problem);
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
    let mut result = FileResult::new(None);
    let bytes = match std::fs::read(&cassette.path) {
        Ok(bytes) => bytes,
        Err(e) => {
            result.error = Some(FileProblem::io(&e));
            return result;
        }
    };
    let file_name = cassette.path.file_name().and_then(|n| n.to_str());
    if cassette.kind == CassetteKind::ClaudeCodeMessage {
        // Most message fixtures are canonical already: compared as the canonical form is
        // written, they need no copy of it (issue 12); the others are built below.
        match vcr_cassette::check_canonical(cassette, &bytes) {
            Ok(checked) if checked.difference.is_none() => {
                result.stale = checked.name.filter(|name| Some(name.as_str()) != file_name);
                return result;
            }
            Ok(checked) if checked.streamed && masker.is_none() => {
                result.stale = checked.name.filter(|name| Some(name.as_str()) != file_name);
                result.changed = true;
                if !options.check {
                    rewrite_message(cassette, store, &bytes, &mut result);
                }
                return result;
            }
            Ok(_) => {}
            Err(e) => {
                result.error = Some(FileProblem::cassette(&e, &bytes));
                return result;
            }
        }
    }
    let canonical = match vcr_cassette::canonicalize(cassette, &bytes, Mode::Normalize) {
        Ok(canonical) => canonical,
        Err(e) => {
            result.error = Some(FileProblem::cassette(&e, &bytes));
            return result;
        }
    };
    result.stale = canonical
        .name
        .filter(|name| Some(name.as_str()) != file_name);
    if canonical.bytes == bytes {
        return result;
    }
    let diff = masker.map(|scanner| {
        let masker = Mask {
            scanner,
            values: &[],
        };
        masker.apply(&unified_diff(&cassette.rel, &bytes, &canonical.bytes))
    });
    write_changed(
        cassette,
        store,
        options,
        ContentHash::of(&bytes),
        &canonical.bytes,
        diff,
        &mut result,
    );
    result
}

/// How `--diff` hides secrets: the scan's, and the values an HTTP cassette's structure
/// judged secrets (a cookie, a query parameter, a field), which no pattern of the scan knows
/// (issue 22: `Cookie` values were printed whole).
#[derive(Clone, Copy)]
struct Mask<'a> {
    scanner: &'a Scanner,
    values: &'a [(String, String)],
}

impl Mask<'_> {
    fn apply(&self, text: &str) -> String {
        self.scanner.mask_with(text, self.values)
    }
}

/// Rewrites a message fixture that reads in parts and is not canonical, its canonical form
/// written to the temporary file an `output` item at a time (issue 12): memory holds the
/// file and one item, not also its rewritten copy (which, for a compact file, is larger).
fn rewrite_message(cassette: &Cassette, store: &Store, bytes: &[u8], result: &mut FileResult) {
    let mut write = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut out = vcr_json::WriteSink::new(w);
        let streamed = vcr_cassette::claude_code::stream_message(
            bytes,
            &cassette.dir,
            &mut out,
            &|_| false,
            &mut |_| {},
        );
        out.finish()?;
        // The same bytes were just read in parts by the check: neither can fail now.
        match streamed {
            Ok(Some(_)) => Ok(()),
            _ => Err(std::io::Error::other(
                "the fixture no longer reads in parts",
            )),
        }
    };
    match store.replace_file_with(&cassette.path, &mut write, ContentHash::of(bytes)) {
        Ok(()) => result.written = true,
        Err(StoreError::Changed { .. }) => result.changed_meanwhile = true,
        Err(e) => result.error = Some(FileProblem::io(&error_chain(&e))),
    }
}

/// A dsh session log, line by line (issue 12), through [`rewrite_log`]: each line as
/// `LineNormalizer` writes it; the problems it finds are known at the end of the pass, and
/// the first of them is the file's, as on the whole-file path. The result is the bytes
/// [`vcr_cassette::canonicalize`] makes of the whole log.
fn normalize_log(cassette: &Cassette, store: &Store, options: Options) -> FileResult {
    let cwd = Some(cassette.dir.cwd.as_str());
    rewrite_log(cassette, store, options, &mut |reader, out| {
        let mut normalizer = LineNormalizer::new(&cassette.rel, cwd);
        let mut canonical = Vec::new();
        while let Some(line) = reader.next_line()? {
            canonical.clear();
            normalizer.line(line.text, line.start, line.number, &mut canonical);
            out(line.raw, &canonical)?;
        }
        Ok(normalizer.finish().map_err(|problems| {
            FileProblem::log(problems.into_iter().next().expect("at least one"))
        }))
    })
}

/// A `[[cassettes]]` JSONL log, line by line (issue 12), through [`rewrite_log`]: each
/// record line parsed and written as its entry's writer would (the line itself with
/// `write = "keep"`); the first line that cannot be read is the file's problem, as on the
/// whole-file path, whose bytes (`generic::canonical`) the result is.
fn normalize_generic_log(
    cassette: &Cassette,
    spec: &generic::Spec,
    store: &Store,
    options: Options,
) -> FileResult {
    rewrite_log(cassette, store, options, &mut |reader, out| {
        canonical_lines(spec, reader, out)
    })
}

/// A file read from the start, a line at a time.
type FileLines = LineReader<std::io::BufReader<std::fs::File>>;

/// One pass over a log: each line to `out` with its canonical form; `Ok(Err(problem))` when
/// the log cannot be read as its kind (nothing is then rewritten).
type LinePass<'a> =
    dyn FnMut(&mut FileLines, &mut LineSink<'_>) -> std::io::Result<Result<(), FileProblem>> + 'a;

/// `normalize` on a log in the memory of its longest line (issue 12): a first pass compares
/// each line's canonical form with the file as it streams (hashing what it reads); only a log
/// that changes is read again and written into its temporary file line by line, renamed if
/// the file still holds what the first pass read. The second pass hashes what it reads too:
/// a file that changed between the passes is reported as changed meanwhile, not rewritten
/// from bytes the first pass never checked.
fn rewrite_log(
    cassette: &Cassette,
    store: &Store,
    options: Options,
    pass: &mut LinePass<'_>,
) -> FileResult {
    let mut result = FileResult::new(None);
    let open = || -> std::io::Result<FileLines> {
        let file = std::fs::File::open(&cassette.path)?;
        Ok(LineReader::new(std::io::BufReader::with_capacity(64 << 10, file)).hashing())
    };
    // Pass 1: does it change, and is every line readable?
    let first = (|| -> std::io::Result<_> {
        let mut reader = open()?;
        let mut difference = FirstDifference::default();
        let read = pass(&mut reader, &mut |raw, canonical| {
            difference.feed(raw, canonical);
            Ok(())
        })?;
        let hash = reader.content_hash().expect("a hashing reader");
        Ok((read, difference.finish(), hash))
    })();
    let (difference, hash) = match first {
        Ok((Ok(()), difference, hash)) => (difference, hash),
        Ok((Err(problem), _, _)) => {
            result.error = Some(problem);
            return result;
        }
        Err(e) => {
            result.error = Some(FileProblem::io(&e));
            return result;
        }
    };
    if difference.is_none() {
        return result;
    }
    result.changed = true;
    if options.check {
        return result;
    }
    // Pass 2: the same lines, written as they are made; what it read must be what pass 1
    // read, or the temporary file holds the canonical form of another file.
    let mut moved = false;
    let mut write = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut reader = open()?;
        let read = pass(&mut reader, &mut |_, canonical| w.write_all(canonical))?;
        if read.is_err() || reader.content_hash() != Some(hash) {
            moved = true;
            return Err(std::io::Error::other("the file changed while it was read"));
        }
        Ok(())
    };
    match store.replace_file_with(&cassette.path, &mut write, ContentHash::from_bytes(hash)) {
        Ok(()) => result.written = true,
        Err(StoreError::Changed { .. }) => result.changed_meanwhile = true,
        Err(_) if moved => result.changed_meanwhile = true,
        Err(e) => result.error = Some(FileProblem::io(&error_chain(&e))),
    }
    result
}

/// Receives each line of a log as read and as its writer would write it.
type LineSink<'a> = dyn FnMut(&[u8], &[u8]) -> std::io::Result<()> + 'a;

/// One pass over a `[[cassettes]]` JSONL log for [`normalize_generic_log`]: `out` receives
/// each line and its canonical form (the line itself with `write = "keep"`, nothing for a
/// blank line under a writer); `Ok(Err(problem))` at the first line that cannot be read.
fn canonical_lines(
    spec: &generic::Spec,
    reader: &mut LineReader<impl std::io::BufRead>,
    out: &mut LineSink<'_>,
) -> std::io::Result<Result<(), FileProblem>> {
    let mut canonical = Vec::new();
    while let Some(line) = reader.next_line()? {
        canonical.clear();
        if let Some(record) = generic::Line::record(&line) {
            match generic::parse_line(&record) {
                Ok(value) if spec.rewrites() => {
                    generic::render_line_into(spec, &value, &mut canonical);
                }
                Ok(_) => canonical.extend_from_slice(line.raw),
                Err(e) => {
                    let at = e.offset().map(|o| line.locate(o));
                    return Ok(Err(FileProblem::cassette_at(&e.into(), at)));
                }
            }
        } else if !spec.rewrites() {
            canonical.extend_from_slice(line.raw);
        }
        out(line.raw, &canonical)?;
    }
    Ok(Ok(()))
}

/// Records a file as changed, with its diff when asked, and (unless checking) writes its new
/// contents, only over the bytes it was read with (`read`).
fn write_changed(
    cassette: &Cassette,
    store: &Store,
    options: Options,
    read: ContentHash,
    new: &[u8],
    diff: Option<String>,
    result: &mut FileResult,
) {
    result.changed = true;
    if let Some(diff) = diff {
        // A HAR's sidecars' diffs, when there are, come after it.
        let sidecars = result.diff.take().unwrap_or_default();
        result.diff = Some(diff + &sidecars);
    }
    if !options.check {
        match store.replace_file(&cassette.path, new, read) {
            Ok(()) => result.written = true,
            Err(StoreError::Changed { .. }) => result.changed_meanwhile = true,
            Err(e) => result.error = Some(FileProblem::io(&error_chain(&e))),
        }
    }
}

/// Writes the scrubbed sidecar bodies of a cassette (before it, see
/// `scrub::Sidecar`), each only if it still holds what the scrub read; their diffs follow the
/// cassette's in `--diff`.
fn write_sidecars(
    cassette: &Cassette,
    store: &Store,
    options: Options,
    masker: Option<Mask<'_>>,
    sidecars: &[scrub::Sidecar],
    result: &mut FileResult,
) {
    result.changed = true;
    // The project root, which the cassette's relative path is relative to: a sidecar's path
    // in the diff is relative to it too, wherever its recorder keeps it.
    let depth = cassette.rel.split('/').count();
    let root = cassette.path.ancestors().nth(depth);
    for sidecar in sidecars {
        if let Some(masker) = masker {
            let old = std::fs::read(&sidecar.path).unwrap_or_default();
            let rel = root
                .and_then(|root| sidecar.path.strip_prefix(root).ok())
                .map_or_else(
                    || sidecar.name.clone(),
                    |rel| rel.to_string_lossy().replace('\\', "/"),
                );
            let diff = masker.apply(&unified_diff(&rel, &old, &sidecar.text));
            result.diff.get_or_insert_with(String::new).push_str(&diff);
        }
        if options.check {
            continue;
        }
        match store.replace_file(&sidecar.path, &sidecar.text, sidecar.old) {
            Ok(()) => result.written = true,
            Err(StoreError::Changed { .. }) => {
                result.changed_meanwhile = true;
                return;
            }
            Err(e) => {
                result.error = Some(FileProblem::io(&error_chain(&e)));
                return;
            }
        }
    }
}

/// Scrubs an HTTP cassette (a file selected as text that is none is skipped uncounted).
fn scrub_one(
    cassette: &Cassette,
    store: &Store,
    options: Options,
    http: &HttpScrub<'_>,
    masker: Option<&Scanner>,
) -> FileResult {
    let mut result = FileResult::new(Some(HttpResult::default()));
    let bytes = match std::fs::read(&cassette.path) {
        Ok(bytes) => bytes,
        Err(e) => {
            result.error = Some(FileProblem::io(&e));
            return result;
        }
    };
    let inflated = match http::decompressed(&bytes) {
        std::borrow::Cow::Owned(inflated) => Some(inflated),
        std::borrow::Cow::Borrowed(_) => None,
    };
    if inflated.is_none()
        && let Some((_, why)) = http::inflate_problem(&bytes)
    {
        // Never rewrite what cannot be read whole.
        result.http = Some(HttpResult {
            read: true,
            ..HttpResult::default()
        });
        result.error = Some(FileProblem {
            id: "parse",
            line: None,
            column: None,
            message: format!("a compressed cassette vcr cannot read: {why}"),
        });
        return result;
    }
    // The text is taken by the scrub, which lets it go before it reads its result back (a
    // 500 MB body was held three times over, issue 25); a gzip file keeps its compressed
    // bytes, and is written back compressed (a `.httprr.gz` written as plain text under its
    // name is one Go's httprr cannot open).
    let (text, compressed) = match inflated {
        Some(text) => (text, Some(bytes)),
        None => (bytes, None),
    };
    let rel = cassette.rel.as_str();
    let reported = |leak: &vcr_lint::http::HttpLeak| http.checks.reports_leak(rel, leak);
    let scrubber = scrub::Scrubber {
        path: &cassette.path,
        read: &cassette.dir.read,
        rules: http.rules,
        scanner: http.checks.scanner(),
        user_rules: http.user_rules,
        reported: &reported,
    };
    // What `--diff` masks beside the scan's hits: the secrets the cassette's structure shows,
    // found before the scrub (in windows when the file is read so; else in the cassette read
    // whole for the scrub).
    let mut values = None;
    if let Some(scanner) = masker
        && scrubber.in_windows(&text)
    {
        values = Some(crate::verify::secret_values(cassette, &text, scanner));
    }
    // A cassette large enough to be read in windows is scrubbed so, never built whole (issue
    // 25); anything else, or one that does not read so, is read whole.
    // What the recorder matches by may depend on the version its head shows (R's vcr).
    let head = text[..text.len().min(1 << 16)].to_vec();
    let match_on = |format| http.checks.match_on(rel, format, &head);
    let scrubbed = match scrubber.scrub_windows(std::borrow::Cow::Owned(text), &match_on) {
        Ok(scrub::Windowed::Scrubbed(scrubbed)) => Ok(scrubbed),
        Err(e) => Err(e),
        Ok(scrub::Windowed::Whole(text)) => match read_whole(cassette, &text, &mut result) {
            Some((read, document)) => {
                let match_on = http.checks.match_on(rel, read.format, &head);
                if let Some(scanner) = masker {
                    values = Some(vcr_lint::http::secret_values_of(&read, &text, scanner));
                }
                scrubber.scrub(read, document, text, &match_on)
            }
            None => return result,
        },
    };
    let mut outcome = HttpResult {
        read: true,
        ..HttpResult::default()
    };
    let scrubbed = match scrubbed {
        Ok(scrubbed) => scrubbed,
        Err(e) => {
            result.http = Some(outcome);
            result.error = Some(FileProblem {
                id: "scrub",
                line: None,
                column: None,
                message: error_chain(&e),
            });
            return result;
        }
    };
    outcome.replaced = scrubbed.replaced;
    outcome.interference = scrubbed.interference;
    result.http = Some(outcome);
    if !scrubbed.remaining.is_empty() {
        result.unfinished = Some(FileProblem {
            id: "scrub",
            line: None,
            column: None,
            message: format!(
                "a credential is still there after the scrub, where vcr cannot rewrite it: {}; remove it by hand or re-record",
                scrubbed.remaining.join(", ")
            ),
        });
    }
    // What a rewrite must find still in the file: the hash of the text the scrub read, or of
    // the compressed file it was inflated from. Nothing was planned without it.
    let Some(read) =
        (scrubbed.read).map(|read| compressed.as_deref().map_or(read, ContentHash::of))
    else {
        return result;
    };
    // `--diff` shows the file as it was: read again (the scrub let go of it), and masked by
    // the values its structure judged secrets too.
    let old = match masker {
        Some(scanner) if scrubbed.text.is_some() || !scrubbed.sidecars.is_empty() => {
            match read_again(cassette, read, &mut result) {
                Some(old) => {
                    let values = values.take().unwrap_or_else(|| {
                        let text = http::decompressed(&old);
                        crate::verify::secret_values(cassette, &text, scanner)
                    });
                    Some((old, scanner, values))
                }
                None => return result,
            }
        }
        _ => None,
    };
    let masker = old
        .as_ref()
        .map(|(_, scanner, values)| Mask { scanner, values });
    if !scrubbed.sidecars.is_empty() {
        write_sidecars(
            cassette,
            store,
            options,
            masker,
            &scrubbed.sidecars,
            &mut result,
        );
        if result.error.is_some() || result.changed_meanwhile {
            // The HAR is left as it was: its sidecars are not all what the plan read.
            return result;
        }
    }
    let Some(scrubbed_text) = scrubbed.text else {
        return result;
    };
    let new = if compressed.is_some() {
        match http::compress(&scrubbed_text) {
            Ok(gz) => gz,
            Err(e) => {
                result.error = Some(FileProblem::io(&e));
                return result;
            }
        }
    } else {
        scrubbed_text
    };
    let diff = match (masker, &old) {
        (Some(masker), Some((old, ..))) => Some(masker.apply(&unified_diff(rel, old, &new))),
        _ => None,
    };
    write_changed(cassette, store, options, read, &new, diff, &mut result);
    result
}

/// The file a scrub read, read again for `--diff`; `None` (with `result` saying so) when it
/// no longer holds what the scrub read, or cannot be read.
fn read_again(cassette: &Cassette, read: ContentHash, result: &mut FileResult) -> Option<Vec<u8>> {
    match std::fs::read(&cassette.path) {
        Ok(old) if ContentHash::of(&old) == read => Some(old),
        Ok(_) => {
            result.changed = true;
            result.changed_meanwhile = true;
            None
        }
        Err(e) => {
            result.error = Some(FileProblem::io(&e));
            None
        }
    }
}

/// The HTTP cassette in `text` (the file of `cassette`, decompressed), read whole, with the
/// document it was read from (see `http::read_document`); `None` when there is nothing to
/// scrub, `result` then saying why: no cassette (nothing `normalize` does), or one that does
/// not read (a `parse` error; never rewritten). A `[verify] text` file is only scrubbed when
/// it reads as a cassette (`verify` reports one that looks like a cassette and does not
/// parse).
fn read_whole(
    cassette: &Cassette,
    text: &[u8],
    result: &mut FileResult,
) -> Option<(http::HttpCassette, Option<vcr_doc::Node>)> {
    let read = http::read_document(&cassette.path, text, &cassette.dir.read);
    if cassette.kind == CassetteKind::Text && !matches!(read, Ok(Some(_))) {
        return None;
    }
    result.http = Some(HttpResult {
        read: true,
        ..HttpResult::default()
    });
    match read {
        Ok(read) => read,
        Err(e) => {
            let at = Position::locate(text, e.offset);
            result.error = Some(FileProblem {
                id: "parse",
                line: Some(at.line),
                column: Some(at.column),
                message: Scanner::mask_message(&format!(
                    "not a valid {} cassette: {e}",
                    e.format.name()
                )),
            });
            None
        }
    }
}

/// A unified diff of two versions of a file, `a/` and `b/` prefixed like git's; a long line
/// shows only its changes (`udiff`).
pub fn unified_diff(rel: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    vcr_doc::udiff::unified(&format!("a/{rel}"), &format!("b/{rel}"), &old, &new)
}
