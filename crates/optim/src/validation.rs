//! [`Tracker`]: which iterate a run keeps, by a selection rule with statistics behind it, and
//! early stopping.
//!
//! The rule ([`Selection::WithinNoise`], the default): keep the **latest** iterate whose
//! validation loss is not worse than the lowest seen by more than `z` standard errors of the
//! difference. The difference is paired (the same validation positions at both iterates) and
//! its standard error is the cluster-robust one over games: positions of one game are
//! correlated, so a game, not a position, is one sample. An earlier iterate is therefore
//! preferred only when it is better by more than the noise; on a flat validation curve the
//! run keeps its converged weights instead of an early, shrunk iterate that won on noise.
//! [`Selection::Lowest`] is the plain rule (the lowest validation loss, however small the
//! margin).

use serde::{Deserialize, Serialize};

/// How a run chooses the weights it keeps among its iterates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum Selection {
    /// The iterate with the lowest validation loss.
    Lowest,
    /// The latest iterate whose validation loss exceeds the lowest by at most `z` standard
    /// errors of the paired difference.
    WithinNoise {
        /// How many standard errors of noise an earlier iterate must beat.
        z: f64,
    },
}

impl Default for Selection {
    fn default() -> Self {
        Selection::WithinNoise { z: 2.0 }
    }
}

impl Selection {
    /// The rule's name as the command line and the summary spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Selection::Lowest => "lowest",
            Selection::WithinNoise { .. } => "within-noise",
        }
    }
}

/// A paired comparison of two iterates on the validation split.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// The later iterate.
    pub iter: u64,
    /// Its mean loss minus the lowest's.
    pub mean: f64,
    /// The standard error of that difference (clustered by game).
    pub stderr: f64,
}

/// Which iterate was kept and why (written to the summary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The rule.
    pub selection: Selection,
    /// The iterate kept.
    pub kept_iter: u64,
    /// Its loss (validation, or the training objective without a validation split).
    pub kept_loss: f64,
    /// The iterate with the lowest loss.
    pub lowest_iter: u64,
    /// The lowest loss.
    pub lowest_loss: f64,
    /// The kept iterate against the lowest (`None` when they are the same iterate).
    pub kept_vs_lowest: Option<Difference>,
    /// The latest iterate that was worse than the lowest by more than the noise, if any.
    pub last_rejected: Option<Difference>,
    /// Independent samples behind the standard errors (games; positions when the data has no
    /// games), `0` without per-position losses.
    pub samples: usize,
}

impl Decision {
    /// One line for people: which rule decided and by how much.
    pub fn to_text(&self) -> String {
        let z = match self.selection {
            Selection::WithinNoise { z } => z,
            Selection::Lowest => 0.0,
        };
        let mut s = match (&self.selection, &self.kept_vs_lowest) {
            (Selection::Lowest, _) | (_, None) => format!(
                "kept iteration {} ({}: the lowest loss, {:.6})",
                self.kept_iter,
                self.selection.name(),
                self.kept_loss
            ),
            (Selection::WithinNoise { .. }, Some(d)) => format!(
                "kept iteration {} ({}: {:+.2e} +/- {:.2e} from the lowest, iteration {} at \
                 {:.6}, within {z} standard errors over {} samples)",
                self.kept_iter,
                self.selection.name(),
                d.mean,
                d.stderr,
                self.lowest_iter,
                self.lowest_loss,
                self.samples
            ),
        };
        if let Some(r) = &self.last_rejected {
            s += &format!(
                "; iteration {} was worse by {:+.2e} +/- {:.2e}, beyond the noise",
                r.iter, r.mean, r.stderr
            );
        }
        s
    }
}

/// What the tracker remembers of one iterate.
#[derive(Clone, Debug)]
struct Iterate {
    iter: u64,
    loss: f64,
    weights: Vec<f64>,
}

