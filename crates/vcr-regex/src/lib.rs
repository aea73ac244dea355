//! JavaScript regexes that come from files and the configuration, compiled and run with
//! bounds.
//!
//! Users write `[[rule]]` and `[[verify.allow]]` regexes in JavaScript syntax, and dsh logs
//! carry `{{fromRequest:PATTERN}}` placeholders that the harness hands to `new RegExp`. Those
//! patterns are data: recorded, reviewed at best, hostile at worst. Three things keep them
//! from crashing or stalling `vcr`:
//!
//! - **Limits before any engine sees a pattern** (`shape`): at most [`MAX_LEN`] bytes,
//!   groups nested at most [`MAX_NESTING`] deep, and counted repetitions that cannot unroll
//!   past [`MAX_EXPANSION`] (`regress` copies `(?:x){5}` five times, so a short pattern could
//!   ask for gigabytes). A pattern past a limit is a [`Limit`] error, never a stack overflow.
//! - **Linear time where the pattern allows it** (`translate`): a pattern that uses no
//!   feature needing backtracking is translated, with JavaScript's meanings, to the `regex`
//!   crate's `Hir` and run by `regex-automata`, whose time is linear in the input. Node is
//!   the oracle for the translation (`tests/js_regex.rs`).
//! - **Bounded work where it does not** (`worker`): look-around and back-references stay
//!   with `regress`, an ECMAScript backtracking engine that has no step budget. Each of its
//!   matches runs on a worker thread and is given [`MATCH_TIME_LIMIT`]; a match that runs
//!   past it is abandoned and reported as [`Stopped`], and the pattern is not run again in
//!   that process (so at most one thread per pattern is ever left spinning). A linear-time
//!   prefilter, the pattern with its look-arounds dropped and back-references widened to
//!   `.*`, spares the hand-off for the strings it cannot match.
//!
//! A wall-clock limit was chosen over the alternatives because it is the only bound that
//! holds whatever the pattern: a cap on input length does not stop `(a+)+b` (forty
//! characters are enough), a step budget would need a patched copy of `regress`, and a
//! static check for nested quantifiers misses the polynomial cases. Its cost is that the
//! result depends on the machine's speed near the limit; one second is far above what any
//! reasonable pattern needs on a string of a cassette.
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod fold;
mod replace;
mod shape;
mod translate;
mod worker;

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use regex_automata::Input;
use regex_automata::meta;

use translate::Mode;
use worker::Stop;

/// The longest pattern compiled, in bytes.
pub const MAX_LEN: usize = 32 * 1024;

/// How deep groups (and the classes of the `v` flag) may nest.
pub const MAX_NESTING: usize = 128;

/// The largest size a pattern may reach once `regress` unrolls its counted repetitions, in
/// units of one character or group each (an over-estimate: see `shape`).
pub const MAX_EXPANSION: u64 = 100_000;

/// How long one backtracking match (one rule on one string, all its matches) may run.
pub const MATCH_TIME_LIMIT: Duration = Duration::from_secs(1);

/// How long compiling a pattern may take (the limits keep it to milliseconds).
const COMPILE_TIME_LIMIT: Duration = Duration::from_secs(10);

/// The largest automaton the `regex` engine builds for one pattern; a larger one is left to
/// `regress` (a large counted repetition such as `a{100000}` is a loop there).
const NFA_SIZE_LIMIT: usize = 8 << 20;

/// The flags of a JavaScript regex that change what it matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
    unicode: bool,
    unicode_sets: bool,
    sticky: bool,
}

impl Flags {
    fn parse(flags: &str) -> Flags {
        Flags {
            ignore_case: flags.contains('i'),
            multiline: flags.contains('m'),
            dot_all: flags.contains('s'),
            unicode: flags.contains('u'),
            unicode_sets: flags.contains('v'),
            sticky: flags.contains('y'),
        }
    }
}

/// A pattern `vcr` does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// JavaScript rejects it (the message is `regress`'s).
    #[error("{0}")]
    Syntax(String),
    /// It is past one of `vcr`'s limits (JavaScript may accept it).
    #[error(transparent)]
    Limit(#[from] Limit),
}

/// The limit a pattern is past.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Limit {
    /// Longer than [`MAX_LEN`].
    #[error(
        "the pattern is {len} bytes long, and vcr compiles patterns of at most {MAX_LEN} bytes"
    )]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// Nested deeper than [`MAX_NESTING`].
    #[error(
        "the pattern nests groups {depth} deep, and vcr compiles patterns nested at most \
         {MAX_NESTING} deep"
    )]
    TooDeep {
        /// How deep its groups nest.
        depth: usize,
    },
    /// Its counted repetitions would unroll past [`MAX_EXPANSION`].
    #[error(
        "the pattern repeats groups inside repeated groups (`(?:(?:x){{5}}){{5}}`) past what \
         vcr compiles ({MAX_EXPANSION} units once unrolled)"
    )]
    TooLarge,
    /// Compiling took too long (a limit missed it).
    #[error("compiling the pattern took more than {} s", COMPILE_TIME_LIMIT.as_secs())]
    CompileTime,
}

