//! Playing one game between two move choosers, with adjudication.

use std::convert::Infallible;
use std::time::Instant;

use shakmaty::{Chess, Color, KnownOutcome, Move, Position};

pub use crate::play::adjudication::Adjudication;
use crate::play::clock::GameClock;
use crate::play::openings::Opening;
use crate::play::options::PlayOptions;
use crate::search::evaluator::relative;
use crate::search::limits::SearchLimits;
use crate::search::searcher::{hash, SearchResult};

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
    /// A side's flag fell: it used more than its clock (plus the margin). A loss, or a draw
    /// when the other side has no mating material (FIDE Laws, 6.9).
    TimeForfeit,
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
            Termination::TimeForfeit => "time forfeit",
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

    /// The side that lost (or drew) on time, if the game ended by a flag fall: the side to
    /// move at the end.
    pub fn flagged(&self) -> Option<Color> {
        let first = self.opening.position.turn();
        let mover = if self.moves.len().is_multiple_of(2) {
            first
        } else {
            !first
        };
        (self.termination == Termination::TimeForfeit).then_some(mover)
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
/// use engine::play::game::{play_game, Adjudication};
/// use engine::play::openings::Opening;
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
    let referee = Referee {
        adjudication,
        clock: None,
        each: SearchLimits::default(),
    };
    let choose = |pos: &Chess, history: &[u64], _: &[Move], _: &SearchLimits| choose(pos, history);
    match play(opening, referee, choose, || Ok::<(), Infallible>(())) {
        Ok(g) => g,
        Err(never) => match never {},
    }
}

/// The one general form of [`play_game`]: the game as `options` say (their adjudication,
/// their move limits or time control, their `abandon` flag), for choosers that need the
/// game's moves (an external engine is sent the root and the moves, `position fen ROOT moves
/// ...`) and the limits of each move: `choose(position, history, line, limits)`, `line` being
/// every move from `opening.root` (the opening's, then the game's).
///
/// Under a time control the referee keeps both clocks ([`GameClock`]): `limits` carry them
/// (`go wtime btime winc binc`), each answer is timed from the call to its return, and a side
/// that takes more than its clock plus `options.time_margin` loses on time
/// ([`Termination::TimeForfeit`]).
///
/// Once `options.abandon` is set the game is abandoned: the flag is looked at before every
/// move and after every search, and an abandoned game gives `None` (a game cut short is no
/// game: its result would be made up).
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use std::sync::Arc;
/// use engine::play::game::play_game_from;
/// use engine::play::openings::Opening;
/// use engine::play::options::PlayOptions;
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::Chess;
///
/// let mut s = Searcher::new(MaterialEvaluator, 1);
/// let mut choose = |p: &_, h: &[u64], _: &[_], l: &SearchLimits| s.search(p, h, l);
/// let start = Opening::from_position(Chess::default());
/// let abandoned = PlayOptions::default().abandon(Arc::new(AtomicBool::new(true)));
/// assert!(play_game_from(&start, &abandoned, &mut choose).is_none());
/// let mut options = PlayOptions::default().limits(SearchLimits::depth(1));
/// options.adjudication.max_plies = 4;
/// assert_eq!(play_game_from(&start, &options, &mut choose).unwrap().moves.len(), 4);
/// ```
pub fn play_game_from(
    opening: &Opening,
    options: &PlayOptions,
    choose: impl FnMut(&Chess, &[u64], &[Move], &SearchLimits) -> SearchResult,
) -> Option<GameRecord> {
    let each = match &options.limits {
        crate::play::options::MoveLimits::Each(l) => l.clone(),
        crate::play::options::MoveLimits::Clock(_) => SearchLimits::default(),
    };
    let check = || match options.abandoned() {
        true => Err(()),
        false => Ok(()),
    };
    let referee = Referee {
        adjudication: &options.adjudication,
        clock: options.clock(),
        each,
    };
    play(opening, referee, choose, check).ok()
}

/// What a game is played under: the adjudication rules, the clocks (with a time control)
/// or else the limits of every move.
struct Referee<'a> {
    adjudication: &'a Adjudication,
    clock: Option<GameClock>,
    each: SearchLimits,
}

/// The result when the side to move in `pos` loses on time: the other side wins, unless it
/// has no mating material (then a draw).
fn time_forfeit(pos: &Chess) -> (KnownOutcome, Termination) {
    let other = !pos.turn();
    let outcome = if pos.has_insufficient_material(other) {
        KnownOutcome::Draw
    } else {
        KnownOutcome::Decisive { winner: other }
    };
    (outcome, Termination::TimeForfeit)
}

/// The running win and draw adjudication of a game.
#[derive(Default)]
struct Adjudicator {
    /// Plies in a row with a decisive score, and its sign.
    resign_run: (u32, i32),
    /// Plies in a row with a drawn score.
    draw_run: u32,
}

impl Adjudicator {
    /// After a move with score `white` (White's view), the game's `plies` so far: the
    /// adjudicated end, if the rules reached one.
    fn after(
        &mut self,
        rules: &Adjudication,
        white: i32,
        plies: u32,
    ) -> Option<(KnownOutcome, Termination)> {
        let sign = white.signum();
        if white.abs() >= rules.resign_score && sign == self.resign_run.1 {
            self.resign_run.0 += 1;
        } else if white.abs() >= rules.resign_score {
            self.resign_run = (1, sign);
        } else {
            self.resign_run = (0, 0);
        }
        if self.resign_run.0 >= rules.resign_plies {
            let winner = if sign > 0 { Color::White } else { Color::Black };
            return Some((
                KnownOutcome::Decisive { winner },
                Termination::WinAdjudication,
            ));
        }
        if white.abs() <= rules.draw_score {
            self.draw_run += 1;
        } else {
            self.draw_run = 0;
        }
        if plies >= rules.draw_after && self.draw_run >= rules.draw_plies {
            return Some((KnownOutcome::Draw, Termination::DrawAdjudication));
        }
        None
    }
}

/// The game loop: `check()` before every move and after every search; its error abandons
/// the game.
fn play<E>(
    opening: &Opening,
    mut referee: Referee<'_>,
    mut choose: impl FnMut(&Chess, &[u64], &[Move], &SearchLimits) -> SearchResult,
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
    let mut adjudicator = Adjudicator::default();
    let (outcome, termination) = loop {
        if let Some(end) = rules_outcome(&pos, &history) {
            break end;
        }
        if moves.len() as u32 >= referee.adjudication.max_plies {
            break (KnownOutcome::Draw, Termination::MaxPlies);
        }
        check()?;
        let limits = referee.clock.as_ref().map(|c| c.limits(pos.turn()));
        let start = Instant::now();
        let r = choose(
            &pos,
            &history,
            &line,
            limits.as_ref().unwrap_or(&referee.each),
        );
        let used = start.elapsed();
        check()?;
        if let Some(clock) = &mut referee.clock {
            if clock.punch(pos.turn(), used).is_err() {
                break time_forfeit(&pos);
            }
        }
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
        if let Some(end) = adjudicator.after(referee.adjudication, white, moves.len() as u32) {
            break end;
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
