//! User patterns mean what they mean in JavaScript, whichever engine runs them (issue 11):
//! every pattern of the table, on every text of the table, gives node's match, groups and
//! replacements. Patterns without look-around or back-references run translated for the
//! linear-time `regex` engine; the others run in `regress`. Node is the oracle
//! (`tests/oracle/regex.js`); without node the test says it is skipped, unless
//! `VCR_REQUIRE_NODE=1`.

use crate::common::skip;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Deserialize;
use vcr_regex::JsRegex;

/// Patterns and their flags. Most translate; the look-around and back-reference ones (and
/// the few whose JavaScript meaning the `regex` crate cannot give) stay with `regress`.
const PATTERNS: &[(&str, &str)] = &[
    // Literals, alternation, quantifiers (greedy and lazy), braces that are not quantifiers.
    ("a", ""),
    ("abc", ""),
    ("a|b", ""),
    ("a|ab", ""),
    ("ab|a", ""),
    ("(a|ab)(c|bcd)(d*)", ""),
    ("x*", ""),
    ("a*", ""),
    ("x+", ""),
    ("x?", ""),
    ("x{2}", ""),
    ("x{2,}", ""),
    ("x{1,2}", ""),
    ("x{2,3}?", ""),
    ("x*?", ""),
    ("x+?", ""),
    ("a{", ""),
    ("a{,2}", ""),
    ("a{1,a}", ""),
    ("}", ""),
    ("]", ""),
    ("{", ""),
    ("a{0}b", ""),
    ("(a){0}b", ""),
    // Classes.
    ("[abc]", ""),
    ("[^abc]+", ""),
    ("[a-z]+", ""),
    ("[a-]", ""),
    ("[-a]", ""),
    ("[]", ""),
    ("[^]", ""),
    ("[^]+", ""),
    (r"[\w-z]+", ""),
    (r"[\d-]+", ""),
    (r"[\b]", ""),
    (r"[\B]", ""),
    ("[.]", ""),
    (r"[\]]", ""),
    ("[[]", ""),
    (r"[^\s]+", ""),
    (r"[\s\S]", ""),
    (r"[\u0041-\u005a]+", ""),
    (r"[\x41-\x5A]+", ""),
    (r"[\cJ]", ""),
    (r"[\c1]", ""),
    (r"[\-]", ""),
    (r"[\0]", ""),
    // Escapes, as JavaScript without `u` reads them.
    (r"\d+", ""),
    (r"\D+", ""),
    (r"\w+", ""),
    (r"\W+", ""),
    (r"\s+", ""),
    (r"\S+", ""),
    (r"\bfoo\b", ""),
    (r"\b\w", ""),
    (r"\B\w", ""),
    (r"\Boo\B", ""),
    (r"\b", ""),
    (r"\/", ""),
    (r"\.", ""),
    (r"\a", ""),
    (r"\e", ""),
    (r"\z", ""),
    (r"\u{3}", ""),
    (r"\u0041", ""),
    (r"\u00e9", ""),
    (r"\x41", ""),
    (r"\x4", ""),
    (r"\xZZ", ""),
    (r"\cJ", ""),
    (r"\cj", ""),
    (r"\0", ""),
    (r"\t\n", ""),
    (r"\v\f\r", ""),
    (r"\p{L}", ""),
    (r"\P", ""),
    (r"\-", ""),
    // `.` and anchors.
    (".", ""),
    (".+", ""),
    ("a.c", ""),
    (".", "s"),
    (".+", "s"),
    ("^a", ""),
    ("a$", ""),
    ("^$", ""),
    ("^", ""),
    ("$", ""),
    ("^a|b$", ""),
    // Groups and what JavaScript does with them in repetitions.
    ("(a)(b)?", ""),
    ("(?:a)(b)", ""),
    (r"(?<y>\d{4})-(?<m>\d\d)", ""),
    ("(a)|(b)", ""),
    ("((a)b)", ""),
    ("(a+)+", ""),
    ("(a+)+b", ""),
    (r"(\w+)\s(\w+)", ""),
    ("(?:(a)(b))+", ""),
    ("(a)+", ""),
    ("(a*)*", ""),
    ("(a*)*b", ""),
    ("(?:|a)*", ""),
    ("(?:|a)?", ""),
    ("(a*)?", ""),
    ("(a*)+", ""),
    ("(?:(a)|b)+", ""),
    ("(?:a|b|)+", ""),
    ("(a|b)*c", ""),
    // Needing backtracking: regress.
    ("(?<=a)b", ""),
    ("(?<!a)b", ""),
    ("a(?=b)", ""),
    ("a(?!b)", ""),
    (r"(\w)\1", ""),
    (r#"(?<q>['"]).*?\k<q>"#, ""),
    (r"\1(a)", ""),
    (r"(?<=\$)\d+", ""),
    // Case-insensitive, JavaScript's `Canonicalize` (not Unicode case folding).
    ("s", "i"),
    ("k", "i"),
    ("ß", "i"),
    ("σ", "i"),
    ("é", "i"),
    ("i", "i"),
    ("ı", "i"),
    ("[a-z]+", "i"),
    ("[^a-z]+", "i"),
    (r"\w+", "i"),
    (r"\W", "i"),
    ("[à-ÿ]+", "i"),
    ("straße", "i"),
    ("[^k]", "i"),
    (r"[\W]", "i"),
    ("fOO", "i"),
    // Annex B odds and ends.
    (r"[\d-z]+", ""),
    (r"[a-\d]+", ""),
    (r"[--0]+", ""),
    (r"[\s-]+", ""),
    (r"[^\W\d]+", ""),
    (r"\08", ""),
    ("a{2}?", ""),
    ("a??b", ""),
    ("(?:)", ""),
    ("a|", ""),
    ("()", ""),
    ("()*", ""),
    ("(?<a>x)|(?<y>b)", ""),
    ("(?:a|ab)*c", ""),
    ("x*?y", ""),
    (r"\w\W", ""),
    (r"é", ""),
    // Multiline anchors (regress: JavaScript has four line terminators).
    ("^\\w+", "m"),
    ("\\w+$", "m"),
];

/// The texts every pattern runs on (no characters outside the BMP: see `js_regex`'s docs).
const TEXTS: &[&str] = &[
    "",
    "a",
    "b",
    "ab",
    "abc",
    "aab",
    "aaab",
    "abcd",
    "bbb",
    "ba",
    "xxx xx x",
    "foo bar",
    "Foo BAR bAz fOo",
    "2024-05-06",
    "line1\nline2\r\nline3\u{2028}x\u{2029}y",
    " \t\u{a0}\u{1680}\u{2000}\u{200a}\u{202f}\u{205f}\u{3000}\u{feff}\u{85}|",
    "ſ s S ß ẞ K k \u{212a} σ ς Σ é É ı İ i I",
    "a{ a{,2} } ] { [ uuu u{3} p{L} \\c1 \\a a.c a-c - /",
    "\u{0}\u{1}\u{8}\u{b}\u{c}\u{11}\u{3}",
    "'quoted' \"dq\" `bt` $42 a$",
    "café naïve ÀÉÎõü ÿ",
    "aaaaaaaaaaaaaaaa",
];

const REPLACEMENT: &str = "[$&|$1|$<y>|$$]";

#[derive(Debug, Deserialize, PartialEq)]
struct Answer {
    #[serde(default)]
    exec: Option<Vec<Option<String>>>,
    #[serde(default)]
    all: Option<String>,
    #[serde(default)]
    first: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

fn node_answers(cases: &[(&str, &str, &str)]) -> Option<Vec<Answer>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/regex.js");
    let child = Command::new("node")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            if std::env::var_os("VCR_REQUIRE_NODE").is_some() {
                panic!("node is required (VCR_REQUIRE_NODE is set) but cannot run: {e}");
            }
            skip("node not found on PATH");
            return None;
        }
    };
    let mut input = String::new();
    for (pattern, flags, text) in cases {
        let case = serde_json::json!({
            "pattern": pattern, "flags": flags, "text": text, "replacement": REPLACEMENT,
        });
        input.push_str(&case.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "node failed");
    let text = String::from_utf8(out.stdout).unwrap();
    Some(
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
    )
}

