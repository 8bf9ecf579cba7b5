//! The Gauss-Newton matrix of an [`Objective`] at one point ([`Linearisation`]), and the
//! Jacobi scaling L-BFGS is preconditioned with ([`jacobi_scale`]).

use std::sync::Arc;

use rayon::prelude::*;

use crate::coords::Coords;
use crate::objective::Objective;
use tapered::Stop;
use tapered::{CompiledSet, SparseRows};

/// Positions the Jacobi scale is measured on at most (a sample spread evenly over the set).
pub const SCALE_SAMPLE: usize = 1 << 18;

/// The Jacobi scaling `1 / sqrt(H_jj + delta)` of the Gauss-Newton matrix at free values `x`
/// in the (unscaled) coordinates `coords` (one pass), `delta` a thousandth of the mean
/// diagonal: in the variables `z = u / scale` every parameter has about unit curvature, which
/// is what a quasi-Newton method's first steps assume.
pub fn jacobi_scale(obj: &Objective, x: &[f64], coords: &Coords) -> Vec<f64> {
    let z = coords.to_z(x);
    let d = sampled_diagonal(obj, &coords.to_x(&z), SCALE_SAMPLE, &coords.jacobian(&z));
    let mean = d.iter().sum::<f64>() / d.len().max(1) as f64;
    let delta = (1e-3 * mean).max(f64::MIN_POSITIVE);
    d.iter().map(|v| 1.0 / (v + delta).sqrt()).collect()
}

/// The diagonal of `D H D` for the Gauss-Newton matrix `H` at `x` over at most `sample`
/// positions and column factors `cols` (`D`): the numbers of
/// `obj.linearise(x, Some(sample), Stop::Never)?.with_columns(cols).diagonal(Stop::Never)`, without keeping the
/// Jacobian (each row is made when it is needed and dropped: memory is one row per thread,
/// where the Jacobian of 262,144 `psqt` positions takes about 95 MB), and without copying the
/// sample out of the set (each sampled position is read where it is: a copy of 4ku's 225,000
/// was the load's peak, 29 MB at 1 M positions).
fn sampled_diagonal(obj: &Objective, x: &[f64], sample: usize, cols: &[f64]) -> Vec<f64> {
    let set = obj.set();
    let (stride, m) = Objective::sample_stride(set.len(), Some(sample));
    let w = obj.expand(x);
    let link = obj.cfg.link;
    let inv = 1.0 / m.max(1) as f64;
    let params = set.params();
    let init = || {
        (
            tape::Scratch::default(),
            vec![0.0; params],
            Vec::new(),
            Vec::new(),
        )
    };
    let d = chunked_sum(
        m,
        obj.dim(),
        init,
        |(scratch, dense, idx, coef), acc, k| {
            let i = k * stride;
            // The curvature as `curvature_sampled` gives it: `scores` is `score` a position.
            let curvature = link.curvature(set.score(i, &w, scratch)) * inv;
            idx.clear();
            coef.clear();
            set.row_at(i, &w, scratch, dense, idx, coef);
            add_squares(acc, &obj.slot, curvature, idx, coef);
        },
        Stop::Never,
    )
    .unwrap_or_else(|| vec![0.0; obj.dim()]);
    obj.count(m);
    finish_diagonal(d, &obj.penalty_diagonal(), Some(cols))
}

/// `acc[slot[j]] += c * coef_j^2` over a row's free parameters.
#[inline]
fn add_squares(acc: &mut [f64], slot: &[u32], c: f64, idx: &[u32], coef: &[f64]) {
    for (&j, &v) in idx.iter().zip(coef) {
        let s = slot[j as usize];
        if s != u32::MAX {
            acc[s as usize] += c * v * v;
        }
    }
}

/// The diagonal's sum over the positions, with the L2 term and the column factors.
fn finish_diagonal(mut d: Vec<f64>, penalty: &[f64], cols: Option<&[f64]>) -> Vec<f64> {
    for (x, p) in d.iter_mut().zip(penalty) {
        *x += p;
    }
    if let Some(c) = cols {
        for (x, c) in d.iter_mut().zip(c) {
            *x *= c * c;
        }
    }
    d
}

/// The Gauss-Newton matrix `H = 1/N sum_i c_i J_i^T J_i + 2 l2 I + 2 smooth L` (`L` the
/// Laplacian of the smoothness pairs) of an [`Objective`] at one
/// point (the sum over all `N` positions, or over an evenly spread sample of them: see
/// [`Objective::linearise`]), over the free parameters, where `J_i = dq_i/dx` and `c_i` is the loss's curvature in
/// `q_i` (for the squared error, `2 sigma'(q_i)^2`: the classic `J^T J` of the residuals
/// `R_i - sigma(q_i)`). L1 contributes no curvature.
#[derive(Debug)]
pub struct Linearisation<'a> {
    pub(crate) obj: &'a Objective,
    /// The positions the matrix is summed over: the objective's, or a sample of them.
    pub(crate) set: Arc<CompiledSet>,
    pub(crate) jacobian: SparseRows,
    pub(crate) curvature: Vec<f64>,
    /// Column factors `D` (the solver's coordinates' `dx/dz`): the matrix is `D H D`.
    pub(crate) cols: Option<Vec<f64>>,
}

