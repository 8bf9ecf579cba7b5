//! Shared helpers for the integration tests: the repository's fixtures.
#![allow(dead_code)]

use std::path::PathBuf;

/// A file of the repository's `fixtures/` folder (slices of the shared data, carried so that
/// a clone of the repository alone passes its tests; `fixtures/README.md`). Panics, naming the
/// path, when it is missing.
pub fn fixture(file: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(file);
    assert!(
        path.is_file(),
        "fixture {} is missing (fixtures/ is part of the repository)",
        path.display()
    );
    path
}
