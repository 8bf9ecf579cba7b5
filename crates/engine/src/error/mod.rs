//! [`EngineError`]: what can go wrong outside the search itself (files, weights, options).

use std::path::PathBuf;

use thiserror::Error;

pub mod uci;

/// An error from loading weights or openings, writing output, or bad options.
///
/// ```
/// use engine::{EngineError, ModelEvaluator};
/// let err = ModelEvaluator::load("no/such/weights.json".as_ref()).unwrap_err();
/// assert!(matches!(err, EngineError::Weights(_)));
/// assert!(err.to_string().contains("no/such/weights.json"));
/// ```
#[derive(Debug, Error)]
pub enum EngineError {
    /// The weights file could not be read or is invalid.
    #[error(transparent)]
    Weights(#[from] eval::ParamError),
    /// Reading or writing labelled positions failed.
    #[error(transparent)]
    Data(#[from] data::DataError),
    /// A manifest or trace file could not be read or written.
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
    /// A file could not be read or written.
    #[error("cannot {action} {path}: {error}")]
    Io {
        /// What was being done (`read`, `write`, `create`).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error (part of this error's message, so not also its `source`:
        /// printing the chain does not repeat it).
        error: std::io::Error,
    },
    /// An opening could not be parsed.
    #[error("{path}:{line}: bad opening: {message}")]
    Opening {
        /// The openings file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An option value is out of range or inconsistent.
    #[error("invalid option: {0}")]
    Options(String),
    /// An external engine failed (it names its command and what happened).
    #[error(transparent)]
    Uci(#[from] uci::UciError),
    /// An external engine failed on one position and the run was told to stop there
    /// (`--strict`).
    #[error("{location}: {error}")]
    Position {
        /// `FILE: position N`.
        location: String,
        /// What the engine did (it names the engine's command).
        error: Box<uci::UciError>,
    },
    /// A progress file (of `tune label`, `tune trace`) that cannot be continued: corrupt, or written with
    /// other settings or inputs.
    #[error("{path}: {message}")]
    Progress {
        /// The progress file.
        path: PathBuf,
        /// What is wrong (with the line number when it is one line).
        message: String,
    },
}

impl EngineError {
    /// An I/O error on `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        EngineError::Io {
            action,
            path: path.into(),
            error,
        }
    }
}
