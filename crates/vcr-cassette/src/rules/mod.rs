//! Dehydration rules: ordered, named replacements applied to the strings of a cassette.
//!
//! A [`RuleSet`] is compiled once from the preset and the user's `vcr.toml` rules; every regex
//! is checked then, so a bad pattern is an error that names its rule, never a panic halfway
//! through a tree. Applying a rule set is a pure `&str -> Cow<str>` transform that allocates
//! only when a rule matched.
//!
//! Two kinds of patterns serve two purposes. The preset reproduces Claude Code's
//! `dehydrateValue` with patterns written for the `regex` crate and translated by hand to
//! JavaScript's meaning of `\d`, `.` and `\s` (checked against node in the test vectors): it
//! runs on every string of every cassette and needs the speed. Users write their rules in
//! JavaScript syntax, like the harnesses they copy, so those compile as
//! [`vcr_regex::JsRegex`] and mean exactly what they would mean in JavaScript: checked
//! by `regress`, an ECMAScript engine, then run in linear time by the `regex` engine when the
//! pattern translates exactly, or by `regress` under a time limit when it needs backtracking
//! (look-around, back-references). A rule that runs past the limit is an error of the file
//! it was applied to, never a hang.

mod preset;

use std::borrow::Cow;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use vcr_regex::{JsRegex, Limit, PatternError, Stopped};

pub use preset::{Machine, Platform, claude_code};

/// Which part of a cassette a rule touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The key material: what a cassette's name is a hash of (a Claude Code fixture's
    /// `input`).
    Key,
    /// Everything else that rules apply to (a Claude Code fixture's assistant output).
    Payload,
    /// Both.
    Both,
}

impl Scope {
    fn covers(self, wanted: Scope) -> bool {
        self == Scope::Both || wanted == Scope::Both || self == wanted
    }
}

/// One named rule.
#[derive(Debug, Clone)]
pub struct Rule {
    id: String,
    action: Action,
    scope: Scope,
    /// A text every match of the rule contains, when one is known: a string without any
    /// rule's needle is left alone without running the rules one by one.
    needle: Option<String>,
    /// How the rule reads in the fingerprint; machine values appear as symbols.
    canonical: String,
}

#[derive(Debug, Clone)]
enum Action {
    /// A preset pattern for the `regex` crate, already in JavaScript's meaning.
    Regex {
        re: preset::PresetRegex,
        replacement: String,
        global: bool,
    },
    /// A user pattern in JavaScript syntax.
    JsRegex {
        re: JsRegex,
        replacement: String,
        global: bool,
    },
    /// `s.replaceAll(needle, replacement)`.
    Literal { needle: String, replacement: String },
    /// After a placeholder, turn `\\` and `\` into `/` up to the next whitespace, quote or
    /// angle bracket (Claude Code's separator normalisation).
    Separators { re: preset::PresetRegex },
    /// If the value contains `needle`, the whole value becomes `value`.
    Collapse { needle: String, value: String },
    /// A machine value that is empty here (no such folder): nothing to replace, where
    /// JavaScript's `replaceAll('')` would insert the placeholder between every character.
    Disabled,
}

/// A rule as the user writes it in `vcr.toml`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleConfig {
    /// The rule's name, used in messages.
    pub id: String,
    /// A regular expression in JavaScript syntax.
    pub regex: Option<String>,
    /// A literal text to replace everywhere.
    pub literal: Option<String>,
    /// The replacement (`$1`, `$<name>`, `$&` and `$$` expand in regex rules, as in
    /// JavaScript's `String.prototype.replace`).
    pub replace: String,
    /// Where the rule applies; both by default.
    pub scope: Option<Scope>,
    /// Replace every match (true, the default) or only the first.
    pub global: Option<bool>,
    /// Match regardless of case.
    pub ignore_case: Option<bool>,
}

