//! The one place self-play calls into the game loop of [`crate::play::game`].

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use shakmaty::{Chess, Move};

use crate::play::game::{play_game_from, GameRecord};
use crate::play::openings::Opening;
use crate::play::options::PlayOptions;
use crate::search::limits::SearchLimits;
use crate::search::searcher::SearchResult;

/// Plays one game from `opening` under `options`, asking `choose(position, history, line,
/// limits)` for every move; `None` once `stop` is set (a game cut short is no game).
pub(super) fn play_until(
    opening: &Opening,
    options: &PlayOptions,
    choose: impl FnMut(&Chess, &[u64], &[Move], &SearchLimits) -> SearchResult,
    stop: &Arc<AtomicBool>,
) -> Option<GameRecord> {
    let options = options.clone().abandon(Arc::clone(stop));
    play_game_from(opening, &options, choose)
}
