//! L-BFGS: argmin's, with a More-Thuente line search.

use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use serde::{Deserialize, Serialize};

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::coords::Coords;
use crate::error::OptimError;
use crate::linearise::jacobi_scale;
use crate::observer::RunShared;
use crate::stage::{mapped_stage, Stage, StageEnd};
use crate::stopping;

/// Options of L-BFGS.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LbfgsOptions {
    /// lbfgs (and hybrid): number of correction pairs kept (the memory `m`).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LbfgsOptions::default().memory))]
    pub memory: usize,
    /// lbfgs: stop when the gradient norm falls below this.
    #[cfg_attr(feature = "clap", arg(id = "lbfgs_tol_grad", long = "lbfgs-tol-grad", default_value_t = LbfgsOptions::default().tol_grad, value_name = "X"))]
    pub tol_grad: f64,
    /// lbfgs: stop when the objective changes by less than this between iterations.
    #[cfg_attr(feature = "clap", arg(id = "lbfgs_tol_cost", long = "lbfgs-tol-cost", default_value_t = LbfgsOptions::default().tol_cost, value_name = "X"))]
    pub tol_cost: f64,
    /// lbfgs (and hybrid): work in Jacobi-scaled variables (one extra pass at the start): see
    /// `jacobi_scale`; `--no-precondition` turns it off.
    #[cfg_attr(feature = "clap", arg(long = "no-precondition", action = clap::ArgAction::SetFalse))]
    pub precondition: bool,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        LbfgsOptions {
            memory: 10,
            tol_grad: 1e-10,
            tol_cost: 1e-12,
            precondition: true,
        }
    }
}

/// The argmin L-BFGS solver over `Vec<f64>`.
pub type Lbfgs = LBFGS<MoreThuenteLineSearch<Vec<f64>, Vec<f64>, f64>, Vec<f64>, Vec<f64>, f64>;

/// Builds argmin's L-BFGS with a More-Thuente line search (`c1 = 1e-4`, `c2 = 0.9`).
pub fn lbfgs(opts: &LbfgsOptions) -> Result<Lbfgs, OptimError> {
    let ls = MoreThuenteLineSearch::new()
        .with_c(1e-4, 0.9)
        .map_err(OptimError::argmin)?;
    LBFGS::new(ls, opts.memory.max(1))
        .with_tolerance_grad(opts.tol_grad)
        .and_then(|s| s.with_tolerance_cost(opts.tol_cost))
        .map_err(OptimError::argmin)
}

/// argmin's L-BFGS (More-Thuente) in coordinates mapped into the bounds, Jacobi-scaled when
/// asked (the scale is measured at the stage's start: one linearisation).
pub(crate) struct LbfgsStage(pub(crate) LbfgsOptions);

impl LbfgsStage {
    /// One L-BFGS run from `x0`: fresh memory, the Jacobi scale measured at `x0`.
    fn once(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        let s = lbfgs(&self.0)?;
        let coords = Coords::new(shared.train.bounds());
        let coords = if self.0.precondition {
            let scale = jacobi_scale(&shared.train, &x0, &coords);
            coords.scaled(Some(scale))
        } else {
            coords
        };
        let tries = "a More-Thuente line search along the L-BFGS direction";
        Ok(mapped_stage(
            shared,
            s,
            x0,
            ("lbfgs", tries),
            cap,
            coords,
            false,
        ))
    }
}

/// Restarts of L-BFGS at most, in one stage.
const MAX_RESTARTS: u32 = 20;

impl Stage for LbfgsStage {
    /// L-BFGS, restarted (fresh memory, the Jacobi scale measured again) where the relative
    /// loss rule ends it, as long as the run it ends lowered the training objective by more
    /// than ten times that rule's threshold: on a non-convex objective (`full`) L-BFGS crosses
    /// plateaus where the rule fires, and a scale measured far away (a bounded parameter near
    /// its bound has lost most of its curvature in the mapped coordinate) slows it more.
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        let first = shared.iter.load(Ordering::SeqCst);
        let mut since = first;
        let mut end = self.once(shared, x0, cap)?;
        let rule = shared.stopping.rel_loss;
        for restart in 1..=MAX_RESTARTS {
            if !stopping::ended_by_loss_rule(&shared.control, rule) {
                break;
            }
            // The training objective where this run started (the record before its first
            // iteration) and where it ended, from the log.
            let (e0, e1) = {
                let h = shared
                    .history
                    .lock()
                    .map_err(|_| OptimError::Poisoned("the run's history"))?;
                let recs = &h[h.partition_point(|r| r.iter + 1 < since)..];
                match (recs.first(), recs.last()) {
                    (Some(a), Some(b)) => (a.train_loss, b.train_loss),
                    _ => break,
                }
            };
            if !stopping::restart_worth(rule, e0, e1) || !stopping::resume(&shared.control) {
                break;
            }
            since = shared.iter.load(Ordering::SeqCst);
            shared.since.store(since, Ordering::SeqCst);
            let cap = cap.map(|c| c.saturating_sub(since - first));
            let (x, why) = self.once(shared, end.0, cap)?;
            end = (x, format!("{why} (after {restart} restarts)"));
        }
        Ok(end)
    }
}