/// A rule that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// The regex does not compile as JavaScript.
    #[error("rule `{id}` has an invalid regex: {message}")]
    InvalidRegex {
        /// The rule's id.
        id: String,
        /// What the engine said.
        message: String,
    },
    /// The regex is past one of vcr's limits (JavaScript may accept it).
    #[error("rule `{id}` has a regex past vcr's limits: {limit}")]
    Limit {
        /// The rule's id.
        id: String,
        /// The limit.
        limit: Limit,
    },
    /// A match of the rule's regex was stopped (it backtracks too much): the string it was
    /// applied to, and the file holding it, are left as they were.
    #[error("rule `{id}` was stopped: {stopped}")]
    Stopped {
        /// The rule's id.
        id: String,
        /// Why.
        stopped: Stopped,
    },
    /// Neither or both of `regex` and `literal` were given.
    #[error("rule `{id}` needs exactly one of `regex` and `literal`")]
    Pattern {
        /// The rule's id.
        id: String,
    },
    /// A literal rule with an empty text would insert its replacement everywhere.
    #[error("rule `{id}` has an empty `literal`")]
    EmptyLiteral {
        /// The rule's id.
        id: String,
    },
    /// Two rules share an id.
    #[error("rule id `{id}` is used twice")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
}

impl Rule {
    /// The rule's id.
    /// Whether the rule applies to strings of `scope`.
    pub fn applies_to(&self, scope: Scope) -> bool {
        self.scope.covers(scope)
    }

    /// The rule's name.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Compiles a user rule.
    pub fn from_config(config: &RuleConfig) -> Result<Rule, RuleError> {
        let id = config.id.clone();
        let scope = config.scope.unwrap_or(Scope::Both);
        let global = config.global.unwrap_or(true);
        let ignore_case = config.ignore_case.unwrap_or(false);
        let (action, pattern) = match (&config.regex, &config.literal) {
            (Some(pattern), None) => {
                let flags = if ignore_case { "i" } else { "" };
                let re = JsRegex::new(pattern, flags).map_err(|e| match e {
                    PatternError::Limit(limit) => RuleError::Limit {
                        id: id.clone(),
                        limit,
                    },
                    e => RuleError::InvalidRegex {
                        id: id.clone(),
                        message: e.to_string(),
                    },
                })?;
                let action = Action::JsRegex {
                    re,
                    replacement: config.replace.clone(),
                    global,
                };
                (
                    action,
                    format!("/{pattern}/{}{flags}", if global { "g" } else { "" }),
                )
            }
            (None, Some(literal)) if literal.is_empty() => {
                return Err(RuleError::EmptyLiteral { id });
            }
            (None, Some(literal)) => {
                let action = Action::Literal {
                    needle: literal.clone(),
                    replacement: config.replace.clone(),
                };
                (action, format!("literal {literal:?}"))
            }
            _ => return Err(RuleError::Pattern { id }),
        };
        let canonical = canonical_line(&id, &pattern, &config.replace, scope);
        let needle = config.literal.clone();
        Ok(Rule {
            id,
            action,
            scope,
            needle,
            canonical,
        })
    }

    /// The rewritten text when the rule matched `s`.
    pub fn rewrite(&self, s: &str) -> Result<Option<String>, RuleError> {
        // A preset regex is compiled the first time it runs: a string without the rule's own
        // needle (the pattern's literal start, or the placeholder) cannot match, and must not
        // cost its compilation (issue 44).
        if matches!(
            self.action,
            Action::Regex { .. } | Action::Separators { .. }
        ) && let Some(needle) = &self.needle
            && memchr::memmem::find(s.as_bytes(), needle.as_bytes()).is_none()
        {
            return Ok(None);
        }
        Ok(match &self.action {
            Action::Regex {
                re,
                replacement,
                global,
            } => {
                // Replacements of preset rules hold no `$`, so they are inserted as is.
                let out = if *global {
                    re.get().replace_all(s, regex::NoExpand(replacement))
                } else {
                    re.get().replace(s, regex::NoExpand(replacement))
                };
                owned(out)
            }
            Action::JsRegex {
                re,
                replacement,
                global,
            } => re
                .replace(s, replacement, *global)
                .map_err(|stopped| RuleError::Stopped {
                    id: self.id.clone(),
                    stopped,
                })?,
            Action::Literal {
                needle,
                replacement,
            } => memchr::memmem::find(s.as_bytes(), needle.as_bytes())
                .map(|_| s.replace(needle.as_str(), replacement)),
            Action::Separators { re } => {
                owned(re.get().replace_all(s, |caps: &regex::Captures<'_>| {
                    caps[0].replace("\\\\", "/").replace('\\', "/")
                }))
            }
            Action::Collapse { needle, value } => {
                (s.contains(needle.as_str()) && s != value.as_str()).then(|| value.clone())
            }
            Action::Disabled => None,
        })
    }
}

