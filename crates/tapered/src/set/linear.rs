//! [`CompiledSet::record_linear`] and [`CompiledSet::record_counts`]: linear evaluations
//! stored straight from their sparse terms or their integer counts, without a tape.

use crate::progress::Progress;
use rayon::prelude::*;

use super::builder::SetBuilder;
use super::compiled::{CompiledSet, CHUNK};
use super::target::Target;
use crate::store::{AnyStore, Phased, Refusal, Sparse};

/// Items recorded in parallel before their stores join the set: the transient memory of a
/// recording is about this many positions' stores.
const GROUP: usize = 64 * CHUNK;

/// One position of a linear evaluation as integer counts, for
/// [`CompiledSet::record_counts`]: `constant + sum_k count_k (mg w[m_k] + eg w[e_k])` over
/// its `(m_k, count_k)`, where `e_k` is the endgame twin of `m_k` (for a parameter in no
/// pair, the term is `count_k (mg + eg) w[m_k]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    /// `(parameter, count)`: a pair's middlegame parameter or a parameter in no pair; any
    /// order, repeats add up. Counts are typically White's minus Black's.
    pub counts: Vec<(u32, f64)>,
    /// The factor of the middlegame weights (`phase / phase_max`, say).
    pub mg: f64,
    /// The factor of the endgame weights (`(1 - phase / phase_max) * scale / scale_max`).
    pub eg: f64,
    /// The constant term.
    pub constant: f64,
}

/// A chunk's buffers, reused from item to item.
#[derive(Default)]
struct Buffers {
    terms: Vec<(u32, f64)>,
    idx: Vec<u32>,
    coef: Vec<f64>,
    counts: Counts,
}

/// How [`record_with`] reads an item and makes its rows: from sparse terms
/// ([`FromTerms`]) or integer counts ([`FromCounts`]).
trait Linear<T>: Sync {
    /// Reads item `i` into `b`; `false` to skip the item.
    fn read(&self, i: usize, item: &T, b: &mut Buffers) -> bool;

    /// Puts what [`read`](Self::read) read into the phased store, or says why not.
    fn phased(&self, p: &mut Phased, b: &mut Buffers) -> Result<(), Refusal>;

    /// Writes item `i`'s sparse terms into `b.terms` (after [`read`](Self::read)); returns
    /// its constant.
    fn sparse(&self, i: usize, item: &T, b: &mut Buffers) -> f64;
}

/// [`CompiledSet::record_linear`]'s items: `terms(index, item, out)`.
struct FromTerms<R>(R);

impl<T, R> Linear<T> for FromTerms<R>
where
    R: Fn(usize, &T, &mut Vec<(u32, f64)>) -> bool + Sync,
{
    fn read(&self, i: usize, item: &T, b: &mut Buffers) -> bool {
        b.terms.clear();
        (self.0)(i, item, &mut b.terms)
    }

    fn phased(&self, p: &mut Phased, b: &mut Buffers) -> Result<(), Refusal> {
        b.idx.clear();
        b.coef.clear();
        b.idx.extend(b.terms.iter().map(|t| t.0));
        b.coef.extend(b.terms.iter().map(|t| t.1));
        Ok(p.try_push(0.0, &b.idx, &b.coef)?)
    }

    /// The terms read, no constant.
    fn sparse(&self, _: usize, _: &T, _: &mut Buffers) -> f64 {
        0.0
    }
}

/// [`CompiledSet::record_counts`]'s items: `counts(index, item, out)`, and
/// `terms(index, item, out)` for those the phased store refuses.
struct FromCounts<C, R> {
    counts: C,
    terms: R,
}

impl<T, C, R> Linear<T> for FromCounts<C, R>
where
    C: Fn(usize, &T, &mut Counts) -> bool + Sync,
    R: Fn(usize, &T, &mut Vec<(u32, f64)>) -> f64 + Sync,
{
    fn read(&self, i: usize, item: &T, b: &mut Buffers) -> bool {
        b.counts.counts.clear();
        (self.counts)(i, item, &mut b.counts)
    }

    fn phased(&self, p: &mut Phased, b: &mut Buffers) -> Result<(), Refusal> {
        let c = &b.counts;
        p.try_push_counts([c.mg, c.eg], c.constant, &c.counts)
    }

    fn sparse(&self, i: usize, item: &T, b: &mut Buffers) -> f64 {
        b.terms.clear();
        (self.terms)(i, item, &mut b.terms)
    }
}

