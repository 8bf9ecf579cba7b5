//! The chess adapter of gradtune: everything that turns chess data and the project's evaluation
//! into a problem for the chess-free optimiser ([`optim`]), and its results into files.
//!
//! * [`chess`]: parameter descriptions from [`eval::Model`], and positions recorded (as
//!   sparse rows, the phased store or the sums-and-head split) with their labels.
//! * [`Tunable`]: what a run tunes: a built-in model ([`eval::Model`]) or an engine's traced
//!   evaluation ([`traced::Traced`]: its manifest and traces, verified before tuning); every
//!   path below takes either.
//! * [`setup`]: data files loaded, split by game, recorded; `K` fitted; each weight's support
//!   measured at the start weights; the objectives built, with the prior of
//!   `--prior-positions` where asked or the model's default ([`setup::prepare`]).
//! * [`Resolver`]: the quiescence leaves searched again as the weights move, the
//!   [`optim::Rerecord`] hook [`optim::run_resolving`] calls between rounds.
//! * [`job`]: one whole tuning run into a directory; [`output`]: the files it writes;
//!   [`finish`]: before them, the declared flat directions centred, the weights rounded and
//!   polished by integer steps (each try evaluating only its weight's column of positions,
//!   [`optim::Columns`]); [`flat`]: those directions checked flat on the positions at load.
//! * [`compare`] and [`plot`]: every method side by side, as markdown, JSON and SVG.
//! * [`judge`]: how good weights are on any data (`tune eval`): losses, calibration, splits.
//! * [`activity`]: how much directions in weight space move the evaluations of a set (RMS
//!   over its positions): what SPSA's perturbations in evaluation units are calibrated by
//!   ([`traced::trace_activity`] over an engine's traces).
//! * [`explain`]: the positions that pull a parameter, the odd values, the residuals against
//!   simple position properties (`tune explain`).
//! * [`discover`]: the catalogue's candidate groups of terms fitted on top of a frozen
//!   evaluation and ranked by their held-out gain (`tune discover`, `docs/discover.md`).
//!
//! It may know chess, files and the run directory; it may not know the command line (that is
//! the `tune` binary's) nor search and matches (the `engine` crate's).
//!
//! # Design
//!
//! **Job.** The adapter between chess and the optimiser: parameter descriptions from the model
//! (`chess::param_specs`) and the smoothness prior's neighbour pairs
//! (`eval::Model::smoothing_pairs`: king-step neighbours in each piece-square table, consecutive
//! mobility counts; given to the objective as index pairs), positions recorded from `eval` into
//! `optim`'s stores (`chess::record_positions`, `record_samples`; the phased store's mg/eg twins
//! come from `chess::phase_pairs`, which reads them from the model, `eval::ParamInfo::twin`: names
//! are not parsed), the problem prepared from data files (`setup::prepare_as::<M>(opts, stop)`,
//! with `setup::prepare` the built-in models' shorthand: load, split by game, record, fit `K`,
//! build the objectives; the one `tapered::Stop` parameter abandons it between batches, and
//! progress goes out as `tapered::Progress` events in `SetupOptions::progress`; `setup/stream.rs`
//! streams the files into the stores in two passes, game ids first, then batches split and
//! recorded, so the peak memory is the stores plus a batch, `docs/data.md` "Memory", with Ctrl-C
//! checked between batches; the model comes from the starting weights file when none is asked for,
//! and the L2 pull, when none is given, from the model: `default_l2`, chosen by play in
//! `experiments/defaults-grid.md`, which is why it lives here and not in `optim`; `DEFAULT_DATA` is
//! the embedded set), the quiescence leaves searched again as the weights move (`Resolver`, the
//! `optim::Rerecord` hook), one whole tuning run into a directory (`job::tune_as::<M>`, with
//! `job::tune` for the built-in models: prepare, run or path or rounds, write the files;
//! `default_out`, `resume_weights`), the files a run writes (`output.rs`: weights, integer weights,
//! tables, Rust source, `summary.json`), the comparison of methods (`compare.rs`, `plot.rs`), and
//! the two reports on a finished weights file: `judge.rs` (`tune eval`) and `explain.rs` (`tune
//! explain`). `emit.rs` describes the built-in models' weights as tables for `trace::emit`
//! (`describe`: `material[5]`, `pst[6][64]`, then the other families in parameter order, a numbered
//! family an array, by count or by relative rank; `source` renders them): the one place that knows
//! both the models' names and the emitter's tables. **The `Tunable` seam** (`tunable.rs`). What a
//! run tunes is a `Tunable`: its parameters for the optimiser (`param_specs`, `frozen`), its
//! smoothness neighbours and tapered pairs, its default L2, its rounding, how its data is loaded
//! and recorded, and the files its weights are written as. `eval::Model` (`psqt`, `full`) is one;
//! `traced::Traced` (an engine's manifest and traces, `traced.rs`, `traced/load.rs`,
//! `traced/report.rs`) is the third model. Everything else, the setup, `job::tune_as`,
//! `output::write_run`, `compare`, `judge` and `explain`, is generic over it, so a trace set is
//! tuned, compared, judged and explained exactly as `psqt` is. `Traced` streams the traces
//! (`trace::TraceStream`), a batch alive at a time (`traced/load.rs`), verifying them against the
//! engine's own evaluations (refusing a set that fails unless told otherwise,
//! `TraceOptions::verify`). Without a validation fraction every trace is a training one and one
//! pass reads, verifies and records them; with one, the split by game needs every game first, so
//! a first pass verifies and counts the games and a second splits each batch by game, as the
//! whole set would be split, and records its two sides (`traced::record_traces`): a linear
//! manifest's trace straight from its counts, factors and constant into the compact phased store (a
//! sparse row if its counts do not fit), without a tape; declared non-linear terms (or an `eval`
//! formula) on the sums-scalars-and-head store (`traced/headed.rs`: the manifest's head recorded
//! once, each trace's sums, picks and scalars).
//!
//! `memory.rs` reads the process's peak and current resident memory from the OS (`tune bench`,
//! `tests/memory.rs`).
//!
//! `judge` scores every position with `Model::evaluate_f64` in parallel (no tape, no `CompiledSet`:
//! a judgement needs `q(w)` only), fits `K` with `optim::fit_k_scores` (parallel over fixed
//! chunks), then one pass over fixed chunks summed in order fills every table: the losses at the
//! fitted and a given `K`, the calibration bins, the groups by phase and material balance.
//! `explain` needs `dq_i/dw_j` per position and parameter: `explain::Coefficients` reads them
//! without a tape, from `Model::linear_terms` (`psqt`) or from `Model::sums` and the split's
//! hand-derived `head_gradient` (`full`; tested against the tape). One pass then gives each
//! parameter's gradient (the sum of `dL/dq_i * dq_i/dw_j`), how many positions touch it and its top
//! positions by that contribution (a bounded list per chunk, ties broken by position, merged), and
//! the residuals' sums against fifteen position properties (`explain::properties`). The odd values
//! (`explain::oddness`) are a piece-square entry against the mean of its touched king-step
//! neighbours in its table, and any other parameter against its start value within its group and
//! phase, each in standard deviations of its table's or family's differences.
//!
//!
//! **Invariants.**
//! - `job::tune` is the whole of a tuning run as `tune lbfgs` does it; the `tune` subcommands and
//!   the bootstrap call it, so a generation's tuning is exactly a `tune lbfgs` run.
//! - Bad options fail before any data is read (`RunConfig::check`, then the setup's own checks).
//! - Library code returns `TexelError` (`thiserror`; `optim`, data and weights errors kept as
//!   sources, each naming its file once).
//!
//! **Adding an evaluation term** touches `eval` only (the recipe is "How to add an evaluation term"
//! in `eval`'s `src/terms/mod.rs`): nothing in `optim` or `texel` changes; recording, gradients,
//! stores, output files and the engine pick it up from the model (`tests/it/replay.rs` checks stored
//! rows against fresh recordings for every parameter).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod activity;
pub mod chess;
pub mod compare;
pub mod discover;
pub mod emit;
mod error;
pub mod explain;
pub mod finish;
pub mod flat;
pub mod job;
pub mod judge;
pub mod memory;
pub mod output;
pub mod plot;
mod resolve;
pub mod setup;
pub mod traced;
pub mod tunable;

pub use error::TexelError;
pub use resolve::{leaf_key, Resolver};
pub use tunable::Tunable;
