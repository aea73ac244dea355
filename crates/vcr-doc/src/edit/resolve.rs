//! Whether a plain scalar stays a string: each loader's implicit typing, and each writer's
//! reasons to quote a string anyway.
//!
//! YAML 1.1 reads `yes`, `off`, `~`, `1_000`, `1:20` or `2024-01-01` unquoted as a boolean,
//! null, number or date, and each loader has its own list. A plain scalar may only hold a new
//! value that its loader reads back as that same string; the writers quote a few more (Psych
//! quotes `y` and `n` and strings that start with punctuation, yaml.v2 quotes base-60 floats
//! it would itself read as strings), and a rewrite quotes what the writer would have.

use std::sync::LazyLock;

use regex::Regex;

use super::Dialect;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

/// Whether the writer of `dialect` writes the string `value` as a plain scalar (where the
/// syntax allows one): its loader reads it back as that string, and the writer has no other
/// reason to quote it.
pub(super) fn plain_is_string(dialect: Dialect, value: &str) -> bool {
    match dialect {
        Dialect::PyYaml => pyyaml(value),
        Dialect::Psych => psych(value),
        Dialect::GoYaml => go_yaml(value),
        Dialect::Symfony => symfony(value),
        Dialect::Json => false,
    }
}

/// Symfony Yaml's `Inline::evaluateScalar` (5.x to 7.x) keeps a plain scalar a string: not
/// `null`, `~`, `true` or `false` in any case, not a number as PHP's `is_numeric` or its
/// `0x`/`0o`/`0b` and `_` forms read one, not a timestamp (an integer unless the caller asks
/// for dates), not `.inf` or `.nan`, and not starting with a character it reserves or reads
/// as a tag, anchor or alias. Everything PyYAML would type is quoted as well: the writer's
/// quotes are never wrong for Symfony, only sometimes unneeded.
fn symfony(value: &str) -> bool {
    static TYPED: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?i)^(?:null|~|true|false|[-+]?\.inf|\.nan)$",
            // is_numeric (leading white space allowed), and Symfony's `_` digit groups
            r"|^\s*[-+]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$",
            r"|^[-+]?0[xob][0-9a-fA-F_]+$",
        ))
    });
    !value.starts_with(['@', '`', '%', '|', '>', '!', '&', '*'])
        && !TYPED.is_match(value)
        && pyyaml(value)
}

/// Psych asks for double quotes where its `visit_String` does (`y`, `n`, and a string that
/// starts with a non-word character and holds no `"`); otherwise single quotes.
pub(super) fn psych_prefers_double(value: &str) -> bool {
    value == "y"
        || value == "n"
        || value.lines().next().is_some_and(|first| {
            let mut chars = first.chars();
            chars
                .next()
                .is_some_and(|c| !(c.is_alphanumeric() || c == '_'))
                && !first.contains('"')
        })
}

/// PyYAML's `Resolver` (YAML 1.1): the implicit resolvers of `resolver.py`.
fn pyyaml(value: &str) -> bool {
    static TYPED: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            // bool
            r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
            // float
            r"|^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
            r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
            r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
            // int
            r"|^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+",
            r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
            // merge, null, value
            r"|^(?:<<|~|null|Null|NULL|=|)$",
            // timestamp
            r"|^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
            r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?",
            r":[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
        ))
    });
    !TYPED.is_match(value)
}

/// Psych's `ScalarScanner#tokenize` returns a `String`, and `visit_String` would not quote it
/// (`y`, `n`, octal-looking numbers with an 8 or 9, a leading non-word character).
fn psych(value: &str) -> bool {
    // `<<` is written `!!str '<<'`.
    if value == "<<" {
        return false;
    }
    static OCTALISH: LazyLock<Regex> = LazyLock::new(|| re(r"^0[0-7]*[89]"));
    psych_tokenizes_to_string(value) && !psych_prefers_double(value) && !OCTALISH.is_match(value)
}

/// `Psych::ScalarScanner#tokenize` (Psych 4 and 5) gives a `String`: ASCII digits, Ruby's
/// `[[:alpha:]]` as Unicode alphabetic.
fn psych_tokenizes_to_string(value: &str) -> bool {
    static WORDY: LazyLock<Regex> =
        LazyLock::new(|| re(r"^[^0-9.:\-]?[\p{Alphabetic}_\s!@#$%^&*(){}<>|/\\~;=]+"));
    static NOT_STRING: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            // TIME
            r"^-?[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|\s+)[0-9]{1,2}:[0-9][0-9]:[0-9][0-9]",
            r"(?:\.[0-9]*)?(?:\s*(?:Z|[-+][0-9]{1,2}:?(?:[0-9][0-9])?))?$",
            // a date
            r"|^[0-9]{4}-(?:1[012]|0[0-9]|[0-9])-(?:[12][0-9]|3[01]|0[0-9]|[0-9])$",
            // infinities and NaN, any case
            r"|^(?i:\+?\.inf|-\.inf|\.nan)$",
            // symbols
            r"|^:.",
            // base 60
            r"|^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9]){1,2}(?:\.[0-9_]*)?$",
            // FLOAT (but `.`, `+.`, `-.` stay strings)
            r"|^[-+]?(?:[0-9][0-9_,]*)?\.[0-9]*(?:[eE][-+][0-9]+)?$",
            // INTEGER
            r"|^(?:[-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)",
            r"|[-+]?0x[0-9a-fA-F_,]+)$",
        ))
    });
    static LONE_DOT: LazyLock<Regex> = LazyLock::new(|| re(r"^[-+]?\.$"));
    if value.is_empty() {
        return false;
    }
    if value.contains('\n') || WORDY.is_match(value) {
        if value.chars().count() > 5 {
            return true;
        }
        if !value
            .chars()
            .next()
            .is_some_and(|c| "ytonfYTONF~".contains(c))
        {
            return true;
        }
        let lower = value.to_ascii_lowercase();
        return !matches!(
            lower.as_str(),
            "~" | "null" | "yes" | "true" | "on" | "no" | "false" | "off"
        );
    }
    LONE_DOT.is_match(value) || !NOT_STRING.is_match(value)
}

