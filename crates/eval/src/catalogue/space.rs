//! Space: the room behind the pawns where pieces can stand and manoeuvre, which material and
//! tables do not measure.

use shakmaty::{Chess, Color, Position};

use super::group::{bits, normalise, side, Count, Group};
use crate::features::masks::{pawn_attacks, FORWARD_FILE};

/// The space area of each side (0 White, 1 Black): files c-f, the side's ranks 2-4.
const AREA: [u64; 2] = [0x0000_0000_3c3c_3c00, 0x003c_3c3c_0000_0000];

/// `space`: per side, `safe`: the squares of its area (files c-f, its ranks 2-4) that hold no
/// own pawn and that no enemy pawn attacks; `behind_pawn`: those of them with an own pawn
/// ahead on the same file (the pawns shelter them, counted in both elements).
fn space(pos: &Chess, out: &mut Vec<Count>) {
    let board = pos.board();
    let pawns = board.pawns().0;
    for color in Color::ALL {
        let c = usize::from(color == Color::Black);
        let own = pawns & board.by_color(color).0;
        let enemy = pawns & board.by_color(!color).0;
        let safe = AREA[c] & !own & !pawn_attacks(c ^ 1, enemy);
        let behind = bits(safe)
            .filter(|&i| own & FORWARD_FILE[c][i] != 0)
            .count() as i32;
        out.push(side(color, 0, safe.count_ones() as i32));
        out.push(side(color, 1, behind));
    }
    normalise(out);
}

/// The space group.
pub(super) fn groups() -> Vec<Group> {
    vec![Group {
        name: "space",
        summary: "safe squares on files c-f of the own ranks 2-4, and those behind own pawns",
        elements: ["safe", "behind_pawn"].map(String::from).to_vec(),
        full_group: None,
        extract: space,
    }]
}
