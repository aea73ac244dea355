//! Issue 24: `dist/release` makes the host's archive as a user downloads it (one folder with
//! the binary, the docs, completions and man pages, where `cargo binstall`'s template in
//! Cargo.toml says the binary is), with a checksum that matches, and says for every other
//! target why it was not built here and how it is. The build is unoptimized and without LTO,
//! in its own target folder: what is checked is the packing, not the code.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

#[test]
fn the_release_script_packs_the_host_archive_and_describes_the_rest() {
    let this = Path::new(env!("CARGO_MANIFEST_DIR"));
    let version = env!("CARGO_PKG_VERSION");
    let host = String::from_utf8(Command::new("rustc").arg("-vV").output().unwrap().stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = Command::new("python3")
        .arg(this.join("dist/release"))
        .arg("--out")
        .arg(out.path())
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("release-target"),
        )
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .expect("python3 runs dist/release");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );

    // What binstall looks for: the archive's name and the binary's place in it.
    let cargo_toml: toml::Table = std::fs::read_to_string(this.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let binstall = &cargo_toml["package"]["metadata"]["binstall"];
    let fill = |template: &str| {
        template
            .replace("{ version }", version)
            .replace("{ target }", &host)
            .replace("{ bin }", "vcr")
            .replace("{ binary-ext }", "")
            .replace("{ archive-suffix }", ".tar.gz")
    };
    let url = fill(binstall["pkg-url"].as_str().unwrap());
    let name = url.rsplit('/').next().unwrap();
    assert_eq!(name, format!("vcr-{version}-{host}.tar.gz"));
    let archive = out.path().join(name);
    assert!(archive.is_file(), "no {name}:\n{stdout}");

    let bytes = std::fs::read(&archive).unwrap();
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let sums = std::fs::read_to_string(out.path().join("SHA256SUMS")).unwrap();
    assert!(sums.contains(&format!("{digest}  {name}")), "{sums}");
    let own = std::fs::read_to_string(out.path().join(format!("{name}.sha256"))).unwrap();
    assert_eq!(own, format!("{digest}  {name}\n"));

    let unpacked = out.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let untar = Command::new("tar")
        .arg("xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(untar.success());
    let folder = unpacked.join(format!("vcr-{version}-{host}"));
    let binary = unpacked.join(fill(binstall["bin-dir"].as_str().unwrap()));
    let shown = Command::new(&binary).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout).trim(),
        format!("vcr {version}")
    );
    for rel in [
        "README.md",
        "CHANGELOG.md",
        "completions/vcr.bash",
        "man/vcr.1",
        "man/vcr-verify.1",
        "docs/verify.md",
    ] {
        assert!(folder.join(rel).is_file(), "the archive has no {rel}");
    }

    // Every other target is described, not silently left out.
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        let made = out
            .path()
            .join(format!("vcr-{version}-{target}.tar.gz"))
            .is_file()
            || out
                .path()
                .join(format!("vcr-{version}-{target}.zip"))
                .is_file();
        assert!(
            made || stdout.contains(&format!("not built here: {target} ")),
            "{target} is neither built nor described:\n{stdout}"
        );
    }
}
