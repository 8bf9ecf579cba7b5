//! `tune spsa`: SPSA on game results after Texel, for gradtune's models or any engine's UCI
//! spin options (the logic is in `engine::spsa`); resumable from OUT.

mod files;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use bootstrap::external::calibrate_on_traces;
use engine::play::matches::{run_match, MatchPlan, MatchReport, SprtStop};
use engine::play::openings::{read_epd, RandomOpenings};
use engine::play::player::UciSetup;
use engine::spsa::{
    run_spsa, Basis, BasisKind, Gains, OpeningSource, Spsa, SpsaEnd, SpsaEvent, SpsaPlan,
    SpsaState, Subject, Tunable,
};
use engine::ModelEvaluator;
use files::{resume, save_state, weights_json, Settings};
use indicatif::{ProgressBar, ProgressStyle};

use crate::move_limits::MoveLimitArgs;

/// Options of `tune spsa`.
#[derive(clap::Args)]
pub struct Args {
    /// What to tune: weights (JSON from `tune`) searched by gradtune, `default` for material
    /// only, or `uci:CMD ARGS` for an external engine's spin options.
    start: String,
    /// The run's directory: state.json (resumed from when present), weights.json (the
    /// current point) and check.json (the final match).
    #[arg(long)]
    out: PathBuf,
    /// Iterations in all. The default gains derive from it, so a resumed run is given the
    /// same number, or more with --a and --big-a as they were.
    #[arg(long, default_value_t = 2000)]
    iterations: u64,
    /// Game pairs per iteration (each opening with both colours).
    #[arg(long, default_value_t = 8)]
    pairs: usize,
    #[command(flatten)]
    limits: MoveLimitArgs,
    /// Seed of the openings and of the perturbations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Coordinates: `tables` (each 64-square table's rank slope and centre, each numbered
    /// series of seven or more entries' offset and slope, other parameters alone, and the
    /// scale of all whole-number weights) or `each` (one per parameter or option). Default:
    /// `tables` for weights, `each` for `uci:` (docs/spsa.md).
    #[arg(long, value_parser = ["tables", "each"])]
    basis: Option<String>,
    /// Keep only the coordinates whose names match one of these globs (`material.*`,
    /// `pst.*:rank`, `*_mg`); with `uci:`, the spin options to tune (default: all but `Hash`,
    /// `Threads` and the like).
    #[arg(long = "only", value_name = "GLOB")]
    only: Vec<String>,
    /// Leave out the `scale` coordinate of the `tables` basis.
    #[arg(long)]
    no_scale: bool,
    /// Perturbation of each coordinate at the first iteration, centipawns: with --trace, of a
    /// typical position's evaluation (default 2); without, at the parameter a coordinate moves
    /// most (default 20; `scale` is perturbed by 10%).
    #[arg(long)]
    c: Option<f64>,
    /// With `uci:` and --manifest: the engine's traces (repeatable) to calibrate the
    /// perturbations on, each coordinate's chosen so that it moves a typical position's
    /// evaluation by --c centipawns (docs/spsa.md, "Perturbations in evaluation units").
    #[arg(long = "trace", value_name = "FILE")]
    traces: Vec<PathBuf>,
    /// Step gain `a` (default: a result of 1 moves a coordinate by an eighth of its
    /// perturbation at the first iteration).
    #[arg(long)]
    a: Option<f64>,
    /// Stability constant `A` of the step (default: a tenth of --iterations).
    #[arg(long = "big-a", value_name = "A")]
    big_a: Option<f64>,
    /// Step decay exponent.
    #[arg(long, default_value_t = 0.602)]
    alpha: f64,
    /// Perturbation decay exponent.
    #[arg(long, default_value_t = 0.101)]
    gamma: f64,
    /// Read openings (one FEN/EPD per line) from this file, in turn, instead of random ones.
    #[arg(long)]
    epd: Option<PathBuf>,
    /// Random plies in each opening.
    #[arg(long, default_value_t = 8)]
    opening_plies: u32,
    /// Openings of the final match of the result against the start (each played twice;
    /// 0: no match). Its random openings are drawn from --check-seed.
    #[arg(long, default_value_t = 300)]
    check_openings: usize,
    /// Seed of the final match's openings (other than the tuning games').
    #[arg(long, default_value_t = 1_000_003)]
    check_seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// A UCI option for the `uci:` engine on both sides, e.g. `--uci-option Hash=16`.
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    uci_options: Vec<String>,
    /// A traced engine's manifest: its weights are the tunables (spin options named as
    /// `tune match --weights-a` names them), start values and bounds the manifest's.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Seconds a `uci:` engine may take for one move before it counts as hung.
    #[arg(long, default_value_t = 10.0)]
    uci_timeout: f64,
}

