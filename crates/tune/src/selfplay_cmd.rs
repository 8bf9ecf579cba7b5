//! `tune selfplay`: an external UCI engine plays itself with given weights; the quiet positions
//! with results and search scores, as EPD for `tune trace`; deterministic shards and their
//! merge (the logic is in `engine::play::selfplay`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use bootstrap::settings::{play_options, ClockSettings};
use engine::play::openings::{read_epd, RandomOpenings};
use engine::play::player::{UciPlayer, UciSetup};
use engine::play::selfplay::{
    collect_samples, merge_shards, play_selfplay, write_samples, OpeningBook, SelfPlayOptions,
    Shard,
};

/// How self-play games are played, as `tune selfplay` and `tune loop` share them.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// Games (of the whole run, all shards together; of each generation in `tune loop`).
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Nodes per move (a fixed node count makes the games reproducible; the default). Not
    /// with --tc: give one or the other.
    #[arg(long, default_value_t = 5000, conflicts_with = "tc")]
    pub nodes: u64,
    /// Play on a clock instead of a node count (in `tune loop`, the gate's games too), as
    /// `tune match --tc`: `BASE+INC` seconds (`10+0.1`), `BASE` (`60`) or `MOVES/BASE+INC`.
    /// A loss on time is counted and its game's positions kept with that result. The games
    /// are then not reproducible: no byte-for-byte shards or resumes.
    #[arg(long, value_name = "TC", value_parser = crate::move_limits::parse_tc)]
    pub tc: Option<engine::play::clock::TimeControl>,
    /// With --tc: milliseconds a side may overrun its clock without losing on time (process
    /// and pipe overhead).
    #[arg(long, value_name = "MS", default_value_t = 50, requires = "tc")]
    pub time_margin: u64,
    /// Seed of the random openings (the master seed in `tune loop`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 8)]
    pub opening_plies: u32,
    /// Redraw random openings whose material balance (quiescence) exceeds this (centipawns).
    #[arg(long, default_value_t = 100.0)]
    pub opening_max_eval: f64,
    /// Openings from this EPD/FEN file instead (game N starts from line N, round-robin).
    #[arg(long, value_name = "BOOK.epd")]
    pub epd: Option<PathBuf>,
}

impl PlayArgs {
    /// The clock of --tc with --time-margin, if a time control was given.
    pub fn clock(&self) -> Option<ClockSettings> {
        self.tc.map(|tc| ClockSettings {
            tc,
            time_margin_ms: self.time_margin,
        })
    }
}

/// Options of `tune selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine's command line (a UCI engine; with --weights, every weight a `spin` option,
    /// docs/engine-authors.md).
    #[arg(long, value_name = "CMD ARGS", required_unless_present = "merge")]
    engine: Option<String>,
    /// Weights to play with: a manifest with values (the engine's, or a traced tuning run's
    /// weights.json), each weight sent as `setoption name N value V`.
    #[arg(long, value_name = "M.json")]
    weights: Option<PathBuf>,
    /// A UCI option for the engine, e.g. `--uci-option Hash=16` (repeatable; before the
    /// weights).
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    uci_options: Vec<String>,
    #[command(flatten)]
    play: PlayArgs,
    /// Play part I of N (from 0): games I, I+N, I+2N, ... with their global numbers as game
    /// ids. N machines run the same command with I = 0..N-1; `tune selfplay --merge PARTS -o
    /// OUT` joins their files into exactly the file one machine writes without --shard.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Merge the parts of a sharded run (any order) into -o instead of playing.
    #[arg(long, num_args = 1.., value_name = "PART", conflicts_with_all = ["engine", "shard", "weights"])]
    merge: Vec<PathBuf>,
    /// The positions (EPD: `FEN [result] ce SCORE; game N`; `.zst`/`.gz` compress), written
    /// atomically when every game has been played.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Games in parallel (default: all cores); each game runs two engine processes.
    #[arg(long)]
    threads: Option<usize>,
    /// Seconds the engine may take for one move before it counts as hung.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    uci_timeout: f64,
}

/// The engine's options (`--uci-option`) and weights (`--weights`, a manifest).
fn engine_setup(args: &Args) -> anyhow::Result<UciSetup> {
    let mut setup = UciSetup::default();
    for o in &args.uci_options {
        let (name, value) = crate::uci_option::split("--uci-option", o)?;
        setup = setup.option(name, value);
    }
    if let Some(path) = &args.weights {
        let m = trace::Manifest::load(path).context("--weights: cannot use the weights")?;
        setup = setup
            .weights(&m)
            .with_context(|| format!("--weights {}", path.display()))?;
    }
    Ok(setup)
}

/// The games to play: how many, this shard's, the openings and the limits.
fn selfplay_options(args: &Args) -> anyhow::Result<SelfPlayOptions> {
    Ok(SelfPlayOptions {
        games: args.play.games,
        shard: args.shard.unwrap_or(Shard::WHOLE),
        openings: match &args.play.epd {
            Some(path) => OpeningBook::Book(read_epd(path)?),
            None => OpeningBook::Random(RandomOpenings {
                seed: args.play.seed,
                plies: args.play.opening_plies,
                max_eval: args.play.opening_max_eval,
                mate_check_depth: None,
            }),
        },
        play: play_options(args.play.clock().as_ref(), args.play.nodes.max(1)),
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if !args.merge.is_empty() {
        let r = merge_shards(&args.merge, &args.output)?;
        println!(
            "merged {} parts: {} games, {} positions written to {}",
            r.parts,
            r.games,
            r.positions,
            args.output.display()
        );
        return Ok(());
    }
    let Some(command) = &args.engine else {
        anyhow::bail!("--engine CMD is needed to play (or --merge PARTS to merge)");
    };
    if !(args.uci_timeout.is_finite() && args.uci_timeout > 0.0) {
        anyhow::bail!("--uci-timeout must be a positive number of seconds");
    }
    let setup = engine_setup(&args)?;
    let timeout = Duration::from_secs_f64(args.uci_timeout);
    let player = UciPlayer::start(setup.spec(command), timeout)?;
    let options = selfplay_options(&args)?;
    let total = options.shard.games(options.games).count() as u64;
    let bar = crate::progress::games_bar(total);
    bar.set_message("self-play games");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let stop = crate::datagen::interrupt_flag("abandoning the games under way; nothing is written");
    let games = pool.install(|| play_selfplay(&player, &options, &|_| bar.inc(1), &stop));
    bar.finish_and_clear();
    let failures = player.failures();
    if let Some(first) = failures.first() {
        eprintln!(
            "{} engine failures, each restarting the engine (the first: {first})",
            failures.len()
        );
    }
    if (games.len() as u64) < total {
        anyhow::bail!(
            "interrupted after {} of {total} games: nothing written (rerun to play them)",
            games.len()
        );
    }
    let (samples, s) = collect_samples(&games);
    write_samples(&args.output, &samples)?;
    println!(
        "{} games (+{} ={} -{} White's view; {} forfeited by engine failures, their positions \
         dropped; {} lost on time), {} plies: {} quiet positions written to {}",
        s.games,
        s.white_wins,
        s.draws,
        s.black_wins,
        s.forfeits,
        s.time_losses,
        s.plies,
        s.positions,
        args.output.display()
    );
    Ok(())
}
