//! The sums-scalars-and-head store's replay: the value, gradient and pass through the shared
//! head program, as both head stores replay it (`store/head_program.rs`).

use std::ops::Range;

use tape::Scratch;

use super::ScalarHead;
use crate::store::head_program;
use crate::store::interface::{copy_positions, Loss, Pass, Store};
use crate::store::kind::StoreKind;

impl Store for ScalarHead {
    const KIND: StoreKind = StoreKind::SumsScalarsAndHead;

    fn len(&self) -> usize {
        ScalarHead::len(self)
    }

    fn heap_bytes(&self) -> usize {
        ScalarHead::heap_bytes(self)
    }

    fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
        head_program::score(self, i, w, scratch)
    }

    fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        head_program::add_gradient(self, i, seed, scratch, grad);
    }

    /// The groups' gradient is summed by pair (the unit features' by sign first) and
    /// scattered at the end.
    #[inline]
    fn sweep<F: Loss>(
        &self,
        pass: &Pass<'_, F>,
        range: Range<usize>,
        sc: &mut Scratch,
        g: &mut [f64],
    ) -> f64 {
        head_program::sweep(self, pass, range, sc, g)
    }

    fn subset(&self, keep: &[usize]) -> ScalarHead {
        copy_positions(self.empty_like(), keep, |out, i| out.push_from(self, i))
    }
}
