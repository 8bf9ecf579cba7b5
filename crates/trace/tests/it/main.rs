//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file. The shared helpers stay in their folders beside
//! it, where other crates' tests include them from.

#[path = "../../../../fuzz/trace_checks.rs"]
mod checks;
#[path = "../common/mod.rs"]
mod common;
#[path = "../../../data/tests/common/mutate.rs"]
mod mutator;
#[path = "../../../data/tests/common/tools.rs"]
mod tools;

mod docs;
mod emit;
mod engine_answer;
mod evaluate;
mod fuzz_smoke;
mod gradients;
mod manifest;
mod ports;
mod reader;
mod trunc;
mod verify;
