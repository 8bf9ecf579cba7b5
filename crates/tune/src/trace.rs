//! `tune trace`: every position's trace from an external engine's own evaluation, through
//! the trace protocol (`position fen FEN`, `trace`); the logic is in `engine::play::trace_run`
//! and `engine::play::runner`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context as _};
use engine::play::runner::RunEvent;
use engine::play::trace_run::{
    ask_manifest, load_manifest, trace_positions, write_manifest, EngineManifest, TraceSettings,
};

/// Options of `tune trace`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions to trace, with their labels: EPD, PGN or caches (any format `tune` reads).
    #[arg(required_unless_present = "manifest_out")]
    files: Vec<PathBuf>,
    /// The engine's command line, split as a shell would (e.g. "./myengine --trace"). It is
    /// sent `position fen FEN` and `trace` for every position, and answers one line
    /// `trace phase N; eval X; t i:w:b ...` (docs/trace-format.md); no UCI handshake.
    #[arg(long, value_name = "CMD ARGS")]
    engine: String,
    /// The trace lines (text; `.zst` or `.gz` compress): each input position with its labels
    /// and the engine's trace. Progress goes to OUT.progress first: rerun the same command to
    /// continue.
    #[arg(
        short,
        long,
        value_name = "OUT",
        required_unless_present = "manifest_out"
    )]
    output: Option<PathBuf>,
    /// The manifest the engine's answers are checked against (default: the engine's answer
    /// to `manifest`).
    #[arg(long, value_name = "M.json")]
    manifest: Option<PathBuf>,
    /// Ask the engine for its manifest (`manifest`) and write it here (indented JSON).
    #[arg(long, value_name = "M.json")]
    manifest_out: Option<PathBuf>,
    /// Engine processes in parallel (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: Option<u32>,
    /// Seconds the engine may take to answer one `trace` before it counts as hung.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    timeout: f64,
    /// Stop at the first engine failure (crash, hang, malformed answer) with an error naming
    /// the engine and the position, instead of restarting the engine and skipping it.
    #[arg(long)]
    strict: bool,
    /// A UCI option for the engine, e.g. `--uci-option Hash=16` (repeatable): sent as
    /// `setoption name NAME value VALUE` to every engine process it starts, before the
    /// manifest and the first position.
    #[arg(long = "uci-option", value_name = "NAME=VALUE")]
    uci_options: Vec<String>,
    /// EPD results are from the side to move's point of view.
    #[arg(long)]
    stm_results: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!(
            "--timeout must be a positive number of seconds, not {}",
            args.timeout
        );
    }
    let mut settings = TraceSettings::new(&args.engine);
    for o in &args.uci_options {
        let (name, value) = crate::uci_option::split("--uci-option", o)?;
        settings.engine = settings.engine.clone().option(name, value);
    }
    settings.timeout = Duration::from_secs_f64(args.timeout);
    settings.strict = args.strict;
    settings.jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let manifest = manifest(&args, &settings)?;
    let Some(output) = &args.output else {
        return Ok(());
    };
    let input = crate::positions::load_input(&args.files, args.stm_results)?;
    let stop = crate::datagen::interrupt_flag(
        "stopping the engines; the finished traces are kept for a rerun",
    );
    let mut bar = crate::progress::EngineRunBar::new("traced");
    let mut on_event = |e: RunEvent<'_>| bar.on_event(e);
    let out = trace_positions(
        &input,
        &manifest.manifest,
        &manifest.json,
        &settings,
        output,
        &mut on_event,
        &stop,
    );
    bar.finish();
    let out = out?;
    crate::progress::engine_run_summary(
        "traced",
        &format!("`{}`", args.engine),
        &out,
        settings.jobs,
        (output, ""),
    );
    Ok(())
}

/// The manifest answers are checked against (`--manifest`, else the engine's), after
/// writing the engine's to `--manifest-out`.
fn manifest(args: &Args, settings: &TraceSettings) -> anyhow::Result<EngineManifest> {
    if let (Some(path), None) = (&args.manifest, &args.manifest_out) {
        return Ok(load_manifest(path)?);
    }
    let m = ask_manifest(settings).with_context(|| {
        if args.manifest.is_none() && args.manifest_out.is_none() {
            "asking the engine for its manifest (give one with --manifest)"
        } else {
            "asking the engine for its manifest"
        }
    })?;
    if let Some(path) = &args.manifest_out {
        write_manifest(path, &m)?;
        println!(
            "wrote the manifest of `{}` to {} ({} weights)",
            args.engine,
            path.display(),
            m.manifest.weights().len()
        );
    }
    match &args.manifest {
        Some(path) => Ok(load_manifest(path)?),
        None => Ok(m),
    }
}
