//! The peak memory of one run of `vcr`, as the memory tests of issues 12 and 25 assert it.
//!
//! Linux counts in a child's peak resident memory what it held before `exec`: a child of a
//! process holding 300 MiB starts at 300 MiB, vfork or not (the kernel keeps the old address
//! space's high-water mark). Every test runs in one process here, and some hold large files
//! while others measure, so the run is started from a fresh copy of this test binary that runs
//! only [`probe`]: it is small, starts `vcr`, and reports the peak `wait4` gives for that
//! child alone.

use std::path::Path;

/// Runs `vcr -C root args...` with `env` (as [`super::vcr_command`] does) from a fresh
/// process of this binary; returns its exit code, its stdout and its peak resident memory in
/// bytes.
pub fn peak(root: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, u64) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let spec = serde_json::json!({
        "root": root,
        "args": args,
        "env": env,
        "out": out.path(),
    });
    let run = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "common::measure::probe",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
            "--quiet",
        ])
        .env(PROBE, spec.to_string())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    let Some((code, peak)) = said
        .lines()
        .find_map(|line| line.strip_prefix("probe: "))
        .and_then(|rest| rest.split_once(' '))
    else {
        panic!(
            "the probe did not run: {said}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
    };
    let stdout = std::fs::read_to_string(out.path()).unwrap();
    (code.parse().unwrap(), stdout, peak.parse().unwrap())
}

/// The variable that hands [`probe`] what to run.
const PROBE: &str = "VCR_TEST_PROBE";

/// Not a test: what [`peak`] runs in a fresh process of this binary. It starts the run its
/// variable describes, waits for that child alone with `wait4`, and prints its exit code and
/// peak resident memory.
#[test]
#[ignore = "a helper the memory tests run in a fresh process of this binary"]
#[allow(clippy::zombie_processes)] // reaped by `wait4` below, which measures it
fn probe() {
    let spec: serde_json::Value =
        serde_json::from_str(&std::env::var(PROBE).expect("run by `peak` only")).unwrap();
    let strings = |key: &str| -> Vec<String> {
        spec[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let args = strings("args");
    let env: Vec<(String, String)> = spec["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| {
            (
                pair[0].as_str().unwrap().to_owned(),
                pair[1].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut cmd = super::vcr_command(Path::new(spec["root"].as_str().unwrap()), &args, &env);
    cmd.env_remove(PROBE);
    cmd.stdout(std::fs::File::create(spec["out"].as_str().unwrap()).unwrap());
    let child = cmd.spawn().unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: wait4 fills the status and the struct it is given; the child is ours and not
    // waited for elsewhere.
    let usage = unsafe {
        assert_eq!(libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()), pid);
        usage.assume_init()
    };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    println!(
        "probe: {code} {}",
        u64::try_from(usage.ru_maxrss).unwrap() << 10
    );
}
