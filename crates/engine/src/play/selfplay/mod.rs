//! Self-play of any player (an external UCI engine with given weights, or gradtune's own
//! search) as training data for the engine's traced model (`tune selfplay`, `tune loop`).
//!
//! Game `g` of a run starts from opening `g` (random plies from the start position, seeded by
//! the run's seed and `g` alone, or line `g` of an EPD book, round-robin), is adjudicated as
//! matches are ([`Adjudication`]), and both sides are the same player: at a fixed node count an
//! engine that searches deterministically with one thread plays the same game every time, on
//! any machine and in any order.
//!
//! Positions are kept as the trace needs them ([`quiet_samples`]): the side to move is not in
//! check, the move played is neither a capture nor a promotion, and the score is no mate. The
//! trace is of the engine's *static* evaluation of that position, while its search score
//! and the result come from a search below it: in a quiet position the static evaluation is
//! what the search's leaves see, in a position with a capture pending it is not (the
//! alternative is to trace the engine's quiescence leaf of every position instead).
//!
//! [`Shard`]: `n` machines run the same command with `--shard i/n`; shard `i` plays the games
//! `i, i + n, i + 2n, ...` with their global numbers as game ids, and [`merge_shards`] puts the
//! parts back into exactly the file one machine would have written.

mod adapter;
mod merge;
#[cfg(test)]
mod tests;

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use data::Sample;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::{Color, Position};

use crate::error::EngineError;
use crate::play::game::{GameRecord, Termination};
use crate::play::openings::{Opening, RandomOpenings};
use crate::play::options::PlayOptions;
use crate::play::player::Player;
use crate::score::MATE_BOUND;
use crate::search::evaluator::{relative, MaterialEvaluator};

pub use merge::{merge_shards, MergeReport};

/// Part `index` of `count` of a run: the games `index, index + count, ...`.
///
/// ```
/// use engine::play::selfplay::Shard;
/// let s: Shard = "1/3".parse()?;
/// assert_eq!(s.games(8).collect::<Vec<_>>(), [1, 4, 7]);
/// assert!("3/3".parse::<Shard>().is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This part, from 0.
    pub index: u32,
    /// The number of parts (at least 1).
    pub count: u32,
}

impl Shard {
    /// The whole run, on one machine.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The global numbers of this part's games among `total`.
    pub fn games(self, total: u32) -> impl Iterator<Item = u32> {
        (self.index..total).step_by(self.count.max(1) as usize)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("a shard is I/N with 0 <= I < N (e.g. 0/4), not `{text}`");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Where the games start.
#[derive(Clone, Debug)]
pub enum OpeningBook {
    /// Random plies from the start position ([`RandomOpenings::opening`] of the game's number,
    /// its balance judged by material alone, so the openings do not depend on the engine).
    Random(RandomOpenings),
    /// Positions of an EPD file: game `g` starts from position `g` modulo their number.
    Book(Vec<Opening>),
}

impl OpeningBook {
    /// The opening of game `game`.
    pub fn opening(&self, game: u32) -> Opening {
        match self {
            OpeningBook::Random(r) => r.opening(u64::from(game), &MaterialEvaluator),
            OpeningBook::Book(v) if v.is_empty() => {
                Opening::from_position(shakmaty::Chess::default())
            }
            OpeningBook::Book(v) => v[game as usize % v.len()].clone(),
        }
    }
}

/// Options of a self-play run.
#[derive(Clone, Debug)]
pub struct SelfPlayOptions {
    /// Games of the whole run (all shards).
    pub games: u32,
    /// The part this machine plays.
    pub shard: Shard,
    /// The openings.
    pub openings: OpeningBook,
    /// The search limits of every move, the table size for gradtune's search, adjudication.
    pub play: PlayOptions,
}

/// One finished self-play game.
#[derive(Clone, Debug)]
pub struct SelfPlayGame {
    /// Its global number (the game id of its positions).
    pub index: u32,
    /// The game.
    pub record: GameRecord,
    /// A side returned no legal move (an engine that failed twice in a row forfeits): the
    /// result is no result, and the game yields no positions.
    pub forfeit: bool,
}

/// Totals of a self-play run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfPlaySummary {
    /// Games finished (forfeits included).
    pub games: u32,
    /// Games forfeited by an engine failure (their positions are dropped).
    pub forfeits: u32,
    /// Games lost (or drawn, the other side having no mating material) on time under a time
    /// control: a side's flag fell. Their positions are kept, with the result the clock gave
    /// (absent from files written before time controls: 0).
    #[serde(default)]
    pub time_losses: u32,
    /// Won by White, drawn, won by Black (forfeits excluded).
    pub white_wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Won by Black.
    pub black_wins: u32,
    /// Moves searched.
    pub plies: u64,
    /// Positions kept ([`quiet_samples`]).
    pub positions: u64,
}

/// Plays this shard's games of `options` with `player` on both sides, on rayon's pool, and
/// returns the finished ones in game order. `on_game` hears of every finished game (from
/// worker threads); once `stop` is set, games not started are skipped and games under way are
/// abandoned. The games depend only on the options, the player and their numbers.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use std::sync::Arc;
/// use engine::play::selfplay::{play_selfplay, OpeningBook, SelfPlayOptions, Shard};
/// use engine::play::options::PlayOptions;
/// use engine::play::openings::RandomOpenings;
/// use engine::{MaterialEvaluator, SearchLimits};
/// let options = SelfPlayOptions {
///     games: 3,
///     shard: "1/2".parse()?,
///     openings: OpeningBook::Random(RandomOpenings::default()),
///     play: PlayOptions::default().limits(SearchLimits::nodes(200)),
/// };
/// let stop = Arc::new(AtomicBool::new(false));
/// let games = play_selfplay(&MaterialEvaluator, &options, &|_| {}, &stop);
/// assert_eq!(games.iter().map(|g| g.index).collect::<Vec<_>>(), [1]);
/// # Ok::<(), String>(())
/// ```
pub fn play_selfplay<P: Player + ?Sized>(
    player: &P,
    options: &SelfPlayOptions,
    on_game: &(dyn Fn(&SelfPlayGame) + Sync),
    stop: &Arc<AtomicBool>,
) -> Vec<SelfPlayGame> {
    let indices: Vec<u32> = options.shard.games(options.games).collect();
    let games: Vec<Option<SelfPlayGame>> = indices
        .into_par_iter()
        .map(|index| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let game = play_one(player, options, index, stop)?;
            on_game(&game);
            Some(game)
        })
        .collect();
    games.into_iter().flatten().collect()
}

