//! Playing one game between two move choosers, with adjudication.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::{Chess, Color, KnownOutcome, Move, Position};

use crate::evaluator::relative;
use crate::openings::Opening;
use crate::search::{hash, SearchResult};

/// When a game is stopped before the rules end it.
///
/// ```
/// use engine::game::{play_game, Adjudication, Termination};
/// use engine::openings::Opening;
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::Chess;
///
/// // A game cut at 10 plies is a draw by the ply limit.
/// let rules = Adjudication { max_plies: 10, ..Adjudication::default() };
/// let mut searcher = Searcher::new(MaterialEvaluator, 1);
/// let game = play_game(&Opening::from_position(Chess::default()), &rules, |pos, history| {
///     searcher.search(pos, history, &SearchLimits::nodes(100))
/// });
/// assert_eq!(game.moves.len(), 10);
/// assert_eq!(game.termination, Termination::MaxPlies);
/// assert_eq!(game.white_score(), 0.5);
/// assert_eq!(game.positions().count(), 10);
/// ```
#[derive(Clone, Debug)]
pub struct Adjudication {
    /// Win adjudication: both sides agree the score (White's view) is at least this large ...
    pub resign_score: i32,
    /// ... for this many consecutive plies.
    pub resign_plies: u32,
    /// Draw adjudication: the score is at most this (absolute) ...
    pub draw_score: i32,
    /// ... for this many consecutive plies ...
    pub draw_plies: u32,
    /// ... once this many plies have been played (after the opening).
    pub draw_after: u32,
    /// A game reaching this many plies (after the opening) is a draw.
    pub max_plies: u32,
}

impl Default for Adjudication {
    fn default() -> Self {
        Self {
            resign_score: 1000,
            resign_plies: 4,
            draw_score: 10,
            draw_plies: 12,
            draw_after: 80,
            max_plies: 400,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Checkmate on the board.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// Fifty moves without capture or pawn move.
    FiftyMoves,
    /// The same position a third time.
    Repetition,
    /// Adjudicated as won: the score stayed decisive.
    WinAdjudication,
    /// Adjudicated as drawn: the score stayed near zero.
    DrawAdjudication,
    /// The game reached the ply limit.
    MaxPlies,
}

impl Termination {
    /// A short description for PGN comments.
    pub fn describe(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::FiftyMoves => "fifty-move rule",
            Termination::Repetition => "threefold repetition",
            Termination::WinAdjudication => "adjudication: decisive score",
            Termination::DrawAdjudication => "adjudication: drawn score",
            Termination::MaxPlies => "adjudication: move limit",
        }
    }
}

/// One move chosen by search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// The search score in centipawns for the side that moved.
    pub score: i32,
    /// Completed search depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The opening the engines started from.
    pub opening: Opening,
    /// The searched moves, from `opening.position`.
    pub moves: Vec<PlayedMove>,
    /// The result.
    pub outcome: KnownOutcome,
    /// Why the game ended.
    pub termination: Termination,
}

impl GameRecord {
    /// The result from White's point of view: 1, 0.5 or 0.
    pub fn white_score(&self) -> f64 {
        match self.outcome.winner() {
            Some(Color::White) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        }
    }

    /// The positions before each searched move, paired with that move.
    pub fn positions(&self) -> impl Iterator<Item = (Chess, &PlayedMove)> + '_ {
        let mut pos = self.opening.position.clone();
        self.moves.iter().map(move |pm| {
            let before = pos.clone();
            pos.play_unchecked(pm.mv);
            (before, pm)
        })
    }
}

/// How the rules end the game in `pos`, if they do. `history` holds the hashes of earlier
/// positions.
pub fn rules_outcome(pos: &Chess, history: &[u64]) -> Option<(KnownOutcome, Termination)> {
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return Some(if pos.is_check() {
            (
                KnownOutcome::Decisive {
                    winner: !pos.turn(),
                },
                Termination::Checkmate,
            )
        } else {
            (KnownOutcome::Draw, Termination::Stalemate)
        });
    }
    if pos.is_insufficient_material() {
        return Some((KnownOutcome::Draw, Termination::InsufficientMaterial));
    }
    if pos.halfmoves() >= 100 {
        return Some((KnownOutcome::Draw, Termination::FiftyMoves));
    }
    let key = hash(pos);
    let back = (pos.halfmoves() as usize).min(history.len());
    let seen = history[history.len() - back..]
        .iter()
        .filter(|&&h| h == key)
        .count();
    if seen >= 2 {
        return Some((KnownOutcome::Draw, Termination::Repetition));
    }
    None
}

/// Play a game from `opening`, asking `choose(position, history)` for every move.
///
/// ```
/// use engine::game::{play_game, Adjudication};
/// use engine::openings::Opening;
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let pos: Chess = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1".parse::<Fen>().unwrap()
///     .into_position(CastlingMode::Standard).unwrap();
/// let mut s = Searcher::new(MaterialEvaluator, 1);
/// let game = play_game(&Opening::from_position(pos), &Adjudication::default(), |p, h| {
///     s.search(p, h, &SearchLimits::depth(4))
/// });
/// assert_eq!(game.white_score(), 1.0);
/// ```
pub fn play_game(
    opening: &Opening,
    adjudication: &Adjudication,
    mut choose: impl FnMut(&Chess, &[u64]) -> SearchResult,
) -> GameRecord {
    play_game_from(opening, adjudication, |pos, history, _| {
        choose(pos, history)
    })
}

