//! Loading a traced set: the manifest's start weights, the traces read and verified, split by
//! game and recorded.

use std::path::Path;
use std::sync::Arc;

use trace::{Manifest, ReadOptions, Trace};

use super::{first_failure, record_traces, Traced};
use crate::setup::{Loaded, SetupOptions, TraceOptions};
use crate::TexelError;

/// The start weights in a manifest file `path` (a manifest, or a traced run's `weights.json`)
/// for `m`: its values, which must name the same weights in the same order.
pub fn start_weights(m: &Manifest, path: &Path) -> Result<Vec<f64>, TexelError> {
    let other = Manifest::load(path)?;
    let (a, b) = (m.weights(), other.weights());
    let differ = a.iter().zip(b).position(|(x, y)| x.name != y.name);
    if let Some(i) = differ {
        return Err(TexelError::Config(format!(
            "{}: weight {i} is {:?}, the manifest {} has {:?} there: the weights are another \
             manifest's",
            path.display(),
            b[i].name,
            m.origin(),
            a[i].name
        )));
    }
    if a.len() != b.len() {
        return Err(TexelError::Config(format!(
            "{}: {} weights, the manifest {} has {}",
            path.display(),
            b.len(),
            m.origin(),
            a.len()
        )));
    }
    Ok(other.initial_weights())
}

/// Reads the trace files of `t` against `m` (malformed records skipped and counted, or the
/// error with `strict`): the traces and one note (records read, skipped, the first messages).
pub fn read(
    t: &TraceOptions,
    m: &Manifest,
    strict: bool,
) -> Result<(Vec<Trace>, String), TexelError> {
    let (traces, report) = trace::read_traces(&t.files, m, &ReadOptions { strict })?;
    let files: Vec<String> = t.files.iter().map(|p| p.display().to_string()).collect();
    let note = format!(
        "{}: {} traces kept; {report}",
        files.join(", "),
        traces.len()
    );
    Ok((traces, note))
}

/// Verifies `traces` against the engine's own evaluations at the manifest's values, at
/// `tolerance` centipawns: `Ok` with the report's summary when every checked position
/// matches; otherwise an error naming the count, the worst position and the diagnosis, and
/// how to tune anyway. A set in which no trace gives the engine's evaluation cannot be
/// verified and is refused alike.
pub fn check_traces(m: &Manifest, traces: &[Trace], tolerance: f64) -> Result<String, TexelError> {
    let opts = trace::VerifyOptions {
        tolerance,
        ..trace::VerifyOptions::default()
    };
    let report = trace::verify(m, traces, &m.initial_weights(), &opts);
    let anyway = "fix the engine's traces or the manifest (`tune verify` shows the positions), \
                  or tune anyway with --no-verify-traces";
    if report.checked == 0 {
        return Err(TexelError::Config(format!(
            "the traces cannot be verified: none of the {} gives the engine's own evaluation \
             (`eval`); {anyway}",
            traces.len()
        )));
    }
    if report.failed > 0 {
        return Err(TexelError::Config(format!(
            "the traces fail verification against the manifest {}: {} of {} positions differ \
             from the engine's own evaluation by more than {tolerance} cp\n{report}\n{anyway}",
            m.origin(),
            report.failed,
            report.checked,
        )));
    }
    Ok(format!(
        "verified: {} traced positions match the engine's own evaluation within {tolerance} cp",
        report.checked
    ))
}

/// [`Tunable::load`](crate::Tunable::load) for [`Traced`].
pub(super) fn load(
    opts: &SetupOptions,
    t: &TraceOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Loaded<Traced>, TexelError> {
    let traced = Traced::load(&t.manifest)?;
    let m = Arc::clone(&traced.manifest);
    let start = match &opts.weights {
        Some(p) => start_weights(&m, p)?,
        None => m.initial_weights(),
    };
    let (mut traces, note) = read(t, &m, opts.strict)?;
    let mut notes = vec![note];
    if stop() {
        return Err(TexelError::Interrupted);
    }
    if let Some(first) = opts.first {
        traces.truncate(first);
    }
    if traces.is_empty() {
        return Err(TexelError::Config(format!(
            "the traces hold no positions: {}",
            notes.join("; ")
        )));
    }
    if t.verify {
        notes.push(check_traces(&m, &traces, t.tolerance)?);
    }
    let (train, valid) = split(traces, opts);
    let total = (train.len() + valid.len()) as u64;
    let pb = crate::setup::bar(&opts.progress, total, "recording");
    let mut record = |side: &[Trace]| -> Result<_, TexelError> {
        if stop() {
            return Err(TexelError::Interrupted);
        }
        let set = record_traces(&traced, side, &start, Some(&pb));
        let left_out = side.len() - set.len();
        if left_out > 0 {
            let why = first_failure(&m, side, &start).unwrap_or_default();
            notes.push(format!(
                "{left_out} traced positions left out: their evaluation failed (first: {why})"
            ));
        }
        Ok(Arc::new(set))
    };
    let train_set = record(&train)?;
    let valid_set = record(&valid)?;
    pb.end();
    Ok(Loaded {
        model: traced,
        start,
        train: train_set,
        valid: valid_set,
        resolver: None,
        notes,
    })
}

/// The traces split by game ([`data::valid_games`], as the built-in models' data), then cut to
/// [`SetupOptions::limit`] proportionally: (training, validation).
fn split(traces: Vec<Trace>, opts: &SetupOptions) -> (Vec<Trace>, Vec<Trace>) {
    let games = traces.iter().map(|t| t.game).collect();
    let valid_games = data::valid_games(games, opts.valid_fraction, opts.seed);
    let (mut valid, mut train): (Vec<Trace>, Vec<Trace>) = traces
        .into_iter()
        .partition(|t| valid_games.binary_search(&t.game).is_ok());
    if let Some(limit) = opts.limit {
        let total = train.len() + valid.len();
        if limit < total {
            let f = limit as f64 / total as f64;
            train.truncate((train.len() as f64 * f).round() as usize);
            valid.truncate((valid.len() as f64 * f).round() as usize);
        }
    }
    (train, valid)
}
