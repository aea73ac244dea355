//! The leak linter: one combined matcher over a file's bytes.
//!
//! Every detector is a pattern of a single multi-pattern regex (the `regex` engine's lazy
//! DFA, Unicode off, over bytes), whose leftmost-first match from a position defines what the
//! linter finds there. The regex is not run over every byte, though: a few vectorized passes
//! find the anchors that every match holds (`anchors`: a `-`, `/` or `@`, a short literal) and
//! the regex runs, anchored, only where those say a match can start, which finds the same
//! matches in the same order at a fraction of the cost. Each candidate is then checked by code
//! that knows what the regex cannot: word boundaries, placeholders (`[CWD]`, `<TOKEN>`,
//! `sk-ant-***`), the value that follows a credential key, valid date ranges, example domains.
//! Those checks read escapes as boundaries (`escape`): in a JSON string a newline is `\n`, and
//! the word after it starts after the `n`. The linter knows bytes, not structure; the caller maps
//! hits to the fields they sit in (key material or payload) and decides their severity.
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod anchors;
mod credential;
mod detectors;
mod escape;
pub mod file_name;
pub mod finding;
pub mod http;
mod placeholder;
mod reason;
mod words;

use crate::finding::FindingId;
use std::sync::OnceLock;

use regex_automata::meta::Regex;
use regex_automata::{Input, util::syntax};

use anchors::Anchors;

pub use credential::rejected as why_no_credential;
pub(crate) use detectors::{DETECTORS, Family, Kind};
/// Whether the bytes before an offset end with an escape (`\n`, `\u0022`, at any level of
/// encoding): a token that starts there starts at a boundary (a scrub's, issue 43).
pub use escape::ends_escape;

/// A value as findings show a secret: its first characters and its length.
pub fn masked_value(value: &str) -> String {
    mask(value)
}
pub use detectors::{DetectorInfo, MACHINE_PATH, list as detectors};

/// Whether a value stands for a credential without being one (`REDACTED`, `<TOKEN>`,
/// `${OPENAI_API_KEY}`, ...): what `verify` never reports, and what a scrub may write.
pub fn is_placeholder(value: &str) -> bool {
    placeholder::is_placeholder_value(value)
}
use placeholder::{is_placeholder_token, is_placeholder_user, mask};

/// One leak candidate that passed its checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The detector that found it (`anthropic-key`, `user-home`, ...).
    pub detector: &'static str,
    /// What it is, for messages ("an Anthropic API key").
    pub label: String,
    /// Which finding it is.
    pub family: LeakFamily,
    /// A temporary folder: an error only in key material.
    pub temporary: bool,
    /// Byte range of the leaked text.
    pub start: usize,
    /// End of the byte range.
    pub end: usize,
    /// The leaked text as written.
    pub text: String,
    /// The text with its sensitive part hidden, for every output.
    pub masked: String,
    /// Why the judge took it for one (the rule and the checks it passed), for `verify -v`
    /// and JSON; it names no value.
    pub reason: &'static str,
}

/// A candidate a detector's pattern found in a text, and the judge's verdict on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The detector whose pattern found it.
    pub detector: &'static str,
    /// What it would be ("a GitHub token").
    pub label: String,
    /// The hit as findings show it, when it is one.
    pub masked: Option<String>,
    /// Why it is a leak, or what rejected it.
    pub verdict: Result<&'static str, &'static str>,
}

/// The finding a hit becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeakFamily {
    /// `leak/secret`
    Secret,
    /// `leak/path`
    Path,
    /// `leak/uuid`
    Uuid,
    /// `leak/timestamp`
    Timestamp,
    /// `leak/email`
    Email,
    /// `unscanned`: no leak, but a body the judge could not look into (issue 41); its hit's
    /// text is the body's path, and it has no masked value.
    Unscanned,
}

impl LeakFamily {
    /// The finding id.
    pub fn id(self) -> FindingId {
        match self {
            LeakFamily::Secret => FindingId::LeakSecret,
            LeakFamily::Path => FindingId::LeakPath,
            LeakFamily::Uuid => FindingId::LeakUuid,
            LeakFamily::Timestamp => FindingId::LeakTimestamp,
            LeakFamily::Email => FindingId::LeakEmail,
            LeakFamily::Unscanned => FindingId::Unscanned,
        }
    }
}

impl From<Family> for LeakFamily {
    fn from(family: Family) -> LeakFamily {
        match family {
            Family::Secret => LeakFamily::Secret,
            Family::Path => LeakFamily::Path,
            Family::Uuid => LeakFamily::Uuid,
            Family::Timestamp => LeakFamily::Timestamp,
            Family::Email => LeakFamily::Email,
        }
    }
}

/// The combined matcher, built once per run.
#[derive(Debug)]
pub struct Scanner {
    /// The patterns of the combined regex: the detectors', then this machine's paths.
    patterns: Vec<String>,
    /// The combined regex, built when first needed: the anchors check with regexes of their
    /// own, so only a scan without them (and the tests) reads every byte with this one.
    regex: OnceLock<Regex>,
    /// Where matches can start; `None` when a detector has no anchor rule, and every byte is
    /// searched.
    anchors: Option<Anchors>,
    /// This machine's paths, matched after the built-in detectors.
    machine: Vec<(String, String)>,
    /// Whether HTTP bodies are searched for credential names a case-folded window at a time
    /// and comment lines found with `memchr` (`ReadOptions::folded_search`; off: the byte
    /// search before issue 12, which the tests compare it with).
    folded_search: bool,
}

/// A machine path shorter than this is not looked for: `/` or `/home` would match all.
const MIN_MACHINE_PATH: usize = 6;

impl Scanner {
    /// A scanner for the built-in detectors plus this machine's own paths (`label`, path):
    /// its working directory, home and config home.
    pub fn new(machine_paths: &[(&str, &str)]) -> Scanner {
        let mut patterns: Vec<String> = DETECTORS
            .iter()
            .map(|d| d.pattern.replace("{keys}", detectors::CREDENTIAL_KEYS))
            .collect();
        let mut machine = Vec::new();
        for (label, path) in machine_paths {
            let path = path.trim_end_matches(['/', '\\']);
            if path.len() >= MIN_MACHINE_PATH && !machine.iter().any(|(_, p)| p == path) {
                patterns.push(regex::escape(path));
                machine.push(((*label).to_owned(), path.to_owned()));
            }
        }
        let paths: Vec<String> = machine.iter().map(|(_, p)| p.clone()).collect();
        Scanner {
            anchors: Anchors::new(&patterns[..DETECTORS.len()], &paths),
            patterns,
            regex: OnceLock::new(),
            machine,
            folded_search: true,
        }
    }

    /// The scanner, searching HTTP bodies as `options` say
    /// ([`ReadOptions::folded_search`](vcr_cassette::http::ReadOptions::folded_search)).
    pub fn reading(mut self, options: &vcr_cassette::http::ReadOptions) -> Scanner {
        self.folded_search = options.folded_search;
        self
    }