/// Stores item `i` as `how` reads it: into `phased` if it takes it (returns `Some(true)`),
/// else into `rest` with the reason (`Some(false)`); `None` to skip the item.
fn put<T>(
    how: &dyn Linear<T>,
    i: usize,
    item: &T,
    phased: Option<&mut Phased>,
    rest: &mut Sparse,
    b: &mut Buffers,
) -> Option<bool> {
    if !how.read(i, item, b) {
        return None;
    }
    let why = match phased {
        Some(p) => match how.phased(p, b) {
            Ok(()) => return Some(true),
            Err(why) => Some(why),
        },
        None => None,
    };
    let konst = how.sparse(i, item, b);
    rest.push(konst, b.terms.iter().copied(), why);
    Some(false)
}

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
    /// use tapered::{CompiledSet, Target};
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
        let template = (eg_of.len() == params)
            .then(|| Phased::new(eg_of))
            .flatten();
        let how = FromTerms(terms);
        record_with(params, items, &label, template.as_ref(), progress, &how)
    }

    /// Records linear evaluations given as integer counts with their factors and constant
    /// ([`Counts`]): `counts(index, item, out)` fills `out` (or returns `false` to skip the
    /// item). Each position enters the compact phased store, with its constant and factors as
    /// given (an endgame scale, a phase above its maximum: any `mg`, `eg`), if every count
    /// names a pair's middlegame parameter or a parameter in no pair (kept as a *single*, a
    /// pair of itself, when all of those fit in the store's 16,384 pairs with the pairs), the
    /// merged counts are integers in the store's range (`-64..=63` up to 512 pairs and
    /// singles, `-32..=31` up to 1,024, ...) and the constant is a 32-bit float; otherwise a
    /// sparse row with the [`Reason`](crate::Reason): `terms(index, item, out)` writes the
    /// same evaluation's sparse terms (indices ascending, merged) into `out` and returns its
    /// constant. `eg_of` as
    /// [`compact_phased`](Self::compact_phased) takes it. No tape and no intermediate sparse
    /// rows: memory is the stores plus a constant. Parallel; `progress` advances by one per
    /// item.
    ///
    /// ```
    /// use tapered::{CompiledSet, Counts, Reason, Target};
    ///
    /// // Parameters 0/1: a (middlegame, endgame) pair; 2: no twin (a single).
    /// let eg_of = [Some(1), None, None];
    /// // (count of pair 0, endgame factor); a half count does not fit the phased store.
    /// let items = vec![(2.0, 0.5), (-1.0, 0.25), (0.5, 0.5)];
    /// let set = CompiledSet::record_counts(
    ///     3,
    ///     &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, &(n, eg), out: &mut Counts| {
    ///         *out = Counts { counts: vec![(0, n), (2, 1.0)], mg: 0.75, eg, constant: -3.0 };
    ///         true
    ///     },
    ///     |_, &(n, eg), out: &mut Vec<(u32, f64)>| {
    ///         *out = vec![(0, n * 0.75), (1, n * eg), (2, 0.75 + eg)];
    ///         -3.0
    ///     },
    ///     &eg_of,
    ///     None,
    /// );
    /// assert_eq!((set.len(), set.phased_len()), (3, 2));
    /// assert_eq!(set.layout().fallbacks[0].reason, Reason::NonIntegerCoefficient);
    /// let mut q = vec![0.0; 3];
    /// set.scores(&[100.0, 200.0, 8.0], &mut q);
    /// let want = [2.0 * (75.0 + 100.0) + 1.25 * 8.0, -(75.0 + 50.0) + 8.0, 37.5 + 50.0 + 10.0];
    /// assert_eq!(q, want.map(|x| x - 3.0));
    /// ```
    pub fn record_counts<T, L, C, R>(
        params: usize,
        items: &[T],
        label: L,
        counts: C,
        terms: R,
        eg_of: &[Option<usize>],
        progress: Option<&Progress>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Target + Sync,
        C: Fn(usize, &T, &mut Counts) -> bool + Sync,
        R: Fn(usize, &T, &mut Vec<(u32, f64)>) -> f64 + Sync,
    {
        let template = (eg_of.len() == params)
            .then(|| Phased::with_singles(eg_of))
            .flatten();
        let how = FromCounts { counts, terms };
        record_with(params, items, &label, template.as_ref(), progress, &how)
    }
}

/// The recording loop of [`CompiledSet::record_linear`] and [`CompiledSet::record_counts`]:
/// items in groups of [`GROUP`], each in parallel chunks of [`CHUNK`] with their own phased
/// store (like `template`, if any) and sparse rows, each item stored as `how` reads it.
fn record_with<T, L>(
    params: usize,
    items: &[T],
    label: &L,
    template: Option<&Phased>,
    progress: Option<&Progress>,
    how: &dyn Linear<T>,
) -> CompiledSet
where
    T: Sync,
    L: Fn(usize, &T) -> Target + Sync,
{
    let mut builder = SetBuilder::new(params);
    for (g, group) in items.chunks(GROUP).enumerate() {
        let parts: Vec<CompiledSet> = group
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut phased = template.map(Phased::empty_like);
                let mut rest = Sparse::default();
                let (mut labels, mut rest_labels) = (Vec::new(), Vec::new());
                let mut buffers = Buffers::default();
                for (j, item) in chunk.iter().enumerate() {
                    let i = g * GROUP + c * CHUNK + j;
                    match put(how, i, item, phased.as_mut(), &mut rest, &mut buffers) {
                        Some(true) => labels.push(label(i, item)),
                        Some(false) => rest_labels.push(label(i, item)),
                        None => {}
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
