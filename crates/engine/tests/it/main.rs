//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file. The shared helpers stay in their folders beside
//! it, where other crates' tests include them from.

#[path = "../common/clock_engine.rs"]
mod clock_engine;
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/fake_engine.rs"]
mod fake_engine;
#[path = "../../../data/tests/common/tools.rs"]
mod tools;

mod datagen;
mod default_dataset;
mod fast_eval;
mod match_players;
mod matches;
mod runner_stop;
mod same_search;
mod search;
mod spsa;
mod spsa_approximation;
mod time_control;
mod uci;
mod uci_client;
