//! The gate: does a generation's tuned candidate replace the current best weights?
//!
//! The rule, applied to the candidate's pairs against the best (pentanomial counts, the
//! candidate as the first player):
//!
//! 1. SPRT accepts H1 (the candidate is at least `elo1` better): **keep the candidate**.
//! 2. SPRT accepts H0 (it is at most `elo0` better): **keep the best**.
//! 3. Inconclusive when the match reached its cap (`--gate-openings`): by [`Undecided`]. With
//!    [`Undecided::Ahead`] (the default) keep the candidate if its Elo estimate is above 0, else
//!    the best (a tie keeps the best: no change without evidence); with [`Undecided::Reject`]
//!    keep the best.
//! 4. No pair played: keep the best.
//!
//! `Ahead` moves on small, unproven gains; a chain of such gates overstates the gain (on 4ku,
//! three undecided gates chained to +34 while the kept weights measured +2 against the start:
//! experiments/4ku-loop.md). `Reject` keeps only what the SPRT proved, at the cost of
//! generations that change nothing.

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

/// What an undecided gate (the SPRT inconclusive at the cap) keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undecided {
    /// The candidate if its Elo estimate is above 0, else the best.
    #[default]
    Ahead,
    /// The best: only an SPRT acceptance replaces it.
    Reject,
}

impl Undecided {
    /// Whether this is the default, [`Undecided::Ahead`] (for `skip_serializing_if`).
    pub fn is_ahead(&self) -> bool {
        *self == Undecided::Ahead
    }
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
    /// The SPRT was inconclusive at the cap and undecided gates keep the best
    /// ([`Undecided::Reject`]).
    Undecided,
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
            Reason::Undecided => "SPRT inconclusive at the cap, best kept (undecided: reject)",
            Reason::NoGames => "no games",
        }
    }
}

/// The gate's decision on the candidate's pairs against the best (`pairs[k]`: pairs in which
/// the candidate scored `k / 2` points), by the rule in the [module docs](self).
///
/// ```
/// use bootstrap::gate::{decide, Keep, Reason, Undecided};
/// use engine::elo::Sprt;
/// let sprt = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
/// let ahead = Undecided::Ahead;
/// assert_eq!(decide(&sprt, ahead, &[0, 0, 10, 30, 60]), (Keep::New, Reason::SprtH1));
/// assert_eq!(decide(&sprt, ahead, &[0, 1, 2, 1, 0]), (Keep::Old, Reason::EloNotAboveZero));
/// assert_eq!(decide(&sprt, ahead, &[0, 1, 2, 2, 0]), (Keep::New, Reason::EloAboveZero));
/// let reject = Undecided::Reject;
/// assert_eq!(decide(&sprt, reject, &[0, 1, 2, 2, 0]), (Keep::Old, Reason::Undecided));
/// ```
pub fn decide(sprt: &Sprt, undecided: Undecided, pairs: &[u64; 5]) -> (Keep, Reason) {
    let Some(e) = pentanomial(pairs) else {
        return (Keep::Old, Reason::NoGames);
    };
    match sprt.verdict(sprt.llr(&e)) {
        SprtVerdict::AcceptH1 => (Keep::New, Reason::SprtH1),
        SprtVerdict::AcceptH0 => (Keep::Old, Reason::SprtH0),
        SprtVerdict::Continue if undecided == Undecided::Reject => (Keep::Old, Reason::Undecided),
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
            decide(&SPRT, Undecided::Ahead, &[2, 5, 20, 40, 60]),
            (Keep::New, Reason::SprtH1)
        );
        // Far worse: H0.
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[60, 40, 20, 5, 2]),
            (Keep::Old, Reason::SprtH0)
        );
        // Exactly even over many pairs: H0 (Elo 0 is H0's value).
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[0, 600, 800, 600, 0]),
            (Keep::Old, Reason::SprtH0)
        );
    }

    #[test]
    fn inconclusive_goes_by_the_sign_of_the_elo() {
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[1, 2, 3, 3, 1]),
            (Keep::New, Reason::EloAboveZero)
        );
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[1, 3, 3, 2, 1]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
        // A tie keeps the best.
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[1, 2, 4, 2, 1]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
    }

    #[test]
    fn reject_keeps_the_best_when_undecided_and_nothing_else_changes() {
        let r = Undecided::Reject;
        assert_eq!(
            decide(&SPRT, r, &[1, 2, 3, 3, 1]),
            (Keep::Old, Reason::Undecided)
        );
        assert_eq!(
            decide(&SPRT, r, &[0, 0, 0, 0, 4]),
            (Keep::Old, Reason::Undecided)
        );
        assert_eq!(
            decide(&SPRT, r, &[2, 5, 20, 40, 60]),
            (Keep::New, Reason::SprtH1)
        );
        assert_eq!(
            decide(&SPRT, r, &[60, 40, 20, 5, 2]),
            (Keep::Old, Reason::SprtH0)
        );
        assert_eq!(decide(&SPRT, r, &[0; 5]), (Keep::Old, Reason::NoGames));
    }

    #[test]
    fn zero_variance_and_no_games() {
        // Every pair the same: no variance, LLR 0, the Elo decides.
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[0, 0, 0, 0, 4]),
            (Keep::New, Reason::EloAboveZero)
        );
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[4, 0, 0, 0, 0]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[0, 0, 5, 0, 0]),
            (Keep::Old, Reason::EloNotAboveZero)
        );
        assert_eq!(
            decide(&SPRT, Undecided::Ahead, &[0; 5]),
            (Keep::Old, Reason::NoGames)
        );
    }
}
