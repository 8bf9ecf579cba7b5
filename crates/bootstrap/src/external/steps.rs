//! The self-play, trace and tuning steps of a loop's generation.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use data::LoadOptions;
use engine::play::openings::{read_epd, RandomOpenings};
use engine::play::player::{UciPlayer, UciSetup};
use engine::play::runner::{PositionInput, RunEvent};
use engine::play::selfplay::{
    collect_samples, play_selfplay, write_samples, OpeningBook, SelfPlayOptions, Shard,
};
use engine::play::trace_run::{load_manifest, trace_positions, TraceSettings};
use optim::Control;
use texel::job::Job;
use texel::setup::{ObjectiveOptions, SetupOptions, SplitOptions, TraceOptions};

use super::events::LoopEvent;
use super::runner::Runner;
use super::state::{LoopGeneration, LoopStep, SelfPlayRecord, TraceRecord};
use crate::state::{write_atomic, TuningRecord};
use crate::tuning::lbfgs_config;
use crate::{derive_seed, generation_dir, BootstrapError, SALT_DATA, SALT_TUNE};

/// The file of a generation's self-play positions.
const SELFPLAY: &str = "selfplay.epd";
/// The file of a generation's traces.
pub(super) const TRACES: &str = "traces.txt";

/// Writes the UCI options of a weights manifest, `NAME VALUE` a line (what the engine is sent
/// as `setoption name NAME value VALUE`), atomically.
pub(super) fn write_options(weights: &Path, out: &Path) -> Result<(), BootstrapError> {
    let m = load_manifest(weights)?;
    let setup = UciSetup::default().weights(&m.manifest)?;
    let text: String = setup
        .options
        .iter()
        .map(|(name, value)| format!("{name} {value}\n"))
        .collect();
    write_atomic(out, &text)
}

