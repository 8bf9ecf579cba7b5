//! Tables relative to the kings: where a piece stands seen from the own king's wing, and how
//! far it is from either king. A piece-square table alone values a pawn on g2 the same in
//! front of a castled king and far from it; these groups see the difference.

use shakmaty::{Chess, Color, Position, Role};

use super::group::{normalise, side, Count, Group};
use crate::features::relative;

/// The pieces of [`piece_king_distance`], in element order.
const PIECES: [(Role, &str); 4] = [
    (Role::Knight, "knight"),
    (Role::Bishop, "bishop"),
    (Role::Rook, "rook"),
    (Role::Queen, "queen"),
];

/// `pawn_table_king_wing`: each pawn's square from its side's view (Black's mirrored
/// vertically), mirrored horizontally as well when the own king stands on files a-d, so that
/// the own king is always on files e-h. Elements a1 .. h8 (ranks 1 and 8 never count).
fn pawn_table_king_wing(pos: &Chess, out: &mut Vec<Count>) {
    let board = pos.board();
    for color in Color::ALL {
        // The queen's wing (files a-d) is mirrored onto the king's wing.
        let mirror = board
            .king_of(color)
            .is_some_and(|k| u32::from(k.file()) < 4);
        for sq in board.by_role(Role::Pawn) & board.by_color(color) {
            let rel = relative(color, sq);
            let rel = if mirror { rel.flip_horizontal() } else { rel };
            out.push(side(color, rel as u32, 1));
        }
    }
    normalise(out);
}

/// Per knight, bishop, rook and queen, the Chebyshev distance (king steps, 1-7) from it to
/// the enemy king (`enemy`) or to its own king: element `7 * piece + distance - 1`.
fn piece_king_distance(pos: &Chess, out: &mut Vec<Count>, enemy: bool) {
    let board = pos.board();
    for color in Color::ALL {
        let Some(king) = board.king_of(if enemy { !color } else { color }) else {
            continue;
        };
        for (p, (role, _)) in PIECES.into_iter().enumerate() {
            for sq in board.by_role(role) & board.by_color(color) {
                let d = sq.distance(king).clamp(1, 7);
                out.push(side(color, 7 * p as u32 + d - 1, 1));
            }
        }
    }
    normalise(out);
}

/// `knight.1` .. `knight.7`, `bishop.1` .. `queen.7`.
fn piece_distances() -> Vec<String> {
    PIECES
        .iter()
        .flat_map(|(_, name)| (1..=7).map(move |d| format!("{name}.{d}")))
        .collect()
}

/// The groups relative to the kings.
pub(super) fn groups() -> Vec<Group> {
    vec![
        Group {
            name: "pawn_table_king_wing",
            summary: "a pawn table with files mirrored so that the own king is on files e-h",
            elements: super::group::square_names(),
            full_group: None,
            extract: pawn_table_king_wing,
        },
        Group {
            name: "piece_enemy_king_distance",
            summary: "knights, bishops, rooks and queens by their distance (1-7) to the enemy king",
            elements: piece_distances(),
            full_group: None,
            extract: |pos, out| piece_king_distance(pos, out, true),
        },
        Group {
            name: "piece_own_king_distance",
            summary: "knights, bishops, rooks and queens by their distance (1-7) to the own king",
            elements: piece_distances(),
            full_group: None,
            extract: |pos, out| piece_king_distance(pos, out, false),
        },
    ]
}
