//! [`run_as`]: one tuning run of any [`texel::Tunable`] model, as every tuning subcommand
//! does it (options in, `texel::job::tune_as`, the notes and the summary out).

use std::path::PathBuf;
use std::sync::Arc;

use optim::Control;
use texel::job::Job;

use super::args::{interrupt_flag, ArgSource, RunArgs, DEFAULT_MAX_ITERS};

/// Tunes `M` as `args` ask, printing the notes and the summary; the run and its directory,
/// `None` if it was interrupted (the best weights so far are saved).
pub(super) fn run_as<M: texel::Tunable<Source: ArgSource>>(
    method: optim::Method,
    args: &RunArgs,
) -> anyhow::Result<Option<(texel::job::Tuned<M>, PathBuf)>> {
    let mut args = args.clone();
    let out = match (&args.out, args.resume) {
        (Some(o), _) => o.clone(),
        (None, true) => anyhow::bail!("--resume needs --out DIR (the run to continue)"),
        (None, false) => texel::job::default_out(method),
    };
    if args.resume {
        args.weights = Some(texel::job::resume_weights(&out)?);
    }
    let job = Job {
        setup: args.setup_options()?,
        config: args.run_config(method, Some(DEFAULT_MAX_ITERS)),
        resolve_every: args.source.resolve_every,
        out: out.clone(),
        append_log: args.resume,
        l2_path: args.objective.l2.and_then(|l| l.grid()),
        emit: args.finish.emit.clone(),
        polish_passes: args.finish.polish_passes,
    };
    let control = Arc::new(Control::with_interrupt_flag(interrupt_flag()));
    let tuned = texel::job::tune_as::<M>(&job, control, &mut |setup| {
        for n in &setup.notes {
            eprintln!("{n}");
        }
        eprintln!(
            "recorded {} + {} positions in {:.1} s; K = {:.4}{}",
            setup.train.set().len(),
            setup.valid.as_ref().map_or(0, |v| v.set().len()),
            setup.seconds,
            setup.train.config().link.k,
            if setup.k_fitted { " (fitted)" } else { "" }
        );
    });
    let tuned = match tuned {
        // Ctrl-C while loading: nothing to save; the exit code of an interrupted command.
        Err(texel::TexelError::Interrupted) => {
            eprintln!("interrupted while loading the data: nothing was tuned or written");
            std::process::exit(130);
        }
        r => r?,
    };
    print!("{}", tuned.summary.to_text());
    if tuned.outcome.interrupted {
        eprintln!("(interrupted: the best weights so far were saved)");
        return Ok(None);
    }
    Ok(Some((tuned, out)))
}
