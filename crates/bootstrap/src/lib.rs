//! `bootstrap`: Texel's "your own games suffice", done automatically.
//!
//! Generation 0 is a set of start weights (a model's defaults, or a file). Each generation
//! then
//!
//! 1. plays self-play games with the current best weights ([`engine::play::datagen`]), and with
//!    [`Settings::pool`] also games against earlier bests, and writes them to
//!    `OUT/genNNN/data.gtc.zst`;
//! 2. tunes, with L-BFGS from the current best weights, on the data of the last
//!    [`Settings::window`] generations, the same way `tune lbfgs` does ([`texel::job::tune`],
//!    files in `OUT/genNNN/tune/`);
//! 3. plays the tuned candidate against the current best with an SPRT gate
//!    ([`engine::play::matches::run_match`], judged between batches of openings so the result does
//!    not depend on timing) and keeps the winner by the rule in [`gate`];
//! 4. plays the kept weights against generation 0's (and a reference's) on a fixed set of
//!    openings: the Elo ladder ([`ladder`]: `OUT/ladder.{json,md,svg}`).
//!
//! `OUT/genNNN/` holds the data, the kept `weights.json`, and `generation.json` (the
//! generation's record: data, tuning, gate and ladder matches). `OUT/state.json` holds the
//! settings and every finished generation ([`state`]); running [`run`] again on the same
//! directory continues after the last finished generation, and a generation interrupted half
//! way is redone from its start. Every random choice comes from [`Settings::seed`] and the
//! generation's number ([`derive_seed`]) and every search is a fixed number of nodes, so a
//! continued bootstrap gives the same generations as an uninterrupted one.
//!
//! The library knows nothing of the command line or of progress bars: it reports through an
//! [`Event`] callback, and stops when a flag is set (Ctrl-C in `tune bootstrap`).
//!
//! # Design
//!
//! **How it works.** `run` (`lib.rs`) loops over generations; each step is a call into the crate
//! that owns it: `engine::play::datagen::generate_pooled` (self-play, and with `Settings::pool` games
//! against the kept weights of the most recent earlier bests, `pool_members`), `texel::job::tune`
//! (the tuning run, exactly `tune lbfgs`'s path), `engine::play::matches::run_match` (gate, SPRT judged
//! between batches of openings; ladder). `gate.rs` is the decision as a pure function of the pair
//! counts: H1 keeps the candidate, H0 the best, inconclusive at the cap goes by the sign of the Elo
//! estimate (a tie keeps the best). `state.rs` is `OUT/state.json` (settings and finished
//! generations), `ladder.rs` writes `ladder.json`, `ladder.md` and `ladder.svg`; `plot.rs` draws an
//! Elo ladder as SVG (plotters: a line per series, intervals as bars) for both loops. Both play on
//! a fixed node count or on a clock (`settings::ClockSettings`, `settings::play_options`). Progress
//! goes out through an `Event` callback; a stop flag (Ctrl-C) ends it promptly.
//!
//! `external/` is the same loop for an external engine (`tune loop`, docs/loop.md): a generation is
//! four steps, self-play (`engine::play::selfplay`), trace (`engine::play::trace_run`, the engine given the
//! current weights in its handshake), tune (`texel::job::tune_as::<Traced>`, `tune lbfgs --trace
//! --l2 auto`'s job, through the shared `tuning::lbfgs_config`) and gate (`run_match`, its one call
//! in `external/gate.rs`, decided by `gate::decide`); `external/state.rs` records each step as it
//! is done and `OUT/state.json` is written after every step, so a rerun continues at the first step
//! not done. `external/ladder.rs` writes `ladder.md` and `ladder.svg` with the accepted gates' Elo
//! added up (`external/chain.rs`: the sum and its interval, the gates' variances added).
//! `external/spsa.rs` is the optional last stage (`--spsa-iters`): `engine::spsa::run_spsa` over
//! the engine's manifest as a `Subject::uci_manifest` from the best weights, its perturbations
//! in evaluation units by default (`external/calibration.rs`: each coordinate's activity on the
//! last generation's traces, `texel::traced::trace_activity`, then `Basis::calibrate`, recorded in
//! `OUT/spsa/calibration.json` before the first iteration and reused on resumption), checkpointed to
//! `OUT/spsa/progress.json` after every iteration, then gated against them by the same `gate_match`
//! as a generation's candidate; it is `spsa` in the state, its settings its own
//! (`LoopOptions::spsa`, not `LoopSettings`), so a finished loop may be given one. The weights are
//! manifests with values (the engine's names), never a built-in model.
//!
//!
//! tuned). The blend's default depends on the model (`settings::default_lambda`: 0.5 for `psqt`, 0
//! for `full`, chosen by play in `experiments/labels-smoothness.md` and `experiments/threats.md`);
//! the command line resolves it and the state records the value, so a ladder started under the old
//! default continues only with its `--lambda` given. `Settings::freeze` goes to each tuning run as
//! `tune lbfgs --freeze` does, and `Settings::validate` refuses a pattern that holds no parameter
//! of the model (by the tuning runs' own rule, `optim::free_indices`) before any game is played. A
//! generation's `DataRecord` names the generations its best played besides itself.
//!
//! **Invariants.**
//! - A generation is saved (its directory complete, then `state.json` written atomically: temp
//!   file and rename, then the ladder) only when finished; a rerun on the same `OUT` continues
//!   after the last saved generation, clearing and redoing a half-done one, and refuses to
//!   continue with other settings (naming the differences).
//! - Every random choice derives from the seed and the generation number, every search is a fixed
//!   number of nodes, self-play and matches are independent of the thread count and the gate's
//!   SPRT is judged between batches: a continued bootstrap gives the ladder of an uninterrupted
//!   one (tested). The tuning losses may differ in the last bits (parallel sums).
//! - When the gate keeps the old weights, the ladder's matches are carried over, not replayed
//!   (the same weights at fixed nodes play the same games).
//! - Library code returns `BootstrapError` (with sources); no panics on user input or I/O.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod error;
mod events;
pub mod external;
pub mod gate;
pub mod ladder;
pub mod plot;
pub mod settings;
pub mod state;
mod tuning;
pub mod verify;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use engine::play::datagen::{generate_pooled, DatagenOptions};
use engine::play::matches::{run_match, MatchEvent, MatchPlan, MatchRecord, MatchReport, SprtStop};
use engine::play::openings::RandomOpenings;
use engine::ModelEvaluator;
use optim::Control;

