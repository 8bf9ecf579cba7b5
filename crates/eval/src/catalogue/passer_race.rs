//! The race between a passed pawn and the enemy king (the rule of the square), which a table
//! of passed pawns by rank cannot see: in an endgame a passer the king cannot catch is worth
//! nearly a queen, one it can catch little.

use shakmaty::{Chess, Color, Position, Role, Square};

use super::group::{normalise, side, Count, Group};
use crate::features::masks::PASSED_SPAN;

/// The elements: the race's margin, clipped to -3 .. +3.
const MARGINS: [&str; 7] = ["<=-3", "-2", "-1", "0", "+1", "+2", ">=+3"];

/// The margin of the race of `color`'s pawn on `sq` against the enemy king on `king`:
/// the king's distance (king steps) to the promotion square, less one when the king's side is
/// to move, less the pawn's moves to promote (one fewer from the second rank, for the double
/// step). With the margin 1 or more the king alone cannot catch the pawn; 0 or less it can.
fn margin(color: Color, sq: Square, king: Square, king_to_move: bool) -> i32 {
    let rank = match color {
        Color::White => u32::from(sq.rank()),
        Color::Black => 7 - u32::from(sq.rank()),
    };
    let pawn_moves = if rank == 1 { 5 } else { 7 - rank as i32 };
    let promotion = match color {
        Color::White => Square::from_coords(sq.file(), shakmaty::Rank::Eighth),
        Color::Black => Square::from_coords(sq.file(), shakmaty::Rank::First),
    };
    let king_moves = king.distance(promotion) as i32 - i32::from(king_to_move);
    king_moves - pawn_moves
}

/// `passer_race`: per passed pawn (no enemy pawn ahead on its own or an adjacent file; own
/// pawns ahead allowed), its race margin against the enemy king ([`margin`]), clipped to
/// -3 .. +3. Pieces are not looked at: a blocker or a defender of the promotion square changes
/// nothing here.
fn passer_race(pos: &Chess, out: &mut Vec<Count>) {
    let board = pos.board();
    for color in Color::ALL {
        let Some(king) = board.king_of(!color) else {
            continue;
        };
        let c = usize::from(color == Color::Black);
        let enemy_pawns = (board.pawns() & board.by_color(!color)).0;
        let king_to_move = pos.turn() != color;
        for sq in board.by_role(Role::Pawn) & board.by_color(color) {
            if enemy_pawns & PASSED_SPAN[c][sq as usize] == 0 {
                let m = margin(color, sq, king, king_to_move).clamp(-3, 3);
                out.push(side(color, (m + 3) as u32, 1));
            }
        }
    }
    normalise(out);
}

/// The passer-race group.
pub(super) fn groups() -> Vec<Group> {
    vec![Group {
        name: "passer_race",
        summary: "passed pawns by their race margin against the enemy king (square rule), -3..+3",
        elements: MARGINS.map(String::from).to_vec(),
        full_group: None,
        extract: passer_race,
    }]
}
