//! The (middlegame, endgame) parameter pairs both compact stores index by pair number.

use super::phased::{PairBuf, MAX_PAIRS};

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

/// As [`pair_table`], then every parameter in no pair added as a *single* `(i, i)` if all of
/// them fit in [`MAX_PAIRS`] with the pairs (otherwise none is). `None` if the pairing is
/// inconsistent, or there is nothing to address.
#[allow(clippy::type_complexity)]
pub(crate) fn with_singles(eg_of: &[Option<usize>]) -> Option<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let n = eg_of.len();
    let (mut mg, mut eg, mut pair_of) = match pair_table(eg_of) {
        Some(t) => t,
        None if eg_of.iter().all(Option::is_none) => (Vec::new(), Vec::new(), vec![u32::MAX; n]),
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
    (!mg.is_empty()).then_some((mg, eg, pair_of))
}

/// The weights by pair, `[middlegame, endgame]`, padded to [`MAX_PAIRS`] (so that a
/// feature's pair number needs no bounds check).
pub(crate) fn gather(mg: &[u32], eg: &[u32], w: &[f64]) -> Box<PairBuf> {
    let mut wp = Box::new([[0.0; 2]; MAX_PAIRS]);
    for ((x, &m), &e) in wp.iter_mut().zip(mg).zip(eg) {
        *x = [w[m as usize], w[e as usize]];
    }
    wp
}

/// Adds a by-pair gradient into the full gradient `g`.
pub(crate) fn scatter(mg: &[u32], eg: &[u32], gp: &PairBuf, g: &mut [f64]) {
    for ((x, &m), &e) in gp.iter().zip(mg).zip(eg) {
        g[m as usize] += x[0];
        g[e as usize] += x[1];
    }
}
