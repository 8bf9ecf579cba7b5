//! `OUT/state.json` of a loop: its settings and every generation, each step's record as soon
//! as the step is done. Written atomically after every step, so a rerun continues at the first
//! step not done (an interrupted step is redone from its start, or, for the trace, from its
//! progress file).

use std::path::Path;

use engine::play::selfplay::SelfPlaySummary;
use serde::{Deserialize, Serialize};

use super::settings::{LoopSettings, SpsaSettings};
use crate::gate::{answer, Keep};
use crate::state::{write_json, GateRecord, TuningRecord};
use crate::BootstrapError;
use engine::play::matches::MatchRecord;

/// The version of the state file's layout.
pub const LOOP_STATE_VERSION: u32 = 1;

/// A loop's progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    /// [`LOOP_STATE_VERSION`].
    pub version: u32,
    /// `loop`: tells this file from a bootstrap's.
    pub kind: String,
    /// The settings the loop was started with; a continuation must use the same.
    pub settings: LoopSettings,
    /// The generations, generation 0 (the start weights) first; the last may be unfinished.
    pub generations: Vec<LoopGeneration>,
    /// The SPSA stage after the last generation, once begun (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spsa: Option<SpsaStage>,
}

/// The steps of a generation, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoopStep {
    /// Self-play with the current weights.
    SelfPlay,
    /// Tracing the positions with the current weights.
    Trace,
    /// Tuning from the current weights.
    Tune,
    /// The SPRT gate: candidate against the current weights.
    Gate,
    /// A kept candidate against the start weights (generation 0's).
    VsStart,
    /// The SPSA stage's iterations, after the last generation.
    Spsa,
    /// The SPSA stage's gate: its result against the weights it started from.
    SpsaGate,
}

impl LoopStep {
    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            LoopStep::SelfPlay => "self-play",
            LoopStep::Trace => "trace",
            LoopStep::Tune => "tune",
            LoopStep::Gate => "gate",
            LoopStep::VsStart => "vs start",
            LoopStep::Spsa => "spsa",
            LoopStep::SpsaGate => "spsa gate",
        }
    }
}

/// One generation: the records of the steps done so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopGeneration {
    /// Its number (0: the start weights).
    pub generation: u32,
    /// The generation whose weights are current after it (its gate's winner); the weights
    /// are copied to `genNNN/weights.json` when it finishes.
    pub best: u32,
    /// Self-play with the current weights (`genNNN/selfplay.epd`).
    pub selfplay: Option<SelfPlayRecord>,
    /// The trace of the window's positions (`genNNN/traces.txt`).
    pub trace: Option<TraceRecord>,
    /// The tuning run (`genNNN/tune/`, the candidate `genNNN/tune/weights-int.json`).
    pub tuning: Option<TuningRecord>,
    /// The gate and its decision.
    pub gate: Option<LoopGate>,
    /// A kept candidate's match against the start weights (absent when the gate kept the
    /// current weights, and from the files of loops written before it was played).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_start: Option<LoopVsStart>,
}

impl LoopGeneration {
    /// The first step not done, `None` when the generation is finished.
    pub fn next_step(&self) -> Option<LoopStep> {
        if self.generation == 0 {
            None
        } else if let Some(gate) = &self.gate {
            (gate.gate.keep == Keep::New && self.vs_start.is_none()).then_some(LoopStep::VsStart)
        } else if self.selfplay.is_none() {
            Some(LoopStep::SelfPlay)
        } else if self.trace.is_none() {
            Some(LoopStep::Trace)
        } else if self.tuning.is_none() {
            Some(LoopStep::Tune)
        } else {
            Some(LoopStep::Gate)
        }
    }

    /// Its kept weights' match against the start, if measured.
    pub fn vs_start(&self) -> Option<&MatchRecord> {
        self.vs_start.as_ref().map(|v| &v.result)
    }
}

/// The SPSA stage (`tune loop --spsa-iters`): its settings and the records of its two steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaStage {
    /// Its settings; a continuation of the stage must give the same.
    pub settings: SpsaSettings,
    /// The last generation, which it follows.
    pub after: u32,
    /// The generation whose kept weights it starts from (the best after `after`).
    pub start: u32,
    /// The SPSA iterations, once all are done (`OUT/spsa/weights.json`).
    pub spsa: Option<SpsaRecord>,
    /// Its gate: the SPSA result (first) against the start weights, and the decision.
    pub gate: Option<LoopGate>,
}

impl SpsaStage {
    /// The stage's first step not done, `None` when it is finished.
    pub fn next_step(&self) -> Option<LoopStep> {
        if self.spsa.is_none() {
            Some(LoopStep::Spsa)
        } else if self.gate.is_none() {
            Some(LoopStep::SpsaGate)
        } else {
            None
        }
    }
}

/// The SPSA iterations of the stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaRecord {
    /// Iterations done.
    pub iterations: u64,
    /// Games played.
    pub games: u64,
    /// Coordinates moved.
    pub coordinates: usize,
    /// Weights (spin options) under them.
    pub tunables: usize,
    /// The mean of the iterations' results (`(wins - losses) / games` of the `+` side).
    pub mean_result: f64,
}

/// A generation's self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayRecord {
    /// Games, results, positions kept, forfeits.
    #[serde(flatten)]
    pub summary: SelfPlaySummary,
    /// Engine failures (crashes, hangs, malformed answers): each restarted the engine.
    pub engine_failures: usize,
}

/// A generation's trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// The generations whose self-play positions were traced.
    pub window: Vec<u32>,
    /// Positions asked about.
    pub positions: usize,
    /// Positions skipped after an engine failure.
    pub skipped: usize,
}

/// A generation's gate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopGate {
    /// The match (candidate first) and the decision.
    #[serde(flatten)]
    pub gate: GateRecord,
    /// Engine failures during the match (a side failing twice in a row forfeits its game).
    pub engine_failures: usize,
}

/// A kept generation measured against the start weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopVsStart {
    /// The match: the kept weights first, against generation 0's.
    #[serde(rename = "match")]
    pub result: MatchRecord,
    /// Engine failures during the match.
    pub engine_failures: usize,
    /// Whether the loop went back to its answer's weights after it: the whole interval lay
    /// below 0, the kept weights measured worse than the start.
    pub reverted: bool,
}

impl LoopState {
    /// Reads a loop's state file.
    pub fn read(path: &Path) -> Result<LoopState, BootstrapError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| BootstrapError::io("read", path, e))?;
        let state: LoopState =
            serde_json::from_str(&text).map_err(|source| BootstrapError::Json {
                path: path.to_path_buf(),
                source,
            })?;
        if state.version != LOOP_STATE_VERSION || state.kind != "loop" {
            return Err(BootstrapError::Options(format!(
                "{}: not a loop's state (version {} of kind `{}`; this program reads version \
                 {LOOP_STATE_VERSION} of kind `loop`)",
                path.display(),
                state.version,
                state.kind
            )));
        }
        Ok(state)
    }

    /// The loop's answer so far: the generation whose weights measured against the start have
    /// the highest lower end of their interval, generation 0 if none is above 0
    /// ([`crate::gate::answer`]).
    pub fn answer(&self) -> u32 {
        answer(
            self.generations
                .iter()
                .filter_map(|g| Some((g.generation, g.vs_start()?))),
        )
    }

    /// Writes the state to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<(), BootstrapError> {
        write_json(path, self)
    }
}
