//! The replay both head stores share ([`Headed`](super::Headed) and
//! [`ScalarHead`](super::ScalarHead)): positions whose evaluation is one recorded head
//! [`Program`] of inputs made from a row, replayed with `Program::forward` and `backward`.
//! What differs between the stores (a row's layout, which inputs it makes, where their
//! gradient goes) is the [`HeadRows`] trait; the value, the gradient and the pass are written
//! once here, generic over it (monomorphised per store: no dynamic dispatch, no allocation per
//! position).

use std::ops::Range;

use tape::{BlockScratch, Program, Scratch, LANES};

use super::interface::{Loss, Pass};
use super::pairs::Pairs;
use super::twin::{twin_at, Direct, PairRead, PairSink, PassTables};

/// The [`Store`](super::interface::Store) methods both head stores answer alike, inside
/// their `impl Store`: `len` and `heap_bytes` from the store's own, `score` and
/// `add_gradient` through this module's replay.
macro_rules! head_store_common {
    ($store:ty) => {
        fn len(&self) -> usize {
            <$store>::len(self)
        }

        fn heap_bytes(&self) -> usize {
            <$store>::heap_bytes(self)
        }

        fn score(&self, i: usize, w: &[f64], scratch: &mut tape::Scratch) -> f64 {
            $crate::store::head_program::score(self, i, w, scratch)
        }

        fn add_gradient(&self, i: usize, seed: f64, scratch: &mut tape::Scratch, grad: &mut [f64]) {
            $crate::store::head_program::add_gradient(self, i, seed, scratch, grad);
        }
    };
}
pub(crate) use head_store_common;

/// Head inputs kept on the stack (more go to the heap, once per call or pass).
const STACK_INPUTS: usize = 16;

/// A store of rows replayed through one shared head program.
pub(crate) trait HeadRows {
    /// A position's record, parsed.
    type Row<'a>: Copy
    where
        Self: 'a;

    /// Position `i`'s record.
    fn row(&self, i: usize) -> Self::Row<'_>;

    /// The (middlegame, endgame) pairs the rows' twin groups are over.
    fn pairs(&self) -> &Pairs;

    /// The head; its inputs are what [`fixed_inputs`](Self::fixed_inputs) and
    /// [`row_inputs`](Self::row_inputs) write.
    fn head(&self) -> &Program;

    /// The weights the head reads for every position alike ([`PairSink::head`] numbers them).
    fn head_params(&self) -> &[u32];

    /// Writes the inputs that are the same for every row (the head weights at `w`) into `x`.
    fn fixed_inputs(&self, w: &[f64], x: &mut [f64]);

    /// Writes a row's own inputs into `x` (leaving the fixed ones as they are), each twin
    /// group's sums from `twin(units, general)`.
    fn row_inputs(
        &self,
        row: &Self::Row<'_>,
        w: &[f64],
        twin: impl Fn(&[u16], &[u16]) -> [f64; 2],
        x: &mut [f64],
    );

    /// Adds `scale` times the head's input gradient `gx` into the row's weights: the twin
    /// groups' and the head weights' through `sink`, the others into `grad`.
    fn distribute(
        &self,
        row: &Self::Row<'_>,
        gx: &[f64],
        scale: f64,
        sink: &mut impl PairSink,
        grad: &mut [f64],
    );
}

/// `f` lent `n` zeros, on the stack if they fit.
#[inline(always)]
fn with_zeros<R>(n: usize, f: impl FnOnce(&mut [f64]) -> R) -> R {
    if n <= STACK_INPUTS {
        f(&mut [0.0; STACK_INPUTS][..n])
    } else {
        f(&mut vec![0.0; n])
    }
}

/// Position `i`'s value at `w`, keeping in `scratch` what [`add_gradient`] needs.
pub(crate) fn score<S: HeadRows>(s: &S, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
    with_zeros(s.head().inputs(), |x| {
        s.fixed_inputs(w, x);
        let twin = |units: &[u16], general: &[u16]| twin_at(s.pairs(), w, units, general);
        s.row_inputs(&s.row(i), w, twin, x);
        s.head().forward(x, scratch)
    })
}

