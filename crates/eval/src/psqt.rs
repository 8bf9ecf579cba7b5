//! The `psqt` model: material and piece-square tables, tapered by a fixed game phase.
//!
//! The phase weights are the constants 0, 1, 1, 2, 4 (pawn .. queen, 24 at the start), so the
//! whole evaluation is linear in the weights: the middlegame and endgame terms are folded into
//! one list with the taper already in the coefficients and summed by one `dot`.

use shakmaty::{Chess, Position};
use tape::{DotAccumulator, Scalar};

use crate::features::{piece_counts, psqt_terms, Features};
use crate::params::{Layout, PHASE_INIT, PHASE_START_COUNTS};

/// The fixed middlegame fraction of a position with these piece counts (pawn .. queen).
pub(crate) fn fixed_phase(piece_counts: &[f64; 5]) -> f64 {
    let total: f64 = PHASE_INIT
        .iter()
        .zip(PHASE_START_COUNTS)
        .map(|(w, n)| w * n)
        .sum();
    let phase: f64 = PHASE_INIT
        .iter()
        .zip(piece_counts)
        .map(|(w, n)| w * n)
        .sum();
    phase.min(total) / total
}

/// Fills `f.combined` with the position's terms, taper folded into the coefficients.
pub(crate) fn terms(pos: &Chess, layout: &Layout, f: &mut Features) {
    let board = pos.board();
    let mg = fixed_phase(&piece_counts(board));
    let eg = 1.0 - mg;
    let terms = &mut f.combined;
    terms.clear();
    psqt_terms(board, layout, |i, j, c| {
        // Zero coefficients (equal material, a pure endgame) would only lengthen the tape.
        if c * mg != 0.0 {
            terms.push((i, c * mg));
        }
        if c * eg != 0.0 {
            terms.push((j, c * eg));
        }
    });
}

/// `psqt` evaluation in centipawns, White's view.
pub(crate) fn evaluate<S: Scalar>(pos: &Chess, layout: &Layout, w: &[S], f: &mut Features) -> S {
    terms(pos, layout, f);
    S::dot(w, &f.combined)
}

/// [`evaluate`] on `f64`, bit for bit: the same terms in the same order (zero coefficients
/// skipped alike), summed as [`Scalar::dot`] sums them, but streamed into a
/// [`DotAccumulator`] instead of collected into a list first.
pub(crate) fn evaluate_f64(pos: &Chess, layout: &Layout, w: &[f64]) -> f64 {
    let board = pos.board();
    let mg = fixed_phase(&piece_counts(board));
    let eg = 1.0 - mg;
    let mut sum = DotAccumulator::default();
    psqt_terms(board, layout, |i, j, c| {
        if c * mg != 0.0 {
            sum.add(c * mg, w[i as usize]);
        }
        if c * eg != 0.0 {
            sum.add(c * eg, w[j as usize]);
        }
    });
    sum.value()
}
