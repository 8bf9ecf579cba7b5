//! A dense Gauss-Newton (Levenberg-Marquardt) fit of a small linear correction on top of fixed
//! scores: `q_i = offset_i + x_i . theta`, rows sparse, at most a few hundred parameters, a
//! ridge penalty. What `texel::discover` fits for each candidate group of terms: the recorded
//! sets and the six solvers are built for thousands of weights; this problem is a dense
//! matrix of the parameters' size, solved in a handful of passes.
//!
//! The objective is `(1/N) (sum_i loss(q_i, y_i) + sum_j ridge_j theta_j^2)`, the loss the
//! [`Link`]'s. Every pass splits the rows into [`BLOCKS`] fixed blocks whose sums are added in
//! order, so the result is the same bit for bit whatever the number of threads.
//!
//! ```
//! use optim::small_fit::{fit_small, SmallFitOptions, SparseRows};
//! use optim::Link;
//!
//! /// Scores 0 and one feature worth +100 where present: the fit finds it.
//! struct Rows(Vec<(f64, f64)>);
//! impl SparseRows for Rows {
//!     fn len(&self) -> usize { self.0.len() }
//!     fn row(&self, i: usize, out: &mut Vec<(u32, f64)>) -> (f64, f64) {
//!         out.clear();
//!         out.push((0, self.0[i].0));
//!         (0.0, self.0[i].1)
//!     }
//! }
//! let link = Link::texel(1.0);
//! let y = link.expect(100.0);
//! let rows = Rows((0..200).map(|i| if i % 2 == 0 { (1.0, y) } else { (0.0, 0.5) }).collect());
//! let fit = fit_small(&rows, 1, &SmallFitOptions::new(link, vec![0.0]), tapered::Stop::Never).unwrap();
//! assert!((fit.theta[0] - 100.0).abs() < 1e-3);
//! ```

use rayon::prelude::*;
use tapered::Stop;

use crate::{Interrupted, Link};

/// Blocks of rows a pass is split into (fixed, so that sums do not depend on the threads).
pub const BLOCKS: usize = 16;

/// The rows of a small fit.
pub trait SparseRows: Sync {
    /// The number of rows.
    fn len(&self) -> usize;

    /// Whether there is no row.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`: its entries `(parameter, coefficient)` into `out` (cleared first; an index
    /// may repeat, the coefficients then add), and its `(offset, target)`.
    fn row(&self, i: usize, out: &mut Vec<(u32, f64)>) -> (f64, f64);
}

/// How [`fit_small`] fits.
#[derive(Clone, Debug)]
pub struct SmallFitOptions {
    /// The sigmoid, its `K` and the loss.
    pub link: Link,
    /// The ridge penalty of each parameter (see the module docs), `>= 0`.
    pub ridge: Vec<f64>,
    /// At most this many Gauss-Newton steps.
    pub max_iters: usize,
    /// Stop once a step lowers the objective by less than this (absolute, mean loss).
    pub tol: f64,
    /// Where to start (missing parameters at 0): a warm start from a smaller fit.
    pub start: Vec<f64>,
}

impl SmallFitOptions {
    /// `link` and `ridge`, at most 50 steps, a tolerance of `1e-11`, from 0.
    pub fn new(link: Link, ridge: Vec<f64>) -> Self {
        SmallFitOptions {
            link,
            ridge,
            max_iters: 50,
            tol: 1e-11,
            start: Vec::new(),
        }
    }
}

/// What [`fit_small`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct SmallFit {
    /// The parameters.
    pub theta: Vec<f64>,
    /// The objective there (mean loss plus the penalty over `N`).
    pub objective: f64,
    /// Gauss-Newton steps taken.
    pub iters: usize,
}

/// The objective's value, gradient and Gauss-Newton matrix (upper triangle, row-major, `p x p`).
struct Sums {
    f: f64,
    g: Vec<f64>,
    h: Vec<f64>,
}

/// The rows of block `b` of `n`.
fn block(n: usize, b: usize) -> std::ops::Range<usize> {
    (n * b / BLOCKS)..(n * (b + 1) / BLOCKS)
}

/// `offset + x . theta` of a row.
fn score(offset: f64, entries: &[(u32, f64)], theta: &[f64]) -> f64 {
    offset
        + entries
            .iter()
            .map(|&(j, x)| x * theta[j as usize])
            .sum::<f64>()
}

/// The summed loss of every row at `theta` (no penalty).
pub fn total_loss<R: SparseRows>(rows: &R, theta: &[f64], link: Link) -> f64 {
    let n = rows.len();
    let parts: Vec<f64> = (0..BLOCKS)
        .into_par_iter()
        .map(|b| {
            let mut e = Vec::new();
            block(n, b)
                .map(|i| {
                    let (o, y) = rows.row(i, &mut e);
                    link.loss_value(score(o, &e, theta), y)
                })
                .sum()
        })
        .collect();
    parts.iter().sum()
}

