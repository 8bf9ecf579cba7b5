//! [`OptimError`]: what can go wrong in a run, shared by every module of the crate.

/// The error a [`Rerecord`](crate::Rerecord) hook returns; the driver reports it as
/// [`OptimError::Hook`].
pub type HookError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum OptimError {
    /// Inconsistent options or inputs.
    #[error("{0}")]
    Config(String),
    /// An argmin error.
    #[error("optimiser: {0}")]
    Argmin(String),
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error (part of this error's message, so not also its `source`: printing the
        /// chain does not repeat it).
        error: std::io::Error,
    },
    /// A lock shared by the run's threads was poisoned (a thread panicked holding it): the
    /// run's state (named) cannot be trusted.
    #[error("internal error: {0} was left inconsistent by a panic")]
    Poisoned(&'static str),
    /// A [`Rerecord`] hook failed between rounds.
    #[error("re-recording the sets: {0}")]
    Hook(#[source] HookError),
    /// JSON (de)serialisation failed.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
}

impl OptimError {
    pub(crate) fn argmin(e: argmin::core::Error) -> Self {
        OptimError::Argmin(e.to_string())
    }

    pub(crate) fn io(path: &std::path::Path, error: std::io::Error) -> Self {
        OptimError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}
