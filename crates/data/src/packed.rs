//! [`PackedBoard`]: a position in 24 bytes, Chess960 castling included.

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Rank,
    Role, Setup, Square,
};

use crate::DataError;

/// Code of a rook that still has its castling right (colour from its rank: 1st white, 8th black).
const CASTLING_ROOK: u8 = 12;
/// Code of the pawn that has just made a double step and can be taken en passant.
const EP_PAWN: u8 = 13;
/// Code of the black king when Black is to move.
const BLACK_KING_TO_MOVE: u8 = 14;

/// A legal chess position packed into 24 bytes: the occupancy bitboard (8 bytes, little
/// endian) and one 4-bit code per occupied square in square order (16 bytes).
///
/// Codes 0-5 are the white pawn, knight, bishop, rook, queen and king, 6-11 the black ones.
/// Three special codes carry the rest of the position without extra bytes:
/// 12 is a rook with a castling right (so Chess960 castling rights are kept exactly, as rook
/// squares), 13 is the pawn that can be taken en passant (kept only when a legal capture
/// exists), 14 is the black king when Black is to move. Move counters are not kept.
///
/// ```
/// use data::PackedBoard;
/// use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
///
/// let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 1";
/// let pos: Chess = fen.parse::<Fen>()?.into_position(CastlingMode::Chess960)?;
/// let packed = PackedBoard::from_position(&pos);
/// let back = packed.to_position()?;
/// assert_eq!(back.board(), pos.board());
/// assert_eq!(back.castles().castling_rights(), pos.castles().castling_rights()); // f1, h1, f8, h8
/// assert_eq!(back.turn(), pos.turn());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PackedBoard(pub [u8; PackedBoard::BYTES]);

impl PackedBoard {
    /// Size in bytes.
    pub const BYTES: usize = 24;

