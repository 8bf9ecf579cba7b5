//! The run: each iteration plays game pairs between the two probes of [`Spsa`] and
//! steps on their score; a checkpoint after every iteration; the final check against the start.

use super::{Basis, Spsa, SpsaState, Subject};
use crate::error::EngineError;
use crate::play::matches::{play_match, MatchGame, MatchResult};
use crate::play::openings::{Opening, RandomOpenings};
use crate::play::options::PlayOptions;
use crate::search::evaluator::ModelEvaluator;

/// Where an iteration's openings come from.
#[derive(Clone, Debug)]
pub enum OpeningSource {
    /// Random openings: iteration `k`'s pair `i` is opening number `k·pairs + i` of this
    /// generator (a fresh opening every pair, from the seed alone).
    Random(RandomOpenings),
    /// A list (an EPD book), taken in turn and cycled.
    List(Vec<Opening>),
}

impl OpeningSource {
    /// Opening number `index`; random openings are judged by `judge` (too lopsided ones are
    /// drawn again).
    pub fn opening(&self, index: u64, judge: &ModelEvaluator) -> Option<Opening> {
        match self {
            OpeningSource::Random(gen) => Some(gen.opening(index, judge)),
            OpeningSource::List(list) if list.is_empty() => None,
            OpeningSource::List(list) => Some(list[(index % list.len() as u64) as usize].clone()),
        }
    }
}

/// Everything that defines a run apart from who plays and where it stands.
#[derive(Clone, Debug)]
pub struct SpsaPlan {
    /// The gains, each coordinate's perturbation and bounds, the perturbations' seed.
    pub spsa: Spsa,
    /// The coordinates (as many as `spsa`'s).
    pub basis: Basis,
    /// Iterations to run in all.
    pub iterations: u64,
    /// Game pairs per iteration (each opening played with both colours).
    pub pairs: usize,
    /// The openings.
    pub openings: OpeningSource,
    /// Move limits or time control, table size, adjudication; their `stop` or `abandon` flag
    /// (Ctrl-C's, [`PlayOptions::interrupt`]) ends the run (see [`run_spsa`]).
    pub options: PlayOptions,
}

/// What a run tells its caller.
#[derive(Debug)]
pub enum SpsaEvent<'a> {
    /// A game finished (from a worker thread).
    Game(&'a MatchGame),
    /// An iteration finished and the state moved on (its checkpoint written).
    Iteration {
        /// The state after it.
        state: &'a SpsaState,
        /// Its games, the `plus` probe as player A.
        result: &'a MatchResult,
    },
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpsaEnd {
    /// Every planned iteration is done.
    Done,
    /// The plan's `stop` or `abandon` flag was set: the iteration under way was dropped, the
    /// state is the last checkpoint's.
    Interrupted,
}

/// The comparison result of an iteration's games: the `plus` side's mean score difference
/// per game, `(wins - losses) / games`, in `[-1, 1]`.
pub fn comparison(result: &MatchResult) -> f64 {
    let games = result.wins + result.draws + result.losses;
    if games == 0 {
        0.0
    } else {
        (result.wins as f64 - result.losses as f64) / games as f64
    }
}

/// Runs `plan` for `subject` from `state` until its planned iterations are done or the
/// plan's options are stopped (their `stop` or `abandon` flag; the games under way are
/// abandoned either way). Each iteration plays `plan.pairs` openings with both colours between the weights at
/// the probe's `plus` and `minus` points, steps, then calls `checkpoint` with the new state
/// (which should save it: a run resumed from any checkpoint plays the same games and takes
/// the same steps as one that ran through, at fixed nodes). An iteration cut short is dropped
/// whole.
pub fn run_spsa(
    subject: &Subject,
    plan: &SpsaPlan,
    state: &mut SpsaState,
    on_event: &(dyn Fn(SpsaEvent<'_>) + Sync),
    checkpoint: &mut dyn FnMut(&SpsaState) -> Result<(), EngineError>,
) -> Result<SpsaEnd, EngineError> {
    if plan.basis.len() != plan.spsa.dim() || state.x.len() != plan.spsa.dim() {
        return Err(EngineError::Options(format!(
            "SPSA: the basis has {} coordinates, the set-up {} and the state {}",
            plan.basis.len(),
            plan.spsa.dim(),
            state.x.len()
        )));
    }
    if plan.pairs == 0 {
        return Err(EngineError::Options(
            "SPSA: an iteration needs at least one game pair".into(),
        ));
    }
    let tunables = subject.tunables();
    let options = &plan.options;
    let judge = ModelEvaluator::default_material();
    while state.iteration < plan.iterations {
        if options.stopped() {
            return Ok(SpsaEnd::Interrupted);
        }
        let probe = plan.spsa.probe(state);
        let plus = subject.player(&plan.basis.weights(&tunables, &probe.plus))?;
        let minus = subject.player(&plan.basis.weights(&tunables, &probe.minus))?;
        let first = state.iteration * plan.pairs as u64;
        let openings: Vec<Opening> = (first..first + plan.pairs as u64)
            .filter_map(|i| plan.openings.opening(i, &judge))
            .collect();
        if openings.is_empty() {
            return Err(EngineError::Options("SPSA: no openings to play".into()));
        }
        let on_game = |g: &MatchGame| on_event(SpsaEvent::Game(g));
        let result = play_match(&plus, &minus, &openings, options, &on_game);
        if result.games.len() < openings.len() * 2 {
            return Ok(SpsaEnd::Interrupted);
        }
        plan.spsa
            .update(state, &probe, comparison(&result))
            .map_err(|e| EngineError::Options(format!("SPSA: {e}")))?;
        checkpoint(state)?;
        on_event(SpsaEvent::Iteration {
            state,
            result: &result,
        });
    }
    Ok(SpsaEnd::Done)
}
