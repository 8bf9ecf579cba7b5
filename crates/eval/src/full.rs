//! The `full` model: `psqt` plus mobility, pawn structure, piece terms, tempo, a non-linear
//! king-safety penalty and tunable game-phase weights.
//!
//! ```text
//! mg     = dot(w, mg terms) - penalty(danger_white) + penalty(danger_black)
//! eg     = dot(w, eg terms)
//! danger = dot(w, king-danger inputs of that king)           (attacks, checks, shelter)
//! penalty(d) = d + q * d * |d| / 100,  q = king_safety.quadratic
//! total  = max(16 phase.pawn + 4 phase.knight + 4 phase.bishop + 4 phase.rook + 2 phase.queen, 1)
//! phase  = clamp(sum over pieces on the board of phase.<piece>, 0, total)
//! eval   = eg + (mg - eg) * phase / total
//! ```
//!
//! `penalty` has slope 1 at 0, so the king-safety weights get a non-zero gradient even at the
//! all-zero start, and it is not linear in the weights once danger is non-zero.

use shakmaty::Chess;
use tape::Scalar;

use crate::features::{extract_full, Features};
use crate::params::{Layout, PHASE_START_COUNTS};

/// The king-safety penalty `d + q d |d| / 100`.
#[inline(always)]
fn penalty<S: Scalar>(danger: S, q: S) -> S {
    danger + q * danger * danger.abs() * 0.01
}

/// `full` evaluation in centipawns, White's view.
pub(crate) fn evaluate<S: Scalar>(pos: &Chess, layout: &Layout, w: &[S], f: &mut Features) -> S {
    extract_full(pos, layout, f);
    let q = w[layout.ks_quadratic as usize];
    let danger_white = S::dot(w, &f.danger[0]);
    let danger_black = S::dot(w, &f.danger[1]);
    let mg = S::dot(w, &f.mg) - penalty(danger_white, q) + penalty(danger_black, q);
    let eg = S::dot(w, &f.eg);

    let mut phase_terms = [(0u32, 0.0f64); 5];
    let mut total_terms = [(0u32, 0.0f64); 5];
    for r in 0..5 {
        phase_terms[r] = (layout.phase + r as u32, f.piece_counts[r]);
        total_terms[r] = (layout.phase + r as u32, PHASE_START_COUNTS[r]);
    }
    let total = S::dot(w, &total_terms).max(S::one());
    let phase = S::dot(w, &phase_terms).clamp(S::zero(), total);
    eg + (mg - eg) * (phase / total)
}
