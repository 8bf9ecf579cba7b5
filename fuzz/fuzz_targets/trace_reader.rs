//! Arbitrary bytes through the trace line reader against a fixed manifest: errors are fine,
//! panics are not; every accepted trace evaluates, unpacks and reads back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../trace_checks.rs"]
mod trace_checks;

fuzz_target!(|bytes: &[u8]| trace_checks::trace_reader(bytes));
