//! [`Signed`]: the table of signed by-pair values that unit features index.

use super::{PairBuf, Unit, MAX_PAIRS, UNIT_MASK};

/// Per-pair `[middlegame, endgame]` values, then their negations, flat and 16-byte aligned:
/// a unit feature `x` is the index of its signed values (no multiplication, no conversion; a
/// pair is one aligned 128-bit load).
#[repr(C, align(16))]
pub(crate) struct Signed([f64; 4 * MAX_PAIRS]);

impl Signed {
    /// All zeros (a gradient buffer).
    pub(crate) fn zeros() -> Box<Signed> {
        Box::new(Signed([0.0; 4 * MAX_PAIRS]))
    }

    /// `[v, -v]` for the by-pair values `v`.
    pub(crate) fn new(v: &PairBuf) -> Box<Signed> {
        let mut t = Signed::zeros();
        let (pos, neg) = t.0.split_at_mut(2 * MAX_PAIRS);
        for ((x, y), v) in pos.chunks_exact_mut(2).zip(neg.chunks_exact_mut(2)).zip(v) {
            x.copy_from_slice(v);
            y.copy_from_slice(&[-v[0], -v[1]]);
        }
        t
    }

    /// Unit feature `x`'s signed values: no bounds check, no mask (a [`Unit`] is in bounds by
    /// construction; the phased sweep's inner loop).
    #[inline(always)]
    pub(crate) fn unit(&self, x: Unit) -> [f64; 2] {
        let j = x.index();
        // SAFETY: `j + 1 < 4 * MAX_PAIRS`, the table's length: the invariant of `Unit`, checked
        // by `Unit::new`, its only constructor. Unchecked, the feature is the load's index as
        // it is (no mask, no bounds check): measured 9% faster per sweep.
        unsafe { [*self.0.get_unchecked(j), *self.0.get_unchecked(j + 1)] }
    }

    /// Adds `v` to unit feature `x`'s slot, unchecked as in [`unit`](Signed::unit).
    #[inline(always)]
    pub(crate) fn add_unit(&mut self, x: Unit, v: [f64; 2]) {
        let j = x.index();
        // SAFETY: as in `unit`, `j + 1 < 4 * MAX_PAIRS` by the invariant of `Unit`.
        unsafe {
            *self.0.get_unchecked_mut(j) += v[0];
            *self.0.get_unchecked_mut(j + 1) += v[1];
        }
    }

    /// The signed values of a unit feature stored as `u16` (as
    /// [`pack_unit`](super::pack_unit) makes them): indexed at `x & UNIT_MASK`, so in bounds
    /// whatever `x` is (the sums-and-head store's features).
    #[inline(always)]
    pub(crate) fn get(&self, x: u16) -> [f64; 2] {
        let j = usize::from(x & UNIT_MASK);
        [self.0[j], self.0[j + 1]]
    }

    /// Adds `v` to the slot of a unit feature stored as `u16`, as in [`get`](Signed::get).
    #[inline(always)]
    pub(crate) fn add(&mut self, x: u16, v: [f64; 2]) {
        let j = usize::from(x & UNIT_MASK);
        self.0[j] += v[0];
        self.0[j + 1] += v[1];
    }

    /// Number of values (`4 * MAX_PAIRS`).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// `out[p] += self[+p] - self[-p]`: a gradient summed by unit feature, folded by pair.
    pub(crate) fn fold_into(&self, out: &mut PairBuf) {
        let (pos, neg) = self.0.split_at(2 * MAX_PAIRS);
        for ((g, x), y) in out
            .iter_mut()
            .zip(pos.chunks_exact(2))
            .zip(neg.chunks_exact(2))
        {
            g[0] += x[0] - y[0];
            g[1] += x[1] - y[1];
        }
    }
}
