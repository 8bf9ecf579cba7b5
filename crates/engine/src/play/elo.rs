//! Match arithmetic: score, Elo difference with a 95% interval (trinomial or pentanomial
//! variance), and the GSPRT log-likelihood ratio for a sequential test.
//!
//! All use the logistic Elo model: an Elo difference `e` gives the expected score
//! `1 / (1 + 10^(-e / 400))`, so `e = -400 log10(1 / s - 1)`.

use serde::{Deserialize, Serialize};

/// The 97.5% quantile of the standard normal distribution (two-sided 95% interval).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Expected score of an Elo difference.
///
/// ```
/// assert!((engine::play::elo::expected_score(0.0) - 0.5).abs() < 1e-12);
/// ```
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference of a score in `(0, 1)`; `±∞` at the ends.
///
/// ```
/// assert_eq!(engine::play::elo::elo_from_score(0.5), 0.0);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// An Elo estimate with its 95% confidence interval.
///
/// ```
/// // 100 pairs: A scored 2 points in 30, 1½ in 30, 1 in 30, ½ in 10.
/// let e = engine::play::elo::pentanomial(&[0, 10, 30, 30, 30]).unwrap();
/// assert_eq!(e.n, 100.0);
/// assert!((e.score - 0.7).abs() < 1e-12);
/// assert!(e.lower < e.elo && e.elo < e.upper && e.margin() > 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Mean score per game (0..1).
    pub score: f64,
    /// Variance of one observation (a game, or a pair's mean score for the pentanomial model).
    pub variance: f64,
    /// Number of observations (games or pairs).
    pub n: f64,
    /// Elo difference.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lower: f64,
    /// Upper end of the 95% interval.
    pub upper: f64,
}

impl EloEstimate {
    fn from_moments(score: f64, variance: f64, n: f64) -> Self {
        let se = (variance / n).sqrt();
        Self {
            score,
            variance,
            n,
            elo: elo_from_score(score),
            lower: elo_from_score(score - Z95 * se),
            upper: elo_from_score(score + Z95 * se),
        }
    }

    /// Standard error of the mean score.
    pub fn stderr(&self) -> f64 {
        (self.variance / self.n).sqrt()
    }

    /// `±` half-width of the interval in Elo (the larger side).
    pub fn margin(&self) -> f64 {
        (self.upper - self.elo).max(self.elo - self.lower)
    }
}

/// Elo from wins, draws and losses, with the trinomial variance (games treated as
/// independent). `None` when no game was played.
///
/// ```
/// let e = engine::play::elo::trinomial(60, 20, 20).unwrap();
/// assert!((e.elo - 147.190_714_117_837_76).abs() < 1e-9);
/// ```
pub fn trinomial(wins: u64, draws: u64, losses: u64) -> Option<EloEstimate> {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return None;
    }
    let (w, d, l) = (wins as f64, draws as f64, losses as f64);
    let s = (w + 0.5 * d) / n;
    let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
    Some(EloEstimate::from_moments(s, var, n))
}

/// Elo from game pairs: `pairs[k]` counts pairs (same opening, colours swapped) in which the
/// first player scored `k / 2` points (k = 0..4). Pentanomial variance: correct for paired
/// games, whose results are correlated through the shared opening.
pub fn pentanomial(pairs: &[u64; 5]) -> Option<EloEstimate> {
    let n: u64 = pairs.iter().sum();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let x = |k: usize| k as f64 / 4.0;
    let s = pairs
        .iter()
        .enumerate()
        .map(|(k, &c)| c as f64 * x(k))
        .sum::<f64>()
        / n;
    let var = pairs
        .iter()
        .enumerate()
        .map(|(k, &c)| c as f64 * (x(k) - s).powi(2))
        .sum::<f64>()
        / n;
    Some(EloEstimate::from_moments(s, var, n))
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`.
///
/// ```
/// use engine::play::elo::{pentanomial, Sprt, SprtVerdict};
/// let sprt = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
/// let (lower, upper) = sprt.bounds();
/// assert!((upper - 2.944).abs() < 1e-3 && (lower + 2.944).abs() < 1e-3);
/// // A clearly stronger A: H1 accepted.
/// let e = pentanomial(&[0, 10, 30, 30, 30]).unwrap();
/// assert_eq!(sprt.verdict(sprt.llr(&e)), SprtVerdict::AcceptH1);
/// // No games' worth of evidence either way: keep playing.
/// assert_eq!(sprt.verdict(0.0), SprtVerdict::Continue);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// What an SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// LLR above the upper bound: accept H1.
    AcceptH1,
    /// LLR below the lower bound: accept H0.
    AcceptH0,
    /// Keep playing.
    Continue,
}

