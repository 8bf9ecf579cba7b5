//! A UCI client: drive an external engine process (`stockfish`, the user's own engine,
//! `gradtune-uci`) through the protocol: handshake, options, positions, searches.
//!
//! [`EngineSpec`] says how to start an engine (a command line split as a shell would, the
//! options to set, a time limit for answers); [`UciEngine`] is a running one. Every failure is
//! a [`UciError`] naming the engine's command and what happened: a time-out (a hung engine),
//! the process ending (a crash), a malformed answer. After an error the engine is in an
//! unknown state: drop it (which kills the process) and [`EngineSpec::start`] a new one.
//!
//! Engine processes run in their own process group, so a Ctrl-C at the terminal reaches the
//! program driving them, which stops them itself, and not the engines.

mod command;
mod options;
mod process;
mod protocol;
#[cfg(test)]
mod tests;

use std::io;
use std::time::Duration;

use thiserror::Error;

pub use command::split_command;
pub use options::SpinOption;
pub use process::UciEngine;
pub use protocol::{go_command, UciScore, UciSearch};

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

/// How to start an external engine.
///
/// ```
/// use std::time::Duration;
/// use engine::uci_client::EngineSpec;
/// let spec = EngineSpec::new("stockfish")
///     .option("Threads", "1")
///     .option("Hash", "16")
///     .timeout(Duration::from_secs(5));
/// assert_eq!(spec.command(), "stockfish");
/// ```
#[derive(Clone, Debug)]
pub struct EngineSpec {
    command: String,
    options: Vec<(String, String)>,
    required: Vec<String>,
    timeout: Duration,
    handshake: bool,
}

impl EngineSpec {
    /// An engine started by the command line `command` (split by [`split_command`]), with
    /// no options and 10 s to answer `uci` and `isready`.
    pub fn new(command: impl Into<String>) -> EngineSpec {
        EngineSpec {
            command: command.into(),
            options: Vec::new(),
            required: Vec::new(),
            timeout: Duration::from_secs(10),
            handshake: true,
        }
    }

    /// Whether [`start`](Self::start) does the UCI handshake (`uci` / `uciok`, the options,
    /// `isready` / `readyok`; the default). Without it the process is only spawned, for
    /// engines spoken to in another line protocol (the trace protocol's `position` / `trace`),
    /// and the options are not sent.
    pub fn handshake(mut self, handshake: bool) -> EngineSpec {
        self.handshake = handshake;
        self
    }

    /// Sets a UCI option after the handshake (`setoption name NAME value VALUE`).
    pub fn option(mut self, name: impl Into<String>, value: impl Into<String>) -> EngineSpec {
        self.options.push((name.into(), value.into()));
        self
    }

    /// Requires the engine to declare the option `name` in the handshake: [`start`](Self::start)
    /// fails with [`UciError::MissingOptions`] otherwise (checked before any option is set).
    pub fn require(mut self, name: impl Into<String>) -> EngineSpec {
        self.required.push(name.into());
        self
    }

    /// How long the engine may take to answer `uci` and `isready`.
    pub fn timeout(mut self, timeout: Duration) -> EngineSpec {
        self.timeout = timeout;
        self
    }

    /// The command line as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Starts the engine: spawns it, then (unless [`handshake`](Self::handshake) is off)
    /// `uci` / `uciok` (collecting the declared options, [`UciEngine::options`], and checking
    /// the [`require`](Self::require)d ones), the options, `isready` / `readyok`.
    pub fn start(&self) -> Result<UciEngine, UciError> {
        UciEngine::start(self)
    }
}
