//! The objective's gradient against finite differences, K fitting, every optimiser on a real
//! set, validation-based selection, early stopping and interruption.

use crate::common;

use std::sync::Arc;

use eval::{Model, ModelKind};
use optim::regularise::L2Trial;
use optim::{
    fit_k, run, Budget, Control, Link, LossKind, Method, Objective, ObjectiveConfig, RunConfig,
    Sigmoid, SolverOptions,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tapered::Stop;
use tapered::Target;
use texel::chess::{record_positions, Leaf};

fn real_objective(
    kind: ModelKind,
    cfg: impl Fn(Link) -> ObjectiveConfig,
) -> (Model, Arc<Objective>) {
    let model = Model::new(kind);
    let w = model.default_weights();
    let positions = common::quiet_1k();
    let set = Arc::new(record_positions(&model, &positions, &w, Leaf::Static, None));
    let link = Link::texel(1.0);
    let (k, _) = fit_k(&set, &w, link);
    let obj = Objective::new(set, cfg(Link { k, ..link }), w, None).unwrap();
    (model, Arc::new(obj))
}

/// Central differences with step `h` on `samples` random coordinates, for every sigmoid, loss,
/// regularisation and label blend, on the non-linear `full` model.
///
/// Tolerance: `|g_i - fd_i| <= 1e-6 * max_j |g_j| + 1e-12`, with `h = 1e-4` cp: the central
/// difference's truncation error `h^2/6 f'''` and its rounding error `eps f / h` are both far
/// below that. (With `h = 1e-2` one sample in a hundred straddles a kink of the evaluation's
/// `min`/`max`/`clamp` and differs by 1%; that is the finite difference's fault, not the
/// gradient's.)
#[test]
fn gradient_matches_central_differences() {
    let model = Model::new(ModelKind::Full);
    let w0 = model.default_weights();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // Random scores for the blend, and perturbed weights so that no term sits at a kink.
    let positions: Vec<_> = common::quiet_1k()
        .into_iter()
        .map(|(p, l)| {
            let s = rng.gen_range(-300.0..300.0f32);
            (
                p,
                Target {
                    score: Some(s),
                    ..l
                },
            )
        })
        .collect();
    let w: Vec<f64> = w0.iter().map(|v| v + rng.gen_range(-3.0..3.0)).collect();
    let set = Arc::new(record_positions(&model, &positions, &w, Leaf::Static, None));
    assert!(
        set.linear_len() < set.len(),
        "the full model should be non-linear"
    );
    for sigmoid in [Sigmoid::Logistic, Sigmoid::Tanh] {
        for loss in [LossKind::Mse, LossKind::Xent] {
            let k = if sigmoid == Sigmoid::Tanh {
                0.0043
            } else {
                1.3
            };
            let cfg = ObjectiveConfig {
                link: Link { sigmoid, k, loss },
                l1: 1e-7,
                l2: 1e-8,
                lambda: 0.7,
                score_k: Some(k * 0.8),
                smooth: 1e-6,
            };
            let obj = Objective::new(set.clone(), cfg, w.clone(), None)
                .unwrap()
                .with_pairs(&model.smoothing_pairs())
                .unwrap();
            let (_, g) = obj.value_and_gradient(&w);
            let gmax = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let h = 1e-4;
            for _ in 0..25 {
                let i = rng.gen_range(0..w.len());
                let mut a = w.clone();
                let mut b = w.clone();
                a[i] += h;
                b[i] -= h;
                let fd = (obj.value(&a, Stop::Never).unwrap()
                    - obj.value(&b, Stop::Never).unwrap())
                    / (2.0 * h);
                assert!(
                    (g[i] - fd).abs() <= 1e-6 * gmax + 1e-12,
                    "{sigmoid:?} {loss:?} {}: gradient {} vs {fd}",
                    model.params()[i].name,
                    g[i]
                );
            }
        }
    }
}

/// K fitting on a set whose labels are `sigma_K*(q)` for the set's own scores finds `K*`
/// (relative tolerance 1e-5), and on the real set finds the minimum of the sampled curve.
#[test]
fn k_fit_finds_the_minimum() {
    let model = Model::new(ModelKind::Psqt);
    let w = model.default_weights();
    let truth = Link::texel(0.87);
    let positions: Vec<_> = common::random_positions(2000, 5)
        .into_iter()
        .map(|p| {
            let q: f64 = model.evaluate(&p, &w);
            (
                p,
                Target {
                    value: truth.expect(q),
                    score: None,
                    group: 0,
                },
            )
        })
        .collect();
    let set = record_positions(&model, &positions, &w, Leaf::Static, None);
    let (k, loss) = fit_k(&set, &w, truth);
    assert!((k - 0.87).abs() < 1e-5 * 0.87, "K = {k}");
    assert!(loss < 1e-12);

    let (_, obj) = real_objective(ModelKind::Psqt, ObjectiveConfig::new);
    let k = obj.config().link.k;
    let at = |k: f64| {
        let o = obj
            .with_config(ObjectiveConfig::new(Link {
                k,
                ..obj.config().link
            }))
            .unwrap();
        o.data_loss(obj.base())
    };
    let best = at(k);
    for f in [0.9, 0.99, 1.01, 1.1] {
        assert!(
            at(k * f) >= best,
            "loss at {}K is below the fitted minimum",
            f
        );
    }
}

/// Every optimiser lowers the training loss on the real 1k set, on both models, within a small
/// budget.
#[test]
fn every_optimiser_lowers_the_loss_on_a_real_set() {
    for kind in [ModelKind::Psqt, ModelKind::Full] {
        let (_, obj) = real_objective(kind, ObjectiveConfig::new);
        for method in Method::ALL {
            let iters = match method {
                Method::Local => 1,
                Method::Pso => 20,
                Method::Adam => 30,
                _ => 10,
            };
            let mut solvers = SolverOptions::default();
            solvers.hybrid.gn_iters = 2;
            let cfg = RunConfig {
                method,
                budget: Budget::iterations(iters),
                solvers,
                ..RunConfig::default()
            };
            let start = obj.base().to_vec();
            let out = run(obj.clone(), None, &start, &cfg, Arc::new(Control::new())).unwrap();
            assert!(
                out.train_loss.1 < out.train_loss.0,
                "{kind} {method}: {} -> {} ({})",
                out.train_loss.0,
                out.train_loss.1,
                out.reason
            );
            assert!(out.spent.iterations >= 1 && out.spent.passes >= 1.0);
        }
    }
}

/// With a validation set whose optimum differs from the training set's, the saved weights are
/// the iterate with the lowest validation loss in the log, and patience stops the run.
#[test]
fn best_weights_are_chosen_by_validation_and_patience_stops() {
    let model = Model::new(ModelKind::Psqt);
    let start = model.default_weights();
    let link = Link::texel(1.0);
    let pawn = model.index_of("material.pawn.mg").unwrap();
    let label_with = |pawn_value: f64, positions: &[shakmaty::Chess]| -> Vec<_> {
        let mut w = start.clone();
        w[pawn] = pawn_value;
        positions
            .iter()
            .map(|p| {
                let q: f64 = model.evaluate(p, &w);
                (
                    p.clone(),
                    Target {
                        value: link.expect(q),
                        score: None,
                        group: 0,
                    },
                )
            })
            .collect()
    };
    let ps = common::random_positions(3000, 9);
    // Training wants a pawn of 160; validation one of 120; the start is 100.
    let train_set = record_positions(
        &model,
        &label_with(160.0, &ps[..2000]),
        &start,
        Leaf::Static,
        None,
    );
    let valid_set = record_positions(
        &model,
        &label_with(120.0, &ps[2000..]),
        &start,
        Leaf::Static,
        None,
    );
    let train = Arc::new(
        Objective::new(
            Arc::new(train_set),
            ObjectiveConfig::new(link),
            start.clone(),
            Some(vec![pawn]),
        )
        .unwrap(),
    );
    let valid = Arc::new(train.with_set(Arc::new(valid_set)).unwrap());
    let mut solvers = SolverOptions::default();
    solvers.adam.lr = 4.0;
    let cfg = RunConfig {
        method: Method::Adam,
        budget: Budget {
            max_iters: Some(500),
            patience: Some(5),
            ..Budget::default()
        },
        solvers,
        ..RunConfig::default()
    };
    let out = run(
        train,
        Some(valid.clone()),
        &start,
        &cfg,
        Arc::new(Control::new()),
    )
    .unwrap();
    assert!(out.reason.contains("early stopping"), "{}", out.reason);
    let best = out
        .history
        .iter()
        .min_by(|a, b| a.valid_loss.unwrap().total_cmp(&b.valid_loss.unwrap()))
        .unwrap();
    assert_eq!(best.iter, out.best_iter);
    assert_eq!(out.valid_loss.unwrap().1, valid.data_loss(&out.weights));
    assert!((out.valid_loss.unwrap().1 - best.valid_loss.unwrap()).abs() < 1e-15);
    // The kept pawn value is near the validation optimum, not the training one.
    assert!(
        (out.weights[pawn] - 120.0).abs() < 10.0,
        "pawn {}",
        out.weights[pawn]
    );
    // Patience 5: exactly five evaluations after the best one.
    assert_eq!(out.history.last().unwrap().iter, out.best_iter + 5);
}

/// An interrupted run stops at once and keeps the best weights so far (here: the start).
#[test]
fn interruption_keeps_the_best_weights() {
    let (_, obj) = real_objective(ModelKind::Psqt, ObjectiveConfig::new);
    let control = Arc::new(Control::new());
    control.interrupt();
    let start = obj.base().to_vec();
    let cfg = RunConfig {
        method: Method::Lbfgs,
        ..RunConfig::default()
    };
    let out = run(obj, None, &start, &cfg, control).unwrap();
    assert!(out.interrupted);
    assert_eq!(out.spent.iterations, 0);
    assert_eq!(out.weights, start);
}

/// The objective does not clamp: beyond a bound it is the evaluation's own function (no flat
/// region where the gradient would say nothing), and says which values are outside; keeping
/// inside the bounds is the solvers' business (see tests/it/bounds.rs).
#[test]
fn bounds_are_the_solvers_business() {
    let model = Model::new(ModelKind::Full);
    let w = model.default_weights();
    let positions = common::quiet_1k();
    let set = Arc::new(record_positions(&model, &positions, &w, Leaf::Static, None));
    let link = Link::texel(1.0);
    let bounds: Vec<_> = model.params().iter().map(|p| p.bounds).collect();
    let i = model.index_of("phase.knight").unwrap();
    let (lo, _) = bounds[i].expect("phase weights are bounded");
    let obj = Objective::new(set, ObjectiveConfig::new(link), w.clone(), None)
        .unwrap()
        .with_bounds(&bounds)
        .unwrap();
    // Middlegame and endgame values that differ (at the defaults they agree, and the phase
    // weights have no effect).
    let mut x = w.clone();
    x[model.index_of("material.knight.mg").unwrap()] += 60.0;
    let mut at = x.clone();
    at[i] = lo;
    x[i] = lo - 0.5;
    assert_eq!(obj.expand(&x)[i], lo - 0.5);
    assert_eq!(obj.out_of_bounds(&x), vec![i]);
    assert!(obj.out_of_bounds(&w).is_empty());
    let (e, g) = obj.value_and_gradient(&x);
    assert_ne!(g[i], 0.0);
    assert_ne!(e, obj.value(&at, Stop::Never).unwrap());
    // Its copies keep the bounds.
    assert_eq!(
        obj.with_set(obj.set().clone()).unwrap().bounds(),
        obj.bounds()
    );
    assert_eq!(
        obj.with_config(*obj.config()).unwrap().bounds(),
        obj.bounds()
    );
}

/// Regularisation means the same at every data size: the penalty is a weight against the
/// *mean* loss, so repeating the data k times changes neither the objective, its gradient nor
/// the weights it converges to. (A penalty against the summed loss would pull k times less.)
/// Tolerances: value and gradient to 1e-12 relative (the mean of k equal copies differs only by
/// rounding); converged weights to 1e-6 cp.
#[test]
fn regularisation_is_invariant_under_repeated_data() {
    let model = Model::new(ModelKind::Psqt);
    let w = model.default_weights();
    let once = common::quiet_1k();
    let thrice: Vec<_> = (0..3).flat_map(|_| once.iter().cloned()).collect();
    let link = Link::texel(1.0);
    let cfg = ObjectiveConfig {
        l1: 0.0,
        l2: 1e-6,
        ..ObjectiveConfig::new(link)
    };
    let objective = |positions: &[(shakmaty::Chess, Target)]| {
        let set = Arc::new(record_positions(&model, positions, &w, Leaf::Static, None));
        Arc::new(Objective::new(set, cfg, w.clone(), None).unwrap())
    };
    let (a, b) = (objective(&once), objective(&thrice));
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let x: Vec<f64> = w.iter().map(|v| v + rng.gen_range(-20.0..20.0)).collect();
    let ((va, ga), (vb, gb)) = (a.value_and_gradient(&x), b.value_and_gradient(&x));
    assert!((va - vb).abs() <= 1e-12 * va.abs(), "{va} vs {vb}");
    let scale = ga.iter().fold(0.0f64, |m, g| m.max(g.abs()));
    for (p, q) in ga.iter().zip(&gb) {
        assert!((p - q).abs() <= 1e-12 * scale, "{p} vs {q}");
    }
    let cfg = RunConfig {
        method: Method::Lbfgs,
        budget: Budget::iterations(300),
        ..RunConfig::default()
    };
    let (ra, rb) = (
        run(a, None, &w, &cfg, Arc::new(Control::new())).unwrap(),
        run(b, None, &w, &cfg, Arc::new(Control::new())).unwrap(),
    );
    let worst = ra
        .weights
        .iter()
        .zip(&rb.weights)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-6, "converged weights differ by {worst} cp");
}

