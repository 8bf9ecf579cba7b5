//! [`prepare`]: from data files and options to the training and validation objectives (load,
//! split by game, record, fit `K`), as the `tune` subcommands do it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use eval::{Model, ModelKind};

use crate::chess::Leaf;
use crate::resolve::Resolver;
use crate::tunable::Tunable;
use crate::TexelError;

pub(crate) mod options;
mod prior;
pub mod stream;

use optim::fit_k;
use optim::Link;
use optim::{Objective, ObjectiveConfig, Support};
pub use options::{
    BuiltIn, Loaded, ObjectiveOptions, ScoreK, SetupOptions, SplitOptions, TraceOptions,
};
use tapered::CompiledSet;
use tapered::Stop;

/// The dataset used when no data is given: made by `tune datagen` / `tune bootstrap` (the
/// engine's self-play) and committed as `data/default.gtc.zst` (see `data/README.md`).
pub const DEFAULT_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/default.gtc.zst");

/// [`DEFAULT_DATA`], checked to exist.
pub fn default_data() -> Result<Vec<PathBuf>, TexelError> {
    let p = PathBuf::from(DEFAULT_DATA);
    if !p.is_file() {
        return Err(TexelError::Config(format!(
            "no data: give data files (EPD, PGN or cache); the default dataset {} is missing \
             (it ships in the repository's data/ folder)",
            p.display()
        )));
    }
    Ok(vec![std::fs::canonicalize(&p).unwrap_or(p)])
}

/// The L2 strength of a tuning run that does not name one (`--l2`'s default), by model:
/// `1e-7` for `psqt`, `1e-8` for `full`. Chosen by play, not loss (`experiments/defaults-grid.md`, "How
/// strong a pull" and "The pull for `full`"): on the TCEC games and the embedded data, `full`
/// plays 28 to 50 Elo better at 1e-8 than at 1e-7, while for `psqt` 1e-7 plays as well there
/// and far better on a few thousand games of strong weights.
///
/// ```
/// use eval::ModelKind;
/// assert_eq!(texel::setup::default_l2(ModelKind::Psqt), 1e-7);
/// assert_eq!(texel::setup::default_l2(ModelKind::Full), 1e-8);
/// ```
pub fn default_l2(kind: ModelKind) -> f64 {
    match kind {
        ModelKind::Psqt => 1e-7,
        ModelKind::Full => 1e-8,
    }
}

/// The prepared problem.
#[derive(Debug)]
pub struct Setup<M: Tunable = Model> {
    /// The model.
    pub model: M,
    /// Full starting weights.
    pub start: Vec<f64>,
    /// The training objective.
    pub train: Arc<Objective>,
    /// The validation objective, if any positions were held out.
    pub valid: Option<Arc<Objective>>,
    /// Whether `K` was fitted.
    pub k_fitted: bool,
    /// With [`BuiltIn::resolvable`]: the root positions and their current leaves, for
    /// [`run_resolving`](optim::run_resolving).
    pub resolver: Option<Resolver>,
    /// Messages for the user (data reports, skipped records).
    pub notes: Vec<String>,
    /// Each weight's support in the training set at the start weights: the positions whose
    /// gradient in it is nonzero (the wandering report's denominator, the prior's counts).
    pub support: Support,
    /// The prior's strength in positions ([`ObjectiveOptions::prior_positions`] or the model's
    /// default); 0: none.
    pub prior_positions: f64,
    /// Seconds spent loading and recording.
    pub seconds: f64,
}

/// Loads every data file (EPD, PGN taken by `extract`, or cache), keeping the games of
/// different files apart; returns the samples and one note per file (positions kept, errors,
/// skipped records by reason). `strict`: the first malformed record is an error.
pub fn load_samples(
    paths: &[PathBuf],
    strict: bool,
    extract: &data::ExtractOptions,
) -> Result<(Vec<data::Sample>, Vec<String>), TexelError> {
    let mut samples = Vec::new();
    let mut notes = Vec::new();
    let load_opts = data::LoadOptions {
        strict,
        extract: extract.clone(),
        ..data::LoadOptions::default()
    };
    for path in paths {
        let (s, report) = data::load(path, &load_opts)?;
        notes.push(stream::note(path, s.len(), &report));
        // Keep games of different files apart.
        data::files::append_games(&mut samples, s);
    }
    Ok((samples, notes))
}