/// Adds `seed * dq_i/dw` into `grad`, at the weights of the last [`score`] of position `i`
/// with this scratch.
pub(crate) fn add_gradient<S: HeadRows>(
    s: &S,
    i: usize,
    seed: f64,
    scratch: &mut Scratch,
    grad: &mut [f64],
) {
    with_zeros(s.head().inputs(), |gx| {
        s.head().backward(seed, scratch, gx);
        let mut sink = Direct::new(s.pairs(), s.head_params());
        s.distribute(&s.row(i), gx, 1.0, &mut sink, grad);
    })
}

/// Positions `range` in order through the head program, as `Store::sweep` (the twin groups
/// read from a pass's by-pair tables, at the width of the store's packing; their gradient
/// summed by pair and scattered at the end).
pub(crate) fn sweep<S: HeadRows, F: Loss>(
    s: &S,
    pass: &Pass<'_, F>,
    range: Range<usize>,
    scratch: &mut Scratch,
    grad: &mut [f64],
) -> f64 {
    let mut tables = PassTables::new(s.pairs(), pass.w, s.head_params().len());
    let sum = match tables.narrow() {
        Some((read, sink)) => sweep_with(s, pass, range, read, sink, scratch, grad),
        None => {
            let (read, sink) = tables.wide();
            sweep_with(s, pass, range, read, sink, scratch, grad)
        }
    };
    if pass.want {
        tables.finish(s.pairs(), s.head_params(), grad);
    }
    sum
}

/// [`sweep`]'s loop, with the by-pair views of one width: positions in blocks of
/// [`LANES`] through the head's block replay (`Program::forward_block`, `backward_block`:
/// lane by lane the per-position replay, bit for bit), the rest one at a time; the losses
/// summed and the gradients distributed in position order, as one at a time would.
// Out of line (called once per chunk) so that profiles name it. The views come by value, as in
// `Headed::blocks` (which says why).
#[inline(never)]
fn sweep_with<S: HeadRows, F: Loss>(
    s: &S,
    pass: &Pass<'_, F>,
    range: Range<usize>,
    read: impl PairRead,
    mut sink: impl PairSink,
    scratch: &mut Scratch,
    grad: &mut [f64],
) -> f64 {
    let Pass { w, want, f } = *pass;
    let head = s.head();
    let n = head.inputs();
    let (mut x, mut gx) = (vec![0.0; n], vec![0.0; n]);
    let (mut xb, mut gb) = (vec![[0.0; LANES]; n], vec![[0.0; LANES]; n]);
    let mut block = BlockScratch::default();
    s.fixed_inputs(w, &mut x);
    let twin = |units: &[u16], general: &[u16]| read.twin(units, general);
    let mut sum = 0.0;
    let mut i = range.start;
    while i + LANES <= range.end {
        for l in 0..LANES {
            s.row_inputs(&s.row(i + l), w, twin, &mut x);
            for (b, &v) in xb.iter_mut().zip(&x) {
                b[l] = v;
            }
        }
        let q = head.forward_block(&xb, &mut block);
        let mut d = [0.0; LANES];
        for l in 0..LANES {
            let (loss, dl) = f(i + l, q[l]);
            sum += loss;
            d[l] = dl;
        }
        if want && d != [0.0; LANES] {
            gb.fill([0.0; LANES]);
            head.backward_block(&d, &mut block, &mut gb);
            for l in (0..LANES).filter(|&l| d[l] != 0.0) {
                for (g, b) in gx.iter_mut().zip(&gb) {
                    *g = b[l];
                }
                s.distribute(&s.row(i + l), &gx, 1.0, &mut sink, grad);
            }
        }
        i += LANES;
    }
    for i in i..range.end {
        let row = s.row(i);
        s.row_inputs(&row, w, twin, &mut x);
        let (l, d) = f(i, head.forward(&x, scratch));
        sum += l;
        if want && d != 0.0 {
            gx.fill(0.0);
            head.backward(d, scratch, &mut gx);
            s.distribute(&row, &gx, 1.0, &mut sink, grad);
        }
    }
    sum
}
