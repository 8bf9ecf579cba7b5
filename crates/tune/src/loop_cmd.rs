//! `tune loop`: the closed loop for any UCI engine (self-play, trace, tune, SPRT gate, repeat),
//! resumable; the logic is in `bootstrap::external`, this draws its progress.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;
use bootstrap::external::state::LoopGate;
use bootstrap::external::state::LoopStep;
use bootstrap::external::{
    run_loop, LoopEvent, LoopOptions, LoopSettings, SpsaSettings, SpsaUnits,
};
use bootstrap::gate::Undecided;
use indicatif::{ProgressBar, ProgressStyle};

use crate::matches::SprtRates;

/// Options of `tune loop`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine's command line: a UCI engine with every weight a `spin` option that also
    /// answers the trace protocol (`position fen`, `trace`; docs/engine-authors.md).
    #[arg(long, value_name = "CMD ARGS")]
    engine: String,
    /// The engine's manifest with its start values (`tune trace --manifest-out` writes it).
    #[arg(long, value_name = "M.json")]
    manifest: PathBuf,
    /// The loop's directory: state.json, ladder.md, best.json, genNNN/. Rerun the same
    /// command on it to continue.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Generations to finish after generation 0 (a continuation may ask for more).
    #[arg(long, default_value_t = 5)]
    generations: u32,
    /// A UCI option for the engine in every game, before its weights, e.g. `--uci-option
    /// Normalize=false` for Ethereal, whose reported scores are otherwise not in its
    /// evaluation's units (repeatable; part of the loop's settings).
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    uci_options: Vec<String>,
    #[command(flatten)]
    play: crate::selfplay_cmd::PlayArgs,
    /// Tune on the positions of this many generations (the newest last), traced again with
    /// the current weights.
    #[arg(long, default_value_t = 2)]
    window: u32,
    /// Fraction of the games held out for validation.
    #[arg(long, default_value_t = 0.1)]
    valid_fraction: f64,
    /// L2 pull towards the current weights; `auto` chooses it on the validation split.
    #[arg(long, value_name = "X|auto", default_value = "auto")]
    l2: optim::regularise::L2,
    /// The prior that holds the weights few positions support at the current weights: each
    /// weight counts as M positions at its current value (`tune lbfgs --prior-positions`,
    /// docs/guide.md, "The prior"); 0 turns it off.
    #[arg(long, value_name = "M", default_value_t = texel::traced::PRIOR_POSITIONS)]
    prior_positions: f64,
    /// Label blend: lambda * result + (1 - lambda) * sigma(engine's search score); 1: the game
    /// result alone (docs/loop.md).
    #[arg(long, default_value_t = bootstrap::external::LAMBDA)]
    lambda: f64,
    /// L-BFGS iterations per tuning run, at most.
    #[arg(long, default_value_t = 200)]
    max_iters: u64,
    /// Openings of each gate match (each played twice), at most: the game budget within
    /// which the SPRT must decide, else the current weights stay (--gate-undecided reject).
    /// The SPRT ends most gates sooner; 200 (the default before) decides almost none.
    #[arg(long, default_value_t = bootstrap::external::GATE_OPENINGS)]
    gate_openings: usize,
    /// Nodes per move in the gate. Not with --tc, which is the gate's clock as well.
    #[arg(long, default_value_t = 5000, conflicts_with = "tc")]
    gate_nodes: u64,
    /// The gate's SPRT is judged after each batch of this many openings (reproducible).
    #[arg(long, default_value_t = 20)]
    gate_batch: usize,
    /// The gate's SPRT, H0 and H1 in Elo.
    #[arg(long, value_name = "ELO0,ELO1", default_value = "0,10")]
    sprt: String,
    /// What a gate the SPRT leaves undecided at --gate-openings keeps: `reject`, the current
    /// weights (only an SPRT acceptance replaces them), or `ahead`, the candidate if its Elo
    /// estimate is above 0 (moves on unproven gains and keeps regressions: docs/loop.md; the
    /// default of loops begun before it, which continue with `--gate-undecided ahead`).
    #[arg(long, default_value = "reject", value_parser = ["reject", "ahead"])]
    gate_undecided: String,
    /// Openings (each played twice) of the match of every kept generation against the start
    /// weights; the loop's answer (OUT/best.json) is the generation whose interval there has
    /// the highest lower end, the start when none lies above 0.
    #[arg(long, default_value_t = bootstrap::external::VS_START_OPENINGS)]
    vs_start_openings: usize,
    /// Openings of a second part of that match, played once when the first leaves the
    /// generation's interval around 0 (a gate accepted it, the start is not yet clearly
    /// behind); the answer is judged on both parts. 0: none (loops begun before it continue
    /// with `--vs-start-more 0`).
    #[arg(long, default_value_t = bootstrap::external::VS_START_MORE)]
    vs_start_more: usize,
    /// A `tune discover` result: generation 0 starts the manifest's ports of catalogue groups
    /// (parameters that declare `"catalogue": "<group>"`) at their values plus the ranking's
    /// (the greedy selection's joint fit for the groups it added; docs/discover.md).
    #[arg(long, value_name = "DISCOVER.json")]
    discovered: Option<PathBuf>,
    #[command(flatten)]
    rates: SprtRates,
    /// Games in parallel (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Engine processes tracing in parallel (default: the number of cores).
    #[arg(long)]
    trace_jobs: Option<usize>,
    /// Seconds the engine may take for one move or one trace before it counts as hung.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    uci_timeout: f64,
    /// After the last generation, SPSA over the engine's spin options (the manifest's weights)
    /// from the best weights for this many iterations, its games played as the gate's
    /// (--gate-nodes or --tc); then its result is gated against those weights like a
    /// generation's candidate and kept only if accepted. Files in OUT/spsa/; a finished loop
    /// may be given one, and then takes no more generations (docs/loop.md). 0: none.
    #[arg(long, value_name = "N", default_value_t = 0)]
    spsa_iters: u64,
    /// SPSA: game pairs per iteration (each opening with both colours).
    #[arg(long, default_value_t = 8)]
    spsa_pairs: usize,
    /// SPSA: each coordinate's perturbation at the first iteration, centipawns of a typical
    /// position's evaluation (default 2; with `--spsa-units weight`, centipawns at the weight
    /// a coordinate moves most, default 20).
    #[arg(long)]
    spsa_c: Option<f64>,
    /// SPSA: what --spsa-c is in: `eval` (each coordinate's perturbation calibrated on the
    /// last generation's traces to move a typical evaluation by --spsa-c cp) or `weight` (the
    /// same centipawns at every coordinate's largest weight, whatever its coefficient in a
    /// position: how stages began before calibration; docs/loop.md).
    #[arg(long, default_value = "eval", value_parser = ["eval", "weight"])]
    spsa_units: String,
    /// SPSA coordinates: `tables` (a few shapes per table, and a scale) or `each` (one per
    /// weight), as `tune spsa --basis`.
    #[arg(long, default_value = "tables", value_parser = ["tables", "each"])]
    spsa_basis: String,
    /// SPSA: keep only the coordinates whose names match one of these globs (repeatable; `tune
    /// spsa --only`).
    #[arg(long = "spsa-only", value_name = "GLOB")]
    spsa_only: Vec<String>,
}

