//! Quiescence search on hand-checked positions, and its invariants on real positions.
//!
//! With the default `psqt` weights every piece-square entry is 0 and material is the same in
//! both phases, so the static evaluation is exactly the material balance (100, 300, 300, 500,
//! 900) up to rounding in the taper: hand-checked scores compare within 1e-9 cp.

use crate::common;

use eval::{is_quiet, quiesce, quiesce_window, Model, ModelKind, Quiescence, MATE};
use shakmaty::{Chess, Color, Move, Position, Role};

const TOL: f64 = 1e-9;

fn psqt() -> (Model, Vec<f64>) {
    let m = Model::new(ModelKind::Psqt);
    let w = m.default_weights();
    (m, w)
}

fn uci(pv: &[Move]) -> Vec<String> {
    pv.iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect()
}

/// The PV played from the root must reach the reported leaf.
fn assert_pv_reaches_leaf(pos: &Chess, q: &Quiescence) {
    let mut p = pos.clone();
    for m in &q.pv {
        assert!(p.is_legal(*m), "illegal PV move {m:?}");
        p.play_unchecked(*m);
    }
    assert_eq!(p, q.leaf, "PV does not end at the leaf");
}

#[test]
fn takes_a_hanging_queen() {
    let (m, w) = psqt();
    let pos = common::parse_fen("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1");
    let stat: f64 = m.evaluate(&pos, &w);
    assert!((stat + 400.0).abs() < TOL);
    let q = quiesce(&m, &pos, &w);
    assert!((q.score - 500.0).abs() < TOL, "{}", q.score);
    assert_eq!(uci(&q.pv), ["d2d5"]);
    assert_eq!(q.leaf.board().queens().count(), 0);
    assert_pv_reaches_leaf(&pos, &q);
    assert!(!is_quiet(&m, &pos, &w));
}

#[test]
fn leaf_is_the_end_of_the_exchange() {
    // exd5 exd5: White wins a knight for a pawn, ending a pawn down instead of three.
    let (m, w) = psqt();
    let pos = common::parse_fen("4k3/8/4p3/3n4/4P3/8/8/4K3 w - - 0 1");
    let q = quiesce(&m, &pos, &w);
    assert!((q.score + 100.0).abs() < TOL, "{}", q.score);
    assert_eq!(uci(&q.pv), ["e4d5", "e6d5"]);
    assert_pv_reaches_leaf(&pos, &q);
    let leaf = q.leaf.board();
    assert_eq!(leaf.pawns().count(), 1);
    assert_eq!(leaf.by_color(Color::White).count(), 1); // the king alone
    assert_eq!(q.leaf.turn(), Color::White);
    // The score is the static evaluation of the leaf.
    let at_leaf: f64 = m.evaluate(&q.leaf, &w);
    assert!((at_leaf - q.score).abs() < TOL);
}

#[test]
fn black_to_move_scores_from_whites_view_and_window_from_black() {
    // The hanging-queen position mirrored: Black takes the white queen.
    let (m, w) = psqt();
    let pos = common::parse_fen("4k3/3r4/8/8/3Q4/8/8/4K3 b - - 0 1");
    let q = quiesce(&m, &pos, &w);
    assert!((q.score + 500.0).abs() < TOL, "White's view: {}", q.score);
    let qw = quiesce_window(&m, &pos, &w, -f64::INFINITY, f64::INFINITY);
    assert!(
        (qw.score - 500.0).abs() < TOL,
        "side to move's view: {}",
        qw.score
    );
    // A window the true score is above: fail high, a lower bound >= beta.
    let hi = quiesce_window(&m, &pos, &w, -1000.0, -300.0);
    assert!(hi.score >= -300.0);
    // A window the true score is below: fail low, an upper bound <= alpha.
    let lo = quiesce_window(&m, &pos, &w, 600.0, 700.0);
    assert!(lo.score <= 600.0);
}

#[test]
fn checkmated_side_to_move_is_mate_in_zero() {
    // Fool's mate: White to move is checkmated.
    let (m, w) = psqt();
    let pos = common::parse_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let q = quiesce(&m, &pos, &w);
    assert_eq!(q.score, -MATE);
    assert!(q.pv.is_empty());
    assert_eq!(q.leaf, pos);
}

#[test]
fn capture_that_mates_scores_mate_in_one() {
    // Rxa8# on the back rank.
    let (m, w) = psqt();
    let pos = common::parse_fen("r5k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    let q = quiesce(&m, &pos, &w);
    assert_eq!(q.score, MATE - 1.0);
    assert_eq!(uci(&q.pv), ["a1a8"]);
    assert!(q.leaf.is_checkmate());
    // Black to move in the mirrored position: mated in one from Black's side is -(MATE - 1)
    // for White.
    let mirrored = common::flip(&pos);
    let q = quiesce(&m, &mirrored, &w);
    assert_eq!(q.score, -(MATE - 1.0));
}

#[test]
fn stalemate_is_a_draw() {
    // Black to move, not in check, no legal move; static evaluation would say +900.
    let (m, w) = psqt();
    let pos = common::parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(pos.is_stalemate());
    let q = quiesce(&m, &pos, &w);
    assert_eq!(q.score, 0.0);
    assert!(q.pv.is_empty());
    // A capture into stalemate is worth 0, not the material it wins: after Nxb5 Black (Ka8)
    // has no move, so White prefers to stand pat a pawn up (+100) over the capture (0, where a
    // search blind to stalemate would see +400).
    let pos = common::parse_fen("k7/2K5/8/1b6/3N4/8/7P/8 w - - 0 1");
    let mut after = pos.clone();
    let nxb5 = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.is_capture())
        .expect("Nxb5 is legal");
    after.play_unchecked(nxb5);
    assert!(after.is_stalemate());
    let q = quiesce(&m, &pos, &w);
    assert!((q.score - 100.0).abs() < TOL, "{}", q.score);
    assert!(q.pv.is_empty());
}