/// The L2 path's problem: `psqt` from its defaults on 800 positions, 200 held out, 100
/// L-BFGS iterations a strength.
fn l2_path_problem() -> (Vec<f64>, Arc<Objective>, Arc<Objective>, RunConfig) {
    let model = Model::new(ModelKind::Psqt);
    let w = model.default_weights();
    let all = common::quiet_1k();
    let (train_p, valid_p) = all.split_at(800);
    let set = |p: &[(shakmaty::Chess, Target)]| {
        Arc::new(record_positions(&model, p, &w, Leaf::Static, None))
    };
    let link = Link::texel(1.0);
    let train = Arc::new(
        Objective::new(set(train_p), ObjectiveConfig::new(link), w.clone(), None).unwrap(),
    );
    let valid = Arc::new(train.with_set(set(valid_p)).unwrap());
    let cfg = RunConfig {
        method: Method::Lbfgs,
        budget: Budget::iterations(100),
        ..RunConfig::default()
    };
    (w, train, valid, cfg)
}

/// The trial of the lowest validation loss.
fn lowest_trial(trials: &[L2Trial]) -> &L2Trial {
    let by_loss = |a: &&L2Trial, b: &&L2Trial| a.valid_loss.total_cmp(&b.valid_loss);
    trials.iter().min_by(by_loss).expect("at least one trial")
}

