//! Recording traces into the stores the objective reads ([`record_traces`]).

use tape::Var;
use tapered::{CompiledSet, Counts, Progress, SetBuilder};
use trace::{Manifest, Trace};

use super::headed;
use super::model::{label, Traced};
use crate::tunable::Tunable;

/// Records `traces` under `traced`'s manifest at `start`: a linear manifest's positions from
/// their integer counts, factors and constant ([`Manifest::linear_counts`]) into the compact
/// phased store ([`CompiledSet::record_counts`]: constants, endgame scales and unclamped
/// phases included; a position whose counts do not fit, a decimal count say, becomes a
/// sparse row with the reason); a manifest with declared non-linear terms or its own formula
/// on the sums-scalars-and-head store (one head for every position, `traced/headed.rs`,
/// [`CompiledSet::record_heads`]), or through the tape ([`Manifest::evaluate_real`] over
/// [`Var`], its linear rows compacted alike) if its head cannot be recorded. The objective is
/// the manifest's evaluation in real numbers (a `trunc`, the engine's integer division, is
/// tuned as the real division). Positions whose evaluation fails (an index out of range) are left out: the set is shorter. Batch by batch
/// ([`SetBuilder::BATCH`]); `progress` advances by one per position.
pub fn record_traces(
    traced: &Traced,
    traces: &[Trace],
    start: &[f64],
    progress: Option<&Progress>,
) -> CompiledSet {
    let m = &*traced.manifest;
    let eg_of = traced.phase_pairs();
    let mut builder = SetBuilder::new(start.len());
    let heads = headed::Heads::new(m, &eg_of);
    for batch in traces.chunks(SetBuilder::BATCH) {
        if m.is_linear() {
            builder.push(CompiledSet::record_counts(
                start.len(),
                batch,
                |_, t| label(t),
                |_, t, out| counts(m, t, out),
                |_, t, out| m.linear_terms(t, out).unwrap_or(0.0),
                &eg_of,
                progress,
            ));
        } else if let Some(h) = &heads {
            let refs: Vec<&Trace> = batch.iter().collect();
            builder.push(h.record(m, &refs, start, progress));
        } else {
            let mut set = CompiledSet::record(
                start,
                batch,
                |_, t| label(t),
                |_, t, w: &[Var]| m.evaluate_real(t, w).ok(),
                progress,
            );
            set.compact_phased(&eg_of);
            builder.push(set);
        }
    }
    builder.finish()
}

/// A linear manifest's trace as [`Counts`] ([`Manifest::linear_counts`]).
fn counts(m: &Manifest, t: &Trace, out: &mut Counts) -> bool {
    let Some((a, b, c)) = m.linear_counts(t, &mut out.counts) else {
        return false;
    };
    (out.mg, out.eg, out.constant) = (a, b, c);
    true
}

/// The first trace of `traces` whose evaluation at `w` fails, with the error, for a note on
/// the positions [`record_traces`] left out.
pub(crate) fn first_failure(m: &Manifest, traces: &[Trace], w: &[f64]) -> Option<String> {
    traces.iter().find_map(|t| {
        m.evaluate_real::<f64>(t, w)
            .err()
            .map(|e| format!("{e} ({})", t.fen()))
    })
}
