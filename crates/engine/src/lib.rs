//! `engine`: an alpha-beta search over the gradtune evaluation, self-play data generation,
//! matches between weight files, and a UCI front end.
//!
//! Start with [`Searcher`] (the search), [`Evaluator`] (what it searches over: the gradtune
//! evaluation through [`ModelEvaluator`], or plain material), then [`datagen`] and
//! [`matches`], which play games through [`game`].

#![warn(missing_docs)]

pub mod evaluator;
pub mod limits;
pub mod ordering;
pub mod search;
pub mod tt;

pub use evaluator::{Evaluator, MaterialEvaluator, Quiet, MATE, MATE_BOUND};
pub use limits::SearchLimits;
pub use search::{hash, SearchResult, Searcher};
