//! The one place self-play calls into the game loop of [`crate::game`]: when its entry points
//! change (one options value instead of the `_until` twins), only this function changes.

use std::sync::atomic::AtomicBool;

use shakmaty::{Chess, Move};

use crate::game::{play_game_until, Adjudication, GameRecord};
use crate::openings::Opening;
use crate::search::SearchResult;

/// Plays one game from `opening` under `adjudication`, asking `choose(position, history,
/// line)` for every move; `None` once `stop` is set (a game cut short is no game).
pub(super) fn play_until(
    opening: &Opening,
    adjudication: &Adjudication,
    choose: impl FnMut(&Chess, &[u64], &[Move]) -> SearchResult,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    play_game_until(opening, adjudication, choose, stop)
}
