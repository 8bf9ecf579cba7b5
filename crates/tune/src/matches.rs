//! `tune match`: paired games between two weight files or external UCI engines (`uci:CMD`),
//! with the Elo difference (the logic is in `engine::play::matches`, `engine::play::player` and
//! `engine::play::elo`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use engine::play::elo::Sprt;
use engine::play::matches::{run_match, MatchEvent, MatchGame, MatchPlan, SprtStop};
use engine::play::openings::{read_epd, Opening, RandomOpenings};
use engine::play::pgn_out::{game_pgn, PgnTags};
use engine::play::player::{MatchPlayer, UciSetup};
use engine::play::uci_client::UciError;
use engine::EngineError;
use engine::ModelEvaluator;

use crate::move_limits::MoveLimitArgs;

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
    #[command(flatten)]
    limits: MoveLimitArgs,
    /// Write the games to this PGN file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Run an SPRT of H0: elo0 against H1: elo1, e.g. `--sprt 0,5`.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// With `--sprt`: stop the match as soon as the SPRT accepts H0 or H1 (judged after each
    /// completed pair on the pentanomial estimate; pairs already under way are finished and
    /// counted). Off by default: all openings are played.
    #[arg(long, requires = "sprt")]
    sprt_stop: bool,
    #[command(flatten)]
    rates: SprtRates,
    /// Worker threads (default: all cores); each game under way runs its `uci:` engines as
    /// processes of their own.
    #[arg(long)]
    threads: Option<usize>,
    /// A UCI option for the `uci:` players, e.g. `--uci-option Hash=16` (repeatable).
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    uci_options: Vec<String>,
    /// A UCI option for player A only (a `uci:` player; repeatable; after `--uci-option`).
    #[arg(long = "uci-option-a", value_name = "NAME=VALUE")]
    uci_options_a: Vec<String>,
    /// A UCI option for player B only, as `--uci-option-a`.
    #[arg(long = "uci-option-b", value_name = "NAME=VALUE")]
    uci_options_b: Vec<String>,
    /// Tuned weights for player A (a `uci:` engine): a manifest with values (what a traced
    /// tuning run writes as weights.json). Each weight is sent as `setoption name N value V`,
    /// N its spin option's name (`pst[2][35].mg` is `pst_2_35_mg`), V the value rounded; the
    /// engine must declare every one.
    #[arg(long, value_name = "FILE.json")]
    weights_a: Option<PathBuf>,
    /// Tuned weights for player B, as `--weights-a`.
    #[arg(long, value_name = "FILE.json")]
    weights_b: Option<PathBuf>,
    /// With `--weights-a`/`--weights-b`: send the weights file's path as this one option
    /// (`setoption name NAME value PATH`) instead of one option per weight.
    #[arg(long, value_name = "NAME")]
    weights_file_option: Option<String>,
    /// Seconds a `uci:` engine may take for one move before it counts as hung (default: 10,
    /// plus three times --movetime; with --tc, waited beyond the engine's clock). A hung
    /// engine is killed, restarted and asked again once, then forfeits the game (with --tc
    /// it has lost on time); each failure is reported.
    #[arg(long, value_name = "SECS")]
    uci_timeout: Option<f64>,
}

/// A player's name: the engine's `id name` for `uci:` (with the stem of the weights it is
/// given, `engine (tuned)`), else the weights file's stem.
fn name(text: &str, player: &MatchPlayer, weights: Option<&Path>) -> String {
    match player {
        MatchPlayer::Uci(u) => match weights.and_then(Path::file_stem) {
            Some(stem) => format!("{} ({})", u.name(), stem.to_string_lossy()),
            None => u.name().to_string(),
        },
        MatchPlayer::Search(_) => {
            let path = Path::new(text);
            path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            )
        }
    }
}

/// Tells two equal player names apart (two binaries of one engine, or one engine with two
/// weights files of the same stem): by the players as given when those differ, else by the
/// weights files' paths when those differ, else by `A:` and `B:` prefixes.
fn distinct(
    (a, b): (String, String),
    (text_a, text_b): (&str, &str),
    (wa, wb): (Option<&Path>, Option<&Path>),
) -> (String, String) {
    if a != b {
        return (a, b);
    }
    if text_a != text_b {
        return (format!("{a} [{text_a}]"), format!("{b} [{text_b}]"));
    }
    if let (Some(wa), Some(wb)) = (wa, wb) {
        if wa != wb {
            return (
                format!("{a} [{}]", wa.display()),
                format!("{b} [{}]", wb.display()),
            );
        }
    }
    (format!("A:{a}"), format!("B:{b}"))
}

/// An SPRT's error rates, `--alpha` and `--beta`: the same options in `tune match`, `tune
/// loop` and `tune bootstrap`, whose `--sprt ELO0,ELO1` differ only in default and meaning.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct SprtRates {
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
}

impl SprtRates {
    /// The SPRT of `--sprt ELO0,ELO1` (`text`) with these rates, as given: [`Sprt::check`]
    /// judges its ranges.
    pub fn sprt(&self, text: &str) -> anyhow::Result<Sprt> {
        let v: Vec<f64> = text
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .with_context(|| format!("--sprt takes ELO0,ELO1, not `{text}`"))?;
        match v[..] {
            [elo0, elo1] => Ok(Sprt {
                elo0,
                elo1,
                alpha: self.alpha,
                beta: self.beta,
            }),
            _ => anyhow::bail!("--sprt takes two numbers: ELO0,ELO1"),
        }
    }
}