fn ours(regex: &Result<JsRegex, String>, text: &str) -> Answer {
    let regex = match regex {
        Ok(regex) => regex,
        Err(e) => {
            return Answer {
                exec: None,
                all: None,
                first: None,
                error: Some(e.clone()),
            };
        }
    };
    let exec = regex.exec(text).unwrap().map(|m| {
        std::iter::once(Some(text[m.range].to_owned()))
            .chain(m.groups.into_iter().map(|g| g.map(|r| text[r].to_owned())))
            .collect()
    });
    let replace = |global| {
        regex
            .replace(text, REPLACEMENT, global)
            .unwrap()
            .unwrap_or_else(|| text.to_owned())
    };
    Answer {
        exec,
        all: Some(replace(true)),
        first: Some(replace(false)),
        error: None,
    }
}

#[test]
fn regexes_mean_what_node_says() {
    let cases: Vec<(&str, &str, &str)> = PATTERNS
        .iter()
        .flat_map(|&(pattern, flags)| TEXTS.iter().map(move |&text| (pattern, flags, text)))
        .collect();
    let Some(answers) = node_answers(&cases) else {
        return;
    };
    assert_eq!(answers.len(), cases.len());
    let mut linear = 0;
    let mut mismatches = Vec::new();
    for (i, &(pattern, flags)) in PATTERNS.iter().enumerate() {
        let regex = JsRegex::new(pattern, flags).map_err(|e| e.to_string());
        linear += usize::from(regex.as_ref().is_ok_and(JsRegex::is_linear));
        for (j, &text) in TEXTS.iter().enumerate() {
            let theirs = &answers[i * TEXTS.len() + j];
            assert!(theirs.error.is_none(), "node rejects /{pattern}/{flags}");
            let ours = ours(&regex, text);
            if &ours != theirs {
                mismatches.push(format!(
                    "/{pattern}/{flags} on {text:?}:\n  vcr  {ours:?}\n  node {theirs:?}"
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} cases differ from node:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches[..mismatches.len().min(15)].join("\n")
    );
    // The table exercises both engines.
    assert!(linear > PATTERNS.len() * 2 / 3, "{linear} linear");
    assert!(linear < PATTERNS.len());
}