/// The summed loss, gradient and Gauss-Newton matrix of the rows at `theta` (no penalty).
fn sums<R: SparseRows>(rows: &R, theta: &[f64], link: Link) -> Sums {
    let (n, p) = (rows.len(), theta.len());
    let parts: Vec<Sums> = (0..BLOCKS)
        .into_par_iter()
        .map(|b| {
            let mut s = Sums {
                f: 0.0,
                g: vec![0.0; p],
                h: vec![0.0; p * p],
            };
            let mut e = Vec::new();
            for i in block(n, b) {
                let (o, y) = rows.row(i, &mut e);
                let q = score(o, &e, theta);
                let (l, d) = link.loss(q, y);
                let c = link.curvature(q);
                s.f += l;
                merge(&mut e);
                for (a, &(j, x)) in e.iter().enumerate() {
                    s.g[j as usize] += d * x;
                    let (row, cx) = (j as usize * p, c * x);
                    for &(k, z) in &e[a..] {
                        s.h[row + k as usize] += cx * z;
                    }
                }
            }
            s
        })
        .collect();
    let mut it = parts.into_iter();
    let mut total = it.next().unwrap_or(Sums {
        f: 0.0,
        g: vec![0.0; p],
        h: vec![0.0; p * p],
    });
    for s in it {
        total.f += s.f;
        total.g.iter_mut().zip(&s.g).for_each(|(a, b)| *a += b);
        total.h.iter_mut().zip(&s.h).for_each(|(a, b)| *a += b);
    }
    total
}

/// Sorts a row's entries by parameter and adds repeated ones: then each pair of entries is
/// one cell of the upper triangle.
fn merge(e: &mut Vec<(u32, f64)>) {
    if e.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    e.sort_unstable_by_key(|x| x.0);
    e.dedup_by(|next, kept| {
        if next.0 == kept.0 {
            kept.1 += next.1;
            true
        } else {
            false
        }
    });
}

/// Solves `a x = b` for a symmetric positive definite `a` given by its upper triangle
/// (row-major, `p x p`) by Cholesky; `None` if it is not positive definite.
pub fn cholesky_solve(a: &[f64], b: &[f64]) -> Option<Vec<f64>> {
    let p = b.len();
    let l = cholesky_lower(a, p)?;
    let mut y = vec![0.0; p];
    for i in 0..p {
        let s: f64 = (0..i).map(|k| l[i * p + k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i * p + i];
    }
    let mut x = vec![0.0; p];
    for i in (0..p).rev() {
        let s: f64 = (i + 1..p).map(|k| l[k * p + i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i * p + i];
    }
    Some(x)
}

/// The lower Cholesky factor `L` (row-major, `p x p`, zero above the diagonal) of a symmetric
/// positive definite `a` given by its upper triangle (row-major): `a = L L^T`; `None` if `a`
/// is not positive definite.
pub fn cholesky_lower(a: &[f64], p: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; p * p];
    for i in 0..p {
        for j in 0..=i {
            let mut s = a[j * p + i];
            for k in 0..j {
                s -= l[i * p + k] * l[j * p + k];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * p + i] = s.sqrt();
            } else {
                l[i * p + j] = s / l[j * p + j];
            }
        }
    }
    Some(l)
}

/// The penalty `sum_j ridge_j theta_j^2`.
fn penalty(ridge: &[f64], theta: &[f64]) -> f64 {
    ridge.iter().zip(theta).map(|(r, t)| r * t * t).sum()
}

