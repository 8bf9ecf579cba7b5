//! L-BFGS: argmin's, with a More-Thuente line search.

use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use serde::{Deserialize, Serialize};

use crate::error::OptimError;

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
