//! Gradient cost relative to the plain `f64` value on a Texel-style loss: 20,000 positions,
//! 30 active features each, 800 weights.
//!
//! * `value_f64`: the loss in plain `f64` (the baseline).
//! * `gradient_fresh`: value and gradient, recording each position on a reused tape (mark,
//!   backward, rewind).
//! * `gradient_replay`: value and gradient by replaying programs compiled once beforehand.
//!
//! Run with `cargo bench -p tape`; after criterion's report the bench prints the two ratios.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tape::{Program, Scalar, Scratch, Tape};

const POSITIONS: usize = 20_000;
const FEATURES: usize = 30;
const WEIGHTS: usize = 800;
const SCALE: f64 = 1.13 * std::f64::consts::LN_10 / 400.0;

struct Position {
    features: Vec<(u32, f64)>,
    result: f64,
}

fn data() -> (Vec<Position>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(20261122);
    let positions = (0..POSITIONS)
        .map(|_| Position {
            features: (0..FEATURES)
                .map(|_| {
                    let c = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                    (rng.gen_range(0..WEIGHTS as u32), c)
                })
                .collect(),
            result: [0.0, 0.5, 1.0][rng.gen_range(0..3)],
        })
        .collect();
    let weights = (0..WEIGHTS).map(|_| rng.gen_range(-100.0..100.0)).collect();
    (positions, weights)
}

#[inline(always)]
fn position_loss<S: Scalar>(w: &[S], p: &Position) -> S {
    let q = S::dot(w, &p.features);
    ((q * SCALE).sigmoid() - p.result).powi(2)
}

fn value_f64(positions: &[Position], w: &[f64]) -> f64 {
    positions.iter().map(|p| position_loss(w, p)).sum::<f64>() / positions.len() as f64
}

fn gradient_fresh(positions: &[Position], w: &[f64], tape: &mut Tape, grad: &mut [f64]) -> f64 {
    let n = positions.len() as f64;
    let mut rec = tape.record();
    let vars = rec.inputs(w);
    let mark = rec.mark();
    let mut total = 0.0;
    for p in positions {
        let l = position_loss(&vars, p);
        total += l.value();
        rec.backward(l, 1.0 / n, mark);
        rec.rewind(mark);
    }
    rec.take_gradient(grad);
    total / n
}

fn compile_all(positions: &[Position], w: &[f64]) -> Vec<Program> {
    let mut tape = Tape::new();
    let mut rec = tape.record();
    let vars = rec.inputs(w);
    let mark = rec.mark();
    positions
        .iter()
        .map(|p| {
            let l = position_loss(&vars, p);
            let program = rec.compile(l);
            rec.rewind(mark);
            program
        })
        .collect()
}

fn gradient_replay(
    programs: &[Program],
    w: &[f64],
    scratch: &mut Scratch,
    grad: &mut [f64],
) -> f64 {
    let n = programs.len() as f64;
    grad.fill(0.0);
    let mut total = 0.0;
    for p in programs {
        total += p.value_and_gradient(w, 1.0 / n, scratch, grad);
    }
    total / n
}

fn bench(c: &mut Criterion) {
    let (positions, w) = data();
    let programs = compile_all(&positions, &w);
    let mut tape = Tape::new();
    let mut scratch = Scratch::default();
    let mut grad = vec![0.0; WEIGHTS];

    let mut group = c.benchmark_group("texel_20k_positions_30_features_800_weights");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(4));
    group.bench_function("value_f64", |b| {
        b.iter(|| value_f64(black_box(&positions), black_box(&w)))
    });
    group.bench_function("gradient_fresh", |b| {
        b.iter(|| gradient_fresh(black_box(&positions), black_box(&w), &mut tape, &mut grad))
    });
    group.bench_function("gradient_replay", |b| {
        b.iter(|| gradient_replay(black_box(&programs), black_box(&w), &mut scratch, &mut grad))
    });
    group.finish();
}

/// Best-of-many wall time of `f`, for the ratio summary.
fn best_of(mut f: impl FnMut() -> f64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..40 {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn ratios() {
    let (positions, w) = data();
    let programs = compile_all(&positions, &w);
    let mut tape = Tape::new();
    let mut scratch = Scratch::default();
    let mut grad = vec![0.0; WEIGHTS];
    // The three computations agree before they are timed.
    let v = value_f64(&positions, &w);
    let fresh = gradient_fresh(&positions, &w, &mut tape, &mut grad);
    let fresh_grad = grad.clone();
    let replay = gradient_replay(&programs, &w, &mut scratch, &mut grad);
    assert!((v - fresh).abs() <= 1e-12 * v.abs().max(1.0));
    assert!((v - replay).abs() <= 1e-12 * v.abs().max(1.0));
    for (a, b) in fresh_grad.iter().zip(&grad) {
        assert!((a - b).abs() <= 1e-12 * a.abs().max(1e-300).max(b.abs()) + 1e-18);
    }

    let t_value = best_of(|| value_f64(&positions, &w));
    let t_fresh = best_of(|| gradient_fresh(&positions, &w, &mut tape, &mut grad));
    let t_replay = best_of(|| gradient_replay(&programs, &w, &mut scratch, &mut grad));
    println!();
    println!("texel loss, {POSITIONS} positions x {FEATURES} features, {WEIGHTS} weights (best of 40, one thread):");
    println!(
        "  value f64         {:8.3} ms  ({:.1} ns/position)",
        t_value * 1e3,
        t_value * 1e9 / POSITIONS as f64
    );
    println!(
        "  gradient, fresh   {:8.3} ms  ratio {:.2}x",
        t_fresh * 1e3,
        t_fresh / t_value
    );
    println!(
        "  gradient, replay  {:8.3} ms  ratio {:.2}x",
        t_replay * 1e3,
        t_replay / t_value
    );
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios();
}