/// `--l2 auto`: the path runs each strength, strongest first, and keeps the one whose kept
/// weights have the lowest validation loss; the outcome reports every strength and its losses
/// are measured from the path's start.
#[test]
fn the_l2_path_keeps_the_strength_with_the_lowest_validation_loss() {
    let (w, train, valid, cfg) = l2_path_problem();
    let grid = [1e-3, 1e-5, 1e-7, 0.0];
    let p =
        optim::regularise::run_l2_path(&train, &valid, &w, &cfg, Arc::new(Control::new()), &grid)
            .unwrap();
    assert!(p.trials.len() >= 3, "{:?}", p.trials);
    let lowest = lowest_trial(&p.trials);
    assert_eq!(p.l2, lowest.l2);
    assert_eq!(p.train.config().l2, p.l2);
    assert_eq!(p.outcome.l2_path, p.trials);
    let (v0, v1) = p.outcome.valid_loss.unwrap();
    assert_eq!(v0, valid.data_loss(&w));
    assert!((v1 - lowest.valid_loss).abs() < 1e-15);
    // 1,000 positions and 778 parameters overfit without a pull: the strongest strengths lose
    // less than none at all.
    assert!(p.l2 > 0.0);
}

/// `--l2 auto` at the grid's edge: when the strongest strength of the grid is the lowest,
/// the path tries ten times stronger until the validation loss rises (or
/// `L2_EDGE_STEPS` more), so the choice is not an edge of the grid by default.
#[test]
fn the_l2_path_looks_beyond_the_grid_when_its_strongest_wins() {
    let (w, train, valid, cfg) = l2_path_problem();
    // A grid of one strength: it is the strongest and the lowest, so 1e-9 is tried next.
    let grid = [1e-10];
    let p =
        optim::regularise::run_l2_path(&train, &valid, &w, &cfg, Arc::new(Control::new()), &grid)
            .unwrap();
    let tried: Vec<f64> = p.trials.iter().map(|t| t.l2).collect();
    assert!(tried.len() > 1 && tried[1] == 1e-9, "{tried:?}");
    let lowest = lowest_trial(&p.trials);
    assert_eq!(p.l2, lowest.l2);
    // It went on while the strongest was the lowest, and stopped at the first rise.
    let beyond = &p.trials[1..];
    assert!(beyond.len() <= optim::regularise::L2_EDGE_STEPS);
    for (i, t) in beyond.iter().enumerate() {
        let before = p.trials[..1 + i].iter().map(|t| t.valid_loss);
        let rose = t.valid_loss >= before.fold(f64::INFINITY, f64::min);
        assert!(!rose || i + 1 == beyond.len(), "{:?}", p.trials);
    }
    assert_eq!(p.outcome.l2_path, p.trials);
    assert_eq!(
        p.outcome.spent.iterations,
        p.trials.iter().map(|t| t.iterations).sum::<u64>()
    );
}

