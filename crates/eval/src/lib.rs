//! A tapered chess evaluation written once, generic over [`tape::Scalar`]: the engine searches
//! with `f64` and the tuner differentiates the very same code (as RuyTune did with a C++
//! template).
//!
//! * [`Model`]: two models selectable by name ([`ModelKind`]): `psqt` (material and piece-square
//!   tables, linear in the weights) and `full` (plus mobility, pawn structure, piece terms,
//!   non-linear king safety, tempo, threats, ... and tunable phase weights: one module per term
//!   in `src/terms/`, listed once in `src/terms/mod.rs`).
//! * Parameters have stable readable names ([`ParamInfo`]), read and written as JSON by name
//!   ([`weights_to_json`], [`weights_from_json`], [`load_weights`], [`save_weights`]) and printed
//!   for people ([`tables`]); engines get them as source code from `texel::emit`, which
//!   describes the models' tables for the one emitter, `trace::emit`.
//! * [`quiesce`]: quiescence search on `f64` returning the score and the position at the end of
//!   its principal variation, where RuyTune takes the gradient.
//!
//! ```
//! use eval::{quiesce, Model, ModelKind};
//! use shakmaty::Chess;
//! use tape::{Scalar, Tape};
//!
//! let model = Model::new(ModelKind::Full);
//! let w = model.default_weights();
//! let pos = Chess::default();
//!
//! let score: f64 = model.evaluate(&pos, &w);
//! assert_eq!(score, 0.0); // symmetric position, default weights
//!
//! let mut tape = Tape::new();
//! let grad = tape.record(|rec| {
//!     let vars = rec.inputs(&w);
//!     let y = model.evaluate(&pos, &vars);
//!     let mut grad = vec![0.0; model.len()];
//!     rec.gradient(y, &mut grad);
//!     grad
//! });
//! // White to move: the tempo bonus counts fully in the middlegame at the start.
//! assert_eq!(grad[model.index_of("tempo.mg").unwrap()], 1.0);
//!
//! let q = quiesce(&model, &pos, &w);
//! assert_eq!(q.score, 0.0);
//! ```
#![warn(missing_docs)]

mod display;
mod error;
mod features;
mod full;
mod json;
mod kind;
mod model;
mod movegen;
mod param_info;
mod params;
mod psqt;
mod qsearch;
mod rounding;
mod terms;

#[cfg(test)]
mod testing;
#[cfg(test)]
pub(crate) use testing::test_position;

pub use crate::display::tables;
pub use crate::error::ParamError;
pub use crate::json::{
    load_weights, load_weights_as, save_weights, weights_from_json, weights_to_json, MAX_WEIGHT,
};
pub use crate::kind::ModelKind;
pub use crate::model::{merge_terms, HeadGradient, Model, Split};
pub use crate::param_info::ParamInfo;
pub use crate::qsearch::{
    is_quiet, quiesce, quiesce_score, quiesce_window, Quiescence, QuiescenceScore, MATE,
    MAX_QSEARCH_DEPTH,
};
pub use crate::rounding::{round_weights, FIXED_POINT_SCALE};
pub use crate::terms::LATER_GROUPS;
