//! Whether a tool a test needs is on this machine. Shared by the tests of several crates
//! (`#[path]`): a test that needs `cc`, `rustc` or `python3` skips, saying so, where it is
//! missing; and the C fixture of `fixtures/trace-engine` compiled.
#![allow(dead_code)] // not every test uses every helper

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Whether `tool --version` runs here; if not, says so (the test is skipped) with `why`.
pub fn have(tool: &str, why: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        println!("skipped: no `{tool}` on this machine ({why})");
    }
    ok
}

/// `fixtures/trace-engine/fixture.c` compiled to `exe` with `cc -std=c99` and `flags`; fails
/// the test if it does not compile, and returns what the compiler said (its warnings).
pub fn cc_fixture(exe: &Path, flags: &[&str]) -> String {
    let source =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/trace-engine/fixture.c");
    let out = Command::new("cc")
        .arg("-std=c99")
        .args(flags)
        .arg("-o")
        .arg(exe)
        .arg(&source)
        .output()
        .expect("cc runs");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "cc failed to compile fixture.c with {flags:?}: {said}"
    );
    said
}
