//! [`Monitor`]: the argmin observer that evaluates every iterate on the validation split, keeps
//! the best weights, writes the JSON-lines log, reports progress and enforces budgets.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use argmin::core::observers::Observe;
use argmin::core::{Error, IterState, PopulationState, State, KV};
use argmin::solver::particleswarm::Particle;

use crate::coords::{projected_gradient, Coords};
use crate::log::LogRecord;
use crate::objective::Objective;
use crate::stopping::{self, Budget, Control, Stopping};
use crate::validation::Tracker;
use tapered::{Progress, ProgressEvent};

/// The argmin state of the gradient-based solvers.
pub type GradState = IterState<Vec<f64>, Vec<f64>, (), (), (), f64>;

/// The parameter vector `state` holds, taken out of it (our solvers' first step of an
/// iteration); the error `missing` if it holds none.
pub(crate) fn take_x(state: &mut GradState, missing: &str) -> Result<Vec<f64>, Error> {
    state
        .take_param()
        .ok_or_else(|| Error::msg(missing.to_string()))
}
/// The argmin state of particle swarm.
pub type SwarmState = PopulationState<Particle<Vec<f64>, f64>, f64>;

/// An iterate's free values and, if the solver has one, its gradient there.
pub(crate) type Observed = (Vec<f64>, Option<Vec<f64>>);

/// What all the stages of one run share (objectives, control, budget, tracker, log, events);
/// opaque outside the crate, handed to every [`Stage`](crate::Stage).
pub struct RunShared {
    pub(crate) train: Arc<Objective>,
    pub(crate) valid: Option<Arc<Objective>>,
    pub(crate) control: Arc<Control>,
    pub(crate) budget: Budget,
    /// The relative stopping rules.
    pub(crate) stopping: Stopping,
    /// The first iteration of this round (the stopping rules look at no earlier record).
    pub(crate) since: AtomicU64,
    pub(crate) start: Instant,
    /// Training passes made before the run started (the log counts from here).
    pub(crate) passes0: f64,
    pub(crate) iter: AtomicU64,
    pub(crate) tracker: Mutex<Tracker>,
    pub(crate) history: Mutex<Vec<LogRecord>>,
    pub(crate) log: Mutex<Option<BufWriter<File>>>,
    pub(crate) progress: Progress,
    /// The full weights' names (empty: unnamed), for the reasons a solver stopped.
    pub(crate) names: Arc<Vec<String>>,
    /// The latest iterate observed and its gradient in the free parameters, if the solver has
    /// one (where a stage that fails part-way ended, and what to say of it).
    pub(crate) last: Mutex<Option<Observed>>,
}

impl std::fmt::Debug for RunShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunShared")
            .field("iter", &self.iter)
            .field("budget", &self.budget)
            .finish()
    }
}

impl RunShared {
    /// Evaluates the free values `x` reached at the end of an iteration: validation loss,
    /// tracking, log, progress and budgets.
    pub(crate) fn record(&self, stage: &str, x: &[f64], train_loss: f64, grad_norm: Option<f64>) {
        let iter = self.iter.fetch_add(1, Ordering::SeqCst);
        let w = self.train.expand(x);
        // Per-position validation losses: the selection rule weighs a difference against its
        // noise.
        let losses = self.valid.as_ref().map(|v| v.position_losses(&w));
        let valid_loss = losses
            .as_ref()
            .map(|l| l.iter().sum::<f64>() / l.len().max(1) as f64);
        let passes = self.train.passes() - self.passes0;
        let seconds = self.start.elapsed().as_secs_f64();
        let stop_early = match self.tracker.lock() {
            Ok(mut t) => {
                match &losses {
                    Some(l) => t.offer_losses(iter, l, &w),
                    None => t.offer(iter, train_loss, &w),
                };
                t.should_stop()
            }
            Err(_) => {
                self.control
                    .stop("internal error: the tracker's lock was poisoned");
                false
            }
        };
        let rec = LogRecord {
            iter,
            stage: stage.to_string(),
            seconds,
            train_loss,
            valid_loss,
            grad_norm,
            passes,
        };
        if let Ok(mut log) = self.log.lock() {
            if let Some(f) = log.as_mut() {
                if let Ok(line) = serde_json::to_string(&rec) {
                    // A failing log write must not end the run; the summary still reports.
                    let _ = writeln!(f, "{line}");
                    let _ = f.flush();
                }
            }
        }
        if !self.progress.is_none() {
            let message = format!(
                "{stage} train {train_loss:.6} valid {} passes {passes:.1}",
                valid_loss.map_or("-".to_string(), |v| format!("{v:.6}"))
            );
            self.progress.send(ProgressEvent::Iteration {
                iter,
                message: &message,
            });
        }
        let converged = match self.history.lock() {
            Ok(mut h) => {
                h.push(rec);
                self.stopping
                    .converged(&h, self.since.load(Ordering::SeqCst))
            }
            Err(_) => {
                self.control
                    .stop("internal error: the history's lock was poisoned");
                None
            }
        };
        stopping::after_iteration(
            &self.control,
            &self.budget,
            converged,
            stop_early,
            passes,
            iter,
        );
    }
}

/// The argmin observer of one solver stage of [`run`](crate::run): validation, tracking, log,
/// progress and budgets for every iterate.
#[derive(Debug)]
pub struct Monitor {
    shared: Arc<RunShared>,
    stage: String,
    coords: Option<Coords>,
}

impl Monitor {
    pub(crate) fn new(shared: Arc<RunShared>, stage: &str) -> Self {
        Monitor {
            shared,
            stage: stage.to_string(),
            coords: None,
        }
    }

    /// Reads the solver's points in `coords` (see [`FitProblem::coords`](crate::FitProblem::coords)).
    pub(crate) fn with_coords(mut self, coords: Coords) -> Self {
        self.coords = (!coords.is_identity()).then_some(coords);
        self
    }
}

fn norm(g: &[f64]) -> f64 {
    g.iter().map(|v| v * v).sum::<f64>().sqrt()
}

impl Observe<GradState> for Monitor {
    fn observe_iter(&mut self, state: &GradState, _kv: &KV) -> Result<(), Error> {
        if let Some(z) = state.get_param() {
            let (x, gx) = match &self.coords {
                Some(c) => (c.to_x(z), state.get_gradient().map(|g| c.unchain(z, g))),
                None => (z.clone(), state.get_gradient().cloned()),
            };
            // The norm of the projected gradient: the gradient's, away from the bounds.
            let g = gx
                .as_ref()
                .map(|g| norm(&projected_gradient(&x, g, self.shared.train.bounds())));
            self.shared.record(&self.stage, &x, state.get_cost(), g);
            if let Ok(mut last) = self.shared.last.lock() {
                *last = Some((x, gx));
            }
        }
        Ok(())
    }
}

impl Observe<SwarmState> for Monitor {
    fn observe_iter(&mut self, state: &SwarmState, _kv: &KV) -> Result<(), Error> {
        if let Some(p) = state.get_best_param() {
            self.shared
                .record(&self.stage, &p.position, state.get_best_cost(), None);
        }
        Ok(())
    }
}
