//! What a running loop reports ([`LoopEvent`]) and how it ended ([`LoopOutcome`]).

use super::state::{LoopGeneration, LoopState, LoopStep, SpsaStage};

/// What a running loop reports (from worker threads too).
#[derive(Clone, Copy, Debug)]
pub enum LoopEvent<'a> {
    /// Continuing an earlier run of the loop at this generation's step (`None`: the
    /// generation after it).
    Resumed {
        /// The generation.
        generation: u32,
        /// Its first step not done.
        step: Option<LoopStep>,
    },
    /// A step of a generation starts, with this many games or positions to go (0 for tuning).
    Step {
        /// The generation.
        generation: u32,
        /// The step.
        step: LoopStep,
        /// Games (self-play, gate) or positions (trace) it has, at most.
        total: u64,
    },
    /// A game or a position of the current step is done.
    Progress,
    /// The gate's SPRT decided after this many pairs.
    SprtDecided {
        /// Pairs played.
        pairs: u64,
    },
    /// The engine failed during a step (crashed, hung, answered nonsense) this many times; it
    /// was restarted each time. `first` is the first failure's message.
    EngineFailures {
        /// The step.
        step: LoopStep,
        /// How many failures.
        count: usize,
        /// The first one.
        first: &'a str,
    },
    /// Generation 0's weights: the manifest's ports of catalogue groups started at a
    /// ranking's values (`--discovered`), one line a port.
    PortsStarted(&'a [String]),
    /// A step was done and saved.
    StepDone(&'a LoopGeneration),
    /// A step of the SPSA stage was done and saved.
    SpsaStepDone(&'a SpsaStage),
}

/// How a loop ended.
#[derive(Clone, Debug)]
pub struct LoopOutcome {
    /// The state: every generation so far.
    pub state: LoopState,
    /// Whether `stop` ended it before the last generation (a rerun continues).
    pub interrupted: bool,
}