/// Why a match gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Stopped {
    /// It ran past [`MATCH_TIME_LIMIT`].
    #[error(
        "a match ran past the time limit of {} ms on a string of {chars} characters: the \
         pattern backtracks too much (nested quantifiers such as `(a+)+`)",
        MATCH_TIME_LIMIT.as_millis()
    )]
    TimeLimit {
        /// The length of the string, in characters.
        chars: usize,
    },
    /// It ran past the limit before, on another string, and is not run again.
    #[error(
        "a match ran past the time limit of {} ms earlier in this run, so the pattern is not run \
         again",
        MATCH_TIME_LIMIT.as_millis()
    )]
    Disabled,
    /// The engine failed.
    #[error("the regex engine failed: {message}")]
    Failed {
        /// What it said.
        message: String,
    },
}

/// A match: where it is and where each capture group is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The whole match.
    pub range: Range<usize>,
    /// Groups 1, 2, ...: where each took part, `None` where it did not.
    pub groups: Vec<Option<Range<usize>>>,
}

/// A compiled JavaScript regex.
#[derive(Debug, Clone)]
pub struct JsRegex {
    engine: Engine,
}

#[derive(Debug, Clone)]
enum Engine {
    /// Translated: linear time, on the calling thread.
    Linear(Arc<Linear>),
    /// `regress`, on a worker, under the time limit.
    Backtracking(Arc<Backtracking>),
}

#[derive(Debug)]
struct Linear {
    regex: meta::Regex,
    names: Vec<(String, usize)>,
    captures: usize,
}

#[derive(Debug)]
struct Backtracking {
    regex: Arc<regress::Regex>,
    /// Matches wherever the pattern can; `None` when the pattern has no such translation.
    prefilter: Option<meta::Regex>,
    /// How long one match may run.
    limit: Duration,
    /// Set when a match ran past the limit: the pattern is not run again.
    stopped: AtomicBool,
}

impl JsRegex {
    /// Compiles `pattern` as `new RegExp(pattern, flags)` would, within the limits.
    pub fn new(pattern: &str, flags: &str) -> Result<JsRegex, PatternError> {
        let parsed = Flags::parse(flags);
        shape::check(pattern, parsed.unicode_sets)?;
        let units: Vec<u32> = pattern.chars().map(u32::from).collect();
        let regex = compile(&units, parsed, flags)?;
        if let Some(linear) = translate::translate(pattern, parsed, Mode::Exact)
            .and_then(|t| Some((build(&t.hir)?, t)))
        {
            let (regex, translation) = linear;
            return Ok(JsRegex {
                engine: Engine::Linear(Arc::new(Linear {
                    regex,
                    names: translation.names,
                    captures: translation.captures,
                })),
            });
        }
        let prefilter =
            translate::translate(pattern, parsed, Mode::Superset).and_then(|t| build(&t.hir));
        Ok(JsRegex {
            engine: Engine::Backtracking(Arc::new(Backtracking {
                regex: Arc::new(regex),
                prefilter,
                limit: MATCH_TIME_LIMIT,
                stopped: AtomicBool::new(false),
            })),
        })
    }

    /// Whether the pattern runs in linear time (it was translated for the `regex` engine).
    pub fn is_linear(&self) -> bool {
        matches!(self.engine, Engine::Linear(_))
    }

    /// Whether the pattern matches anywhere in `text`.
    pub fn is_match(&self, text: &str) -> Result<bool, Stopped> {
        match &self.engine {
            Engine::Linear(linear) => Ok(linear.regex.is_match(text)),
            Engine::Backtracking(bt) => bt.run(text, |re, text| re.find(text).is_some(), false),
        }
    }

    /// The first match in `text` with its groups: `RegExp.prototype.exec` from index 0.
    pub fn exec(&self, text: &str) -> Result<Option<Match>, Stopped> {
        match &self.engine {
            Engine::Linear(linear) => Ok(linear.find_at(text, 0, true)),
            Engine::Backtracking(bt) => bt.run(
                text,
                |re, text| {
                    re.find(text).map(|m| Match {
                        range: m.range(),
                        groups: m.captures,
                    })
                },
                None,
            ),
        }
    }

