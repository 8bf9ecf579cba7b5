//! The tape: contiguous statement and operation stacks, and the reverse sweep.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;

use crate::kind::Kind;
use crate::program::Program;
use crate::var::Var;

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
/// Arithmetic on [`Var`]s records onto the tape of the thread's active [`Recording`]; make one
/// tape per thread (for example with rayon's `map_init`) to differentiate in parallel.
///
/// ```
/// use tape::{Scalar, Tape};
///
/// let mut tape = Tape::new();
/// let mut rec = tape.record();
/// let w = rec.inputs(&[2.0, 3.0]);
/// let y = (w[0] * w[1]).sigmoid() + w[0].powi(2);
/// let mut grad = [0.0; 2];
/// rec.gradient(y, &mut grad);
/// let s = tape::sigmoid_f64(6.0);
/// assert!((grad[0] - (s * (1.0 - s) * 3.0 + 4.0)).abs() < 1e-12);
/// assert!((grad[1] - s * (1.0 - s) * 2.0).abs() < 1e-12);
/// ```
#[derive(Default, Debug)]
pub struct Tape {
    pub(crate) stmts: Vec<Statement>,
    pub(crate) ops: Vec<Operation>,
    /// Adjoints, indexed like `stmts`. Zero between sweeps except for inputs and nodes below a
    /// mark that are still waiting for [`Recording::take_gradient`].
    adj: Vec<f64>,
    /// Node index of each input, in the order the inputs were created.
    pub(crate) inputs: Vec<u32>,
}

thread_local! {
    static ACTIVE: Cell<*mut Tape> = const { Cell::new(ptr::null_mut()) };
}

/// Runs `f` on the thread's active tape, or on `None` when no recording is active.
#[inline(always)]
pub(crate) fn with_active_opt<R>(f: impl FnOnce(Option<&mut Tape>) -> R) -> R {
    ACTIVE.with(|cell| {
        let p = cell.get();
        // SAFETY: as in `with_active`.
        f(unsafe { p.as_mut() })
    })
}

/// Runs `f` on the thread's active tape.
///
/// Panics when no recording is active on this thread: arithmetic that mixes two non-constant
/// `Var`s outside a [`Recording`] is a programming error.
#[inline(always)]
pub(crate) fn with_active<R>(f: impl FnOnce(&mut Tape) -> R) -> R {
    ACTIVE.with(|cell| {
        let p = cell.get();
        assert!(
            !p.is_null(),
            "tape::Var arithmetic outside a Recording on this thread"
        );
        // SAFETY: the pointer was set by `Tape::record` from a `&mut Tape` that the `Recording`
        // borrows for its whole life, and is cleared when that `Recording` drops. `Recording` is
        // neither `Send` nor `Sync`, so only this thread uses it, and no reference into the tape
        // is held across calls into user code.
        f(unsafe { &mut *p })
    })
}

impl Tape {
    /// An empty tape.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty tape with room for `statements` nodes and `operations` operands.
    pub fn with_capacity(statements: usize, operations: usize) -> Self {
        Tape {
            stmts: Vec::with_capacity(statements),
            ops: Vec::with_capacity(operations),
            adj: Vec::with_capacity(statements),
            inputs: Vec::new(),
        }
    }

