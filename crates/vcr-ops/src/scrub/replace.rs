//! Many substitutions over one text in one pass, at token boundaries.
//!
//! A scalar can hold thousands of secrets (a JSON list of keys, a `Cookie` header, an SSE
//! body). Applying each substitution to the whole text in turn made a scrub quadratic in
//! them (issue 43); here every form of every value (as it is, JSON-escaped once and twice,
//! percent-encoded, or quoted whole) is found in one search ([`Finder`]), and the occurrences are
//! taken in the order the substitutions would have been applied one after another: a
//! substitution's occurrences before the next one's, each left to right, none overlapping one
//! taken before it. The text is then written once.
//!
//! A value replaced inside other text is replaced only where it stands as a token of its
//! own: a letter or digit right before or after it (`aa7d3f9a2cbb` around `7d3f9a2c`, an
//! ETag, an id) means the bytes belong to something else. An escape (`\n`, `\u0022`) ends a
//! token as a space would.

use std::borrow::{Borrow, Cow};
use std::collections::BTreeMap;

use super::finder::Finder;
use super::{How, Name, Sub};

/// Where a text sits, which says what a substitution of each kind may replace in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Site {
    /// A scalar of the cassette's own (a header value, the URL: `url`, whose query
    /// parameters are addressed by name): a whole value is the whole text, or the credential
    /// after its scheme (`Bearer <token>`).
    Field {
        /// Whether the text is a URL.
        url: bool,
    },
    /// A body's text: a whole value stands between JSON quotes or as a form value.
    Body,
}

/// One occurrence taken: `start..end` of the text becomes `new`, for the substitution
/// `sub` (its index in the list given). `new` is the substitution's own text where that is
/// what the occurrence becomes (not a copy per occurrence: a scalar can hold thousands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Taken<'s> {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) new: Cow<'s, str>,
    pub(super) sub: usize,
}

/// What [`find`] found in a text.
#[derive(Debug, Default)]
pub(super) struct Found<'s> {
    /// The occurrences taken, by position.
    pub(super) taken: Vec<Taken<'s>>,
    /// Occurrences left because they overlap one taken before them.
    pub(super) overlapped: usize,
}

/// `text` with `subs` applied as if one after another; the rule of each substitution that
/// changed something is added to `rules` (once, in the order of `subs`).
pub(super) fn apply<'t, S: Borrow<Sub>>(
    text: &'t str,
    subs: &[S],
    site: Site,
    rules: &mut Vec<Name>,
) -> Cow<'t, str> {
    // A parameter set by name rewrites the query as a whole: the substitutions around it
    // are applied in one pass each, before and after it, as they were given.
    let mut out = Cow::Borrowed(text);
    let mut run_start = 0;
    for (i, sub) in subs.iter().enumerate() {
        let sub = sub.borrow();
        if let How::Param(name) = &sub.how {
            out = in_one_pass(out, &subs[run_start..i], site, rules);
            run_start = i + 1;
            let set = match site {
                Site::Field { url: true } => set_query_param(&out, name, &sub.new),
                Site::Field { url: false } => None,
                Site::Body => Some(super::set_param(&out, name, &sub.new)),
            };
            if let Some(new) = set
                && new != *out
            {
                push_rule(rules, &sub.rule);
                out = Cow::Owned(new);
            }
        }
    }
    in_one_pass(out, &subs[run_start..], site, rules)
}

/// [`apply`] of substitutions none of which sets a parameter by name.
fn in_one_pass<'t, S: Borrow<Sub>>(
    text: Cow<'t, str>,
    subs: &[S],
    site: Site,
    rules: &mut Vec<Name>,
) -> Cow<'t, str> {
    if subs.is_empty() {
        return text;
    }
    let found = find(&text, subs, site);
    if found.taken.is_empty() {
        return text;
    }
    let mut used = vec![false; subs.len()];
    for taken in &found.taken {
        used[taken.sub] = true;
    }
    for (sub, used) in subs.iter().zip(used) {
        if used {
            push_rule(rules, &sub.borrow().rule);
        }
    }
    Cow::Owned(write(&text, &found.taken))
}

