//! [`SetBuilder`]: one [`CompiledSet`] made from sets recorded batch by batch, so that a caller
//! can stream positions from a file into the compact stores without keeping them all at once.

use super::compiled::CompiledSet;
use super::target::Target;
use crate::store::{AnyStore, StoreKind};

/// Concatenates sets recorded one batch at a time into one set, store by store: the positions
/// of each store kind keep the order in which the batches came, and the result is the set that
/// recording all the batches' items at once gives (the same stores, positions and labels in
/// the same order). Memory: the stores being built plus the batch being pushed; a pushed
/// batch's stores are moved or copied in and dropped.
///
/// ```
/// use tapered::{CompiledSet, Target, SetBuilder};
/// use tape::Scalar;
///
/// let items: Vec<Vec<(u32, f64)>> = (0..10).map(|i| vec![(0, i as f64), (1, 1.0)]).collect();
/// let record = |items: &[Vec<(u32, f64)>]| {
///     CompiledSet::record(
///         &[1.0, 2.0],
///         items,
///         |_, t| Target { value: t[0].1 / 10.0, score: None, group: 0 },
///         |_, t, w| Some(tape::Var::dot(w, t)),
///         None,
///     )
/// };
/// let mut builder = SetBuilder::new(2);
/// for batch in items.chunks(3) {
///     builder.push(record(batch));
/// }
/// let (whole, built) = (record(&items), builder.finish());
/// assert_eq!(built.targets(), whole.targets());
/// let (mut a, mut b) = (vec![0.0; 10], vec![0.0; 10]);
/// whole.scores(&[3.0, 4.0], &mut a);
/// built.scores(&[3.0, 4.0], &mut b);
/// assert_eq!(a, b);
/// ```
#[derive(Debug)]
pub struct SetBuilder {
    params: usize,
    /// Per section (in [`StoreKind`] order), the stores and their positions' labels: one store,
    /// or more when one filled its 32-bit offsets.
    sections: [Vec<(AnyStore, Vec<Target>)>; 5],
}

/// A section's place in the set.
fn section(kind: StoreKind) -> usize {
    match kind {
        StoreKind::Phased => 0,
        StoreKind::Sparse => 1,
        StoreKind::SumsAndHead => 2,
        StoreKind::SumsScalarsAndHead => 3,
        StoreKind::Program => 4,
    }
}

impl SetBuilder {
    /// Positions a recorder records at a time before [`push`](Self::push)ing them: the
    /// transient memory of a recording is about this many positions' stores and recordings,
    /// whatever the number of positions.
    pub const BATCH: usize = 1 << 16;

    /// An empty builder for sets over `params` parameters.
    pub fn new(params: usize) -> SetBuilder {
        SetBuilder {
            params,
            sections: Default::default(),
        }
    }

    /// Positions pushed so far.
    pub fn len(&self) -> usize {
        let labels = self.sections.iter().flatten().map(|(_, l)| l.len());
        labels.sum()
    }

    /// Whether no position has been pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the positions of `set` (recorded over the same parameters, the same way).
    ///
    /// # Panics
    ///
    /// If `set` is over another number of parameters.
    pub fn push(&mut self, set: CompiledSet) {
        if set.is_empty() {
            return;
        }
        assert_eq!(set.params, self.params, "sets over different parameters");
        let CompiledSet {
            segments, labels, ..
        } = set;
        for s in segments {
            let mine = labels[s.start..s.start + s.store.len()].to_vec();
            let sec = &mut self.sections[section(s.store.kind())];
            if let Some((last, l)) = sec.last_mut() {
                if last.append(&s.store) {
                    l.extend_from_slice(&mine);
                    continue;
                }
            }
            sec.push((s.store, mine));
        }
    }

    /// The set of every position pushed, its stores' spare capacity released.
    pub fn finish(self) -> CompiledSet {
        let mut stores = Vec::new();
        let mut labels: Vec<Target> = Vec::new();
        for (mut store, l) in self.sections.into_iter().flatten() {
            store.shrink();
            if labels.is_empty() {
                labels = l;
            } else {
                labels.extend_from_slice(&l);
            }
            stores.push(store);
        }
        labels.shrink_to_fit();
        CompiledSet::from_stores(self.params, stores, labels)
    }
}
