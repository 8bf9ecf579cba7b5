//! The sums-and-head store's replay: value and gradient of one position through the recorded
//! head, and the pass, in blocks through the hand-written head if the model gives one.

use tape::Scratch;

use super::{Headed, Row, BLOCK, MAX_HEAD_INPUTS};
use crate::store::interface::Store;
use crate::store::kind::StoreKind;
use crate::store::phased::{dot_table, Signed};
use crate::store::unit::unpack_unit;

impl Store for Headed {
    const KIND: StoreKind = StoreKind::SumsAndHead;

    fn len(&self) -> usize {
        Headed::len(self)
    }

    fn heap_bytes(&self) -> usize {
        Headed::heap_bytes(self)
    }

    fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
        let x = self.inputs_at(&self.row(i), w);
        self.head
            .forward(&x[..self.sums + self.head_params.len()], scratch)
    }

    fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        let mut gx = [0.0; MAX_HEAD_INPUTS];
        self.head.backward(seed, scratch, &mut gx);
        self.add_direct(&self.row(i), &gx, 1.0, grad);
    }

    /// Uses the hand-written head if there is one, else the recorded head with `scratch`.
    fn visit<F>(
        &self,
        i: usize,
        w: &[f64],
        want: bool,
        f: &F,
        scratch: &mut Scratch,
        grad: &mut [f64],
    ) -> f64
    where
        F: Fn(usize, f64) -> (f64, f64),
    {
        let Some(fast) = self.fast else {
            let (l, d) = f(i, self.score(i, w, scratch));
            if want && d != 0.0 {
                self.add_gradient(i, d, scratch, grad);
            }
            return l;
        };
        let row = self.row(i);
        let x = self.inputs_at(&row, w);
        let mut gx = [0.0; MAX_HEAD_INPUTS];
        let inputs = self.sums + self.head_params.len();
        let q = fast(&x[..self.sums], &x[self.sums..inputs], &mut gx);
        let (l, d) = f(i, q);
        if want && d != 0.0 {
            self.add_direct(&row, &gx, d, grad);
        }
        l
    }

    /// The pairs' share of the gradient is summed by pair (the unit features' by sign first)
    /// and scattered at the end.
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
        let hw = self.head_weights(w);
        let hw = &hw[..self.head_params.len()];
        let inputs = self.sums + hw.len();
        let mut ghead = [0.0; MAX_HEAD_INPUTS];
        // The by-pair weights and their negations, indexed by a unit feature; the unit
        // features' gradient is summed by sign (into `gs`) and folded into `gp` at the end.
        let packing = self.pairs.packing;
        let wp = &*self.pairs.gather(w);
        let mut gp = self.pairs.zeros();
        let ws = Signed::new(wp);
        let mut gs = Signed::zeros(wp.len());
        let mut sum = 0.0;
        // Adds one position's gradient (its head gradient `gx` times `scale`).
        let mut add = |row: &Row<'_>, gx: &[f64; MAX_HEAD_INPUTS], scale: f64, grad: &mut [f64]| {
            let unit = |k: u16, v: [f64; 2], _: &mut [f64]| gs.add(k, v);
            let pair = |p: usize, [dm, de]: [f64; 2], _: &mut [f64]| {
                let g = &mut gp[p];
                g[0] += dm;
                g[1] += de;
            };
            self.distribute(row, gx, scale, grad, &mut ghead, unit, pair);
        };
        if let Some(fast) = self.fast {
            // In blocks: the sums of a block, then its heads and losses (independent of one
            // another, so their latency chains overlap), then its gradients.
            let mut x = [[0.0; MAX_HEAD_INPUTS]; BLOCK];
            for x in &mut x {
                x[self.sums..inputs].copy_from_slice(hw);
            }
            let mut gx = [[0.0; MAX_HEAD_INPUTS]; BLOCK];
            let mut d = [0.0; BLOCK];
            let mut rows = [Row::default(); BLOCK];
            let mut start = range.start;
            while start < range.end {
                let end = (start + BLOCK).min(range.end);
                for ((i, x), row) in (start..end).zip(&mut x).zip(&mut rows) {
                    *row = self.row(i);
                    let twin = dot_table(packing, row.units, row.general, |k| ws.get(k), wp);
                    self.sums_into(row, twin, w, x);
                }
                for ((i, x), (gx, d)) in (start..end).zip(&x).zip(gx.iter_mut().zip(&mut d)) {
                    let q = fast(&x[..self.sums], &x[self.sums..inputs], gx);
                    let (l, dl) = f(i, q);
                    sum += l;
                    *d = dl;
                }
                if want {
                    for ((row, gx), &d) in rows[..end - start].iter().zip(&gx).zip(&d) {
                        if d != 0.0 {
                            add(row, gx, d, grad);
                        }
                    }
                }
                start = end;
            }
        } else {
            for i in range {
                let row = self.row(i);
                let twin = dot_table(packing, row.units, row.general, |k| ws.get(k), wp);
                let x = self.inputs(&row, twin, w, hw);
                let q = self.head.forward(&x[..inputs], scratch);
                let (l, d) = f(i, q);
                sum += l;
                if want && d != 0.0 {
                    let mut gx = [0.0; MAX_HEAD_INPUTS];
                    self.head.backward(d, scratch, &mut gx[..inputs]);
                    add(&row, &gx, 1.0, grad);
                }
            }
        }
        if want {
            gs.fold_into(&mut gp);
            for (&k, &d) in self.head_params.iter().zip(&ghead) {
                grad[k as usize] += d;
            }
            self.pairs.scatter(&gp, grad);
        }
        sum
    }

    /// From the row's terms and the head's input gradient (no sweep over every parameter):
    /// `dq/dw = sum_j gx_j ds_j/dw + gx_head`, each parameter once (the phase weights are
    /// both a sum's terms and head weights).
    fn jacobian_row(
        &self,
        i: usize,
        w: &[f64],
        scratch: &mut Scratch,
        dense: &mut [f64],
        idx: &mut Vec<u32>,
        coef: &mut Vec<f64>,
    ) {
        let row = self.row(i);
        let x = self.inputs_at(&row, w);
        let inputs = self.sums + self.head_params.len();
        let mut gx = [0.0; MAX_HEAD_INPUTS];
        match self.fast {
            Some(fast) => {
                fast(&x[..self.sums], &x[self.sums..inputs], &mut gx);
            }
            None => {
                self.head.forward(&x[..inputs], scratch);
                self.head.backward(1.0, scratch, &mut gx[..inputs]);
            }
        }
        let start = idx.len();
        // Accumulate in `dense`, noting each parameter the first time it is touched.
        let mut put = |j: usize, v: f64| {
            if dense[j] == 0.0 {
                idx.push(j as u32);
            }
            dense[j] += v;
        };
        let (ga, gb) = (gx[self.twins.0], gx[self.twins.1]);
        let units = row.units.iter().map(|&f| unpack_unit(f));
        let packing = self.pairs.packing;
        for (p, s) in units.chain(row.general.iter().map(|&f| packing.unpack(f))) {
            put(self.pairs.mg[p] as usize, s * ga);
            put(self.pairs.eg[p] as usize, s * gb);
        }
        let mut k = 0;
        for (&n, &j) in row.counts.iter().zip(&self.others) {
            let end = k + 2 * usize::from(n);
            for c in row.terms[k..end].chunks_exact(2) {
                put(usize::from(c[0]), f64::from(c[1] as i16) * gx[j]);
            }
            k = end;
        }
        for (&h, &g) in self.head_params.iter().zip(&gx[self.sums..inputs]) {
            put(h as usize, g);
        }
        // Emit each touched parameter once (one touched twice, its sum having passed through
        // zero, is emitted the first time and then reads zero).
        let mut out = start;
        for t in start..idx.len() {
            let j = idx[t];
            let v = std::mem::take(&mut dense[j as usize]);
            if v != 0.0 {
                idx[out] = j;
                coef.push(v);
                out += 1;
            }
        }
        idx.truncate(out);
    }

    fn subset(&self, keep: &[usize]) -> Headed {
        let mut out = self.empty_like();
        for &i in keep {
            out.push_from(self, i);
        }
        out
    }
}
