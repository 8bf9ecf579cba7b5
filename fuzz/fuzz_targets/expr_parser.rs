//! Arbitrary text through the expression parser, its f64 evaluation, and a manifest's
//! validation and evaluation with it as a term: errors are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../trace_checks.rs"]
mod trace_checks;

fuzz_target!(|bytes: &[u8]| trace_checks::expr_parser(bytes));
