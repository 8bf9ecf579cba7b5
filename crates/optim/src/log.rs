//! [`LogRecord`]: one line of a run's JSON-lines log, one per iteration; what the stopping
//! rules read.

use serde::{Deserialize, Serialize};

/// One line of the run log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// Iteration number over the whole run (0: the starting weights).
    pub iter: u64,
    /// Which solver (stage of a hybrid run) produced it.
    pub stage: String,
    /// Seconds since the run started.
    pub seconds: f64,
    /// Training objective (with regularisation) as the solver reports it.
    pub train_loss: f64,
    /// Mean loss on the validation split (`None` without one).
    pub valid_loss: Option<f64>,
    /// Norm of the projected gradient (see [`projected_gradient`](crate::projected_gradient)),
    /// where the solver has a gradient.
    pub grad_norm: Option<f64>,
    /// Passes over the training data so far.
    pub passes: f64,
}
