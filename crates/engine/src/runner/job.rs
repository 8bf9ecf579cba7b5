//! [`Job`]: what a run asks an engine about each position (a leaf of `runner`).

use std::sync::atomic::AtomicBool;

use data::Sample;

use crate::uci_client::{EngineSpec, UciEngine, UciError};

/// One question asked of an engine about every position, and how its answer is kept.
pub trait Job: Sync {
    /// The answer about one position.
    type Answer: Send;

    /// How to start the engine (restarted with it after a failure).
    fn engine(&self) -> &EngineSpec;

    /// Asks `engine` about one position. An error skips the position and restarts the
    /// engine; setting `halt` ends a wait with [`UciError::Interrupted`].
    fn ask(
        &self,
        engine: &mut UciEngine,
        sample: &Sample,
        halt: &AtomicBool,
    ) -> Result<Self::Answer, UciError>;

    /// The answer as the text of one progress line (no line break).
    fn encode(&self, answer: &Self::Answer) -> String;

    /// An answer read back from a progress line's text, or what is wrong with it.
    fn decode(&self, text: &str) -> Result<Self::Answer, String>;
}