    /// `text.replace(regex, replacement)` with the `g` flag when `global`: the new text, or
    /// `None` when nothing matched.
    pub fn replace(
        &self,
        text: &str,
        replacement: &str,
        global: bool,
    ) -> Result<Option<String>, Stopped> {
        match &self.engine {
            Engine::Linear(linear) => {
                let groups = replacement.contains('$');
                let matches = linear.matches(text, groups).map(|m| Found {
                    m,
                    linear: linear.as_ref(),
                });
                Ok(replace::js_replace(matches, text, replacement, global))
            }
            Engine::Backtracking(bt) => {
                let replacement = replacement.to_owned();
                bt.run(
                    text,
                    move |re, text| {
                        replace::js_replace(re.find_iter(text), text, &replacement, global)
                    },
                    None,
                )
            }
        }
    }

    /// Compiles `pattern` for `regress` alone, even when it could run in linear time: the
    /// reference the translation is compared with (tests and fuzzing).
    #[doc(hidden)]
    pub fn backtracking(pattern: &str, flags: &str) -> Result<JsRegex, PatternError> {
        let parsed = Flags::parse(flags);
        shape::check(pattern, parsed.unicode_sets)?;
        let units: Vec<u32> = pattern.chars().map(u32::from).collect();
        let regex = compile(&units, parsed, flags)?;
        Ok(JsRegex {
            engine: Engine::Backtracking(Arc::new(Backtracking {
                regex: Arc::new(regex),
                prefilter: None,
                limit: MATCH_TIME_LIMIT,
                stopped: AtomicBool::new(false),
            })),
        })
    }

    /// The same regex with another time limit for backtracking matches (tests only: the
    /// runaway thread a test leaves behind should not spin for long).
    #[cfg(test)]
    fn with_time_limit(self, limit: Duration) -> JsRegex {
        match self.engine {
            Engine::Linear(_) => self,
            Engine::Backtracking(bt) => JsRegex {
                engine: Engine::Backtracking(Arc::new(Backtracking {
                    regex: Arc::clone(&bt.regex),
                    prefilter: bt.prefilter.clone(),
                    limit,
                    stopped: AtomicBool::new(false),
                })),
            },
        }
    }
}

/// Checks that `new RegExp(pattern, flags)` compiles, the pattern given as UTF-16 code units
/// (lone surrogates included), within the limits.
pub fn validate(units: Vec<u32>, flags: &str) -> Result<(), PatternError> {
    let text: String = units
        .iter()
        .map(|&u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    let parsed = Flags::parse(flags);
    shape::check(&text, parsed.unicode_sets)?;
    compile(&units, parsed, flags).map(drop)
}

/// Compiles code units with `regress` (the escapes it misreads spelled out first).
fn compile(units: &[u32], flags: Flags, text: &str) -> Result<regress::Regex, PatternError> {
    let units = for_regress(units, flags.unicode || flags.unicode_sets);
    let text = text.to_owned();
    on_worker(move || regress::Regex::from_unicode(units.into_iter(), text.as_str()))
}

/// Spells out the escapes `regress` 0.10 reads differently from JavaScript without `u`.
///
/// There, `\x` not followed by two hex digits and `\u` not followed by four are identity
/// escapes (Annex B): the letters themselves, so `\u{3}` is `uuu`. `regress` reads `\u{3}`
/// as U+0003, and `\x` followed by a non-hex character swallows that character: `\1\x(` then
/// compiles (JavaScript: an unterminated group) and panics when it runs. Writing the plain
/// letter gives `regress` the pattern JavaScript reads. Group names (in `(?<...>` and
/// `\k<...>`) are left alone: `\u{61}` is an escape there, even without `u`.
fn for_regress(units: &[u32], unicode: bool) -> Vec<u32> {
    if unicode {
        return units.to_vec();
    }
    let at = |i: usize| units.get(i).and_then(|&u| char::from_u32(u));
    let hex = |from: usize, n: usize| {
        (from..from + n).all(|i| at(i).is_some_and(|c| c.is_ascii_hexdigit()))
    };
    let mut out = Vec::with_capacity(units.len());
    let mut in_name = false;
    let mut i = 0;
    while i < units.len() {
        let c = at(i);
        if in_name {
            in_name = c != Some('>');
        } else if c == Some('(')
            && at(i + 1) == Some('?')
            && at(i + 2) == Some('<')
            && !matches!(at(i + 3), Some('=' | '!'))
        {
            in_name = true;
        } else if c == Some('\\') {
            match at(i + 1) {
                Some('x') if !hex(i + 2, 2) => {
                    out.push(u32::from('x'));
                    i += 2;
                    continue;
                }
                Some('u') if !hex(i + 2, 4) => {
                    out.push(u32::from('u'));
                    i += 2;
                    continue;
                }
                Some('k') if at(i + 2) == Some('<') => {
                    out.extend(&units[i..i + 3]);
                    in_name = true;
                    i += 3;
                    continue;
                }
                _ => {
                    out.extend(units.get(i..i + 2).unwrap_or(&units[i..]));
                    i += 2;
                    continue;
                }
            }
        }
        out.push(units[i]);
        i += 1;
    }
    out
}

/// Compiles with `regress` on a worker (deep stack, time limit).
fn on_worker(
    compile: impl FnOnce() -> Result<regress::Regex, regress::Error> + Send + 'static,
) -> Result<regress::Regex, PatternError> {
    match worker::run(COMPILE_TIME_LIMIT, compile) {
        Ok(Ok(regex)) => Ok(regex),
        Ok(Err(e)) => Err(PatternError::Syntax(e.to_string())),
        Err(Stop::TimedOut) => Err(Limit::CompileTime.into()),
        Err(Stop::Failed(message)) => Err(PatternError::Syntax(format!(
            "the regex engine failed: {message}"
        ))),
    }
}

/// Builds the `regex-automata` engine for a translation, with explicit size limits; `None`
/// when the automaton would be too large.
fn build(hir: &regex_syntax::hir::Hir) -> Option<meta::Regex> {
    meta::Regex::builder()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                .onepass_size_limit(Some(NFA_SIZE_LIMIT))
                .dfa_size_limit(Some(NFA_SIZE_LIMIT))
                .hybrid_cache_capacity(2 * NFA_SIZE_LIMIT),
        )
        .build_from_hir(hir)
        .ok()
}

