//! The built-in presets, reproducing the seed systems' dehydration step for step.

use regex::Regex;

use super::{Action, Rule, Scope, canonical_line};

/// The platform whose path forms the preset replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Platform {
    /// Linux, macOS and the other Unixes: only the path as written.
    Unix,
    /// Windows: also the forward-slash and JSON-escaped forms (Claude Code's `win32` block).
    Windows,
}

impl Platform {
    /// The platform vcr runs on.
    pub fn native() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }
}

/// The machine values the preset replaces with placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// What `[CWD]` stands for: the harness's working directory when it recorded.
    pub cwd: String,
    /// What `[CONFIG_HOME]` stands for (`$CLAUDE_CONFIG_DIR` or `~/.claude`, NFC).
    pub config_home: String,
    /// Which path forms to replace.
    pub platform: Platform,
}

/// JavaScript's `\s` as a character-class body (ECMAScript WhiteSpace and LineTerminator).
/// Rust's Unicode `\s` differs: it includes U+0085 and excludes U+FEFF.
const JS_WHITESPACE: &str = r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// The `claude-code` preset: Claude Code 2.1.88's `dehydrateValue`, in its order.
///
/// 1-3. `num_files`, `duration_ms`, `cost_usd` integers; 4-5. the config home, then the
/// working directory, as literals; 6. the first `Available commands:` line; 7. on Windows the
/// JSON-escaped and forward-slash forms; 8. separators after `[CWD]` and `[CONFIG_HOME]`;
/// 9. the `Files modified by user:` collapse.
pub fn claude_code(machine: &Machine) -> Vec<Rule> {
    let mut rules = vec![
        regex_rule(
            "num-files",
            r#"num_files="[0-9]+""#,
            r#"num_files="[NUM]""#,
            true,
        ),
        regex_rule(
            "duration-ms",
            r#"duration_ms="[0-9]+""#,
            r#"duration_ms="[DURATION]""#,
            true,
        ),
        regex_rule(
            "cost-usd",
            r#"cost_usd="[0-9]+""#,
            r#"cost_usd="[COST]""#,
            true,
        ),
        literal_rule(
            "config-home",
            &machine.config_home,
            "{config-home}",
            "[CONFIG_HOME]",
        ),
        literal_rule("cwd", &machine.cwd, "{cwd}", "[CWD]"),
        // JavaScript's `.` stops at \n, \r, U+2028 and U+2029; no `g` flag: first match only.
        regex_rule(
            "available-commands",
            r"Available commands:[^\n\r\x{2028}\x{2029}]+",
            "Available commands: [COMMANDS]",
            false,
        ),
    ];
    if machine.platform == Platform::Windows {
        let json = |s: &str| {
            let mut out = Vec::new();
            vcr_json::write_string(&vcr_json::Str::new(s), &mut out);
            let quoted = String::from_utf8(out).expect("JSON text is UTF-8");
            quoted[1..quoted.len() - 1].to_owned()
        };
        let forward = |s: &str| s.replace('\\', "/");
        rules.extend([
            literal_rule("cwd-json", &json(&machine.cwd), "{cwd:json}", "[CWD]"),
            literal_rule(
                "config-home-json",
                &json(&machine.config_home),
                "{config-home:json}",
                "[CONFIG_HOME]",
            ),
            literal_rule(
                "cwd-forward",
                &forward(&machine.cwd),
                "{cwd:forward}",
                "[CWD]",
            ),
            literal_rule(
                "config-home-forward",
                &forward(&machine.config_home),
                "{config-home:forward}",
                "[CONFIG_HOME]",
            ),
        ]);
    }
    rules.push(separators("cwd-separators", "[CWD]"));
    rules.push(separators("config-home-separators", "[CONFIG_HOME]"));
    rules.push(Rule {
        id: "files-modified".into(),
        needle: Some("Files modified by user:".into()),
        action: Action::Collapse {
            needle: "Files modified by user:".into(),
            value: "Files modified by user: [FILES]".into(),
        },
        scope: Scope::Both,
        canonical: canonical_line(
            "files-modified",
            "contains \"Files modified by user:\"",
            "Files modified by user: [FILES]",
            Scope::Both,
        ),
    });
    rules
}

