//! Levenberg-Marquardt-damped Gauss-Newton on the residuals `R_i - sigma(q_i)`.

use std::sync::Arc;

use argmin::core::{Error, Problem, Solver, State, TerminationReason, TerminationStatus, KV};
use serde::{Deserialize, Serialize};

use crate::linearise::Linearisation;
use crate::observer::{take_x, GradState};
use crate::problem::GaussNewtonModel;
use crate::stopping::Control;
use tapered::Stop;

/// Options of Gauss-Newton.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct GaussNewtonOptions {
    /// gauss-newton (and hybrid): initial Levenberg-Marquardt damping `mu`: the step solves
    /// `(H + mu (diag H + delta)) p = -g`.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = GaussNewtonOptions::default().damping))]
    pub damping: f64,
    /// gauss-newton (and hybrid): solve the step with a dense Cholesky factorisation up to this many free parameters, by
    /// matrix-free preconditioned conjugate gradient above.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = GaussNewtonOptions::default().dense_max))]
    pub dense_max: usize,
    /// gauss-newton: maximum conjugate-gradient iterations per step.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = GaussNewtonOptions::default().cg_iters))]
    pub cg_iters: usize,
    /// gauss-newton: conjugate gradient stops when the residual norm falls below this fraction of `|g|`.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = GaussNewtonOptions::default().cg_tol))]
    pub cg_tol: f64,
    /// gauss-newton: rejected steps (with growing damping) tried before giving up on an iteration.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = GaussNewtonOptions::default().max_retries))]
    pub max_retries: usize,
    /// gauss-newton (and hybrid): positions the Gauss-Newton matrix is summed over at most (an evenly spread sample, see
    /// `Objective::linearise_sampled`); 0: all.
    #[cfg_attr(feature = "clap", arg(long = "gn-sample", default_value_t = GaussNewtonOptions::default().sample, value_name = "N"))]
    pub sample: usize,
    /// gauss-newton: converged when an accepted step lowers the objective by less than this fraction.
    #[cfg_attr(feature = "clap", arg(id = "gn_tol_cost", long = "gn-tol-cost", default_value_t = GaussNewtonOptions::default().tol_cost, value_name = "X"))]
    pub tol_cost: f64,
}

impl Default for GaussNewtonOptions {
    fn default() -> Self {
        GaussNewtonOptions {
            damping: 1e-3,
            dense_max: 1200,
            cg_iters: 100,
            cg_tol: 1e-6,
            max_retries: 12,
            sample: 1 << 18,
            tol_cost: 1e-10,
        }
    }
}

/// Gauss-Newton with Levenberg-Marquardt damping, as an argmin solver.
///
/// Each iteration linearises the residuals at `x` (the Gauss-Newton matrix
/// `H = 1/N sum_i c_i J_i^T J_i`, see [`Linearisation`]), solves the damped system for the
/// step, and accepts it if the objective decreases (then the damping shrinks by 3), otherwise
/// retries with 4 times the damping. Cost per iteration: one linearisation pass and one pass
/// per trial step.
///
/// With a [`Control`], a stop (Ctrl-C, a budget) is obeyed between the conjugate-gradient
/// iterations and between trial steps, not only between iterations: the iteration then ends
/// where it started.
#[derive(Clone, Debug)]
pub struct GaussNewton {
    opts: GaussNewtonOptions,
    mu: f64,
    control: Option<Arc<Control>>,
}

impl GaussNewton {
    /// A solver with options `opts`.
    pub fn new(opts: GaussNewtonOptions) -> Self {
        GaussNewton {
            opts,
            mu: opts.damping,
            control: None,
        }
    }

    /// Obeys `control` inside an iteration too.
    pub fn with_control(mut self, control: Arc<Control>) -> Self {
        self.control = Some(control);
        self
    }
}

fn stopped(control: Option<&Control>) -> bool {
    control.is_some_and(|c| c.should_stop().is_some())
}

/// The Gauss-Newton matrix of one iteration, built once for all its trial steps: dense up to
/// `dense_max` parameters (its diagonal read from it), else its diagonal alone (the steps are
/// solved matrix-free).
struct Prepared<'a> {
    lin: Linearisation<'a>,
    dense: Option<Vec<f64>>,
    diag: Vec<f64>,
}

