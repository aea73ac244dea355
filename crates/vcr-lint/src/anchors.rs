//! Where a leak can start: anchors that spare the regex most of the bytes.
//!
//! The combined matcher has no literal prefilter (UUIDs, timestamps, emails and credential keys
//! begin with a class of bytes, not a literal), so over a whole file its lazy DFA steps through
//! every byte, which made it the linter's largest cost. Yet every match of every detector holds
//! an anchor that a vectorized search finds at memory speed: a `-`, `/`, `@` or `A` (memchr), or
//! a short literal (Teddy, through aho-corasick) looked for in a copy of the bytes with ASCII case
//! folded away, since the credential patterns ignore case. Each anchor proposes the positions
//! where a match around it can start, and which detectors could match there (a [`Span`]); the
//! scanner tries the proposals nearest first, each with its detectors' own regexes, anchored,
//! so it finds what the combined regex finds without reading the bytes in between.
//!
//! A proposal too many costs one failed anchored search (nanoseconds); a match that no anchor
//! proposes would be lost. So each rule below names the detectors it covers, [`COVERED`] lists
//! them, the scanner falls back to the full scan when the table has a detector that no rule
//! covers, and the tests compare both scans on every vector and on generated text.

use aho_corasick::{AhoCorasick, Input, MatchKind, packed};
use memchr::memmem;
use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, util::syntax};

use super::detectors::{CREDENTIAL_KEYS, DETECTORS};

/// The detectors whose every match some rule below proposes, and how. A detector added to the
/// table without a rule here turns the anchors off (see [`Anchors::new`]).
pub(super) const COVERED: &[&str] = &[
    "private-key",          // `-`: `-----BEGIN`
    "credential-field",     // folded key fragments, then the quotes (`\u0022` too) before the key
    "credential-header",    // folded `name`, then `"` and the backslashes before it
    "credential-parameter", // folded key fragments, then the `?`, `&` or `\u0026` before the key
    "anthropic-key",        // `-`: `sk-`
    "openai-key",           // `-`: `sk-`
    "aws-access-key",       // `A`: `AKIA`, `ASIA`...
    "github-token",         // folded `ghp_`, `github_pat_`...
    "google-api-key",       // `A`: `AIza`
    "slack-token",          // `-`: `xox?-`; `/`: `hooks.slack.com/`
    "stripe-live-key",      // folded `_live_`
    "jwt",                  // folded `eyj`
    "url-credentials",      // `/`: `://`, then the scheme before it
    "user-home",            // `/`: `/home`, `C:/`; folded `users` after `C:\`
    "root-home",            // `/`
    "temp-dir",             // `/`
    "uuid",                 // `-`: eight hex digits before the first dash
    "timestamp",            // `-`: four digits before the first dash
    "email",                // `@`, then the local part before it
];

/// How AWS access key ids begin (the alternation that opens `aws-access-key`'s pattern; a
/// test keeps the two alike).
pub(super) const AWS_PREFIXES: &[&[u8; 4]] = &[b"AKIA", b"ASIA", b"ABIA", b"ACCA"];

/// How Google API keys begin.
const GOOGLE: &[u8; 4] = b"AIza";

/// How GitHub tokens begin: `gh` and a letter for the kind of token, or `github_pat_` (a test
/// keeps this and `github-token`'s pattern alike).
pub(super) const GITHUB: &[&str] = &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"];

/// Pieces of the credential keys (lower case) that every key contains one of; a key that
/// contains none is looked for whole. Few and short keep the literal search fast (it slows
/// down past a dozen or so literals), and rare keep it from stopping often.
const KEY_FRAGMENTS: &[&str] = &["key", "token", "authoriz", "passw", "secret"];

/// How every JWT begins (`{"` in base64).
const JWT: &[u8] = b"eyJ";

/// How every private key block begins.
const PRIVATE_KEY: &[u8] = b"-----BEGIN";

