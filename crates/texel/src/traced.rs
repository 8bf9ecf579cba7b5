//! [`Traced`]: the traced model, an engine's own evaluation as its manifest declares it and its
//! traces record it, the third [`Tunable`] model beside `psqt` and `full`. Loading reads the
//! traces, verifies them against the engine's own evaluations (refusing a set that fails, unless
//! told otherwise), splits them by game and records them: linear evaluations into the compact
//! phased store straight from their counts, declared non-linear terms as one head program and each
//! position's inputs to it ([`record_traces`], `traced/headed.rs`).

use std::path::Path;
use std::sync::Arc;

use optim::ParamSpec;
use tape::Var;
use tapered::{CompiledSet, Counts, Progress, SetBuilder, Target};
use trace::emit::Language;
use trace::{Manifest, Trace};

use crate::chess::{Leaf, RECORD_BATCH};
use crate::setup::{Loaded, SetupOptions, TraceOptions};
use crate::tunable::{source_file, RunFile, Tunable};
use crate::TexelError;

mod headed;
mod load;
mod report;

pub use load::{check_traces, read, start_weights};
pub use report::{explain_traces, judge_traces, score_traces};

/// An engine's traced model: its manifest (parameters, shapes, terms, current values).
#[derive(Clone, Debug)]
pub struct Traced {
    /// The manifest.
    pub manifest: Arc<Manifest>,
}

impl Traced {
    /// The manifest in `path`.
    pub fn load(path: &Path) -> Result<Traced, TexelError> {
        Ok(Traced {
            manifest: Arc::new(Manifest::load(path)?),
        })
    }

    /// A manifest already read.
    pub fn new(manifest: Manifest) -> Traced {
        Traced {
            manifest: Arc::new(manifest),
        }
    }
}

/// The label of a trace, as the optimiser takes it.
pub fn label(t: &Trace) -> Target {
    Target {
        value: t.result,
        score: t.score,
        group: t.game,
    }
}

impl Tunable for Traced {
    /// `traced (<engine>)`.
    fn model_name(&self) -> String {
        format!("traced ({})", self.manifest.engine())
    }

    fn len(&self) -> usize {
        self.manifest.weights().len()
    }

    /// Every weight with its name (`pst[2][35].eg`), group (the parameter's name), start value
    /// and bounds.
    fn param_specs(&self) -> Vec<ParamSpec> {
        self.manifest
            .weights()
            .iter()
            .map(|w| ParamSpec {
                name: w.name.clone(),
                group: w.group.clone(),
                init: w.init,
                bounds: w.bounds,
            })
            .collect()
    }

    /// The weights of the parameters the manifest marks `frozen`.
    fn frozen(&self) -> Vec<usize> {
        let weights = self.manifest.weights().iter().enumerate();
        weights.filter(|(_, w)| w.frozen).map(|(i, _)| i).collect()
    }

    /// Neighbours in each declared shape, per phase ([`Manifest::smoothing_pairs`]).
    fn smoothing_pairs(&self) -> Vec<(usize, usize)> {
        self.manifest.smoothing_pairs()
    }

    /// A tapered element's `.mg` weight and its `.eg` twin.
    fn phase_pairs(&self) -> Vec<Option<usize>> {
        self.manifest.weights().iter().map(|w| w.twin).collect()
    }

    /// No pull: nothing has measured a strength for a traced model (`--l2` sets
    /// one).
    fn default_l2(&self) -> f64 {
        0.0
    }

    /// `integer` weights rounded, the others to fixed point (multiples of
    /// `1 / eval::FIXED_POINT_SCALE`), as for the built-in models.
    fn round(&self, w: &[f64]) -> Vec<f64> {
        let weights = self.manifest.weights();
        let fixed = eval::FIXED_POINT_SCALE;
        let one = |(p, &v): (&trace::WeightInfo, &f64)| {
            if p.integer {
                v.round()
            } else {
                (v * fixed).round() / fixed
            }
        };
        weights.iter().zip(w).map(one).collect()
    }

    /// The manifest's declared centrings ([`Manifest::centre`]).
    fn centre(&self, w: &[f64]) -> (Vec<f64>, Vec<trace::CentreMove>) {
        let mut w = w.to_vec();
        let moves = self.manifest.centre(&mut w);
        (w, moves)
    }

    /// Every `integer` weight (the frozen ones are not free, so the polish leaves them).
    fn polish_moves(&self) -> Vec<usize> {
        let weights = self.manifest.weights().iter().enumerate();
        weights.filter(|(_, w)| w.integer).map(|(i, _)| i).collect()
    }

