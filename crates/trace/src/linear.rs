//! The linear case as sparse terms over weight indices, and each part's contribution to a
//! position's evaluation.

use crate::expr::Arithmetic;
use crate::{Manifest, Trace};

impl Manifest {
    /// For a linear manifest ([`Manifest::is_linear`]): the evaluation of `t` as
    /// `sum coef * w[index] + constant`, the terms written to `out` (weight indices, sorted,
    /// merged, no zero coefficient) and `Some(constant)` returned. `None` (and `out` empty)
    /// if the manifest is not linear.
    pub fn linear_terms(&self, t: &Trace, out: &mut Vec<(u32, f64)>) -> Option<f64> {
        out.clear();
        if !self.is_linear() {
            return None;
        }
        let (a, b) = self.phase_factors(t);
        for &(i, white, black) in &t.coeffs {
            let Some(e) = self.elements.get(i as usize) else {
                continue;
            };
            let d = f64::from(white) - f64::from(black);
            if e.tapered {
                out.push((e.weight, d * a));
                out.push((e.weight + 1, d * b));
            } else {
                out.push((e.weight, d * (a + b)));
            }
        }
        eval::merge_terms(out);
        Some(f64::from(t.constant))
    }

    /// For a linear manifest ([`Manifest::is_linear`]): the evaluation of `t` as integer
    /// counts, `const + sum_k d_k (a w[m_k] + b w[m_k + 1])` over its tapered elements and
    /// `d_k (a + b) w[m_k]` over its untapered ones, where `d_k` is White's count minus
    /// Black's and `m_k` the element's (middlegame) weight: the `(m_k, d_k)` written to `out`
    /// as the trace gives them (any order, repeats kept, zero counts kept) and
    /// `Some((a, b, const))` returned, `(a, b)` the default formula's factors
    /// (section 3 of `docs/trace-format.md`). The same evaluation as
    /// [`linear_terms`](Manifest::linear_terms), before the factors are multiplied in.
    /// `None` (and `out` empty) if the manifest is not linear.
    pub fn linear_counts(&self, t: &Trace, out: &mut Vec<(u32, f64)>) -> Option<(f64, f64, f64)> {
        out.clear();
        if !self.is_linear() {
            return None;
        }
        for &(i, white, black) in &t.coeffs {
            if let Some(e) = self.elements.get(i as usize) {
                out.push((e.weight, f64::from(white) - f64::from(black)));
            }
        }
        let (a, b) = self.phase_factors(t);
        Some((a, b, f64::from(t.constant)))
    }

    /// What each part adds to the evaluation of `t` with weights `w`, White's view: every
    /// parameter with coefficients (not those feeding a sum), every declared term, and
    /// `const`. A part's `mg`/`eg` go through the evaluation formula with everything else at
    /// zero, so for the default formula the parts add up to the evaluation. In the engine's
    /// arithmetic, as [`Manifest::evaluate`] (a `trunc` of the formula applies to each part on
    /// its own, so with one the parts add up only to within the truncations). A position that
    /// cannot be evaluated gets an `error: ...` entry (value NaN).
    pub fn contributions(&self, t: &Trace, w: &[f64]) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        if w.len() != self.weights.len() {
            out.push((
                format!(
                    "error: {} weights given, the manifest has {}",
                    w.len(),
                    self.weights.len()
                ),
                f64::NAN,
            ));
            return out;
        }
        let mut per_param = vec![(0.0f64, 0.0f64, false); self.params.len()];
        for &(i, white, black) in &t.coeffs {
            let Some(e) = self.elements.get(i as usize) else {
                continue;
            };
            if e.sum.is_some() {
                continue;
            }
            let d = f64::from(white) - f64::from(black);
            let eg = if e.tapered { e.weight + 1 } else { e.weight };
            let p = &mut per_param[e.param as usize];
            p.0 += w[e.weight as usize] * d;
            p.1 += w[eg as usize] * d;
            p.2 = true;
        }
        let int = Arithmetic::Integer;
        let base = self.formula(t, w, int, 0.0, 0.0).unwrap_or(0.0);
        let through = |mg: f64, eg: f64| {
            let v = self.formula(t, w, int, mg, eg);
            v.map_or(f64::NAN, |v| v - base)
        };
        for (p, &(mg, eg, any)) in self.params.iter().zip(&per_param) {
            if any {
                out.push((p.name.clone(), through(mg, eg)));
            }
        }
        let mut terms = Vec::new();
        match self.totals(t, w, int, &mut |k, mg, eg| terms.push((k, mg, eg))) {
            Ok(_) => {
                for (k, mg, eg) in terms {
                    out.push((self.terms[k].name.clone(), through(mg, eg)));
                }
            }
            Err(e) => out.push((format!("error: {e}"), f64::NAN)),
        }
        out.push(("const".to_string(), f64::from(t.constant)));
        out
    }
}
