//! The gate step of a loop's generation: the candidate against the current weights, both in
//! the engine, and the weights kept.

use std::path::Path;
use std::sync::Arc;

use engine::matches::{run_match, MatchEvent, MatchPlan, MatchReport, SprtStop};
use engine::openings::RandomOpenings;
use engine::play::PlayOptions;
use engine::player::Player;
use engine::{MaterialEvaluator, SearchLimits};

use super::state::{LoopGate, LoopGeneration, LoopStep};
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
    /// The gate: `None` if stopped. Writes the kept weights to `dir/weights.json` (and
    /// `OUT/best.json`) and their options to `dir/options.txt`.
    pub(super) fn gate(
        &self,
        g: &mut LoopGeneration,
        dir: &Path,
    ) -> Result<Option<LoopGate>, BootstrapError> {
        let s = &self.opts.settings;
        let candidate_path = dir.join("tune").join("weights.json");
        let previous = g.best;
        let current_path = self.weights_path(previous);
        let candidate = self.player(&candidate_path)?;
        let current = self.player(&current_path)?;
        let plan = MatchPlan {
            openings: RandomOpenings {
                seed: derive_seed(s.seed, g.generation, SALT_GATE),
                plies: s.opening_plies,
                max_eval: s.opening_max_eval,
                mate_check_depth: None,
            }
            .openings(s.gate_openings, &MaterialEvaluator),
            options: PlayOptions::default()
                .limits(SearchLimits::nodes(s.gate_nodes))
                .stop(Arc::clone(self.stop)),
            sprt: Some(s.sprt()),
            sprt_stop: SprtStop::AfterEachBatch(s.gate_batch),
        };
        (self.on_event)(LoopEvent::Step {
            generation: g.generation,
            step: LoopStep::Gate,
            total: plan.openings.len() as u64 * 2,
        });
        let on_match = |e: MatchEvent<'_>| match e {
            MatchEvent::Game(_) => (self.on_event)(LoopEvent::Progress),
            MatchEvent::SprtDecided { pairs } => (self.on_event)(LoopEvent::SprtDecided { pairs }),
        };
        let report = play_match(&candidate, &current, &plan, &on_match);
        let mut failures = candidate.failures();
        failures.extend(current.failures());
        self.report_failures(LoopStep::Gate, &failures);
        if report.interrupted || self.stopped() {
            return Ok(None);
        }
        let (keep, reason) = decide(&s.sprt(), &report.result.pairs);
        let kept = match keep {
            Keep::New => {
                g.best = g.generation;
                &candidate_path
            }
            Keep::Old => &current_path,
        };
        copy_file(kept, &dir.join("weights.json"))?;
        copy_file(kept, &self.out().join("best.json"))?;
        write_options(kept, &dir.join("options.txt"))?;
        let gate = GateRecord {
            result: report.record(&format!("gen {previous}")),
            keep,
            reason,
        };
        Ok(Some(LoopGate {
            gate,
            engine_failures: failures.len(),
        }))
    }
}