fn setup(args: &Args) -> anyhow::Result<UciSetup> {
    let mut setup = UciSetup::default();
    for o in &args.uci_options {
        let (name, value) = crate::uci_option::split("--uci-option", o)?;
        setup = setup.option(name, value);
    }
    Ok(setup)
}

fn subject(args: &Args) -> anyhow::Result<(Subject, Option<trace::Manifest>)> {
    let timeout = match args.uci_timeout {
        t if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
        t => bail!("--uci-timeout must be a positive number of seconds, not {t}"),
    };
    let Some(command) = args.start.strip_prefix("uci:") else {
        if args.manifest.is_some() || !args.uci_options.is_empty() {
            bail!(
                "--manifest and --uci-option are for a `uci:CMD` start, not `{}`",
                args.start
            );
        }
        let e = match args.start.as_str() {
            "default" => ModelEvaluator::default_material(),
            path => ModelEvaluator::load(Path::new(path))?,
        };
        return Ok((Subject::Model(e), None));
    };
    let fixed = setup(args)?;
    match &args.manifest {
        Some(path) => {
            let m = trace::Manifest::load(path).context("--manifest")?;
            Ok((Subject::uci_manifest(command, fixed, &m, timeout)?, Some(m)))
        }
        None => Ok((Subject::uci(command, fixed, &args.only, timeout)?, None)),
    }
}

/// The basis, cut to the coordinates `--only` names (for a plain `uci:` engine the options
/// were selected by it already).
fn basis(args: &Args, subject: &Subject, tunables: &[Tunable]) -> anyhow::Result<(Basis, String)> {
    let uci = matches!(subject, Subject::Uci { .. });
    let kind = match args.basis.as_deref() {
        Some("each") => BasisKind::Each,
        Some(_) => BasisKind::Tables,
        None if uci => BasisKind::Each,
        None => BasisKind::Tables,
    };
    let c = args
        .c
        .unwrap_or(if args.traces.is_empty() { 20.0 } else { 2.0 });
    if !(c.is_finite() && c > 0.0) {
        bail!("--c must be a positive number of centipawns, not {c}");
    }
    let scale = kind == BasisKind::Tables && !args.no_scale;
    let mut basis = Basis::new(kind, tunables, c, scale);
    if !args.only.is_empty() {
        basis
            .directions
            .retain(|d| args.only.iter().any(|g| fsutil::glob_match(g, &d.name)));
    }
    if basis.is_empty() {
        bail!(
            "no coordinate to tune: --only {} matches none",
            args.only.join(" ")
        );
    }
    if !args.traces.is_empty() {
        let Some(path) = args.manifest.as_ref().filter(|_| uci) else {
            bail!(
                "--trace calibrates a traced engine's coordinates: give `uci:CMD` and --manifest"
            );
        };
        let start = engine::play::trace_run::load_manifest(path).context("--manifest")?;
        let cal = calibrate_on_traces(&mut basis, tunables, &start, &args.traces, c)?;
        eprintln!(
            "perturbations calibrated on {} positions: each coordinate moves a typical \
             evaluation by {c} cp",
            cal.positions
        );
    }
    let name = if kind == BasisKind::Each {
        "each"
    } else {
        "tables"
    };
    Ok((basis, name.to_string()))
}