pub use error::BootstrapError;
pub use events::{Event, Outcome, Stage};
use gate::Keep;
pub use settings::{Options, Settings};
use state::{write_json, DataRecord, GateRecord, Generation, State, TuningRecord};

/// Salts of [`derive_seed`], one per use.
const SALT_DATA: u64 = 1;
const SALT_TUNE: u64 = 2;
const SALT_GATE: u64 = 3;
const SALT_LADDER: u64 = 4;

/// The seed of one use (`salt`) in one generation, from the master seed (SplitMix64 of the
/// three): distinct for every generation and use, and the same on every run.
///
/// ```
/// use bootstrap::derive_seed;
/// assert_eq!(derive_seed(1, 2, 3), derive_seed(1, 2, 3));
/// assert_ne!(derive_seed(1, 2, 3), derive_seed(1, 3, 3));
/// ```
pub fn derive_seed(seed: u64, generation: u32, salt: u64) -> u64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(mix(mix(seed) ^ u64::from(generation)) ^ salt)
}

/// The pool of [`Settings::pool`] after the finished generations `done`: the `pool` most
/// recent bests before the current one (the last generation's), oldest first.
///
/// ```
/// use bootstrap::pool_members;
/// use bootstrap::state::Generation;
/// let g = |generation, best| Generation {
///     generation, best, data: None, tuning: None, gate: None, vs_start: None, vs_reference: None,
/// };
/// // bests along the ladder: 0, 1, 1, 3, 4; the current best is 4
/// let done = [g(0, 0), g(1, 1), g(2, 1), g(3, 3), g(4, 4)];
/// assert_eq!(pool_members(&done, 2), [1, 3]);
/// assert_eq!(pool_members(&done, 9), [0, 1, 3]);
/// assert!(pool_members(&done, 0).is_empty());
/// ```
pub fn pool_members(done: &[Generation], pool: u32) -> Vec<u32> {
    let current = done.last().map(|g| g.best);
    let mut bests: Vec<u32> = Vec::new();
    for g in done {
        if Some(g.best) != current && !bests.contains(&g.best) {
            bests.push(g.best);
        }
    }
    let skip = bests.len().saturating_sub(pool as usize);
    bests.split_off(skip)
}

/// `OUT/genNNN`.
pub fn generation_dir(out: &Path, generation: u32) -> PathBuf {
    out.join(format!("gen{generation:03}"))
}