/// Fits `n_params` parameters from [`SmallFitOptions::start`] (0 by default) by Levenberg-Marquardt steps on the Gauss-Newton matrix
/// (a damped step is retried with more damping until the objective goes down), asking `stop`
/// before each pass. Rows with no entry only add a constant.
pub fn fit_small<R: SparseRows>(
    rows: &R,
    n_params: usize,
    opts: &SmallFitOptions,
    stop: Stop,
) -> Result<SmallFit, Interrupted> {
    let p = n_params;
    let n = rows.len().max(1) as f64;
    let ridge: Vec<f64> = (0..p)
        .map(|j| opts.ridge.get(j).copied().unwrap_or(0.0))
        .collect();
    let mut theta: Vec<f64> = (0..p)
        .map(|j| opts.start.get(j).copied().unwrap_or(0.0))
        .collect();
    let mut mu = 1e-3;
    let mut iters = 0;
    let mut current = (total_loss(rows, &theta, opts.link) + penalty(&ridge, &theta)) / n;
    while iters < opts.max_iters {
        if stop.now() {
            return Err(Interrupted);
        }
        let s = sums(rows, &theta, opts.link);
        current = (s.f + penalty(&ridge, &theta)) / n;
        let g: Vec<f64> = (0..p)
            .map(|j| -(s.g[j] + 2.0 * ridge[j] * theta[j]) / n)
            .collect();
        let mut h = s.h;
        h.iter_mut().for_each(|v| *v /= n);
        let top = (0..p).map(|j| h[j * p + j]).fold(0.0f64, f64::max);
        let floor = (top * 1e-12).max(1e-300);
        for j in 0..p {
            h[j * p + j] += 2.0 * ridge[j] / n;
        }
        iters += 1;
        match damped_step(rows, &theta, &h, &g, &ridge, mu, floor, opts.link, current) {
            Some((next, value, used)) => {
                let gain = current - value;
                theta = next;
                current = value;
                mu = (used / 3.0).max(1e-12);
                if gain < opts.tol {
                    break;
                }
            }
            None => break,
        }
    }
    Ok(SmallFit {
        theta,
        objective: current,
        iters,
    })
}

/// One Levenberg-Marquardt step from `theta`: the damping raised from `mu` until the objective
/// goes below `current` (at most 12 tries). The new point, its objective and the damping used.
#[allow(clippy::too_many_arguments)]
fn damped_step<R: SparseRows>(
    rows: &R,
    theta: &[f64],
    h: &[f64],
    g: &[f64],
    ridge: &[f64],
    mut mu: f64,
    floor: f64,
    link: Link,
    current: f64,
) -> Option<(Vec<f64>, f64, f64)> {
    let p = theta.len();
    let n = rows.len().max(1) as f64;
    for _ in 0..12 {
        let mut a = h.to_vec();
        for j in 0..p {
            a[j * p + j] += mu * a[j * p + j].max(floor) + floor;
        }
        if let Some(delta) = cholesky_solve(&a, g) {
            let next: Vec<f64> = theta.iter().zip(&delta).map(|(t, d)| t + d).collect();
            let value = (total_loss(rows, &next, link) + penalty(ridge, &next)) / n;
            if value <= current {
                return Some((next, value, mu));
            }
        }
        mu *= 8.0;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lower_factor_gives_the_matrix_back() {
        let a = [4.0, 2.0, 0.4, 2.0, 5.0, 1.0, 0.4, 1.0, 3.0];
        let l = cholesky_lower(&a, 3).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| l[i * 3 + k] * l[j * 3 + k]).sum();
                assert!((v - a[i * 3 + j]).abs() < 1e-12, "({i}, {j})");
            }
            for j in i + 1..3 {
                assert_eq!(l[i * 3 + j], 0.0);
            }
        }
        assert!(cholesky_lower(&[1.0, 2.0, 2.0, 1.0], 2).is_none());
    }

    #[test]
    fn cholesky_solves_a_hand_example() {
        // [[4, 2], [2, 3]] x = [2, 1]: x = [0.5, 0].
        let x = cholesky_solve(&[4.0, 2.0, 0.0, 3.0], &[2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12);
        assert!(cholesky_solve(&[1.0, 2.0, 0.0, 1.0], &[1.0, 1.0]).is_none());
    }

    /// Two features, planted values, results at their expectation: the fit recovers them,
    /// and a ridge pulls an element seen in no row to 0.
    struct Planted(Vec<[f64; 3]>);
    impl SparseRows for Planted {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn row(&self, i: usize, out: &mut Vec<(u32, f64)>) -> (f64, f64) {
            out.clear();
            let [a, b, y] = self.0[i];
            out.extend([(0, a), (1, b), (0, 0.0)]);
            (10.0, y)
        }
    }

    #[test]
    fn recovers_planted_values() {
        let link = Link::texel(1.1);
        let rows: Vec<[f64; 3]> = (0..400)
            .map(|i| {
                let (a, b) = ((i % 3) as f64 - 1.0, (i % 5) as f64 - 2.0);
                [a, b, link.expect(10.0 + 30.0 * a - 20.0 * b)]
            })
            .collect();
        let opts = SmallFitOptions::new(link, vec![0.0, 0.0, 5.0]);
        let fit = fit_small(&Planted(rows), 3, &opts, Stop::Never).unwrap();
        assert!((fit.theta[0] - 30.0).abs() < 1e-4, "{:?}", fit.theta);
        assert!((fit.theta[1] + 20.0).abs() < 1e-4, "{:?}", fit.theta);
        assert_eq!(fit.theta[2], 0.0);
        assert!(fit.objective < 1e-12);
    }
}
