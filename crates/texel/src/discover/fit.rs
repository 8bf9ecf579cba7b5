//! The fit of one or more groups on top of the frozen base scores (`optim::small_fit`), and the
//! held-out positions' paired loss differences.
//!
//! Group `g`'s element `e` has two parameters, `2 e` (middlegame) and `2 e + 1` (endgame),
//! after the groups before it; a position's row is `net_e * rho` and `net_e * (1 - rho)`.

use optim::small_fit::{fit_small, SmallFitOptions, SparseRows};
use optim::Link;
use rayon::prelude::*;
use tapered::Stop;

use super::features::Features;
use super::positions::Positions;
use crate::TexelError;

/// Positions with the features of some groups: the rows of a fit.
pub(crate) struct Design<'a> {
    pub pos: &'a Positions,
    /// Each group's features and its first parameter.
    pub groups: Vec<(&'a Features, u32)>,
}

impl Design<'_> {
    /// The score of position `i` with parameters `theta` (`scratch` holds the row).
    pub fn score(&self, i: usize, theta: &[f64], scratch: &mut Vec<(u32, f64)>) -> f64 {
        let (o, _) = self.row(i, scratch);
        o + scratch
            .iter()
            .map(|&(j, x)| x * theta[j as usize])
            .sum::<f64>()
    }
}

impl SparseRows for Design<'_> {
    fn len(&self) -> usize {
        self.pos.len()
    }

    fn row(&self, i: usize, out: &mut Vec<(u32, f64)>) -> (f64, f64) {
        out.clear();
        let rho = f64::from(self.pos.rho[i]);
        for (f, first) in &self.groups {
            for &(e, net) in f.row(i) {
                let net = f64::from(net);
                out.push((first + 2 * e, net * rho));
                out.push((first + 2 * e + 1, net * (1.0 - rho)));
            }
        }
        (self.pos.base[i], f64::from(self.pos.result[i]))
    }
}

/// The layout of groups of `sizes` elements: each group's first parameter and the total.
pub(crate) fn layout(sizes: &[usize]) -> (Vec<u32>, usize) {
    let mut firsts = Vec::with_capacity(sizes.len());
    let mut next = 0usize;
    for s in sizes {
        firsts.push(next as u32);
        next += 2 * s;
    }
    (firsts, next)
}

/// Fits groups (features `feats` of `sizes` elements) jointly on `pos` (their base scores
/// frozen) with the link `link`, from `start` (the first groups' values; the rest from 0), with
/// the ridge `l2` positions' worth of curvature at an even score (see `docs/discover.md`).
/// Group `g`'s element `e` is parameters `2 e` (mg) and `2 e + 1` (eg) after the groups before.
pub fn fit(
    pos: &Positions,
    feats: &[&Features],
    sizes: &[usize],
    link: Link,
    l2: f64,
    start: &[f64],
    stop: Stop,
) -> Result<Vec<f64>, TexelError> {
    let design = design(pos, feats, sizes);
    let (_, p) = layout(sizes);
    let ridge = vec![l2 * link.curvature(0.0); p];
    let opts = SmallFitOptions {
        start: start.to_vec(),
        ..SmallFitOptions::new(link, ridge)
    };
    let f = fit_small(&design, p, &opts, stop).map_err(|_| TexelError::Stopped)?;
    Ok(f.theta)
}

/// The design of `feats` laid out by `sizes` (not by the elements seen).
pub(crate) fn design<'a>(
    pos: &'a Positions,
    feats: &[&'a Features],
    sizes: &[usize],
) -> Design<'a> {
    let (firsts, _) = layout(sizes);
    Design {
        pos,
        groups: feats.iter().copied().zip(firsts).collect(),
    }
}

/// Every position's paired loss difference: the loss of `reference` (its design and
/// parameters) less the loss of `candidate`'s; positive where the candidate predicts better.
pub(crate) fn differences(
    reference: (&Design, &[f64]),
    candidate: (&Design, &[f64]),
    link: Link,
) -> Vec<f64> {
    let n = reference.0.pos.len();
    (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map_init(Vec::new, |e, i| {
            let y = f64::from(reference.0.pos.result[i]);
            let a = link.loss_value(reference.0.score(i, reference.1, e), y);
            let b = link.loss_value(candidate.0.score(i, candidate.1, e), y);
            a - b
        })
        .collect()
}
