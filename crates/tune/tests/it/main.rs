//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file. The shared helpers stay in their folders beside
//! it, where other crates' tests include them from.

#[path = "../../../engine/tests/common/clock_engine.rs"]
mod clock;
#[path = "../common/mod.rs"]
mod common;
#[path = "../../../engine/tests/common/fake_engine.rs"]
mod fake_engine;
#[path = "../../../texel/tests/traced_fixture/mod.rs"]
mod fixture;
// `clock_engine` reaches the tool probes as `crate::tools`.
use common::tools;

mod discover;
mod emit;
mod emit_trace;
mod eval_explain;
mod hostile_inputs;
mod interrupt_games;
mod interrupts;
mod label;
mod loop_engine;
mod match_traced;
mod match_uci;
mod real_4ku;
mod real_ethereal;
mod spsa;
mod trace_engine;
mod trace_roundtrip;
mod traced;
