//! The [`Scalar`] trait: the score type an evaluation is written against.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A number an evaluation can be written against once and then run as plain `f64`
/// (no overhead), as a reverse-mode [`Var`](crate::Var) recorded on a
/// [`Tape`](crate::Tape), or as a forward-mode [`Dual`](crate::Dual).
///
/// Arithmetic works between two scalars and between a scalar and an `f64` constant (with the
/// scalar on the left: write `x * 2.0`, or `S::constant(2.0) * x`).
///
/// # Kinks
///
/// The functions that are not differentiable everywhere take these subgradients, identically in
/// every implementation:
///
/// * [`abs`](Scalar::abs): derivative `0` at `0` (the minimal-norm element of `[-1, 1]`).
/// * [`min`](Scalar::min) and [`max`](Scalar::max): on a tie the result *is* `self`, and the
///   whole derivative flows to `self`.
/// * [`clamp`](Scalar::clamp): `max(min(self, hi), lo)`, so on either boundary the derivative
///   flows to `self`.
///
/// # Example
///
/// ```
/// use tape::{Dual, Scalar};
///
/// // Written once ...
/// fn f<S: Scalar>(x: S, y: S) -> S {
///     (x * y + 3.0).tanh() * 2.0 - y.powi(2)
/// }
///
/// // ... run as f64,
/// let v = f(0.5, 1.5);
/// // ... or as a dual number, which also carries d/dx.
/// let d = f(Dual::variable(0.5, 1.0), Dual::constant(1.5));
/// assert_eq!(d.value(), v);
/// let t = (0.5f64 * 1.5 + 3.0).tanh();
/// assert!((d.derivative() - 2.0 * (1.0 - t * t) * 1.5).abs() < 1e-12);
/// ```
pub trait Scalar:
    Copy
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + AddAssign<f64>
    + SubAssign<f64>
    + MulAssign<f64>
    + DivAssign<f64>
{
    /// A constant: no derivative with respect to anything.
    fn constant(value: f64) -> Self;

    /// The constant `0`.
    #[inline]
    fn zero() -> Self {
        Self::constant(0.0)
    }

    /// The constant `1`.
    #[inline]
    fn one() -> Self {
        Self::constant(1.0)
    }

    /// The plain value.
    fn value(&self) -> f64;

    /// `e^self`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Logistic sigmoid `1 / (1 + e^-self)`, computed without overflow for any input.
    fn sigmoid(self) -> Self;
    /// Integer power.
    fn powi(self, n: i32) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Absolute value; derivative `0` at `0`.
    fn abs(self) -> Self;
    /// `-1`, `0` or `1` by the sign of the value; derivative `0`. On a tape it is an
    /// operation (not a constant), so a replayed program re-decides it for new inputs.
    #[inline]
    fn sign(self) -> Self {
        Self::constant(abs_slope(self.value()))
    }
    /// The smaller of the two; on a tie, `self` (and its derivative).
    fn min(self, other: Self) -> Self;
    /// The larger of the two; on a tie, `self` (and its derivative).
    fn max(self, other: Self) -> Self;

    /// `max(min(self, hi), lo)`: on a boundary the derivative flows to `self`.
    #[inline]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        self.min(hi).max(lo)
    }

    /// `sum_k coef_k * terms_k + constant`.
    ///
    /// A tape records this as one statement however many terms it has (as Adept's expression
    /// templates do), so a linear evaluation costs one statement per sum rather than two per term.
    #[inline]
    fn linear_combination(terms: &[(Self, f64)], constant: f64) -> Self {
        terms
            .iter()
            .fold(Self::constant(constant), |acc, &(x, c)| acc + x * c)
    }

    /// The sparse dot product `sum_k coef_k * xs[index_k]`: the usual shape of an evaluation's
    /// linear part, where `xs` are the weights and the pairs the position's features.
    ///
    /// Panics if an index is out of range of `xs` (a programming error, not an input error).
    #[inline]
    fn dot(xs: &[Self], terms: &[(u32, f64)]) -> Self {
        terms
            .iter()
            .fold(Self::zero(), |acc, &(i, c)| acc + xs[i as usize] * c)
    }
}

