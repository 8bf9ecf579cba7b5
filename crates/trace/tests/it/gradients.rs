//! Exact gradients through declared terms: `evaluate::<tape::Var>`'s gradient against central
//! finite differences and against forward-mode `tape::Dual`, for each non-linear form the
//! design names (Ethereal king safety, complexity clamp, scale, sigmoid, a product of two
//! parameters, truncating divisions in the tuning objective's real arithmetic). Weights and
//! positions keep every kink (max, abs, sign) well away, so finite differences are valid there.
//!
//! Tolerances: Var against Dual, relative 1e-12 (both exact, only rounding differs); Var against
//! central differences with step 1e-5, relative 1e-6 of max(1, |gradient|) (truncation is
//! O(h^2) and rounding O(eps |f| / h), both far below).

use crate::common;

use common::{fixture, manifest, random_traces};
use tape::{Dual, Scalar, Tape};
use trace::expr::Arithmetic;
use trace::{Manifest, Trace};

const FD_STEP: f64 = 1e-5;
const FD_REL: f64 = 1e-6;
const DUAL_REL: f64 = 1e-12;

fn check(m: &Manifest, traces: &[Trace], w: &[f64]) {
    check_as(m, traces, w, Arithmetic::Integer);
}

/// [`check`] of `m.evaluate_as(.., arithmetic)`.
fn check_as(m: &Manifest, traces: &[Trace], w: &[f64], arithmetic: Arithmetic) {
    assert!(!traces.is_empty());
    let n = w.len();
    let mut tape = Tape::new();
    for (ti, t) in traces.iter().enumerate() {
        let value: f64 = m.evaluate_as(t, w, arithmetic).unwrap();
        let mut grad = vec![0.0; n];
        tape.record(|rec| {
            let x = rec.inputs(w);
            let v = m.evaluate_as(t, &x, arithmetic).unwrap();
            assert_eq!(v.value(), value, "trace {ti}: Var value");
            rec.gradient(v, &mut grad);
        });
        for k in 0..n {
            let d: Vec<Dual> = w
                .iter()
                .enumerate()
                .map(|(j, &x)| Dual::variable(x, if j == k { 1.0 } else { 0.0 }))
                .collect();
            let dv = m.evaluate_as(t, &d, arithmetic).unwrap();
            let g = grad[k];
            assert!(
                (dv.derivative() - g).abs() <= DUAL_REL * g.abs().max(1.0),
                "trace {ti} weight {} ({}): tape {g} dual {}",
                k,
                m.weights()[k].name,
                dv.derivative()
            );
            let mut wp = w.to_vec();
            let mut wm = w.to_vec();
            let h = FD_STEP * w[k].abs().max(1.0);
            wp[k] += h;
            wm[k] -= h;
            let fp: f64 = m.evaluate_as(t, &wp, arithmetic).unwrap();
            let fm: f64 = m.evaluate_as(t, &wm, arithmetic).unwrap();
            let fd = (fp - fm) / (2.0 * h);
            assert!(
                (fd - g).abs() <= FD_REL * g.abs().max(1.0),
                "trace {ti} weight {} ({}): tape {g} central difference {fd}",
                k,
                m.weights()[k].name
            );
        }
    }
}

#[test]
fn ethereal_king_safety() {
    // Ethereal: safety = sum of attack weights (+ a constant), then mg -= max(safety, 0)^2 / 720
    // and eg -= max(safety, 0) / 20, per side.
    let m = manifest(
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "e", "score": "white",
        "phase": {"max": 24},
        "params": [
          {"name": "material", "shape": [2], "value": [[100, 120], [300, 280]]},
          {"name": "ks_attack", "shape": [3], "sum": "ks", "integer": false,
           "value": [[40, 11], [25, 7], [60, 13]]},
          {"name": "ks_base", "shape": [], "sum": "ks", "integer": false, "value": [5, 3]}
        ],
        "terms": [{"name": "king_safety", "sum": "ks", "per_side": true,
          "mg": "-max(s, 0) ^ 2 / 720", "eg": "-max(s, 0) / 20"}]}"#,
    );
    // ks_base is traced with count 1 for both sides: every sum is positive.
    let mut traces = random_traces(&m, 1, &[0, 1, 2, 3, 4], &[], 12);
    for t in &mut traces {
        t.coeffs.push((5, 1.0, 1.0));
    }
    check(&m, &traces, &m.initial_weights());
}