impl<'a> Prepared<'a> {
    /// `None` when `control` says stop while the matrix is summed.
    fn new(
        lin: Linearisation<'a>,
        m: usize,
        opts: &GaussNewtonOptions,
        control: Option<&Control>,
    ) -> Option<Self> {
        let stop = || stopped(control);
        let stop = Stop::When(&stop);
        Some(if m <= opts.dense_max {
            let h = lin.dense(stop)?;
            let diag = (0..m).map(|k| h[k * m + k]).collect();
            Prepared {
                lin,
                dense: Some(h),
                diag,
            }
        } else {
            let diag = lin.diagonal(stop)?;
            Prepared {
                lin,
                dense: None,
                diag,
            }
        })
    }
}

/// Solves `(H + mu (diag H + delta)) p = -g`; `None` when `control` says stop.
fn solve_step(
    prep: &Prepared<'_>,
    g: &[f64],
    mu: f64,
    opts: &GaussNewtonOptions,
    control: Option<&Control>,
) -> Option<Vec<f64>> {
    let m = g.len();
    let (lin, diag) = (&prep.lin, &prep.diag);
    let mean = diag.iter().sum::<f64>() / m.max(1) as f64;
    let delta = 1e-6 * mean.max(f64::MIN_POSITIVE);
    let damp: Vec<f64> = diag
        .iter()
        .map(|d| mu * (d + delta) + 1e-3 * delta)
        .collect();
    if let Some(h) = &prep.dense {
        let mut h = h.clone();
        for k in 0..m {
            h[k * m + k] += damp[k];
        }
        if stopped(control) {
            return None;
        }
        if let Some(p) = cholesky_solve(&mut h, m, g) {
            return Some(p.into_iter().map(|v| -v).collect());
        }
    }
    // Preconditioned CG on A p = -g with the Jacobi preconditioner.
    let pre: Vec<f64> = diag.iter().zip(&damp).map(|(d, e)| 1.0 / (d + e)).collect();
    let mut p = vec![0.0; m];
    let mut r: Vec<f64> = g.iter().map(|v| -v).collect();
    let gnorm = r.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut z: Vec<f64> = r.iter().zip(&pre).map(|(a, b)| a * b).collect();
    let mut d = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    for _ in 0..opts.cg_iters {
        if stopped(control) {
            return None;
        }
        let mut ad = lin.apply(&d);
        for k in 0..m {
            ad[k] += damp[k] * d[k];
        }
        let dad: f64 = d.iter().zip(&ad).map(|(a, b)| a * b).sum();
        if dad <= 0.0 || !dad.is_finite() {
            break;
        }
        let alpha = rz / dad;
        for k in 0..m {
            p[k] += alpha * d[k];
            r[k] -= alpha * ad[k];
        }
        if r.iter().map(|v| v * v).sum::<f64>().sqrt() <= opts.cg_tol * gnorm {
            break;
        }
        for k in 0..m {
            z[k] = r[k] * pre[k];
        }
        let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let beta = rz_new / rz;
        rz = rz_new;
        for k in 0..m {
            d[k] = z[k] + beta * d[k];
        }
    }
    Some(p)
}

/// Solves `A x = b` for symmetric positive definite row-major `a` (overwritten by its Cholesky
/// factor); `None` if `a` is not numerically positive definite.
pub fn cholesky_solve(a: &mut [f64], m: usize, b: &[f64]) -> Option<Vec<f64>> {
    for j in 0..m {
        let mut s = a[j * m + j];
        for k in 0..j {
            s -= a[j * m + k] * a[j * m + k];
        }
        if s <= 0.0 || !s.is_finite() {
            return None;
        }
        let d = s.sqrt();
        a[j * m + j] = d;
        for i in j + 1..m {
            let mut s = a[i * m + j];
            for k in 0..j {
                s -= a[i * m + k] * a[j * m + k];
            }
            a[i * m + j] = s / d;
        }
    }
    let mut y = b.to_vec();
    for i in 0..m {
        let mut s = y[i];
        for k in 0..i {
            s -= a[i * m + k] * y[k];
        }
        y[i] = s / a[i * m + i];
    }
    for i in (0..m).rev() {
        let mut s = y[i];
        for k in i + 1..m {
            s -= a[k * m + i] * y[k];
        }
        y[i] = s / a[i * m + i];
    }
    Some(y)
}

