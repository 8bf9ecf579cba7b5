//! [`TexelError`]: what can go wrong in this crate (a leaf: it imports nothing of the crate).

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
    /// Stopped (Ctrl-C) during `tune discover`'s fits: nothing was written.
    #[error("interrupted: discover stopped before it finished, nothing was written")]
    Stopped,
}

impl TexelError {
    pub(crate) fn io(path: &std::path::Path, error: std::io::Error) -> Self {
        TexelError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}
