//! [`run`]: one interface to every optimiser, with validation, budgets, logging and the best
//! weights by validation loss.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argmin::core::{CostFunction, Executor, Solver, State};
use argmin::solver::particleswarm::{Particle, ParticleSwarm};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::control::{Control, Controlled, StallGuard};
use crate::objective::Objective;
use crate::observer::{Budget, GradState, LogRecord, Monitor, RunShared, SwarmState};
use crate::problem::TexelProblem;
use crate::regularise::L2Trial;
use crate::resolve::{rebind, Rerecord, Resolution};
use crate::solvers::{
    lbfgs::lbfgs, Adam, AdamOptions, GaussNewton, GaussNewtonOptions, HybridOptions, LbfgsOptions,
    LocalOptions, LocalSearch, PsoOptions,
};
use crate::validation::{Decision, Selection, Tracker};
use crate::OptimError;

/// The optimisers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// argmin's L-BFGS with a More-Thuente line search.
    #[default]
    Lbfgs,
    /// Levenberg-Marquardt-damped Gauss-Newton.
    GaussNewton,
    /// Adam, full-batch or mini-batch.
    Adam,
    /// Texel's integer local search.
    Local,
    /// Particle swarm with restarts.
    Pso,
    /// Gauss-Newton, then L-BFGS, then local-search polish.
    Hybrid,
}

