//! Colour symmetry: the evaluation of the colour-flipped position is the negation, for both
//! models, random weights and 800 real positions.
//!
//! Tolerance: `|eval(flip(p)) + eval(p)| <= 1e-9 * (1 + |eval(p)|)` — the two evaluations sum
//! the same terms in a different order, so they may differ by floating-point rounding only.

use crate::common;

use eval::{Model, ModelKind};
use shakmaty::Position;

fn check(kind: ModelKind, seed: u64) {
    let model = Model::new(kind);
    let w = common::random_weights(&model, seed);
    let mut nonzero = 0;
    for (i, pos) in common::positions().iter().enumerate() {
        let flipped = common::flip(pos);
        assert_eq!(flipped.turn(), !pos.turn());
        assert_eq!(
            common::flip(&flipped),
            *pos,
            "flip is not an involution at {i}"
        );
        let a: f64 = model.evaluate(pos, &w);
        let b: f64 = model.evaluate(&flipped, &w);
        assert!(
            (a + b).abs() <= 1e-9 * (1.0 + a.abs()),
            "{kind}: position {i} ({}) evaluates to {a}, its colour flip to {b}",
            shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
        if a.abs() > 1.0 {
            nonzero += 1;
        }
    }
    // With random weights almost no position evaluates to 0: the check is not vacuous.
    assert!(
        nonzero > 700,
        "only {nonzero} of 800 evaluations are non-zero"
    );
}

#[test]
fn psqt_is_colour_symmetric() {
    for seed in [1, 2, 3] {
        check(ModelKind::Psqt, seed);
    }
}

#[test]
fn full_is_colour_symmetric() {
    for seed in [11, 12, 13] {
        check(ModelKind::Full, seed);
    }
}

#[test]
fn start_position_is_zero_with_default_weights() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = model.default_weights();
        let e: f64 = model.evaluate(&shakmaty::Chess::default(), &w);
        // Tempo is 0 by default, so the symmetric start position is exactly 0.
        assert_eq!(e, 0.0, "{kind}");
    }
}
