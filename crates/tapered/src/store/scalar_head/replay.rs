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

    head_program::head_store_common!(ScalarHead);

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
