//! [`Phased`]: a compact, exact store for tapered linear evaluations.
//!
//! A model whose parameters come in (middlegame, endgame) pairs `(m, e)`, tapered by one game
//! phase `rho` per position, has linear rows of the form
//! `q = sum_k s_k * (rho * w[m_k] + (1 - rho) * w[e_k])` with small integers `s_k` (piece
//! counts, +-1). Each such row is stored as its `rho` (f64) and one `u16` per pair. The pairs
//! with `s_k = +-1` (almost all of a piece-square table's) are *unit* features ([`Unit`]): the
//! pair number and the sign, which together index a table of the signed by-pair weights (no
//! multiplication, no conversion). The others are *general* features: the pair number in the
//! low 9 bits and `s_k` as a signed 7-bit integer in the high bits. Rows that do not decompose
//! exactly stay in the general sparse form.

/// Bits of a feature that hold the pair number.
const PAIR_BITS: u32 = 9;
/// Most pairs a compact store can address.
pub(crate) const MAX_PAIRS: usize = 1 << PAIR_BITS;
/// Per-pair `[middlegame, endgame]` values, one slot per addressable pair.
pub(crate) type PairBuf = [[f64; 2]; MAX_PAIRS];
const PAIR_MASK: u16 = (1 << PAIR_BITS) - 1;
/// Range of the integer coefficients (7 bits, signed).
pub(crate) const S_MIN: f64 = -64.0;
pub(crate) const S_MAX: f64 = 63.0;

/// Bits of a unit feature: the sign (set for `-1`) in bit 10, the pair number in bits 1..10,
/// bit 0 clear: the feature is the index of the pair's first value in a [`Signed`] table.
const UNIT_MASK: u16 = (4 << PAIR_BITS) - 2;

pub(crate) use unit::Unit;

/// [`Unit`] in a module of its own, so that nothing but [`Unit::new`] can make one.
mod unit {
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
}

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

    /// The signed values of a unit feature stored as `u16` (as [`pack_unit`] makes them):
    /// indexed at `x & UNIT_MASK`, so in bounds whatever `x` is.
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

#[inline(always)]
pub(crate) fn pack(pair: usize, s: i16) -> u16 {
    (pair as u16) | ((s as u16) << PAIR_BITS)
}

#[inline(always)]
pub(crate) fn unpack(f: u16) -> (usize, f64) {
    ((f & PAIR_MASK) as usize, f64::from((f as i16) >> PAIR_BITS))
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

/// A unit feature's pair number and coefficient (`+-1`).
#[inline(always)]
pub(crate) fn unpack_unit(f: u16) -> (usize, f64) {
    let f = (f & UNIT_MASK) >> 1;
    let s = if f >= 1 << PAIR_BITS { -1.0 } else { 1.0 };
    ((f & PAIR_MASK) as usize, s)
}

/// Adds `get(feature)` over `feats` into four independent accumulators, feature `k` into
/// `acc[k % 4]` (the latency of one chain of additions would bound the sweep).
#[inline(always)]
fn accumulate<F: Copy>(acc: &mut [[f64; 2]; 4], feats: &[F], get: impl Fn(F) -> [f64; 2]) {
    let mut chunks = feats.chunks_exact(4);
    for c in &mut chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            let v = get(x);
            a[0] += v[0];
            a[1] += v[1];
        }
    }
    for (a, &x) in acc.iter_mut().zip(chunks.remainder()) {
        let v = get(x);
        a[0] += v[0];
        a[1] += v[1];
    }
}

/// `[sum s_k a_k, sum s_k b_k]` over a row's unit and general features, where `unit(f)` is
/// unit feature `f`'s `s_k [a_k, b_k]` and `get(pair_k) = [a_k, b_k]`. Unit features are
/// [`Unit`]s or their `u16` bits.
#[inline(always)]
pub(crate) fn dot<U: Copy>(
    units: &[U],
    general: &[u16],
    unit: impl Fn(U) -> [f64; 2],
    get: impl Fn(usize) -> [f64; 2],
) -> [f64; 2] {
    let mut acc = [[0.0f64; 2]; 4];
    accumulate(&mut acc, units, unit);
    accumulate(&mut acc, general, |x| {
        let (p, s) = unpack(x);
        let v = get(p);
        [s * v[0], s * v[1]]
    });
    [
        (acc[0][0] + acc[1][0]) + (acc[2][0] + acc[3][0]),
        (acc[0][1] + acc[1][1]) + (acc[2][1] + acc[3][1]),
    ]
}

