//! [`Guarded`]: a solver wrapped with a [`Guard`] that may end it between iterations, the one
//! wrapper behind [`Controlled`](super::Controlled) (a run's [`Control`](super::Control)) and
//! [`StallGuard`] (a stalled swarm).

use argmin::core::{Problem, Solver, State, TerminationReason, TerminationStatus, KV};

/// What a [`Guarded`] solver adds to its inner solver: a look at the state after each
/// iteration, and a reason to stop that comes before the inner solver's own.
pub trait Guard<I> {
    /// Sees the state after an iteration (by default, nothing to see).
    fn observe(&mut self, _state: &I) {}

    /// How the solver ends now, if it does.
    fn stop(&self) -> Option<TerminationStatus>;
}

/// A solver that also stops when its [`Guard`] says so (argmin checks between iterations).
#[derive(Clone, Debug)]
pub struct Guarded<S, G> {
    inner: S,
    guard: G,
}

impl<S, G> Guarded<S, G> {
    /// Wraps `inner` with `guard`.
    pub fn with(inner: S, guard: G) -> Self {
        Guarded { inner, guard }
    }
}

impl<O, I: State, S: Solver<O, I>, G: Guard<I>> Solver<O, I> for Guarded<S, G> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn init(
        &mut self,
        problem: &mut Problem<O>,
        state: I,
    ) -> Result<(I, Option<KV>), argmin::core::Error> {
        self.inner.init(problem, state)
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        state: I,
    ) -> Result<(I, Option<KV>), argmin::core::Error> {
        let (state, kv) = self.inner.next_iter(problem, state)?;
        self.guard.observe(&state);
        Ok((state, kv))
    }

    fn terminate_internal(&mut self, state: &I) -> TerminationStatus {
        if let Some(status) = self.guard.stop() {
            return status;
        }
        self.inner.terminate_internal(state)
    }
}

/// The guard of a [`StallGuard`]: stops when the best cost has not improved by a relative
/// `tol` for `stall` iterations.
#[derive(Clone, Debug)]
pub struct Stall {
    stall: u64,
    tol: f64,
    best: f64,
    since: u64,
}

/// A solver that stops when its best cost has not improved by a relative `tol` for `stall`
/// iterations (particle swarm uses it to know when to restart).
pub type StallGuard<S> = Guarded<S, Stall>;

impl<S> Guarded<S, Stall> {
    /// Wraps `inner`.
    pub fn new(inner: S, stall: u64, tol: f64) -> Self {
        let stall = Stall {
            stall,
            tol,
            best: f64::INFINITY,
            since: 0,
        };
        Guarded::with(inner, stall)
    }
}

impl<I: State<Float = f64>> Guard<I> for Stall {
    fn observe(&mut self, state: &I) {
        let c = state.get_best_cost();
        if c < self.best - self.tol * self.best.abs() {
            self.best = c;
            self.since = 0;
        } else {
            self.since += 1;
        }
    }

    fn stop(&self) -> Option<TerminationStatus> {
        (self.since >= self.stall).then(|| {
            TerminationStatus::Terminated(TerminationReason::SolverExit("stalled".to_string()))
        })
    }
}