/// Keeps the weights a run returns, by its [`Selection`] rule, and counts the iterates since
/// the kept one changed (early stopping).
///
/// ```
/// let mut t = optim::Tracker::new(Some(2));
/// assert!(t.offer(1, 0.30, &[1.0]));
/// assert!(t.offer(2, 0.25, &[2.0]));
/// assert!(!t.offer(3, 0.26, &[3.0]));
/// assert!(!t.should_stop());
/// assert!(!t.offer(4, 0.27, &[4.0]));
/// assert!(t.should_stop()); // patience 2 exhausted
/// assert_eq!(t.best_weights(), Some(&[2.0][..]));
/// assert_eq!(t.best_iter(), Some(2));
/// ```
///
/// With per-position losses the rule looks at the noise (here four games of two positions):
///
/// ```
/// let games = [0, 0, 1, 1, 2, 2, 3, 3];
/// let mut t = optim::Tracker::new(None).with_groups(&games);
/// t.offer_losses(1, &[0.20, 0.21, 0.19, 0.20, 0.22, 0.18, 0.20, 0.20], &[1.0]);
/// // Worse on average by 0.0025, but game by game the sign changes: within the noise.
/// t.offer_losses(2, &[0.21, 0.22, 0.18, 0.19, 0.23, 0.19, 0.21, 0.20], &[2.0]);
/// assert_eq!(t.best_iter(), Some(2));
/// // Worse in every game by 0.05: beyond the noise, so iteration 2 stays.
/// t.offer_losses(3, &[0.26, 0.27, 0.23, 0.24, 0.28, 0.24, 0.26, 0.25], &[3.0]);
/// assert_eq!(t.best_iter(), Some(2));
/// assert_eq!(t.decision().unwrap().lowest_iter, 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    selection: Selection,
    patience: Option<usize>,
    /// Dense group index of each position and the number of groups (`None`: each position
    /// is its own group).
    groups: Option<(Vec<u32>, usize)>,
    lowest: Option<Iterate>,
    /// Per-position losses of the lowest iterate.
    lowest_losses: Vec<f64>,
    kept: Option<Iterate>,
    kept_vs_lowest: Option<Difference>,
    last_rejected: Option<Difference>,
    since: usize,
}

impl Tracker {
    /// A tracker with the default rule that asks to stop after `patience` iterates without a
    /// change of the kept one (`None`: never).
    pub fn new(patience: Option<usize>) -> Self {
        Tracker {
            patience,
            ..Tracker::default()
        }
    }

    /// Uses `rule` to choose the kept iterate.
    pub fn with_selection(mut self, rule: Selection) -> Self {
        self.selection = rule;
        self
    }

    /// Positions' groups (games) for [`offer_losses`](Self::offer_losses): the standard error
    /// counts a group as one sample. When every position is in one group (no game ids), each
    /// position counts as its own sample.
    pub fn with_groups(mut self, groups: &[u32]) -> Self {
        let mut dense = std::collections::HashMap::new();
        let ids: Vec<u32> = groups
            .iter()
            .map(|g| {
                let n = dense.len() as u32;
                *dense.entry(*g).or_insert(n)
            })
            .collect();
        let g = dense.len();
        self.groups = (g > 1).then_some((ids, g));
        self
    }

    /// The rule.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// Offers iteration `iter` with one loss (no per-position losses, so no noise estimate:
    /// the lowest wins); returns whether it is now the kept iterate. A non-finite loss is
    /// never kept.
    pub fn offer(&mut self, iter: u64, loss: f64, weights: &[f64]) -> bool {
        let lower = loss.is_finite() && self.lowest.as_ref().is_none_or(|b| loss < b.loss);
        if lower {
            self.set_lowest(iter, loss, weights, Vec::new());
        } else {
            self.since += 1;
        }
        lower
    }

