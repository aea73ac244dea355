//! Scrubbing credentials out of an HTTP cassette in place, so that replay still works.
//!
//! A secret a recorder's filter did not cover ends up in hundreds of committed cassettes, in
//! headers, query strings, gzip bodies and `Set-Cookie`s. Re-recording against the real API
//! is what teams do today; here the cassette is fixed where it lies:
//!
//! - **What is replaced.** The `[http.scrub]` rules (header names, query parameter names, body
//!   fields by JSON pointer or name, each with a replacement), the user's `[[rule]]`s over the
//!   decoded body texts, and, unless turned off, the default set: every value `verify`
//!   reports as `leak/secret` (credential headers, parameters, cookies and fields, and any
//!   provider key wherever it sits), each replaced by a placeholder `verify` knows
//!   (`REDACTED_<NAME>`), everywhere it occurs in the cassette.
//! - **How.** Only the scalars that change are rewritten ([`vcr_doc::edit`]: quoted and
//!   folded as the recorder's writer would, read back by its loader as exactly the new
//!   value); every other byte stays. A body is decoded first (the cassette's own base64, hex
//!   or chunk list, then gzip or deflate), changed as text, and encoded again the same way
//!   (base64 wrapped at the width it had), and a `Content-Length` that gave the old length
//!   gives the new one.
//! - **Replay.** A value changed in what the recorder matches requests by (a query parameter
//!   under `match-on`, a matched body) makes the live request differ from the recorded one:
//!   each such change is reported with the recorder setting that makes them match again
//!   ([`Interference`]).
//!
//! Nothing here writes a file: [`Scrubber::scrub`] returns the new bytes, and checks them first (they
//! must read as the same cassette).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read as _, Write as _};

use base64::Engine as _;

use vcr_cassette::rules::{RuleSet, Scope};
use vcr_doc::edit::{self, Dialect, Edit};
use vcr_doc::{Node, NodeValue};
use vcr_json::Position;
use vcr_lint::Scanner;
use vcr_lint::http::HttpLeak;
use vcr_project::config::{HttpScrubConfig, ScrubEntry};
use vcr_project::store::ContentHash;

use vcr_cassette::http::body::{self, Content, Leaf};

mod finder;
mod replace;

use finder::Finder;
use vcr_cassette::http::recorder::Filtered;
use vcr_cassette::http::{Body, Field, Format, Header, HttpCassette, Interaction, Matched};

/// The compiled `[http.scrub]` table.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// Whether the default set (every `leak/secret`) applies.
    pub defaults: bool,
    headers: Vec<Named>,
    query: Vec<Named>,
    fields: Vec<FieldRule>,
}

/// A header or query parameter rule.
#[derive(Debug, Clone)]
struct Named {
    name: String,
    replacement: String,
}

/// A body field rule: a JSON pointer (`/user/token`) or a field name (`token`).
#[derive(Debug, Clone)]
struct FieldRule {
    selector: String,
    replacement: String,
}

impl FieldRule {
    fn selects(&self, leaf: &Leaf<'_>) -> bool {
        if leaf.is_key {
            return false;
        }
        if self.selector.starts_with('/') {
            // The pointer inside the body, wherever the body's layers put it: at the root of
            // a JSON body, after an event's `data`, after ` (json) ` for JSON in a string.
            let p = self.selector.as_str();
            leaf.path == p
                || leaf.path.strip_suffix(p).is_some_and(|before| {
                    before.ends_with(".data") || before.ends_with(' ') || before.ends_with(']')
                })
        } else {
            leaf.name
                .is_some_and(|n| n.eq_ignore_ascii_case(&self.selector))
        }
    }
}

impl Rules {
    /// Compiles the configuration (`None`: the defaults only).
    pub fn new(config: Option<&HttpScrubConfig>) -> Result<Rules, String> {
        let Some(config) = config else {
            return Ok(Rules {
                defaults: true,
                ..Rules::default()
            });
        };
        let named = |key: &str, entries: &[ScrubEntry]| -> Result<Vec<Named>, String> {
            entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let name = e.name().trim();
                    if name.is_empty() || name.contains(['=', '&', ':', '\n']) {
                        return Err(format!(
                            "`http.scrub.{key}[{i}]`: `{}` is not a name",
                            e.name()
                        ));
                    }
                    Ok(Named {
                        name: name.to_owned(),
                        replacement: e
                            .replacement()
                            .map_or_else(|| placeholder(name), str::to_owned),
                    })
                })
                .collect()
        };
        let fields = config
            .fields
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let selector = e.name().trim();
                if selector.is_empty() || selector == "/" {
                    return Err(format!(
                        "`http.scrub.fields[{i}]`: `{}` is neither a JSON pointer nor a field name",
                        e.name()
                    ));
                }
                let last = selector.rsplit('/').next().unwrap_or(selector);
                Ok(FieldRule {
                    selector: selector.to_owned(),
                    replacement: e
                        .replacement()
                        .map_or_else(|| placeholder(&unescape_pointer(last)), str::to_owned),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Rules {
            defaults: config.defaults,
            headers: named("headers", &config.headers)?,
            query: named("query", &config.query)?,
            fields,
        })
    }
}

fn unescape_pointer(step: &str) -> String {
    step.replace("~1", "/").replace("~0", "~")
}

/// The placeholder a value named `name` becomes: `REDACTED_API_KEY` for `api_key` (`verify`
/// knows it for a placeholder, it survives every quoting and URL encoding as it is, and each
/// name's is its own, so a recorder filter can map it back to one value).
pub fn placeholder(name: &str) -> String {
    let mut out = String::from("REDACTED_");
    let mut last_sep = true;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
            last_sep = false;
        } else if !last_sep {
            out.push('_');
            last_sep = true;
        }
    }
    while out.ends_with('_') && out.len() > "REDACTED_".len() {
        out.pop();
    }
    if out.len() == "REDACTED_".len() {
        out.push_str("SECRET");
    }
    out
}

/// One value replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// Where: the readable path of the scalar rewritten.
    pub path: String,
    /// Which rule: `header authorization`, `query api_key`, `field /password`, `rule <id>`,
    /// `default (leak/secret)`.
    pub rule: String,
    /// Byte offset of the scalar in the (decompressed) file.
    pub offset: usize,
    /// Its line and column there, found before the file's text is let go of.
    pub at: Position,
}

/// A change in what the recorder matches requests by: the live request will no longer match
/// the recorded one unless the test filters it the same way.
///
/// Its texts are shared by the interactions they are the same for (one string each made
/// interferences a tenth of a scrub's memory, issue 43).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interference {
    /// The interaction's index.
    pub interaction: usize,
    /// What changed: `query parameter `api_key``.
    pub what: std::sync::Arc<str>,
    /// The recorder setting that makes the requests match again.
    pub setting: std::sync::Arc<str>,
}

/// What [`Scrubber::scrub_windows`] made of a file.
#[derive(Debug)]
pub enum Windowed<'f> {
    /// The file, scrubbed a window at a time.
    Scrubbed(Scrubbed),
    /// The file, given back: it is not read in windows.
    Whole(Cow<'f, [u8]>),
}

/// A cassette scrubbed.
#[derive(Debug, Clone, Default)]
pub struct Scrubbed {
    /// The new (decompressed) contents; `None` when nothing changed (a copy of a huge file
    /// that nothing was scrubbed from took its size again, issue 25).
    pub text: Option<Vec<u8>>,
    /// The SHA-1 of the text scrubbed, when anything was planned: what a rewrite must find
    /// still in the file. The text itself is let go of before the result is read back, so
    /// that a huge file is not held a third time beside its new text and the read-back's.
    pub read: Option<ContentHash>,
    /// Every value replaced, in file order.
    pub replaced: Vec<Replaced>,
    /// Changes replay will notice.
    pub interference: Vec<Interference>,
    /// Where a credential the default set was to replace is still found after the scrub
    /// (readable paths): a value vcr could not reach. The rest was scrubbed.
    pub remaining: Vec<String>,
    /// Playwright's `_file` bodies to write again, beside the cassette.
    pub sidecars: Vec<Sidecar>,
}

/// A body stored in a file of its own (Playwright's `_file` beside the cassette, WireMock's
/// `bodyFileName` under `__files/`), scrubbed.
///
/// It keeps its name: Playwright names it by a hash of what it recorded, but replays whatever
/// the named file holds and never checks the hash, and a new name would make two files change
/// together where one does. Each file is written on its own (temporary file, rename), the
/// sidecars before the HAR, so that a scrub stopped half-way leaves a cassette that replays
/// and holds fewer credentials; the next run finishes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sidecar {
    /// The file ([`Recorder::sidecar`](vcr_cassette::http::Recorder::sidecar) of the name
    /// the cassette gives it).
    pub path: std::path::PathBuf,
    /// The name as the cassette gives it (`_file`, `bodyFileName`).
    pub name: String,
    /// What the reader read from it, for the write to check nothing changed it since.
    pub old: ContentHash,
    /// The new contents.
    pub text: Vec<u8>,
}

/// Why a cassette could not be scrubbed (it is then left as it was).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScrubError {
    /// A value to replace sits where it cannot be rewritten faithfully.
    #[error("{path}: {reason}; the file was left as it was")]
    Cannot {
        /// The readable path.
        path: String,
        /// Why.
        reason: String,
    },
    /// A user rule failed (stopped at its time limit).
    #[error("{0}")]
    Rule(String),
    /// The rewritten file no longer reads as the same cassette (a bug: never written).
    #[error(
        "the scrubbed file would not read back as the same cassette ({0}); the file was left as it was"
    )]
    Unreadable(String),
}

/// How the process gives memory it freed back to the system at once, set by whoever links
/// the library and chooses its allocator ([`on_give_back`]).
static GIVE_BACK: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets what a scrub calls between its phases, when a large file's judgement, plan or
/// edits are freed, to give that memory back to the system before the next phase takes its
/// own. An allocator keeps what was freed for a while (mimalloc, 100 ms in the `vcr`
/// binary), and a scrub of 16,000 secrets in a 4 MB file peaked at 5 to 7 times the file
/// above the process's base, where 4 to 5 was live (issue 43). The first call wins.
pub fn on_give_back(give_back: fn()) {
    let _ = GIVE_BACK.set(give_back);
}

/// Calls what [`on_give_back`] set, if anything.
fn give_back() {
    if let Some(give_back) = GIVE_BACK.get() {
        give_back();
    }
}

/// What a scrub needs besides the cassette.
#[derive(Clone, Copy)]
pub struct Scrubber<'a> {
    /// The cassette's file, whose folder holds the sidecars of a Playwright HAR.
    pub path: &'a std::path::Path,
    /// How the cassette is read (the project's).
    pub read: &'a vcr_cassette::http::ReadOptions,
    /// `[http.scrub]`.
    pub rules: &'a Rules,
    /// The leak scanner `verify` uses.
    pub scanner: &'a Scanner,
    /// The user's `[[rule]]`s, applied to decoded body texts.
    pub user_rules: Option<&'a RuleSet>,
    /// Whether `verify` would report a leak (its allowlist and severities): the default set
    /// replaces exactly what `verify` reports.
    pub reported: &'a (dyn Fn(&HttpLeak) -> bool + Sync),
}

