//! [`Dual`]: forward-mode automatic differentiation, one direction at a time.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::ops::assign_ops_via_binary;
use crate::scalar::{abs_slope, sigmoid_f64, Scalar};

/// A dual number `value + derivative * eps` with `eps^2 = 0`: forward-mode differentiation
/// along one direction.
///
/// It shares no code path with the tape, which makes it the independent second method the
/// gradient checks compare the tape against: seed the inputs with a direction `d`, and the
/// output's [`derivative`](Dual::derivative) is the directional derivative `grad . d`.
///
/// ```
/// use tape::{Dual, Scalar};
///
/// let x = Dual::variable(2.0, 1.0); // d/dx
/// let y = x * x + x.ln();
/// assert_eq!(y.value(), 4.0 + 2f64.ln());
/// assert_eq!(y.derivative(), 4.0 + 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Dual {
    v: f64,
    d: f64,
}

impl Dual {
    /// A variable with value `value` and tangent (seed) `derivative`.
    #[inline]
    pub fn variable(value: f64, derivative: f64) -> Self {
        Dual {
            v: value,
            d: derivative,
        }
    }

    /// The tangent: the derivative along the seeded direction.
    #[inline]
    pub fn derivative(&self) -> f64 {
        self.d
    }

    /// The chain rule: a function with value `v` and slope `slope` at `self`.
    #[inline]
    fn chain(self, v: f64, slope: f64) -> Self {
        Dual {
            v,
            d: slope * self.d,
        }
    }
}

impl Add for Dual {
    type Output = Dual;
    #[inline]
    fn add(self, o: Dual) -> Dual {
        Dual::variable(self.v + o.v, self.d + o.d)
    }
}
impl Sub for Dual {
    type Output = Dual;
    #[inline]
    fn sub(self, o: Dual) -> Dual {
        Dual::variable(self.v - o.v, self.d - o.d)
    }
}
impl Mul for Dual {
    type Output = Dual;
    #[inline]
    fn mul(self, o: Dual) -> Dual {
        Dual::variable(self.v * o.v, self.d * o.v + self.v * o.d)
    }
}
impl Div for Dual {
    type Output = Dual;
    #[inline]
    fn div(self, o: Dual) -> Dual {
        let q = self.v / o.v;
        Dual::variable(q, (self.d - q * o.d) / o.v)
    }
}
impl Neg for Dual {
    type Output = Dual;
    #[inline]
    fn neg(self) -> Dual {
        Dual::variable(-self.v, -self.d)
    }
}
impl Add<f64> for Dual {
    type Output = Dual;
    #[inline]
    fn add(self, c: f64) -> Dual {
        Dual::variable(self.v + c, self.d)
    }
}
impl Sub<f64> for Dual {
    type Output = Dual;
    #[inline]
    fn sub(self, c: f64) -> Dual {
        Dual::variable(self.v - c, self.d)
    }
}
impl Mul<f64> for Dual {
    type Output = Dual;
    #[inline]
    fn mul(self, c: f64) -> Dual {
        Dual::variable(self.v * c, self.d * c)
    }
}
impl Div<f64> for Dual {
    type Output = Dual;
    #[inline]
    fn div(self, c: f64) -> Dual {
        Dual::variable(self.v / c, self.d / c)
    }
}
assign_ops_via_binary!(Dual);

impl Scalar for Dual {
    #[inline]
    fn constant(value: f64) -> Self {
        Dual::variable(value, 0.0)
    }
    #[inline]
    fn value(&self) -> f64 {
        self.v
    }
    #[inline]
    fn exp(self) -> Self {
        let e = self.v.exp();
        self.chain(e, e)
    }
    #[inline]
    fn ln(self) -> Self {
        self.chain(self.v.ln(), 1.0 / self.v)
    }
    #[inline]
    fn tanh(self) -> Self {
        let t = self.v.tanh();
        self.chain(t, 1.0 - t * t)
    }
    #[inline]
    fn sigmoid(self) -> Self {
        let s = sigmoid_f64(self.v);
        self.chain(s, s * (1.0 - s))
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        let slope = if n == 0 {
            0.0
        } else {
            n as f64 * self.v.powi(n - 1)
        };
        self.chain(self.v.powi(n), slope)
    }
    #[inline]
    fn sqrt(self) -> Self {
        let r = self.v.sqrt();
        self.chain(r, 0.5 / r)
    }
    #[inline]
    fn abs(self) -> Self {
        self.chain(self.v.abs(), abs_slope(self.v))
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        if other.v < self.v {
            other
        } else {
            self
        }
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        if other.v > self.v {
            other
        } else {
            self
        }
    }
}
