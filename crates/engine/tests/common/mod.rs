//! Shared helpers for the integration tests: the repository's fixtures (the data crate's
//! helper, one copy for every crate's tests).
#![allow(dead_code)]

#[path = "../../../data/tests/common/mod.rs"]
mod data_common;
pub use data_common::fixture;
