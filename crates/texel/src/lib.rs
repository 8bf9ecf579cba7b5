//! The chess adapter of gradtune: everything that turns chess data and the project's evaluation
//! into a problem for the chess-free optimiser ([`optim`]), and its results into files.
//!
//! * [`chess`]: parameter descriptions from [`eval::Model`], and positions recorded (as
//!   sparse rows, the phased store or the sums-and-head split) with their labels.
//! * [`Tunable`]: what a run tunes: a built-in model ([`eval::Model`]) or an engine's traced
//!   evaluation ([`traced::Traced`]: its manifest and traces, verified before tuning); every
//!   path below takes either.
//! * [`setup`]: data files loaded, split by game, recorded; `K` fitted; the objectives built
//!   ([`setup::prepare`]).
//! * [`Resolver`]: the quiescence leaves searched again as the weights move, the
//!   [`optim::Rerecord`] hook [`optim::run_resolving`] calls between rounds.
//! * [`job`]: one whole tuning run into a directory; [`output`]: the files it writes.
//! * [`compare`] and [`plot`]: every method side by side, as markdown, JSON and SVG.
//! * [`judge`]: how good weights are on any data (`tune eval`): losses, calibration, splits.
//! * [`explain`]: the positions that pull a parameter, the odd values, the residuals against
//!   simple position properties (`tune explain`).
//!
//! It may know chess, files and the run directory; it may not know the command line (that is
//! the `tune` binary's) nor search and matches (the `engine` crate's).
#![warn(missing_docs)]

pub mod chess;
pub mod compare;
pub mod emit;
mod error;
pub mod explain;
pub mod finish;
pub mod job;
pub mod judge;
pub mod memory;
pub mod output;
pub mod plot;
mod resolve;
pub mod setup;
pub mod traced;
pub mod tunable;

pub use error::TexelError;
pub use resolve::{leaf_key, Resolver};
pub use tunable::Tunable;
