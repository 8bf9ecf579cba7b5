//! [`BootstrapError`]: what can stop a bootstrap.

use std::path::PathBuf;

use thiserror::Error;

/// An error of [`run`](crate::run): bad options, files that cannot be read or written, a
/// state file that does not match the command, or a failure of a library it drives.
#[derive(Debug, Error)]
pub enum BootstrapError {
    /// An option is out of range.
    #[error("{0}")]
    Options(String),
    /// A file or directory could not be read or written.
    #[error("cannot {action} {path}")]
    Io {
        /// What was being done (`read`, `write`, `create`, `remove`, `rename`).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file (the state, a generation's record) could not be read or written.
    #[error("{path}: invalid JSON")]
    Json {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// `OUT/state.json` was written by a bootstrap with other settings.
    #[error(
        "{path} was written with other settings ({differences}); to continue it, give the \
         options it was started with (spelled out where a default has changed since: the \
         value before the arrow), or choose another --out"
    )]
    SettingsChanged {
        /// The state file.
        path: PathBuf,
        /// The settings that differ, `name: before -> now`.
        differences: String,
    },
    /// Weights could not be read, written or are of the wrong model.
    #[error("weights")]
    Weights(#[from] eval::ParamError),
    /// The engine refused weights or openings.
    #[error("engine")]
    Engine(#[from] engine::EngineError),
    /// Self-play data could not be written.
    #[error("self-play data")]
    Data(#[from] data::DataError),
    /// The tuning step failed.
    #[error("tuning")]
    Tuning(#[from] texel::TexelError),
    /// The ladder's plot could not be drawn.
    #[error("plot: {0}")]
    Plot(String),
}

impl BootstrapError {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        BootstrapError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}