    /// Whether HTTP bodies are searched case-folded (see [`Scanner::reading`]).
    pub fn folded_search(&self) -> bool {
        self.folded_search
    }

    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| {
            Regex::builder()
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .build_many(&self.patterns)
                .expect("detector patterns compile")
        })
    }

    /// Every leak in `bytes`, in order.
    ///
    /// Defined by a walk over the bytes: the leftmost-first match of the combined regex from a
    /// position `at` is checked; an accepted hit moves `at` past itself, a rejected candidate
    /// one byte past its start (so a shorter match inside it still counts). The anchors only
    /// make each step cheaper. That match starts at the first position, at or after `at`, where
    /// some detector matches; it is the first in the table's order of those that do, with the
    /// end its own pattern gives. Every such position lies in a span that proposes the
    /// detector, so trying the proposals nearest first, each with the detectors that made it,
    /// finds the same match.
    pub fn scan(&self, bytes: &[u8]) -> Vec<Hit> {
        let Some(anchors) = &self.anchors else {
            return self.scan_every_byte(bytes);
        };
        let mut spans = anchors.spans(bytes);
        spans.sort_by_key(|span| span.lo);
        let mut spans = spans.into_iter().peekable();
        // The spans entered (`lo` at or before the next position tried) and not yet spent.
        let mut open: Vec<anchors::Span> = Vec::new();
        let mut hits = Vec::new();
        let mut at = 0;
        loop {
            let mut next: Option<usize> = None;
            open.retain_mut(|span| match span.advance(bytes, at) {
                Some(p) => {
                    next = Some(next.map_or(p, |n| n.min(p)));
                    true
                }
                None => false,
            });
            // A span that can begin before the nearest proposal enters first.
            if let Some(span) = spans.next_if(|s| next.is_none_or(|n| s.lo.max(at) <= n)) {
                open.push(span);
                continue;
            }
            let Some(start) = next else {
                break;
            };
            let here = open.iter().filter(|span| span.lo == start);
            let (found, failed) = anchors.first_match(bytes, start, here);
            // A detector that does not match here matches nowhere later in the spans that
            // proposed it here (see `anchors::Span`).
            open.retain_mut(|span| {
                if span.lo == start {
                    span.alive = span.alive.without(failed);
                }
                !span.alive.is_empty()
            });
            match found
                .and_then(|(index, end)| Some((self.hit(bytes, index, start, end).ok()?, end)))
            {
                Some((hit, end)) => {
                    at = hit.end.max(end).max(start + 1);
                    hits.push(hit);
                }
                None => at = start + 1,
            }
        }
        hits
    }

    /// `scan` without the anchors: the combined regex, unanchored, from each position, which
    /// steps through every byte. What `scan` must equal, and its fallback.
    fn scan_every_byte(&self, bytes: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.judge_every_byte(bytes, &mut |_, verdict| {
            if let Ok(hit) = verdict {
                hits.push(hit);
            }
        });
        hits
    }

    /// The walk of [`Scanner::scan_every_byte`], handing each candidate's detector (its
    /// pattern's index) and the judge's verdict on it to `judged`.
    fn judge_every_byte(
        &self,
        bytes: &[u8],
        judged: &mut dyn FnMut(usize, Result<Hit, &'static str>),
    ) {
        let mut at = 0;
        while at < bytes.len() {
            let Some(m) = self.regex().search(&Input::new(bytes).range(at..)) else {
                break;
            };
            let index = m.pattern().as_usize();
            let verdict = self.hit(bytes, index, m.start(), m.end());
            at = match &verdict {
                Ok(hit) => hit.end.max(m.end()).max(m.start() + 1),
                Err(_) => m.start() + 1,
            };
            judged(index, verdict);
        }
    }

    /// Every candidate a scan of `bytes` weighs, with the judge's verdict: what `vcr verify
    /// --explain` shows of a value, where no structure names it. A detector's rejections after
    /// its first (the same word tried a byte further on) are left out.
    pub fn candidates(&self, bytes: &[u8]) -> Vec<Candidate> {
        let mut out: Vec<Candidate> = Vec::new();
        self.judge_every_byte(bytes, &mut |index, verdict| {
            let (detector, label) = match DETECTORS.get(index) {
                Some(d) => (d.name, d.label.to_owned()),
                None => (
                    MACHINE_PATH,
                    format!("this machine's {}", self.machine[index - DETECTORS.len()].0),
                ),
            };
            let candidate = match verdict {
                Ok(hit) => Candidate {
                    detector,
                    label: hit.label,
                    masked: Some(hit.masked),
                    verdict: Ok(hit.reason),
                },
                Err(why) => Candidate {
                    detector,
                    label,
                    masked: None,
                    verdict: Err(why),
                },
            };
            let repeated = candidate.verdict.is_err()
                && out
                    .iter()
                    .any(|c: &Candidate| c.detector == candidate.detector);
            if !repeated {
                out.push(candidate);
            }
        });
        out
    }

    /// The hit that a match of the combined regex's pattern `index` at `start..end` is, if its
    /// checks pass, or what rejects it.
    fn hit(
        &self,
        bytes: &[u8],
        index: usize,
        start: usize,
        end: usize,
    ) -> Result<Hit, &'static str> {
        // The `n` of `\n` starts no word: the match that counts starts after the escape.
        if escape::inside_escape(bytes, start) {
            return Err(reason::INSIDE_AN_ESCAPE);
        }
        match DETECTORS.get(index) {
            Some(detector) => classify(detector, bytes, start, end),
            None => self.machine_hit(index - DETECTORS.len(), bytes, start, end),
        }
    }

    /// `text` as every output that shows file contents prints it (`normalize --diff`, `diff
    /// --full`, the `diff` summaries, textconv): each leak that a finding would show masked is
    /// replaced by that masked form, so an output never re-publishes what `verify` hides.
    /// The same scan decides both: what `verify` finds is what is masked here. Secrets are
    /// masked, e-mail addresses keep the first letter of their local part, home folders the
    /// first letter of their user; UUIDs, timestamps and other paths, which findings show
    /// whole, stay. A private key hides its whole block, which runs to its `END` line or,
    /// inside a JSON string, to the string's end.
    pub fn mask(&self, text: &str) -> String {
        self.mask_with(text, &[])
    }

    /// [`Scanner::mask`] with the scan of no machine's paths, built once: for messages that
    /// quote a file (a field's value in a read error), which reach every output.
    pub fn mask_message(text: &str) -> String {
        plain_scanner().mask(text)
    }

    /// [`Scanner::mask`], and each of `values` (a secret an HTTP cassette's structure names:
    /// a cookie, a query parameter, a field, which no pattern of the scan knows) replaced by
    /// its masked form wherever the text holds it, percent-encoded or JSON-escaped too.
    ///
    /// A value its writer split over two lines (a YAML double-quoted scalar folded with a
    /// `\` at the line's end, a wrapped line) is masked in both parts: each part alone is no
    /// value the text holds, and both were printed whole (issue 43).
    pub fn mask_with(&self, text: &str, values: &[(String, String)]) -> String {
        let split = mask_split(text, values);
        let masked = self.mask_scanned(&split);
        if values.is_empty() {
            return masked;
        }
        let mut forms: Vec<(String, &str)> = Vec::new();
        for (value, shown) in values.iter().filter(|(v, _)| v.len() >= 4) {
            let escaped = serde_json::to_string(value).unwrap_or_default();
            let escaped = escaped.trim_matches('"').to_owned();
            let encoded = percent_encoded(value);
            for form in [value.clone(), escaped, encoded] {
                if !forms.iter().any(|(f, _)| *f == form) {
                    forms.push((form, shown));
                }
            }
        }
        let Ok(automaton) = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(forms.iter().map(|(f, _)| f))
        else {
            return masked;
        };
        let mut out = String::with_capacity(masked.len());
        automaton.replace_all_with(&masked, &mut out, |m, _, out| {
            out.push_str(forms[m.pattern().as_usize()].1);
            true
        });
        out
    }

    /// What [`Scanner::mask`] does on its own.
    fn mask_scanned(&self, text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for hit in self.scan(bytes) {
            if hit.start < copied {
                continue;
            }
            let Some((end, shown)) = shown(&hit) else {
                continue;
            };
            if !text.is_char_boundary(hit.start) || !text.is_char_boundary(end) {
                continue;
            }
            out.push_str(&text[copied..hit.start]);
            out.push_str(&shown);
            copied = end;
        }
        out.push_str(&text[copied..]);
        out
    }

    fn machine_hit(
        &self,
        index: usize,
        bytes: &[u8],
        start: usize,
        end: usize,
    ) -> Result<Hit, &'static str> {
        let (label, _) = &self.machine[index];
        if !path_boundary_before(bytes, start) || bytes.get(end).is_some_and(|b| is_name_byte(*b)) {
            return Err(reason::INSIDE_A_PATH);
        }
        let end = path_end(bytes, end);
        let text = lossy(&bytes[start..end]);
        Ok(Hit {
            detector: MACHINE_PATH,
            label: format!("this machine's {label}"),
            family: LeakFamily::Path,
            temporary: false,
            start,
            end,
            masked: truncate(&text),
            text,
            reason: reason::MACHINE,
        })
    }
}

