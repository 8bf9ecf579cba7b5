//! `tune stats`: a summary of a file of labelled positions.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

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

/// `writeln!` into a String, which cannot fail.
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
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

    let mut out = String::new();
    let n = samples.len();
    outln!(out, "file:      {}", args.file.display());
    outln!(out, "loaded in: {:.3} s", load_time.as_secs_f64());
    out.push_str(&report.to_string());

    let mut games: Vec<u32> = samples.iter().map(|s| s.game).collect();
    games.sort_unstable();
    games.dedup();
    outln!(out, "games:          {}", games.len());
    let mean = samples.iter().map(|s| s.result).sum::<f64>() / n.max(1) as f64;
    outln!(out, "mean result:    {mean:.4} (White's view)");

    let scores: Vec<f64> = samples
        .iter()
        .filter_map(|s| s.score.map(f64::from))
        .collect();
    if !scores.is_empty() {
        let m = scores.iter().sum::<f64>() / scores.len() as f64;
        let sd =
            (scores.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / scores.len() as f64).sqrt();
        outln!(out, "score mean/sd:  {m:.1} / {sd:.1} cp (White's view)");
    }

    let mut hist = [0u64; 25];
    for s in &samples {
        hist[usize::from(s.board.phase())] += 1;
    }
    let max = hist.iter().copied().max().unwrap_or(0).max(1);
    outln!(
        out,
        "phase histogram (24 = all pieces, 0 = pawns and kings):"
    );
    for (p, &c) in hist.iter().enumerate().rev() {
        let bar = "#".repeat((50 * c / max) as usize);
        outln!(
            out,
            "  {p:>2} {c:>9} {:>5.1}% {bar}",
            100.0 * c as f64 / n.max(1) as f64
        );
    }
    // Ignore a closed pipe (`tune stats x | head`).
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    for w in data::warnings(&samples, &[], 0.0) {
        eprintln!("{w}");
    }
    Ok(())
}
