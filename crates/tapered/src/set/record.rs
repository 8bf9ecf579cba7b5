//! Recording positions into a [`CompiledSet`]'s stores: [`CompiledSet::record`] (any
//! evaluation), [`CompiledSet::record_split`] (linear sums and a shared head) and
//! [`CompiledSet::compact_phased`]. The rules for which store a position enters are in
//! [`crate::store`].

use crate::progress::Progress;
use tape::{Program, Scalar, Tape, Var};

use super::compiled::CompiledSet;
use super::target::Target;
use super::work::on_tapes;
use crate::store::{
    AnyStore, HeadGradient, Headed, Phased, Programs, Reason, Refusal, Sparse, Store,
};

/// One work item of [`CompiledSet::record_split`]: its compact rows with their labels, and
/// the positions that did not fit, as programs with the reason.
type SplitChunk = (Headed, Vec<Target>, Vec<(Target, Program, Refusal)>);

/// One recorded position, before it is stored.
enum Recorded {
    Linear(f64, Vec<(u32, f64)>),
    Program(Program),
}

impl CompiledSet {
    /// Records `eval(index, item, weights)` for every item (skipping those for which it returns
    /// `None`), in parallel with one tape per work item, and compiles each evaluation: linear
    /// ones become sparse rows, the others general programs (counted as fallbacks,
    /// [`Reason::NonLinearWithoutSplit`]).
    ///
    /// `start` gives the number of parameters and the values they are recorded at (which only
    /// matters for evaluations whose control flow depends on the weights). `progress`, if
    /// given, advances by one per item.
    pub fn record<T, L, E>(
        start: &[f64],
        items: &[T],
        label: L,
        eval: E,
        progress: Option<&Progress>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Target + Sync,
        E: Fn(usize, &T, &[Var]) -> Option<Var> + Sync,
    {
        let chunks = on_tapes(start, items, progress, Vec::new, |out, i, item, rec, w| {
            if let Some(q) = eval(i, item, w) {
                let program = rec.compile(q);
                let linear = program
                    .linear_terms()
                    .map(|(k, terms)| (k, terms.collect::<Vec<_>>()));
                let recorded = match linear {
                    Some((k, terms)) => Recorded::Linear(k, terms),
                    None => Recorded::Program(program),
                };
                out.push((label(i, item), recorded));
            }
        });
        let (mut sparse, mut programs) = (Sparse::default(), Programs::default());
        let (mut labels, mut nonlinear) = (Vec::new(), Vec::new());
        for (label, r) in chunks.into_iter().flatten() {
            match r {
                Recorded::Linear(k, terms) => {
                    sparse.push(k, terms, None);
                    labels.push(label);
                }
                Recorded::Program(p) => {
                    programs.push(p, Reason::NonLinearWithoutSplit);
                    nonlinear.push(label);
                }
            }
        }
        labels.extend(nonlinear);
        let stores = vec![AnyStore::Sparse(sparse), AnyStore::Programs(programs)];
        CompiledSet::from_stores(start.len(), stores, labels)
    }

    /// Records positions whose evaluation splits into linear sums and one shared non-linear
    /// head (see [`SplitSpec`]): `sums(index, item, out)` writes the item's sums' terms into
    /// `out` (or returns `false` to skip the item); `head(s, h)` computes the evaluation from
    /// the sums' values and the head weights. The head is recorded once; each position stores
    /// only its sums, compactly (about 3 bytes a term). Positions whose sums do not fit the
    /// compact form (a non-integer coefficient, say), or all of them if `spec` is unusable, are
    /// recorded as general programs of `head(dot(w, sum_0), ..)` instead: the same values, more
    /// memory; [`layout`](Self::layout) counts them by [`Reason`].
    ///
    /// ```
    /// use tapered::{CompiledSet, Target, Reason, SplitSpec, StoreKind};
    /// use tape::{Scalar, Var};
    ///
    /// // Parameters 0/1: a (middlegame, endgame) pair; 2: a danger input; 3: a head weight.
    /// // Evaluation: (s_mg + s_eg) / 2 - h * max(s_danger, 0).
    /// let spec = SplitSpec { sums: 3, twins: (0, 1), head_params: vec![3],
    ///                        eg_of: vec![Some(1), None, None, None], head_gradient: None };
    /// let items = vec![(2.0, 1.0), (-1.0, 3.0), (1.0, 0.5)];
    /// let set = CompiledSet::record_split(
    ///     &[10.0, 20.0, 1.0, 0.5],
    ///     &items,
    ///     |_, _| Target { value: 0.5, score: None, group: 0 },
    ///     |_, &(c, d), out| {
    ///         *out = vec![vec![(0, c)], vec![(1, c)], vec![(2, d)]];
    ///         true
    ///     },
    ///     &spec,
    ///     |s: &[Var], h: &[Var]| (s[0] + s[1]) * 0.5 - h[0] * s[2].max(Var::zero()),
    ///     None,
    /// );
    /// assert_eq!(set.headed_len(), 2);
    /// let mut q = vec![0.0; 3];
    /// set.scores(&[10.0, 20.0, 4.0, 0.5], &mut q);
    /// assert_eq!(q, vec![30.0 - 2.0, -15.0 - 6.0, 15.0 - 1.0]);
    /// // The third position's danger coefficient is not an integer: a general program.
    /// let fallback = &set.layout().fallbacks[0];
    /// assert_eq!((fallback.store, fallback.reason, fallback.positions),
    ///            (StoreKind::Program, Reason::NonIntegerCoefficient, 1));
    /// ```
    pub fn record_split<T, L, S, H>(
        start: &[f64],
        items: &[T],
        label: L,
        sums: S,
        spec: &SplitSpec,
        head: H,
        progress: Option<&Progress>,
    ) -> CompiledSet
    where
        T: Sync,
        L: Fn(usize, &T) -> Target + Sync,
        S: Fn(usize, &T, &mut Vec<Vec<(u32, f64)>>) -> bool + Sync,
        H: Fn(&[Var], &[Var]) -> Var + Sync,
    {
        let k = spec.sums;
        let hp = &spec.head_params;
        let headed = headed_prototype(start, spec, &head);
        // Records one item as a general program.
        let general = |terms: &[Vec<(u32, f64)>], rec: &mut tape::Recording<'_>, w: &[Var]| {
            let s: Vec<Var> = terms.iter().map(|t| Var::dot(w, t)).collect();
            let h: Vec<Var> = hp.iter().map(|&i| w[i as usize]).collect();
            rec.compile(head(&s, &h))
        };
        let init = || {
            let local = headed.as_ref().map(Headed::empty_like).unwrap_or_default();
            ((local, Vec::new(), Vec::new()), Vec::new())
        };
        let chunks = on_tapes(start, items, progress, init, |chunk, i, item, rec, w| {
            let ((local, labels, programs), terms): &mut (SplitChunk, _) = chunk;
            if !sums(i, item, terms) || terms.len() != k {
                return;
            }
            let pushed = match headed {
                Some(_) => local.try_push(terms),
                None => Err(Reason::UnusableSplit.into()),
            };
            match pushed {
                Ok(()) => labels.push(label(i, item)),
                Err(why) => programs.push((label(i, item), general(terms, rec, w), why)),
            }
        });
        let chunks = chunks.into_iter().map(|(chunk, _)| chunk).collect();
        merge_split(start, headed.as_ref(), chunks, general)
    }

