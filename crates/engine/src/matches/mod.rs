//! Matches between two players (evaluations searched by gradtune, or external UCI engines:
//! [`crate::player`]): paired games (each opening with both colours), in parallel, scored
//! from the first player's point of view.

mod record;
mod run;

use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use rayon::prelude::*;
use shakmaty::{Chess, Color, Move, Position};

use crate::elo::{pentanomial, trinomial, EloEstimate};
use crate::game::{play_game_from, play_game_until, Adjudication, GameRecord};
use crate::limits::SearchLimits;
use crate::openings::Opening;
use crate::player::{Mover, Player};

pub use record::{format_elo, verdict_name, MatchRecord, SprtRecord};
pub use run::{run_match, MatchEvent, MatchPlan, MatchReport, SprtOutcome, SprtStop};

/// Options of a match.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Limits of every move (nodes or movetime).
    pub limits: SearchLimits,
    /// Transposition table per player and game, MiB.
    pub hash_mb: usize,
    /// Adjudication rules.
    pub adjudication: Adjudication,
}

impl Default for MatchOptions {
    fn default() -> Self {
        Self {
            limits: SearchLimits::nodes(5_000),
            hash_mb: 4,
            adjudication: Adjudication::default(),
        }
    }
}

/// One game of a match.
#[derive(Clone, Debug)]
pub struct MatchGame {
    /// Index of the opening (games `2i` and `2i + 1` share opening `i`).
    pub opening: usize,
    /// Whether the first player (A) had White.
    pub a_white: bool,
    /// The game.
    pub record: GameRecord,
}

impl MatchGame {
    /// A's score: 1, 0.5 or 0.
    pub fn a_score(&self) -> f64 {
        let white = self.record.white_score();
        if self.a_white {
            white
        } else {
            1.0 - white
        }
    }
}

/// The games of a match and their tally from A's point of view.
///
/// ```
/// use engine::matches::{play_match, MatchOptions};
/// use engine::openings::Opening;
/// use engine::{MaterialEvaluator, SearchLimits};
/// use shakmaty::Chess;
///
/// let openings = [Opening::from_position(Chess::default())];
/// let opts = MatchOptions { limits: SearchLimits::nodes(200), ..MatchOptions::default() };
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &|_| {});
/// // One opening, both colours: one pair; a player against itself at fixed nodes scores 1.
/// assert_eq!(r.games.len(), 2);
/// assert_eq!(r.pairs, [0, 0, 1, 0, 0]);
/// assert_eq!(r.wins, r.losses);
/// ```
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    /// The games, in order: opening 0 with A White, opening 0 with A Black, opening 1, ...
    pub games: Vec<MatchGame>,
    /// A's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// A's losses.
    pub losses: u64,
    /// Pairs by A's points in the pair: 0, ½, 1, 1½, 2.
    pub pairs: [u64; 5],
}

impl MatchResult {
    /// Tally a list of games (pairs are consecutive games with the same opening).
    pub fn from_games(games: Vec<MatchGame>) -> Self {
        let mut r = MatchResult::default();
        for g in &games {
            match g.a_score() {
                s if s > 0.75 => r.wins += 1,
                s if s < 0.25 => r.losses += 1,
                _ => r.draws += 1,
            }
        }
        for pair in games.chunks(2) {
            if let [a, b] = pair {
                if a.opening == b.opening {
                    let points = ((a.a_score() + b.a_score()) * 2.0).round() as usize;
                    r.pairs[points.min(4)] += 1;
                }
            }
        }
        r.games = games;
        r
    }

    /// Elo of A over B with the trinomial (per-game) variance.
    pub fn elo_trinomial(&self) -> Option<EloEstimate> {
        trinomial(self.wins, self.draws, self.losses)
    }

    /// Elo of A over B with the pentanomial (per-pair) variance: the one to quote for paired
    /// openings.
    pub fn elo_pentanomial(&self) -> Option<EloEstimate> {
        pentanomial(&self.pairs)
    }
}

/// Play one game: `a` against `b` from `opening`, A with White if `a_white`. Players are
/// evaluations searched by gradtune (a fresh table per game) or external engines
/// ([`Player`]).
pub fn play_pair_game<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    opening: &Opening,
    a_white: bool,
    options: &MatchOptions,
) -> GameRecord {
    let (mut sa, mut sb) = (
        a.mover(&opening.root, options),
        b.mover(&opening.root, options),
    );
    play_game_from(opening, &options.adjudication, |pos, history, line| {
        pick(&mut sa, &mut sb, a_white, pos).choose(pos, history, line)
    })
}

