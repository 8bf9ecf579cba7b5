//! Tape-based reverse-mode automatic differentiation, and the [`Scalar`] trait that gradtune's
//! evaluations are written against.
//!
//! An evaluation is written once, generic over `S: Scalar`, and then run as
//!
//! * `f64`: no overhead at all (the engine searches with it);
//! * [`Var`]: recorded on a [`Tape`], whose reverse sweep gives the exact gradient with respect
//!   to every input at a small constant multiple of the cost of one evaluation;
//! * [`Dual`]: forward mode, one direction at a time, an independent check of the tape.
//!
//! A recording can be compiled into a [`Program`] and replayed for new weights without running
//! the evaluation code again: this is what makes a pass over a million positions cheap.
//!
//! ```
//! use tape::{Scalar, Tape};
//!
//! // A tiny Texel-style loss: (result - sigmoid(w . features))^2
//! fn loss<S: Scalar>(w: &[S], features: &[(u32, f64)], result: f64) -> S {
//!     let q = S::dot(w, features);
//!     (q.sigmoid() - result).powi(2)
//! }
//!
//! let weights = [0.3, -0.2, 0.5];
//! let features = [(0, 1.0), (2, -2.0)];
//!
//! let value: f64 = loss(&weights, &features, 1.0);
//!
//! let mut tape = Tape::new();
//! let mut grad = [0.0; 3];
//! tape.record(|rec| {
//!     let w = rec.inputs(&weights);
//!     let l = loss(&w, &features, 1.0);
//!     assert_eq!(l.value(), value);
//!     rec.gradient(l, &mut grad);
//! });
//! assert_eq!(grad[1], 0.0); // feature 1 is absent
//! ```
//!
//! # Design
//!
//! **How it works.** In the spirit of Adept: a `Tape` is two contiguous stacks, statements
//! (`kind`, constant, end of its operands) and operations (partial derivative, operand node). A
//! `Var` is `(value, node index)`; constants have no node and record nothing. Arithmetic on `Var`s
//! pushes a statement whose operands carry the partial derivatives evaluated at record time, so the
//! reverse sweep is one multiply-accumulate loop over the operation stack. `Scalar::dot` and
//! `Scalar::linear_combination` record a whole sparse sum as one statement (as Adept's expression
//! templates do): a linear evaluation costs one statement per sum, not two per term.
//!
//! Recording is scoped: `tape.record(|rec| { let x = rec.input(1.0); ... })`. `Tape::record`
//! clears the tape, makes it the thread's active tape (a thread-local pointer, set and cleared by
//! a guard local to `record`'s own frame) and lends the closure a `&mut Recording<'_>`; `Var`
//! arithmetic inside the closure finds the tape through that pointer. The recording cannot leave
//! the closure and the tape stays borrowed for the whole call, so no safe code (not even
//! `mem::forget`) can leave the pointer dangling: a `Var` used after the closure returns panics,
//! it never touches freed memory. A nested `record` on the same thread panics. Why each `unsafe`
//! block holds, the closed `mem::forget` hole and the Miri record:
//! `SOUNDNESS.md` (beside this crate's `Cargo.toml`) (two `compile_fail` doctests on
//! `Tape::record`, `tests/it/scoped.rs` for the run-time side). A `Recording` is neither `Send` nor
//! `Sync`; for parallel work, keep one `Tape` per thread (rayon's `map_init`) and record on each.
//!
//! Per-position losses use marks: record the shared inputs, take a `Mark`, then for each position
//! record, `backward(output, dLoss/dq, mark)` and `rewind(mark)`; the input adjoints accumulate,
//! and `take_gradient` reads them.
//!
//! `Recording::compile(output)` turns a recording into a `Program` for replay: every chain of
//! linear statements (sums, differences, scaling, `dot`) collapses into one sparse affine
//! combination of inputs and non-linear nodes, and only the non-linear nodes remain as steps. A
//! linear evaluation compiles to a single sparse dot product. `Program::forward` / `backward`
//! re-run it for new inputs with a reusable `Scratch`, allocating nothing.
//!
//! **Invariants.**
//! - Operand node indices are smaller than the statement's own index (the tape is topologically
//!   ordered), so one backward pass is a complete sweep.
//! - Stale and foreign `Var`s are rejected where they enter the tape, so the sweep's unchecked
//!   adjoint write is sound whatever safe code does (`Var` is `Copy` and `Send` and not tied to
//!   its tape). A `Var` carries its node's index and a 32-bit *tag*; the tape keeps its
//!   *segments* (the stretches of nodes recorded between rewinds, each with a tag: `record`
//!   starts one with a fresh tag, `rewind(m)` drops those starting at or after `m` and starts a
//!   new one at `m` with a fresh tag). A `Var` is live if its index is below the tape's length
//!   and the segment holding it has its tag. Every operand is checked when it is recorded (`Var`
//!   arithmetic, `dot`, `linear_combination`: `push` / `push_terms` in `tape.rs`, the only code
//!   that appends operations), and so are the outputs of `backward` and `compile`; a stale one (a
//!   `Var` kept past `rewind` or `record`, even when its index has been reused) or a foreign one
//!   (another tape's, another thread's) panics, naming the misuse, and leaves the tape as it was.
//!   Tags are handed out in blocks from one atomic counter and only detect misuse; the index
//!   check alone keeps every operation below the tape's length (the `SAFETY` proof in `sweep`).
//!   A `Mark` is a node count: a stale or foreign one only decides how much `rewind` forgets.
//!   Tested in release builds too (`tests/it/stale.rs`).
//! - Between sweeps, adjoints are zero except for inputs and nodes below a mark awaiting
//!   `take_gradient`.
//! - Recording and replay compute values and partials through one function (`kind::apply`), so a
//!   replay cannot drift from a fresh recording.
//! - Kinks: `abs'(0) = 0`; `min`/`max` ties go to `self`; `clamp` boundaries flow to `self`. The
//!   same in `f64`, `Var`, `Dual` and replay.
//! - Replay is exact when the recorded code's control flow does not depend on variable values
//!   (`min`/`max`/`abs`/`clamp` re-decide their branch on replay).
#![warn(missing_docs)]

mod dual;
mod kind;
mod ops;
mod program;
mod scalar;
mod tape;
mod var;

pub use crate::dual::Dual;
pub use crate::program::block::{BlockScratch, Lanes, LANES};
pub use crate::program::{Program, Scratch};
pub use crate::scalar::{sigmoid_f64, DotAccumulator, Scalar};
pub use crate::tape::{Mark, Recording, Tape};
pub use crate::var::Var;

/// The guide's examples (docs/guide.md), compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
pub struct ReadmeDoctests;