    /// Clears the tape (keeping its memory) and makes it this thread's active tape until the
    /// returned [`Recording`] is dropped.
    ///
    /// # Panics
    ///
    /// If another recording is already active on this thread.
    pub fn record(&mut self) -> Recording<'_> {
        self.stmts.clear();
        self.ops.clear();
        self.adj.clear();
        self.inputs.clear();
        let me: *mut Tape = self;
        ACTIVE.with(|cell| {
            assert!(
                cell.get().is_null(),
                "a tape::Recording is already active on this thread"
            );
            cell.set(me);
        });
        Recording {
            tape: me,
            _borrow: PhantomData,
        }
    }

    /// Number of recorded nodes (statements).
    pub fn len(&self) -> usize {
        self.stmts.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }

    /// Number of recorded operands.
    pub fn operations(&self) -> usize {
        self.ops.len()
    }

    #[inline(always)]
    pub(crate) fn start_of(&self, node: usize) -> usize {
        if node == 0 {
            0
        } else {
            self.stmts[node - 1].end as usize
        }
    }

    /// Appends a node and returns its index.
    #[inline(always)]
    pub(crate) fn push(&mut self, kind: Kind, konst: f64, operands: &[Operation]) -> u32 {
        let index = self.stmts.len();
        assert!(index < Var::CONST as usize, "tape is full (2^32 - 1 nodes)");
        self.ops.extend_from_slice(operands);
        self.stmts.push(Statement {
            konst,
            end: self.ops.len() as u32,
            kind,
        });
        index as u32
    }

    /// Appends a `Linear` node whose operands `fill` pushes (returning the constant part), or
    /// nothing when it pushes none.
    #[inline(always)]
    pub(crate) fn push_linear_with(
        &mut self,
        fill: impl FnOnce(&mut Vec<Operation>) -> f64,
    ) -> Option<u32> {
        let before = self.ops.len();
        let konst = fill(&mut self.ops);
        if self.ops.len() == before {
            return None;
        }
        let index = self.stmts.len();
        assert!(index < Var::CONST as usize, "tape is full (2^32 - 1 nodes)");
        self.stmts.push(Statement {
            konst,
            end: self.ops.len() as u32,
            kind: Kind::Linear,
        });
        Some(index as u32)
    }

    fn ensure_adjoints(&mut self) {
        if self.adj.len() < self.stmts.len() {
            self.adj.resize(self.stmts.len(), 0.0);
        }
    }

    /// The reverse sweep over nodes `top` down to `bottom` (inclusive): one multiply-accumulate
    /// loop. Adjoints of swept non-input nodes are reset to zero.
    fn sweep(&mut self, top: usize, bottom: usize) {
        let stmts = &self.stmts;
        let ops = &self.ops;
        let adj = &mut self.adj;
        assert!(top < stmts.len() && adj.len() >= stmts.len());
        let mut end = stmts[top].end as usize;
        for i in (bottom..=top).rev() {
            let s = stmts[i];
            let start = if i == 0 { 0 } else { stmts[i - 1].end as usize };
            debug_assert_eq!(end, s.end as usize);
            if s.kind != Kind::Input {
                let a = adj[i];
                if a != 0.0 {
                    adj[i] = 0.0;
                    for op in &ops[start..end] {
                        debug_assert!((op.arg as usize) < i);
                        // SAFETY: every operand names an earlier node (`Var`s only ever refer
                        // to nodes already on the tape), and `adj` covers every node (asserted
                        // above).
                        unsafe { *adj.get_unchecked_mut(op.arg as usize) += op.partial * a };
                    }
                }
            }
            end = start;
        }
    }
}

/// Where the tape stood at some point of a recording: see [`Recording::rewind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark(u32);

/// An active recording: while it lives, arithmetic on [`Var`]s on this thread records onto its
/// tape. Dropping it ends the recording (the tape keeps its contents and memory).
pub struct Recording<'a> {
    tape: *mut Tape,
    /// Borrows the tape mutably, and makes the recording neither `Send` nor `Sync`.
    _borrow: PhantomData<(&'a mut Tape, *const ())>,
}

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        ACTIVE.with(|cell| cell.set(ptr::null_mut()));
    }
}

impl Recording<'_> {
    #[inline(always)]
    fn tape(&mut self) -> &mut Tape {
        // SAFETY: see `with_active`: the pointer comes from the `&mut Tape` this recording borrows.
        unsafe { &mut *self.tape }
    }

    #[inline(always)]
    fn tape_ref(&self) -> &Tape {
        // SAFETY: as above.
        unsafe { &*self.tape }
    }

    /// A new independent variable (input number `k` for the `k`-th call, counting
    /// [`inputs`](Recording::inputs) too).
    pub fn input(&mut self, value: f64) -> Var {
        let t = self.tape();
        let index = t.push(Kind::Input, 0.0, &[]);
        t.inputs.push(index);
        Var::node(value, index)
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
    /// mark must not be used again.
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
    pub fn backward(&mut self, output: Var, seed: f64, mark: Mark) {
        let Some(out) = output.index() else { return };
        let t = self.tape();
        t.ensure_adjoints();
        let out = out as usize;
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
    pub fn compile(&self, output: Var) -> Program {
        Program::compile(self.tape_ref(), output)
    }
}