/// How a replacement finds its value in a text.
#[derive(Debug, Clone)]
enum How {
    /// The whole text of a scalar, or in a body, the value wherever it stands whole (a JSON
    /// string, a form value).
    Whole,
    /// Every occurrence inside any text.
    Inside,
    /// The value of a query parameter or form field of this name.
    Param(String),
}

#[derive(Debug, Clone)]
struct Sub {
    old: String,
    /// The placeholder or replacement, and the rule's name: shared by every value one rule
    /// replaces (a string each, they were a tenth of a scrub's memory, issue 43).
    new: Name,
    how: How,
    rule: Name,
}

/// A text many substitutions and edits share.
type Name = std::sync::Arc<str>;

/// Substitutions with one search over every form their old values are written in (as
/// they are, JSON-escaped once and twice, percent-encoded): a text is tried only against the
/// values it holds. Trying every value on every scalar made a scrub quadratic in the number
/// of distinct credentials of a file (5,000 took 75 s, issue 25); an Aho-Corasick automaton
/// over them took six times the file to build (issue 43).
struct SubList {
    subs: Vec<Sub>,
    /// The search, and the substitution each of its patterns belongs to.
    finder: Finder,
    owners: Vec<usize>,
}

impl SubList {
    fn new(subs: Vec<Sub>) -> SubList {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (i, sub) in subs.iter().enumerate() {
            if sub.old.is_empty() {
                continue;
            }
            let once = replace::json_escape(&sub.old);
            let twice = replace::json_escape(&once);
            let pct = vcr_lint::percent_encoded(&sub.old);
            let mut forms = vec![sub.old.clone(), once, twice, pct];
            forms.sort();
            forms.dedup();
            for form in forms {
                patterns.push(form.into_bytes());
                owners.push(i);
            }
        }
        let finder = Finder::new(patterns);
        SubList {
            subs,
            finder,
            owners,
        }
    }

    /// Whether `old` is one of the values replaced (asked once per window of a cassette read
    /// in windows: a set made from `subs` each time took a fifth of a scrub of 100,000 keys;
    /// the search finds it without a set of its own).
    fn replaces(&self, old: &str) -> bool {
        self.finder
            .find_exact(old.as_bytes())
            .any(|pattern| self.subs[self.owners[pattern]].old == old)
    }

    fn is_empty(&self) -> bool {
        self.subs.is_empty()
    }

    /// The substitutions whose old value `text` holds in some form, in list order (longest
    /// first, as built).
    fn relevant(&self, text: &str) -> impl Iterator<Item = &Sub> {
        let mut found: Vec<usize> = Vec::new();
        if !self.finder.is_empty() {
            self.finder.for_each(text.as_bytes(), &mut |pattern, _| {
                found.push(self.owners[pattern]);
            });
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|i| &self.subs[i])
    }
}