/// The scanner of no machine's paths, built once: for what is judged the same on every
/// machine (a message that quotes a file, a file's name).
fn plain_scanner() -> &'static Scanner {
    static SCANNER: OnceLock<Scanner> = OnceLock::new();
    SCANNER.get_or_init(|| Scanner::new(&[]))
}

/// `value` as a query or a form writes it: everything but unreserved characters as `%XX`.
pub fn percent_encoded(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What an output that shows contents prints in place of `hit`, and where the replaced text
/// ends; `None` for what findings show whole.
fn shown(hit: &Hit) -> Option<(usize, String)> {
    let kind = DETECTORS.iter().find(|d| d.name == hit.detector)?.kind;
    match kind {
        // The hit spans the block already.
        Kind::PrivateKey => Some((hit.end, hit.masked.clone())),
        // The finding shows the whole URL; the hit is its password.
        Kind::UrlCredentials => Some((hit.end, mask(&hit.text))),
        Kind::UserHome => {
            let user = home_user(hit.text.as_bytes())?;
            Some((hit.end, hide_user(&hit.text, user)))
        }
        _ if matches!(hit.family, LeakFamily::Secret | LeakFamily::Email) => {
            Some((hit.end, hit.masked.clone()))
        }
        _ => None,
    }
}

/// Where the user name sits in a home folder path (`/home/ann/x`, `C:\\Users\\ann`), as the
/// `user-home` pattern reads it: after `/home/`, `/Users/` or the drive, its separators and
/// `Users` (or `Documents and Settings`), up to the next separator.
fn home_user(path: &[u8]) -> Option<std::ops::Range<usize>> {
    let is_separator = |b: u8| b == b'/' || b == b'\\';
    let start = if path.first() == Some(&b'/') {
        1 + path[1..].iter().position(|&b| b == b'/')? + 1
    } else {
        let mut i = 2;
        while path.get(i).copied().is_some_and(is_separator) {
            i += 1;
        }
        i += path[i..].iter().position(|&b| is_separator(b))?;
        while path.get(i).copied().is_some_and(is_separator) {
            i += 1;
        }
        i
    };
    let len = path[start..]
        .iter()
        .position(|&b| {
            b.is_ascii_whitespace()
                || matches!(
                    b,
                    b'/' | b'"' | b'\'' | b'<' | b'>' | b':' | b'*' | b'?' | b'|' | b'\\'
                )
        })
        .unwrap_or(path.len() - start);
    (len > 0).then_some(start..start + len)
}

/// The user name of a home folder's path as a finding holds it (`/home/tirekicker/.ssh`,
/// `C:\\Users\\jane\\AppData`), if it has one.
pub fn home_folder_user(path: &str) -> Option<&str> {
    home_user(path.as_bytes()).map(|user| &path[user])
}

/// `path` with the user name at `user` hidden but for its first character.
fn hide_user(path: &str, user: std::ops::Range<usize>) -> String {
    let name = &path[user.clone()];
    let first: String = name.chars().take(1).collect();
    format!("{}{first}***{}", &path[..user.start], &path[user.end..])
}

/// Where a private key block that starts before `from` ends: after its `-----END ...-----`
/// marker on the same line, else at the closing quote of the JSON string; a block on lines of
/// its own (a PEM file, a YAML block scalar) runs to its `END` line, if one follows soon, else
/// to the line's end.
fn private_key_end(bytes: &[u8], from: usize) -> usize {
    /// Farther than the largest PEM block (an 8192-bit RSA key is about 6.5 KB).
    const MAX_BLOCK: usize = 16 * 1024;
    let marker_end = |within: &[u8], offset: usize| {
        let i = find(within, b"-----END ")?;
        let marker = offset + i + b"-----END ".len();
        let j = find(&bytes[marker..offset + within.len()], b"-----")?;
        Some(marker + j + b"-----".len())
    };
    let line_end = bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| from + i);
    if let Some(end) = marker_end(&bytes[from..line_end], from) {
        return end;
    }
    let mut i = from;
    while i < line_end {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i,
            _ => i += 1,
        }
    }
    let block = &bytes[from..bytes.len().min(from + MAX_BLOCK)];
    marker_end(block, from).unwrap_or(line_end)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bytes that continue a name or token.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `text` holds an HTML character reference to a character no URL holds unescaped
/// (a quote, `<`, `>`, a space): `&quot;`, `&#34;`, `&#x22;`, `&#39;`, `&apos;`, `&lt;`,
/// `&gt;`, `&nbsp;`. The URL detector stops at these characters written plainly; in markup
/// they come escaped.
fn ends_in_markup(text: &[u8]) -> bool {
    const REFERENCES: &[&[u8]] = &[
        b"&quot;", b"&#34;", b"&#x22;", b"&#39;", b"&#x27;", b"&apos;", b"&lt;", b"&gt;", b"&#60;",
        b"&#62;", b"&nbsp;", b"&#32;",
    ];
    memchr::memchr_iter(b'&', text).any(|at| {
        REFERENCES
            .iter()
            .any(|r| text.len() >= at + r.len() && text[at..at + r.len()].eq_ignore_ascii_case(r))
    })
}

/// A path may start here: not inside a word, a longer path or a URL (`file://` excepted).
fn path_boundary_before(bytes: &[u8], start: usize) -> bool {
    match escape::byte_before(bytes, start) {
        None => true,
        Some(b'/') => bytes[..start].ends_with(b"file://"),
        Some(b) => !(is_name_byte(b) || b == b'.' || b == b'-' || b == b'~'),
    }
}

/// Extends a path to the end of its last component.
fn path_end(bytes: &[u8], mut end: usize) -> usize {
    while let Some(&b) = bytes.get(end) {
        if b.is_ascii_whitespace()
            || matches!(
                b,
                b'"' | b'\'' | b'<' | b'>' | b'`' | b',' | b')' | b']' | b'}' | b'\\'
            )
        {
            break;
        }
        end += 1;
    }
    end
}

