//! The command line of `fixtures/clock-engine/clock_engine.py`, the fake engine that reads
//! only the clocks of `go` (see that folder's README). Shared by the engine's and the `tune`
//! binary's tests (`#[path]`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `python3 clock_engine.py MODE 'LOG'`, or `None` (and a note on standard error) where there
/// is no python3.
pub fn clock_engine(mode: &str, log: &Path) -> Option<String> {
    let python = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !python {
        eprintln!("skipping: this test needs python3, and there is none");
        return None;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/clock-engine/clock_engine.py");
    Some(format!(
        "python3 '{}' {mode} '{}'",
        script.display(),
        log.display()
    ))
}
