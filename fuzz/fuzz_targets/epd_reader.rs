//! Arbitrary bytes through the EPD reader: it may report errors, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../checks.rs"]
mod checks;

fuzz_target!(init: checks::one_thread(), |bytes: &[u8]| checks::epd_reader(bytes));
