//! `tune`: the gradtune command-line program, a thin layer over the library crates.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod bootstrap;
mod compare;
mod datagen;
mod emit;
mod extract;
mod label;
mod matches;
mod stats;
mod tuning;

/// Tune chess evaluation weights by Texel's method with exact gradients.
#[derive(Parser)]
#[command(name = "tune", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Tune with L-BFGS (argmin, More-Thuente line search): the default method.
    Lbfgs(tuning::TuneArgs),
    /// Tune with Levenberg-Marquardt-damped Gauss-Newton on the residuals.
    GaussNewton(tuning::TuneArgs),
    /// Tune with Adam (full-batch or mini-batch), as today's community tuners do.
    Adam(tuning::TuneArgs),
    /// Tune with Texel's integer +/-1 local search.
    Local(tuning::TuneArgs),
    /// Tune with particle swarm optimisation, restarted when it stalls.
    Pso(tuning::TuneArgs),
    /// A few Gauss-Newton iterations, then L-BFGS, then integer local-search polish.
    Hybrid(tuning::TuneArgs),
    /// Run every optimiser on the same data and budget, and compare them.
    Compare(compare::Args),
    /// Extract labelled positions from PGN games (or EPD files).
    Extract(extract::Args),
    /// Summarise a file of labelled positions.
    Stats(stats::Args),
    /// Generate labelled positions by self-play.
    Datagen(datagen::Args),
    /// Play a match between two weight files and report the Elo difference.
    Match(matches::Args),
    /// Texel's "your own games suffice": generations of self-play, L-BFGS tuning and an
    /// SPRT gate, with an Elo ladder (OUT/ladder.md, .json, .svg); resumable.
    ///
    /// Every option has a default: `tune bootstrap --out ladder` runs 6 generations. The
    /// defaults aim at a few minutes per generation on 2 cores: generation 1 took 5.5 minutes
    /// on the project's 2 shared cores. Rerun the same command on the same --out to continue
    /// after the last finished generation; Ctrl-C stops, keeping the finished ones.
    Bootstrap(bootstrap::Args),
    /// Measure throughput and convergence, printing a JSON object.
    Bench(bench::Args),
    /// Write a weights file as source code for an engine: a C header or Rust constants.
    Emit(emit::Args),
    /// Label positions with an external UCI engine's search scores (White's view), the score
    /// labels --lambda blends; several engines in parallel; resumable.
    Label(label::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Lbfgs(a) => tuning::run(tuning::Method::Lbfgs, a),
        Command::GaussNewton(a) => tuning::run(tuning::Method::GaussNewton, a),
        Command::Adam(a) => tuning::run(tuning::Method::Adam, a),
        Command::Local(a) => tuning::run(tuning::Method::Local, a),
        Command::Pso(a) => tuning::run(tuning::Method::Pso, a),
        Command::Hybrid(a) => tuning::run(tuning::Method::Hybrid, a),
        Command::Compare(a) => compare::run(a),
        Command::Extract(a) => extract::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Datagen(a) => datagen::run(a),
        Command::Match(a) => matches::run(a),
        Command::Bootstrap(a) => bootstrap::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Emit(a) => emit::run(a),
        Command::Label(a) => label::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
