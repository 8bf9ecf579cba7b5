//! The loop's Elo chain: the accepted gates' head-to-head estimates added up, with a 95%
//! interval.
//!
//! Each accepted gate measured its candidate against the weights it replaced; the sum over
//! the accepted gates is the chain's estimate of the kept weights over generation 0 (not a
//! match against generation 0: `tune match` plays one). The gates are independent matches,
//! so the variances add: each side of the interval is the root of the sum of the squares of
//! the gates' half-widths on that side (the pentanomial intervals are not symmetric). A gate
//! whose estimate or interval is infinite (every game won or lost) leaves the chain's
//! interval unbounded.

use engine::play::matches::MatchRecord;

/// The accepted gates' Elo so far, and the squared half-widths of their intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Chain {
    /// The sum of the estimates.
    pub elo: f64,
    /// The sum of the squared distances from the estimates to their lower ends.
    down: f64,
    /// The sum of the squared distances from the estimates to their upper ends.
    up: f64,
    /// A gate's estimate or interval was infinite.
    unbounded: bool,
}

impl Chain {
    /// Adds an accepted gate's match.
    ///
    /// ```
    /// use bootstrap::external::Chain;
    /// use engine::play::matches::MatchRecord;
    /// let gate = |elo: f64, lo: f64, hi: f64| MatchRecord {
    ///     opponent: "gen 0".into(), openings: 100, games: 200, nodes: Some(300),
    ///     wins: 0, draws: 0, losses: 0, pairs: [0; 5], time_losses: [0, 0], score: None,
    ///     elo: Some(elo), interval: Some((Some(lo), Some(hi))), sprt: None,
    /// };
    /// let mut c = Chain::default();
    /// c.add(&gate(10.0, 0.0, 20.0));
    /// c.add(&gate(5.0, -1.0, 13.0));
    /// assert_eq!(c.elo, 15.0);
    /// assert!((c.lower().unwrap() - (15.0 - (100.0f64 + 36.0).sqrt())).abs() < 1e-9);
    /// assert!((c.upper().unwrap() - (15.0 + (100.0f64 + 64.0).sqrt())).abs() < 1e-9);
    /// ```
    pub fn add(&mut self, m: &MatchRecord) {
        match (m.elo, m.interval) {
            (Some(e), Some((Some(lo), Some(hi)))) => {
                self.elo += e;
                self.down += (e - lo).powi(2);
                self.up += (hi - e).powi(2);
            }
            (e, _) => {
                self.elo += e.unwrap_or(0.0);
                self.unbounded = true;
            }
        }
    }

    /// The interval's lower end (`None`: unbounded).
    pub fn lower(&self) -> Option<f64> {
        (!self.unbounded).then(|| self.elo - self.down.sqrt())
    }

    /// The interval's upper end (`None`: unbounded).
    pub fn upper(&self) -> Option<f64> {
        (!self.unbounded).then(|| self.elo + self.up.sqrt())
    }

    /// `+15 [-1, +28]`, the ends `-inf` and `+inf` when unbounded.
    pub fn describe(&self) -> String {
        let end = |x: Option<f64>, inf: &str| x.map_or(inf.to_string(), |v| format!("{v:+.0}"));
        format!(
            "{:+.0} [{}, {}]",
            self.elo + 0.0,
            end(self.lower(), "-inf"),
            end(self.upper(), "+inf")
        )
    }
}
