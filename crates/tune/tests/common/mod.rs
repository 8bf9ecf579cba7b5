//! Shared helpers of the CLI tests: run the real `tune` binary and read what it said.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

// `fixture(file)`: a file of the repository's `fixtures/`; `shared(file)`: a file of the shared
// data folder (tests ignored by default); as the data crate's tests find them.
#[path = "../../../data/tests/common/mod.rs"]
mod data_common;
#[path = "../../../data/tests/common/tools.rs"]
pub mod tools;
#[allow(unused_imports)] // not every test file reads the fixtures or the shared data
pub use data_common::{fixture, shared};

/// The repository's embedded dataset (220,834 positions, a binary cache).
pub fn default_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/default.gtc.zst")
}

/// The `tune` binary, with no colour and no terminal tricks.
pub fn tune() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tune"));
    c.env("NO_COLOR", "1").stdin(Stdio::null());
    c
}

/// What a finished `tune` run said.
#[derive(Debug)]
pub struct Ran {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `tune args...` to the end.
pub fn run(args: &[&str]) -> Ran {
    let out = tune().args(args).output().expect("tune runs");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A path as a `&str` argument.
pub fn arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// Sends `signal` (e.g. `INT`) to the process `pid` with `kill(1)`.
pub fn signal(pid: u32, signal: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill(1) runs")
        .success();
    assert!(ok, "kill -{signal} {pid} failed");
}

/// Waits, at most `limit`, until process `pid` catches SIGINT (its Ctrl-C handler installed:
/// bit 2 of `SigCgt` in `/proc/PID/status`, on Linux; elsewhere it returns at once). A SIGINT
/// sent before that takes the default action and kills the process: on a loaded machine a
/// fixed sleep before the signal is a race with the start-up, not a test of the handler.
/// False if `limit` passed first.
pub fn wait_for_sigint_handler(pid: u32, limit: std::time::Duration) -> bool {
    let t0 = std::time::Instant::now();
    let status = format!("/proc/{pid}/status");
    loop {
        let Ok(text) = std::fs::read_to_string(&status) else {
            return true; // no procfs: nothing to wait on
        };
        let caught = text
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .is_some_and(|mask| mask & (1 << (2 - 1)) != 0);
        if caught {
            return true;
        }
        if t0.elapsed() > limit {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The `gradtune-uci` binary beside `tune`, built first if this test run did not build it.
pub fn gradtune_uci() -> PathBuf {
    let tune = PathBuf::from(env!("CARGO_BIN_EXE_tune"));
    let path = tune.with_file_name(format!("gradtune-uci{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "-p", "engine", "--bin", "gradtune-uci"]);
        if tune.parent().and_then(Path::file_name) == Some("release".as_ref()) {
            cmd.arg("--release");
        }
        let ok = cmd.status().expect("cargo runs").success();
        assert!(ok && path.exists(), "cannot build {}", path.display());
    }
    path
}

/// Whether `cc --version` runs; where it does not, says that the test is skipped.
pub fn have_cc() -> bool {
    tools::have("cc", "this test needs a C compiler")
}

/// The UCI engine `exe`'s answers to `eval` at each position (a FEN), from one process: the
/// number after `eval `, as `T`.
pub fn engine_evals<T: std::str::FromStr>(
    exe: &Path,
    fens: impl IntoIterator<Item = String>,
) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    engine_answers(exe, fens, "eval")
        .iter()
        .map(|l| l.strip_prefix("eval ").unwrap().parse().unwrap())
        .collect()
}

/// The engine `exe`'s answers to `request` (`eval`, `trace`) at each position (a FEN), from
/// one process: its lines starting with the request.
pub fn engine_answers(
    exe: &Path,
    fens: impl IntoIterator<Item = String>,
    request: &str,
) -> Vec<String> {
    use std::io::Write as _;
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for fen in fens {
        writeln!(stdin, "position fen {fen}\n{request}").unwrap();
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let prefix = format!("{request} ");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_string)
        .collect()
}

/// The C fixture compiled into `dir` with `cc -O2 -std=c99 -Wall -Wextra -pedantic` (which
/// must print no warning), or `None` (with a message) where there is no C compiler.
pub fn compile_fixture(dir: &Path) -> Option<PathBuf> {
    if !have_cc() {
        return None;
    }
    let exe = dir.join("fixture");
    let said = tools::cc_fixture(&exe, &["-O2", "-Wall", "-Wextra", "-pedantic"]);
    assert!(
        said.trim().is_empty(),
        "fixture.c compiles with warnings: {said}"
    );
    Some(exe)
}

/// `text` with the lines from the one that starts with `first` to the end of the one that
/// starts with `last` replaced by `block` (and a newline), as an author pastes emitted weights
/// over their own.
pub fn splice(text: &str, first: &str, last: &str, block: &str) -> String {
    let start = text
        .find(first)
        .unwrap_or_else(|| panic!("the source has no `{first}`"));
    let at = text
        .find(last)
        .unwrap_or_else(|| panic!("the source has no `{last}`"));
    let end = at + text[at..].find('\n').unwrap() + 1;
    format!("{}{block}\n{}", &text[..start], &text[end..])
}

/// The traces of `path` read against `m`, checked to be all well formed.
pub fn read_all(path: &Path, m: &trace::Manifest) -> Vec<trace::Trace> {
    let options = trace::ReadOptions::default();
    let (traces, report) = trace::read_traces(&[path.to_path_buf()], m, &options).unwrap();
    assert_eq!(report.skipped, 0, "{report}");
    traces
}
