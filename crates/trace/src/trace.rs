//! [`Trace`]: one traced position.

use data::PackedBoard;
use shakmaty::{fen::Fen, Chess};

/// One traced position: the board, its labels, the engine's phase, scale, constant and own
/// evaluation, and the sparse coefficients of the manifest's elements.
///
/// `constant` and `eval` are White's view whatever the manifest's score convention (readers
/// convert). Coefficients are sorted by trace index with repeated indices merged;
/// features sorted by feature index.
///
/// Memory: 120 bytes inline (on x86-64) plus 12 bytes a coefficient and 12 a feature on the
/// heap (rounded up by the allocator): 360 bytes for 20 coefficients and no feature.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The position, packed (move counters are not kept).
    pub board: PackedBoard,
    /// The game result, White's view: 1, 0.5, 0 or a probability.
    pub result: f64,
    /// A score label in centipawns, White's view, if the line has one.
    pub score: Option<f32>,
    /// The game (or group) id, for splits by game.
    pub game: u32,
    /// Whether White is to move.
    pub white_to_move: bool,
    /// The engine's phase, `0..=phase_max` (`phase_max` a pure middlegame).
    pub phase: f32,
    /// The endgame scale, `0..=scale_max`, if the trace gives one (absent: `scale_max`).
    pub scale: Option<f32>,
    /// The engine's score for the terms not being tuned, White's view.
    pub constant: f32,
    /// The engine's own static evaluation, White's view, if given.
    pub eval: Option<f32>,
    /// `(trace index, white count, black count)`, sorted by index, no index twice.
    pub coeffs: Vec<(u32, f32, f32)>,
    /// `(feature index, white value, black value)`, sorted by index, no index twice.
    pub features: Vec<(u16, f32, f32)>,
}

impl Trace {
    /// The position as a FEN (halfmove clock 0, move number 1).
    pub fn fen(&self) -> String {
        match self.board.to_setup() {
            Ok(setup) => Fen::try_from_setup(setup)
                .unwrap_or_else(|e| e.ignore())
                .to_string(),
            Err(e) => format!("<invalid board: {e}>"),
        }
    }

    /// The position, checked for legality.
    pub fn position(&self) -> Result<Chess, data::DataError> {
        self.board.to_position()
    }

    /// The value of feature `k` for White and Black (0 if the trace does not give it).
    pub fn feature(&self, k: u16) -> (f64, f64) {
        self.features
            .iter()
            .find(|f| f.0 == k)
            .map_or((0.0, 0.0), |f| (f64::from(f.1), f64::from(f.2)))
    }

    /// Bytes this trace occupies: inline plus its vectors' heap buffers.
    pub fn memory(&self) -> usize {
        std::mem::size_of::<Trace>()
            + self.coeffs.capacity() * std::mem::size_of::<(u32, f32, f32)>()
            + self.features.capacity() * std::mem::size_of::<(u16, f32, f32)>()
    }
}
