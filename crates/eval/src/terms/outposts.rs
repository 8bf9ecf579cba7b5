//! Outposts: a knight or bishop on the enemy's side of the board, defended by an own pawn, on a
//! square no enemy pawn can ever attack.
//!
//! A piece-square table knows where a knight stands well on average; whether the square can
//! be taken from it by a pawn depends on the pawns, which the tables do not see.

use shakmaty::{Color, Piece, Role};

use super::{Context, ParamBuilder, Term};
use crate::features::masks::{ADJACENT_FILES, PASSED_SPAN};
use crate::features::{sign, Sink};

/// The pieces with an outpost term (`outposts.<piece>`), in index order.
const OUTPOST_PIECES: [&str; 2] = ["knight", "bishop"];

/// The fourth to sixth ranks from each side's view (0 White, 1 Black): the enemy's side of the
/// board, short of its back ranks.
const OUTPOST_RANKS: [u64; 2] = [0x0000_ffff_ff00_0000, 0x0000_00ff_ffff_0000];

/// `outposts.{knight,bishop}.<phase>`: per knight / bishop on its 4th to 6th rank, defended by
/// an own pawn, with no enemy pawn on an adjacent file ahead of it. Added after weights files
/// of `full` were written.
pub(crate) struct Outposts;

impl Term for Outposts {
    /// Index of `outposts.knight.mg`: `outposts.<piece>.<phase>` is `+ 2 * piece + phase`.
    type Layout = u32;
    const GROUPS: &'static [&'static str] = &["outposts"];
    const ADDED_LATER: bool = true;

    fn declare(b: &mut ParamBuilder) -> u32 {
        let first = b.next_index();
        for piece in OUTPOST_PIECES {
            b.pair(&format!("outposts.{piece}"), 0.0);
        }
        first
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, &outposts: &u32, sink: &mut impl Sink) {
        extract(ctx, outposts, sink);
    }
}

/// Adds the outpost terms of both colours: per knight and per bishop on an outpost,
/// `outposts.<piece>`.
#[inline(always)]
fn extract(ctx: &Context<'_>, outposts: u32, f: &mut impl Sink) {
    let (board, maps) = (ctx.board(), &ctx.maps);
    let pawns = board.pawns().0;
    for color in Color::ALL {
        let c = color as usize ^ 1; // White = 0 here
        let enemy_pawns = pawns & board.by_color(!color).0;
        // Candidate squares: on the ranks, defended by an own pawn.
        let candidates = OUTPOST_RANKS[c] & maps.pawn[c];
        for (k, role) in [Role::Knight, Role::Bishop].into_iter().enumerate() {
            let mut count = 0u32;
            let mut on = board.by_piece(Piece { color, role }).0 & candidates;
            while on != 0 {
                let i = on.trailing_zeros() as usize;
                on &= on - 1;
                // No enemy pawn on an adjacent file ahead of it, now or later.
                if enemy_pawns & PASSED_SPAN[c][i] & ADJACENT_FILES[i % 8] == 0 {
                    count += 1;
                }
            }
            f.pair(outposts + 2 * k as u32, sign(color) * f64::from(count));
        }
    }
}