/// Game `index`: the same player on both sides (one mover each), `None` if stopped.
fn play_one<P: Player + ?Sized>(
    player: &P,
    options: &SelfPlayOptions,
    index: u32,
    stop: &Arc<AtomicBool>,
) -> Option<SelfPlayGame> {
    let opening = options.openings.opening(index);
    let mut white = player.mover(&opening.root, &options.play);
    let mut black = player.mover(&opening.root, &options.play);
    let mut forfeit = false;
    let choose = |pos: &shakmaty::Chess,
                  history: &[u64],
                  line: &[shakmaty::Move],
                  limits: &crate::search::limits::SearchLimits| {
        let mover = if pos.turn() == Color::White {
            &mut white
        } else {
            &mut black
        };
        let r = mover.choose(pos, history, line, limits);
        forfeit |= !r.best_move.is_some_and(|m| pos.is_legal(m));
        r
    };
    let record = adapter::play_until(&opening, &options.play, choose, stop)?;
    Some(SelfPlayGame {
        index,
        record,
        forfeit,
    })
}

/// The positions of a game as the trace needs them, labelled with the result and the search
/// score (both White's view) and the game's number: before each searched move, when the side
/// to move is not in check, the move is neither a capture nor a promotion, and the score is no
/// mate. A forfeited game gives none.
pub fn quiet_samples(game: &SelfPlayGame) -> Vec<Sample> {
    if game.forfeit {
        return Vec::new();
    }
    let result = game.record.white_score();
    game.record
        .positions()
        .filter(|(pos, pm)| {
            !pos.is_check()
                && !pm.mv.is_capture()
                && !pm.mv.is_promotion()
                && pm.score.abs() < MATE_BOUND
        })
        .map(|(pos, pm)| {
            let white = relative(f64::from(pm.score), pos.turn()) as f32;
            Sample::from_position(&pos, result, Some(white), game.index)
        })
        .collect()
}

/// The kept positions of `games` (in their order) and the totals.
pub fn collect_samples(games: &[SelfPlayGame]) -> (Vec<Sample>, SelfPlaySummary) {
    let mut summary = SelfPlaySummary::default();
    let mut samples = Vec::new();
    for g in games {
        summary.games += 1;
        summary.plies += g.record.moves.len() as u64;
        if g.forfeit {
            summary.forfeits += 1;
            continue;
        }
        if g.record.termination == Termination::TimeForfeit {
            summary.time_losses += 1;
        }
        match g.record.outcome.winner() {
            Some(Color::White) => summary.white_wins += 1,
            Some(Color::Black) => summary.black_wins += 1,
            None => summary.draws += 1,
        }
        samples.extend(quiet_samples(g));
    }
    summary.positions = samples.len() as u64;
    (samples, summary)
}

/// Writes self-play positions as EPD lines `tune trace` reads (`FEN [result] ce SCORE; game
/// N`), atomically; zstd for `.zst`, gzip for `.gz`.
pub fn write_samples(path: &std::path::Path, samples: &[Sample]) -> Result<(), EngineError> {
    Ok(data::write_epd(path, samples)?)
}
