//! Pawn structure beyond `full`'s terms: pawn islands, candidate passed pawns and connected
//! passed pawns.
//!
//! A pawn is *passed* as in `full` (`terms/pawns.rs`): no enemy pawn ahead of it on its own or
//! an adjacent file, and no own pawn ahead of it on its file.

use shakmaty::{Chess, Color, Position};

use super::group::{bits, normalise, side, Count, Group};
use crate::features::masks::{ADJACENT_FILES, FORWARD_FILE, PASSED_SPAN, SUPPORT_SPAN};

/// A side's pawns, the enemy's, and the side's index in the masks (0 White, 1 Black).
struct Pawns {
    own: u64,
    enemy: u64,
    c: usize,
}

impl Pawns {
    fn of(pos: &Chess, color: Color) -> Pawns {
        let board = pos.board();
        let pawns = board.pawns().0;
        Pawns {
            own: pawns & board.by_color(color).0,
            enemy: pawns & board.by_color(!color).0,
            c: usize::from(color == Color::Black),
        }
    }

    /// Whether the own pawn on square `i` is passed.
    fn passed(&self, i: usize) -> bool {
        self.enemy & PASSED_SPAN[self.c][i] == 0 && self.own & FORWARD_FILE[self.c][i] == 0
    }

    /// The relative rank of square `i` less 2: rank 2 is 0 .. rank 7 is 5 (None off 2-7).
    fn rank_element(&self, i: usize) -> Option<u32> {
        let rank = if self.c == 0 { i / 8 } else { 7 - i / 8 };
        (1..=6).contains(&rank).then(|| rank as u32 - 1)
    }

    /// The squares of the own pawns.
    fn squares(&self) -> impl Iterator<Item = usize> {
        bits(self.own)
    }
}

/// `pawn_islands`: one count per side with pawns, on the element of its number of islands
/// (maximal runs of adjacent files holding an own pawn): `1`, `2`, `3`, `4+`.
fn pawn_islands(pos: &Chess, out: &mut Vec<Count>) {
    for color in Color::ALL {
        let own = Pawns::of(pos, color).own;
        let mut files = own;
        files |= files >> 32;
        files |= files >> 16;
        files |= files >> 8;
        let files = files & 0xff;
        // An island starts at each file with a pawn whose left neighbour has none.
        let islands = (files & !(files << 1)).count_ones();
        if islands > 0 {
            out.push(side(color, islands.min(4) - 1, 1));
        }
    }
    normalise(out);
}

/// `candidate_passers`, by relative rank 2-7: own pawns that are not passed, have no pawn of
/// either side ahead on their file, and have at least as many own pawns on the adjacent files
/// beside or behind them (helpers) as enemy pawns on the adjacent files ahead (sentries).
fn candidate_passers(pos: &Chess, out: &mut Vec<Count>) {
    for color in Color::ALL {
        let p = Pawns::of(pos, color);
        for i in p.squares() {
            let open = (p.own | p.enemy) & FORWARD_FILE[p.c][i] == 0;
            if !open || p.passed(i) {
                continue;
            }
            let helpers = (p.own & SUPPORT_SPAN[p.c][i]).count_ones();
            let sentries = (p.enemy & PASSED_SPAN[p.c][i] & ADJACENT_FILES[i % 8]).count_ones();
            if let (true, Some(e)) = (helpers >= sentries, p.rank_element(i)) {
                out.push(side(color, e, 1));
            }
        }
    }
    normalise(out);
}

/// `connected_passers`, by relative rank 2-7: passed pawns with an own passed pawn on an
/// adjacent file (on any rank).
fn connected_passers(pos: &Chess, out: &mut Vec<Count>) {
    for color in Color::ALL {
        let p = Pawns::of(pos, color);
        let passed: u64 = p
            .squares()
            .filter(|&i| p.passed(i))
            .map(|i| 1u64 << i)
            .sum();
        for i in p.squares().filter(|&i| p.passed(i)) {
            if let (true, Some(e)) = (passed & ADJACENT_FILES[i % 8] != 0, p.rank_element(i)) {
                out.push(side(color, e, 1));
            }
        }
    }
    normalise(out);
}

/// `rank2` .. `rank7`.
fn ranks() -> Vec<String> {
    (2..=7).map(|k| format!("rank{k}")).collect()
}

/// The pawn-structure groups.
pub(super) fn groups() -> Vec<Group> {
    vec![
        Group {
            name: "pawn_islands",
            summary: "the number of pawn islands (runs of adjacent files with own pawns): 1-4+",
            elements: ["1", "2", "3", "4+"].map(String::from).to_vec(),
            full_group: None,
            extract: pawn_islands,
        },
        Group {
            name: "candidate_passers",
            summary: "unblocked pawns, not passed, with as many helpers as sentries, by rank",
            elements: ranks(),
            full_group: None,
            extract: candidate_passers,
        },
        Group {
            name: "connected_passers",
            summary: "passed pawns with an own passed pawn on an adjacent file, by rank",
            elements: ranks(),
            full_group: None,
            extract: connected_passers,
        },
    ]
}
