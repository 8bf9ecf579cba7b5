//! `tune match`: paired games between two weight files or external UCI engines (`uci:CMD`),
//! with the Elo difference (the logic is in `engine::matches`, `engine::player` and
//! `engine::elo`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use engine::elo::Sprt;
use engine::matches::{run_match, MatchEvent, MatchOptions, MatchPlan, SprtStop};
use engine::openings::{read_epd, RandomOpenings};
use engine::pgn_out::{game_pgn, PgnTags};
use engine::player::MatchPlayer;
use engine::{ModelEvaluator, SearchLimits};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `tune match`.
#[derive(clap::Args)]
pub struct Args {
    /// Player A: weights (JSON from `tune`) searched by gradtune, `default` for material only,
    /// or `uci:CMD ARGS` for an external UCI engine searching with the same limit.
    a: String,
    /// Player B, as A.
    b: String,
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
    /// counted). Off by default: all openings are played, as in experiments/matches.md.
    #[arg(long, requires = "sprt")]
    sprt_stop: bool,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Worker threads (default: all cores); each game under way runs its `uci:` engines as
    /// processes of their own.
    #[arg(long)]
    threads: Option<usize>,
    /// A UCI option for the `uci:` players, e.g. `--uci-option Hash=16` (repeatable).
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    uci_options: Vec<String>,
    /// Seconds a `uci:` engine may take for one move before it counts as hung (default: 10,
    /// plus three times --movetime).
    #[arg(long, value_name = "SECS")]
    uci_timeout: Option<f64>,
}

/// A player's name: the engine's `id name` for `uci:`, else the weights file's stem.
fn name(text: &str, player: &MatchPlayer) -> String {
    match player {
        MatchPlayer::Uci(u) => u.name().to_string(),
        MatchPlayer::Search(_) => {
            let path = Path::new(text);
            path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            )
        }
    }
}

/// `--sprt ELO0,ELO1` (also `tune bootstrap --sprt`).
pub fn parse_sprt(text: &str) -> anyhow::Result<(f64, f64)> {
    let v: Vec<f64> = text
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--sprt takes ELO0,ELO1, not `{text}`"))?;
    match v[..] {
        [a, b] => Ok((a, b)),
        _ => anyhow::bail!("--sprt takes two numbers: ELO0,ELO1"),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut uci_options = Vec::new();
    for o in &args.uci_options {
        let Some((name, value)) = o.split_once('=') else {
            anyhow::bail!("--uci-option takes NAME=VALUE, not `{o}`");
        };
        uci_options.push((name.trim().to_string(), value.trim().to_string()));
    }
    let uci_timeout = match args.uci_timeout {
        Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
        Some(t) => anyhow::bail!("--uci-timeout must be a positive number of seconds, not {t}"),
        None => Duration::from_secs(10) + 3 * Duration::from_millis(args.movetime.unwrap_or(0)),
    };
    let a = MatchPlayer::open(&args.a, &uci_options, uci_timeout)?;
    let b = MatchPlayer::open(&args.b, &uci_options, uci_timeout)?;
    let (mut name_a, mut name_b) = (name(&args.a, &a), name(&args.b, &b));
    if name_a == name_b {
        name_a = format!("A:{name_a}");
        name_b = format!("B:{name_b}");
    }
    if args.openings == 0 {
        anyhow::bail!("--openings must be at least 1");
    }
    let sprt = match &args.sprt {
        Some(text) => {
            let (elo0, elo1) = parse_sprt(text)?;
            if !(0.0..0.5).contains(&args.alpha) || !(0.0..0.5).contains(&args.beta) {
                anyhow::bail!("--alpha and --beta must be in (0, 0.5)");
            }
            Some(Sprt {
                elo0,
                elo1,
                alpha: args.alpha,
                beta: args.beta,
            })
        }
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
            gen.openings(args.openings, &ModelEvaluator::default_material())
        }
    };
    let limits = match args.movetime {
        Some(ms) => SearchLimits::movetime(Duration::from_millis(ms.max(1))),
        None => SearchLimits::nodes(args.nodes.max(1)),
    };
    let plan = MatchPlan {
        openings,
        options: MatchOptions {
            limits,
            ..MatchOptions::default()
        },
        sprt,
        sprt_stop: if args.sprt_stop {
            SprtStop::AfterEachPair
        } else {
            SprtStop::Never
        },
    };

    let bar = ProgressBar::new(plan.openings.len() as u64 * 2);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let on_event = |e: MatchEvent<'_>| match e {
        MatchEvent::Game(_) => bar.inc(1),
        MatchEvent::SprtDecided { pairs } => bar.suspend(|| {
            eprintln!("SPRT decided after {pairs} pairs: finishing the pairs under way")
        }),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let stop = crate::datagen::interrupt_flag(
        "abandoning the games under way; the finished pairs are reported and written",
    );
    let report = pool.install(|| run_match(&a, &b, &plan, &on_event, &stop));
    bar.finish_and_clear();
    let result = &report.result;

    if let Some(path) = &args.pgn {
        let mut w = eval::atomic::AtomicFile::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
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
        w.commit()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }

    print!("{}", report.to_text(&name_a, &name_b));
    for (name, player) in [(&name_a, &a), (&name_b, &b)] {
        let failures = player.failures();
        if let Some(first) = failures.first() {
            println!(
                "{name}: {} engine failures (the first: {first})",
                failures.len()
            );
        }
    }
    if let Some(path) = &args.pgn {
        println!("games written to {}", path.display());
    }
    Ok(())
}
