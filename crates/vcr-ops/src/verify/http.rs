//! `verify` on HTTP cassettes (and files linted as text): each read by structure, a window
//! at a time, and its windows handed to the judge (`vcr_lint::http`), which opens no file;
//! what no reader knows is linted as text.

use std::borrow::Cow;

use vcr_cassette::http::{HttpCassette, ReadError};
use vcr_json::Position;
use vcr_lint::finding::{Finding, FindingId, Severity, fingerprint};
use vcr_lint::http::{Checked, check_windows};
use vcr_lint::{LeakFamily, Locator, Scanner};
use vcr_project::tree::Cassette;

use super::{Checks, FileResult, MaxAge, capitalize, leak_findings, masked_pointer, push};

/// The checks of an HTTP cassette, or of a file no reader knows (linted as text).
pub(super) fn check(cassette: &Cassette, bytes: &[u8], checks: &Checks, result: &mut FileResult) {
    if let Some(format) = vcr_cassette::http::encrypted(bytes) {
        // Ciphertext: no reader and no detector can see into it, and it holds nothing
        // readable to leak. Said, and counted as read by no one.
        let finding = Finding::new(
            FindingId::Encrypted,
            Severity::Warning,
            &cassette.rel,
            format!(
                "a cassette {} encrypted: vcr cannot check it without the key",
                format.name()
            ),
        );
        push(checks, &mut result.findings, finding, None);
        result.http_unreadable = true;
        return;
    }
    if !check_http(cassette, bytes, checks, result) {
        let hits = checks.scanner.scan(bytes);
        leak_findings(cassette, bytes, &hits, None, checks, &mut result.findings);
    }
}

/// Reads an HTTP cassette by structure and checks it; `false` when the file is no HTTP
/// cassette (it is then linted as text).
fn check_http(cassette: &Cassette, bytes: &[u8], checks: &Checks, result: &mut FileResult) -> bool {
    // Inflated once (`.yaml.gz`, `.httprr.gz`): the reader and the positions use the text.
    let text = vcr_cassette::http::decompressed(bytes);
    if matches!(text, Cow::Borrowed(_))
        && let Some((inflated, why)) = vcr_cassette::http::inflate_problem(bytes)
    {
        let finding = Finding::new(
            FindingId::Parse,
            Severity::Error,
            &cassette.rel,
            format!("a compressed cassette vcr cannot read: {why}"),
        );
        push(checks, &mut result.findings, finding, None);
        result.http_unreadable = true;
        // What did inflate is still scanned.
        let hits = checks.scanner.scan(&inflated);
        leak_findings(
            cassette,
            &inflated,
            &hits,
            None,
            checks,
            &mut result.findings,
        );
        return true;
    }
    // Read in windows (a huge HAR a window of entries at a time, anything else whole), each
    // linted as it comes: memory is the file's and one window's (issue 25).
    let mut recorded = vcr_cassette::http::Recorded::default();
    let read = read_and_check(
        cassette,
        &text,
        &checks.scanner,
        &|format| checks.match_on(&cassette.rel, format, &text),
        &mut |window| match window {
            Some(window) => recorded.add(window),
            None => recorded = vcr_cassette::http::Recorded::default(),
        },
    );
    let (format, leaks) = match read {
        Ok(None) => return false,
        Ok(Some(checked)) => (checked.format, checked.leaks),
        Err(e) => {
            let finding = Finding::new(
                FindingId::Parse,
                Severity::Error,
                &cassette.rel,
                format!("not a valid {} cassette: {e}", e.format.name()),
            )
            .at(Some(Position::locate(&text, e.offset)));
            push(checks, &mut result.findings, finding, None);
            result.http_unreadable = true;
            // What can be read of it is still linted, as text (inflated, if it was gzip).
            let hits = checks.scanner.scan(&text);
            leak_findings(cassette, &text, &hits, None, checks, &mut result.findings);
            return true;
        }
    };
    result.http_format = Some(format.name());
    let mut locator = Locator::new(&text);
    for leak in leaks {
        let hit = &leak.hit;
        let place = leak.place;
        let message = match hit.family {
            // `vcr normalize` replaces the secrets this judge finds in an HTTP cassette's
            // interactions and around them, not in comment lines (ruff's "fixable"); what
            // was committed stays in history, hence the rotation.
            LeakFamily::Secret if leak.path == vcr_lint::http::COMMENT => {
                format!("{} leaked{place}: remove it and rotate it", hit.label)
            }
            // Found in a layer the judge decoded (base64 of text, a stream's deltas joined):
            // the scrub does not write it back, and says so.
            LeakFamily::Secret if vcr_lint::http::in_encoded_layer(place) => format!(
                "{} leaked{place}: rotate it, then remove it by hand or record again; `vcr normalize` does not rewrite inside that layer",
                hit.label
            ),
            LeakFamily::Secret => format!(
                "{} leaked{place}: rotate it; `vcr normalize` replaces it in this file (git history keeps it if it was committed)",
                hit.label
            ),
            LeakFamily::Path if leak.severity == Severity::Warning => format!(
                "{}{place}: a machine path a server sent back; check that it is not yours",
                capitalize(&hit.label)
            ),
            LeakFamily::Path => format!(
                "{}{place}: a machine path that left this machine; scrub it from the cassette and filter it when recording",
                capitalize(&hit.label)
            ),
            LeakFamily::Uuid | LeakFamily::Timestamp => format!(
                "{}{place}{}, which {} matches requests by: a run makes it, and replay breaks when it changes; filter it when recording or match on less",
                capitalize(&hit.label),
                leak.why,
                format.name()
            ),
            LeakFamily::Email => format!("{}{place}: personal data", capitalize(&hit.label)),
            // A body the decoding would not inflate whole (issue 41): said, never a silent
            // skip.
            LeakFamily::Unscanned => format!(
                "{} was not scanned whole: {}; check what it holds by hand",
                capitalize(&hit.label),
                hit.reason
            ),
        };
        let message = match leak.repeats {
            0 => message,
            1 => format!("{message} (once more in this file)"),
            n => format!("{message} ({n} more times in this file)"),
        };
        let mut finding = Finding::new(hit.family.id(), leak.severity, &cassette.rel, message)
            .at(leak.offset.map(|o| locator.locate(o)));
        let unscanned = hit.family == LeakFamily::Unscanned;
        finding.matched = (!unscanned).then(|| hit.masked.clone());
        finding.detector = Some(hit.detector);
        finding.reason = Some(match hit.family {
            LeakFamily::Uuid | LeakFamily::Timestamp => format!(
                "{}; it sits in what {} matches requests by{}",
                hit.reason,
                format.name(),
                leak.why
            ),
            _ => hit.reason.to_owned(),
        });
        finding.pointer = Some(masked_pointer(&leak.path, hit));
        finding.fingerprint = fingerprint(&hit.text);
        push(
            checks,
            &mut result.findings,
            finding,
            (!unscanned).then(|| hit.text.clone()),
        );
    }
    if let Some(max_age) = checks.max_age {
        expired(
            cassette,
            recorded.time(),
            max_age,
            checks,
            &mut result.findings,
        );
    }
    true
}