impl Scrubber<'_> {
    /// Whether rules of the user's (`[http.scrub]` headers, query, fields; `[[rule]]`s) apply.
    fn explicit(&self) -> bool {
        !self.rules.headers.is_empty()
            || !self.rules.query.is_empty()
            || !self.rules.fields.is_empty()
            || self.user_rules.is_some_and(|r| !r.rules().is_empty())
    }

    /// Scrubs `cassette`, read from `file` (decompressed), whose recorder matches by
    /// `match_on`. The cassette and the file are taken, not borrowed (an owned `file` is
    /// let go of once the new text is made): each body is let go of once its new text is
    /// made, and the rest before the result is read back, so that a huge body is not held
    /// again beside its new text and the read-back's (issue 25).
    ///
    /// `document` is the one `cassette` was read from ([`vcr_cassette::http::read_document`]), if it was
    /// kept: the plan's edits are placed in it instead of in a new parse of `file`.
    pub fn scrub(
        &self,
        mut cassette: HttpCassette,
        document: Option<Node>,
        file: Cow<'_, [u8]>,
        match_on: &[&str],
    ) -> Result<Scrubbed, ScrubError> {
        let Ok(text) = utf8(file) else {
            return Ok(Scrubbed::default());
        };
        let leaks = if self.rules.defaults {
            vcr_lint::http::check(&cassette, text.as_bytes(), self.scanner, match_on)
        } else {
            Vec::new()
        };
        let mut defaults = self.defaults_of(leaks);
        let subs = SubList::new(std::mem::take(&mut defaults.subs));
        let shape = (cassette.format, cassette.interactions.len());
        let plan = Plan::new(self, &mut cassette, document, &text, &subs, match_on)?;
        drop(cassette);
        drop(subs);
        let read_back = |new: &[u8], sidecars: &vcr_cassette::http::Sidecars, lint: bool| {
            vcr_cassette::http::read_with(self.path, new, sidecars, self.read).map(|read| {
                read.map(|read| {
                    let leaks = if lint {
                        vcr_lint::http::check(&read, new, self.scanner, match_on)
                    } else {
                        Vec::new()
                    };
                    (read.format, read.interactions.len(), leaks)
                })
            })
        };
        self.complete(plan, defaults, text, shape, &read_back)
    }

    /// [`Scrubber::scrub`] for a cassette [`vcr_cassette::http::read_windows`] reads a window at a time
    /// (a HAR or a YAML cassette of hundreds of megabytes): judged, planned and read back a
    /// window at a time, so that memory is the file's (an owned `file` let go of once the
    /// new text is made), its new text's and a window's (issue 25). [`Windowed::Whole`],
    /// with `file`, when it is not read so, or does not read (the whole read says why).
    pub fn scrub_windows<'f, 'm>(
        &self,
        file: Cow<'f, [u8]>,
        match_on: &dyn Fn(Format) -> Vec<&'m str>,
    ) -> Result<Windowed<'f>, ScrubError> {
        let read = self.window_options(file.len());
        if !vcr_cassette::http::in_windows(&file, &read) {
            return Ok(Windowed::Whole(file));
        }
        let windowed = Scrubber {
            read: &read,
            ..*self
        };
        windowed.scrub_in_windows(file, match_on)
    }

    /// Whether [`Scrubber::scrub_windows`] scrubs `text` a window at a time.
    pub fn in_windows(&self, text: &[u8]) -> bool {
        vcr_cassette::http::in_windows(text, &self.window_options(text.len()))
    }

    /// How a scrub reads a file of `len` bytes: in windows from 64 KiB, where a read for a
    /// check waits for 4 MiB, each window a 64th of the file between 64 KiB and 16 MiB; and
    /// its result read back so too, though shorter. A scrub holds the file, its
    /// new text, its plan and its leaks beside what it reads: a cassette of 10,000
    /// interactions under 4 MiB, built whole, took 22 to 26 times its size, and so did one
    /// just over it whose scrubbed text fell under; a window's interactions and scalars take
    /// about ten times its text, and windows of 256 KiB were a sixth of the peak of a 3 MB
    /// trace of 16,000 secrets (issue 43). The project's window
    /// (`VCR_TEST_HTTP_WINDOW`) is kept as it is.
    fn window_options(&self, len: usize) -> vcr_cassette::http::ReadOptions {
        const SMALLEST: usize = 64 << 10;
        let mut read = *self.read;
        if read.http_window.is_none() && len > SMALLEST {
            read.http_window = Some((len / 64).clamp(SMALLEST, 16 << 20));
        }
        read
    }

    /// [`Scrubber::scrub_windows`] of a file its options read in windows.
    fn scrub_in_windows<'f, 'm>(
        &self,
        file: Cow<'f, [u8]>,
        match_on: &dyn Fn(Format) -> Vec<&'m str>,
    ) -> Result<Windowed<'f>, ScrubError> {
        let text = match utf8(file) {
            Ok(text) => text,
            Err(file) => return Ok(Windowed::Whole(file)),
        };
        let no_sidecars = vcr_cassette::http::Sidecars::new();
        let Some((format, count, leaks)) =
            self.windowed_leaks(text.as_bytes(), &no_sidecars, match_on, self.rules.defaults)
        else {
            let file = match text {
                Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
                Cow::Owned(text) => Cow::Owned(text.into_bytes()),
            };
            return Ok(Windowed::Whole(file));
        };
        let match_on = match_on(format);
        let mut defaults = self.defaults_of(leaks);
        // The judgement's memory (a record per secret, thousands of them) is freed: given
        // back before the plan is built beside the file.
        give_back();
        let subs = SubList::new(std::mem::take(&mut defaults.subs));
        let mut plan = Plan::empty();
        if !subs.is_empty() || self.explicit() {
            let facts = edit::Facts::of(&text);
            // Values a header or query rule replaced are swept from every window: found
            // first, in a plan of their own, when there are such rules.
            let mut swept = Vec::new();
            if !self.rules.headers.is_empty() || !self.rules.query.is_empty() {
                let first = self.plan_windows(&text, &subs, &match_on, facts, None, format)?;
                swept = first.replaced_all;
            }
            plan = self.plan_windows(&text, &subs, &match_on, facts, Some(&swept), format)?;
        }
        // The values' search is done with: let go of before the new text is made.
        drop(subs);
        give_back();
        let read_back = |new: &[u8], sidecars: &vcr_cassette::http::Sidecars, lint: bool| {
            // The plan and the edits are freed: given back before the new text is read.
            give_back();
            let read = |visit: &mut dyn FnMut(Option<HttpCassette>)| {
                vcr_cassette::http::read_windows(self.path, new, sidecars, self.read, visit)
            };
            let checked = vcr_lint::http::check_windows(
                new,
                self.scanner,
                lint,
                &|_| match_on.clone(),
                &mut |_| {},
                &read,
            )?;
            Ok(checked.map(|c| (c.format, c.interactions, c.leaks)))
        };
        self.complete(plan, defaults, text, (format, count), &read_back)
            .map(Windowed::Scrubbed)
    }

    /// The format, the number of interactions and the leaks (with `lint`, judged by what
    /// `match_on` says its recorder matches by) of `file` read in windows; `None` when it is
    /// not read so, or does not read.
    fn windowed_leaks<'m>(
        &self,
        file: &[u8],
        sidecars: &vcr_cassette::http::Sidecars,
        match_on: &dyn Fn(Format) -> Vec<&'m str>,
        lint: bool,
    ) -> Option<(Format, usize, Vec<HttpLeak>)> {
        let mut count = 0;
        let mut format = None;
        let mut leaks = None;
        let read = vcr_cassette::http::windows_of(
            self.path,
            file,
            sidecars,
            false,
            self.read,
            &mut |window, _| {
                count += window.interactions.len();
                let format = *format.get_or_insert(window.format);
                if lint {
                    let leaks = leaks.get_or_insert_with(|| {
                        vcr_lint::http::Leaks::new(self.scanner, &match_on(format))
                    });
                    leaks.add(&window, file);
                }
            },
        );
        if !matches!(read, Ok(Some(_))) {
            return None;
        }
        let leaks = leaks.map_or_else(Vec::new, |l| {
            l.finish(file, &mut |again| {
                let _ = vcr_cassette::http::windows_of(
                    self.path,
                    file,
                    sidecars,
                    false,
                    self.read,
                    &mut |w, _| {
                        again(Some(&w));
                    },
                );
            })
        });
        Some((format?, count, leaks))
    }

    /// The plan of a cassette read in windows, each window planned over its own entries'
    /// scalars; `swept`: values replaced in any window, swept from every one (`None`: a first
    /// plan, which finds them, in its `replaced_all`).
    fn plan_windows(
        &self,
        text: &str,
        defaults: &SubList,
        match_on: &[&str],
        facts: edit::Facts,
        swept: Option<&[(String, Name, Name)]>,
        format: Format,
    ) -> Result<Plan, ScrubError> {
        let tool = format.recorder().tool(text.as_bytes());
        // An httprr trace: its windows hold no documents, and its records' lengths are
        // written again once every window is planned.
        let raw = format.recorder().is_raw(text);
        let mut plan = Plan::empty();
        plan.keep_replaced = swept.is_none();
        let swept = swept.unwrap_or_default();
        let mut base = 0;
        let mut failed = None;
        let no_sidecars = vcr_cassette::http::Sidecars::new();
        let read = vcr_cassette::http::windows_of(
            self.path,
            text.as_bytes(),
            &no_sidecars,
            true,
            self.read,
            &mut |window, nodes| {
                if failed.is_some() {
                    return;
                }
                let mut window = window;
                // A HAR or a nock cassette read in windows is JSON (`http::in_windows`).
                let json = [
                    vcr_cassette::http::har::FORMAT,
                    vcr_cassette::http::nock::FORMAT,
                ]
                .contains(&format);
                let dialect = dialect(format, json);
                let doc = if raw {
                    Doc::raw(&window, text, facts)
                } else {
                    Doc::of_nodes(nodes, text, dialect, facts, &large_texts(&window))
                };
                let part = Part { base, tool, swept };
                if let Err(e) = plan.add(self, &mut window, &doc, defaults, match_on, &part) {
                    failed = Some(e);
                }
                base += window.interactions.len();
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        if raw {
            let none = HttpCassette {
                format,
                interactions: Vec::new(),
                compressed: false,
                outside: Vec::new(),
            };
            let lengths = Doc::raw(&none, text, facts)
                .lengths(plan.edits.values().map(|planned| &planned.edit));
            plan.doc_lengths = lengths;
        }
        match read {
            Ok(Some(_)) => Ok(plan),
            // It read so a moment ago.
            _ => Err(ScrubError::Unreadable(
                "it no longer reads in windows".into(),
            )),
        }
    }

    /// What is left of a scrub once it is planned: the edits of what lies outside the
    /// interactions, the new text, read back by `read_back` (the format, how many
    /// interactions, and with `lint` the leaks of the new text), which must be the cassette
    /// `shape` says (its format and number of interactions) holding no credential the
    /// defaults were to take. An owned `text` is let go of before the read-back.
    fn complete(
        &self,
        mut plan: Plan,
        defaults: Defaults,
        text: Cow<'_, str>,
        shape: (Format, usize),
        read_back: &ReadBack<'_>,
    ) -> Result<Scrubbed, ScrubError> {
        let file = text.as_bytes();
        let Defaults {
            outside, reported, ..
        } = defaults;
        // A credential outside the interactions is replaced where the scan found it, byte for
        // byte: a placeholder of letters and `_` is valid wherever the value stood (a JSON
        // string a duplicated key hides, a second YAML document).
        for (offset, sub) in outside {
            let end = offset + sub.old.len();
            let overlaps = plan
                .edits
                .range(..end)
                .next_back()
                .is_some_and(|(_, planned)| planned.edit.end > offset);
            if overlaps || file.get(offset..end) != Some(sub.old.as_bytes()) {
                continue;
            }
            plan.edits.insert(
                offset,
                Box::new(Planned {
                    edit: Edit {
                        start: offset,
                        end,
                        text: sub.new.to_string(),
                    },
                    path: vcr_lint::http::OUTSIDE.into(),
                    rules: vec![sub.rule],
                }),
            );
        }
        if plan.edits.is_empty() && plan.sidecars.is_empty() {
            // Nothing could be planned: every credential found is still there (what follows
            // the first YAML document in an escaped form, say). Say so.
            return Ok(Scrubbed {
                remaining: reported,
                ..Scrubbed::default()
            });
        }
        // The read-back says what is left.
        drop(reported);
        // Moved, not copied: an edit holds a whole scalar's new text (a body of hundreds of
        // megabytes), and the edits are gone before the result is read back; each path goes
        // to the report as it is.
        let planned = std::mem::take(&mut plan.edits);
        let mut replaced: Vec<Replaced> = Vec::with_capacity(planned.len());
        let mut edits: Vec<Edit> = Vec::with_capacity(planned.len() + plan.doc_lengths.len());
        for e in planned.into_values() {
            let e = *e;
            replaced.push(Replaced {
                path: e.path.into_string(),
                rule: e.rules.join(", "),
                offset: e.edit.start,
                at: Position { line: 1, column: 1 },
            });
            edits.push(e.edit);
        }
        edits.append(&mut plan.doc_lengths);
        replaced.append(&mut plan.sidecar_replaced);
        replaced.sort_by_key(|r| r.offset);
        // In offset order, located incrementally: counting lines from the start for each
        // value made a scrub of many credentials quadratic (issue 25).
        let mut locator = vcr_lint::Locator::new(file);
        for r in &mut replaced {
            r.at = locator.locate(r.offset);
        }
        let read = ContentHash::of(file);
        // An owned text becomes the new one in its own buffer: the file is not held twice
        // (issue 43).
        let new = match text {
            Cow::Owned(text) => edit::apply_owned(text, &mut edits),
            Cow::Borrowed(text) => edit::apply(text, &mut edits),
        };
        drop(edits);
        let changed = ContentHash::of(new.as_bytes()) != read;
        // The result must read as the same cassette: same format, same interactions (its
        // sidecars read from beside it, the rewritten ones as they will be written).
        let remaining = match read_back(new.as_bytes(), &plan.sidecars, self.rules.defaults) {
            Ok(Some((format, count, leaks))) if (format, count) == shape => {
                // And hold no credential the defaults were to take.
                leaks
                    .into_iter()
                    .filter(|leak| {
                        leak.hit.family == vcr_lint::LeakFamily::Secret && (self.reported)(leak)
                    })
                    .map(|leak| leak.path)
                    .collect()
            }
            Ok(_) => {
                return Err(ScrubError::Unreadable(
                    "it reads as another format or with other interactions".into(),
                ));
            }
            Err(e) => return Err(ScrubError::Unreadable(e.message)),
        };
        let recorder = shape.0.recorder();
        let sidecars = plan
            .sidecars
            .into_iter()
            .map(|(name, text)| Sidecar {
                path: recorder.sidecar(self.path, &name),
                old: plan.sidecars_read[&name],
                name,
                text,
            })
            .collect();
        Ok(Scrubbed {
            text: changed.then(|| new.into_bytes()),
            read: Some(read),
            replaced,
            interference: plan.interference,
            remaining,
            sidecars,
        })
    }

    /// The default set: every secret `verify` reports (of `leaks`, the cassette's), each value
    /// with its placeholder.
    fn defaults_of(&self, leaks: Vec<HttpLeak>) -> Defaults {
        let mut defaults = Defaults::default();
        if !self.rules.defaults {
            return defaults;
        }
        let mut seen = std::collections::HashSet::new();
        // One string per placeholder and per rule, shared by the values they replace.
        let mut names: std::collections::HashMap<String, Name> = std::collections::HashMap::new();
        let mut name_of = |text: String| -> Name {
            names
                .entry(text)
                .or_insert_with_key(|text| Name::from(text.as_str()))
                .clone()
        };
        for leak in leaks {
            if leak.hit.family != vcr_lint::LeakFamily::Secret || !(self.reported)(&leak) {
                continue;
            }
            defaults.reported.push(leak.path.clone());
            let rule = name_of(format!("default ({})", leak.hit.detector));
            if leak.path == vcr_lint::http::OUTSIDE
                && let Some(offset) = leak.offset
            {
                let sub = Sub {
                    old: leak.hit.text.clone(),
                    new: name_of(placeholder(leak.hit.detector)),
                    how: How::Whole,
                    rule: rule.clone(),
                };
                defaults.outside.push((offset, sub));
            }
            if !seen.insert(leak.hit.text.clone()) {
                continue;
            }
            let name = if leak.hit.detector.starts_with("credential-") {
                name_in_path(&leak.path)
            } else {
                leak.hit.detector.to_owned()
            };
            let old = token_of(&leak.hit.text);
            defaults.subs.push(Sub {
                old: old.to_owned(),
                new: name_of(placeholder(&name)),
                // A short value (a password) could be part of other text by chance: it is
                // replaced only where it stands whole.
                how: if old.len() >= MIN_INSIDE {
                    How::Inside
                } else {
                    How::Whole
                },
                rule,
            });
        }
        // The longest first: a token that holds another is replaced whole.
        defaults
            .subs
            .sort_by_key(|s| std::cmp::Reverse(s.old.len()));
        defaults
    }
}

/// The part of a detector's match that is the credential: a match that starts with a host
/// and the fixed words of a path (a Slack webhook's `hooks.slack.com/services/T../B../..`)
/// is the rest, so that the scrub keeps the host and the path's words and replay still
/// reaches the same service (the whole URL was replaced host and all, issue 43).
fn token_of(text: &str) -> &str {
    let Some((host, mut rest)) = text.split_once('/') else {
        return text;
    };
    let is_host = host.contains('.')
        && !host.starts_with('.')
        && host
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    if !is_host {
        return text;
    }
    // The path's words: segments of lowercase letters only (`services`, `api`, `webhooks`).
    while let Some((word, after)) = rest.split_once('/')
        && !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_lowercase())
    {
        rest = after;
    }
    if rest.len() < MIN_INSIDE { text } else { rest }
}

/// What the default set replaces in one cassette.
#[derive(Default)]
struct Defaults {
    /// Every value to replace wherever it stands, the longest first.
    subs: Vec<Sub>,
    /// The values found outside the interactions, each with its offset in the file.
    outside: Vec<(usize, Sub)>,
    /// The readable path of every credential found (what is left if nothing can be written).
    reported: Vec<String>,
}

/// How long a value must be to be replaced inside other text, not only where it stands
/// whole.
const MIN_INSIDE: usize = 8;

/// The name a credential was judged by, from its readable path: `?api_key`, `/password`,
/// `cookie session`, `headers.Authorization[0]`, `headers[2].value (authorization)`.
fn name_in_path(path: &str) -> String {
    // A matcher's operator names no value: the header or parameter before it does
    // (WireMock's `headers.Authorization.equalTo`, WireMock.Net's `Matchers[0].Pattern`).
    let mut path = path;
    while let Some((before, last)) = path.rsplit_once('.')
        && (MATCHER_WORDS.contains(&last.split('[').next().unwrap_or(last))
            || (last == "value" && names_a_list(before)))
    {
        path = before;
    }
    let trimmed = path.trim_end_matches(|c: char| c == ']' || c == ')' || c.is_ascii_digit());
    let trimmed = trimmed.trim_end_matches('[').trim_end_matches('(');
    let start = trimmed
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let name = &trimmed[start..];
    if name.is_empty() || name == "value" {
        "secret".into()
    } else {
        name.to_owned()
    }
}

