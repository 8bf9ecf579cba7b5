//! [`run`]: one interface to every optimiser, with validation, budgets, logging and the best
//! weights by validation loss.

use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::RunConfig;
use crate::error::OptimError;
use crate::objective::Objective;
use crate::observer::RunShared;
use crate::outcome::{ResolvedRun, RunOutcome, Spent};
use crate::resolve::{Rerecord, Resolution};
use crate::rounds::{new_tracker, next_round, report_resolution, resolve_round, same_weights};
use crate::stage::Stage;
use crate::stopping::{self, Control, RoundEnd};
use tapered::ProgressEvent;
use tapered::Stop;

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
/// use optim::{
///     run, Budget, Control, Link, LossKind, Method, Objective, ObjectiveConfig, RunConfig,
///     Sigmoid
/// };
/// use tapered::{CompiledSet, Target};
/// use tape::Scalar;
///
/// // Positions with one feature each; results drawn so that the best weight is about 200.
/// let items: Vec<f64> = (0..2000).map(|i| (i % 7) as f64 - 3.0).collect();
/// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
/// let set = CompiledSet::record(&[0.0], &items,
///     |_, &f| Target { value: link.expect(200.0 * f), score: None, group: 0 },
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
    let stage = cfg.method.stage(&cfg.solvers);
    drive(train, valid, start, cfg, control, &*stage, None).map(|r| r.outcome)
}

/// [`run`] with a [`Stage`] of the caller's instead of `cfg.method`'s: how a method that is not
/// in the registry runs (an argmin solver of another crate wrapped in an
/// [`ArgminStage`](crate::ArgminStage), or stages of the registry's composed in a
/// [`Sequence`](crate::Sequence)). Everything else is [`run`]'s: the validation split, the kept
/// iterate, budgets, the relative stopping rules of `cfg.stopping`, Ctrl-C and the log.
/// `cfg.method` is not run; the outcome and the progress name it, so set it to the method the
/// stage is closest to (or leave the default). The crate's documentation has a complete example.
pub fn run_stage(
    train: Arc<Objective>,
    valid: Option<Arc<Objective>>,
    start: &[f64],
    cfg: &RunConfig,
    control: Arc<Control>,
    stage: &dyn Stage,
) -> Result<RunOutcome, OptimError> {
    drive(train, valid, start, cfg, control, stage, None).map(|r| r.outcome)
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
    resolver.set_stop(control.interrupt_flag());
    let resolve = (every > 0).then_some((resolver, every));
    let stage = cfg.method.stage(&cfg.solvers);
    drive(train, valid, start, cfg, control, &*stage, resolve)
}

/// Checks the inputs and starts the run: the log file, the progress, the deadline, the pass
/// limit, and the run's shared state for its first round.
fn open(
    train: &Arc<Objective>,
    valid: &Option<Arc<Objective>>,
    start: &[f64],
    cfg: &RunConfig,
    control: &Arc<Control>,
    every: Option<u64>,
) -> Result<RunShared, OptimError> {
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
    cfg.check()?;
    let log = match &cfg.log {
        Some(p) => Some(BufWriter::new(
            File::create(p).map_err(|e| OptimError::io(p, e))?,
        )),
        None => None,
    };
    cfg.progress.send(ProgressEvent::Run {
        name: cfg.method.name(),
        max_iters: cfg.budget.max_iters,
    });
    let started = Instant::now();
    control.set_deadline(
        cfg.budget
            .seconds
            .map(|s| started + Duration::from_secs_f64(s.max(0.0))),
    );
    let passes0 = train.passes();
    control.set_pass_limit(cfg.budget.max_passes.map(|m| (train.clone(), m + passes0)));
    Ok(RunShared {
        train: train.clone(),
        valid: valid.clone(),
        control: control.clone(),
        budget: stopping::round_budget(&cfg.budget, every, 0),
        stopping: cfg.method.stopping(cfg.stopping),
        since: AtomicU64::new(0),
        start: started,
        passes0,
        iter: AtomicU64::new(0),
        tracker: Mutex::new(new_tracker(cfg, valid.as_deref())),
        history: Mutex::new(Vec::new()),
        log: Mutex::new(log),
        progress: cfg.progress.clone(),
        names: Arc::new(cfg.names.clone()),
        last: Mutex::new(None),
    })
}

/// The run, in rounds when re-resolving.
fn drive(
    train: Arc<Objective>,
    valid: Option<Arc<Objective>>,
    start: &[f64],
    cfg: &RunConfig,
    control: Arc<Control>,
    stage: &dyn Stage,
    mut resolve: Option<(&mut dyn Rerecord, u64)>,
) -> Result<ResolvedRun, OptimError> {
    let every = resolve.as_ref().map(|r| r.1);
    let mut shared = Arc::new(open(&train, &valid, start, cfg, &control, every)?);
    let x0 = train.reduce(start);
    let e0 = train.value(&x0, Stop::Never).unwrap_or(f64::NAN);
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
        let (x1, r) = stage.run(&shared, x, None)?;
        x = x1;
        reason = r;
        let Some((resolver, _)) = resolve.as_mut() else {
            break;
        };
        let done = shared.iter.load(Ordering::SeqCst).saturating_sub(1);
        let cut = match stopping::round_end(&control, cfg.budget.max_iters, done) {
            RoundEnd::Stop => break,
            RoundEnd::Cut => true,
            RoundEnd::Settled => false,
        };
        let round = match resolve_round(&shared, &mut **resolver, start, &x, done) {
            Ok(round) => round,
            // Ctrl-C during the re-resolution: the leaves stay as they were, and so does the
            // kept iterate.
            Err(_) if control.interrupted() => break,
            Err(e) => return Err(e),
        };
        let mut res = round.resolution.clone();
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
        let log = report_resolution(&shared, &res)?;
        let repeats = res.repeats;
        resolutions.push(res);
        // Continue on the new leaves, counting the passes on from where they were.
        shared = Arc::new(next_round(&shared, cfg, every, round, log, done)?);
        x = shared.train.reduce(&shared.train.expand(&x));
        if stopping::after_resolution(&control, &mut reason, cut, changed, repeats, &mut settled) {
            break;
        }
    }
    let reason = stopping::final_reason(&control, reason);
    let (train, valid) = (shared.train.clone(), shared.valid.clone());
    finish(&shared, cfg, start, reason, resolutions, train, valid)
}

/// The outcome of a finished run: the kept weights and the losses at the start and there.
fn finish(
    shared: &RunShared,
    cfg: &RunConfig,
    start: &[f64],
    reason: String,
    resolutions: Vec<Resolution>,
    train: Arc<Objective>,
    valid: Option<Arc<Objective>>,
) -> Result<ResolvedRun, OptimError> {
    let control = &shared.control;
    shared.progress.send(ProgressEvent::End);
    let (best_iter, weights, selection) = {
        let t = shared
            .tracker
            .lock()
            .map_err(|_| OptimError::Poisoned("the validation tracker"))?;
        (
            t.best_iter().unwrap_or(0),
            t.best_weights()
                .map(<[f64]>::to_vec)
                .unwrap_or_else(|| start.to_vec()),
            t.decision(),
        )
    };
    let history = shared
        .history
        .lock()
        .map_err(|_| OptimError::Poisoned("the run's history"))?
        .clone();
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
        spent: Spent {
            iterations: shared.iter.load(Ordering::SeqCst).saturating_sub(1),
            passes: train.passes() - shared.passes0,
            seconds: shared.start.elapsed().as_secs_f64(),
        },
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
