//! Loading a traced set: the manifest's start weights, the traces read and verified, split by
//! game and recorded, streamed a batch at a time (two passes over the files).

use std::path::Path;
use std::sync::Arc;

use tapered::{CompiledSet, Progress, SetBuilder};
use trace::{Manifest, ReadOptions, Trace, TraceStream};

use super::model::Traced;
use super::record::{first_failure, record_traces};
use verified::Verified;

mod verified;
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
    let mut v = Verified::new(tolerance);
    v.add(m, traces);
    verdict(m, &v)
}

/// [`check_traces`]'s answer for a set verified batch by batch.
fn verdict(m: &Manifest, v: &Verified) -> Result<String, TexelError> {
    let (report, tolerance) = (v.report(), v.report().tolerance);
    let anyway = "fix the engine's traces or the manifest (`tune verify` shows the positions), \
                  or tune anyway with --no-verify-traces";
    if report.checked == 0 {
        return Err(TexelError::Config(format!(
            "the traces cannot be verified: none of the {} gives the engine's own evaluation \
             (`eval`); {anyway}",
            v.seen()
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

/// Traces read, verified, split and recorded at a time (16,384 of 4ku's are about 10 MB).
const BATCH: usize = 1 << 14;

/// [`Tunable::load`](crate::Tunable::load) for [`Traced`].
pub(super) fn load(
    opts: &SetupOptions,
    t: &TraceOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Loaded<Traced>, TexelError> {
    load_in_batches(opts, t, stop, BATCH)
}

/// Loads in two passes over the files, `batch` traces alive at a time: the first reads and
/// verifies them and counts their games (a few bytes a game), which is what the split by
/// game needs ([`data::valid_games`]); the second reads them again, splits each batch, and
/// records its two sides ([`record_traces`]) into the two sets. The sets are those of reading
/// every trace first: the same split, the same [`SetupOptions::limit`] (the first positions of
/// each side, proportionally) and [`SetupOptions::first`] (the first positions read; the files
/// are read no further).
fn load_in_batches(
    opts: &SetupOptions,
    t: &TraceOptions,
    stop: &(dyn Fn() -> bool + Sync),
    batch: usize,
) -> Result<Loaded<Traced>, TexelError> {
    let traced = Traced::load(&t.manifest)?;
    let m = Arc::clone(&traced.manifest);
    let start = match &opts.weights {
        Some(p) => start_weights(&m, p)?,
        None => m.initial_weights(),
    };
    let survey = survey(t, &m, opts, stop, batch)?;
    let mut notes = vec![survey.note];
    if survey.kept == 0 {
        return Err(TexelError::Config(format!(
            "the traces hold no positions: {}",
            notes.join("; ")
        )));
    }
    if let Some(v) = &survey.verified {
        notes.push(verdict(&m, v)?);
    }
    let runs = survey.runs;
    let valid_games = data::valid_games(
        runs.iter().map(|r| r.0).collect(),
        opts.valid_fraction,
        opts.seed,
    );
    let is_valid = |g: u32| valid_games.binary_search(&g).is_ok();
    let valid_total: u64 = runs.iter().filter(|r| is_valid(r.0)).map(|r| r.1).sum();
    let total = survey.kept as u64;
    let mut quota = [total - valid_total, valid_total];
    if let Some(limit) = opts.limit.map(|l| l as u64) {
        if limit < total {
            let f = limit as f64 / total as f64;
            quota = quota.map(|n| (n as f64 * f).round() as u64);
        }
    }
    let pb = crate::setup::bar(&opts.progress, quota[0] + quota[1], "recording");
    let mut sides = [Side::new(start.len()), Side::new(start.len())];
    let mut parts: [Vec<Trace>; 2] = Default::default();
    let mut taken = [0u64; 2];
    let mut stream = TraceStream::open(
        &t.files,
        &m,
        ReadOptions {
            strict: opts.strict,
        },
    );
    let mut buf = Vec::new();
    let mut left = survey.kept;
    while taken != quota && left > 0 && stream.next_batch(batch.min(left), &mut buf)? > 0 {
        if stop() {
            return Err(TexelError::Interrupted);
        }
        left -= buf.len();
        for tr in buf.drain(..) {
            let k = usize::from(is_valid(tr.game));
            if taken[k] < quota[k] {
                taken[k] += 1;
                parts[k].push(tr);
            }
        }
        for (side, part) in sides.iter_mut().zip(&mut parts) {
            side.record(&traced, part, &start, &pb);
            part.clear();
        }
    }
    pb.end();
    let [train, valid] = sides.map(|s| s.finish(&mut notes));
    Ok(Loaded {
        model: traced,
        start,
        train,
        valid,
        resolver: None,
        notes,
    })
}

/// What the first pass found.
struct Survey {
    /// The games of the traces kept, run-length counted: (game, traces).
    runs: Vec<(u32, u64)>,
    /// Traces kept.
    kept: usize,
    /// Files, traces kept, the read report.
    note: String,
    /// The verification (if asked for).
    verified: Option<Verified>,
}

/// The first pass: reads the traces (up to [`SetupOptions::first`]), counts their games and
/// verifies them (if `t` asks), `batch` at a time.
fn survey(
    t: &TraceOptions,
    m: &Manifest,
    opts: &SetupOptions,
    stop: &(dyn Fn() -> bool + Sync),
    batch: usize,
) -> Result<Survey, TexelError> {
    let mut stream = TraceStream::open(
        &t.files,
        m,
        ReadOptions {
            strict: opts.strict,
        },
    );
    let mut verified = t.verify.then(|| Verified::new(t.tolerance));
    let (mut runs, mut kept): (Vec<(u32, u64)>, usize) = (Vec::new(), 0);
    let mut left = opts.first.unwrap_or(usize::MAX);
    let mut buf = Vec::new();
    while left > 0 && stream.next_batch(batch.min(left), &mut buf)? > 0 {
        if stop() {
            return Err(TexelError::Interrupted);
        }
        left -= buf.len();
        kept += buf.len();
        for tr in &buf {
            match runs.last_mut() {
                Some((g, n)) if *g == tr.game => *n += 1,
                _ => runs.push((tr.game, 1)),
            }
        }
        if let Some(v) = &mut verified {
            v.add(m, &buf);
        }
    }
    let files: Vec<String> = t.files.iter().map(|p| p.display().to_string()).collect();
    let note = format!(
        "{}: {kept} traces kept; {}",
        files.join(", "),
        stream.report()
    );
    Ok(Survey {
        runs,
        kept,
        note,
        verified,
    })
}

/// One side of the split being recorded: its set, and the positions left out because their
/// evaluation failed (with the first failure).
struct Side {
    set: SetBuilder,
    left_out: usize,
    why: Option<String>,
}

impl Side {
    fn new(params: usize) -> Self {
        Side {
            set: SetBuilder::new(params),
            left_out: 0,
            why: None,
        }
    }

    /// Records `part` (the next traces of this side) and appends them.
    fn record(&mut self, traced: &Traced, part: &[Trace], start: &[f64], pb: &Progress) {
        if part.is_empty() {
            return;
        }
        let set = record_traces(traced, part, start, Some(pb));
        let left_out = part.len() - set.len();
        if left_out > 0 {
            self.left_out += left_out;
            if self.why.is_none() {
                self.why = first_failure(&traced.manifest, part, start);
            }
        }
        self.set.push(set);
    }

    /// The set, and a note on the positions left out (if any).
    fn finish(self, notes: &mut Vec<String>) -> Arc<CompiledSet> {
        if self.left_out > 0 {
            notes.push(format!(
                "{} traced positions left out: their evaluation failed (first: {})",
                self.left_out,
                self.why.unwrap_or_default()
            ));
        }
        Arc::new(self.set.finish())
    }
}

#[cfg(test)]
mod tests;
