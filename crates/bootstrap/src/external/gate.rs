//! The gate step of a loop's generation (and of its SPSA stage): the candidate against the
//! current weights, both in the engine, and the weights kept.

use std::path::Path;
use std::sync::Arc;

use engine::matches::{run_match, MatchEvent, MatchPlan, MatchReport, SprtStop};
use engine::openings::RandomOpenings;
use engine::player::Player;
use engine::MaterialEvaluator;

use super::spsa::SALT_SPSA_GATE;
use super::state::{LoopGate, LoopGeneration, LoopStep, SpsaStage};
use super::steps::write_options;
use super::{copy_file, LoopEvent, Runner};
use crate::gate::{decide, Keep};
use crate::state::GateRecord;
use crate::{derive_seed, BootstrapError, SALT_GATE};

/// The one place the loop calls into the match machinery of `engine::matches`: when its entry
/// points change, only this function changes.
fn play_match(
    a: &dyn Player,
    b: &dyn Player,
    plan: &MatchPlan,
    on_event: &(dyn Fn(MatchEvent<'_>) + Sync),
) -> MatchReport {
    run_match(a, b, plan, on_event)
}

impl Runner<'_> {
    /// Plays the weights of `candidate` against those of `current` (manifests with values),
    /// both in the engine, on the gate's openings from `seed`, announced as `step` of
    /// `generation`: the report and the engine failures, `None` if stopped.
    fn gate_match(
        &self,
        candidate: &Path,
        current: &Path,
        seed: u64,
        (generation, step): (u32, LoopStep),
    ) -> Result<Option<(MatchReport, usize)>, BootstrapError> {
        let s = &self.opts.settings;
        let (candidate, current) = (self.player(candidate)?, self.player(current)?);
        let plan = MatchPlan {
            openings: RandomOpenings {
                seed,
                plies: s.opening_plies,
                max_eval: s.opening_max_eval,
                mate_check_depth: None,
            }
            .openings(s.gate_openings, &MaterialEvaluator),
            options: s.gate_options().stop(Arc::clone(self.stop)),
            sprt: Some(s.sprt),
            sprt_stop: SprtStop::AfterEachBatch(s.gate_batch),
        };
        (self.on_event)(LoopEvent::Step {
            generation,
            step,
            total: plan.openings.len() as u64 * 2,
        });
        let on_match = |e: MatchEvent<'_>| match e {
            MatchEvent::Game(_) => (self.on_event)(LoopEvent::Progress),
            MatchEvent::SprtDecided { pairs } => (self.on_event)(LoopEvent::SprtDecided { pairs }),
        };
        let report = play_match(&candidate, &current, &plan, &on_match);
        let mut failures = candidate.failures();
        failures.extend(current.failures());
        self.report_failures(step, &failures);
        if report.interrupted || self.stopped() {
            return Ok(None);
        }
        Ok(Some((report, failures.len())))
    }

    /// The gate's decision on `report` (the candidate first, against `opponent`), and the
    /// kept weights (`candidate` or `current`) copied to `weights` and `OUT/best.json`, their
    /// options written to `options`.
    fn keep(
        &self,
        report: &MatchReport,
        opponent: &str,
        (candidate, current): (&Path, &Path),
        (weights, options): (&Path, &Path),
    ) -> Result<GateRecord, BootstrapError> {
        let (keep, reason) = decide(
            &self.opts.settings.sprt,
            self.opts.settings.undecided,
            &report.result.pairs,
        );
        let kept = match keep {
            Keep::New => candidate,
            Keep::Old => current,
        };
        copy_file(kept, weights)?;
        copy_file(kept, &self.out().join("best.json"))?;
        write_options(kept, options)?;
        Ok(GateRecord {
            result: report.record(opponent),
            keep,
            reason,
        })
    }

    /// The gate: `None` if stopped. Writes the kept weights to `dir/weights.json` (and
    /// `OUT/best.json`) and their options to `dir/options.txt`.
    pub(super) fn gate(
        &self,
        g: &mut LoopGeneration,
        dir: &Path,
    ) -> Result<Option<LoopGate>, BootstrapError> {
        let s = &self.opts.settings;
        // The integer weights (rounded, polished): what the engine plays, so the next
        // generation's traces, made with them, verify against them and its tuning starts from
        // them. The unrounded `weights.json` is not what the engine plays.
        let candidate = dir.join("tune").join("weights-int.json");
        let current = self.weights_path(g.best);
        let seed = derive_seed(s.seed, g.generation, SALT_GATE);
        let Some((report, failures)) =
            self.gate_match(&candidate, &current, seed, (g.generation, LoopStep::Gate))?
        else {
            return Ok(None);
        };
        let gate = self.keep(
            &report,
            &format!("gen {}", g.best),
            (&candidate, &current),
            (&dir.join("weights.json"), &dir.join("options.txt")),
        )?;
        if gate.keep == Keep::New {
            g.best = g.generation;
        }
        Ok(Some(LoopGate {
            gate,
            engine_failures: failures,
        }))
    }

    /// The SPSA stage's gate: its result against the weights it started from, the kept ones
    /// written to `OUT/spsa/kept.json` (and `OUT/best.json`) and their options to
    /// `OUT/spsa/options.txt`. `None` if stopped.
    pub(super) fn spsa_gate(&self, stage: &SpsaStage) -> Result<Option<LoopGate>, BootstrapError> {
        let dir = self.spsa_dir();
        let candidate = dir.join("weights.json");
        let current = self.weights_path(stage.start);
        let seed = derive_seed(self.opts.settings.seed, stage.after, SALT_SPSA_GATE);
        let Some((report, failures)) = self.gate_match(
            &candidate,
            &current,
            seed,
            (stage.after, LoopStep::SpsaGate),
        )?
        else {
            return Ok(None);
        };
        let gate = self.keep(
            &report,
            &format!("gen {}", stage.start),
            (&candidate, &current),
            (&dir.join("kept.json"), &dir.join("options.txt")),
        )?;
        Ok(Some(LoopGate {
            gate,
            engine_failures: failures,
        }))
    }
}
