//! The bridge to the project's chess evaluation (`eval`) and data (`data`): parameter
//! descriptions, and recording labelled positions into a [`CompiledSet`].

use eval::Model;
use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use crate::params::ParamSpec;
use crate::set::{CompiledSet, Label};

/// Which position's evaluation a sample contributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Leaf {
    /// The position itself (the data should be quiet).
    #[default]
    Static,
    /// The position at the end of its quiescence principal variation at the starting
    /// weights (RuyTune's choice), found once at load.
    Qsearch,
}

impl std::str::FromStr for Leaf {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "static" => Ok(Leaf::Static),
            "qsearch" => Ok(Leaf::Qsearch),
            _ => Err(format!("unknown leaf {s:?} (expected static or qsearch)")),
        }
    }
}

/// The optimisers' view of a model's parameters.
///
/// ```
/// let model = eval::Model::new(eval::ModelKind::Psqt);
/// let specs = optim::chess::param_specs(&model);
/// assert_eq!(specs.len(), model.len());
/// assert_eq!(specs[model.index_of("material.rook.eg").unwrap()].init, 500.0);
/// ```
pub fn param_specs(model: &Model) -> Vec<ParamSpec> {
    model
        .params()
        .iter()
        .map(|p| ParamSpec {
            name: p.name.clone(),
            group: p.group.clone(),
            init: p.init,
            bounds: p.bounds,
        })
        .collect()
}

/// Records `model`'s evaluation of each position (or of its quiescence leaf at `start`) with
/// its label. Parallel; `progress` advances by one per position.
///
/// ```
/// use optim::{chess, Label};
/// use shakmaty::Chess;
///
/// let model = eval::Model::new(eval::ModelKind::Psqt);
/// let w = model.default_weights();
/// let positions = vec![(Chess::default(), Label { result: 0.5, score: None })];
/// let set = chess::record_positions(&model, &positions, &w, chess::Leaf::Static, None);
/// assert_eq!(set.len(), 1);
/// assert_eq!(set.linear_len(), 1); // psqt is linear in the weights
/// ```
pub fn record_positions(
    model: &Model,
    positions: &[(Chess, Label)],
    start: &[f64],
    leaf: Leaf,
    progress: Option<&ProgressBar>,
) -> CompiledSet {
    CompiledSet::record(
        start,
        positions,
        |_, (_, l)| *l,
        |_, (pos, _), w| Some(evaluate_leaf(model, pos, start, w, leaf)),
        progress,
    )
}

/// [`record_positions`] for `data` samples; samples whose board does not decode are skipped.
pub fn record_samples(
    model: &Model,
    samples: &[data::Sample],
    start: &[f64],
    leaf: Leaf,
    progress: Option<&ProgressBar>,
) -> CompiledSet {
    CompiledSet::record(
        start,
        samples,
        |_, s| Label {
            result: s.result,
            score: s.score,
        },
        |_, s, w| {
            let pos = s.position().ok()?;
            Some(evaluate_leaf(model, &pos, start, w, leaf))
        },
        progress,
    )
}

fn evaluate_leaf(
    model: &Model,
    pos: &Chess,
    start: &[f64],
    w: &[tape::Var],
    leaf: Leaf,
) -> tape::Var {
    match leaf {
        Leaf::Static => model.evaluate(pos, w),
        Leaf::Qsearch => {
            let q = eval::quiesce(model, pos, start);
            model.evaluate(&q.leaf, w)
        }
    }
}
