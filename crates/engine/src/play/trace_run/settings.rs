//! [`TraceSettings`]: how to trace (a leaf of `trace_run`).

use std::time::Duration;

use crate::play::uci_client::EngineSpec;

/// How to trace.
#[derive(Clone, Debug)]
pub struct TraceSettings {
    /// The engine (started as given: [`TraceSettings::new`] turns the UCI handshake off).
    pub engine: EngineSpec,
    /// How long the engine may take to answer `trace` (or `manifest`) before it counts as
    /// hung.
    pub timeout: Duration,
    /// Engine processes run in parallel (at least 1).
    pub jobs: usize,
    /// Stop at the first failure (naming the engine and the position) instead of skipping.
    pub strict: bool,
}

impl TraceSettings {
    /// Settings for the engine started by `command` (no UCI handshake), 10 s to answer, one
    /// process, skipping failures.
    pub fn new(command: &str) -> TraceSettings {
        TraceSettings {
            engine: EngineSpec::new(command).handshake(false),
            timeout: Duration::from_secs(10),
            jobs: 1,
            strict: false,
        }
    }
}