impl Linear {
    /// The leftmost-first match starting at or after `start` (look-behind context is the
    /// whole text, as JavaScript's `lastIndex`).
    fn find_at(&self, text: &str, start: usize, groups: bool) -> Option<Match> {
        let input = Input::new(text).span(start..text.len());
        if !groups {
            let m = self.regex.search(&input)?;
            return Some(Match {
                range: m.range(),
                groups: Vec::new(),
            });
        }
        let mut caps = self.regex.create_captures();
        self.regex.search_captures(&input, &mut caps);
        let range = caps.get_match()?.range();
        Some(Match {
            range,
            groups: (1..=self.captures)
                .map(|i| caps.get_group(i).map(|span| span.range()))
                .collect(),
        })
    }

    /// Every match as a global JavaScript regex finds them: after an empty match the search
    /// goes on one character further, after any other right where it ended.
    fn matches<'a>(&'a self, text: &'a str, groups: bool) -> impl Iterator<Item = Match> + 'a {
        let mut at = Some(0);
        std::iter::from_fn(move || {
            let m = self.find_at(text, at?, groups)?;
            at = if m.range.is_empty() {
                text[m.range.end..]
                    .chars()
                    .next()
                    .map(|c| m.range.end + c.len_utf8())
            } else {
                Some(m.range.end)
            };
            Some(m)
        })
    }
}

/// A match of a translated regex, for substitution.
struct Found<'a> {
    m: Match,
    linear: &'a Linear,
}

impl replace::Captured for Found<'_> {
    fn range(&self) -> Range<usize> {
        self.m.range.clone()
    }

    fn group_count(&self) -> usize {
        self.linear.captures
    }

    fn group(&self, i: usize) -> Option<Range<usize>> {
        self.m.groups.get(i.checked_sub(1)?).cloned().flatten()
    }

    fn has_names(&self) -> bool {
        !self.linear.names.is_empty()
    }

    fn named(&self, name: &str) -> Option<Range<usize>> {
        let &(_, i) = self.linear.names.iter().find(|(n, _)| n == name)?;
        self.group(i)
    }
}

impl Backtracking {
    /// Runs `job` with `regress` on `text` on a worker, under the limit. `none` is the
    /// answer when the prefilter shows the pattern cannot match.
    fn run<R: Send + 'static>(
        &self,
        text: &str,
        job: impl FnOnce(&regress::Regex, &str) -> R + Send + 'static,
        none: R,
    ) -> Result<R, Stopped> {
        if self.prefilter.as_ref().is_some_and(|p| !p.is_match(text)) {
            return Ok(none);
        }
        if self.stopped.load(Ordering::Relaxed) {
            return Err(Stopped::Disabled);
        }
        let regex = Arc::clone(&self.regex);
        let owned = text.to_owned();
        match worker::run(self.limit, move || job(&regex, &owned)) {
            Ok(result) => Ok(result),
            Err(Stop::TimedOut) => {
                self.stopped.store(true, Ordering::Relaxed);
                Err(Stopped::TimeLimit {
                    chars: text.chars().count(),
                })
            }
            Err(Stop::Failed(message)) => Err(Stopped::Failed { message }),
        }
    }
}

#[cfg(test)]
mod tests;