/// The sets, the resolver (if any) and the notes of [`prepare`].
type Recorded = (
    Arc<CompiledSet>,
    Arc<CompiledSet>,
    Option<Resolver>,
    Vec<String>,
);

/// With [`BuiltIn::resolvable`]: every sample loaded (the resolver keeps each root
/// position), split by game, searched and recorded.
fn load_resolver(
    opts: &SetupOptions,
    model: &Model,
    start: &[f64],
) -> Result<Recorded, TexelError> {
    let (source, split) = (&opts.source, &opts.split);
    let (samples, mut notes) = load_samples(&source.data, split.strict, &source.extract)?;
    if samples.is_empty() {
        return Err(TexelError::Config(format!(
            "the data holds no positions: {}",
            notes.join("; ")
        )));
    }
    let (mut train_s, mut valid_s) = data::split_by_game(samples, split.valid_fraction, split.seed);
    let [t, v] = split.quotas([train_s.len() as u64, valid_s.len() as u64]);
    train_s.truncate(t as usize);
    valid_s.truncate(v as usize);
    notes.extend(data::warnings(&train_s, &valid_s, split.valid_fraction));
    let total = (train_s.len() + valid_s.len()) as u64;
    // Search each root (one step), then record its leaf (another).
    let pb = opts.progress.begin("resolving", 2 * total);
    let mut resolver = Resolver::new(model.clone(), train_s, valid_s);
    let rec = resolver.resolve(start, Some(&pb))?;
    pb.end();
    Ok((
        Arc::new(rec.train),
        Arc::new(rec.valid),
        Some(resolver),
        notes,
    ))
}

