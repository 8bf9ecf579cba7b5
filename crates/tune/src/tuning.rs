//! The tuning subcommands, one per `optim::Method` (`lbfgs`, `gauss-newton`, ...): options in,
//! `texel::job::tune`, the summary out, then the optional `--verify` match
//! (`bootstrap::verify`).

use std::path::PathBuf;

use crate::progress::games_bar;
use bootstrap::verify::{self, Verify};
use engine::play::matches::MatchEvent;
use indicatif::ProgressBar;

mod args;
mod run_as;

pub use args::{interrupt_flag, ArgSource, ReadArgs, RunArgs, ThreadsArg};
use run_as::run_as;

/// A tuning subcommand's options: the run's, then the verification match's.
#[derive(clap::Args, Clone, Debug)]
pub struct TuneArgs {
    #[command(flatten)]
    pub args: RunArgs,
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `--verify`: a match after the run, the kept weights against the start (and a reference).
#[derive(clap::Args, Clone, Debug)]
pub struct VerifyArgs {
    /// After the run, play N openings (each with both colours, random 8-ply openings from
    /// --seed, as `tune match`) of the kept weights against the start weights, and against
    /// --reference when given; print the Elo difference with its pentanomial 95% interval and
    /// write it into summary.json (`verify`, `verify_reference`). 0: no match.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub verify: usize,
    /// Nodes per move in the --verify match.
    #[arg(long, default_value_t = 10_000, value_name = "NODES")]
    pub verify_nodes: u64,
    /// With --verify: also play the kept weights against these weights (JSON by name, any
    /// model), e.g. ../shared/reference/pesto-psqt.json.
    #[arg(long, value_name = "FILE", requires = "verify")]
    pub reference: Option<PathBuf>,
}

/// A tuning subcommand: a built-in model (then the optional `--verify` match) or, with
/// `--trace`, an engine's traced model, through the same run ([`run_as`]).
pub fn run(method: optim::Method, all: TuneArgs) -> anyhow::Result<()> {
    let threads = all.args.threads.clone();
    threads.install(|| run_in_pool(method, all))
}

/// [`run`] on the thread pool of `--threads`.
fn run_in_pool(method: optim::Method, all: TuneArgs) -> anyhow::Result<()> {
    if all.args.source.traced.files.is_traced() {
        if all.verify.verify > 0 {
            anyhow::bail!(
                "--verify plays the built-in models' matches; an engine's traced model is \
                 played with its new weights by the engine itself (tune match uci:...)"
            );
        }
        if let Some((_, out)) = run_as::<texel::traced::Traced>(method, &all.args)? {
            print!(
                "{}",
                games_hint(&out, all.args.source.traced.files.manifest.as_deref())
            );
        }
        return Ok(());
    }
    // Read the reference first: a bad file should not cost a whole run.
    let verify = &all.verify;
    let reference = match &verify.reference {
        Some(p) if verify.verify > 0 => Some(verify::reference(p)?),
        _ => None,
    };
    let Some((tuned, out)) = run_as::<eval::Model>(method, &all.args)? else {
        return Ok(());
    };
    let args = &all.args;
    if verify.verify > 0 {
        let plan = Verify {
            openings: verify.verify,
            nodes: verify.verify_nodes,
            seed: args.split.seed,
        }
        .plan();
        let (kept, opponents) = verify::players(&tuned, reference)?;
        let stop = interrupt_flag();
        for opponent in &opponents {
            let bar = if args.quiet {
                ProgressBar::hidden()
            } else {
                games_bar(plan.openings.len() as u64 * 2)
            };
            let on_event = |e: MatchEvent<'_>| {
                if let MatchEvent::Game(_) = e {
                    bar.inc(1);
                }
            };
            let report = verify::play(&out, &kept, opponent, &plan, &on_event, &stop)?;
            bar.finish_and_clear();
            print!("{}", report.to_text("kept", &opponent.name));
            if report.interrupted {
                eprintln!("(interrupted: the verification match is not written)");
                return Ok(());
            }
        }
    }
    Ok(())
}

/// What a traced run's result is worth is decided in games, not by its loss: the command that
/// plays the new integer weights against the manifest's, both in the engine.
fn games_hint(out: &std::path::Path, manifest: Option<&std::path::Path>) -> String {
    let start = manifest.map_or("MANIFEST".into(), |m| m.display().to_string());
    format!(
        "\nA lower loss is not Elo: fits like this one, from an engine's shipped weights on \
         positions of other engines' games, lost 60 to 230 Elo to those weights \
         (docs/engine-authors.md). Before you keep them, play them in your engine:\n  \
         tune match uci:ENGINE uci:ENGINE --weights-a {} --weights-b {start} --openings 200 \
         --nodes 5000\nor let `tune loop` tune on your engine's own games and keep only what \
         its gates prove (docs/loop.md).\n",
        out.join("weights-int.json").display()
    )
}

#[cfg(test)]
mod tests;