fn plan(args: &Args, basis: Basis) -> anyhow::Result<(SpsaPlan, String)> {
    let big_a = args
        .big_a
        .unwrap_or(Gains::for_iterations(args.iterations).big_a);
    let mut gains = Gains::with_decay(big_a, args.alpha, args.gamma);
    if let Some(a) = args.a {
        gains.a = a;
    }
    let scales = basis.directions.iter().map(|d| d.c).collect();
    let bounds = basis.directions.iter().map(|d| d.bounds).collect();
    let spsa = Spsa::bounded(gains, scales, bounds, args.seed)?;
    let (openings, described) = match &args.epd {
        Some(path) => (
            OpeningSource::List(read_epd(path)?),
            format!("epd:{}", path.display()),
        ),
        None => (
            OpeningSource::Random(RandomOpenings {
                seed: args.seed,
                plies: args.opening_plies,
                ..RandomOpenings::default()
            }),
            format!("random:plies={}", args.opening_plies),
        ),
    };
    let plan = SpsaPlan {
        spsa,
        basis,
        iterations: args.iterations,
        pairs: args.pairs.max(1),
        openings,
        options: args.limits.options(DEFAULT_NODES),
    };
    Ok((plan, described))
}

/// Nodes per move when no limit is given.
const DEFAULT_NODES: u64 = 10_000;

/// The coordinates that moved most, in units of their perturbation.
fn largest_moves(basis: &Basis, x: &[f64], n: usize) -> String {
    let mut moved: Vec<(usize, f64)> = x.iter().enumerate().map(|(j, &v)| (j, v)).collect();
    moved.sort_by(|a, b| {
        let (ra, rb) = (
            a.1.abs() / basis.directions[a.0].c,
            b.1.abs() / basis.directions[b.0].c,
        );
        rb.total_cmp(&ra)
    });
    moved
        .iter()
        .take(n)
        .map(|&(j, v)| format!("{} {:+.1}", basis.directions[j].name, v))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (subject, manifest) = subject(&args)?;
    let tunables = subject.tunables();
    let (basis, basis_name) = basis(&args, &subject, &tunables)?;
    let coordinates: Vec<String> = basis.directions.iter().map(|d| d.name.clone()).collect();
    let (mut plan, openings) = plan(&args, basis)?;
    let settings = settings(&args, &plan, basis_name, coordinates, openings);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let state_path = args.out.join("state.json");
    let weights_path = args.out.join("weights.json");
    let mut state = resume(&state_path, &settings, plan.spsa.dim())?;
    let finished_before = state.iteration >= args.iterations;
    eprintln!(
        "{} coordinates over {} tunables; {} game pairs an iteration at {}",
        plan.basis.len(),
        tunables.len(),
        plan.pairs,
        args.limits.describe(DEFAULT_NODES),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the thread pool")?;
    let stop = crate::datagen::interrupt_flag(
        "dropping the iteration under way; the state of the last one is kept",
    );
    plan.options = plan.options.clone().interrupt(stop.clone());
    let bar = iteration_bar(args.iterations, state.iteration);
    let games = AtomicU64::new(state.iteration * plan.pairs as u64 * 2);
    let on_event = |e: SpsaEvent<'_>| match e {
        SpsaEvent::Game(_) => {
            games.fetch_add(1, Ordering::Relaxed);
        }
        SpsaEvent::Iteration { state, .. } => {
            let games = games.load(Ordering::Relaxed);
            show_iteration(&bar, games, &plan.basis, state, args.iterations);
        }
    };
    let mut checkpoint = |s: &SpsaState| -> Result<(), engine::EngineError> {
        let w = plan.basis.weights(&tunables, &s.x);
        let weights = weights_json(&subject, manifest.as_ref(), &w);
        fsutil::atomic::write(&weights_path, weights.as_bytes())
            .map_err(|e| engine::EngineError::io("write", &weights_path, e))?;
        save_state(&state_path, &settings, args.iterations, s)
    };
    let end = pool.install(|| run_spsa(&subject, &plan, &mut state, &on_event, &mut checkpoint))?;
    bar.finish_and_clear();
    let w = plan.basis.weights(&tunables, &state.x);
    fsutil::atomic::write(
        &weights_path,
        weights_json(&subject, manifest.as_ref(), &w).as_bytes(),
    )
    .with_context(|| format!("cannot write {}", weights_path.display()))?;
    print_summary(&state, args.iterations, &plan, &weights_path);
    if end == SpsaEnd::Interrupted {
        println!(
            "interrupted: rerun the same command to continue from iteration {}",
            state.iteration
        );
        return Ok(());
    }
    let check_path = args.out.join("check.json");
    if finished_before && check_path.exists() {
        println!(
            "the run was finished before: its final match is in {}",
            check_path.display()
        );
        return Ok(());
    }
    if args.check_openings == 0 {
        return Ok(());
    }
    let report = check(&args, &subject, &w, &tunables, &pool, &stop)?;
    write_check(&report, &check_path)
}

