//! `tune datagen`: self-play games labelled for Texel tuning (the logic is in
//! `engine::play::datagen`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Context;
use engine::play::datagen::{generate_jittered, DatagenOptions};
use engine::play::game::Adjudication;
use engine::play::openings::RandomOpenings;
use engine::ModelEvaluator;
use indicatif::{ProgressBar, ProgressStyle};

use crate::move_limits::MoveLimitArgs;

/// Options of `tune datagen`.
#[derive(clap::Args)]
pub struct Args {
    /// Output file (binary cache; a `.zst` suffix compresses it; `.epd`, `.epd.zst` or
    /// `.epd.gz` writes EPD text). Ctrl-C stops early and still writes the finished games.
    #[arg(short, long, default_value = "datagen.gtc.zst")]
    output: PathBuf,
    /// Weights to play with (JSON from `tune`); default: material only (100/300/300/500/900).
    #[arg(short, long)]
    weights: Option<PathBuf>,
    /// Also play against these weights (repeat the option for several): the games go round
    /// self-play and each opponent in turn, the `--weights` side on White in one round and
    /// on Black in the next. Every searched position is labelled, the opponents' too.
    #[arg(long, value_name = "FILE")]
    opponent: Vec<PathBuf>,
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    #[command(flatten)]
    limits: MoveLimitArgs,
    /// Master seed: the same seed gives the same file, whatever the thread count.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies from the start position in each opening.
    #[arg(long, default_value_t = 8)]
    opening_plies: u32,
    /// Redraw openings whose quiescence score exceeds this (centipawns).
    #[arg(long, default_value_t = 200.0)]
    opening_max_eval: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Plies after the opening before a game is drawn by the move limit.
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// Also redraw openings where a search to this depth finds a forced mate (such games give
    /// no positions); 4 catches mates in 2. Off by default, which keeps the generator that
    /// made data/default.gtc.zst.
    #[arg(long, value_name = "DEPTH", value_parser = clap::value_parser!(u32).range(1..=64))]
    opening_mate_depth: Option<u32>,
    /// Exploration: each side of each game multiplies every piece value (the `material`
    /// weights) by its own factor drawn from [1 - X, 1 + X], so the games trade pieces the
    /// weights as they are would not (0 plays them as they are). The same seed gives the same
    /// games.
    #[arg(long, value_name = "X", default_value_t = 0.0, value_parser = parse_jitter)]
    jitter: f64,
}

/// A jitter amount: a number from 0 up to (not including) 1.
pub fn parse_jitter(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..1.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not in [0, 1)"))
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let eval = match &args.weights {
        Some(p) => ModelEvaluator::load(p)?,
        None => ModelEvaluator::default_material(),
    };
    let opponents = args
        .opponent
        .iter()
        .map(|p| ModelEvaluator::load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let opponents: Vec<&ModelEvaluator> = opponents.iter().collect();
    let stop = interrupt_flag("abandoning the games in progress, writing the finished ones");
    let play = args.limits.options(5000).adjudication(Adjudication {
        max_plies: args.max_plies,
        ..Adjudication::default()
    });
    let options = DatagenOptions {
        games: args.games,
        play: play.interrupt(stop),
        openings: RandomOpenings {
            seed: args.seed,
            plies: args.opening_plies,
            max_eval: args.opening_max_eval,
            mate_check_depth: args.opening_mate_depth,
        },
    };
    let bar = crate::progress::piped(ProgressBar::new(u64::from(args.games)));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {msg} positions, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let plies = AtomicU64::new(0);
    let on_game = |g: &engine::play::game::GameRecord| {
        let n = plies.fetch_add(g.moves.len() as u64, Ordering::Relaxed) + g.moves.len() as u64;
        bar.set_message(format!("~{n}"));
        bar.inc(1);
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let (samples, summary) =
        pool.install(|| generate_jittered(&eval, &opponents, &options, args.jitter, &on_game));
    bar.finish_and_clear();
    if summary.games < args.games {
        eprintln!(
            "interrupted: writing the {} of {} games finished",
            summary.games, args.games
        );
    }
    let name = args.output.to_string_lossy().to_ascii_lowercase();
    let is_epd = [".epd", ".epd.zst", ".epd.gz"]
        .iter()
        .any(|ext| name.ends_with(ext));
    if is_epd {
        data::write_epd(&args.output, &samples)?;
    } else {
        data::write_cache(&args.output, &samples)?;
    }
    let secs = summary.elapsed.as_secs_f64();
    println!(
        "{} games ({} white wins, {} draws, {} black wins), {} positions written to {} \
         in {:.1} s ({:.0} positions/s, {:.0} nodes/s)",
        summary.games,
        summary.white_wins,
        summary.draws,
        summary.black_wins,
        summary.positions,
        args.output.display(),
        secs,
        summary.positions as f64 / secs.max(1e-9),
        summary.nodes as f64 / secs.max(1e-9),
    );
    Ok(())
}

/// Installs a Ctrl-C handler: the first Ctrl-C sets the flag and prints `what` happens now
/// (here: no new games start, the ones in progress finish, and the finished games are
/// written); a second one exits at once.
pub fn interrupt_flag(what: &'static str) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let handler = move || {
        if f.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: {what} (Ctrl-C again to quit)");
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("warning: no Ctrl-C handler: {e}");
    }
    flag
}