/// Loads the data, splits it by game, records every position and builds the objectives,
/// asking `stop` between batches of positions while loading and recording (a Ctrl-C
/// handler's flag; `Stop::Never` for none): once it says yes, the error says the load was
/// interrupted. The positions are streamed from the files into the stores ([`stream`]); with
/// [`BuiltIn::resolvable`] every root position is kept as well. A built-in model
/// ([`prepare_as`] for [`Model`]).
pub fn prepare(opts: &SetupOptions, stop: Stop<'_>) -> Result<Setup, TexelError> {
    prepare_as::<Model>(opts, stop)
}
/// [`Tunable::load`] for the built-in models: the model and start weights from
/// [`BuiltIn::model`] and [`SetupOptions::weights`], the data streamed (or kept for the
/// resolver).
pub(crate) fn load_builtin(
    opts: &SetupOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Loaded<Model>, TexelError> {
    let source = &opts.source;
    if source.resolvable && opts.split.first.is_some() {
        return Err(TexelError::Config(
            "re-resolving leaves reads every position (no first-N option)".to_string(),
        ));
    }
    if source.resolvable && source.leaf != Leaf::Qsearch {
        return Err(TexelError::Config(
            "re-resolving leaves needs the quiescence leaf (--leaf qsearch)".to_string(),
        ));
    }
    let (model, start) = match &opts.weights {
        // psqt weights start a full run, carried over by name.
        Some(p) => match source.model {
            Some(kind) => eval::load_weights_as(p, kind)?,
            None => eval::load_weights(p)?,
        },
        None => {
            let m = Model::new(source.model.unwrap_or(ModelKind::Psqt));
            let w = m.default_weights();
            (m, w)
        }
    };
    if source.data.is_empty() {
        return Err(TexelError::Config("no data files given".to_string()));
    }
    let (train, valid, resolver, notes) = if source.resolvable {
        load_resolver(opts, &model, &start)?
    } else {
        let bar = |len| opts.progress.begin("recording", len);
        let s = stream::stream(opts, &model, &start, stop, &bar)?;
        (Arc::new(s.train), Arc::new(s.valid), None, s.notes)
    };
    Ok(Loaded {
        model,
        start,
        train,
        valid,
        resolver,
        notes,
    })
}

/// Notes the positions the compact stores of `sets` refused (same values, more memory, slower
/// passes), each naming the parameter that caused it (by `model`'s names) and the fix.
fn fallback_notes<M: Tunable>(model: &M, sets: [(&str, &CompiledSet); 2], notes: &mut Vec<String>) {
    let names = model.names();
    let name = |i: u32| {
        names
            .get(i as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{i}"))
    };
    for (what, set) in sets {
        let warnings = set.layout().warnings_named(&name).into_iter();
        notes.extend(warnings.map(|w| format!("{what} set: {w}")));
    }
}

/// Loads `M`'s data ([`Tunable::load`]), fits `K` and builds the objectives: the training
/// objective with the free parameters ([`Tunable::free_indices`]), the bounds and the
/// smoothness pairs of the model, and the validation one beside it. The same for every model.
/// Each weight's support is measured at the start weights ([`Setup::support`], one pass), and
/// the prior of [`ObjectiveOptions::prior_positions`] (or the model's default) added from it.
pub fn prepare_as<M: Tunable>(
    opts: &SetupOptions<M::Source>,
    stop: Stop<'_>,
) -> Result<Setup<M>, TexelError> {
    let o = &opts.objective;
    prior::check(o)?;
    let stop = &|| stop.now();
    let t0 = Instant::now();
    let Loaded {
        model,
        start,
        train: train_set,
        valid: valid_set,
        resolver,
        mut notes,
    } = M::load(opts, stop)?;
    if train_set.is_empty() {
        return Err(TexelError::Config(
            "no training positions after the split".to_string(),
        ));
    }
    let sets = [("training", &*train_set), ("validation", &*valid_set)];
    // The directions the model declares flat must be flat on these positions.
    crate::flat::check(&model, &sets, &start)?;
    fallback_notes(&model, sets, &mut notes);

    let link0 = Link {
        sigmoid: o.sigmoid,
        k: 1.0,
        loss: o.loss,
    };
    let (k, k_fitted) = match o.k {
        Some(k) if k > 0.0 && k.is_finite() => (k, false),
        Some(k) => return Err(TexelError::Config(format!("K must be positive, not {k}"))),
        None => (fit_k(&train_set, &start, link0).0, true),
    };
    let score_k = match o.score_k {
        ScoreK::Model => None,
        ScoreK::Given(k) => Some(k),
        ScoreK::Fit => {
            let fitted = optim::fit_score_k(&train_set, link0).map(|(k, _)| k);
            if fitted.is_none() {
                notes.push("--score-k fit: no training position has a score".to_string());
            }
            fitted
        }
    };
    let cfg = ObjectiveConfig {
        link: Link { k, ..link0 },
        l1: o.l1,
        l2: o.l2.unwrap_or_else(|| model.default_l2()),
        lambda: o.lambda,
        score_k,
        smooth: o.smooth,
    };
    let train = objective(&model, train_set, cfg, &start, &o.freeze)?;
    let prior_positions = (o.prior_positions).unwrap_or_else(|| model.default_prior_positions());
    let (train, support) =
        prior::hold(train, &start, prior_positions, Stop::When(stop), &mut notes)?;
    let valid = if valid_set.is_empty() {
        None
    } else {
        Some(Arc::new(train.with_set(valid_set)?))
    };
    Ok(Setup {
        model,
        start,
        train,
        valid,
        k_fitted,
        resolver,
        notes,
        support,
        prior_positions,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The training objective of `model` over `set`: the free parameters (all but those `freeze`
/// and the model freeze), the model's bounds and smoothness pairs.
fn objective<M: Tunable>(
    model: &M,
    set: Arc<CompiledSet>,
    cfg: ObjectiveConfig,
    start: &[f64],
    freeze: &[String],
) -> Result<Arc<Objective>, TexelError> {
    let free = model.free_indices(freeze);
    if free.is_empty() {
        return Err(TexelError::Config("every parameter is frozen".to_string()));
    }
    let bounds: Vec<Option<(f64, f64)>> = model.param_specs().iter().map(|p| p.bounds).collect();
    Ok(Arc::new(
        Objective::new(set, cfg, start.to_vec(), Some(free))?
            .with_bounds(&bounds)?
            .with_pairs(&model.smoothing_pairs())?,
    ))
}
