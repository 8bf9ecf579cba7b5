//! Material imbalance: products of piece counts, the second-order terms of material (a
//! knight's worth falling as pawns come off, a rook's rising, ...), which a linear material
//! value cannot express.

use shakmaty::{Board, Chess, Color, Position, Role};

use super::group::{normalise, side, Count, Group};

/// A side's and its enemy's counts of pawns, knights, bishops, rooks and queens.
type Material = ([i32; 5], [i32; 5]);

/// The counts of `color` and of its enemy.
fn material(board: &Board, color: Color) -> Material {
    let count = |c: Color| {
        [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ]
        .map(|role| (board.by_role(role) & board.by_color(c)).count() as i32)
    };
    (count(color), count(!color))
}

/// An element's value from a side's [`Material`].
type Product = fn(&Material) -> i32;

/// The elements, in order: their names and their values from a side's counts (`o` own, `e`
/// enemy; 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen). `knight_pairs` and `rook_pairs` are
/// `n (n - 1) / 2`, the number of pairs (0 for one piece).
const ELEMENTS: [(&str, Product); 16] = [
    ("knight*pawn", |(o, _)| o[1] * o[0]),
    ("bishop*pawn", |(o, _)| o[2] * o[0]),
    ("rook*pawn", |(o, _)| o[3] * o[0]),
    ("queen*pawn", |(o, _)| o[4] * o[0]),
    ("knight*bishop", |(o, _)| o[1] * o[2]),
    ("knight*rook", |(o, _)| o[1] * o[3]),
    ("bishop*rook", |(o, _)| o[2] * o[3]),
    ("rook*queen", |(o, _)| o[3] * o[4]),
    ("knight_pairs", |(o, _)| o[1] * (o[1] - 1) / 2),
    ("rook_pairs", |(o, _)| o[3] * (o[3] - 1) / 2),
    ("own_knight*enemy_pawn", |(o, e)| o[1] * e[0]),
    ("own_bishop*enemy_pawn", |(o, e)| o[2] * e[0]),
    ("own_rook*enemy_pawn", |(o, e)| o[3] * e[0]),
    ("own_queen*enemy_pawn", |(o, e)| o[4] * e[0]),
    ("own_rook*enemy_minor", |(o, e)| o[3] * (e[1] + e[2])),
    ("own_queen*enemy_rook", |(o, e)| o[4] * e[3]),
];

/// `imbalance`: per side, each product of [`ELEMENTS`] from its own and the enemy's counts.
fn imbalance(pos: &Chess, out: &mut Vec<Count>) {
    for color in Color::ALL {
        let m = material(pos.board(), color);
        for (e, (_, value)) in ELEMENTS.iter().enumerate() {
            let n = value(&m);
            if n != 0 {
                out.push(side(color, e as u32, n));
            }
        }
    }
    normalise(out);
}

/// The imbalance group.
pub(super) fn groups() -> Vec<Group> {
    vec![Group {
        name: "imbalance",
        summary: "products of piece counts, own and own-by-enemy (16 of them)",
        elements: ELEMENTS.iter().map(|(name, _)| name.to_string()).collect(),
        full_group: None,
        extract: imbalance,
    }]
}
