//! [`Job`]: what a run asks an engine about each position, and [`Output`]: where the answers
//! go (a leaf of `runner`).

use std::sync::atomic::AtomicBool;

use data::Sample;

use crate::play::uci_client::{EngineSpec, UciEngine, UciError};

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

/// Where a run's answers go: every position in the input's order, once its answer is known,
/// so that the output can be written as the run goes (a file kept open and renamed into
/// place at the end: [`fsutil::compressed::CompressedFile`]).
pub trait Output<A> {
    /// Position `index` (`sample`) and its answer (`None`: skipped after an engine failure).
    /// Called once for every position, in order.
    fn write(
        &mut self,
        index: usize,
        sample: &Sample,
        answer: Option<&A>,
    ) -> Result<(), crate::error::EngineError>;

    /// Every position was written: complete the output (rename it into place). A run that
    /// does not finish never calls it, and the output is dropped (its temporary file
    /// removed).
    fn commit(&mut self) -> Result<(), crate::error::EngineError>;
}
