//! The `psqt` model: material and piece-square tables, tapered by a fixed game phase.
//!
//! The phase weights are the constants 0, 1, 1, 2, 4 (pawn .. queen, 24 at the start), so the
//! whole evaluation is linear in the weights: the middlegame and endgame terms are folded into
//! one list with the taper already in the coefficients and summed by one `dot`.

use shakmaty::{Chess, Color, Position, Role};
use tape::{DotAccumulator, Scalar};

use crate::features::{piece_counts, relative, sign, Features};
use crate::param_info::{role_index, PHASE_INIT, PHASE_START_COUNTS};
use crate::terms::psqt::{psqt_terms, PsqtLayout as Layout};

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
/// skipped alike), summed as [`Scalar::dot`] sums them (term `t` into accumulator `t mod 4`),
/// but without collecting them into a list first.
pub(crate) fn evaluate_f64(pos: &Chess, layout: &Layout, w: &[f64]) -> f64 {
    let board = pos.board();
    let mg = fixed_phase(&piece_counts(board));
    let eg = 1.0 - mg;
    if mg != 0.0 && eg != 0.0 {
        if let Some(v) = tapered_f64(pos, layout, w, mg, eg) {
            return v;
        }
    }
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

/// [`evaluate_f64`] when every term comes as a pair, a middlegame and an endgame term both
/// non-zero (`0 < mg < 1`): pair `k` is terms `2k` and `2k + 1`, so it goes to accumulators 0
/// and 1 when `k` is even and 2 and 3 when it is odd. Two pairs of locals that swap after
/// every pair do that in registers. The walk is [`psqt_terms`]'s, in its order (colours, then
/// roles, then squares upwards; then the material differences), with each (colour, role)
/// table sliced once and the material counted on the way instead of by popcounts. `None` if
/// a term comes alone (a coefficient that is zero in one phase only) or the weights are too
/// short, which [`evaluate_f64`] then handles term by term.
#[inline(always)]
fn tapered_f64(pos: &Chess, layout: &Layout, w: &[f64], mg: f64, eg: f64) -> Option<f64> {
    let board = pos.board();
    let pst = w.get(layout.pst as usize..)?;
    let material: &[f64; 10] = w
        .get(layout.material as usize..)?
        .get(..10)?
        .try_into()
        .ok()?;
    // (p0, p1): the accumulators the next pair goes to; (q0, q1): the other two.
    let (mut p0, mut p1, mut q0, mut q1) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut pairs = 0usize;
    // Pieces of each colour by role, pawn .. queen.
    let mut counts = [[0u32; 5]; 2];
    for (c, color) in Color::ALL.into_iter().enumerate() {
        // s * mg and s * eg are non-zero: every piece-square term is a pair.
        let s = sign(color);
        let (cm, ce) = (s * mg, s * eg);
        let own = board.by_color(color);
        for role in Role::ALL {
            let r = role_index(role);
            let table: &[f64; 128] = pst.get(r * 128..)?.get(..128)?.try_into().ok()?;
            let mut n = 0u32;
            for sq in board.by_role(role) & own {
                let rel = usize::from(relative(color, sq));
                p0 += cm * table[rel];
                p1 += ce * table[64 + rel];
                std::mem::swap(&mut p0, &mut q0);
                std::mem::swap(&mut p1, &mut q1);
                n += 1;
            }
            pairs += n as usize;
            if let Some(k) = counts[c].get_mut(r) {
                *k = n;
            }
        }
    }
    for (r, pair) in material.chunks_exact(2).enumerate() {
        // As psqt_terms counts: each colour's count as a float, then the difference.
        let diff = f64::from(counts[0][r]) - f64::from(counts[1][r]);
        let (cm, ce) = (diff * mg, diff * eg);
        if cm != 0.0 && ce != 0.0 {
            p0 += cm * pair[0];
            p1 += ce * pair[1];
            std::mem::swap(&mut p0, &mut q0);
            std::mem::swap(&mut p1, &mut q1);
            pairs += 1;
        } else if cm != 0.0 || ce != 0.0 {
            return None;
        }
    }
    // After an even number of pairs (p0, p1) are accumulators 0 and 1 again.
    let acc = if pairs.is_multiple_of(2) {
        [p0, p1, q0, q1]
    } else {
        [q0, q1, p0, p1]
    };
    Some((acc[0] + acc[1]) + (acc[2] + acc[3]))
}
