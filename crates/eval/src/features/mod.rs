//! Where feature extraction puts its terms, and what the terms (`crate::terms`) share.
//!
//! Extraction fills [`Features`], lists of `(parameter index, coefficient)` pairs, so that the
//! models combine them with the weights through one [`Scalar::dot`](tape::Scalar::dot) per
//! sum, or, for the search, running sums at fixed weights (a [`Sink`] either way). The lists
//! depend only on the position, never on weight values, so a recording has the same structure
//! at every weight vector.

pub(crate) mod masks;

use shakmaty::{Board, Color, Square};

/// A list of `(parameter index, coefficient)` pairs.
pub(crate) type Terms = Vec<(u32, f64)>;

/// Reusable feature buffers of one position.
#[derive(Debug, Default)]
pub(crate) struct Features {
    /// Middlegame terms, White's view.
    pub(crate) mg: Terms,
    /// Endgame terms, White's view.
    pub(crate) eg: Terms,
    /// Scratch for a combined list (the `psqt` model folds the taper into one list; `full`
    /// keeps its phase sum here).
    pub(crate) combined: Terms,
    /// Inputs of the king-danger sums: `[0]` the danger to White's king, `[1]` to Black's.
    pub(crate) danger: [Terms; 2],
}

/// Where extraction puts the terms of the `full` model's middlegame, endgame, king-danger and
/// phase sums: term lists ([`Features`], which a tuner records) or running sums at fixed weights
/// (`full::F64Sums`, which the search calls). Extraction hands both the same terms in the same
/// order, so both sum the same way.
pub(crate) trait Sink {
    /// The middlegame term `(mg, c)` and the endgame term `(eg, c)`, unless `c` is 0 (a zero
    /// term would only lengthen the tape).
    fn pair2(&mut self, mg: u32, eg: u32, c: f64);

    /// `c` times the pair `<name>.mg` (index `mg`) / `<name>.eg` (index `mg + 1`), unless `c`
    /// is 0.
    #[inline(always)]
    fn pair(&mut self, mg: u32, c: f64) {
        self.pair2(mg, mg + 1, c);
    }

    /// The term `(index, c)` of the danger to `side`'s king (0 White, 1 Black), unless `c` is 0.
    fn danger(&mut self, side: usize, index: u32, c: f64);

    /// The term `(index, c)` of the phase sum, unless `c` is 0.
    fn phase(&mut self, index: u32, c: f64);
}

impl Sink for Features {
    #[inline(always)]
    fn pair2(&mut self, mg: u32, eg: u32, c: f64) {
        if c != 0.0 {
            self.mg.push((mg, c));
            self.eg.push((eg, c));
        }
    }

    #[inline(always)]
    fn danger(&mut self, side: usize, index: u32, c: f64) {
        push_nonzero(&mut self.danger[side], index, c);
    }

    /// The phase sum's terms go to `combined`.
    #[inline(always)]
    fn phase(&mut self, index: u32, c: f64) {
        push_nonzero(&mut self.combined, index, c);
    }
}

impl Features {
    pub(crate) fn clear(&mut self) {
        self.mg.clear();
        self.eg.clear();
        self.combined.clear();
        self.danger[0].clear();
        self.danger[1].clear();
    }
}

/// Adds `(index, c)` to `list` unless `c` is 0.
#[inline(always)]
pub(crate) fn push_nonzero(list: &mut Terms, index: u32, c: f64) {
    if c != 0.0 {
        list.push((index, c));
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

/// The number of pawns, knights, bishops, rooks and queens on the board (both colours).
pub(crate) fn piece_counts(board: &Board) -> [f64; 5] {
    [
        board.pawns().count() as f64,
        board.knights().count() as f64,
        board.bishops().count() as f64,
        board.rooks().count() as f64,
        board.queens().count() as f64,
    ]
}
