//! `vcr_doc::edit` against the recorders' own writers and loaders (issue 10).
//!
//! Documents are written by the real writers (PyYAML's `CDumper` as vcrpy, Psych's
//! `to_yaml`, yaml.v2's `Marshal` as go-vcr 1.2, `JSON.stringify`) with values in every style
//! they use: plain, single- and double-quoted, folded over lines at width 80, literal blocks,
//! `!!binary`. Each string scalar is then replaced by each of a set of tricky values, and the
//! edited document is loaded by the real loader: it must read as the original data with only
//! that value changed, and every byte outside the edit must be the original's. Where the
//! writer itself writes the new value in the style the scalar already had, the edited
//! document must be byte for byte what the writer writes.

use crate::common;

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use common::TestDir;
use common::loaders::{self, Loader};
use vcr_doc::edit::{self, Dialect};
use vcr_doc::{Node, NodeValue, Style};

/// The values of the written documents: every style the writers choose.
fn originals() -> Vec<String> {
    let long_words = "The quick brown fox jumps over the lazy dog and keeps on running far \
                      beyond the edge of the line the writer folds at, and then some more.";
    [
        "plain",
        "Bearer sk-abc123",
        "gzip, deflate",
        "a: b",
        "x #y",
        "it's",
        "say \"hi\"",
        "café ☃",
        "ctrl\u{1}char",
        "tab\there",
        "trailing ",
        " leading",
        "line one\nline two",
        "ends with newline\n",
        "two\n\nnewlines\n\n",
        "yes",
        "123",
        "1:20",
        "2024-01-01",
        "",
        "~",
        long_words,
        &format!("{long_words}\n{long_words}"),
        &format!("{{\"content\":\"{long_words}\",\"n\":1}}"),
        "emoji 😀",
    ]
    .map(String::from)
    .to_vec()
}

/// The values each string scalar is replaced by.
fn new_values() -> Vec<String> {
    let token = "tok".repeat(66) + "en";
    [
        "yes",
        "null",
        "- a",
        "a: b",
        "#x",
        "'q'",
        "\"dq\"",
        "123",
        "1_000",
        "12:30",
        "2024-01-01",
        &token,
        "with\nnewline",
        "trailing ",
        "",
        "naïve ünïcödé ☃",
        "[PLACEHOLDER]",
        "{x}",
        "*a",
        "&a",
        "!t",
        "%x",
        "@x",
        "`tick",
        "a, b",
        "x #y",
        &"word ".repeat(40),
        "two\n\n",
        "q'uote and \"dq\" and \\ back",
    ]
    .map(String::from)
    .to_vec()
}

/// New contents for `!!binary` scalars (not UTF-8, so every loader reports them as bytes).
fn new_binaries() -> Vec<Vec<u8>> {
    vec![
        vec![0xff, 0x00, 0x01],
        (0..=255u8).cycle().take(300).collect(),
    ]
}

/// A document holding `value` at several places: top level, nested, in a sequence, in a
/// mapping in a sequence; and a `!!binary` body.
fn document(value: &str) -> Value {
    json!({
        "top": value,
        "nested": {"deeper": {"key": value}},
        "list": [value, "other"],
        "items": [{"name": value, "n": 1}],
        "body": {"$binary": STANDARD.encode(b"\xff\xfe binary \x00 body")},
    })
}

fn dialect(loader: Loader) -> Dialect {
    match loader {
        Loader::PyYaml => Dialect::PyYaml,
        Loader::Psych => Dialect::Psych,
        Loader::GoYaml => Dialect::GoYaml,
        Loader::Json => Dialect::Json,
    }
}

/// One step of a path into the data.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every scalar value of `root` (not keys) with its path.
fn scalars(root: &Node) -> Vec<(Vec<Step>, &Node)> {
    let mut out = Vec::new();
    let mut todo = vec![(Vec::new(), root)];
    while let Some((path, node)) = todo.pop() {
        match &node.value {
            NodeValue::Scalar(_) => out.push((path, node)),
            NodeValue::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(Step::Index(i));
                    todo.push((p, item));
                }
            }
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    let mut p = path.clone();
                    p.push(Step::Key(k.as_scalar().unwrap().text.clone()));
                    todo.push((p, v));
                }
            }
        }
    }
    out
}

fn at_mut<'v>(value: &'v mut Value, path: &[Step]) -> &'v mut Value {
    path.iter().fold(value, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

fn at<'n>(root: &'n Node, path: &[Step]) -> Option<&'n Node> {
    path.iter().try_fold(root, |n, step| match step {
        Step::Key(k) => n.get(k),
        Step::Index(i) => n.as_seq()?.get(*i),
    })
}

fn parse(text: &str, loader: Loader) -> Node {
    match loader {
        Loader::Json => vcr_doc::from_json(text.as_bytes()).unwrap(),
        _ => vcr_doc::yaml::parse(text).unwrap(),
    }
}

/// The base64 text of `bytes` as the writer of `loader` wraps it.
fn wrapped(bytes: &[u8], loader: Loader) -> String {
    let text = STANDARD.encode(bytes);
    let lines = |width: usize| -> Vec<String> {
        text.as_bytes()
            .chunks(width)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect()
    };
    match loader {
        // base64.encodebytes: 76 columns, each line ended.
        Loader::PyYaml => lines(76).iter().map(|l| format!("{l}\n")).collect(),
        // yaml.v2's encodeBase64: 70 columns, each line ended when there is more than one.
        Loader::GoYaml if text.len() > 70 => lines(70).iter().map(|l| format!("{l}\n")).collect(),
        _ => text,
    }
}

/// One edited document: where it is, what it must load as, and what the writer writes for
/// that data.
struct Case {
    edited: PathBuf,
    written: PathBuf,
    expected: Value,
    description: String,
    steps: Vec<Step>,
    original_style: Style,
}

