//! [`Pairs`]: the (middlegame, endgame) parameter pairs the compact stores index by pair
//! number, with the [`Packing`] of their features.

use super::packing::{Packing, MAX_PAIRS};
use super::reason::{Reason, Refusal};
use super::unit::pack_unit;

/// Per-pair `[middlegame, endgame]` values, one slot per pair number a feature can hold
/// ([`Packing::slots`]; the slots past the pairs stay zero).
pub(crate) type PairBuf = [[f64; 2]];

/// The pairs of a compact store: the middlegame and endgame index of each pair, the pair
/// number of each parameter (`u32::MAX`: none) and the features' packing.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Pairs {
    pub(crate) mg: Vec<u32>,
    pub(crate) eg: Vec<u32>,
    pub(crate) pair_of: Vec<u32>,
    pub(crate) packing: Packing,
}

impl Pairs {
    /// The pairs of `eg_of` (`eg_of[i] = Some(e)`: parameter `i` is a middlegame parameter
    /// whose endgame twin is `e`). `None` if there are no pairs, more than [`MAX_PAIRS`], or
    /// the pairing is inconsistent (an index in two pairs or out of range).
    pub(crate) fn new(eg_of: &[Option<usize>]) -> Option<Pairs> {
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
        if mg.is_empty() {
            return None;
        }
        Pairs::from_parts(mg, eg, pair_of)
    }

    /// As [`new`](Self::new), then every parameter in no pair added as a *single* `(i, i)` if
    /// all of them fit in [`MAX_PAIRS`] with the pairs (otherwise none is). `None` if the
    /// pairing is inconsistent, or there is nothing to address.
    pub(crate) fn with_singles(eg_of: &[Option<usize>]) -> Option<Pairs> {
        let n = eg_of.len();
        let Pairs {
            mut mg,
            mut eg,
            mut pair_of,
            ..
        } = match Pairs::new(eg_of) {
            Some(t) => t,
            None if eg_of.iter().all(Option::is_none) => Pairs {
                pair_of: vec![u32::MAX; n],
                ..Pairs::default()
            },
            None => return None,
        };
        let singles = pair_of.iter().filter(|&&p| p == u32::MAX).count();
        if mg.len() + singles <= MAX_PAIRS {
            for (i, p) in pair_of.iter_mut().enumerate() {
                if *p == u32::MAX {
                    *p = mg.len() as u32;
                    mg.push(i as u32);
                    eg.push(i as u32);
                }
            }
        }
        if mg.is_empty() {
            return None;
        }
        Pairs::from_parts(mg, eg, pair_of)
    }

    fn from_parts(mg: Vec<u32>, eg: Vec<u32>, pair_of: Vec<u32>) -> Option<Pairs> {
        let packing = Packing::for_pairs(mg.len())?;
        Some(Pairs {
            mg,
            eg,
            pair_of,
            packing,
        })
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.mg.capacity() + self.eg.capacity() + self.pair_of.capacity()) * 4
    }

    /// Pair `p`'s `[middlegame, endgame]` weights in `w`.
    #[inline(always)]
    pub(crate) fn get(&self, w: &[f64], p: usize) -> [f64; 2] {
        [w[self.mg[p] as usize], w[self.eg[p] as usize]]
    }

    /// A zero by-pair buffer ([`Packing::slots`] long).
    pub(crate) fn zeros(&self) -> Box<PairBuf> {
        vec![[0.0; 2]; self.packing.slots()].into_boxed_slice()
    }

    /// The weights by pair, `[middlegame, endgame]`, padded to [`Packing::slots`] (so that a
    /// feature's pair number is in bounds).
    pub(crate) fn gather(&self, w: &[f64]) -> Box<PairBuf> {
        let mut wp = self.zeros();
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

    /// The couple of twin sums `a` (middlegame) and `b` (endgame) merged by pair: (pair
    /// number, integer coefficient), sorted by pair, zeros dropped; or why they do not pair,
    /// naming the parameter: term by term the same pair's two parameters (or a single's one
    /// parameter twice) with the same integer coefficient, and each merged coefficient one
    /// that [`push_features`](Self::push_features) can split into features in the packing's
    /// range ([`Packing::fits_split`]).
    pub(crate) fn merge_twins(
        &self,
        a: &[(u32, f64)],
        b: &[(u32, f64)],
    ) -> Result<Vec<(u32, f64)>, Refusal> {
        if a.len() != b.len() {
            let first = a.iter().chain(b).next();
            return Err(first.map_or(Reason::NoTwinPair.into(), |&(i, c)| {
                Refusal::at(Reason::NoTwinPair, i, c)
            }));
        }
        let mut pairs: Vec<(u32, f64)> = Vec::with_capacity(a.len());
        for (&(m, c), &(e, d)) in a.iter().zip(b) {
            let p = match self.pair_of.get(m as usize) {
                Some(&p) if p != u32::MAX => p,
                _ => return Err(Refusal::at(Reason::NoTwinPair, m, c)),
            };
            if self.mg[p as usize] != m || self.eg[p as usize] != e || c != d {
                return Err(Refusal::at(Reason::NoTwinPair, m, c));
            }
            if c.fract() != 0.0 {
                return Err(Refusal::at(Reason::NonIntegerCoefficient, m, c));
            }
            match pairs.iter_mut().find(|x| x.0 == p) {
                Some(x) => x.1 += c,
                None => pairs.push((p, c)),
            }
        }
        pairs.retain(|x| x.1 != 0.0);
        pairs.sort_unstable_by_key(|x| x.0);
        if let Some(&(p, c)) = pairs.iter().find(|x| !self.packing.fits_split(x.1)) {
            let at = Refusal::at(Reason::CoefficientOutOfRange, self.mg[p as usize], c);
            return Err(at);
        }
        Ok(pairs)
    }

    /// The number of unit and of general features [`push_features`](Self::push_features)
    /// writes for merged pairs.
    pub(crate) fn feature_counts(&self, pairs: &[(u32, f64)]) -> (usize, usize) {
        let units = pairs.iter().filter(|x| is_unit(x.1)).count();
        let general = pairs.iter().filter(|x| !is_unit(x.1));
        (
            units,
            general.map(|x| self.packing.pieces(x.1).count()).sum(),
        )
    }

    /// Appends merged pairs ([`merge_twins`](Self::merge_twins)) to `arena` as features: the
    /// unit ones, then the general ones (a coefficient beyond the packing's range as several
    /// features of its pair, [`Packing::pieces`]).
    pub(crate) fn push_features(&self, pairs: &[(u32, f64)], arena: &mut Vec<u16>) {
        let units = pairs.iter().filter(|x| is_unit(x.1));
        arena.extend(units.map(|&(p, c)| pack_unit(p as usize, c < 0.0)));
        for &(p, c) in pairs.iter().filter(|x| !is_unit(x.1)) {
            let pieces = self.packing.pieces(c);
            arena.extend(pieces.map(|s| self.packing.pack(p as usize, s)));
        }
    }
}

/// Whether a merged coefficient is a unit feature's (`+-1`).
fn is_unit(c: f64) -> bool {
    c == 1.0 || c == -1.0
}
