//! `String.prototype.replace` with a regex and a replacement pattern, as JavaScript does it.

use std::ops::Range;

/// What a substitution needs to know of a match.
pub(super) trait Captured {
    /// Where the whole match is.
    fn range(&self) -> Range<usize>;
    /// How many capture groups the pattern has.
    fn group_count(&self) -> usize;
    /// Group `i` (1-based), if it took part in the match.
    fn group(&self, i: usize) -> Option<Range<usize>>;
    /// Whether the pattern has named groups (`$<` is literal text otherwise).
    fn has_names(&self) -> bool;
    /// The named group, if the pattern has it and it took part.
    fn named(&self, name: &str) -> Option<Range<usize>>;
}

impl Captured for regress::Match {
    fn range(&self) -> Range<usize> {
        regress::Match::range(self)
    }

    fn group_count(&self) -> usize {
        self.captures.len()
    }

    fn group(&self, i: usize) -> Option<Range<usize>> {
        regress::Match::group(self, i)
    }

    fn has_names(&self) -> bool {
        self.named_groups().next().is_some()
    }

    fn named(&self, name: &str) -> Option<Range<usize>> {
        self.named_group(name)
    }
}

/// Replaces the first of `matches` (or all, when `global`) in `text`, expanding
/// `replacement` like ECMAScript's `GetSubstitution`. `None` when nothing matched.
pub(super) fn js_replace<M: Captured>(
    matches: impl Iterator<Item = M>,
    text: &str,
    replacement: &str,
    global: bool,
) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut matched = false;
    for m in matches {
        matched = true;
        let range = m.range();
        out.push_str(&text[last..range.start]);
        substitute(&m, text, replacement, &mut out);
        last = range.end;
        if !global {
            break;
        }
    }
    if !matched {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// ECMAScript `GetSubstitution`: `$$`, `$&`, `` $` ``, `$'`, `$n`, `$nn` and `$<name>`.
fn substitute(m: &impl Captured, text: &str, replacement: &str, out: &mut String) {
    let group = |i: usize| m.group(i).map_or("", |r| &text[r]);
    let captures = m.group_count();
    let bytes = replacement.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' || i + 1 == bytes.len() {
            let next = replacement[i..]
                .find('$')
                .map_or(bytes.len(), |p| i + p.max(1));
            out.push_str(&replacement[i..next]);
            i = next;
            continue;
        }
        match bytes[i + 1] {
            b'$' => {
                out.push('$');
                i += 2;
            }
            b'&' => {
                out.push_str(&text[m.range()]);
                i += 2;
            }
            b'`' => {
                out.push_str(&text[..m.range().start]);
                i += 2;
            }
            b'\'' => {
                out.push_str(&text[m.range().end..]);
                i += 2;
            }
            d @ b'0'..=b'9' => {
                let one = usize::from(d - b'0');
                let two = bytes
                    .get(i + 2)
                    .filter(|b| b.is_ascii_digit())
                    .map(|b| one * 10 + usize::from(b - b'0'));
                match two {
                    Some(n) if (1..=captures).contains(&n) => {
                        out.push_str(group(n));
                        i += 3;
                    }
                    _ if (1..=captures).contains(&one) => {
                        out.push_str(group(one));
                        i += 2;
                    }
                    _ => {
                        out.push('$');
                        i += 1;
                    }
                }
            }
            b'<' if m.has_names() => match replacement[i + 2..].find('>') {
                Some(close) => {
                    let name = &replacement[i + 2..i + 2 + close];
                    if let Some(r) = m.named(name) {
                        out.push_str(&text[r]);
                    }
                    i += 3 + close;
                }
                None => {
                    out.push('$');
                    i += 1;
                }
            },
            _ => {
                out.push('$');
                i += 1;
            }
        }
    }
}
