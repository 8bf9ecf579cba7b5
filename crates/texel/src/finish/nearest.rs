//! Babai's nearest-plane rounding: integers for the movable weights that keep the fit better
//! than rounding each alone, where the weights are correlated (a piece's value and its tables).
//!
//! Near the optimum `c` the training loss grows as `(z - c)^T H (z - c) / 2`, `H` the
//! Gauss-Newton matrix. Rounding each weight alone ignores `H`'s off-diagonal terms; with `H =
//! R^T R` (Cholesky, `R` upper triangular, the weights in increasing curvature), the
//! nearest-plane rule rounds the last weight, then each earlier one given those after it: `z_k = round(c_k - sum_(j > k) R_kj (z_j - c_j) /
//! R_kk)` (L. Babai, "On Lovász' lattice reduction and the nearest lattice point problem",
//! 1986). The loss decides: [`finish`](super::finish) keeps these integers only if their
//! training loss is below plain rounding's, then polishes whichever it kept.

use optim::Objective;
use tapered::Stop;

/// At most this many movable weights: the matrix, its copy and its factor are `n^2` numbers
/// each (600: 8.6 MB in all), besides the sample's Jacobian. (Ethereal's 1,808 weights took
/// 165 MB more at the peak for 1.1e-6 of rounding cost instead of 1.3e-6: left to the polish.)
pub const NEAREST_MAX: usize = 600;

/// The matrix is summed over at most this many positions (spread evenly over the set): it
/// only guides the rounding, the loss judges it (4ku: 262,144 or all 901,352 positions gave
/// no lower cost, and hold their Jacobian: 240 MB and more; 16,384: 4.6e-5 against 4.2e-5).
pub const NEAREST_SAMPLE: usize = 1 << 15;

/// The ridge on the matrix's diagonal, relative to its mean: exactly flat directions (a
/// declared group mean against its piece's value, centred before) stay where they are.
const RIDGE: f64 = 1e-6;

/// The weights `wi` with the movable ones (`movable`, full indices; those free in `train`)
/// rounded from `wc` by the nearest-plane rule, each inside its bounds; `None` when there are
/// none or more than [`NEAREST_MAX`], or the matrix cannot be factored.
pub fn nearest_plane(
    train: &Objective,
    wc: &[f64],
    wi: &[f64],
    movable: &[usize],
) -> Option<Vec<f64>> {
    let mut is_movable = vec![false; wc.len()];
    for &i in movable.iter().filter(|&&i| i < wc.len()) {
        is_movable[i] = true;
    }
    // (full index, free coordinate) of each movable weight.
    let sel: Vec<(usize, usize)> = (train.free().iter().enumerate())
        .filter(|(_, &i)| is_movable[i])
        .map(|(k, &i)| (i, k))
        .collect();
    let n = sel.len();
    if n == 0 || n > NEAREST_MAX {
        return None;
    }
    let lin = train.linearise(&train.reduce(wc), Some(NEAREST_SAMPLE), Stop::Never)?;
    let h = lin.dense(Stop::Never)?;
    let m = train.dim();
    // The weights in increasing curvature: the most curved are rounded first (alone), each
    // less curved one then given them. (4ku's 300 from zero, 1 M positions: rounding cost
    // 4.2e-5 in this order, 6.1e-5 unordered, 9.4e-5 in decreasing order, 1.26e-4 each alone.)
    let mut sel = sel;
    sel.sort_by(|x, y| h[x.1 * m + x.1].total_cmp(&h[y.1 * m + y.1]));
    let mut a = vec![0.0; n * n];
    for (p, &(_, kp)) in sel.iter().enumerate() {
        for (q, &(_, kq)) in sel.iter().enumerate() {
            a[p * n + q] = h[kp * m + kq];
        }
    }
    let mean = (0..n).map(|p| a[p * n + p]).sum::<f64>() / n as f64;
    if !(mean > 0.0 && mean.is_finite()) {
        return None;
    }
    for p in 0..n {
        a[p * n + p] += RIDGE * mean;
    }
    // a = L L^T: `R` of the module documentation is `L^T`, so R_kj = l[j n + k].
    let l = optim::small_fit::cholesky_lower(&a, n)?;
    let c: Vec<f64> = sel.iter().map(|&(i, _)| wc[i]).collect();
    let bounds = train.bounds();
    let mut z = vec![0.0; n];
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| l[j * n + k] * (z[j] - c[j])).sum();
        let (lo, hi) = (bounds[sel[k].1].0.ceil(), bounds[sel[k].1].1.floor());
        let v = (c[k] - s / l[k * n + k]).round();
        // (No integer inside the bounds: the plain rounding's value stays.)
        z[k] = if lo <= hi {
            v.clamp(lo, hi)
        } else {
            wi[sel[k].0]
        };
    }
    let mut out = wi.to_vec();
    for (p, &(i, _)) in sel.iter().enumerate() {
        out[i] = z[p];
    }
    out.iter().all(|v| v.is_finite()).then_some(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use optim::{Link, LossKind, Objective, ObjectiveConfig, Sigmoid};
    use tape::Scalar;
    use tapered::{CompiledSet, Stop, Target};

    use super::nearest_plane;

    /// Two weights read together on 199 positions of 200 and against each other on one: the
    /// loss is nearly flat along `w0 - w1` and steep along `w0 + w1`. At `(0.4, 0.4)` plain
    /// rounding, `(0, 0)`, moves along the steep direction; the nearest plane goes across it.
    #[test]
    fn correlated_weights_are_rounded_together() {
        let items: Vec<Vec<(u32, f64)>> = (0..200)
            .map(|i| vec![(0, 1.0), (1, if i == 0 { -1.0 } else { 1.0 })])
            .collect();
        let set = CompiledSet::record(
            &[0.0, 0.0],
            &items,
            |i, _| Target {
                value: [0.0, 1.0][i % 2],
                score: None,
                group: 0,
            },
            |_, f, w| Some(tape::Var::dot(w, f)),
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
            vec![0.0; 2],
            None,
        )
        .unwrap();
        let c = [0.4, 0.4];
        let z = nearest_plane(&obj, &c, &[0.0, 0.0], &[0, 1]).unwrap();
        let h = obj
            .linearise(&c, None, Stop::Never)
            .unwrap()
            .dense(Stop::Never)
            .unwrap();
        let cost = |z: &[f64]| {
            let e = [z[0] - c[0], z[1] - c[1]];
            (0..2)
                .flat_map(|a| (0..2).map(move |b| (a, b)))
                .map(|(a, b)| e[a] * h[a * 2 + b] * e[b])
                .sum::<f64>()
        };
        assert!(z == [1.0, 0.0] || z == [0.0, 1.0], "{z:?}");
        assert!(cost(&z) < cost(&[0.0, 0.0]) / 10.0);
        // Nothing movable: no rounding of its own.
        assert!(nearest_plane(&obj, &c, &[0.0, 0.0], &[]).is_none());
    }
}