/// [`play_pair_game`], abandoned (`None`) once `stop` is set: see
/// [`play_game_until`](crate::game::play_game_until).
pub fn play_pair_game_until<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    opening: &Opening,
    a_white: bool,
    options: &MatchOptions,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let (mut sa, mut sb) = (
        a.mover(&opening.root, options),
        b.mover(&opening.root, options),
    );
    let choose = |pos: &Chess, history: &[u64], line: &[Move]| {
        pick(&mut sa, &mut sb, a_white, pos).choose(pos, history, line)
    };
    play_game_until(opening, &options.adjudication, choose, stop)
}

/// The mover whose turn it is in `pos` (A's if A plays White and White is to move, ...).
fn pick<'m, 'a>(
    sa: &'m mut Box<dyn Mover + 'a>,
    sb: &'m mut Box<dyn Mover + 'a>,
    a_white: bool,
    pos: &Chess,
) -> &'m mut Box<dyn Mover + 'a> {
    if (pos.turn() == Color::White) == a_white {
        sa
    } else {
        sb
    }
}

/// Play every opening twice (A White, then A Black) on rayon's pool.
///
/// ```
/// use engine::matches::{play_match, MatchOptions};
/// use engine::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let openings: Vec<_> = (0..2).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let opts = MatchOptions { limits: SearchLimits::nodes(300), ..MatchOptions::default() };
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &|_| {});
/// assert_eq!(r.wins + r.draws + r.losses, 4);
/// assert_eq!(r.pairs.iter().sum::<u64>(), 2);
/// ```
pub fn play_match<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    options: &MatchOptions,
    on_game: &(dyn Fn(&MatchGame) + Sync),
) -> MatchResult {
    play_match_until(a, b, openings, options, on_game, &AtomicBool::new(false))
}

/// [`play_match`], stopping early once `stop` is set (e.g. by an SPRT that has decided, from
/// `on_game`): openings not yet started are skipped, and the pairs in progress are played to
/// the end, so the result holds whole pairs only, in opening order.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use engine::matches::{play_match_until, MatchOptions};
/// use engine::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let openings: Vec<_> = (0..20).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let opts = MatchOptions { limits: SearchLimits::nodes(300), ..MatchOptions::default() };
/// let stop = AtomicBool::new(false);
/// let on_game = |_: &_| stop.store(true, Ordering::Relaxed);
/// let r = play_match_until(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &on_game, &stop);
/// assert!(r.games.len() < 40 && r.games.len() % 2 == 0);
/// ```
pub fn play_match_until<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    options: &MatchOptions,
    on_game: &(dyn Fn(&MatchGame) + Sync),
    stop: &AtomicBool,
) -> MatchResult {
    play_match_abandoning(
        a,
        b,
        openings,
        options,
        on_game,
        stop,
        &AtomicBool::new(false),
    )
}

/// [`play_match_until`], and once `abandon` is set (Ctrl-C) the pairs in progress are
/// abandoned too, at their next move: the result holds the pairs finished before, whole, in
/// opening order.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use engine::matches::{play_match_abandoning, MatchOptions};
/// use engine::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let openings: Vec<_> = (0..4).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let opts = MatchOptions { limits: SearchLimits::nodes(300), ..MatchOptions::default() };
/// let (go, now) = (AtomicBool::new(false), AtomicBool::new(true));
/// let r = play_match_abandoning(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &|_| {}, &go, &now);
/// assert!(r.games.is_empty());
/// ```
pub fn play_match_abandoning<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    options: &MatchOptions,
    on_game: &(dyn Fn(&MatchGame) + Sync),
    stop: &AtomicBool,
    abandon: &AtomicBool,
) -> MatchResult {
    // One task per opening plays both colours, so a stop never leaves half a pair.
    let pairs: Vec<Option<[MatchGame; 2]>> = openings
        .par_iter()
        .enumerate()
        .map(|(opening, position)| {
            if stop.load(AtomicOrdering::Relaxed) || abandon.load(AtomicOrdering::Relaxed) {
                return None;
            }
            let game = |a_white| {
                let record = play_pair_game_until(a, b, position, a_white, options, abandon)?;
                let game = MatchGame {
                    opening,
                    a_white,
                    record,
                };
                on_game(&game);
                Some(game)
            };
            Some([game(true)?, game(false)?])
        })
        .collect();
    MatchResult::from_games(pairs.into_iter().flatten().flatten().collect())
}
