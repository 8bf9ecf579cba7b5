//! Shared gradient-check machinery: one function, three ways to differentiate it.
#![allow(dead_code)]

use tape::{Dual, Program, Scalar, Scratch, Tape};

/// A function of several variables, written once for every `Scalar`.
pub trait Function {
    fn eval<S: Scalar>(&self, x: &[S]) -> S;
}

/// Value and gradient by the tape (fresh recording).
pub fn tape_gradient<F: Function>(f: &F, x: &[f64]) -> (f64, Vec<f64>) {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let v = rec.inputs(x);
        let y = f.eval(&v);
        let mut g = vec![0.0; x.len()];
        rec.gradient(y, &mut g);
        (y.value(), g)
    })
}

/// The compiled program of `f` recorded at `x`.
pub fn compile<F: Function>(f: &F, x: &[f64]) -> Program {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let v = rec.inputs(x);
        let y = f.eval(&v);
        rec.compile(y)
    })
}

/// Value and gradient by replaying a program at `x`.
pub fn replay_gradient(p: &Program, x: &[f64]) -> (f64, Vec<f64>) {
    let mut scratch = Scratch::default();
    let mut g = vec![0.0; x.len()];
    let v = p.value_and_gradient(x, 1.0, &mut scratch, &mut g);
    (v, g)
}

/// The gradient by forward mode: one dual-number pass per coordinate.
pub fn dual_gradient<F: Function>(f: &F, x: &[f64]) -> (f64, Vec<f64>) {
    let mut g = vec![0.0; x.len()];
    let mut value = f64::NAN;
    for (k, gk) in g.iter_mut().enumerate() {
        let d: Vec<Dual> = x
            .iter()
            .enumerate()
            .map(|(j, &v)| Dual::variable(v, if j == k { 1.0 } else { 0.0 }))
            .collect();
        let y = f.eval(&d);
        value = y.value();
        *gk = y.derivative();
    }
    if x.is_empty() {
        value = f.eval::<f64>(&[]);
    }
    (value, g)
}

/// The gradient by central finite differences with step `h * max(1, |x_k|)`.
pub fn fd_gradient<F: Function>(f: &F, x: &[f64], h: f64) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    let mut p = x.to_vec();
    for k in 0..x.len() {
        let step = h * x[k].abs().max(1.0);
        p[k] = x[k] + step;
        let up = f.eval::<f64>(&p);
        p[k] = x[k] - step;
        let down = f.eval::<f64>(&p);
        p[k] = x[k];
        g[k] = (up - down) / (2.0 * step);
    }
    g
}

/// `|a - b| <= tol * max(1, |a|, |b|)` for every component, with a message naming the first
/// failure.
pub fn close(a: &[f64], b: &[f64], tol: f64) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("lengths differ: {} vs {}", a.len(), b.len()));
    }
    for (k, (&p, &q)) in a.iter().zip(b).enumerate() {
        let scale = 1f64.max(p.abs()).max(q.abs());
        // Written so that a NaN on either side fails.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !((p - q).abs() <= tol * scale) {
            return Err(format!(
                "component {k}: {p:e} vs {q:e} (difference {:e}, allowed {:e})",
                (p - q).abs(),
                tol * scale
            ));
        }
    }
    Ok(())
}

/// Tape vs dual numbers: both are exact; only rounding differs.
pub const TOL_TAPE_DUAL: f64 = 1e-12;
/// Replay vs fresh recording: the same formulas, summed in another order.
pub const TOL_REPLAY: f64 = 1e-12;
/// Relative step of the central finite differences.
pub const FD_STEP: f64 = 1e-6;
/// Tape vs central differences: truncation O(h^2 f''') plus rounding O(eps f / h), for the
/// smooth functions and domains used here.
pub const TOL_FD: f64 = 1e-6;

/// Runs every check on `f` at `x` (and replays the program recorded at `x` at `x2`).
pub fn check_all<F: Function>(f: &F, x: &[f64], x2: &[f64]) -> Result<(), String> {
    let (tv, tg) = tape_gradient(f, x);
    let plain = f.eval::<f64>(x);
    if tv.to_bits() != plain.to_bits() && !(tv.is_nan() && plain.is_nan()) {
        return Err(format!(
            "tape value {tv:e} differs from f64 value {plain:e}"
        ));
    }
    let (dv, dg) = dual_gradient(f, x);
    close(&[tv], &[dv], TOL_TAPE_DUAL).map_err(|e| format!("value tape vs dual: {e}"))?;
    close(&tg, &dg, TOL_TAPE_DUAL).map_err(|e| format!("gradient tape vs dual at {x:?}: {e}"))?;
    let fg = fd_gradient(f, x, FD_STEP);
    close(&tg, &fg, TOL_FD)
        .map_err(|e| format!("gradient tape vs finite differences at {x:?}: {e}"))?;

    let program = compile(f, x);
    let (rv, rg) = replay_gradient(&program, x);
    close(&[rv], &[tv], TOL_REPLAY).map_err(|e| format!("replayed value at x: {e}"))?;
    close(&rg, &tg, TOL_REPLAY).map_err(|e| format!("replayed gradient at x: {e}"))?;
    let (tv2, tg2) = tape_gradient(f, x2);
    let (rv2, rg2) = replay_gradient(&program, x2);
    close(&[rv2], &[tv2], TOL_REPLAY).map_err(|e| format!("replayed value at x2: {e}"))?;
    close(&rg2, &tg2, TOL_REPLAY).map_err(|e| format!("replayed gradient at x2 {x2:?}: {e}"))?;
    Ok(())
}
