//! `tune extract`: labelled positions from PGN games (or EPD / cache files) to an EPD text file
//! or a binary cache.

use std::path::PathBuf;
use std::time::Instant;

use data::files::{read_all, valid_path, write_samples, OutputKind, Progress};
use data::{split_by_game, ExtractOptions, Filter, LoadOptions, Report, Sample};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `tune extract`.
#[derive(clap::Args)]
pub struct Args {
    /// Input files: PGN games, EPD text or binary caches; plain, gzip or zstd (told apart by
    /// content). EPD and cache records go through --filter, --skip-check, --max-per-game and
    /// --dedup like PGN positions; --skip-plies, --keep-book and --skip-mated need a game's
    /// moves and apply to PGN only.
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// Output: `.epd` writes EPD text (`[1.0]` results, `ce` scores), `.bin` or `.gtc` the binary
    /// cache; a further `.zst` compresses (`.epd.gz` also works).
    #[arg(short, long)]
    output: PathBuf,
    /// Keep positions of moves marked `{book}` (skipped by default).
    #[arg(long)]
    keep_book: bool,
    /// Skip the first N plies of every game. The default, 8, with `--filter quiet`, is the
    /// extraction whose weights played best; `--skip-plies 0 --filter none` keeps every position.
    #[arg(long, default_value_t = 8)]
    skip_plies: u32,
    /// Skip positions with the side to move in check.
    #[arg(long)]
    skip_check: bool,
    /// Skip games that ended in checkmate on the board.
    #[arg(long)]
    skip_mated: bool,
    /// Keep at most M positions per game, sampled at random (reproducibly from --seed).
    #[arg(long, value_name = "M")]
    max_per_game: Option<usize>,
    /// Drop repeated positions (Zobrist hash), across all inputs.
    #[arg(long)]
    dedup: bool,
    /// none: every position; quiet: only positions whose static evaluation equals the
    /// quiescence score (Texel; the default); qleaf: each position replaced by its quiescence
    /// leaf (WukongJS).
    #[arg(long, default_value = "quiet")]
    filter: Filter,
    /// Evaluation model the filter searches with (psqt, full).
    #[arg(long, default_value = "psqt")]
    model: eval::ModelKind,
    /// Weights (JSON) for the filter's evaluation (its model is the file's, overriding --model);
    /// the model's default weights if absent.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// EPD inputs give results from the side to move's point of view.
    #[arg(long)]
    stm_results: bool,
    /// Also split off this fraction of the games as a validation set, written next to the
    /// output with `.valid` inserted in its name.
    #[arg(long, value_name = "F")]
    valid_fraction: Option<f64>,
    /// Seed of per-game sampling and of the split.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop at the first malformed line or game instead of reporting and skipping it.
    #[arg(long)]
    strict: bool,
    /// The inputs are an engine's traces under this manifest (docs/trace-format.md): convert
    /// them to the binary trace cache (`GTTRACE1`; `.zst`/`.gz` compress), or to text when the
    /// output's name has `.txt` in it. The position options above do not apply.
    #[arg(long, value_name = "M.json")]
    manifest: Option<PathBuf>,
    /// Write at most N positions (or traces): the first N extracted, in input order, before
    /// the validation split; the report still counts everything read.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(manifest) = &args.manifest {
        return crate::traced::extract(
            manifest,
            &args.games,
            &args.output,
            args.strict,
            args.limit,
        );
    }
    let start = Instant::now();
    OutputKind::of(&args.output)?;
    if let Some(f) = args.valid_fraction {
        if !(0.0..1.0).contains(&f) {
            anyhow::bail!("--valid-fraction must be at least 0 and below 1, not {f}");
        }
    }
    let opts = extract_options(&args)?;
    note_record_inputs(&args);
    let lopts = LoadOptions {
        strict: args.strict,
        stm_results: args.stm_results,
        extract: opts,
    };
    let (mut samples, report) = read_with_bar(&args.games, &lopts)?;
    let extracted = start.elapsed();
    if let Some(n) = args.limit.filter(|&n| n < samples.len()) {
        eprintln!(
            "--limit {n}: keeping the first {n} of {} positions",
            samples.len()
        );
        samples.truncate(n);
    }
    if samples.is_empty() {
        // Writing nothing over the output would only destroy what was there.
        eprint!("{report}");
        anyhow::bail!(
            "no positions extracted (see the report above): {} not written",
            args.output.display()
        );
    }
    write_split(&args, samples, &report)?;
    eprintln!(
        "time: {:.2} s ({:.2} s reading and extracting)",
        start.elapsed().as_secs_f64(),
        extracted.as_secs_f64()
    );
    Ok(())
}

