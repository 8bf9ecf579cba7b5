//! [`Unit`] in a module of its own, so that nothing but [`Unit::new`] can make one.

use super::{MAX_PAIRS, PAIR_BITS};

/// A unit feature: pair number `p` and sign (`neg`) as `(p | neg << PAIR_BITS) << 1`, the
/// index of the pair's first signed value in a [`Signed`](super::Signed) table.
///
/// Invariant of the type: the value `x` is even and at most `4 * MAX_PAIRS - 2`, so `x` and
/// `x + 1` are in bounds of a `Signed` table (`4 * MAX_PAIRS` values). The field is private
/// to this module and [`new`](Unit::new), the only constructor, checks `p < MAX_PAIRS`
/// (once, when a row is stored), which gives `x <= ((MAX_PAIRS - 1) | MAX_PAIRS) << 1 =
/// 4 * MAX_PAIRS - 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Unit(u16);

impl Unit {
    /// The unit feature for `pair` with coefficient `+1` (`neg` false) or `-1`.
    ///
    /// # Panics
    ///
    /// If `pair >= MAX_PAIRS`.
    #[inline(always)]
    pub(crate) fn new(pair: usize, neg: bool) -> Unit {
        assert!(pair < MAX_PAIRS, "pair number {pair} out of range");
        Unit(((pair as u16) | (u16::from(neg) << PAIR_BITS)) << 1)
    }

    /// The feature as stored (`u16`).
    #[inline(always)]
    pub(crate) fn bits(self) -> u16 {
        self.0
    }

    /// The index of the pair's first signed value: `index() + 1 < 4 * MAX_PAIRS`.
    #[inline(always)]
    pub(crate) fn index(self) -> usize {
        usize::from(self.0)
    }
}
