//! Examples of using the gradtune crates as a library. The runnable examples live in
//! `examples/*.rs` (`cargo run --release -p examples --example own_eval`); their code is here so
//! that `cargo test` exercises it.

pub mod own_eval;
