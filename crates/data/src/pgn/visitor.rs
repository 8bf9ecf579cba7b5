//! Reading one game with pgn-reader: the tags that set up its start, the main line's
//! positions before each move with the score and book mark of the move's comment, and the
//! result.

use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, Outcome, RawComment, RawTag, SanPlus, Visitor};
use shakmaty::{fen::Fen, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, Setup};

/// A position before a move, with what the move's comment said.
pub(super) struct Candidate {
    pub(super) pos: Chess,
    pub(super) ply: u32,
    pub(super) score: Option<f32>,
    pub(super) book: bool,
}

#[derive(Default)]
pub(super) struct Tags {
    pub(super) fen: Option<Vec<u8>>,
    pub(super) setup: Option<Vec<u8>>,
    pub(super) variant: Option<String>,
    pub(super) result: Option<f64>,
}

pub(super) struct Movetext {
    pub(super) pos: Chess,
    pub(super) ply: u32,
    pub(super) cands: Vec<Candidate>,
    /// The last token was a move, so a comment now belongs to it.
    pub(super) after_move: bool,
    pub(super) outcome: Option<f64>,
    pub(super) tag_result: Option<f64>,
}

/// A game as read, before filtering.
pub(super) struct Game {
    pub(super) cands: Vec<Candidate>,
    pub(super) result: Option<f64>,
    pub(super) mated: bool,
}

pub(super) enum GameOut {
    Game(Game),
    Skipped(&'static str),
    Error(String),
}

pub(super) struct GameVisitor;

/// Comment scores at or beyond this many centipawns (eval's mate score) are not kept.
const MAX_SCORE: f32 = eval::MATE as f32;

fn parse_result(v: &[u8]) -> Option<f64> {
    match v {
        b"1-0" => Some(1.0),
        b"0-1" => Some(0.0),
        b"1/2-1/2" => Some(0.5),
        _ => None,
    }
}

/// Castling mode of a `[Variant]` tag; `Err` for variants gradtune does not read.
fn variant_mode(v: &str) -> Result<Option<CastlingMode>, ()> {
    let v = v.trim().to_ascii_lowercase();
    match v.as_str() {
        "" | "standard" | "chess" | "normal" | "from position" | "fromposition" => Ok(None),
        "chess960"
        | "chess 960"
        | "960"
        | "fischerandom"
        | "fischer random"
        | "fischerrandom"
        | "frc"
        | "dfrc"
        | "double fischer random"
        | "doublefischerrandom"
        | "freestyle"
        | "chess960 (dfrc)" => Ok(Some(CastlingMode::Chess960)),
        _ => Err(()),
    }
}

/// A score in a move comment, in centipawns from the mover's (`Some(true)`) or White's
/// (`Some(false)`) view, and whether the comment marks a book move.
fn parse_comment(c: &[u8]) -> (Option<(f32, bool)>, bool) {
    let text = String::from_utf8_lossy(c);
    let text = text.trim();
    let book = text
        .split(|ch: char| !ch.is_ascii_alphabetic())
        .any(|w| w.eq_ignore_ascii_case("book"));
    if let Some(i) = text.find("[%eval ") {
        let v = text[i + 7..].split([']', ',', ' ']).next().unwrap_or("");
        if let Ok(x) = v.parse::<f32>() {
            if x.is_finite() {
                return (Some(((x * 100.0).round(), false)), book);
            }
        }
        return (None, book);
    }
    let first = text.split_whitespace().next().unwrap_or("");
    if let Some((s, depth)) = first.split_once('/') {
        if !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(x) = s.parse::<f32>() {
                if x.is_finite() {
                    return (Some(((x * 100.0).round(), true)), book);
                }
            }
        }
    }
    (None, book)
}

