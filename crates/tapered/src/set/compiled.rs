//! [`CompiledSet`]'s data: its segments (one store of consecutive positions each) and the rows'
//! targets, how a set is made from stores, and what it holds. The sibling modules record into
//! it and `set.rs` replays it; this file names only the stores and [`Target`].

use crate::store::{each_store, AnyStore, Fallback, Layout, Store, StoreKind, StoreSize};

use super::target::Target;

/// Positions per parallel work item.
pub(super) const CHUNK: usize = 2048;

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
    pub(super) params: usize,
    /// Non-empty, in section order, numbered consecutively.
    pub(super) segments: Vec<Segment>,
    pub(super) labels: Vec<Target>,
}

/// A store and where its positions start in the set.
#[derive(Clone, Debug)]
pub(super) struct Segment {
    pub(super) start: usize,
    /// The first row of this segment's positions in a [`SparseRows`] Jacobian, `None` if the
    /// store holds its rows itself ([`Store::stored_row`]).
    pub(super) jacobian_start: Option<usize>,
    pub(super) store: AnyStore,
}

impl CompiledSet {
    /// A set of `stores` (in section order; empty ones are left out) and their positions'
    /// labels.
    pub(super) fn from_stores(
        params: usize,
        stores: Vec<AnyStore>,
        labels: Vec<Target>,
    ) -> CompiledSet {
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
                .extend(fallbacks.into_iter().map(|(why, positions)| Fallback {
                    store,
                    reason: why.reason,
                    positions,
                    param: why.param,
                    coefficient: why.coefficient,
                }));
        }
        layout
    }
}
