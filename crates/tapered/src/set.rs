//! [`CompiledSet`]: every position's evaluation recorded once and compiled for replay, as a
//! list of segments, each a [`Store`] of consecutive positions (see [`crate::store`] for the
//! stores and which position enters which).

use std::ops::Range;

use rayon::prelude::*;
use tape::Scratch;

use crate::stop::Stop;
use crate::store::{each_store, AnyStore, Fallback, Layout, Store, StoreKind, StoreSize};

mod builder;
mod heads;
mod jacobian;
mod linear;
mod record;

pub use builder::SetBuilder;
pub use heads::HeadSpec;
pub use jacobian::SparseRows;
pub use linear::Counts;
pub use record::{HeadGradient, SplitSpec};

/// A row's targets: what the model's output should be, through the link (`value`), and an
/// optional second target the objective can blend in (`score`, on the scale of the model's
/// output); `group` is the id rows are split and clustered by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// The target in `0..=1` (through the link's sigmoid).
    pub value: f64,
    /// An optional second target on the scale of the model's output (before the link), if the
    /// data carries one; the objective blends `sigma(score)` into `value`.
    pub score: Option<f32>,
    /// The group the row belongs to (any id; `0` for all when unknown). Rows of one group are
    /// correlated, so the statistics that judge validation losses count a group, not a row, as
    /// one sample, and splits keep a group whole.
    pub group: u32,
}

/// Positions per parallel work item.
const CHUNK: usize = 2048;

/// Every position's evaluation `q_i(w)` recorded once, at load, and compiled: a pass replays
/// them for new weights without running the evaluation code.
///
/// The positions live in segments, one store each, in a fixed section order: the compact
/// phased store ([`compact_phased`](Self::compact_phased)), other linear rows, the compact
/// sums-and-head store ([`record_split`](Self::record_split)), general
/// [`tape::Program`]s. Positions are numbered `0..len()` in that order. [`layout`](Self::layout)
/// says how many positions each store holds and why any fell back to a slower one.
///
/// ```
/// use tapered::{CompiledSet, Target};
/// use tape::Scalar;
///
/// // Two "positions", each a list of features; the evaluation is linear in the weights.
/// let items = vec![vec![(0u32, 1.0), (1, -1.0)], vec![(1, 2.0)]];
/// let labels = [1.0, 0.0];
/// let set = CompiledSet::record(
///     &[100.0, 300.0],
///     &items,
///     |i, _| Target { value: labels[i], score: None, group: 0 },
///     |_, features, w| Some(tape::Var::dot(w, features)),
///     None,
/// );
/// assert_eq!(set.len(), 2);
/// let mut q = vec![0.0; 2];
/// set.scores(&[10.0, 20.0], &mut q);
/// assert_eq!(q, vec![-10.0, 40.0]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CompiledSet {
    params: usize,
    /// Non-empty, in section order, numbered consecutively.
    segments: Vec<Segment>,
    labels: Vec<Target>,
}

/// A store and where its positions start in the set.
#[derive(Clone, Debug)]
struct Segment {
    start: usize,
    /// The first row of this segment's positions in a [`SparseRows`] Jacobian, `None` if the
    /// store holds its rows itself ([`Store::stored_row`]).
    jacobian_start: Option<usize>,
    store: AnyStore,
}

impl CompiledSet {
    /// A set of `stores` (in section order; empty ones are left out) and their positions'
    /// labels.
    fn from_stores(params: usize, stores: Vec<AnyStore>, labels: Vec<Target>) -> CompiledSet {
        let (mut start, mut rows) = (0, 0);
        let mut segments = Vec::with_capacity(stores.len());
        for store in stores.into_iter().filter(|s| s.len() > 0) {
            let len = store.len();
            let jacobian_start = (store.kind() != StoreKind::Sparse).then_some(rows);
            rows += if jacobian_start.is_some() { len } else { 0 };
            segments.push(Segment {
                start,
                jacobian_start,
                store,
            });
            start += len;
        }
        debug_assert_eq!(start, labels.len());
        CompiledSet {
            params,
            segments,
            labels,
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Number of parameters the evaluations were recorded with.
    pub fn params(&self) -> usize {
        self.params
    }

    /// Positions held in `store`.
    fn count(&self, store: StoreKind) -> usize {
        let of = self.segments.iter().filter(|s| s.store.kind() == store);
        of.map(|s| s.store.len()).sum()
    }

    /// Number of positions whose evaluation is linear in the weights (the phased store and
    /// the sparse rows; they come first).
    pub fn linear_len(&self) -> usize {
        self.count(StoreKind::Phased) + self.count(StoreKind::Sparse)
    }

    /// Number of positions held in the compact sums-and-head store (see
    /// [`record_split`](Self::record_split)); they follow the linear positions.
    pub fn headed_len(&self) -> usize {
        self.count(StoreKind::SumsAndHead)
    }

    /// Number of positions held in the compact phased store (see
    /// [`compact_phased`](Self::compact_phased)).
    pub fn phased_len(&self) -> usize {
        self.count(StoreKind::Phased)
    }

    /// The rows' targets, in row order.
    pub fn targets(&self) -> &[Target] {
        &self.labels
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        let stores: usize = self.segments.iter().map(|s| s.store.heap_bytes()).sum();
        stores + self.labels.capacity() * std::mem::size_of::<Target>()
    }

    /// How the positions are stored: positions and bytes per store, and the positions that
    /// fell back to a slower store than the one tried first, by [`Reason`](crate::Reason) (the
    /// rules are in the documentation of the crate's `store` module).
    pub fn layout(&self) -> Layout {
        let mut layout = Layout {
            label_bytes: self.labels.capacity() * std::mem::size_of::<Target>(),
            ..Layout::default()
        };
        for s in &self.segments {
            let store = s.store.kind();
            layout.stores.push(StoreSize {
                store,
                positions: s.store.len(),
                bytes: s.store.heap_bytes(),
            });
            let fallbacks = each_store!(&s.store, st => Store::fallbacks(st));
            layout
                .fallbacks
                .extend(fallbacks.into_iter().map(|(reason, positions)| Fallback {
                    store,
                    reason,
                    positions,
                }));
        }
        layout
    }

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
                            sum += each_store!(&s.store, st => Store::sweep(st,
                                w, r, want, &f, &mut scratch, &mut g,
                            ));
                        }
                    }
                    Some(order) => {
                        for &i in &order[a..b] {
                            let (s, k) = self.locate(i);
                            let f = |_: usize, q: f64| f(i, q);
                            sum += each_store!(&s.store, st => Store::visit(st,
                                k, w, want, &f, &mut scratch, &mut g,
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
