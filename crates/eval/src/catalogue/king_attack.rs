//! Safe checks: the squares from which a piece could check the enemy king, that a piece of
//! that kind attacks, and that the enemy does not defend at all. `full` counts the checking
//! squares a piece attacks as an input of a king's danger (`king_check_squares` here); whether
//! the check can be given without losing the piece is what makes it a threat.

use shakmaty::{attacks, Bitboard, Board, Chess, Color, Piece, Position, Role};

use super::group::{normalise, side, Count, Group};

/// The checking pieces, in element order.
const CHECKERS: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// Every square `color` attacks (pawns, pieces, king).
fn attacked_by(board: &Board, color: Color) -> Bitboard {
    let occupied = board.occupied();
    let mut all = Bitboard::EMPTY;
    for sq in board.by_color(color) {
        if let Some(piece) = board.piece_at(sq) {
            all |= attacks::attacks(sq, piece, occupied);
        }
    }
    all
}

/// `safe_checks`: per knight, bishop, rook and queen, the squares from which a piece of that
/// kind would give check, that a piece of that kind of the side attacks, that hold no own
/// piece, and that no enemy piece, pawn or king attacks. Each square once per kind (two
/// knights on one checking square count 1).
fn safe_checks(pos: &Chess, out: &mut Vec<Count>) {
    let board = pos.board();
    let occupied = board.occupied();
    for color in Color::ALL {
        let Some(king) = board.king_of(!color) else {
            continue;
        };
        let free = !board.by_color(color) & !attacked_by(board, !color);
        for (m, role) in CHECKERS.into_iter().enumerate() {
            let checks = attacks::attacks(king, Piece { color, role }, occupied);
            let mut reach = Bitboard::EMPTY;
            for sq in board.by_piece(Piece { color, role }) {
                reach |= attacks::attacks(sq, Piece { color, role }, occupied);
            }
            let n = (checks & reach & free).count() as i32;
            if n != 0 {
                out.push(side(color, m as u32, n));
            }
        }
    }
    normalise(out);
}

/// The safe-check group.
pub(super) fn groups() -> Vec<Group> {
    vec![Group {
        name: "safe_checks",
        summary: "checking squares a piece attacks that the enemy does not defend, per piece kind",
        elements: ["knight", "bishop", "rook", "queen"]
            .map(String::from)
            .to_vec(),
        full_group: None,
        extract: safe_checks,
    }]
}