/// Shortens long matched text for display.
fn truncate(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// Checks a candidate and turns it into a hit, or says what rejects it: the judge of every
/// pattern's candidates, whose reasons `verify -v` and `verify --explain` show.
fn classify(
    detector: &detectors::Detector,
    bytes: &[u8],
    start: usize,
    end: usize,
) -> Result<Hit, &'static str> {
    let hit = |start: usize,
               end: usize,
               label: String,
               temporary: bool,
               masked: String,
               reason: &'static str| Hit {
        detector: detector.name,
        label,
        family: detector.family.into(),
        temporary,
        start,
        end,
        text: lossy(&bytes[start..end]),
        masked,
        reason,
    };
    // The candidate as matched, not a temporary folder: most hits.
    let whole = |masked: String, reason: &'static str| {
        hit(start, end, detector.label.into(), false, masked, reason)
    };
    let text = &bytes[start..end];
    let before = escape::byte_before(bytes, start);
    let after = bytes.get(end).copied();
    match detector.kind {
        Kind::Token => {
            if before.is_some_and(is_token_byte) || after.is_some_and(|b| b.is_ascii_alphanumeric())
            {
                return Err(reason::INSIDE_A_WORD);
            }
            let s = lossy(text);
            if placeholder::is_known_example(&s) {
                return Err(reason::KNOWN_EXAMPLE);
            }
            if is_placeholder_token(&s) {
                return Err(reason::PLACEHOLDER_TOKEN);
            }
            if detector.name == "jwt" {
                if let Some(why) = placeholder::jwt_rejected(&s) {
                    return Err(why);
                }
                return Ok(whole(mask(&s), reason::JWT));
            }
            Ok(whole(mask(&s), reason::TOKEN))
        }
        Kind::PrivateKey => {
            // The hit is the whole block, to its `-----END ...-----` line: the `BEGIN` line
            // alone is no secret, and a scrub that replaced only it left the key's body
            // (issue 25). Findings show the `BEGIN` line.
            let begin = lossy(text);
            let block_end = private_key_end(bytes, end);
            // A block whose body is a placeholder (`-----BEGIN PRIVATE KEY-----REDACTED-----END
            // PRIVATE KEY-----`) holds no key: what redacted it kept the markers.
            // The marker's own pattern may run on over an all-capitals body to the `END`
            // marker: the body starts after the first `KEY-----`.
            let block = &bytes[start..block_end.max(end)];
            let after_begin = find(block, b"KEY-----").map_or(end - start, |i| i + 8);
            let block = &block[after_begin..];
            if find(block, b"-----END ")
                .is_some_and(|i| placeholder::is_placeholder_pem_body(&lossy(&block[..i])))
            {
                return Err(reason::REDACTED_PEM);
            }
            Ok(hit(
                start,
                block_end,
                detector.label.into(),
                false,
                begin,
                reason::PRIVATE_KEY,
            ))
        }
        Kind::UrlCredentials => {
            // Offsets are counted in bytes: text that is not UTF-8 grows when made lossy.
            let scheme_end = find(text, b"://").ok_or(reason::NO_PASSWORD)? + 3;
            let at = text
                .iter()
                .rposition(|&b| b == b'@')
                .ok_or(reason::NO_PASSWORD)?;
            let userinfo = text.get(scheme_end..at).ok_or(reason::NO_PASSWORD)?;
            // In a page's markup (`{&quot;url&quot;:&quot;https://github.com&quot;,
            // &quot;email&quot;:&quot;help@example.com`) an escaped quote ends the URL: a
            // user-info that holds one is no user-info. 81 files of a blind set (issue 41).
            if ends_in_markup(userinfo) {
                return Err(reason::ESCAPED_URL_END);
            }
            let colon = userinfo
                .iter()
                .position(|&b| b == b':')
                .ok_or(reason::NO_PASSWORD)?;
            let (user, password) = (lossy(&userinfo[..colon]), lossy(&userinfo[colon + 1..]));
            if password == user {
                return Err(reason::PASSWORD_IS_USER);
            }
            if is_placeholder_token(&password) || placeholder::is_placeholder_value(&password) {
                return Err(reason::PLACEHOLDER_PASSWORD);
            }
            if let Some(typed) = words::typed(&password, &[user.as_str()]) {
                return Err(credential::typed_reason(typed));
            }
            let password_start = start + scheme_end + colon + 1;
            let masked = format!(
                "{}{user}:{}@{}",
                lossy(&text[..scheme_end]),
                mask(&password),
                lossy(&text[at + 1..])
            );
            Ok(hit(
                password_start,
                start + at,
                detector.label.into(),
                false,
                masked,
                reason::URL_PASSWORD,
            ))
        }
        Kind::CredentialKey | Kind::CredentialNameValue | Kind::CredentialQuery => {
            credential::credential(detector, bytes, start, end)
        }
        Kind::UserHome | Kind::RootHome | Kind::TempDir => {
            if !path_boundary_before(bytes, start) {
                return Err(reason::INSIDE_A_PATH);
            }
            let s = lossy(text);
            match detector.kind {
                Kind::UserHome => {
                    let end = path_end(bytes, end);
                    let full = lossy(&bytes[start..end]);
                    let user = home_user(full.as_bytes()).ok_or(reason::NO_USER)?;
                    if is_placeholder_user(&full[user.clone()]) {
                        return Err(reason::PLACEHOLDER_USER);
                    }
                    let masked = truncate(&hide_user(&full, user));
                    // Not `whole`: the path runs on past the match.
                    Ok(hit(
                        start,
                        end,
                        detector.label.into(),
                        false,
                        masked,
                        reason::HOME,
                    ))
                }
                Kind::RootHome => {
                    // `/rootfs`, `/root.txt` are not the root user's home, and `</root>` is
                    // XML.
                    let next = bytes.get(start + 5).copied();
                    if next.is_some_and(|b| is_name_byte(b) || b == b'.' || b == b'-')
                        || (start > 0 && bytes[start - 1] == b'<')
                    {
                        return Err(reason::NOT_ROOT_HOME);
                    }
                    Ok(whole(truncate(&s), reason::ROOT_HOME))
                }
                _ => {
                    // Prose puts punctuation after a path: `(see /tmp/x/y).` ends at `y`.
                    let punctuation = text
                        .iter()
                        .rev()
                        .take_while(|b| {
                            matches!(b, b')' | b',' | b'.' | b';' | b':' | b']' | b'}' | b'`')
                        })
                        .count();
                    let end = end - punctuation;
                    Ok(hit(
                        start,
                        end,
                        detector.label.into(),
                        true,
                        truncate(&lossy(&bytes[start..end])),
                        reason::TEMPORARY,
                    ))
                }
            }
        }
        Kind::Uuid => {
            if before.is_some_and(|b| b.is_ascii_alphanumeric())
                || after.is_some_and(|b| b.is_ascii_alphanumeric())
            {
                return Err(reason::INSIDE_A_WORD);
            }
            let s = lossy(text).to_ascii_lowercase();
            let examples = [
                "00000000-0000-0000-0000-000000000000",
                "123e4567-e89b-12d3-a456-426614174000",
                "12345678-1234-1234-1234-123456789012",
                "ffffffff-ffff-ffff-ffff-ffffffffffff",
            ];
            // Made-up ids repeat a digit (`11111111-1111-...`, `aaaaaaaa-...`): random ones
            // use most of the sixteen.
            let mut seen = [false; 256];
            let distinct = s
                .bytes()
                .filter(|&b| b != b'-' && !std::mem::replace(&mut seen[b as usize], true))
                .count();
            if examples.contains(&s.as_str()) || distinct <= 3 {
                return Err(reason::MADE_UP_UUID);
            }
            Ok(whole(lossy(text), reason::UUID))
        }
        Kind::Timestamp => {
            if before.is_some_and(|b| b.is_ascii_digit())
                || after.is_some_and(|b| b.is_ascii_digit())
            {
                return Err(reason::INSIDE_A_NUMBER);
            }
            if !valid_date_time(text) {
                return Err(reason::NO_DATE);
            }
            Ok(whole(lossy(text), reason::TIMESTAMP))
        }
        Kind::Email => {
            if before.is_some_and(|b| is_name_byte(b) || matches!(b, b'.' | b'%' | b'+' | b'-')) {
                return Err(reason::INSIDE_A_WORD);
            }
            let s = lossy(text);
            let (local, domain) = s.split_once('@').ok_or(reason::MADE_UP_EMAIL)?;
            if placeholder::is_example_email(local, domain) {
                return Err(reason::MADE_UP_EMAIL);
            }
            let masked = format!("{}***@{domain}", local.chars().next().unwrap_or('?'));
            Ok(whole(masked, reason::EMAIL))
        }
    }
}