/// yaml.v2's `resolve` gives `!!str`, and its `stringv` would not quote it (base-60 floats).
fn go_yaml(value: &str) -> bool {
    static WORDS: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null",
        "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    static BASE60: LazyLock<Regex> =
        LazyLock::new(|| re(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$"));
    static DOT_FLOAT: LazyLock<Regex> = LazyLock::new(|| re(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$"));
    // A timestamp as `parseTimestamp` tries it (any of its layouts is enough to quote).
    static TIMESTAMP: LazyLock<Regex> =
        LazyLock::new(|| re(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?$"));
    // After removing `_`: `strconv.ParseInt(s, 0, 64)`, `ParseUint`, yaml.v2's float
    // pattern, and its `0b` forms.
    static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"^[-+]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|[0-9]+)$",
            r"|^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$",
        ))
    });
    if WORDS.contains(&value) || BASE60.is_match(value) {
        return false;
    }
    match value.as_bytes()[0] {
        b'.' => !DOT_FLOAT.is_match(value),
        b'0'..=b'9' | b'+' | b'-' => {
            !(TIMESTAMP.is_match(value) || NUMBER.is_match(&value.replace('_', "")))
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::{Dialect, plain_is_string};

    /// Each loader's own reading, checked against PyYAML 6, Psych 4 and yaml.v2 (and in
    /// `tests/doc_edit.rs` against the writers themselves).
    #[test]
    fn typed_plain_scalars_are_not_strings() {
        let table: &[(&str, [bool; 3])] = &[
            // value, string to [PyYAML, Psych, yaml.v2]
            ("hello", [true, true, true]),
            ("yes", [false, false, false]),
            ("YES", [false, false, false]),
            ("yEs", [true, false, true]),
            ("y", [true, false, false]),
            ("n", [true, false, false]),
            ("on", [false, false, false]),
            ("~", [false, false, false]),
            ("null", [false, false, false]),
            ("nULL", [true, false, true]),
            ("", [false, false, false]),
            ("123", [false, false, false]),
            ("1_000", [false, false, false]),
            ("1,000", [true, false, true]),
            ("12:30", [false, false, false]),
            ("0x1F", [false, false, false]),
            ("08", [true, false, false]),
            ("1.5", [false, false, false]),
            ("1e3", [true, true, false]),
            (".inf", [false, false, false]),
            (".5", [false, false, false]),
            ("2024-01-01", [false, false, false]),
            ("2024-01-01 10:00:00", [false, false, false]),
            (":sym", [true, false, true]),
            ("=", [false, false, true]),
            ("<<", [false, false, false]),
            ("[PLACEHOLDER]", [true, false, true]),
            ("sk-abc123", [true, true, true]),
            ("Bearer abc", [true, true, true]),
            ("application/json", [true, true, true]),
            ("-1", [false, false, false]),
            ("+", [true, false, true]),
            ("v1.2.3", [true, true, true]),
        ];
        for &(value, expected) in table {
            for (dialect, want) in [Dialect::PyYaml, Dialect::Psych, Dialect::GoYaml]
                .into_iter()
                .zip(expected)
            {
                assert_eq!(
                    plain_is_string(dialect, value),
                    want,
                    "{value:?} in {dialect:?}"
                );
            }
        }
    }

    /// What Symfony Yaml types, and PyYAML does not, is quoted for php-vcr: `1e3` (a float
    /// to `is_numeric`), `0o17`, `tRuE`, a leading `@`; what both read as a string stays
    /// plain.
    #[test]
    fn symfony_quotes_what_it_types() {
        for value in [
            "1e3", "0o17", "tRuE", "NULL", "@user", "1_000", " 12", ".inf", "yes",
        ] {
            assert!(!plain_is_string(Dialect::Symfony, value), "{value:?}");
        }
        for value in [
            "REDACTED_API_KEY",
            "Bearer abc",
            "application/json",
            "v1.2.3",
            "e3",
        ] {
            assert!(plain_is_string(Dialect::Symfony, value), "{value:?}");
        }
    }
}
