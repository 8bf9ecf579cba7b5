//! [`Tunable`] for the project's own models ([`eval::Model`]: `psqt`, `full`).

use eval::Model;
use optim::ParamSpec;
use trace::emit::Language;

use super::{source_file, RunFile, Tunable};
use crate::chess::{param_specs, phase_pairs};
use crate::setup::options::{BuiltIn, Loaded, SetupOptions};
use crate::TexelError;

impl Tunable for Model {
    type Source = BuiltIn;

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
        opts: &SetupOptions<BuiltIn>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Loaded<Self>, TexelError> {
        crate::setup::load_builtin(opts, stop)
    }
}
