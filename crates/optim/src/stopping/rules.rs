//! [`Stopping`]: when a run has converged, by relative criteria that mean the same for every
//! method and every data set: the training loss fell by less than a fraction of itself over a
//! window of iterations, or the gradient norm fell below a fraction of its first value.
//! [`RunShared::record`](crate::observer::RunShared) applies them after every iteration and
//! the run's reason says which fired.

use serde::{Deserialize, Serialize};

use crate::log::LogRecord;

/// The relative stopping rules of a run (each off at 0).
///
/// ```
/// use optim::{LogRecord, Stopping};
/// let rec = |iter, train_loss| LogRecord { iter, stage: "x".into(), seconds: 0.0,
///     train_loss, valid_loss: None, grad_norm: None, passes: 0.0 };
/// let rule = Stopping { window: 2, rel_loss: 1e-3, rel_grad: 0.0 };
/// let flat = [rec(0, 1.0), rec(1, 0.9), rec(2, 0.89999), rec(3, 0.89998)];
/// assert!(rule.converged(&flat[..3], 0).is_none(), "0.1 gained in the window");
/// assert!(rule.converged(&flat, 0).unwrap().contains("training loss"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct Stopping {
    /// Converged when the training loss fell by less than --stop-rel-loss of itself over the
    /// last N iterations (0: never).
    #[cfg_attr(
        feature = "clap",
        arg(
            id = "stop_window",
            long = "stop-window",
            value_name = "N",
            default_value_t = Stopping::default().window
        )
    )]
    pub window: usize,
    /// The relative decrease of the training loss over --stop-window iterations below which the
    /// run has converged (0: never).
    #[cfg_attr(
        feature = "clap",
        arg(
            id = "stop_rel_loss",
            long = "stop-rel-loss",
            value_name = "X",
            default_value_t = Stopping::default().rel_loss
        )
    )]
    pub rel_loss: f64,
    /// Converged when the gradient norm falls below this fraction of its first value (0:
    /// never).
    #[cfg_attr(
        feature = "clap",
        arg(
            id = "stop_rel_grad",
            long = "stop-rel-grad",
            value_name = "X",
            default_value_t = Stopping::default().rel_grad
        )
    )]
    pub rel_grad: f64,
}

impl Default for Stopping {
    /// A window of 5 iterations and 1e-5 of the loss: at a loss of 0.08, less than 8e-7
    /// gained in 5 iterations, far below the noise of any validation split; and a gradient a
    /// millionth of its start.
    fn default() -> Self {
        Stopping {
            window: 5,
            rel_loss: 1e-5,
            rel_grad: 1e-6,
        }
    }
}

/// The prefix of every reason [`Stopping::converged`] gives.
pub const CONVERGED: &str = "converged:";

impl Stopping {
    /// No relative rule (each method's own tolerances and the budgets only).
    pub const OFF: Stopping = Stopping {
        window: 0,
        rel_loss: 0.0,
        rel_grad: 0.0,
    };

    /// Whether the run whose log is `history` (records from iteration `since` on count: the
    /// losses of earlier rounds were measured on other sets) has converged, and by which rule.
    pub fn converged(&self, history: &[LogRecord], since: u64) -> Option<String> {
        // The log is in iteration order: this round's records are its tail.
        let recs = &history[history.partition_point(|r| r.iter < since)..];
        let last = recs.last()?;
        if self.window > 0 && self.rel_loss > 0.0 && recs.len() > self.window {
            let old = recs[recs.len() - 1 - self.window].train_loss;
            let best = recs[recs.len() - self.window..]
                .iter()
                .map(|r| r.train_loss)
                .fold(f64::INFINITY, f64::min);
            let gain = (old - best) / old.abs().max(f64::MIN_POSITIVE);
            if old.is_finite() && best.is_finite() && gain < self.rel_loss {
                return Some(format!(
                    "{CONVERGED} the training loss fell by {gain:.2e} of itself over the last {} \
                     iterations (below {:e})",
                    self.window, self.rel_loss
                ));
            }
        }
        if self.rel_grad > 0.0 {
            let first = recs.iter().find_map(|r| r.grad_norm.filter(|g| *g > 0.0));
            if let (Some(g0), Some(g)) = (first, last.grad_norm) {
                if g < self.rel_grad * g0 {
                    return Some(format!(
                        "{CONVERGED} the gradient norm is {:.2e} of its first value (below {:e})",
                        g / g0,
                        self.rel_grad
                    ));
                }
            }
        }
        None
    }
}
