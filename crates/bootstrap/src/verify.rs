//! `--verify`: after a tuning run, its kept weights play the start weights (and, if given, a
//! reference) on random openings, and each match goes into the run's `summary.json`. It lives
//! here because it joins the two crates below: the tuning run ([`texel`]) and matches
//! ([`engine`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use engine::play::matches::{run_match, MatchEvent, MatchPlan, MatchReport, SprtStop};
use engine::play::openings::RandomOpenings;
use engine::play::options::PlayOptions;
use engine::ModelEvaluator;
use texel::job::Tuned;

use crate::BootstrapError;

/// How to verify a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Verify {
    /// Openings (each played with both colours).
    pub openings: usize,
    /// Nodes per move.
    pub nodes: u64,
    /// Seed of the random openings.
    pub seed: u64,
}

impl Verify {
    /// The match plan: random 8-ply openings from the seed, as `tune match` plays them, at a
    /// fixed number of nodes, without a stopping rule.
    pub fn plan(&self) -> MatchPlan {
        MatchPlan {
            openings: RandomOpenings {
                seed: self.seed,
                ..RandomOpenings::default()
            }
            .openings(self.openings, &ModelEvaluator::default_material()),
            options: PlayOptions::default().nodes(self.nodes.max(1)),
            sprt: None,
            sprt_stop: SprtStop::Never,
        }
    }
}

/// One opponent of the kept weights.
pub struct Opponent {
    /// The key the match is stored under in `summary.json` (`verify`, `verify_reference`).
    pub key: &'static str,
    /// Its name in the report (`start`, or the reference's path).
    pub name: String,
    /// Its weights.
    pub weights: ModelEvaluator,
}

/// The reference opponent read from `path` (read before the run, so that a bad file does not
/// cost a whole run).
pub fn reference(path: &Path) -> Result<(PathBuf, ModelEvaluator), BootstrapError> {
    Ok((path.to_path_buf(), ModelEvaluator::load(path)?))
}

/// The kept weights of `tuned`, and their opponents: the start, then the reference if given.
pub fn players(
    tuned: &Tuned,
    reference: Option<(PathBuf, ModelEvaluator)>,
) -> Result<(ModelEvaluator, Vec<Opponent>), BootstrapError> {
    let kept = ModelEvaluator::new(tuned.model.clone(), tuned.outcome.weights.clone())?;
    let start = ModelEvaluator::new(tuned.model.clone(), tuned.start.clone())?;
    let mut opponents = vec![Opponent {
        key: "verify",
        name: "start".to_string(),
        weights: start,
    }];
    if let Some((path, weights)) = reference {
        opponents.push(Opponent {
            key: "verify_reference",
            name: path.display().to_string(),
            weights,
        });
    }
    Ok((kept, opponents))
}

/// Plays `kept` against `opponent` and, unless interrupted (`stop` set: the games under way
/// are abandoned), stores the match in `out`'s `summary.json` under the opponent's key.
pub fn play(
    out: &Path,
    kept: &ModelEvaluator,
    opponent: &Opponent,
    plan: &MatchPlan,
    on_event: &(dyn Fn(MatchEvent<'_>) + Sync),
    stop: &Arc<AtomicBool>,
) -> Result<MatchReport, BootstrapError> {
    let plan = MatchPlan {
        options: plan.options.clone().interrupt(stop.clone()),
        ..plan.clone()
    };
    let report = run_match(kept, &opponent.weights, &plan, on_event);
    if !report.interrupted {
        let record = serde_json::to_value(report.record(&opponent.name)).map_err(|source| {
            BootstrapError::Json {
                path: out.join("summary.json"),
                source,
            }
        })?;
        texel::output::add_to_summary(out, opponent.key, record)?;
    }
    Ok(report)
}
