//! [`Phased`]: a compact, exact store for tapered linear evaluations.
//!
//! A model whose parameters come in (middlegame, endgame) pairs `(m, e)`, tapered by one game
//! phase `rho` per position, has linear rows of the form
//! `q = sum_k s_k * (rho * w[m_k] + (1 - rho) * w[e_k])` with small integers `s_k` (piece
//! counts, +-1). Each such row is stored as its `rho` (f64) and one `u16` per pair: the pair
//! number in the low 9 bits and `s_k` as a signed 7-bit integer in the high bits. Rows that do
//! not decompose exactly stay in the general sparse form.

/// Bits of a feature that hold the pair number.
pub(crate) const PAIR_BITS: u32 = 9;
/// Most pairs a compact store can address.
pub(crate) const MAX_PAIRS: usize = 1 << PAIR_BITS;
/// Per-pair `[middlegame, endgame]` values, one slot per addressable pair.
pub(crate) type PairBuf = [[f64; 2]; MAX_PAIRS];
const PAIR_MASK: u16 = (1 << PAIR_BITS) - 1;
/// Range of the integer coefficients (7 bits, signed).
pub(crate) const S_MIN: f64 = -64.0;
pub(crate) const S_MAX: f64 = 63.0;

#[inline(always)]
pub(crate) fn pack(pair: usize, s: i16) -> u16 {
    (pair as u16) | ((s as u16) << PAIR_BITS)
}

#[inline(always)]
pub(crate) fn unpack(f: u16) -> (usize, f64) {
    ((f & PAIR_MASK) as usize, f64::from((f as i16) >> PAIR_BITS))
}

/// `[sum s_k a_k, sum s_k b_k]` over `feats`, `[a_k, b_k] = get(pair_k)`: four independent
/// accumulators (the latency of one chain of additions would bound the sweep).
#[inline(always)]
pub(crate) fn dot(feats: &[u16], get: impl Fn(usize) -> [f64; 2]) -> [f64; 2] {
    let mut acc = [[0.0f64; 2]; 4];
    let mut chunks = feats.chunks_exact(4);
    for c in &mut chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            let (p, s) = unpack(x);
            let v = get(p);
            a[0] += s * v[0];
            a[1] += s * v[1];
        }
    }
    for (a, &x) in acc.iter_mut().zip(chunks.remainder()) {
        let (p, s) = unpack(x);
        let v = get(p);
        a[0] += s * v[0];
        a[1] += s * v[1];
    }
    [
        (acc[0][0] + acc[1][0]) + (acc[2][0] + acc[3][0]),
        (acc[0][1] + acc[1][1]) + (acc[2][1] + acc[3][1]),
    ]
}

/// Compact rows: per row a phase `rho` and (pair, integer coefficient) features.
#[derive(Clone, Debug, Default)]
pub(crate) struct Phased {
    /// Middlegame and endgame index of each pair.
    mg: Vec<u32>,
    eg: Vec<u32>,
    /// Pair number of each parameter (`u32::MAX`: not in a pair).
    pair_of: Vec<u32>,
    offsets: Vec<u32>,
    rho: Vec<f64>,
    feats: Vec<u16>,
}

impl Phased {
    /// An empty store for parameters where `eg_of[i] = Some(e)` says that `i` is a middlegame
    /// parameter whose endgame twin is `e`; `None` if there are no pairs, too many to address,
    /// or the pairing is inconsistent (an index in two pairs or out of range).
    pub(crate) fn new(eg_of: &[Option<usize>]) -> Option<Phased> {
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
        Some(Phased {
            mg,
            eg,
            pair_of,
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
            + self.offsets.capacity() * 4
            + self.rho.capacity() * 8
            + self.feats.capacity() * 2
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.offsets.shrink_to_fit();
        self.rho.shrink_to_fit();
        self.feats.shrink_to_fit();
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
        let start = self.feats.len();
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
                self.feats.truncate(start);
                return false;
            }
            self.feats.push(pack(p as usize, s as i16));
        }
        self.rho.push(rho.unwrap_or(0.0));
        self.offsets.push(self.feats.len() as u32);
        true
    }

    /// Appends row `i` of `other` (a store over the same parameters).
    pub(crate) fn push_from(&mut self, other: &Phased, i: usize) {
        let (a, b) = (other.offsets[i] as usize, other.offsets[i + 1] as usize);
        self.feats.extend_from_slice(&other.feats[a..b]);
        self.rho.push(other.rho[i]);
        self.offsets.push(self.feats.len() as u32);
    }

    /// An empty store over the same parameters.
    pub(crate) fn empty_like(&self) -> Phased {
        Phased {
            mg: self.mg.clone(),
            eg: self.eg.clone(),
            pair_of: self.pair_of.clone(),
            offsets: vec![0],
            ..Phased::default()
        }
    }

    /// Row `i`'s value at `w`.
    #[inline(always)]
    pub(crate) fn score(&self, i: usize, w: &[f64]) -> f64 {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let [sm, se] = dot(&self.feats[a..b], |p| {
            [w[self.mg[p] as usize], w[self.eg[p] as usize]]
        });
        let r = self.rho[i];
        r * sm + (1.0 - r) * se
    }

    /// Adds `seed * dq_i/dw` into `grad`.
    #[inline(always)]
    pub(crate) fn add_gradient(&self, i: usize, seed: f64, grad: &mut [f64]) {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let r = self.rho[i];
        let (dm, de) = (seed * r, seed * (1.0 - r));
        for &f in &self.feats[a..b] {
            let (p, s) = unpack(f);
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
    /// [`score`](Self::score) and [`add_gradient`](Self::add_gradient).
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
        let mut sum = 0.0;
        for i in range {
            let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
            let feats = &self.feats[a..b];
            let [sm, se] = dot(feats, |p| wp[p]);
            let r = self.rho[i];
            let (l, d) = f(i, r * sm + (1.0 - r) * se);
            sum += l;
            if want && d != 0.0 {
                let (dm, de) = (d * r, d * (1.0 - r));
                for &x in feats {
                    let (p, s) = unpack(x);
                    let g = &mut gp[p];
                    g[0] += s * dm;
                    g[1] += s * de;
                }
            }
        }
        sum
    }

    /// Row `i` as sparse (index, coefficient) pairs, appended to `idx` and `coef`.
    pub(crate) fn row_into(&self, i: usize, idx: &mut Vec<u32>, coef: &mut Vec<f64>) {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let r = self.rho[i];
        for &f in &self.feats[a..b] {
            let (p, s) = unpack(f);
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
        assert_eq!(ph.feats.len(), 2);
    }
}
