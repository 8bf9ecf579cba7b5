//! [`Phased`]: a compact, exact store for tapered linear evaluations.
//!
//! A model whose parameters come in (middlegame, endgame) pairs `(m, e)`, tapered per
//! position, has linear rows of the form `q = c + sum_k s_k * (a * w[m_k] + b * w[e_k])` with
//! small integers `s_k` (piece counts, +-1), one middlegame factor `a`, one endgame factor `b`
//! and one constant `c` per row (`a = rho`, `b = 1 - rho` for a plain taper; `b` carries an
//! endgame scale, `a > 1` an unclamped phase, `c` the terms an engine does not tune). Each such
//! row is stored as the number of its `[a, b]` (two f64, exact, kept once per distinct pair in
//! a table of at most 65,536: [`Factors`]), `c` (f32, exact: a constant that is not a 32-bit
//! float is refused) and one `u16` per pair. The pairs
//! with `s_k = +-1` (almost all of a piece-square table's) are *unit* features ([`Unit`]): the
//! pair number and the sign, which together index a table of the signed by-pair weights (no
//! multiplication, no conversion). The others are *general* features: the pair number in the
//! low bits and `s_k` as a signed integer in the high bits, as the store's [`Packing`] says
//! (9 bits and `-64..=63` up to 512 pairs, fewer coefficient bits for more pairs, up to
//! [`MAX_PAIRS`](crate::store::packing::MAX_PAIRS)). An untapered parameter may
//! be a *single*: a pair whose two indices are the parameter itself (its coefficient is then
//! `s_k (a + b)`, as a tapered evaluation gives an untapered weight). Rows that do not
//! decompose exactly stay in the general sparse form.

use tape::Scratch;

use super::interface::{copy_positions, Loss, Pass, Store};
use super::kind::StoreKind;
use super::packing::Packing;
use super::pairs::{PairBuf, Pairs};
use super::unit::{unpack_unit, Unit, Units};

mod decompose;
mod factors;
mod signed;

use factors::Factors;
pub(crate) use signed::{Lane, NarrowSigned, Signed, NARROW};

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

/// `[sum s_k a_k, sum s_k b_k]` over a row's unit and general features (packed as `packing`
/// says), where `unit(f)` is unit feature `f`'s `s_k [a_k, b_k]` and `get(pair_k) = [a_k,
/// b_k]`. Unit features are [`Unit`]s or their `u16` bits.
#[inline(always)]
pub(crate) fn dot<U: Copy>(
    packing: Packing,
    units: &[U],
    general: &[u16],
    unit: impl Fn(U) -> [f64; 2],
    get: impl Fn(usize) -> [f64; 2],
) -> [f64; 2] {
    let mut acc = [[0.0f64; 2]; 4];
    accumulate(&mut acc, units, unit);
    accumulate(&mut acc, general, |x| {
        let (p, s) = packing.unpack(x);
        let v = get(p);
        [s * v[0], s * v[1]]
    });
    [
        (acc[0][0] + acc[1][0]) + (acc[2][0] + acc[3][0]),
        (acc[0][1] + acc[1][1]) + (acc[2][1] + acc[3][1]),
    ]
}

/// Compact rows: per row its factors `[a, b]`, its constant, its unit features and its general
/// features.
#[derive(Clone, Debug, Default)]
pub(crate) struct Phased {
    /// The pairs, their numbers and the features' packing.
    pairs: Pairs,
    /// Row `i`'s unit features are `units[unit_offsets[i]..unit_offsets[i + 1]]`.
    unit_offsets: Vec<u32>,
    units: Units,
    /// Row `i`'s general features are `feats[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    feats: Vec<u16>,
    /// The distinct middlegame and endgame factors, and each row's number among them.
    factors: Factors,
    factor_of: Vec<u16>,
    /// Row `i`'s constant.
    konst: Vec<f32>,
}

impl Phased {
    /// An empty store for parameters where `eg_of[i] = Some(e)` says that `i` is a middlegame
    /// parameter whose endgame twin is `e`; `None` if there are no pairs, too many to address,
    /// or the pairing is inconsistent (an index in two pairs or out of range).
    pub(crate) fn new(eg_of: &[Option<usize>]) -> Option<Phased> {
        Pairs::new(eg_of).map(Phased::from_pairs)
    }