/// `YYYY-MM-DD[T ]hh:mm:ss...` with fields in range.
fn valid_date_time(text: &[u8]) -> bool {
    let num = |range: std::ops::Range<usize>| -> u32 {
        text[range]
            .iter()
            .fold(0, |n, b| n * 10 + u32::from(b - b'0'))
    };
    let (month, day, hour, minute, second) =
        (num(5..7), num(8..10), num(11..13), num(14..16), num(17..19));
    (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && hour <= 23
        && minute <= 59
        && second <= 60
}

/// Turns byte offsets into lines and columns, walking forward once for sorted offsets, so a
/// file with thousands of hits on one long line is still read once.
#[derive(Debug)]
pub struct Locator<'a> {
    text: &'a [u8],
    offset: usize,
    line: usize,
    column: usize,
}

impl<'a> Locator<'a> {
    /// A locator at the start of `text`.
    pub fn new(text: &'a [u8]) -> Locator<'a> {
        Locator {
            text,
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    /// The line and column of `offset`; cheapest when offsets come in increasing order.
    pub fn locate(&mut self, offset: usize) -> vcr_json::Position {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            *self = Locator::new(self.text);
        }
        let span = &self.text[self.offset..offset];
        match memchr::memrchr(b'\n', span) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', span).count();
                self.column = 1 + chars(&span[last + 1..]);
            }
            None => self.column += chars(span),
        }
        self.offset = offset;
        vcr_json::Position {
            line: self.line,
            column: self.column,
        }
    }
}

