//! Fitting the sigmoid's scale `K` to the starting weights.

use rayon::prelude::*;

use crate::loss::Link;
use tapered::CompiledSet;

/// Minimises `f` over `[lo, hi]` by golden-section search to an interval of width `tol`,
/// returning `(x, f(x))`. `f` should be unimodal on the interval; otherwise a local minimum is
/// found.
///
/// ```
/// let (x, fx) = optim::golden_section(|x| (x - 1.3).powi(2), 0.0, 10.0, 1e-9);
/// assert!((x - 1.3).abs() < 1e-8);
/// assert!(fx < 1e-15);
/// ```
pub fn golden_section<F: FnMut(f64) -> f64>(mut f: F, lo: f64, hi: f64, tol: f64) -> (f64, f64) {
    let invphi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo.min(hi), lo.max(hi));
    let mut c = b - invphi * (b - a);
    let mut d = a + invphi * (b - a);
    let mut fc = f(c);
    let mut fd = f(d);
    while (b - a) > tol {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - invphi * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + invphi * (b - a);
            fd = f(d);
        }
    }
    let x = 0.5 * (a + b);
    let fx = f(x);
    // The interval's end points were never evaluated; prefer the best point seen.
    [(x, fx), (c, fc), (d, fd)]
        .into_iter()
        .fold((x, fx), |best, p| if p.1 < best.1 { p } else { best })
}

/// The `K` that minimises the mean loss of `link` (its sigmoid and loss; its `k` is ignored)
/// over `set` at weights `w`, against the results alone, searched in the sigmoid's
/// [`k_range`](crate::Sigmoid::k_range) on a logarithmic scale. Returns `(K, loss)`.
///
/// The scores are computed once; each trial `K` is one cheap sweep over them.
pub fn fit_k(set: &CompiledSet, w: &[f64], link: Link) -> (f64, f64) {
    let mut q = vec![0.0; set.len()];
    set.scores(w, &mut q);
    let y: Vec<f64> = set
        .targets()
        .iter()
        .map(|l| link.sigmoid.label(l.value))
        .collect();
    fit_k_scores(&q, &y, link)
}

/// The `K` at which the rows' score labels (`Target::score`) best predict their results, as
/// [`fit_k`] fits the model's: `(K, loss)`, or `None` when no row has a score. For
/// [`ObjectiveConfig::score_k`](crate::ObjectiveConfig::score_k): another engine's scores,
/// read with their own `K`, become its opinion calibrated on these results.
pub fn fit_score_k(set: &CompiledSet, link: Link) -> Option<(f64, f64)> {
    let (q, y): (Vec<f64>, Vec<f64>) = set
        .targets()
        .iter()
        .filter_map(|l| Some((f64::from(l.score?), link.sigmoid.label(l.value))))
        .unzip();
    (!q.is_empty()).then(|| fit_k_scores(&q, &y, link))
}

/// Positions per parallel work item of [`fit_k_scores`]' sums.
const SUM_CHUNK: usize = 1 << 16;

/// [`fit_k`] on precomputed scores `q` and labels `y` (in the sigmoid's range).
pub fn fit_k_scores(q: &[f64], y: &[f64], link: Link) -> (f64, f64) {
    let n = q.len().max(1) as f64;
    let loss = |k: f64| {
        let l = Link { k, ..link };
        // In parallel over fixed chunks summed in order: the same value whatever the threads
        // (and, below one chunk, the plain sequential sum).
        q.par_chunks(SUM_CHUNK)
            .zip(y.par_chunks(SUM_CHUNK))
            .map(|(q, y)| {
                q.iter()
                    .zip(y)
                    .map(|(&q, &y)| l.loss_value(q, y))
                    .sum::<f64>()
            })
            .collect::<Vec<f64>>()
            .into_iter()
            .sum::<f64>()
            / n
    };
    let (lo, hi) = link.sigmoid.k_range();
    // Coarse scan on a log grid first, so a non-unimodal curve does not trap the search.
    let steps = 40;
    let (llo, lhi) = (lo.ln(), hi.ln());
    let grid: Vec<f64> = (0..=steps)
        .map(|s| (llo + (lhi - llo) * s as f64 / steps as f64).exp())
        .collect();
    let best = grid
        .iter()
        .enumerate()
        .map(|(i, &k)| (i, loss(k)))
        .fold((0, f64::INFINITY), |b, p| if p.1 < b.1 { p } else { b })
        .0;
    let a = grid[best.saturating_sub(1)];
    let b = grid[(best + 1).min(steps)];
    golden_section(loss, a, b, 1e-7 * b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LossKind, Sigmoid};

    #[test]
    fn golden_section_finds_an_asymmetric_minimum() {
        let (x, _) = golden_section(|x: f64| x.exp() - 3.0 * x, -5.0, 5.0, 1e-10);
        assert!((x - 3f64.ln()).abs() < 1e-8);
    }

    #[test]
    fn fit_k_recovers_the_scale_of_soft_labels() {
        // Labels that are exactly sigma_K*(q) for K* = 1.37: the loss is zero there.
        for sigmoid in [Sigmoid::Logistic, Sigmoid::Tanh] {
            for loss in [LossKind::Mse, LossKind::Xent] {
                let kstar = if sigmoid == Sigmoid::Tanh {
                    0.0043
                } else {
                    1.37
                };
                let truth = Link {
                    sigmoid,
                    k: kstar,
                    loss,
                };
                let q: Vec<f64> = (0..500).map(|i| (i as f64 - 250.0) * 3.1).collect();
                let y: Vec<f64> = q.iter().map(|&q| truth.expect(q)).collect();
                let (k, _) = fit_k_scores(&q, &y, truth);
                assert!(
                    (k - kstar).abs() < 1e-5 * kstar,
                    "{sigmoid:?} {loss:?}: {k}"
                );
            }
        }
    }
}