/// One side's UCI setup: the common `--uci-option`s, the side's own, then its weights
/// (`side` is `a` or `b`, for messages).
fn setup(
    args: &Args,
    side: char,
    player: &str,
    own: &[String],
    weights: Option<&Path>,
) -> anyhow::Result<UciSetup> {
    let mut setup = UciSetup::default();
    let own_flag = format!("--uci-option-{side}");
    for (flag, list) in [("--uci-option", &args.uci_options[..]), (&own_flag, own)] {
        for o in list {
            let (name, value) = crate::uci_option::split(flag, o)?;
            setup = setup.option(name, value);
        }
    }
    if !own.is_empty() && !player.starts_with("uci:") {
        anyhow::bail!("--uci-option-{side} is for a `uci:CMD` player, and {side} is `{player}`");
    }
    let Some(path) = weights else {
        return Ok(setup);
    };
    if !player.starts_with("uci:") {
        anyhow::bail!("--weights-{side} is for a `uci:CMD` player, and {side} is `{player}`");
    }
    let manifest = trace::Manifest::load(path)
        .with_context(|| format!("--weights-{side}: cannot use the weights"))?;
    setup = match &args.weights_file_option {
        Some(option) => {
            let path = std::path::absolute(path)
                .with_context(|| format!("--weights-{side}: {}", path.display()))?;
            setup.weights_file(option, &path)
        }
        None => setup
            .weights(&manifest)
            .with_context(|| format!("--weights-{side} {}", path.display()))?,
    };
    Ok(setup)
}

/// Opens one side, its weights named in the error when the engine does not take them.
fn open(
    args: &Args,
    side: char,
    player: &str,
    own: &[String],
    weights: Option<&Path>,
    timeout: Duration,
) -> anyhow::Result<MatchPlayer> {
    let setup = setup(args, side, player, own, weights)?;
    match (MatchPlayer::open_with(player, &setup, timeout), weights) {
        (Err(e @ EngineError::Uci(UciError::MissingOptions { .. })), Some(w)) => {
            Err(anyhow::Error::new(e).context(format!(
                "player {side} with --weights-{side} {}: the engine must declare every option it is given",
                w.display()
            )))
        }
        (opened, _) => Ok(opened?),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.weights_file_option.is_some() && args.weights_a.is_none() && args.weights_b.is_none() {
        anyhow::bail!("--weights-file-option needs --weights-a or --weights-b");
    }
    let uci_timeout = uci_timeout(&args)?;
    let (wa, wb) = (args.weights_a.as_deref(), args.weights_b.as_deref());
    let a = open(&args, 'a', &args.a, &args.uci_options_a, wa, uci_timeout)?;
    let b = open(&args, 'b', &args.b, &args.uci_options_b, wb, uci_timeout)?;
    let (name_a, name_b) = distinct(
        (name(&args.a, &a, wa), name(&args.b, &b, wb)),
        (&args.a, &args.b),
        (wa, wb),
    );
    if args.openings == 0 {
        anyhow::bail!("--openings must be at least 1");
    }
    let sprt = sprt(&args)?;
    let openings = openings(&args)?;
    let stop = crate::datagen::interrupt_flag(
        "abandoning the games under way; the finished pairs are reported and written",
    );
    let plan = MatchPlan {
        openings,
        options: args.limits.options(5000).interrupt(stop),
        sprt,
        sprt_stop: if args.sprt_stop {
            SprtStop::AfterEachPair
        } else {
            SprtStop::Never
        },
    };

    let bar = crate::progress::games_bar(plan.openings.len() as u64 * 2);
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
    let report = pool.install(|| run_match(&a, &b, &plan, &on_event));
    bar.finish_and_clear();

    if let Some(path) = &args.pgn {
        write_pgn(path, &report.result.games, &name_a, &name_b)?;
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

/// `--uci-timeout`, or its default: 10 s plus three times `--movetime`.
fn uci_timeout(args: &Args) -> anyhow::Result<Duration> {
    Ok(match args.uci_timeout {
        Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
        Some(t) => anyhow::bail!("--uci-timeout must be a positive number of seconds, not {t}"),
        None => {
            Duration::from_secs(10) + 3 * Duration::from_millis(args.limits.movetime.unwrap_or(0))
        }
    })
}

/// The SPRT of `--sprt`, `--alpha` and `--beta`, if asked for.
fn sprt(args: &Args) -> anyhow::Result<Option<Sprt>> {
    let Some(text) = &args.sprt else {
        return Ok(None);
    };
    let sprt = args.rates.sprt(text)?;
    sprt.check().map_err(anyhow::Error::msg)?;
    Ok(Some(sprt))
}

/// The first `--openings` of `--epd`, else as many random ones.
fn openings(args: &Args) -> anyhow::Result<Vec<Opening>> {
    Ok(match &args.epd {
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
    })
}

/// The games to `path` (written atomically), round `opening.game` each.
fn write_pgn(path: &Path, games: &[MatchGame], name_a: &str, name_b: &str) -> anyhow::Result<()> {
    let mut w = fsutil::atomic::AtomicFile::create(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    for (i, g) in games.iter().enumerate() {
        let (white, black) = if g.a_white {
            (name_a, name_b)
        } else {
            (name_b, name_a)
        };
        let tags = PgnTags {
            event: format!("gradtune match {name_a} vs {name_b}"),
            round: format!("{}.{}", g.opening + 1, i % 2 + 1),
            white: white.to_string(),
            black: black.to_string(),
        };
        w.write_all(game_pgn(&g.record, &tags).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    w.commit()
        .with_context(|| format!("cannot write {}", path.display()))
}