/// A set of detectors: bit `i` for `DETECTORS[i]`, the last bit for this machine's paths.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Detectors(u32);

impl Detectors {
    const MACHINE: Detectors = Detectors(1 << 31);

    /// The detectors of the table with these names.
    fn named(names: &[&str]) -> Detectors {
        Detectors(
            DETECTORS
                .iter()
                .enumerate()
                .filter(|(_, d)| names.contains(&d.name))
                .fold(0, |set, (i, _)| set | 1 << i),
        )
    }

    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(super) fn union(self, other: Detectors) -> Detectors {
        Detectors(self.0 | other.0)
    }

    /// The detector that is pattern `index` of the combined regex.
    fn of(index: usize) -> Detectors {
        if index < DETECTORS.len() {
            Detectors(1 << index)
        } else {
            Detectors::MACHINE
        }
    }

    pub(super) fn without(self, other: Detectors) -> Detectors {
        Detectors(self.0 & !other.0)
    }
}

/// Where a match can begin inside a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum First {
    /// At any byte.
    Any,
    /// At a letter (a URL scheme).
    Alpha,
    /// At a letter or digit (an email's local part).
    Alnum,
    /// At a quote or a backslash (the quotes before a credential key, where an escaped one,
    /// `\u0022`, has letters and digits that start nothing), or at the span's last position
    /// (the key).
    Quote,
    /// Where `eyJ` begins (a JWT).
    Jwt,
    /// Where `-----BEGIN` begins (a private key).
    PrivateKey,
}

impl First {
    /// The literal that a match begins with, for the spans that look for it.
    fn literal(self) -> Option<&'static [u8]> {
        match self {
            First::Jwt => Some(JWT),
            First::PrivateKey => Some(PRIVATE_KEY),
            _ => None,
        }
    }

    fn accepts(self, b: u8) -> bool {
        match self {
            First::Alpha => b.is_ascii_alphabetic(),
            First::Alnum => b.is_ascii_alphanumeric(),
            First::Quote => matches!(b, b'\\' | b'"' | b'\''),
            _ => true,
        }
    }
}

/// Positions `lo..=hi` where a match of a rule's detectors may start, those that `first`
/// accepts.
///
/// If one of the detectors does not match at one such position, it matches at no later one:
/// its pattern reads the bytes after each of them alike (the run of quotes before a key, the
/// local part before an `@`), or needs more of them than are left (a JWT's first segment). (A
/// run of quotes may hold escaped ones, `\u0022`: from each quote or backslash of the run the
/// pattern reads the rest of it, and the letters and digits inside start nothing.) So
/// one failed anchored search rules it out for the rest of the span, and a run of a million
/// quotes, or a megabyte of base64 with an `eyJ` every few bytes, costs one search, not a
/// million.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) lo: usize,
    pub(super) hi: usize,
    first: First,
    /// The rule's group of detectors (an index into `Anchors::groups`).
    group: u8,
    /// Those of them not yet ruled out.
    pub(super) alive: Detectors,
}

impl Span {
    fn at(position: usize, group: &Group) -> Span {
        Span::new(position, position, First::Any, group)
    }

    fn new(lo: usize, hi: usize, first: First, group: &Group) -> Span {
        Span {
            lo,
            hi,
            first,
            group: group.id,
            alive: group.detectors,
        }
    }

    /// Moves `lo` to the first position at or after `from` where a match may start, if the span
    /// has one left.
    pub(super) fn advance(&mut self, bytes: &[u8], from: usize) -> Option<usize> {
        let mut p = self.lo.max(from);
        if let Some(literal) = self.first.literal() {
            let end = self.hi.saturating_add(literal.len()).min(bytes.len());
            p = bytes
                .get(p..end)
                .and_then(|window| memmem::find(window, literal))
                .map_or(usize::MAX, |i| p + i);
        } else {
            while p <= self.hi
                && !(bytes.get(p).is_some_and(|&b| self.first.accepts(b))
                    || (self.first == First::Quote && p == self.hi))
            {
                p += 1;
            }
        }
        self.lo = p;
        (p <= self.hi).then_some(p)
    }
}

