//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file. The shared helpers stay in their folders beside
//! it, where other crates' tests include them from.

#[path = "../../../../fuzz/checks.rs"]
mod checks;
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/mutate.rs"]
mod mutator;

mod cache;
mod epd;
mod fuzz_smoke;
mod pgn;
mod records_filter;
mod stream;
