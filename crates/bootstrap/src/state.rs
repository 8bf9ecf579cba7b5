//! `OUT/state.json`: the settings of a bootstrap and every finished generation. Written
//! atomically (a temporary file in the same directory, then a rename), after each generation,
//! so an interrupted bootstrap continues after its last finished generation.

use std::path::Path;

use engine::play::matches::MatchRecord;
use serde::{Deserialize, Serialize};

use crate::gate::{Keep, Reason};
use crate::{BootstrapError, Settings};

/// The version of the state file's layout.
pub const STATE_VERSION: u32 = 1;

/// A bootstrap's progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// The settings the bootstrap was started with; a continuation must use the same.
    pub settings: Settings,
    /// The finished generations, generation 0 (the start weights) first.
    pub generations: Vec<Generation>,
}

/// One finished generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// Its number (0: the start weights).
    pub generation: u32,
    /// The generation whose tuned weights it keeps (0: the start weights); they are copied to
    /// `genNNN/weights.json`.
    pub best: u32,
    /// The self-play games it played with the previous best weights (none for generation 0).
    pub data: Option<DataRecord>,
    /// Its tuning run (none for generation 0).
    pub tuning: Option<TuningRecord>,
    /// Its gate match, candidate against the previous best (none for generation 0).
    pub gate: Option<GateRecord>,
    /// The kept weights against generation 0's; `None` when they are generation 0's.
    pub vs_start: Option<MatchRecord>,
    /// The kept weights against the reference weights, if any were given.
    pub vs_reference: Option<MatchRecord>,
}

/// A generation's self-play data (`genNNN/data.gtc.zst`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataRecord {
    /// Games played.
    pub games: u32,
    /// Positions written.
    pub positions: u64,
    /// Games won by White.
    pub white_wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games won by Black.
    pub black_wins: u32,
    /// The generations whose kept weights the best also played ([`Settings::pool`]), the
    /// most recent last; empty for self-play alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opponents: Vec<u32>,
}

/// A generation's tuning run (`genNNN/tune/`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuningRecord {
    /// The generations whose data it tuned on.
    pub window: Vec<u32>,
    /// Training and validation positions.
    pub positions: (usize, usize),
    /// The sigmoid's `K` (fitted at the start weights).
    pub k: f64,
    /// Training loss before and after.
    pub train_loss: (f64, f64),
    /// Validation loss before and after.
    pub valid_loss: Option<(f64, f64)>,
    /// Iterations run.
    pub iterations: u64,
    /// The iteration whose weights were kept.
    pub best_iter: u64,
}

/// A generation's gate: the match of its candidate against the previous best, and the decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    /// The match, candidate as the first player.
    #[serde(rename = "match")]
    pub result: MatchRecord,
    /// Which weights were kept.
    pub keep: Keep,
    /// Why.
    pub reason: Reason,
}

impl TuningRecord {
    /// The record of a tuning run on the data of `window`, from its summary.
    pub fn new(window: Vec<u32>, summary: &texel::output::Summary) -> TuningRecord {
        TuningRecord {
            window,
            positions: summary.problem.positions,
            k: summary.problem.k,
            train_loss: summary.losses.train_loss,
            valid_loss: summary.losses.valid_loss,
            iterations: summary.course.iterations,
            best_iter: summary.course.best_iter,
        }
    }
}

impl State {
    /// Reads a state file.
    pub fn read(path: &Path) -> Result<State, BootstrapError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| BootstrapError::io("read", path, e))?;
        let state: State = serde_json::from_str(&text).map_err(|source| BootstrapError::Json {
            path: path.to_path_buf(),
            source,
        })?;
        if state.version != STATE_VERSION {
            return Err(BootstrapError::Options(format!(
                "{}: state version {} (this program reads {STATE_VERSION})",
                path.display(),
                state.version
            )));
        }
        Ok(state)
    }

    /// Writes the state to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<(), BootstrapError> {
        write_json(path, self)
    }
}

/// Writes `value` as pretty JSON to `path` atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), BootstrapError> {
    let text = serde_json::to_string_pretty(value).map_err(|source| BootstrapError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    write_atomic(path, &(text + "\n"))
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename
/// ([`fsutil::atomic`]), so a reader (or an interrupted run) sees the old file or the new one,
/// never half of one.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), BootstrapError> {
    fsutil::atomic::write(path, text).map_err(|e| BootstrapError::io("write", path, e))
}
