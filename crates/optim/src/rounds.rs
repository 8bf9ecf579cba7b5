//! Between the rounds of [`run_resolving`](crate::run_resolving): the sets recorded again
//! through the [`Rerecord`] hook, the objectives rebuilt, and the candidates for the kept
//! weights measured again on the new sets; each round's budget and shared state.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::RunConfig;
use crate::error::OptimError;
use crate::objective::Objective;
use crate::observer::RunShared;
use crate::resolve::{rebind, Rerecord, Resolution};
use crate::stopping;
use crate::validation::Tracker;
use tapered::ProgressEvent;
use tapered::Stop;

/// What a re-resolution hands the next round.
pub(crate) struct Round {
    pub(crate) train: Arc<Objective>,
    pub(crate) valid: Option<Arc<Objective>>,
    pub(crate) tracker: Tracker,
    pub(crate) resolution: Resolution,
}

/// Re-resolves the leaves at the free values `x` (after `done` iterations), rebuilds the
/// objectives and re-seeds the tracker with the best of the candidates on the new leaves.
pub(crate) fn resolve_round(
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
    let message = format!("re-resolving {} leaves", n_train + n_valid);
    shared.progress.send(ProgressEvent::Message(&message));
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
    let rule = {
        let t = shared
            .tracker
            .lock()
            .map_err(|_| OptimError::Poisoned("the validation tracker"))?;
        if let (Some(i), Some(b)) = (t.best_iter(), t.best_weights()) {
            candidates.push((i, b.to_vec()));
        }
        if let Some((i, b)) = t.lowest() {
            candidates.push((i, b.to_vec()));
        }
        t.selection()
    };
    candidates.sort_by_key(|c| c.0);
    candidates.dedup_by_key(|c| c.0);
    let mut tracker = Tracker::new(shared.budget.patience).with_selection(rule);
    if let Some(v) = &valid {
        tracker = tracker.with_groups(&games(v));
    }
    for (i, c) in &candidates {
        match &valid {
            Some(v) => tracker.offer_losses(*i, &v.position_losses(c), c),
            None => tracker.offer(
                *i,
                train
                    .value(&train.reduce(c), Stop::Never)
                    .unwrap_or(f64::NAN),
                c,
            ),
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

/// The group of each row of `obj`'s set, in its order.
fn games(obj: &Objective) -> Vec<u32> {
    obj.set().targets().iter().map(|l| l.group).collect()
}

/// A tracker with the run's selection rule and patience, grouping validation rows by `Target::group`.
pub(crate) fn new_tracker(cfg: &RunConfig, valid: Option<&Objective>) -> Tracker {
    let t = Tracker::new(cfg.budget.patience).with_selection(cfg.selection);
    match valid {
        Some(v) => t.with_groups(&games(v)),
        None => t,
    }
}

/// Whether two weight vectors agree within a thousandth (of a centipawn, for most weights):
/// re-resolving at either finds the same leaves and starts the same round.
pub(crate) fn same_weights(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-3)
}

/// Shows a re-resolution (above the progress) and logs it; returns the log, taken from
/// `shared` for the next round's state.
pub(crate) fn report_resolution(
    shared: &RunShared,
    res: &Resolution,
) -> Result<Option<BufWriter<File>>, OptimError> {
    if !shared.progress.is_none() {
        shared.progress.send(ProgressEvent::Note(&res.to_text()));
    }
    let mut log = shared
        .log
        .lock()
        .map_err(|_| OptimError::Poisoned("the run's log"))?
        .take();
    if let Some(f) = log.as_mut() {
        if let Ok(serde_json::Value::Object(mut m)) = serde_json::to_value(res) {
            m.insert("event".to_string(), "resolve".into());
            if let Ok(line) = serde_json::to_string(&m) {
                // As for the iteration records, a failing write does not end the run.
                let _ = writeln!(f, "{line}");
                let _ = f.flush();
            }
        }
    }
    Ok(log)
}

/// The shared state of the round after a re-resolution at iteration `done`: the new
/// objectives, the passes counted on from where they were, the tracker of the round, and the
/// history, log and progress carried over.
pub(crate) fn next_round(
    shared: &RunShared,
    cfg: &RunConfig,
    every: Option<u64>,
    round: Round,
    log: Option<BufWriter<File>>,
    done: u64,
) -> Result<RunShared, OptimError> {
    let control = &shared.control;
    let passes = shared.train.passes() - shared.passes0;
    let (train, valid) = (round.train, round.valid);
    let passes0 = train.passes() - passes;
    control.set_pass_limit(cfg.budget.max_passes.map(|m| (train.clone(), m + passes0)));
    let history = std::mem::take(
        &mut *shared
            .history
            .lock()
            .map_err(|_| OptimError::Poisoned("the run's history"))?,
    );
    Ok(RunShared {
        train,
        valid,
        control: control.clone(),
        budget: stopping::round_budget(&cfg.budget, every, done),
        stopping: cfg.method.stopping(cfg.stopping),
        since: AtomicU64::new(done + 1),
        start: shared.start,
        passes0,
        iter: AtomicU64::new(done + 1),
        tracker: Mutex::new(round.tracker),
        history: Mutex::new(history),
        log: Mutex::new(log),
        progress: shared.progress.clone(),
        names: shared.names.clone(),
        last: Mutex::new(None),
    })
}
