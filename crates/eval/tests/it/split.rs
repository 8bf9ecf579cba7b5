//! The `full` model's split into linear sums and a shared head ([`eval::Model::split`]):
//! on real positions, `head(sums)` is the evaluation and the hand-derived
//! [`eval::Split::head_gradient`] is the tape's derivative of [`eval::Model::head`], kinks
//! included.
//!
//! Tolerances (stated once, never loosened to pass):
//! * `head(dot(w, sums))` vs `evaluate`: `1e-9 * (1 + |x|)` (the sums are added in another order);
//! * `head_gradient` vs the tape, value and every partial: `1e-12 * (1 + |x|)` (the same
//!   operations in the same order; rounding only).

use crate::common;

use eval::{Model, ModelKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tape::{Scalar, Tape};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// The tape's value and gradient of the head at `(s, h)`.
fn tape_head(model: &Model, s: &[f64], h: &[f64]) -> (f64, Vec<f64>) {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let x: Vec<f64> = s.iter().chain(h).copied().collect();
        let v = rec.inputs(&x);
        let y = model.head(&v[..s.len()], &v[s.len()..]);
        let mut g = vec![0.0; x.len()];
        rec.gradient(y, &mut g);
        (y.value(), g)
    })
}

fn check_head(model: &Model, s: &[f64], h: &[f64], what: &str) {
    let split = model.split().expect("full has a split");
    let (v, g) = tape_head(model, s, h);
    let mut hg = vec![f64::NAN; g.len()];
    let hv = (split.head_gradient)(s, h, &mut hg);
    assert!(close(hv, v, 1e-12), "{what}: value {hv} vs tape {v}");
    for (j, (a, b)) in hg.iter().zip(&g).enumerate() {
        assert!(
            close(*a, *b, 1e-12),
            "{what}: d/dx{j} {a} vs tape {b} at s={s:?} h={h:?}"
        );
    }
}

#[test]
fn sums_and_head_are_the_evaluation_on_real_positions() {
    let model = Model::new(ModelKind::Full);
    let split = model.split().expect("full has a split");
    let default = model.default_weights();
    let random = common::random_weights(&model, 11);
    let mut sums = Vec::new();
    let mut on_clamp = 0;
    for pos in common::positions() {
        assert!(model.sums(pos, &mut sums));
        assert_eq!(sums.len(), split.sums);
        // The twins: the same coefficients on (mg, eg) pairs, term by term.
        let (a, b) = split.twins.expect("twins");
        assert_eq!(sums[a].len(), sums[b].len());
        for (x, y) in sums[a].iter().zip(&sums[b]) {
            assert_eq!(x.1, y.1);
            let (m, e) = (
                &model.params()[x.0 as usize].name,
                &model.params()[y.0 as usize].name,
            );
            assert_eq!(m.replace(".mg", ".eg"), *e, "twin of {m}");
        }
        for w in [&default, &random] {
            let s: Vec<f64> = sums
                .iter()
                .map(|t| t.iter().map(|&(i, c)| c * w[i as usize]).sum())
                .collect();
            let h: Vec<f64> = split.head_params.iter().map(|&i| w[i as usize]).collect();
            let direct: f64 = model.evaluate(pos, w);
            assert!(close(model.head(&s, &h), direct, 1e-9), "{direct}");
            check_head(&model, &s, &h, "real position");
            let total: f64 = [16.0, 4.0, 4.0, 4.0, 2.0]
                .iter()
                .zip(&h[1..])
                .map(|(c, x)| c * x)
                .sum();
            on_clamp += usize::from(s[4] >= total);
        }
    }
    // Default weights put every position with all its pieces exactly on the clamp's kink.
    assert!(
        on_clamp > 10,
        "only {on_clamp} positions on the phase clamp"
    );
}

#[test]
fn head_gradient_matches_the_tape_on_the_kinks() {
    let model = Model::new(ModelKind::Full);
    let h = [1.0, 0.0, 1.0, 1.0, 2.0, 4.0]; // total 24
    let cases: [[f64; 5]; 8] = [
        [120.0, -40.0, 0.0, 0.0, 12.0],   // |danger| kinks, both sides
        [120.0, -40.0, 35.0, -8.0, 24.0], // phase exactly on the upper clamp
        [120.0, -40.0, 35.0, 8.0, 0.0],   // phase exactly on the lower clamp
        [120.0, -40.0, 35.0, 8.0, -3.0],  // below it
        [120.0, -40.0, -35.0, 8.0, 30.0], // above it
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [-7.0, 3.0, 1e-3, -1e-3, 23.999],
        [50.0, 60.0, 20.0, 20.0, 7.0],
    ];
    for s in &cases {
        check_head(&model, s, &h, "kink case");
    }
    // total = max(raw, 1) exactly on its kink, below it, and q = 0.
    for h in [
        [1.0, 0.0, 0.25, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.1, 0.0, 0.0, 0.0],
        [0.0, 0.5, 1.0, 1.0, 2.0, 4.0],
    ] {
        for s in &cases {
            check_head(&model, s, &h, "total kink case");
        }
    }
    // Random points.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..2000 {
        let s: Vec<f64> = (0..5).map(|_| rng.gen_range(-300.0..300.0)).collect();
        let h: Vec<f64> = (0..6).map(|_| rng.gen_range(-2.0..5.0)).collect();
        check_head(&model, &s, &h, "random point");
    }
}
