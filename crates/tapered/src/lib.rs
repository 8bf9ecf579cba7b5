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
//! This crate knows no chess (the pairs are parameter indices, the phase a factor per row) and
//! no optimiser (objectives, losses and solvers are `optim`'s). It depends on `tape` only among
//! the workspace's crates; gradtune's own models and engines' traced evaluations are recorded
//! into it alike (by `texel`).
#![warn(missing_docs)]

mod progress;
mod set;
mod stop;
mod store;

pub use progress::{Progress, ProgressEvent};
pub use set::{
    CompiledSet, Counts, HeadGradient, HeadSpec, SetBuilder, SparseRows, SplitSpec, Target,
};
pub use stop::Stop;
pub use store::{Fallback, HeadRow, Layout, Reason, StoreKind, StoreSize};
