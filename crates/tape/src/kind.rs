//! The elementary operations a tape records, and their values and partial derivatives.
//!
//! Recording and replay both compute through [`apply`], so a replayed program cannot drift from
//! a fresh recording.

use crate::scalar::{abs_slope, sigmoid_f64};

/// What a statement computes from its (at most two) operands `x`, `y` and its constant `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Kind {
    /// An independent variable: no operands.
    Input,
    /// A constant `k` kept as a node (only where an operation needs a node operand).
    Const,
    /// `sum partial_j * operand_j + k`: every operand's partial is a constant coefficient.
    Linear,
    /// `x * y`
    Mul,
    /// `x / y`
    Div,
    /// `k / x`
    Recip,
    /// `e^x`
    Exp,
    /// `ln x`
    Ln,
    /// `tanh x`
    Tanh,
    /// `1 / (1 + e^-x)`
    Sigmoid,
    /// `x^k` with integer `k`
    Powi,
    /// `sqrt x`
    Sqrt,
    /// `|x|`, slope 0 at 0
    Abs,
    /// `sign(x)`: -1, 0 or 1, slope 0
    Sign,
    /// `min(x, y)`, ties to `x`
    Min,
    /// `max(x, y)`, ties to `x`
    Max,
}

impl Kind {
    /// Whether the operation takes two operands.
    #[inline]
    pub(crate) fn is_binary(self) -> bool {
        matches!(self, Kind::Mul | Kind::Div | Kind::Min | Kind::Max)
    }
}

/// Value and partial derivatives `(v, dv/dx, dv/dy)` of a non-linear operation.
///
/// `Input`, `Const` and `Linear` are not computed here (they have no single formula in `x`, `y`).
#[inline(always)]
pub(crate) fn apply(kind: Kind, k: f64, x: f64, y: f64) -> (f64, f64, f64) {
    match kind {
        Kind::Mul => (x * y, y, x),
        Kind::Div => {
            let v = x / y;
            (v, 1.0 / y, -v / y)
        }
        Kind::Recip => {
            let v = k / x;
            (v, -v / x, 0.0)
        }
        Kind::Exp => {
            let v = x.exp();
            (v, v, 0.0)
        }
        Kind::Ln => (x.ln(), 1.0 / x, 0.0),
        Kind::Tanh => {
            let v = x.tanh();
            (v, 1.0 - v * v, 0.0)
        }
        Kind::Sigmoid => {
            let v = sigmoid_f64(x);
            (v, v * (1.0 - v), 0.0)
        }
        Kind::Powi if k == 2.0 => (x * x, 2.0 * x, 0.0),
        Kind::Powi => {
            let n = k as i32;
            let slope = if n == 0 {
                0.0
            } else {
                n as f64 * x.powi(n - 1)
            };
            (x.powi(n), slope, 0.0)
        }
        Kind::Sqrt => {
            let v = x.sqrt();
            (v, 0.5 / v, 0.0)
        }
        Kind::Abs => (x.abs(), abs_slope(x), 0.0),
        Kind::Sign => (abs_slope(x), 0.0, 0.0),
        Kind::Min => {
            if y < x {
                (y, 0.0, 1.0)
            } else {
                (x, 1.0, 0.0)
            }
        }
        Kind::Max => {
            if y > x {
                (y, 0.0, 1.0)
            } else {
                (x, 1.0, 0.0)
            }
        }
        Kind::Input | Kind::Const | Kind::Linear => (f64::NAN, 0.0, 0.0),
    }
}
