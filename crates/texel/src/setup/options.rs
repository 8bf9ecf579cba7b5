//! What defines a problem to tune ([`SetupOptions`], [`TraceOptions`]) and what loading it
//! gives ([`Loaded`]): a leaf of `setup`, shared with the [`Tunable`](crate::Tunable) trait.

use std::path::PathBuf;
use std::sync::Arc;

use eval::ModelKind;
use optim::{LossKind, Sigmoid};
use tapered::{CompiledSet, Progress};

use crate::chess::Leaf;
use crate::resolve::Resolver;

/// Everything that defines the problem to tune.
#[derive(Clone, Debug)]
pub struct SetupOptions {
    /// Data files (EPD, PGN or binary cache; plain, gzip or zstd).
    pub data: Vec<PathBuf>,
    /// The model; `None`: the starting weights file's, or `psqt` without one. A model that
    /// differs from the weights file's is an error naming both.
    pub model: Option<ModelKind>,
    /// Starting weights (JSON by name); the model's defaults if `None`.
    pub weights: Option<PathBuf>,
    /// Fraction of the games held out for validation.
    pub valid_fraction: f64,
    /// Seed of the split.
    pub seed: u64,
    /// `K`, fitted at the starting weights if `None`.
    pub k: Option<f64>,
    /// The sigmoid.
    pub sigmoid: Sigmoid,
    /// The loss.
    pub loss: LossKind,
    /// L1 weight.
    pub l1: f64,
    /// L2 weight; `None`: the model's [`default_l2`](super::default_l2).
    pub l2: Option<f64>,
    /// Label blend.
    pub lambda: f64,
    /// The `K` the blend reads the score labels with.
    pub score_k: ScoreK,
    /// Smoothness prior's weight over the model's neighbour pairs
    /// ([`eval::Model::smoothing_pairs`]).
    pub smooth: f64,
    /// The prior that holds weakly supported weights at their start: each weight counts as
    /// this many positions at its start value ([`optim::Support::prior_strengths`]); 0: off;
    /// `None`: the model's [`default_prior_positions`](crate::Tunable::default_prior_positions)
    /// ([`crate::traced::PRIOR_POSITIONS`] for a traced model, 0 for the built-in ones).
    pub prior_positions: Option<f64>,
    /// Freeze patterns (group names or globs on parameter names).
    pub freeze: Vec<String>,
    /// Static evaluation or quiescence leaf.
    pub leaf: Leaf,
    /// Keep every sample's root position so that the run can search its quiescence leaf again
    /// at new weights ([`Setup::resolver`](super::Setup::resolver)); needs [`Leaf::Qsearch`].
    pub resolvable: bool,
    /// Stop at the first malformed record.
    pub strict: bool,
    /// How positions are taken from PGN games (`strict` above applies); EPD and caches are
    /// read as they are. Default: [`data::ExtractOptions::recommended`].
    pub extract: data::ExtractOptions,
    /// Use at most this many positions (after the split, from each side proportionally).
    pub limit: Option<usize>,
    /// Use only the first this many positions read (before the split), as `tune bench
    /// --positions` does. Not with [`resolvable`](Self::resolvable).
    pub first: Option<usize>,
    /// Where loading, recording and resolving report their progress (none by default; the
    /// program draws it).
    pub progress: Progress,
    /// Tune an engine's traced model instead of a built-in model (`data` and `model`
    /// are then unused; `weights`, if given, is a manifest whose values start the run).
    pub traced: Option<TraceOptions>,
}

/// The `K` the label blend (`lambda < 1`) reads the score labels with
/// ([`optim::ObjectiveConfig::score_k`]).
///
/// ```
/// use texel::setup::ScoreK;
/// assert_eq!("fit".parse::<ScoreK>(), Ok(ScoreK::Fit));
/// assert_eq!("0.8".parse::<ScoreK>(), Ok(ScoreK::Given(0.8)));
/// assert!("-1".parse::<ScoreK>().is_err() && "x".parse::<ScoreK>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ScoreK {
    /// The model's own `K`: the scores are in the evaluation's units (an engine's own search).
    #[default]
    Model,
    /// This `K`.
    Given(f64),
    /// The `K` at which the scores best predict the training positions' results
    /// ([`optim::fit_score_k`]): another engine's scores, on its own scale, calibrated on the
    /// games.
    Fit,
}