impl Objective {
    /// The generalised Gauss-Newton model at `x`, its matrix summed over at most `sample`
    /// positions (`None`: all, one pass plus one reverse sweep per non-linear position): every
    /// `k`-th position, `k = ceil(N / sample)`, the mean over them standing for the mean over
    /// all (a sub-sampled Gauss-Newton matrix, as in Byrd et al., "On the use of stochastic
    /// Hessian information", 2011). The matrix costs the sample's size; the gradient and the
    /// objective the solvers test steps on stay exact. Counted as the sample's fraction of a
    /// pass. `None` when abandoned: the Jacobian's rows are built a chunk at a time, each chunk
    /// asking `stop` first (see [`CompiledSet::jacobian`]).
    pub fn linearise(
        &self,
        x: &[f64],
        sample: Option<usize>,
        stop: Stop<'_>,
    ) -> Option<Linearisation<'_>> {
        let (set, w, curvature) = self.curvature_sampled(x, sample);
        if stop.now() {
            return None;
        }
        let jacobian = set.jacobian(&w, stop)?;
        Some(Linearisation {
            obj: self,
            jacobian,
            set,
            curvature,
            cols: None,
        })
    }
}

impl Linearisation<'_> {
    /// The Gauss-Newton matrix in coordinates `z` with `dx_k/dz_k = d_k`: `D H D`, the matrix
    /// of the Jacobian `J D` (the chain rule on every column; the map's own curvature, which
    /// multiplies the gradient and not the residuals' Jacobian, is no part of Gauss-Newton's
    /// model).
    pub fn with_columns(mut self, d: Vec<f64>) -> Self {
        self.cols = Some(d);
        self
    }

    /// `H v`, matrix-free: two sparse products per position.
    pub fn apply(&self, v: &[f64]) -> Vec<f64> {
        match &self.cols {
            None => self.apply_x(v),
            Some(d) => {
                let dv: Vec<f64> = v.iter().zip(d).map(|(a, b)| a * b).collect();
                let mut out = self.apply_x(&dv);
                for (o, b) in out.iter_mut().zip(d) {
                    *o *= b;
                }
                out
            }
        }
    }

    fn apply_x(&self, v: &[f64]) -> Vec<f64> {
        let obj = self.obj;
        let (m, slot) = (obj.dim(), &obj.slot);
        let body = |acc: &mut [f64], i: usize, idx: &[u32], coef: &[f64]| {
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
        };
        let mut out = self
            .sum_rows(m, body, Stop::Never)
            .unwrap_or_else(|| vec![0.0; m]);
        obj.add_penalty_curvature_times(v, &mut out);
        out
    }

    /// `each(acc, i, idx, coef)` over every position `i` and its Jacobian row (`idx` the
    /// parameters, `coef` the derivatives), summed into `len` numbers; in parallel chunks, as
    /// [`chunked_sum`] (`None` when abandoned).
    fn sum_rows<B>(&self, len: usize, each: B, stop: Stop<'_>) -> Option<Vec<f64>>
    where
        B: Fn(&mut [f64], usize, &[u32], &[f64]) + Sync,
    {
        let set = &*self.set;
        let body = |_: &mut (), acc: &mut [f64], i: usize| {
            let (idx, coef) = set.row(i, &self.jacobian);
            each(acc, i, idx, coef);
        };
        chunked_sum(set.len(), len, || (), body, stop)
    }

    /// `H` as a dense row-major `m x m` matrix (`m` free parameters): each position's outer
    /// product on the upper triangle only, mirrored at the end. `None` when abandoned (`stop`
    /// is asked every few hundred positions by each thread).
    pub fn dense(&self, stop: Stop<'_>) -> Option<Vec<f64>> {
        let obj = self.obj;
        let (m, slot) = (obj.dim(), &obj.slot);
        let body = |acc: &mut [f64], i: usize, idx: &[u32], coef: &[f64]| {
            let c = self.curvature[i];
            if c == 0.0 {
                return;
            }
            for (k, (&a, &ca)) in idx.iter().zip(coef).enumerate() {
                let sa = slot[a as usize];
                if sa == u32::MAX {
                    continue;
                }
                let f = c * ca;
                acc[sa as usize * (m + 1)] += f * ca;
                for (&b, &cb) in idx[k + 1..].iter().zip(&coef[k + 1..]) {
                    let sb = slot[b as usize];
                    if sb != u32::MAX {
                        // A column met twice in one row (a store that does not merge its
                        // terms) adds both cross products to the diagonal.
                        let (lo, hi, two) = match sa.cmp(&sb) {
                            std::cmp::Ordering::Less => (sa, sb, 1.0),
                            std::cmp::Ordering::Greater => (sb, sa, 1.0),
                            std::cmp::Ordering::Equal => (sa, sa, 2.0),
                        };
                        acc[lo as usize * m + hi as usize] += two * f * cb;
                    }
                }
            }
        };
        let mut h = self.sum_rows(m * m, body, stop)?;
        for a in 0..m {
            for b in a + 1..m {
                h[b * m + a] = h[a * m + b];
            }
        }
        obj.add_penalty_curvature_dense(&mut h);
        if let Some(d) = &self.cols {
            for a in 0..m {
                for b in 0..m {
                    h[a * m + b] *= d[a] * d[b];
                }
            }
        }
        Some(h)
    }

    /// The diagonal of `H`; `None` when abandoned (as [`dense`](Self::dense)).
    pub fn diagonal(&self, stop: Stop<'_>) -> Option<Vec<f64>> {
        let obj = self.obj;
        let body = |acc: &mut [f64], i: usize, idx: &[u32], coef: &[f64]| {
            add_squares(acc, &obj.slot, self.curvature[i], idx, coef);
        };
        let d = self.sum_rows(obj.dim(), body, stop)?;
        Some(finish_diagonal(
            d,
            &obj.penalty_diagonal(),
            self.cols.as_deref(),
        ))
    }
}

