//! Arbitrary bytes through the PGN extractor: it may report errors, never panic.
#![no_main]

use std::path::Path;

use data::{extract_pgn_reader, ExtractOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
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
});
