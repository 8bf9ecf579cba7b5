//! Arbitrary bytes through the EPD reader: it may report errors, never panic.
#![no_main]

use std::path::Path;

use data::{read_epd, Format, LoadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = Format::detect(bytes);
    for stm_results in [false, true] {
        let opts = LoadOptions {
            stm_results,
            ..LoadOptions::default()
        };
        if let Ok((samples, report)) = read_epd(bytes, Path::new("<fuzz>"), &opts) {
            assert_eq!(samples.len() as u64, report.kept);
            for s in &samples {
                // Every sample read back must unpack and print.
                let _ = s.position().expect("a kept sample unpacks");
                let _ = s.to_epd();
            }
        }
    }
});
