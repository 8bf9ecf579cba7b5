//! [`CompiledSet::record_linear`]: linear evaluations stored straight from their sparse terms,
//! without a tape.

use crate::progress::Progress;
use rayon::prelude::*;

use super::{CompiledSet, SetBuilder, Target, CHUNK};
use crate::store::{AnyStore, Phased, Sparse};

/// Items recorded in parallel before their stores join the set: the transient memory of a
/// recording is about this many positions' stores.
const GROUP: usize = 64 * CHUNK;

impl CompiledSet {
    /// Records linear evaluations given as sparse terms: `terms(index, item, out)` writes the
    /// item's `(parameter, coefficient)` terms (indices ascending, no constant) into `out`, or
    /// returns `false` to skip the item. Each row enters the compact phased store if it
    /// decomposes over the `(middlegame, endgame)` pairs of `eg_of` (as
    /// [`compact_phased`](Self::compact_phased) decides), else a sparse row with the reason.
    /// The same set as recording the same evaluations with [`record`](Self::record) and
    /// compacting it, without a tape and without the intermediate sparse rows: memory is the
    /// stores plus a constant. Parallel; `progress` advances by one per item.
    ///
    /// ```
    /// use optim::{CompiledSet, Target};
    ///
    /// // Parameters 0/1: a (middlegame, endgame) pair; 2: no twin.
    /// let eg_of = [Some(1), None, None];
    /// let items = vec![vec![(0u32, 0.25), (1, 0.75)], vec![(2, 1.0)]];
    /// let set = CompiledSet::record_linear(
    ///     3,
    ///     &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, t, out| { out.extend_from_slice(t); true },
    ///     &eg_of,
    ///     None,
    /// );
    /// assert_eq!((set.len(), set.phased_len(), set.linear_len()), (2, 1, 2));
    /// let mut q = vec![0.0; 2];
    /// set.scores(&[100.0, 200.0, 7.0], &mut q);
    /// assert_eq!(q, vec![175.0, 7.0]);
    /// ```
    pub fn record_linear<T, L, R>(
        params: usize,
        items: &[T],
        label: L,
        terms: R,
        eg_of: &[Option<usize>],
        progress: Option<&Progress>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Target + Sync,
        R: Fn(usize, &T, &mut Vec<(u32, f64)>) -> bool + Sync,
    {
        let template = if eg_of.len() == params {
            Phased::new(eg_of)
        } else {
            None
        };
        let mut builder = SetBuilder::new(params);
        for (g, group) in items.chunks(GROUP).enumerate() {
            let parts: Vec<CompiledSet> = group
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(c, chunk)| {
                    let mut phased = template.as_ref().map(Phased::empty_like);
                    let mut rest = Sparse::default();
                    let (mut labels, mut rest_labels) = (Vec::new(), Vec::new());
                    let (mut row, mut idx, mut coef) = (Vec::new(), Vec::new(), Vec::new());
                    for (j, item) in chunk.iter().enumerate() {
                        let i = g * GROUP + c * CHUNK + j;
                        row.clear();
                        if !terms(i, item, &mut row) {
                            continue;
                        }
                        let why = match phased.as_mut() {
                            Some(p) => {
                                idx.clear();
                                coef.clear();
                                idx.extend(row.iter().map(|t| t.0));
                                coef.extend(row.iter().map(|t| t.1));
                                p.try_push(0.0, &idx, &coef).err()
                            }
                            None => None,
                        };
                        if phased.is_some() && why.is_none() {
                            labels.push(label(i, item));
                        } else {
                            rest.push(0.0, row.iter().copied(), why);
                            rest_labels.push(label(i, item));
                        }
                    }
                    if let Some(pb) = progress {
                        pb.advance(chunk.len() as u64);
                    }
                    labels.extend(rest_labels);
                    let mut stores = vec![AnyStore::Sparse(rest)];
                    if let Some(p) = phased {
                        stores.insert(0, AnyStore::Phased(p));
                    }
                    CompiledSet::from_stores(params, stores, labels)
                })
                .collect();
            for part in parts {
                builder.push(part);
            }
        }
        builder.finish()
    }
}