fn push_rule(rules: &mut Vec<Name>, rule: &Name) {
    if !rules.iter().any(|r| r == rule) {
        rules.push(rule.clone());
    }
}

/// `text` with each occurrence of `taken` (by position, none overlapping) replaced, into a
/// string of its final size.
pub(super) fn write(text: &str, taken: &[Taken<'_>]) -> String {
    let removed: usize = taken.iter().map(|t| t.end - t.start).sum();
    let added: usize = taken.iter().map(|t| t.new.len()).sum();
    let mut out = String::with_capacity(text.len() + added - removed.min(text.len() + added));
    let mut at = 0;
    for t in taken {
        out.push_str(&text[at..t.start]);
        out.push_str(&t.new);
        at = t.end;
    }
    out.push_str(&text[at..]);
    out
}

/// How an occurrence of a pattern must stand to be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stand {
    /// Anywhere, at token boundaries.
    Token,
    /// As it is (its quotes are part of the pattern).
    Quoted,
    /// As the whole value of a form pair (`=` before it, `&` or the end after it).
    FormValue,
}

/// A pattern of the search: which substitution, in which of its forms (the order its
/// forms were applied in), and how it must stand. What it becomes is written for an
/// occurrence taken only ([`forms`]): a string per pattern, and a map of the patterns to
/// their owners, were most of the memory of a scrub of thousands of secrets in one scalar
/// (issue 43).
#[derive(Debug, Clone, Copy)]
struct Owner {
    sub: u32,
    form: u8,
    stand: Stand,
}

/// The forms `sub` is found in within a text at `site`, each with its number (the order
/// they are applied in), how it must stand, and, with `new`, what it becomes (else an empty
/// string): none for a substitution found by other means (a parameter set by name, a whole
/// field).
fn forms(sub: &Sub, site: Site, new: bool) -> Vec<(usize, String, Stand, String)> {
    let escape = |s: &str| if new { json_escape(s) } else { String::new() };
    let pct = |s: &str| {
        if new {
            vcr_lint::percent_encoded(s)
        } else {
            String::new()
        }
    };
    let plain = || {
        if new {
            sub.new.to_string()
        } else {
            String::new()
        }
    };
    let mut out = Vec::new();
    match (&sub.how, site) {
        (How::Param(_), _) | (How::Whole, Site::Field { .. }) => {}
        (How::Whole, Site::Body) => {
            let once = (json_escape(&sub.old), escape(&sub.new));
            let twice = (json_escape(&once.0), escape(&once.1));
            let mut form = 1;
            for (o, n) in [&once, &twice] {
                for q in ["\"", "\\\""] {
                    let n = if new {
                        format!("{q}{n}{q}")
                    } else {
                        String::new()
                    };
                    out.push((form, format!("{q}{o}{q}"), Stand::Quoted, n));
                    form += 1;
                }
            }
            let pct = (vcr_lint::percent_encoded(&sub.old), pct(&sub.new));
            for (o, n) in [(sub.old.clone(), plain()), pct] {
                out.push((form, o, Stand::FormValue, n));
                form += 1;
            }
        }
        (How::Inside, _) => {
            let once = (json_escape(&sub.old), escape(&sub.new));
            let twice = (json_escape(&once.0), escape(&once.1));
            let pct = (vcr_lint::percent_encoded(&sub.old), pct(&sub.new));
            let mut forms = vec![(sub.old.clone(), plain())];
            for (o, n) in [once, twice, pct] {
                if o != sub.old {
                    forms.push((o, n));
                }
            }
            for (form, (o, n)) in forms.into_iter().enumerate() {
                out.push((form, o, Stand::Token, n));
            }
        }
    }
    out
}

