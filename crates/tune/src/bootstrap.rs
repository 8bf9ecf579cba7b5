//! `tune bootstrap`: self-play, tune, gate, repeat, with an Elo ladder (the logic is in the
//! `bootstrap` crate; this file parses options, shows progress and prints).

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Context;
use bootstrap::settings::ClockSettings;
use bootstrap::state::Generation;
use bootstrap::{Event, Options, Settings, Stage};
use indicatif::{ProgressBar, ProgressStyle};

use crate::matches::SprtRates;

/// Options of `tune bootstrap`. The defaults (`bootstrap::Settings::default`, one source for
/// the library and the command line where they are numbers) are those of the best ladder
/// measured: 8,000 self-play games at 2,000 nodes a generation, a window of 2, a gate of
/// at most 200 openings, ladders of 50 openings at 5,000 nodes; about 4 minutes a generation
/// on the project's 2 cores, 3 of them self-play.
#[derive(clap::Args)]
pub struct Args {
    /// Output directory: genNNN/ per generation, state.json, ladder.{md,json,svg}. Running the
    /// same command again on it continues after the last finished generation.
    #[arg(long, default_value = "bootstrap")]
    out: PathBuf,
    /// Generations after generation 0 (a continuation may ask for more).
    #[arg(long, default_value_t = 6)]
    generations: u32,
    /// Evaluation model: psqt or full.
    #[arg(long, default_value = "psqt")]
    model: eval::ModelKind,
    /// Generation 0's weights (JSON by name); default: the model's (material only). `psqt`
    /// weights can start a `full` ladder: carried over by name, the other parameters at
    /// `full`'s defaults.
    #[arg(long, value_name = "START.json")]
    weights: Option<PathBuf>,
    /// Self-play games per generation.
    #[arg(long, default_value_t = Settings::default().games)]
    games: u32,
    /// Nodes per move in self-play.
    #[arg(long, default_value_t = 2000)]
    nodes: u64,
    /// Random plies in each opening (self-play, gate, ladder).
    #[arg(long, default_value_t = 8)]
    opening_plies: u32,
    /// Redraw self-play openings whose quiescence score exceeds this (centipawns).
    #[arg(long, default_value_t = 200.0)]
    opening_max_eval: f64,
    /// Master seed: each generation's self-play, split and openings derive from it and the
    /// generation number, so the same command gives the same ladder.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Tune on the data of the last W generations.
    #[arg(long, default_value_t = Settings::default().window, value_name = "W")]
    window: u32,
    /// L-BFGS iterations per generation, at most.
    #[arg(long, default_value_t = 200)]
    max_iters: u64,
    /// L2 pull towards each tuning run's start weights (weaker than the tuning commands'
    /// default for psqt).
    #[arg(long, default_value_t = 1e-8)]
    l2: f64,
    /// Label blend of each tuning run, as `tune lbfgs --lambda`: the label is lambda times the
    /// result plus (1 - lambda) times sigma(score), the score being the self-play search's own;
    /// 1: the game result alone. Default: the model's, 0.5 for psqt, 0 for full.
    #[arg(long)]
    lambda: Option<f64>,
    /// Smoothness prior of each tuning run, as `tune lbfgs --smooth`: neighbouring squares of
    /// a piece-square table are pulled together, so what a few thousand games cannot pin down
    /// is not left to noise that the search would exploit. 0 turns it off.
    #[arg(long, default_value_t = bootstrap::settings::SMOOTH, value_name = "X")]
    smooth: f64,
    /// Opponents besides itself: each generation's games go round self-play and the kept
    /// weights of the N most recent earlier bests (fewer while there are fewer), the best
    /// taking each colour equally often against each. 0: self-play alone.
    #[arg(long, default_value_t = Settings::default().pool, value_name = "N")]
    pool: u32,
    /// Hold these parameters at the start's values in every tuning run, as `tune lbfgs
    /// --freeze` (a group such as `material`, a name, or a pattern; repeatable): the ladder
    /// then tunes the rest around them.
    #[arg(long, value_name = "PATTERN")]
    freeze: Vec<String>,
    /// Fraction of the games held out for validation in each tuning run (the iterate kept is
    /// the latest within the noise of the lowest validation loss, as in every tuning command).
    #[arg(long, default_value_t = 0.1)]
    valid_fraction: f64,
    /// The gate's SPRT, candidate against the current best: H0 Elo, H1 Elo. H1 keeps the
    /// candidate, H0 the best; inconclusive after --gate-openings: the candidate if its Elo
    /// estimate is above 0.
    #[arg(long, default_value = "0,10", value_name = "ELO0,ELO1")]
    sprt: String,
    #[command(flatten)]
    rates: SprtRates,
    /// The gate plays at most this many openings (each with both colours).
    #[arg(long, default_value_t = Settings::default().gate_openings)]
    gate_openings: usize,
    /// The gate judges the SPRT after every this many openings (batches keep the result
    /// independent of timing and thread count).
    #[arg(long, default_value_t = 10)]
    gate_batch: usize,
    /// Nodes per move in the gate.
    #[arg(long, default_value_t = 5000)]
    gate_nodes: u64,
    /// Openings of each ladder match (each with both colours).
    #[arg(long, default_value_t = 50)]
    ladder_openings: usize,
    /// Nodes per move in the ladder matches.
    #[arg(long, default_value_t = 5000)]
    ladder_nodes: u64,
    /// Play every game (self-play, gate, ladder) on this clock instead of the node counts:
    /// `BASE+INC` seconds (`10+0.1`) or `MOVES/BASE+INC` (see `tune match --tc`). The games,
    /// and so the run, are then not reproducible.
    #[arg(long, value_name = "TC", value_parser = crate::move_limits::parse_tc)]
    tc: Option<engine::play::clock::TimeControl>,
    /// With --tc: milliseconds a side may overrun its clock without losing on time.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    time_margin: u64,
    /// Reference weights the ladder also plays against (e.g. ../shared/reference/pesto-psqt.json).
    #[arg(long, value_name = "FILE")]
    reference: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::SelfPlay => "self-play",
        Stage::Tuning => "tuning (L-BFGS)",
        Stage::Gate => "gate",
        Stage::LadderStart => "ladder vs gen 0",
        Stage::LadderReference => "ladder vs reference",
    }
}

