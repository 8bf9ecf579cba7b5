//! The matches of a loop's generation (and of its SPSA stage), both sides in the engine: the
//! gate (the candidate against the current weights, an SPRT between batches) and the kept
//! weights against the start (a fixed number of openings), and the weights each keeps.

use std::path::Path;
use std::sync::Arc;

use engine::play::elo::Sprt;
use engine::play::matches::{run_match, MatchEvent, MatchPlan, MatchReport, SprtStop};
use engine::play::openings::RandomOpenings;
use engine::play::player::Player;
use engine::MaterialEvaluator;

use super::spsa::SALT_SPSA_GATE;
use super::state::{LoopGate, LoopGeneration, LoopStep, LoopVsStart, SpsaStage};
use super::steps::write_options;
use super::{copy_file, LoopEvent, Runner};
use crate::gate::{below_start, decide, undecided_against_start, Keep};
use crate::state::GateRecord;
use crate::{derive_seed, BootstrapError, SALT_GATE};

/// The salt of the seed of a generation's match against the start.
const SALT_VS_START: u64 = 7;
/// The salt of the seed of its second part (other openings than the first part's).
const SALT_VS_START_MORE: u64 = 8;

/// The one place the loop calls into the match machinery of `engine::play::matches`: when its entry
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
    /// A match of `openings` random openings from `seed` at the gate's nodes or clock, judged
    /// by `sprt` between batches of the gate's size if there is one.
    fn plan(&self, openings: usize, seed: u64, sprt: Option<Sprt>) -> MatchPlan {
        let s = &self.opts.settings;
        MatchPlan {
            openings: RandomOpenings {
                seed,
                plies: s.opening_plies,
                max_eval: s.opening_max_eval,
                mate_check_depth: None,
            }
            .openings(openings, &MaterialEvaluator),
            options: s.gate_options().stop(Arc::clone(self.stop)),
            sprt,
            sprt_stop: match sprt {
                Some(_) => SprtStop::AfterEachBatch(s.gate_batch),
                None => SprtStop::Never,
            },
        }
    }

    /// Plays the weights of `a` against those of `b` (manifests with values), both in the
    /// engine, as `plan` says, announced as `step` of `generation`: the report and the engine
    /// failures, `None` if stopped.
    fn play(
        &self,
        (a, b): (&Path, &Path),
        plan: &MatchPlan,
        (generation, step): (u32, LoopStep),
    ) -> Result<Option<(MatchReport, usize)>, BootstrapError> {
        let (a, b) = (self.player(a)?, self.player(b)?);
        (self.on_event)(LoopEvent::Step {
            generation,
            step,
            total: plan.openings.len() as u64 * 2,
        });
        let on_match = |e: MatchEvent<'_>| match e {
            MatchEvent::Game(_) => (self.on_event)(LoopEvent::Progress),
            MatchEvent::SprtDecided { pairs } => (self.on_event)(LoopEvent::SprtDecided { pairs }),
        };
        let report = play_match(&a, &b, plan, &on_match);
        let mut failures = a.failures();
        failures.extend(b.failures());
        self.report_failures(step, &failures);
        if report.interrupted || self.stopped() {
            return Ok(None);
        }
        Ok(Some((report, failures.len())))
    }

    /// The gate's decision on `report` (the candidate first, against `opponent`), and the
    /// kept weights (`candidate` or `current`) copied to `weights`, their options written to
    /// `options`.
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
        write_options(kept, options)?;
        Ok(GateRecord {
            result: report.record(opponent),
            keep,
            reason,
        })
    }

    /// The gate: `None` if stopped. Writes the kept weights to `dir/weights.json` and their
    /// options to `dir/options.txt`.
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
        let plan = self.plan(s.gate_openings, seed, Some(s.sprt));
        let Some((report, failures)) = self.play(
            (&candidate, &current),
            &plan,
            (g.generation, LoopStep::Gate),
        )?
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

    /// The kept candidate of generation `g` against the start weights, `vs_start_openings`
    /// openings without an SPRT, and `vs_start_more` other openings after them when the
    /// first ones leave it undecided ([`undecided_against_start`]), judged as one match:
    /// `None` if stopped. When the whole interval lies below 0 the loop goes back to `answer`
    /// (the answer among the generations before): `g.best` becomes it, and its weights and
    /// options are copied to `dir`.
    pub(super) fn vs_start(
        &self,
        g: &mut LoopGeneration,
        dir: &Path,
        answer: u32,
    ) -> Result<Option<LoopVsStart>, BootstrapError> {
        let s = &self.opts.settings;
        let (kept, start) = (self.weights_path(g.generation), self.weights_path(0));
        let seed = derive_seed(s.seed, g.generation, SALT_VS_START);
        let plan = self.plan(s.vs_start_openings, seed, None);
        let Some((mut report, mut failures)) =
            self.play((&kept, &start), &plan, (g.generation, LoopStep::VsStart))?
        else {
            return Ok(None);
        };
        if s.vs_start_more > 0 && undecided_against_start(report.pentanomial.as_ref()) {
            let seed = derive_seed(s.seed, g.generation, SALT_VS_START_MORE);
            let plan = self.plan(s.vs_start_more, seed, None);
            let Some((more, more_failures)) =
                self.play((&kept, &start), &plan, (g.generation, LoopStep::VsStart))?
            else {
                return Ok(None);
            };
            report = report.followed_by(more);
            failures += more_failures;
        }
        let reverted = below_start(report.pentanomial.as_ref());
        if reverted {
            g.best = answer;
            let back = self.weights_path(answer);
            copy_file(&back, &dir.join("weights.json"))?;
            write_options(&back, &dir.join("options.txt"))?;
        }
        Ok(Some(LoopVsStart {
            result: report.record("gen 0"),
            engine_failures: failures,
            reverted,
        }))
    }

    /// The SPSA stage's gate: its result against the weights it started from, the kept ones
    /// written to `OUT/spsa/kept.json` and their options to `OUT/spsa/options.txt`. `None` if
    /// stopped.
    pub(super) fn spsa_gate(&self, stage: &SpsaStage) -> Result<Option<LoopGate>, BootstrapError> {
        let s = &self.opts.settings;
        let dir = self.spsa_dir();
        let candidate = dir.join("weights.json");
        let current = self.weights_path(stage.start);
        let seed = derive_seed(s.seed, stage.after, SALT_SPSA_GATE);
        let plan = self.plan(s.gate_openings, seed, Some(s.sprt));
        let Some((report, failures)) = self.play(
            (&candidate, &current),
            &plan,
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