    /// `weights.json`: the manifest with the tuned values, unrounded whatever each
    /// parameter's `integer` (a valid manifest again, by name, that reads back as these start
    /// weights); `weights-int.json`: with the integer weights; then the integer weights as
    /// source in every language of `emit` (`weights.h`, ...), in the manifest's names.
    fn weight_files(
        &self,
        w: &[f64],
        wi: &[f64],
        emit: &[Language],
    ) -> Result<Vec<RunFile>, TexelError> {
        let json = |doc: serde_json::Value| -> Result<String, TexelError> {
            Ok(serde_json::to_string_pretty(&doc)? + "\n")
        };
        let m = &self.manifest;
        let mut files = vec![
            (
                "weights.json".into(),
                "weights".into(),
                json(m.to_json_unrounded(w))?,
            ),
            (
                "weights-int.json".into(),
                "integers".into(),
                json(m.to_json_with(wi))?,
            ),
        ];
        for lang in emit {
            let (name, text) = source_file(lang, || trace::emit::render(m, wi, lang))?;
            files.push((name.into(), lang.to_string(), text));
        }
        Ok(files)
    }

    fn load(
        opts: &SetupOptions,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Loaded<Self>, TexelError> {
        let Some(t) = &opts.traced else {
            return Err(TexelError::Config(
                "the traced model needs traces and a manifest (--trace FILES --manifest M.json)"
                    .to_string(),
            ));
        };
        check_options(opts, t)?;
        load::load(opts, t, stop)
    }
}

/// The options a traced run cannot take, refused before anything is read.
fn check_options(opts: &SetupOptions, t: &TraceOptions) -> Result<(), TexelError> {
    let refuse = |what: &str| Err(TexelError::Config(format!("with traces, {what}")));
    if opts.model.is_some() {
        return refuse("the model is the manifest's (no --model)");
    }
    if !opts.data.is_empty() {
        return refuse("the positions are the traces' (no --data)");
    }
    if opts.leaf != Leaf::Static || opts.resolvable {
        return refuse("each position is evaluated as the engine traced it (--leaf static)");
    }
    if t.files.is_empty() {
        return refuse("give at least one trace file");
    }
    Ok(())
}

/// Records `traces` under `traced`'s manifest at `start`: a linear manifest's positions from
/// their integer counts, factors and constant ([`Manifest::linear_counts`]) into the compact
/// phased store ([`CompiledSet::record_counts`]: constants, endgame scales and unclamped
/// phases included; a position whose counts do not fit, a decimal count say, becomes a
/// sparse row with the reason); a manifest with declared non-linear terms or its own formula
/// on the sums-scalars-and-head store (one head for every position, `traced/headed.rs`,
/// [`CompiledSet::record_heads`]), or through the tape ([`Manifest::evaluate_real`] over
/// [`Var`], its linear rows compacted alike) if its head cannot be recorded. The objective is
/// the manifest's evaluation in real numbers (a `trunc`, the engine's integer division, is
/// tuned as the real division). Positions whose evaluation fails (an index out of range) are left out: the set is shorter. Batch by batch
/// ([`RECORD_BATCH`]); `progress` advances by one per position.
pub fn record_traces(
    traced: &Traced,
    traces: &[Trace],
    start: &[f64],
    progress: Option<&Progress>,
) -> CompiledSet {
    let m = &*traced.manifest;
    let eg_of = traced.phase_pairs();
    let mut builder = SetBuilder::new(start.len());
    let heads = headed::Heads::new(m, &eg_of);
    for batch in traces.chunks(RECORD_BATCH) {
        if m.is_linear() {
            builder.push(CompiledSet::record_counts(
                start.len(),
                batch,
                |_, t| label(t),
                |_, t, out| counts(m, t, out),
                |_, t, out| m.linear_terms(t, out).unwrap_or(0.0),
                &eg_of,
                progress,
            ));
        } else if let Some(h) = &heads {
            let refs: Vec<&Trace> = batch.iter().collect();
            builder.push(h.record(m, &refs, start, progress));
        } else {
            let mut set = CompiledSet::record(
                start,
                batch,
                |_, t| label(t),
                |_, t, w: &[Var]| m.evaluate_real(t, w).ok(),
                progress,
            );
            set.compact_phased(&eg_of);
            builder.push(set);
        }
    }
    builder.finish()
}

/// A linear manifest's trace as [`Counts`] ([`Manifest::linear_counts`]).
fn counts(m: &Manifest, t: &Trace, out: &mut Counts) -> bool {
    let Some((a, b, c)) = m.linear_counts(t, &mut out.counts) else {
        return false;
    };
    (out.mg, out.eg, out.constant) = (a, b, c);
    true
}

/// The first trace of `traces` whose evaluation at `w` fails, with the error, for a note on
/// the positions [`record_traces`] left out.
pub(crate) fn first_failure(m: &Manifest, traces: &[Trace], w: &[f64]) -> Option<String> {
    traces.iter().find_map(|t| {
        m.evaluate_real::<f64>(t, w)
            .err()
            .map(|e| format!("{e} ({})", t.fen()))
    })
}