/// What to extract from each game, and with which model (a weights file names its own).
fn extract_options(args: &Args) -> anyhow::Result<ExtractOptions> {
    let (model, weights) = match &args.weights {
        Some(p) => {
            let (m, w) = eval::load_weights(p)?;
            (m.kind(), Some(w))
        }
        None => (args.model, None),
    };
    Ok(ExtractOptions {
        skip_book: !args.keep_book,
        skip_plies: args.skip_plies,
        skip_check: args.skip_check,
        skip_mated_games: args.skip_mated,
        max_per_game: args.max_per_game,
        dedup: args.dedup,
        filter: args.filter,
        model,
        weights,
        strict: args.strict,
        seed: args.seed,
    })
}

/// Says that `--skip-plies` and `--skip-mated` leave the record (non-PGN) inputs alone.
fn note_record_inputs(args: &Args) {
    let records: Vec<&PathBuf> = args
        .games
        .iter()
        .filter(|p| !matches!(data::files::detect(p), Ok(data::Format::Pgn)))
        .collect();
    if let (Some(first), true) = (records.first(), args.skip_plies > 0 || args.skip_mated) {
        eprintln!(
            "note: --skip-plies and --skip-mated need the games' moves: they apply to PGN inputs \
             only, not to {}{}",
            first.display(),
            match records.len() {
                1 => String::new(),
                n => format!(" and {} other record file(s)", n - 1),
            }
        );
    }
}

/// Every input read and extracted, with a progress bar.
fn read_with_bar(games: &[PathBuf], lopts: &LoadOptions) -> anyhow::Result<(Vec<Sample>, Report)> {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{spinner} extracting [{bar:40}] {bytes}/{total_bytes} {msg} ({eta})",
        )?
        .progress_chars("=> "),
    );
    let read = read_all(games, lopts, &mut |p| match p {
        Progress::Pgn {
            bytes,
            total,
            games,
        } => {
            bar.set_length(total);
            bar.set_position(bytes);
            bar.set_message(format!("{games} games"));
        }
        Progress::Reading(path) => {
            bar.set_style(ProgressStyle::default_spinner());
            bar.set_message(format!("reading {}", path.display()));
            bar.tick();
        }
    })?;
    bar.finish_and_clear();
    Ok(read)
}

/// The samples split by game (with `--valid-fraction`) and written, then the report, the data
/// warnings and what was written.
fn write_split(args: &Args, samples: Vec<Sample>, report: &Report) -> anyhow::Result<()> {
    let (train, valid) = match args.valid_fraction {
        Some(f) if f > 0.0 => split_by_game(samples, f, args.seed),
        _ => (samples, Vec::new()),
    };
    write_samples(&args.output, &train)?;
    let mut written = format!(
        "wrote {} positions to {}",
        train.len(),
        args.output.display()
    );
    if !valid.is_empty() || args.valid_fraction.is_some_and(|f| f > 0.0) {
        let vp = valid_path(&args.output);
        write_samples(&vp, &valid)?;
        written += &format!(", {} validation positions to {}", valid.len(), vp.display());
    }
    eprint!("{report}");
    for w in data::warnings(&train, &valid, args.valid_fraction.unwrap_or(0.0)) {
        eprintln!("{w}");
    }
    eprintln!("{written}");
    Ok(())
}
