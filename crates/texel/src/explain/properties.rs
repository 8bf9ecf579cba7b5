//! The position properties of the residual report: their names and bucket ranges
//! ([`PROPERTIES`]) and their values for a position ([`properties`]).

use shakmaty::{CastlingSide, Chess, Color, Position, Role};

use crate::judge::material_balance;

/// The properties of the residual report: name, and the range of values kept apart; values
/// beyond it (where a position can have them: the range is open at that end) go into the end
/// buckets.
pub(super) const PROPERTIES: [Property; 15] = [
    Property::open("material balance (pawns, White - Black)", -4, 4),
    Property::closed("white pawns", 0, 8),
    Property::closed("black pawns", 0, 8),
    Property::open("pawn difference (White - Black)", -3, 3),
    Property::closed("white king file (a = 0)", 0, 7),
    Property::open("white king rank (own side, 1 = home)", 1, 4),
    Property::closed("black king file (a = 0)", 0, 7),
    Property::open("black king rank (own side, 1 = home)", 1, 4),
    Property::closed("white king castled (home rank, files a-c or g-h)", 0, 1),
    Property::closed("black king castled (home rank, files a-c or g-h)", 0, 1),
    Property::closed("white castling rights (0-2)", 0, 2),
    Property::closed("black castling rights (0-2)", 0, 2),
    Property::closed("game phase (0-24, 24: every piece)", 0, 24),
    Property::closed("side to move (1: White)", 0, 1),
    Property::closed("bishop pair (White - Black)", -1, 1),
];

/// A property of [`PROPERTIES`].
pub(super) struct Property {
    pub(super) name: &'static str,
    pub(super) lo: i32,
    pub(super) hi: i32,
    /// Values beyond `lo` (if below 0) or beyond `hi` can occur.
    pub(super) open: bool,
}

impl Property {
    const fn open(name: &'static str, lo: i32, hi: i32) -> Self {
        Property {
            name,
            lo,
            hi,
            open: true,
        }
    }

    const fn closed(name: &'static str, lo: i32, hi: i32) -> Self {
        Property {
            name,
            lo,
            hi,
            open: false,
        }
    }

    pub(super) fn bucket(&self, x: i32) -> usize {
        (x.clamp(self.lo, self.hi) - self.lo) as usize
    }

    pub(super) fn label(&self, b: usize) -> String {
        let x = self.lo + b as i32;
        if self.open && x == self.lo && self.lo < 0 {
            format!("<= {x}")
        } else if self.open && x == self.hi {
            format!(">= {x}")
        } else {
            x.to_string()
        }
    }
}

/// How many of the strongest properties get their buckets.
pub(super) const BUCKETED: usize = 3;

/// The values of [`PROPERTIES`] for a position.
pub fn properties(pos: &Chess) -> [i32; PROPERTIES.len()] {
    let board = pos.board();
    let count = |c: Color, r: Role| (board.by_role(r) & board.by_color(c)).count() as i32;
    let king = |c: Color| -> (i32, i32, i32) {
        match board.king_of(c) {
            Some(sq) => {
                let own = if c == Color::White {
                    sq
                } else {
                    sq.flip_vertical()
                };
                let (file, rank) = (own.file() as i32, own.rank() as i32);
                let castled = rank == 0 && !(3..=4).contains(&file);
                (file, rank + 1, castled as i32)
            }
            None => (0, 1, 0),
        }
    };
    let rights = |c: Color| {
        let castles = pos.castles();
        castles.has(c, CastlingSide::KingSide) as i32
            + castles.has(c, CastlingSide::QueenSide) as i32
    };
    let (wk, bk) = (king(Color::White), king(Color::Black));
    let phase = [
        (Role::Knight, 1),
        (Role::Bishop, 1),
        (Role::Rook, 2),
        (Role::Queen, 4),
    ]
    .iter()
    .map(|&(r, v)| v * board.by_role(r).count() as i32)
    .sum::<i32>()
    .min(24);
    let pair = |c: Color| (count(c, Role::Bishop) >= 2) as i32;
    let (wp, bp) = (
        count(Color::White, Role::Pawn),
        count(Color::Black, Role::Pawn),
    );
    [
        material_balance(pos),
        wp,
        bp,
        wp - bp,
        wk.0,
        wk.1,
        bk.0,
        bk.1,
        wk.2,
        bk.2,
        rights(Color::White),
        rights(Color::Black),
        phase,
        (pos.turn() == Color::White) as i32,
        pair(Color::White) - pair(Color::Black),
    ]
}