/// A preset rule's regex: compiled the first time the rule runs on a string (a run whose
/// strings hold none of the preset's needles compiles none), and once per process, for the
/// patterns are the same on every machine (its values enter as literals) while a rule set
/// is made for each working directory. `verify --staged` compiled them twice before it
/// checked a file (issue 44).
#[derive(Debug, Clone)]
pub(super) struct PresetRegex(std::sync::Arc<PresetPattern>);

#[derive(Debug)]
struct PresetPattern {
    pattern: String,
    compiled: std::sync::OnceLock<Regex>,
}

impl PresetRegex {
    /// The process's one regex for `pattern`, not compiled yet.
    fn new(pattern: &str) -> PresetRegex {
        static PATTERNS: std::sync::Mutex<Vec<PresetRegex>> = std::sync::Mutex::new(Vec::new());
        let mut patterns = PATTERNS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = patterns.iter().find(|p| p.0.pattern == pattern) {
            return known.clone();
        }
        let regex = PresetRegex(std::sync::Arc::new(PresetPattern {
            pattern: pattern.to_owned(),
            compiled: std::sync::OnceLock::new(),
        }));
        patterns.push(regex.clone());
        regex
    }

    /// The compiled regex (compiled now if it was not).
    pub(super) fn get(&self) -> &Regex {
        self.0
            .compiled
            .get_or_init(|| Regex::new(&self.0.pattern).expect("preset patterns compile"))
    }
}

fn regex_rule(id: &str, pattern: &str, replacement: &str, global: bool) -> Rule {
    // Every preset pattern starts with a literal up to its first class or quantifier.
    let needle: String = pattern
        .chars()
        .take_while(|c| !matches!(c, '[' | '(' | '\\' | '.' | '+' | '*'))
        .collect();
    Rule {
        id: id.into(),
        needle: Some(needle),
        action: Action::Regex {
            re: PresetRegex::new(pattern),
            replacement: replacement.into(),
            global,
        },
        scope: Scope::Both,
        canonical: canonical_line(id, pattern, replacement, Scope::Both),
    }
}

/// A literal rule for a machine value; an empty value replaces nothing.
fn literal_rule(id: &str, needle: &str, symbol: &str, replacement: &str) -> Rule {
    let action = if needle.is_empty() {
        Action::Disabled
    } else {
        Action::Literal {
            needle: needle.into(),
            replacement: replacement.into(),
        }
    };
    Rule {
        id: id.into(),
        needle: (!needle.is_empty()).then(|| needle.to_owned()),
        action,
        scope: Scope::Both,
        canonical: canonical_line(id, symbol, replacement, Scope::Both),
    }
}

