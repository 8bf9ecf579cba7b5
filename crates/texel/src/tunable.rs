//! [`Tunable`]: what a tuning run tunes. The project's own models ([`eval::Model`]: `psqt`,
//! `full`) and an engine's traced model (`Traced`, from a manifest and traces) go
//! through the same paths ([`setup::prepare_as`](crate::setup::prepare_as),
//! [`job::tune_as`](crate::job::tune_as), [`output::write_run`](crate::output::write_run),
//! `tune compare`): they differ only in what this trait says.

use std::fmt::Debug;

use optim::ParamSpec;
use trace::emit::Language;

use crate::setup::options::{Loaded, SetupOptions};
use crate::TexelError;

mod builtin;

/// A file a run writes: its name in the run directory, its kind (for the summary), its text.
pub type RunFile = (String, String, String);

/// What a tuning run tunes: its parameters for the optimiser, its neighbours and tapered
/// pairs, how its data is loaded and recorded, and how its weights are written.
pub trait Tunable: Clone + Debug + Send + Sync + Sized + 'static {
    /// Where the model and its positions come from ([`SetupOptions::source`]): data files
    /// and a model kind for the built-in models ([`BuiltIn`](crate::setup::BuiltIn)), trace
    /// files and a manifest for a traced one ([`TraceOptions`](crate::setup::TraceOptions)).
    type Source: Clone + Debug + Send + Sync + 'static;

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

    /// The prior's strength in positions of a run that does not name one
    /// ([`ObjectiveOptions::prior_positions`](crate::setup::ObjectiveOptions::prior_positions));
    /// by default none.
    fn default_prior_positions(&self) -> f64 {
        0.0
    }

    /// The weights as an engine stores them (integers, or fixed point for the others).
    fn round(&self, w: &[f64]) -> Vec<f64>;

    /// `w` with the exactly flat directions the model declares centred (the evaluation
    /// unchanged), and what moved; by default nothing is declared.
    fn centre(&self, w: &[f64]) -> (Vec<f64>, Vec<trace::CentreMove>) {
        (w.to_vec(), Vec::new())
    }

    /// The directions the model declares exactly flat (those [`centre`](Self::centre) moves
    /// along), checked on the positions after the load ([`crate::flat::check`]); by default
    /// none.
    fn flat_directions(&self) -> Vec<trace::FlatDirection> {
        Vec::new()
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
        opts: &SetupOptions<Self::Source>,
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
