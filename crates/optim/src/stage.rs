//! [`Stage`]: one optimiser as the driver runs it, and the stages every method is made of:
//! any argmin solver on the gradient state ([`ArgminStage`]) and stages run one after another
//! ([`Sequence`], the hybrid method). The gradient solvers work in [`Coords`] that map every
//! point into the parameters' bounds. The stages with more than one executor live with their
//! solver: L-BFGS with its Jacobi preconditioning and restarts
//! ([`LbfgsStage`](crate::solvers::lbfgs::LbfgsStage)), particle swarm with restarts
//! ([`Swarm`](crate::solvers::pso::Swarm)).
//!
//! A stage is not itself an argmin `Solver` where it cannot be one: the stages of a sequence
//! work in different coordinates (L-BFGS in Jacobi-scaled ones) and the swarm on a population
//! state, and one argmin `Executor` has one problem and one state type. Each stage runs argmin
//! executors over the shared [`RunShared`], so every iterate of every stage is observed,
//! logged and offered to the validation tracker the same way.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use argmin::core::{Solver, State};

use crate::coords::{projected_gradient, Coords};
use crate::error::OptimError;
use crate::execute::execute;
use crate::observer::{GradState, Monitor, RunShared};
use crate::problem::FitProblem;
use crate::stopping::{self, Control};

/// Where a stage ended (the free values), and why (`"<stage>: <reason>"`).
pub type StageEnd = (Vec<f64>, String);

/// One optimiser as the driver runs it: from the free values `x0`, for at most `cap`
/// iterations (and the run's budget), on the run's shared state. Every method of the
/// registry is one ([`Method::stage`](crate::Method::stage)); a method from another crate is
/// usually an argmin solver in an [`ArgminStage`], run by [`run_stage`](crate::run_stage)
/// (the crate's documentation, "How to add an optimiser"). [`RunShared`] is opaque: a stage
/// of one's own runs the registry's stages or [`ArgminStage`]s on it.
pub trait Stage: Send + Sync {
    /// Runs the stage; returns where it ended and why.
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError>;
}

/// Iterations left in the run's budget, at most `cap` ([`stopping::remaining`]).
pub(crate) fn remaining(shared: &RunShared, cap: Option<u64>) -> u64 {
    stopping::remaining(shared.iter.load(Ordering::SeqCst), &shared.budget, cap)
}

/// The coordinates a stage's solver works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// The free parameters themselves: the solver keeps inside the bounds by itself (local
    /// search, which is given them).
    Plain,
    /// [`Coords`] that map every point into the bounds.
    Mapped,
}

/// An argmin solver on the gradient state ([`GradState`]) of a [`FitProblem`], made afresh for
/// each run of the stage, run by the one argmin set-up every stage uses (interruptible
/// problem, [`Control`], the run's [`Monitor`] and iteration budget).
pub struct ArgminStage<F> {
    name: &'static str,
    /// The solver asks for values only (no gradient passes).
    value_only: bool,
    space: Space,
    /// What the solver tries, for the reason when it fails.
    tries: &'static str,
    make: F,
}

impl<F> ArgminStage<F> {
    /// The stage `name` whose solver `make` builds (given the run's [`Control`] and the free
    /// parameters' bounds), in coordinates mapped into the bounds; `tries` says what it tries
    /// each iteration.
    pub fn new(name: &'static str, tries: &'static str, make: F) -> Self {
        ArgminStage {
            name,
            value_only: false,
            space: Space::Mapped,
            tries,
            make,
        }
    }

    /// The solver needs values only, and keeps inside the bounds itself.
    pub fn value_only(mut self) -> Self {
        self.value_only = true;
        self.space = Space::Plain;
        self
    }
}

impl<F, S> Stage for ArgminStage<F>
where
    F: Fn(Arc<Control>, &[(f64, f64)]) -> S + Send + Sync,
    S: Solver<FitProblem, GradState> + 'static,
{
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        let solver = (self.make)(shared.control.clone(), shared.train.bounds());
        let coords = match self.space {
            Space::Plain => Coords::identity(x0.len()),
            Space::Mapped => Coords::new(shared.train.bounds()),
        };
        Ok(mapped_stage(
            shared,
            solver,
            x0,
            (self.name, self.tries),
            cap,
            coords,
            self.value_only,
        ))
    }
}