    /// Moves every linear row that is a tapered sum of (middlegame, endgame) pairs into a
    /// compact exact store: a phase per position and 2 bytes per pair. `eg_of[i] = Some(e)`
    /// says that parameter `i` is a middlegame weight whose endgame twin is `e`. Rows that do not
    /// decompose stay sparse rows, each with the [`Reason`] ([`layout`](Self::layout) counts
    /// them). Positions are renumbered (the phased ones first), labels with them. Does nothing
    /// if the set has no sparse rows, already has phased ones, or `eg_of` has no usable pairs.
    pub fn compact_phased(&mut self, eg_of: &[Option<usize>]) {
        if eg_of.len() != self.params || self.phased_len() > 0 {
            return;
        }
        let Some(mut phased) = Phased::new(eg_of) else {
            return;
        };
        let Some(k) = self
            .segments
            .iter()
            .position(|s| matches!(s.store, AnyStore::Sparse(_)))
        else {
            return;
        };
        let (start, AnyStore::Sparse(sparse)) = (self.segments[k].start, &self.segments[k].store)
        else {
            return;
        };
        let mut rest = Sparse::default();
        let (mut labels, mut rest_labels) = (Vec::new(), Vec::new());
        for i in 0..sparse.len() {
            let (konst, idx, coef) = sparse.row(i);
            let label = self.labels[start + i];
            match phased.try_push(konst, idx, coef) {
                Ok(()) => labels.push(label),
                Err(why) => {
                    sparse.push_row_to(i, &mut rest, Some(why));
                    rest_labels.push(label);
                }
            }
        }
        phased.shrink();
        rest.shrink();
        labels.extend(rest_labels);
        // The sparse segment becomes the phased one and the rest, in section order.
        let mut stores = Vec::new();
        let mut all = Vec::with_capacity(self.labels.len());
        for (j, s) in std::mem::take(&mut self.segments).into_iter().enumerate() {
            if j == k {
                stores.push(AnyStore::Phased(std::mem::take(&mut phased)));
                stores.push(AnyStore::Sparse(std::mem::take(&mut rest)));
                all.extend_from_slice(&labels);
            } else {
                all.extend_from_slice(&self.labels[s.start..s.start + s.store.len()]);
                stores.push(s.store);
            }
        }
        *self = CompiledSet::from_stores(self.params, stores, all);
    }
}