    /// As [`new`](Self::new), and every parameter in no pair a *single* (a pair whose two
    /// indices are the parameter), if all of them fit in
    /// [`MAX_PAIRS`](crate::store::packing::MAX_PAIRS) with the pairs
    /// (otherwise none is). `None` only if there is no pair and no single, or the pairing is
    /// inconsistent.
    pub(crate) fn with_singles(eg_of: &[Option<usize>]) -> Option<Phased> {
        Pairs::with_singles(eg_of).map(Phased::from_pairs)
    }

    /// An empty store over `pairs`.
    fn from_pairs(pairs: Pairs) -> Phased {
        Phased {
            pairs,
            unit_offsets: vec![0],
            offsets: vec![0],
            ..Phased::default()
        }
    }

    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.factor_of.len()
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pairs.heap_bytes()
            + self.unit_offsets.capacity() * 4
            + self.units.heap_bytes()
            + self.offsets.capacity() * 4
            + self.feats.capacity() * 2
            + self.factors.heap_bytes()
            + self.factor_of.capacity() * 2
            + self.konst.capacity() * 4
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.unit_offsets.shrink_to_fit();
        self.units.shrink();
        self.offsets.shrink_to_fit();
        self.feats.shrink_to_fit();
        self.factors.shrink();
        self.factor_of.shrink_to_fit();
        self.konst.shrink_to_fit();
    }

    /// Row `i`'s unit and general features.
    #[inline(always)]
    fn row(&self, i: usize) -> (&[Unit], &[u16]) {
        let (a, b) = (self.unit_offsets[i], self.unit_offsets[i + 1]);
        let (c, d) = (self.offsets[i], self.offsets[i + 1]);
        (
            &self.units.as_slice()[a as usize..b as usize],
            &self.feats[c as usize..d as usize],
        )
    }

    /// Appends row `i` of `other`, a store this one was made from by
    /// [`empty_like`](Self::empty_like) (so that its factors are numbered alike).
    pub(crate) fn push_from(&mut self, other: &Phased, i: usize) {
        let (units, general) = other.row(i);
        self.units.extend_from_slice(units);
        self.feats.extend_from_slice(general);
        self.unit_offsets.push(self.units.len() as u32);
        self.offsets.push(self.feats.len() as u32);
        self.factor_of.push(other.factor_of[i]);
        self.konst.push(other.konst[i]);
    }

    /// Appends every row of `other`; `false` (and no row appended) if `other` numbers its
    /// pairs otherwise (a store made for other parameters, or with singles where this one has
    /// none), the offsets would outgrow 32 bits or the factors would not fit.
    pub(crate) fn append(&mut self, other: &Phased) -> bool {
        let (units, feats) = (self.units.len(), self.feats.len());
        if self.pairs != other.pairs {
            return false;
        }
        if units + other.units.len() > u32::MAX as usize
            || feats + other.feats.len() > u32::MAX as usize
        {
            return false;
        }
        let Some(number) = self.factors.merge(&other.factors) else {
            return false;
        };
        self.units.append(&other.units);
        self.feats.extend_from_slice(&other.feats);
        let shift = |o: &u32, base: usize| o + base as u32;
        let unit_ends = other.unit_offsets.iter().skip(1);
        self.unit_offsets.extend(unit_ends.map(|o| shift(o, units)));
        self.offsets
            .extend(other.offsets.iter().skip(1).map(|o| shift(o, feats)));
        let factor_of = other.factor_of.iter();
        self.factor_of
            .extend(factor_of.map(|&k| number[usize::from(k)]));
        self.konst.extend_from_slice(&other.konst);
        true
    }

    /// An empty store over the same parameters, with the same factors.
    pub(crate) fn empty_like(&self) -> Phased {
        Phased {
            pairs: self.pairs.clone(),
            factors: self.factors.clone(),
            unit_offsets: vec![0],
            offsets: vec![0],
            ..Phased::default()
        }
    }

    /// Row `i`'s (pair, coefficient) features: the units, then the general ones.
    fn features(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (units, general) = self.row(i);
        let units = units.iter().map(|&f| unpack_unit(f.bits()));
        let packing = self.pairs.packing;
        units.chain(general.iter().map(move |&f| packing.unpack(f)))
    }

    /// Row `i`'s factors `[a, b]` and its terms as (middlegame weight, endgame weight,
    /// coefficient), the two weights one for a single (`store/reads.rs`).
    pub(crate) fn terms(&self, i: usize) -> ([f64; 2], impl Iterator<Item = (u32, u32, f64)> + '_) {
        let pairs = &self.pairs;
        let terms = self.features(i).map(|(p, s)| (pairs.mg[p], pairs.eg[p], s));
        (self.factors.get(self.factor_of[i]), terms)
    }

    /// Row `i`'s value at `w`.
    #[inline(always)]
    pub(crate) fn score(&self, i: usize, w: &[f64]) -> f64 {
        let (units, general) = self.row(i);
        let get = |p: usize| self.pairs.get(w, p);
        let [sm, se] = dot(
            self.pairs.packing,
            units,
            general,
            |x: Unit| {
                let (p, s) = unpack_unit(x.bits());
                let v = get(p);
                [s * v[0], s * v[1]]
            },
            get,
        );
        let [a, b] = self.factors.get(self.factor_of[i]);
        f64::from(self.konst[i]) + (a * sm + b * se)
    }

    /// Adds `seed * dq_i/dw` into `grad`.
    #[inline(always)]
    pub(crate) fn add_gradient(&self, i: usize, seed: f64, grad: &mut [f64]) {
        let [a, b] = self.factors.get(self.factor_of[i]);
        let (dm, de) = (seed * a, seed * b);
        for (p, s) in self.features(i) {
            grad[self.pairs.mg[p] as usize] += s * dm;
            grad[self.pairs.eg[p] as usize] += s * de;
        }
    }

    /// The weights by pair, `[middlegame, endgame]` ([`Pairs::gather`]).
    pub(crate) fn gather(&self, w: &[f64]) -> Box<PairBuf> {
        self.pairs.gather(w)
    }

    /// Adds a by-pair gradient into the full gradient `g`.
    pub(crate) fn scatter(&self, gp: &PairBuf, g: &mut [f64]) {
        self.pairs.scatter(gp, g);
    }

    /// Rows `range` in one sweep at the by-pair weights `wp` ([`gather`](Self::gather)):
    /// `f(i, q_i)` gives the loss and `dL/dq_i`; returns the sum of the losses and, if `want`,
    /// adds `dL/dq_i dq_i/dw` by pair into `gp` (as long as `wp`). The same arithmetic as
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
        F: Loss,
    {
        let packing = self.pairs.packing;
        // Exactly `slots` long, so that a general feature's pair number (masked to below
        // `slots`) needs no bounds check.
        let (wp, gp) = (&wp[..packing.slots()], &mut gp[..packing.slots()]);
        // The common width, 9 bits (up to 512 pairs: 4ku, the chess models), as its own loop:
        // the packing a constant (general features unpacked by constant shifts) and the
        // tables' length known (their loads and stores unchecked).
        if packing == Packing::default() {
            if let (Ok(wp), Ok(gp)) = (
                <&[[f64; 2]; NARROW]>::try_from(wp),
                <&mut [[f64; 2]; NARROW]>::try_from(&mut *gp),
            ) {
                return self.sweep_at((Packing::default(), wp, gp), range, want, f);
            }
        }
        self.sweep_at((packing, wp, gp), range, want, f)
    }

    /// [`sweep`](Self::sweep)'s loop at a packing and its tables `wp` and `gp`, both
    /// `packing.slots()` long.
    #[inline(always)]
    fn sweep_at<F: Loss>(
        &self,
        (packing, wp, gp): (Packing, &PairBuf, &mut PairBuf),
        range: std::ops::Range<usize>,
        want: bool,
        f: &F,
    ) -> f64 {
        let ws = Signed::new(wp);
        let mut gs = Signed::zeros(wp.len());
        // Every unit feature is in bounds of both signed tables: checked once here, so that
        // the loop's loads and stores need no check.
        assert!(self.units.bound() <= ws.len() && ws.len() == gs.len());
        let mut sum = 0.0;
        // The rows' offsets, factors and constants side by side, their features in turn.
        let unit_offsets = &self.unit_offsets[range.start..=range.end];
        let offsets = &self.offsets[range.start..=range.end];
        let mut units_left = &self.units.as_slice()[unit_offsets[0] as usize..];
        let mut feats = &self.feats[offsets[0] as usize..];
        let factors = self.factor_of[range.clone()]
            .iter()
            .zip(&self.konst[range.clone()]);
        let rows = (unit_offsets.windows(2).zip(offsets.windows(2))).zip(factors);
        for (i, ((uo, o), (&k, &c))) in range.zip(rows) {
            let [a, b] = self.factors.get(k);
            let (units, rest) = units_left.split_at((uo[1] - uo[0]) as usize);
            units_left = rest;
            let (general, rest) = feats.split_at((o[1] - o[0]) as usize);
            feats = rest;
            // SAFETY: `x` is one of `self.units`, whose indices are below `ws.len()` (above).
            let unit = |x| unsafe { ws.unit(x) };
            let [sm, se] = dot(packing, units, general, unit, |p| wp[p]);
            let (l, d) = f(i, f64::from(c) + (a * sm + b * se));
            sum += l;
            if want && d != 0.0 {
                let (dm, de) = (d * a, d * b);
                for &x in units {
                    // SAFETY: as for `ws`, `gs` being as long.
                    unsafe { gs.add_unit(x, [dm, de]) };
                }
                for &x in general {
                    let (p, s) = packing.unpack(x);
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

    /// Row `i` as sparse (index, coefficient) pairs, appended to `idx` and `coef` (a single
    /// once, with coefficient `s (a + b)`).
    pub(crate) fn row_into(&self, i: usize, idx: &mut Vec<u32>, coef: &mut Vec<f64>) {
        let [a, b] = self.factors.get(self.factor_of[i]);
        for (p, s) in self.features(i) {
            let (m, e) = (self.pairs.mg[p], self.pairs.eg[p]);
            if m == e {
                idx.push(m);
                coef.push(s * (a + b));
                continue;
            }
            idx.push(m);
            coef.push(s * a);
            idx.push(e);
            coef.push(s * b);
        }
    }
}

/// The store's interface: the by-pair sweep for passes, the compact row expanded for the
/// Jacobian.
impl Store for Phased {
    const KIND: StoreKind = StoreKind::Phased;

    fn len(&self) -> usize {
        Phased::len(self)
    }

    fn heap_bytes(&self) -> usize {
        Phased::heap_bytes(self)
    }

    #[inline(always)]
    fn score(&self, i: usize, w: &[f64], _: &mut Scratch) -> f64 {
        Phased::score(self, i, w)
    }

    #[inline(always)]
    fn add_gradient(&self, i: usize, seed: f64, _: &mut Scratch, grad: &mut [f64]) {
        Phased::add_gradient(self, i, seed, grad);
    }

    #[inline]
    fn sweep<F: Loss>(
        &self,
        pass: &Pass<'_, F>,
        range: std::ops::Range<usize>,
        _: &mut Scratch,
        g: &mut [f64],
    ) -> f64 {
        let mut gp = self.pairs.zeros();
        let sum = Phased::sweep(
            self,
            &self.gather(pass.w),
            range,
            pass.want,
            pass.f,
            &mut gp,
        );
        if pass.want {
            self.scatter(&gp, g);
        }
        sum
    }

    fn subset(&self, keep: &[usize]) -> Phased {
        copy_positions(self.empty_like(), keep, |out, i| out.push_from(self, i))
    }

    fn jacobian_row(
        &self,
        i: usize,
        _: &[f64],
        _: &mut Scratch,
        _: &mut [f64],
        idx: &mut Vec<u32>,
        coef: &mut Vec<f64>,
    ) {
        self.row_into(i, idx, coef);
    }
}

#[cfg(test)]
mod tests;
