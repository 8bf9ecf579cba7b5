//! Rows into the [`Phased`] store: a recorded sparse row, decomposed ([`Phased::try_push`]),
//! or a position's integer counts with its factors and constant, as they are
//! ([`Phased::try_push_counts`]).

use super::{Phased, Unit};
use crate::store::packing::Packing;
use crate::store::reason::{Reason, Refusal};

thread_local! {
    /// Per pair, its place in the row being merged (`u32::MAX`: none yet); left all
    /// `u32::MAX` between rows.
    static SLOT: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A pair's merged (pair, middlegame coefficient, endgame coefficient) in a sparse row.
type Group = (u32, f64, f64);

/// A row as stored: its (pair, integer coefficient) features and its factors `[a, b]`.
type Decomposed = (Vec<(usize, i16)>, [f64; 2]);

/// The constant as stored: `Err(ConstantTerm)` unless it is a 32-bit float exactly (as a
/// trace's `const` always is).
fn constant(konst: f64) -> Result<f32, Reason> {
    let c = konst as f32;
    if f64::from(c) == konst {
        Ok(c)
    } else {
        Err(Reason::ConstantTerm)
    }
}

/// Whether `x` and `y` agree to the store's tolerance for coefficients of size `s`
/// (`1e-12 * max(|s|, 1)`).
fn close(x: f64, y: f64, s: f64) -> bool {
    (x - y).abs() <= 1e-12 * s.abs().max(1.0)
}

/// `s` as a stored coefficient: an integer in the packing's range (`-64..=63` up to 512
/// pairs), not zero.
fn in_range(s: f64, packing: Packing) -> Result<i16, Reason> {
    if !packing.fits(s) || s == 0.0 {
        return Err(Reason::CoefficientOutOfRange);
    }
    Ok(s as i16)
}

/// The row with `a + b = 1` (a plain taper): `s_k = cm_k + ce_k`, `a = cm / s` of the first
/// pair, `b = 1 - a`.
fn taper(groups: &[Group], packing: Packing) -> Result<Decomposed, Reason> {
    let mut pairs = Vec::with_capacity(groups.len());
    let mut rho: Option<f64> = None;
    for &(p, cm, ce) in groups {
        let sum = cm + ce;
        let s = sum.round();
        if !close(sum, s, s) {
            return Err(Reason::NonIntegerCoefficient);
        }
        let si = in_range(s, packing)?;
        let r = *rho.get_or_insert(cm / s);
        if !close(s * r, cm, s) || !close(s * (1.0 - r), ce, s) {
            return Err(Reason::MixedPhases);
        }
        pairs.push((p as usize, si));
    }
    let r = rho.unwrap_or(0.0);
    Ok((pairs, [r, 1.0 - r]))
}

/// The row with `s = 1` on the pair of the smallest coefficients (an endgame scale makes
/// `a + b` anything): `[a, b]` are that pair's coefficients, every other pair's must be an
/// integer multiple of them.
fn scaled(groups: &[Group], packing: Packing) -> Result<Decomposed, Reason> {
    let size = |g: &&Group| g.1.abs().max(g.2.abs());
    let Some(&(_, a, b)) = groups.iter().min_by(|x, y| size(x).total_cmp(&size(y))) else {
        return Ok((Vec::new(), [0.0, 1.0]));
    };
    let by_a = a.abs() >= b.abs();
    let mut pairs = Vec::with_capacity(groups.len());
    for &(p, cm, ce) in groups {
        let x = if by_a { cm / a } else { ce / b };
        let s = x.round();
        if !x.is_finite() || !close(x, s, s) {
            return Err(Reason::NonIntegerCoefficient);
        }
        let si = in_range(s, packing)?;
        if !close(s * a, cm, s) || !close(s * b, ce, s) {
            return Err(Reason::MixedPhases);
        }
        pairs.push((p as usize, si));
    }
    Ok((pairs, [a, b]))
}

impl Phased {
    /// Appends the linear row `konst + sum coef[k] w[idx[k]]` (indices ascending) if it
    /// decomposes exactly (up to the rounding of its coefficients) as
    /// `c + sum s_k (a w[m_k] + b w[e_k])`; otherwise stores nothing and says why not. The
    /// factors are found assuming `a + b = 1` (a plain taper: `s_k` is the sum of a pair's two
    /// coefficients) or, failing that, with `s = 1` on the pair of the smallest coefficients
    /// (an endgame scale); a row that neither decomposes keeps the first's reason. Singles
    /// are not looked for (a row naming one is refused, [`Reason::NoTwinPair`]).
    pub(crate) fn try_push(&mut self, konst: f64, idx: &[u32], coef: &[f64]) -> Result<(), Reason> {
        let c = constant(konst)?;
        let groups = self.groups(idx, coef)?;
        let packing = self.pairs.packing;
        let (pairs, ab) = match taper(&groups, packing) {
            Ok(d) => d,
            Err(why) => scaled(&groups, packing).map_err(|_| why)?,
        };
        self.push_row(&pairs, ab, c)
    }

    /// A sparse row's coefficients merged by pair, sorted by pair.
    fn groups(&self, idx: &[u32], coef: &[f64]) -> Result<Vec<Group>, Reason> {
        let mut groups: Vec<Group> = Vec::with_capacity(idx.len());
        for (&i, &c) in idx.iter().zip(coef) {
            let p = match self.pairs.pair_of.get(i as usize) {
                Some(&p)
                    if p != u32::MAX && self.pairs.mg[p as usize] != self.pairs.eg[p as usize] =>
                {
                    p
                }
                _ => return Err(Reason::NoTwinPair),
            };
            let k = match groups.iter().position(|g| g.0 == p) {
                Some(k) => k,
                None => {
                    groups.push((p, 0.0, 0.0));
                    groups.len() - 1
                }
            };
            if self.pairs.mg[p as usize] == i {
                groups[k].1 += c;
            } else {
                groups[k].2 += c;
            }
        }
        groups.sort_unstable_by_key(|g| g.0);
        Ok(groups)
    }

    /// Appends the position `konst + sum_k count_k (a w[m_k] + b w[e_k])` given by its
    /// `(index, count)` pairs: `index` a pair's middlegame parameter or a single (whose term
    /// is `count (a + b) w[index]`), in any order, repeats adding up; `ab = [a, b]`. Stores
    /// nothing and says why not if an index is in no pair or is an endgame parameter
    /// ([`Reason::NoTwinPair`]), a merged count is not an integer or is outside the packing's range (`-64..=63` up to 512 pairs)
    /// (merged counts of zero are left out), or `konst` is not a 32-bit float.
    pub(crate) fn try_push_counts(
        &mut self,
        ab: [f64; 2],
        konst: f64,
        counts: &[(u32, f64)],
    ) -> Result<(), Refusal> {
        let c = constant(konst)?;
        // Each pair's counts summed in the order they come (a pair's place in `merged` found
        // through this thread's `SLOT`, not by a search of `merged`).
        let mut merged: Vec<(usize, f64)> = Vec::with_capacity(counts.len());
        let mut refused = None;
        SLOT.with_borrow_mut(|slot| {
            if slot.len() < self.pairs.mg.len() {
                slot.resize(self.pairs.mg.len(), u32::MAX);
            }
            for &(i, d) in counts {
                let p = match self.pairs.pair_of.get(i as usize) {
                    Some(&p) if p != u32::MAX && self.pairs.mg[p as usize] == i => p as usize,
                    _ => {
                        refused = Some(Refusal::at(Reason::NoTwinPair, i, d));
                        break;
                    }
                };
                match slot[p] {
                    u32::MAX => {
                        slot[p] = merged.len() as u32;
                        merged.push((p, d));
                    }
                    k => merged[k as usize].1 += d,
                }
            }
            for &(p, _) in &merged {
                slot[p] = u32::MAX;
            }
        });
        if let Some(r) = refused {
            return Err(r);
        }
        merged.retain(|x| x.1 != 0.0);
        merged.sort_unstable_by_key(|x| x.0);
        let mut pairs = Vec::with_capacity(merged.len());
        for (p, d) in merged {
            let at = |why| Refusal::at(why, self.pairs.mg[p], d);
            if d.fract() != 0.0 {
                return Err(at(Reason::NonIntegerCoefficient));
            }
            pairs.push((p, in_range(d, self.pairs.packing).map_err(at)?));
        }
        Ok(self.push_row(&pairs, ab, c)?)
    }

    /// Appends a row already checked: its features, factors and constant; refused only if
    /// its factors are new and the table of factors is full.
    fn push_row(&mut self, pairs: &[(usize, i16)], ab: [f64; 2], c: f32) -> Result<(), Reason> {
        let k = self.factors.intern(ab).ok_or(Reason::StoreFull)?;
        for &(p, s) in pairs {
            if s == 1 || s == -1 {
                self.units.push(Unit::new(p, s < 0));
            } else {
                self.feats.push(self.pairs.packing.pack(p, s));
            }
        }
        self.unit_offsets.push(self.units.len() as u32);
        self.offsets.push(self.feats.len() as u32);
        self.factor_of.push(k);
        self.konst.push(c);
        Ok(())
    }
}
