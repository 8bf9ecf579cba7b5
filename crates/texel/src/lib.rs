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

pub use resolve::{leaf_key, Resolver};
pub use tunable::Tunable;

use optim::OptimError;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum TexelError {
    /// Inconsistent options or inputs.
    #[error("{0}")]
    Config(String),
    /// The optimiser failed.
    #[error(transparent)]
    Optim(#[from] OptimError),
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error (part of this error's message, so not also its `source`: printing the
        /// chain does not repeat it).
        error: std::io::Error,
    },
    /// A data file could not be read (the error names the file).
    #[error(transparent)]
    Data(#[from] data::DataError),
    /// A weights file could not be read (the error names the file).
    #[error(transparent)]
    Weights(#[from] eval::ParamError),
    /// A manifest or trace file could not be read (the error names the file, and the line or
    /// JSON path).
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
    /// Weights could not be written as source code (`--emit`).
    #[error("source code: {0}")]
    Emit(#[from] trace::emit::EmitError),
    /// JSON (de)serialisation failed.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// Plotting failed.
    #[error("plot: {0}")]
    Plot(String),
    /// Stopped (Ctrl-C) while the data was being loaded and recorded: nothing was tuned.
    #[error("interrupted while loading the data: nothing was tuned")]
    Interrupted,
}

impl TexelError {
    pub(crate) fn io(path: &std::path::Path, error: std::io::Error) -> Self {
        TexelError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}
