//! [`Stage`]: one optimiser as the driver runs it, and the stages every method is made of:
//! any argmin solver on the gradient state ([`ArgminStage`]), L-BFGS with its optional Jacobi
//! preconditioning ([`LbfgsStage`]), and stages run one after another ([`Sequence`], the
//! hybrid method). Particle swarm with restarts is [`Swarm`](crate::solvers::pso::Swarm).
//!
//! A stage is not itself an argmin `Solver` where it cannot be one: the stages of a sequence
//! work in different coordinates (L-BFGS in Jacobi-scaled ones) and the swarm on a population
//! state, and one argmin `Executor` has one problem and one state type. Each stage runs argmin
//! executors over the shared [`RunShared`], so every iterate of every stage is observed,
//! logged and offered to the validation tracker the same way.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use argmin::core::{Executor, Solver, State};

use crate::control::{Control, Controlled};
use crate::observer::{GradState, Monitor, RunShared};
use crate::problem::TexelProblem;
use crate::solvers::{lbfgs::lbfgs, LbfgsOptions};
use crate::OptimError;

/// Where a stage ended, and why (`"<stage>: <reason>"`).
pub(crate) type StageEnd = (Vec<f64>, String);

/// One optimiser as the driver runs it: from the free values `x0`, for at most `cap`
/// iterations (and the run's budget), on the run's shared state.
pub(crate) trait Stage: Send + Sync {
    /// Runs the stage; returns where it ended and why.
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError>;
}

/// Iterations left in the run's budget, at most `cap`.
pub(crate) fn remaining(shared: &RunShared, cap: Option<u64>) -> u64 {
    let done = shared.iter.load(Ordering::SeqCst).saturating_sub(1);
    let left = shared
        .budget
        .max_iters
        .map_or(u64::MAX, |m| m.saturating_sub(done));
    cap.map_or(left, |c| c.min(left))
}

/// An argmin solver on the gradient state, made afresh for each run of the stage.
pub(crate) struct ArgminStage<F> {
    name: &'static str,
    /// The solver asks for values only (no gradient passes).
    value_only: bool,
    make: F,
}

impl<F> ArgminStage<F> {
    /// The stage `name` whose solver `make` builds (given the run's [`Control`]).
    pub(crate) fn new(name: &'static str, make: F) -> Self {
        ArgminStage {
            name,
            value_only: false,
            make,
        }
    }

    /// The solver needs values only.
    pub(crate) fn value_only(mut self) -> Self {
        self.value_only = true;
        self
    }
}

impl<F, S> Stage for ArgminStage<F>
where
    F: Fn(Arc<Control>) -> S + Send + Sync,
    S: Solver<TexelProblem, GradState> + 'static,
{
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        let solver = (self.make)(shared.control.clone());
        Ok(scaled_stage(
            shared,
            solver,
            x0,
            self.name,
            cap,
            None,
            self.value_only,
        ))
    }
}

/// argmin's L-BFGS (More-Thuente), in Jacobi-scaled variables when asked (the scale is
/// measured at the stage's start, one extra pass).
pub(crate) struct LbfgsStage(pub(crate) LbfgsOptions);

impl Stage for LbfgsStage {
    fn run(
        &self,
        shared: &Arc<RunShared>,
        x0: Vec<f64>,
        cap: Option<u64>,
    ) -> Result<StageEnd, OptimError> {
        let s = lbfgs(&self.0)?;
        let scale = self
            .0
            .precondition
            .then(|| crate::linearise::jacobi_scale(&shared.train, &x0));
        Ok(scaled_stage(shared, s, x0, "lbfgs", cap, scale, false))
    }
}

/// Stages one after the other, each from where the previous one ended and with its own cap;
/// it ends after the last stage, or after any stage when the run must stop. The reason is the
/// last stage's.
pub(crate) struct Sequence(pub(crate) Vec<(Box<dyn Stage>, Option<u64>)>);

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

/// Runs one gradient-state solver in the variables `x / scale` (`scale` `None`: in `x`), at
/// most `cap` iterations and the run's budget; returns its final point and why it stopped.
fn scaled_stage<S>(
    shared: &Arc<RunShared>,
    solver: S,
    x0: Vec<f64>,
    stage: &str,
    cap: Option<u64>,
    scale: Option<Vec<f64>>,
    value_only: bool,
) -> StageEnd
where
    S: Solver<TexelProblem, GradState> + 'static,
{
    let iters = remaining(shared, cap);
    if iters == 0 {
        return (x0, "iteration budget reached".to_string());
    }
    let problem = TexelProblem::new(shared.train.clone())
        .value_only(value_only)
        .scaled(scale.clone())
        .interruptible(shared.control.interrupt_flag());
    let y0 = problem.to_scaled(&x0);
    let solver = Controlled::new(solver, shared.control.clone());
    let fallback = x0.clone();
    let unscale = |y: &[f64]| -> Vec<f64> {
        match &scale {
            Some(s) => y.iter().zip(s).map(|(a, b)| a * b).collect(),
            None => y.to_vec(),
        }
    };
    let result = Executor::new(problem, solver)
        .configure(|s| s.param(y0).max_iters(iters))
        .add_observer(
            Monitor::new(shared.clone(), stage).with_scale(scale.clone()),
            argmin::core::observers::ObserverMode::Always,
        )
        .run();
    match result {
        Ok(res) => {
            let st = res.state();
            let x = st.get_param().map(|y| unscale(y)).unwrap_or(fallback);
            let why = st
                .get_termination_reason()
                .map_or("finished".to_string(), |r| r.text().to_string());
            (x, format!("{stage}: {why}"))
        }
        Err(e) => (fallback, format!("{stage} stopped: {e}")),
    }
}