/// One iteration's Levenberg-Marquardt steps from `x` (cost `v`, gradient `g`): the
/// linearisation at `x`, then steps at damping `mu`, four times larger after each that does
/// not lower the cost, at most `1 + max_retries` of them. The first step that lowers the cost
/// gives its point, cost, gradient and damping; `None` when none did (`mu` then the damping
/// after the last), or when the run was stopped.
#[allow(clippy::type_complexity)]
fn damped_steps<O: GaussNewtonModel>(
    p: &O,
    (x, v, g): (&[f64], f64, &[f64]),
    mu: &mut f64,
    opts: &GaussNewtonOptions,
    control: Option<&Control>,
) -> Result<Option<(Vec<f64>, f64, Vec<f64>, f64)>, Error> {
    let sample = (opts.sample > 0).then_some(opts.sample);
    let Some(prep) = Prepared::new(p.linearise(x, sample)?, x.len(), opts, control) else {
        return Ok(None);
    };
    for _ in 0..=opts.max_retries {
        if stopped(control) {
            return Ok(None);
        }
        let Some(step) = solve_step(&prep, g, *mu, opts, control) else {
            return Ok(None);
        };
        let trial: Vec<f64> = x.iter().zip(&step).map(|(a, b)| a + b).collect();
        if trial.iter().all(|t| t.is_finite()) {
            let (vt, gt) = p.value_and_gradient(&trial)?;
            if vt < v {
                return Ok(Some((trial, vt, gt, *mu)));
            }
        }
        *mu = (*mu * 4.0).max(1e-6);
    }
    Ok(None)
}

impl<O: GaussNewtonModel> Solver<O, GradState> for GaussNewton {
    fn name(&self) -> &str {
        "Gauss-Newton (Levenberg-Marquardt)"
    }

    fn init(
        &mut self,
        problem: &mut Problem<O>,
        state: GradState,
    ) -> Result<(GradState, Option<KV>), Error> {
        let mut state = state;
        let x = take_x(
            &mut state,
            "Gauss-Newton needs a starting point (Executor::configure)",
        )?;
        let (v, g) = problem.problem("cost_count", |p| p.value_and_gradient(&x))?;
        Ok((state.param(x).cost(v).gradient(g), None))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        mut state: GradState,
    ) -> Result<(GradState, Option<KV>), Error> {
        let x = take_x(&mut state, "Gauss-Newton: no parameter vector in state")?;
        let v = state.get_cost();
        let g = match state.take_gradient() {
            Some(g) => g,
            None => {
                problem
                    .problem("gradient_count", |p| p.value_and_gradient(&x))?
                    .1
            }
        };
        let opts = self.opts;
        let mu0 = self.mu;
        let mut mu = mu0;
        let control = self.control.clone();
        let control = control.as_deref();
        let outcome = problem.problem("jacobian_count", |p| {
            damped_steps(p, (&x, v, &g), &mut mu, &opts, control)
        })?;
        let mut kv = KV::new();
        match outcome {
            Some((trial, vt, gt, used)) => {
                self.mu = (used / 3.0).max(1e-9);
                kv.insert("mu", argmin::core::KvValue::Float(used));
                let converged = (v - vt) <= opts.tol_cost * v.abs();
                let state = state.param(trial).cost(vt).gradient(gt);
                if converged {
                    Ok((
                        state.terminate_with(TerminationReason::SolverConverged),
                        Some(kv),
                    ))
                } else {
                    Ok((state, Some(kv)))
                }
            }
            None if stopped(control) => {
                // Stopped inside the iteration: it ends where it started (the driver reports
                // the control's reason).
                Ok((state.param(x).cost(v).gradient(g), Some(kv)))
            }
            None => {
                self.mu = mu;
                let why = format!(
                    "no step lowered the objective: {} Levenberg-Marquardt steps tried, damping \
                     {mu0:.1e} to {:.1e}",
                    opts.max_retries + 1,
                    mu / 4.0
                );
                Ok((
                    state
                        .param(x)
                        .cost(v)
                        .gradient(g)
                        .terminate_with(TerminationReason::SolverExit(why)),
                    Some(kv),
                ))
            }
        }
    }

    fn terminate(&mut self, _state: &GradState) -> TerminationStatus {
        TerminationStatus::NotTerminated
    }
}

#[cfg(test)]
mod tests {
    use super::cholesky_solve;

    #[test]
    fn cholesky_solves_a_small_system() {
        let mut a = vec![4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let x = [1.0, -2.0, 0.5];
        let a0 = a.clone();
        let b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| a0[i * 3 + j] * x[j]).sum())
            .collect();
        let y = cholesky_solve(&mut a, 3, &b).unwrap();
        for (u, v) in y.iter().zip(&x) {
            assert!((u - v).abs() < 1e-12);
        }
        let mut bad = vec![1.0, 2.0, 2.0, 1.0];
        assert!(cholesky_solve(&mut bad, 2, &[1.0, 1.0]).is_none());
    }
}
