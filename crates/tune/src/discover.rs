//! `tune discover`: which candidate groups of terms (the catalogue) the evaluation lacks, ranked
//! by their held-out gain with the evaluation frozen (`texel::discover`, docs/discover.md).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use texel::discover::{self, DiscoverOptions, Positions};

/// Options of `tune discover`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    traced: crate::traced::TraceFiles,
    /// Data files for gradtune's own models: EPD, PGN or a binary cache, plain, gzip or zstd.
    #[arg(long, num_args = 1.., value_name = "FILE", conflicts_with = "manifest")]
    data: Vec<PathBuf>,
    /// gradtune's model examined with --data: psqt or full (default: the --weights file's,
    /// else psqt).
    #[arg(long, conflicts_with = "manifest")]
    model: Option<eval::ModelKind>,
    /// The model's weights (JSON by name); default: the model's defaults.
    #[arg(long, value_name = "W.json", conflicts_with = "manifest")]
    weights: Option<PathBuf>,
    #[command(flatten)]
    read: crate::tuning::ReadArgs,
    /// Where discover.json and discover.svg go.
    #[arg(long, default_value = "discover", value_name = "DIR")]
    out: PathBuf,
    /// Fraction of the games held out (the gains are measured on them).
    #[arg(long, default_value_t = 0.1)]
    valid_fraction: f64,
    /// Seed of the split by game (as the tuning commands') and of the control's permutation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The ridge on each group's values, in positions' worth: an element seen with net count 1
    /// in n positions near even scores is shrunk by about n / (n + L2).
    #[arg(long, default_value_t = discover::DEFAULT_L2, value_name = "L2")]
    l2: f64,
    /// The family-wise significance level (Holm over the groups; Bonferroni at each greedy
    /// step).
    #[arg(long, default_value_t = discover::DEFAULT_LEVEL)]
    level: f64,
    /// At most this many groups chosen by the greedy forward selection.
    #[arg(long, default_value_t = 5, value_name = "N")]
    select: usize,
    /// Only these catalogue groups (default: all of them).
    #[arg(long, num_args = 1.., value_name = "GROUP")]
    groups: Vec<String>,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// The positions with their base scores, the model's name and the groups already in it.
fn load(args: &Args, stop: &AtomicBool) -> anyhow::Result<(Positions, String, Vec<String>)> {
    if let Some(manifest) = &args.traced.manifest {
        let m = trace::Manifest::load(manifest)?;
        let flag = tapered::Stop::Flag(stop);
        let (p, skipped, report) =
            discover::from_traces(&m, &args.traced.trace, args.read.strict, flag)?;
        eprintln!("{report}; {skipped} left out (board or evaluation failed)");
        let in_model = discover::in_manifest(&m);
        return Ok((p, m.engine().to_string(), in_model));
    }
    if args.data.is_empty() {
        anyhow::bail!("give --trace FILES --manifest M.json, or --data FILES");
    }
    let (model, w) = match &args.weights {
        Some(path) => {
            let (model, w) = eval::load_weights(path)?;
            if let Some(kind) = args.model.filter(|k| *k != model.kind()) {
                anyhow::bail!(
                    "--model {} but {} holds {} weights",
                    kind.name(),
                    path.display(),
                    model.kind().name()
                );
            }
            (model, w)
        }
        None => {
            let model = eval::Model::new(args.model.unwrap_or(eval::ModelKind::Psqt));
            let w = model.default_weights();
            (model, w)
        }
    };
    let (samples, notes) =
        texel::setup::load_samples(&args.data, args.read.strict, &args.read.extract())?;
    for n in notes {
        eprintln!("{n}");
    }
    let (p, skipped) = discover::from_samples(&model, &w, &samples);
    if skipped > 0 {
        eprintln!("{skipped} positions left out (their boards do not decode)");
    }
    Ok((
        p,
        model.kind().name().to_string(),
        discover::in_builtin(&model),
    ))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let stop = crate::tuning::interrupt_flag();
    let mut opts = DiscoverOptions {
        valid_fraction: args.valid_fraction,
        seed: args.seed,
        l2: args.l2,
        level: args.level,
        select: args.select,
        groups: args.groups.clone(),
        progress: crate::progress::bars(!args.quiet),
        ..DiscoverOptions::default()
    };
    opts.check()?;
    let (positions, model, in_model) = load(&args, &stop)?;
    eprintln!(
        "{} positions loaded in {:.1} s",
        positions.len(),
        t0.elapsed().as_secs_f64()
    );
    opts.in_model = in_model;
    opts.model = model;
    let found = discover::discover(&positions, &opts, tapered::Stop::Flag(&stop))?;
    found.write(&args.out)?;
    let text = found.to_text();
    // Ignore a closed pipe (`tune discover ... | head`).
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    eprintln!(
        "wrote {} and {} in {:.1} s",
        args.out.join("discover.json").display(),
        args.out.join("discover.svg").display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
