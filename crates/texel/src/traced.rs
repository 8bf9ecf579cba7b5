//! [`Traced`]: the traced model, an engine's own evaluation as its manifest declares it and its
//! traces record it, the third [`Tunable`] model beside `psqt` and `full`. Loading reads the
//! traces, verifies them against the engine's own evaluations (refusing a set that fails, unless
//! told otherwise), splits them by game and records them: linear evaluations into the compact
//! phased store straight from their counts, declared non-linear terms as one head program and each
//! position's inputs to it ([`record_traces`], `traced/headed.rs`).

use optim::ParamSpec;
use trace::emit::Language;

use crate::setup::{Loaded, SetupOptions, TraceOptions};
use crate::tunable::{source_file, RunFile, Tunable};
use crate::TexelError;

mod activity;
mod headed;
mod load;
mod model;
mod record;
mod report;

pub use activity::trace_activity;
pub use load::{check_traces, files_note, read, start_weights};
pub use model::{label, Traced};
pub use record::record_traces;
pub use report::{explain_traces, judge_traces, score_traces};

/// The prior's strength of a traced run that does not name one (`--prior-positions`): the
/// engine's current weights count as 1,000 positions each. On the data of a real run (tens of
/// thousands of positions and more) the weights every position holds move within a few per
/// cent of where they would without it, while one active in a few hundred positions is held
/// at least half way to its start (`docs/guide.md`, "The prior").
pub const PRIOR_POSITIONS: f64 = 1000.0;

impl Tunable for Traced {
    type Source = TraceOptions;

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

    /// [`PRIOR_POSITIONS`]: a traced run starts from an engine's current weights, which
    /// its author chose on more than the few positions some weights are active in.
    fn default_prior_positions(&self) -> f64 {
        PRIOR_POSITIONS
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

    /// The manifest's `centre` sets, per phase ([`Manifest::flat_directions`]).
    fn flat_directions(&self) -> Vec<trace::FlatDirection> {
        self.manifest.flat_directions()
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
        opts: &SetupOptions<TraceOptions>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Loaded<Self>, TexelError> {
        if opts.source.files.is_empty() {
            return Err(TexelError::Config(
                "with traces, give at least one trace file".to_string(),
            ));
        }
        load::load(opts, stop)
    }
}
