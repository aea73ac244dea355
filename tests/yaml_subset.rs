//! The one-pass YAML reader (`doc::yaml::read_subset`, issue 12) against saphyr's events
//! (`doc::yaml::parse_events`), the reader it stands in for: on every YAML file of the shared
//! corpus, and on the YAML each recorder writes, whatever it takes gives the same tree, spans
//! included; what it leaves goes to the events as before.
//!
//! `cargo test --test yaml_subset -- --nocapture` prints how many files each reader took.

use crate::common;

use std::path::PathBuf;

use vcr_doc::Node;
use vcr_doc::yaml::{parse_events, read_subset};

/// What the subset reader made of `text`, checked against the events: `true` when it took
/// the text.
#[track_caller]
fn agrees(name: &str, text: &str) -> bool {
    let Some(fast) = read_subset(text) else {
        return false;
    };
    let events: Node = parse_events(text)
        .unwrap_or_else(|e| panic!("{name}: the subset reader took a text saphyr refuses: {e}"));
    if let Some((a, b)) = first_difference(&fast, &events) {
        let at = |n: &Node| {
            let (start, end) = (n.start as usize, (n.end as usize).min(text.len()));
            text.get(start.min(end)..end)
                .unwrap_or("?")
                .chars()
                .take(120)
                .collect::<String>()
        };
        panic!(
            "{name}: the trees differ\nsubset: {}..{} {:?}\n  {:?}\nevents: {}..{} {:?}\n  {:?}",
            a.start,
            a.end,
            at(a),
            shallow(a),
            b.start,
            b.end,
            at(b),
            shallow(b)
        );
    }
    true
}

/// The first pair of nodes, in document order, that differ in span or value (a
/// collection's children compared before the collection's own span).
fn first_difference<'n>(a: &'n Node, b: &'n Node) -> Option<(&'n Node, &'n Node)> {
    use vcr_doc::NodeValue;
    let children = match (&a.value, &b.value) {
        (NodeValue::Seq(x), NodeValue::Seq(y)) if x.len() == y.len() => {
            x.iter().zip(y).find_map(|(p, q)| first_difference(p, q))
        }
        (NodeValue::Map(x), NodeValue::Map(y)) if x.len() == y.len() => {
            x.iter().zip(y).find_map(|((k1, v1), (k2, v2))| {
                first_difference(k1, k2).or_else(|| first_difference(v1, v2))
            })
        }
        (NodeValue::Scalar(x), NodeValue::Scalar(y)) if x == y => None,
        _ => return Some((a, b)),
    };
    children.or_else(|| (a.start != b.start || a.end != b.end).then_some((a, b)))
}

/// A node's value without its children.
fn shallow(n: &Node) -> String {
    use vcr_doc::NodeValue;
    match &n.value {
        NodeValue::Scalar(s) => format!("{s:?}"),
        NodeValue::Seq(items) => format!("Seq of {}", items.len()),
        NodeValue::Map(entries) => format!("Map of {}", entries.len()),
    }
}

#[test]
fn the_subset_reader_builds_the_trees_saphyr_builds_on_the_corpus() {
    let Some(corpus) = common::corpus("") else {
        return;
    };
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&corpus)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    let (mut taken, mut cassettes, mut cassettes_taken) = (0, 0, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.strip_prefix(&corpus).unwrap().display().to_string();
        let took = agrees(&name, &text);
        taken += usize::from(took);
        // What the recorders wrote: vcrpy's and Ruby VCR's `interactions`, go-vcr's.
        if text.contains("interactions:") {
            cassettes += 1;
            cassettes_taken += usize::from(took);
        }
    }
    println!(
        "{taken} of {} YAML files read by the subset reader; {cassettes_taken} of {cassettes} cassettes",
        files.len()
    );
    assert!(files.len() > 1000, "{} YAML files", files.len());
    // The reader exists for the cassettes recorders write: nearly all of them must take it
    // (those left hold complex keys, `!` tags and `|2` indicators).
    assert!(
        cassettes_taken * 20 >= cassettes * 19,
        "{cassettes_taken} of {cassettes} cassettes"
    );
}

