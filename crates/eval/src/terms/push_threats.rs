//! Pawn-push threats: enemy pieces a safe pawn push would attack, counted separately for the
//! side to move and the side waiting (see [`super::threats`] for why).

use shakmaty::Color;

use super::threats::THREAT_SIDES;
use super::{Context, ParamBuilder, Term};
use crate::features::masks::pawn_attacks;
use crate::features::{sign, Sink};

/// `push_threats.{to_move,waiting}.<phase>`: per enemy piece (knight .. queen) a pawn of that
/// side would attack after one safe push. Added after weights files of `full` were written.
pub(crate) struct PushThreats;

impl Term for PushThreats {
    /// Index of `push_threats.to_move.mg`: `push_threats.<side>.<phase>` is
    /// `+ 2 * side + phase`.
    type Layout = u32;
    const GROUPS: &'static [&'static str] = &["push_threats"];
    const ADDED_LATER: bool = true;

    fn declare(b: &mut ParamBuilder) -> u32 {
        let first = b.next_index();
        for side in THREAT_SIDES {
            b.pair(&format!("push_threats.{side}"), 0.0);
        }
        first
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, &push_threats: &u32, sink: &mut impl Sink) {
        extract(ctx, push_threats, sink);
    }
}

/// Adds the pawn-push threats of both colours: the enemy pieces (knight, bishop, rook, queen)
/// that a pawn of the colour would attack after one safe push, single or double, on the
/// weights of the side to move or of the side waiting (`push_threats.<side>`).
///
/// A push is safe when its square is empty, no enemy pawn attacks it, and the colour defends
/// it or the enemy does not attack it: a quiet move that forks or wins a piece, which a
/// quiescence search (captures only) does not play.
#[inline(always)]
fn extract(ctx: &Context<'_>, push_threats: u32, f: &mut impl Sink) {
    let (board, maps, turn) = (ctx.board(), &ctx.maps, ctx.turn());
    let empty = !board.occupied().0;
    let pawns = board.pawns().0;
    for color in Color::ALL {
        let c = color as usize ^ 1; // White = 0 here
        let e = c ^ 1;
        let own_pawns = pawns & board.by_color(color).0;
        let targets = board.by_color(!color).0 & !pawns & !board.kings().0;
        // Single pushes, then double pushes from the pawns' home rank (through an empty
        // third rank).
        let (single, double) = if c == 0 {
            let single = (own_pawns << 8) & empty;
            (single, ((single & RANK_3[0]) << 8) & empty)
        } else {
            let single = (own_pawns >> 8) & empty;
            (single, ((single & RANK_3[1]) >> 8) & empty)
        };
        let safe = (single | double) & !maps.pawn[e] & (maps.all[c] | !maps.all[e]);
        let attacked = pawn_attacks(c, safe) & targets;
        if attacked != 0 {
            let side = u32::from(color != turn);
            f.pair(
                push_threats + 2 * side,
                sign(color) * f64::from(attacked.count_ones()),
            );
        }
    }
}

/// The third rank from each side's view (0 White: rank 3; 1 Black: rank 6): where a single
/// push from the home rank lands.
const RANK_3: [u64; 2] = [0xff << 16, 0xff << 40];
