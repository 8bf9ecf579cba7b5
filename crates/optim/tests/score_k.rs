//! Score labels on another scale (`ObjectiveConfig::score_k`, `fit_score_k`): a teacher whose
//! scores are the truth times 2.5 teaches a blend read at the model's `K` to scale every
//! weight by 2.5; read at the teacher's own `K`, fitted on the results, it teaches the truth.

use std::sync::Arc;

use optim::{
    fit_k, fit_score_k, run, Control, Link, LossKind, Method, Objective, ObjectiveConfig,
    RunConfig, Sigmoid,
};
use tape::Scalar;
use tapered::{CompiledSet, Target};

const TRUE_W: [f64; 2] = [90.0, 15.0];
const TEACHER_SCALE: f64 = 2.5;

fn eval<S: Scalar>(w: &[S], material: f64, white_to_move: bool) -> S {
    let tempo = if white_to_move { w[1] } else { -w[1] };
    w[0] * material + tempo
}

/// Positions with soft results (the expectation under the true weights) and the teacher's
/// score: the true evaluation times [`TEACHER_SCALE`].
fn set(truth: Link) -> Arc<CompiledSet> {
    let positions: Vec<(f64, bool)> = (0..3000)
        .map(|i| ((i % 5) as f64 - 2.0, i % 2 == 0))
        .collect();
    Arc::new(CompiledSet::record(
        &[100.0, 0.0],
        &positions,
        |_, &(m, t)| {
            let q = eval(&TRUE_W, m, t);
            Target {
                value: truth.expect(q),
                score: Some((q * TEACHER_SCALE) as f32),
                group: 0,
            }
        },
        |_, &(m, t), w| Some(eval(w, m, t)),
        None,
    ))
}

fn fit(set: &Arc<CompiledSet>, cfg: ObjectiveConfig) -> Vec<f64> {
    let obj = Arc::new(Objective::new(set.clone(), cfg, vec![100.0, 0.0], None).unwrap());
    let rc = RunConfig {
        method: Method::GaussNewton,
        ..RunConfig::default()
    };
    run(obj, None, &[100.0, 0.0], &rc, Arc::new(Control::new()))
        .unwrap()
        .weights
}

#[test]
fn scores_read_at_their_own_k_teach_the_truth_not_their_scale() {
    let truth = Link {
        sigmoid: Sigmoid::Logistic,
        k: 1.2,
        loss: LossKind::Mse,
    };
    let set = set(truth);
    let (k, _) = fit_k(&set, &TRUE_W, truth);
    assert!((k - 1.2).abs() < 1e-4, "{k}");
    let link = Link { k, ..truth };

    // The teacher's own K: the truth's divided by its scale.
    let (score_k, loss) = fit_score_k(&set, link).unwrap();
    assert!((score_k - 1.2 / TEACHER_SCALE).abs() < 1e-4, "{score_k}");
    assert!(loss < 1e-9, "{loss}");

    // Read at the model's K, the scores alone (lambda 0) scale the weights by 2.5.
    let cfg = ObjectiveConfig {
        lambda: 0.0,
        ..ObjectiveConfig::new(link)
    };
    let w = fit(&set, cfg);
    for (w, t) in w.iter().zip(TRUE_W) {
        assert!((w / t - TEACHER_SCALE).abs() < 1e-3, "{w} against {t}");
    }
    // Read at their own K, alone or blended with the results, they teach the truth.
    for lambda in [0.0, 0.5] {
        let cfg = ObjectiveConfig {
            lambda,
            score_k: Some(score_k),
            ..ObjectiveConfig::new(link)
        };
        let w = fit(&set, cfg);
        for (w, t) in w.iter().zip(TRUE_W) {
            assert!((w - t).abs() < 0.01, "lambda {lambda}: {w} against {t}");
        }
    }
}

#[test]
fn a_bad_score_k_is_refused_and_no_scores_fit_none() {
    let link = Link {
        sigmoid: Sigmoid::Logistic,
        k: 1.0,
        loss: LossKind::Mse,
    };
    let set = set(link);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let cfg = ObjectiveConfig {
            score_k: Some(bad),
            ..ObjectiveConfig::new(link)
        };
        let Err(err) = Objective::new(set.clone(), cfg, vec![0.0, 0.0], None) else {
            panic!("a score K of {bad} was accepted");
        };
        let err = err.to_string();
        assert!(err.contains("the scores' K must be positive"), "{err}");
    }
    let bare = Arc::new(CompiledSet::record(
        &[0.0],
        &[1.0, -1.0],
        |_, _| Target {
            value: 0.5,
            score: None,
            group: 0,
        },
        |_, &m: &f64, w| Some(w[0] * m),
        None,
    ));
    assert!(fit_score_k(&bare, link).is_none());
}