/// The shapes each recorder writes, and the ones the subset leaves to the events.
#[test]
fn the_subset_reader_agrees_on_each_shape_or_leaves_it() {
    let taken = [
        // vcrpy through PyYAML: sequences at their key's indentation, folded quoted strings.
        "interactions:\n- request:\n    body: '{\"a\": 1,\n      \"b\": 2}'\n    headers:\n      Accept:\n      - '*/*'\n      User-Agent:\n      - python-requests/2.31.0\n    method: POST\n    uri: https://api.example.com/v1/x?q=1\n  response:\n    body:\n      string: \"ctrl\\x01 and \\t tab\\\n        \\ continued \\u00e9\"\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
        // Ruby VCR through Psych: a document start, `!binary` blocks, `|-`.
        "---\nhttp_interactions:\n- request:\n    method: get\n    uri: https://x/y\n    body:\n      encoding: UTF-8\n      string: ''\n    headers:\n      Accept:\n      - \"*/*\"\n  response:\n    status:\n      code: 200\n      message: OK\n    body:\n      encoding: ASCII-8BIT\n      string: !binary |-\n        eyJhIjoxfQ==\n        eyJhIjoxfQ==\n  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT\nrecorded_with: VCR 6.2.0\n",
        // go-vcr through yaml.v3: indented sequences, block literals, flow empties.
        "---\nversion: 2\ninteractions:\n    - id: 0\n      request:\n        proto: HTTP/1.1\n        body: |\n            {\"a\":1}\n\n            tail\n        form: {}\n        headers:\n            Content-Type:\n                - application/json\n        url: https://x/y\n      response:\n        body: |+\n            kept\n\n        status: 200 OK\n        duration: 1.5s\n",
        // Plain scalars over lines, comments, nulls, tags on collections, flow sequences.
        "# a comment\nk: plain  \n  more # c\nempty:\n",
        "z: [a, 'b', \"c\", {d: e}]\n",
        "t: !!python/tuple\n- a\n- - b\n  - c\n",
        "x: !!python/object/apply:m.istr [Accept]\n",
        "- - a\n  - b\n- \n- # c\n-\n- last\n",
        "'quoted key': \"v\"\n\"k2\": 'it''s\n\n  two'\n",
        // Psych's document end after a block that keeps its line breaks.
        "---\nbody:\n  string: |+\n    data: 1\n\n    data: 2\n\nrecorded_with: VCR 6.4.0\n...\n",
        "k: payment=(self \"https://a\"\n  \"https://b\") - [x]\n",
        // Polly's HAR through js-yaml: folded `>` blocks, lines of text joined by spaces,
        // empty lines kept as line breaks, each chomping.
        "a: >\n  folded\n",
        "text: >+\n  one\n  two\n\n  three\n\n\n  four\n\n\nnext: >-\n  x\n  \n\n  y\nlast: >\n\n  after\n  empty\n",
        "- !!binary >\n  aGk=\n  aGk=\n- >-\n    a  b  \n    c\n",
        // More-indented lines (a space or a tab first) keep the line breaks around them.
        "a: >\n  text\n    code\n\n    more\n  text\n  and\n\n  \ttab\n  end\n",
    ];
    for text in taken {
        assert!(agrees(text, text), "not taken: {text:?}");
    }
    let left = [
        "a: &x 1\nb: *x\n",
        "? complex\n: key\n",
        "a: >2\n   x\n",
        "a: [1,\n  2]\n",
        "a:\r\n  b\r\n",
        "\ta: 1\n",
        "a: 1\n---\nb: 2\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: |2\n   x\n",
        "a: |\n  x\n  ",
        "a: |2\n\n   x\n",
        "k: ! 'non-specific'\n",
        "a: b: c\n",
        "a: 'unterminated\n",
        "a:\n  - 1\n - 2\n",
        // An indentless sequence whose first item is null: where saphyr starts it is unsure.
        "n:\n- \n- last\n",
        // A lone scalar, and a text without its last line break.
        "top\n  continued\n",
        "a: 1",
    ];
    for text in left {
        assert!(read_subset(text).is_none(), "taken: {text:?}");
    }
    // What the fuzzer (`fuzz/fuzz_targets/http.rs`) found: taken or not, never another tree.
    let fuzzed = [
        ":\t\n'",
        "'' ",
        "- - - - \"  -\n- - \"  \n",
        "- \"http_interactions\" \n",
        "[\u{1}  -]\n",
        "-\n\n- |\n\n\n  |D$\n",
        "- !) \n- \"hr!  ?\"\n\n",
        "-\n\n- |\n ?&-\n ?-\n\n- |\n &-\n",
        ":::]''': '\n\n\t\n s`sera'\n\n",
        "['' ]\n\n",
        "[ntntri_ -]\n",
        "# c\n...  S-9K:\n\n    S-ions:\n",
        " ---\n   -\n",
        "\n::::::::::::::::::\n- [.   =]\n\n- :/-\n\n",
        // A tab before an indicator in a flow scalar: PyYAML's scanner and saphyr refuse it.
        "[S\tS\t-]\n",
        // Merge keys, which only the event path merges.
        "m:\n  <<: {a: 1}\n  b: 2\n",
        "m: {<<: {a: 1}, b: 2}\n",
    ];
    for text in fuzzed {
        agrees(text, text);
    }
    // A key past YAML's 1024-character limit of implicit keys is a scalar to saphyr.
    let long = format!("{}: A\n", "k".repeat(1100));
    agrees("a long key", &long);
}
