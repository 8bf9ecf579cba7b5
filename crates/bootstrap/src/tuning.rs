//! The tuning step of a generation: the job handed to `texel::job::tune`, exactly `tune
//! lbfgs`'s path, on the data of the window of generations.

use std::path::Path;

use eval::ModelKind;
use optim::{Budget, RunConfig, SolverOptions};
use texel::job::Job;
use texel::setup::{BuiltIn, ObjectiveOptions, SetupOptions, SplitOptions};

use crate::state::Generation;
use crate::{derive_seed, generation_dir, Runner, SALT_TUNE};

impl Runner<'_> {
    /// The tuning of `generation` (its directory `dir`) from the best weights of `prev` (of
    /// the model `kind`): the generations whose data it reads (the window, those done and
    /// this one) and the job.
    pub(crate) fn tune_job(
        &self,
        done: &[Generation],
        prev: &Generation,
        generation: u32,
        dir: &Path,
        kind: ModelKind,
    ) -> (Vec<u32>, Job) {
        let s = self.settings;
        let window: Vec<u32> = (generation.saturating_sub(s.window - 1).max(1)..=generation)
            .filter(|&g| g == generation || done.iter().any(|d| d.generation == g))
            .collect();
        let files = window
            .iter()
            .map(|&g| generation_dir(self.out, g).join("data.gtc.zst"))
            .collect();
        let job = Job {
            setup: SetupOptions {
                source: BuiltIn {
                    data: files,
                    model: Some(kind),
                    ..BuiltIn::default()
                },
                weights: Some(self.weights_path(prev.generation)),
                split: SplitOptions {
                    valid_fraction: s.valid_fraction,
                    seed: derive_seed(s.seed, generation, SALT_TUNE),
                    ..SplitOptions::default()
                },
                objective: ObjectiveOptions {
                    l2: Some(s.l2),
                    lambda: s.lambda,
                    smooth: s.smooth,
                    freeze: s.freeze.clone(),
                    ..ObjectiveOptions::default()
                },
                ..SetupOptions::default()
            },
            config: lbfgs_config(s.max_iters),
            resolve_every: 0,
            out: dir.join("tune"),
            append_log: false,
            l2_path: None,
            emit: Vec::new(),
            polish_passes: texel::finish::POLISH_PASSES,
        };
        (window, job)
    }
}

/// L-BFGS for at most `max_iters` iterations with the rules of every tuning command (its
/// stopping, solvers and selection of the kept iterate), silent: a generation's tuning run.
pub(crate) fn lbfgs_config(max_iters: u64) -> RunConfig {
    RunConfig {
        method: optim::Method::Lbfgs,
        budget: Budget::iterations(max_iters),
        stopping: optim::Stopping::default(),
        solvers: SolverOptions::default(),
        // The same rule as every tuning command: the latest iterate within the noise.
        selection: optim::Selection::default(),
        log: None,
        progress: tapered::Progress::none(),
        names: Vec::new(),
    }
}