impl Method {
    /// Every method, in the order `tune compare` runs them.
    pub const ALL: [Method; 6] = [
        Method::Lbfgs,
        Method::GaussNewton,
        Method::Hybrid,
        Method::Adam,
        Method::Local,
        Method::Pso,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Lbfgs => "lbfgs",
            Method::GaussNewton => "gauss-newton",
            Method::Adam => "adam",
            Method::Local => "local",
            Method::Pso => "pso",
            Method::Hybrid => "hybrid",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown method {s:?}"))
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every solver's options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolverOptions {
    /// L-BFGS.
    pub lbfgs: LbfgsOptions,
    /// Gauss-Newton.
    pub gauss_newton: GaussNewtonOptions,
    /// Adam.
    pub adam: AdamOptions,
    /// Local search.
    pub local: LocalOptions,
    /// Particle swarm.
    pub pso: PsoOptions,
    /// Hybrid.
    pub hybrid: HybridOptions,
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunConfig {
    /// The optimiser.
    pub method: Method,
    /// Budgets and early stopping.
    pub budget: Budget,
    /// Solver options.
    pub solvers: SolverOptions,
    /// How the kept iterate is chosen.
    pub selection: Selection,
    /// Where to write the JSON-lines log, if anywhere.
    pub log: Option<PathBuf>,
    /// Show a progress bar on standard error.
    pub progress: bool,
}

/// What a run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The method.
    pub method: Method,
    /// The best full weights by validation loss (by training loss without a validation split).
    pub weights: Vec<f64>,
    /// The iteration that produced them.
    pub best_iter: u64,
    /// Which rule chose them, and by how much.
    #[serde(default)]
    pub selection: Option<Decision>,
    /// Training data loss (no regularisation) at the start and at the best weights (with
    /// re-resolution, both on the final leaves).
    pub train_loss: (f64, f64),
    /// Validation loss at the start and at the best weights (with re-resolution, both on the
    /// final leaves).
    pub valid_loss: Option<(f64, f64)>,
    /// Iterations run.
    pub iterations: u64,
    /// Passes over the training data.
    pub passes: f64,
    /// Seconds.
    pub seconds: f64,
    /// Why it stopped.
    pub reason: String,
    /// Whether it was interrupted (Ctrl-C).
    pub interrupted: bool,
    /// The log, one record per iteration.
    pub history: Vec<LogRecord>,
    /// The re-resolutions of the quiescence leaves ([`run_resolving`]; empty otherwise).
    #[serde(default)]
    pub resolutions: Vec<Resolution>,
    /// The strengths tried when the L2 strength was chosen on the validation split
    /// ([`run_l2_path`](crate::regularise::run_l2_path); empty otherwise).
    #[serde(default)]
    pub l2_path: Vec<L2Trial>,
}

/// What [`run_resolving`] produced: the outcome and the objectives on the final leaves.
#[derive(Debug)]
pub struct ResolvedRun {
    /// The outcome; its losses are measured on the final leaves.
    pub outcome: RunOutcome,
    /// The training objective on the final leaves.
    pub train: Arc<Objective>,
    /// The validation objective on the final leaves.
    pub valid: Option<Arc<Objective>>,
}

/// Runs `cfg.method` on `train` from the full weights `start`, evaluating every iterate on
/// `valid`, until the method converges, a budget is spent, early stopping triggers or
/// `control` is interrupted; returns the best weights by validation loss.
///
/// `train` and `valid` must share their free parameters and base weights (build `valid` with
/// [`Objective::with_set`]). A solver that fails part-way (a line search that cannot make
/// progress, say) ends the run like convergence does: the weights found so far are kept and
/// the reason says what happened.
///
/// ```
/// use std::sync::Arc;
/// use optim::{run, Budget, CompiledSet, Control, Label, Link, LossKind, Method, Objective,
///             ObjectiveConfig, RunConfig, Sigmoid};
/// use tape::Scalar;
///
/// // Positions with one feature each; results drawn so that the best weight is about 200.
/// let items: Vec<f64> = (0..2000).map(|i| (i % 7) as f64 - 3.0).collect();
/// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
/// let set = CompiledSet::record(&[0.0], &items,
///     |_, &f| Label { result: link.expect(200.0 * f), score: None, game: 0 },
///     |_, &f, w| Some(w[0] * f), None);
/// let train = Arc::new(Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0], None).unwrap());
/// let cfg = RunConfig { method: Method::Lbfgs, budget: Budget { max_iters: Some(50), ..Budget::default() }, ..RunConfig::default() };
/// let out = run(train, None, &[0.0], &cfg, Arc::new(Control::new())).unwrap();
/// assert!((out.weights[0] - 200.0).abs() < 1e-3);
/// ```
pub fn run(
    train: Arc<Objective>,
    valid: Option<Arc<Objective>>,
    start: &[f64],
    cfg: &RunConfig,
    control: Arc<Control>,
) -> Result<RunOutcome, OptimError> {
    drive(train, valid, start, cfg, control, None).map(|r| r.outcome)
}

/// [`run`] with the quiescence leaves searched again as the weights move: the run proceeds in
/// rounds of at most `every` iterations of `cfg.method` (each round starts the method afresh
/// from where the previous one ended). After each round, every training and validation
/// position's leaf is found again at the latest iterate ([`Rerecord::record`]), the sets are
/// recorded afresh and the objectives rebuilt with the same `K`, regularisation (anchored at
/// the original starting weights) and free parameters. `every == 0` is [`run`].
///
/// The run ends when the budgets (counted over all rounds), early stopping or `control` end
/// it; when the rounds go round in a cycle (a re-resolution finds exactly the leaves of an
/// earlier one, at the same weights within 0.001); or when the method stops by itself
/// (converges) and the re-resolution that follows changes no leaf (or, the leaves still
/// moving, after ten such rounds in a row).
///
/// Losses measured on different leaves are not comparable, so at each re-resolution the
/// candidates for the best weights (the best so far, the latest iterate and the starting
/// weights) are evaluated again on the new validation leaves and the best of them is kept
/// (early stopping's patience counts the iterations since its iteration). The outcome's
/// losses (start and best) are measured on the final leaves, so the kept weights are never
/// worse than the start there. `resolutions` lists every re-resolution with the number of
/// leaves that changed.
///
/// With `every > 0` the run needs a budget (`cfg.budget`: iterations, passes, seconds or
/// patience). `resolver` must hold the positions of `train` and `valid` with their current
/// recordings (the chess tuner's `texel::Resolver`, as `texel::setup::prepare` builds it).
pub fn run_resolving(
    train: Arc<Objective>,
    valid: Option<Arc<Objective>>,
    start: &[f64],
    cfg: &RunConfig,
    control: Arc<Control>,
    resolver: &mut dyn Rerecord,
    every: u64,
) -> Result<ResolvedRun, OptimError> {
    let have = (
        train.set().len(),
        valid.as_ref().map_or(0, |v| v.set().len()),
    );
    if resolver.positions() != have {
        return Err(OptimError::Config(format!(
            "the resolver holds {:?} training and validation positions, the objectives {have:?}",
            resolver.positions()
        )));
    }
    let b = &cfg.budget;
    if every > 0
        && b.max_iters.is_none()
        && b.max_passes.is_none()
        && b.seconds.is_none()
        && b.patience.is_none()
    {
        return Err(OptimError::Config(
            "re-resolving leaves needs a budget (iterations, passes, seconds or patience): the \
             rounds need not end by themselves"
                .to_string(),
        ));
    }
    let resolve = (every > 0).then_some((resolver, every));
    drive(train, valid, start, cfg, control, resolve)
}

/// The reason [`RunShared::record`] gives when the iterations of a round run out.
const ITERATIONS_SPENT: &str = "iteration budget reached";

/// Rounds in a row that may end with the method converged while the leaves keep changing.
const MAX_SETTLED_ROUNDS: u32 = 10;

/// The run, in rounds when re-resolving.
fn drive(
    mut train: Arc<Objective>,
    mut valid: Option<Arc<Objective>>,
    start: &[f64],
    cfg: &RunConfig,
    control: Arc<Control>,
    mut resolve: Option<(&mut dyn Rerecord, u64)>,
) -> Result<ResolvedRun, OptimError> {
    if train.set().is_empty() {
        return Err(OptimError::Config("no training positions".to_string()));
    }
    if start.len() != train.base().len() {
        return Err(OptimError::Config(format!(
            "{} starting weights for {} parameters",
            start.len(),
            train.base().len()
        )));
    }
    let o = &cfg.solvers;
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
    let log = match &cfg.log {
        Some(p) => Some(BufWriter::new(
            File::create(p).map_err(|e| OptimError::io(p, e))?,
        )),
        None => None,
    };
    let progress = if cfg.progress {
        let pb = match cfg.budget.max_iters {
            Some(m) => ProgressBar::new(m),
            None => ProgressBar::new_spinner(),
        };
        pb.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {prefix} iter {pos}: {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        pb.set_prefix(cfg.method.name());
        pb.enable_steady_tick(Duration::from_millis(200));
        pb
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    control.set_deadline(
        cfg.budget
            .seconds
            .map(|s| started + Duration::from_secs_f64(s.max(0.0))),
    );
    // A round's budget: the run's, with the iterations cut at the round's end.
    let every = resolve.as_ref().map(|r| r.1);
    let round_budget = |done: u64| -> Budget {
        match every {
            Some(n) => {
                let end = done.saturating_add(n);
                Budget {
                    max_iters: Some(cfg.budget.max_iters.map_or(end, |m| m.min(end))),
                    ..cfg.budget
                }
            }
            None => cfg.budget,
        }
    };
    let passes0 = train.passes();
    control.set_pass_limit(cfg.budget.max_passes.map(|m| (train.clone(), m + passes0)));
    let mut shared = Arc::new(RunShared {
        train: train.clone(),
        valid: valid.clone(),
        control: control.clone(),
        budget: round_budget(0),
        start: started,
        passes0,
        iter: AtomicU64::new(0),
        tracker: Mutex::new(new_tracker(cfg, valid.as_deref())),
        history: Mutex::new(Vec::new()),
        log: Mutex::new(log),
        progress,
    });
    let x0 = train.reduce(start);
    let e0 = train.value(&x0);
    shared.record("start", &x0, e0, None);

    let mut x = x0;
    let mut reason;
    let mut resolutions = Vec::new();
    let mut settled = 0u32;
    // The leaves met so far with the weights they were found at, to see the rounds go round
    // in a cycle.
    let mut seen: Vec<(u64, u64, Vec<f64>)> = resolve
        .as_ref()
        .map(|(r, _)| vec![(r.fingerprint(), 0, start.to_vec())])
        .unwrap_or_default();
    loop {
        let (x1, r) = run_method(&shared, cfg, x)?;
        x = x1;
        reason = r;
        let Some((resolver, _)) = resolve.as_mut() else {
            break;
        };
        let done = shared.iter.load(Ordering::SeqCst).saturating_sub(1);
        // Did the round's iterations run out (go on), or the run's budgets, early stopping or
        // Ctrl-C end it (stop), or the method stop by itself (re-resolve, then see)?
        let cut = match control.should_stop() {
            None => false,
            Some(r)
                if r == ITERATIONS_SPENT
                    && !control.interrupted()
                    && cfg.budget.max_iters.is_none_or(|m| done < m) =>
            {
                control.clear_reason();
                if control.should_stop().is_some() {
                    break;
                }
                true
            }
            Some(_) => break,
        };
        let round = resolve_round(&shared, &mut **resolver, start, &x, done)?;
        let mut res = round.resolution;
        let changed = res.train_changed + res.valid_changed;
        let fingerprint = resolver.fingerprint();
        if changed > 0 {
            let w = shared.train.expand(&x);
            res.repeats = seen
                .iter()
                .find(|(f, _, v)| *f == fingerprint && same_weights(v, &w))
                .map(|(_, i, _)| *i);
            seen.push((fingerprint, done, w));
        }
        if cfg.progress {
            // Above the bar; on standard error when the bar is not drawn (not a terminal).
            if shared.progress.is_hidden() {
                eprintln!("{}", res.to_text());
            } else {
                shared.progress.println(res.to_text());
            }
        }
        let mut log = shared.log.lock().ok().and_then(|mut l| l.take());
        if let Some(f) = log.as_mut() {
            if let Ok(serde_json::Value::Object(mut m)) = serde_json::to_value(&res) {
                m.insert("event".to_string(), "resolve".into());
                if let Ok(line) = serde_json::to_string(&m) {
                    // As for the iteration records, a failing write does not end the run.
                    let _ = writeln!(f, "{line}");
                    let _ = f.flush();
                }
            }
        }
        let repeats = res.repeats;
        resolutions.push(res);
        // Continue on the new leaves, counting the passes on from where they were.
        let passes = train.passes() - shared.passes0;
        train = round.train;
        valid = round.valid;
        let passes0 = train.passes() - passes;
        control.set_pass_limit(cfg.budget.max_passes.map(|m| (train.clone(), m + passes0)));
        let history = shared
            .history
            .lock()
            .map(|mut h| std::mem::take(&mut *h))
            .unwrap_or_default();
        shared = Arc::new(RunShared {
            train: train.clone(),
            valid: valid.clone(),
            control: control.clone(),
            budget: round_budget(done),
            start: started,
            passes0,
            iter: AtomicU64::new(done + 1),
            tracker: Mutex::new(round.tracker),
            history: Mutex::new(history),
            log: Mutex::new(log),
            progress: shared.progress.clone(),
        });
        x = train.reduce(&train.expand(&x));
        if let Some(i) = repeats {
            // The same leaves, so the same objective as after iteration i: the rounds would
            // only go round again.
            let cycle = format!("the leaves went round in a cycle (those of iteration {i} again)");
            // After a round cut short, the method's own reason only says so.
            reason = if cut {
                cycle
            } else {
                format!("{reason}; {cycle}")
            };
            break;
        }
        if !cut {
            if changed == 0 {
                reason = format!("{reason}; no leaf changed at the re-resolution");
                break;
            }
            settled += 1;
            if settled >= MAX_SETTLED_ROUNDS {
                reason = format!(
                    "{reason}; leaves still changing after {settled} rounds that converged"
                );
                break;
            }
        } else {
            settled = 0;
        }
        if control.should_stop().is_some() {
            break;
        }
    }
    if let Some(r) = control.should_stop() {
        reason = r;
    }
    shared.progress.finish_and_clear();
    let (best_iter, weights, selection) = {
        let t = shared
            .tracker
            .lock()
            .map_err(|_| OptimError::Config("tracker poisoned".to_string()))?;
        (
            t.best_iter().unwrap_or(0),
            t.best_weights()
                .map(<[f64]>::to_vec)
                .unwrap_or_else(|| start.to_vec()),
            t.decision(),
        )
    };
    let history = shared.history.lock().map(|h| h.clone()).unwrap_or_default();
    let valid_loss = valid
        .as_ref()
        .map(|v| (v.data_loss(start), v.data_loss(&weights)));
    let outcome = RunOutcome {
        method: cfg.method,
        train_loss: (train.data_loss(start), train.data_loss(&weights)),
        valid_loss,
        weights,
        best_iter,
        selection,
        iterations: shared.iter.load(Ordering::SeqCst).saturating_sub(1),
        passes: train.passes() - shared.passes0,
        seconds: started.elapsed().as_secs_f64(),
        reason,
        interrupted: control.interrupted(),
        history,
        resolutions,
        l2_path: Vec::new(),
    };
    Ok(ResolvedRun {
        outcome,
        train,
        valid,
    })
}

/// Whether two weight vectors agree within a thousandth (of a centipawn, for most weights):
/// re-resolving at either finds the same leaves and starts the same round.
fn same_weights(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-3)
}

/// One round of `cfg.method` from `x0`: where it ended and why.
fn run_method(
    shared: &Arc<RunShared>,
    cfg: &RunConfig,
    x0: Vec<f64>,
) -> Result<(Vec<f64>, String), OptimError> {
    let o = &cfg.solvers;
    let control = &shared.control;
    Ok(match cfg.method {
        Method::Lbfgs => lbfgs_stage(shared, &o.lbfgs, x0)?,
        Method::GaussNewton => gradient_stage(
            shared,
            GaussNewton::new(o.gauss_newton),
            x0,
            "gauss-newton",
            None,
        ),
        Method::Adam => gradient_stage(shared, Adam::new(o.adam), x0, "adam", None),
        Method::Local => {
            let s = LocalSearch::new(o.local, Some(control.clone()));
            gradient_stage(shared, s, x0, "local", None)
        }
        Method::Pso => swarm(shared, x0, &o.pso),
        Method::Hybrid => {
            let (x1, r1) = gradient_stage(
                shared,
                GaussNewton::new(o.gauss_newton),
                x0,
                "gauss-newton",
                Some(o.hybrid.gn_iters),
            );
            if control.should_stop().is_some() {
                (x1, r1)
            } else {
                let (x2, r2) = lbfgs_stage(shared, &o.lbfgs, x1)?;
                if control.should_stop().is_some() || o.hybrid.polish_sweeps == 0 {
                    (x2, r2)
                } else {
                    let s = LocalSearch::new(o.local, Some(control.clone()));
                    gradient_stage(shared, s, x2, "local", Some(o.hybrid.polish_sweeps))
                }
            }
        }
    })
}

/// What a re-resolution hands the next round.
struct Round {
    train: Arc<Objective>,
    valid: Option<Arc<Objective>>,
    tracker: Tracker,
    resolution: Resolution,
}

/// Re-resolves the leaves at the free values `x` (after `done` iterations), rebuilds the
/// objectives and re-seeds the tracker with the best of the candidates on the new leaves.
fn resolve_round(
    shared: &RunShared,
    resolver: &mut dyn Rerecord,
    start: &[f64],
    x: &[f64],
    done: u64,
) -> Result<Round, OptimError> {
    let t0 = Instant::now();
    let w = shared.train.expand(x);
    let train_before = shared.train.data_loss(&w);
    let valid_before = shared.valid.as_ref().map(|v| v.data_loss(&w));
    let (n_train, n_valid) = resolver.positions();
    shared
        .progress
        .set_message(format!("re-resolving {} leaves", n_train + n_valid));
    let rec = resolver.record(&w, None).map_err(OptimError::Hook)?;
    let train = Arc::new(rebind(&shared.train, Arc::new(rec.train))?);
    let valid = match &shared.valid {
        Some(v) => Some(Arc::new(rebind(v, Arc::new(rec.valid))?)),
        None => None,
    };
    // The candidates for the kept weights (the latest iterate, the kept one, the lowest and
    // the start), measured again on the new leaves and offered in iteration order, so the
    // selection rule decides among them as it would have.
    let mut candidates: Vec<(u64, Vec<f64>)> = vec![(0, start.to_vec()), (done, w.clone())];
    if let Ok(t) = shared.tracker.lock() {
        if let (Some(i), Some(b)) = (t.best_iter(), t.best_weights()) {
            candidates.push((i, b.to_vec()));
        }
        if let Some((i, b)) = t.lowest() {
            candidates.push((i, b.to_vec()));
        }
    }
    candidates.sort_by_key(|c| c.0);
    candidates.dedup_by_key(|c| c.0);
    let rule = shared
        .tracker
        .lock()
        .map(|t| t.selection())
        .unwrap_or_default();
    let mut tracker = Tracker::new(shared.budget.patience).with_selection(rule);
    if let Some(v) = &valid {
        tracker = tracker.with_groups(&games(v));
    }
    for (i, c) in &candidates {
        match &valid {
            Some(v) => tracker.offer_losses(*i, &v.position_losses(c), c),
            None => tracker.offer(*i, train.value(&train.reduce(c)), c),
        };
    }
    // Patience counts the iterations since the kept one, across the re-resolution.
    if let Some(i) = tracker.best_iter() {
        tracker.skip(done.saturating_sub(i) as usize);
    }
    let resolution = Resolution {
        iter: done,
        train_changed: rec.train_changed,
        valid_changed: rec.valid_changed,
        positions: (n_train, n_valid),
        fraction: (rec.train_changed + rec.valid_changed) as f64
            / (n_train + n_valid).max(1) as f64,
        train_loss: (train_before, train.data_loss(&w)),
        valid_loss: valid_before.zip(valid.as_ref().map(|v| v.data_loss(&w))),
        seconds: t0.elapsed().as_secs_f64(),
        repeats: None,
    };
    Ok(Round {
        train,
        valid,
        tracker,
        resolution,
    })
}

/// The game of each position of `obj`'s set, in its order.
fn games(obj: &Objective) -> Vec<u32> {
    obj.set().labels().iter().map(|l| l.game).collect()
}

/// A tracker with the run's selection rule and patience, grouping validation positions by game.
fn new_tracker(cfg: &RunConfig, valid: Option<&Objective>) -> Tracker {
    let t = Tracker::new(cfg.budget.patience).with_selection(cfg.selection);
    match valid {
        Some(v) => t.with_groups(&games(v)),
        None => t,
    }
}

/// Iterations left in the run's budget.
fn remaining(shared: &RunShared, cap: Option<u64>) -> u64 {
    let done = shared.iter.load(Ordering::SeqCst).saturating_sub(1);
    let left = shared
        .budget
        .max_iters
        .map_or(u64::MAX, |m| m.saturating_sub(done));
    cap.map_or(left, |c| c.min(left))
}

/// L-BFGS, preconditioned if asked.
fn lbfgs_stage(
    shared: &Arc<RunShared>,
    o: &LbfgsOptions,
    x0: Vec<f64>,
) -> Result<(Vec<f64>, String), OptimError> {
    let s = lbfgs(o)?;
    let scale = o
        .precondition
        .then(|| crate::objective::jacobi_scale(&shared.train, &x0));
    Ok(scaled_stage(shared, s, x0, "lbfgs", None, scale))
}

/// Runs one gradient-state solver; returns its final point and why it stopped.
fn gradient_stage<S>(
    shared: &Arc<RunShared>,
    solver: S,
    x0: Vec<f64>,
    stage: &str,
    cap: Option<u64>,
) -> (Vec<f64>, String)
where
    S: Solver<TexelProblem, GradState> + 'static,
{
    scaled_stage(shared, solver, x0, stage, cap, None)
}

/// [`gradient_stage`] in the variables `x / scale`.
fn scaled_stage<S>(
    shared: &Arc<RunShared>,
    solver: S,
    x0: Vec<f64>,
    stage: &str,
    cap: Option<u64>,
    scale: Option<Vec<f64>>,
) -> (Vec<f64>, String)
where
    S: Solver<TexelProblem, GradState> + 'static,
{
    let iters = remaining(shared, cap);
    if iters == 0 {
        return (x0, "iteration budget reached".to_string());
    }
    let value_only = matches!(stage, "local");
    let problem = TexelProblem::new(shared.train.clone())
        .value_only(value_only)
        .scaled(scale.clone());
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

/// Particle swarm with restarts around the best point found, in shrinking boxes.
fn swarm(shared: &Arc<RunShared>, x0: Vec<f64>, o: &PsoOptions) -> (Vec<f64>, String) {
    let obj = shared.train.clone();
    let problem_for_costs = TexelProblem::new(obj.clone()).value_only(true);
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    let mut best = x0.clone();
    let mut best_cost = match problem_for_costs.cost(&best) {
        Ok(c) => c,
        Err(e) => return (best, format!("pso stopped: {e}")),
    };
    let mut radius: Vec<f64> = x0
        .iter()
        .map(|v| (v.abs() * o.radius_fraction).max(o.radius_min))
        .collect();
    let n = o.particles.max(2);
    let mut restart = 0u64;
    loop {
        if shared.control.should_stop().is_some() {
            return (best, "pso: stopped".to_string());
        }
        let iters = remaining(shared, None);
        if iters == 0 {
            return (best, "pso: iteration budget reached".to_string());
        }
        let lo: Vec<f64> = best.iter().zip(&radius).map(|(b, r)| b - r).collect();
        let hi: Vec<f64> = best.iter().zip(&radius).map(|(b, r)| b + r).collect();
        let mut population = Vec::with_capacity(n);
        population.push(Particle::new(
            best.clone(),
            best_cost,
            vec![0.0; best.len()],
        ));
        for _ in 1..n {
            let pos: Vec<f64> = lo
                .iter()
                .zip(&hi)
                .map(|(a, b)| rng.gen_range(*a..=*b))
                .collect();
            let vel: Vec<f64> = radius
                .iter()
                .map(|r| rng.gen_range(-*r..=*r) * 0.1)
                .collect();
            let c = match problem_for_costs.cost(&pos) {
                Ok(c) => c,
                Err(e) => return (best, format!("pso stopped: {e}")),
            };
            population.push(Particle::new(pos, c, vel));
        }
        let seed = o.seed.wrapping_add(restart);
        let pso = ParticleSwarm::new((lo, hi), n)
            .with_rng_generator(<rand09::rngs::StdRng as rand09::SeedableRng>::seed_from_u64(seed));
        let pso = match pso
            .with_inertia_factor(o.factors.0)
            .and_then(|p| p.with_cognitive_factor(o.factors.1))
            .and_then(|p| p.with_social_factor(o.factors.2))
        {
            Ok(p) => p,
            Err(e) => return (best, format!("pso stopped: {e}")),
        };
        let solver = Controlled::new(
            StallGuard::new(pso, o.stall.max(1), 1e-9),
            shared.control.clone(),
        );
        let problem = TexelProblem::new(obj.clone()).value_only(true);
        let result = Executor::new(problem, solver)
            .configure(|s: SwarmState| s.population(population).max_iters(iters))
            .add_observer(
                Monitor::new(shared.clone(), "pso"),
                argmin::core::observers::ObserverMode::Always,
            )
            .run();
        let improved = match result {
            Ok(res) => match res.state().get_best_param() {
                Some(p) if p.cost < best_cost => {
                    let gain = (best_cost - p.cost) / best_cost.abs().max(f64::MIN_POSITIVE);
                    best = p.position.clone();
                    best_cost = p.cost;
                    gain > 1e-9
                }
                _ => false,
            },
            Err(e) => return (best, format!("pso stopped: {e}")),
        };
        restart += 1;
        if !improved {
            for r in &mut radius {
                *r *= o.shrink;
            }
            if radius.iter().all(|r| *r < 0.5) {
                return (
                    best,
                    "pso: converged (box below half a centipawn)".to_string(),
                );
            }
        }
    }
}