/// The bootstrap's options from the command line: the defaults that depend on the model
/// (`--lambda`) resolved.
fn options(args: &Args) -> anyhow::Result<Options> {
    let sprt = args.rates.sprt(&args.sprt)?;
    Ok(Options {
        out: args.out.clone(),
        generations: args.generations,
        settings: Settings {
            model: args.model.to_string(),
            weights: args.weights.clone(),
            games: args.games,
            nodes: args.nodes,
            opening_plies: args.opening_plies,
            opening_max_eval: args.opening_max_eval,
            seed: args.seed,
            window: args.window,
            max_iters: args.max_iters,
            l2: args.l2,
            lambda: args
                .lambda
                .unwrap_or_else(|| bootstrap::settings::default_lambda(args.model)),
            smooth: args.smooth,
            pool: args.pool,
            freeze: args.freeze.clone(),
            valid_fraction: args.valid_fraction,
            sprt,
            gate_openings: args.gate_openings,
            gate_batch: args.gate_batch,
            gate_nodes: args.gate_nodes,
            ladder_openings: args.ladder_openings,
            ladder_nodes: args.ladder_nodes,
            reference: args.reference.clone(),
            clock: args.tc.map(|tc| ClockSettings {
                tc,
                time_margin_ms: args.time_margin,
            }),
        },
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = options(&args)?;
    let quiet = args.quiet;
    let bar: Mutex<Option<ProgressBar>> = Mutex::new(None);
    let generation = Mutex::new(String::new());
    let on_event = |e: Event<'_>| {
        let Ok(mut current) = bar.lock() else { return };
        let Ok(mut prefix) = generation.lock() else {
            return;
        };
        match e {
            Event::Resumed { finished } => {
                eprintln!(
                    "continuing {}: generations up to {finished} are finished",
                    args.out.display()
                );
            }
            Event::Generation { generation, last } => {
                *prefix = format!("gen {generation}/{last}");
            }
            Event::Stage { stage, games } => {
                if let Some(b) = current.take() {
                    b.finish_and_clear();
                }
                if quiet {
                    return;
                }
                let b = stage_bar(stage, games, &prefix);
                *current = Some(b);
            }
            Event::Game => {
                if let Some(b) = current.as_ref() {
                    b.inc(1);
                }
            }
            Event::SprtDecided { pairs } => {
                if let Some(b) = current.as_ref() {
                    b.set_message(format!("gate (SPRT decided after {pairs} pairs)"));
                }
            }
            Event::Finished(g) => {
                if let Some(b) = current.take() {
                    b.finish_and_clear();
                }
                eprintln!("{}", finished_line(g));
            }
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    // Ctrl-C: the games and the tuning iteration under way finish; finished generations are
    // kept and the current one is redone on the next run.
    let stop = crate::datagen::interrupt_flag("stopping after the games under way");
    let outcome = pool.install(|| bootstrap::run(&opts, &on_event, &stop))?;
    if let Ok(mut b) = bar.lock() {
        if let Some(b) = b.take() {
            b.finish_and_clear();
        }
    }
    let finished = outcome.state.generations.len().saturating_sub(1);
    if outcome.interrupted {
        eprintln!("interrupted after generation {finished}: run the same command to continue");
    }
    let md = args.out.join("ladder.md");
    if md.is_file() {
        print!(
            "{}",
            std::fs::read_to_string(&md).with_context(|| md.display().to_string())?
        );
        println!(
            "\nladder: {} (also ladder.json, ladder.svg); state: {}",
            md.display(),
            args.out.join("state.json").display()
        );
    }
    Ok(())
}

/// The progress bar of a stage: of its games, or a spinner for the tuning (`games` 0).
fn stage_bar(stage: Stage, games: u64, prefix: &str) -> ProgressBar {
    let b = crate::progress::piped(if games == 0 {
        let b = ProgressBar::new_spinner();
        b.enable_steady_tick(std::time::Duration::from_millis(200));
        b
    } else {
        ProgressBar::new(games)
    });
    b.set_style(
        ProgressStyle::with_template(if games == 0 {
            "{prefix}: {msg} {spinner} {elapsed}"
        } else {
            "{prefix}: {msg} {bar:30} {pos}/{len} games, eta {eta}"
        })
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b.set_prefix(prefix.to_string());
    b.set_message(stage_name(stage));
    b
}

/// The line of a finished generation: its gate, and the kept weights' Elo against gen 0.
fn finished_line(g: &Generation) -> String {
    let gate = g.gate.as_ref().map_or(String::new(), |x| {
        format!(
            "gate {} in {} games: keep {} ({})",
            x.result
                .elo
                .map_or_else(|| "inf".to_string(), |e| format!("{e:+.1}")),
            x.result.games,
            match x.keep {
                bootstrap::gate::Keep::New => "new",
                bootstrap::gate::Keep::Old => "old",
            },
            x.reason.describe()
        )
    });
    let ladder = g.vs_start.as_ref().map_or("0".to_string(), |m| {
        m.elo
            .map_or_else(|| "inf".to_string(), |e| format!("{e:+.1}"))
    });
    format!(
        "generation {}: {gate}; kept gen {} is {ladder} Elo vs gen 0",
        g.generation, g.best
    )
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: super::Args,
    }

    fn lambda(argv: &[&str]) -> f64 {
        let cli =
            Cli::try_parse_from(std::iter::once("bootstrap").chain(argv.iter().copied())).unwrap();
        super::options(&cli.args).unwrap().settings.lambda
    }

    /// Without `--lambda`, each model's own default blend; with it, the value given.
    #[test]
    fn the_label_blend_defaults_to_the_models() {
        assert_eq!(lambda(&[]), 0.5);
        assert_eq!(lambda(&["--model", "psqt"]), 0.5);
        assert_eq!(lambda(&["--model", "full"]), 0.0);
        assert_eq!(lambda(&["--model", "full", "--lambda", "0.5"]), 0.5);
        assert_eq!(lambda(&["--lambda", "1"]), 1.0);
    }
}
