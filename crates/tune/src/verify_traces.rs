//! `tune verify`: engines' traced models rebuilt from its manifest and compared with
//! the engine's own, and every parameter that declares a catalogue group (a port of a term
//! `tune discover` proposed) compared with gradtune's own counts of it; exits with an error
//! (status 1) when any differs. The files are read once, a batch of traces at a time: the
//! memory does not grow with their number.

use std::io::Write as _;
use std::path::PathBuf;

use crate::traced::TraceFiles;

/// Traces read and verified at a time (4,096 of a large engine's are about 4 MB parsed).
const BATCH: usize = 1 << 12;

/// Options of `tune verify`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    files: TraceFiles,
    /// The largest difference allowed, in centipawns after rounding.
    #[arg(long, default_value_t = 1.0, value_name = "CP")]
    tolerance: f64,
    /// Rebuild the evaluations at these weights (a manifest of the same parameters, e.g. a
    /// traced run's weights.json) instead of the manifest's own values.
    #[arg(long, value_name = "W.json")]
    weights: Option<PathBuf>,
    /// Stop at the first malformed trace instead of skipping and counting it.
    #[arg(long)]
    strict: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Some(manifest) = &args.files.manifest else {
        anyhow::bail!("give the traces and their manifest: --trace FILES --manifest M.json");
    };
    let traced = texel::traced::Traced::load(manifest)?;
    let m = &traced.manifest;
    let w = match &args.weights {
        Some(p) => texel::traced::start_weights(m, p)?,
        None => m.initial_weights(),
    };
    let files = texel::setup::TraceOptions::new(manifest.clone(), args.files.trace.clone());
    let opts = trace::VerifyOptions {
        tolerance: args.tolerance,
        ..trace::VerifyOptions::default()
    };
    // One read of the files, a batch of traces alive at a time.
    let read = trace::ReadOptions {
        strict: args.strict,
    };
    let mut stream = trace::TraceStream::open(&files.files, m, read);
    let mut verifier = trace::Verifier::new(m, &w, &opts);
    let mut ports = trace::PortChecker::new(m, opts.max_listed)
        .map_err(|e| anyhow::anyhow!("{}: {e}", manifest.display()))?;
    let (mut batch, mut kept) = (Vec::new(), 0);
    while stream.next_batch(BATCH, &mut batch)? > 0 {
        kept += batch.len();
        verifier.add(&batch);
        ports.add(&batch);
    }
    let note = texel::traced::files_note(&files, kept, stream.report());
    let report = verifier.finish();
    let ports = ports.finish();
    // The traces kept, then the reports, on one stream so that they stay in that order however
    // the output is captured; a closed pipe (`tune verify ... | head`) is ignored.
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{note}\n{report}\n");
    for p in &ports {
        let _ = writeln!(out, "{p}");
    }
    drop(out);
    if report.checked == 0 {
        anyhow::bail!(
            "nothing verified: none of the {kept} traces gives the engine's own evaluation (`eval`)"
        );
    }
    if let Some(p) = ports.iter().find(|p| !p.passed()) {
        anyhow::bail!(
            "{} of {} traced positions count `{}` otherwise than catalogue group `{}` \
             (docs/catalogue.md defines it)",
            p.failed,
            p.checked,
            p.param,
            p.group
        );
    }
    if report.failed > 0 {
        anyhow::bail!(
            "{} of {} traced positions differ from the engine's own evaluation by more than {} cp",
            report.failed,
            report.checked,
            args.tolerance
        );
    }
    Ok(())
}