/// The keys of request matchers that hold the value matched, not its name (WireMock's,
/// WireMock.Net's, Hoverfly's, MockServer's).
const MATCHER_WORDS: &[&str] = &[
    "equalTo",
    "equalToIgnoreCase",
    "contains",
    "matches",
    "doesNotMatch",
    "doesNotContain",
    "equalToJson",
    "equalToXml",
    "binaryEqualTo",
    "Matchers",
    "Pattern",
    "Patterns",
    "exactMatch",
    "globMatch",
    "regexMatch",
];

/// Whether `path` ends at an item of a list its last key names (`headers.Authorization[0]`,
/// Hoverfly's matchers of one header), not of a list of name-value pairs
/// (`headers[2]`, `params[1]`), whose `value` names nothing.
fn names_a_list(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    let Some((name, _)) = last.split_once('[') else {
        return false;
    };
    !name.is_empty()
        && ![
            "headers",
            "params",
            "queryString",
            "cookies",
            "header",
            "query",
        ]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(name))
}

/// One scalar to rewrite.
struct Planned {
    edit: Edit,
    path: Box<str>,
    rules: Vec<Name>,
}

/// Every edit of a cassette, by the scalar's offset.
struct Plan {
    /// Boxed: a B-tree's nodes, half full when filled in order, held room for twice the
    /// edits, a sixth of a scrub's peak where each secret is an edit (issue 43).
    edits: BTreeMap<usize, Box<Planned>>,
    interference: Vec<Interference>,
    /// Values the header and query rules replaced (old, new, rule), swept from the rest of
    /// the file at the end.
    replaced_values: Vec<(String, Name, Name)>,
    /// Every value swept so, for the other windows of a cassette read in windows, when
    /// `keep_replaced` asks for them (a first plan, with header or query rules).
    replaced_all: Vec<(String, Name, Name)>,
    keep_replaced: bool,
    /// An httprr trace's new record lengths.
    doc_lengths: Vec<Edit>,
    /// Sidecar bodies rewritten: the new contents by the name the HAR gives each (what the
    /// read-back takes instead of the files).
    sidecars: vcr_cassette::http::Sidecars,
    /// What each rewritten sidecar held when it was read, by the same name.
    sidecars_read: BTreeMap<String, ContentHash>,
    /// What the sidecars' rewrites replaced, for the report.
    sidecar_replaced: Vec<Replaced>,
    /// The texts interferences share.
    names: std::collections::HashMap<String, Name>,
}

impl Plan {
    /// Nothing planned yet.
    fn empty() -> Plan {
        Plan {
            edits: BTreeMap::new(),
            interference: Vec::new(),
            replaced_values: Vec::new(),
            replaced_all: Vec::new(),
            keep_replaced: false,
            doc_lengths: Vec::new(),
            sidecars: vcr_cassette::http::Sidecars::new(),
            sidecars_read: BTreeMap::new(),
            sidecar_replaced: Vec::new(),
            names: std::collections::HashMap::new(),
        }
    }

    /// `text`, shared with every other use of it in the plan.
    fn name(&mut self, text: String) -> Name {
        self.names
            .entry(text)
            .or_insert_with_key(|text| Name::from(text.as_str()))
            .clone()
    }

    /// The plan of a whole cassette read from `text` (and from `document`, when kept).
    fn new(
        scrubber: &Scrubber<'_>,
        cassette: &mut HttpCassette,
        document: Option<Node>,
        text: &str,
        defaults: &SubList,
        match_on: &[&str],
    ) -> Result<Plan, ScrubError> {
        let mut plan = Plan::empty();
        if defaults.is_empty() && !scrubber.explicit() {
            return Ok(plan);
        }
        let doc = Doc::new(cassette, document, text)?;
        let part = Part {
            base: 0,
            tool: cassette.format.recorder().tool(text.as_bytes()),
            swept: &[],
        };
        plan.add(scrubber, cassette, &doc, defaults, match_on, &part)?;
        let lengths = doc.lengths(plan.edits.values().map(|planned| &planned.edit));
        plan.doc_lengths = lengths;
        Ok(plan)
    }

    /// Plans the edits of `cassette`, a whole cassette or a window of one, whose scalars
    /// `doc` holds (the sweep reaches those only).
    fn add(
        &mut self,
        scrubber: &Scrubber<'_>,
        cassette: &mut HttpCassette,
        doc: &Doc<'_>,
        defaults: &SubList,
        match_on: &[&str],
        part: &Part<'_>,
    ) -> Result<(), ScrubError> {
        let plan = self;
        let ctx = Ctx {
            scrubber,
            doc,
            defaults,
            format: cassette.format,
            tool: part.tool,
        };
        let matched = Matched::from(match_on);
        for (i, interaction) in cassette.interactions.iter_mut().enumerate() {
            let i = part.base + i;
            let request = &mut interaction.request;
            // The URL: query rules, then the defaults.
            let mut subs: Vec<Sub> = scrubber
                .rules
                .query
                .iter()
                .map(|q| Sub {
                    old: String::new(),
                    new: q.replacement.as_str().into(),
                    how: How::Param(q.name.clone()),
                    rule: format!("query {}", q.name).into(),
                })
                .collect();
            subs.extend(defaults.relevant(&request.url.text).cloned());
            if let Some(changed) = ctx.field(plan, &request.url, &subs, true)? {
                for (name, old, new) in changed_values(&request.url.text, &changed) {
                    // A value the defaults replace is swept by them already.
                    if !defaults.replaces(&old) {
                        let rule = format!("query {name}");
                        plan.replaced_values.push((old, new.into(), rule.into()));
                    }
                }
            }
            if let Some(changed) = ctx.field_preview(&request.url, &subs) {
                if matched.query {
                    for (name, placeholder) in changed_params(&request.url.text, &changed) {
                        let interference = Interference {
                            interaction: i,
                            what: plan.name(format!("query parameter `{name}`")),
                            setting: plan.name(ctx.setting_query(&name, &placeholder)),
                        };
                        plan.interference.push(interference);
                    }
                }
                // A secret in the host or a path segment: the recorder compares them too
                // (vcrpy's default `match_on` has `host` and `path`), and no filter of its
                // own rewrites them (issue 43: replay broke with no note).
                let before_query =
                    |url: &str| url.split(['?', '#']).next().unwrap_or_default().to_owned();
                if matched.host_or_path && before_query(&request.url.text) != before_query(&changed)
                {
                    let interference = Interference {
                        interaction: i,
                        what: plan.name("request URL (host or path)".into()),
                        setting: plan.name(
                            "a matcher that ignores the URL's host and path for this request, \
                             or the test requesting the URL as scrubbed"
                                .into(),
                        ),
                    };
                    plan.interference.push(interference);
                }
            }
            for name in ctx.headers(plan, &request.headers)? {
                if matched.headers {
                    let interference = Interference {
                        interaction: i,
                        what: plan.name(format!("request header `{name}`")),
                        setting: plan.name(ctx.setting_header(&name)),
                    };
                    plan.interference.push(interference);
                }
            }
            if let Some(body) = &mut request.body
                && ctx.body(plan, body, &request.headers)?
                && matched.body
            {
                let interference = Interference {
                    interaction: i,
                    what: plan.name("request body".into()),
                    setting: plan.name(ctx.setting_body()),
                };
                plan.interference.push(interference);
            }
            if let Some(response) = &mut interaction.response {
                ctx.headers(plan, &response.headers)?;
                if let Some(body) = &mut response.body {
                    ctx.body(plan, body, &response.headers)?;
                }
            }
        }
        // Last, every other scalar of the file: what the model does not hold (HAR's
        // `queryString` and `cookies`, cody's `textDecoded`, a recorder's own copies) may
        // repeat a value replaced above.
        // The defaults' automaton serves again; the values replaced above get their own.
        let mut sweep: Vec<Sub> = Vec::new();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        let replaced = std::mem::take(&mut plan.replaced_values);
        if plan.keep_replaced {
            plan.replaced_all.extend(replaced.iter().cloned());
        }
        for (old, new, rule) in replaced.into_iter().chain(part.swept.iter().cloned()) {
            if !defaults.replaces(&old) && seen.insert(old.clone()) {
                let how = if old.len() >= MIN_INSIDE {
                    How::Inside
                } else {
                    How::Whole
                };
                sweep.push(Sub {
                    old,
                    new,
                    how,
                    rule,
                });
            }
        }
        let sweep = SubList::new(sweep);
        if !defaults.is_empty() || !sweep.is_empty() {
            // Bodies were decoded and scrubbed above; their stored text (base64, hex) is not
            // searched again, where a short value could match by chance.
            let bodies: std::collections::HashSet<u32> = cassette
                .interactions
                .iter()
                .flat_map(Interaction::bodies)
                .filter_map(|body| match body {
                    Body::Bytes { field, .. } => field.at,
                    Body::Data { .. } => None,
                })
                .collect();
            for node in doc.scalars.values() {
                if plan.edits.contains_key(&(node.start as usize))
                    || node.is_binary()
                    || bodies.contains(&node.start)
                {
                    continue;
                }
                let Some(scalar) = node.as_scalar() else {
                    continue;
                };
                let subs: Vec<Sub> = defaults
                    .relevant(&scalar.text)
                    .chain(sweep.relevant(&scalar.text))
                    .cloned()
                    .collect();
                if subs.is_empty() {
                    continue;
                }
                let mut rules = Vec::new();
                let new = substitute_body(&scalar.text, &subs, &mut rules);
                if new != scalar.text {
                    let path = format!("the scalar at byte {}", node.start);
                    ctx.plan_node(plan, node, &path, &new, rules);
                }
            }
        }
        Ok(())
    }
}

/// How [`Scrubber::complete`] reads a scrubbed text back: its format, how many interactions,
/// and, when asked, its leaks; `None` when it is no cassette.
type ReadBack<'a> = dyn Fn(
        &[u8],
        &vcr_cassette::http::Sidecars,
        bool,
    ) -> Result<Option<(Format, usize, Vec<HttpLeak>)>, vcr_cassette::http::ReadError>
    + 'a;

/// The scalars of `cassette`'s bodies stored as their own text (no cassette encoding, no
/// `!!binary`) of [`vcr_cassette::http::LARGE_BODY`] or more: a plan reads such a body from the cassette and takes
/// only the scalar's place and style from the document, which need not hold its text a
/// second time (a 500 MB body was held four times, issue 25).
fn large_texts(cassette: &HttpCassette) -> std::collections::HashSet<u32> {
    cassette
        .interactions
        .iter()
        .flat_map(Interaction::bodies)
        .filter_map(|body| match body {
            Body::Bytes {
                field,
                bytes,
                stored,
            } if stored.is_empty()
                && field.text.is_empty()
                && bytes.len() >= vcr_cassette::http::LARGE_BODY =>
            {
                field.at
            }
            _ => None,
        })
        .collect()
}

/// What a window's plan is told of the others: where it stands, and what they replaced.
struct Part<'a> {
    /// Its first interaction's index in the whole cassette.
    base: usize,
    /// The tool that wrote the cassette ([`Recorder::tool`](vcr_cassette::http::Recorder::tool)).
    tool: Option<&'static str>,
    /// Values the header and query rules replaced in any window (old, new, rule), swept
    /// from this one's scalars too.
    swept: &'a [(String, Name, Name)],
}

