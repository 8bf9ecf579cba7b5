//! `psqt` weights carried over into `full` (`Model::carry_over`) evaluate as they did in `psqt`:
//! `full`'s other parameters at their defaults add nothing. So a `full` run or ladder started
//! from `psqt` weights starts where those weights stood.

use crate::common;

use eval::{Model, ModelKind};

#[test]
fn carried_psqt_weights_evaluate_alike_in_full() {
    let (psqt, full) = (Model::new(ModelKind::Psqt), Model::new(ModelKind::Full));
    for seed in 0..3 {
        let w = common::random_weights(&psqt, seed);
        let carried = full
            .carry_over(&psqt, &w)
            .expect("psqt carries over into full");
        for (k, pos) in common::positions().iter().enumerate() {
            let (a, b) = (psqt.evaluate_f64(pos, &w), full.evaluate_f64(pos, &carried));
            // The same sums, grouped differently: equal to rounding.
            assert!(
                (a - b).abs() <= 1e-9 * (1.0 + a.abs()),
                "seed {seed} position {k}: psqt {a}, full {b}"
            );
        }
    }
}

#[test]
fn only_namesakes_carry_over() {
    let (psqt, full) = (Model::new(ModelKind::Psqt), Model::new(ModelKind::Full));
    assert!(psqt.carry_over(&full, &full.default_weights()).is_none());
    assert!(
        full.carry_over(&psqt, &[1.0, 2.0]).is_none(),
        "weights of the wrong length"
    );
    assert_eq!(
        full.carry_over(&psqt, &psqt.default_weights()).unwrap(),
        full.default_weights(),
        "the defaults carry over into the defaults"
    );
}