/// How positions' evaluations split into linear sums and one shared non-linear head, for
/// [`CompiledSet::record_split`].
#[derive(Clone, Debug)]
pub struct SplitSpec {
    /// Number of linear sums per position.
    pub sums: usize,
    /// The two sums that are tapered twins: term `k` of the first is `(m, c)` and term `k` of
    /// the second `(e, c)`, with `eg_of[m] == Some(e)`.
    pub twins: (usize, usize),
    /// The weights the head reads, in order.
    pub head_params: Vec<u32>,
    /// The (middlegame, endgame) pairing of the parameters, as
    /// [`CompiledSet::compact_phased`] takes it.
    pub eg_of: Vec<Option<usize>>,
    /// The head's value and gradient on `f64`, if written by hand (as the chess model's
    /// `Split::head_gradient`): `head_gradient(s, h, grad)` returns the value and writes the
    /// derivatives by the sums, then by the head weights, into `grad`. Passes use it instead
    /// of replaying the recorded head; it must equal the head's derivative.
    pub head_gradient: Option<HeadGradient>,
}

/// The sums-and-head store's empty prototype for `spec`, its head recorded at `start`'s head
/// parameters; `None` when the split does not fit the parameters (every row then a program).
fn headed_prototype<H>(start: &[f64], spec: &SplitSpec, head: &H) -> Option<Headed>
where
    H: Fn(&[Var], &[Var]) -> Var + Sync,
{
    let (k, hp) = (spec.sums, &spec.head_params);
    (hp.iter().all(|&i| (i as usize) < start.len()) && spec.eg_of.len() == start.len())
        .then(|| {
            let mut tape = Tape::new();
            tape.record(|rec| {
                let x0: Vec<f64> = (0..k)
                    .map(|_| 0.0)
                    .chain(hp.iter().map(|&i| start[i as usize]))
                    .collect();
                let x = rec.inputs(&x0);
                let y = head(&x[..k], &x[k..]);
                let program = rec.compile(y);
                Headed::new(
                    &spec.eg_of,
                    k,
                    spec.twins,
                    program,
                    hp.clone(),
                    spec.head_gradient,
                )
            })
        })
        .flatten()
}

/// The set of [`CompiledSet::record_split`]'s chunks: their compact rows appended into one
/// store (a chunk past its capacity recorded by `general` as programs, [`Reason::StoreFull`]),
/// then every program after them.
fn merge_split<G>(
    start: &[f64],
    prototype: Option<&Headed>,
    chunks: Vec<SplitChunk>,
    general: G,
) -> CompiledSet
where
    G: Fn(&[Vec<(u32, f64)>], &mut tape::Recording<'_>, &[Var]) -> Program,
{
    let mut compact = prototype.map(Headed::empty_like).unwrap_or_default();
    let (mut labels, mut fallen) = (Vec::new(), Vec::new());
    for (local, l, p) in chunks {
        if compact.append(&local) {
            labels.extend(l);
        } else {
            // Past 2^32 arena entries: the chunk's rows become general programs.
            let mut tape = Tape::new();
            tape.record(|rec| {
                let w = rec.inputs(start);
                let mark = rec.mark();
                for (i, l) in l.into_iter().enumerate() {
                    let p = general(&local.sums_of(i), rec, &w);
                    fallen.push((l, p, Reason::StoreFull.into()));
                    rec.rewind(mark);
                }
            })
        }
        fallen.extend(p);
    }
    compact.shrink();
    let mut programs = Programs::default();
    for (l, p, why) in fallen {
        labels.push(l);
        programs.push(p, why);
    }
    let stores = vec![AnyStore::Headed(compact), AnyStore::Programs(programs)];
    CompiledSet::from_stores(start.len(), stores, labels)
}
