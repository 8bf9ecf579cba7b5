//! Pawn structure: doubled, isolated, backward, connected and passed pawns.

use shakmaty::{Board, Color, Square};

use super::masks::{pawn_attacks, ADJACENT_FILES, FORWARD_FILE, PASSED_SPAN, SUPPORT_SPAN};
use super::{sign, Sink};
use crate::params::Layout;

/// Adds the pawn-structure terms of both colours.
#[inline(always)]
pub(crate) fn extract(board: &Board, layout: &Layout, f: &mut impl Sink) {
    let occupied = board.occupied().0;
    for color in Color::ALL {
        let c = color as usize ^ 1; // shakmaty: Black = 0, White = 1; here White = 0
        let s = sign(color);
        let own = (board.pawns() & board.by_color(color)).0;
        let enemy = (board.pawns() & board.by_color(!color)).0;
        let enemy_attacks = pawn_attacks(c ^ 1, enemy);
        let own_king = board.king_of(color);
        let enemy_king = board.king_of(!color);

        // Doubled: pawns beyond the first on each file = pawns - files with a pawn.
        let mut files = own;
        files |= files >> 32;
        files |= files >> 16;
        files |= files >> 8;
        let doubled = f64::from(own.count_ones() - (files & 0xff).count_ones());
        let (mut isolated, mut backward) = (0.0, 0.0);
        let mut bb = own;
        while bb != 0 {
            let i = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            let file = i % 8;
            let rel_rank = if c == 0 { i / 8 } else { 7 - i / 8 };
            // A pawn is never on its first or last rank in a legal position; be safe anyway.
            if !(1..=6).contains(&rel_rank) {
                continue;
            }
            let k = (rel_rank - 1) as u32; // rank2 -> 0 .. rank7 -> 5
            let stop = if c == 0 { i + 8 } else { i - 8 };

            let is_isolated = own & ADJACENT_FILES[file] == 0;
            if is_isolated {
                isolated += 1.0;
            } else if own & SUPPORT_SPAN[c][i] == 0 && enemy_attacks & (1u64 << stop) != 0 {
                backward += 1.0;
            }

            let supported = own & pawn_attacks(c ^ 1, 1u64 << i) != 0;
            let rank_mask = 0xffu64 << (8 * (i / 8));
            let phalanx = own & ADJACENT_FILES[file] & rank_mask != 0;
            if supported || phalanx {
                let idx = layout.connected + 2 * k;
                f.pair(idx, s);
            }

            let passed = enemy & PASSED_SPAN[c][i] == 0 && own & FORWARD_FILE[c][i] == 0;
            if passed {
                let idx = layout.passed + 2 * k;
                f.pair(idx, s);
                if occupied & FORWARD_FILE[c][i] == 0 {
                    let idx = layout.free_path + 2 * k;
                    f.pair(idx, s);
                }
                let stop_sq = Square::new(stop as u32);
                if let Some(k) = own_king {
                    let d = f64::from(k.distance(stop_sq));
                    f.pair(layout.king_dist_own, s * d);
                }
                if let Some(k) = enemy_king {
                    let d = f64::from(k.distance(stop_sq));
                    f.pair(layout.king_dist_enemy, s * d);
                }
            }
        }
        for (idx, n) in [
            (layout.doubled, doubled),
            (layout.isolated, isolated),
            (layout.backward, backward),
        ] {
            f.pair(idx, s * n);
        }
    }
}