/// Each loader in its own thread (each runs its own processes).
#[test]
fn every_edit_loads_as_the_original_with_only_that_value_changed() {
    let t = TestDir::new();
    let tried: Vec<Loader> = std::thread::scope(|scope| {
        let runs: Vec<_> = Loader::ALL
            .map(|loader| {
                let dir = t.path(loader.name());
                scope.spawn(move || check(loader, dir).then_some(loader))
            })
            .into_iter()
            .collect();
        runs.into_iter().filter_map(|r| r.join().unwrap()).collect()
    });
    eprintln!("loaders tried: {tried:?}");
}

/// The edits of every string scalar of every document `loader`'s writer writes, loaded by
/// `loader`; whether it is installed.
fn check(loader: Loader, dir: PathBuf) -> bool {
    let originals = originals();
    {
        std::fs::create_dir_all(&dir).unwrap();
        let docs: Vec<(PathBuf, Value)> = originals
            .iter()
            .enumerate()
            .map(|(i, v)| (dir.join(format!("doc{i}")), document(v)))
            .collect();
        if loaders::dump_all(loader, &docs).is_none() {
            return false;
        }
        let paths: Vec<PathBuf> = docs.iter().map(|d| d.0.clone()).collect();
        let loaded = loaders::load_all(loader, &paths).unwrap();
        let mut cases = Vec::new();
        let mut writes = Vec::new();
        for ((path, _), data) in docs.iter().zip(loaded) {
            let data = data.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let source = std::fs::read_to_string(path).unwrap();
            let root = parse(&source, loader);
            for (steps, node) in scalars(&root) {
                let mut original = data.clone();
                let news: Vec<(String, Value)> = match at_mut(&mut original, &steps) {
                    Value::String(_) => new_values()
                        .into_iter()
                        .map(|v| (v.clone(), Value::String(v)))
                        .collect(),
                    v if v.get("$binary").is_some() => new_binaries()
                        .iter()
                        .map(|b| (wrapped(b, loader), json!({"$binary": STANDARD.encode(b)})))
                        .collect(),
                    _ => continue,
                };
                for (text, value) in news {
                    let n = cases.len();
                    let e = edit::scalar(&source, node, &text, dialect(loader));
                    let description = format!(
                        "{}: {steps:?} of {} ({:?}) set to {text:?} by {e:?}",
                        loader.name(),
                        path.display(),
                        &source[node.start as usize..node.end as usize],
                    );
                    // Only the scalar's bytes change.
                    assert_eq!(e.start, node.start as usize, "{description}");
                    assert!(e.end >= node.end as usize, "{description}");
                    assert!(
                        source[node.end as usize..e.end].trim().is_empty(),
                        "{description}"
                    );
                    let out = edit::apply(&source, &mut [e.clone()]);
                    assert_eq!(out[..e.start], source[..e.start], "{description}");
                    assert_eq!(
                        out[e.start + e.text.len()..],
                        source[e.end..],
                        "{description}"
                    );
                    let edited = dir.join(format!("edit{n}"));
                    std::fs::write(&edited, &out).unwrap();
                    let mut expected = data.clone();
                    *at_mut(&mut expected, &steps) = value;
                    let written = dir.join(format!("written{n}"));
                    writes.push((written.clone(), expected.clone()));
                    cases.push(Case {
                        edited,
                        written,
                        expected,
                        description,
                        steps: steps.clone(),
                        original_style: node.as_scalar().unwrap().style,
                    });
                }
            }
        }
        let got = loaders::load_all(
            loader,
            &cases.iter().map(|c| c.edited.clone()).collect::<Vec<_>>(),
        )
        .unwrap();
        let mut wrong = Vec::new();
        for (case, got) in cases.iter().zip(got) {
            match got {
                Ok(data) if data == case.expected => {}
                Ok(data) => wrong.push(format!(
                    "{}\n  loads as {data}\n  expected {}\n  text: {:?}",
                    case.description,
                    case.expected,
                    std::fs::read_to_string(&case.edited).unwrap()
                )),
                Err(e) => wrong.push(format!(
                    "{}\n  does not load: {e}\n  text: {:?}",
                    case.description,
                    std::fs::read_to_string(&case.edited).unwrap()
                )),
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {} edits do not load as expected:\n{}",
            wrong.len(),
            cases.len(),
            wrong.join("\n")
        );
        // The writer's own document for the same data, where it chose the same style.
        loaders::dump_all(loader, &writes).unwrap();
        let (mut same_style, mut identical, mut differ) = (0, 0, Vec::new());
        for case in &cases {
            let written = std::fs::read_to_string(&case.written).unwrap();
            let edited = std::fs::read_to_string(&case.edited).unwrap();
            let root = parse(&written, loader);
            let style = at(&root, &case.steps).and_then(|n| n.as_scalar().map(|s| s.style));
            if style == Some(case.original_style) {
                same_style += 1;
                // A keeping block that ended the document leaves the `...` after it.
                let edited = match edited.strip_suffix("...\n") {
                    Some(rest) if !written.ends_with("...\n") => rest.to_owned(),
                    _ => edited,
                };
                if written == edited {
                    identical += 1;
                } else {
                    differ.push(format!(
                        "{}\n  writer: {written:?}\n  edited: {edited:?}",
                        case.description
                    ));
                }
            }
        }
        eprintln!(
            "{}: {} edits load as expected; {same_style} where the writer keeps the style, {identical} of them byte for byte the writer's",
            loader.name(),
            cases.len()
        );
        assert!(
            differ.is_empty(),
            "{} edits differ from the writer's own output:\n{}",
            differ.len(),
            differ[..differ.len().min(15)].join("\n")
        );
    }
    true
}
