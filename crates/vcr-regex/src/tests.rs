//! Which engine runs what, the limits, and the time limit. What the patterns mean is held to
//! node in `tests/js_regex.rs`.

use std::time::Instant;

use super::*;

#[track_caller]
fn engine(pattern: &str, flags: &str, linear: bool) {
    let re = JsRegex::new(pattern, flags).unwrap_or_else(|e| panic!("/{pattern}/: {e}"));
    assert_eq!(re.is_linear(), linear, "/{pattern}/{flags}");
}

#[test]
fn patterns_run_in_linear_time_where_javascript_allows() {
    engine("(a+)+b", "", true);
    engine(r"build-(\d+)\.ci\.internal", "", true);
    engine(r"(?<host>[a-z]+)\.internal", "i", true);
    engine(r"\u{3}[^]\cJ\x41\/", "", true);
    engine("(a)+", "", true);
    engine("(?:(a)(b))+", "", true);
    // Look-around and back-references need backtracking.
    engine("(?<=x)y", "", false);
    engine("a(?!b)", "", false);
    engine(r"(\w)\1", "", false);
    engine(r"(?<q>.)\k<q>", "", false);
    // The `regex` crate would mean something else: JavaScript rejects empty iterations
    // and resets the groups of each iteration; `m` has four line terminators.
    engine("(?:|a)*", "", false);
    engine("(a*)*", "", false);
    engine("(?:(a)|b)+", "", false);
    engine("^a", "m", false);
    engine("a", "m", true);
    // Two code units each to JavaScript without `u`.
    engine("😀+", "", false);
    engine(r"\uD83D", "", false);
    // Legacy octal escapes.
    engine(r"\01", "", false);
    engine(r"[\1]", "", false);
}

