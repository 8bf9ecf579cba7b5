//! The engine's fast paths equal the reference bit for bit on real positions: the streamed
//! `Model::evaluate_f64` equals `Model::evaluate::<f64>`, and `quiesce_score` visits the same
//! nodes and returns the same score as `quiesce_window`.

use crate::common;

use eval::{quiesce_score, quiesce_window, Model, ModelKind};

#[test]
fn evaluate_f64_is_evaluate_bit_for_bit() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        for seed in 0..3 {
            let w = common::random_weights(&model, seed);
            for (k, pos) in common::positions().iter().enumerate() {
                let slow: f64 = model.evaluate(pos, &w);
                let fast = model.evaluate_f64(pos, &w);
                assert_eq!(
                    fast.to_bits(),
                    slow.to_bits(),
                    "{kind} seed {seed} position {k}: {fast} != {slow}"
                );
            }
        }
    }
}

#[test]
fn quiesce_score_is_quiesce_window() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = common::random_weights(&model, 11);
        for (k, pos) in common::positions().iter().enumerate() {
            for (alpha, beta) in [
                (f64::NEG_INFINITY, f64::INFINITY),
                (-30.0, 30.0),
                (-1.0, 0.0),
                (150.0, 151.0),
                (-400.0, -399.0),
            ] {
                let reference = quiesce_window(&model, pos, &w, alpha, beta);
                let fast = quiesce_score(pos, alpha, beta, |p| model.evaluate_f64(p, &w));
                assert_eq!(
                    (fast.score.to_bits(), fast.nodes),
                    (reference.score.to_bits(), reference.nodes),
                    "{kind} position {k} window ({alpha}, {beta})"
                );
            }
        }
    }
}