/// The occurrences of `subs` in `text` that applying them one after another would replace.
pub(super) fn find<'s, S: Borrow<Sub>>(text: &str, subs: &'s [S], site: Site) -> Found<'s> {
    // Candidates: (substitution, form, start, end).
    let mut candidates: Vec<(usize, usize, usize, usize)> = Vec::new();
    // Every form's pattern with its owner; equal patterns are found once, for each owner in
    // the order they came.
    let mut entries: Vec<(String, Owner)> = Vec::new();
    for (i, sub) in subs.iter().enumerate() {
        let sub = sub.borrow();
        if sub.old.is_empty() || *sub.old == *sub.new {
            continue;
        }
        match (&sub.how, site) {
            (How::Whole, Site::Field { .. }) => {
                if text == sub.old {
                    candidates.push((i, 0, 0, text.len()));
                } else if let Some(scheme) = text.strip_suffix(sub.old.as_str())
                    && scheme.ends_with(' ')
                    && !scheme.trim().contains(' ')
                {
                    // `Bearer <token>`: the credential after its scheme.
                    candidates.push((i, 0, scheme.len(), text.len()));
                }
                continue;
            }
            (How::Whole, Site::Body) if text == sub.old => {
                candidates.push((i, 0, 0, text.len()));
                continue;
            }
            _ => {}
        }
        for (form, pattern, stand, _) in forms(sub, site, false) {
            let owner = Owner {
                sub: i as u32,
                form: form as u8,
                stand,
            };
            entries.push((pattern, owner));
        }
    }
    if !entries.is_empty() {
        let bytes = text.as_bytes();
        // Stable: the owners of one pattern stay in the order they came.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Owner> = Vec::with_capacity(entries.len());
        // The first owner of each pattern in `owners` (and one past the last).
        let mut first: Vec<u32> = Vec::new();
        for (pattern, owner) in entries {
            if patterns
                .last()
                .is_none_or(|last| *last != pattern.as_bytes())
            {
                patterns.push(pattern.into_bytes());
                first.push(owners.len() as u32);
            }
            owners.push(owner);
        }
        first.push(owners.len() as u32);
        let finder = Finder::new(patterns);
        let mut matches = Vec::new();
        finder.for_each(bytes, &mut |pattern, start| matches.push((pattern, start)));
        for (pattern, start) in matches {
            let end = start + finder.pattern(pattern).len();
            let (from, to) = (first[pattern] as usize, first[pattern + 1] as usize);
            for owner in &owners[from..to] {
                let stands = match owner.stand {
                    Stand::Token => at_token_boundaries(bytes, start, end),
                    Stand::Quoted => true,
                    Stand::FormValue => is_form_value(bytes, start, end),
                };
                if stands {
                    candidates.push((owner.sub as usize, owner.form as usize, start, end));
                }
            }
        }
    }
    take(candidates, subs, site)
}

/// The candidates taken in the order applying the substitutions one after another takes
/// them: by substitution, then form, then position; one that overlaps an occurrence taken
/// before it is left.
fn take<'s, S: Borrow<Sub>>(
    mut candidates: Vec<(usize, usize, usize, usize)>,
    subs: &'s [S],
    site: Site,
) -> Found<'s> {
    candidates.sort_unstable();
    // Taken occurrences, which never overlap, by start: (end, substitution).
    let mut by_start: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    let mut found = Found::default();
    for (sub, form, start, end) in candidates {
        // Only the last one starting before this one's end can overlap it.
        if let Some((_, &(taken_end, taken_sub))) = by_start.range(..end).next_back()
            && taken_end > start
        {
            // Another form of the same value at the same place is no conflict.
            if taken_sub != sub {
                found.overlapped += 1;
            }
            continue;
        }
        by_start.insert(start, (end, sub));
        let of = subs[sub].borrow();
        // The value as it is (form 0, and a whole body value's plain form value, 5) becomes
        // the substitution's own text; any other form, that text in the same form.
        let new = match (&of.how, form) {
            (_, 0) | (How::Whole, 5) => Cow::Borrowed(&*of.new),
            _ => forms(of, site, true)
                .into_iter()
                .find(|f| f.0 == form)
                .map_or(Cow::Borrowed(&*of.new), |f| Cow::Owned(f.3)),
        };
        found.taken.push(Taken {
            start,
            end,
            new,
            sub,
        });
    }
    found.taken.sort_by_key(|t| t.start);
    found
}

