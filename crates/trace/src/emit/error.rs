//! [`EmitError`]: why weights could not be written as source text (a leaf of `emit`).

use std::io;
use std::path::PathBuf;

/// Why weights could not be written as source text.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    /// A template that does not parse or fails while rendering.
    #[error("template {file}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Template {
        /// The template file (or `built-in c.jinja`, ...).
        file: String,
        /// The 1-based line, if known.
        line: Option<usize>,
        /// What went wrong.
        message: String,
    },
    /// A template file that cannot be read.
    #[error("cannot read the template {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: io::Error,
    },
    /// A parameter name the language cannot use.
    #[error("parameter `{name}` cannot be named in {language}: {why}")]
    Name {
        /// The parameter.
        name: String,
        /// The language.
        language: String,
        /// Why.
        why: String,
    },
    /// A weight vector of the wrong length for the manifest.
    #[error("{got} weights for a manifest of {expected}")]
    Weights {
        /// The manifest's number of weights.
        expected: usize,
        /// The vector's.
        got: usize,
    },
    /// A table whose values do not match its shape.
    #[error("parameter `{name}`: {got} values for its shape, which holds {expected} values")]
    Values {
        /// The parameter.
        name: String,
        /// The values its shape holds.
        expected: usize,
        /// The values it has.
        got: usize,
    },
    /// A NaN or infinite weight.
    #[error("weight {weight} is {value}, not a finite number")]
    NotFinite {
        /// The weight (`pst[2][35].mg`).
        weight: String,
        /// Its value.
        value: f64,
    },
    /// An integer weight too large for its type.
    #[error("weight {weight} is {value}, beyond ±{max} (the range of its integer type)")]
    Range {
        /// The weight (`pst[2][35].mg`).
        weight: String,
        /// Its value.
        value: f64,
        /// The largest magnitude allowed.
        max: i64,
    },
}
