//! The options that tune an engine's traced evaluation (`--trace FILES --manifest M.json`)
//! instead of a built-in model, shared by every tuning subcommand, `compare`, `eval` and
//! `explain`.

use std::path::PathBuf;

use texel::setup::TraceOptions;

/// Trace files and their manifest.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceFiles {
    /// Trace files (an engine's evaluation traced per position, docs/trace-format.md; text or
    /// the binary cache, plain, gzip or zstd): tune the engine's own parameters, as
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
}

impl TraceArgs {
    /// The setup's trace options, `None` without traces.
    pub fn options(&self) -> Option<TraceOptions> {
        let manifest = self.files.manifest.clone()?;
        Some(TraceOptions {
            verify: !self.no_verify_traces,
            tolerance: self.trace_tolerance,
            ..TraceOptions::new(manifest, self.files.trace.clone())
        })
    }
}
