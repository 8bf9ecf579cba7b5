//! What a running bootstrap reports ([`Event`], by [`Stage`]) and how it ended ([`Outcome`]).

use crate::state::{Generation, State};

/// The steps of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Self-play games.
    SelfPlay,
    /// The tuning run.
    Tuning,
    /// The gate match.
    Gate,
    /// The ladder match against generation 0.
    LadderStart,
    /// The ladder match against the reference.
    LadderReference,
}

/// What a running bootstrap reports (from worker threads too).
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// Continuing an earlier bootstrap whose generations up to this one are finished.
    Resumed {
        /// The last finished generation.
        finished: u32,
    },
    /// A generation starts.
    Generation {
        /// Its number.
        generation: u32,
        /// The last generation of this run.
        last: u32,
    },
    /// A step starts: `games` games follow (0 for the tuning run).
    Stage {
        /// The step.
        stage: Stage,
        /// Games to play in it, at most.
        games: u64,
    },
    /// A game of the current step finished.
    Game,
    /// The gate's SPRT decided after this many pairs.
    SprtDecided {
        /// Pairs played.
        pairs: u64,
    },
    /// A generation finished and was saved.
    Finished(&'a Generation),
}

/// How a bootstrap ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The state: every finished generation.
    pub state: State,
    /// Whether `stop` ended it before the last generation (the unfinished one is redone on
    /// the next run).
    pub interrupted: bool,
}