/// Runs (or continues) a bootstrap. `on_event` hears of its progress; setting `stop` ends it
/// promptly (the games and the tuning iteration under way finish) keeping every finished
/// generation.
pub fn run(
    opts: &Options,
    on_event: &(dyn Fn(Event<'_>) + Sync),
    stop: &Arc<AtomicBool>,
) -> Result<Outcome, BootstrapError> {
    let settings = &opts.settings;
    settings.validate()?;
    let out = &opts.out;
    std::fs::create_dir_all(out).map_err(|e| BootstrapError::io("create", out, e))?;
    let state_path = out.join("state.json");
    let reference = match &settings.reference {
        Some(p) => Some(ModelEvaluator::load(p)?),
        None => None,
    };
    let reference_name = settings.reference.as_ref().map(|p| reference_label(p));
    let runner = Runner {
        settings,
        out,
        on_event,
        stop,
        reference: reference.as_ref(),
        reference_name: reference_name.as_deref(),
    };
    let mut state = if state_path.is_file() {
        let state = State::read(&state_path)?;
        if state.settings != *settings {
            return Err(BootstrapError::SettingsChanged {
                path: state_path,
                differences: state.settings.differences(settings),
            });
        }
        let finished = state.generations.last().map_or(0, |g| g.generation);
        on_event(Event::Resumed { finished });
        state
    } else {
        let Some(g0) = runner.generation_zero()? else {
            return Ok(Outcome {
                state: State {
                    version: state::STATE_VERSION,
                    settings: settings.clone(),
                    generations: Vec::new(),
                },
                interrupted: true,
            });
        };
        let state = State {
            version: state::STATE_VERSION,
            settings: settings.clone(),
            generations: vec![g0],
        };
        runner.save(&state)?;
        state
    };
    let mut interrupted = false;
    let first = state.generations.len() as u32;
    for generation in first..=opts.generations {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        on_event(Event::Generation {
            generation,
            last: opts.generations,
        });
        match runner.generation(&state.generations, generation)? {
            Some(g) => {
                state.generations.push(g);
                runner.save(&state)?;
                if let Some(g) = state.generations.last() {
                    on_event(Event::Finished(g));
                }
            }
            None => {
                interrupted = true;
                break;
            }
        }
    }
    Ok(Outcome { state, interrupted })
}

/// How the reference is named in the ladder: its file name.
fn reference_label(p: &Path) -> String {
    p.file_stem().map_or_else(
        || p.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// The fixed parts of a running bootstrap.
struct Runner<'a> {
    settings: &'a Settings,
    out: &'a Path,
    on_event: &'a (dyn Fn(Event<'_>) + Sync),
    stop: &'a Arc<AtomicBool>,
    reference: Option<&'a ModelEvaluator>,
    reference_name: Option<&'a str>,
}

impl Runner<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Writes the state, then the ladder.
    fn save(&self, state: &State) -> Result<(), BootstrapError> {
        state.write(&self.out.join("state.json"))?;
        ladder::write(self.out, &state.generations, self.reference_name)
    }

    /// A fresh `genNNN` directory (an unfinished one is cleared: it is redone from its start).
    fn fresh_dir(&self, generation: u32) -> Result<PathBuf, BootstrapError> {
        let dir = generation_dir(self.out, generation);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| BootstrapError::io("remove", &dir, e))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| BootstrapError::io("create", &dir, e))?;
        Ok(dir)
    }

    fn weights_path(&self, generation: u32) -> PathBuf {
        generation_dir(self.out, generation).join("weights.json")
    }

    /// The kept weights of a finished generation.
    fn weights(&self, generation: u32) -> Result<ModelEvaluator, BootstrapError> {
        Ok(ModelEvaluator::load(&self.weights_path(generation))?)
    }

    /// Generation 0: the start weights, and the ladder's match against the reference.
    fn generation_zero(&self) -> Result<Option<Generation>, BootstrapError> {
        let kind: eval::ModelKind = self
            .settings
            .model
            .parse()
            .map_err(|e| BootstrapError::Options(format!("{e}")))?;
        let (model, weights) = match &self.settings.weights {
            // psqt weights start a full ladder, carried over by name.
            Some(p) => eval::load_weights_as(p, kind)?,
            None => {
                let m = eval::Model::new(kind);
                let w = m.default_weights();
                (m, w)
            }
        };
        let dir = self.fresh_dir(0)?;
        eval::save_weights(&dir.join("weights.json"), &model, &weights)?;
        let start = ModelEvaluator::new(model, weights)?;
        let mut g = Generation {
            generation: 0,
            best: 0,
            data: None,
            tuning: None,
            gate: None,
            vs_start: None,
            vs_reference: None,
        };
        if let (Some(r), Some(name)) = (self.reference, self.reference_name) {
            let Some(m) = self.ladder_match(&start, r, name, Stage::LadderReference) else {
                return Ok(None);
            };
            g.vs_reference = Some(m);
        }
        write_json(&dir.join("generation.json"), &g)?;
        Ok(Some(g))
    }

    /// One ladder match of `kept` against `opponent`: `None` if stopped.
    fn ladder_match(
        &self,
        kept: &ModelEvaluator,
        opponent: &ModelEvaluator,
        name: &str,
        stage: Stage,
    ) -> Option<MatchRecord> {
        let s = self.settings;
        let plan = MatchPlan {
            openings: self.openings(derive_seed(s.seed, 0, SALT_LADDER), s.ladder_openings),
            options: s.play(s.ladder_nodes),
            sprt: None,
            sprt_stop: SprtStop::Never,
        };
        let report = self.play(kept, opponent, &plan, stage)?;
        Some(report.record(name))
    }

    /// Balanced random openings, judged by the material-only evaluation (so they do not
    /// depend on the players).
    fn openings(&self, seed: u64, n: usize) -> Vec<engine::play::openings::Opening> {
        RandomOpenings {
            seed,
            plies: self.settings.opening_plies,
            max_eval: 100.0,
            mate_check_depth: None,
        }
        .openings(n, &ModelEvaluator::default_material())
    }

    /// Plays a match, reporting its games: `None` if stopped.
    fn play(
        &self,
        a: &ModelEvaluator,
        b: &ModelEvaluator,
        plan: &MatchPlan,
        stage: Stage,
    ) -> Option<MatchReport> {
        (self.on_event)(Event::Stage {
            stage,
            games: plan.openings.len() as u64 * 2,
        });
        let on_match = |e: MatchEvent<'_>| match e {
            MatchEvent::Game(_) => (self.on_event)(Event::Game),
            MatchEvent::SprtDecided { pairs } => (self.on_event)(Event::SprtDecided { pairs }),
        };
        let plan = MatchPlan {
            options: plan.options.clone().interrupt(self.stop.clone()),
            ..plan.clone()
        };
        let report = run_match(a, b, &plan, &on_match);
        (!report.interrupted && !self.stopped()).then_some(report)
    }

    /// Generation `generation` (≥ 1) after the finished `done`: `None` if stopped.
    fn generation(
        &self,
        done: &[Generation],
        generation: u32,
    ) -> Result<Option<Generation>, BootstrapError> {
        let Some(prev) = done.last() else {
            return Err(BootstrapError::Options("no generation 0".to_string()));
        };
        let dir = self.fresh_dir(generation)?;
        let best = self.weights(prev.generation)?;
        // 1. Self-play with the current best (and games against the pool of earlier bests).
        let Some(data) = self.self_play(done, generation, &best, &dir)? else {
            return Ok(None);
        };
        // 2. Tune from the current best on the window's data.
        let Some((tuning, candidate)) = self.tuned(done, prev, generation, &dir, &best)? else {
            return Ok(None);
        };
        // 3. The gate: candidate against the current best.
        let Some((gate, keep)) = self.gate_match(prev, generation, &candidate, &best) else {
            return Ok(None);
        };
        // 4. Keep the winner; the ladder.
        let mut g = Generation {
            generation,
            best: prev.best,
            data: Some(data),
            tuning: Some(tuning),
            gate: Some(gate),
            vs_start: prev.vs_start.clone(),
            vs_reference: prev.vs_reference.clone(),
        };
        let kept = match keep {
            Keep::New => candidate,
            Keep::Old => best,
        };
        eval::save_weights(&dir.join("weights.json"), kept.model(), kept.weights())?;
        if keep == Keep::New {
            // New weights: play the ladder again (kept weights are unchanged otherwise, and
            // at fixed nodes their matches would be too).
            g.best = generation;
            if !self.ladder(&mut g, &kept)? {
                return Ok(None);
            }
        }
        write_json(&dir.join("generation.json"), &g)?;
        Ok(Some(g))
    }

    /// Stage 1 of generation `generation`: self-play games of `best` (and against the pool of
    /// earlier bests), their positions written to `dir`; `None` if stopped.
    fn self_play(
        &self,
        done: &[Generation],
        generation: u32,
        best: &ModelEvaluator,
        dir: &Path,
    ) -> Result<Option<DataRecord>, BootstrapError> {
        let s = self.settings;
        let pool = pool_members(done, s.pool);
        let opponents = pool
            .iter()
            .map(|&g| self.weights(g))
            .collect::<Result<Vec<_>, _>>()?;
        let opponents: Vec<&ModelEvaluator> = opponents.iter().collect();
        let datagen = DatagenOptions {
            games: s.games,
            play: s.play(s.nodes).interrupt(self.stop.clone()),
            openings: RandomOpenings {
                seed: derive_seed(s.seed, generation, SALT_DATA),
                plies: s.opening_plies,
                max_eval: s.opening_max_eval,
                mate_check_depth: None,
            },
        };
        (self.on_event)(Event::Stage {
            stage: Stage::SelfPlay,
            games: u64::from(s.games),
        });
        let on_game = |_: &engine::play::game::GameRecord| (self.on_event)(Event::Game);
        let (samples, summary) = generate_pooled(best, &opponents, &datagen, &on_game);
        if self.stopped() || summary.games < s.games {
            return Ok(None);
        }
        data::write_cache(&dir.join("data.gtc.zst"), &samples)?;
        Ok(Some(DataRecord {
            games: summary.games,
            positions: summary.positions,
            white_wins: summary.white_wins,
            draws: summary.draws,
            black_wins: summary.black_wins,
            opponents: pool,
        }))
    }

    /// Stage 2: the candidate tuned from `best` (generation `prev`'s) on the window's data;
    /// `None` if stopped.
    fn tuned(
        &self,
        done: &[Generation],
        prev: &Generation,
        generation: u32,
        dir: &Path,
        best: &ModelEvaluator,
    ) -> Result<Option<(TuningRecord, ModelEvaluator)>, BootstrapError> {
        let (window, job) = self.tune_job(done, prev, generation, dir, best.model().kind());
        (self.on_event)(Event::Stage {
            stage: Stage::Tuning,
            games: 0,
        });
        let control = Arc::new(Control::with_interrupt_flag(self.stop.clone()));
        let tuned = texel::job::tune(&job, control, &mut |_| {})?;
        if tuned.outcome.interrupted || self.stopped() {
            return Ok(None);
        }
        let tuning = TuningRecord::new(window, &tuned.summary);
        let candidate = ModelEvaluator::new(tuned.model.clone(), tuned.outcome.weights.clone())?;
        Ok(Some((tuning, candidate)))
    }

    /// Stage 3, the gate: `candidate` against `best`, and which to keep; `None` if stopped.
    fn gate_match(
        &self,
        prev: &Generation,
        generation: u32,
        candidate: &ModelEvaluator,
        best: &ModelEvaluator,
    ) -> Option<(GateRecord, Keep)> {
        let s = self.settings;
        let plan = MatchPlan {
            openings: self.openings(derive_seed(s.seed, generation, SALT_GATE), s.gate_openings),
            options: s.play(s.gate_nodes),
            sprt: Some(s.sprt),
            sprt_stop: SprtStop::AfterEachBatch(s.gate_batch),
        };
        let report = self.play(candidate, best, &plan, Stage::Gate)?;
        let (keep, reason) = gate::decide(&s.sprt, gate::Undecided::Ahead, &report.result.pairs);
        let record = GateRecord {
            result: report.record(&format!("gen {}", prev.best)),
            keep,
            reason,
        };
        Some((record, keep))
    }

    /// Stage 4 for new weights `kept`: the ladder's matches against generation 0 and the
    /// reference, into `g`; `false` if stopped.
    fn ladder(&self, g: &mut Generation, kept: &ModelEvaluator) -> Result<bool, BootstrapError> {
        let start = self.weights(0)?;
        let Some(m) = self.ladder_match(kept, &start, "gen 0", Stage::LadderStart) else {
            return Ok(false);
        };
        g.vs_start = Some(m);
        if let (Some(r), Some(name)) = (self.reference, self.reference_name) {
            let Some(m) = self.ladder_match(kept, r, name, Stage::LadderReference) else {
                return Ok(false);
            };
            g.vs_reference = Some(m);
        }
        Ok(true)
    }
}
