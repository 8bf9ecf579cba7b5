//! The closed loop for any UCI engine (`tune loop`): [`crate::run`]'s generations, with an
//! external engine playing, evaluating and being tuned in its own terms.
//!
//! Generation 0 is the engine's manifest with its start values (`gen000/weights.json`). Each
//! generation then
//!
//! 1. **self-play**: the engine plays itself with the current weights (every weight sent as a
//!    UCI `spin` option), at a fixed node count, from random (or book) openings; the quiet
//!    positions are kept with the result and the engine's search score
//!    ([`engine::play::selfplay`]): `genNNN/selfplay.epd`;
//! 2. **trace**: the positions of the last [`LoopSettings::window`] generations are traced by
//!    the engine with the current weights ([`engine::play::trace_run`]): `genNNN/traces.txt`;
//! 3. **tune**: L-BFGS from the current weights on those traces, the L2 pull centred on them
//!    and its strength chosen on the validation split (`tune lbfgs --trace --l2 auto`'s path):
//!    the candidate `genNNN/tune/weights-int.json` (the integers the engine plays);
//! 4. **gate**: the candidate against the current weights, both in the engine, paired
//!    openings, an SPRT judged between batches ([`crate::gate`]); the winner is copied to
//!    `genNNN/weights.json`, with its UCI options in `genNNN/options.txt`. An SPRT left
//!    undecided at the cap keeps the current weights (`--gate-undecided reject`, the default);
//! 5. **vs start**: a kept candidate against the start weights (generation 0's),
//!    `--vs-start-openings` openings without an SPRT, and `--vs-start-more` other openings
//!    once when those leave it undecided, judged as one match. If its whole interval lies
//!    below 0 the loop goes back to its answer (below) for the next generation.
//!
//! The loop's **answer** is the generation whose match against the start has the highest
//! lower end of its 95% interval, the start itself when none is above 0
//! ([`crate::gate::answer`]): never measured worse than the start. It is `OUT/best.json`
//! after every step, and the SPSA stage starts from it.
//!
//! `OUT/state.json` is written atomically after every step and `OUT/ladder.md` and
//! `OUT/ladder.svg` (the accepted gates' Elo added up, [`Chain`], and each kept generation
//! against the start) with it. A
//! rerun continues at the first step not done; every random choice comes from the seed and
//! the generation, and every search is a fixed node count, so an engine that is deterministic
//! at fixed nodes gives a continued loop the same generations as an uninterrupted one. An
//! engine that crashes, hangs or answers nonsense is restarted (a move asked again, a
//! position skipped), every failure counted in the state and reported; a game whose engine
//! failed twice on one move is forfeited and counted, its positions dropped.

mod calibration;
mod chain;
mod events;
mod gate;
mod ladder;
mod runner;
mod settings;
mod spsa;
pub mod state;
mod steps;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use calibration::calibrate_on_traces;
pub use chain::Chain;
pub use events::{LoopEvent, LoopOutcome};
pub use ladder::{ladder_markdown, ladder_svg};
use runner::Runner;
pub use settings::{
    LoopOptions, LoopSettings, GATE_OPENINGS, LAMBDA, VS_START_MORE, VS_START_OPENINGS,
};
pub use settings::{SpsaSettings, SpsaUnits, SPSA_C_EVAL, SPSA_C_WEIGHT};
use state::{LoopGeneration, LoopState, LoopStep, SpsaStage, LOOP_STATE_VERSION};

use crate::settings::json_differences;
use crate::{generation_dir, BootstrapError};

