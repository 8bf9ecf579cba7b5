//! Gradient checks of every operation: the tape against central finite differences and against
//! dual numbers, at many random points (proptest), with replay of the compiled program at a
//! second point. Tolerances are in `common` (TOL_TAPE_DUAL, TOL_FD, TOL_REPLAY) and stated there.

use crate::common;

use common::{check_all, dual_gradient, tape_gradient, Function};
use proptest::prelude::*;
use tape::Scalar;

/// Every elementary operation, each as a function of two or three variables so that the
/// variable/variable, variable/constant and constant/variable paths are all exercised.
#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    AddConst,
    SubConst,
    MulConst,
    DivConst,
    ConstDiv,
    ConstMul,
    ConstSub,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    AssignConst,
    Exp,
    Ln,
    Tanh,
    Sigmoid,
    Powi(i32),
    Sqrt,
    Abs,
    Min,
    Max,
    MinConst,
    MaxConst,
    Clamp,
    ClampConst,
    Dot,
    LinearCombination,
    SelfProduct,
}

const OPS: &[Op] = &[
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::Neg,
    Op::AddConst,
    Op::SubConst,
    Op::MulConst,
    Op::DivConst,
    Op::ConstDiv,
    Op::ConstMul,
    Op::ConstSub,
    Op::AddAssign,
    Op::SubAssign,
    Op::MulAssign,
    Op::DivAssign,
    Op::AssignConst,
    Op::Exp,
    Op::Ln,
    Op::Tanh,
    Op::Sigmoid,
    Op::Powi(0),
    Op::Powi(1),
    Op::Powi(2),
    Op::Powi(3),
    Op::Powi(-2),
    Op::Sqrt,
    Op::Abs,
    Op::Min,
    Op::Max,
    Op::MinConst,
    Op::MaxConst,
    Op::Clamp,
    Op::ClampConst,
    Op::Dot,
    Op::LinearCombination,
    Op::SelfProduct,
];

impl Function for Op {
    fn eval<S: Scalar>(&self, x: &[S]) -> S {
        let (a, b, c) = (x[0], x[1], x[2]);
        // Positive, bounded-away-from-zero versions for the operations with restricted domains.
        let pos = |v: S| v * v + 0.5;
        match *self {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / pos(b),
            Op::Neg => -a,
            Op::AddConst => a + 1.25,
            Op::SubConst => a - 1.25,
            Op::MulConst => a * -1.75,
            Op::DivConst => a / 3.5,
            Op::ConstDiv => S::constant(2.0) / pos(a),
            Op::ConstMul => S::constant(-0.75) * a * b,
            Op::ConstSub => S::constant(4.0) - a,
            Op::AddAssign => {
                let mut y = a;
                y += b;
                y += 0.5;
                y
            }
            Op::SubAssign => {
                let mut y = a;
                y -= b;
                y -= 0.5;
                y
            }
            Op::MulAssign => {
                let mut y = a;
                y *= b;
                y *= 1.5;
                y
            }
            Op::DivAssign => {
                let mut y = a;
                y /= pos(b);
                y /= 1.5;
                y
            }
            Op::AssignConst => {
                // A chain of constants on a variable: exercises collapsing of linear chains.
                let mut y = (a * 2.0 - 1.0) / 4.0 + 3.0;
                y = -y;
                y * 0.5 + b
            }
            Op::Exp => a.exp(),
            Op::Ln => pos(a).ln(),
            Op::Tanh => a.tanh(),
            Op::Sigmoid => (a * 3.0).sigmoid(),
            Op::Powi(n) if n < 0 => pos(a).powi(n),
            Op::Powi(n) => a.powi(n),
            Op::Sqrt => pos(a).sqrt(),
            Op::Abs => a.abs(),
            Op::Min => a.min(b),
            Op::Max => a.max(b),
            Op::MinConst => a.min(S::constant(0.3)) + S::constant(-0.2).min(b),
            Op::MaxConst => a.max(S::constant(0.3)) + S::constant(-0.2).max(b),
            Op::Clamp => a.clamp(b - 1.0, c + 1.0),
            Op::ClampConst => a.clamp(S::constant(-0.5), S::constant(0.5)),
            Op::Dot => S::dot(x, &[(0, 1.5), (2, -2.0), (1, 0.25), (0, 0.5)]),
            Op::LinearCombination => {
                S::linear_combination(&[(a, 2.0), (S::constant(3.0), 4.0), (c, -1.0)], 0.5)
            }
            Op::SelfProduct => a * a - a / pos(a),
        }
    }
}

