//! The regularisation of an [`Objective`](super::Objective): L1 and L2 pulls towards the
//! starting weights and the smoothness prior over neighbour pairs, their value, gradient and
//! curvature (added to every form of the Gauss-Newton matrix).

/// The penalties of an objective, borrowed from it: their strengths, the free parameters
/// (`free`, and each full index's `slot` among them, `u32::MAX` when frozen), the starting
/// weights they pull towards (`base`, full) and the smoothness pairs (full indices).
pub(super) struct Penalty<'a> {
    pub(super) l1: f64,
    pub(super) l2: f64,
    pub(super) smooth: f64,
    pub(super) free: &'a [usize],
    pub(super) slot: &'a [u32],
    pub(super) base: &'a [f64],
    pub(super) pairs: &'a [(u32, u32)],
    /// The prior's per-weight strengths `p_j` over the free parameters (empty: none): `sum_j
    /// p_j (w_j - w0_j)^2` beside `l2`.
    pub(super) prior: &'a [f64],
}

impl Penalty<'_> {
    /// The free parameters' distances from their starting values.
    fn offsets<'a>(&'a self, x: &'a [f64]) -> impl Iterator<Item = f64> + 'a {
        x.iter().zip(self.free).map(|(&v, &i)| v - self.base[i])
    }

    /// The value of full index `i` at free values `x`.
    fn value_of(&self, x: &[f64], i: u32) -> f64 {
        match self.slot[i as usize] {
            u32::MAX => self.base[i as usize],
            s => x[s as usize],
        }
    }

    /// The smoothness pairs as free slots (`u32::MAX` where frozen) and their difference at `x`.
    fn pair_differences<'a>(&'a self, x: &'a [f64]) -> impl Iterator<Item = (u32, u32, f64)> + 'a {
        self.pairs.iter().map(move |&(a, b)| {
            (
                self.slot[a as usize],
                self.slot[b as usize],
                self.value_of(x, a) - self.value_of(x, b),
            )
        })
    }

    pub(super) fn value(&self, x: &[f64]) -> f64 {
        let mut p = 0.0;
        if self.l1 != 0.0 {
            p += self.l1 * self.offsets(x).map(f64::abs).sum::<f64>();
        }
        if self.l2 != 0.0 {
            p += self.l2 * self.offsets(x).map(|d| d * d).sum::<f64>();
        }
        if !self.prior.is_empty() {
            p += (self.offsets(x).zip(self.prior))
                .map(|(d, s)| s * d * d)
                .sum::<f64>();
        }
        if self.smooth != 0.0 {
            p += self.smooth * self.pair_differences(x).map(|(_, _, d)| d * d).sum::<f64>();
        }
        p
    }

    pub(super) fn add_gradient(&self, x: &[f64], g: &mut [f64]) {
        if self.l1 != 0.0 || self.l2 != 0.0 {
            for (gi, d) in g.iter_mut().zip(self.offsets(x)) {
                if self.l1 != 0.0 && d != 0.0 {
                    *gi += self.l1 * d.signum();
                }
                *gi += 2.0 * self.l2 * d;
            }
        }
        for ((gi, d), s) in g.iter_mut().zip(self.offsets(x)).zip(self.prior) {
            *gi += 2.0 * s * d;
        }
        if self.smooth != 0.0 {
            for (sa, sb, d) in self.pair_differences(x) {
                let f = 2.0 * self.smooth * d;
                if sa != u32::MAX {
                    g[sa as usize] += f;
                }
                if sb != u32::MAX {
                    g[sb as usize] -= f;
                }
            }
        }
    }

    /// The penalties' curvature (L1 has none) over the free parameters: `2 (l2 I + P) + 2 smooth
    /// L`, `P` the prior's strengths on the diagonal,
    /// `L` the Laplacian of the pairs among free parameters (a pair with a frozen member adds
    /// to its free member's diagonal only). [`Linearisation`](crate::Linearisation) adds it to the Gauss-Newton
    /// matrix in each of its forms through the three methods below (the objective's
    /// `penalty_diagonal`, `add_penalty_curvature_times`, `add_penalty_curvature_dense`).
    pub(super) fn diagonal(&self) -> Vec<f64> {
        let mut d = vec![2.0 * self.l2; self.free.len()];
        for (d, s) in d.iter_mut().zip(self.prior) {
            *d += 2.0 * s;
        }
        if self.smooth != 0.0 {
            for &(a, b) in self.pairs.iter() {
                for s in [self.slot[a as usize], self.slot[b as usize]] {
                    if s != u32::MAX {
                        d[s as usize] += 2.0 * self.smooth;
                    }
                }
            }
        }
        d
    }

    /// `out += (2 (l2 I + P) + 2 smooth L) v`.
    pub(super) fn add_curvature_times(&self, v: &[f64], out: &mut [f64]) {
        for (o, &x) in out.iter_mut().zip(v) {
            *o += 2.0 * self.l2 * x;
        }
        for ((o, &x), s) in out.iter_mut().zip(v).zip(self.prior) {
            *o += 2.0 * s * x;
        }
        if self.smooth != 0.0 {
            let c = 2.0 * self.smooth;
            for &(a, b) in self.pairs.iter() {
                let (sa, sb) = (self.slot[a as usize], self.slot[b as usize]);
                let va = if sa == u32::MAX { 0.0 } else { v[sa as usize] };
                let vb = if sb == u32::MAX { 0.0 } else { v[sb as usize] };
                if sa != u32::MAX {
                    out[sa as usize] += c * (va - vb);
                }
                if sb != u32::MAX {
                    out[sb as usize] += c * (vb - va);
                }
            }
        }
    }

    /// `h += 2 (l2 I + P) + 2 smooth L` on a dense row-major `m x m` matrix.
    pub(super) fn add_curvature_dense(&self, h: &mut [f64]) {
        let m = self.free.len();
        for (a, x) in self.diagonal().into_iter().enumerate() {
            h[a * m + a] += x;
        }
        if self.smooth != 0.0 {
            let c = 2.0 * self.smooth;
            for &(a, b) in self.pairs.iter() {
                let (sa, sb) = (self.slot[a as usize], self.slot[b as usize]);
                if sa != u32::MAX && sb != u32::MAX {
                    h[sa as usize * m + sb as usize] -= c;
                    h[sb as usize * m + sa as usize] -= c;
                }
            }
        }
    }
}
