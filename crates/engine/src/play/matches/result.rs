//! [`MatchGame`] and [`MatchResult`]: a match's games and their tally (a leaf of `matches`).

use shakmaty::Color;

use crate::play::elo::{pentanomial, trinomial, EloEstimate};
use crate::play::game::GameRecord;

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
/// use engine::play::matches::play_match;
/// use engine::play::openings::Opening;
/// use engine::play::options::PlayOptions;
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
