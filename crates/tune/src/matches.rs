//! `tune match`: paired games between two weight files, with the Elo difference (the logic is
//! in `engine::matches` and `engine::elo`).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use engine::elo::{Sprt, SprtVerdict};
use engine::matches::{play_match_until, MatchGame, MatchOptions};
use engine::openings::{read_epd, RandomOpenings};
use engine::pgn_out::{game_pgn, PgnTags};
use engine::{ModelEvaluator, SearchLimits};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `tune match`.
#[derive(clap::Args)]
pub struct Args {
    /// Weights of player A (JSON from `tune`), or `default` for material only.
    a: PathBuf,
    /// Weights of player B, or `default`.
    b: PathBuf,
    /// Number of openings; each is played twice, with colours swapped.
    #[arg(long, default_value_t = 100)]
    openings: usize,
    /// Read openings (one FEN/EPD per line) from this file instead of random ones; the first
    /// `--openings` are used.
    #[arg(long)]
    epd: Option<PathBuf>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies in each opening.
    #[arg(long, default_value_t = 8)]
    opening_plies: u32,
    /// Redraw random openings whose quiescence score exceeds this (centipawns).
    #[arg(long, default_value_t = 100.0)]
    opening_max_eval: f64,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000, conflicts_with = "movetime")]
    nodes: u64,
    /// Milliseconds per move instead of a node count.
    #[arg(long)]
    movetime: Option<u64>,
    /// Write the games to this PGN file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Run an SPRT of H0: elo0 against H1: elo1, e.g. `--sprt 0,5`.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// With `--sprt`: stop the match as soon as the SPRT accepts H0 or H1 (judged after each
    /// completed pair on the pentanomial estimate; pairs already under way are finished and
    /// counted). Off by default: all openings are played, as in docs/results.md.
    #[arg(long, requires = "sprt")]
    sprt_stop: bool,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

fn load(path: &Path) -> anyhow::Result<ModelEvaluator> {
    if path.as_os_str() == "default" {
        return Ok(ModelEvaluator::default_material());
    }
    Ok(ModelEvaluator::load(path)?)
}

