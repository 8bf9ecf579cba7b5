//! [`Tunable`]: what a tuning run tunes. The project's own models ([`eval::Model`]: `psqt`,
//! `full`) and an engine's traced model (`Traced`, from a manifest and traces) go
//! through the same paths ([`setup::prepare_as`](crate::setup::prepare_as),
//! [`job::tune_as`](crate::job::tune_as), [`output::write_run`](crate::output::write_run),
//! `tune compare`): they differ only in what this trait says.

use std::fmt::Debug;

use eval::Model;
use optim::ParamSpec;
use trace::emit::Language;

use crate::chess::{param_specs, phase_pairs};
use crate::setup::{Loaded, SetupOptions};
use crate::TexelError;

/// A file a run writes: its name in the run directory, its kind (for the summary), its text.
pub type RunFile = (String, String, String);

/// What a tuning run tunes: its parameters for the optimiser, its neighbours and tapered
/// pairs, how its data is loaded and recorded, and how its weights are written.
pub trait Tunable: Clone + Debug + Send + Sync + Sized + 'static {
    /// The model's name in summaries and titles (`psqt`, `full`, `traced`).
    fn model_name(&self) -> String;

    /// The number of parameters (weights).
    fn len(&self) -> usize;

    /// Whether there are no parameters.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The optimisers' view of the parameters, in index order.
    fn param_specs(&self) -> Vec<ParamSpec>;

    /// Parameters the model itself declares frozen (besides `--freeze`), ascending.
    fn frozen(&self) -> Vec<usize> {
        Vec::new()
    }

    /// Neighbouring parameters for the smoothness prior.
    fn smoothing_pairs(&self) -> Vec<(usize, usize)>;

    /// `eg_of[i] = Some(e)`: parameter `e` is the endgame twin of middlegame parameter `i`
    /// (the pairing [`tapered::CompiledSet::compact_phased`] takes).
    fn phase_pairs(&self) -> Vec<Option<usize>>;

    /// The L2 strength of a run that does not name one.
    fn default_l2(&self) -> f64;

    /// The weights as an engine stores them (integers, or fixed point for the others).
    fn round(&self, w: &[f64]) -> Vec<f64>;

    /// `w` with the exactly flat directions the model declares centred (the evaluation
    /// unchanged), and what moved; by default nothing is declared.
    fn centre(&self, w: &[f64]) -> (Vec<f64>, Vec<trace::CentreMove>) {
        (w.to_vec(), Vec::new())
    }

    /// The weights the integer polish after rounding may move by whole steps
    /// ([`crate::finish::polish`]); by default none.
    fn polish_moves(&self) -> Vec<usize> {
        Vec::new()
    }

    /// The weight files of a run at weights `w` (integer weights `wi`), in the order they are
    /// written; `emit` asks for source code too (the model may refuse languages it cannot
    /// write).
    fn weight_files(
        &self,
        w: &[f64],
        wi: &[f64],
        emit: &[Language],
    ) -> Result<Vec<RunFile>, TexelError>;

    /// Loads the model, its start weights and the data of `opts`, split by game and recorded
    /// (the part of [`prepare_as`](crate::setup::prepare_as) that depends on the model).
    /// `stop` is asked between batches.
    fn load(
        opts: &SetupOptions,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Loaded<Self>, TexelError>;

    /// The parameters' names, in index order.
    fn names(&self) -> Vec<String> {
        self.param_specs().into_iter().map(|p| p.name).collect()
    }

    /// The free parameters: every one but those `patterns` freeze (group names or globs on
    /// names, [`optim::free_indices`]) and those the model declares [`frozen`](Self::frozen).
    fn free_indices(&self, patterns: &[String]) -> Vec<usize> {
        let frozen = self.frozen();
        optim::free_indices(&self.param_specs(), patterns)
            .into_iter()
            .filter(|i| frozen.binary_search(i).is_err())
            .collect()
    }
}

impl Tunable for Model {
    fn model_name(&self) -> String {
        self.kind().name().to_string()
    }

    fn len(&self) -> usize {
        Model::len(self)
    }

    fn param_specs(&self) -> Vec<ParamSpec> {
        param_specs(self)
    }

    fn smoothing_pairs(&self) -> Vec<(usize, usize)> {
        Model::smoothing_pairs(self)
    }

    fn phase_pairs(&self) -> Vec<Option<usize>> {
        phase_pairs(self)
    }

    fn default_l2(&self) -> f64 {
        crate::setup::default_l2(self.kind())
    }

    fn round(&self, w: &[f64]) -> Vec<f64> {
        eval::round_weights(self, w)
    }

    /// `weights.json`, `weights-int.json`, `tables.txt`, `weights.rs` and the source of
    /// every other language in `emit` (e.g. `weights.h`).
    fn weight_files(
        &self,
        w: &[f64],
        wi: &[f64],
        emit: &[Language],
    ) -> Result<Vec<RunFile>, TexelError> {
        let file = |name: &str, what: &str, text: String| (name.into(), what.into(), text);
        let mut files = vec![
            file("weights.json", "weights", eval::weights_to_json(self, w)),
            file(
                "weights-int.json",
                "integers",
                eval::weights_to_json(self, wi),
            ),
            file("tables.txt", "tables", eval::tables(self, wi)),
        ];
        // Rust source always (`weights.rs`), and every other language asked for.
        let others = emit.iter().filter(|&l| *l != Language::Rust);
        for lang in std::iter::once(&Language::Rust).chain(others) {
            let (name, text) = source_file(lang, || crate::emit::source(self, wi, lang, None))?;
            files.push(file(name, &lang.to_string(), text));
        }
        Ok(files)
    }

    fn load(
        opts: &SetupOptions,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Loaded<Self>, TexelError> {
        crate::setup::load_builtin(opts, stop)
    }
}

/// The run file of source code in `lang` (its name, [`Language::file_name`], and the text
/// `render` writes); a user's template, which names no file, is refused.
pub(crate) fn source_file(
    lang: &Language,
    render: impl FnOnce() -> Result<String, trace::emit::EmitError>,
) -> Result<(&'static str, String), TexelError> {
    let Some(name) = lang.file_name() else {
        return Err(TexelError::Config(format!(
            "a run writes source in c, cpp, rust or csharp; the template {lang} is `tune emit \
             --template`'s"
        )));
    };
    Ok((name, render()?))
}
