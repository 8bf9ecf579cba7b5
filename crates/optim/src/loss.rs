//! The per-position loss: a sigmoid that maps a score in centipawns to an expected result, and
//! a loss between that expectation and the label.
//!
//! # How to add a loss
//!
//! This file only: a `LossKind` variant, its name in
//! `LossKind`'s `FromStr`, and its arm in each of `Link::loss` (value and `dL/dq`: what a pass
//! reads), `Link::loss_value` (value only) and `Link::curvature` (the Gauss-Newton weight, never
//! negative); then a finite-difference check beside the others in
//! `crates/texel/tests/it/objective.rs`. The `--loss` option of every tuning command parses it.

use serde::{Deserialize, Serialize};

/// How a score in centipawns becomes an expected result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Sigmoid {
    /// Texel's `1 / (1 + 10^(-K q / 400))`, against results in `0..=1`.
    #[default]
    Logistic,
    /// RuyTune's `tanh(K q)` (RuyTune fixes `K = 0.0043`), against results in `-1..=1`.
    Tanh,
}

impl std::str::FromStr for Sigmoid {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "logistic" => Ok(Sigmoid::Logistic),
            "tanh" => Ok(Sigmoid::Tanh),
            _ => Err(format!("unknown sigmoid {s:?} (expected logistic or tanh)")),
        }
    }
}

impl Sigmoid {
    /// The range `K` is searched in when it is fitted.
    pub fn k_range(self) -> (f64, f64) {
        match self {
            Sigmoid::Logistic => (0.01, 10.0),
            Sigmoid::Tanh => (1e-5, 0.05),
        }
    }

    /// A target in this sigmoid's range, from a target `value` in `0..=1`.
    pub fn label(self, value: f64) -> f64 {
        match self {
            Sigmoid::Logistic => value,
            Sigmoid::Tanh => 2.0 * value - 1.0,
        }
    }
}

/// Which loss compares the expectation with the label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LossKind {
    /// Mean squared error, Texel's choice.
    #[default]
    Mse,
    /// Cross-entropy between the label and the expectation (both read as probabilities; for
    /// `tanh`, `(1 + x) / 2`).
    Xent,
}

impl std::str::FromStr for LossKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "mse" => Ok(LossKind::Mse),
            "xent" | "cross-entropy" => Ok(LossKind::Xent),
            _ => Err(format!("unknown loss {s:?} (expected mse or xent)")),
        }
    }
}

/// A sigmoid with its scale `K`, and a loss: everything needed to score one position.
///
/// ```
/// use optim::{Link, LossKind, Sigmoid};
///
/// let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
/// assert!((link.expect(0.0) - 0.5).abs() < 1e-15);
/// // A pawn up is about 64% with K = 1.
/// assert!((link.expect(100.0) - 1.0 / (1.0 + 10f64.powf(-0.25))).abs() < 1e-12);
/// let (l, d) = link.loss(100.0, 1.0);
/// assert!(l > 0.0 && d < 0.0); // raising the score lowers the loss of a win
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// The sigmoid.
    pub sigmoid: Sigmoid,
    /// Its scale `K`.
    pub k: f64,
    /// The loss.
    pub loss: LossKind,
}

const LN10_400: f64 = std::f64::consts::LN_10 / 400.0;

/// `1 / (1 + e^-z)`, the same as [`tape::sigmoid_f64`] bit for bit, from
/// `e = e^-|z|` ([`neg_exp_abs`]): without a branch on the sign of `z`, which a sweep over
/// positions could not predict.
#[inline(always)]
fn logistic_from(z: f64, e: f64) -> f64 {
    let num = if z >= 0.0 { 1.0 } else { e };
    num / (1.0 + e)
}

/// `e^-|z|`: the one exponential [`logistic_from`] and [`softplus_from`] need.
#[inline(always)]
fn neg_exp_abs(z: f64) -> f64 {
    (-z.abs()).exp()
}

#[inline(always)]
fn logistic(z: f64) -> f64 {
    logistic_from(z, neg_exp_abs(z))
}

/// `ln(1 + e^z)` without overflow, from `e = e^-|z|` ([`neg_exp_abs`]).
#[inline(always)]
fn softplus_from(z: f64, e: f64) -> f64 {
    z.max(0.0) + e.ln_1p()
}

/// `ln(1 + e^z)` without overflow.
#[inline(always)]
fn softplus(z: f64) -> f64 {
    softplus_from(z, neg_exp_abs(z))
}

impl Link {
    /// Texel's link: the logistic sigmoid `1 / (1 + 10^(-K q / 400))` and the mean squared error.
    ///
    /// ```
    /// use optim::{Link, LossKind, Sigmoid};
    ///
    /// assert_eq!(Link::texel(1.2), Link { sigmoid: Sigmoid::Logistic, k: 1.2, loss: LossKind::Mse });
    /// ```
    pub fn texel(k: f64) -> Link {
        Link {
            sigmoid: Sigmoid::Logistic,
            k,
            loss: LossKind::Mse,
        }
    }