/// Positions a chunk of [`chunked_sum`] sums between two looks at its stop test.
const STOP_EVERY: usize = 256;

/// `sum over i in 0..n of body(state, i)` into a vector of `len` zeros, with a state per chunk
/// made by `init` (scratch buffers): positions in fixed chunks in parallel, the chunks' sums
/// added in chunk order, so the same data, weights and thread count give the same bits on
/// every run (rayon's `fold`/`reduce` tree depends on work stealing). Abandoned (`None`) once
/// `stop` says so: each chunk asks it every [`STOP_EVERY`] positions, so the sum ends within
/// that many positions per thread; with [`Stop::Never`] it is always `Some`.
fn chunked_sum<S, I, B>(n: usize, len: usize, init: I, body: B, stop: Stop<'_>) -> Option<Vec<f64>>
where
    I: Fn() -> S + Sync,
    B: Fn(&mut S, &mut [f64], usize) + Sync,
{
    let threads = rayon::current_num_threads().max(1);
    let chunk = n.div_ceil(threads * 4).max(1024);
    let parts: Vec<Vec<f64>> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut acc = vec![0.0; len];
            let mut state = init();
            let (a, b) = (c * chunk, ((c + 1) * chunk).min(n));
            for i in a..b {
                if (i - a) % STOP_EVERY == 0 && stop.now() {
                    return None;
                }
                body(&mut state, &mut acc, i);
            }
            Some(acc)
        })
        .collect::<Option<_>>()?;
    let mut parts = parts.into_iter();
    let mut total = parts.next().unwrap_or_else(|| vec![0.0; len]);
    for p in parts {
        for (x, y) in total.iter_mut().zip(&p) {
            *x += y;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tape::Scalar;
    use tapered::{CompiledSet, Stop, Target};

    use super::sampled_diagonal;
    use crate::{Link, LossKind, Objective, ObjectiveConfig, Sigmoid};

    /// The Jacobi scale's diagonal, read in place on every `k`-th position, is the diagonal of
    /// the Gauss-Newton matrix summed over a copy of those positions.
    #[test]
    fn the_sampled_diagonal_is_the_sample_linearisations() {
        // Non-linear rows (a product of two weights) and linear ones, 10,000 of them.
        let items: Vec<Vec<(u32, f64)>> = (0..10_000)
            .map(|i| vec![(0, (i % 5) as f64 - 2.0), (1, (i % 3) as f64), (2, 1.0)])
            .collect();
        let set = CompiledSet::record(
            &[30.0, -20.0, 5.0],
            &items,
            |i, _| Target {
                value: [0.0, 0.5, 1.0][i % 3],
                score: None,
                group: 0,
            },
            |i, f, w| {
                let linear = tape::Var::dot(w, f);
                Some(if i % 4 == 0 { linear * w[2] } else { linear })
            },
            None,
        );
        let link = Link {
            sigmoid: Sigmoid::Logistic,
            k: 1.0,
            loss: LossKind::Mse,
        };
        let obj = Objective::new(
            Arc::new(set),
            ObjectiveConfig::new(link),
            vec![30.0, -20.0, 5.0],
            None,
        )
        .unwrap();
        let x = [31.0, -18.0, 4.0];
        let cols = [1.5, 0.5, 2.0];
        for sample in [1_000, 3_001, 20_000] {
            let direct = sampled_diagonal(&obj, &x, sample, &cols);
            let copied = obj
                .linearise(&x, Some(sample), Stop::Never)
                .unwrap()
                .with_columns(cols.to_vec())
                .diagonal(Stop::Never)
                .unwrap();
            assert_eq!(direct, copied, "sample of {sample}");
        }
    }
}
