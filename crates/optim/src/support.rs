//! [`Support`]: how much of a set holds each weight at one point, and what follows from it:
//! the pseudo-count prior's per-weight strengths ([`Support::prior_strengths`]) and the
//! report of the weights that moved furthest for the data behind them ([`Support::wandering`],
//! in `support/wandering.rs`).
//!
//! A weight's *support* is the number of rows `i` whose gradient `dq_i/dw_j` is nonzero at the
//! weights measured, read from the set's own gradient rows ([`CompiledSet::row_at`]), so it is
//! exact through non-linear heads too: a weight behind `max(s, 0)` is supported only by the
//! rows where `s > 0`. Beside it, each weight's Gauss-Newton curvature summed over its rows,
//! `sum_i c(q_i) (dq_i/dw_j)^2` with `c` the loss's curvature ([`Link::curvature`]).
//!
//! ```
//! use optim::{Link, LossKind, Sigmoid, Support};
//! use tapered::{CompiledSet, Stop, Target};
//! use tape::Scalar;
//!
//! // Weight 0 in every row, weight 1 behind max(s, 0) with s = w1 * x: x > 0 in one row.
//! let items = vec![vec![(0u32, 1.0), (1, 2.0)], vec![(0, 1.0), (1, -1.0)], vec![(0, 3.0)]];
//! let set = CompiledSet::record(&[0.0, 5.0], &items,
//!     |_, _| Target { value: 0.5, score: None, group: 0 },
//!     |_, f, w| {
//!         let linear = w[0] * f[0].1;
//!         Some(match f.get(1) {
//!             Some(&(_, x)) => linear + (w[1] * x).max(tape::Var::constant(0.0)),
//!             None => linear,
//!         })
//!     }, None);
//! let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
//! let s = Support::measure(&set, &[0.0, 5.0], link, Stop::Never).unwrap();
//! assert_eq!(s.counts(), [3, 1]);
//! assert_eq!(s.rows(), 3);
//! ```

use rayon::prelude::*;
use tape::Scratch;
use tapered::{CompiledSet, Stop};

use crate::loss::Link;

mod wandering;

pub use wandering::{Wanderer, WANDERING_TOP};

/// Rows of a measuring pass a work item takes at least, and between two looks at the stop.
const ROWS: usize = 4096;

/// Each weight's support and summed curvature over a set, at one point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Support {
    rows: usize,
    count: Vec<u64>,
    curvature: Vec<f64>,
}

impl Support {
    /// Measures `set` at weights `w` (one parallel pass: each row's score and gradient row,
    /// in fixed chunks added in order, so the sums are bit for bit reproducible for a given
    /// thread count). `None` when `stop` said so.
    pub fn measure(set: &CompiledSet, w: &[f64], link: Link, stop: Stop<'_>) -> Option<Support> {
        let (n, p) = (set.len(), set.params());
        let threads = rayon::current_num_threads().max(1);
        let chunk = (n / (threads * 4)).max(ROWS);
        let parts: Vec<(Vec<u64>, Vec<f64>)> = (0..n.div_ceil(chunk))
            .into_par_iter()
            .map(|c| measure_rows(set, w, link, c * chunk..((c + 1) * chunk).min(n), stop))
            .collect::<Option<_>>()?;
        let mut s = Support {
            rows: n,
            count: vec![0; p],
            curvature: vec![0.0; p],
        };
        for (count, curvature) in parts {
            for (a, b) in s.count.iter_mut().zip(count) {
                *a += b;
            }
            for (a, b) in s.curvature.iter_mut().zip(curvature) {
                *a += b;
            }
        }
        Some(s)
    }

    /// The rows measured.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Each weight's support: the rows whose gradient in it is nonzero.
    pub fn counts(&self) -> &[u64] {
        &self.count
    }

    /// Weight `j`'s support as a share of the rows (0 with no rows).
    pub fn share(&self, j: usize) -> f64 {
        self.count[j] as f64 / self.rows.max(1) as f64
    }

    /// Each weight's curvature a supporting row, `h_j = sum_i c(q_i) (dq_i/dw_j)^2 / support_j`;
    /// a weight no row supports takes the median of the supported weights' (0 if none is).
    pub fn typical_curvature(&self) -> Vec<f64> {
        let mut seen: Vec<f64> = (self.count.iter().zip(&self.curvature))
            .filter(|(&k, _)| k > 0)
            .map(|(&k, &c)| c / k as f64)
            .collect();
        seen.sort_by(f64::total_cmp);
        let median = seen.get(seen.len() / 2).copied().unwrap_or(0.0);
        (self.count.iter().zip(&self.curvature))
            .map(|(&k, &c)| if k > 0 { c / k as f64 } else { median })
            .collect()
    }

