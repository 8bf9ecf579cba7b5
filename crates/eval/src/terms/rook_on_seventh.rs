//! Rooks on the seventh: a rook on its 7th rank (the enemy's second) while the enemy king is on
//! its back rank or enemy pawns are still on their home rank, which the rook attacks along the
//! rank, cutting the king off from the rest of the board.

use shakmaty::{Color, Piece, Role};

use super::{Context, ParamBuilder, Term};
use crate::features::{sign, Sink};

/// Each side's 7th rank (0 White: rank 7; 1 Black: rank 2).
const SEVENTH: [u64; 2] = [0x00ff_0000_0000_0000, 0x0000_0000_0000_ff00];

/// Each side's 8th rank, the enemy's back rank (0 White: rank 8; 1 Black: rank 1).
const EIGHTH: [u64; 2] = [0xff00_0000_0000_0000, 0x0000_0000_0000_00ff];

/// `rook_on_seventh.<phase>`: per rook on its 7th rank with the enemy king on its 8th rank or
/// an enemy pawn on the 7th. Added after weights files of `full` were written.
pub(crate) struct RookOnSeventh;

impl Term for RookOnSeventh {
    /// Index of `rook_on_seventh.mg`.
    type Layout = u32;
    const GROUPS: &'static [&'static str] = &["rook_on_seventh"];
    const ADDED_LATER: bool = true;

    fn declare(b: &mut ParamBuilder) -> u32 {
        b.pair("rook_on_seventh", 0.0)
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, &index: &u32, sink: &mut impl Sink) {
        let board = ctx.board();
        for color in Color::ALL {
            let c = color as usize ^ 1; // White = 0 here
            let rooks = board.by_piece(Piece {
                color,
                role: Role::Rook,
            });
            let on_seventh = rooks.0 & SEVENTH[c];
            if on_seventh == 0 {
                continue;
            }
            let enemy = board.by_color(!color).0;
            let pawns = board.pawns().0 & enemy & SEVENTH[c];
            let king = board.kings().0 & enemy & EIGHTH[c];
            if pawns | king != 0 {
                sink.pair(index, sign(color) * f64::from(on_seventh.count_ones()));
            }
        }
    }
}
