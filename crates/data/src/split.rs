//! Train/validation split by game.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::Sample;

/// Splits samples into training and validation sets by game: every game's positions go to
/// one side, about `valid_fraction` of the games (rounded) to validation. Deterministic for a
/// seed, and independent of the order of the samples. Each side keeps the input order.
///
/// ```
/// use data::{split_by_game, Sample};
/// use shakmaty::Chess;
///
/// let samples: Vec<Sample> = (0..100)
///     .map(|i| Sample::from_position(&Chess::default(), 0.5, None, i / 4))
///     .collect();
/// let (train, valid) = split_by_game(samples, 0.2, 42);
/// assert_eq!(valid.len(), 20); // 5 of 25 games, 4 positions each
/// assert!(valid.iter().all(|v| train.iter().all(|t| t.game != v.game)));
/// ```
pub fn split_by_game(
    samples: Vec<Sample>,
    valid_fraction: f64,
    seed: u64,
) -> (Vec<Sample>, Vec<Sample>) {
    let valid_games = valid_games(
        samples.iter().map(|s| s.game).collect(),
        valid_fraction,
        seed,
    );
    let (valid, train): (Vec<Sample>, Vec<Sample>) = samples
        .into_iter()
        .partition(|s| valid_games.binary_search(&s.game).is_ok());
    (train, valid)
}

/// The games [`split_by_game`] holds out for validation, sorted, given the game ids of the
/// samples (in any order, repeated or not): what a caller that streams the samples needs to
/// split them batch by batch, the same way.
///
/// ```
/// let games: Vec<u32> = (0..100).map(|i| i / 4).collect();
/// let valid = data::valid_games(games, 0.2, 42);
/// assert_eq!(valid.len(), 5);
/// assert!(valid.windows(2).all(|w| w[0] < w[1]));
/// ```
pub fn valid_games(mut games: Vec<u32>, valid_fraction: f64, seed: u64) -> Vec<u32> {
    games.sort_unstable();
    games.dedup();
    let fraction = if valid_fraction.is_finite() {
        valid_fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let n_valid = (fraction * games.len() as f64).round() as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    games.shuffle(&mut rng);
    let mut valid_games = games[..n_valid.min(games.len())].to_vec();
    valid_games.sort_unstable();
    valid_games
}
