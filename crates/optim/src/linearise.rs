//! The Gauss-Newton matrix of an [`Objective`] at one point ([`Linearisation`]), and the
//! Jacobi scaling L-BFGS is preconditioned with ([`jacobi_scale`]).

use rayon::prelude::*;

use crate::objective::Objective;
use crate::set::SparseRows;

/// The Jacobi scaling `1 / sqrt(H_jj + delta)` of the Gauss-Newton matrix at `x` (one pass),
/// `delta` a thousandth of the mean diagonal: in the variables `y = x / scale` every parameter
/// has about unit curvature, which is what a quasi-Newton method's first steps assume.
pub fn jacobi_scale(obj: &Objective, x: &[f64]) -> Vec<f64> {
    let d = obj.linearise(x).diagonal();
    let mean = d.iter().sum::<f64>() / d.len().max(1) as f64;
    let delta = (1e-3 * mean).max(f64::MIN_POSITIVE);
    d.iter().map(|v| 1.0 / (v + delta).sqrt()).collect()
}

/// The Gauss-Newton matrix `H = 1/N sum_i c_i J_i^T J_i + 2 l2 I` of an [`Objective`] at one
/// point, over the free parameters, where `J_i = dq_i/dx` and `c_i` is the loss's curvature in
/// `q_i` (for the squared error, `2 sigma'(q_i)^2`: the classic `J^T J` of the residuals
/// `R_i - sigma(q_i)`). L1 contributes no curvature.
#[derive(Debug)]
pub struct Linearisation<'a> {
    pub(crate) obj: &'a Objective,
    pub(crate) jacobian: SparseRows,
    pub(crate) curvature: Vec<f64>,
}

impl Linearisation<'_> {
    /// `H v`, matrix-free: two sparse products per position.
    pub fn apply(&self, v: &[f64]) -> Vec<f64> {
        let obj = self.obj;
        let set = &obj.set;
        let m = obj.dim();
        let slot = &obj.slot;
        let mut out = chunked_sum(set.len(), m, |acc, i| {
            let (idx, coef) = set.row(i, &self.jacobian);
            let mut jv = 0.0;
            for (&j, &c) in idx.iter().zip(coef) {
                let s = slot[j as usize];
                if s != u32::MAX {
                    jv += c * v[s as usize];
                }
            }
            let f = self.curvature[i] * jv;
            if f != 0.0 {
                for (&j, &c) in idx.iter().zip(coef) {
                    let s = slot[j as usize];
                    if s != u32::MAX {
                        acc[s as usize] += f * c;
                    }
                }
            }
        });
        for (o, &x) in out.iter_mut().zip(v) {
            *o += 2.0 * obj.cfg.l2 * x;
        }
        out
    }

    /// `H` as a dense row-major `m x m` matrix (`m` free parameters).
    pub fn dense(&self) -> Vec<f64> {
        let obj = self.obj;
        let set = &obj.set;
        let m = obj.dim();
        let slot = &obj.slot;
        let mut h = chunked_sum(set.len(), m * m, |acc, i| {
            let (idx, coef) = set.row(i, &self.jacobian);
            let c = self.curvature[i];
            for (&a, &ca) in idx.iter().zip(coef) {
                let sa = slot[a as usize];
                if sa == u32::MAX {
                    continue;
                }
                let row = sa as usize * m;
                for (&b, &cb) in idx.iter().zip(coef) {
                    let sb = slot[b as usize];
                    if sb != u32::MAX {
                        acc[row + sb as usize] += c * ca * cb;
                    }
                }
            }
        });
        for k in 0..m {
            h[k * m + k] += 2.0 * obj.cfg.l2;
        }
        h
    }

    /// The diagonal of `H`.
    pub fn diagonal(&self) -> Vec<f64> {
        let obj = self.obj;
        let set = &obj.set;
        let m = obj.dim();
        let slot = &obj.slot;
        let mut d = chunked_sum(set.len(), m, |acc, i| {
            let (idx, coef) = set.row(i, &self.jacobian);
            for (&j, &c) in idx.iter().zip(coef) {
                let s = slot[j as usize];
                if s != u32::MAX {
                    acc[s as usize] += self.curvature[i] * c * c;
                }
            }
        });
        for x in &mut d {
            *x += 2.0 * obj.cfg.l2;
        }
        d
    }
}

/// `sum over i in 0..n of body(i)` into a vector of `len` zeros: positions in fixed chunks in
/// parallel, the chunks' sums added in chunk order, so the same data, weights and thread count
/// give the same bits on every run (rayon's `fold`/`reduce` tree depends on work stealing).
fn chunked_sum<B>(n: usize, len: usize, body: B) -> Vec<f64>
where
    B: Fn(&mut [f64], usize) + Sync,
{
    let threads = rayon::current_num_threads().max(1);
    let chunk = n.div_ceil(threads * 4).max(1024);
    let parts: Vec<Vec<f64>> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut acc = vec![0.0; len];
            for i in c * chunk..((c + 1) * chunk).min(n) {
                body(&mut acc, i);
            }
            acc
        })
        .collect();
    let mut parts = parts.into_iter();
    let mut total = parts.next().unwrap_or_else(|| vec![0.0; len]);
    for p in parts {
        for (x, y) in total.iter_mut().zip(&p) {
            *x += y;
        }
    }
    total
}