impl Runner<'_> {
    /// The engine set up with the weights of `weights` (a manifest with values).
    pub(super) fn setup(&self, weights: &Path) -> Result<UciSetup, BootstrapError> {
        let m = load_manifest(weights)?;
        Ok(self.opts.settings.uci_setup().weights(&m.manifest)?)
    }

    /// The engine as a player with the weights of `weights`.
    pub(super) fn player(&self, weights: &Path) -> Result<UciPlayer, BootstrapError> {
        let spec = self.setup(weights)?.spec(&self.opts.settings.engine);
        Ok(UciPlayer::start(spec, self.opts.timeout).map_err(engine::EngineError::from)?)
    }

    /// Announces a step.
    fn announce(&self, g: &LoopGeneration, step: LoopStep, total: u64) {
        (self.on_event)(LoopEvent::Step {
            generation: g.generation,
            step,
            total,
        });
    }

    /// Self-play with the current weights: `None` if stopped.
    pub(super) fn selfplay(
        &self,
        g: &LoopGeneration,
        dir: &Path,
    ) -> Result<Option<SelfPlayRecord>, BootstrapError> {
        let s = &self.opts.settings;
        let openings = match &s.book {
            Some(path) => OpeningBook::Book(read_epd(path)?),
            None => OpeningBook::Random(RandomOpenings {
                seed: derive_seed(s.seed, g.generation, SALT_DATA),
                plies: s.opening_plies,
                max_eval: s.opening_max_eval,
                mate_check_depth: None,
            }),
        };
        let options = SelfPlayOptions {
            games: s.games,
            shard: Shard::WHOLE,
            openings,
            play: s.selfplay_options(),
        };
        let player = self.player(&self.weights_path(g.best))?;
        self.announce(g, LoopStep::SelfPlay, u64::from(s.games));
        let on_game = |_: &_| (self.on_event)(LoopEvent::Progress);
        let games = play_selfplay(&player, &options, &on_game, self.stop);
        let failures = player.failures();
        self.report_failures(LoopStep::SelfPlay, &failures);
        if self.stopped() || games.len() < s.games as usize {
            return Ok(None);
        }
        let (samples, summary) = collect_samples(&games);
        write_samples(&dir.join(SELFPLAY), &samples)?;
        Ok(Some(SelfPlayRecord {
            summary,
            engine_failures: failures.len(),
        }))
    }

    /// Traces the window's self-play positions with the current weights: `None` if stopped.
    pub(super) fn trace(
        &self,
        g: &LoopGeneration,
        dir: &Path,
    ) -> Result<Option<TraceRecord>, BootstrapError> {
        let s = &self.opts.settings;
        let window: Vec<u32> =
            (g.generation.saturating_sub(s.window - 1).max(1)..=g.generation).collect();
        let files: Vec<PathBuf> = window
            .iter()
            .map(|&w| generation_dir(self.out(), w).join(SELFPLAY))
            .collect();
        let (input, _) = PositionInput::load(&files, &LoadOptions::default())?;
        let weights = self.weights_path(g.best);
        let manifest = load_manifest(&weights)?;
        let settings = TraceSettings {
            // The handshake sends the current weights: the traces' evaluations are theirs.
            engine: self.setup(&weights)?.spec(&s.engine),
            timeout: self.opts.timeout,
            jobs: self.opts.trace_jobs.max(1),
            strict: false,
        };
        self.announce(g, LoopStep::Trace, input.len() as u64);
        let mut skipped = Vec::new();
        let mut on_event = |e: RunEvent<'_>| match e {
            RunEvent::Answered { .. } => (self.on_event)(LoopEvent::Progress),
            RunEvent::Skipped { location, error } => {
                (self.on_event)(LoopEvent::Progress);
                skipped.push(format!("{location}: {error}"));
            }
            RunEvent::Started { .. } => {}
        };
        let out = dir.join(TRACES);
        let run = trace_positions(
            &input,
            &manifest.manifest,
            &manifest.json,
            &settings,
            &out,
            &mut on_event,
            self.stop,
        )?;
        self.report_failures(LoopStep::Trace, &skipped);
        if run.interrupted || !run.written {
            return Ok(None);
        }
        Ok(Some(TraceRecord {
            window,
            positions: run.positions,
            skipped: run.skipped.len(),
        }))
    }

    /// Tunes from the current weights on the generation's traces: `None` if stopped.
    pub(super) fn tune(
        &self,
        g: &LoopGeneration,
        dir: &Path,
    ) -> Result<Option<TuningRecord>, BootstrapError> {
        let job = self.tune_job(g, dir);
        self.announce(g, LoopStep::Tune, 0);
        let control = Arc::new(Control::with_interrupt_flag(self.stop.clone()));
        let tuned = match texel::job::tune_as::<texel::traced::Traced>(&job, control, &mut |_| {}) {
            Err(texel::TexelError::Interrupted) => return Ok(None),
            r => r?,
        };
        if tuned.outcome.interrupted || self.stopped() {
            return Ok(None);
        }
        let window = g.trace.as_ref().map_or(Vec::new(), |t| t.window.clone());
        Ok(Some(TuningRecord::new(window, &tuned.summary)))
    }

    /// `tune lbfgs --trace TRACES --manifest CURRENT --l2 auto --prior-positions M`'s job, into
    /// `dir/tune`.
    fn tune_job(&self, g: &LoopGeneration, dir: &Path) -> Job<TraceOptions> {
        let s = &self.opts.settings;
        let current = self.weights_path(g.best);
        Job {
            setup: SetupOptions {
                split: SplitOptions {
                    valid_fraction: s.valid_fraction,
                    seed: derive_seed(s.seed, g.generation, SALT_TUNE),
                    ..SplitOptions::default()
                },
                objective: ObjectiveOptions {
                    l2: s.l2,
                    lambda: s.lambda,
                    prior_positions: Some(s.prior_positions),
                    ..ObjectiveOptions::default()
                },
                ..SetupOptions::new(TraceOptions::new(current, vec![dir.join(TRACES)]))
            },
            config: lbfgs_config(s.max_iters),
            resolve_every: 0,
            out: dir.join("tune"),
            append_log: false,
            l2_path: match s.l2 {
                Some(_) => None,
                None => optim::regularise::L2::Auto.grid(),
            },
            emit: Vec::new(),
            polish_passes: texel::finish::POLISH_PASSES,
        }
    }
}
