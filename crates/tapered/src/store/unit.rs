//! Unit features (a pair with coefficient +-1): [`Unit`] and [`Units`] in a module of their
//! own, so that nothing but [`Unit::new`] makes one and nothing but [`Units`]' methods changes
//! a list of them; and their `u16` form in the head stores' arenas.

use crate::store::packing::MAX_PAIRS;

/// A unit feature: pair number `p` and sign (`neg`) as `(2 p + neg) << 1`, twice the
/// [`index`](Unit::index) of the pair's signed values in a
/// [`Signed`](crate::store::phased::Signed) table. The low bit is zero so that a table's
/// 16-byte entry is at the feature times 8 bytes, which a load's address takes as it is
/// (times 16, the index's own scale, would cost a shift a feature in the passes' inner loops).
///
/// [`new`](Unit::new), the only constructor, checks `p < MAX_PAIRS`, so the value fits
/// `u16`. Whether it is in bounds of a table depends on the table's size: [`Units`] keeps
/// the bound of the features it holds.
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
        Unit((((pair as u16) << 1) | u16::from(neg)) << 1)
    }

    /// The feature as stored (`u16`).
    #[inline(always)]
    pub(crate) fn bits(self) -> u16 {
        self.0
    }

    /// The index of the pair's signed values in a [`Signed`](crate::store::phased::Signed)
    /// table, `2 p + neg`.
    #[inline(always)]
    pub(crate) fn index(self) -> usize {
        unit_index(self.0)
    }

    /// Twice [`index`](Self::index) (the bits as they are: `new` leaves the low bit zero):
    /// the entry's offset in `f64`s, so that a 16-byte entry is at `bits * 8`, an address
    /// mode, with no shift or mask.
    #[inline(always)]
    pub(crate) fn f64_offset(self) -> usize {
        usize::from(self.0)
    }
}

/// A list of unit features and a bound on their indices: every feature's
/// [`index`](Unit::index) is below [`bound`](Units::bound). The fields are private to this
/// module and every method keeps the bound, so a table of `bound()` entries or more may be
/// indexed by the features unchecked.
#[derive(Clone, Debug, Default)]
pub(crate) struct Units {
    v: Vec<Unit>,
    bound: usize,
}

impl Units {
    /// One more than the largest index of a feature held (0 if none).
    #[inline(always)]
    pub(crate) fn bound(&self) -> usize {
        self.bound
    }

    /// The features.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[Unit] {
        &self.v
    }

    /// Number of features.
    pub(crate) fn len(&self) -> usize {
        self.v.len()
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.v.capacity() * 2
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.v.shrink_to_fit();
    }

    /// Appends a feature.
    pub(crate) fn push(&mut self, u: Unit) {
        self.bound = self.bound.max(u.index() + 1);
        self.v.push(u);
    }

    /// Appends every feature of `other`.
    pub(crate) fn append(&mut self, other: &Units) {
        self.bound = self.bound.max(other.bound);
        self.v.extend_from_slice(&other.v);
    }

    /// Appends features.
    pub(crate) fn extend_from_slice(&mut self, us: &[Unit]) {
        let top = us.iter().map(|u| u.index() + 1).max().unwrap_or(0);
        self.bound = self.bound.max(top);
        self.v.extend_from_slice(us);
    }
}

/// A unit feature for `pair` with coefficient `+1` (`neg` false) or `-1`, as `u16`.
///
/// # Panics
///
/// If `pair >= MAX_PAIRS`.
#[inline(always)]
pub(crate) fn pack_unit(pair: usize, neg: bool) -> u16 {
    Unit::new(pair, neg).bits()
}

/// The table index of a unit feature stored as `u16` (as [`Unit::index`]), whatever its bits:
/// the one place besides [`Unit::new`] and [`unpack_unit`] that knows the encoding.
#[inline(always)]
pub(crate) fn unit_index(f: u16) -> usize {
    usize::from(f >> 1)
}

/// A unit feature's pair number and coefficient (`+-1`).
#[inline(always)]
pub(crate) fn unpack_unit(f: u16) -> (usize, f64) {
    let s = if f & 2 != 0 { -1.0 } else { 1.0 };
    (usize::from(f >> 2), s)
}
