//! HTTP cassettes read for the judge: the operations read a cassette's windows through the
//! format crate, with its project's read options, and hand them to the judge
//! (`vcr_lint::http`), which opens no file.

use vcr_cassette::http::{self, HttpCassette, ReadError};
use vcr_lint::Scanner;
use vcr_lint::http::{Checked, check_windows};
use vcr_project::tree::Cassette;

/// Reads `text` (the file of `cassette`, decompressed) in windows and lints each as it comes,
/// with what `match_on` says its recorder matches by; `each` sees every window too (`None`:
/// forget the ones before). `Ok(None)` when it is no HTTP cassette.
pub fn read_and_check<'m>(
    cassette: &Cassette,
    text: &[u8],
    scanner: &Scanner,
    match_on: &dyn Fn(http::Format) -> Vec<&'m str>,
    each: &mut dyn FnMut(Option<&HttpCassette>),
) -> Result<Option<Checked>, ReadError> {
    let sidecars = http::Sidecars::new();
    let read = |visit: &mut dyn FnMut(Option<HttpCassette>)| {
        http::read_windows(&cassette.path, text, &sidecars, &cassette.dir.read, visit)
    };
    check_windows(text, scanner, true, match_on, each, &read)
}

/// The secrets the judge finds in `text` (the file of `cassette`, decompressed) read as an
/// HTTP cassette, each with its masked form: what outputs that show its contents hide.
pub fn secret_values(cassette: &Cassette, text: &[u8], scanner: &Scanner) -> Vec<(String, String)> {
    let sidecars = http::Sidecars::new();
    let read = |visit: &mut dyn FnMut(Option<HttpCassette>)| {
        http::read_windows(&cassette.path, text, &sidecars, &cassette.dir.read, visit)
    };
    vcr_lint::http::secret_values(text, scanner, &read)
}
