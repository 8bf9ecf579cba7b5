//! [`CompiledSet::record_heads`]: positions whose evaluation is one shared head of their sums,
//! picked weights and scalars, into the sums-scalars-and-head store (see [`crate::store`]).

use tape::{Program, Var};

use super::compiled::CompiledSet;
use super::target::Target;
use super::work::on_tapes;
use crate::progress::Progress;
use crate::store::{AnyStore, HeadRow, Programs, Reason, Refusal, ScalarHead};

/// How positions' evaluations split into a shared head and per-position inputs, for
/// [`CompiledSet::record_heads`].
#[derive(Clone, Debug)]
pub struct HeadSpec {
    /// The head: its inputs are `2 * groups` sums (group `g`'s middlegame sum, then its
    /// endgame sum), then `picks` weights, then `scalars` numbers, as in a [`HeadRow`].
    pub head: Program,
    /// Number of twin groups: couples of sums over (middlegame, endgame) parameter pairs with
    /// equal coefficients.
    pub groups: usize,
    /// Number of weights the head reads, which a position picks.
    pub picks: usize,
    /// Number of per-position numbers.
    pub scalars: usize,
    /// The (middlegame, endgame) pairing of the parameters, as
    /// [`CompiledSet::compact_phased`] takes it.
    pub eg_of: Vec<Option<usize>>,
}

/// One work item: its compact rows and their labels, and the positions that did not fit, as
/// programs with the reason.
type HeadChunk = (ScalarHead, Vec<Target>, Vec<(Target, Program, Refusal)>);

impl CompiledSet {
    /// Records positions whose evaluation is `spec.head` of their inputs: `inputs(index, item,
    /// row)` writes an item's sums, picks and scalars into `row` (or returns `false` to skip
    /// the item). Each position stores only its inputs, compactly; those that do not fit (a
    /// non-integer coefficient, a parameter outside a pair), or all of them if `spec` is
    /// unusable, are recorded from `eval(index, item, weights)` as general programs instead
    /// (skipped if it returns `None`), and [`layout`](Self::layout) counts them by [`Reason`].
    /// `eval` must be the same evaluation as the head of the inputs.
    ///
    /// ```
    /// use tapered::{CompiledSet, HeadRow, HeadSpec, StoreKind, Target};
    /// use tape::{Scalar, Tape, Var};
    ///
    /// // Parameters 0/1: a (middlegame, endgame) pair; 2, 3: weights a position picks one of.
    /// // Evaluation: c * s_mg + max(s_eg, 0) * w[pick], c a number of the position.
    /// let mut tape = Tape::new();
    /// let head = tape.record(|rec| {
    ///     let x = rec.inputs(&[0.0; 4]);
    ///     rec.compile(x[0] * x[3] + x[1].max(Var::zero()) * x[2])
    /// });
    /// let spec = HeadSpec { head, groups: 1, picks: 1, scalars: 1,
    ///                       eg_of: vec![Some(1), None, None, None] };
    /// let items = vec![(2.0, 0.5, 2u32), (-1.0, 0.25, 3)];
    /// let eval = |&(n, c, p): &(f64, f64, u32), w: &[Var]| {
    ///     w[0] * (n * c) + (w[1] * n).max(Var::zero()) * w[p as usize]
    /// };
    /// let set = CompiledSet::record_heads(
    ///     &[10.0, 20.0, 1.0, 3.0],
    ///     &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, &(n, c, p), row: &mut HeadRow| {
    ///         row.sums = vec![vec![(0, n)], vec![(1, n)]];
    ///         row.picks = vec![p];
    ///         row.scalars = vec![c];
    ///         true
    ///     },
    ///     &spec,
    ///     |_, item, w| Some(eval(item, w)),
    ///     None,
    /// );
    /// assert_eq!(set.layout().positions(StoreKind::SumsScalarsAndHead), 2);
    /// let mut q = vec![0.0; 2];
    /// set.scores(&[10.0, 20.0, 1.0, 3.0], &mut q);
    /// assert_eq!(q, vec![10.0 + 40.0, -2.5]);
    /// ```
    pub fn record_heads<T, L, I, E>(
        start: &[f64],
        items: &[T],
        label: L,
        inputs: I,
        spec: &HeadSpec,
        eval: E,
        progress: Option<&Progress>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Target + Sync,
        I: Fn(usize, &T, &mut HeadRow) -> bool + Sync,
        E: Fn(usize, &T, &[Var]) -> Option<Var> + Sync,
    {
        let counts = (spec.groups, spec.picks, spec.scalars);
        let store = (spec.eg_of.len() == start.len())
            .then(|| ScalarHead::new(&spec.eg_of, counts, spec.head.clone()))
            .flatten();
        let init = || {
            let local = store.as_ref().map(ScalarHead::empty_like);
            (
                (local.unwrap_or_default(), Vec::new(), Vec::new()),
                HeadRow::default(),
            )
        };
        let chunks = on_tapes(start, items, progress, init, |chunk, i, item, rec, w| {
            let ((local, labels, programs), row): &mut (HeadChunk, _) = chunk;
            if !inputs(i, item, row) {
                return;
            }
            let pushed = match store {
                Some(_) => local.try_push(row),
                None => Err(Reason::UnusableSplit.into()),
            };
            if let Err(why) = pushed {
                if let Some(q) = eval(i, item, w) {
                    programs.push((label(i, item), rec.compile(q), why));
                }
            } else {
                labels.push(label(i, item));
            }
        });
        let chunks = chunks.into_iter().map(|(chunk, _)| chunk).collect();
        merge_heads(start.len(), chunks)
    }
}

/// The set of [`CompiledSet::record_heads`]'s chunks over `params` parameters: their compact
/// rows appended into one store (or more, when one fills its 32-bit offsets), then every
/// program after them.
fn merge_heads(params: usize, chunks: Vec<HeadChunk>) -> CompiledSet {
    // One store, or more when one fills its 32-bit offsets.
    let mut compact: Vec<ScalarHead> = Vec::new();
    let (mut labels, mut fallen) = (Vec::new(), Vec::new());
    for (local, l, p) in chunks {
        let appended = compact.last_mut().is_some_and(|last| last.append(&local));
        if !appended {
            compact.push(local);
        }
        labels.extend(l);
        fallen.extend(p);
    }
    let mut stores: Vec<AnyStore> = compact
        .into_iter()
        .map(|mut s| {
            s.shrink();
            AnyStore::ScalarHead(s)
        })
        .collect();
    let mut programs = Programs::default();
    for (l, p, why) in fallen {
        labels.push(l);
        programs.push(p, why);
    }
    stores.push(AnyStore::Programs(programs));
    CompiledSet::from_stores(params, stores, labels)
}
