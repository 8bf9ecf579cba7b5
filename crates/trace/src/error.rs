//! [`TraceError`] (manifests, files) and [`EvalError`] (one position's evaluation).

use std::path::PathBuf;

/// What can go wrong reading a manifest or trace files, or writing them.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The manifest is invalid: `origin` (its file), the JSON path (`params[2].value[3]`) and
    /// what is wrong.
    #[error("{origin}: {path}: {message}")]
    Manifest {
        /// The manifest's file name (or another origin, as given).
        origin: String,
        /// The JSON path of the offending value; `$` for the whole document.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// An expression of the manifest does not parse or names something unknown.
    #[error("{origin}: {path}, column {column}: {message}")]
    Expression {
        /// The manifest's file name.
        origin: String,
        /// The JSON path of the expression (`terms[0].mg`).
        path: String,
        /// 1-based column in the expression.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A malformed trace record, with `--strict`: `file:line` (or `file: record N`) and what.
    #[error("{location}: {message}")]
    Input {
        /// `file:line` for text, `file: record N` for the binary cache.
        location: String,
        /// What is wrong.
        message: String,
    },
    /// An error from the `data` crate (opening and decompressing files).
    #[error(transparent)]
    Data(#[from] data::DataError),
}

impl TraceError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> TraceError {
        TraceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Why one position could not be evaluated (callers skip it and count it).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// An index expression (`ks_weight[king_attackers]`) is past the end of its dimension.
    #[error("`{name}` index {index} out of range (dimension {dim} has {len} elements)")]
    IndexOutOfRange {
        /// The parameter.
        name: String,
        /// The index value.
        index: usize,
        /// Which dimension (0-based).
        dim: usize,
        /// The dimension's length.
        len: usize,
    },
    /// An index expression is not a whole number >= 0.
    #[error("`{name}` index {value} is not a whole number >= 0")]
    BadIndex {
        /// The parameter.
        name: String,
        /// The value the index expression gave.
        value: f64,
    },
    /// A name nothing defines (only from [`Expr::eval_f64`](crate::expr::Expr::eval_f64):
    /// manifests resolve every name when they are loaded).
    #[error("unknown name `{name}`")]
    Unknown {
        /// The name.
        name: String,
    },
    /// The weights do not fit the manifest.
    #[error("{got} weights given, the manifest has {expected}")]
    WeightCount {
        /// The manifest's number of weights.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// The evaluation is not a finite number (a division by zero, an overflow).
    #[error("the evaluation is {value} (not finite){}", in_term.as_ref().map(|t| format!(" after term `{t}`")).unwrap_or_default())]
    NotFinite {
        /// The value.
        value: f64,
        /// The term after which it became non-finite, if one did.
        in_term: Option<String>,
    },
}