#[test]
fn catastrophic_backtracking_is_linear_once_translated() {
    // Issue 11: `(a+)+b` took minutes on 40 `a`s.
    let re = JsRegex::new("(a+)+b", "").unwrap();
    let text = "a".repeat(100_000);
    let started = Instant::now();
    assert_eq!(re.replace(&text, "x", true), Ok(None));
    assert_eq!(
        re.replace(&format!("{text}b"), "x", true),
        Ok(Some("x".into()))
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn javascript_replace_semantics() {
    #[track_caller]
    fn case(pattern: &str, text: &str, replacement: &str, global: bool, expected: Option<&str>) {
        for re in [
            JsRegex::new(pattern, "").unwrap(),
            JsRegex::backtracking(pattern, "").unwrap(),
        ] {
            assert_eq!(
                re.replace(text, replacement, global).unwrap().as_deref(),
                expected,
                "/{pattern}/ linear: {}",
                re.is_linear()
            );
        }
    }
    // After a non-empty match an empty one may follow at its end (node: "--b-").
    case("a*", "aab", "-", true, Some("--b-"));
    case("", "ab", "-", true, Some("-a-b-"));
    case("x*", "é", "-", true, Some("-é-"));
    // `GetSubstitution`.
    case("b", "abc", "[$&]", true, Some("a[b]c"));
    case("b", "abc", "$`|$'", true, Some("aa|cc"));
    case("(b)", "abc", "$1$1", true, Some("abbc"));
    case("(b)", "abc", "$2", true, Some("a$2c"));
    case("(b)", "abc", "$0", true, Some("a$0c"));
    case("(b)", "abc", "$10", true, Some("ab0c"));
    case("(b)", "abc", "[$1$2$&$`$'$$]", true, Some("a[b$2bac$]c"));
    case("(?<x>b)", "abc", "<$<x>$<nope>>", true, Some("a<b>c"));
    case("b", "abc", "$<x>", true, Some("a$<x>c"));
    case("b", "abc", "$$", true, Some("a$c"));
    case("b", "abc", "x$", true, Some("ax$c"));
    case("b", "abbc", "x", false, Some("axbc"));
    case("z", "abc", "x", true, None);
}

#[test]
fn deep_nesting_is_a_limit_not_a_stack_overflow() {
    // Issue 11: 10,000 nested groups overflowed the stack (exit 134). (5,000 of the longer
    // openers stay within the length limit, so it is the nesting that is refused.)
    for open in ["(", "(?:", "(?=", "(?<!"] {
        let deep = format!("{}a{}", open.repeat(5_000), ")".repeat(5_000));
        let err = JsRegex::new(&deep, "").unwrap_err();
        assert_eq!(
            err,
            PatternError::Limit(Limit::TooDeep { depth: 5_000 }),
            "{open}"
        );
        let units = deep.chars().map(u32::from).collect();
        assert_eq!(validate(units, "g"), Err(err));
    }
    let alternatives = vec!["a"; 20_000].join("|");
    assert!(matches!(
        JsRegex::new(&alternatives, ""),
        Err(PatternError::Limit(Limit::TooLong { len: 39_999 }))
    ));
    let unrolled = format!("{}a{}", "(?:".repeat(12), "){5}".repeat(12));
    assert_eq!(
        JsRegex::new(&unrolled, "").unwrap_err(),
        PatternError::Limit(Limit::TooLarge)
    );
}

#[test]
fn patterns_at_the_limits_compile_and_run() {
    // Nested look-arounds recurse in regress's matcher: 25 of them overflow a 2 MiB stack in
    // a debug build, so they run on a worker's stack.
    let deep = format!("{}a{}", "(?=".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
    let re = JsRegex::new(&deep, "").unwrap();
    assert!(!re.is_linear());
    assert_eq!(re.is_match("xa"), Ok(true));
    // regress's alternatives nest one level each.
    let many = vec!["ab"; MAX_LEN / 3].join("|");
    let re = JsRegex::backtracking(&many, "").unwrap();
    assert_eq!(re.is_match("xab"), Ok(true));
}

#[test]
fn escapes_regress_misreads_are_spelled_out() {
    let units = |s: &str| s.chars().map(u32::from).collect::<Vec<_>>();
    #[track_caller]
    fn case(pattern: &str, expected: &str) {
        let units: Vec<u32> = pattern.chars().map(u32::from).collect();
        let out: String = for_regress(&units, false)
            .into_iter()
            .filter_map(char::from_u32)
            .collect();
        assert_eq!(out, expected, "{pattern}");
    }
    case(r"\u{3}", "u{3}");
    case(r"\u0041\u004", r"\u0041u004");
    case(r"\x41\x4\xZZ", r"\x41x4xZZ");
    case(r"[\x]\\x", r"[x]\\x");
    case(r"(?<\u{61}>a)\k<\u{61}>", r"(?<\u{61}>a)\k<\u{61}>");
    case(r"(?<=\u{2})", "(?<=u{2})");
    case("\\", "\\");
    assert_eq!(for_regress(&units(r"\u{3}"), true), units(r"\u{3}"));
    // Fuzzing found: regress compiled `\1\x(` and panicked running it; JavaScript says
    // "Unterminated group" (issue 11).
    assert!(matches!(
        JsRegex::new(r"\1\x(", ""),
        Err(PatternError::Syntax(_))
    ));
    assert_eq!(
        JsRegex::backtracking(r"\u{3}", "").unwrap().is_match("uuu"),
        Ok(true)
    );
}

#[test]
fn syntax_errors_are_regress_s() {
    assert_eq!(
        JsRegex::new("(unclosed", "").unwrap_err(),
        PatternError::Syntax("Unbalanced parenthesis".into())
    );
    assert!(matches!(
        JsRegex::new("a{2,1}", ""),
        Err(PatternError::Syntax(_))
    ));
}

#[test]
fn backtracking_matches_stop_at_the_time_limit() {
    // Issue 11: a pattern that needs backtracking (the look-ahead) and backtracks
    // catastrophically, where the prefilter (`a`) cannot help. 18 `a`s take regress about
    // half a second in a debug build; the abandoned worker finishes then.
    let re = JsRegex::new("(?=(a+)+b)a", "")
        .unwrap()
        .with_time_limit(Duration::from_millis(20));
    assert!(!re.is_linear());
    let text = "a".repeat(18);
    assert_eq!(
        re.replace(&text, "x", true),
        Err(Stopped::TimeLimit { chars: 18 })
    );
    // Not run again...
    assert_eq!(re.is_match("aab"), Err(Stopped::Disabled));
    // ...except where the linear prefilter knows it cannot match.
    assert_eq!(re.is_match("bbb"), Ok(false));
}

#[test]
fn the_prefilter_keeps_backtracking_semantics() {
    let re = JsRegex::new(r"(?<=\$)(\d+)(?!\d)", "").unwrap();
    assert!(!re.is_linear());
    assert_eq!(
        re.replace("cost $42, 7 items", "[$1]", true),
        Ok(Some("cost $[42], 7 items".into()))
    );
    assert_eq!(re.replace("no money", "x", true), Ok(None));
    // A leading look-behind joins the prefilter; with an alternative it cannot.
    let re = JsRegex::new(r"(?<=token=)\w+", "").unwrap();
    assert_eq!(
        re.replace("a token=abc b", "[T]", true),
        Ok(Some("a token=[T] b".into()))
    );
    assert_eq!(re.replace("token abc", "[T]", true), Ok(None));
    let Engine::Backtracking(bt) = &re.engine else {
        panic!("a look-behind needs backtracking");
    };
    let prefilter = bt.prefilter.as_ref().unwrap();
    assert!(
        !prefilter.is_match("plain words"),
        "the prefilter holds `token=`"
    );
    assert!(prefilter.is_match("token=x"));
    let re = JsRegex::new(r"\w+(?=@example)", "").unwrap();
    assert_eq!(
        re.replace("mail bob@example.com", "[U]", true),
        Ok(Some("mail [U]@example.com".into()))
    );
    let Engine::Backtracking(bt) = &re.engine else {
        panic!("a look-ahead needs backtracking");
    };
    assert!(!bt.prefilter.as_ref().unwrap().is_match("plain words"));
    let re = JsRegex::new(r"(?<=token=)\w+|^x", "").unwrap();
    assert_eq!(re.replace("xyz", "[T]", true), Ok(Some("[T]yz".into())));
    let re = JsRegex::new(r"(['x])\1", "i").unwrap();
    assert_eq!(re.is_match("a 'X' b"), Ok(false));
    assert_eq!(re.is_match("a xX b"), Ok(true));
}
