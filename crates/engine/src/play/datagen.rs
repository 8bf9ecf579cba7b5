//! Self-play data generation: random openings, fixed-node self-play, every searched position
//! labelled with the game result and the search score.

use std::time::{Duration, Instant};

use data::Sample;
use rayon::prelude::*;
use shakmaty::Position;

use crate::play::game::{play_game_from, GameRecord};
use crate::play::openings::{rng_for, Opening, RandomOpenings};
use crate::play::options::PlayOptions;
use crate::score::MATE_BOUND;
use crate::search::evaluator::{relative, Evaluator, ModelEvaluator};
use crate::search::limits::SearchLimits;
use crate::search::searcher::Searcher;

/// Options of a self-play run: how many games, their openings, and how they are played
/// (move limits or a time control, table size, adjudication, stop flags: [`PlayOptions`]).
///
/// ```
/// use engine::play::datagen::DatagenOptions;
/// use engine::play::openings::RandomOpenings;
/// use engine::play::options::PlayOptions;
/// // `tune datagen --games 2200 --nodes 2000 --seed 20261122`, the default dataset's run:
/// let opts = DatagenOptions {
///     games: 2200,
///     openings: RandomOpenings { seed: 20261122, ..RandomOpenings::default() },
///     play: PlayOptions::default().nodes(2000),
/// };
/// assert_eq!((opts.openings.plies, opts.play.hash_mb), (8, 4));
/// ```
#[derive(Clone, Debug)]
pub struct DatagenOptions {
    /// Number of games.
    pub games: u32,
    /// Random openings (seed, plies, balance limit).
    pub openings: RandomOpenings,
    /// How every game is played (5,000 nodes a move by default). Under a time control the
    /// games depend on timing, so a run is no longer reproducible.
    pub play: PlayOptions,
}

impl Default for DatagenOptions {
    fn default() -> Self {
        Self {
            games: 100,
            openings: RandomOpenings::default(),
            play: PlayOptions::default(),
        }
    }
}

/// Totals of a self-play run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatagenSummary {
    /// Games played.
    pub games: u32,
    /// Positions written.
    pub positions: u64,
    /// Games won by White.
    pub white_wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games won by Black.
    pub black_wins: u32,
    /// Moves searched (plies after the openings).
    pub plies: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Play game number `index` of a run: its opening and everything after depend only on
/// `(options.openings.seed, index)` (at fixed nodes). `None` if `options.play`'s `abandon`
/// flag ends it.
pub fn play_one<E: Evaluator + ?Sized>(
    eval: &E,
    options: &DatagenOptions,
    index: u32,
) -> Option<GameRecord> {
    let opening = options.openings.opening(u64::from(index), eval);
    let mut searcher = Searcher::new(eval, options.play.hash_mb);
    let choose = |pos: &_, history: &[u64], _: &[_], limits: &SearchLimits| {
        searcher.search(pos, history, limits)
    };
    play_game_from(&opening, &options.play, choose)
}

/// Who plays game `index` of a run whose player meets `opponents` opponents besides itself:
/// the games go round the slots `0, 1, ..., opponents` (slot 0 is self-play, slot `j` the
/// `j`-th opponent), and the player takes White in the first round, Black in the next, and so
/// on, so each opponent gets both colours equally often. `None` is self-play; `Some((j,
/// white))` is opponent `j` (from 0) with the player on White when `white`.
///
/// ```
/// use engine::play::datagen::pairing;
/// assert_eq!(pairing(7, 0), None); // no opponents: every game is self-play
/// let first: Vec<_> = (0..6).map(|i| pairing(i, 2)).collect();
/// assert_eq!(first, [None, Some((0, true)), Some((1, true)), None, Some((0, false)), Some((1, false))]);
/// ```
pub fn pairing(index: u32, opponents: usize) -> Option<(usize, bool)> {
    let slots = opponents as u64 + 1;
    let i = u64::from(index);
    let slot = (i % slots) as usize;
    let round = i / slots;
    slot.checked_sub(1).map(|j| (j, round.is_multiple_of(2)))
}

/// [`play_one`] for game `index` of a run in which `player` also meets `opponents`
/// (see [`pairing`]): a self-play game is exactly [`play_one`]'s; a game against an
/// opponent gives each side its own search and transposition table. The opening is judged by
/// `player`, as in self-play.
pub fn play_pooled<E: Evaluator + ?Sized>(
    player: &E,
    opponents: &[&E],
    options: &DatagenOptions,
    index: u32,
) -> Option<GameRecord> {
    let Some((j, player_white)) = pairing(index, opponents.len()) else {
        return play_one(player, options, index);
    };
    let opening = options.openings.opening(u64::from(index), player);
    if player_white {
        play_pair(&opening, player, opponents[j], options)
    } else {
        play_pair(&opening, opponents[j], player, options)
    }
}