/// Several literal needles searched at once: SIMD (Teddy) where the CPU has it, an
/// Aho-Corasick automaton elsewhere.
#[derive(Debug, Clone)]
enum Needles {
    Packed(aho_corasick::packed::Searcher),
    Automaton(aho_corasick::AhoCorasick),
}

impl Needles {
    fn new(needles: &[&str]) -> Needles {
        match aho_corasick::packed::Searcher::new(needles.iter()) {
            Some(searcher) => Needles::Packed(searcher),
            None => Needles::Automaton(
                aho_corasick::AhoCorasick::new(needles).expect("literal needles build"),
            ),
        }
    }

    fn any_in(&self, haystack: &str) -> bool {
        match self {
            Needles::Packed(searcher) => searcher.find(haystack).is_some(),
            Needles::Automaton(automaton) => automaton.is_match(haystack),
        }
    }
}

/// The new text when a `regex` replacement matched.
fn owned(out: Cow<'_, str>) -> Option<String> {
    match out {
        Cow::Borrowed(_) => None,
        Cow::Owned(s) => Some(s),
    }
}

fn canonical_line(id: &str, pattern: &str, replacement: &str, scope: Scope) -> String {
    format!("{id}\t{pattern}\t{replacement:?}\t{scope:?}\n")
}

/// An ordered, compiled set of rules.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
    /// Finds any rule's needle in one pass.
    needles: Option<Needles>,
}

impl RuleSet {
    /// A rule set from rules in order; ids must be unique.
    pub fn new(rules: Vec<Rule>) -> Result<RuleSet, RuleError> {
        for (i, rule) in rules.iter().enumerate() {
            if rules[..i].iter().any(|r| r.id == rule.id) {
                return Err(RuleError::DuplicateId {
                    id: rule.id.clone(),
                });
            }
        }
        let needles: Vec<&str> = rules.iter().filter_map(|r| r.needle.as_deref()).collect();
        let needles = (!needles.is_empty()).then(|| Needles::new(&needles));
        Ok(RuleSet { rules, needles })
    }

