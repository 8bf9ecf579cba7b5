//! [`Var`]: a reverse-mode variable recorded on the thread's active tape.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::kind::{apply, Kind};
use crate::ops::assign_ops_via_binary;
use crate::scalar::{sparse_sum, Scalar};
use crate::tape::active::{with_active, with_active_opt};

/// A reverse-mode variable: a value and the index of the tape node that computed it, with that
/// node's tag (which tape, recording and stretch between rewinds made it).
///
/// Constants carry no node, so arithmetic on constants records nothing. Arithmetic involving a
/// non-constant `Var` records onto the tape of the thread's active
/// [`Recording`](crate::Recording) (inside [`Tape::record`](crate::Tape::record)'s closure),
/// and panics if there is none, or if the `Var` is not a live node of that recording's tape
/// (kept past a rewind or from another tape).
///
/// ```
/// use tape::{Scalar, Tape, Var};
///
/// let c = Var::constant(2.0) * 3.0; // no recording needed for constants
/// assert_eq!(c.value(), 6.0);
///
/// let mut tape = Tape::new();
/// let mut g = [0.0];
/// let x = tape.record(|rec| {
///     let x = rec.input(0.5);
///     let y = x.exp() * c;
///     rec.gradient(y, &mut g);
///     x
/// });
/// assert!((g[0] - 6.0 * 0.5f64.exp()).abs() < 1e-12);
///
/// // A `Var` that outlives its recording holds no pointer: using it panics, cleanly.
/// assert!(std::panic::catch_unwind(|| x * 2.0).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Var {
    v: f64,
    /// The node index in the low 32 bits (`CONST` for a constant), the node's tag when this
    /// `Var` was made in the high 32 (in what was padding: still 16 bytes). One `u64`, not two
    /// `u32`s: a struct of two scalars is passed in two registers, `f64` in a float one.
    node: u64,
}

impl Var {
    /// The node index of constants.
    pub(crate) const CONST: u32 = u32::MAX;

    #[inline(always)]
    pub(crate) fn node(v: f64, i: u32, tag: u32) -> Var {
        Var {
            v,
            node: u64::from(i) | u64::from(tag) << 32,
        }
    }

    /// The node index, `CONST` for a constant.
    #[inline(always)]
    pub(crate) fn raw_index(&self) -> u32 {
        self.node as u32
    }

    #[inline(always)]
    pub(crate) fn tag(&self) -> u32 {
        (self.node >> 32) as u32
    }

    /// The tape node holding this variable, or `None` for a constant.
    #[inline(always)]
    pub fn index(&self) -> Option<u32> {
        let i = self.raw_index();
        (i != Self::CONST).then_some(i)
    }

    #[inline(always)]
    pub(crate) fn is_const(&self) -> bool {
        self.raw_index() == Self::CONST
    }

    /// Records an affine function `a * self + b` whose value `v` the caller computed with the
    /// plain `f64` operation (so values match `f64` bit for bit).
    #[inline(always)]
    fn affine(self, a: f64, b: f64, v: f64) -> Var {
        if self.is_const() {
            return Var::constant(v);
        }
        with_active(|t| t.push(Kind::Linear, b, v, &[(a, self)]))
    }

    /// Records `pa * self + pb * o` for two variables, with value `v` computed by the caller.
    #[inline(always)]
    fn combine(self, pa: f64, o: Var, pb: f64, v: f64) -> Var {
        match (self.is_const(), o.is_const()) {
            (true, true) => Var::constant(v),
            (true, false) => o.affine(pb, pa * self.v, v),
            (false, true) => self.affine(pa, pb * o.v, v),
            (false, false) => with_active(|t| t.push(Kind::Linear, 0.0, v, &[(pa, self), (pb, o)])),
        }
    }

    /// Records a non-linear unary operation.
    #[inline(always)]
    fn unary(self, kind: Kind, k: f64) -> Var {
        let (v, dx, _) = apply(kind, k, self.v, 0.0);
        if self.is_const() {
            return Var::constant(v);
        }
        with_active(|t| t.push(kind, k, v, &[(dx, self)]))
    }

    /// Records a non-linear binary operation of two variables, materialising a constant operand
    /// as a `Const` node so that a replay sees the same structure.
    #[inline(always)]
    fn binary(self, kind: Kind, o: Var) -> Var {
        let (v, dx, dy) = apply(kind, 0.0, self.v, o.v);
        if self.is_const() && o.is_const() {
            return Var::constant(v);
        }
        with_active(|t| {
            let a = if self.is_const() {
                t.push(Kind::Const, self.v, self.v, &[])
            } else {
                self
            };
            let b = if o.is_const() {
                t.push(Kind::Const, o.v, o.v, &[])
            } else {
                o
            };
            t.push(kind, 0.0, v, &[(dx, a), (dy, b)])
        })
    }
}

