//! Recorded sets: every row's model output `q_i(w)` recorded once, at load, and kept in compact
//! stores for replay, with the row's target.
//!
//! * [`CompiledSet`]: the rows, recorded from any evaluation written against
//!   [`tape::Scalar`] ([`CompiledSet::record`]), from integer counts
//!   ([`CompiledSet::record_counts`]), from linear sums and a shared head
//!   ([`CompiledSet::record_split`], [`CompiledSet::record_heads`]), or assembled batch by
//!   batch ([`SetBuilder`]); a pass replays them for new weights (value and gradient, in
//!   parallel), [`CompiledSet::jacobian`] gives the linearised rows.
//! * The stores behind it (see [`Layout`] and [`StoreKind`]): evaluations tapered between a
//!   middlegame and an endgame weight by a phase are kept as *(middlegame, endgame) pairs* with
//!   one factor each per row (the phased store, about 14 bytes a position and 2 a pair); other
//!   linear rows as sparse rows; sums with a non-linear head, and general programs, in their
//!   own stores. A position a faster store refuses falls back to a slower one, counted with its
//!   [`Reason`].
//! * [`Stop`] and [`Progress`]: when a long computation over a set (a load, a pass, a
//!   Jacobian) is abandoned, and how it reports as it goes; the optimiser (`optim`) and the
//!   chess tuner (`texel`) pass the same values down.
//!
//! This crate knows no chess (the pairs are parameter indices, the phase a factor per row) and no
//! optimiser (objectives, losses and solvers are `optim`'s). It depends on `tape` only among the
//! workspace's crates (`cargo tree -p tapered`); gradtune's own models and engines' traced models
//! are recorded into it alike (by `texel`).
//!
//! # Design
//!
//! **How the files depend on one another.** Imports run one way, down: `lib.rs`, then the set
//! (`set.rs` and `set/`), then the stores (`store/`), then `tape`; `stop.rs` and `progress.rs`
//! are leaves every layer may name. Nothing in `store/` names the set (the type the set's
//! `SplitSpec` and the sums-and-head store share, `HeadGradient`, is the store's). Inside each
//! layer the parent file names its children and the children never name it: the names they
//! share are in leaf modules (the set's data in `set/compiled.rs` and `set/target.rs`; the
//! `Store` trait in `store/interface.rs`, `StoreKind`, `Reason` and `Layout` in
//! `store/kind.rs`, `store/reason.rs` and `store/layout.rs`). `scripts/file-circles.py` checks
//! that no circle of files comes back.
//!
//! **How it works.** `CompiledSet::record` (`set.rs`, recording in `set/record.rs`) runs an
//! evaluation on `tape::Var` with one tape per rayon work item (the caller, `texel`, hands it the
//! evaluation as a closure), compiles each to a `tape::Program` and keeps linear ones as sparse
//! rows; `record_split` stores a model's sums and records its head once; `record_linear`
//! (`set/linear.rs`) stores a linear evaluation from its sparse terms straight into the phased
//! store, without a tape (the chess `psqt` model, from `Model::linear_terms`), and `record_counts`
//! from its integer counts, factors and constant (`tapered::Counts`: an engine's traces, from
//! `Manifest::linear_counts`). Each records in groups of work items and appends them as it goes,
//! and `SetBuilder` (`set/builder.rs`) concatenates sets recorded batch by batch, store by store,
//! into the set that recording all the batches at once gives: the caller streams positions into the
//! stores and the peak is the stores plus a batch. The set is a list of *segments*, each one store
//! of consecutive positions behind the `store::Store` trait (`store/`: `phased.rs`, `sparse.rs`,
//! `headed.rs`, `programs.rs`): length, value, gradient, a pass over a range with the store's own
//! loop (`sweep`), one position (`visit`), subset, Jacobian rows, heap bytes. A pass
//! (`CompiledSet::pass`) splits each chunk of positions by segment and lets each store replay
//! `q(w)` in plain `f64`, apply the caller's loss head (a closure giving the loss and `dL/dq`:
//! `optim`'s objective hands in its `Link`, the sigmoid with `K` and the loss), and scatter `dL/dq
//! * dq/dw` into the chunk's gradient buffer; chunks are summed at the end, in chunk order.
//!
//! **Invariants.**
//! - Recording happens once per run (or per round of `optim::run_resolving`); the evaluation code
//!   never runs in a pass. Positions live in segments, one store each, in a fixed section order,
//!   each kind at most once: **phased**, **sparse**, **sums-and-head**, **sums-scalars-and-head**,
//!   **programs** (`CompiledSet::layout` lists them). What enters which store, and why (the rules
//!   are also in `store/mod.rs`):
//!   - *Phased* (`store/phased.rs`, about 14 bytes a position and 2 a pair): a linear row
//!     `c + sum_k s_k (a w[m_k] + b w[e_k])` over (middlegame, endgame) pairs (or *singles*, an
//!     untapered parameter paired with itself, for `record_counts`), per row a middlegame and an
//!     endgame factor `[a, b]` (f64; `a = rho, b = 1 - rho` for a plain taper, any for an endgame
//!     scale or a phase above its maximum; a row names them by a `u16` in the store's table of
//!     distinct factors, `store/phased/factors.rs`: a phase and a scale take a few thousand
//!     values) and a constant `c` (f32, exact: a trace's `const`),
//!     integers `s_k` in the store's range (`-64..=63` up to 512 pairs, halving as the pairs
//!     double: `store/packing.rs`): from counts as they are (`record_counts`) or decomposed from
//!     recorded rows and checked to 1e-12 (`compact_phased`, `store/phased/decompose.rs`; the
//!     pairing from `eval` via `texel::chess::phase_pairs`). One `u16` per pair: pairs with
//!     coefficient +-1 as *unit* features (`2 p + sign`, the index of the pair's signed weights in
//!     a table `[+w, -w]` per pair built once per chunk: no multiply, no conversion; read
//!     unchecked, which is sound because unit features live in a `Units` list (`store/unit.rs`),
//!     which only `Unit::new` fills and which keeps the bound of its features, checked against
//!     the table once per sweep; the head stores' `u16` features are read masked from
//!     fixed-size tables at the 9-bit packing, in bounds whatever their bits, and checked at
//!     wider ones: `store/twin.rs`), the others as pair number and a small signed integer.
//!     Compaction never changes a value.
//!   - *Sparse* (`store/sparse.rs`, 12 bytes a term): every other linear row, as recorded.
//!   - *Sums and head* (`store/headed.rs`, about 120 bytes a position; `record_split`, the `full`
//!     model): the head is recorded once as a `tape::Program`; each position keeps its sums in one
//!     flat `u16` arena, the twin sums as one `u16` per pair (as in the phased store), the other
//!     sums as (index, integer coefficient) `u16` couples. A position enters if its twin sums pair
//!     term by term with equal integer coefficients (in the packing's range once merged by pair), its other
//!     sums' indices fit `u16` and coefficients are integers in `i16`, and the arena stays under
//!     2^32 entries. Passes call the model's hand-derived `head_gradient` in blocks of 16
//!     positions (sums, then heads and losses, then gradients: the heads' latency chains
//!     overlap); `score`/`add_gradient` replay the recorded head, so the replay test checks both.
//!   - *Sums, scalars and head* (`store/scalar_head.rs`, `record_heads`, an engine's declared
//!     non-linear terms): **the one compact representation of any manifest's head**. One head
//!     program for every position (`trace::Manifest::head`, recorded once by `texel::traced`),
//!     and per position its inputs (`Manifest::head_inputs`): *twin groups* of sums (the linear
//!     part; each declared sum for each side), each term one `u16` feature of a pair as the
//!     phased store packs them, where a pair is a tapered (middlegame, endgame) couple or a
//!     *single* (an untapered weight paired with itself: its term adds the same coefficient to
//!     both sums of its group), and a coefficient beyond the packing's range is split into up
//!     to 16 features of its pair (`Packing::pieces`); the weights the expressions *pick*
//!     (`ks_weight[king_attackers]`, a table looked up by a per-position feature: one `u16`
//!     index each, resolved at load); and its *scalars* (phase factors or phase and scale, the
//!     features the expressions read, the constant: `f64` each). The head covers the whole
//!     expression language: products and quotients of tuned quantities, powers, `min`, `max`,
//!     `clamp`, `abs`, `sign`, `sigmoid`, `exp`, and `trunc` (the identity in the tuning
//!     objective); `tape::Program` collapses its linear chains into sparse affine combinations
//!     and passes replay it over blocks of 8 positions with `Program::forward_block`/
//!     `backward_block` (exact gradients, lane by lane `forward`/`backward` bit for bit;
//!     `min`/`max`/`abs`/`sign` re-decide their branch). The general program of a position stays only as
//!     a checked fallback for what this form cannot hold, each refusal naming the parameter and
//!     coefficient of the first term that did not fit (`Fallback::param`, `coefficient`;
//!     `Layout::warnings_named` adds the fix): a count that is no whole number, a merged count
//!     beyond 16 features (`-1024..=1008` at the 9-bit packing), a picked weight beyond
//!     `u16`, untapered weights that do not fit beside the pairs (16,384 in all). A separate
//!     store, not `Headed` generalised, so that `full`'s hand-written head and blocks stay as
//!     they are.
//!   - *Programs* (`store/programs.rs`, a `tape::Program` each, about 2,948 bytes for `full`):
//!     everything else. Same values, more memory, slower passes.
//! - A position a faster store refuses is never dropped and never silent: the store it lands in
//!   keeps the `Reason` (one byte a position: non-integer coefficient, no twin pair, coefficient or
//!   index out of range, a constant that is no f32, mixed phases, unusable split, non-linear
//!   without a split, store full) and the first refusal of each reason with its parameter and
//!   coefficient, `CompiledSet::layout` counts positions and bytes per store and the fallbacks
//!   by store and reason, each with that parameter (serialisable), and `texel::setup::prepare`
//!   turns each fallback into a note naming the count, the reason, the parameter by name and
//!   the fix (`Layout::warnings_named`). `psqt` and `full` have none on real data
//!   (`texel/tests/it/replay.rs` asserts it, and forces a fallback to check its count, reason and
//!   replay); the replay test checks every store against fresh tape recordings.
//! - Passes are bit-for-bit reproducible for a given thread count: chunk boundaries depend only
//!   on the range and the thread count, each store sweeps its part of a chunk in position order,
//!   and chunks are added in chunk order.
//! - A section is normally one store; `SetBuilder` starts a second store of the same kind when
//!   one would outgrow its 32-bit offsets (the set works on any list of segments).
#![warn(missing_docs)]

mod progress;
mod set;
mod stop;
mod store;

pub use progress::{Progress, ProgressEvent};
pub use set::{CompiledSet, Counts, HeadSpec, SetBuilder, SparseRows, SplitSpec, Target};
pub use stop::Stop;
pub use store::{Fallback, HeadGradient, HeadRow, Layout, Reason, StoreKind, StoreSize};
