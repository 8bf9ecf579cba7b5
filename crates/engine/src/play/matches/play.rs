//! Playing a match: [`play_match`] (paired games in parallel) and [`play_pair_game`].

use rayon::prelude::*;
use shakmaty::{Chess, Color, Move, Position};

use crate::play::game::{play_game_from, GameRecord};
use crate::play::openings::Opening;
use crate::play::options::PlayOptions;
use crate::play::player::{Mover, Player};
use crate::search::limits::SearchLimits;

use super::result::{MatchGame, MatchResult};

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
/// use engine::play::matches::play_match;
/// use engine::play::openings::RandomOpenings;
/// use engine::play::options::PlayOptions;
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
