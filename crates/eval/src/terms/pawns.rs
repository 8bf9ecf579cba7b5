//! Pawn structure: doubled, isolated, backward, connected and passed pawns.

use shakmaty::{Color, Square};

use super::{Context, ParamBuilder, Term};
use crate::features::masks::{
    pawn_attacks, ADJACENT_FILES, FORWARD_FILE, PASSED_SPAN, SUPPORT_SPAN,
};
use crate::features::{sign, Sink};

/// `pawns.{doubled,isolated,backward}.<phase>` (per pawn; doubled: per extra pawn on a file),
/// `pawns.connected.rank<k>.<phase>`, `pawns.passed.rank<k>.<phase>`,
/// `pawns.passed.free_path.rank<k>.<phase>` (k = 2..7, the pawn's rank from its side) and
/// `pawns.passed.king_distance.{own,enemy}.<phase>` (times the king's distance to a passed
/// pawn's stop square).
pub(crate) struct Pawns;

/// Where the pawn-structure parameters are (each the index of a `.mg` parameter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PawnsLayout {
    /// `pawns.doubled.<phase>`.
    pub(crate) doubled: u32,
    /// `pawns.isolated.<phase>`.
    pub(crate) isolated: u32,
    /// `pawns.backward.<phase>`.
    pub(crate) backward: u32,
    /// `pawns.connected.rank<k>.<phase>`, k = 2..7: index `connected + 2 * (k - 2) + phase`.
    pub(crate) connected: u32,
    /// `pawns.passed.rank<k>.<phase>`, k = 2..7.
    pub(crate) passed: u32,
    /// `pawns.passed.free_path.rank<k>.<phase>`, k = 2..7.
    pub(crate) free_path: u32,
    /// `pawns.passed.king_distance.own.<phase>`.
    pub(crate) king_dist_own: u32,
    /// `pawns.passed.king_distance.enemy.<phase>`.
    pub(crate) king_dist_enemy: u32,
}

impl Term for Pawns {
    type Layout = PawnsLayout;
    const GROUPS: &'static [&'static str] = &["pawns"];
    const ADDED_LATER: bool = false;

    fn declare(b: &mut ParamBuilder) -> PawnsLayout {
        let doubled = b.pair("pawns.doubled", 0.0);
        let isolated = b.pair("pawns.isolated", 0.0);
        let backward = b.pair("pawns.backward", 0.0);
        let mut by_rank = |name: &str| {
            let first = b.next_index();
            for k in 2..=7 {
                b.pair(&format!("pawns.{name}rank{k}"), 0.0);
            }
            first
        };
        let connected = by_rank("connected.");
        let passed = by_rank("passed.");
        let free_path = by_rank("passed.free_path.");
        PawnsLayout {
            doubled,
            isolated,
            backward,
            connected,
            passed,
            free_path,
            king_dist_own: b.pair("pawns.passed.king_distance.own", 0.0),
            king_dist_enemy: b.pair("pawns.passed.king_distance.enemy", 0.0),
        }
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, layout: &PawnsLayout, sink: &mut impl Sink) {
        extract(ctx, layout, sink);
    }
}

/// Adds the pawn-structure terms of both colours.
#[inline(always)]
fn extract(ctx: &Context<'_>, layout: &PawnsLayout, f: &mut impl Sink) {
    let board = ctx.board();
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