/// What a literal of the folded search proposes.
#[derive(Debug, Clone)]
enum Folded {
    /// A fragment of credential keys: each `(key, offset)` is a key (folded) that holds the
    /// fragment at that offset.
    Key(Vec<(usize, usize)>),
    /// `name` of a HAR header (`"name": "Authorization", "value": ...`).
    Name,
    /// `Users` or `Documents and Settings` after `C:\`.
    WindowsHome,
    /// The start of a match of this group's detectors, this many bytes before the literal.
    After(usize, usize),
    /// A JWT's `eyJ`.
    Jwt,
}

/// Detectors that one rule proposes, and the regex made of their patterns, in the table's
/// order, that checks its proposals.
#[derive(Debug)]
struct Group {
    id: u8,
    detectors: Detectors,
    regex: Regex,
    /// The index, among the combined regex's patterns, of each pattern of `regex`.
    patterns: Vec<usize>,
}

/// The groups of the rules, by the index of each in `Anchors::groups`.
#[derive(Debug)]
struct Rules {
    private_key: usize,
    sk: usize,
    slack: usize,
    timestamp: usize,
    uuid: usize,
    slash: usize,
    user_home: usize,
    url: usize,
    email: usize,
    aws: usize,
    google: usize,
    field: usize,
    parameter: usize,
    header: usize,
    jwt: usize,
    /// This machine's paths that do not begin with `/`.
    machine: usize,
}

/// The anchors of one scanner, built once per run.
#[derive(Debug)]
pub(super) struct Anchors {
    /// A proposal is checked against its rule's detectors only, so an anchor in a megabyte of
    /// base64 does not make the email pattern read to its end.
    groups: Vec<Group>,
    rules: Rules,
    folded: Literals,
    /// Per literal of `folded`: what it proposes, its bytes, and the other literals that can
    /// match at the same position (a prefix of it, or it of them), which a leftmost search
    /// would not report.
    literals: Vec<(Folded, Vec<u8>, Vec<usize>)>,
    /// The credential keys, folded.
    keys: Vec<Vec<u8>>,
    /// The length of the longest literal of `folded`.
    longest: usize,
    /// This machine's paths that do not begin with `/` (those the `/` rule covers).
    machine: Vec<memmem::Finder<'static>>,
    /// Which `Anchors` this is, for the search caches each thread keeps (`CACHES`).
    id: u64,
}

