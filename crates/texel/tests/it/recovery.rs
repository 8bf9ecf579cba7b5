//! Parameter recovery: label positions by the expected result under a known weight vector
//! `w*` of the project's `psqt` evaluation, tune from the default start, and recover `w*`.
//!
//! Exact recovery (soft labels): each position's label is `sigma_K(q(w*))` itself, so the
//! squared-error objective is exactly zero at `w*` and nowhere lower. Free: the ten material
//! values and six piece-square entries; everything else frozen at the default start (where
//! `w*` agrees). Tolerances (every free parameter, in centipawns): L-BFGS and Gauss-Newton
//! within 0.5; Adam (constant step 0.5 cp, which it keeps jittering by) within 2.
//!
//! Drawn results: each position's result is drawn (win or loss) with probability
//! `sigma_K(q(w2))`, `w2` the start with the middlegame material of `w*`; 12,000 random
//! positions (in which the middlegame values are the identifiable ones), those five values
//! free; L-BFGS and Gauss-Newton recover each within four times its sampling error measured
//! over six seeds ([`DRAWN_TOL`]).

use crate::common;

use std::sync::{Arc, OnceLock};

use eval::{Model, ModelKind};
use optim::{
    run, Budget, Control, Link, Method, Objective, ObjectiveConfig, RunConfig, SolverOptions,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Chess;
use tapered::Target;
use texel::chess::{record_positions, Leaf};

const K: f64 = 1.2;

/// Tolerances of the drawn-results test, in centipawns, for the middlegame pawn, knight,
/// bishop, rook and queen: four times the root-mean-square error over six seeds (11 to 16) of
/// `print_drawn_errors` (3.7, 13.5, 18, 23.7, 37.7 cp).
const DRAWN_TOL: [f64; 5] = [15.0, 54.0, 72.0, 95.0, 151.0];

const TRUE_MATERIAL: [(&str, f64); 10] = [
    ("material.pawn.mg", 82.0),
    ("material.pawn.eg", 94.0),
    ("material.knight.mg", 337.0),
    ("material.knight.eg", 281.0),
    ("material.bishop.mg", 365.0),
    ("material.bishop.eg", 297.0),
    ("material.rook.mg", 477.0),
    ("material.rook.eg", 512.0),
    ("material.queen.mg", 1025.0),
    ("material.queen.eg", 936.0),
];

const PST_SHIFT: [(&str, f64); 6] = [
    ("pst.knight.mg.g1", -15.0),
    ("pst.knight.mg.f3", 12.0),
    ("pst.bishop.mg.c1", -10.0),
    ("pst.pawn.mg.e2", 8.0),
    ("pst.queen.eg.d1", 20.0),
    ("pst.king.mg.e1", -6.0),
];

fn link() -> Link {
    Link::texel(K)
}

struct Case {
    model: Model,
    start: Vec<f64>,
    truth: Vec<f64>,
    free: Vec<usize>,
    positions: Vec<Chess>,
}

fn case() -> &'static Case {
    static CASE: OnceLock<Case> = OnceLock::new();
    CASE.get_or_init(|| {
        let model = Model::new(ModelKind::Psqt);
        let start = model.default_weights();
        let mut truth = start.clone();
        let mut free = Vec::new();
        for (name, v) in TRUE_MATERIAL {
            let i = model.index_of(name).expect(name);
            truth[i] = v;
            free.push(i);
        }
        for (name, d) in PST_SHIFT {
            let i = model.index_of(name).expect(name);
            truth[i] += d;
            free.push(i);
        }
        Case {
            positions: common::random_positions(12_000, 7),
            model,
            start,
            truth,
            free,
        }
    })
}

/// The training objective with soft labels over the first `n` positions.
fn soft_objective(n: usize, free: &[usize]) -> Arc<Objective> {
    let c = case();
    let link = link();
    let labelled: Vec<(Chess, Target)> = c.positions[..n]
        .iter()
        .map(|p| {
            let q: f64 = c.model.evaluate(p, &c.truth);
            (
                p.clone(),
                Target {
                    value: link.expect(q),
                    score: None,
                    group: 0,
                },
            )
        })
        .collect();
    let set = record_positions(&c.model, &labelled, &c.start, Leaf::Static, None);
    Arc::new(
        Objective::new(
            Arc::new(set),
            ObjectiveConfig::new(link),
            c.start.clone(),
            Some(free.to_vec()),
        )
        .unwrap(),
    )
}

fn tune(obj: Arc<Objective>, method: Method, solvers: SolverOptions, iters: u64) -> Vec<f64> {
    let cfg = RunConfig {
        method,
        budget: Budget::iterations(iters),
        solvers,
        ..RunConfig::default()
    };
    let out = run(obj, None, &case().start, &cfg, Arc::new(Control::new())).unwrap();
    assert!(out.train_loss.1 < out.train_loss.0);
    out.weights
}