    /// The rules in the order they run.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Runs every rule of `scope`, in order, on `s`. The only error is a user rule whose
    /// match was stopped ([`RuleError::Stopped`]).
    ///
    /// A rule with a needle can only change a string that contains its needle, so while the
    /// string holds none of them those rules are skipped; the check is redone after any rule
    /// changed the string.
    pub fn apply<'a>(&self, s: &'a str, scope: Scope) -> Result<Cow<'a, str>, RuleError> {
        let mut out = Cow::Borrowed(s);
        let mut may_match: Option<bool> = None;
        for rule in &self.rules {
            if !rule.scope.covers(scope) {
                continue;
            }
            if rule.needle.is_some() {
                let needles = self.needles.as_ref().expect("needles are indexed");
                if !*may_match.get_or_insert_with(|| needles.any_in(&out)) {
                    continue;
                }
            }
            if let Some(new) = rule.rewrite(&out)? {
                out = Cow::Owned(new);
                may_match = None;
            }
        }
        Ok(out)
    }

    /// A short hash of what the rules do, the same on every machine: machine values such as
    /// the working directory enter as symbols, not as their values.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        for rule in &self.rules {
            hasher.update(rule.canonical.as_bytes());
        }
        let digest = hasher.finalize();
        let mut hex = String::with_capacity(12);
        for b in &digest[..6] {
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(id: &str, regex: Option<&str>, literal: Option<&str>, replace: &str) -> RuleConfig {
        RuleConfig {
            id: id.into(),
            regex: regex.map(Into::into),
            literal: literal.map(Into::into),
            replace: replace.into(),
            scope: None,
            global: None,
            ignore_case: None,
        }
    }

    #[test]
    fn user_regexes_are_javascript() {
        // Look-behind and back-references are JavaScript, not Rust `regex`.
        let rule =
            Rule::from_config(&user("host", Some(r"(?<=host=)(\w+)\.\1"), None, "[HOST]")).unwrap();
        let set = RuleSet::new(vec![rule]).unwrap();
        assert_eq!(
            set.apply("host=ab.ab x", Scope::Key).unwrap(),
            "host=[HOST] x"
        );
    }

    #[test]
    fn bad_regex_names_the_rule() {
        let err = Rule::from_config(&user("broken", Some("(unclosed"), None, "x")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("rule `broken` has an invalid regex"),
            "{err}"
        );
    }

    #[test]
    fn regexes_past_the_limits_name_the_rule() {
        // Issue 11: a regex nested 10,000 deep overflowed the stack.
        let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        let err = Rule::from_config(&user("deep", Some(&deep), None, "x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "rule `deep` has a regex past vcr's limits: the pattern nests groups 10000 deep, \
             and vcr compiles patterns nested at most 128 deep"
        );
    }

    #[test]
    fn ignore_case_is_javascript_s() {
        // `/s/i` does not match `ſ` in JavaScript (Unicode case folding would).
        let mut rule = user("s", Some("s+"), None, "[S]");
        rule.ignore_case = Some(true);
        let set = RuleSet::new(vec![Rule::from_config(&rule).unwrap()]).unwrap();
        assert_eq!(set.apply("ſ sS", Scope::Both).unwrap(), "ſ [S]");
    }

    #[test]
    fn a_rule_needs_one_pattern() {
        let err = Rule::from_config(&user("none", None, None, "x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "rule `none` needs exactly one of `regex` and `literal`"
        );
        let err = Rule::from_config(&user("empty", None, Some(""), "x")).unwrap_err();
        assert_eq!(err.to_string(), "rule `empty` has an empty `literal`");
    }

    #[test]
    fn scopes_select_rules() {
        let mut key_only = user("k", None, Some("secret"), "[K]");
        key_only.scope = Some(Scope::Key);
        let set = RuleSet::new(vec![Rule::from_config(&key_only).unwrap()]).unwrap();
        assert_eq!(set.apply("secret", Scope::Key).unwrap(), "[K]");
        assert_eq!(set.apply("secret", Scope::Payload).unwrap(), "secret");
    }

    #[test]
    fn untouched_strings_are_not_copied() {
        let set = RuleSet::new(vec![
            Rule::from_config(&user("x", Some("zz"), None, "y")).unwrap(),
        ])
        .unwrap();
        assert!(matches!(
            set.apply("abc", Scope::Both),
            Ok(Cow::Borrowed(_))
        ));
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let a = Rule::from_config(&user("a", None, Some("x"), "y")).unwrap();
        let err = RuleSet::new(vec![a.clone(), a]).unwrap_err();
        assert_eq!(err.to_string(), "rule id `a` is used twice");
    }

    #[test]
    fn fingerprint_changes_with_the_rules() {
        let a = RuleSet::new(vec![
            Rule::from_config(&user("a", None, Some("x"), "y")).unwrap(),
        ])
        .unwrap();
        let b = RuleSet::new(vec![
            Rule::from_config(&user("a", None, Some("x"), "z")).unwrap(),
        ])
        .unwrap();
        assert_ne!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint().len(), 12);
    }
}
