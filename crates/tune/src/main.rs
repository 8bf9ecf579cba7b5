//! `tune`: the gradtune command-line program, a thin layer over the library crates.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use optim::Method;

mod bench;
mod bench_traced;
mod bootstrap;
mod compare;
mod datagen;
mod discover;
mod emit;
mod eval;
mod explain;
mod extract;
mod label;
mod loop_cmd;
mod matches;
mod move_limits;
mod positions;
mod progress;
mod selfplay_cmd;
mod spsa;
mod stats;
mod trace;
mod traced;
mod tuning;
mod uci_option;
mod verify_traces;

/// Tune chess evaluation weights by Texel's method with exact gradients.
#[derive(Parser)]
#[command(name = "tune", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every optimiser on the same data and budget, and compare them.
    Compare(Box<compare::Args>),
    /// Extract labelled positions from PGN games (or EPD files).
    Extract(extract::Args),
    /// Summarise a file of labelled positions.
    Stats(stats::Args),
    /// Generate labelled positions by self-play.
    Datagen(datagen::Args),
    /// Play a match between two players (weights files or `uci:` engines) and report the Elo
    /// difference.
    Match(matches::Args),
    /// Texel's "your own games suffice": generations of self-play, L-BFGS tuning and an
    /// SPRT gate, with an Elo ladder (OUT/ladder.md, .json, .svg); resumable.
    ///
    /// Every option has a default: `tune bootstrap --out ladder` runs 6 generations of 8,000
    /// self-play games each. Rerun the same command on the same --out to continue after the
    /// last finished generation; Ctrl-C stops, keeping the finished ones.
    Bootstrap(bootstrap::Args),
    /// Self-play of any UCI engine with given weights: quiet positions with results and the
    /// engine's search scores, as EPD for `tune trace`; deterministic --shard I/N and --merge.
    Selfplay(selfplay_cmd::Args),
    /// The closed loop for any UCI engine: generations of self-play, trace, tuning and an SPRT
    /// gate in the engine's own play, weights in its names, a ladder (OUT/ladder.md);
    /// resumable (docs/loop.md).
    Loop(loop_cmd::Args),
    /// SPSA on game results after Texel: perturb the weights (or an engine's UCI spin
    /// options) both ways, play game pairs between the two, step toward the winner; resumable
    /// from --out, with a final match against the start.
    Spsa(spsa::Args),
    /// Measure throughput and convergence, printing a JSON object.
    Bench(bench::Args),
    /// Write weights as source code for an engine (C, C++, Rust, C# or a template): a traced
    /// model's tuned manifest in the engine's own names (or as JSON), a gradtune weights file
    /// as its model's tables (material[5], pst[6][64], ... of S(mg, eg)).
    Emit(emit::Args),
    /// Label positions with an external UCI engine's search scores (White's view), the score
    /// labels --lambda blends; several engines in parallel; resumable.
    Label(label::Args),
    /// Trace positions with an external engine's own evaluation (the trace protocol:
    /// `position fen`, `trace`): several engines in parallel; resumable.
    Trace(trace::Args),
    /// Judge a weights file on any data: losses at the fitted and a given K, calibration,
    /// the loss by game phase and by material balance.
    Eval(eval::Args),
    /// Explain odd parameter values by the positions that pull them, and mine the residuals
    /// for the knowledge the evaluation lacks.
    Explain(explain::Args),
    /// Rank the catalogue's candidate groups of terms by what each would gain on held-out
    /// games with the evaluation frozen (a traced model or gradtune's own), with a greedy
    /// selection and a shuffled control: OUT/discover.json and .svg (docs/discover.md).
    Discover(discover::Args),
    /// Rebuild the traced model's evaluation of every trace from its manifest and compare it
    /// with the engine's own (exit status 1 if any differs beyond --tolerance).
    Verify(verify_traces::Args),
}

/// The command line: the subcommands above, and one tuning subcommand per optimiser of
/// `optim::Method` (its name, its `about`, the options of [`tuning::TuneArgs`]), first.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let others: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for (i, name) in others.iter().enumerate() {
        cmd = cmd.mut_subcommand(name, |s| s.display_order(Method::ALL.len() + i));
    }
    for (i, m) in Method::ALL.into_iter().enumerate() {
        let sub = tuning::TuneArgs::augment_args(clap::Command::new(m.name()));
        cmd = cmd.subcommand(sub.about(m.about()).display_order(i));
    }
    cmd
}

/// Runs the command line `matches` asks for.
fn dispatch(matches: &clap::ArgMatches) -> anyhow::Result<()> {
    if let Some((name, sub)) = matches.subcommand() {
        if let Ok(method) = name.parse::<Method>() {
            return tuning::run(method, tuning::TuneArgs::from_arg_matches(sub)?);
        }
    }
    match Cli::from_arg_matches(matches)?.command {
        Command::Compare(a) => compare::run(*a),
        Command::Extract(a) => extract::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Datagen(a) => datagen::run(a),
        Command::Match(a) => matches::run(a),
        Command::Bootstrap(a) => bootstrap::run(a),
        Command::Selfplay(a) => selfplay_cmd::run(a),
        Command::Loop(a) => loop_cmd::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Spsa(a) => spsa::run(a),
        Command::Emit(a) => emit::run(a),
        Command::Label(a) => label::run(a),
        Command::Trace(a) => trace::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Discover(a) => discover::run(a),
        Command::Verify(a) => verify_traces::run(a),
    }
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    match dispatch(&matches) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    /// The command line is well formed (unique names, valid defaults) for every subcommand,
    /// and every optimiser has its subcommand.
    #[test]
    fn command_line_is_well_formed() {
        let cmd = super::command();
        cmd.clone().debug_assert();
        for m in optim::Method::ALL {
            assert!(cmd.find_subcommand(m.name()).is_some(), "{m}");
        }
    }
}
