//! [`CompiledSet`]: every position's evaluation recorded once and compiled for replay, as a
//! list of segments, each a [`Store`] of consecutive positions (see [`crate::store`] for the
//! stores and which position enters which).
//!
//! This file replays a set: a pass, every score, one position's value, gradient and row, a
//! subset. Its data, and what it holds, are in `compiled.rs`; the other child modules record
//! into it (`record.rs`, `linear.rs`, `heads.rs`, `builder.rs`, through `work.rs`'s taped work items) or make its Jacobian
//! (`jacobian.rs`). Imports run one way, down: this file names its children; they name the
//! leaves `compiled.rs` and `target.rs`, each other and the stores, never this file; nothing in
//! `store` names the set.

use std::ops::Range;

use rayon::prelude::*;
use tape::Scratch;

use crate::stop::Stop;
use crate::store::{each_store, Pass, Store};

mod builder;
mod compiled;
mod heads;
mod jacobian;
mod linear;
mod reads;
mod record;
mod target;
mod work;

pub use builder::SetBuilder;
pub use compiled::CompiledSet;
use compiled::{Segment, CHUNK};
pub use heads::HeadSpec;
pub use jacobian::SparseRows;
pub use linear::Counts;
pub use record::SplitSpec;
pub use target::Target;

impl CompiledSet {
    /// The segment holding position `i`, and `i`'s number in it.
    ///
    /// # Panics
    ///
    /// If `i >= len()`.
    #[inline(always)]
    fn locate(&self, i: usize) -> (&Segment, usize) {
        assert!(i < self.len(), "position {i} of {}", self.len());
        let k = self.segments.partition_point(|s| s.start <= i) - 1;
        let s = &self.segments[k];
        (s, i - s.start)
    }

    /// The segments that `range` touches, each with the part of `range` in it (numbered in
    /// the segment).
    fn pieces(&self, range: Range<usize>) -> impl Iterator<Item = (&Segment, Range<usize>)> {
        self.segments.iter().filter_map(move |s| {
            let (a, b) = (
                range.start.max(s.start),
                range.end.min(s.start + s.store.len()),
            );
            (a < b).then(|| (s, a - s.start..b - s.start))
        })
    }

    /// The subset of positions `keep`: in that order within each store, the stores in section
    /// order.
    pub fn subset(&self, keep: &[usize]) -> CompiledSet {
        let mut labels = Vec::with_capacity(keep.len());
        let stores = self
            .segments
            .iter()
            .map(|s| {
                let end = s.start + s.store.len();
                let mine: Vec<usize> = keep
                    .iter()
                    .filter(|&&i| (s.start..end).contains(&i))
                    .map(|&i| i - s.start)
                    .collect();
                labels.extend(mine.iter().map(|&i| self.labels[s.start + i]));
                s.store.subset(&mine)
            })
            .collect();
        CompiledSet::from_stores(self.params, stores, labels)
    }

    /// The evaluation of position `i` at weights `w`, with the scratch a non-linear one needs.
    #[inline(always)]
    pub fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64 {
        let (s, i) = self.locate(i);
        each_store!(&s.store, st => Store::score(st, i, w, scratch))
    }

