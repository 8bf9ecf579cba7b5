//! Feature extraction: everything about a position that does not depend on the weights.
//!
//! Extraction fills [`Features`], lists of `(parameter index, coefficient)` pairs, so that the
//! models combine them with the weights through one [`Scalar::dot`](tape::Scalar::dot) per
//! sum. The lists depend only on the position, never on weight values, so a recording has the
//! same structure at every weight vector.

mod masks;
mod pawns;
mod pieces;

use shakmaty::{Board, Chess, Color, Position, Square};

use crate::params::{role_index, Layout};

/// A list of `(parameter index, coefficient)` pairs.
pub(crate) type Terms = Vec<(u32, f64)>;

/// Reusable feature buffers of one position.
#[derive(Debug, Default)]
pub(crate) struct Features {
    /// Middlegame terms, White's view.
    pub(crate) mg: Terms,
    /// Endgame terms, White's view.
    pub(crate) eg: Terms,
    /// Scratch for a combined list (the `psqt` model folds the taper into one list).
    pub(crate) combined: Terms,
    /// Inputs of the king-danger sums: `[0]` the danger to White's king, `[1]` to Black's.
    pub(crate) danger: [Terms; 2],
    /// Number of pawns, knights, bishops, rooks and queens on the board (both colours).
    pub(crate) piece_counts: [f64; 5],
}

impl Features {
    fn clear(&mut self) {
        self.mg.clear();
        self.eg.clear();
        self.combined.clear();
        self.danger[0].clear();
        self.danger[1].clear();
        self.piece_counts = [0.0; 5];
    }
}

/// `+1` for White, `-1` for Black.
#[inline(always)]
pub(crate) fn sign(color: Color) -> f64 {
    match color {
        Color::White => 1.0,
        Color::Black => -1.0,
    }
}

/// The square as seen from `color`'s side (Black's squares are mirrored vertically).
#[inline(always)]
pub(crate) fn relative(color: Color, sq: Square) -> Square {
    match color {
        Color::White => sq,
        Color::Black => sq.flip_vertical(),
    }
}

/// Material and piece-square terms (both models), and the piece counts.
pub(crate) fn extract_psqt(board: &Board, layout: &Layout, f: &mut Features) {
    f.clear();
    let mut material = [0.0f64; 5];
    for (sq, piece) in board {
        let s = sign(piece.color);
        let r = role_index(piece.role);
        let rel = relative(piece.color, sq) as u32;
        let base = layout.pst + (r as u32 * 2) * 64 + rel;
        f.mg.push((base, s));
        f.eg.push((base + 64, s));
        if r < 5 {
            material[r] += s;
            f.piece_counts[r] += 1.0;
        }
    }
    for (r, &m) in material.iter().enumerate() {
        let i = layout.material + 2 * r as u32;
        f.mg.push((i, m));
        f.eg.push((i + 1, m));
    }
}

/// Every term of the `full` model.
pub(crate) fn extract_full(pos: &Chess, layout: &Layout, f: &mut Features) {
    let board = pos.board();
    extract_psqt(board, layout, f);
    pawns::extract(board, layout, f);
    pieces::extract(board, layout, f);
    let t = sign(pos.turn());
    f.mg.push((layout.tempo, t));
    f.eg.push((layout.tempo + 1, t));
}
