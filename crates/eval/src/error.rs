//! [`ParamError`]: everything that can go wrong reading or writing weights.

use std::path::PathBuf;

use thiserror::Error;

/// An error reading, writing or checking a weights file. Messages say what is wrong and where:
/// every unknown, missing, duplicate or non-finite parameter is named. Each message is complete
/// on its own (no error here has a `source`), so printing the chain does not repeat it.
///
/// ```
/// use eval::{weights_from_json, ParamError};
/// let err = weights_from_json(r#"{"model": "nnue", "params": {}}"#).unwrap_err();
/// assert!(matches!(err, ParamError::UnknownModel(ref m) if m == "nnue"));
/// assert_eq!(err.to_string(), "unknown model `nnue` (valid models: psqt, full)");
/// ```
#[derive(Debug, Error)]
pub enum ParamError {
    /// The model name is not one of the known models.
    #[error("unknown model `{0}` (valid models: psqt, full)")]
    UnknownModel(String),
    /// The text is not valid JSON of the expected shape.
    #[error("invalid weights JSON: {0}")]
    Json(String),
    /// Some parameter names or values are wrong.
    #[error("invalid weights for model `{model}`: {details}")]
    Invalid {
        /// The model the file is for.
        model: String,
        /// A description naming every offending parameter.
        details: String,
    },
    /// The weight vector's length does not match the model.
    #[error("model `{model}` has {expected} parameters, but {got} weights were given")]
    Length {
        /// The model.
        model: String,
        /// Its number of parameters.
        expected: usize,
        /// The number of weights given.
        got: usize,
    },
    /// Reading or writing a file failed.
    #[error("cannot {action} {path}: {error}")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error (part of this error's message, so not also its `source`).
        error: std::io::Error,
    },
    /// An error in the contents of a file.
    #[error("{path}: {error}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (part of this error's message, so not also its `source`).
        error: Box<ParamError>,
    },
}