/// [`play_game`] for choosers that need the game's moves (an external engine is sent the
/// root and the moves, `position fen ROOT moves ...`): `choose(position, history, line)`,
/// `line` being every move from `opening.root` (the opening's, then the game's).
pub fn play_game_from(
    opening: &Opening,
    adjudication: &Adjudication,
    choose: impl FnMut(&Chess, &[u64], &[Move]) -> SearchResult,
) -> GameRecord {
    match play(opening, adjudication, choose, || Ok::<(), Infallible>(())) {
        Ok(g) => g,
        Err(never) => match never {},
    }
}

/// [`play_game_from`], abandoned once `stop` is set (e.g. by Ctrl-C): `stop` is looked at
/// before every move and after every search, and an abandoned game gives `None` (a game cut
/// short is no game: its result would be made up).
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use engine::game::{play_game_until, Adjudication};
/// use engine::openings::Opening;
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::Chess;
///
/// let mut s = Searcher::new(MaterialEvaluator, 1);
/// let mut choose = |p: &_, h: &[u64], _: &[_]| s.search(p, h, &SearchLimits::depth(1));
/// let start = Opening::from_position(Chess::default());
/// let stop = AtomicBool::new(true);
/// assert!(play_game_until(&start, &Adjudication::default(), &mut choose, &stop).is_none());
/// let rules = Adjudication { max_plies: 4, ..Adjudication::default() };
/// let go = AtomicBool::new(false);
/// assert_eq!(play_game_until(&start, &rules, &mut choose, &go).unwrap().moves.len(), 4);
/// ```
pub fn play_game_until(
    opening: &Opening,
    adjudication: &Adjudication,
    choose: impl FnMut(&Chess, &[u64], &[Move]) -> SearchResult,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let check = || match stop.load(Ordering::Relaxed) {
        true => Err(()),
        false => Ok(()),
    };
    play(opening, adjudication, choose, check).ok()
}

/// The game loop: `check()` before every move and after every search; its error abandons
/// the game.
fn play<E>(
    opening: &Opening,
    adjudication: &Adjudication,
    mut choose: impl FnMut(&Chess, &[u64], &[Move]) -> SearchResult,
    check: impl Fn() -> Result<(), E>,
) -> Result<GameRecord, E> {
    let mut line = opening.moves.clone();
    let mut history = Vec::with_capacity(256);
    let mut pos = opening.root.clone();
    for &m in &opening.moves {
        history.push(hash(&pos));
        pos.play_unchecked(m);
    }
    let mut moves = Vec::new();
    let mut resign_run = (0u32, 0i32);
    let mut draw_run = 0u32;
    let (outcome, termination) = loop {
        if let Some(end) = rules_outcome(&pos, &history) {
            break end;
        }
        if moves.len() as u32 >= adjudication.max_plies {
            break (KnownOutcome::Draw, Termination::MaxPlies);
        }
        check()?;
        let r = choose(&pos, &history, &line);
        check()?;
        let Some(m) = r.best_move.filter(|&m| pos.is_legal(m)) else {
            // A chooser that returns no legal move forfeits.
            break (
                KnownOutcome::Decisive {
                    winner: !pos.turn(),
                },
                Termination::WinAdjudication,
            );
        };
        let white = relative(f64::from(r.score), pos.turn()) as i32;
        moves.push(PlayedMove {
            mv: m,
            score: r.score,
            depth: r.depth,
            nodes: r.nodes,
        });
        history.push(hash(&pos));
        pos.play_unchecked(m);
        line.push(m);

        let sign = white.signum();
        if white.abs() >= adjudication.resign_score && sign == resign_run.1 {
            resign_run.0 += 1;
        } else if white.abs() >= adjudication.resign_score {
            resign_run = (1, sign);
        } else {
            resign_run = (0, 0);
        }
        if resign_run.0 >= adjudication.resign_plies {
            let winner = if sign > 0 { Color::White } else { Color::Black };
            break (
                KnownOutcome::Decisive { winner },
                Termination::WinAdjudication,
            );
        }
        if white.abs() <= adjudication.draw_score {
            draw_run += 1;
        } else {
            draw_run = 0;
        }
        if moves.len() as u32 >= adjudication.draw_after && draw_run >= adjudication.draw_plies {
            break (KnownOutcome::Draw, Termination::DrawAdjudication);
        }
    };
    Ok(GameRecord {
        opening: opening.clone(),
        moves,
        outcome,
        termination,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    #[test]
    fn threefold_repetition_ends_the_game() {
        let mut pos = Chess::default();
        let mut history = Vec::new();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for (i, m) in shuffle.iter().cycle().take(8).enumerate() {
            assert!(rules_outcome(&pos, &history).is_none(), "ply {i}");
            history.push(hash(&pos));
            let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        // The start position now occurs for the third time.
        assert_eq!(
            rules_outcome(&pos, &history),
            Some((KnownOutcome::Draw, Termination::Repetition))
        );
    }

    #[test]
    fn win_adjudication_needs_agreement_for_several_plies() {
        let adj = Adjudication {
            resign_score: 500,
            resign_plies: 2,
            ..Adjudication::default()
        };
        // Both sides agree White is far ahead (side-to-move scores +600 and -600).
        let game = play_game(&Opening::from_position(Chess::default()), &adj, |pos, _| {
            let m = pos.legal_moves()[0];
            let score = if pos.turn() == Color::White {
                600
            } else {
                -600
            };
            SearchResult {
                best_move: Some(m),
                score,
                depth: 1,
                nodes: 1,
                pv: vec![m],
                elapsed: std::time::Duration::ZERO,
            }
        });
        assert_eq!(game.moves.len(), 2);
        assert_eq!(game.termination, Termination::WinAdjudication);
        assert_eq!(game.white_score(), 1.0);
    }
}