/// A Polly HAR: entries are found by the `_id` of the live request.
/// `file` as text, borrowed or owned as it was (no copy, one check); itself when it is not
/// UTF-8.
fn utf8(file: Cow<'_, [u8]>) -> Result<Cow<'_, str>, Cow<'_, [u8]>> {
    match file {
        Cow::Borrowed(bytes) => std::str::from_utf8(bytes)
            .map(Cow::Borrowed)
            .map_err(|_| Cow::Borrowed(bytes)),
        Cow::Owned(bytes) => String::from_utf8(bytes)
            .map(Cow::Owned)
            .map_err(|e| Cow::Owned(e.into_bytes())),
    }
}

/// The writer of a cassette of `format` written as JSON (`json`) or YAML: what its edits
/// must be written as.
fn dialect(format: Format, json: bool) -> Dialect {
    if json {
        Dialect::Json
    } else {
        format.recorder().dialect()
    }
}

/// The query parameters whose values differ between two URLs: name, old value, new value.
fn changed_values(old: &str, new: &str) -> Vec<(String, String, String)> {
    let pairs = |url: &str| match url.split_once('?') {
        Some((_, q)) => body::parse_form(q.split('#').next().unwrap_or_default()),
        None => Vec::new(),
    };
    pairs(old)
        .into_iter()
        .zip(pairs(new))
        .filter(|(a, b)| a != b && !a.1.is_empty())
        .map(|((name, old), (_, new))| (name, old, new))
        .collect()
}

/// The query parameters whose values differ between two URLs, with their new values.
fn changed_params(old: &str, new: &str) -> Vec<(String, String)> {
    let pairs = |url: &str| match url.split_once('?') {
        Some((_, q)) => body::parse_form(q.split('#').next().unwrap_or_default()),
        None => Vec::new(),
    };
    let (old, new) = (pairs(old), pairs(new));
    old.iter()
        .zip(&new)
        .filter(|(a, b)| a != b)
        .map(|(_, (name, value))| (name.clone(), value.clone()))
        .collect()
}

/// Whether `root`, the whole document or an item of the top-level sequence a window of a
/// cassette read in windows holds, sits in a flow collection: the text before it, past blanks
/// and line breaks, opens one or separates its items (`[` or `,`). The whole document starts
/// the text, and sits in none.
fn root_in_flow(text: &str, root: &Node) -> bool {
    let before = text
        .get(..root.start as usize)
        .unwrap_or_default()
        .trim_end_matches([' ', '\t', '\r', '\n']);
    before.ends_with(['[', ','])
}

/// The document's scalars by offset, and how to write one.
struct Doc<'t> {
    text: &'t str,
    dialect: Dialect,
    /// An httprr trace: no quoting, record lengths to write again.
    raw: bool,
    /// How the file's writer wrote it, found once for all its edits.
    facts: edit::Facts,
    scalars: BTreeMap<u32, Node>,
    /// The scalars (by offset) that sit in a flow collection (`[...]`, `{...}`).
    in_flow: std::collections::HashSet<u32>,
    /// A body's own length field, by the body scalar's offset: go-vcr writes the request's
    /// and the response's `content_length` beside their `body`, and, like `Content-Length`,
    /// it must say the new length when the body changes (issue 25).
    lengths: BTreeMap<u32, (Node, &'static str)>,
}

impl<'t> Doc<'t> {
    /// The scalars of `cassette`'s document: `document` when the reader kept it, else `text`
    /// parsed again.
    fn new(
        cassette: &HttpCassette,
        document: Option<Node>,
        text: &'t str,
    ) -> Result<Doc<'t>, ScrubError> {
        let format = cassette.format;
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        let json = format == vcr_cassette::http::talkback::FORMAT
            || trimmed.starts_with('{')
            || trimmed.starts_with('[');
        let cannot = |reason: String| ScrubError::Cannot {
            path: "the cassette".into(),
            reason,
        };
        if format.recorder().is_raw(text) {
            return Ok(Doc::raw(cassette, text, edit::Facts::of(text)));
        }
        let (root, dialect) = if json {
            let root = match document {
                Some(root) => root,
                None => vcr_doc::from_json(text.as_bytes())
                    .or_else(|_| vcr_doc::json5::parse(text))
                    .map_err(|e| cannot(e.message))?,
            };
            (root, dialect(format, true))
        } else {
            let root = match document {
                Some(root) => root,
                None => vcr_doc::yaml::parse(text).map_err(|e| cannot(e.message))?,
            };
            (root, dialect(format, false))
        };
        Ok(Doc::of_nodes(
            vec![root],
            text,
            dialect,
            edit::Facts::of(text),
            &large_texts(cassette),
        ))
    }

    /// The scalars of `roots` (the whole document, or the entries of a window of a HAR read
    /// in windows) in `text`, written as `facts` say.
    /// The texts of the scalars at `large` are not kept (see [`large_texts`]).
    fn of_nodes(
        roots: Vec<Node>,
        text: &'t str,
        dialect: Dialect,
        facts: edit::Facts,
        large: &std::collections::HashSet<u32>,
    ) -> Doc<'t> {
        let mut scalars = BTreeMap::new();
        let mut lengths = BTreeMap::new();
        let mut in_flow = std::collections::HashSet::new();
        // Each node with whether its parent is a flow collection, found as the tree is
        // walked: the edit of a plain scalar needs it, and parsing the document again for
        // each edit made a scrub quadratic (issue 43).
        let opens_flow =
            |node: &Node| matches!(text.as_bytes().get(node.start as usize), Some(b'[' | b'{'));
        let mut stack: Vec<(Node, bool)> = roots
            .into_iter()
            .map(|root| {
                let flow = dialect != Dialect::Json && root_in_flow(text, &root);
                (root, flow)
            })
            .collect();
        while let Some((node, flow)) = stack.pop() {
            let children_flow = opens_flow(&node);
            match node.value {
                NodeValue::Scalar(mut scalar) => {
                    if node.start != u32::MAX && node.end != u32::MAX {
                        if large.contains(&node.start) {
                            scalar.text = String::new();
                        }
                        if flow {
                            in_flow.insert(node.start);
                        }
                        let value = NodeValue::Scalar(scalar);
                        scalars.insert(node.start, Node { value, ..node });
                    }
                }
                NodeValue::Seq(items) => {
                    stack.extend(items.into_iter().map(|item| (item, children_flow)));
                }
                NodeValue::Map(entries) => {
                    let value_of = |key: &str| {
                        entries.iter().find_map(|(k, v)| {
                            (k.as_scalar().is_some_and(|k| k.text == key)
                                && v.as_scalar().is_some())
                            .then_some(v)
                        })
                    };
                    // go-vcr's `content_length` beside its `body`; a HAR's `size` beside the
                    // `_file` of a Playwright sidecar (a body written in the HAR has its
                    // `size` in characters, which a scrub keeps for a placeholder in ASCII).
                    for (body_key, length_key) in [("body", "content_length"), ("_file", "size")] {
                        if let (Some(body), Some(length)) =
                            (value_of(body_key), value_of(length_key))
                        {
                            lengths.insert(body.start, (length.clone(), length_key));
                        }
                    }
                    for (_, v) in entries {
                        stack.push((v, children_flow));
                    }
                }
            }
        }
        Doc {
            text,
            dialect,
            raw: false,
            facts,
            scalars,
            in_flow,
            lengths,
        }
    }

    /// An httprr trace (or a window of one, `cassette`): its fields are raw bytes of the
    /// trace, rewritten as they are.
    fn raw(cassette: &HttpCassette, text: &'t str, facts: edit::Facts) -> Doc<'t> {
        let mut scalars = BTreeMap::new();
        let mut add = |field: &Field| {
            if let Some(at) = field.at
                && text[at as usize..].starts_with(field.text.as_str())
            {
                let node = Node {
                    start: at,
                    end: at + field.text.len() as u32,
                    value: NodeValue::Scalar(vcr_doc::Scalar {
                        text: field.text.clone(),
                        style: vcr_doc::Style::Plain,
                        tag: None,
                    }),
                };
                scalars.insert(at, node);
            }
        };
        for interaction in &cassette.interactions {
            add(&interaction.request.url);
            for header in interaction.headers() {
                add(&header.value);
            }
            for body in interaction.bodies() {
                if let Body::Bytes { field, .. } = body {
                    add(field);
                }
            }
        }
        Doc {
            text,
            dialect: Dialect::Json,
            raw: true,
            facts,
            scalars,
            in_flow: std::collections::HashSet::new(),
            lengths: BTreeMap::new(),
        }
    }

    /// The edit that writes `value` in place of `node`.
    fn edit(&self, node: &Node, value: &str) -> Edit {
        if self.raw {
            return Edit {
                start: node.start as usize,
                end: node.end as usize,
                text: value.to_owned(),
            };
        }
        let site = edit::Site {
            in_flow: self.in_flow.contains(&node.start),
        };
        edit::scalar_in(self.text, &self.facts, node, site, value, self.dialect)
    }

    /// Edits of the bytes of each value `subs` replace inside the body `value`, which the
    /// scalar `node` holds as it is (no coding, not base64), where the file writes them as
    /// they are; with the rules applied and the body's new length. `None` unless that gives
    /// exactly [`substitute_body`]'s text: every substitution replaces inside (`How::Inside`)
    /// a value of letters, digits, `-`, `_` and `.` (which every form a body may write it in,
    /// JSON-escaped or percent-encoded, leaves as it is) by such a value, the file's scalar
    /// writes each value as many times as the body holds it (a line fold or an escape
    /// inside one would hide it), never right after a backslash, and no two overlap.
    fn verbatim_edits<S: std::borrow::Borrow<Sub>>(
        &self,
        node: &Node,
        value: &str,
        subs: &[S],
    ) -> Option<(Vec<Edit>, Vec<Name>, usize)> {
        let plain = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        };
        if self.raw || subs.is_empty() {
            return None;
        }
        let (start, end) = (node.start as usize, node.end as usize);
        let source = self.text.get(start..end)?;
        // What the body's substitution replaces (one pass, issue 43), and where the same
        // values stand in the scalar as the file writes it.
        let in_value = replace::find(value, subs, replace::Site::Body);
        if in_value.taken.is_empty() || in_value.overlapped > 0 {
            return None;
        }
        let mut used = vec![0usize; subs.len()];
        for taken in &in_value.taken {
            let sub = subs[taken.sub].borrow();
            if !matches!(sub.how, How::Inside) || !plain(&sub.old) || !plain(&sub.new) {
                return None;
            }
            used[taken.sub] += 1;
        }
        let kept: Vec<usize> = (0..subs.len()).filter(|&i| used[i] > 0).collect();
        // Borrowed, not copied: the body can hold thousands of values.
        let wanted: Vec<&Sub> = kept.iter().map(|&i| subs[i].borrow()).collect();
        let in_source = replace::find(source, &wanted, replace::Site::Body);
        let mut written = vec![0usize; wanted.len()];
        for taken in &in_source.taken {
            written[taken.sub] += 1;
        }
        if in_source.overlapped > 0
            || kept.iter().zip(&written).any(|(&i, &n)| used[i] != n)
            || in_source
                .taken
                .iter()
                .any(|t| t.start > 0 && source.as_bytes()[t.start - 1] == b'\\')
        {
            return None;
        }
        let rules: Vec<Name> = wanted.iter().fold(Vec::new(), |mut rules, sub| {
            if !rules.contains(&sub.rule) {
                rules.push(sub.rule.clone());
            }
            rules
        });
        let removed: usize = in_value.taken.iter().map(|t| t.end - t.start).sum();
        let added: usize = in_value.taken.iter().map(|t| t.new.len()).sum();
        let new_len = (value.len() + added).checked_sub(removed)?;
        let edits = in_source
            .taken
            .into_iter()
            .map(|t| Edit {
                start: start + t.start,
                end: start + t.end,
                text: t.new.into_owned(),
            })
            .collect();
        Some((edits, rules, new_len))
    }

    /// For an httprr trace, the `N M` lines that give the records' new lengths, from the
    /// planned edits (borrowed: a copy of them all, new texts and all, was the peak of a
    /// scrub of many records, issue 43).
    fn lengths<'e>(&self, edits: impl Iterator<Item = &'e Edit>) -> Vec<Edit> {
        if !self.raw {
            return Vec::new();
        }
        let mut out = Vec::new();
        // By start: each record sums only the edits inside it (summing them all for each
        // record made a scrub of many records quadratic, issue 43).
        let mut sorted: Vec<&Edit> = edits.collect();
        sorted.sort_by_key(|e| e.start);
        for (line, digits_end, n, m) in vcr_cassette::http::httprr::lengths(self.text) {
            let body = self.text[line..]
                .find('\n')
                .map_or(self.text.len(), |i| line + i + 1);
            let delta = |from: usize, to: usize| -> isize {
                let first = sorted.partition_point(|e| e.start < from);
                sorted[first..]
                    .iter()
                    .take_while(|e| e.start < to)
                    .filter(|e| e.end <= to)
                    .map(|e| e.text.len() as isize - (e.end - e.start) as isize)
                    .sum()
            };
            let (dn, dm) = (delta(body, body + n), delta(body + n, body + n + m));
            if dn != 0 || dm != 0 {
                out.push(Edit {
                    start: line,
                    end: digits_end,
                    text: format!(
                        "{} {}",
                        n.saturating_add_signed(dn),
                        m.saturating_add_signed(dm)
                    ),
                });
            }
        }
        out
    }
}