    /// The logit slope: the expectation, read as a probability, is `logistic(a q)`.
    #[inline(always)]
    fn slope(&self) -> f64 {
        match self.sigmoid {
            Sigmoid::Logistic => self.k * LN10_400,
            Sigmoid::Tanh => 2.0 * self.k,
        }
    }

    /// The expected result for score `q`, in the sigmoid's range.
    #[inline(always)]
    pub fn expect(&self, q: f64) -> f64 {
        match self.sigmoid {
            Sigmoid::Logistic => logistic(self.k * LN10_400 * q),
            Sigmoid::Tanh => (self.k * q).tanh(),
        }
    }

    /// The expectation and its derivative with respect to `q`.
    #[inline(always)]
    pub fn expect_and_slope(&self, q: f64) -> (f64, f64) {
        match self.sigmoid {
            Sigmoid::Logistic => {
                let a = self.k * LN10_400;
                let p = logistic(a * q);
                (p, a * p * (1.0 - p))
            }
            Sigmoid::Tanh => {
                let t = (self.k * q).tanh();
                (t, self.k * (1.0 - t * t))
            }
        }
    }

    /// The loss of score `q` against label `y` (in the sigmoid's range), and its derivative
    /// with respect to `q`.
    #[inline(always)]
    pub fn loss(&self, q: f64, y: f64) -> (f64, f64) {
        match self.loss {
            LossKind::Mse => {
                let (p, dp) = self.expect_and_slope(q);
                let r = y - p;
                (r * r, -2.0 * r * dp)
            }
            LossKind::Xent => {
                let a = self.slope();
                let z = a * q;
                let yy = self.prob_label(y);
                let e = neg_exp_abs(z);
                (softplus_from(z, e) - yy * z, a * (logistic_from(z, e) - yy))
            }
        }
    }

    /// The loss of score `q` against label `y`, without the derivative.
    #[inline(always)]
    pub fn loss_value(&self, q: f64, y: f64) -> f64 {
        match self.loss {
            LossKind::Mse => {
                let r = y - self.expect(q);
                r * r
            }
            LossKind::Xent => {
                let z = self.slope() * q;
                softplus(z) - self.prob_label(y) * z
            }
        }
    }

    /// The generalised Gauss-Newton curvature of the loss with respect to `q`: the second
    /// derivative with the term in the residual dropped (`2 sigma'(q)^2` for the squared error,
    /// `a^2 p (1 - p)` for cross-entropy), never negative.
    #[inline(always)]
    pub fn curvature(&self, q: f64) -> f64 {
        match self.loss {
            LossKind::Mse => {
                let (_, dp) = self.expect_and_slope(q);
                2.0 * dp * dp
            }
            LossKind::Xent => {
                let a = self.slope();
                let p = logistic(a * q);
                a * a * p * (1.0 - p)
            }
        }
    }

    #[inline(always)]
    fn prob_label(&self, y: f64) -> f64 {
        match self.sigmoid {
            Sigmoid::Logistic => y,
            Sigmoid::Tanh => 0.5 * (1.0 + y),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(link: Link) {
        for &(q, y) in &[
            (-300.0, 0.0),
            (0.0, 0.5),
            (120.0, 1.0),
            (45.0, 0.2),
            (800.0, 0.0),
        ] {
            let y = link.sigmoid.label(y);
            let (l, d) = link.loss(q, y);
            assert!((l - link.loss_value(q, y)).abs() < 1e-15);
            let h = 1e-3;
            let fd = (link.loss_value(q + h, y) - link.loss_value(q - h, y)) / (2.0 * h);
            assert!(
                (d - fd).abs() < 1e-9 * (1.0 + d.abs()),
                "{link:?} {q} {d} {fd}"
            );
        }
    }

    #[test]
    fn branch_free_forms_match_the_branching_ones() {
        for z in [
            -800.0, -40.0, -3.5, -1e-300, -0.0, 0.0, 1e-300, 0.25, 2.0, 37.0, 800.0, -1e308,
        ] {
            assert_eq!(logistic(z).to_bits(), tape::sigmoid_f64(z).to_bits(), "{z}");
            let soft = if z > 0.0 {
                z + (-z).exp().ln_1p()
            } else {
                z.exp().ln_1p()
            };
            assert_eq!(softplus(z).to_bits(), soft.to_bits(), "{z}");
        }
        assert!(logistic(f64::NAN).is_nan() && softplus(f64::NAN).is_nan());
    }

    #[test]
    fn derivatives_match_finite_differences() {
        for sigmoid in [Sigmoid::Logistic, Sigmoid::Tanh] {
            for loss in [LossKind::Mse, LossKind::Xent] {
                let k = if sigmoid == Sigmoid::Tanh {
                    0.0043
                } else {
                    1.2
                };
                check(Link { sigmoid, k, loss });
            }
        }
    }
}