impl Sprt {
    /// Checks the test's parameters, as every command that runs an SPRT does (`tune match`,
    /// `tune loop`, `tune bootstrap`): `alpha` and `beta` in (0, 0.5) (0 would make a bound
    /// infinite, so the test could never stop that way), `elo0 < elo1`, both finite. The
    /// message names the options as the command line spells them.
    ///
    /// ```
    /// use engine::play::elo::Sprt;
    /// assert!(Sprt { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05 }.check().is_ok());
    /// assert!(Sprt { elo0: 0.0, elo1: 5.0, alpha: 0.0, beta: 0.05 }.check().is_err());
    /// assert!(Sprt { elo0: 5.0, elo1: 5.0, alpha: 0.05, beta: 0.05 }.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), String> {
        let rate = |p: f64| p > 0.0 && p < 0.5;
        if !rate(self.alpha) || !rate(self.beta) {
            return Err(format!(
                "--alpha and --beta must be in (0, 0.5), not {} and {}",
                self.alpha, self.beta
            ));
        }
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return Err(format!(
                "--sprt ELO0,ELO1 needs finite ELO0 < ELO1, not {},{}",
                self.elo0, self.elo1
            ));
        }
        Ok(())
    }

    /// Lower and upper LLR bounds: `ln(β / (1 − α))` and `ln((1 − β) / α)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalised SPRT log-likelihood ratio for an estimate (normal approximation):
    /// `n (s1 − s0)(2ŝ − s0 − s1) / (2σ²)` with `s0`, `s1` the expected scores of `elo0`,
    /// `elo1` and `σ²` the estimate's per-observation variance.
    pub fn llr(&self, e: &EloEstimate) -> f64 {
        if e.variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        e.n * (s1 - s0) * (2.0 * e.score - s0 - s1) / (2.0 * e.variance)
    }

    /// The verdict for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtVerdict::AcceptH1
        } else if llr <= lo {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprt_check_rejects_rates_outside_the_open_interval_and_unordered_elo() {
        let ok = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert_eq!(ok.check(), Ok(()));
        for (alpha, beta) in [
            (0.0, 0.05),
            (0.05, 0.0),
            (0.5, 0.05),
            (f64::NAN, 0.05),
            (0.05, -0.1),
        ] {
            let e = Sprt { alpha, beta, ..ok }.check().unwrap_err();
            assert!(e.contains("--alpha and --beta"), "{e}");
        }
        for (elo0, elo1) in [
            (5.0, 5.0),
            (5.0, 0.0),
            (f64::NAN, 5.0),
            (0.0, f64::INFINITY),
        ] {
            let e = Sprt { elo0, elo1, ..ok }.check().unwrap_err();
            assert!(e.contains("ELO0 < ELO1"), "{e}");
        }
    }

    #[test]
    fn even_score_is_zero_elo() {
        let e = trinomial(10, 30, 10).unwrap();
        assert_eq!(e.elo, 0.0);
        assert!(e.lower < 0.0 && e.upper > 0.0);
        assert!((e.lower + e.upper).abs() < 1e-9, "symmetric about 0");
        assert!(trinomial(0, 0, 0).is_none());
    }

    #[test]
    fn trinomial_matches_hand_computation() {
        // W/D/L = 60/20/20: s = 0.7, Elo = -400 log10(1/0.7 - 1) = 147.19071411783776.
        // Variance per game = (60*0.3² + 20*0.2² + 20*0.7²)/100 = 0.16, se = sqrt(0.16/100)
        // = 0.04, interval s ± 1.959964*0.04 = [0.621601, 0.778399] → [86.2250152, 218.2517776].
        let e = trinomial(60, 20, 20).unwrap();
        assert!((e.score - 0.7).abs() < 1e-12);
        assert!((e.elo - 147.190_714_117_837_76).abs() < 1e-6);
        assert!((e.variance - 0.16).abs() < 1e-12);
        assert!((e.stderr() - 0.04).abs() < 1e-12);
        assert!((e.lower - 86.225_015_200_304_23).abs() < 1e-6);
        assert!((e.upper - 218.251_777_641_074_8).abs() < 1e-6);
    }

    #[test]
    fn pentanomial_matches_hand_computation() {
        // Pairs scoring 0, ½, 1, 1½, 2 points: 2, 8, 20, 15, 5 (50 pairs).
        // Mean pair score / 2 = (0*2 + .25*8 + .5*20 + .75*15 + 1*5)/50 = 0.565,
        // Elo = 45.423676345920455; variance = 0.059525 per pair,
        // interval 0.565 ± 1.959964*sqrt(0.059525/50) → [-1.8246500852, 94.4153421244].
        let e = pentanomial(&[2, 8, 20, 15, 5]).unwrap();
        assert!((e.score - 0.565).abs() < 1e-12);
        assert!((e.variance - 0.059_525).abs() < 1e-12);
        assert!((e.elo - 45.423_676_345_920_455).abs() < 1e-6);
        assert!((e.lower - -1.824_650_085_200_273_8).abs() < 1e-6);
        assert!((e.upper - 94.415_342_124_426_64).abs() < 1e-6);
    }

    #[test]
    fn sprt_matches_hand_computation() {
        // s0 = 0.5, s1 = 1/(1+10^(-5/400)) = 0.507195...; with s = 0.7, σ² = 0.16, n = 100:
        // LLR = 100 (s1 - s0)(1.4 - s0 - s1) / 0.32 = 0.8832073383814437.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let e = trinomial(60, 20, 20).unwrap();
        assert!((sprt.llr(&e) - 0.883_207_338_381_443_7).abs() < 1e-9);
        let (lo, hi) = sprt.bounds();
        assert!((lo + 2.944_438_979_166_440_3).abs() < 1e-12);
        assert!((hi - 2.944_438_979_166_440_3).abs() < 1e-12);
        assert_eq!(sprt.verdict(0.88), SprtVerdict::Continue);
        assert_eq!(sprt.verdict(3.0), SprtVerdict::AcceptH1);
        assert_eq!(sprt.verdict(-3.0), SprtVerdict::AcceptH0);
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for e in [-300.0, -50.0, 0.0, 12.5, 400.0] {
            assert!((elo_from_score(expected_score(e)) - e).abs() < 1e-9);
        }
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
    }
}
