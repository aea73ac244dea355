//! The workspace's layers (issue 40): each crate depends only on the crates below it, so an
//! import that runs back up does not compile, and this test says which layer it broke when
//! a manifest adds one.

use std::collections::BTreeMap;

/// The layers, lowest first; crates in one layer may not depend on each other either.
const LAYERS: &[&[&str]] = &[
    &["vcr-json", "vcr-regex"],
    &["vcr-doc"],
    &["vcr-cassette"],
    &["vcr-lint"],
    &["vcr-provider"],
    &["vcr-project"],
    &["vcr-diff"],
    &["vcr-ops"],
    &["vcr"],
];

#[test]
fn every_crate_depends_only_on_layers_below_it() {
    let run = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let layer_of: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |name| (*name, i)))
        .collect();
    let mut seen = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if name == "vcr-skipped" {
            // A test helper with no dependency: it only counts skipped tests, last.
            assert!(package["dependencies"].as_array().unwrap().is_empty());
            continue;
        }
        let Some(&layer) = layer_of.get(name) else {
            panic!("crate `{name}` is in no layer: add it to LAYERS and to Cargo.toml's list");
        };
        seen.push(name.to_owned());
        for dependency in package["dependencies"].as_array().unwrap() {
            let on = dependency["name"].as_str().unwrap();
            if let Some(&below) = layer_of.get(on) {
                assert!(
                    below < layer,
                    "`{name}` (layer {layer}) depends on `{on}` (layer {below}): a crate may \
                     use only the layers below its own"
                );
            }
        }
    }
    seen.sort();
    let mut expected: Vec<String> = layer_of.keys().map(|s| (*s).to_owned()).collect();
    expected.sort();
    assert_eq!(
        seen, expected,
        "the workspace and LAYERS name the same crates"
    );
}
