//! Shared helpers for the integration tests: the repository's fixtures and the shared data.
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

/// A file of the shared data folder, for the tests ignored by default: `$GRADTUNE_SHARED_DATA`,
/// else `../shared/data` beside the checkout. Panics, naming the path, when it is missing.
pub fn shared(file: &str) -> PathBuf {
    let dir = std::env::var_os("GRADTUNE_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let path = dir.join(file);
    assert!(
        path.exists(),
        "shared data file {} is missing: this test needs ../shared/data beside the repository \
         (or GRADTUNE_SHARED_DATA set to the folder holding {file})",
        path.display()
    );
    path
}