    /// Packs a position. A legal [`Chess`] position has at most 32 pieces, so nothing is lost
    /// except the move counters.
    pub fn from_position(pos: &Chess) -> PackedBoard {
        let board = pos.board();
        let occupied = board.occupied();
        let castling = pos.castles().castling_rights();
        let ep_pawn = pos.ep_square(EnPassantMode::Legal).and_then(|ep| {
            // The pawn that made the double step stands one rank closer to its own side.
            match pos.turn() {
                Color::White => ep.offset(-8),
                Color::Black => ep.offset(8),
            }
        });
        let mut bytes = [0u8; Self::BYTES];
        bytes[..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
        for (i, sq) in occupied.into_iter().take(32).enumerate() {
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            let code = if piece.role == Role::Rook && castling.contains(sq) {
                CASTLING_ROOK
            } else if Some(sq) == ep_pawn && piece.role == Role::Pawn {
                EP_PAWN
            } else if piece.role == Role::King
                && piece.color == Color::Black
                && pos.turn() == Color::Black
            {
                BLACK_KING_TO_MOVE
            } else {
                piece_code(piece)
            };
            bytes[8 + i / 2] |= code << (4 * (i % 2));
        }
        PackedBoard(bytes)
    }

    /// The occupancy bitboard.
    pub fn occupied(&self) -> Bitboard {
        let mut occ = [0u8; 8];
        occ.copy_from_slice(&self.0[..8]);
        Bitboard(u64::from_le_bytes(occ))
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        if self.codes().any(|(_, c)| c == BLACK_KING_TO_MOVE) {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The squares and raw 4-bit codes, in square order.
    fn codes(&self) -> impl Iterator<Item = (Square, u8)> + '_ {
        self.occupied()
            .into_iter()
            .take(32)
            .enumerate()
            .map(|(i, sq)| (sq, (self.0[8 + i / 2] >> (4 * (i % 2))) & 0x0f))
    }

    /// The pieces on the board, without checking that the position is legal. Unknown codes
    /// are left out.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        let turn = self.turn();
        self.codes().filter_map(move |(sq, code)| {
            let piece = match code {
                CASTLING_ROOK => Color::from_white(sq.rank() == Rank::First).rook(),
                EP_PAWN => (!turn).pawn(),
                BLACK_KING_TO_MOVE => Color::Black.king(),
                c => piece_from_code(c)?,
            };
            Some((sq, piece))
        })
    }

    /// The game phase from material: knights and bishops count 1, rooks 2, queens 4, capped at
    /// 24 (the opening). Cheap: the board is not unpacked into a position.
    pub fn phase(&self) -> u8 {
        let sum: u32 = self
            .pieces()
            .map(|(_, p)| match p.role {
                Role::Knight | Role::Bishop => 1,
                Role::Rook => 2,
                Role::Queen => 4,
                _ => 0,
            })
            .sum();
        sum.min(24) as u8
    }

    /// Cheap structural check (used when loading a cache): at most 32 pieces, known codes, one
    /// king of each colour.
    pub fn check(&self) -> Result<(), DataError> {
        let occupied = self.occupied();
        if occupied.count() > 32 {
            return Err(DataError::Board(format!(
                "{} pieces (at most 32)",
                occupied.count()
            )));
        }
        // A plain loop over the nibbles: this runs for every record of a cache being loaded.
        let mut kings = [0u32; 2];
        for i in 0..occupied.count() {
            match (self.0[8 + i / 2] >> (4 * (i % 2))) & 0x0f {
                5 => kings[0] += 1,
                11 | BLACK_KING_TO_MOVE => kings[1] += 1,
                15 => return Err(DataError::Board("unknown piece code 15".into())),
                _ => {}
            }
        }
        if kings != [1, 1] {
            return Err(DataError::Board(format!(
                "{} white and {} black kings",
                kings[0], kings[1]
            )));
        }
        Ok(())
    }

    /// The position as a [`Setup`] (halfmove clock 0, move number 1).
    pub fn to_setup(&self) -> Result<Setup, DataError> {
        self.check()?;
        let turn = self.turn();
        let mut board = Board::empty();
        let mut castling_rights = Bitboard::EMPTY;
        let mut ep_square = None;
        for (sq, code) in self.codes() {
            let piece = match code {
                CASTLING_ROOK => {
                    castling_rights.add(sq);
                    match sq.rank() {
                        Rank::First => Color::White.rook(),
                        Rank::Eighth => Color::Black.rook(),
                        _ => {
                            return Err(DataError::Board(format!(
                                "castling rook on {sq}, off the back ranks"
                            )))
                        }
                    }
                }
                EP_PAWN => {
                    let behind = match turn {
                        Color::White => sq.offset(8),
                        Color::Black => sq.offset(-8),
                    };
                    ep_square = behind;
                    (!turn).pawn()
                }
                BLACK_KING_TO_MOVE => Color::Black.king(),
                c => piece_from_code(c)
                    .ok_or_else(|| DataError::Board(format!("unknown piece code {c}")))?,
            };
            board.set_piece_at(sq, piece);
        }
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = turn;
        setup.castling_rights = castling_rights;
        setup.ep_square = ep_square;
        Ok(setup)
    }

    /// Unpacks the position, checking that it is legal. The castling mode is Chess960 when
    /// the castling rights need it, standard otherwise.
    pub fn to_position(&self) -> Result<Chess, DataError> {
        let setup = self.to_setup()?;
        let mode = CastlingMode::detect(&setup);
        Chess::from_setup(setup, mode).map_err(|e| DataError::Board(e.to_string()))
    }
}

fn piece_code(piece: Piece) -> u8 {
    let role = piece.role as u8 - 1; // shakmaty roles are 1 (pawn) ..= 6 (king)
    match piece.color {
        Color::White => role,
        Color::Black => 6 + role,
    }
}

fn piece_from_code(code: u8) -> Option<Piece> {
    let (color, r) = match code {
        0..=5 => (Color::White, code),
        6..=11 => (Color::Black, code - 6),
        _ => return None,
    };
    let role = Role::ALL.get(usize::from(r)).copied()?;
    Some(Piece { color, role })
}