    /// Offers iteration `iter` with its loss on each validation position (in the order given
    /// to [`with_groups`](Self::with_groups)); returns whether it is now the kept iterate.
    pub fn offer_losses(&mut self, iter: u64, losses: &[f64], weights: &[f64]) -> bool {
        let n = losses.len();
        let loss = losses.iter().sum::<f64>() / n.max(1) as f64;
        if !loss.is_finite() || n == 0 {
            self.since += 1;
            return false;
        }
        if self.lowest.as_ref().is_none_or(|b| loss < b.loss) {
            self.set_lowest(iter, loss, weights, losses.to_vec());
            return true;
        }
        let z = match self.selection {
            Selection::Lowest => {
                self.since += 1;
                return false;
            }
            Selection::WithinNoise { z } => z,
        };
        let Some(d) = self.difference(iter, losses) else {
            self.since += 1;
            return false;
        };
        if d.mean <= z * d.stderr {
            self.kept = Some(Iterate {
                iter,
                loss,
                weights: weights.to_vec(),
            });
            self.kept_vs_lowest = Some(d);
            self.since = 0;
            true
        } else {
            self.last_rejected = Some(d);
            self.since += 1;
            false
        }
    }

    fn set_lowest(&mut self, iter: u64, loss: f64, weights: &[f64], losses: Vec<f64>) {
        let it = Iterate {
            iter,
            loss,
            weights: weights.to_vec(),
        };
        self.lowest = Some(it.clone());
        self.lowest_losses = losses;
        self.kept = Some(it);
        self.kept_vs_lowest = None;
        self.since = 0;
    }

    /// The paired difference of `losses` against the lowest iterate's, with its clustered
    /// standard error; `None` when the two were measured on different positions.
    fn difference(&self, iter: u64, losses: &[f64]) -> Option<Difference> {
        let base = &self.lowest_losses;
        let n = losses.len();
        if base.len() != n || n == 0 {
            return None;
        }
        let diffs = losses.iter().zip(base).map(|(a, b)| a - b);
        let (sums, counts): (Vec<f64>, Vec<f64>) = match &self.groups {
            Some((ids, g)) if ids.len() == n => {
                let mut sums = vec![0.0; *g];
                let mut counts = vec![0.0; *g];
                for (d, &k) in diffs.zip(ids) {
                    sums[k as usize] += d;
                    counts[k as usize] += 1.0;
                }
                (sums, counts)
            }
            _ => (diffs.collect(), vec![1.0; n]),
        };
        let mean = sums.iter().sum::<f64>() / n as f64;
        let g = sums.len() as f64;
        let stderr = if g < 2.0 {
            f64::INFINITY
        } else {
            let ss: f64 = sums
                .iter()
                .zip(&counts)
                .map(|(s, c)| (s - c * mean).powi(2))
                .sum();
            (g / (g - 1.0) * ss).sqrt() / n as f64
        };
        Some(Difference { iter, mean, stderr })
    }

    /// The independent samples behind the standard errors.
    fn samples(&self) -> usize {
        match &self.groups {
            Some((_, g)) => *g,
            None => self.lowest_losses.len(),
        }
    }

    /// Counts `n` more iterates that did not change the kept one (to carry patience across a
    /// rebuilt tracker).
    pub fn skip(&mut self, n: usize) {
        self.since += n;
    }

    /// Whether the patience is exhausted.
    pub fn should_stop(&self) -> bool {
        self.patience.is_some_and(|p| self.since >= p)
    }

    /// The kept iterate's loss.
    pub fn best_loss(&self) -> Option<f64> {
        self.kept.as_ref().map(|b| b.loss)
    }

    /// The kept weights.
    pub fn best_weights(&self) -> Option<&[f64]> {
        self.kept.as_ref().map(|b| b.weights.as_slice())
    }

    /// The kept iteration.
    pub fn best_iter(&self) -> Option<u64> {
        self.kept.as_ref().map(|b| b.iter)
    }

    /// The iterate with the lowest loss and its weights.
    pub fn lowest(&self) -> Option<(u64, &[f64])> {
        self.lowest.as_ref().map(|b| (b.iter, b.weights.as_slice()))
    }