    /// Adds `seed * dq_i/dw` into `grad`, at the weights of the last [`score`](Self::score) of
    /// position `i` with this scratch.
    #[inline(always)]
    pub fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]) {
        let (s, i) = self.locate(i);
        each_store!(&s.store, st => Store::add_gradient(st, i, seed, scratch, grad))
    }

    /// The sparse gradient row of a linear position held in the general sparse form, `None`
    /// for the others (read those with [`row`](Self::row)).
    pub fn linear_row(&self, i: usize) -> Option<(&[u32], &[f64])> {
        if i >= self.len() {
            return None;
        }
        let (s, i) = self.locate(i);
        each_store!(&s.store, st => Store::stored_row(st, i))
    }

    /// The gradient row of position `i`, from the set for a linear position in the sparse form
    /// and from `jacobian` (made by [`jacobian`](Self::jacobian)) for the others.
    #[inline(always)]
    pub fn row<'a>(&'a self, i: usize, jacobian: &'a SparseRows) -> (&'a [u32], &'a [f64]) {
        let (s, k) = self.locate(i);
        match s.jacobian_start {
            Some(j) => jacobian.row(j + k),
            None => each_store!(&s.store, st => Store::stored_row(st, k)).unwrap_or_default(),
        }
    }

    /// Appends position `i`'s gradient row at `w` to `idx` and `coef`: the row
    /// [`row`](Self::row) reads from a [`jacobian`](Self::jacobian), made for this position
    /// alone (`dense`: a buffer of zeros, one per parameter, left zero).
    pub fn row_at(
        &self,
        i: usize,
        w: &[f64],
        scratch: &mut Scratch,
        dense: &mut [f64],
        idx: &mut Vec<u32>,
        coef: &mut Vec<f64>,
    ) {
        let (s, k) = self.locate(i);
        each_store!(&s.store, st => match Store::stored_row(st, k) {
            Some((a, b)) => {
                idx.extend_from_slice(a);
                coef.extend_from_slice(b);
            }
            None => Store::jacobian_row(st, k, w, scratch, dense, idx, coef),
        })
    }

    /// Every position's evaluation at `w`, written into `out` (one pass, in parallel).
    ///
    /// # Panics
    ///
    /// If `out.len() != self.len()` or `w` is shorter than [`params`](Self::params).
    pub fn scores(&self, w: &[f64], out: &mut [f64]) {
        assert_eq!(out.len(), self.len(), "one score per position");
        out.par_chunks_mut(CHUNK).enumerate().for_each_init(
            Scratch::default,
            |scratch, (c, chunk)| {
                let a = c * CHUNK;
                for (s, r) in self.pieces(a..a + chunk.len()) {
                    let o = &mut chunk[s.start + r.start - a..s.start + r.end - a];
                    each_store!(&s.store, st => {
                        for (o, i) in o.iter_mut().zip(r) {
                            *o = Store::score(st, i, w, scratch);
                        }
                    })
                }
            },
        );
    }

    /// One pass over positions `range`: `f(i, q_i)` returns the position's loss and `dL/dq_i`;
    /// returns the sum of the losses and, if `grad` is given, adds `sum dL/dq_i dq_i/dw` into it.
    /// Parallel over chunks, with one gradient buffer and one scratch per chunk; each store
    /// sweeps its part of a chunk with its own loop (`Store::sweep`).
    ///
    /// With `order`, the pass visits positions `order[k]` for `k` in `range` instead, one at a
    /// time (`Store::visit`).
    ///
    /// Abandoned once `stop` says so (e.g. Ctrl-C): every work item asks it before it starts, so
    /// a pass ends within about one chunk's work per thread (an eighth of a pass on two
    /// threads). Returns `None`, and leaves `grad` untouched, when the pass was abandoned; the
    /// sum otherwise (the chunks do not depend on `stop`).
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use tapered::{CompiledSet, Stop, Target};
    /// use tape::Scalar;
    ///
    /// let items = vec![vec![(0u32, 1.0)], vec![(0, 2.0)]];
    /// let set = CompiledSet::record(&[1.0], &items,
    ///     |_, _| Target { value: 1.0, score: None, group: 0 },
    ///     |_, f, w| Some(tape::Var::dot(w, f)), None);
    /// let sum = |i: usize, q: f64| (q, 0.0);
    /// let go = AtomicBool::new(false);
    /// assert_eq!(set.pass(&[1.0], 0..2, None, None, sum, Stop::from(&go)), Some(3.0));
    /// let stop = AtomicBool::new(true);
    /// assert_eq!(set.pass(&[1.0], 0..2, None, None, sum, Stop::from(&stop)), None);
    /// ```
    pub fn pass<F>(
        &self,
        w: &[f64],
        range: Range<usize>,
        order: Option<&[usize]>,
        grad: Option<&mut [f64]>,
        f: F,
        stop: Stop<'_>,
    ) -> Option<f64>
    where
        F: Fn(usize, f64) -> (f64, f64) + Sync,
    {
        let n = self.params;
        let len = range.end.saturating_sub(range.start);
        if len == 0 {
            return Some(0.0);
        }
        let threads = rayon::current_num_threads().max(1);
        let chunk = (len / (threads * 4)).max(CHUNK);
        let chunks = len.div_ceil(chunk);
        let want = grad.is_some();
        let (sum, g) = (0..chunks)
            .into_par_iter()
            .map(|c| {
                if stop.now() {
                    return None;
                }
                let a = range.start + c * chunk;
                let b = (a + chunk).min(range.end);
                let mut scratch = Scratch::default();
                let mut g = if want { vec![0.0; n] } else { Vec::new() };
                let mut sum = 0.0;
                match order {
                    None => {
                        for (s, r) in self.pieces(a..b) {
                            let f = |i: usize, q: f64| f(s.start + i, q);
                            let pass = Pass { w, want, f: &f };
                            sum += each_store!(&s.store, st => Store::sweep(st,
                                &pass, r, &mut scratch, &mut g,
                            ));
                        }
                    }
                    Some(order) => {
                        for &i in &order[a..b] {
                            let (s, k) = self.locate(i);
                            let f = |_: usize, q: f64| f(i, q);
                            let pass = Pass { w, want, f: &f };
                            sum += each_store!(&s.store, st => Store::visit(st,
                                &pass, k, &mut scratch, &mut g,
                            ));
                        }
                    }
                }
                Some((sum, g))
            })
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            // Added in chunk order, not in whatever tree rayon's work stealing made: the same
            // data, weights and thread count give the same bits on every run.
            .fold((0.0, Vec::new()), |(s1, mut g1), (s2, g2)| {
                if g1.is_empty() {
                    return (s1 + s2, g2);
                }
                for (x, y) in g1.iter_mut().zip(&g2) {
                    *x += y;
                }
                (s1 + s2, g1)
            });
        if let Some(grad) = grad {
            for (x, y) in grad.iter_mut().zip(&g) {
                *x += y;
            }
        }
        Some(sum)
    }
}

#[cfg(test)]
mod tests;
