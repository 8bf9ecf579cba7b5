//! Evaluation speed over 1,000 real positions (`quiet-labeled-1k.epd`), both models:
//!
//! * `eval_f64/<model>`: the static evaluation in plain `f64` through the generic
//!   `Model::evaluate` (term lists, then one dot product per sum);
//! * `evaluate_f64/<model>`: `Model::evaluate_f64`, the running-sum copy the search calls at
//!   every node;
//! * `record_gradient/<model>`: recording the evaluation on a tape and sweeping it backwards,
//!   per position, as the tuner does it (inputs recorded once, then per position: evaluate,
//!   `backward`, `rewind` to the mark; the gradient is taken once at the end);
//! * `linear_terms/psqt`: the sparse linear form of the `psqt` evaluation, without a tape;
//! * `is_quiet/<model>`: the quiescence filter (static evaluation == quiescence score);
//! * `compile/<model>`: recording a position and compiling it into a replayable `Program`.
//!
//! Criterion reports throughput in positions per second. Run with `cargo bench -p eval`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eval::{Model, ModelKind};
use tape::{Scalar, Tape};

#[path = "../tests/common/mod.rs"]
mod common;

fn bench(c: &mut Criterion) {
    let positions = common::epd_positions();
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = common::random_weights(&model, 1);

        let mut g = c.benchmark_group("eval_f64");
        g.throughput(Throughput::Elements(positions.len() as u64));
        g.bench_function(kind.name(), |b| {
            b.iter(|| {
                let mut sum = 0.0;
                for pos in &positions {
                    let e: f64 = model.evaluate(pos, &w);
                    sum += e;
                }
                black_box(sum)
            })
        });
        g.finish();

        let mut g = c.benchmark_group("evaluate_f64");
        g.throughput(Throughput::Elements(positions.len() as u64));
        g.bench_function(kind.name(), |b| {
            b.iter(|| {
                let mut sum = 0.0;
                for pos in &positions {
                    sum += model.evaluate_f64(pos, &w);
                }
                black_box(sum)
            })
        });
        g.finish();

        let mut g = c.benchmark_group("record_gradient");
        g.throughput(Throughput::Elements(positions.len() as u64));
        let mut tape = Tape::new();
        let mut grad = vec![0.0; model.len()];
        g.bench_function(kind.name(), |b| {
            b.iter(|| {
                tape.record(|rec| {
                    let vars = rec.inputs(&w);
                    let mark = rec.mark();
                    let mut sum = 0.0;
                    for pos in &positions {
                        let y = model.evaluate(pos, &vars);
                        sum += y.value();
                        rec.backward(y, 1.0, mark);
                        rec.rewind(mark);
                    }
                    rec.take_gradient(&mut grad);
                    black_box((sum, grad[0]))
                })
            })
        });
        g.finish();

        if model.is_linear() {
            let mut g = c.benchmark_group("linear_terms");
            g.throughput(Throughput::Elements(positions.len() as u64));
            let mut terms = Vec::new();
            g.bench_function(kind.name(), |b| {
                b.iter(|| {
                    let mut n = 0;
                    for pos in &positions {
                        model.linear_terms(pos, &mut terms);
                        n += terms.len();
                    }
                    black_box(n)
                })
            });
            g.finish();
        }

        let mut g = c.benchmark_group("is_quiet");
        g.throughput(Throughput::Elements(positions.len() as u64));
        g.bench_function(kind.name(), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .filter(|pos| eval::is_quiet(&model, pos, &w))
                    .count()
            })
        });
        g.finish();

        let mut g = c.benchmark_group("compile");
        g.throughput(Throughput::Elements(positions.len() as u64));
        let mut tape = Tape::new();
        g.bench_function(kind.name(), |b| {
            b.iter(|| {
                tape.record(|rec| {
                    let vars = rec.inputs(&w);
                    let mark = rec.mark();
                    let mut terms = 0;
                    for pos in &positions {
                        let y = model.evaluate(pos, &vars);
                        terms += rec.compile(y).terms();
                        rec.rewind(mark);
                    }
                    black_box(terms)
                })
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
