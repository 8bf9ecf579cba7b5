//! Loading a traced set: the manifest's start weights, the traces read and verified, split by
//! game and recorded, streamed a batch at a time: one pass over the files when no game is held
//! out for validation, two when the split needs every game first.

use std::path::Path;
use std::sync::Arc;

use tapered::CompiledSet;
use trace::VerifyReport;
use trace::{Manifest, ReadOptions, ReadReport, Trace, TraceStream, Verifier, VerifyOptions};

use super::model::Traced;
use crate::discover::Discovered;
use side::Side;

mod side;
use crate::setup::{Loaded, SetupOptions, SplitOptions, TraceOptions};
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
    let note = files_note(t, traces.len(), &report);
    Ok((traces, note))
}

/// The note on the files of `t` read: traces kept, the read report.
pub fn files_note(t: &TraceOptions, kept: usize, report: &ReadReport) -> String {
    let files: Vec<String> = t.files.iter().map(|p| p.display().to_string()).collect();
    format!("{}: {kept} traces kept; {report}", files.join(", "))
}

/// Verifies `traces` against the engine's own evaluations at the manifest's values, at
/// `tolerance` centipawns: `Ok` with the report's summary when every checked position
/// matches; otherwise an error naming the count, the worst position and the diagnosis, and
/// how to tune anyway. A set in which no trace gives the engine's evaluation cannot be
/// verified and is refused alike.
pub fn check_traces(m: &Manifest, traces: &[Trace], tolerance: f64) -> Result<String, TexelError> {
    let mut v = verifier(m, tolerance);
    v.add(traces);
    verdict(m, &v.finish(), traces.len())
}

/// A verification of `m`'s traces at its own values, at `tolerance` centipawns.
fn verifier(m: &Manifest, tolerance: f64) -> Verifier<'_> {
    let opts = VerifyOptions {
        tolerance,
        ..VerifyOptions::default()
    };
    Verifier::new(m, &m.initial_weights(), &opts)
}