thread_local! {
    /// This thread's search caches for the groups' regexes of the last few `Anchors` it
    /// searched with (by `Anchors::id`). `Regex::search` takes a cache from the regex's own
    /// pool, which every thread but the first reaches through a mutex: 1.4% of a whole-tree
    /// `verify` over the corpus, the calling thread and the worker taking turns (issue 12).
    static CACHES: std::cell::RefCell<Vec<(u64, Vec<Cache>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// How many `Anchors` a thread keeps caches for: one in a run, a few in tests.
const CACHED_ANCHORS: usize = 4;

/// ASCII case folding that vectorizes: letters become lower case; other bytes change too
/// (`_` becomes DEL, CR becomes `-`), but literals are folded the same way, so the folded
/// search finds every place the case-insensitive one would, and perhaps a few more.
fn fold(b: u8) -> u8 {
    b | 0x20
}

fn folded(text: &[u8]) -> Vec<u8> {
    text.iter().map(|&b| fold(b)).collect()
}

/// Whether `text`, folded, holds the folded `literal` at `at`.
fn folded_at(text: &[u8], at: usize, literal: &[u8]) -> bool {
    text.get(at..at + literal.len())
        .is_some_and(|t| t.iter().zip(literal).all(|(&b, &l)| fold(b) == l))
}

/// How many bytes of a text the folded search folds at a time.
pub(super) const FOLD_WINDOW: usize = 64 * 1024;

impl Anchors {
    /// The anchors for the detectors of the table, whose patterns (`{keys}` expanded) are
    /// `patterns`, and for this machine's paths; `None` when some detector has no rule, and the
    /// scanner must read every byte.
    pub(super) fn new(patterns: &[String], machine_paths: &[String]) -> Option<Anchors> {
        if DETECTORS.len() >= 31
            || patterns.len() != DETECTORS.len()
            || !DETECTORS.iter().all(|d| COVERED.contains(&d.name))
        {
            return None;
        }
        let machine_patterns: Vec<String> =
            machine_paths.iter().map(|p| regex::escape(p)).collect();
        let mut groups: Vec<Group> = Vec::new();
        let mut group = |detectors: Detectors| -> Option<usize> {
            let mut sources = Vec::new();
            let mut indices = Vec::new();
            for (i, pattern) in patterns.iter().enumerate() {
                if detectors.0 & 1 << i != 0 {
                    sources.push(pattern.clone());
                    indices.push(i);
                }
            }
            if detectors.0 & Detectors::MACHINE.0 != 0 {
                for (j, pattern) in machine_patterns.iter().enumerate() {
                    sources.push(pattern.clone());
                    indices.push(DETECTORS.len() + j);
                }
            }
            // Searched anchored only, so no prefilter, whose literal extraction would double
            // the time to build.
            let regex = Regex::builder()
                .configure(Regex::config().auto_prefilter(false))
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .build_many(&sources)
                .ok()?;
            let id = groups.len();
            groups.push(Group {
                id: u8::try_from(id).ok()?,
                detectors,
                regex,
                patterns: indices,
            });
            Some(id)
        };
        let named = Detectors::named;
        let mut slash = named(&["user-home", "root-home", "temp-dir"]);
        if machine_paths.iter().any(|p| p.starts_with('/')) {
            slash = slash.union(Detectors::MACHINE);
        }
        let rules = Rules {
            private_key: group(named(&["private-key"]))?,
            sk: group(named(&["anthropic-key", "openai-key"]))?,
            slack: group(named(&["slack-token"]))?,
            timestamp: group(named(&["timestamp"]))?,
            uuid: group(named(&["uuid"]))?,
            slash: group(slash)?,
            user_home: group(named(&["user-home"]))?,
            url: group(named(&["url-credentials"]))?,
            email: group(named(&["email"]))?,
            aws: group(named(&["aws-access-key"]))?,
            google: group(named(&["google-api-key"]))?,
            field: group(named(&["credential-field"]))?,
            parameter: group(named(&["credential-parameter"]))?,
            header: group(named(&["credential-header"]))?,
            jwt: group(named(&["jwt"]))?,
            machine: group(Detectors::MACHINE)?,
        };
        let stripe = group(named(&["stripe-live-key"]))?;
        let github = group(named(&["github-token"]))?;

        let keys: Vec<Vec<u8>> = CREDENTIAL_KEYS
            .split('|')
            .map(|k| folded(k.as_bytes()))
            .collect();
        let mut literals: Vec<(Folded, Vec<u8>)> = Vec::new();
        let mut fragment_keys = vec![Vec::new(); KEY_FRAGMENTS.len()];
        for (k, key) in keys.iter().enumerate() {
            let mut covered = false;
            for (f, fragment) in KEY_FRAGMENTS.iter().enumerate() {
                for offset in memmem::find_iter(key, fragment.as_bytes()) {
                    fragment_keys[f].push((k, offset));
                    covered = true;
                }
            }
            if !covered {
                literals.push((Folded::Key(vec![(k, 0)]), key.clone()));
            }
        }
        for (fragment, keys) in KEY_FRAGMENTS.iter().zip(fragment_keys) {
            if !keys.is_empty() {
                literals.push((Folded::Key(keys), folded(fragment.as_bytes())));
            }
        }
        literals.push((Folded::Name, folded(b"name")));
        literals.push((Folded::WindowsHome, folded(b"Users")));
        literals.push((Folded::WindowsHome, folded(b"Documents and Settings")));
        literals.push((Folded::Jwt, folded(JWT)));
        // stripe-live-key: `sk_live_`, `rk_live_`.
        literals.push((Folded::After(2, stripe), folded(b"_live_")));
        for prefix in GITHUB {
            literals.push((Folded::After(0, github), folded(prefix.as_bytes())));
        }
        let folded_search = Literals::new(literals.iter().map(|(_, l)| l))?;
        let longest = literals.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
        let literals = literals
            .iter()
            .enumerate()
            .map(|(i, (rule, literal))| {
                let overlapping = literals
                    .iter()
                    .enumerate()
                    .filter(|&(j, (_, other))| {
                        j != i && (other.starts_with(literal) || literal.starts_with(other))
                    })
                    .map(|(j, _)| j)
                    .collect();
                (rule.clone(), literal.clone(), overlapping)
            })
            .collect();
        let machine = machine_paths
            .iter()
            .filter(|p| !p.starts_with('/'))
            .map(|p| memmem::Finder::new(p.as_bytes()).into_owned())
            .collect();
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Some(Anchors {
            groups,
            rules,
            folded: folded_search,
            literals,
            keys,
            longest,
            machine,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// The match the combined regex finds at `start`, among the detectors that the `spans`
    /// (those that propose `start`) have alive: the first of them, in the table's order (this
    /// machine's paths last), that matches there, as its pattern index and the end of its
    /// match. Also the detectors found not to match there.
    pub(super) fn first_match<'a>(
        &self,
        bytes: &[u8],
        start: usize,
        spans: impl Iterator<Item = &'a Span>,
    ) -> (Option<(usize, usize)>, Detectors) {
        CACHES.with_borrow_mut(|caches| {
            let at = match caches.iter().position(|(id, _)| *id == self.id) {
                Some(at) => at,
                None => {
                    if caches.len() == CACHED_ANCHORS {
                        caches.remove(0);
                    }
                    let mine = self.groups.iter().map(|g| g.regex.create_cache()).collect();
                    caches.push((self.id, mine));
                    caches.len() - 1
                }
            };
            self.first_match_with(&mut caches[at].1, bytes, start, spans)
        })
    }

    /// `first_match`, with this thread's caches for the groups' regexes.
    fn first_match_with<'a>(
        &self,
        caches: &mut [Cache],
        bytes: &[u8],
        start: usize,
        spans: impl Iterator<Item = &'a Span>,
    ) -> (Option<(usize, usize)>, Detectors) {
        let input = regex_automata::Input::new(bytes)
            .range(start..)
            .anchored(Anchored::Yes);
        let mut found: Option<(usize, usize)> = None;
        let mut failed = Detectors::default();
        // The groups searched already (a handful exist), so that two spans of one group
        // cost one search.
        let mut searched = 0u64;
        for span in spans {
            let bit = 1u64.checked_shl(u32::from(span.group)).unwrap_or(0);
            if searched & bit != 0 {
                continue;
            }
            searched |= bit;
            let (Some(group), Some(cache)) = (
                self.groups.get(usize::from(span.group)),
                caches.get_mut(usize::from(span.group)),
            ) else {
                continue;
            };
            let winner = group.regex.search_with(cache, &input).and_then(|m| {
                let index = *group.patterns.get(m.pattern().as_usize())?;
                Some((index, m.end()))
            });
            // Its detectors before the winner (all of them if none) do not match here; this
            // machine's paths count as one.
            let before = winner.map_or(usize::MAX, |(index, _)| index);
            let machine_won = (DETECTORS.len()..usize::MAX).contains(&before);
            for &index in &group.patterns {
                if index < before && !(machine_won && index >= DETECTORS.len()) {
                    failed = failed.union(Detectors::of(index));
                }
            }
            if let Some((index, end)) = winner
                && found.is_none_or(|(best, _)| index < best)
            {
                found = Some((index, end));
            }
        }
        (found, failed)
    }

    /// Every span of `bytes` where a match may start, in no particular order.
    pub(super) fn spans(&self, bytes: &[u8]) -> Vec<Span> {
        let mut spans = Vec::new();
        let rules = &self.rules;
        let mut private_key_end = 0;
        for d in memchr::memchr3_iter(b'-', b'/', b'@', bytes) {
            match bytes[d] {
                b'-' => self.dash(bytes, d, &mut spans, &mut private_key_end),
                b'/' => self.slash(bytes, d, &mut spans),
                _ => {
                    // email: the local part before the `@`, from a letter or digit.
                    let lo = run_start(bytes, d, is_local_part);
                    if lo < d {
                        spans.push(Span::new(lo, d - 1, First::Alnum, self.group(rules.email)));
                    }
                }
            }
        }
        for d in memchr::memchr_iter(b'A', bytes) {
            // aws-access-key: `AKIA`, `ASIA`...; google-api-key: `AIza`.
            if let Some(prefix) = bytes.get(d..d + 4) {
                if AWS_PREFIXES.iter().any(|p| p.as_slice() == prefix) {
                    spans.push(Span::at(d, self.group(rules.aws)));
                } else if prefix == GOOGLE {
                    spans.push(Span::at(d, self.group(rules.google)));
                }
            }
        }
        for finder in &self.machine {
            let mut from = 0;
            while let Some(i) = bytes.get(from..).and_then(|rest| finder.find(rest)) {
                spans.push(Span::at(from + i, self.group(rules.machine)));
                from += i + 1;
            }
        }
        // The folded search reads a folded copy of the text a window at a time, each window
        // running on by the longest literal less one, so that every literal that starts in
        // it is whole: a copy of the whole file would double the memory of a large one, and
        // a small window stays in the cache (issue 12).
        let mut jwt_end = 0;
        let mut window = Vec::with_capacity(bytes.len().min(FOLD_WINDOW) + self.longest);
        let mut from = 0;
        while from < bytes.len() {
            let to = (from + FOLD_WINDOW).min(bytes.len());
            let ahead = (to + self.longest.saturating_sub(1)).min(bytes.len());
            window.clear();
            window.extend(bytes[from..ahead].iter().map(|&b| fold(b)));
            self.folded.for_each(&window, |start, literal| {
                let at = from + start;
                if at >= to {
                    return;
                }
                let Some((rule, _, overlapping)) = self.literals.get(literal) else {
                    return;
                };
                self.propose(rule, bytes, at, &mut spans, &mut jwt_end);
                for &other in overlapping {
                    if let Some((rule, text, _)) = self.literals.get(other)
                        && folded_at(bytes, at, text)
                    {
                        self.propose(rule, bytes, at, &mut spans, &mut jwt_end);
                    }
                }
            });
            from = to;
        }
        spans
    }

    fn group(&self, id: usize) -> &Group {
        &self.groups[id]
    }

    /// The proposals of a `-`.
    fn dash(&self, bytes: &[u8], d: usize, spans: &mut Vec<Span>, private_key_end: &mut usize) {
        let rules = &self.rules;
        let before = |n: usize| d.checked_sub(n).map(|start| (start, &bytes[start..d]));
        // private-key: `-----BEGIN`, then capitals, digits, spaces, `_` and `-` up to `PRIVATE
        // KEY-----`, all of them such bytes too; a later `-----BEGIN` in that run needs the
        // same end, so one span covers them all.
        if d >= *private_key_end && bytes[d..].starts_with(PRIVATE_KEY) {
            let mut end = d;
            while bytes
                .get(end)
                .is_some_and(|&b| matches!(b, b' ' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-'))
            {
                end += 1;
            }
            *private_key_end = end;
            let hi = end.saturating_sub(PRIVATE_KEY.len());
            spans.push(Span::new(
                d,
                hi,
                First::PrivateKey,
                self.group(rules.private_key),
            ));
        }
        // anthropic-key, openai-key: `sk-`.
        if let Some((start, b"sk")) = before(2) {
            spans.push(Span::at(start, self.group(rules.sk)));
        }
        if let Some((start, text)) = before(4) {
            // slack-token: `xoxb-`...
            if text.starts_with(b"xox") {
                spans.push(Span::at(start, self.group(rules.slack)));
            }
            // timestamp: `2025-`.
            if text.iter().all(u8::is_ascii_digit) {
                spans.push(Span::at(start, self.group(rules.timestamp)));
            }
        }
        // uuid: the first group, eight hex digits.
        if let Some((start, text)) = before(8)
            && text.iter().all(u8::is_ascii_hexdigit)
        {
            spans.push(Span::at(start, self.group(rules.uuid)));
        }
    }

    /// The proposals of a `/`.
    fn slash(&self, bytes: &[u8], d: usize, spans: &mut Vec<Span>) {
        let rules = &self.rules;
        // user-home (`/home/`, `/Users/`), root-home, temp-dir and this machine's paths.
        spans.push(Span::at(d, self.group(rules.slash)));
        if let Some(colon) = d.checked_sub(1)
            && bytes[colon] == b':'
        {
            // user-home: `C:/Users/...`.
            if let Some(drive) = colon.checked_sub(1)
                && bytes[drive].is_ascii_alphabetic()
            {
                spans.push(Span::at(drive, self.group(rules.user_home)));
            }
            // url-credentials: the scheme before `://`, from a letter.
            if bytes.get(d + 1) == Some(&b'/') {
                let lo = run_start(bytes, colon, |b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
                });
                if lo < colon {
                    spans.push(Span::new(
                        lo,
                        colon - 1,
                        First::Alpha,
                        self.group(rules.url),
                    ));
                }
            }
        }
        // slack-token: `hooks.slack.com/services/...`.
        const HOOKS: &[u8] = b"hooks.slack.com";
        if let Some(start) = d.checked_sub(HOOKS.len())
            && &bytes[start..d] == HOOKS
        {
            spans.push(Span::at(start, self.group(rules.slack)));
        }
    }

    /// The spans a folded literal found at `at` proposes.
    fn propose(
        &self,
        rule: &Folded,
        bytes: &[u8],
        at: usize,
        spans: &mut Vec<Span>,
        jwt_end: &mut usize,
    ) {
        let rules = &self.rules;
        match rule {
            Folded::Key(keys) => {
                for &(k, offset) in keys {
                    let Some(start) = at.checked_sub(offset) else {
                        continue;
                    };
                    if !self
                        .keys
                        .get(k)
                        .is_some_and(|key| folded_at(bytes, start, key))
                    {
                        continue;
                    }
                    // credential-field: the key, or any of the quotes and backslashes before it.
                    let lo = quotes_start(bytes, start);
                    spans.push(Span::new(lo, start, First::Quote, self.group(rules.field)));
                    // credential-parameter: the `?` or `&` before it, or the backslashes of a
                    // `\u0026`.
                    if let Some(before) = start.checked_sub(1)
                        && matches!(bytes[before], b'?' | b'&')
                    {
                        spans.push(Span::at(before, self.group(rules.parameter)));
                    }
                    if let Some(u) = start.checked_sub(5)
                        && &bytes[u..start] == b"u0026"
                    {
                        let lo = run_start(bytes, u, |b| b == b'\\');
                        if lo < u {
                            let group = self.group(rules.parameter);
                            spans.push(Span::new(lo, u - 1, First::Any, group));
                        }
                    }
                }
            }
            Folded::Name => {
                // credential-header: `"name`, or any of the backslashes before the quote.
                if let Some(quote) = at.checked_sub(1)
                    && bytes[quote] == b'"'
                {
                    let lo = run_start(bytes, quote, |b| b == b'\\');
                    spans.push(Span::new(lo, quote, First::Any, self.group(rules.header)));
                }
            }
            Folded::WindowsHome => {
                // user-home: `C:\Users`, `C:\\Users`... (`C:/Users` is the `/` rule's).
                let slashes = run_start(bytes, at, |b| b == b'\\');
                if slashes < at
                    && let Some(drive) = slashes.checked_sub(2)
                    && bytes[drive].is_ascii_alphabetic()
                    && bytes[drive + 1] == b':'
                {
                    spans.push(Span::at(drive, self.group(rules.user_home)));
                }
            }
            Folded::After(offset, group) => {
                if let Some(start) = at.checked_sub(*offset) {
                    spans.push(Span::at(start, self.group(*group)));
                }
            }
            Folded::Jwt => {
                // jwt: `eyJ`, then at least eight token bytes up to a dot. A later `eyJ` before
                // that dot needs the same dot and has fewer bytes before it, so one span runs
                // to the end of those bytes, and the `eyJ`s inside it propose nothing more.
                if at >= *jwt_end && bytes[at..].starts_with(JWT) {
                    let mut end = at;
                    while bytes
                        .get(end)
                        .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
                    {
                        end += 1;
                    }
                    *jwt_end = end;
                    let hi = end.saturating_sub(JWT.len());
                    spans.push(Span::new(at, hi, First::Jwt, self.group(rules.jwt)));
                }
            }
        }
    }
}

/// A search for a few literals: Teddy, vectorized, where the CPU has it (aho-corasick's own
/// choice of prefilter can be a memchr of a couple of first bytes that text is full of); an
/// automaton elsewhere.
#[derive(Debug)]
enum Literals {
    Teddy(packed::Searcher),
    Automaton(AhoCorasick),
}

impl Literals {
    fn new<I, P>(literals: I) -> Option<Literals>
    where
        I: IntoIterator<Item = P> + Clone,
        P: AsRef<[u8]>,
    {
        let teddy = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(literals.clone())
            .build();
        match teddy {
            Some(searcher) => Some(Literals::Teddy(searcher)),
            None => AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(literals)
                .ok()
                .map(Literals::Automaton),
        }
    }

    /// Calls `f(start, literal)` for every position where a literal matches, overlapping ones
    /// included (each search resumes after the start, not the end, of the last match).
    fn for_each(&self, haystack: &[u8], mut f: impl FnMut(usize, usize)) {
        let mut from = 0;
        while from < haystack.len() {
            let found = match self {
                Literals::Teddy(searcher) => {
                    searcher.find_in(haystack, aho_corasick::Span::from(from..haystack.len()))
                }
                Literals::Automaton(automaton) => {
                    automaton.find(Input::new(haystack).range(from..))
                }
            };
            let Some(m) = found else {
                break;
            };
            f(m.start(), m.pattern().as_usize());
            from = m.start() + 1;
        }
    }
}

fn is_local_part(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-')
}

/// Where the run of quotes and backslashes before a credential key that begins at `end` begins;
/// an escaped quote (`\u0022`, `\u0027`) is one of them.
fn quotes_start(bytes: &[u8], end: usize) -> usize {
    let mut start = end.min(bytes.len());
    loop {
        match start.checked_sub(1).map(|i| bytes[i]) {
            Some(b'\\' | b'"' | b'\'') => start -= 1,
            Some(b'2' | b'7')
                if start >= 6 && matches!(&bytes[start - 6..start], br"\u0022" | br"\u0027") =>
            {
                start -= 6;
            }
            _ => return start,
        }
    }
}

/// Where the run of bytes that `class` accepts and that ends at `end` begins.
fn run_start(bytes: &[u8], end: usize, class: impl Fn(u8) -> bool) -> usize {
    let mut start = end.min(bytes.len());
    while start > 0 && class(bytes[start - 1]) {
        start -= 1;
    }
    start
}
