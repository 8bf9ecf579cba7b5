//! `tune eval`: how good a weights file is on any data (losses, calibration, splits by phase
//! and material), in one pass; no file is written unless `--plot` asks for one.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use texel::judge::{self, JudgeOptions};

/// What `tune eval` and `tune explain` share: the weights, the data, `K` and the output form.
#[derive(clap::Args, Clone, Debug)]
pub struct Input {
    /// The weights (JSON by name, as `tune` writes them); the model is the file's. With
    /// --trace: a manifest whose values are judged (a traced run's weights.json), by default
    /// the --manifest's own.
    #[arg(value_name = "WEIGHTS.json", required_unless_present = "manifest")]
    pub weights: Option<PathBuf>,
    /// Data files: EPD, PGN or a binary cache, plain, gzip or zstd (detected from the content).
    #[arg(
        long,
        num_args = 1..,
        value_name = "FILE",
        required_unless_present = "manifest",
        conflicts_with = "manifest"
    )]
    pub data: Vec<PathBuf>,
    #[command(flatten)]
    pub traced: crate::traced::TraceFiles,
    #[command(flatten)]
    pub read: crate::tuning::ReadArgs,
    /// The sigmoid's scale K. eval: also report the losses at this K and draw the tables at
    /// it; explain: the K of the loss and the residuals. Default: fitted for the squared error.
    #[arg(long)]
    pub k: Option<f64>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
}

/// The weights and data of `tune eval` and `tune explain`.
pub enum Judged {
    /// A built-in model's weights on `data` samples.
    Builtin(eval::Model, Vec<f64>, Vec<data::Sample>),
    /// An engine's traced model at some weights on its traces.
    Traced(texel::traced::Traced, Vec<f64>, Vec<trace::Trace>),
}

impl Input {
    /// Reads the weights and loads the data (or the manifest, weights and traces), printing
    /// one note per file on stderr.
    pub fn load(&self) -> anyhow::Result<Judged> {
        if let Some(manifest) = &self.traced.manifest {
            let traced = texel::traced::Traced::load(manifest)?;
            let w = match &self.weights {
                Some(p) => texel::traced::start_weights(&traced.manifest, p)?,
                None => traced.manifest.initial_weights(),
            };
            let files =
                texel::setup::TraceOptions::new(manifest.clone(), self.traced.trace.clone());
            let (traces, note) = texel::traced::read(&files, &traced.manifest, self.read.strict)?;
            eprintln!("{note}");
            return Ok(Judged::Traced(traced, w, traces));
        }
        let Some(weights) = &self.weights else {
            anyhow::bail!("give the weights to judge (WEIGHTS.json)");
        };
        let (model, w) = eval::load_weights(weights)?;
        let (samples, notes) =
            texel::setup::load_samples(&self.data, self.read.strict, &self.read.extract())?;
        for n in notes {
            eprintln!("{n}");
        }
        Ok(Judged::Builtin(model, w, samples))
    }
}

/// Options of `tune eval`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Width of the calibration bins in centipawns.
    #[arg(long, default_value_t = 50.0, value_name = "CP")]
    bin_width: f64,
    /// The calibration bins cover -CP..CP, with one open bin beyond each end.
    #[arg(long, default_value_t = 600.0, value_name = "CP")]
    bin_limit: f64,
    /// Write the calibration plot (predicted against observed result) to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    threads: crate::tuning::ThreadsArg,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let threads = args.threads.clone();
    threads.install(|| run_in_pool(args))
}

/// [`run`] on the thread pool of `--threads`.
fn run_in_pool(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let judged = args.input.load()?;
    let loaded = t0.elapsed().as_secs_f64();
    let opts = JudgeOptions {
        k: args.input.k,
        bin_width: args.bin_width,
        bin_limit: args.bin_limit,
    };
    let j = match &judged {
        Judged::Builtin(model, w, samples) => judge::judge(model, w, samples, &opts)?,
        Judged::Traced(traced, w, traces) => texel::traced::judge_traces(traced, w, traces, &opts)?,
    };
    if let Some(path) = &args.plot {
        texel::plot::write_svg(path, &j.calibration_svg()?)?;
    }
    let out = if args.input.json {
        serde_json::to_string_pretty(&j)? + "\n"
    } else {
        let mut s = j.to_text();
        if let Some(path) = &args.plot {
            s += &format!("\ncalibration plot: {}\n", path.display());
        }
        s
    };
    // Ignore a closed pipe (`tune eval ... | head`).
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    eprintln!(
        "{:.2} s ({loaded:.2} s loading)",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
