//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file. The shared helpers stay in their folders beside
//! it, where other crates' tests include them from.

#[path = "../common/mod.rs"]
mod common;
#[path = "../traced_fixture/mod.rs"]
mod fixture;
#[path = "../../../data/tests/common/tools.rs"]
mod tools;

mod bounds;
mod centring;
mod compare;
mod discover;
mod discover_start;
mod emit;
mod explain;
mod flat;
mod judge;
mod known_eval;
mod objective;
mod phased_traces;
mod polish;
mod recovery;
mod replay;
mod resolve;
mod rounding;
mod setup;
mod stream;
mod traced;
mod traced_heads;
mod wandering;
