//! `tune stats`: a summary of a file of labelled positions.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use data::stats::Summary;
use data::{load, LoadOptions};
use indicatif::ProgressBar;

/// Options of `tune stats`.
#[derive(clap::Args)]
pub struct Args {
    /// A binary cache, EPD text or PGN file (plain, gzip or zstd).
    file: PathBuf,
    /// EPD results are from the side to move's point of view.
    #[arg(long)]
    stm_results: bool,
    /// Stop at the first malformed line or game.
    #[arg(long)]
    strict: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let spinner =
        ProgressBar::new_spinner().with_message(format!("reading {}", args.file.display()));
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let start = Instant::now();
    let opts = LoadOptions {
        strict: args.strict,
        stm_results: args.stm_results,
        ..LoadOptions::default()
    };
    let (samples, report) = load(&args.file, &opts)?;
    let load_time = start.elapsed();
    spinner.finish_and_clear();
    let out = format!(
        "file:      {}\nloaded in: {:.3} s\n{report}{}",
        args.file.display(),
        load_time.as_secs_f64(),
        Summary::of(&samples)
    );
    // Ignore a closed pipe (`tune stats x | head`).
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    for w in data::warnings(&samples, &[], 0.0) {
        eprintln!("{w}");
    }
    Ok(())
}
