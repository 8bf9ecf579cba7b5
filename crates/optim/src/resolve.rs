//! Re-recording the sets between rounds of a run, as the weights move.
//!
//! Some objectives depend on where the data is looked at, and where depends on the weights: a
//! chess tuner that evaluates each position at the end of its quiescence search finds other
//! leaves when the weights move. A [`Rerecord`] hook holds whatever it needs to record the
//! training and validation sets again at new weights; [`run_resolving`](crate::run_resolving)
//! calls it every `N` iterations and continues on the new sets. This crate knows nothing of
//! what is recorded (the chess hook lives in the `texel` crate).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tapered::Progress;

use crate::error::{HookError, OptimError};
use crate::objective::Objective;
use tapered::CompiledSet;

/// A hook that records the training and validation sets again at new weights.
pub trait Rerecord {
    /// Training and validation positions it holds (they must match the objectives').
    fn positions(&self) -> (usize, usize);

    /// A 64-bit fingerprint of what the current sets were recorded from (equal fingerprints:
    /// the same sets, but for a hash collision); the driver uses it to see rounds go round in
    /// a cycle.
    fn fingerprint(&self) -> u64;

    /// Records both sets at the full weights `w`, counting the positions whose recording
    /// changed since the previous call (0 the first time). `progress` may advance by one per
    /// position handled.
    fn record(&mut self, w: &[f64], progress: Option<&Progress>) -> Result<Recorded, HookError>;

    /// Gives the hook the run's interrupt flag (Ctrl-C): a [`record`](Self::record) under way
    /// when it is set may end early with an error, and the run then ends keeping the best
    /// weights so far. The default ignores it (the record runs to its end).
    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        let _ = stop;
    }
}

/// One re-resolution of the leaves during a run (a line of the log, an entry of the summary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// Iterations done when the leaves were re-resolved (at that iteration's weights).
    pub iter: u64,
    /// Training positions whose leaf changed.
    pub train_changed: usize,
    /// Validation positions whose leaf changed.
    pub valid_changed: usize,
    /// Training and validation positions.
    pub positions: (usize, usize),
    /// Fraction of all positions (training and validation) whose leaf changed.
    pub fraction: f64,
    /// Training data loss at the current weights on the old leaves, then on the new.
    pub train_loss: (f64, f64),
    /// Validation loss at the current weights on the old leaves, then on the new.
    pub valid_loss: Option<(f64, f64)>,
    /// Seconds the search and the recording took.
    pub seconds: f64,
    /// `Some(i)` if the weights and every leaf are those of the re-resolution after iteration
    /// `i` (0: the start) again: the rounds go round in a cycle, and the run ends.
    #[serde(default)]
    pub repeats: Option<u64>,
}

impl Resolution {
    /// A one-line description, as the progress output prints it.
    pub fn to_text(&self) -> String {
        let pct = |c: usize, n: usize| {
            if n == 0 {
                0.0
            } else {
                100.0 * c as f64 / n as f64
            }
        };
        format!(
            "re-resolved leaves at iteration {}: {}/{} training ({:.2}%) and {}/{} validation \
             ({:.2}%) changed; train {:.6} -> {:.6}{} ({:.1} s)",
            self.iter,
            self.train_changed,
            self.positions.0,
            pct(self.train_changed, self.positions.0),
            self.valid_changed,
            self.positions.1,
            pct(self.valid_changed, self.positions.1),
            self.train_loss.0,
            self.train_loss.1,
            self.valid_loss
                .map_or(String::new(), |(a, b)| format!(", valid {a:.6} -> {b:.6}")),
            self.seconds
        ) + &self.repeats.map_or(String::new(), |i| {
            format!("; the leaves of iteration {i} again")
        })
    }
}

/// What one [`Rerecord::record`] produced.
#[derive(Debug)]
pub struct Recorded {
    /// The training set, recorded at the new leaves.
    pub train: CompiledSet,
    /// The validation set, recorded at the new leaves.
    pub valid: CompiledSet,
    /// Training positions whose leaf changed since the previous recording (0 the first time).
    pub train_changed: usize,
    /// Validation positions whose leaf changed since the previous recording (0 the first time).
    pub valid_changed: usize,
}

/// `obj` (its `K`, regularisation and anchor, free parameters and bounds) on another set.
pub fn rebind(obj: &Objective, set: Arc<CompiledSet>) -> Result<Objective, OptimError> {
    obj.with_set(set)
}
