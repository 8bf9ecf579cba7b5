//! [`Recording`]: an active recording on a [`Tape`] (inputs, marks and rewinds, gradients,
//! compiling to a [`Program`]), and [`Mark`], a point of it to rewind to.

use std::marker::PhantomData;

use super::state::{Segment, Tape};
use crate::kind::Kind;
use crate::program::Program;
use crate::var::Var;

/// Where the tape stood at some point of a recording: see [`Recording::rewind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark(pub(super) u32);

/// An active recording, lent to the closure of [`Tape::record`]: while that closure runs,
/// arithmetic on [`Var`]s on this thread records onto the recording's tape.
///
/// A `Recording` exists only inside that closure (it cannot be made, moved out or kept), and
/// is neither `Send` nor `Sync`.
pub struct Recording<'a> {
    /// The tape, as the thread's active-tape pointer holds it: every access to the tape while
    /// it records goes through this one pointer (see `tape::active`).
    pub(super) tape: *mut Tape,
    /// Borrows the tape mutably, and makes the recording neither `Send` nor `Sync`.
    pub(super) _borrow: PhantomData<(&'a mut Tape, *const ())>,
}

impl Recording<'_> {
    #[inline(always)]
    fn tape(&mut self) -> &mut Tape {
        // SAFETY: a `Recording` exists only inside `Tape::record`'s closure (it has private
        // fields and is only lent as `&mut` under a higher-ranked lifetime, so it cannot be
        // built, moved out, or outlive the call), and `record` holds the `&mut Tape` that
        // `self.tape` comes from for that whole call: the pointer is valid, whatever the
        // caller does with `mem::forget`, moves or drops (the tape is borrowed), panics (the
        // closure's frame is gone before the borrow ends) or other threads (`Recording` is
        // neither `Send` nor `Sync`). No other reference to the tape is live: `record` reaches
        // it only through this pointer and the identical one in `ACTIVE` (see
        // `tape::active`), and the reference returned here is used only by this module's
        // methods, which call no user code while holding it.
        unsafe { &mut *self.tape }
    }

    #[inline(always)]
    fn tape_ref(&self) -> &Tape {
        // SAFETY: as in `tape()`: valid for the closure's whole run, and no `&mut Tape` made
        // from the same pointer (here or in `with_active`) is live while this module's
        // methods, which call no user code, hold this shared reference.
        unsafe { &*self.tape }
    }

    /// A new independent variable (input number `k` for the `k`-th call, counting
    /// [`inputs`](Recording::inputs) too).
    pub fn input(&mut self, value: f64) -> Var {
        let t = self.tape();
        let x = t.push(Kind::Input, 0.0, value, &[]);
        t.inputs.push(x.raw_index());
        x
    }

    /// One new independent variable per value, in order.
    pub fn inputs(&mut self, values: &[f64]) -> Vec<Var> {
        values.iter().map(|&v| self.input(v)).collect()
    }

    /// Number of inputs created so far.
    pub fn input_count(&self) -> usize {
        self.tape_ref().inputs.len()
    }

    /// Number of nodes recorded so far.
    pub fn len(&self) -> usize {
        self.tape_ref().len()
    }

    /// Whether nothing is recorded yet.
    pub fn is_empty(&self) -> bool {
        self.tape_ref().is_empty()
    }

    /// Number of operands recorded so far.
    pub fn operations(&self) -> usize {
        self.tape_ref().operations()
    }

    /// The current end of the tape, to [`rewind`](Recording::rewind) to later.
    pub fn mark(&self) -> Mark {
        Mark(self.tape_ref().stmts.len() as u32)
    }

    /// Forgets every node recorded after `mark` (keeping the memory). `Var`s recorded after the
    /// mark are stale: recording with one, or passing one to [`backward`](Recording::backward)
    /// or [`compile`](Recording::compile), panics (nodes recorded after the rewind get a fresh
    /// tag, so even a reused index does not make a stale `Var` live again). A mark is a node
    /// count: one from another tape or recording only decides how much is forgotten.
    pub fn rewind(&mut self, mark: Mark) {
        let t = self.tape();
        let m = mark.0 as usize;
        if m >= t.stmts.len() {
            return;
        }
        let ops_end = t.start_of(m);
        let old_len = t.stmts.len();
        t.stmts.truncate(m);
        t.ops.truncate(ops_end);
        t.renew_tag();
        while t.segments.last().is_some_and(|s| s.start as usize >= m) {
            t.segments.pop();
        }
        t.segments.push(Segment {
            start: m as u32,
            tag: t.tag,
        });
        // Inputs are pushed in node order, so the ones to forget are a suffix.
        let keep = t.inputs.partition_point(|&i| (i as usize) < m);
        t.inputs.truncate(keep);
        let upto = t.adj.len().min(old_len);
        if upto > m {
            t.adj[m..upto].fill(0.0);
        }
    }

    /// Adds `seed * d output / d node` into the adjoint of every node the output depends on,
    /// sweeping the nodes from `output` down to `mark`: nodes below the mark (the inputs, and any
    /// shared work recorded before it) keep their adjoints for
    /// [`take_gradient`](Recording::take_gradient).
    ///
    /// This is the per-position step of a loss: record a position after the mark, call
    /// `backward` with `dLoss/dq`, [`rewind`](Recording::rewind) to the mark, repeat.
    ///
    /// # Panics
    ///
    /// If `output` is stale (recorded after a mark rewound since) or from another tape.
    pub fn backward(&mut self, output: Var, seed: f64, mark: Mark) {
        if output.index().is_none() {
            return;
        }
        let t = self.tape();
        let out = t.node_of(output);
        t.ensure_adjoints();
        t.adj[out] += seed;
        let bottom = (mark.0 as usize).min(out);
        t.sweep(out, bottom);
    }

    /// Propagates every pending adjoint down to the inputs, writes the inputs' adjoints into
    /// `grad` (one entry per input, in creation order) and resets them to zero.
    ///
    /// # Panics
    ///
    /// If `grad.len()` differs from the number of inputs.
    pub fn take_gradient(&mut self, grad: &mut [f64]) {
        let t = self.tape();
        assert_eq!(
            grad.len(),
            t.inputs.len(),
            "gradient buffer length must equal the number of inputs"
        );
        t.ensure_adjoints();
        if !t.stmts.is_empty() {
            t.sweep(t.stmts.len() - 1, 0);
        }
        for (g, &i) in grad.iter_mut().zip(&t.inputs) {
            *g = t.adj[i as usize];
            t.adj[i as usize] = 0.0;
        }
    }

    /// The gradient of `output` with respect to the inputs, written into `grad`.
    pub fn gradient(&mut self, output: Var, grad: &mut [f64]) {
        self.backward(output, 1.0, Mark(0));
        self.take_gradient(grad);
    }

    /// Compiles the computation of `output` into a [`Program`] that can be replayed for new
    /// input values without running the recording code again (see [`Program`]).
    ///
    /// # Panics
    ///
    /// If `output` is stale or from another tape.
    pub fn compile(&self, output: Var) -> Program {
        Program::compile(self.tape_ref(), output)
    }
}