struct Ctx<'a> {
    scrubber: &'a Scrubber<'a>,
    doc: &'a Doc<'a>,
    defaults: &'a SubList,
    format: Format,
    /// The tool that wrote the cassette ([`Recorder::tool`](vcr_cassette::http::Recorder::tool)): a Polly HAR's entries are
    /// found by the `_id` of the live request.
    tool: Option<&'static str>,
}

impl Ctx<'_> {
    /// Rewrites a field with `subs`; the new text when it changed.
    fn field(
        &self,
        plan: &mut Plan,
        field: &Field,
        subs: &[Sub],
        url: bool,
    ) -> Result<Option<String>, ScrubError> {
        let mut rules = Vec::new();
        let new = substitute(&field.text, subs, url, &mut rules);
        if new == field.text {
            return Ok(None);
        }
        match self.set(plan, field, &new, rules) {
            Ok(()) => {}
            // A URL the file holds in parts (httpmock's `path` and `query_param` list): the
            // values replaced in it are swept from the scalars that hold them, with every
            // other scalar (the caller hands them on), and the scrub's result is read back.
            Err(ScrubError::Cannot { .. }) if url && !self.whole(field) => {}
            Err(e) => return Err(e),
        }
        Ok(Some(new))
    }

    /// Whether one scalar of the file holds `field` whole, or ends with what follows its
    /// parts (nock's `scope` + `path`): what [`Ctx::set`] can rewrite.
    fn whole(&self, field: &Field) -> bool {
        field
            .at
            .and_then(|at| self.doc.scalars.get(&at))
            .and_then(Node::as_scalar)
            .is_some_and(|scalar| field.text.ends_with(scalar.text.as_str()))
    }

    /// What `field` becomes with `subs`, when it changes.
    fn field_preview(&self, field: &Field, subs: &[Sub]) -> Option<String> {
        let new = substitute(&field.text, subs, true, &mut Vec::new());
        (new != field.text).then_some(new)
    }

    /// Plans the edit that makes `field` read `new`.
    fn set(
        &self,
        plan: &mut Plan,
        field: &Field,
        new: &str,
        rules: Vec<Name>,
    ) -> Result<(), ScrubError> {
        let cannot = |reason: &str| ScrubError::Cannot {
            path: field.path.clone(),
            reason: reason.into(),
        };
        let node = field
            .at
            .and_then(|at| self.doc.scalars.get(&at))
            .ok_or_else(|| cannot("the value has no scalar of its own in the file"))?;
        let scalar = node.as_scalar().expect("scalars only");
        let value = if node.is_binary() {
            wrap_like(
                &base64::engine::general_purpose::STANDARD.encode(new.as_bytes()),
                &scalar.text,
            )
        } else if scalar.text == field.text {
            new.to_owned()
        } else if let Some(pos) = place_in(&field.text, &scalar.text) {
            // A value a reader put together around the scalar: nock's URL is `scope` +
            // `path`, Hoverfly's `scheme://destination` + `path` + `?query`, WireMock's a
            // `url` and its `queryParameters` matchers.
            let (before, after) = (&field.text[..pos], &field.text[pos + scalar.text.len()..]);
            match new.strip_prefix(before).and_then(|r| r.strip_suffix(after)) {
                // Only the scalar's part changed.
                Some(rest) => rest.to_owned(),
                // The change lies after the scalar, in scalars of their own, which the
                // sweep of every scalar of the file replaces; this one stays.
                None if new.starts_with(&field.text[..pos + scalar.text.len()]) => {
                    return Ok(());
                }
                None => return Err(cannot("the value is not written whole in one scalar")),
            }
        } else {
            return Err(cannot("the value is not written whole in one scalar"));
        };
        self.plan_node(plan, node, &field.path, &value, rules);
        Ok(())
    }

    fn plan_node(
        &self,
        plan: &mut Plan,
        node: &Node,
        path: &str,
        value: &str,
        mut rules: Vec<Name>,
    ) {
        let mut edit = self.doc.edit(node, value);
        match plan.edits.get_mut(&edit.start) {
            Some(planned) => {
                planned.edit = edit;
                planned.rules.extend(rules);
                planned.rules.dedup();
            }
            None => {
                // Held until the new text is made, one per value replaced: no room to spare
                // (a list of one rule kept room for four, a new text for more than it took,
                // a sixth of the memory of a scrub of thousands of values, issue 43).
                rules.shrink_to_fit();
                edit.text.shrink_to_fit();
                plan.edits.insert(
                    edit.start,
                    Box::new(Planned {
                        edit,
                        path: path.into(),
                        rules,
                    }),
                );
            }
        }
    }

    /// Header rules and defaults over a message's headers (a `Content-Length` is the
    /// body's business); the names of the headers changed.
    fn headers(&self, plan: &mut Plan, headers: &[Header]) -> Result<Vec<String>, ScrubError> {
        let mut changed = Vec::new();
        for header in headers {
            let mut subs: Vec<Sub> = Vec::new();
            if let Some(rule) = self
                .scrubber
                .rules
                .headers
                .iter()
                .find(|r| r.name.eq_ignore_ascii_case(&header.name))
            {
                subs.push(Sub {
                    old: header.value.text.clone(),
                    new: rule.replacement.as_str().into(),
                    how: How::Whole,
                    rule: format!("header {}", rule.name).into(),
                });
            }
            subs.extend(self.defaults.relevant(&header.value.text).cloned());
            if self.field(plan, &header.value, &subs, false)?.is_some() {
                changed.push(header.name.clone());
            }
        }
        Ok(changed)
    }

    /// Field rules, user rules and defaults over a body; whether it changed.
    /// Plans a body's new text; a body stored as bytes is let go of once its new text is made.
    fn body(
        &self,
        plan: &mut Plan,
        body: &mut Body,
        headers: &[Header],
    ) -> Result<bool, ScrubError> {
        match body {
            Body::Data { path, node } => self.data_body(plan, path, node),
            Body::Bytes {
                field,
                bytes,
                stored,
            } => self.bytes_body(plan, field, bytes, stored, headers),
        }
    }

    /// The replacements a body's leaves call for: field rules and user rules (whole
    /// values), then the defaults.
    fn leaf_subs(&self, leaf: &Leaf<'_>, subs: &mut Vec<Sub>, error: &mut Option<ScrubError>) {
        if leaf.is_key {
            return;
        }
        for rule in &self.scrubber.rules.fields {
            if rule.selects(leaf) && leaf.text != rule.replacement {
                subs.push(Sub {
                    old: leaf.text.to_owned(),
                    new: rule.replacement.as_str().into(),
                    how: How::Whole,
                    rule: format!("field {}", rule.selector).into(),
                });
                return;
            }
        }
        if let Some(rules) = self.scrubber.user_rules {
            for rule in rules.rules() {
                if !rule.applies_to(Scope::Payload) {
                    continue;
                }
                match rule.rewrite(leaf.text) {
                    Ok(Some(new)) if new != leaf.text => {
                        subs.push(Sub {
                            old: leaf.text.to_owned(),
                            new: new.into(),
                            how: How::Whole,
                            rule: format!("rule {}", rule.id()).into(),
                        });
                        return;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        *error = Some(ScrubError::Rule(e.to_string()));
                        return;
                    }
                }
            }
        }
    }

    fn data_body(&self, plan: &mut Plan, path: &str, node: &Node) -> Result<bool, ScrubError> {
        let mut by_scalar: BTreeMap<u32, Vec<Sub>> = BTreeMap::new();
        let mut error = None;
        body::for_each_node_leaf(node, &mut |leaf| {
            if let Some(at) = leaf.at {
                let mut subs = Vec::new();
                self.leaf_subs(leaf, &mut subs, &mut error);
                by_scalar.entry(at).or_default().extend(subs);
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        let mut changed = false;
        for (at, subs) in by_scalar {
            let Some(scalar_node) = self.doc.scalars.get(&at) else {
                continue;
            };
            let Some(scalar) = scalar_node.as_scalar() else {
                continue;
            };
            let subs: Vec<Cow<'_, Sub>> = (subs.into_iter().map(Cow::Owned))
                .chain(self.defaults.relevant(&scalar.text).map(Cow::Borrowed))
                .collect();
            let mut rules = Vec::new();
            let new = substitute_body(&scalar.text, &subs, &mut rules);
            if new != scalar.text {
                self.plan_node(plan, scalar_node, path, &new, rules);
                changed = true;
            }
        }
        Ok(changed)
    }

    fn bytes_body(
        &self,
        plan: &mut Plan,
        field: &Field,
        bytes: &mut Vec<u8>,
        stored: &[&str],
        headers: &[Header],
    ) -> Result<bool, ScrubError> {
        let cannot = |reason: String| ScrubError::Cannot {
            path: field.path.clone(),
            reason,
        };
        let coding = Coding::of(bytes, headers);
        let plain = match coding.decode(bytes) {
            Some(plain) => plain,
            None => return Ok(false),
        };
        let Ok(text) = std::str::from_utf8(&plain) else {
            return Ok(false);
        };
        let mut subs = Vec::new();
        let mut error = None;
        match body::decode_stored(bytes, headers) {
            // Text as it is stored: its one leaf, never copied (see `lint::http`).
            Ok(text) => self.leaf_subs(&Leaf::stored(text), &mut subs, &mut error),
            Err(decoded) if matches!(decoded.content, Content::Binary(_)) => return Ok(false),
            Err(decoded) => body::for_each_leaf(&decoded, &mut |leaf| {
                self.leaf_subs(leaf, &mut subs, &mut error);
            }),
        }
        if let Some(e) = error {
            return Err(e);
        }
        // The defaults borrowed from the list, not copied (a body can hold thousands).
        let subs: Vec<Cow<'_, Sub>> = (subs.into_iter().map(Cow::Owned))
            .chain(self.defaults.relevant(text).map(Cow::Borrowed))
            .collect();
        if stored.is_empty()
            && matches!(plain, Cow::Borrowed(_))
            && let Some(node) = field.at.and_then(|at| self.doc.scalars.get(&at))
            && !node.is_binary()
            && let Some((edits, rules, new_len)) = self.doc.verbatim_edits(node, text, &subs)
        {
            // The values to replace are written in the file as they are: only their bytes
            // change, and the body is never copied (a 500 MB body was held three times).
            let old_len = bytes.len();
            drop(plain);
            *bytes = Vec::new();
            for edit in edits {
                plan.edits.insert(
                    edit.start,
                    Box::new(Planned {
                        edit,
                        path: field.path.as_str().into(),
                        rules: rules.clone(),
                    }),
                );
            }
            self.lengths_follow(plan, node, field, headers, old_len, new_len)?;
            return Ok(true);
        }
        let mut rules = Vec::new();
        let new_text = substitute_body(text, &subs, &mut rules);
        if new_text == text {
            return Ok(false);
        }
        // What the old bytes are still wanted for, taken now: they are let go of before the
        // new scalar is written, which would otherwise hold a huge body a fourth time.
        let new_text = new_text.into_owned();
        drop(plain);
        let old_len = bytes.len();
        let read = (stored == ["file"]).then(|| ContentHash::of(bytes));
        *bytes = Vec::new();
        let wire = coding.encode(new_text.as_bytes()).ok_or_else(|| {
            cannot(format!(
                "a `{}` body cannot be encoded again",
                coding.name()
            ))
        })?;
        let node = field
            .at
            .and_then(|at| self.doc.scalars.get(&at))
            .ok_or_else(|| cannot("the body has no scalar of its own in the file".into()))?;
        let scalar = node.as_scalar().expect("scalars only");
        let b64 = || base64::engine::general_purpose::STANDARD.encode(&wire);
        if stored == ["file"] {
            // The body is the file the scalar names: that file is written again, and the
            // scalar stays.
            plan.sidecar_replaced.push(Replaced {
                path: format!("{} ({})", field.path, scalar.text),
                rule: rules.join(", "),
                offset: node.start as usize,
                at: Position { line: 1, column: 1 },
            });
            let name = scalar.text.clone();
            if let Some(read) = read {
                plan.sidecars_read.insert(name.clone(), read);
            }
            plan.sidecars.insert(name, wire.to_vec());
            self.lengths_follow(plan, node, field, headers, old_len, wire.len())?;
            return Ok(true);
        }
        let new_len = wire.len();
        let value = match stored {
            // The body is the text on the wire: the new text is the value, not a copy of it.
            [] if !node.is_binary() && matches!(wire, Cow::Borrowed(_)) => {
                drop(wire);
                new_text
            }
            [] if !node.is_binary() => String::from_utf8(wire.into_owned())
                .map_err(|_| cannot("the encoded body is not text".into()))?,
            [] | ["binary"] | ["base64"] => wrap_like(&b64(), &scalar.text),
            // R's vcr's `raw_gzip`: base64 of a zlib stream.
            ["base64", "zlib"] => {
                let packed = vcr_cassette::http::r_vcr::mem_compress(&wire)
                    .map_err(|e| cannot(format!("the body cannot be compressed again: {e}")))?;
                wrap_like(
                    &base64::engine::general_purpose::STANDARD.encode(packed),
                    &scalar.text,
                )
            }
            // ExVCR's `binary: true`: base64 of the body's Erlang term.
            ["base64", "erlang"] => {
                let term = vcr_cassette::http::exvcr::term_to_binary(&wire)
                    .ok_or_else(|| cannot("the body is too large for an Erlang binary".into()))?;
                wrap_like(
                    &base64::engine::general_purpose::STANDARD.encode(term),
                    &scalar.text,
                )
            }
            ["json", "base64"] => json_array(&[b64()]),
            ["json", "hex"] => json_array(&[hex(&wire)]),
            ["hex"] => hex(&wire),
            _ => {
                return Err(cannot(format!(
                    "a body stored as `{}` is not rewritten",
                    stored.join(", ")
                )));
            }
        };
        self.plan_node(plan, node, &field.path, &value, rules);
        self.lengths_follow(plan, node, field, headers, old_len, new_len)?;
        Ok(true)
    }

    /// The length on the wire of the body `node` holds changed from `old` to `new`: a
    /// `Content-Length` that said the old one says the new one, and so does the format's own
    /// length beside the body (go-vcr's `content_length`, a HAR's `content.size`).
    fn lengths_follow(
        &self,
        plan: &mut Plan,
        node: &Node,
        field: &Field,
        headers: &[Header],
        old: usize,
        new: usize,
    ) -> Result<(), ScrubError> {
        let (bytes, wire) = (old, new);
        if wire != bytes {
            for header in headers {
                if header.name.eq_ignore_ascii_case("content-length")
                    && header.value.text.trim() == bytes.to_string()
                {
                    self.set(
                        plan,
                        &header.value,
                        &wire.to_string(),
                        vec!["Content-Length".into()],
                    )?;
                }
            }
            // And the format's own length field beside the body (go-vcr's `content_length`).
            if let Some((length, key)) = self.doc.lengths.get(&node.start)
                && length
                    .as_scalar()
                    .is_some_and(|l| l.text.trim() == bytes.to_string())
            {
                let path = match field.path.rsplit_once('.') {
                    Some((parent, _)) => format!("{parent}.{key}"),
                    None => (*key).to_owned(),
                };
                let new = wire.to_string();
                if length
                    .as_scalar()
                    .is_some_and(|l| l.style == vcr_doc::Style::Plain)
                {
                    // A number stays a number (Go reads it into an int64): its digits are
                    // written as they are, not as a string.
                    let edit = Edit {
                        start: length.start as usize,
                        end: length.end as usize,
                        text: new,
                    };
                    plan.edits.insert(
                        edit.start,
                        Box::new(Planned {
                            edit,
                            path: path.into(),
                            rules: vec![(*key).into()],
                        }),
                    );
                } else {
                    self.plan_node(plan, length, &path, &new, vec![(*key).into()]);
                }
            }
        }
        Ok(())
    }

    /// The recorder setting that makes a request whose query parameter `name` was replaced
    /// by `placeholder` match again (it reads after "make the test match again with").
    fn setting_query(&self, name: &str, placeholder: &str) -> String {
        self.setting(Filtered::Query { name, placeholder })
            .unwrap_or_else(|| {
                format!("a matcher that ignores `{name}`, or the test sending \"{placeholder}\"")
            })
    }

    fn setting_header(&self, name: &str) -> String {
        self.setting(Filtered::Header { name })
            .unwrap_or_else(|| format!("a matcher that ignores the `{name}` header"))
    }

    fn setting_body(&self) -> String {
        self.setting(Filtered::Body)
            .unwrap_or_else(|| "a matcher that ignores the request body".into())
    }

    /// The setting in the recorder's own words ([`Recorder::filter`](vcr_cassette::http::Recorder::filter)).
    fn setting(&self, what: Filtered<'_>) -> Option<String> {
        self.format.recorder().filter(what, self.tool)
    }
}

/// Where a reader's value holds the text of its scalar: at its end (nock's `scope` +
/// `path`), at its start (a URL and its query from matchers of their own), or else where it
/// first stands.
fn place_in(value: &str, scalar: &str) -> Option<usize> {
    if scalar.is_empty() {
        None
    } else if value.ends_with(scalar) {
        Some(value.len() - scalar.len())
    } else if value.starts_with(scalar) {
        Some(0)
    } else {
        value.find(scalar)
    }
}

/// Base64 text wrapped as `like` was: lines of the width of its first line, and a final
/// line break if it had one.
fn wrap_like(b64: &str, like: &str) -> String {
    let first = like.split('\n').next().unwrap_or("");
    if !like.trim_end().contains('\n') || first.is_empty() {
        return if like.ends_with('\n') {
            format!("{b64}\n")
        } else {
            b64.to_owned()
        };
    }
    let width = first.len();
    let mut out = String::with_capacity(b64.len() + b64.len() / width + 1);
    for (i, chunk) in b64.as_bytes().chunks(width).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
    }
    if like.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

fn json_array(items: &[String]) -> String {
    let mut out = Vec::new();
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        vcr_json::write_string(&vcr_json::Str::new(item.as_str()), &mut out);
    }
    out.push(b']');
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// A body's `Content-Encoding`, where its bytes really are in it (pytest-recording keeps the
/// header on a body it stored decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Identity,
    Gzip,
    Zlib,
    Deflate,
    Brotli,
}

impl Coding {
    fn of(bytes: &[u8], headers: &[Header]) -> Coding {
        let named = headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("content-encoding"))
            .map(|h| h.value.text.trim().to_ascii_lowercase());
        let binary = std::str::from_utf8(bytes).is_err();
        match named.as_deref() {
            _ if body::is_gzip(bytes) => Coding::Gzip,
            Some("deflate") if body::is_zlib(bytes) => Coding::Zlib,
            Some("deflate") if binary => Coding::Deflate,
            Some("br") if binary => Coding::Brotli,
            _ => Coding::Identity,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Coding::Identity => "identity",
            Coding::Gzip => "gzip",
            Coding::Zlib | Coding::Deflate => "deflate",
            Coding::Brotli => "br",
        }
    }

    /// The body's bytes with the coding undone (bounded like every decode); `None` when
    /// they do not decode.
    fn decode(self, bytes: &[u8]) -> Option<Cow<'_, [u8]>> {
        const MAX: u64 = 64 << 20;
        let mut out = Vec::new();
        let read = |r: &mut dyn std::io::Read, out: &mut Vec<u8>| {
            r.take(MAX + 1)
                .read_to_end(out)
                .ok()
                .filter(|&n| n as u64 <= MAX)
        };
        match self {
            Coding::Identity => return Some(Cow::Borrowed(bytes)),
            Coding::Gzip => read(&mut flate2::read::MultiGzDecoder::new(bytes), &mut out)?,
            Coding::Zlib => read(&mut flate2::read::ZlibDecoder::new(bytes), &mut out)?,
            Coding::Deflate => read(&mut flate2::read::DeflateDecoder::new(bytes), &mut out)?,
            Coding::Brotli => read(
                &mut brotli_decompressor::Decompressor::new(bytes, 4096),
                &mut out,
            )?,
        };
        Some(Cow::Owned(out))
    }

    /// The bytes encoded again (`None` for brotli: vcr has no compressor for it).
    fn encode(self, plain: &[u8]) -> Option<Cow<'_, [u8]>> {
        let level = flate2::Compression::default();
        let out = match self {
            Coding::Identity => return Some(Cow::Borrowed(plain)),
            Coding::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
                e.write_all(plain).ok()?;
                e.finish().ok()?
            }
            Coding::Zlib => {
                let mut e = flate2::write::ZlibEncoder::new(Vec::new(), level);
                e.write_all(plain).ok()?;
                e.finish().ok()?
            }
            Coding::Deflate => {
                let mut e = flate2::write::DeflateEncoder::new(Vec::new(), level);
                e.write_all(plain).ok()?;
                e.finish().ok()?
            }
            Coding::Brotli => return None,
        };
        Some(Cow::Owned(out))
    }
}