/// Shows an iteration done (`games` played so far) on the bar, or every 50 iterations as a
/// line without a terminal.
fn show_iteration(bar: &ProgressBar, games: u64, basis: &Basis, state: &SpsaState, total: u64) {
    let line = format!(
        "{} games, mean result (last 50) {:+.3}, moved most: {}",
        games,
        state.recent_mean(50),
        largest_moves(basis, &state.x, 3)
    );
    bar.set_position(state.iteration);
    // Without a terminal (a log file), a line every 50 iterations instead of the bar.
    if bar.is_hidden() && state.iteration.is_multiple_of(50) {
        eprintln!("iteration {}/{}: {line}", state.iteration, total);
    }
    bar.set_message(line);
}

/// Prints where the run stands and which coordinates moved most.
fn print_summary(state: &SpsaState, total: u64, plan: &SpsaPlan, weights: &Path) {
    println!(
        "{} of {} iterations, {} games; weights written to {}",
        state.iteration,
        total,
        state.iteration * plan.pairs as u64 * 2,
        weights.display()
    );
    println!("moved most: {}", largest_moves(&plan.basis, &state.x, 8));
}

/// What the run's `state.json` records of its settings (a resumed run must have the same).
fn settings(
    args: &Args,
    plan: &SpsaPlan,
    basis: String,
    coordinates: Vec<String>,
    openings: String,
) -> Settings {
    Settings {
        start: args.start.clone(),
        manifest: args.manifest.as_ref().map(|p| p.display().to_string()),
        uci_options: args.uci_options.clone(),
        basis,
        coordinates,
        perturbations: plan.spsa.scales.clone(),
        gains: plan.spsa.gains,
        seed: plan.spsa.seed,
        pairs: plan.pairs,
        nodes: plan.options.node_count(),
        movetime: args.limits.movetime.filter(|_| args.limits.tc.is_none()),
        tc: args.limits.tc.map(|tc| tc.to_string()),
        openings,
    }
}

/// The progress bar of `total` iterations, at iteration `at` (a resumed run).
fn iteration_bar(total: u64, at: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} iterations, {msg}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(at);
    crate::progress::piped(bar)
}

/// Prints the final check and writes it to `path` (`check.json`).
fn write_check(report: &MatchReport, path: &Path) -> anyhow::Result<()> {
    print!("{}", report.to_text("spsa", "start"));
    let record = serde_json::to_string_pretty(&report.record("start"))? + "\n";
    fsutil::atomic::write(path, record.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    println!("check written to {}", path.display());
    Ok(())
}

/// The final check: the result against its start, paired openings from --check-seed.
fn check(
    args: &Args,
    subject: &Subject,
    w: &[f64],
    tunables: &[Tunable],
    pool: &rayon::ThreadPool,
    stop: &Arc<AtomicBool>,
) -> anyhow::Result<MatchReport> {
    let start: Vec<f64> = tunables.iter().map(|t| t.start).collect();
    let (a, b) = (subject.player(w)?, subject.player(&start)?);
    let gen = RandomOpenings {
        seed: args.check_seed,
        plies: args.opening_plies,
        ..RandomOpenings::default()
    };
    let plan = MatchPlan {
        openings: gen.openings(args.check_openings, &ModelEvaluator::default_material()),
        options: args.limits.options(DEFAULT_NODES).interrupt(stop.clone()),
        sprt: None,
        sprt_stop: SprtStop::Never,
    };
    eprintln!(
        "final check: the result against its start, {} games",
        plan.openings.len() * 2
    );
    let bar = crate::progress::games_bar(plan.openings.len() as u64 * 2);
    let on_event = |e: engine::play::matches::MatchEvent<'_>| {
        if let engine::play::matches::MatchEvent::Game(_) = e {
            bar.inc(1)
        }
    };
    let report = pool.install(|| run_match(&a, &b, &plan, &on_event));
    bar.finish_and_clear();
    Ok(report)
}