/// The same data, weights and thread count give the same bits: passes add their chunks in
/// chunk order (not in the order rayon's work stealing happens to combine them), and so do
/// the Gauss-Newton model's sums. Checked on 12,000 positions (several chunks) in a pool of 4
/// threads, over a whole preconditioned L-BFGS run, three times.
#[test]
fn runs_are_bit_for_bit_reproducible() {
    let model = Model::new(ModelKind::Psqt);
    let w = model.default_weights();
    let many: Vec<_> = (0..12).flat_map(|_| common::quiet_1k()).collect();
    let link = Link::texel(1.0);
    let set = Arc::new(record_positions(&model, &many, &w, Leaf::Static, None));
    let obj = Arc::new(Objective::new(set, ObjectiveConfig::new(link), w.clone(), None).unwrap());
    let cfg = RunConfig {
        method: Method::Lbfgs,
        budget: Budget::iterations(30),
        ..RunConfig::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let runs: Vec<Vec<f64>> = (0..3)
        .map(|_| {
            pool.install(|| run(obj.clone(), None, &w, &cfg, Arc::new(Control::new())))
                .unwrap()
                .weights
        })
        .collect();
    for r in &runs[1..] {
        let same = r
            .iter()
            .zip(&runs[0])
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "two runs gave different weights");
    }
}
