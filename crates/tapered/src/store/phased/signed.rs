//! [`Signed`]: the table of signed by-pair values that unit features index.

use crate::store::pairs::PairBuf;
use crate::store::unit::{unit_index, Unit};

/// One pair's `[middlegame, endgame]` values, 16-byte aligned (one aligned 128-bit load).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(16))]
pub(crate) struct Lane([f64; 2]);

// Two `f64` and no padding: [`entry`]'s address arithmetic counts on it.
const _: () = assert!(std::mem::size_of::<Lane>() == 2 * std::mem::size_of::<f64>());

/// Entry `x.index()` of the table starting at `base`, addressed as `x.f64_offset()` `f64`s (the
/// feature's bits times 8 bytes: no shift, no mask).
///
/// # Safety
///
/// `x.index()` is below the length of the table `base` starts.
#[inline(always)]
unsafe fn entry(base: *const Lane, x: Unit) -> *const Lane {
    // SAFETY: `x.f64_offset()` is `2 * x.index()` (`Unit`'s invariant) and a `Lane` is two
    // `f64` with no padding (above), so the pointer is entry `x.index()`'s: in bounds by the
    // caller's contract, aligned as every entry is, derived from `base`.
    unsafe { base.cast::<f64>().add(x.f64_offset()).cast::<Lane>() }
}

/// Per pair its `[middlegame, endgame]` values, then their negations: a unit feature's
/// [`index`](Unit::index), `2 p + neg`, is where its signed values are (no multiplication,
/// no conversion).
pub(crate) struct Signed(Box<[Lane]>);

impl Signed {
    /// All zeros, for `slots` pairs (a gradient buffer).
    pub(crate) fn zeros(slots: usize) -> Signed {
        Signed(vec![Lane::default(); 2 * slots].into_boxed_slice())
    }

    /// `[v, -v]` for the by-pair values `v`.
    pub(crate) fn new(v: &PairBuf) -> Signed {
        let t = v
            .iter()
            .flat_map(|v| [Lane(*v), Lane([-v[0], -v[1]])])
            .collect();
        Signed(t)
    }

    /// Number of entries: a unit feature's [`index`](Unit::index) must be below it.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Unit feature `x`'s signed values: no bounds check (the phased sweep's inner loop).
    ///
    /// # Safety
    ///
    /// `x.index() < self.len()`: the phased sweep checks it once for all its features
    /// ([`Units::bound`](crate::store::unit::Units::bound)).
    #[inline(always)]
    pub(crate) unsafe fn unit(&self, x: Unit) -> [f64; 2] {
        // SAFETY: in bounds by the caller's contract. Unchecked, the feature is the load's
        // index as it is: measured 9% faster per sweep than a checked load.
        unsafe { entry(self.0.as_ptr(), x).read().0 }
    }

    /// Adds `v` to unit feature `x`'s slot, unchecked as in [`unit`](Signed::unit).
    ///
    /// # Safety
    ///
    /// As for [`unit`](Signed::unit).
    #[inline(always)]
    pub(crate) unsafe fn add_unit(&mut self, x: Unit, v: [f64; 2]) {
        // SAFETY: in bounds by the caller's contract; no other reference to the table lives.
        let s = unsafe { &mut *entry(self.0.as_mut_ptr(), x).cast_mut() };
        s.0[0] += v[0];
        s.0[1] += v[1];
    }

    /// The signed values of a unit feature stored as `u16` (as
    /// [`pack_unit`](crate::store::unit::pack_unit) makes them), checked (the head stores' features).
    #[inline(always)]
    pub(crate) fn get(&self, x: u16) -> [f64; 2] {
        self.0[unit_index(x)].0
    }

    /// Adds `v` to the slot of a unit feature stored as `u16`, checked as in
    /// [`get`](Signed::get).
    #[inline(always)]
    pub(crate) fn add(&mut self, x: u16, v: [f64; 2]) {
        let s = &mut self.0[unit_index(x)].0;
        s[0] += v[0];
        s[1] += v[1];
    }

    /// The table as a fixed-size array, if it is one of the 9-bit packing's [`NARROW`] pairs
    /// (read by masked indices: no bounds check).
    #[inline(always)]
    pub(crate) fn narrow(&self) -> Option<NarrowSigned<&[Lane; 2 * NARROW]>> {
        <&[Lane; 2 * NARROW]>::try_from(&*self.0)
            .ok()
            .map(NarrowSigned)
    }

    /// As [`narrow`](Self::narrow), to add into.
    #[inline(always)]
    pub(crate) fn narrow_mut(&mut self) -> Option<NarrowSigned<&mut [Lane; 2 * NARROW]>> {
        <&mut [Lane; 2 * NARROW]>::try_from(&mut *self.0)
            .ok()
            .map(NarrowSigned)
    }

    /// `out[p] += self[+p] - self[-p]`: a gradient summed by unit feature, folded by pair.
    pub(crate) fn fold_into(&self, out: &mut PairBuf) {
        for (g, s) in out.iter_mut().zip(self.0.chunks_exact(2)) {
            g[0] += s[0].0[0] - s[1].0[0];
            g[1] += s[0].0[1] - s[1].0[1];
        }
    }
}

/// Pair slots of the usual packing (9 bits: up to 512 pairs; 4ku, the chess models).
pub(crate) const NARROW: usize = 1 << 9;

/// A [`Signed`] table of [`NARROW`] pairs as a fixed-size array (`&` or `&mut`): a unit feature
/// stored as `u16`, its index masked to 10 bits (which every unit feature of a store of at
/// most [`NARROW`] pairs fits), is in bounds whatever its bits, so its loads and stores need no
/// check, as before the wider packings.
pub(crate) struct NarrowSigned<T>(T);

impl NarrowSigned<&[Lane; 2 * NARROW]> {
    /// Unit feature `x`'s signed values.
    #[inline(always)]
    pub(crate) fn get(&self, x: u16) -> [f64; 2] {
        self.0[unit_index(x) % (2 * NARROW)].0
    }
}

impl NarrowSigned<&mut [Lane; 2 * NARROW]> {
    /// Adds `v` to unit feature `x`'s slot.
    #[inline(always)]
    pub(crate) fn add(&mut self, x: u16, v: [f64; 2]) {
        let s = &mut self.0[unit_index(x) % (2 * NARROW)].0;
        s[0] += v[0];
        s[1] += v[1];
    }
}
