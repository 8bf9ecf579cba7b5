//! What a run produced: [`RunOutcome`] (kept weights, losses, why it stopped, the log) and,
//! for [`run_resolving`](crate::run_resolving), [`ResolvedRun`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::log::LogRecord;
use crate::method::Method;
use crate::objective::Objective;
use crate::resolve::Resolution;
use crate::validation::Decision;

/// What a run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The method.
    pub method: Method,
    /// The best full weights by validation loss (by training loss without a validation split).
    pub weights: Vec<f64>,
    /// The iteration that produced them.
    pub best_iter: u64,
    /// Which rule chose them, and by how much.
    #[serde(default)]
    pub selection: Option<Decision>,
    /// Training data loss (no regularisation) at the start and at the best weights (with
    /// re-resolution, both on the final leaves).
    pub train_loss: (f64, f64),
    /// Validation loss at the start and at the best weights (with re-resolution, both on the
    /// final leaves).
    pub valid_loss: Option<(f64, f64)>,
    /// What it spent: iterations, passes, seconds (at the top level of its JSON).
    #[serde(flatten)]
    pub spent: Spent,
    /// Why it stopped.
    pub reason: String,
    /// Whether it was interrupted (Ctrl-C).
    pub interrupted: bool,
    /// The log, one record per iteration.
    pub history: Vec<LogRecord>,
    /// The re-resolutions of the quiescence leaves ([`run_resolving`]; empty otherwise).
    #[serde(default)]
    pub resolutions: Vec<Resolution>,
    /// The strengths tried when the L2 strength was chosen on the validation split
    /// ([`run_l2_path`](crate::regularise::run_l2_path); empty otherwise).
    #[serde(default)]
    pub l2_path: Vec<L2Trial>,
}

/// What a run spent ([`RunOutcome::spent`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    /// Iterations run.
    pub iterations: u64,
    /// Passes over the training data.
    pub passes: f64,
    /// Seconds.
    pub seconds: f64,
}

/// What [`run_resolving`] produced: the outcome and the objectives on the final leaves.
#[derive(Debug)]
pub struct ResolvedRun {
    /// The outcome; its losses are measured on the final leaves.
    pub outcome: RunOutcome,
    /// The training objective on the final leaves.
    pub train: Arc<Objective>,
    /// The validation objective on the final leaves.
    pub valid: Option<Arc<Objective>>,
}

/// One strength of the L2 path ([`run_l2_path`](crate::regularise::run_l2_path)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct L2Trial {
    /// The strength.
    pub l2: f64,
    /// Validation loss of the weights kept at that strength.
    pub valid_loss: f64,
    /// Training data loss (no penalty) of those weights.
    pub train_loss: f64,
    /// The iteration kept, of how many.
    pub best_iter: u64,
    /// Iterations run.
    pub iterations: u64,
    /// Passes over the training data.
    pub passes: f64,
}
