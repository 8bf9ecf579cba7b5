//! Gradient cost relative to the plain `f64` value on a Texel-style loss: 20,000 positions,
//! 30 active features each, 800 weights.
//!
//! * `value_f64`: the loss in plain `f64` (the baseline).
//! * `gradient_fresh`: value and gradient, recording each position on a reused tape (mark,
//!   backward, rewind).
//! * `gradient_replay`: value and gradient by replaying programs of the whole position loss,
//!   compiled once beforehand.
//! * `gradient_replay_eval`: as the optimiser does it: replay each position's compiled
//!   evaluation `q(w)` (a linear program here), and apply the loss head
//!   `(sigmoid(K q) - R)^2` and its derivative in plain `f64`.
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

fn value_f64(positions: &[Position], w: &[f64]) -> f64 {
    positions.iter().map(|p| position_loss(w, p)).sum::<f64>() / positions.len() as f64
}

fn gradient_fresh(positions: &[Position], w: &[f64], tape: &mut Tape, grad: &mut [f64]) -> f64 {
    let n = positions.len() as f64;
    tape.record(|rec| {
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
    })
}

/// The evaluation `q(w)` of a position.
#[inline(always)]
fn evaluate<S: Scalar>(w: &[S], p: &Position) -> S {
    S::dot(w, &p.features)
}

#[inline(always)]
fn position_loss<S: Scalar>(w: &[S], p: &Position) -> S {
    ((evaluate(w, p) * SCALE).sigmoid() - p.result).powi(2)
}

fn compile_all(
    positions: &[Position],
    w: &[f64],
    f: impl Fn(&[tape::Var], &Position) -> tape::Var,
) -> Vec<Program> {
    let mut tape = Tape::new();
    tape.record(|rec| {
        let vars = rec.inputs(w);
        let mark = rec.mark();
        positions
            .iter()
            .map(|p| {
                let program = rec.compile(f(&vars, p));
                rec.rewind(mark);
                program
            })
            .collect()
    })
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

fn gradient_replay_eval(
    programs: &[Program],
    positions: &[Position],
    w: &[f64],
    scratch: &mut Scratch,
    grad: &mut [f64],
) -> f64 {
    let n = programs.len() as f64;
    grad.fill(0.0);
    let mut total = 0.0;
    for (program, p) in programs.iter().zip(positions) {
        let q = program.forward(w, scratch);
        let s = tape::sigmoid_f64(q * SCALE);
        let r = s - p.result;
        total += r * r;
        program.backward(2.0 * r * s * (1.0 - s) * SCALE / n, scratch, grad);
    }
    total / n
}

fn bench(c: &mut Criterion) {
    let (positions, w) = data();
    let programs = compile_all(&positions, &w, position_loss);
    let eval_programs = compile_all(&positions, &w, evaluate);
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
    group.bench_function("gradient_replay_eval", |b| {
        b.iter(|| {
            gradient_replay_eval(
                black_box(&eval_programs),
                &positions,
                black_box(&w),
                &mut scratch,
                &mut grad,
            )
        })
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
    let programs = compile_all(&positions, &w, position_loss);
    let eval_programs = compile_all(&positions, &w, evaluate);
    assert!(eval_programs.iter().all(Program::is_linear));
    let mut tape = Tape::new();
    let mut scratch = Scratch::default();
    let mut grad = vec![0.0; WEIGHTS];
    // The four computations agree before they are timed.
    let v = value_f64(&positions, &w);
    let fresh = gradient_fresh(&positions, &w, &mut tape, &mut grad);
    let fresh_grad = grad.clone();
    let replay = gradient_replay(&programs, &w, &mut scratch, &mut grad);
    assert!((v - fresh).abs() <= 1e-12 * v.abs().max(1.0));
    assert!((v - replay).abs() <= 1e-12 * v.abs().max(1.0));
    for (a, b) in fresh_grad.iter().zip(&grad) {
        assert!((a - b).abs() <= 1e-12 * a.abs().max(b.abs()) + 1e-18);
    }
    let replay_eval = gradient_replay_eval(&eval_programs, &positions, &w, &mut scratch, &mut grad);
    assert!((v - replay_eval).abs() <= 1e-12 * v.abs().max(1.0));
    for (a, b) in fresh_grad.iter().zip(&grad) {
        assert!((a - b).abs() <= 1e-12 * a.abs().max(b.abs()) + 1e-18);
    }

    // Interleave the measurements so that load from other processes hits all alike.
    let mut best = [f64::INFINITY; 4];
    for _ in 0..10 {
        best[0] = best[0].min(best_of(|| value_f64(&positions, &w)));
        best[1] = best[1].min(best_of(|| {
            gradient_fresh(&positions, &w, &mut tape, &mut grad)
        }));
        best[2] = best[2].min(best_of(|| {
            gradient_replay(&programs, &w, &mut scratch, &mut grad)
        }));
        best[3] = best[3].min(best_of(|| {
            gradient_replay_eval(&eval_programs, &positions, &w, &mut scratch, &mut grad)
        }));
    }
    let [t_value, t_fresh, t_replay, t_replay_eval] = best;
    println!();
    println!("texel loss, {POSITIONS} positions x {FEATURES} features, {WEIGHTS} weights (best of 400, one thread):");
    let line = |name: &str, t: f64| {
        println!(
            "  {name:<40} {:8.3} ms  {:6.1} ns/position  ratio {:.2}x",
            t * 1e3,
            t * 1e9 / POSITIONS as f64,
            t / t_value
        )
    };
    line("value, f64", t_value);
    line("value and gradient, fresh recording", t_fresh);
    line("value and gradient, replay of the loss", t_replay);
    line("value and gradient, replay of q + f64 head", t_replay_eval);
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios();
}
