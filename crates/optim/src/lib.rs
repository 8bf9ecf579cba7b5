//! Fitting weights to targets: a problem of rows, each a recorded model output `q_i(w)` with a
//! target in `0..=1` (and an optional second target), weighed by a loss through a link, and the
//! optimisers that minimise it.
//!
//! The rows come recorded: a [`tapered::CompiledSet`] holds every row's model output, recorded
//! once, at load, and compiled for replay (the `tapered` crate's stores).
//!
//! * [`Objective`]: the mean loss over a set ([`Link`]: logistic with `K` or tanh; squared
//!   error or cross-entropy), L1/L2 regularisation, target blending, frozen parameters; value
//!   and gradient in one parallel pass; the Gauss-Newton matrix on demand.
//! * [`Support`]: each weight's support (the rows whose gradient in it is nonzero) and
//!   curvature at one point, the pseudo-count prior's per-weight strengths built from them
//!   ([`Objective::with_prior`]), and the report of the weights that moved furthest for their
//!   support ([`Support::wandering`]).
//! * [`fit_k`]: the link's scale `K`, by a one-dimensional minimisation at the starting weights.
//! * [`FitProblem`]: the argmin glue, caching value and gradient per point.
//! * [`solvers`]: argmin's L-BFGS (More-Thuente) and particle swarm; our Gauss-Newton
//!   (Levenberg-Marquardt), Adam and Texel's local search as argmin solvers.
//! * [`run`]: one interface to all of them ([`Method`]), with a validation split, early
//!   stopping, budgets, Ctrl-C ([`Control`]), a JSON-lines log and the best weights by
//!   validation loss; [`run_resolving`] records the sets again every `N` iterations through a
//!   [`Rerecord`] hook (the chess tuner's quiescence leaves move with the weights).
//!
//! * When a run stops is decided in one module, `stopping/` ([`Control`], [`Budget`],
//!   [`Stopping`] and the rules after an iteration, between rounds and for restarts).
//!
//! This crate knows nothing of chess: positions, evaluations, files and reports are the
//! `texel` crate's; nor of games (SPSA is `engine::spsa`'s). It depends on `tape` and
//! `tapered` only among the workspace's crates.
//!
//! ```
//! use std::sync::Arc;
//! use optim::{
//!     fit_k, run, Budget, Control, Link, LossKind, Method, Objective, ObjectiveConfig, RunConfig,
//!     Sigmoid,
//! };
//! use tapered::{CompiledSet, Target};
//! use tape::Scalar;
//!
//! // An "evaluation" with two weights: a material count and a tempo bonus.
//! fn eval<S: Scalar>(w: &[S], material: f64, white_to_move: bool) -> S {
//!     let tempo = if white_to_move { w[1] } else { -w[1] };
//!     w[0] * material + tempo
//! }
//! let positions: Vec<(f64, bool)> = (0..3000).map(|i| ((i % 5) as f64 - 2.0, i % 2 == 0)).collect();
//! let truth = Link { sigmoid: Sigmoid::Logistic, k: 1.2, loss: LossKind::Mse };
//! let set = CompiledSet::record(&[100.0, 0.0], &positions,
//!     // soft labels: the expected result under the true weights (90, 15)
//!     |_, &(m, t)| Target { value: truth.expect(eval(&[90.0, 15.0], m, t)), score: None, group: 0 },
//!     |_, &(m, t), w| Some(eval(w, m, t)), None);
//! let set = Arc::new(set);
//! let (k, _) = fit_k(&set, &[90.0, 15.0], truth);
//! assert!((k - 1.2).abs() < 1e-4);
//! let obj = Arc::new(Objective::new(set, ObjectiveConfig::new(Link { k, ..truth }), vec![100.0, 0.0], None).unwrap());
//! let cfg = RunConfig { method: Method::GaussNewton, ..RunConfig::default() };
//! let out = run(obj, None, &[100.0, 0.0], &cfg, Arc::new(Control::new())).unwrap();
//! assert!((out.weights[0] - 90.0).abs() < 0.01 && (out.weights[1] - 15.0).abs() < 0.01);
//! ```
//!
//! # How to add an optimiser
//!
//! An optimiser is an argmin [`Solver`](argmin::core::Solver) on [`FitProblem`] (value and
//! gradient, one pass for both at a point) and the gradient state [`GradState`]; it may live
//! in any crate.
//!
//! 1. Write the solver: `impl Solver<FitProblem, GradState>`. Each `next_iter` returns the
//!    state at the new point with its cost (and its gradient, if it has one): the run's
//!    [`Monitor`] reads them to validate, log, report and stop. Ask the problem through
//!    argmin's `Problem` wrapper (`problem.cost(&x)`, `problem.gradient(&x)`); a call fails
//!    with [`Interrupted`] on Ctrl-C, which ends the solver keeping the best iterate so far.
//! 2. Wrap it in an [`ArgminStage`]: a name, what it tries each iteration (for the reason when
//!    it fails), and a closure making a fresh solver from the run's [`Control`] and the free
//!    parameters' bounds: the one argmin set-up every stage uses (`execute.rs`: the problem
//!    made interruptible, the solver wrapped in `Controlled`, the iteration cap, the
//!    [`Monitor`]). By default it works in coordinates that map every point into the
//!    bounds ([`Coords`]); [`ArgminStage::value_only`] is for a solver that asks for values
//!    only and keeps inside the bounds itself (it is handed them).
//! 3. Run it with [`run_stage`]: the validation split, the kept iterate, budgets, the relative
//!    stopping rules, Ctrl-C and the log are [`run`]'s. A [`Stage`] of your own (several
//!    executors, restarts) implements [`Stage::run`] and may be composed with the registry's
//!    ([`Method::stage`]) in a [`Sequence`].
//!
//! To make it a method of the `tune` command line as well, register it in `optim`'s
//! `method.rs`: a [`Method`] variant with its `name` and `about`, an entry in [`Method::ALL`],
//! its options as a field of [`SolverOptions`] (`#[command(flatten)]` under the `clap`
//! feature; each option with `long` and a help line naming the method) and one arm in
//! [`Method::stage`] (usually `ArgminStage::new(...)`); a stochastic solver takes its seed
//! from its options, so add that field to [`SolverOptions::with_seed`], which seeds every
//! solver from the run's one `--seed`. `tune <name>` and `tune compare
//! --methods <name>` then exist from the registry; `crates/texel/tests/it/objective.rs` runs
//! every method and `crates/texel/tests/it/recovery.rs` recovers known weights with them.
//!
//! Plain gradient descent with a fixed step, added from outside the registry:
//!
//! ```
//! use std::sync::Arc;
//! use argmin::core::{Error, Problem, Solver, State, KV};
//! use optim::{
//!     run_stage, ArgminStage, Budget, Control, FitProblem, GradState, Link, LossKind, Objective,
//!     ObjectiveConfig, RunConfig, Sigmoid,
//! };
//! use tapered::{CompiledSet, Target};
//!
//! /// x <- x - step * gradient, every iteration.
//! struct Descent {
//!     step: f64,
//! }
//!
//! impl Solver<FitProblem, GradState> for Descent {
//!     fn name(&self) -> &str {
//!         "descent"
//!     }
//!
//!     fn next_iter(
//!         &mut self,
//!         problem: &mut Problem<FitProblem>,
//!         state: GradState,
//!     ) -> Result<(GradState, Option<KV>), Error> {
//!         let x = state.get_param().ok_or_else(|| Error::msg("no starting point"))?.clone();
//!         let g = problem.gradient(&x)?;
//!         let next: Vec<f64> = x.iter().zip(&g).map(|(x, g)| x - self.step * g).collect();
//!         // Cost then gradient at one point: one pass (the problem caches it), and the
//!         // next iteration's gradient comes from the cache too.
//!         let cost = problem.cost(&next)?;
//!         let gradient = problem.gradient(&next)?;
//!         Ok((state.param(next).cost(cost).gradient(gradient), None))
//!     }
//! }
//!
//! // Rows with one feature each, targets drawn so that the best weight is 200.
//! let items: Vec<f64> = (0..2000).map(|i| (i % 7) as f64 - 3.0).collect();
//! let link = Link { sigmoid: Sigmoid::Logistic, k: 1.0, loss: LossKind::Mse };
//! let set = CompiledSet::record(&[0.0], &items,
//!     |_, &f| Target { value: link.expect(200.0 * f), score: None, group: 0 },
//!     |_, &f, w| Some(w[0] * f), None);
//! let train = Arc::new(Objective::new(Arc::new(set), ObjectiveConfig::new(link), vec![0.0], None).unwrap());
//!
//! let stage = ArgminStage::new("descent", "a fixed step along the gradient",
//!     |_: Arc<Control>, _: &[(f64, f64)]| Descent { step: 6e4 });
//! let cfg = RunConfig { budget: Budget { max_iters: Some(300), ..Budget::default() }, ..RunConfig::default() };
//! let out = run_stage(train.clone(), None, &[0.0], &cfg, Arc::new(Control::new()), &stage).unwrap();
//! assert!((out.weights[0] - 200.0).abs() < 1e-2, "{:?} {} {}", out.weights, out.spent.iterations, out.reason);
//! assert!(out.train_loss.1 < out.train_loss.0);
//! assert!(out.history.iter().skip(1).all(|r| r.stage == "descent"));
//! ```
//!
//! # Design
//!
//! **How it works.** A pass over a `tapered::CompiledSet` gives each row's loss and `dL/dq` through
//! `loss.rs` (`Link`: the sigmoid with `K` and the loss). `Objective` (`objective.rs`) adds the
//! label blend, L1/L2, the smoothness prior and frozen parameters: it works in the coordinates of
//! the free parameters (`expand`/`reduce`) and counts passes. The smoothness prior `smooth * sum
//! (w_a - w_b)^2` runs over pairs of parameter indices handed in by the caller
//! (`Objective::with_pairs`): `optim` knows them as numbers, not as squares; its curvature (`2
//! smooth L`, the pairs' Laplacian) goes into every form of the Gauss-Newton matrix through
//! `Objective::penalty_diagonal`, `add_penalty_curvature_times` and `add_penalty_curvature_dense`
//! (`tests/smooth.rs`: gradient against differences, the three forms against each other and against
//! `2 smooth L`, invariance under repeated data). It carries the parameters' bounds but does not
//! clamp (`with_bounds`, `out_of_bounds`): keeping inside them is the solvers' business.
//! `columns.rs`: `Columns`, the positions each weight changes (from
//! `CompiledSet::reads` and `tapered_terms`, built once), and `Kept`, the weights and every
//! position's evaluation and loss, so that a try of one weight's new value costs its column
//! (a linear row moved by its coefficient, any other scored afresh): the integer polish's
//! (`texel::finish`) machinery. `coords.rs`: `Coords`, the coordinates a gradient solver works in, `x = map(scale * z)` with a
//! smooth increasing map into each parameter's bounds (sigmoid for two bounds, softplus for one,
//! identity for none) and the chain rule for gradients (`chain`/`unchain`) and for the Gauss-Newton
//! Jacobian's columns (`Linearisation::with_columns`); `projected_gradient` for reports and the
//! stopping rule. `kfit.rs` fits `K` by golden section on the scores at the start weights (computed
//! once). `problem.rs` is the argmin glue: `FitProblem` implements `CostFunction` and `Gradient`
//! with a one-point cache (argmin asks for them separately), in `Coords` (bounds map and optional
//! Jacobi scaling; the scale, `linearise::jacobi_scale`, is the Gauss-Newton diagonal over a sample
//! of positions summed row by row with `CompiledSet::row_at`, never the sample's whole Jacobian),
//! and one trait per extra capability (`GaussNewtonModel` gives the Gauss-Newton matrix
//! `Linearisation`, `MiniBatch` a batch gradient).
//!
//! The optimisers: `solvers/` holds our Gauss-Newton (LM), Adam and local search as argmin
//! `Solver`s, the options of argmin's L-BFGS (More-Thuente) and of particle swarm, and `Swarm`, the
//! swarm restarted in shrinking boxes. `method.rs` is the registry: `Method` (one variant per
//! optimiser, `Method::ALL` in `tune compare`'s order), `SolverOptions` (every solver's options)
//! and `Method::stage`, which says what each method runs as. A `Stage` (`stage.rs`) is one
//! optimiser as the driver runs it: `ArgminStage` wraps any argmin solver on the gradient state,
//! `LbfgsStage` (beside its solver, `solvers/lbfgs.rs`, as PSO's `Swarm` is beside PSO) adds the
//! Jacobi preconditioning and restarts L-BFGS (fresh memory and scale, the
//! relative rule's window from the restart: `RunShared::since`) where the relative loss rule ends
//! it while it is still gaining, `Sequence` runs stages one after the other (hybrid: Gauss-Newton
//! capped, L-BFGS, local-search polish capped). Stages are not argmin `Solver`s themselves because
//! one argmin `Executor` has one problem and one state type, and the stages of a sequence work in
//! different coordinates (scaled L-BFGS) and the swarm on a population state; each stage runs
//! argmin executors instead. Gradient stages (L-BFGS, Gauss-Newton, Adam) run in `Coords` that map
//! into the bounds; local search is given the bounds and never tries a move outside; the swarm's
//! boxes are cut to them. A stage whose solver fails part-way ends at its last observed iterate,
//! and its reason names the parameters with the largest projected gradient and those at a bound
//! (`RunConfig::names`).
//!
//! The driver (`run.rs`): `drive` checks the options (`RunConfig::check`, `config.rs`), builds the
//! run's shared state (`RunShared`, `observer.rs`: the objectives, `Control`, budget, tracker, log,
//! progress events), runs the method's stage, and in rounds when re-resolving (`rounds.rs`: the
//! `Rerecord` hook records the sets again, the objectives are rebuilt with `rebind`, the candidates
//! for the kept weights are measured again on the new sets); `finish` builds the `RunOutcome`.
//! **When a run stops is decided in one module, `stopping/`** (its doc comment has the table of
//! every rule, where it is checked and the reason it gives): `Control` and the solver wrappers
//! `Controlled` and `StallGuard` (`stopping/control.rs`: Ctrl-C, time, passes, a given reason;
//! both one `Guarded` wrapper of `stopping/guarded.rs`), the
//! relative rules `Stopping` (`stopping/rules.rs`), and in `stopping/mod.rs` the `Budget`, what
//! stops the run after an iteration (`after_iteration`: converged, early stopping, passes,
//! iterations), the executors' iteration caps (`remaining`, `round_budget`), how a round of
//! `run_resolving` ended and whether the run goes on after its re-resolution (`round_end`,
//! `after_resolution`: a cycle of leaves, no leaf changed, ten converged rounds) and when L-BFGS
//! restarts (`ended_by_loss_rule`, `restart_worth`); the other files ask it. Every solver is
//! wrapped in `Controlled`; inside an iteration, `FitProblem::interruptible` abandons a pass under
//! way once the interrupt flag is set (`CompiledSet::pass` takes a `Stop`, the one stop parameter
//! of every long computation: `Stop::Never`, `Stop::Flag`, `Stop::When`, asked before each chunk)
//! and fails the call with `Interrupted`, which ends the solver (the run keeps the best iterate so
//! far), and the `Rerecord` hook gets the flag too (`set_stop`); the argmin observer `Monitor`
//! hands each iterate to `RunShared::record`, the one place where an iterate is evaluated on the
//! validation split, offered to the `Tracker` (`validation.rs`) with its per-position losses,
//! logged, shown, and checked against the budgets, early stopping and the relative convergence
//! rules (`stopping::after_iteration`; `Stopping`, the loss's relative decrease over a window and
//! the gradient relative to its first value; particle swarm keeps its own rule). The files of the
//! crate import one way (no circle of files: `OptimError` in `error.rs`, a log line in `log.rs`,
//! `RunConfig` in `config.rs`, leaves that every other file may use). `regularise.rs` runs a method
//! along a path of L2 strengths and keeps the one with the lowest validation loss (`--l2 auto`).
//!
//! **Invariants.**
//! - One objective evaluation is one pass: value and gradient come together, and the cache makes
//!   argmin's `cost` then `gradient` at a point one pass. Validation passes are not counted.
//! - The saved weights are those of the latest logged iterate whose validation loss is within `z`
//!   standard errors (paired per position, clustered by `Target::group`) of the lowest one
//!   (`Selection::WithinNoise`; `Selection::Lowest` is the plain minimum; the training objective's
//!   minimum without a split). Iteration 0 is the start, so a run never saves weights worse than
//!   the start by more than the noise. The `Decision` says which rule decided and by how much.
//! - Frozen parameters never change; optimisers see only the free ones.
//! - Every iterate of every method is inside the parameters' bounds (`Objective::out_of_bounds` is
//!   empty); the objective is never clamped, so the gradient a solver sees is the gradient of the
//!   function it minimises.
//! - The Gauss-Newton matrix is summed over at most `--gn-sample` positions (every `k`-th, fixed),
//!   built once per iteration (dense: upper triangle, mirrored); the gradient and the tests of
//!   trial steps use every position. Gauss-Newton checks `Control` between its conjugate-gradient
//!   iterations and trial steps.
//! - Library code returns `OptimError` (`thiserror`, with sources; a poisoned lock is reported
//!   as `OptimError::Poisoned`, never ignored); a solver that fails part-way (e.g. a line search
//!   that cannot progress) ends the run like convergence, keeping the best weights and saying why.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod columns;
mod config;
mod coords;
mod error;
mod execute;
mod kfit;
mod linearise;
mod log;
mod loss;
mod method;
mod objective;
mod observer;
mod outcome;
mod params;
mod problem;
pub mod regularise;
mod resolve;
mod rounds;
mod run;
pub mod small_fit;
pub mod solvers;
mod stage;
mod stopping;
pub mod support;
mod validation;

pub use columns::{Columns, Kept, Try};
pub use config::RunConfig;
pub use coords::{projected_gradient, Coords, MARGIN};
pub use error::{HookError, OptimError};
pub use kfit::{fit_k, fit_k_scores, fit_score_k, golden_section};
pub use linearise::{jacobi_scale, Linearisation};
pub use log::LogRecord;
pub use loss::{Link, LossKind, Sigmoid};
pub use method::{Method, SolverOptions};
pub use objective::{Objective, ObjectiveConfig};
pub use observer::{GradState, Monitor, RunShared, SwarmState};
pub use outcome::{ResolvedRun, RunOutcome, Spent};
pub use params::{free_indices, ParamSpec};
pub use problem::{FitProblem, GaussNewtonModel, Interrupted, MiniBatch};
pub use resolve::{rebind, Recorded, Rerecord, Resolution};
pub use run::{run, run_resolving, run_stage};
pub use stage::{ArgminStage, Sequence, Stage, StageEnd};
pub use stopping::{
    Budget, Control, Controlled, Guard, Guarded, Stall, StallGuard, Stopping, CONVERGED,
};
pub use support::{Support, Wanderer};
pub use validation::{Decision, Difference, Selection, Tracker};
