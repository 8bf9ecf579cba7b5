//! [`Support::wandering`]: the weights that moved furthest for the data behind them.
//!
//! The measure is `|w_end - w_start| / sqrt(support + 1)`. A weight fitted on `k` rows is
//! known to about `1 / sqrt(k)` of what one row tells (its standard error shrinks like
//! `1 / sqrt(k)`), so a large move on few rows is a move the data cannot vouch for: the
//! measure is the move in those units, and the `+ 1` keeps a weight no row supports finite
//! (ranked by its raw move). It compares weights of like units (centipawns per count);
//! a weight on another scale (a multiplier) ranks by its own units.

use serde::{Deserialize, Serialize};

use super::Support;

/// The rows a run reports (`summary.json`'s `wandering`, the terminal's summary).
pub const WANDERING_TOP: usize = 10;

/// One weight of the wandering report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wanderer {
    /// The weight's name.
    pub name: String,
    /// Its value at the start.
    pub start: f64,
    /// Its value at the end.
    pub end: f64,
    /// `end - start`.
    pub moved: f64,
    /// Rows whose gradient in it was nonzero at the start.
    pub support: u64,
    /// `support` as a share of the rows.
    pub share: f64,
    /// `|moved| / sqrt(support + 1)`, by which the report is ordered.
    pub score: f64,
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