/// [`check_traces`]'s answer for a set of `seen` traces verified batch by batch.
fn verdict(m: &Manifest, report: &VerifyReport, seen: usize) -> Result<String, TexelError> {
    let tolerance = report.tolerance;
    let anyway = "fix the engine's traces or the manifest (`tune verify` shows the positions), \
                  or tune anyway with --no-verify-traces";
    if report.checked == 0 {
        return Err(TexelError::Config(format!(
            "the traces cannot be verified: none of the {seen} gives the engine's own \
             evaluation (`eval`); {anyway}"
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

/// Traces read, verified, split and recorded at a time (4,096 of Ethereal's are about 4 MB
/// parsed; 16,384 made a quarter of the peak memory of a 200,000-position fit).
const BATCH: usize = 1 << 12;

/// [`Tunable::load`](crate::Tunable::load) for [`Traced`].
pub(super) fn load(
    opts: &SetupOptions<TraceOptions>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Loaded<Traced>, TexelError> {
    load_in_batches(opts, stop, BATCH)
}

/// Loads `batch` traces alive at a time, into the sets of reading every trace first: the
/// same split, the same [`SplitOptions::limit`] (the first positions of each side,
/// proportionally) and [`SplitOptions::first`] (the first positions read; the files are read
/// no further). Without a validation fraction every trace is a training one and the files
/// are read once ([`one_pass`]); a split by game needs every game first, so the files are
/// read twice ([`two_passes`]).
fn load_in_batches(
    opts: &SetupOptions<TraceOptions>,
    stop: &(dyn Fn() -> bool + Sync),
    batch: usize,
) -> Result<Loaded<Traced>, TexelError> {
    let t = &opts.source;
    let traced = Traced::load(&t.manifest)?;
    let mut start = match &opts.weights {
        Some(p) => start_weights(&traced.manifest, p)?,
        None => traced.manifest.initial_weights(),
    };
    let ports = match &t.discovered {
        Some(path) => discovered_start(&traced.manifest, path, &mut start)?,
        None => Vec::new(),
    };
    let read = Read {
        traced: &traced,
        start: &start,
        t,
        split: &opts.split,
        progress: &opts.progress,
        stop,
        batch,
    };
    let (mut notes, [train, valid]) = if holds_out(&opts.split) {
        two_passes(&read)?
    } else {
        one_pass(&read)?
    };
    notes.extend(ports);
    Ok(Loaded {
        model: traced,
        start,
        train,
        valid,
        resolver: None,
        notes,
    })
}

/// The ports of catalogue groups in `m` started at the ranking's values of the `discover.json`
/// in `path` ([`Discovered::apply`]): one note a port.
fn discovered_start(
    m: &Manifest,
    path: &Path,
    start: &mut [f64],
) -> Result<Vec<String>, TexelError> {
    let ports = Discovered::load(path)?.apply(m, start)?;
    if ports.is_empty() {
        return Err(crate::discover::no_port(m, path));
    }
    Ok(ports
        .iter()
        .map(|p| format!("--discovered {}: {p}", path.display()))
        .collect())
}

/// Whether `split` may hold games out for validation: a validation fraction above 0
/// ([`data::valid_games`] holds out none otherwise, whatever the games).
fn holds_out(split: &SplitOptions) -> bool {
    split.valid_fraction.is_finite() && split.valid_fraction > 0.0
}

/// What a load reads with.
struct Read<'a> {
    traced: &'a Traced,
    start: &'a [f64],
    t: &'a TraceOptions,
    split: &'a SplitOptions,
    progress: &'a tapered::Progress,
    stop: &'a (dyn Fn() -> bool + Sync),
    batch: usize,
}

impl Read<'_> {
    /// A stream over the trace files from their start.
    fn stream(&self) -> TraceStream<'_> {
        let strict = self.split.strict;
        TraceStream::open(&self.t.files, &self.traced.manifest, ReadOptions { strict })
    }

    /// The notes' first lines: the files' note and, if asked for, the verification's verdict;
    /// an error if no trace was kept or the verification failed.
    fn opening_notes(
        &self,
        kept: usize,
        note: String,
        verified: Option<Verifier<'_>>,
    ) -> Result<Vec<String>, TexelError> {
        let mut notes = vec![note];
        if kept == 0 {
            return Err(TexelError::Config(format!(
                "the traces hold no positions: {}",
                notes.join("; ")
            )));
        }
        if let Some(v) = verified {
            let seen = v.seen();
            notes.push(verdict(&self.traced.manifest, &v.finish(), seen)?);
        }
        Ok(notes)
    }
}

/// The notes and the two sets.
type Sets = (Vec<String>, [Arc<CompiledSet>; 2]);

/// Reads, verifies and records in one pass over the files, every trace a training one (no
/// game held out): the first [`SplitOptions::limit`] traces are recorded, every trace up to
/// [`SplitOptions::first`] read and verified. Once a batch fails the verification (which
/// refuses the set), the rest is verified and no longer recorded.
fn one_pass(r: &Read) -> Result<Sets, TexelError> {
    let m = &*r.traced.manifest;
    let mut stream = r.stream();
    let mut verified = r.t.verify.then(|| verifier(m, r.t.tolerance));
    let (mut left, mut to_record) = (r.split.first.unwrap_or(usize::MAX), r.split.limit);
    // The bar's length is known only when `first` or `limit` bounds the positions (0 else).
    let known = r.split.first.into_iter().chain(r.split.limit).min();
    let pb = r.progress.begin("recording", known.unwrap_or(0) as u64);
    let mut side = Side::new(r.start.len());
    let (mut buf, mut kept) = (Vec::new(), 0);
    while left > 0 && stream.next_batch(r.batch.min(left), &mut buf)? > 0 {
        if (r.stop)() {
            return Err(TexelError::Interrupted);
        }
        left -= buf.len();
        kept += buf.len();
        if let Some(v) = &mut verified {
            v.add(&buf);
        }
        let refused = verified.as_ref().is_some_and(|v| v.report().failed > 0);
        let n = to_record.map_or(buf.len(), |l| l.min(buf.len()));
        if !refused && n > 0 {
            side.record(r.traced, &buf[..n], r.start, &pb);
            to_record = to_record.map(|l| l - n);
        }
    }
    pb.end();
    let note = files_note(r.t, kept, stream.report());
    let mut notes = r.opening_notes(kept, note, verified)?;
    let train = side.finish(&mut notes);
    let valid = Side::new(r.start.len()).finish(&mut notes);
    Ok((notes, [train, valid]))
}

/// Loads in two passes over the files: the first reads and verifies the traces and counts
/// their games (a few bytes a game), which is what the split by game needs
/// ([`data::valid_games`]); the second reads them again, splits each batch, and records its
/// two sides ([`record_traces`](super::record_traces)) into the two sets.
fn two_passes(r: &Read) -> Result<Sets, TexelError> {
    let survey = survey(r)?;
    let mut notes = r.opening_notes(survey.kept, survey.note, survey.verified)?;
    let split = r.split;
    let runs = survey.runs;
    let valid_games = data::valid_games(
        runs.iter().map(|r| r.0).collect(),
        split.valid_fraction,
        split.seed,
    );
    let is_valid = |g: u32| valid_games.binary_search(&g).is_ok();
    let valid_total: u64 = runs.iter().filter(|r| is_valid(r.0)).map(|r| r.1).sum();
    let total = survey.kept as u64;
    let quota = split.quotas([total - valid_total, valid_total]);
    let pb = r.progress.begin("recording", quota[0] + quota[1]);
    let mut sides = [Side::new(r.start.len()), Side::new(r.start.len())];
    let mut parts: [Vec<Trace>; 2] = Default::default();
    let mut taken = [0u64; 2];
    let mut stream = r.stream();
    let mut buf = Vec::new();
    let mut left = survey.kept;
    while taken != quota && left > 0 && stream.next_batch(r.batch.min(left), &mut buf)? > 0 {
        if (r.stop)() {
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
            side.record(r.traced, part, r.start, &pb);
            part.clear();
        }
    }
    pb.end();
    let sets = sides.map(|s| s.finish(&mut notes));
    Ok((notes, sets))
}

/// What the first pass found.
struct Survey<'m> {
    /// The games of the traces kept, run-length counted: (game, traces).
    runs: Vec<(u32, u64)>,
    /// Traces kept.
    kept: usize,
    /// Files, traces kept, the read report.
    note: String,
    /// The verification (if asked for).
    verified: Option<Verifier<'m>>,
}

/// The first pass: reads the traces (up to [`SplitOptions::first`]), counts their games and
/// verifies them (if asked for), a batch at a time.
fn survey<'a>(r: &Read<'a>) -> Result<Survey<'a>, TexelError> {
    let m = &*r.traced.manifest;
    let mut stream = r.stream();
    let mut verified = r.t.verify.then(|| verifier(m, r.t.tolerance));
    let (mut runs, mut kept): (Vec<(u32, u64)>, usize) = (Vec::new(), 0);
    let mut left = r.split.first.unwrap_or(usize::MAX);
    let mut buf = Vec::new();
    while left > 0 && stream.next_batch(r.batch.min(left), &mut buf)? > 0 {
        if (r.stop)() {
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
            v.add(&buf);
        }
    }
    let note = files_note(r.t, kept, stream.report());
    Ok(Survey {
        runs,
        kept,
        note,
        verified,
    })
}

#[cfg(test)]
mod tests;