    /// Which iterate is kept and why.
    pub fn decision(&self) -> Option<Decision> {
        let (kept, lowest) = (self.kept.as_ref()?, self.lowest.as_ref()?);
        Some(Decision {
            selection: self.selection,
            kept_iter: kept.iter,
            kept_loss: kept.loss,
            lowest_iter: lowest.iter,
            lowest_loss: lowest.loss,
            kept_vs_lowest: self.kept_vs_lowest,
            last_rejected: self.last_rejected.filter(|r| r.iter > kept.iter),
            samples: if self.lowest_losses.is_empty() {
                0
            } else {
                self.samples()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_rule_keeps_the_minimum_however_small_the_margin() {
        let mut t = Tracker::new(None).with_selection(Selection::Lowest);
        t.offer_losses(1, &[0.1, 0.2], &[1.0]);
        t.offer_losses(2, &[0.1, 0.2000001], &[2.0]);
        assert_eq!(t.best_iter(), Some(1));
    }

    #[test]
    fn a_flat_curve_keeps_the_latest_iterate() {
        // 200 games of 5 positions; iterates that differ by tiny amounts of both signs.
        let groups: Vec<u32> = (0..1000).map(|i| i / 5).collect();
        let mut t = Tracker::new(None).with_groups(&groups);
        for it in 1..=20u64 {
            let losses: Vec<f64> = (0..1000)
                .map(|i| {
                    let wobble = (((i * 7 + it as usize * 13) % 11) as f64 - 5.0) * 1e-4;
                    0.1 + wobble
                })
                .collect();
            t.offer_losses(it, &losses, &[it as f64]);
        }
        assert_eq!(t.best_iter(), Some(20));
        let d = t.decision().unwrap();
        assert!(d.samples == 200);
    }

    #[test]
    fn a_rising_curve_keeps_the_minimum() {
        let groups: Vec<u32> = (0..400).map(|i| i / 4).collect();
        let mut t = Tracker::new(Some(3)).with_groups(&groups);
        for it in 1..=10u64 {
            // Falls to iteration 4, then rises by 1e-3 per iterate in every position.
            let level = 0.1 + 1e-3 * (it as f64 - 4.0).abs();
            let losses: Vec<f64> = (0..400).map(|i| level + ((i % 3) as f64) * 1e-4).collect();
            t.offer_losses(it, &losses, &[it as f64]);
            if t.should_stop() {
                break;
            }
        }
        assert_eq!(t.best_iter(), Some(4));
        assert!(t.should_stop());
        let d = t.decision().unwrap();
        assert_eq!(d.lowest_iter, 4);
        assert!(d.last_rejected.is_some_and(|r| r.iter == 7 && r.mean > 0.0));
    }

    #[test]
    fn games_not_positions_are_the_samples() {
        // Two games; one gets better, one worse, each by the same amount in all its
        // positions: per position the difference looks certain, per game it is noise.
        let groups: Vec<u32> = (0..200).map(|i| u32::from(i >= 100)).collect();
        let base: Vec<f64> = vec![0.2; 200];
        let later: Vec<f64> = (0..200)
            .map(|i| if i < 100 { 0.2 + 2e-3 } else { 0.2 - 1e-3 })
            .collect();
        let mut clustered = Tracker::new(None).with_groups(&groups);
        clustered.offer_losses(1, &base, &[1.0]);
        assert!(clustered.offer_losses(2, &later, &[2.0]));
        let mut per_position = Tracker::new(None);
        per_position.offer_losses(1, &base, &[1.0]);
        assert!(!per_position.offer_losses(2, &later, &[2.0]));
    }

    #[test]
    fn non_finite_losses_are_never_kept() {
        let mut t = Tracker::new(None);
        assert!(!t.offer(1, f64::NAN, &[1.0]));
        assert!(!t.offer_losses(2, &[f64::INFINITY], &[2.0]));
        assert_eq!(t.best_iter(), None);
        assert!(t.offer(3, 0.5, &[3.0]));
    }
}