/// Salt of the random stream that draws the jittered weights of a game (see
/// [`play_jittered`]), apart from the openings' stream of the same seed.
const JITTER_SALT: u64 = 0x6a69_7474_6572; // "jitter"

/// [`play_pooled`] with both sides' piece values jittered by `jitter`: each side values
/// the pieces with its own factors drawn uniformly from `[1 - jitter, 1 + jitter]`
/// ([`ModelEvaluator::jittered`]). Game `index` pairs the same weights from the same opening
/// (judged by the unjittered `player`) as [`play_pooled`], then White and Black each play
/// with their own perturbed copy, drawn from `(options.openings.seed, index)` alone, so a run
/// is reproducible whatever the threads. Self-play between copies that disagree on what the
/// pieces are worth enters the trades the current weights avoid: exploration. A jitter of 0 is
/// [`play_pooled`], game for game.
pub fn play_jittered(
    player: &ModelEvaluator,
    opponents: &[&ModelEvaluator],
    options: &DatagenOptions,
    jitter: f64,
    index: u32,
) -> Option<GameRecord> {
    if jitter <= 0.0 {
        return play_pooled(player, opponents, options, index);
    }
    let (white, black) = match pairing(index, opponents.len()) {
        None => (player, player),
        Some((j, true)) => (player, opponents[j]),
        Some((j, false)) => (opponents[j], player),
    };
    let opening = options.openings.opening(u64::from(index), player);
    let mut rng = rng_for(options.openings.seed ^ JITTER_SALT, u64::from(index));
    let white = white.jittered(jitter, &mut rng);
    let black = black.jittered(jitter, &mut rng);
    play_pair(&opening, &white, &black, options)
}

/// One game from `opening`, `white` and `black` each with its own search and transposition
/// table; `None` once `options.play`'s `abandon` flag is set.
fn play_pair<W: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    opening: &Opening,
    white: &W,
    black: &B,
    options: &DatagenOptions,
) -> Option<GameRecord> {
    let mut w = Searcher::new(white, options.play.hash_mb);
    let mut b = Searcher::new(black, options.play.hash_mb);
    let choose = |pos: &shakmaty::Chess, history: &[u64], _: &[_], limits: &SearchLimits| {
        if pos.turn() == shakmaty::Color::White {
            w.search(pos, history, limits)
        } else {
            b.search(pos, history, limits)
        }
    };
    play_game_from(opening, &options.play, choose)
}

/// The labelled positions of a game: every searched position not in check and without a
/// mate score, with the game result and the search score, both from White's point of view.
///
/// ```
/// use engine::play::datagen::{play_one, samples_from_game, DatagenOptions};
/// use engine::play::options::PlayOptions;
/// use engine::MaterialEvaluator;
/// let opts = DatagenOptions { play: PlayOptions::default().nodes(200), ..DatagenOptions::default() };
/// let game = play_one(&MaterialEvaluator, &opts, 0).unwrap();
/// let samples = samples_from_game(&game, 0);
/// assert!(samples.iter().all(|s| s.result == game.white_score()));
/// ```
pub fn samples_from_game(game: &GameRecord, id: u32) -> Vec<Sample> {
    let result = game.white_score();
    game.positions()
        .filter(|(pos, pm)| !pos.is_check() && pm.score.abs() < MATE_BOUND)
        .map(|(pos, pm)| {
            let white = relative(f64::from(pm.score), pos.turn()) as f32;
            Sample::from_position(&pos, result, Some(white), id)
        })
        .collect()
}

