//! `--max-per-game`: which positions of a game are kept, the same for PGN extraction and for
//! records read ([`crate::records`]).

use rand::seq::index::sample as sample_indices;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The skip reason of positions over `--max-per-game`.
pub(crate) const OVER_LIMIT: &str = "over the per-game limit";

/// Which `max` of a game's `n` kept positions `--max-per-game` keeps (indices, ascending): a
/// uniform sample drawn from the extraction seed and the game id, so that a game keeps the
/// same positions whatever else is extracted with it.
pub(crate) fn per_game_choice(n: usize, max: usize, seed: u64, id: u32) -> Vec<usize> {
    let seed = seed ^ u64::from(id).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut chosen = sample_indices(&mut rng, n, max).into_vec();
    chosen.sort_unstable();
    chosen
}