fn separators(id: &str, placeholder: &str) -> Rule {
    let pattern = format!(r#"{}[^{JS_WHITESPACE}"'<>]*"#, regex::escape(placeholder));
    Rule {
        id: id.into(),
        needle: Some(placeholder.to_owned()),
        action: Action::Separators {
            re: PresetRegex::new(&pattern),
        },
        scope: Scope::Both,
        canonical: canonical_line(id, &pattern, "\\ -> /", Scope::Both),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    fn set(cwd: &str, config_home: &str, platform: Platform) -> RuleSet {
        RuleSet::new(claude_code(&Machine {
            cwd: cwd.into(),
            config_home: config_home.into(),
            platform,
        }))
        .unwrap()
    }

    #[track_caller]
    fn case(set: &RuleSet, input: &str, expected: &str) {
        assert_eq!(
            set.apply(input, Scope::Both).unwrap(),
            expected,
            "{input:?}"
        );
    }

    #[test]
    fn rule_sets_for_two_folders_share_the_compiled_patterns_and_keep_their_own_values() {
        // The second set reuses the first one's compiled regexes (issue 44); each still
        // replaces its own folder, and both rewrite as one compiled alone would.
        let a = set("/work/a", "/home/u/.claude", Platform::Unix);
        let b = set("/work/b", "/home/v/.claude", Platform::Unix);
        for (s, cwd, home) in [
            (&a, "/work/a", "/home/u/.claude"),
            (&b, "/work/b", "/home/v/.claude"),
        ] {
            case(s, &format!("at {cwd}\\src\\x.ts"), "at [CWD]/src/x.ts");
            case(
                s,
                &format!("{home}/settings.json"),
                "[CONFIG_HOME]/settings.json",
            );
            case(
                s,
                r#"num_files="7" duration_ms="5" Available commands: x"#,
                r#"num_files="[NUM]" duration_ms="[DURATION]" Available commands: [COMMANDS]"#,
            );
        }
        // Each regex runs only where its own needle is: one rule's needle present does not
        // make another rule match, nor stop it.
        case(
            &a,
            r#"[CWD]\a cost_usd="4" num_files=3"#,
            r#"[CWD]/a cost_usd="[COST]" num_files=3"#,
        );
        case(&a, "Available commands x", "Available commands x");
        case(&a, "at /work/b/x.ts", "at /work/b/x.ts");
        case(&b, "at /work/a/x.ts", "at /work/a/x.ts");
        assert_eq!(a.fingerprint(), b.fingerprint());
    }

    #[test]
    fn dehydrates_like_claude_code_on_unix() {
        let s = set("/home/u/proj", "/home/u/.claude", Platform::Unix);
        case(&s, "at /home/u/proj/src/a.ts", "at [CWD]/src/a.ts");
        case(
            &s,
            "/home/u/.claude/settings.json",
            "[CONFIG_HOME]/settings.json",
        );
        case(
            &s,
            r#"num_files="12" cost_usd="0.12" cost_usd="3""#,
            r#"num_files="[NUM]" cost_usd="0.12" cost_usd="[COST]""#,
        );
        case(
            &s,
            "Available commands: a\nAvailable commands: b",
            "Available commands: [COMMANDS]\nAvailable commands: b",
        );
        case(
            &s,
            "Available commands: a\u{2028}b",
            "Available commands: [COMMANDS]\u{2028}b",
        );
        case(&s, "[CWD]\\src\\\\a.ts x\\y", "[CWD]/src/a.ts x\\y");
        case(
            &s,
            "x Files modified by user: a, b",
            "Files modified by user: [FILES]",
        );
        // JavaScript's \s includes U+FEFF and stops the separator run; U+0085 does not.
        case(&s, "[CWD]\\a\u{feff}\\b", "[CWD]/a\u{feff}\\b");
        case(&s, "[CWD]\\a\u{85}\\b", "[CWD]/a\u{85}/b");
        // \d is ASCII only in JavaScript.
        case(&s, "num_files=\"١٢\"", "num_files=\"١٢\"");
    }

    #[test]
    fn windows_adds_escaped_and_forward_forms() {
        let s = set(r"C:\Users\u\proj", r"C:\Users\u\.claude", Platform::Windows);
        case(&s, r"C:\Users\u\proj\src\a.ts", "[CWD]/src/a.ts");
        case(&s, r"C:\\Users\\u\\proj\\src", "[CWD]/src");
        case(&s, "C:/Users/u/proj/src", "[CWD]/src");
        case(&s, r"C:\Users\u\.claude\x", "[CONFIG_HOME]/x");
        let unix = set(r"C:\Users\u\proj", r"C:\Users\u\.claude", Platform::Unix);
        case(&unix, "C:/Users/u/proj/src", "C:/Users/u/proj/src");
    }

    #[test]
    fn fingerprint_does_not_depend_on_the_machine() {
        let a = set("/home/a/p", "/home/a/.claude", Platform::Unix);
        let b = set("/Users/b/q", "/Users/b/.claude", Platform::Unix);
        let w = set("/Users/b/q", "/Users/b/.claude", Platform::Windows);
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), w.fingerprint());
    }
}
