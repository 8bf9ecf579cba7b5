//! The bridge to the project's chess evaluation (`eval`) and data (`data`): parameter
//! descriptions, and recording labelled positions into a [`CompiledSet`].

use eval::Model;
use serde::{Deserialize, Serialize};
use shakmaty::Chess;
use tapered::Progress;

use optim::ParamSpec;
use tapered::{CompiledSet, SetBuilder, SplitSpec, Target};

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
/// let specs = texel::chess::param_specs(&model);
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
/// use tapered::Target;
/// use texel::chess;
/// use shakmaty::Chess;
///
/// let model = eval::Model::new(eval::ModelKind::Psqt);
/// let w = model.default_weights();
/// let positions = vec![(Chess::default(), Target { value: 0.5, score: None, group: 0 })];
/// let set = chess::record_positions(&model, &positions, &w, chess::Leaf::Static, None);
/// assert_eq!(set.len(), 1);
/// assert_eq!(set.linear_len(), 1); // psqt is linear in the weights
/// ```
pub fn record_positions(
    model: &Model,
    positions: &[(Chess, Target)],
    start: &[f64],
    leaf: Leaf,
    progress: Option<&Progress>,
) -> CompiledSet {
    record_model(
        model,
        positions,
        start,
        leaf,
        |_, (_, l)| *l,
        |(pos, _)| Some(pos.clone()),
        progress,
    )
}

/// Records `model` on `items` (the position of each by `position`, `None` to skip it), batch
/// by batch ([`SetBuilder::BATCH`]) into one [`SetBuilder`]: a model with a
/// [`split`](eval::Model::split) through [`CompiledSet::record_split`] (the compact
/// sums-and-head store), a linear one from its terms ([`eval::Model::linear_terms`], no tape)
/// through [`CompiledSet::record_linear`], any other by recording and compacting its rows.
fn record_model<T, L, P>(
    model: &Model,
    items: &[T],
    start: &[f64],
    leaf: Leaf,
    label: L,
    position: P,
    progress: Option<&Progress>,
) -> CompiledSet
where
    T: Sync,
    L: Fn(usize, &T) -> Target + Sync,
    P: Fn(&T) -> Option<Chess> + Sync,
{
    let eg_of = phase_pairs(model);
    let mut builder = SetBuilder::new(start.len());
    for (b, batch) in items.chunks(SetBuilder::BATCH).enumerate() {
        let label = |i: usize, item: &T| label(b * SetBuilder::BATCH + i, item);
        let set = record_batch(
            model, batch, start, leaf, &eg_of, label, &position, progress,
        );
        builder.push(set);
    }
    builder.finish()
}

/// [`record_model`] on one batch.
#[allow(clippy::too_many_arguments)]
fn record_batch<T, L, P>(
    model: &Model,
    items: &[T],
    start: &[f64],
    leaf: Leaf,
    eg_of: &[Option<usize>],
    label: L,
    position: &P,
    progress: Option<&Progress>,
) -> CompiledSet
where
    T: Sync,
    L: Fn(usize, &T) -> Target + Sync,
    P: Fn(&T) -> Option<Chess> + Sync,
{
    if let Some(split) = model.split() {
        let spec = SplitSpec {
            sums: split.sums,
            twins: split.twins.unwrap_or((usize::MAX, usize::MAX)),
            head_params: split.head_params,
            eg_of: eg_of.to_vec(),
            head_gradient: Some(split.head_gradient),
        };
        return CompiledSet::record_split(
            start,
            items,
            label,
            |_, item, out| match position(item) {
                Some(pos) => model.sums(&leaf_position(model, &pos, start, leaf), out),
                None => false,
            },
            &spec,
            |s, h| model.head(s, h),
            progress,
        );
    }
    if model.is_linear() {
        return CompiledSet::record_linear(
            start.len(),
            items,
            label,
            |_, item, out| match position(item) {
                Some(pos) => model.linear_terms(&leaf_position(model, &pos, start, leaf), out),
                None => false,
            },
            eg_of,
            progress,
        );
    }
    let mut set = CompiledSet::record(
        start,
        items,
        label,
        |_, item, w| {
            let pos = position(item)?;
            Some(model.evaluate(&leaf_position(model, &pos, start, leaf), w))
        },
        progress,
    );
    set.compact_phased(eg_of);
    set
}

/// `eg_of[i] = Some(e)`: parameter `e` is the endgame twin of middlegame parameter `i`, as the
/// model says ([`eval::ParamInfo::twin`]; names are not parsed). This is the pairing
/// [`CompiledSet::compact_phased`] takes.
///
/// ```
/// let model = eval::Model::new(eval::ModelKind::Psqt);
/// let eg_of = texel::chess::phase_pairs(&model);
/// let i = model.index_of("material.pawn.mg").unwrap();
/// assert_eq!(eg_of[i], model.index_of("material.pawn.eg"));
/// let j = model.index_of("pst.knight.mg.e4").unwrap();
/// assert_eq!(eg_of[j], model.index_of("pst.knight.eg.e4"));
/// ```
pub fn phase_pairs(model: &Model) -> Vec<Option<usize>> {
    model.params().iter().map(|p| p.twin).collect()
}

/// [`record_positions`] for `data` samples; samples whose board does not decode are skipped.
pub fn record_samples(
    model: &Model,
    samples: &[data::Sample],
    start: &[f64],
    leaf: Leaf,
    progress: Option<&Progress>,
) -> CompiledSet {
    record_model(
        model,
        samples,
        start,
        leaf,
        |_, s| Target {
            value: s.result,
            score: s.score,
            group: s.game,
        },
        |s| s.position().ok(),
        progress,
    )
}

/// The position whose evaluation a sample contributes: `pos` itself, or the end of its
/// quiescence principal variation at the weights `start`.
pub fn leaf_position(model: &Model, pos: &Chess, start: &[f64], leaf: Leaf) -> Chess {
    match leaf {
        Leaf::Static => pos.clone(),
        Leaf::Qsearch => eval::quiesce(model, pos, start).leaf,
    }
}
