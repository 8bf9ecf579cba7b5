//! What defines a problem to tune ([`SetupOptions`]: its source, [`BuiltIn`] or
//! [`TraceOptions`], its [`SplitOptions`] and [`ObjectiveOptions`]) and what loading it
//! gives ([`Loaded`]): a leaf of `setup`, shared with the [`Tunable`](crate::Tunable) trait.

use std::path::PathBuf;
use std::sync::Arc;

use eval::ModelKind;
use optim::{LossKind, Sigmoid};
use tapered::{CompiledSet, Progress};

use crate::chess::Leaf;
use crate::resolve::Resolver;

/// Everything that defines the problem to tune, for a model whose data comes from a source
/// of type `S` ([`Tunable::Source`](crate::Tunable::Source)): [`BuiltIn`] for the project's own
/// models (data files, model, leaf), [`TraceOptions`] for an engine's traced model (trace
/// files, manifest). A traced run has no field for `--model` or `--data` to go in.
#[derive(Clone, Debug)]
pub struct SetupOptions<S = BuiltIn> {
    /// Where the model and its positions come from.
    pub source: S,
    /// Starting weights (JSON by name, or for a traced model a manifest whose values start the
    /// run); the model's defaults (the manifest's values) if `None`.
    pub weights: Option<PathBuf>,
    /// Which positions are read, and how they are split by game.
    pub split: SplitOptions,
    /// The objective the run minimises.
    pub objective: ObjectiveOptions,
    /// Where loading, recording and resolving report their progress (none by default; the
    /// program draws it).
    pub progress: Progress,
}

impl<S> SetupOptions<S> {
    /// The options of a run on `source` with every other part at its default.
    pub fn new(source: S) -> Self {
        SetupOptions {
            source,
            weights: None,
            split: SplitOptions::default(),
            objective: ObjectiveOptions::default(),
            progress: Progress::none(),
        }
    }
}

impl Default for SetupOptions<BuiltIn> {
    fn default() -> Self {
        SetupOptions::new(BuiltIn::default())
    }
}

/// The source of a built-in model's run ([`eval::Model`]): data files, the model, and how
/// positions are taken from them.
#[derive(Clone, Debug)]
pub struct BuiltIn {
    /// Data files (EPD, PGN or binary cache; plain, gzip or zstd).
    pub data: Vec<PathBuf>,
    /// The model; `None`: the starting weights file's, or `psqt` without one. A model that
    /// differs from the weights file's is an error naming both.
    pub model: Option<ModelKind>,
    /// Static evaluation or quiescence leaf.
    pub leaf: Leaf,
    /// Keep every sample's root position so that the run can search its quiescence leaf again
    /// at new weights ([`Setup::resolver`](super::Setup::resolver)); needs [`Leaf::Qsearch`].
    pub resolvable: bool,
    /// How positions are taken from PGN games ([`SplitOptions::strict`] applies); EPD and
    /// caches are read as they are. Default: [`data::ExtractOptions::recommended`].
    pub extract: data::ExtractOptions,
}

impl Default for BuiltIn {
    fn default() -> Self {
        BuiltIn {
            data: Vec::new(),
            model: None,
            leaf: Leaf::Static,
            resolvable: false,
            extract: data::ExtractOptions::recommended(),
        }
    }
}

/// Which positions a run reads and how it splits them by game, whatever their source.
#[derive(Clone, Debug)]
pub struct SplitOptions {
    /// Fraction of the games held out for validation.
    pub valid_fraction: f64,
    /// Seed of the split.
    pub seed: u64,
    /// Use at most this many positions (after the split, from each side proportionally).
    pub limit: Option<usize>,
    /// Use only the first this many positions read (before the split), as `tune bench
    /// --positions` does. Not with [`BuiltIn::resolvable`].
    pub first: Option<usize>,
    /// Stop at the first malformed record.
    pub strict: bool,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            valid_fraction: 0.1,
            seed: 1,
            limit: None,
            first: None,
            strict: false,
        }
    }
}

impl SplitOptions {
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

/// The objective a run minimises: the link, the labels and the priors, whatever the model.
#[derive(Clone, Debug)]
pub struct ObjectiveOptions {
    /// `K`, fitted at the starting weights if `None`.
    pub k: Option<f64>,
    /// The sigmoid.
    pub sigmoid: Sigmoid,
    /// The loss.
    pub loss: LossKind,
    /// L1 weight.
    pub l1: f64,
    /// L2 weight; `None`: the model's [`default_l2`](crate::Tunable::default_l2).
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
}

impl Default for ObjectiveOptions {
    fn default() -> Self {
        ObjectiveOptions {
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
        }
    }
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
    /// The resolver of [`BuiltIn::resolvable`] (built-in models only).
    pub resolver: Option<Resolver>,
    /// Messages for the user (data reports, skipped records).
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::SplitOptions;

    #[test]
    fn quotas_cut_both_sides_in_proportion_to_the_limit() {
        let with = |limit| SplitOptions {
            limit,
            ..SplitOptions::default()
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
