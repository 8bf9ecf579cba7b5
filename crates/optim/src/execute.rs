//! [`execute`]: the one argmin set-up of every stage: the problem made interruptible by the
//! run's flag, the solver wrapped in [`Controlled`], the iteration cap, the [`Monitor`].

use std::sync::Arc;

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, OptimizationResult, Solver, State};

use crate::observer::{GradState, Monitor, RunShared, SwarmState};
use crate::problem::FitProblem;
use crate::stopping::Controlled;

/// An argmin state whose iteration cap can be set (argmin's `State` trait has no setter).
pub(crate) trait MaxIters: State {
    /// The state with at most `iters` iterations.
    fn with_max_iters(self, iters: u64) -> Self;
}

impl MaxIters for GradState {
    fn with_max_iters(self, iters: u64) -> Self {
        self.max_iters(iters)
    }
}

impl MaxIters for SwarmState {
    fn with_max_iters(self, iters: u64) -> Self {
        self.max_iters(iters)
    }
}

/// The result of one executor run.
pub(crate) type Executed<S, I> = Result<OptimizationResult<FitProblem, Controlled<S>, I>, Error>;

/// Runs `solver` on `problem` under the run's control: the problem abandons a pass once the
/// run is interrupted, the solver stops when [`Control`](crate::Control) says, the state
/// starts as `init` makes it with at most `iters` iterations, and `monitor` observes every
/// iterate (validation, log, progress, budgets).
pub(crate) fn execute<S, I>(
    shared: &Arc<RunShared>,
    problem: FitProblem,
    solver: S,
    monitor: Monitor,
    iters: u64,
    init: impl FnOnce(I) -> I,
) -> Executed<S, I>
where
    S: Solver<FitProblem, I>,
    I: MaxIters,
    Monitor: Observe<I>,
{
    let problem = problem.interruptible(shared.control.interrupt_flag());
    let solver = Controlled::new(solver, shared.control.clone());
    Executor::new(problem, solver)
        .configure(|s| init(s).with_max_iters(iters))
        .add_observer(monitor, ObserverMode::Always)
        .run()
}