    /// The pseudo-count prior's L2 strength of every weight (`Objective::with_prior`): `m`
    /// pseudo-rows at each weight's start value, each with the weight's typical curvature
    /// `h_j`, against the mean loss over the `N` rows: `p_j = m h_j / (2 N)`, whose curvature
    /// `2 p_j = (m / N) h_j` stands to the data's `(support_j / N) h_j` as `m` to `support_j`.
    /// Near the start a weight's move is then shrunk by about `support_j / (support_j + m)`:
    /// one no row supports is held, one supported by many rows is barely touched. `m = 0`:
    /// zeros.
    pub fn prior_strengths(&self, m: f64) -> Vec<f64> {
        if m <= 0.0 || self.rows == 0 {
            return vec![0.0; self.count.len()];
        }
        let scale = m / (2.0 * self.rows as f64);
        self.typical_curvature()
            .into_iter()
            .map(|h| scale * h)
            .collect()
    }
}

/// The counts and curvature sums of `rows` (`None` when `stop` said so).
fn measure_rows(
    set: &CompiledSet,
    w: &[f64],
    link: Link,
    rows: std::ops::Range<usize>,
    stop: Stop<'_>,
) -> Option<(Vec<u64>, Vec<f64>)> {
    let p = set.params();
    let (mut count, mut curvature) = (vec![0u64; p], vec![0.0; p]);
    let (mut scratch, mut dense, mut sum) = (Scratch::default(), vec![0.0; p], vec![0.0; p]);
    let (mut idx, mut coef, mut touched) = (Vec::new(), Vec::new(), Vec::new());
    for i in rows {
        if (i % ROWS == 0) && stop.now() {
            return None;
        }
        let c = link.curvature(set.score(i, w, &mut scratch));
        idx.clear();
        coef.clear();
        set.row_at(i, w, &mut scratch, &mut dense, &mut idx, &mut coef);
        // A row may name a weight twice: its gradient is the sum.
        for (&j, &g) in idx.iter().zip(&coef) {
            touched.push(j as usize);
            sum[j as usize] += g;
        }
        for j in touched.drain(..) {
            let g = std::mem::take(&mut sum[j]);
            if g != 0.0 {
                count[j] += 1;
                curvature[j] += c * g * g;
            }
        }
    }
    Some((count, curvature))
}

impl Support {
    /// The `top` weights of `names` (full indices) with the largest
    /// `|end - start| / sqrt(support + 1)`, largest first (ties by index); weights that did not
    /// move are left out.
    ///
    /// ```
    /// use optim::Support;
    /// use tapered::{CompiledSet, Stop, Target};
    /// use tape::Scalar;
    ///
    /// // Weight 0 in 99 rows, weight 1 in one.
    /// let mut items = vec![vec![(0u32, 1.0)]; 99];
    /// items.push(vec![(1, 1.0)]);
    /// let set = CompiledSet::record(&[0.0, 0.0], &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let link = optim::Link { sigmoid: optim::Sigmoid::Logistic, k: 1.0, loss: optim::LossKind::Mse };
    /// let s = Support::measure(&set, &[0.0, 0.0], link, Stop::Never).unwrap();
    /// let names = ["well".to_string(), "thin".to_string()];
    /// let w = s.wandering(&names, &[0.0, 0.0], &[50.0, 20.0], 10);
    /// assert_eq!(w[0].name, "thin"); // 20 / sqrt(2) = 14.1 against 50 / sqrt(100) = 5
    /// assert_eq!((w[0].support, w[1].support), (1, 99));
    /// assert_eq!(w[1].share, 0.99);
    /// ```
    pub fn wandering(
        &self,
        names: &[String],
        start: &[f64],
        end: &[f64],
        top: usize,
    ) -> Vec<Wanderer> {
        let mut rows: Vec<Wanderer> = (names.iter().zip(start).zip(end))
            .enumerate()
            .filter(|(_, ((_, a), b))| a != b)
            .map(|(j, ((name, &start), &end))| {
                let support = self.count.get(j).copied().unwrap_or(0);
                let moved = end - start;
                Wanderer {
                    name: name.clone(),
                    start,
                    end,
                    moved,
                    support,
                    share: support as f64 / self.rows.max(1) as f64,
                    score: moved.abs() / (support as f64 + 1.0).sqrt(),
                }
            })
            .collect();
        // Stable: equal scores keep the index order.
        rows.sort_by(|a, b| b.score.total_cmp(&a.score));
        rows.truncate(top);
        rows
    }
}

#[cfg(test)]
mod tests;
