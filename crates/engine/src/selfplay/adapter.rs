//! The one place self-play calls into the game loop of [`crate::game`].

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use shakmaty::{Chess, Move};

use crate::game::{play_game_from, GameRecord};
use crate::limits::SearchLimits;
use crate::openings::Opening;
use crate::play::PlayOptions;
use crate::search::SearchResult;

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
