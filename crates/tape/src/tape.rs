//! The tape: contiguous statement and operation stacks, and the reverse sweep.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};

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
///
/// A `Var` is only valid on the tape, recording and stretch of it that made it: using one that
/// was kept past [`Tape::record`] or [`Recording::rewind`], or that comes from another tape
/// (another thread's, say), panics when it is recorded, never corrupts memory (see the
/// invariants of the fields below).
#[derive(Default, Debug)]
pub struct Tape {
    // Private to this module: only `push`, `push_linear`, `rewind` and `record` change
    // `stmts`, `ops`, `segments` and `inputs`, which the soundness of `sweep` relies on.
    stmts: Vec<Statement>,
    /// Invariant: every operation names a node below the number of statements there were when
    /// it was pushed, so below the index of the statement that owns it (checked by `push` and
    /// `push_terms`, see [`is_live`]; `rewind` drops a statement's operations with it).
    ops: Vec<Operation>,
    /// The stretches of nodes recorded between rewinds, each with its tag: starts strictly
    /// increasing, the first at node 0 (while recording). Node `i` has the tag of the last
    /// segment starting at or below `i`; a `Var` carries its node's tag when it was made and
    /// is live only if the node's tag is still its own. `record` starts one segment with a
    /// fresh tag; `rewind(m)` drops the segments starting at or after `m` and starts a new one
    /// at `m` with a fresh tag, so a forgotten node's index, when reused, has a new tag.
    segments: Vec<Segment>,
    /// The tag of nodes recorded now (the last segment's).
    tag: u32,
    /// Tags reserved for this tape and not used yet: `next_tag..end_tag` (wrapping).
    next_tag: u32,
    end_tag: u32,
    /// Adjoints, indexed like `stmts`. Zero between sweeps except for inputs and nodes below a
    /// mark that are still waiting for [`Recording::take_gradient`].
    adj: Vec<f64>,
    /// Node index of each input, in the order the inputs were created.
    inputs: Vec<u32>,
}

/// The first tag of the next block of tags to reserve (for any tape).
static NEXT_TAG: AtomicU32 = AtomicU32::new(1);
/// How many tags a tape reserves at a time (one atomic operation per block, not per rewind).
const TAG_BLOCK: u32 = 1 << 12;

/// Panics for an operand that is not a node of the active tape's current recording.
#[cold]
#[inline(never)]
fn stale(x: Var, len: usize) -> ! {
    panic!(
        "tape::Var (node {}) is not on the active tape: it was kept past `record` or `rewind`, \
         or comes from another tape (this tape has {len} nodes)",
        x.raw_index()
    )
}

/// A stretch of nodes recorded between two rewinds: see `Tape::segments`.
#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    start: u32,
    tag: u32,
}

/// Whether `x` (not a constant) is a live node of a tape with `len` nodes and these
/// `segments`: its index is below `len`, and the segment that holds it has `x`'s tag. The
/// last two segments (the nodes after a mark, and the inputs and shared work before it) are
/// looked at first, comparing registers only.
#[inline(always)]
fn is_live(x: Var, len: u32, segments: &[Segment]) -> bool {
    let (i, tag) = (x.raw_index(), x.tag());
    if i >= len {
        return false;
    }
    match segments {
        [.., below, top] if i < top.start => {
            if i >= below.start {
                tag == below.tag
            } else {
                is_live_deeper(i, tag, segments)
            }
        }
        [.., top] => tag == top.tag,
        [] => false,
    }
}

/// [`is_live`] for a node below the last two segments (three or more nested marks).
#[cold]
#[inline(never)]
fn is_live_deeper(i: u32, tag: u32, segments: &[Segment]) -> bool {
    let k = segments.partition_point(|s| s.start <= i);
    k > 0 && segments[k - 1].tag == tag
}

