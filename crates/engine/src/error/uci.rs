//! [`UciError`]: what went wrong with an external engine ([`crate::play::uci_client`]), a
//! leaf beside [`EngineError`](super::EngineError), which wraps it.

use std::io;
use std::time::Duration;

use thiserror::Error;

/// What went wrong with an external engine. Every message names the engine's command.
#[derive(Debug, Error)]
pub enum UciError {
    /// The command line is empty or its quoting is unbalanced.
    #[error("engine command `{command}`: {message}")]
    Command {
        /// The command as given.
        command: String,
        /// What is wrong with it.
        message: String,
    },
    /// The process could not be started.
    #[error("engine `{command}`: cannot start: {error}")]
    Spawn {
        /// The command.
        command: String,
        /// Why (part of this message, so not also its `source`).
        error: io::Error,
    },
    /// No expected answer in time: the engine hangs (or the limit is too short).
    #[error("engine `{command}`: no `{expected}` within {:.1} s (hung?)", after.as_secs_f64())]
    Timeout {
        /// The command.
        command: String,
        /// The answer waited for (`uciok`, `readyok`, `bestmove`).
        expected: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The engine ended (it exited or crashed) while an answer was expected or a command sent.
    #[error("engine `{command}` exited ({status}) {during}{stderr}")]
    Exited {
        /// The command.
        command: String,
        /// `while `uciok` was expected` or `when sent `uci``.
        during: String,
        /// The exit status, as far as known (`exit status: 3`, `signal: 9`, `still running`).
        status: String,
        /// The last lines of its standard error, `: ...`, or empty.
        stderr: String,
    },
    /// An answer that is not valid UCI where it matters (a score, a best move).
    #[error("engine `{command}`: malformed answer `{line}`: {message}")]
    Malformed {
        /// The command.
        command: String,
        /// The line (cut to 200 characters).
        line: String,
        /// What is wrong with it.
        message: String,
    },
    /// Writing to the engine failed (it has gone).
    #[error("engine `{command}`: cannot send `{sent}`: {error}")]
    Write {
        /// The command.
        command: String,
        /// What was being sent.
        sent: String,
        /// Why.
        error: io::Error,
    },
    /// A search was asked for without a depth, node or time limit (it would never end).
    #[error("engine `{command}`: a search needs a depth, node or time limit")]
    NoLimit {
        /// The command.
        command: String,
    },
    /// The engine did not declare options it is to be given (`option name X type ...` lines
    /// during the handshake), such as the spin options of tuned weights.
    #[error(
        "engine `{command}`{}: does not declare {missing} of the {required} UCI options it is to be given: {}{}",
        if name.is_empty() { String::new() } else { format!(" ({name})") },
        first.join(", "),
        if *missing > first.len() { ", ..." } else { "" }
    )]
    MissingOptions {
        /// The command.
        command: String,
        /// The name it gave (`id name`), or empty.
        name: String,
        /// The first missing option names (at most five).
        first: Vec<String>,
        /// How many are missing.
        missing: usize,
        /// How many were required.
        required: usize,
    },
    /// The caller's abort flag was set while waiting.
    #[error("engine `{command}`: interrupted")]
    Interrupted {
        /// The command.
        command: String,
    },
}

impl UciError {
    /// Whether the error is the caller's own interruption rather than the engine's fault.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, UciError::Interrupted { .. })
    }
}