/// Whether `bytes[start..end]` stands as a token of its own: where it starts (ends) with a
/// letter or digit, the byte before (after) it is none, or ends an escape (`\n`, `\u0022`,
/// `%3D`).
fn at_token_boundaries(bytes: &[u8], start: usize, end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric();
    // `%3D` before it (a URL inside a query string) ends a token as `=` would.
    let after_percent = start >= 3
        && bytes[start - 3] == b'%'
        && bytes[start - 2].is_ascii_hexdigit()
        && bytes[start - 1].is_ascii_hexdigit();
    let starts_clean = !bytes.get(start).copied().is_some_and(word)
        || start == 0
        || !word(bytes[start - 1])
        || after_percent
        || vcr_lint::ends_escape(bytes, start);
    let ends_clean = end == 0 || !word(bytes[end - 1]) || bytes.get(end).is_none_or(|&b| !word(b));
    starts_clean && ends_clean
}

/// Whether `bytes[start..end]` is the whole value of a form pair: `a=old&b` (the pair's
/// first `=` right before it, `&` or the end right after it).
fn is_form_value(bytes: &[u8], start: usize, end: usize) -> bool {
    if start == 0 || bytes[start - 1] != b'=' || bytes.get(end).is_some_and(|&b| b != b'&') {
        return false;
    }
    // No other `=` between the pair's start and this one.
    !bytes[..start - 1]
        .iter()
        .rev()
        .take_while(|&&b| b != b'&')
        .any(|&b| b == b'=')
}

/// A URL with the query parameter `name` set to `value` (`None` without a query).
fn set_query_param(url: &str, name: &str, value: &str) -> Option<String> {
    let (base, query) = url.split_once('?')?;
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let mut rewritten = format!("{base}?{}", super::set_param(query, name, value));
    if let Some(f) = fragment {
        rewritten.push('#');
        rewritten.push_str(f);
    }
    Some(rewritten)
}