#[test]
fn in_check_searches_every_evasion() {
    // White is in check from an undefended queen: Kxd2 is the best evasion.
    let (m, w) = psqt();
    let pos = common::parse_fen("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
    let q = quiesce(&m, &pos, &w);
    assert!(q.score.abs() < TOL, "{}", q.score);
    assert_eq!(uci(&q.pv), ["e1d2"]);
    // In check with only quiet evasions (no stand pat): the king must step away, and the
    // score is the static evaluation after the step, not before.
    let pos = common::parse_fen("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    let q = quiesce(&m, &pos, &w);
    assert_eq!(q.pv.len(), 1);
    assert!(q.pv[0].role() == Role::King);
    assert!((q.score + 500.0).abs() < TOL);
}

#[test]
fn promotion_is_searched() {
    let (m, w) = psqt();
    let pos = common::parse_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1");
    let q = quiesce(&m, &pos, &w);
    assert!((q.score - 900.0).abs() < TOL, "{}", q.score);
    assert_eq!(uci(&q.pv), ["a7a8q"]);
}

#[test]
fn quiet_position_returns_the_static_evaluation() {
    // No capture, no promotion, not in check: stand pat, with any weights.
    for kind in ModelKind::ALL {
        let m = Model::new(kind);
        let w = common::random_weights(&m, 3);
        let pos = Chess::default();
        let q = quiesce(&m, &pos, &w);
        let stat: f64 = m.evaluate(&pos, &w);
        assert_eq!(q.score, stat);
        assert!(q.pv.is_empty());
        assert_eq!(q.leaf, pos);
        assert_eq!(q.nodes, 1);
        assert!(is_quiet(&m, &pos, &w));
    }
}

/// Plain minimax quiescence without pruning: the reference for alpha-beta. Side to move's view.
fn reference(m: &Model, w: &[f64], pos: &Chess, ply: u32, budget: &mut u64) -> Option<f64> {
    *budget = budget.checked_sub(1)?;
    let stat = {
        let e: f64 = m.evaluate(pos, w);
        if pos.turn() == Color::White {
            e
        } else {
            -e
        }
    };
    let legal = pos.legal_moves();
    if pos.is_check() {
        if legal.is_empty() {
            return Some(-(MATE - f64::from(ply)));
        }
        if ply >= eval::MAX_QSEARCH_DEPTH {
            return Some(stat);
        }
    } else if legal.is_empty() {
        return Some(0.0);
    }
    let mut best = if pos.is_check() {
        f64::NEG_INFINITY
    } else {
        stat
    };
    if ply >= eval::MAX_QSEARCH_DEPTH {
        return Some(best);
    }
    for mv in legal {
        if !pos.is_check() && !mv.is_capture() && !mv.is_promotion() {
            continue;
        }
        let mut child = pos.clone();
        child.play_unchecked(mv);
        best = best.max(-reference(m, w, &child, ply + 1, budget)?);
    }
    Some(best)
}

#[test]
fn alpha_beta_matches_plain_minimax_on_real_positions() {
    for kind in ModelKind::ALL {
        let m = Model::new(kind);
        let w = common::random_weights(&m, 21);
        let (mut compared, mut non_trivial) = (0, 0);
        for pos in common::positions() {
            let mut budget = 30_000;
            let Some(expected) = reference(&m, &w, pos, 0, &mut budget) else {
                continue; // tree too large for the exhaustive reference
            };
            let q = quiesce_window(&m, pos, &w, f64::NEG_INFINITY, f64::INFINITY);
            assert!(
                (q.score - expected).abs() < 1e-9 * (1.0 + expected.abs()),
                "{kind}: alpha-beta {} vs minimax {expected}",
                q.score
            );
            assert_pv_reaches_leaf(pos, &q);
            // Unless the PV ends in mate or stalemate, the score is the leaf's static evaluation.
            if !q.leaf.is_checkmate() && !q.leaf.is_stalemate() && q.pv.len() < 32 {
                let e: f64 = m.evaluate(&q.leaf, &w);
                let e = if pos.turn() == Color::White { e } else { -e };
                assert!((e - q.score).abs() < 1e-9 * (1.0 + e.abs()));
            }
            compared += 1;
            if !q.pv.is_empty() {
                non_trivial += 1;
            }
        }
        eprintln!("{kind}: compared {compared}, with captures {non_trivial}");
        assert!(
            compared >= 500,
            "{kind}: only {compared} positions compared"
        );
        assert!(
            non_trivial >= 60,
            "{kind}: only {non_trivial} positions with captures"
        );
    }
}

#[test]
fn is_quiet_is_static_equals_quiescence_on_real_positions() {
    for kind in ModelKind::ALL {
        let m = Model::new(kind);
        let w = common::random_weights(&m, 31);
        let (mut quiet, mut loud) = (0, 0);
        for pos in common::positions() {
            let stat: f64 = m.evaluate(pos, &w);
            let q = quiesce(&m, pos, &w);
            let expected = (q.score - stat).abs() <= 1e-9;
            assert_eq!(is_quiet(&m, pos, &w), expected);
            if expected {
                quiet += 1;
            } else {
                loud += 1;
            }
        }
        // Both answers occur: the check is not vacuous.
        assert!(
            quiet > 100 && loud > 50,
            "{kind}: {quiet} quiet, {loud} not"
        );
    }
}
