//! The loop's optional last stage (`tune loop --spsa-iters N`): SPSA over the engine's spin
//! options from the best weights after the last generation ([`engine::spsa`], as `tune spsa
//! uci:ENGINE --manifest OUT/best.json` runs it), then a gate of its result against those
//! weights, kept only if accepted.
//!
//! Its perturbations are in evaluation units unless the settings say otherwise: calibrated
//! on the last generation's traces when the stage begins (`calibration.rs`).
//!
//! Its files are under `OUT/spsa/`: `calibration.json` (each coordinate's activity and
//! perturbation, with `--spsa-units eval`), `progress.json` (the SPSA state after every iteration, so
//! an interrupted stage continues at its next iteration), `weights.json` (the SPSA point, a
//! manifest with values), `kept.json` and `options.txt` (the weights kept by its gate). Its
//! record is `spsa` in `OUT/state.json`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::play::openings::RandomOpenings;
use engine::play::trace_run::load_manifest;
use engine::spsa::{
    run_spsa, Basis, BasisKind, OpeningSource, SpsaEnd, SpsaEvent, SpsaPlan, Subject,
};
use engine::spsa::{Gains, Spsa, SpsaState};

use super::events::LoopEvent;
use super::runner::Runner;
use super::settings::{SpsaSettings, SpsaUnits};
use super::state::{LoopStep, SpsaRecord, SpsaStage};
use crate::state::write_json;
use crate::{derive_seed, BootstrapError};

/// Seeds of the stage's games (other uses than the generations' [`crate::SALT_GATE`] and kin).
const SALT_SPSA: u64 = 5;
/// Seed of the stage's gate openings.
pub(super) const SALT_SPSA_GATE: u64 = 6;

/// The stage's directory under `OUT`.
pub(super) const SPSA_DIR: &str = "spsa";
/// The SPSA state, written after every iteration.
pub(super) const PROGRESS: &str = "progress.json";

impl SpsaSettings {
    /// The coordinates over `tunables`, cut to `only`; none is an error.
    fn basis(&self, tunables: &[engine::spsa::Tunable]) -> Result<Basis, BootstrapError> {
        let kind = match self.basis.as_str() {
            "each" => BasisKind::Each,
            _ => BasisKind::Tables,
        };
        let mut basis = Basis::new(kind, tunables, self.c, kind == BasisKind::Tables);
        if !self.only.is_empty() {
            basis
                .directions
                .retain(|d| self.only.iter().any(|g| fsutil::glob_match(g, &d.name)));
        }
        if basis.is_empty() {
            return Err(BootstrapError::Options(format!(
                "SPSA: no coordinate to tune (--spsa-only {} matches none)",
                self.only.join(" ")
            )));
        }
        Ok(basis)
    }
}

/// The SPSA state to continue from `path`, or a new one at the start.
fn read_progress(path: &Path, dim: usize) -> Result<SpsaState, BootstrapError> {
    if !path.is_file() {
        return Ok(SpsaState::new(vec![0.0; dim]));
    }
    let text = std::fs::read_to_string(path).map_err(|e| BootstrapError::io("read", path, e))?;
    let state: SpsaState = serde_json::from_str(&text).map_err(|source| BootstrapError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    if state.x.len() != dim {
        return Err(BootstrapError::Options(format!(
            "{}: {} coordinates, the stage has {dim}: remove the file to start the stage again",
            path.display(),
            state.x.len()
        )));
    }
    Ok(state)
}

impl Runner<'_> {
    /// The stage's directory.
    pub(super) fn spsa_dir(&self) -> PathBuf {
        self.out().join(SPSA_DIR)
    }

    /// The stage's plan over `basis`: Spall's gains for its iterations, its perturbations and
    /// openings from the loop's seed, its games played as the gate's (and stopped by its flag).
    fn spsa_plan(&self, stage: &SpsaStage, basis: Basis) -> Result<SpsaPlan, BootstrapError> {
        let s = &self.opts.settings;
        let seed = derive_seed(s.seed, stage.after, SALT_SPSA);
        let scales = basis.directions.iter().map(|d| d.c).collect();
        let bounds = basis.directions.iter().map(|d| d.bounds).collect();
        let gains = Gains::for_iterations(stage.settings.iterations);
        let spsa = Spsa::bounded(gains, scales, bounds, seed)
            .map_err(|e| BootstrapError::Options(format!("SPSA: {e}")))?;
        Ok(SpsaPlan {
            spsa,
            basis,
            iterations: stage.settings.iterations,
            pairs: stage.settings.pairs,
            openings: OpeningSource::Random(RandomOpenings {
                seed,
                plies: s.opening_plies,
                max_eval: s.opening_max_eval,
                mate_check_depth: None,
            }),
            options: s.gate_options().interrupt(Arc::clone(self.stop)),
        })
    }

    /// Runs (or continues) SPSA from the stage's start weights: `None` if stopped.
    pub(super) fn spsa(&self, stage: &SpsaStage) -> Result<Option<SpsaRecord>, BootstrapError> {
        let s = &self.opts.settings;
        let sp = &stage.settings;
        let dir = self.spsa_dir();
        let start = load_manifest(&self.weights_path(stage.start))?;
        let subject =
            Subject::uci_manifest(&s.engine, s.uci_setup(), &start.manifest, self.opts.timeout)?;
        let tunables = subject.tunables();
        let mut basis = sp.basis(&tunables)?;
        if sp.units == SpsaUnits::Eval {
            self.calibrate(stage, &mut basis, &tunables, &start)?;
        }
        let plan = self.spsa_plan(stage, basis)?;
        let progress = dir.join(PROGRESS);
        let mut state = read_progress(&progress, plan.spsa.dim())?;
        (self.on_event)(LoopEvent::Step {
            generation: stage.after,
            step: LoopStep::Spsa,
            total: sp.iterations,
        });
        for _ in 0..state.iteration {
            (self.on_event)(LoopEvent::Progress);
        }
        let on_event = |e: SpsaEvent<'_>| {
            if let SpsaEvent::Iteration { .. } = e {
                (self.on_event)(LoopEvent::Progress);
            }
        };
        let weights = dir.join("weights.json");
        let mut checkpoint = |st: &SpsaState| -> Result<(), engine::EngineError> {
            // The tuned (not frozen) weights, in order, set to the point, rounded as the
            // engine is sent them; the frozen keep their values.
            let point = plan.basis.weights(&tunables, &st.x);
            let mut tuned = point.iter();
            let values: Vec<f64> = (start.manifest.weights().iter())
                .map(|w| match w.frozen {
                    true => w.init,
                    false => tuned.next().map_or(w.init, |v| v.round()),
                })
                .collect();
            let text = serde_json::to_string_pretty(&start.manifest.to_json_with(&values))
                .unwrap_or_default()
                + "\n";
            fsutil::atomic::write(&weights, text.as_bytes())
                .map_err(|e| engine::EngineError::io("write", &weights, e))?;
            write_json(&progress, st).map_err(|e| engine::EngineError::Options(e.to_string()))
        };
        if !weights.is_file() {
            checkpoint(&state)?;
        }
        let end = run_spsa(&subject, &plan, &mut state, &on_event, &mut checkpoint)?;
        if end == SpsaEnd::Interrupted || self.stopped() {
            return Ok(None);
        }
        Ok(Some(SpsaRecord {
            iterations: state.iteration,
            games: state.iteration * sp.pairs as u64 * 2,
            coordinates: plan.basis.len(),
            tunables: tunables.len(),
            mean_result: state.recent_mean(usize::MAX),
        }))
    }
}
