//! [`Sample`]: one labelled position.

use shakmaty::{fen::Fen, Chess, Color, EnPassantMode};

use crate::{DataError, PackedBoard};

/// One labelled position: the board, the game result, an optional score and the id of the
/// game (or group) it came from, used by [`split_by_game`](crate::split_by_game).
///
/// ```
/// use data::Sample;
/// use shakmaty::Chess;
///
/// let s = Sample::from_position(&Chess::default(), 0.5, Some(25.0), 7);
/// assert_eq!(s.position()?, Chess::default());
/// assert_eq!((s.result, s.score, s.game), (0.5, Some(25.0), 7));
/// assert_eq!(s.to_epd(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - [0.5] ce 25;");
/// # Ok::<(), data::DataError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Sample {
    /// The position, packed (Chess960 castling rights included).
    pub board: PackedBoard,
    /// The game result from White's point of view: 1, 0.5, 0, or a probability.
    pub result: f64,
    /// A score label in centipawns from White's point of view (engine score, `ce`), if known.
    pub score: Option<f32>,
    /// The game (or group) id: positions of one game share it.
    pub game: u32,
}

impl Sample {
    /// Packs a position with its labels.
    pub fn from_position(pos: &Chess, result: f64, score: Option<f32>, game: u32) -> Sample {
        Sample {
            board: PackedBoard::from_position(pos),
            result,
            score,
            game,
        }
    }

    /// Unpacks the position (halfmove clock 0, move number 1).
    pub fn position(&self) -> Result<Chess, DataError> {
        self.board.to_position()
    }

    /// The side to move, read from the packed board.
    pub fn turn(&self) -> Color {
        self.board.turn()
    }

    /// The sample as one EPD line in the form [`load`](crate::load) reads back: the four EPD
    /// fields, the result as `[1.0]`, `[0.5]`, `[0.0]` (or `[p]` for a probability), and the
    /// score as `ce` when known (rounded centipawns from the side to move's point of view, as
    /// the EPD standard defines `ce`).
    pub fn to_epd(&self) -> String {
        let board = match self.position() {
            Ok(pos) => {
                let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                // Keep the four EPD fields: drop the halfmove clock and the move number.
                fen.rsplitn(3, ' ').nth(2).unwrap_or(&fen).to_string()
            }
            Err(e) => format!("<{e}>"),
        };
        let result = if self.result == 1.0 || self.result == 0.0 || self.result == 0.5 {
            format!("{:.1}", self.result)
        } else {
            format!("{}", self.result)
        };
        match self.score {
            Some(s) => {
                let stm = if self.turn() == Color::White { s } else { -s };
                format!("{board} [{result}] ce {};", stm.round() as i64)
            }
            None => format!("{board} [{result}]"),
        }
    }
}
