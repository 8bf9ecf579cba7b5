//! Matches between two players (evaluations searched by gradtune, or external UCI engines:
//! [`crate::player`]): paired games (each opening with both colours), in parallel, scored
//! from the first player's point of view.

mod record;
mod run;

use rayon::prelude::*;
use shakmaty::{Chess, Color, Move, Position};

use crate::elo::{pentanomial, trinomial, EloEstimate};
use crate::game::{play_game_from, GameRecord};
use crate::limits::SearchLimits;
use crate::openings::Opening;
use crate::play::PlayOptions;
use crate::player::{Mover, Player};

pub use record::{format_elo, verdict_name, MatchRecord, SprtRecord};
pub use run::{run_match, MatchEvent, MatchPlan, MatchReport, SprtOutcome, SprtStop};

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

    /// Whose flag fell, if the game was lost (or drawn) on time: `Some(true)` for A.
    pub fn a_flagged(&self) -> Option<bool> {
        self.record
            .flagged()
            .map(|side| (side == Color::White) == self.a_white)
    }
}

/// The games of a match and their tally from A's point of view.
///
/// ```
/// use engine::matches::play_match;
/// use engine::openings::Opening;
/// use engine::play::PlayOptions;
/// use engine::MaterialEvaluator;
/// use shakmaty::Chess;
///
/// let openings = [Opening::from_position(Chess::default())];
/// let opts = PlayOptions::default().nodes(200);
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
    /// Games lost (or drawn) on time by A, then by B (counted in the tally above too).
    pub time_losses: [u64; 2],
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
            match g.a_flagged() {
                Some(true) => r.time_losses[0] += 1,
                Some(false) => r.time_losses[1] += 1,
                None => {}
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

/// Play one game: `a` against `b` from `opening`, A with White if `a_white`, as `options`
/// say (see [`play_game_from`]: `None` if abandoned). Players are evaluations searched by
/// gradtune (a fresh table per game) or external engines ([`Player`]).
pub fn play_pair_game<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    opening: &Opening,
    a_white: bool,
    options: &PlayOptions,
) -> Option<GameRecord> {
    let (mut sa, mut sb) = (
        a.mover(&opening.root, options),
        b.mover(&opening.root, options),
    );
    let choose = |pos: &Chess, history: &[u64], line: &[Move], limits: &SearchLimits| {
        pick(&mut sa, &mut sb, a_white, pos).choose(pos, history, line, limits)
    };
    play_game_from(opening, options, choose)
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
/// Once `options.stop` is set (e.g. by an SPRT that has decided, from `on_game`) openings
/// not yet started are skipped and the pairs in progress are played to the end, so the
/// result holds whole pairs only, in opening order. Once `options.abandon` is set (Ctrl-C)
/// the pairs in progress are abandoned too, at their next move: the result holds the pairs
/// finished before, whole, in opening order.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
/// use engine::matches::play_match;
/// use engine::openings::RandomOpenings;
/// use engine::play::PlayOptions;
/// use engine::MaterialEvaluator;
/// let openings: Vec<_> = (0..2).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let opts = PlayOptions::default().nodes(300);
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &|_| {});
/// assert_eq!(r.wins + r.draws + r.losses, 4);
/// assert_eq!(r.pairs.iter().sum::<u64>(), 2);
///
/// // Stopped after the first game: the pairs under way are finished.
/// let openings: Vec<_> = (0..20).map(|i| RandomOpenings::default().opening(i, &MaterialEvaluator)).collect();
/// let stop = Arc::new(AtomicBool::new(false));
/// let opts = PlayOptions::default().nodes(300).stop(stop.clone());
/// let on_game = |_: &_| stop.store(true, Ordering::Relaxed);
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings, &opts, &on_game);
/// assert!(r.games.len() < 40 && r.games.len() % 2 == 0);
///
/// // Abandoned: nothing is played.
/// let opts = PlayOptions::default().nodes(300).abandon(Arc::new(AtomicBool::new(true)));
/// let r = play_match(&MaterialEvaluator, &MaterialEvaluator, &openings[..4], &opts, &|_| {});
/// assert!(r.games.is_empty());
/// ```
pub fn play_match<A: Player + ?Sized, B: Player + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    options: &PlayOptions,
    on_game: &(dyn Fn(&MatchGame) + Sync),
) -> MatchResult {
    // One task per opening plays both colours, so a stop never leaves half a pair.
    let pairs: Vec<Option<[MatchGame; 2]>> = openings
        .par_iter()
        .enumerate()
        .map(|(opening, position)| {
            if options.stopped() {
                return None;
            }
            let game = |a_white| {
                let record = play_pair_game(a, b, position, a_white, options)?;
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