/// A scalar's text with `subs` applied (`url`: query parameters are addressed by name):
/// whole values where the scalar is the value (or the credential after its scheme), inner
/// values at token boundaries, in every form the text may write them.
fn substitute(text: &str, subs: &[Sub], url: bool, rules: &mut Vec<Name>) -> String {
    replace::apply(text, subs, replace::Site::Field { url }, rules).into_owned()
}

/// A body's text with `subs` applied: whole values where they stand whole (a JSON string, a
/// form value, the whole text), inner values wherever they stand as a token, in every form
/// the body may write them (as is, JSON-escaped, percent-encoded). The text is copied only
/// when something changes, and once (a body of hundreds of megabytes went through a dozen
/// copies to replace one key, issue 25; one pass per value made a body of many keys
/// quadratic, issue 43).
fn substitute_body<'t, S: std::borrow::Borrow<Sub>>(
    text: &'t str,
    subs: &[S],
    rules: &mut Vec<Name>,
) -> Cow<'t, str> {
    replace::apply(text, subs, replace::Site::Body, rules)
}

/// A query string with the value of every parameter `name` set to `value`.
fn set_param(query: &str, name: &str, value: &str) -> String {
    if !query.contains('=') {
        return query.to_owned();
    }
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, v))
                if body::percent_decode(k).eq_ignore_ascii_case(name)
                    && body::percent_decode(v) != value =>
            {
                format!("{k}={}", vcr_lint::percent_encoded(value))
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key written as it is is edited where it stands, each place it stands; values that
    /// overlap in the body, or a value a line fold hides, leave the scalar to be written
    /// again (regression: overlapping values made the new length wrap around).
    #[test]
    fn verbatim_edits_are_exact_or_refused() {
        let text = "a: 'key=abcd and\n  abcd'\nb: \"x=ab\\\n  cd\"\nc: abcd\n";
        let root = vcr_doc::yaml::parse(text).unwrap();
        let doc = Doc {
            text,
            dialect: Dialect::PyYaml,
            raw: false,
            facts: edit::Facts::of(text),
            scalars: BTreeMap::new(),
            in_flow: std::collections::HashSet::new(),
            lengths: BTreeMap::new(),
        };
        let inside = |old: &str, new: &str| Sub {
            old: old.to_owned(),
            new: new.into(),
            how: How::Inside,
            rule: "test".into(),
        };
        let a = root.get("a").unwrap();
        let value = a.as_str().unwrap();
        assert_eq!(value, "key=abcd and abcd");
        let (edits, rules, new_len) = doc
            .verbatim_edits(a, value, &[inside("abcd", "REDACTED_X")])
            .unwrap();
        assert_eq!(edits.len(), 2);
        assert!(edits.iter().all(|e| &text[e.start..e.end] == "abcd"));
        assert_eq!(rules, [Name::from("test")]);
        assert_eq!(new_len, value.len() + 2 * ("REDACTED_X".len() - 4));
        // `abc` and `bcd` overlap in `abcd`.
        let c = root.get("c").unwrap();
        assert!(
            doc.verbatim_edits(c, "abcd", &[inside("abc", "X"), inside("bcd", "Y")])
                .is_none()
        );
        // Not a value of letters and digits, or not replaced inside.
        assert!(
            doc.verbatim_edits(a, value, &[inside("d and", "X")])
                .is_none()
        );
        let whole = Sub {
            how: How::Whole,
            ..inside("abcd", "X")
        };
        assert!(doc.verbatim_edits(a, value, &[whole]).is_none());
        // An escaped line break joins `ab` and `cd`: the file does not write `abcd`.
        let b = root.get("b").unwrap();
        assert_eq!(b.as_str(), Some("x=abcd"));
        assert!(
            doc.verbatim_edits(b, "x=abcd", &[inside("abcd", "X")])
                .is_none()
        );
    }

    #[test]
    fn placeholders_are_one_per_name_and_known_to_verify() {
        for (name, expected) in [
            ("api_key", "REDACTED_API_KEY"),
            ("Authorization", "REDACTED_AUTHORIZATION"),
            ("x-api-key", "REDACTED_X_API_KEY"),
            ("openai-key", "REDACTED_OPENAI_KEY"),
            ("", "REDACTED_SECRET"),
            ("--", "REDACTED_SECRET"),
        ] {
            assert_eq!(placeholder(name), expected);
            assert!(vcr_lint::is_placeholder(expected), "{expected}");
        }
    }

    #[test]
    fn names_come_from_the_readable_path() {
        for (path, name) in [
            ("interactions[0].request.uri ?api_key", "api_key"),
            (
                "interactions[0].request.headers.Authorization[0]",
                "Authorization",
            ),
            (
                "log.entries[0].request.headers[2].value (authorization)",
                "authorization",
            ),
            (
                "interactions[1].request.body.string (json) /password",
                "password",
            ),
            (
                "interactions[3].response.headers.Set-Cookie[0] cookie session",
                "session",
            ),
            (
                "http_interactions[0].request.headers.X-Api-Key",
                "X-Api-Key",
            ),
            // A matcher's operator is passed over for the name it matches.
            ("request.headers.Authorization.equalTo", "Authorization"),
            (
                "data.pairs[0].request.headers.Authorization[0].value",
                "Authorization",
            ),
            ("log.entries[0].request.postData.params[1].value", "secret"),
            (
                "mappings[2].request.queryParameters.access_token.matches",
                "access_token",
            ),
            (
                "Request.Headers[1].Matchers[0].Pattern (Authorization)",
                "Authorization",
            ),
        ] {
            assert_eq!(name_in_path(path), name, "{path}");
        }
    }

    #[test]
    fn values_are_replaced_in_every_form_a_body_writes_them() {
        let mut rules = Vec::new();
        let sub = |old: &str, how| Sub {
            old: old.into(),
            new: "NEW".into(),
            how,
            rule: "r".into(),
        };
        let cases = [
            (
                r#"{"a":"p\"w"}"#,
                sub("p\"w", How::Inside),
                r#"{"a":"NEW"}"#,
            ),
            (
                r#"{"s":"{\"t\":\"x/y\"}"}"#,
                sub("x/y", How::Inside),
                r#"{"s":"{\"t\":\"NEW\"}"}"#,
            ),
            ("a=b%2Bc&d=e", sub("b+c", How::Inside), "a=NEW&d=e"),
            (
                r#"{"u":"dana","v":"danaher"}"#,
                sub("dana", How::Whole),
                r#"{"u":"NEW","v":"danaher"}"#,
            ),
            (
                "user=dana&x=danaher",
                sub("dana", How::Whole),
                "user=NEW&x=danaher",
            ),
            (
                "a=1&password=x&b=2",
                sub("", How::Param("password".into())),
                "a=1&password=NEW&b=2",
            ),
        ];
        for (text, sub, expected) in cases {
            assert_eq!(
                substitute_body(text, &[sub], &mut rules),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn query_parameters_are_set_by_name_and_encoded() {
        let mut rules = Vec::new();
        let sub = Sub {
            old: String::new(),
            new: "<KEY>".into(),
            how: How::Param("API_KEY".into()),
            rule: "query api_key".into(),
        };
        assert_eq!(
            substitute("https://h/p?api_key=abc&page=2#f", &[sub], true, &mut rules),
            "https://h/p?api_key=%3CKEY%3E&page=2#f"
        );
        assert_eq!(rules, [Name::from("query api_key")]);
    }

    #[test]
    fn base64_is_wrapped_as_it_was() {
        let b64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=";
        assert_eq!(
            wrap_like(b64, "AAAA\nBBBB\nCC\n"),
            "QUJD\nREVG\nR0hJ\nSktM\nTU5P\nUFFS\nU1RV\nVldY\nWVo=\n"
        );
        assert_eq!(wrap_like(b64, "AAAABBBB"), b64);
    }

    /// A scrub of a file read in windows gives what it freed back between its phases (the
    /// judgement, the plan, the edits), through what the binary set: the memory each took
    /// was held by the allocator into the next phase (issue 43). The result is the same as
    /// without.
    #[test]
    fn a_windowed_scrub_gives_freed_memory_back_between_its_phases() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        fn count() {
            CALLS.fetch_add(1, Ordering::SeqCst);
        }
        let scrub = |text: &str| {
            let rules = Rules::new(None).unwrap();
            let scanner = Scanner::new(&[]);
            let read = vcr_cassette::http::ReadOptions::default();
            let reported = |_: &HttpLeak| true;
            let scrubber = Scrubber {
                path: std::path::Path::new("cassettes/keys.yaml"),
                read: &read,
                rules: &rules,
                scanner: &scanner,
                user_rules: None,
                reported: &reported,
            };
            assert!(scrubber.in_windows(text.as_bytes()));
            match scrubber.scrub_windows(Cow::Owned(text.as_bytes().to_vec()), &|_| Vec::new()) {
                Ok(Windowed::Scrubbed(scrubbed)) => scrubbed,
                _ => panic!("not scrubbed in windows"),
            }
        };
        // Distinct keys of letters and digits, from a fixed sequence.
        let mut state = 43u64;
        let mut key = || -> String {
            let alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
            (0..40)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    alphabet[(state >> 33) as usize % alphabet.len()] as char
                })
                .collect()
        };
        let mut text = String::from("interactions:\n");
        for i in 0..400 {
            text += &format!(
                "- request:\n    body: null\n    headers:\n      Authorization:\n      - \"Bearer sk-proj-{}\"\n    method: POST\n    uri: https://api.example.com/v1/items/{i}\n  response:\n    body:\n      string: ok\n    headers: {{}}\n    status:\n      code: 200\n      message: OK\n",
                key()
            );
        }
        text += "version: 1\n";
        let without = scrub(&text);
        assert_eq!(CALLS.load(Ordering::SeqCst), 0);
        on_give_back(count);
        let with = scrub(&text);
        // Other tests may scrub at the same time, once it is set.
        assert!(
            CALLS.load(Ordering::SeqCst) >= 3,
            "after the judgement, the plan, the edits"
        );
        assert_eq!(with.replaced.len(), 400);
        assert_eq!(with.text, without.text);
        let new = String::from_utf8(with.text.unwrap()).unwrap();
        assert!(
            !new.contains("sk-proj-") && new.contains("REDACTED"),
            "{}",
            &new[..300]
        );
    }
}
