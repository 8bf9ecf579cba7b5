//! The sums-and-head store's replay: value and gradient through the recorded head (the
//! replay both head stores share, `store/head_program.rs`), and the pass in blocks through the
//! hand-written head if the model gives one.

use std::ops::Range;

use tape::Scratch;

use super::{HeadGradient, Headed, Row, BLOCK, MAX_HEAD_INPUTS};
use crate::store::head_program::{self, HeadRows};
use crate::store::interface::{copy_positions, Loss, Pass, Store};
use crate::store::kind::StoreKind;
use crate::store::twin::{Direct, PairRead, PairSink, PassTables};
use crate::store::unit::unpack_unit;

impl Headed {
    /// The pass through the hand-written head `fast`, in blocks (see
    /// [`blocks`](Self::blocks)), with the pass's by-pair views at the width of the store's
    /// packing. The pairs' share of the gradient is summed by pair (the unit features' by sign
    /// first) and scattered at the end.
    fn sweep_fast<F: Loss>(
        &self,
        fast: HeadGradient,
        pass: &Pass<'_, F>,
        range: Range<usize>,
        grad: &mut [f64],
    ) -> f64 {
        let mut tables = PassTables::new(&self.pairs, pass.w, self.head_params.len());
        let sum = match tables.narrow() {
            Some((read, sink)) => self.blocks(fast, pass, range, read, sink, grad),
            None => {
                let (read, sink) = tables.wide();
                self.blocks(fast, pass, range, read, sink, grad)
            }
        };
        if pass.want {
            tables.finish(&self.pairs, &self.head_params, grad);
        }
        sum
    }

    /// [`sweep_fast`](Self::sweep_fast)'s loop, in blocks: the sums of a block, then its heads
    /// and losses (independent of one another, so their latency chains overlap), then its
    /// gradients.
    // Out of line (called once per chunk) so that profiles name it. The views come by value:
    // by reference, the loop loaded their tables' addresses from the caller's frame (3.5% of
    // the `full` pass, docs/benchmarks.md).
    #[inline(never)]
    fn blocks<F: Loss>(
        &self,
        fast: HeadGradient,
        pass: &Pass<'_, F>,
        range: Range<usize>,
        read: impl PairRead,
        mut sink: impl PairSink,
        grad: &mut [f64],
    ) -> f64 {
        let Pass { w, want, f } = *pass;
        let inputs = self.sums + self.head_params.len();
        let mut sum = 0.0;
        let mut x = [[0.0; MAX_HEAD_INPUTS]; BLOCK];
        for x in &mut x {
            self.fixed_inputs(w, x);
        }
        let mut gx = [[0.0; MAX_HEAD_INPUTS]; BLOCK];
        let mut d = [0.0; BLOCK];
        let mut rows = [Row::default(); BLOCK];
        let mut start = range.start;
        while start < range.end {
            let end = (start + BLOCK).min(range.end);
            for ((i, x), row) in (start..end).zip(&mut x).zip(&mut rows) {
                *row = self.row(i);
                self.sums_into(row, read.twin(row.units, row.general), w, x);
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
                        self.distribute(row, gx, d, &mut sink, grad);
                    }
                }
            }
            start = end;
        }
        sum
    }
}

impl Store for Headed {
    const KIND: StoreKind = StoreKind::SumsAndHead;

    head_program::head_store_common!(Headed);

    /// Uses the hand-written head if there is one, else the recorded head with `scratch`.
    fn visit<F: Loss>(&self, pass: &Pass<'_, F>, i: usize, sc: &mut Scratch, g: &mut [f64]) -> f64 {
        let Some(fast) = self.fast else {
            return pass.visit(self, i, sc, g);
        };
        let Pass { w, want, f } = *pass;
        let row = self.row(i);
        let x = self.inputs_at(&row, w);
        let mut gx = [0.0; MAX_HEAD_INPUTS];
        let inputs = self.sums + self.head_params.len();
        let q = fast(&x[..self.sums], &x[self.sums..inputs], &mut gx);
        let (l, d) = f(i, q);
        if want && d != 0.0 {
            let mut sink = Direct::new(&self.pairs, &self.head_params);
            self.distribute(&row, &gx, d, &mut sink, g);
        }
        l
    }

    /// Through the hand-written head in blocks if there is one, else through the recorded
    /// head.
    #[inline]
    fn sweep<F: Loss>(
        &self,
        pass: &Pass<'_, F>,
        range: Range<usize>,
        sc: &mut Scratch,
        g: &mut [f64],
    ) -> f64 {
        match self.fast {
            Some(fast) => self.sweep_fast(fast, pass, range, g),
            None => head_program::sweep(self, pass, range, sc, g),
        }
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
        copy_positions(self.empty_like(), keep, |out, i| out.push_from(self, i))
    }
}
