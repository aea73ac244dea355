//! The default scrub, as `vcr normalize` runs it on an HTTP cassette with no `[http.scrub]`
//! settings: shared by the targets that scrub (`http`, `scrub`).

use std::sync::LazyLock;

use vcr_cassette::http::HttpCassette;
use vcr_lint::Scanner;
use vcr_ops::scrub;

/// The leak scanner, without machine paths.
pub static SCANNER: LazyLock<Scanner> = LazyLock::new(|| Scanner::new(&[]));

static RULES: LazyLock<scrub::Rules> =
    LazyLock::new(|| scrub::Rules::new(None).expect("the defaults compile"));

/// Scrubs `cassette`, read from `text`, with the default set (every credential reported),
/// matched by its format's default `match-on`.
pub fn scrub(cassette: &HttpCassette, text: &[u8]) -> Result<scrub::Scrubbed, scrub::ScrubError> {
    let scrubber = scrub::Scrubber {
        path: std::path::Path::new("fuzz.har"),
        read: &vcr_cassette::http::ReadOptions::default(),
        rules: &RULES,
        scanner: &SCANNER,
        user_rules: None,
        reported: &|_| true,
    };
    scrubber.scrub(
        cassette.clone(),
        None,
        std::borrow::Cow::Borrowed(text),
        cassette.format.default_match_on(),
    )
}