fn start_position(tags: &Tags) -> Result<Chess, GameOut> {
    let fail = |m: String| Err(GameOut::Error(m));
    let mode = match tags.variant.as_deref().map(variant_mode) {
        None => None,
        Some(Ok(m)) => m,
        Some(Err(())) => return Err(GameOut::Skipped("unsupported variant")),
    };
    let setup_flag = tags.setup.as_deref().map(|s| s.trim_ascii());
    match (&tags.fen, setup_flag) {
        (None, Some(b"1")) => fail("[SetUp \"1\"] without a [FEN] tag".into()),
        (Some(fen), flag) if flag != Some(b"0") => {
            let fen = match Fen::from_ascii(fen.trim_ascii()) {
                Ok(f) => f,
                Err(e) => {
                    return fail(format!(
                        "bad FEN tag {:?}: {e}",
                        String::from_utf8_lossy(fen)
                    ))
                }
            };
            let setup: Setup = fen.into_setup();
            let mode = mode.unwrap_or_else(|| CastlingMode::detect(&setup));
            Chess::from_setup(setup, mode)
                .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
                .map_err(|e| GameOut::Error(format!("FEN tag: {e}")))
        }
        _ => {
            let pos = Chess::default();
            if mode == Some(CastlingMode::Chess960) {
                // The standard start position, read with Chess960 castling.
                let setup = pos.to_setup(EnPassantMode::Legal);
                Chess::from_setup(setup, CastlingMode::Chess960)
                    .map_err(|e| GameOut::Error(e.to_string()))
            } else {
                Ok(pos)
            }
        }
    }
}

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = GameOut;

    fn begin_tags(&mut self) -> ControlFlow<GameOut, Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<GameOut> {
        match name {
            b"FEN" => tags.fen = Some(value.decode().into_owned()),
            b"SetUp" => tags.setup = Some(value.decode().into_owned()),
            b"Variant" => tags.variant = Some(value.decode_utf8_lossy().into_owned()),
            b"Result" => tags.result = parse_result(value.decode().trim_ascii()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<GameOut, Movetext> {
        match start_position(&tags) {
            Ok(pos) => ControlFlow::Continue(Movetext {
                pos,
                ply: 0,
                cands: Vec::with_capacity(160),
                after_move: false,
                outcome: None,
                tag_result: tags.result,
            }),
            Err(out) => ControlFlow::Break(out),
        }
    }

    fn san(&mut self, m: &mut Movetext, san_plus: SanPlus) -> ControlFlow<GameOut> {
        match san_plus.san.to_move(&m.pos) {
            Ok(mv) => {
                m.cands.push(Candidate {
                    pos: m.pos.clone(),
                    ply: m.ply,
                    score: None,
                    book: false,
                });
                m.pos.play_unchecked(mv);
                m.ply += 1;
                m.after_move = true;
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(GameOut::Error(format!(
                "illegal move {} at ply {} ({e}) in {}",
                san_plus,
                m.ply + 1,
                Fen::from_position(&m.pos, EnPassantMode::Legal)
            ))),
        }
    }

    fn comment(&mut self, m: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<GameOut> {
        if m.after_move {
            if let Some(c) = m.cands.last_mut() {
                let (score, book) = parse_comment(comment.as_bytes());
                c.book |= book;
                if c.score.is_none() {
                    // Engines print garbage beyond mate range now and then: no label then.
                    let score = score.filter(|(s, _)| s.abs() < MAX_SCORE);
                    c.score = score.map(|(s, mover)| {
                        if mover && c.pos.turn() == Color::Black {
                            -s
                        } else {
                            s
                        }
                    });
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, m: &mut Movetext, outcome: Outcome) -> ControlFlow<GameOut> {
        m.outcome = match outcome {
            Outcome::Known(KnownOutcome::Decisive {
                winner: Color::White,
            }) => Some(1.0),
            Outcome::Known(KnownOutcome::Decisive {
                winner: Color::Black,
            }) => Some(0.0),
            Outcome::Known(KnownOutcome::Draw) => Some(0.5),
            Outcome::Unknown => None,
        };
        m.after_move = false;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Movetext) -> GameOut {
        GameOut::Game(Game {
            mated: m.pos.is_checkmate(),
            result: m.tag_result.or(m.outcome),
            cands: m.cands,
        })
    }
}
