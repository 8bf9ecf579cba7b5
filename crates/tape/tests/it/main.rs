//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file. The shared helpers stay in their folders beside
//! it, where other crates' tests include them from.

#[path = "../common/mod.rs"]
mod common;

mod block;
mod gradient_composite;
mod gradient_ops;
mod scoped;
mod stale;