/// Appends the operands of a sum `sum c * x + konst` to `ops`, each checked to be a live node
/// ([`is_live`]: below `len`, the number of statements, so below the new statement's index);
/// constant terms are folded into the constant, which is returned. On a stale or foreign
/// operand, removes the operands it appended and panics.
#[inline(always)]
fn push_terms(
    ops: &mut Vec<Operation>,
    len: u32,
    segments: &[Segment],
    terms: impl Iterator<Item = (Var, f64)>,
    mut konst: f64,
) -> f64 {
    let start = ops.len();
    for (x, c) in terms {
        if x.is_const() {
            konst += x.value_f64() * c;
            continue;
        }
        if !is_live(x, len, segments) {
            // Leave the tape as it was before the statement (a caught panic then leaves no
            // stray operand for the next statement).
            ops.truncate(start);
            stale(x, len as usize);
        }
        // `x.raw_index() < len`: below the new statement's index.
        ops.push(Operation {
            partial: c,
            arg: x.raw_index(),
        });
    }
    konst
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
            segments: Vec::new(),
            tag: 0,
            next_tag: 0,
            end_tag: 0,
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
        self.renew_tag();
        self.segments.clear();
        self.segments.push(Segment {
            start: 0,
            tag: self.tag,
        });
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

    /// Gives nodes recorded from now on a tag no tape has used in the last 2^32 tags handed
    /// out (blocks of [`TAG_BLOCK`] are reserved from [`NEXT_TAG`], one atomic operation per
    /// block). Tags only detect misuse; soundness does not depend on them being unique (an
    /// operand must also name an existing node, see [`is_live`]).
    #[inline]
    fn renew_tag(&mut self) {
        if self.next_tag == self.end_tag {
            self.next_tag = NEXT_TAG.fetch_add(TAG_BLOCK, Ordering::Relaxed);
            self.end_tag = self.next_tag.wrapping_add(TAG_BLOCK);
        }
        self.tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
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

    /// The statements, in node order.
    #[inline(always)]
    pub(crate) fn stmts(&self) -> &[Statement] {
        &self.stmts
    }

    /// The operations of every statement, in node order.
    #[inline(always)]
    pub(crate) fn ops(&self) -> &[Operation] {
        &self.ops
    }

    /// Node index of each input, in creation order.
    #[inline(always)]
    pub(crate) fn inputs(&self) -> &[u32] {
        &self.inputs
    }

    /// The node of `x` (not a constant), checked to be live on this tape ([`is_live`]: so the
    /// index is below `len()`).
    ///
    /// # Panics
    ///
    /// If `x` is stale (kept past `record` or `rewind`) or foreign (from another tape).
    #[inline(always)]
    pub(crate) fn node_of(&self, x: Var) -> usize {
        if !is_live(x, self.stmts.len() as u32, &self.segments) {
            stale(x, self.stmts.len());
        }
        x.raw_index() as usize
    }

    /// Appends the statement whose operations are `ops[previous end..]`, and returns it.
    #[inline(always)]
    fn end_statement(&mut self, kind: Kind, konst: f64, value: f64) -> Var {
        let index = self.stmts.len();
        assert!(index < Var::CONST as usize, "tape is full (2^32 - 1 nodes)");
        self.stmts.push(Statement {
            konst,
            end: self.ops.len() as u32,
            kind,
        });
        Var::node(value, index as u32, self.tag)
    }

    /// Appends a node of value `value` with the given operands (partial derivative, operand;
    /// no constants) and returns it.
    ///
    /// # Panics
    ///
    /// If an operand is stale or foreign (and then appends nothing).
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        kind: Kind,
        konst: f64,
        value: f64,
        operands: &[(f64, Var)],
    ) -> Var {
        for &(_, x) in operands {
            self.node_of(x);
        }
        // Every operand is live: below the number of statements, the new statement's index.
        self.ops
            .extend(operands.iter().map(|&(partial, x)| Operation {
                partial,
                arg: x.raw_index(),
            }));
        self.end_statement(kind, konst, value)
    }

    /// Appends the `Linear` node `sum c * x + constant` of value `value` (constant terms folded
    /// into the constant), or nothing when every term is constant.
    ///
    /// # Panics
    ///
    /// If an operand is stale or foreign (and then appends nothing).
    #[inline(always)]
    pub(crate) fn push_linear(
        &mut self,
        value: f64,
        constant: f64,
        terms: impl Iterator<Item = (Var, f64)>,
    ) -> Option<Var> {
        let before = self.ops.len();
        let len = self.stmts.len() as u32;
        let konst = push_terms(&mut self.ops, len, &self.segments, terms, constant);
        if self.ops.len() == before {
            return None;
        }
        Some(self.end_statement(Kind::Linear, konst, value))
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
                        // SAFETY: `op.arg < stmts.len() <= adj.len()` (asserted above), whatever
                        // safe code did. `stmts` and `ops` are private to this module, and
                        // only `push` and `push_terms` append to `ops`, each operand after
                        // checking `is_live`, which implies `arg < stmts.len()` at that moment.
                        // Statements are only removed by `record` (which clears `ops`
                        // too) and `rewind(m)` (which truncates `ops` to the operations of
                        // statements below `m`, each checked against at most `m` statements).
                        // So every operation left names a node below `stmts.len()`: a `Var`
                        // (`Copy`, `Send`, not tied to a tape) kept past a rewind or brought
                        // from another tape never reaches `ops`.
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