/// The pairs of `eg_of` (`eg_of[i] = Some(e)`: parameter `i` is a middlegame parameter whose
/// endgame twin is `e`): the middlegame and endgame index of each pair, and the pair number of
/// each parameter (`u32::MAX` if none). `None` if there are no pairs, too many to address, or
/// the pairing is inconsistent (an index in two pairs or out of range).
#[allow(clippy::type_complexity)]
pub(crate) fn pair_table(eg_of: &[Option<usize>]) -> Option<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let n = eg_of.len();
    let (mut mg, mut eg) = (Vec::new(), Vec::new());
    let mut pair_of = vec![u32::MAX; n];
    for (i, e) in eg_of.iter().enumerate() {
        let Some(e) = *e else { continue };
        if e >= n || e == i || pair_of[i] != u32::MAX || pair_of[e] != u32::MAX {
            return None;
        }
        pair_of[i] = mg.len() as u32;
        pair_of[e] = mg.len() as u32;
        mg.push(i as u32);
        eg.push(e as u32);
    }
    if mg.is_empty() || mg.len() > MAX_PAIRS {
        return None;
    }
    Some((mg, eg, pair_of))
}

/// Compact rows: per row a phase `rho`, its unit features and its general features.
#[derive(Clone, Debug, Default)]
pub(crate) struct Phased {
    /// Middlegame and endgame index of each pair.
    mg: Vec<u32>,
    eg: Vec<u32>,
    /// Pair number of each parameter (`u32::MAX`: not in a pair).
    pair_of: Vec<u32>,
    /// Row `i`'s unit features are `units[unit_offsets[i]..unit_offsets[i + 1]]`.
    unit_offsets: Vec<u32>,
    units: Vec<Unit>,
    /// Row `i`'s general features are `feats[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    feats: Vec<u16>,
    rho: Vec<f64>,
}

