//! `tune compare`: every optimiser on the same data, model and budget.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use optim::{Control, Method};
use tapered::Stop;
use texel::setup::prepare_as;
use texel::Tunable;

use crate::tuning;

/// Options of `tune compare`: the problem options of the tuning subcommands, the methods, and
/// the budget each method gets (default: 300 passes over the training data).
#[derive(clap::Args)]
pub struct Args {
    /// Methods to compare, comma-separated (default: all).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = Method::ALL)]
    pub methods: Vec<Method>,
    /// Output directory for compare.md, compare.json, compare-time.svg and compare-passes.svg
    /// (default: runs/compare-<model>).
    #[arg(long = "compare-out", value_name = "DIR")]
    pub compare_out: Option<PathBuf>,
    /// File name stem of the outputs.
    #[arg(long, default_value = "compare")]
    pub stem: String,
    /// Do not run: re-render the table and plots of a saved comparison (its .json).
    #[arg(long, value_name = "JSON")]
    pub render: Option<PathBuf>,
    #[command(flatten)]
    pub common: tuning::RunArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(json) = &args.render {
        let cmp = texel::compare::Comparison::read(json)?;
        let dir = args
            .compare_out
            .clone()
            .or_else(|| json.parent().map(PathBuf::from))
            .unwrap_or_default();
        let files = cmp.write(&dir, &args.stem)?;
        println!("{}\n\n{}", cmp.title, cmp.markdown());
        for f in files {
            println!("wrote {}", f.display());
        }
        return Ok(());
    }
    let mut common = args.common.clone();
    if common.resume {
        bail!("--resume does not apply to compare");
    }
    if common.source.resolve_every > 0 {
        bail!(
            "--resolve-every does not apply to compare (every method is compared on the same \
             leaves); run one method with it instead"
        );
    }
    if common.budget.time.is_none() && common.budget.max_passes.is_none() {
        common.budget.max_passes = Some(300.0);
    }
    if common.objective.l2 == Some(optim::regularise::L2::Auto) {
        anyhow::bail!("tune compare runs every method at one L2 strength: give --l2 a number");
    }
    common.threads.clone().install(|| {
        if common.source.traced.files.is_traced() {
            compare_as::<texel::traced::Traced>(&args, &common)
        } else {
            compare_as::<eval::Model>(&args, &common)
        }
    })
}

/// Compares the methods on `M` (a built-in model or traces), as `common` defines the problem.
fn compare_as<M: Tunable<Source: tuning::ArgSource>>(
    args: &Args,
    common: &tuning::RunArgs,
) -> anyhow::Result<()> {
    let control = Arc::new(Control::with_interrupt_flag(tuning::interrupt_flag()));
    let setup = match prepare_as::<M>(
        &common.setup_options()?,
        Stop::When(&|| control.interrupted()),
    ) {
        Err(texel::TexelError::Interrupted) => {
            eprintln!("interrupted while loading the data: nothing was compared or written");
            std::process::exit(130);
        }
        r => r?,
    };
    for n in &setup.notes {
        eprintln!("{n}");
    }
    let k = setup.train.config().link.k;
    let title = format!(
        "{} model, {} training / {} validation positions, K = {:.3}",
        setup.model.model_name(),
        setup.train.set().len(),
        setup.valid.as_ref().map_or(0, |v| v.set().len()),
        k
    );
    eprintln!("{title}");
    // The budget is passes or time; iterations are not limited unless asked for.
    let cfg = common.run_config(Method::Lbfgs, None);
    let cmp = texel::compare::compare(
        &setup.train,
        setup.valid.as_ref(),
        &setup.start,
        &texel::compare::CompareConfig {
            methods: args.methods.clone(),
            budget: cfg.budget,
            stopping: cfg.stopping,
            solvers: cfg.solvers,
            selection: cfg.selection,
            progress: crate::progress::bars(!common.quiet),
            title: title.clone(),
        },
        &control,
    )?;
    let dir = args
        .compare_out
        .clone()
        .or(common.out.clone())
        .unwrap_or_else(|| {
            // `psqt`, `full`, `traced` (not the engine's name in brackets).
            let name = setup.model.model_name();
            let kind = name.split(' ').next().unwrap_or("model");
            PathBuf::from("runs").join(format!("compare-{kind}"))
        });
    let files = cmp.write(&dir, &args.stem)?;
    println!("{title}\n\n{}", cmp.markdown());
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
