//! A twin group's share of a head store's replay, the same in both head stores
//! ([`Headed`](super::Headed), [`ScalarHead`](super::ScalarHead)): the group's
//! `[middlegame, endgame]` sums from a row's unit and general features ([`twin_at`] at the full
//! weights, a [`PairRead`] in a pass), and its gradient sent back to the features' pairs
//! ([`distribute_twin`]) through a [`PairSink`]: straight into the full gradient ([`Direct`],
//! one position) or by pair, the unit features' by sign first (a pass: scattered once at the
//! end).
//!
//! A pass's by-pair tables ([`PassTables`]) are read and summed into through views of one of
//! two widths: [`PassTables::narrow`] for the usual 9-bit packing (up to 512 pairs: 4ku, the
//! chess models), fixed-size arrays indexed by masked pair numbers and features unpacked by
//! constant shifts, so the hot loops' loads and stores need no bounds check;
//! [`PassTables::wide`] for the wider packings, slices indexed with a check. A pass picks the
//! width once and runs its loop, generic over the views, with it.

use super::packing::Packing;
use super::pairs::{PairBuf, Pairs};
use super::phased::{dot, Lane, NarrowSigned, Signed, NARROW};
use super::unit::unpack_unit;

/// A twin group's `[middlegame, endgame]` sums at the full weights `w`, from a row's unit and
/// general features.
#[inline(always)]
pub(crate) fn twin_at(pairs: &Pairs, w: &[f64], units: &[u16], general: &[u16]) -> [f64; 2] {
    let get = |p: usize| pairs.get(w, p);
    let unit = |k: u16| {
        let (p, s) = unpack_unit(k);
        let v = get(p);
        [s * v[0], s * v[1]]
    };
    dot(pairs.packing, units, general, unit, get)
}

/// Sends a twin group's gradient `[da, db]` (by its middlegame and its endgame sum) to the
/// row's features: each unit feature's through [`PairSink::unit`], each general feature's,
/// times its coefficient, through [`PairSink::pair`].
#[inline(always)]
pub(crate) fn distribute_twin(
    units: &[u16],
    general: &[u16],
    d: [f64; 2],
    sink: &mut impl PairSink,
    grad: &mut [f64],
) {
    for &f in units {
        sink.unit(f, d, grad);
    }
    let packing = sink.packing();
    for &f in general {
        let (p, s) = packing.unpack(f);
        sink.pair(p, [s * d[0], s * d[1]], grad);
    }
}

/// Where a head store's gradient goes: its twin groups' by pair, its head weights' by number.
pub(crate) trait PairSink {
    /// How the general features the sink is given are packed.
    fn packing(&self) -> Packing;
    /// Adds `v`, signed by unit feature `k`'s sign, to `k`'s pair.
    fn unit(&mut self, k: u16, v: [f64; 2], grad: &mut [f64]);
    /// Adds `v` to pair `p`'s `[middlegame, endgame]` weights.
    fn pair(&mut self, p: usize, v: [f64; 2], grad: &mut [f64]);
    /// Adds `v` to head weight `k` (the `k`-th of the store's shared head weights).
    fn head(&mut self, k: usize, v: f64, grad: &mut [f64]);
}

/// Straight into the full gradient: one position's value and gradient.
pub(crate) struct Direct<'a> {
    pairs: &'a Pairs,
    head_params: &'a [u32],
}

impl<'a> Direct<'a> {
    /// A sink into the weights of `pairs` and of the head weights `head_params`.
    pub(crate) fn new(pairs: &'a Pairs, head_params: &'a [u32]) -> Direct<'a> {
        Direct { pairs, head_params }
    }
}

impl PairSink for Direct<'_> {
    #[inline(always)]
    fn packing(&self) -> Packing {
        self.pairs.packing
    }

    #[inline(always)]
    fn unit(&mut self, k: u16, [dm, de]: [f64; 2], grad: &mut [f64]) {
        let (p, s) = unpack_unit(k);
        self.pair(p, [s * dm, s * de], grad);
    }

    #[inline(always)]
    fn pair(&mut self, p: usize, [dm, de]: [f64; 2], grad: &mut [f64]) {
        grad[self.pairs.mg[p] as usize] += dm;
        grad[self.pairs.eg[p] as usize] += de;
    }

    #[inline(always)]
    fn head(&mut self, k: usize, v: f64, grad: &mut [f64]) {
        grad[self.head_params[k] as usize] += v;
    }
}

/// The by-pair weights a pass reads a twin group's sums from.
pub(crate) trait PairRead {
    /// A twin group's `[middlegame, endgame]` sums from a row's unit and general features.
    fn twin(&self, units: &[u16], general: &[u16]) -> [f64; 2];
}

/// A pass's by-pair tables: the weights by pair and their signed table (indexed by a unit
/// feature), to read twin groups' sums from; the gradient by pair, the unit features' by sign
/// first, and by head weight, added into the full gradient once at the end
/// ([`finish`](Self::finish)).
pub(crate) struct PassTables {
    packing: Packing,
    wp: Box<PairBuf>,
    ws: Signed,
    gp: Box<PairBuf>,
    gs: Signed,
    head: Vec<f64>,
}

