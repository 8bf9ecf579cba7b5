//! The evaluation formula on hand-computed positions.

use crate::common;

use common::{fixture, manifest, LINEAR};
use trace::parse_line;

const KP: &str = "4k3/8/8/8/8/8/3P4/4K3";

#[test]
fn fixture_evaluation_by_hand() {
    let m = fixture();
    // White: a pawn (material 0), pst[0][1], attacks ks_attack[2] twice with 3 attackers;
    // Black: ks_attack[0] once with 1 attacker; complexity counts 2 and 1.
    let line = format!(
        "{KP} w - - [1.0]; phase 18; scale 64; const 5; eval 0; \
         t 0:1:0 7:1:0 16:2:0 14:0:1 26:2:1 27:1:0 28:1:0; f king_attackers:3:1"
    );
    let t = parse_line(&line, &m).unwrap().unwrap();
    let w = m.initial_weights();
    // direct: material[0] (82, 94), pst[0][1] is element 7 (3, 4), tempo (20, 10)
    let mut mg: f64 = 82.0 + 3.0 + 20.0;
    let mut eg: f64 = 94.0 + 4.0 + 10.0;
    // king safety: White s_mg = 2*30 = 60, s_eg = 2*4 = 8; Black s_mg = 20.5, s_eg = 3
    let ks_mg = |s: f64, k: f64| -(s.max(0.0) * s.max(0.0)) / 720.0 * k;
    mg += ks_mg(60.0, 1.5) - ks_mg(20.5, 0.5);
    eg += -(8.0 / 20.0) - (-(3.0 / 20.0));
    // complexity: s = (2*4 + 1*9) - (1*4) = 13 (untapered: same in both phases)
    let s = 13.0;
    eg += eg.signum() * (s - 30.0f64).max(-eg.abs());
    let want = (mg * 18.0 + eg * 6.0 * 64.0 / 128.0) / 24.0 + 5.0;
    let got: f64 = m.evaluate(&t, &w).unwrap();
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
}

#[test]
fn side_to_move_convention_is_turned_to_white() {
    let m = manifest(LINEAR);
    let t = parse_line(
        &format!("{KP} b - - [0.5]; phase 24; const 7; eval -80; t 0:1:0"),
        &m,
    )
    .unwrap()
    .unwrap();
    assert!(!t.white_to_move);
    assert_eq!((t.constant, t.eval), (-7.0, Some(80.0)));
    let v: f64 = m.evaluate(&t, &m.initial_weights()).unwrap();
    assert_eq!(v, 82.0 - 7.0);
}