impl Add for Var {
    type Output = Var;
    #[inline(always)]
    fn add(self, o: Var) -> Var {
        self.combine(1.0, o, 1.0, self.v + o.v)
    }
}
impl Sub for Var {
    type Output = Var;
    #[inline(always)]
    fn sub(self, o: Var) -> Var {
        self.combine(1.0, o, -1.0, self.v - o.v)
    }
}
impl Mul for Var {
    type Output = Var;
    #[inline(always)]
    fn mul(self, o: Var) -> Var {
        match (self.is_const(), o.is_const()) {
            (true, true) => Var::constant(self.v * o.v),
            (true, false) => o.affine(self.v, 0.0, self.v * o.v),
            (false, true) => self.affine(o.v, 0.0, self.v * o.v),
            (false, false) => self.binary(Kind::Mul, o),
        }
    }
}
impl Div for Var {
    type Output = Var;
    #[inline(always)]
    fn div(self, o: Var) -> Var {
        match (self.is_const(), o.is_const()) {
            (true, true) => Var::constant(self.v / o.v),
            (true, false) => o.unary(Kind::Recip, self.v),
            (false, true) => self.affine(1.0 / o.v, 0.0, self.v / o.v),
            (false, false) => self.binary(Kind::Div, o),
        }
    }
}
impl Neg for Var {
    type Output = Var;
    #[inline(always)]
    fn neg(self) -> Var {
        self.affine(-1.0, 0.0, -self.v)
    }
}
impl Add<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn add(self, c: f64) -> Var {
        self.affine(1.0, c, self.v + c)
    }
}
impl Sub<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn sub(self, c: f64) -> Var {
        self.affine(1.0, -c, self.v - c)
    }
}
impl Mul<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn mul(self, c: f64) -> Var {
        self.affine(c, 0.0, self.v * c)
    }
}
impl Div<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn div(self, c: f64) -> Var {
        self.affine(1.0 / c, 0.0, self.v / c)
    }
}
assign_ops_via_binary!(Var);

impl Scalar for Var {
    #[inline(always)]
    fn constant(value: f64) -> Self {
        Var::node(value, Var::CONST, 0)
    }
    #[inline(always)]
    fn value(&self) -> f64 {
        self.v
    }
    #[inline(always)]
    fn exp(self) -> Self {
        self.unary(Kind::Exp, 0.0)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        self.unary(Kind::Ln, 0.0)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        self.unary(Kind::Tanh, 0.0)
    }
    #[inline(always)]
    fn sigmoid(self) -> Self {
        self.unary(Kind::Sigmoid, 0.0)
    }
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        self.unary(Kind::Powi, n as f64)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.unary(Kind::Sqrt, 0.0)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.unary(Kind::Abs, 0.0)
    }
    #[inline(always)]
    fn sign(self) -> Self {
        self.unary(Kind::Sign, 0.0)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        self.binary(Kind::Min, other)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        self.binary(Kind::Max, other)
    }

    fn linear_combination(terms: &[(Self, f64)], constant: f64) -> Self {
        let mut v = constant;
        for &(x, c) in terms {
            v += x.v * c;
        }
        record_linear(terms.iter().copied(), constant, v)
    }

    fn dot(xs: &[Self], terms: &[(u32, f64)]) -> Self {
        let v = sparse_sum(terms, |(i, c)| (i as usize, c), |i| xs[i].v);
        record_linear(terms.iter().map(|&(i, c)| (xs[i as usize], c)), 0.0, v)
    }
}

/// Records `sum c * x + constant` (of value `v`) as one `Linear` statement, folding constant
/// terms into the constant; records nothing (and needs no recording) when every term is
/// constant, and returns the constant `v`.
#[inline(always)]
fn record_linear(terms: impl Iterator<Item = (Var, f64)> + Clone, constant: f64, v: f64) -> Var {
    let node = with_active_opt(|tape| match tape {
        Some(t) => t.push_linear(v, constant, terms),
        None => {
            assert!(
                terms.clone().all(|(x, _)| x.is_const()),
                "tape::Var arithmetic outside a Recording on this thread"
            );
            None
        }
    });
    node.unwrap_or(Var::constant(v))
}
