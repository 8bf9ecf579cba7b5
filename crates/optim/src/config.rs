//! [`RunConfig`]: how a run goes (the method and its options, budgets, stopping rules, the
//! selection rule, the log, progress), and the check of the options a run cannot start with.

use std::path::PathBuf;

use crate::error::OptimError;
use crate::method::{Method, SolverOptions};
use crate::stopping::{Budget, Stopping};
use crate::validation::Selection;
use tapered::Progress;

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunConfig {
    /// The optimiser.
    pub method: Method,
    /// Budgets and early stopping.
    pub budget: Budget,
    /// The relative convergence rules every method stops on.
    pub stopping: Stopping,
    /// Solver options.
    pub solvers: SolverOptions,
    /// How the kept iterate is chosen.
    pub selection: Selection,
    /// Where to write the JSON-lines log, if anywhere.
    pub log: Option<PathBuf>,
    /// Where the run reports its progress (the program draws it; none by default).
    pub progress: Progress,
    /// The names of the full weights (empty: unnamed), for saying which parameters a solver
    /// that stopped abnormally was stuck on.
    pub names: Vec<String>,
}

impl RunConfig {
    /// Checks the options a run cannot start with: a non-positive Adam step or Gauss-Newton
    /// damping, a negative local-search step, a negative or infinite selection `z`. [`run`]
    /// calls it; call it before expensive preparation to fail early.
    pub fn check(&self) -> Result<(), OptimError> {
        let o = &self.solvers;
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if !positive(o.adam.lr)
            || !positive(o.gauss_newton.damping)
            || o.local.step.is_nan()
            || o.local.step < 0.0
        {
            return Err(OptimError::Config(format!(
                "the Adam step ({}) and the Gauss-Newton damping ({}) must be positive and the \
                 local-search step ({}) non-negative",
                o.adam.lr, o.gauss_newton.damping, o.local.step
            )));
        }
        if let Selection::WithinNoise { z } = self.selection {
            if !(z >= 0.0 && z.is_finite()) {
                return Err(OptimError::Config(format!(
                    "the selection rule's z must be a finite number of standard errors >= 0, \
                     not {z}"
                )));
            }
        }
        Ok(())
    }
}
