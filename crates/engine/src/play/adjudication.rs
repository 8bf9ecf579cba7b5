//! When a game is stopped before the rules end it: win, draw and ply-limit adjudication.

/// When a game is stopped before the rules end it.
///
/// ```
/// use engine::play::game::{play_game, Adjudication, Termination};
/// use engine::play::openings::Opening;
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
