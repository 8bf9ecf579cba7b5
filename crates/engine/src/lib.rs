//! `engine`: an alpha-beta search over the gradtune evaluation, self-play data generation,
//! matches between weight files, and a UCI front end.
//!
//! Start with [`Searcher`] (the search), [`Evaluator`] (what it searches over: the gradtune
//! evaluation through [`ModelEvaluator`], or plain material), then [`datagen`] and
//! [`matches`](mod@matches), which play games through [`game`].
//!
//! ```
//! use engine::{ModelEvaluator, SearchLimits, Searcher};
//! use shakmaty::{Chess, Position};
//!
//! let mut searcher = Searcher::new(ModelEvaluator::default_material(), 1);
//! let pos = Chess::default();
//! let r = searcher.search(&pos, &[], &SearchLimits::nodes(2_000));
//! assert!(pos.is_legal(r.best_move.unwrap()));
//! ```

#![warn(missing_docs)]

pub mod adjudication;
pub mod clock;
pub mod error;
pub mod evaluator;
pub mod limits;
pub mod ordering;
pub mod search;
pub mod tt;

pub use error::EngineError;
pub use evaluator::{Evaluator, MaterialEvaluator, ModelEvaluator, Quiet, MATE, MATE_BOUND};
pub use limits::SearchLimits;
pub use search::{hash, SearchResult, Searcher};
pub mod datagen;
pub mod elo;
pub mod game;
pub mod label;
pub mod matches;
pub mod openings;
pub mod pgn_out;
pub mod play;
pub mod player;
pub mod runner;
pub mod selfplay;
pub mod spsa;
pub mod trace_run;
pub mod uci;
pub mod uci_client;