impl std::str::FromStr for ScoreK {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fit" => Ok(ScoreK::Fit),
            "model" => Ok(ScoreK::Model),
            _ => match s.parse::<f64>() {
                Ok(k) if k > 0.0 && k.is_finite() => Ok(ScoreK::Given(k)),
                _ => Err(format!(
                    "expected `fit`, `model` or a positive number, not `{s}`"
                )),
            },
        }
    }
}

/// Where a traced model comes from, and whether it is verified before tuning.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceOptions {
    /// The manifest (JSON): the engine's parameters, terms and current values.
    pub manifest: PathBuf,
    /// Trace files (text or binary cache; plain, gzip or zstd).
    pub files: Vec<PathBuf>,
    /// Rebuild every traced position's evaluation first and refuse a set that does not match
    /// the engine's own (`false`: tune without checking).
    pub verify: bool,
    /// The verification's tolerance in centipawns, after rounding.
    pub tolerance: f64,
    /// A `tune discover` result (`discover.json`): the manifest's ports of catalogue groups
    /// start at their values plus the ranking's ([`crate::discover::Discovered::apply`]).
    pub discovered: Option<PathBuf>,
}

impl TraceOptions {
    /// Traces of `files` under `manifest`, verified at a tolerance of 1 cp.
    pub fn new(manifest: PathBuf, files: Vec<PathBuf>) -> Self {
        TraceOptions {
            manifest,
            files,
            verify: true,
            tolerance: 1.0,
            discovered: None,
        }
    }
}

impl SetupOptions {
    /// How many of `[train, valid]` positions [`limit`](Self::limit) keeps: all of them, or
    /// both sides cut in proportion so that together they are about `limit`.
    pub(crate) fn quotas(&self, [train, valid]: [u64; 2]) -> [u64; 2] {
        let total = train + valid;
        match self.limit.map(|l| l as u64) {
            Some(limit) if limit < total => {
                let f = limit as f64 / total as f64;
                [train, valid].map(|n| (n as f64 * f).round() as u64)
            }
            _ => [train, valid],
        }
    }
}

impl Default for SetupOptions {
    fn default() -> Self {
        SetupOptions {
            data: Vec::new(),
            model: None,
            weights: None,
            valid_fraction: 0.1,
            seed: 1,
            k: None,
            sigmoid: Sigmoid::Logistic,
            loss: LossKind::Mse,
            l1: 0.0,
            l2: Some(0.0),
            lambda: 1.0,
            score_k: ScoreK::Model,
            smooth: 0.0,
            prior_positions: None,
            freeze: Vec::new(),
            leaf: Leaf::Static,
            resolvable: false,
            strict: false,
            extract: data::ExtractOptions::recommended(),
            limit: None,
            first: None,
            progress: Progress::none(),
            traced: None,
        }
    }
}

/// What [`Tunable::load`](crate::Tunable::load) gives [`prepare_as`](super::prepare_as): the model, its start weights and the data
/// split by game and recorded.
#[derive(Debug)]
pub struct Loaded<M> {
    /// The model.
    pub model: M,
    /// Full starting weights.
    pub start: Vec<f64>,
    /// The training positions, recorded.
    pub train: Arc<CompiledSet>,
    /// The validation positions, recorded (empty without a split).
    pub valid: Arc<CompiledSet>,
    /// The resolver of [`SetupOptions::resolvable`] (built-in models only).
    pub resolver: Option<Resolver>,
    /// Messages for the user (data reports, skipped records).
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::SetupOptions;

    #[test]
    fn quotas_cut_both_sides_in_proportion_to_the_limit() {
        let with = |limit| SetupOptions {
            limit,
            ..SetupOptions::default()
        };
        assert_eq!(with(None).quotas([900, 100]), [900, 100]);
        assert_eq!(with(Some(1000)).quotas([900, 100]), [900, 100]);
        assert_eq!(with(Some(5000)).quotas([900, 100]), [900, 100]);
        assert_eq!(with(Some(500)).quotas([900, 100]), [450, 50]);
        // Each side rounded on its own: 299.7 and 33.3.
        assert_eq!(with(Some(333)).quotas([900, 100]), [300, 33]);
        assert_eq!(with(Some(0)).quotas([900, 100]), [0, 0]);
    }
}