/// Characters in a run of (possibly invalid) UTF-8: bytes that do not continue a sequence.
fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// `text` with the parts of each of `values` (and of its JSON-escaped form) that a line
/// break splits masked: the part that ends a line (before a `\` that folds it) shows the
/// value's masked form, the part that starts the next line (after a diff's marker, the
/// indentation and a `\` that escapes a space) an ellipsis. Parts of values shorter than 8
/// bytes are left: a short value split by chance is no token.
fn mask_split<'t>(text: &'t str, values: &[(String, String)]) -> std::borrow::Cow<'t, str> {
    use std::borrow::Cow;
    let mut forms: Vec<(String, &str)> = Vec::new();
    for (value, shown) in values.iter().filter(|(v, _)| v.len() >= 8) {
        let escaped = serde_json::to_string(value).unwrap_or_default();
        let escaped = escaped.trim_matches('"').to_owned();
        for form in [value.clone(), escaped] {
            if !forms.iter().any(|(f, _)| *f == form) {
                forms.push((form, shown));
            }
        }
    }
    if forms.is_empty() || !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    let Ok(automaton) = aho_corasick::AhoCorasick::new(forms.iter().map(|(f, _)| f)) else {
        return Cow::Borrowed(text);
    };
    // A part of a token: what is not a blank, a quote or a backslash.
    let in_token = |b: u8| !(b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'\\'));
    let bytes = text.as_bytes();
    // Each line's start and end (its line break excluded).
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let end = at + line.trim_end_matches('\n').trim_end_matches('\r').len();
        lines.push((at, end));
        at += line.len();
    }
    let marker = |i: usize| bytes.get(lines[i].0).copied();
    // The lines that continue line `i`: the next one; in a unified diff, the next of its own
    // side (a removed line's, past the added ones; an added line's, past the removed ones;
    // a context line's on both sides).
    let continuations = |i: usize| -> Vec<usize> {
        let after = |skip: u8| (i + 1..lines.len()).find(|&j| marker(j) != Some(skip));
        match marker(i) {
            Some(b'-') => after(b'+').into_iter().collect(),
            Some(b'+') => after(b'-').into_iter().collect(),
            Some(b' ') => {
                let mut next: Vec<usize> =
                    (i + 1 < lines.len()).then_some(i + 1).into_iter().collect();
                next.extend(after(b'-').filter(|j| Some(j) != next.first()));
                next
            }
            _ => (i + 1 < lines.len()).then_some(i + 1).into_iter().collect(),
        }
    };
    let mut masks: Vec<(usize, usize, &str)> = Vec::new();
    for i in 0..lines.len() {
        let (line_start, mut end) = lines[i];
        // The part ending this line.
        if end > line_start && bytes[end - 1] == b'\\' {
            end -= 1;
        }
        let mut start = end;
        while start > line_start && in_token(bytes[start - 1]) {
            start -= 1;
        }
        if start == end {
            continue;
        }
        for j in continuations(i) {
            // The part starting the next line.
            let mut head = lines[j].0;
            if matches!(bytes.get(head), Some(b'-' | b'+')) {
                head += 1;
            }
            while bytes.get(head).is_some_and(|&b| b == b' ' || b == b'\t') {
                head += 1;
            }
            if bytes.get(head) == Some(&b'\\') && bytes.get(head + 1) == Some(&b' ') {
                head += 1;
            }
            let mut head_end = head;
            while head_end < lines[j].1 && in_token(bytes[head_end]) {
                head_end += 1;
            }
            if head == head_end {
                continue;
            }
            let joined = [&bytes[start..end], &bytes[head..head_end]].concat();
            let cut = end - start;
            if let Some(m) = automaton
                .find_overlapping_iter(&joined)
                .find(|m| m.start() < cut && m.end() > cut)
            {
                let shown = forms[m.pattern().as_usize()].1;
                masks.push((start + m.start(), end, shown));
                masks.push((head, head + (m.end() - cut), "…"));
            }
        }
    }
    if masks.is_empty() {
        return Cow::Borrowed(text);
    }
    masks.sort_by_key(|m| m.0);
    masks.dedup();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (start, end, shown) in masks {
        if start < copied {
            continue;
        }
        out.push_str(&text[copied..start]);
        out.push_str(shown);
        copied = end;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random keys are never placeholders (issue 41): 20,000 `sk-proj-` keys of 48 random
    /// letters and digits (a fixed seed, so a failure names its key) are each an error.
    /// Splitting a random key at its case changes once made a marker of `cXxx03`: 5 of
    /// 20,000 passed.
    #[test]
    fn random_openai_project_keys_are_never_placeholders() {
        let scanner = Scanner::new(&[]);
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut body = String::new();
        let mut keys = Vec::new();
        for _ in 0..20_000 {
            let random: String = (0..48)
                .map(|_| char::from(ALPHABET[(next() % 62) as usize]))
                .collect();
            let key = format!("sk-proj-{random}");
            body.push_str(&format!("{{\"key\": \"{key}\"}}\n"));
            keys.push(key);
        }
        let found: std::collections::HashSet<String> = scanner
            .scan(body.as_bytes())
            .into_iter()
            .map(|hit| hit.text)
            .collect();
        let passed: Vec<&String> = keys.iter().filter(|k| !found.contains(*k)).collect();
        assert!(
            passed.is_empty(),
            "{} passed, the first {:?}",
            passed.len(),
            &passed[..passed.len().min(3)]
        );
    }

    /// What a person types for a test is still no credential, markers at a change of case
    /// included, once the value is words.
    #[test]
    fn typed_placeholders_with_project_key_prefixes_stay_placeholders() {
        let scanner = Scanner::new(&[]);
        for key in [
            "sk-proj-test-key-for-unit-tests",
            "sk-proj-myFakeKeyForTheUnitTests1234",
            "sk-proj-YourApiKeyGoesHereForTheTests",
            "sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ] {
            let text = format!("{{\"key\": \"{key}\"}}");
            assert!(scanner.scan(text.as_bytes()).is_empty(), "{key}");
        }
    }

    #[test]
    fn the_locator_agrees_with_position() {
        let text = "a\nbé\n\nxyz".as_bytes();
        let mut locator = Locator::new(text);
        for offset in [0, 1, 2, 4, 6, 7, 9, 3] {
            assert_eq!(
                locator.locate(offset),
                vcr_json::Position::locate(text, offset),
                "{offset}"
            );
        }
    }

    #[test]
    fn matches_holding_invalid_utf8_keep_their_byte_offsets() {
        // Regression: offsets were counted on the lossy string, which grows at each invalid
        // byte (one byte becomes three), and slicing the bytes with them could panic.
        let scanner = Scanner::new(&[]);
        let mut text = b"x https://bob:\xff\xfe\xfds3cr3tPa55@example.net/a".to_vec();
        text.extend_from_slice(b" /tmp/\xff\xff\xff/run.log");
        let hits = scanner.scan(&text);
        assert_eq!(hits.len(), 2, "{hits:?}");
        let url = &hits[0];
        // The hit is the password itself.
        assert_eq!(&text[url.start..url.end], b"\xff\xfe\xfds3cr3tPa55");
        assert!(url.masked.starts_with("https://bob:"), "{}", url.masked);
        assert!(!url.masked.contains("s3cr3tPa55"), "{}", url.masked);
        let temp = &hits[1];
        assert_eq!(&text[temp.start..temp.end], b"/tmp/\xff\xff\xff/run.log");
    }

    /// Each thread keeps search caches for a few scanners only: scanners used in turn, more
    /// of them than it keeps, each still finds what its own patterns match, whether its
    /// caches were kept or made again.
    #[test]
    fn scanners_used_in_turn_each_search_with_their_own_patterns() {
        // Of different lengths, so that the regexes, and their caches, differ in shape.
        let paths: Vec<String> = (0..6)
            .map(|i| format!("D:\\Builds\\{}agent{i}", "sub\\".repeat(i)))
            .collect();
        let scanners: Vec<Scanner> = paths
            .iter()
            .map(|p| Scanner::new(&[("working directory", p.as_str())]))
            .collect();
        let text: String = paths.iter().map(|p| format!("at {p}\\x.log;\n")).collect();
        for _ in 0..3 {
            for (scanner, path) in scanners.iter().zip(&paths) {
                let machine: Vec<String> = scanner
                    .scan(text.as_bytes())
                    .into_iter()
                    .filter(|h| h.detector == MACHINE_PATH)
                    .map(|h| h.text)
                    .collect();
                assert_eq!(machine.len(), 1, "{path}: {machine:?}");
                assert!(machine[0].starts_with(path.as_str()), "{path}: {machine:?}");
            }
        }
    }

    #[test]
    fn temp_paths_end_before_trailing_punctuation() {
        let hits = Scanner::new(&[]).scan(b"(see /tmp/build/out.log), then /tmp/a.");
        let texts: Vec<&str> = hits.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["/tmp/build/out.log", "/tmp/a"]);
    }

    #[test]
    fn masking_hides_what_findings_hide_and_keeps_the_rest() {
        let scanner = Scanner::new(&[("working directory", "/srv/build/app")]);
        let key = format!("AKIA{}", "QX7RT2MZ4LPW9BNV");
        let uuid = "f8d50240-b224-4d14-a126-63301ca93176";
        let text = format!(
            "é {key} /home/ann/x {uuid} /tmp/t /srv/build/app/a https://bob:s3cr3tPa55@acme.io/a ann.lee@acme.io \"-----BEGIN RSA PRIVATE KEY-----\\nAbC\\n\" tail"
        );
        let masked = scanner.mask(&text);
        for hidden in [key.as_str(), "AbC", "/home/ann", "s3cr3tPa55", "ann.lee@"] {
            assert!(!masked.contains(hidden), "{hidden} shown: {masked}");
        }
        assert!(masked.starts_with("é AKIA"), "{masked}");
        // Shown as the findings show them: a user's first letter, an address's domain, the
        // URL around its password; UUIDs and other paths whole.
        for shown in [
            " /home/a***/x ",
            uuid,
            " /tmp/t /srv/build/app/a ",
            " https://bob:s3…(10 chars)@acme.io/a ",
            " a***@acme.io ",
        ] {
            assert!(masked.contains(shown), "{shown} not shown: {masked}");
        }
        assert!(masked.ends_with("KEY-----\" tail"), "{masked}");
    }

    #[test]
    fn a_private_key_on_lines_of_its_own_is_hidden_to_its_end_line() {
        let scanner = Scanner::new(&[]);
        let label = ["RSA", "PRIVATE", "KEY"].join(" ");
        let text = format!(
            "key: |\n  -----BEGIN {label}-----\n  MIIEpAIBAAKCAQEA\n  q83Zx0\n  -----END {label}-----\nnext: 1\n"
        );
        let masked = scanner.mask(&text);
        assert!(
            !masked.contains("MIIEpAIBAAKCAQEA") && !masked.contains("q83Zx0"),
            "{masked}"
        );
        assert!(masked.ends_with("\nnext: 1\n"), "{masked}");
        // Without an END line, the BEGIN line alone.
        let text = format!("-----BEGIN {label}-----\nMIIEpAIBAAKCAQEA\n");
        assert_eq!(scanner.mask(&text), text);
    }

    #[test]
    fn machine_paths_are_found_as_whole_components() {
        let scanner = Scanner::new(&[("working directory", "/srv/build/app")]);
        let hits = scanner.scan(b"at /srv/build/app/src and /srv/build/app2 and /srv/build/app");
        let texts: Vec<&str> = hits.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["/srv/build/app/src", "/srv/build/app"]);
        assert!(
            hits.iter()
                .all(|h| h.label == "this machine's working directory")
        );
    }

    /// Both scans of `bytes`, which must agree hit for hit.
    fn assert_same(scanner: &Scanner, bytes: &[u8]) -> Vec<Hit> {
        let fast = scanner.scan(bytes);
        let every_byte = scanner.scan_every_byte(bytes);
        assert!(
            fast == every_byte,
            "the anchored scan differs from the full one on {:?}:\nanchored: {:?}\nfull:     {:?}",
            String::from_utf8_lossy(bytes),
            fast.iter()
                .map(|h| (h.detector, h.start, &h.text))
                .collect::<Vec<_>>(),
            every_byte
                .iter()
                .map(|h| (h.detector, h.start, &h.text))
                .collect::<Vec<_>>(),
        );
        fast
    }

    fn texts(hits: &[Hit]) -> Vec<(&str, &str)> {
        hits.iter().map(|h| (h.detector, h.text.as_str())).collect()
    }

    fn scanners() -> [Scanner; 2] {
        [
            Scanner::new(&[]),
            Scanner::new(&[
                ("working directory", "/srv/build/app"),
                ("home folder", "/home/ann"),
                ("Claude config folder", "C:\\Users\\ann\\.claude"),
            ]),
        ]
    }

    #[test]
    fn the_anchors_cover_every_detector() {
        assert!(Scanner::new(&[]).anchors.is_some());
        for detector in DETECTORS {
            assert!(
                anchors::COVERED.contains(&detector.name),
                "{} has no anchor rule",
                detector.name
            );
        }
    }

    /// The literals the anchors look for are those the patterns begin with.
    #[test]
    fn the_anchor_literals_follow_the_patterns() {
        let pattern = |name: &str| {
            DETECTORS
                .iter()
                .find(|d| d.name == name)
                .map(|d| d.pattern)
                .unwrap()
        };
        let aws = pattern("aws-access-key");
        let alternation = aws
            .strip_prefix("(?:")
            .and_then(|rest| rest.split_once(')'))
            .map(|(alternation, _)| alternation)
            .unwrap();
        let prefixes: Vec<&[u8]> = alternation.split('|').map(str::as_bytes).collect();
        let listed: Vec<&[u8]> = anchors::AWS_PREFIXES.iter().map(|p| p.as_slice()).collect();
        assert_eq!(prefixes, listed);
        let github = pattern("github-token");
        assert!(github.starts_with("gh[pousr]_") && github.contains("|github_pat_"));
        let kinds: Vec<String> = "pousr".chars().map(|c| format!("gh{c}_")).collect();
        assert_eq!(
            anchors::GITHUB,
            [
                kinds.iter().map(String::as_str).collect(),
                vec!["github_pat_"]
            ]
            .concat()
        );
        // credential-parameter is found through the credential keys.
        let parameter = pattern("credential-parameter");
        let names = parameter
            .split_once("))(?:")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(names, _)| names)
            .unwrap();
        let keys: Vec<&str> = detectors::CREDENTIAL_KEYS.split('|').collect();
        for name in names.split('|') {
            assert!(keys.contains(&name), "{name} is not a credential key");
        }
    }

    #[test]
    fn the_anchored_scan_agrees_on_every_vector() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/vectors/detectors.jsonl");
        let vectors: Vec<String> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|line| {
                let case: serde_json::Value = serde_json::from_str(line).unwrap();
                case["text"].as_str().unwrap().to_owned()
            })
            .collect();
        for scanner in &scanners() {
            for text in &vectors {
                assert_same(scanner, text.as_bytes());
            }
            // Side by side, so that one vector's anchors meet the next one's.
            // Escapes too (issue 11): `\n`, `\t`, `\u0022`, `\u003d`, `\u0026`, JSON in JSON.
            for separator in [
                "", " ", "\n", "\"", "\\", "'", "-", "/", "@", ":", "a", r"\n", r"\t", r"\\n",
                r"\u0022", r"\u003d", r"\u0026", r"\u00e9",
            ] {
                assert_same(scanner, vectors.join(separator).as_bytes());
            }
        }
    }

    #[test]
    fn matches_at_the_edges_of_the_bytes_are_found() {
        let scanner = Scanner::new(&[]);
        let uuid = "f8d50240-b224-4d14-a126-63301ca93176";
        let time = "2024-05-06T07:08:09.123Z";
        let email = "ann.lee@acme.io";
        for text in [uuid, time, email] {
            let hits = assert_same(&scanner, text.as_bytes());
            assert_eq!(texts(&hits).len(), 1, "{text}: {hits:?}");
            assert_eq!(hits[0].text, text);
            assert_eq!((hits[0].start, hits[0].end), (0, text.len()));
        }
        // Cut short at either end: nothing, and no panic.
        for text in [uuid, time, email] {
            for cut in 0..text.len() {
                assert_same(&scanner, &text.as_bytes()[..cut]);
                assert_same(&scanner, &text.as_bytes()[cut..]);
            }
        }
        // Anchors that would start before the first byte or end after the last.
        for text in [
            "-", "/", "@", "A", "sk-", "-abc", "x@", "@x.io", "://", "a://b:c@", "eyJ",
        ] {
            assert!(assert_same(&scanner, text.as_bytes()).is_empty(), "{text}");
        }
    }

    #[test]
    fn adjacent_and_overlapping_candidates_are_found_in_order() {
        let scanner = Scanner::new(&[]);
        let uuid = "f8d50240-b224-4d14-a126-63301ca93176";
        let time = "2024-05-06T07:08:09Z";
        // Adjacent: the second starts where the first ends.
        let text = format!("{uuid} {uuid},{time}|{time} x@acme.io");
        let hits = assert_same(&scanner, text.as_bytes());
        assert_eq!(
            texts(&hits),
            [
                ("uuid", uuid),
                ("uuid", uuid),
                ("timestamp", time),
                ("timestamp", time),
                ("email", "x@acme.io")
            ]
        );
        // Overlapping proposals: the dashes of a UUID are timestamp anchors too, a timestamp's
        // digits before a UUID's first dash, an email's local part holds both.
        let text =
            format!("2024{uuid}@acme.io 12345678-2024-01-02T03:04:05Z 1234-12-12T12:12:12-0800");
        assert_same(&scanner, text.as_bytes());
        // An email inside a URL with credentials, a path inside a temp path.
        assert_same(
            &scanner,
            b"https://ann:s3cr3t-pw@host.acme.io/x ann:pw@acme.io /tmp/home/ann /private/tmp/x",
        );
        // A rejected candidate lets a shorter one inside it count: example emails shrink one
        // byte at a time, and a placeholder key's quotes are tried one by one.
        assert_same(&scanner, b"see first.last@example.com or x.y.z@example.org");
        assert_same(
            &scanner,
            b"\"\\\"\"token\": \"<TOKEN>\", \"Authorization\": \"Bearer abcdefghijklmnop\"",
        );
    }

    /// Issue 11: a leak right after a JSON escape (a tool result of `cat .env`) was neither
    /// found nor masked, since the escape's letter glued onto the next word. Each case runs
    /// through both scans, which must agree.
    #[test]
    fn escapes_are_boundaries_for_every_detector() {
        // Assembled at run time, so that this file holds nothing secret-shaped.
        let aws_secret = format!("wJalr{}", "U8JZpDE0iGXlD6gNCFbaEPFjbD0kH8Oool8");
        let openai = format!("sk-proj-{}", "DklZDOCj2ISaJiHkTj0rLGlkoMXGjtEkDnNf");
        let akia = format!("AKIA{}", "LPFT7V4SEH2KVJ72");
        let ghp = format!("ghp_{}", "C9qEwjky40UVsWmflzdE1F8ResqEDusTpkr0");
        let token = "cStY4qWB8dWKnHfDNxSIvPZZ63fFKcZjR4I0b3jR";
        let uuid = "f8d50240-b224-4d14-a126-63301ca93176";
        let time = "2024-05-06T07:08:09Z";
        let cases: Vec<(String, Vec<(&str, &str)>)> = vec![
            // `cat .env` in a JSON string: keys and tokens after `\n`, a bare short password
            // in an assignment that ends its line.
            (
                format!(
                    r#""$ cat .env\nAWS_SECRET_ACCESS_KEY={aws_secret}\nOPENAI_API_KEY={openai}\npassword=hunter2\n{akia}\n""#
                ),
                vec![
                    ("credential-field", aws_secret.as_str()),
                    ("openai-key", openai.as_str()),
                    ("credential-field", "hunter2"),
                    ("aws-access-key", akia.as_str()),
                ],
            ),
            // The same file read by Claude Code's Read tool: numbered lines after `\t`.
            (
                format!(r#""     1\tpassword=hunter2\n     2\t{ghp}\tx""#),
                vec![("credential-field", "hunter2"), ("github-token", &ghp)],
            ),
            // Escaped blanks around the separator, escaped quotes around key and value.
            (
                format!(r"\tapi_key\t=\t{token}\n"),
                vec![("credential-field", token)],
            ),
            (
                format!(r#"{{\"token\": \"{token}\"}}"#),
                vec![("credential-field", token)],
            ),
            (
                format!(r"{{\u0022password\u0022: \u0022{token}\u0022}}"),
                vec![("credential-field", token)],
            ),
            (
                format!(r"api_key\u003d{token}\u0020next"),
                vec![("credential-field", token)],
            ),
            (
                format!(r"x\u000aAWS_SECRET_ACCESS_KEY={aws_secret}\u000a"),
                vec![("credential-field", aws_secret.as_str())],
            ),
            (
                format!(r"https://api.acme.io/v1?a=1\u0026token={token}"),
                vec![("credential-parameter", token)],
            ),
            // Paths, addresses, UUIDs and timestamps after an escape.
            (
                r"\n/home/alice/project/.env\t/Users/bob/x\u000a/home/dave/y".to_owned(),
                vec![
                    ("user-home", "/home/alice/project/.env"),
                    ("user-home", "/Users/bob/x"),
                    ("user-home", "/home/dave/y"),
                ],
            ),
            (
                format!(r"\ncarol@acme.io\n{uuid}\u0020{uuid}\u0020{time}\n"),
                vec![
                    ("email", "carol@acme.io"),
                    ("uuid", uuid),
                    ("uuid", uuid),
                    ("timestamp", time),
                ],
            ),
            // A URL's scheme starts after the escape, not at its letter.
            (
                r"\nhttps://bob:s3cr3tPa55@acme.io/a".to_owned(),
                vec![("url-credentials", "s3cr3tPa55")],
            ),
            // JSON inside JSON: a newline is `\\n`; YAML's `\x09` (a tab).
            (
                format!(r"\\nAWS_SECRET_ACCESS_KEY={aws_secret}\\n/home/alice/x\x09{akia}"),
                vec![
                    ("credential-field", aws_secret.as_str()),
                    ("user-home", "/home/alice/x"),
                    ("aws-access-key", akia.as_str()),
                ],
            ),
            // A doubled backslash is also a Windows path's separator: the folder after it
            // starts at its first letter.
            (
                format!(r"C:\\Users\\nina\\{uuid}"),
                vec![("user-home", r"C:\\Users\\nina"), ("uuid", uuid)],
            ),
            // Not findings: a key glued to a word, digits of an escape, a short bare value
            // that does not end its line, the `u` of an escape.
            (
                r"my_password=hunter2\nxpassword=hunter2\n\u2024-05-06T07:08:09Z".to_owned(),
                vec![],
            ),
            ("password=hunter2 is weak".to_owned(), vec![]),
            (format!(r"x\token: {token}"), vec![]),
            (r"\u0041KIA1234567890ABCDEF".to_owned(), vec![]),
        ];
        for scanner in &scanners() {
            for (text, expected) in &cases {
                let hits = assert_same(scanner, text.as_bytes());
                assert_eq!(&texts(&hits), expected, "{text}");
                let url = hits.iter().find(|h| h.detector == "url-credentials");
                assert!(
                    url.is_none_or(|h| h.masked.starts_with("https://bob:")),
                    "{url:?}"
                );
                // What the findings hide, outputs that show contents hide too.
                let masked = scanner.mask(text);
                for (detector, found) in expected {
                    if !["uuid", "timestamp"].contains(detector) {
                        assert!(!masked.contains(found), "{found} shown: {masked}");
                    }
                }
            }
        }
    }

    #[test]
    fn long_runs_are_read_once() {
        // Without spans (or with the wrong detectors checked), each of these would cost the
        // anchored scan a search to the end of the run per anchor in it.
        let scanner = Scanner::new(&[]);
        let cases = [
            "A".repeat(20_000),
            "eyJ".repeat(10_000),
            format!("eyJ{}.eyJ", "eyJabc".repeat(5_000)),
            "-----BEGIN ".repeat(4_000),
            "\"".repeat(30_000) + "token x",
            // Here every quote starts a match that is rejected, in both scans alike.
            "\"".repeat(300) + "token:x",
            "\\".repeat(30_000) + "\"name\": \"x\"",
            "a.".repeat(20_000) + "@acme",
            "a".repeat(30_000) + "://x:y",
            "sk-".repeat(10_000),
            "0123456789abcdef-".repeat(3_000),
            "2024-01-01".repeat(5_000),
        ];
        for case in &cases {
            assert_same(&scanner, case.as_bytes());
        }
    }

    /// A small deterministic generator (xorshift), so that failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// The pieces the detectors and their anchors are made of.
    const PIECES: &[&str] = &[
        "sk-",
        "sk-ant-",
        "sk-proj-",
        "ant-",
        "AKIA",
        "ASIA",
        "AIza",
        "ghp_",
        "github_pat_",
        "xoxb-",
        "hooks.slack.com/services/T",
        "/B",
        "sk_live_",
        "rk_live_",
        "_live_",
        "eyJ",
        "EYJ",
        ".",
        "-----BEGIN",
        " RSA",
        " PRIVATE KEY",
        "-----",
        "-----END",
        "https://",
        "http://",
        "ftp.x+y://",
        "user:",
        "pass",
        "@",
        "@acme.io",
        "@example.com",
        "/home/",
        "/Users/",
        "/root",
        "/rootfs",
        "/tmp/",
        "/private/tmp/",
        "/private/var/folders/",
        "/var/folders/",
        "C:",
        "c:",
        "\\",
        "\\\\",
        "Users",
        "Documents and Settings",
        "/",
        "\"",
        "'",
        ":",
        "=",
        " ",
        "\t",
        "\n",
        "\r",
        "?",
        "&",
        ",",
        "[",
        "{",
        "-",
        "_",
        "token",
        "ToKeN",
        "tokens",
        "input_tokens",
        "Authorization",
        "proxy-",
        "x-api-key",
        "api_key",
        "password",
        "passwd",
        "client_secret",
        "secret_key",
        "aws_",
        "name",
        "\"name\"",
        "NAME",
        "\"value\"",
        "Bearer ",
        "abcdefghijklmnopqrstuvwxyz012345",
        "ABCDEFGHIJKLMNOP",
        "0123456789",
        "deadbeef",
        "2024",
        "-01",
        "-12",
        "T12",
        ":30",
        ":59",
        "Z",
        "+01:00",
        ".123",
        "123e4567-e89b-12d3-a456-426614174000",
        "f8d50240-b224-4d14-a126-63301ca93176",
        "2024-05-06T07:08:09Z",
        "/srv/build/app",
        "/home/ann",
        "é",
        "\u{2028}",
        "[CWD]",
        "<TOKEN>",
        "***",
        "file://",
        "0",
        "a",
        "Z9",
        // Escapes as JSON and YAML write them, at one or two levels (issue 11).
        r"\n",
        r"\t",
        r"\r",
        r"\b",
        r"\f",
        r"\e",
        r"\\n",
        r"\\t",
        r"\u0020",
        r"\u00e9",
        r"\u000a",
        r"\u0022",
        r"\\u0022",
        r"\u0027",
        r"\u003d",
        r"\u003A",
        r"\u0026",
        r"\x41",
        r"\U0001F600",
        r"\u00",
        "u0022",
        "u0026",
        r#"\""#,
        r#"\\\""#,
    ];

    /// Text made of the pieces the detectors and their anchors are made of, in any order, so
    /// that candidates meet, overlap, nest and get cut short.
    #[test]
    fn the_anchored_scan_agrees_on_generated_text() {
        let scanners = scanners();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..4_000 {
            let mut text: Vec<u8> = Vec::new();
            for _ in 0..1 + rng.below(40) {
                match rng.below(20) {
                    // Now and then a byte that is not UTF-8.
                    0 => text.push(0x80 + rng.below(0x80) as u8),
                    _ => text.extend_from_slice(PIECES[rng.below(PIECES.len())].as_bytes()),
                }
            }
            for scanner in &scanners {
                assert_same(scanner, &text);
            }
        }
    }

    /// Regression (issue 12): the folded search reads a text a window at a time; a literal
    /// across a window's end is found as in one piece. Each leak is placed at every offset
    /// across the end of the first window.
    #[test]
    fn the_anchored_scan_agrees_across_fold_windows() {
        const LEAKS: &[&str] = &[
            r#""password": "hunter2""#,
            r#"{"name": "Authorization", "value": "Bearer Kq7vZ2mXw9Lr4Tb8Yc1N"}"#,
            r"C:\Users\bob\x",
            r"C:\Documents and Settings\bob\x",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "sk_live_abcdefghijklmnopqrstuvwx",
            "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2Q",
            "https://x.io/?access_token=Kq7vZ2mXw9Lr4Tb8Yc1Nd5",
        ];
        let scanners = scanners();
        for leak in LEAKS {
            for back in 0..=leak.len() {
                let mut text = vec![b' '; anchors::FOLD_WINDOW - back];
                text.extend_from_slice(leak.as_bytes());
                for scanner in &scanners {
                    assert!(!assert_same(scanner, &text).is_empty(), "{leak}");
                }
            }
        }
    }
}
