//! The options that tune an engine's traced model (`--trace FILES --manifest M.json`)
//! instead of a built-in model, shared by every tuning subcommand, `compare`, `eval` and
//! `explain`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use texel::setup::TraceOptions;

/// Trace files and their manifest.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceFiles {
    /// Trace files (one trace a position, docs/trace-format.md; text or the binary cache,
    /// plain, gzip or zstd): the model is the traced model, the engine's own parameters as
    /// --manifest declares them, instead of a built-in model.
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "manifest")]
    pub trace: Vec<PathBuf>,
    /// The engine's manifest (JSON: its parameters, terms and current values) for --trace.
    #[arg(long, value_name = "M.json", requires = "trace")]
    pub manifest: Option<PathBuf>,
}

impl TraceFiles {
    /// Whether traces are given.
    pub fn is_traced(&self) -> bool {
        self.manifest.is_some()
    }
}

/// The trace options of a tuning run: the files, and the verification before tuning.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceArgs {
    #[command(flatten)]
    pub files: TraceFiles,
    /// Tune traces even if their evaluations, rebuilt from the manifest's values, do not
    /// match the engine's own (`eval`): by default such a set is refused (see `tune verify`).
    #[arg(long, requires = "trace")]
    pub no_verify_traces: bool,
    /// The tolerance of that verification, in centipawns after rounding.
    #[arg(long, default_value_t = 1.0, value_name = "CP")]
    pub trace_tolerance: f64,
    /// A `tune discover` result: the manifest's ports of catalogue groups (parameters that
    /// declare `"catalogue": "<group>"`) start at their values plus the ranking's fitted ones
    /// (the greedy selection's joint fit for the groups it added; docs/discover.md).
    #[arg(long, value_name = "DISCOVER.json", requires = "trace")]
    pub discovered: Option<PathBuf>,
}

impl TraceArgs {
    /// The setup's trace options, `None` without traces.
    pub fn options(&self) -> Option<TraceOptions> {
        let manifest = self.files.manifest.clone()?;
        Some(TraceOptions {
            verify: !self.no_verify_traces,
            tolerance: self.trace_tolerance,
            discovered: self.discovered.clone(),
            ..TraceOptions::new(manifest, self.files.trace.clone())
        })
    }
}

/// `tune extract --manifest M.json TRACES -o OUT`: the traces read (malformed ones skipped and
/// counted, or the error with `strict`) and written as the binary cache, or as text when
/// `output`'s name has `.txt` in it; atomically. With `limit`, the first `limit` traces only.
pub fn extract(
    manifest: &Path,
    inputs: &[PathBuf],
    output: &Path,
    strict: bool,
    limit: Option<usize>,
) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let m = trace::Manifest::load(manifest)?;
    let (mut traces, report) = trace::read_traces(inputs, &m, &trace::ReadOptions { strict })?;
    eprintln!("{report}");
    if let Some(n) = limit.filter(|&n| n < traces.len()) {
        eprintln!(
            "--limit {n}: keeping the first {n} of {} traces",
            traces.len()
        );
        traces.truncate(n);
    }
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned());
    if name.is_some_and(|n| n.contains(".txt")) {
        trace::write_text(output, &traces, &m)?;
    } else {
        trace::write_binary(output, &traces)?;
    }
    println!(
        "{} traces written to {} in {:.1} s",
        traces.len(),
        output.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
