//! The command line of `fixtures/clock-engine/clock_engine.py`, the fake engine that reads
//! only the clocks of `go` (see that folder's README). Shared by the engine's and the `tune`
//! binary's tests (`#[path]`), each of which has the shared `tools` module
//! (`data/tests/common/tools.rs`) at its root.
#![allow(dead_code)]

use crate::tools;

use std::path::{Path, PathBuf};

/// `python3 clock_engine.py MODE 'LOG'`, or `None` (and a note on standard error) where there
/// is no python3.
pub fn clock_engine(mode: &str, log: &Path) -> Option<String> {
    if !tools::have("python3", "the clock engine is a python3 script") {
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
