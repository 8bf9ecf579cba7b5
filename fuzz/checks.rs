//! The fuzz targets' bodies, shared by the cargo-fuzz targets in `fuzz_targets/` and the
//! stable smoke test `crates/data/tests/fuzz_smoke.rs` (both include this file by path).
// Each target uses one of the two.
#![allow(dead_code)]

use std::path::Path;

use data::{extract_pgn_reader, read_epd, ExtractOptions, Format, LoadOptions};

/// Arbitrary bytes through the EPD reader (both result conventions) and the format
/// detection: errors are fine, panics are not; every kept sample unpacks and prints.
pub fn epd_reader(bytes: &[u8]) {
    let _ = Format::detect(bytes);
    for stm_results in [false, true] {
        let opts = LoadOptions {
            stm_results,
            ..LoadOptions::default()
        };
        if let Ok((samples, report)) = read_epd(bytes, Path::new("<fuzz>"), &opts) {
            assert_eq!(samples.len() as u64, report.kept);
            for s in &samples {
                let _ = s.position().expect("a kept sample unpacks");
                let _ = s.to_epd();
            }
        }
    }
}

/// Arbitrary bytes through the PGN extractor (check skipping, de-duplication and sampling
/// on): errors are fine, panics are not; every kept sample unpacks.
pub fn pgn_extractor(bytes: &[u8]) {
    let opts = ExtractOptions {
        skip_check: true,
        dedup: true,
        max_per_game: Some(5),
        ..ExtractOptions::default()
    };
    if let Ok((samples, report)) = extract_pgn_reader(bytes, Path::new("<fuzz>"), &opts) {
        assert_eq!(samples.len() as u64, report.kept);
        for s in &samples {
            let _ = s.position().expect("a kept sample unpacks");
        }
    }
}
