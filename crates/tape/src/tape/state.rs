//! What a tape holds: its statements, operations and segments, and the [`Tape`] itself (its
//! methods, and the invariants they keep, are in `tape.rs`). A leaf module: the recording, the
//! thread's active tape and the liveness checks use these names without importing their parent.

use crate::kind::Kind;

/// One recorded node. Its operands are `ops[previous statement's end .. end]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Statement {
    /// The operation's constant (`Linear` offset, `Powi` exponent, `Recip` numerator, `Const` value).
    pub(crate) konst: f64,
    /// One past this statement's last operation.
    pub(crate) end: u32,
    pub(crate) kind: Kind,
}

/// One operand of a statement: the partial derivative of the statement with respect to the
/// node `arg`, evaluated when the statement was recorded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operation {
    pub(crate) partial: f64,
    pub(crate) arg: u32,
}

/// A tape for reverse-mode automatic differentiation, in the spirit of Adept: one contiguous
/// stack of statements, one of operations (partial derivative, operand), and a reverse sweep
/// that is a single multiply-accumulate loop. Nothing is allocated per node; clearing keeps the
/// capacity, so one tape serves a million positions.
///
/// Arithmetic on [`Var`](crate::Var)s records onto the tape whose [`record`](Tape::record) closure is
/// running on this thread; make one tape per thread (for example with rayon's `map_init`) to
/// differentiate in parallel.
///
/// ```
/// use tape::{Scalar, Tape};
///
/// let mut tape = Tape::new();
/// let grad = tape.record(|rec| {
///     let w = rec.inputs(&[2.0, 3.0]);
///     let y = (w[0] * w[1]).sigmoid() + w[0].powi(2);
///     let mut grad = [0.0; 2];
///     rec.gradient(y, &mut grad);
///     grad
/// });
/// let s = tape::sigmoid_f64(6.0);
/// assert!((grad[0] - (s * (1.0 - s) * 3.0 + 4.0)).abs() < 1e-12);
/// assert!((grad[1] - s * (1.0 - s) * 2.0).abs() < 1e-12);
/// ```
///
/// A `Var` is only valid on the tape, recording and stretch of it that made it: using one that
/// was kept past [`Tape::record`] or [`Recording::rewind`](crate::Recording::rewind), or that comes from another tape
/// (another thread's, say), panics when it is recorded, never corrupts memory (see the
/// invariants of the fields below).
#[derive(Default, Debug)]
pub struct Tape {
    // Private to the `tape` module and its children (`pub(super)` from here: the same reach
    // as private fields of `tape.rs`): only `push`, `push_linear`, `rewind` and `record`
    // change `stmts`, `ops`, `segments` and `inputs`, which the soundness of `sweep` relies on.
    pub(super) stmts: Vec<Statement>,
    /// Invariant: every operation names a node below the number of statements there were when
    /// it was pushed, so below the index of the statement that owns it (checked by `push` and
    /// `push_terms`, see [`is_live`](super::live::is_live); `rewind` drops a statement's operations with it).
    pub(super) ops: Vec<Operation>,
    /// The stretches of nodes recorded between rewinds, each with its tag: starts strictly
    /// increasing, the first at node 0 (while recording). Node `i` has the tag of the last
    /// segment starting at or below `i`; a `Var` carries its node's tag when it was made and
    /// is live only if the node's tag is still its own. `record` starts one segment with a
    /// fresh tag; `rewind(m)` drops the segments starting at or after `m` and starts a new one
    /// at `m` with a fresh tag, so a forgotten node's index, when reused, has a new tag.
    pub(super) segments: Vec<Segment>,
    /// The tag of nodes recorded now (the last segment's).
    pub(super) tag: u32,
    /// Tags reserved for this tape and not used yet: `next_tag..end_tag` (wrapping).
    pub(super) next_tag: u32,
    pub(super) end_tag: u32,
    /// Adjoints, indexed like `stmts`. Zero between sweeps except for inputs and nodes below a
    /// mark that are still waiting for [`Recording::take_gradient`](crate::Recording::take_gradient).
    pub(super) adj: Vec<f64>,
    /// Node index of each input, in the order the inputs were created.
    pub(super) inputs: Vec<u32>,
}

/// A stretch of nodes recorded between two rewinds: see `Tape::segments`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Segment {
    pub(super) start: u32,
    pub(super) tag: u32,
}