/// The loop's options from the command line.
fn options(args: &Args) -> anyhow::Result<LoopOptions> {
    let sprt = args.rates.sprt(&args.sprt)?;
    if !(args.uci_timeout.is_finite() && args.uci_timeout > 0.0) {
        anyhow::bail!("--uci-timeout must be a positive number of seconds");
    }
    let settings = LoopSettings {
        seed: args.play.seed,
        games: args.play.games,
        nodes: args.play.nodes,
        opening_plies: args.play.opening_plies,
        opening_max_eval: args.play.opening_max_eval,
        book: args.play.epd.clone(),
        window: args.window,
        valid_fraction: args.valid_fraction,
        l2: match args.l2 {
            optim::regularise::L2::Fixed(v) => Some(v),
            optim::regularise::L2::Auto => None,
        },
        lambda: args.lambda,
        prior_positions: args.prior_positions,
        max_iters: args.max_iters,
        gate_openings: args.gate_openings,
        gate_nodes: args.gate_nodes,
        gate_batch: args.gate_batch,
        sprt,
        clock: args.play.clock(),
        uci_options: args
            .uci_options
            .iter()
            .map(|o| {
                let (name, value) = crate::uci_option::split("--uci-option", o)?;
                Ok((name.to_string(), value.to_string()))
            })
            .collect::<anyhow::Result<_>>()?,
        undecided: match args.gate_undecided.as_str() {
            "ahead" => Undecided::Ahead,
            _ => Undecided::Reject,
        },
        vs_start_openings: args.vs_start_openings,
        vs_start_more: args.vs_start_more,
        discovered: args.discovered.clone(),
        ..LoopSettings::new(&args.engine, &args.manifest)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let units = match args.spsa_units.as_str() {
        "weight" => SpsaUnits::Weight,
        _ => SpsaUnits::Eval,
    };
    Ok(LoopOptions {
        out: args.out.clone(),
        generations: args.generations,
        settings,
        timeout: Duration::from_secs_f64(args.uci_timeout),
        trace_jobs: args.trace_jobs.unwrap_or(cores).max(1),
        spsa: (args.spsa_iters > 0).then(|| SpsaSettings {
            iterations: args.spsa_iters,
            pairs: args.spsa_pairs,
            c: args.spsa_c.unwrap_or(units.default_c()),
            units,
            basis: args.spsa_basis.clone(),
            only: args.spsa_only.clone(),
        }),
    })
}

/// A bar for a step of `total` games or positions (a spinner for tuning).
fn step_bar(generation: u32, step: LoopStep, total: u64) -> ProgressBar {
    let (bar, template) = match step {
        LoopStep::Tune => (
            ProgressBar::new_spinner(),
            "{prefix}: {msg} {spinner} {elapsed}",
        ),
        LoopStep::Trace => (
            ProgressBar::new(total),
            "{prefix}: {msg} {bar:30} {pos}/{len} positions, eta {eta}",
        ),
        LoopStep::Spsa => (
            ProgressBar::new(total),
            "{prefix}: {msg} {bar:30} {pos}/{len} iterations, eta {eta}",
        ),
        LoopStep::SpsaGate => (
            ProgressBar::new(total),
            "{prefix}: {msg} {bar:30} {pos}/{len} games, eta {eta}",
        ),
        _ => (
            ProgressBar::new(total),
            "{prefix}: {msg} {bar:30} {pos}/{len} games, eta {eta}",
        ),
    };
    if step == LoopStep::Tune {
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let after = matches!(step, LoopStep::Spsa | LoopStep::SpsaGate);
    bar.set_prefix(format!(
        "{}gen {generation}",
        if after { "after " } else { "" }
    ));
    bar.set_message(step.name());
    crate::progress::piped(bar)
}

/// `gate +3.2 in 40 games, keep New (H1 accepted)`.
fn describe_gate(gate: &LoopGate) -> String {
    let m = &gate.gate.result;
    format!(
        "gate {} in {} games, keep {:?} ({})",
        m.elo.map_or("inf".to_string(), |e| format!("{e:+.1}")),
        m.games,
        gate.gate.keep,
        gate.gate.reason.describe()
    )
}

/// A match record's Elo with its interval, `+21.4 [+8.4, +34.4]` (`inf` when every game was
/// won or lost).
fn record_elo(m: &engine::play::matches::MatchRecord) -> String {
    match (m.elo, m.interval) {
        (Some(e), Some((Some(lo), Some(hi)))) => format!("{e:+.1} [{lo:+.1}, {hi:+.1}]"),
        (Some(e), _) => format!("{e:+.1}"),
        _ => "inf".to_string(),
    }
}

/// The bar of the loop's step under way, drawn from the loop's events.
#[derive(Default)]
struct StepBars {
    current: Mutex<Option<ProgressBar>>,
}

impl StepBars {
    /// Clears the step's bar, if any.
    fn finish(&self) {
        if let Some(b) = self.current.lock().ok().and_then(|mut c| c.take()) {
            b.finish_and_clear();
        }
    }

    /// Runs `f` with the step's bar, if any.
    fn with_bar(&self, f: impl FnOnce(Option<&ProgressBar>)) {
        f(self.current.lock().ok().as_ref().and_then(|c| c.as_ref()))
    }

    /// Draws one event of the loop whose directory is `out`.
    fn show(&self, e: LoopEvent<'_>, out: &Path) {
        match e {
            LoopEvent::Resumed { generation, step } => eprintln!(
                "continuing {}: generation {generation}, {}",
                out.display(),
                step.map_or("finished", LoopStep::name)
            ),
            LoopEvent::Step {
                generation,
                step,
                total,
            } => {
                self.finish();
                if let Ok(mut c) = self.current.lock() {
                    *c = Some(step_bar(generation, step, total));
                }
            }
            LoopEvent::PortsStarted(lines) => {
                for l in lines {
                    eprintln!("{l}");
                }
            }
            LoopEvent::Progress => self.with_bar(|b| {
                if let Some(b) = b {
                    b.inc(1);
                }
            }),
            LoopEvent::SprtDecided { pairs } => self.with_bar(|b| {
                if let Some(b) = b {
                    b.set_message(format!("gate (SPRT decided after {pairs} pairs)"));
                }
            }),
            LoopEvent::EngineFailures { step, count, first } => {
                let say = || {
                    eprintln!(
                        "{}: {count} engine failures (the first: {first})",
                        step.name()
                    )
                };
                self.with_bar(|b| match b {
                    Some(b) => b.suspend(say),
                    None => say(),
                })
            }
            LoopEvent::StepDone(g) => {
                self.finish();
                if let Some(v) = &g.vs_start {
                    let m = &v.result;
                    eprintln!(
                        "generation {}: against the start {} in {} games{}; current: gen {}",
                        g.generation,
                        record_elo(m),
                        m.games,
                        if v.reverted {
                            ", below it: back to the answer"
                        } else {
                            ""
                        },
                        g.best
                    );
                } else if let Some(gate) = &g.gate {
                    eprintln!(
                        "generation {}: {}; current: gen {}",
                        g.generation,
                        describe_gate(gate),
                        g.best
                    );
                }
            }
            LoopEvent::SpsaStepDone(stage) => {
                self.finish();
                if let Some(gate) = &stage.gate {
                    eprintln!("spsa stage: {}", describe_gate(gate));
                }
            }
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = options(&args)?;
    let bars = StepBars::default();
    let on_event = |e: LoopEvent<'_>| bars.show(e, &args.out);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let stop = crate::datagen::interrupt_flag("stopping; every finished step is kept");
    let outcome = pool.install(|| run_loop(&opts, &on_event, &stop));
    bars.finish();
    let outcome = outcome?;
    if outcome.interrupted {
        eprintln!("interrupted: run the same command to continue");
    }
    let md = args.out.join("ladder.md");
    print!(
        "{}",
        std::fs::read_to_string(&md).with_context(|| md.display().to_string())?
    );
    println!(
        "\nladder: {}; the loop's answer: {} (a manifest: `tune emit`, `tune match --weights-a`); state: {}",
        md.display(),
        args.out.join("best.json").display(),
        args.out.join("state.json").display()
    );
    Ok(())
}
