//! The error type of the crate.

use std::path::PathBuf;

/// Everything that can go wrong while reading or writing labelled positions.
///
/// Bad *records* (a malformed line, FEN or game) are normally skipped and counted in a
/// [`Report`](crate::Report); they become a [`DataError::Input`] only with `strict` set.
///
/// ```
/// use data::{load, DataError, LoadOptions};
/// let err = load("no/such/file.epd".as_ref(), &LoadOptions::default()).unwrap_err();
/// assert!(matches!(err, DataError::Io { .. }));
/// assert!(err.to_string().starts_with("no/such/file.epd: "));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// An I/O error on a file.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error (part of this error's message, so not also its `source`:
        /// printing the chain does not repeat it).
        error: std::io::Error,
    },
    /// A malformed record, reported in strict mode (or a file that cannot be read at all).
    #[error("{location}: {message}")]
    Input {
        /// `file:line` or `file: game N`.
        location: String,
        /// What was wrong.
        message: String,
    },
    /// A binary cache that is truncated, of an unknown version, or otherwise corrupt.
    #[error("{path}: bad binary cache: {message}")]
    Cache {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A file in none of the formats read (or empty): the message says what it looked like
    /// (its first bytes, its compression, the formats tried, how many records failed).
    #[error("{path}: {message}")]
    Unrecognised {
        /// The file.
        path: PathBuf,
        /// What the file looked like and what was tried.
        message: String,
    },
    /// A packed board that does not decode to a legal position.
    #[error("bad packed board: {0}")]
    Board(String),
    /// An option out of range or a request that cannot be honoured.
    #[error("{0}")]
    Invalid(String),
}

impl DataError {
    /// Wraps an I/O error with the file it happened on.
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> DataError {
        DataError::Io {
            path: path.into(),
            error,
        }
    }
}