#[test]
fn truncating_divisions_are_tuned_as_real_divisions() {
    // Ethereal's king safety and taper as it computes them, every division truncating, and
    // the same without `trunc`.
    let json = r#"{"format": "gradtune-manifest", "version": 1, "engine": "e", "score": "white",
        "phase": {"max": 24}, "scale": {"max": 128},
        "params": [
          {"name": "material", "shape": [2], "value": [[100, 120], [300, 280]]},
          {"name": "ks_attack", "shape": [3], "sum": "ks", "value": [[40, 11], [25, 7], [60, 13]]},
          {"name": "ks_base", "shape": [], "sum": "ks", "value": [5, 3]}
        ],
        "terms": [{"name": "king_safety", "sum": "ks", "per_side": true,
          "mg": "trunc(-max(s, 0) ^ 2 / 720)", "eg": "trunc(-max(s, 0) / 20)"}],
        "eval": "trunc((mg * phase + trunc(eg * (24 - phase) * scale / 128)) / 24)"}"#;
    let m = manifest(json);
    let real = manifest(&json.replace("trunc", ""));
    let mut traces = random_traces(&m, 1, &[0, 1, 2, 3, 4], &[], 12);
    for t in &mut traces {
        t.coeffs.push((5, 1.0, 1.0)); // every sum positive: max(s, 0) away from its kink
    }
    // Weights off the integers, so that no truncation lands on a whole number.
    let w: Vec<f64> = m.initial_weights().iter().map(|x| x + 0.3).collect();
    check_as(&m, &traces, &w, Arithmetic::Real);
    let mut tape = Tape::new();
    let mut truncated = 0;
    for t in &traces {
        // Real arithmetic is the manifest without `trunc`, to the last bit.
        let r: f64 = m.evaluate_real(t, &w).unwrap();
        assert_eq!(r, real.evaluate::<f64>(t, &w).unwrap());
        // The engine's arithmetic is a whole number within the truncations of it: the
        // taper's two and the safety's (divided by 24 / phase through the taper).
        let v: f64 = m.evaluate(t, &w).unwrap();
        assert_eq!(v, v.trunc(), "{v}");
        assert!((v - r).abs() < 3.0, "integer {v}, real {r}");
        truncated += usize::from(v != r);
        // ... and a step function: its tape gradient is zero (nothing to tune).
        let mut g = vec![1.0; w.len()];
        tape.record(|rec| {
            let x = rec.inputs(&w);
            let q = m.evaluate(t, &x).unwrap();
            rec.gradient(q, &mut g);
        });
        assert!(g.iter().all(|&d| d == 0.0), "{g:?}");
    }
    assert!(truncated > 0);
}

#[test]
fn complexity_clamp() {
    // Ethereal's complexity: eg += sign(eg) * max(complexity, -|eg|).
    let m = manifest(
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "e", "score": "white",
        "phase": {"max": 24},
        "params": [
          {"name": "material", "shape": [2], "value": [[100, 220], [300, 480]]},
          {"name": "complexity", "shape": [3], "tapered": false, "sum": "c", "integer": false,
           "value": [9.5, 11, -42]}
        ],
        "features": ["pawns"],
        "terms": [{"name": "complexity", "sum": "c",
          "eg": "sign(eg) * max(s + 2 * pawns, -abs(eg))"}]}"#,
    );
    let traces = random_traces(&m, 2, &[0, 1, 2, 3, 4], &[("pawns", 8)], 12);
    let w = m.initial_weights();
    // Keep away from the kinks: eg clearly non-zero, the max not tied.
    let traces: Vec<Trace> = traces
        .into_iter()
        .filter(|t| {
            let mut e = 0.0;
            let mut s = 0.0;
            for &(i, a, b) in &t.coeffs {
                let d = f64::from(a - b);
                match i {
                    0 => e += 220.0 * d,
                    1 => e += 480.0 * d,
                    2 => s += 9.5 * d,
                    3 => s += 11.0 * d,
                    _ => s += -42.0 * d,
                }
            }
            let (pw, pb) = t.feature(0);
            s += 2.0 * (pw - pb);
            e.abs() > 1.0 && (s - (-e.abs())).abs() > 1.0
        })
        .collect();
    assert!(traces.len() >= 4, "{} traces left", traces.len());
    check(&m, &traces, &w);
}