/// JSON's escaping of a string's characters (no quotes), as `JSON.stringify` writes them.
pub(super) fn json_escape(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    vcr_json::write_string(&vcr_json::Str::new(s), &mut out);
    let quoted = String::from_utf8(out).expect("JSON is UTF-8");
    quoted[1..quoted.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(old: &str, new: &str, how: How) -> Sub {
        Sub {
            old: old.into(),
            new: new.into(),
            how,
            rule: format!("r {old}").into(),
        }
    }

    /// The substitutions applied one after another, as the scrub did before issue 43 (with
    /// token boundaries): the oracle of the one-pass replacement.
    fn one_after_another(text: &str, subs: &[Sub], site: Site) -> String {
        let mut out = text.to_owned();
        for s in subs {
            let one = std::slice::from_ref(s);
            let found = find(&out, one, site);
            out = write(&out, &found.taken);
        }
        out
    }

    #[test]
    fn replaces_every_value_in_one_pass_as_one_after_another_would() {
        let subs = vec![
            sub("sk-proj-abcdefgh12345678", "REDACTED_A", How::Inside),
            sub("p\"w0rd123", "REDACTED_P", How::Inside),
            sub("short", "REDACTED_S", How::Whole),
            sub("b+c/d=e", "REDACTED_F", How::Inside),
        ];
        let texts = [
            r#"{"k":"sk-proj-abcdefgh12345678","p":"p\"w0rd123","s":"short","t":"shorter"}"#,
            r#"{"s":"{\"k\":\"sk-proj-abcdefgh12345678\",\"s\":\"short\"}"}"#,
            "a=short&b=b%2Bc%2Fd%3De&c=shortly&short=x",
            "data: sk-proj-abcdefgh12345678\n\ndata: xsk-proj-abcdefgh12345678\n",
            "Bearer short",
        ];
        for text in texts {
            let mut rules = Vec::new();
            let once = apply(text, &subs, Site::Body, &mut rules);
            assert_eq!(once, one_after_another(text, &subs, Site::Body), "{text}");
        }
        let mut rules = Vec::new();
        assert_eq!(
            apply(
                r#"{"s":"{\"t\":\"short\"}","k":"x sk-proj-abcdefgh12345678"}"#,
                &subs,
                Site::Body,
                &mut rules
            ),
            r#"{"s":"{\"t\":\"REDACTED_S\"}","k":"x REDACTED_A"}"#
        );
        assert_eq!(
            rules,
            [
                Name::from("r sk-proj-abcdefgh12345678"),
                Name::from("r short")
            ]
        );
    }

    /// Issue 43: a value is replaced where it stands as a token, not inside other text.
    #[test]
    fn a_value_inside_another_token_is_left() {
        let subs = [sub("7d3f9a2c", "REDACTED_X_TOKEN", How::Inside)];
        let cases = [
            (r#"{"hash": "aa7d3f9a2cbb"}"#, r#"{"hash": "aa7d3f9a2cbb"}"#),
            ("ETag: W/\"7d3f9a2c0\"", "ETag: W/\"7d3f9a2c0\""),
            ("id=x7d3f9a2c", "id=x7d3f9a2c"),
            ("token=7d3f9a2c&x", "token=REDACTED_X_TOKEN&x"),
            ("a\\n7d3f9a2c\\u0022", "a\\nREDACTED_X_TOKEN\\u0022"),
            ("Bearer 7d3f9a2c", "Bearer REDACTED_X_TOKEN"),
            ("id-7d3f9a2c.json", "id-REDACTED_X_TOKEN.json"),
        ];
        for (text, expected) in cases {
            let mut rules = Vec::new();
            assert_eq!(
                apply(text, &subs, Site::Field { url: false }, &mut rules),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn overlapping_values_go_to_the_one_applied_first() {
        let subs = [
            sub("bcdef123", "L", How::Inside),
            sub("abc", "S", How::Inside),
        ];
        let found = find("abcdef123", &subs, Site::Body);
        // `abc` is no token there either (`d` follows it).
        assert_eq!(found.taken.len(), 0);
        let found = find("x bcdef123 abc", &subs, Site::Body);
        assert_eq!(write("x bcdef123 abc", &found.taken), "x L S", "{found:?}");
        let subs = [
            sub("abcd-efgh", "L", How::Inside),
            sub("efgh-ijkl", "M", How::Inside),
        ];
        let found = find("abcd-efgh-ijkl", &subs, Site::Body);
        assert_eq!(write("abcd-efgh-ijkl", &found.taken), "L-ijkl");
        assert_eq!(found.overlapped, 1);
    }

    #[test]
    fn query_parameters_are_set_by_name_around_the_others() {
        let subs = [
            Sub {
                old: String::new(),
                new: "<KEY>".into(),
                how: How::Param("API_KEY".into()),
                rule: Name::from("query api_key"),
            },
            sub("secret-value-1", "REDACTED_T", How::Inside),
        ];
        let mut rules = Vec::new();
        assert_eq!(
            apply(
                "https://h/p?api_key=abc&t=secret-value-1#f",
                &subs,
                Site::Field { url: true },
                &mut rules
            ),
            "https://h/p?api_key=%3CKEY%3E&t=REDACTED_T#f"
        );
        assert_eq!(
            rules,
            [Name::from("query api_key"), Name::from("r secret-value-1")]
        );
    }

    /// A value found as it is becomes the substitution's own text, borrowed (a scalar can
    /// hold thousands of values: a copy each was a scrub's largest part, issue 43); a value
    /// in another form becomes the replacement in that form.
    #[test]
    fn a_value_as_it_is_borrows_its_replacement() {
        let subs = vec![
            sub("sk-proj-abcdefgh12345678", "REDACTED_A", How::Inside),
            sub("pw\"1234", "REDACTED_P", How::Whole),
        ];
        let text = r#"{"a": "sk-proj-abcdefgh12345678", "b": "pw\"1234"}"#;
        let found = find(text, &subs, Site::Body);
        let taken: Vec<(&str, bool)> = (found.taken.iter())
            .map(|t| (&*t.new, matches!(t.new, Cow::Borrowed(_))))
            .collect();
        assert_eq!(taken, [("REDACTED_A", true), ("\"REDACTED_P\"", false)]);
        assert_eq!(
            write(text, &found.taken),
            r#"{"a": "REDACTED_A", "b": "REDACTED_P"}"#
        );
        // Borrowed substitutions are found as owned ones are.
        let borrowed: Vec<&Sub> = subs.iter().collect();
        assert_eq!(find(text, &borrowed, Site::Body).taken, found.taken);
    }
}