/// Runs (or continues) a loop. `on_event` hears of its progress; setting `stop` ends it
/// promptly, keeping every step done.
pub fn run_loop(
    opts: &LoopOptions,
    on_event: &(dyn Fn(LoopEvent<'_>) + Sync),
    stop: &Arc<AtomicBool>,
) -> Result<LoopOutcome, BootstrapError> {
    opts.settings.validate()?;
    if let Some(spsa) = &opts.spsa {
        spsa.validate()?;
    }
    let out = &opts.out;
    std::fs::create_dir_all(out).map_err(|e| BootstrapError::io("create", out, e))?;
    let runner = Runner {
        opts,
        on_event,
        stop,
    };
    let mut state = runner.start()?;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(LoopOutcome {
                state,
                interrupted: true,
            });
        }
        let Some(last) = state.generations.last() else {
            return Err(BootstrapError::Options("no generation 0".to_string()));
        };
        let Some(step) = last.next_step() else {
            if last.generation >= opts.generations {
                match runner.spsa_stage(&mut state)? {
                    None => {
                        // Finished: the answer, `best.json` and the ladder written again, so
                        // a loop finished by an earlier version reads as this one decides.
                        runner.save(&state)?;
                        return Ok(LoopOutcome {
                            state,
                            interrupted: false,
                        });
                    }
                    Some(false) => {
                        return Ok(LoopOutcome {
                            state,
                            interrupted: true,
                        })
                    }
                    Some(true) => continue,
                }
            }
            let next = LoopGeneration {
                generation: last.generation + 1,
                best: last.best,
                ..LoopGeneration::default()
            };
            state.generations.push(next);
            continue;
        };
        if !runner.step(&mut state, step)? {
            return Ok(LoopOutcome {
                state,
                interrupted: true,
            });
        }
        runner.save(&state)?;
        if let Some(g) = state.generations.last() {
            on_event(LoopEvent::StepDone(g));
        }
    }
}

