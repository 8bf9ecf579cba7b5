//! The gate: does a generation's tuned candidate replace the current best weights?
//!
//! The rule, applied to the candidate's pairs against the best (pentanomial counts, the
//! candidate as the first player):
//!
//! 1. SPRT accepts H1 (the candidate is at least `elo1` better): **keep the candidate**.
//! 2. SPRT accepts H0 (it is at most `elo0` better): **keep the best**.
//! 3. Inconclusive when the match reached its cap (`--gate-openings`): keep the candidate if
//!    its Elo estimate is above 0, else the best (a tie keeps the best: no change without
//!    evidence).
//! 4. No pair played: keep the best.

use engine::elo::{pentanomial, Sprt, SprtVerdict};
use serde::{Deserialize, Serialize};

/// Which weights a generation keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// The newly tuned candidate.
    New,
    /// The current best (the candidate is discarded).
    Old,
}

/// Why the gate decided as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The SPRT accepted H1.
    SprtH1,
    /// The SPRT accepted H0.
    SprtH0,
    /// The SPRT was inconclusive at the cap; the Elo estimate was above 0.
    EloAboveZero,
    /// The SPRT was inconclusive at the cap; the Elo estimate was 0 or below.
    EloNotAboveZero,
    /// No pair was played.
    NoGames,
}

impl Reason {
    /// A few words for people.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::SprtH1 => "SPRT accepted H1",
            Reason::SprtH0 => "SPRT accepted H0",
            Reason::EloAboveZero => "SPRT inconclusive at the cap, Elo > 0",
            Reason::EloNotAboveZero => "SPRT inconclusive at the cap, Elo <= 0",
            Reason::NoGames => "no games",
        }
    }
}

/// The gate's decision on the candidate's pairs against the best (`pairs[k]`: pairs in which
/// the candidate scored `k / 2` points), by the rule in the [module docs](self).
///
/// ```
/// use bootstrap::gate::{decide, Keep, Reason};
/// use engine::elo::Sprt;
/// let sprt = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
/// assert_eq!(decide(&sprt, &[0, 0, 10, 30, 60]), (Keep::New, Reason::SprtH1));
/// assert_eq!(decide(&sprt, &[0, 1, 2, 1, 0]), (Keep::Old, Reason::EloNotAboveZero));
/// ```
pub fn decide(sprt: &Sprt, pairs: &[u64; 5]) -> (Keep, Reason) {
    let Some(e) = pentanomial(pairs) else {
        return (Keep::Old, Reason::NoGames);
    };
    match sprt.verdict(sprt.llr(&e)) {
        SprtVerdict::AcceptH1 => (Keep::New, Reason::SprtH1),
        SprtVerdict::AcceptH0 => (Keep::Old, Reason::SprtH0),
        SprtVerdict::Continue if e.elo > 0.0 => (Keep::New, Reason::EloAboveZero),
        SprtVerdict::Continue => (Keep::Old, Reason::EloNotAboveZero),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPRT: Sprt = Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };

    #[test]
    fn sprt_verdicts_decide() {
        // Far better: H1.
        assert_eq!(
            decide(&SPRT, &[2, 5, 20, 40, 60]),
            (Keep::New, Reason::SprtH1)
        );
        // Far worse: H0.
        assert_eq!(
            decide(&SPRT, &[60, 40, 20, 5, 2]),
            (Keep::Old, Reason::SprtH0)
        );
        // Exactly even over many pairs: H0 (Elo 0 is H0's value).
        assert_eq!(
            decide(&SPRT, &[0, 600, 800, 600, 0]),
            (Keep::Old, Reason::SprtH0)
        );
    }

    #[test]
    fn inconclusive_goes_by_the_sign_of_the_elo() {
        assert_eq!(
            decide(&SPRT, &[1, 2, 3, 3, 1]),
            (Keep::New, Reason::EloAboveZero)
        );
        assert_eq!(
            decide(&SPRT, &[1, 3, 3, 2, 1]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
        // A tie keeps the best.
        assert_eq!(
            decide(&SPRT, &[1, 2, 4, 2, 1]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
    }

    #[test]
    fn zero_variance_and_no_games() {
        // Every pair the same: no variance, LLR 0, the Elo decides.
        assert_eq!(
            decide(&SPRT, &[0, 0, 0, 0, 4]),
            (Keep::New, Reason::EloAboveZero)
        );
        assert_eq!(
            decide(&SPRT, &[4, 0, 0, 0, 0]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
        assert_eq!(
            decide(&SPRT, &[0, 0, 5, 0, 0]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
        assert_eq!(decide(&SPRT, &[0; 5]), (Keep::Old, Reason::NoGames));
    }
}