#[test]
fn scale_in_the_default_formula_and_a_learned_scale_factor() {
    let m = manifest(
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "e", "score": "side_to_move",
        "phase": {"max": 24}, "scale": {"max": 128},
        "params": [
          {"name": "material", "shape": [3], "value": [[100, 120], [300, 280], [500, 540]]},
          {"name": "sf", "shape": [], "tapered": false, "integer": false, "value": 0.75}
        ],
        "eval": "(mg * phase + eg * (phase_max - phase) * scale * sf / scale_max) / phase_max"}"#,
    );
    assert!(!m.is_linear());
    let traces = random_traces(&m, 3, &[0, 1, 2], &[], 12);
    check(&m, &traces, &m.initial_weights());
    // The same without the learned factor: the trace's scale enters the default formula.
    let plain = fixture();
    let traces = random_traces(&plain, 4, &[0, 1, 2, 6, 7, 28], &[("king_attackers", 1)], 8);
    let mut w = plain.initial_weights();
    w[plain.index_of("ks_weight[0]").unwrap()] = 0.0;
    check(&plain, &traces, &w);
}

#[test]
fn sigmoid_term() {
    let m = manifest(
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "e", "score": "white",
        "phase": {"max": 24},
        "params": [
          {"name": "material", "shape": [2], "value": [[100, 120], [300, 280]]},
          {"name": "threat", "shape": [2], "sum": "t", "integer": false, "value": [[14, 9], [31, 6]]},
          {"name": "ks_max", "shape": [], "integer": false, "value": [80, 35]},
          {"name": "ks_mid", "shape": [], "tapered": false, "integer": false, "value": 50}
        ],
        "terms": [{"name": "threats", "sum": "t", "per_side": true,
          "mg": "ks_max * sigmoid((s - ks_mid) / 20)", "eg": "ks_max * sigmoid((s - ks_mid) / 20)"}]}"#,
    );
    let traces = random_traces(&m, 5, &[0, 1, 2, 3], &[], 12);
    check(&m, &traces, &m.initial_weights());
}

#[test]
fn product_of_two_parameters() {
    // Berserk: king danger = ks_weight[attacker count] * sum of attack weights.
    let m = fixture();
    let traces = random_traces(
        &m,
        6,
        &[0, 3, 9, 14, 15, 16, 17, 26, 27, 28],
        &[("king_attackers", 8), ("pawns", 8)],
        16,
    );
    let w = m.initial_weights();
    // Every ks sum is positive (all ks_attack weights are), so max(s, 0) never ties. The
    // complexity max could tie on some position in principle; with this seed none of these 16
    // does (a tie would show as a finite-difference mismatch, never be hidden).
    let ok = traces;
    check(&m, &ok, &w);
    // The gradient with respect to the head parameter is non-zero where it is used.
    let t = &ok[0];
    let k = m
        .index_of(&format!("ks_weight[{}]", t.feature(0).0))
        .unwrap();
    let mut tape = Tape::new();
    let mut g = vec![0.0; w.len()];
    tape.record(|rec| {
        let x = rec.inputs(&w);
        let v = m.evaluate(t, &x).unwrap();
        rec.gradient(v, &mut g);
    });
    let attacks = t
        .coeffs
        .iter()
        .any(|c| (14..18).contains(&c.0) && c.1 > 0.0);
    assert_eq!(g[k] != 0.0, attacks, "d/d ks_weight = {}", g[k]);
}