/// `expired`: an HTTP cassette recorded longer ago than `--max-age`, judged by its recorded
/// time (`recorded_at`, HAR `startedDateTime`, the response `Date`), else by the last commit
/// that touched it.
fn expired(
    cassette: &Cassette,
    recorded: Option<i64>,
    max_age: MaxAge,
    checks: &Checks,
    out: &mut Vec<(Finding, Option<String>)>,
) {
    let (recorded, source) = match recorded {
        Some(time) => (time, "recorded"),
        None => match vcr_project::git::last_commit_time(&cassette.path) {
            Some(time) => (time, "last committed"),
            None => return,
        },
    };
    let age = max_age.now - recorded;
    if age <= max_age.seconds {
        return;
    }
    let days = age / 86_400;
    let finding = Finding::new(
        FindingId::Expired,
        Severity::Warning,
        &cassette.rel,
        format!(
            "{source} on {} ({days} days ago), older than the maximum age of {} days: record it again",
            vcr_cassette::http::format_date(recorded),
            max_age.seconds / 86_400
        ),
    );
    push(checks, out, finding, None);
}

/// Reads `text` (the file of `cassette`, decompressed) in windows and lints each as it comes,
/// with what `match_on` says its recorder matches by; `each` sees every window too (`None`:
/// forget the ones before). `Ok(None)` when it is no HTTP cassette.
pub fn read_and_check<'m>(
    cassette: &Cassette,
    text: &[u8],
    scanner: &Scanner,
    match_on: &dyn Fn(vcr_cassette::http::Format) -> Vec<&'m str>,
    each: &mut dyn FnMut(Option<&HttpCassette>),
) -> Result<Option<Checked>, ReadError> {
    let sidecars = vcr_cassette::http::Sidecars::new();
    let read = |visit: &mut dyn FnMut(Option<HttpCassette>)| {
        vcr_cassette::http::read_windows(&cassette.path, text, &sidecars, &cassette.dir.read, visit)
    };
    check_windows(text, scanner, true, match_on, each, &read)
}

/// The secrets the judge finds in `text` (the file of `cassette`, decompressed) read as an
/// HTTP cassette, each with its masked form: what outputs that show its contents hide.
pub fn secret_values(cassette: &Cassette, text: &[u8], scanner: &Scanner) -> Vec<(String, String)> {
    let sidecars = vcr_cassette::http::Sidecars::new();
    let read = |visit: &mut dyn FnMut(Option<HttpCassette>)| {
        vcr_cassette::http::read_windows(&cassette.path, text, &sidecars, &cassette.dir.read, visit)
    };
    vcr_lint::http::secret_values(text, scanner, &read)
}
