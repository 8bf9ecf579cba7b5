//! The sums-scalars-and-head store's replay: a position's head inputs, its value and
//! gradient through the shared head program, and the pass.

use tape::Scratch;

use super::{Row, ScalarHead};
use crate::store::interface::Store;
use crate::store::kind::StoreKind;
use crate::store::phased::{dot, dot_table, Signed};
use crate::store::unit::unpack_unit;

impl ScalarHead {
    /// Writes a row's head inputs into `x` (`2 * groups + picks + scalars` long): each group's
    /// sums from `group(units, general)`, the picked weights of `w`, the scalars.
    #[inline(always)]
    fn inputs_into(
        &self,
        row: &Row<'_>,
        w: &[f64],
        group: impl Fn(&[u16], &[u16]) -> [f64; 2],
        x: &mut [f64],
    ) {
        let (sums, rest) = x.split_at_mut(2 * self.groups);
        for (s, (units, general)) in sums.chunks_exact_mut(2).zip(row.groups()) {
            s.copy_from_slice(&group(units, general));
        }
        let (picks, scalars) = rest.split_at_mut(self.picks);
        for (x, &p) in picks.iter_mut().zip(row.picks) {
            *x = w[usize::from(p)];
        }
        scalars.copy_from_slice(row.scalars);
    }

    /// Adds a row's head input gradient `gx` into its weights: each group's
    /// `[middlegame, endgame]` gradient to its features through `unit` (a unit feature, to be
    /// signed by it) and `pair` (a pair number and its signed increments), both lent `grad`,
    /// and the picks' into `grad`.
    #[inline(always)]
    fn distribute(
        &self,
        row: &Row<'_>,
        gx: &[f64],
        grad: &mut [f64],
        mut unit: impl FnMut(u16, [f64; 2], &mut [f64]),
        mut pair: impl FnMut(usize, [f64; 2], &mut [f64]),
    ) {
        for (g, (units, general)) in gx.chunks_exact(2).zip(row.groups()) {
            let (da, db) = (g[0], g[1]);
            if da == 0.0 && db == 0.0 {
                continue;
            }
            for &f in units {
                unit(f, [da, db], grad);
            }
            for &f in general {
                let (p, s) = self.pairs.packing.unpack(f);
                pair(p, [s * da, s * db], grad);
            }
        }
        let picks = &gx[2 * self.groups..2 * self.groups + self.picks];
        for (&p, &d) in row.picks.iter().zip(picks) {
            grad[usize::from(p)] += d;
        }
    }

    /// A group's `[middlegame, endgame]` sums at the full weights `w`.
    #[inline(always)]
    fn group_at(&self, w: &[f64], units: &[u16], general: &[u16]) -> [f64; 2] {
        let get = |p: usize| self.pairs.get(w, p);
        let unit = |k: u16| {
            let (p, s) = unpack_unit(k);
            let v = get(p);
            [s * v[0], s * v[1]]
        };
        dot(self.pairs.packing, units, general, unit, get)
    }

    fn inputs_len(&self) -> usize {
        2 * self.groups + self.picks + self.scalars
    }
}

impl Store for ScalarHead {
    const KIND: StoreKind = StoreKind::SumsScalarsAndHead;

    fn len(&self) -> usize {
        ScalarHead::len(self)
    }

    fn heap_bytes(&self) -> usize {
        ScalarHead::heap_bytes(self)
    }

    fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
        let mut x = vec![0.0; self.inputs_len()];
        let group = |u: &[u16], g: &[u16]| self.group_at(w, u, g);
        self.inputs_into(&self.row(i), w, group, &mut x);
        self.head.forward(&x, scratch)
    }

    fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        let mut gx = vec![0.0; self.inputs_len()];
        self.head.backward(seed, scratch, &mut gx);
        let add = |p: usize, [dm, de]: [f64; 2], g: &mut [f64]| {
            g[self.pairs.mg[p] as usize] += dm;
            g[self.pairs.eg[p] as usize] += de;
        };
        let unit = |k: u16, [dm, de]: [f64; 2], g: &mut [f64]| {
            let (p, s) = unpack_unit(k);
            add(p, [s * dm, s * de], g);
        };
        self.distribute(&self.row(i), &gx, grad, unit, add);
    }

    /// The groups' gradient is summed by pair (the unit features' by sign first) and
    /// scattered at the end.
    // Out of line (called once per chunk) so that profiles name it.
    #[inline(never)]
    fn sweep<F>(
        &self,
        w: &[f64],
        range: std::ops::Range<usize>,
        want: bool,
        f: &F,
        scratch: &mut Scratch,
        grad: &mut [f64],
    ) -> f64
    where
        F: Fn(usize, f64) -> (f64, f64),
    {
        let packing = self.pairs.packing;
        let wp = &*self.pairs.gather(w);
        let ws = Signed::new(wp);
        let mut gp = self.pairs.zeros();
        let mut gs = Signed::zeros(wp.len());
        let n = self.inputs_len();
        let (mut x, mut gx) = (vec![0.0; n], vec![0.0; n]);
        let group = |u: &[u16], g: &[u16]| dot_table(packing, u, g, |k| ws.get(k), wp);
        let mut sum = 0.0;
        for i in range {
            let row = self.row(i);
            self.inputs_into(&row, w, group, &mut x);
            let q = self.head.forward(&x, scratch);
            let (l, d) = f(i, q);
            sum += l;
            if want && d != 0.0 {
                gx.fill(0.0);
                self.head.backward(d, scratch, &mut gx);
                let unit = |k: u16, v: [f64; 2], _: &mut [f64]| gs.add(k, v);
                let pair = |p: usize, [dm, de]: [f64; 2], _: &mut [f64]| {
                    let g = &mut gp[p];
                    g[0] += dm;
                    g[1] += de;
                };
                self.distribute(&row, &gx, grad, unit, pair);
            }
        }
        if want {
            gs.fold_into(&mut gp);
            self.pairs.scatter(&gp, grad);
        }
        sum
    }

    fn subset(&self, keep: &[usize]) -> ScalarHead {
        let mut out = self.empty_like();
        for &i in keep {
            out.push_from(self, i);
        }
        out
    }
}