impl Phased {
    /// An empty store for parameters where `eg_of[i] = Some(e)` says that `i` is a middlegame
    /// parameter whose endgame twin is `e`; `None` if there are no pairs, too many to address,
    /// or the pairing is inconsistent (an index in two pairs or out of range).
    pub(crate) fn new(eg_of: &[Option<usize>]) -> Option<Phased> {
        let (mg, eg, pair_of) = pair_table(eg_of)?;
        Some(Phased {
            mg,
            eg,
            pair_of,
            unit_offsets: vec![0],
            offsets: vec![0],
            ..Phased::default()
        })
    }

    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.rho.len()
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.mg.capacity() * 4
            + self.eg.capacity() * 4
            + self.pair_of.capacity() * 4
            + self.unit_offsets.capacity() * 4
            + self.units.capacity() * 2
            + self.offsets.capacity() * 4
            + self.feats.capacity() * 2
            + self.rho.capacity() * 8
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.unit_offsets.shrink_to_fit();
        self.units.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.feats.shrink_to_fit();
        self.rho.shrink_to_fit();
    }

    /// Row `i`'s unit and general features.
    #[inline(always)]
    fn row(&self, i: usize) -> (&[Unit], &[u16]) {
        let (a, b) = (self.unit_offsets[i], self.unit_offsets[i + 1]);
        let (c, d) = (self.offsets[i], self.offsets[i + 1]);
        (
            &self.units[a as usize..b as usize],
            &self.feats[c as usize..d as usize],
        )
    }

    /// Appends the linear row `konst + sum coef[k] w[idx[k]]` (indices ascending) if it
    /// decomposes exactly (up to the rounding of its coefficients); returns whether it did.
    pub(crate) fn try_push(&mut self, konst: f64, idx: &[u32], coef: &[f64]) -> bool {
        if konst != 0.0 {
            return false;
        }
        // (pair, middlegame coefficient, endgame coefficient)
        let mut groups: Vec<(u32, f64, f64)> = Vec::with_capacity(idx.len());
        for (&i, &c) in idx.iter().zip(coef) {
            let Some(&p) = self.pair_of.get(i as usize) else {
                return false;
            };
            if p == u32::MAX {
                return false;
            }
            let k = match groups.iter().position(|g| g.0 == p) {
                Some(k) => k,
                None => {
                    groups.push((p, 0.0, 0.0));
                    groups.len() - 1
                }
            };
            if self.mg[p as usize] == i {
                groups[k].1 += c;
            } else {
                groups[k].2 += c;
            }
        }
        groups.sort_unstable_by_key(|g| g.0);
        // (pair, integer coefficient), checked
        let mut pairs: Vec<(usize, i16)> = Vec::with_capacity(groups.len());
        let mut rho: Option<f64> = None;
        for &(p, cm, ce) in &groups {
            let sum = cm + ce;
            let s = sum.round();
            let tol = 1e-12 * s.abs().max(1.0);
            let mut ok = (S_MIN..=S_MAX).contains(&s) && s != 0.0 && (sum - s).abs() <= tol;
            if ok {
                let r = *rho.get_or_insert(cm / s);
                ok = (s * r - cm).abs() <= tol && (s * (1.0 - r) - ce).abs() <= tol;
            }
            if !ok {
                return false;
            }
            pairs.push((p as usize, s as i16));
        }
        for &(p, s) in &pairs {
            if s == 1 || s == -1 {
                self.units.push(Unit::new(p, s < 0));
            } else {
                self.feats.push(pack(p, s));
            }
        }
        self.unit_offsets.push(self.units.len() as u32);
        self.offsets.push(self.feats.len() as u32);
        self.rho.push(rho.unwrap_or(0.0));
        true
    }

    /// Appends row `i` of `other` (a store over the same parameters).
    pub(crate) fn push_from(&mut self, other: &Phased, i: usize) {
        let (units, general) = other.row(i);
        self.units.extend_from_slice(units);
        self.feats.extend_from_slice(general);
        self.unit_offsets.push(self.units.len() as u32);
        self.offsets.push(self.feats.len() as u32);
        self.rho.push(other.rho[i]);
    }

    /// An empty store over the same parameters.
    pub(crate) fn empty_like(&self) -> Phased {
        Phased {
            mg: self.mg.clone(),
            eg: self.eg.clone(),
            pair_of: self.pair_of.clone(),
            unit_offsets: vec![0],
            offsets: vec![0],
            ..Phased::default()
        }
    }

    /// Row `i`'s (pair, coefficient) features: the units, then the general ones.
    fn features(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (units, general) = self.row(i);
        let units = units.iter().map(|&f| unpack_unit(f.bits()));
        units.chain(general.iter().map(|&f| unpack(f)))
    }

    /// Row `i`'s value at `w`.
    #[inline(always)]
    pub(crate) fn score(&self, i: usize, w: &[f64]) -> f64 {
        let (units, general) = self.row(i);
        let get = |p: usize| [w[self.mg[p] as usize], w[self.eg[p] as usize]];
        let [sm, se] = dot(
            units,
            general,
            |x: Unit| {
                let (p, s) = unpack_unit(x.bits());
                let v = get(p);
                [s * v[0], s * v[1]]
            },
            get,
        );
        let r = self.rho[i];
        r * sm + (1.0 - r) * se
    }

    /// Adds `seed * dq_i/dw` into `grad`.
    #[inline(always)]
    pub(crate) fn add_gradient(&self, i: usize, seed: f64, grad: &mut [f64]) {
        let r = self.rho[i];
        let (dm, de) = (seed * r, seed * (1.0 - r));
        for (p, s) in self.features(i) {
            grad[self.mg[p] as usize] += s * dm;
            grad[self.eg[p] as usize] += s * de;
        }
    }

    /// The weights by pair, `[middlegame, endgame]`, padded to [`MAX_PAIRS`] (so that a
    /// feature's pair number needs no bounds check).
    pub(crate) fn gather(&self, w: &[f64]) -> Box<PairBuf> {
        let mut wp = Box::new([[0.0; 2]; MAX_PAIRS]);
        for ((x, &m), &e) in wp.iter_mut().zip(&self.mg).zip(&self.eg) {
            *x = [w[m as usize], w[e as usize]];
        }
        wp
    }

    /// Adds a by-pair gradient into the full gradient `g`.
    pub(crate) fn scatter(&self, gp: &PairBuf, g: &mut [f64]) {
        for ((x, &m), &e) in gp.iter().zip(&self.mg).zip(&self.eg) {
            g[m as usize] += x[0];
            g[e as usize] += x[1];
        }
    }

    /// Rows `range` in one sweep at the by-pair weights `wp` ([`gather`](Self::gather)):
    /// `f(i, q_i)` gives the loss and `dL/dq_i`; returns the sum of the losses and, if `want`,
    /// adds `dL/dq_i dq_i/dw` by pair into `gp`. The same arithmetic as
    /// [`score`](Self::score) and [`add_gradient`](Self::add_gradient), except that the
    /// gradient of the unit features is summed by sign first (into a signed table, folded into
    /// `gp` at the end).
    #[inline]
    pub(crate) fn sweep<F>(
        &self,
        wp: &PairBuf,
        range: std::ops::Range<usize>,
        want: bool,
        f: &F,
        gp: &mut PairBuf,
    ) -> f64
    where
        F: Fn(usize, f64) -> (f64, f64),
    {
        let ws = Signed::new(wp);
        let mut gs = Signed::zeros();
        let mut sum = 0.0;
        // The rows' offsets and phases side by side, their features in turn.
        let unit_offsets = &self.unit_offsets[range.start..=range.end];
        let offsets = &self.offsets[range.start..=range.end];
        let mut units_left = &self.units[unit_offsets[0] as usize..];
        let mut feats = &self.feats[offsets[0] as usize..];
        let rows = (unit_offsets.windows(2).zip(offsets.windows(2))).zip(&self.rho[range.clone()]);
        for (i, ((uo, o), &r)) in range.zip(rows) {
            let (units, rest) = units_left.split_at((uo[1] - uo[0]) as usize);
            units_left = rest;
            let (general, rest) = feats.split_at((o[1] - o[0]) as usize);
            feats = rest;
            let [sm, se] = dot(units, general, |x| ws.unit(x), |p| wp[p]);
            let (l, d) = f(i, r * sm + (1.0 - r) * se);
            sum += l;
            if want && d != 0.0 {
                let (dm, de) = (d * r, d * (1.0 - r));
                for &x in units {
                    gs.add_unit(x, [dm, de]);
                }
                for &x in general {
                    let (p, s) = unpack(x);
                    let g = &mut gp[p];
                    g[0] += s * dm;
                    g[1] += s * de;
                }
            }
        }
        if want {
            gs.fold_into(gp);
        }
        sum
    }

    /// Row `i` as sparse (index, coefficient) pairs, appended to `idx` and `coef`.
    pub(crate) fn row_into(&self, i: usize, idx: &mut Vec<u32>, coef: &mut Vec<f64>) {
        let r = self.rho[i];
        for (p, s) in self.features(i) {
            idx.push(self.mg[p]);
            coef.push(s * r);
            idx.push(self.eg[p]);
            coef.push(s * (1.0 - r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_signed_coefficients() {
        for s in -64i16..=63 {
            for p in [0usize, 1, 388, 511] {
                assert_eq!(unpack(pack(p, s)), (p, f64::from(s)));
            }
        }
        for p in [0usize, 1, 388, 511] {
            assert_eq!(unpack_unit(pack_unit(p, false)), (p, 1.0));
            assert_eq!(unpack_unit(pack_unit(p, true)), (p, -1.0));
            assert_eq!(
                usize::from(pack_unit(p, true) & UNIT_MASK),
                2 * (p + MAX_PAIRS)
            );
        }
    }

    #[test]
    fn unit_features_index_the_signed_table_in_bounds() {
        let table = Signed::zeros();
        let top = Unit::new(MAX_PAIRS - 1, true);
        assert_eq!(top.index() + 1, table.0.len() - 1);
        assert_eq!(top.bits(), pack_unit(MAX_PAIRS - 1, true));
        let past = std::panic::catch_unwind(|| Unit::new(MAX_PAIRS, false));
        assert!(
            past.is_err(),
            "a pair number past MAX_PAIRS makes no unit feature"
        );
        // The u16 path is in bounds for any bits, and agrees with the unit path on features.
        let mut v = Box::new([[0.0; 2]; MAX_PAIRS]);
        v[7] = [3.0, -4.0];
        let t = Signed::new(&v);
        for neg in [false, true] {
            let u = Unit::new(7, neg);
            assert_eq!(t.get(u.bits()), t.unit(u));
        }
        assert_eq!(t.unit(Unit::new(7, true)), [-3.0, 4.0]);
        for x in [u16::MAX, 0x0801, 4 * MAX_PAIRS as u16] {
            let _ = t.get(x);
        }
    }

    #[test]
    fn decomposes_tapered_rows_and_rejects_others() {
        let eg_of = [Some(1), None, Some(3), None, None];
        let mut ph = Phased::new(&eg_of).unwrap();
        let r = 7.0 / 24.0;
        // 2 * taper(w0, w1) - taper(w2, w3)
        assert!(ph.try_push(0.0, &[0, 1, 2, 3], &[2.0 * r, 2.0 * (1.0 - r), -r, r - 1.0]));
        let w = [10.0, 20.0, 30.0, 40.0, 50.0];
        let want = 2.0 * (r * 10.0 + (1.0 - r) * 20.0) - (r * 30.0 + (1.0 - r) * 40.0);
        assert!((ph.score(0, &w) - want).abs() < 1e-12);
        let mut g = [0.0; 5];
        ph.add_gradient(0, 1.0, &mut g);
        assert!((g[0] - 2.0 * r).abs() < 1e-15 && (g[3] - (r - 1.0)).abs() < 1e-15);
        // an unpaired parameter, a constant, a second phase, a non-integer count
        assert!(!ph.try_push(0.0, &[4], &[1.0]));
        assert!(!ph.try_push(1.0, &[0, 1], &[r, 1.0 - r]));
        assert!(!ph.try_push(0.0, &[0, 1, 2, 3], &[r, 1.0 - r, 0.5, 0.5]));
        assert!(!ph.try_push(0.0, &[0, 1], &[0.5 * r, 0.5 * (1.0 - r)]));
        assert_eq!(ph.len(), 1);
        assert_eq!((ph.units.len(), ph.feats.len()), (1, 1));
    }

    /// Rows of `n` pairs (parameter `2p` the middlegame, `2p + 1` the endgame weight of pair
    /// `p`) with coefficients drawn from `s`.
    /// A sparse row: (indices, coefficients).
    type Row = (Vec<u32>, Vec<f64>);

    fn rows(n: usize, len: usize, s: &[f64]) -> (Phased, Vec<Row>) {
        let eg_of: Vec<Option<usize>> = (0..2 * n).map(|i| (i % 2 == 0).then_some(i + 1)).collect();
        let mut ph = Phased::new(&eg_of).unwrap();
        let mut out = Vec::new();
        let mut state = 12345u64;
        let mut next = |m: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % m
        };
        for row in 0..len {
            let r = (row % 25) as f64 / 24.0;
            let k = 1 + next(n);
            let start = next(n);
            let (mut idx, mut coef) = (Vec::new(), Vec::new());
            for j in 0..k {
                let p = ((start + 7 * j) % n) as u32;
                let c = s[next(s.len())];
                idx.extend([2 * p, 2 * p + 1]);
                coef.extend([c * r, c * (1.0 - r)]);
            }
            // ascending indices, as a recorded row has them
            let mut v: Vec<(u32, f64)> = idx.into_iter().zip(coef).collect();
            v.sort_by_key(|x| x.0);
            v.dedup_by_key(|x| x.0);
            let (idx, coef): (Vec<u32>, Vec<f64>) = v.into_iter().unzip();
            if ph.try_push(0.0, &idx, &coef) {
                out.push((idx, coef));
            }
        }
        (ph, out)
    }

    #[test]
    fn sweep_matches_score_gradient_and_rows() {
        // mixed unit and general features; rows of more than 255 units
        for (n, s) in [(20, &[1.0, -1.0, 2.0, -3.0][..]), (400, &[1.0, -1.0][..])] {
            let (ph, rows) = rows(n, 300, s);
            assert_eq!(ph.len(), rows.len());
            assert!(ph.len() > 200);
            let w: Vec<f64> = (0..2 * n).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
            let wp = ph.gather(&w);
            let y = |i: usize| (i % 3) as f64 * 10.0;
            let f = |i: usize, q: f64| ((q - y(i)) * (q - y(i)), 2.0 * (q - y(i)));
            let mut gp = Box::new([[0.0; 2]; MAX_PAIRS]);
            let sum = ph.sweep(&wp, 0..ph.len(), true, &f, &mut gp);
            let mut g = vec![0.0; 2 * n];
            ph.scatter(&gp, &mut g);
            let (mut sum2, mut g2) = (0.0, vec![0.0; 2 * n]);
            for (i, (idx, coef)) in rows.iter().enumerate() {
                let q: f64 = idx.iter().zip(coef).map(|(&j, c)| c * w[j as usize]).sum();
                assert!((ph.score(i, &w) - q).abs() <= 1e-9 * (1.0 + q.abs()));
                let (l, d) = f(i, ph.score(i, &w));
                sum2 += l;
                ph.add_gradient(i, d, &mut g2);
                let (mut ri, mut rc) = (Vec::new(), Vec::new());
                ph.row_into(i, &mut ri, &mut rc);
                let mut got: Vec<(u32, f64)> = ri.into_iter().zip(rc).collect();
                got.sort_by_key(|x| x.0);
                for ((a, b), (&c, &d)) in got.iter().zip(idx.iter().zip(coef)) {
                    assert_eq!(*a, c);
                    assert!((b - d).abs() < 1e-12);
                }
            }
            assert!((sum - sum2).abs() <= 1e-12 * sum2.abs());
            let scale = g2.iter().map(|x| x.abs()).fold(0.0, f64::max);
            for (a, b) in g.iter().zip(&g2) {
                assert!((a - b).abs() <= 1e-12 * scale, "{a} {b}");
            }
        }
    }
}
