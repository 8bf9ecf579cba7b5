//! `trunc(x)`, the engine's integer division in the expression language: in the engine's
//! arithmetic (the default: `verify`, `Manifest::evaluate`) C's `a / b` on integers, towards
//! zero, for every sign and for exact multiples; in the tuning objective's real arithmetic
//! the real division, with its derivative.

use tape::{Dual, Scalar, Tape, Var};
use trace::expr::{Arithmetic, Env, Expr, Name};
use trace::EvalError;

/// `trunc(n / d)` at `f64` in the engine's arithmetic ([`Expr::eval_f64`]).
fn int_div(n: i64, d: i64) -> f64 {
    let e = Expr::parse("trunc(n / d)").unwrap();
    e.eval_f64(&move |name, _, _| match name {
        "n" => Some(n as f64),
        "d" => Some(d as f64),
        _ => None,
    })
    .unwrap()
}

#[test]
fn trunc_of_a_division_is_cs_integer_division() {
    assert_eq!(int_div(7, 2), 3.0);
    assert_eq!(int_div(-7, 2), -3.0); // not -4, as floor would give
    assert_eq!(int_div(7, -2), -3.0);
    assert_eq!(int_div(-7, -2), 3.0);
    assert_eq!(int_div(-8, 2), -4.0); // an exact multiple stays exact
    assert_eq!(int_div(-1440, 720), -2.0);
    assert_eq!(int_div(-719, 720), 0.0);
    assert_eq!(int_div(-19, 20), 0.0);
    assert_eq!(int_div(0, 5), 0.0);
    // Every numerator of Ethereal's ranges by each of its constant divisors (and a few odd
    // ones), against Rust's `/` on integers, which truncates as C's does.
    for d in [720, 20, 128, 24, 3, -7, 1, -1] {
        for n in -5000..=5000 {
            assert_eq!(int_div(n, d), (n / d) as f64, "{n} / {d}");
        }
    }
    for n in [
        i64::from(i32::MAX),
        -i64::from(i32::MAX),
        45_000 * 45_000 + 719,
    ] {
        assert_eq!(int_div(n, 720), (n / 720) as f64, "{n} / 720");
    }
}

/// An environment of the variables `x` and `y` in the given arithmetic.
struct Vars<S> {
    x: S,
    y: S,
    arithmetic: Arithmetic,
}

impl<S: Scalar> Env<Name, S> for Vars<S> {
    fn leaf(&self, n: &Name) -> Result<S, EvalError> {
        match n.name.as_str() {
            "x" => Ok(self.x),
            "y" => Ok(self.y),
            other => Err(EvalError::Unknown {
                name: other.to_string(),
            }),
        }
    }

    fn arithmetic(&self) -> Arithmetic {
        self.arithmetic
    }
}

#[test]
fn real_arithmetic_reads_trunc_as_its_argument_with_its_derivative() {
    let e = Expr::parse("trunc(-x * y / 720) + trunc(x / 20)").unwrap();
    let at = |x: f64, y: f64, arithmetic| e.root.eval::<f64>(&Vars { x, y, arithmetic }).unwrap();
    assert_eq!(at(-1000.0, 7.0, Arithmetic::Integer), 9.0 - 50.0);
    let real = at(-1000.0, 7.0, Arithmetic::Real);
    assert!((real - (7000.0 / 720.0 - 50.0)).abs() < 1e-12, "{real}");
    // The gradient on the tape and in forward mode: the real division's in real arithmetic,
    // zero (a step function) in the engine's.
    for (arithmetic, want) in [
        (
            Arithmetic::Real,
            [-7.0 / 720.0 + 1.0 / 20.0, 1000.0 / 720.0],
        ),
        (Arithmetic::Integer, [0.0, 0.0]),
    ] {
        let mut g = [0.0; 2];
        Tape::new().record(|rec| {
            let v = rec.inputs(&[-1000.0, 7.0]);
            let q: Var = e
                .root
                .eval(&Vars {
                    x: v[0],
                    y: v[1],
                    arithmetic,
                })
                .unwrap();
            assert_eq!(q.value(), at(-1000.0, 7.0, arithmetic));
            rec.gradient(q, &mut g);
        });
        for (k, w) in want.iter().enumerate() {
            assert!(
                (g[k] - w).abs() < 1e-15,
                "{arithmetic:?}: {g:?} against {want:?}"
            );
            let (x, y) = if k == 0 {
                (Dual::variable(-1000.0, 1.0), Dual::constant(7.0))
            } else {
                (Dual::constant(-1000.0), Dual::variable(7.0, 1.0))
            };
            let d = e.root.eval(&Vars { x, y, arithmetic }).unwrap();
            assert!(
                (d.derivative() - w).abs() < 1e-15,
                "{arithmetic:?}: dual {k}"
            );
        }
    }
}

#[test]
fn trunc_is_reserved_and_takes_one_argument() {
    let err = Expr::parse("trunc(x, 2)").unwrap_err();
    assert!(err.message.contains("takes 1 argument"), "{err}");
    let json = r#"{"format": "gradtune-manifest", "version": 1, "engine": "e", "score": "white",
        "phase": {"max": 24}, "params": [{"name": "trunc", "shape": [], "value": [1, 2]}]}"#;
    let err = trace::Manifest::from_json(json, "m.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("reserved"), "{err}");
}

#[test]
fn the_documented_taper_example() {
    // docs/trace-format.md, "Integer division": Ethereal's taper at mg 37, eg -61, phase 10,
    // scale 96 is -11 in the engine's arithmetic (floor would give -12), -11.27 in real numbers.
    let e =
        Expr::parse("trunc((mg * phase + trunc(eg * (24 - phase) * scale / 128)) / 24)").unwrap();
    let v = e
        .eval_f64(&|name, _, _| match name {
            "mg" => Some(37.0),
            "eg" => Some(-61.0),
            "phase" => Some(10.0),
            "scale" => Some(96.0),
            _ => None,
        })
        .unwrap();
    assert_eq!(v, -11.0);
    let (mg, eg) = (Dual::variable(37.0, 1.0), Dual::variable(-61.0, 0.0));
    let real = |mg: Dual, eg: Dual| {
        struct Taper(Dual, Dual);
        impl Env<Name, Dual> for Taper {
            fn leaf(&self, n: &Name) -> Result<Dual, EvalError> {
                Ok(match n.name.as_str() {
                    "mg" => self.0,
                    "eg" => self.1,
                    "phase" => Dual::constant(10.0),
                    _ => Dual::constant(96.0),
                })
            }
            fn arithmetic(&self) -> Arithmetic {
                Arithmetic::Real
            }
        }
        e.root.eval(&Taper(mg, eg)).unwrap()
    };
    let d = real(mg, eg);
    assert!(
        (d.value() - (370.0 - 640.5) / 24.0).abs() < 1e-12,
        "{}",
        d.value()
    );
    assert!((d.derivative() - 10.0 / 24.0).abs() < 1e-15);
    let d = real(Dual::constant(37.0), Dual::variable(-61.0, 1.0));
    assert!((d.derivative() - 14.0 * 96.0 / (128.0 * 24.0)).abs() < 1e-15);
}