/// Stages one after the other, each from where the previous one ended and with its own cap;
/// it ends after the last stage, or after any stage when the run must stop. The reason is the
/// last stage's.
pub struct Sequence(pub Vec<(Box<dyn Stage>, Option<u64>)>);

impl Stage for Sequence {
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        let mut end = (x0, "nothing to run".to_string());
        for (i, (stage, own)) in self.0.iter().enumerate() {
            if i > 0 && shared.control.should_stop().is_some() {
                break;
            }
            let cap = match (cap, *own) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            end = stage.run(shared, end.0, cap)?;
        }
        Ok(end)
    }
}

/// Runs one gradient-state solver in the coordinates `coords`, at most `cap` iterations and
/// the run's budget; returns its final point (in the free parameters) and why it stopped. A
/// solver that fails part-way ends where it was last observed, and the reason names the
/// parameters it was stuck on ([`abnormal`]).
pub(crate) fn mapped_stage<S>(
    shared: &Arc<RunShared>,
    solver: S,
    x0: Vec<f64>,
    (stage, tries): (&str, &str),
    cap: Option<u64>,
    coords: Coords,
    value_only: bool,
) -> StageEnd
where
    S: Solver<FitProblem, GradState> + 'static,
{
    let iters = remaining(shared, cap);
    if iters == 0 {
        return (x0, "iteration budget reached".to_string());
    }
    let problem = FitProblem::new(shared.train.clone())
        .value_only(value_only)
        .coords(coords.clone());
    let z0 = problem.to_z(&x0);
    let first = shared.iter.load(Ordering::SeqCst);
    if let Ok(mut last) = shared.last.lock() {
        *last = None;
    }
    let monitor = Monitor::new(shared.clone(), stage).with_coords(coords.clone());
    let result = execute(shared, problem, solver, monitor, iters, |s: GradState| {
        s.param(z0)
    });
    match result {
        Ok(res) => {
            let st = res.state();
            let x = st.get_param().map(|z| coords.to_x(z)).unwrap_or(x0);
            let why = st
                .get_termination_reason()
                .map_or("finished".to_string(), |r| r.text().to_string());
            (x, format!("{stage}: {why}"))
        }
        Err(e) => {
            let done = shared.iter.load(Ordering::SeqCst).saturating_sub(first);
            let last = shared.last.lock().ok().and_then(|mut l| l.take());
            let (x, g) = match last {
                Some((x, g)) => (x, g),
                None => (x0, None),
            };
            let why = abnormal(shared, &x, g.as_deref(), &coords);
            (
                x,
                format!("{stage} stopped after {done} iterations: {e}; it tried {tries}; {why}"),
            )
        }
    }
}

/// What to say of a solver that stopped abnormally at free values `x` with gradient `g`: the
/// parameters with the largest projected gradient (what it could not reduce), and those at a
/// bound (within 1e-6 of the interval).
fn abnormal(shared: &RunShared, x: &[f64], g: Option<&[f64]>, coords: &Coords) -> String {
    let obj = &shared.train;
    let name = |k: usize| {
        let i = obj.free()[k];
        shared
            .names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("weight {i}"))
    };
    let bounds = obj.bounds();
    let at_bound: Vec<String> = (0..x.len())
        .filter(|&k| coords.is_bounded(k))
        .filter(|&k| {
            let (lo, hi) = bounds[k];
            let tol = 1e-6
                * if hi > lo && (hi - lo).is_finite() {
                    hi - lo
                } else {
                    1.0
                };
            x[k] - lo <= tol || hi - x[k] <= tol
        })
        .map(|k| format!("{} = {}", name(k), x[k]))
        .collect();
    let mut out = match g {
        Some(g) => {
            let pg = projected_gradient(x, g, bounds);
            let mut order: Vec<usize> = (0..pg.len()).collect();
            order.sort_by(|&a, &b| pg[b].abs().total_cmp(&pg[a].abs()));
            let top: Vec<String> = order
                .iter()
                .take(5)
                .map(|&k| format!("{} (value {:.4}, gradient {:.3e})", name(k), x[k], g[k]))
                .collect();
            format!(
                "largest projected gradients at its last iterate: {}",
                top.join(", ")
            )
        }
        None => "no gradient at its last iterate".to_string(),
    };
    if !at_bound.is_empty() {
        out += &format!("; at a bound: {}", at_bound.join(", "));
    }
    out
}
