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
mod spec;
#[cfg(test)]
mod tests;

pub use crate::error::uci::UciError;
pub use command::split_command;
pub use options::SpinOption;
pub use process::UciEngine;
pub use protocol::{go_command, UciScore, UciSearch};
pub use spec::EngineSpec;

impl EngineSpec {
    /// Starts the engine: spawns it, then (unless [`handshake`](Self::handshake) is off)
    /// `uci` / `uciok` (collecting the declared options, [`UciEngine::options`], and checking
    /// the [`require`](Self::require)d ones), the options, `isready` / `readyok`.
    pub fn start(&self) -> Result<UciEngine, UciError> {
        UciEngine::start(self)
    }
}
