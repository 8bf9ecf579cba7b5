//! A twin group's share of a head store's replay, the same in both head stores
//! ([`Headed`](super::Headed), [`ScalarHead`](super::ScalarHead)): the group's
//! `[middlegame, endgame]` sums from a row's unit and general features ([`twin_at`] at the full
//! weights, [`PairTable::twin`] in a pass), and its gradient sent back to the features' pairs
//! ([`distribute_twin`]) through a [`PairSink`]: straight into the full gradient ([`Direct`],
//! one position) or by pair, the unit features' by sign first ([`ByPair`], a pass: scattered
//! once at the end).

use super::packing::Packing;
use super::pairs::{PairBuf, Pairs};
use super::phased::{dot, dot_table, Signed};
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
    packing: Packing,
    units: &[u16],
    general: &[u16],
    d: [f64; 2],
    sink: &mut impl PairSink,
    grad: &mut [f64],
) {
    for &f in units {
        sink.unit(f, d, grad);
    }
    for &f in general {
        let (p, s) = packing.unpack(f);
        sink.pair(p, [s * d[0], s * d[1]], grad);
    }
}

/// Where a head store's gradient goes: its twin groups' by pair, its head weights' by number.
pub(crate) trait PairSink {
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

/// A pass's gradient by pair (the unit features' by sign first, into a signed table) and by
/// head weight, added into the full gradient once at the end ([`finish`](Self::finish)).
pub(crate) struct ByPair {
    gp: Box<PairBuf>,
    gs: Signed,
    head: Vec<f64>,
}

impl ByPair {
    /// Zeros for the pairs of `pairs` and `heads` head weights.
    pub(crate) fn new(pairs: &Pairs, heads: usize) -> ByPair {
        let gp = pairs.zeros();
        let gs = Signed::zeros(gp.len());
        ByPair {
            gp,
            gs,
            head: vec![0.0; heads],
        }
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

impl PairSink for ByPair {
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

/// A pass's weights by pair and their signed table (indexed by a unit feature): a twin
/// group's sums without going through the parameter indices.
pub(crate) struct PairTable {
    packing: Packing,
    wp: Box<PairBuf>,
    ws: Signed,
}

impl PairTable {
    /// The weights `w` by the pairs of `pairs`.
    pub(crate) fn new(pairs: &Pairs, w: &[f64]) -> PairTable {
        let wp = pairs.gather(w);
        let ws = Signed::new(&wp);
        PairTable {
            packing: pairs.packing,
            wp,
            ws,
        }
    }

    /// A twin group's `[middlegame, endgame]` sums from a row's unit and general features.
    #[inline(always)]
    pub(crate) fn twin(&self, units: &[u16], general: &[u16]) -> [f64; 2] {
        dot_table(self.packing, units, general, |k| self.ws.get(k), &self.wp)
    }
}