/// Run self-play on rayon's thread pool. Output is identical whatever the number of threads
/// (at fixed nodes): games are collected in index order and each depends only on the seed and
/// its index. `on_game` is called (from worker threads) after each game, e.g. for a progress
/// bar.
///
/// Once `options.play`'s `stop` flag is set (e.g. by Ctrl-C) games not yet started are
/// skipped; once its `abandon` flag is, games in progress are abandoned at their next move
/// (within one search). Every finished game is kept (with its own index as game id, so each
/// is the same game a full run would play); the summary counts the games finished.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use std::sync::Arc;
/// use engine::play::datagen::{generate, DatagenOptions};
/// use engine::play::options::PlayOptions;
/// use engine::MaterialEvaluator;
/// let opts = DatagenOptions { games: 2, play: PlayOptions::default().nodes(200), ..DatagenOptions::default() };
/// let (samples, summary) = generate(&MaterialEvaluator, &opts, &|_| {});
/// assert_eq!(summary.games, 2);
/// assert_eq!(summary.positions, samples.len() as u64);
///
/// let stopped = PlayOptions::default().nodes(200).interrupt(Arc::new(AtomicBool::new(true)));
/// let opts = DatagenOptions { games: 50, play: stopped, ..DatagenOptions::default() };
/// let (samples, summary) = generate(&MaterialEvaluator, &opts, &|_| {});
/// assert_eq!((samples.len(), summary.games), (0, 0));
/// ```
pub fn generate<E: Evaluator + ?Sized>(
    eval: &E,
    options: &DatagenOptions,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> (Vec<Sample>, DatagenSummary) {
    generate_pooled(eval, &[], options, on_game)
}

/// [`generate`] with `player` also meeting `opponents` (see [`pairing`]): with none it is
/// self-play, the same games as [`generate`]. Every searched position is labelled, the
/// opponents' moves too (their search scores are the labels' scores there).
///
/// ```
/// use engine::play::datagen::{generate_pooled, DatagenOptions};
/// use engine::play::options::PlayOptions;
/// use engine::ModelEvaluator;
/// let opts = DatagenOptions { games: 4, play: PlayOptions::default().nodes(200), ..DatagenOptions::default() };
/// let material = ModelEvaluator::default_material();
/// let (_, summary) = generate_pooled(&material, &[&material], &opts, &|_| {});
/// assert_eq!(summary.games, 4);
/// ```
pub fn generate_pooled<E: Evaluator + ?Sized>(
    player: &E,
    opponents: &[&E],
    options: &DatagenOptions,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> (Vec<Sample>, DatagenSummary) {
    collect_games(options, on_game, |i| {
        play_pooled(player, opponents, options, i)
    })
}

/// [`generate_pooled`] with the sides' piece values jittered by `jitter`
/// ([`play_jittered`]); with 0 it is [`generate_pooled`], the same games.
///
/// ```
/// use engine::play::datagen::{generate_jittered, DatagenOptions};
/// use engine::play::options::PlayOptions;
/// use engine::ModelEvaluator;
/// let opts = DatagenOptions { games: 2, play: PlayOptions::default().nodes(200), ..DatagenOptions::default() };
/// let material = ModelEvaluator::default_material();
/// let (_, summary) = generate_jittered(&material, &[], &opts, 0.2, &|_| {});
/// assert_eq!(summary.games, 2);
/// ```
pub fn generate_jittered(
    player: &ModelEvaluator,
    opponents: &[&ModelEvaluator],
    options: &DatagenOptions,
    jitter: f64,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> (Vec<Sample>, DatagenSummary) {
    collect_games(options, on_game, |i| {
        play_jittered(player, opponents, options, jitter, i)
    })
}

/// Plays games `0..options.games` with `play` on rayon's pool (skipping those not started
/// once `options.play` is stopped) and labels the finished ones in index order.
fn collect_games(
    options: &DatagenOptions,
    on_game: &(dyn Fn(&GameRecord) + Sync),
    play: impl Fn(u32) -> Option<GameRecord> + Sync,
) -> (Vec<Sample>, DatagenSummary) {
    let start = Instant::now();
    let games: Vec<Option<GameRecord>> = (0..options.games)
        .into_par_iter()
        .map(|i| {
            if options.play.stopped() {
                return None;
            }
            let g = play(i)?;
            on_game(&g);
            Some(g)
        })
        .collect();
    let mut summary = DatagenSummary::default();
    let mut samples = Vec::new();
    for (i, g) in (0..options.games).zip(&games) {
        let Some(g) = g else { continue };
        summary.games += 1;
        match g.outcome.winner() {
            Some(shakmaty::Color::White) => summary.white_wins += 1,
            Some(shakmaty::Color::Black) => summary.black_wins += 1,
            None => summary.draws += 1,
        }
        summary.plies += g.moves.len() as u64;
        summary.nodes += g.moves.iter().map(|m| m.nodes).sum::<u64>();
        samples.extend(samples_from_game(g, i));
    }
    summary.positions = samples.len() as u64;
    summary.elapsed = start.elapsed();
    (samples, summary)
}
