//! The activity of directions over traced positions ([`trace_activity`]): the traces read a
//! batch at a time, recorded at the given weights and measured ([`Activity`]).

use std::path::PathBuf;

use trace::{ReadOptions, TraceStream};

use super::model::Traced;
use super::record::record_traces;
use crate::activity::Activity;
use crate::TexelError;

/// Traces read, recorded and measured at a time.
const BATCH: usize = 1 << 14;

/// Each direction's RMS activity ([`Activity`]) over the first `limit` traces (all with
/// `None`) of `files` under `traced`'s manifest, the gradients taken at `w` (one value per
/// manifest weight; a direction's entries are manifest weight indices), and the positions
/// measured. Malformed records are skipped (the error with `strict`); positions whose
/// evaluation fails are left out. No positions is an error naming the files.
pub fn trace_activity(
    traced: &Traced,
    files: &[PathBuf],
    w: &[f64],
    directions: &[Vec<(usize, f64)>],
    limit: Option<usize>,
    strict: bool,
) -> Result<(Vec<f64>, usize), TexelError> {
    let m = &*traced.manifest;
    let mut activity = Activity::new(w.len(), directions)?;
    let mut stream = TraceStream::open(files, m, ReadOptions { strict });
    let (mut buf, mut left) = (Vec::new(), limit.unwrap_or(usize::MAX));
    while left > 0 && stream.next_batch(BATCH.min(left), &mut buf)? > 0 {
        left -= buf.len();
        activity.add(&record_traces(traced, &buf, w, None), w);
    }
    if activity.positions() == 0 {
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        return Err(TexelError::Config(format!(
            "{}: no traced positions to measure the SPSA coordinates on ({})",
            names.join(", "),
            stream.report()
        )));
    }
    Ok((activity.rms(), activity.positions()))
}
