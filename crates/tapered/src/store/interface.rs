//! [`Store`]: the trait every store implements (see the documentation of [`crate::store`]).
//! It names only the leaves [`StoreKind`] and [`Reason`], so the stores that implement it
//! import nothing above them.

use std::fmt;
use std::ops::Range;

use tape::Scratch;

use super::kind::StoreKind;
use super::reason::Refusal;

/// One store of positions (see the module documentation). Positions are numbered `0..len()`
/// within the store; `f(i, q)` closures get those numbers and return the loss and `dL/dq`.
pub(crate) trait Store: Clone + fmt::Debug + Send + Sync + Sized {
    /// Which store this is.
    const KIND: StoreKind;

    /// Number of positions.
    fn len(&self) -> usize;

    /// Bytes of heap memory held.
    fn heap_bytes(&self) -> usize;

    /// Position `i`'s evaluation at `w`, keeping in `scratch` what
    /// [`add_gradient`](Self::add_gradient) needs.
    fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64;

    /// Adds `seed * dq_i/dw` into `grad`, at the weights of the last [`score`](Self::score) of
    /// position `i` with this scratch.
    fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]);

    /// Position `i` on its own: returns its loss `f(i, q_i).0` and, if the pass wants the
    /// gradient, adds `dL/dq_i dq_i/dw` into `g`.
    #[inline(always)]
    fn visit<F: Loss>(&self, pass: &Pass<'_, F>, i: usize, sc: &mut Scratch, g: &mut [f64]) -> f64 {
        pass.visit(self, i, sc, g)
    }

    /// Positions `range` in order, as [`visit`](Self::visit) does each: the sum of the losses,
    /// and the gradient added into `g` (one chunk's buffer of a pass). A store with a faster
    /// loop overrides it; the result must be the same up to rounding.
    #[inline]
    fn sweep<F: Loss>(
        &self,
        pass: &Pass<'_, F>,
        range: Range<usize>,
        sc: &mut Scratch,
        g: &mut [f64],
    ) -> f64 {
        let mut sum = 0.0;
        for i in range {
            sum += self.visit(pass, i, sc, g);
        }
        sum
    }

    /// The positions `keep` (in that order), in a store of the same kind.
    fn subset(&self, keep: &[usize]) -> Self;

    /// Position `i`'s gradient row, if the store holds it as it is (linear sparse rows);
    /// otherwise the set makes it with [`jacobian_row`](Self::jacobian_row).
    fn stored_row(&self, _i: usize) -> Option<(&[u32], &[f64])> {
        None
    }

    /// Appends position `i`'s gradient row at `w` to `idx` and `coef` (`dense`: a buffer of
    /// zeros, one per parameter, left zero). By default one reverse sweep.
    fn jacobian_row(
        &self,
        i: usize,
        w: &[f64],
        scratch: &mut Scratch,
        dense: &mut [f64],
        idx: &mut Vec<u32>,
        coef: &mut Vec<f64>,
    ) {
        self.score(i, w, scratch);
        self.add_gradient(i, 1.0, scratch, dense);
        for (k, d) in dense.iter_mut().enumerate() {
            if *d != 0.0 {
                idx.push(k as u32);
                coef.push(*d);
                *d = 0.0;
            }
        }
    }

    /// The positions held here because a faster store refused them, counted by reason, each
    /// reason with its first refusal (naming the parameter where one caused it).
    fn fallbacks(&self) -> Vec<(Refusal, usize)> {
        Vec::new()
    }
}

/// A pass's loss head: `f(i, q)` is position `i`'s loss at evaluation `q` and `dL/dq`.
pub(crate) trait Loss: Fn(usize, f64) -> (f64, f64) {}

impl<F: Fn(usize, f64) -> (f64, f64)> Loss for F {}

/// What a pass is given: the weights, whether the gradient is wanted, the loss head `f`.
pub(crate) struct Pass<'a, F> {
    pub(crate) w: &'a [f64],
    pub(crate) want: bool,
    pub(crate) f: &'a F,
}

impl<F: Loss> Pass<'_, F> {
    /// [`Store::visit`] through [`Store::score`] and [`Store::add_gradient`]: position `i`'s
    /// loss `f(i, q_i).0`, and if `want`, `dL/dq_i dq_i/dw` added into `g`.
    #[inline(always)]
    pub(crate) fn visit<S: Store>(&self, s: &S, i: usize, sc: &mut Scratch, g: &mut [f64]) -> f64 {
        let (l, d) = (self.f)(i, s.score(i, self.w, sc));
        if self.want && d != 0.0 {
            s.add_gradient(i, d, sc, g);
        }
        l
    }
}

/// The positions `keep` (in that order) of a store, copied one at a time by `push(out, i)`
/// into `empty` (made like that store): [`Store::subset`] of the compact stores.
pub(crate) fn copy_positions<S>(mut empty: S, keep: &[usize], push: impl Fn(&mut S, usize)) -> S {
    for &i in keep {
        push(&mut empty, i);
    }
    empty
}
