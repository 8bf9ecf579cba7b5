//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared data directory: `$GRADTUNE_SHARED_DATA`, else `../../../shared/data` from the
/// crate. Panics clearly when the file is missing.
pub fn shared(file: &str) -> PathBuf {
    let dir = std::env::var_os("GRADTUNE_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let path = dir.join(file);
    assert!(
        path.exists(),
        "shared data file {} is missing: set GRADTUNE_SHARED_DATA to the directory holding {file}",
        path.display()
    );
    path
}
