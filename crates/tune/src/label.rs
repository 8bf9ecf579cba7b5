//! `tune label`: each position's search score from an external UCI engine, written as the
//! score label `--lambda` blends (the logic is in `engine::play::label` and `engine::play::uci_client`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use engine::play::label::{label, LabelEvent, LabelSettings};
use engine::play::uci_client::{go_command, EngineSpec};
use engine::SearchLimits;

/// Options of `tune label`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("limit").required(true).args(["depth", "nodes", "movetime"])))]
pub struct Args {
    /// Positions to label: EPD, PGN or caches (any format `tune` reads).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The engine's command line, split as a shell would (e.g. "stockfish" or
    /// "./myengine --uci").
    #[arg(long, value_name = "CMD ARGS")]
    engine: String,
    /// Search every position to this depth.
    #[arg(long)]
    depth: Option<u32>,
    /// Search every position this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    /// Search every position this many milliseconds.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// The output, EPD (`.epd`, `.epd.gz`, `.epd.zst`) or a cache (`.gtc`, `.bin`, optionally
    /// `.zst`): the positions with their results, game ids and the engine's scores (White's
    /// view). Progress goes to OUT.progress first: rerun the same command to continue.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Engine processes in parallel (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: Option<u32>,
    /// Seconds one search may take before the engine counts as hung (default: 10, plus twice
    /// --movetime).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// A UCI option for the engine, e.g. `--option Hash=16` (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Keep the engine's hash table between positions (faster; labels then depend on the
    /// order and --jobs). By default each position is searched after `ucinewgame`, which
    /// clears the engine's table: a small one (`--option Hash=1`) makes that cheap.
    #[arg(long)]
    keep_hash: bool,
    /// EPD results are from the side to move's point of view.
    #[arg(long)]
    stm_results: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let limits = SearchLimits {
        depth: args.depth,
        nodes: args.nodes,
        movetime: args.movetime.map(Duration::from_millis),
        ..SearchLimits::default()
    };
    let timeout = match args.timeout {
        Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
        Some(t) => bail!("--timeout must be a positive number of seconds, not {t}"),
        None => Duration::from_secs(10) + 2 * limits.movetime.unwrap_or_default(),
    };
    let mut spec = EngineSpec::new(&args.engine);
    for o in &args.options {
        let (name, value) = crate::uci_option::split("--option", o)?;
        spec = spec.option(name, value);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let settings = LabelSettings {
        engine: spec,
        limits,
        timeout,
        jobs,
        fresh: !args.keep_hash,
    };
    let input = crate::positions::load_input(&args.files, args.stm_results)?;
    let stop = crate::datagen::interrupt_flag(
        "stopping the engines; the finished labels are kept for a rerun",
    );
    let mut bar = crate::progress::EngineRunBar::new("labelled");
    let mut on_event = |e: LabelEvent<'_>| bar.on_event(e);
    let out = label(&input, &settings, &args.output, &mut on_event, &stop)?;
    bar.finish();
    let go = go_command(&settings.limits).unwrap_or_default();
    crate::progress::engine_run_summary(
        "labelled",
        &format!("`{}` ({go})", args.engine),
        &out,
        settings.jobs,
        (&args.output, ", with the engine's scores from White's view"),
    );
    Ok(())
}
