//! gradtune's own search: the [`Searcher`](searcher::Searcher) (iterative deepening over a
//! principal-variation negamax, `searcher.rs`), its transposition table (`tt.rs`) and move
//! ordering (`ordering.rs`), the [`Evaluator`](evaluator::Evaluator)s it searches over
//! (`evaluator.rs`), the limits of one search (`limits.rs`) and the UCI server that runs it
//! (`uci.rs`, the `gradtune-uci` binary). It may know chess, `eval` and the leaves
//! ([`crate::score`], [`crate::error`]); not games, matches or other engines
//! ([`crate::play`]).

pub mod evaluator;
pub mod limits;
pub mod ordering;
pub mod searcher;
pub mod tt;
pub mod uci;