fn assert_recovered(w: &[f64], free: &[usize], tol: f64, what: &str) {
    let c = case();
    let mut worst = (0.0f64, String::new());
    for &i in free {
        let err = (w[i] - c.truth[i]).abs();
        if err > worst.0 {
            worst = (err, c.model.params()[i].name.clone());
        }
    }
    assert!(
        worst.0 <= tol,
        "{what}: {} is off by {:.4} cp (tolerance {tol})",
        worst.1,
        worst.0
    );
    // The frozen parameters never move.
    for (i, (a, b)) in w.iter().zip(&c.start).enumerate() {
        if !free.contains(&i) {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn lbfgs_recovers_the_true_weights() {
    let free = case().free.clone();
    let obj = soft_objective(4000, &free);
    let w = tune(obj, Method::Lbfgs, SolverOptions::default(), 300);
    assert_recovered(&w, &free, 0.5, "lbfgs");
}

#[test]
fn gauss_newton_recovers_the_true_weights() {
    let free = case().free.clone();
    let obj = soft_objective(4000, &free);
    let w = tune(obj, Method::GaussNewton, SolverOptions::default(), 50);
    assert_recovered(&w, &free, 0.5, "gauss-newton");
}

#[test]
fn gauss_newton_conjugate_gradient_path_recovers_the_true_weights() {
    let free = case().free.clone();
    let obj = soft_objective(4000, &free);
    let mut solvers = SolverOptions::default();
    solvers.gauss_newton.dense_max = 0; // force the matrix-free path
    let w = tune(obj, Method::GaussNewton, solvers, 50);
    assert_recovered(&w, &free, 0.5, "gauss-newton (CG)");
}

#[test]
fn adam_recovers_the_true_weights() {
    let free = case().free.clone();
    let obj = soft_objective(4000, &free);
    let mut solvers = SolverOptions::default();
    solvers.adam.lr = 0.5;
    let w = tune(obj, Method::Adam, solvers, 3000);
    assert_recovered(&w, &free, 2.0, "adam");
}

/// Labels drawn from `sigma_K(q(w2))`, where `w2` is the default start with the
/// middlegame material values of `w*` (so the frozen parameters are exact).
fn drawn_objective(n: usize, free: &[usize], seed: u64) -> (Arc<Objective>, Vec<f64>) {
    let c = case();
    let link = link();
    let mut truth = c.start.clone();
    for &i in free {
        truth[i] = c.truth[i];
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let labelled: Vec<(Chess, Target)> = c.positions[..n]
        .iter()
        .map(|p| {
            let q: f64 = c.model.evaluate(p, &truth);
            let r = if rng.gen::<f64>() < link.expect(q) {
                1.0
            } else {
                0.0
            };
            (
                p.clone(),
                Target {
                    value: r,
                    score: None,
                    group: 0,
                },
            )
        })
        .collect();
    let set = record_positions(&c.model, &labelled, &c.start, Leaf::Static, None);
    let obj = Objective::new(
        Arc::new(set),
        ObjectiveConfig::new(link),
        c.start.clone(),
        Some(free.to_vec()),
    )
    .unwrap();
    (Arc::new(obj), truth)
}

fn mg_material() -> Vec<usize> {
    let c = case();
    TRUE_MATERIAL
        .iter()
        .filter(|(n, _)| n.ends_with(".mg"))
        .map(|(n, _)| c.model.index_of(n).unwrap())
        .collect()
}

#[test]
fn drawn_results_recover_material_within_sampling_error() {
    let free = mg_material();
    let (obj, truth) = drawn_objective(12_000, &free, 11);
    for method in [Method::Lbfgs, Method::GaussNewton] {
        let w = tune(obj.clone(), method, SolverOptions::default(), 200);
        for (&i, tol) in free.iter().zip(DRAWN_TOL) {
            let err = (w[i] - truth[i]).abs();
            assert!(
                err <= tol,
                "{method}: {} off by {err:.1} cp",
                case().model.params()[i].name
            );
        }
    }
}

#[test]
#[ignore = "manual report: the drawn recovery errors over six seeds"]
fn print_drawn_errors() {
    let c = case();
    let free = mg_material();
    for seed in [11, 12, 13, 14, 15, 16] {
        let (obj, truth) = drawn_objective(12_000, &free, seed);
        let w = tune(
            obj.clone(),
            Method::GaussNewton,
            SolverOptions::default(),
            200,
        );
        let errs: Vec<String> = free
            .iter()
            .map(|&i| format!("{:.1}", w[i] - truth[i]))
            .collect();
        println!("seed {seed}: {}", errs.join(" "));
        let _ = c;
    }
}