/// `sum c * value(i)` over sparse `(i, c)` terms with four independent accumulators, so the
/// additions do not form one long dependency chain. Every implementation of
/// [`Scalar::dot`] sums in this order, so their values agree bit for bit.
#[inline(always)]
pub(crate) fn sparse_sum<T: Copy>(
    terms: &[T],
    term: impl Fn(T) -> (usize, f64),
    value: impl Fn(usize) -> f64,
) -> f64 {
    let mut acc = [0.0f64; 4];
    let mut chunks = terms.chunks_exact(4);
    for chunk in &mut chunks {
        for (a, &t) in acc.iter_mut().zip(chunk) {
            let (i, c) = term(t);
            *a += c * value(i);
        }
    }
    for (a, &t) in acc.iter_mut().zip(chunks.remainder()) {
        let (i, c) = term(t);
        *a += c * value(i);
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// [`Scalar::dot`] on `f64` fed one term at a time: terms added in the order of a term list
/// give the dot product of that list bit for bit (the `k`-th term goes to accumulator `k mod
/// 4`, as in [`sparse_sum`]), without building the list.
///
/// ```
/// use tape::{DotAccumulator, Scalar};
/// let w = [0.1, 0.2, 0.3];
/// let terms = [(0, 1.0), (2, -3.0), (1, 0.5), (2, 7.0), (0, 1e-3)];
/// let mut acc = DotAccumulator::default();
/// for &(i, c) in &terms {
///     acc.add(c, w[i as usize]);
/// }
/// assert_eq!(acc.value().to_bits(), f64::dot(&w, &terms).to_bits());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct DotAccumulator {
    acc: [f64; 4],
    len: usize,
}

impl DotAccumulator {
    /// Adds the term `coef * x` (the next term of the list).
    #[inline(always)]
    pub fn add(&mut self, coef: f64, x: f64) {
        self.acc[self.len & 3] += coef * x;
        self.len += 1;
    }

    /// The sum so far, combined as [`sparse_sum`] combines its accumulators.
    #[inline(always)]
    pub fn value(&self) -> f64 {
        (self.acc[0] + self.acc[1]) + (self.acc[2] + self.acc[3])
    }
}

/// [`sparse_sum`] over a structure of arrays: `sum coefs[k] * value(refs[k])`, in the same
/// order.
#[inline(always)]
pub(crate) fn sparse_sum2(refs: &[u32], coefs: &[f64], value: impl Fn(usize) -> f64) -> f64 {
    let mut acc = [0.0f64; 4];
    let n = refs.len().min(coefs.len());
    let (refs, coefs) = (&refs[..n], &coefs[..n]);
    let mut r4 = refs.chunks_exact(4);
    let mut c4 = coefs.chunks_exact(4);
    for (r, c) in (&mut r4).zip(&mut c4) {
        for k in 0..4 {
            acc[k] += c[k] * value(r[k] as usize);
        }
    }
    for ((a, &r), &c) in acc.iter_mut().zip(r4.remainder()).zip(c4.remainder()) {
        *a += c * value(r as usize);
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Stable logistic sigmoid on plain numbers.
#[inline]
pub fn sigmoid_f64(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The derivative of `|x|` as this crate defines it (`0` at `0`), which is also `sign(x)`
/// (`-1`, `0` or `1`; `0` for `-0` and NaN).
#[inline]
pub(crate) fn abs_slope(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// `f64` is a `Scalar` with no overhead at all: every method is the plain operation.
impl Scalar for f64 {
    #[inline(always)]
    fn constant(value: f64) -> Self {
        value
    }
    #[inline(always)]
    fn value(&self) -> f64 {
        *self
    }
    #[inline(always)]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
    #[inline(always)]
    fn sigmoid(self) -> Self {
        sigmoid_f64(self)
    }
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        f64::powi(self, n)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        if other < self {
            other
        } else {
            self
        }
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        if other > self {
            other
        } else {
            self
        }
    }
    #[inline(always)]
    fn linear_combination(terms: &[(Self, f64)], constant: f64) -> Self {
        terms.iter().fold(constant, |acc, &(x, c)| acc + x * c)
    }
    #[inline(always)]
    fn dot(xs: &[Self], terms: &[(u32, f64)]) -> Self {
        sparse_sum(terms, |(i, c)| (i as usize, c), |i| xs[i])
    }
}
