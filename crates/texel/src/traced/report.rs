//! `tune eval` and `tune explain` on traces: every position's evaluation rebuilt from the
//! manifest at the weights judged, and its coefficients `dq/dw` (a linear manifest's terms,
//! or the tape's gradient through the declared non-linear terms), as the tuning objective
//! computes it ([`trace::Manifest::evaluate_real`]: a manifest's `trunc` is the real
//! division), so that `tune eval` reports a run's loss.

use rayon::prelude::*;
use shakmaty::Chess;
use tape::{Scalar, Tape};
use trace::Trace;

use super::model::Traced;
use crate::explain::Subject;
use crate::explain::{explain_subject, oddness_by_pairs, ExplainOptions, Explanation, Oddness};
use crate::judge::{judge_scored, material_balance, JudgeOptions, Judgement, Scored, CHUNK};
use crate::tunable::Tunable;
use crate::TexelError;

/// Every trace's evaluation at `w` with its result, phase (the engine's own, over its
/// manifest's `phase.max`; an unclamped phase above it counts as the maximum) and material
/// balance; traces whose board does not decode or whose
/// evaluation fails are left out (the second value counts them).
pub fn score_traces(traced: &Traced, w: &[f64], traces: &[Trace]) -> (Vec<Scored>, usize) {
    let m = &*traced.manifest;
    let max = m.phase_max().max(1) as f32;
    let chunks: Vec<Vec<Scored>> = traces
        .par_chunks(CHUNK)
        .map(|chunk| {
            let one = |t: &Trace| {
                let pos = t.position().ok()?;
                Some(Scored {
                    q: m.evaluate_real::<f64>(t, w).ok()?,
                    result: t.result,
                    phase: (t.phase / max).clamp(0.0, 1.0),
                    imbalance: material_balance(&pos),
                })
            };
            chunk.iter().filter_map(one).collect()
        })
        .collect();
    let scored: Vec<Scored> = chunks.into_iter().flatten().collect();
    let skipped = traces.len() - scored.len();
    (scored, skipped)
}

/// `tune eval` on traces: [`score_traces`] then [`judge_scored`].
pub fn judge_traces(
    traced: &Traced,
    w: &[f64],
    traces: &[Trace],
    opts: &JudgeOptions,
) -> Result<Judgement, TexelError> {
    let (scored, skipped) = score_traces(traced, w, traces);
    judge_scored(traced, &scored, skipped, opts, traced.manifest.phase_max())
}

/// `tune explain` on traces: the same report as for the built-in models
/// ([`explain`](crate::explain::explain)), the odd values found among the neighbours of the
/// declared shapes ([`oddness_by_pairs`]).
pub fn explain_traces(
    traced: &Traced,
    w: &[f64],
    traces: &[Trace],
    opts: &ExplainOptions,
) -> Result<Explanation, TexelError> {
    explain_subject(&Traces { traced, traces }, w, opts)
}

/// A traced model on its traces.
struct Traces<'a> {
    traced: &'a Traced,
    traces: &'a [Trace],
}

impl Subject for Traces<'_> {
    /// A tape for the non-linear manifests' gradients, and the dense gradient.
    type Scratch = (Tape, Vec<f64>);

    fn model_name(&self) -> String {
        self.traced.model_name()
    }

    fn params(&self) -> Vec<(String, f64)> {
        let specs = self.traced.param_specs().into_iter();
        specs.map(|p| (p.name, p.init)).collect()
    }

    fn example_names(&self) -> String {
        let names = self.traced.names();
        names.into_iter().take(2).collect::<Vec<_>>().join(", ")
    }

    fn scored(&self, w: &[f64]) -> (Vec<Scored>, usize) {
        score_traces(self.traced, w, self.traces)
    }

    fn len(&self) -> usize {
        self.traces.len()
    }

    fn scratch(&self) -> (Tape, Vec<f64>) {
        (Tape::new(), Vec::new())
    }

    fn item(
        &self,
        (tape, grad): &mut (Tape, Vec<f64>),
        i: usize,
        w: &[f64],
        out: &mut Vec<(u32, f64)>,
    ) -> Option<(Chess, f64, f64)> {
        let m = &*self.traced.manifest;
        let t = &self.traces[i];
        let pos = t.position().ok()?;
        out.clear();
        if let Some(c) = m.linear_terms(t, out) {
            let q = c + out.iter().map(|&(j, a)| a * w[j as usize]).sum::<f64>();
            return Some((pos, t.result, q));
        }
        grad.clear();
        grad.resize(w.len(), 0.0);
        let value = tape.record(|rec| {
            let wv = rec.inputs(w);
            let q = m.evaluate_real(t, &wv).ok()?;
            rec.gradient(q, grad);
            Some(q.value())
        })?;
        let nonzero = grad.iter().enumerate().filter(|(_, g)| **g != 0.0);
        out.extend(nonzero.map(|(j, &g)| (j as u32, g)));
        Some((pos, t.result, value))
    }

    fn fen_result(&self, i: usize) -> (String, f64) {
        let t = &self.traces[i];
        (t.fen(), t.result)
    }

    fn oddness(&self, w: &[f64], touched: &[usize]) -> Vec<Option<Oddness>> {
        let specs = self.traced.param_specs();
        oddness_by_pairs(&specs, &self.traced.smoothing_pairs(), w, touched)
    }
}
