//! A summary of a set of labelled positions: games, mean result, scores, game phases (what
//! `tune stats` prints).
//!
//! ```
//! use data::{stats::Summary, Sample};
//! use shakmaty::Chess;
//! let s = [Sample::from_position(&Chess::default(), 1.0, Some(20.0), 0),
//!          Sample::from_position(&Chess::default(), 0.0, None, 1)];
//! let sum = Summary::of(&s);
//! assert_eq!((sum.positions, sum.games), (2, 2));
//! assert_eq!(sum.mean_result, 0.5);
//! assert_eq!(sum.phases[24], 2, "the start position has every piece");
//! assert!(sum.to_string().contains("games:          2"));
//! ```

use std::fmt;

use crate::Sample;

/// What [`Summary::of`] finds in a set of samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Positions.
    pub positions: usize,
    /// Distinct game ids.
    pub games: usize,
    /// Mean result, White's view (0 for no positions).
    pub mean_result: f64,
    /// Mean and standard deviation of the scores, for the positions that have one.
    pub scores: Option<(f64, f64)>,
    /// Positions by game phase (24: every piece on the board; 0: pawns and kings).
    pub phases: [u64; 25],
}

impl Summary {
    /// The summary of `samples`.
    pub fn of(samples: &[Sample]) -> Summary {
        let n = samples.len();
        let mut games: Vec<u32> = samples.iter().map(|s| s.game).collect();
        games.sort_unstable();
        games.dedup();
        let mean_result = samples.iter().map(|s| s.result).sum::<f64>() / n.max(1) as f64;
        let scores: Vec<f64> = samples
            .iter()
            .filter_map(|s| s.score.map(f64::from))
            .collect();
        let scores = (!scores.is_empty()).then(|| {
            let m = scores.iter().sum::<f64>() / scores.len() as f64;
            let var = scores.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / scores.len() as f64;
            (m, var.sqrt())
        });
        let mut phases = [0u64; 25];
        for s in samples {
            phases[usize::from(s.board.phase()).min(24)] += 1;
        }
        Summary {
            positions: n,
            games: games.len(),
            mean_result,
            scores,
            phases,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "games:          {}", self.games)?;
        writeln!(f, "mean result:    {:.4} (White's view)", self.mean_result)?;
        if let Some((m, sd)) = self.scores {
            writeln!(f, "score mean/sd:  {m:.1} / {sd:.1} cp (White's view)")?;
        }
        let max = self.phases.iter().copied().max().unwrap_or(0).max(1);
        writeln!(f, "phase histogram (24 = all pieces, 0 = pawns and kings):")?;
        for (p, &c) in self.phases.iter().enumerate().rev() {
            let bar = "#".repeat((50 * c / max) as usize);
            let pct = 100.0 * c as f64 / self.positions.max(1) as f64;
            writeln!(f, "  {p:>2} {c:>9} {pct:>5.1}% {bar}")?;
        }
        Ok(())
    }
}