impl Runner<'_> {
    /// Writes the state, then the loop's answer to `OUT/best.json`, then the ladder.
    fn save(&self, state: &LoopState) -> Result<(), BootstrapError> {
        state.write(&self.state_path())?;
        copy_file(&self.answer_path(state), &self.out().join("best.json"))?;
        ladder::write_ladder(self.out(), state)
    }

    /// The weights of the loop's answer: the SPSA stage's kept weights once its gate is
    /// played (its result if the gate accepted it, else the answer it started from), else
    /// the answer among the generations ([`LoopState::answer`]).
    fn answer_path(&self, state: &LoopState) -> std::path::PathBuf {
        match &state.spsa {
            Some(stage) if stage.gate.is_some() => self.spsa_dir().join("kept.json"),
            _ => self.weights_path(state.answer()),
        }
    }

    /// The state to continue, or a new one with generation 0 (the start manifest copied).
    fn start(&self) -> Result<LoopState, BootstrapError> {
        let settings = &self.opts.settings;
        let path = self.state_path();
        if path.is_file() {
            let state = LoopState::read(&path)?;
            if state.settings != *settings {
                return Err(BootstrapError::SettingsChanged {
                    path,
                    differences: json_differences(&state.settings, settings),
                });
            }
            self.check_spsa(&path, &state)?;
            let resumed = match (&state.spsa, state.generations.last()) {
                (Some(stage), _) => Some((stage.after, stage.next_step())),
                (None, Some(g)) => Some((g.generation, g.next_step())),
                (None, None) => None,
            };
            if let Some((generation, step)) = resumed {
                (self.on_event)(LoopEvent::Resumed { generation, step });
            }
            return Ok(state);
        }
        // The manifest must load (and name its weights) before anything is written.
        engine::play::trace_run::load_manifest(&settings.manifest)?;
        let dir = generation_dir(self.out(), 0);
        std::fs::create_dir_all(&dir).map_err(|e| BootstrapError::io("create", &dir, e))?;
        match &settings.discovered {
            Some(found) => {
                let to = self.weights_path(0);
                let ports = texel::discover::write_started(&settings.manifest, found, &to)?;
                let lines: Vec<String> = ports.iter().map(ToString::to_string).collect();
                (self.on_event)(LoopEvent::PortsStarted(&lines));
            }
            None => copy_file(&settings.manifest, &self.weights_path(0))?,
        }
        steps::write_options(&self.weights_path(0), &dir.join("options.txt"))?;
        let state = LoopState {
            version: LOOP_STATE_VERSION,
            kind: "loop".to_string(),
            settings: settings.clone(),
            generations: vec![LoopGeneration::default()],
            spsa: None,
        };
        self.save(&state)?;
        Ok(state)
    }

    /// The SPSA stage's next step after the last generation, if one is asked for and not
    /// done: `None` when there is nothing to do, else whether the step was done (and saved)
    /// or stopped.
    fn spsa_stage(&self, state: &mut LoopState) -> Result<Option<bool>, BootstrapError> {
        let Some(settings) = &self.opts.spsa else {
            return Ok(None);
        };
        let Some(last) = state.generations.last() else {
            return Ok(None);
        };
        // From the loop's answer (the generation measured best against the start), not from
        // the last gate's current weights, which may be an unmeasured or a reverted one.
        let (after, start) = (last.generation, state.answer());
        let stage = state.spsa.get_or_insert_with(|| SpsaStage {
            settings: settings.clone(),
            after,
            start,
            spsa: None,
            gate: None,
        });
        let Some(step) = stage.next_step() else {
            return Ok(None);
        };
        let dir = self.spsa_dir();
        std::fs::create_dir_all(&dir).map_err(|e| BootstrapError::io("create", &dir, e))?;
        let done = match step {
            LoopStep::Spsa => self.spsa(stage)?.map(|r| stage.spsa = Some(r)),
            _ => self.spsa_gate(stage)?.map(|r| stage.gate = Some(r)),
        };
        if done.is_none() {
            return Ok(Some(false));
        }
        self.save(state)?;
        if let Some(stage) = &state.spsa {
            (self.on_event)(LoopEvent::SpsaStepDone(stage));
        }
        Ok(Some(true))
    }

    /// Refuses to continue a loop whose SPSA stage has begun with more generations (they would
    /// not start from its result) or with other SPSA settings (or none while it is unfinished).
    fn check_spsa(&self, path: &Path, state: &LoopState) -> Result<(), BootstrapError> {
        let Some(stage) = &state.spsa else {
            return Ok(());
        };
        if self.opts.generations > stage.after {
            return Err(BootstrapError::Options(format!(
                "{}: the loop's SPSA stage followed generation {}, so it takes no more \
                 generations (they would not start from its result): start a new loop from \
                 {} (--manifest), or choose another --out",
                path.display(),
                stage.after,
                self.out().join("best.json").display()
            )));
        }
        match &self.opts.spsa {
            Some(s) if *s != stage.settings => Err(BootstrapError::SettingsChanged {
                path: path.to_path_buf(),
                differences: json_differences(&stage.settings, s),
            }),
            None if stage.next_step().is_some() => Err(BootstrapError::Options(format!(
                "{}: the loop's SPSA stage is under way: give its --spsa-iters (and other \
                 --spsa-* options) to continue it",
                path.display()
            ))),
            _ => Ok(()),
        }
    }

    /// Runs `step` of the last generation and stores its record; false if stopped.
    fn step(&self, state: &mut LoopState, step: LoopStep) -> Result<bool, BootstrapError> {
        let answer = state.answer();
        let Some(g) = state.generations.last_mut() else {
            return Ok(false);
        };
        let dir = generation_dir(self.out(), g.generation);
        std::fs::create_dir_all(&dir).map_err(|e| BootstrapError::io("create", &dir, e))?;
        let done = match step {
            LoopStep::SelfPlay => self.selfplay(g, &dir)?.map(|r| g.selfplay = Some(r)),
            LoopStep::Trace => self.trace(g, &dir)?.map(|r| g.trace = Some(r)),
            LoopStep::Tune => self.tune(g, &dir)?.map(|r| g.tuning = Some(r)),
            LoopStep::Gate => self.gate(g, &dir)?.map(|r| g.gate = Some(r)),
            LoopStep::VsStart => self
                .vs_start(g, &dir, answer)?
                .map(|r| g.vs_start = Some(r)),
            // Not steps of a generation: the stage after them (`spsa_stage`).
            LoopStep::Spsa | LoopStep::SpsaGate => None,
        };
        Ok(done.is_some())
    }

    /// Reports the failures of a step, if there were any.
    fn report_failures(&self, step: LoopStep, failures: &[String]) {
        if let Some(first) = failures.first() {
            (self.on_event)(LoopEvent::EngineFailures {
                step,
                count: failures.len(),
                first,
            });
        }
    }
}

/// Copies `from` to `to` atomically.
fn copy_file(from: &Path, to: &Path) -> Result<(), BootstrapError> {
    let bytes = std::fs::read(from).map_err(|e| BootstrapError::io("read", from, e))?;
    fsutil::atomic::write(to, &bytes).map_err(|e| BootstrapError::io("write", to, e))
}