impl PassTables {
    /// The weights `w` by the pairs of `pairs`, and zeros for their gradient and for `heads`
    /// head weights.
    pub(crate) fn new(pairs: &Pairs, w: &[f64], heads: usize) -> PassTables {
        let wp = pairs.gather(w);
        let ws = Signed::new(&wp);
        let gp = pairs.zeros();
        let gs = Signed::zeros(gp.len());
        PassTables {
            packing: pairs.packing,
            wp,
            ws,
            gp,
            gs,
            head: vec![0.0; heads],
        }
    }

    /// The reading and the summing views at the 9-bit packing, if the tables have it.
    pub(crate) fn narrow(&mut self) -> Option<(Narrow<'_>, NarrowSink<'_>)> {
        if self.packing != Packing::default() {
            return None;
        }
        let read = Narrow {
            wp: (&*self.wp).try_into().ok()?,
            ws: self.ws.narrow()?,
        };
        let sink = NarrowSink {
            gp: (&mut *self.gp).try_into().ok()?,
            gs: self.gs.narrow_mut()?,
            head: &mut self.head,
        };
        Some((read, sink))
    }

    /// The reading and the summing views at any packing (checked indices).
    pub(crate) fn wide(&mut self) -> (Wide<'_>, WideSink<'_>) {
        let read = Wide {
            packing: self.packing,
            wp: &self.wp,
            ws: &self.ws,
        };
        let sink = WideSink {
            packing: self.packing,
            gp: &mut self.gp,
            gs: &mut self.gs,
            head: &mut self.head,
        };
        (read, sink)
    }

    /// Adds what was summed into `grad`: the unit features' share folded by pair, the head
    /// weights' (at `head_params`), then the pairs' (of `pairs`).
    pub(crate) fn finish(mut self, pairs: &Pairs, head_params: &[u32], grad: &mut [f64]) {
        self.gs.fold_into(&mut self.gp);
        for (&k, &d) in head_params.iter().zip(&self.head) {
            grad[k as usize] += d;
        }
        pairs.scatter(&self.gp, grad);
    }
}

/// [`PassTables`]' weights at the 9-bit packing: fixed-size, read by masked indices.
pub(crate) struct Narrow<'a> {
    wp: &'a [[f64; 2]; NARROW],
    ws: NarrowSigned<&'a [Lane; 2 * NARROW]>,
}

impl PairRead for Narrow<'_> {
    #[inline(always)]
    fn twin(&self, units: &[u16], general: &[u16]) -> [f64; 2] {
        let unit = |k: u16| self.ws.get(k);
        dot(Packing::default(), units, general, unit, |p| {
            self.wp[p % NARROW]
        })
    }
}

/// [`PassTables`]' gradient at the 9-bit packing: fixed-size, summed into by masked indices.
pub(crate) struct NarrowSink<'a> {
    gp: &'a mut [[f64; 2]; NARROW],
    gs: NarrowSigned<&'a mut [Lane; 2 * NARROW]>,
    head: &'a mut [f64],
}

impl PairSink for NarrowSink<'_> {
    #[inline(always)]
    fn packing(&self) -> Packing {
        Packing::default()
    }

    #[inline(always)]
    fn unit(&mut self, k: u16, v: [f64; 2], _: &mut [f64]) {
        self.gs.add(k, v);
    }

    #[inline(always)]
    fn pair(&mut self, p: usize, [dm, de]: [f64; 2], _: &mut [f64]) {
        let g = &mut self.gp[p % NARROW];
        g[0] += dm;
        g[1] += de;
    }

    #[inline(always)]
    fn head(&mut self, k: usize, v: f64, _: &mut [f64]) {
        self.head[k] += v;
    }
}

/// [`PassTables`]' weights at any packing: slices, read with a check.
pub(crate) struct Wide<'a> {
    packing: Packing,
    wp: &'a PairBuf,
    ws: &'a Signed,
}

impl PairRead for Wide<'_> {
    #[inline(always)]
    fn twin(&self, units: &[u16], general: &[u16]) -> [f64; 2] {
        let unit = |k: u16| self.ws.get(k);
        dot(self.packing, units, general, unit, |p| self.wp[p])
    }
}

/// [`PassTables`]' gradient at any packing: slices, summed into with a check.
pub(crate) struct WideSink<'a> {
    packing: Packing,
    gp: &'a mut PairBuf,
    gs: &'a mut Signed,
    head: &'a mut [f64],
}

impl PairSink for WideSink<'_> {
    #[inline(always)]
    fn packing(&self) -> Packing {
        self.packing
    }

    #[inline(always)]
    fn unit(&mut self, k: u16, v: [f64; 2], _: &mut [f64]) {
        self.gs.add(k, v);
    }

    #[inline(always)]
    fn pair(&mut self, p: usize, [dm, de]: [f64; 2], _: &mut [f64]) {
        let g = &mut self.gp[p];
        g[0] += dm;
        g[1] += de;
    }

    #[inline(always)]
    fn head(&mut self, k: usize, v: f64, _: &mut [f64]) {
        self.head[k] += v;
    }
}
