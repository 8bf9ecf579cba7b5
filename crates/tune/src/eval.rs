//! `tune eval`: how good a weights file is on any data (losses, calibration, splits by phase
//! and material), in one pass; no file is written unless `--plot` asks for one.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use texel::judge::{self, JudgeOptions};

/// What `tune eval` and `tune explain` share: the weights, the data, `K` and the output form.
#[derive(clap::Args, Clone, Debug)]
pub struct Input {
    /// The weights (JSON by name, as `tune` writes them); the model is the file's.
    #[arg(value_name = "WEIGHTS.json")]
    pub weights: PathBuf,
    /// Data files: EPD, PGN or a binary cache, plain, gzip or zstd (detected from the content).
    #[arg(long, num_args = 1.., value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
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

impl Input {
    /// Reads the weights and loads the data, printing one note per file on stderr.
    pub fn load(&self) -> anyhow::Result<(eval::Model, Vec<f64>, Vec<data::Sample>)> {
        let (model, w) = eval::load_weights(&self.weights)?;
        let (samples, notes) =
            texel::setup::load_samples(&self.data, self.read.strict, &self.read.extract())?;
        for n in notes {
            eprintln!("{n}");
        }
        Ok((model, w, samples))
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
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let (model, w, samples) = args.input.load()?;
    let loaded = t0.elapsed().as_secs_f64();
    let opts = JudgeOptions {
        k: args.input.k,
        bin_width: args.bin_width,
        bin_limit: args.bin_limit,
    };
    let j = judge::judge(&model, &w, &samples, &opts)?;
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