fn name(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let a = load(&args.a)?;
    let b = load(&args.b)?;
    let (mut name_a, mut name_b) = (name(&args.a), name(&args.b));
    if name_a == name_b {
        name_a = format!("A:{name_a}");
        name_b = format!("B:{name_b}");
    }
    if args.openings == 0 {
        anyhow::bail!("--openings must be at least 1");
    }
    let sprt_values: Option<Vec<f64>> = match &args.sprt {
        Some(text) => Some(
            text.split(',')
                .map(|x| x.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .with_context(|| format!("--sprt takes ELO0,ELO1, not `{text}`"))?,
        ),
        None => None,
    };
    let sprt = match &sprt_values {
        Some(v) if v.len() == 2 => {
            if !(0.0..0.5).contains(&args.alpha) || !(0.0..0.5).contains(&args.beta) {
                anyhow::bail!("--alpha and --beta must be in (0, 0.5)");
            }
            Some(Sprt {
                elo0: v[0],
                elo1: v[1],
                alpha: args.alpha,
                beta: args.beta,
            })
        }
        Some(_) => anyhow::bail!("--sprt takes two numbers: ELO0,ELO1"),
        None => None,
    };
    let openings = match &args.epd {
        Some(path) => {
            let mut all = read_epd(path)?;
            all.truncate(args.openings);
            all
        }
        None => {
            let gen = RandomOpenings {
                seed: args.seed,
                plies: args.opening_plies,
                max_eval: args.opening_max_eval,
                ..RandomOpenings::default()
            };
            let reference = ModelEvaluator::default_material();
            (0..args.openings as u64)
                .map(|i| gen.opening(i, &reference))
                .collect()
        }
    };
    let limits = match args.movetime {
        Some(ms) => SearchLimits::movetime(Duration::from_millis(ms.max(1))),
        None => SearchLimits::nodes(args.nodes.max(1)),
    };
    let options = MatchOptions {
        limits,
        ..MatchOptions::default()
    };

    let bar = ProgressBar::new(openings.len() as u64 * 2);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // The running tally of whole pairs, for `--sprt-stop`: A's score in each half-played
    // opening, and the pairs by A's points.
    let stop = AtomicBool::new(false);
    let tally: Mutex<(HashMap<usize, f64>, [u64; 5])> = Mutex::new((HashMap::new(), [0; 5]));
    let stopping_sprt = sprt.filter(|_| args.sprt_stop);
    let on_game = |g: &MatchGame| {
        bar.inc(1);
        let Some(sprt) = stopping_sprt else { return };
        let Ok(mut tally) = tally.lock() else { return };
        let (half, pairs) = &mut *tally;
        let Some(first) = half.remove(&g.opening) else {
            half.insert(g.opening, g.a_score());
            return;
        };
        let points = ((first + g.a_score()) * 2.0).round() as usize;
        pairs[points.min(4)] += 1;
        if let Some(e) = engine::elo::pentanomial(pairs) {
            if sprt.verdict(sprt.llr(&e)) != SprtVerdict::Continue
                && !stop.swap(true, Ordering::Relaxed)
            {
                let n: u64 = pairs.iter().sum();
                bar.suspend(|| {
                    eprintln!("SPRT decided after {n} pairs: finishing the pairs under way")
                });
            }
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let start = Instant::now();
    let result = pool.install(|| play_match_until(&a, &b, &openings, &options, &on_game, &stop));
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();

    if let Some(path) = &args.pgn {
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        for (i, g) in result.games.iter().enumerate() {
            let (white, black) = if g.a_white {
                (&name_a, &name_b)
            } else {
                (&name_b, &name_a)
            };
            let tags = PgnTags {
                event: format!("gradtune match {name_a} vs {name_b}"),
                round: format!("{}.{}", g.opening + 1, i % 2 + 1),
                white: white.clone(),
                black: black.clone(),
            };
            w.write_all(game_pgn(&g.record, &tags).as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        w.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }

    let games = result.wins + result.draws + result.losses;
    println!(
        "{name_a} vs {name_b}: {games} games ({} of {} openings x 2 colours) in {secs:.1} s",
        result.games.len() / 2,
        openings.len()
    );
    println!(
        "W/D/L (A's view): {} / {} / {}   score {:.1}%",
        result.wins,
        result.draws,
        result.losses,
        100.0 * (result.wins as f64 + 0.5 * result.draws as f64) / games.max(1) as f64
    );
    println!(
        "pairs by A's points 0/0.5/1/1.5/2: {}",
        result
            .pairs
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" / ")
    );
    if let Some(e) = result.elo_pentanomial() {
        println!(
            "Elo (pentanomial, 95%): {:+.1} [{:+.1}, {:+.1}]",
            e.elo + 0.0,
            e.lower + 0.0,
            e.upper + 0.0
        );
        if e.variance == 0.0 {
            println!("  (every pair scored the same: zero variance, a degenerate interval)");
        }
    }
    if let Some(e) = result.elo_trinomial() {
        println!(
            "Elo (trinomial, 95%):   {:+.1} [{:+.1}, {:+.1}]",
            e.elo + 0.0,
            e.lower + 0.0,
            e.upper + 0.0
        );
        if let Some(sprt) = sprt {
            let est = result.elo_pentanomial().unwrap_or(e);
            let llr = sprt.llr(&est);
            let (lo, hi) = sprt.bounds();
            let verdict = match sprt.verdict(llr) {
                SprtVerdict::AcceptH1 => "H1 accepted",
                SprtVerdict::AcceptH0 => "H0 accepted",
                SprtVerdict::Continue => "inconclusive (keep playing)",
            };
            println!(
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.3} in [{lo:.3}, {hi:.3}]: {verdict}",
                sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
            );
        }
    }
    if let Some(path) = &args.pgn {
        println!("games written to {}", path.display());
    }
    Ok(())
}