/// Whether `x` keeps the finite differences (step up to about 1e-6) clear of the op's kinks.
fn clear_of_kinks(op: Op, x: &[f64]) -> bool {
    let gap = 1e-4;
    let (a, b, c) = (x[0], x[1], x[2]);
    match op {
        Op::Abs => a.abs() > gap,
        Op::Min | Op::Max => (a - b).abs() > gap,
        Op::MinConst | Op::MaxConst => (a - 0.3).abs() > gap && (b + 0.2).abs() > gap,
        Op::Clamp => {
            (a - (c + 1.0)).abs() > gap
                && (a - (b - 1.0)).abs() > gap
                && ((c + 1.0) - (b - 1.0)).abs() > gap
        }
        Op::ClampConst => (a - 0.5).abs() > gap && (a + 0.5).abs() > gap,
        _ => true,
    }
}

fn point() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-3.0f64..3.0, 3)
}

proptest! {
    // Under Miri (about a thousand times slower) a few cases check the memory accesses;
    // the numerics are checked by the full count natively (`crates/tape/SOUNDNESS.md`).
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 8 } else { 512 },
        ..ProptestConfig::default()
    })]

    /// Every operation at random points: tape = dual (1e-12), tape = central differences
    /// (1e-6 relative), replay = fresh recording at a second point (1e-12).
    #[test]
    fn every_operation_at_random_points(op_index in 0..OPS.len(), x in point(), x2 in point()) {
        let op = OPS[op_index];
        prop_assume!(clear_of_kinks(op, &x) && clear_of_kinks(op, &x2));
        if let Err(e) = check_all(&op, &x, &x2) {
            return Err(TestCaseError::fail(format!("{op:?}: {e}")));
        }
    }

    /// Points close to the kinks of `abs`, `min`, `max` and `clamp` (but farther than the
    /// finite-difference step): the derivative must switch exactly where the function does.
    #[test]
    fn near_kinks(exponent in -4.0f64..-2.0, negative in any::<bool>(), base in -2.0f64..2.0, second in point()) {
        let d = if negative { -(10f64.powf(exponent)) } else { 10f64.powf(exponent) };
        let cases: [(Op, [f64; 3]); 6] = [
            (Op::Abs, [d, base, base]),
            (Op::Min, [base + d, base, 0.0]),
            (Op::Max, [base + d, base, 0.0]),
            (Op::MinConst, [0.3 + d, -0.2 - d, 0.0]),
            (Op::MaxConst, [0.3 + d, -0.2 - d, 0.0]),
            (Op::ClampConst, [0.5 + d, 0.0, 0.0]),
        ];
        for (op, x) in cases {
            prop_assume!(clear_of_kinks(op, &second));
            if let Err(e) = check_all(&op, &x, &second) {
                return Err(TestCaseError::fail(format!("{op:?} near its kink: {e}")));
            }
        }
    }
}

/// Exactly on a kink, every implementation takes the documented subgradient.
#[test]
fn subgradients_on_the_kinks() {
    let cases: &[(Op, [f64; 3], [f64; 3])] = &[
        // abs'(0) = 0
        (Op::Abs, [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
        // min/max ties go to self (the first operand)
        (Op::Min, [0.7, 0.7, 0.0], [1.0, 0.0, 0.0]),
        (Op::Max, [0.7, 0.7, 0.0], [1.0, 0.0, 0.0]),
        // min(a, 0.3) at a = 0.3 follows a; min(-0.2, b) at b = -0.2 follows the constant
        (Op::MinConst, [0.3, -0.2, 0.0], [1.0, 0.0, 0.0]),
        (Op::MaxConst, [0.3, -0.2, 0.0], [1.0, 0.0, 0.0]),
        // clamp boundaries flow to self
        (Op::ClampConst, [0.5, 0.0, 0.0], [1.0, 0.0, 0.0]),
        (Op::ClampConst, [-0.5, 0.0, 0.0], [1.0, 0.0, 0.0]),
        (Op::Clamp, [1.0, 2.0, 0.0], [1.0, 0.0, 0.0]),
    ];
    for (op, x, expected) in cases {
        let (_, tg) = tape_gradient(op, x);
        let (_, dg) = dual_gradient(op, x);
        let program = common::compile(op, x);
        let (_, rg) = common::replay_gradient(&program, x);
        assert_eq!(&tg, expected, "{op:?} tape at {x:?}");
        assert_eq!(&dg, expected, "{op:?} dual at {x:?}");
        assert_eq!(&rg, expected, "{op:?} replay at {x:?}");
    }
}

/// `min(x, x)` and `max(x, x)` of one variable: the tie goes to the first operand, so the
/// derivative is 1 (not 2, not 0).
#[test]
fn min_max_of_the_same_variable() {
    struct SameMin;
    impl Function for SameMin {
        fn eval<S: Scalar>(&self, x: &[S]) -> S {
            x[0].min(x[0]) + x[0].max(x[0]) * 2.0
        }
    }
    let (_, g) = tape_gradient(&SameMin, &[0.4]);
    assert_eq!(g, vec![3.0]);
    let (_, d) = dual_gradient(&SameMin, &[0.4]);
    assert_eq!(d, vec![3.0]);
}
