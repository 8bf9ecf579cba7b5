//! The tape: contiguous statement and operation stacks, and the reverse sweep.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::kind::Kind;
use crate::var::Var;

pub(crate) mod active;
mod live;
mod recording;
mod state;

use active::Activation;
use live::{is_live, push_terms, stale};
pub use recording::{Mark, Recording};
use state::Segment;
pub use state::Tape;
pub(crate) use state::{Operation, Statement};

/// The first tag of the next block of tags to reserve (for any tape).
static NEXT_TAG: AtomicU32 = AtomicU32::new(1);
/// How many tags a tape reserves at a time (one atomic operation per block, not per rewind).
const TAG_BLOCK: u32 = 1 << 12;

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

    /// Clears the tape (keeping its memory), makes it this thread's active tape, and runs `f`
    /// with the [`Recording`]: while `f` runs, arithmetic on [`Var`]s on this thread records
    /// onto this tape. The tape stops being active when `f` returns or panics, and keeps its
    /// contents and memory. Returns what `f` returns.
    ///
    /// The recording exists only inside `f`, so no safe code can keep the thread's tape
    /// pointer alive past this call (no guard to leak with `mem::forget`, and the tape stays
    /// borrowed, so it cannot be moved or dropped while active): a `Var` used afterwards
    /// panics (no recording, or a stale or foreign node), never touches freed memory.
    ///
    /// ```compile_fail,E0521
    /// // The recording cannot escape the closure ...
    /// let mut tape = tape::Tape::new();
    /// let mut kept = None;
    /// tape.record(|rec| kept = Some(rec));
    /// ```
    ///
    /// ```compile_fail,E0505
    /// // ... and the tape cannot be moved (or dropped) while it records.
    /// let mut tape = tape::Tape::new();
    /// tape.record(|rec| {
    ///     let moved = tape;
    ///     rec.input(1.0)
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// If another recording is already active on this thread (before touching this tape or
    /// the active one), and whenever `f` panics (after making the tape inactive again).
    pub fn record<R>(&mut self, f: impl FnOnce(&mut Recording<'_>) -> R) -> R {
        assert!(
            !Activation::is_set(),
            "a tape::Recording is already active on this thread"
        );
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
        // SAFETY: `me` comes from `self`, which this call borrows until it returns, and from
        // here on the tape is reached only through `me` (the `Recording` holds a copy). The
        // guard is a local of this frame, dropped when `f` returns or unwinds, before `self`'s
        // borrow ends; `f` never sees it.
        let _active = unsafe { Activation::set(me) };
        let mut rec = Recording {
            tape: me,
            _borrow: PhantomData,
        };
        f(&mut rec)
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
                        // (`Copy`, `Send`, not tied to a tape) kept past a rewind or a
                        // recording, or brought from another tape or thread, never reaches
                        // `ops`. A panic between those steps (a stale operand, a full tape, or
                        // one in the caller's closure, caught or not) leaves at worst operands
                        // appended past the last statement's end, checked like the rest: the
                        // next statement adopts them (they name nodes below its index) or the
                        // next `rewind`/`record` drops them. Moving or dropping the tape, or
                        // `mem::forget` of anything, cannot change `stmts` or `ops`; the tape
                        // is mutated only through `&mut` (one thread at a time), and nested
                        // recordings are refused (`Tape::record`), so no sweep runs while
                        // another access changes the vectors.
                        unsafe { *adj.get_unchecked_mut(op.arg as usize) += op.partial * a };
                    }
                }
            }
            end = start;
        }
    }
}
