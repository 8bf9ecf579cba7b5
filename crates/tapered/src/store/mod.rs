//! The stores a [`CompiledSet`](crate::CompiledSet) keeps positions in, behind one trait.
//!
//! A set is a list of segments, each one store holding consecutive positions. Every store
//! implements [`Store`]: its length, a position's value `q_i(w)` and gradient `dq_i/dw`, a
//! pass over a range of its positions (each store keeps its own fast loop), a subset, the
//! Jacobian rows and its heap bytes. The set loops over its segments; it never does index
//! arithmetic for one store in particular.
//!
//! # Which position enters which store
//!
//! Sections come in this order, each at most once (an empty one is left out; a
//! [`SetBuilder`](crate::SetBuilder) starts a second store of a kind when one is full):
//!
//! 1. **Phased** ([`Phased`], about 14 bytes a position and 2 a pair): a linear row
//!    `c + sum_k s_k (a w[m_k] + b w[e_k])`, where `(m_k, e_k)` are (middlegame, endgame)
//!    parameter pairs (or *singles*, a parameter paired with itself), `a` and `b` one
//!    middlegame and one endgame factor per row (any: an endgame scale, a phase above its
//!    maximum), `c` a constant that is a 32-bit float, and `s_k` nonzero integers in
//!    `-64..=63` (up to 512 pairs; `-32..=31` up to 1,024, halving as the pairs double, up
//!    to 16,384 pairs: the store's `packing::Packing`). Made by [`CompiledSet::record_counts`](crate::CompiledSet::record_counts)
//!    from positions' integer counts as they are, or by
//!    [`CompiledSet::compact_phased`](crate::CompiledSet::compact_phased) from the sparse rows,
//!    checked to 1e-12 relative.
//! 2. **Sparse** ([`Sparse`], 12 bytes a term): every other linear row, as recorded (CSR).
//! 3. **Sums and head** ([`Headed`], about 120 bytes a position): positions recorded by
//!    [`CompiledSet::record_split`](crate::CompiledSet::record_split) whose twin sums pair term by
//!    term (same coefficient on a `(m, e)` pair), whose twin coefficients are integers in
//!    the pairs' range (as for the phased store) once merged by pair, whose other sums' terms have `u16` indices and integer
//!    coefficients in the `i16` range, and whose record fits the arena's 32-bit offsets.
//! 4. **Sums, scalars and head** ([`ScalarHead`], about 110 bytes a position for the C trace
//!    fixture's king safety): positions recorded by
//!    [`CompiledSet::record_heads`](crate::CompiledSet::record_heads), an engine's declared
//!    non-linear terms: twin groups of sums as the phased store packs them, weights picked per
//!    position (`u16` indices), per-position scalars (`f64`), one shared head program.
//! 5. **General programs** ([`Programs`], a [`tape::Program`] each, about 2,948 bytes for
//!    `full`): everything else. Same values, more memory and slower passes.
//!
//! # Fallbacks are counted with their reason
//!
//! A position that a faster store refuses is not lost: it is kept in a slower one, and that
//! store remembers why ([`Reason`], one byte a position). [`Layout`] reports the positions and
//! bytes of each store and the fallbacks by store and reason, so a caller can warn (the chess
//! tuner's `setup::prepare` does). Positions of a linear evaluation without pairs, and
//! non-linear evaluations recorded without a split, are plain sparse rows and programs: no
//! faster store was tried, so only the latter counts as a fallback
//! ([`Reason::NonLinearWithoutSplit`]).
//!
//! # How to add a store
//!
//! Write a type that implements [`Store`] (overriding [`Store::sweep`] if it has a faster loop
//! than one position at a time), add it to [`AnyStore`], [`each_store!`] and [`StoreKind`]
//! (and `AnyStore::append` and `shrink`, which `SetBuilder` uses),
//! decide where its section goes in the order above, and have the recording functions in
//! `set/record.rs` put positions into it. `tests/replay.rs` in the `texel` crate checks any
//! store against fresh recordings.

use std::fmt;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use tape::Scratch;

mod headed;
mod packing;
mod pairs;
pub(crate) mod phased;
mod programs;
mod scalar_head;
mod sparse;
mod unit;

pub(crate) use headed::Headed;
#[cfg(test)]
pub(crate) use packing::MAX_PAIRS;
pub(crate) use phased::Phased;
pub(crate) use programs::Programs;
pub use scalar_head::HeadRow;
pub(crate) use scalar_head::ScalarHead;
pub(crate) use sparse::Sparse;

/// One store of positions (see the module documentation). Positions are numbered `0..len()`
/// within the store; `f(i, q)` closures get those numbers and return the loss and `dL/dq`.
pub(crate) trait Store: Clone + fmt::Debug + Send + Sync + Sized {
    /// Which store this is.
    const KIND: StoreKind;

    /// Number of positions.
    fn len(&self) -> usize;

    /// Bytes of heap memory held.
    fn heap_bytes(&self) -> usize;

    /// Position `i`'s evaluation at `w`, keeping in `scratch` what
    /// [`add_gradient`](Self::add_gradient) needs.
    fn score(&self, i: usize, w: &[f64], scratch: &mut Scratch) -> f64;

    /// Adds `seed * dq_i/dw` into `grad`, at the weights of the last [`score`](Self::score) of
    /// position `i` with this scratch.
    fn add_gradient(&self, i: usize, seed: f64, scratch: &mut Scratch, grad: &mut [f64]);

    /// Position `i` on its own: returns its loss `f(i, q_i).0` and, if `want`, adds
    /// `dL/dq_i dq_i/dw` into `grad`.
    #[inline(always)]
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
        let q = self.score(i, w, scratch);
        let (l, d) = f(i, q);
        if want && d != 0.0 {
            self.add_gradient(i, d, scratch, grad);
        }
        l
    }

    /// Positions `range` in order, as [`visit`](Self::visit) does each: the sum of the losses,
    /// and the gradient added into `grad` (one chunk's buffer of a pass). A store with a faster
    /// loop overrides it; the result must be the same up to rounding.
    #[inline]
    fn sweep<F>(
        &self,
        w: &[f64],
        range: Range<usize>,
        want: bool,
        f: &F,
        scratch: &mut Scratch,
        grad: &mut [f64],
    ) -> f64
    where
        F: Fn(usize, f64) -> (f64, f64),
    {
        let mut sum = 0.0;
        for i in range {
            sum += self.visit(i, w, want, f, scratch, grad);
        }
        sum
    }

    /// The positions `keep` (in that order), in a store of the same kind.
    fn subset(&self, keep: &[usize]) -> Self;

    /// Position `i`'s gradient row, if the store holds it as it is (linear sparse rows);
    /// otherwise the set makes it with [`jacobian_row`](Self::jacobian_row).
    fn stored_row(&self, _i: usize) -> Option<(&[u32], &[f64])> {
        None
    }

    /// Appends position `i`'s gradient row at `w` to `idx` and `coef` (`dense`: a buffer of
    /// zeros, one per parameter, left zero). By default one reverse sweep.
    fn jacobian_row(
        &self,
        i: usize,
        w: &[f64],
        scratch: &mut Scratch,
        dense: &mut [f64],
        idx: &mut Vec<u32>,
        coef: &mut Vec<f64>,
    ) {
        self.score(i, w, scratch);
        self.add_gradient(i, 1.0, scratch, dense);
        for (k, d) in dense.iter_mut().enumerate() {
            if *d != 0.0 {
                idx.push(k as u32);
                coef.push(*d);
                *d = 0.0;
            }
        }
    }

    /// The positions held here because a faster store refused them, counted by reason.
    fn fallbacks(&self) -> Vec<(Reason, usize)> {
        Vec::new()
    }
}

/// Counts `reasons` (one per position; `None`: not a fallback) by reason, in [`Reason`] order.
pub(crate) fn count_reasons(reasons: impl Iterator<Item = Option<Reason>>) -> Vec<(Reason, usize)> {
    let mut counts: Vec<(Reason, usize)> = Vec::new();
    for r in reasons.flatten() {
        match counts.iter_mut().find(|c| c.0 == r) {
            Some(c) => c.1 += 1,
            None => counts.push((r, 1)),
        }
    }
    counts.sort_unstable();
    counts
}

/// Any of the stores: a segment of a set holds one.
#[derive(Clone, Debug)]
pub(crate) enum AnyStore {
    Phased(Phased),
    Sparse(Sparse),
    Headed(Headed),
    ScalarHead(ScalarHead),
    Programs(Programs),
}

/// `each_store!(store, s => expr)`: `expr` with `s` bound to the concrete store inside an
/// [`AnyStore`] (one `match`, so each store's generic methods are monomorphised and inlined).
macro_rules! each_store {
    ($store:expr, $s:ident => $body:expr) => {
        match $store {
            $crate::store::AnyStore::Phased($s) => $body,
            $crate::store::AnyStore::Sparse($s) => $body,
            $crate::store::AnyStore::Headed($s) => $body,
            $crate::store::AnyStore::ScalarHead($s) => $body,
            $crate::store::AnyStore::Programs($s) => $body,
        }
    };
}
pub(crate) use each_store;

impl AnyStore {
    /// Which store this is.
    pub(crate) fn kind(&self) -> StoreKind {
        each_store!(self, s => store_kind(s))
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        each_store!(self, s => Store::len(s))
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        each_store!(self, s => Store::heap_bytes(s))
    }

    /// The positions `keep` (in that order).
    pub(crate) fn subset(&self, keep: &[usize]) -> AnyStore {
        match self {
            AnyStore::Phased(s) => AnyStore::Phased(s.subset(keep)),
            AnyStore::Sparse(s) => AnyStore::Sparse(s.subset(keep)),
            AnyStore::Headed(s) => AnyStore::Headed(s.subset(keep)),
            AnyStore::ScalarHead(s) => AnyStore::ScalarHead(s.subset(keep)),
            AnyStore::Programs(s) => AnyStore::Programs(s.subset(keep)),
        }
    }
}

impl AnyStore {
    /// Appends every position of `other`, a store of the same kind over the same parameters
    /// (and, for [`Headed`], the same split); `false` (and nothing appended) if the kinds
    /// differ or this store is full (its 32-bit offsets would overflow).
    pub(crate) fn append(&mut self, other: &AnyStore) -> bool {
        match (self, other) {
            (AnyStore::Phased(a), AnyStore::Phased(b)) => a.append(b),
            (AnyStore::Sparse(a), AnyStore::Sparse(b)) => a.append(b),
            (AnyStore::Headed(a), AnyStore::Headed(b)) => a.append(b),
            (AnyStore::ScalarHead(a), AnyStore::ScalarHead(b)) => a.append(b),
            (AnyStore::Programs(a), AnyStore::Programs(b)) => {
                a.append(b);
                true
            }
            _ => false,
        }
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        match self {
            AnyStore::Phased(s) => s.shrink(),
            AnyStore::Sparse(s) => s.shrink(),
            AnyStore::Headed(s) => s.shrink(),
            AnyStore::ScalarHead(s) => s.shrink(),
            AnyStore::Programs(s) => s.shrink(),
        }
    }
}

fn store_kind<S: Store>(_: &S) -> StoreKind {
    S::KIND
}

/// The stores, in section order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreKind {
    /// Tapered linear rows, compact (two factors, a constant and 2 bytes a (middlegame,
    /// endgame) pair).
    Phased,
    /// Other linear rows, as sparse (index, coefficient) rows.
    Sparse,
    /// Linear sums and one shared non-linear head, compact.
    SumsAndHead,
    /// Linear sums, picked weights and per-position scalars into one shared non-linear head,
    /// compact (an engine's declared non-linear terms).
    SumsScalarsAndHead,
    /// General compiled [`tape::Program`]s.
    Program,
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreKind::Phased => "the phased store",
            StoreKind::Sparse => "sparse rows",
            StoreKind::SumsAndHead => "the sums-and-head store",
            StoreKind::SumsScalarsAndHead => "the sums-scalars-and-head store",
            StoreKind::Program => "general programs",
        })
    }
}

/// Why a faster store refused a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The evaluation is not linear in the weights and was recorded without a split into sums
    /// and a head.
    NonLinearWithoutSplit,
    /// The split cannot be used at all: no (middlegame, endgame) pairs or too many, the twins
    /// not two distinct sums, more than 16 head inputs, or a head weight or pairing that does
    /// not match the parameters.
    UnusableSplit,
    /// A term names a parameter that is in no (middlegame, endgame) pair, or the twin sums do
    /// not match term by term with equal coefficients.
    NoTwinPair,
    /// A coefficient is not an integer (phased rows: not an integer multiple of one phase).
    NonIntegerCoefficient,
    /// An integer coefficient outside the store's range (per pair `-64..=63` up to 512
    /// pairs, less for more; `i16` for the other sums) or zero once merged by pair.
    CoefficientOutOfRange,
    /// A parameter index beyond `u16`, or more than 65,535 terms in one sum.
    IndexOutOfRange,
    /// A linear row whose constant term is not a 32-bit float (the phased store keeps
    /// constants as `f32`; a trace's `const` always is one).
    ConstantTerm,
    /// A linear row whose pairs are tapered by different factors.
    MixedPhases,
    /// The store's arena would outgrow its 32-bit offsets (phased store: or its table of
    /// 65,536 distinct factors is full).
    StoreFull,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reason::NonLinearWithoutSplit => "non-linear evaluation without a split",
            Reason::UnusableSplit => "the split does not fit the store",
            Reason::NoTwinPair => "no twin (middlegame, endgame) pair",
            Reason::NonIntegerCoefficient => "non-integer coefficient",
            Reason::CoefficientOutOfRange => "coefficient out of range",
            Reason::IndexOutOfRange => "parameter index or term count out of u16 range",
            Reason::ConstantTerm => "constant not exact as a 32-bit float",
            Reason::MixedPhases => "pairs tapered by different factors",
            Reason::StoreFull => "compact store full (32-bit offsets, or 65,536 distinct factors)",
        })
    }
}

/// One store's share of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSize {
    /// The store.
    pub store: StoreKind,
    /// Positions it holds.
    pub positions: usize,
    /// Heap bytes it holds (not counting the labels).
    pub bytes: usize,
}

/// Positions kept in a slower store than the one tried first, for one reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fallback {
    /// Where they are kept.
    pub store: StoreKind,
    /// Why the faster store refused them.
    pub reason: Reason,
    /// How many.
    pub positions: usize,
}

/// How a set's positions are stored: see [`CompiledSet::layout`](crate::CompiledSet::layout).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The non-empty stores, in section order.
    pub stores: Vec<StoreSize>,
    /// The fallbacks, by store and reason.
    pub fallbacks: Vec<Fallback>,
    /// Heap bytes of the labels.
    pub label_bytes: usize,
}

impl Layout {
    /// Positions in `store`.
    pub fn positions(&self, store: StoreKind) -> usize {
        self.stores
            .iter()
            .filter(|s| s.store == store)
            .map(|s| s.positions)
            .sum()
    }

    /// Positions that fell back to a slower store, for any reason.
    pub fn fallen_back(&self) -> usize {
        self.fallbacks.iter().map(|f| f.positions).sum()
    }

    /// One message per fallback (store and reason), with its count and the bytes a position
    /// of that store takes: empty when every position is where it was meant to go.
    pub fn warnings(&self) -> Vec<String> {
        self.fallbacks
            .iter()
            .map(|f| {
                let size = self.stores.iter().find(|s| s.store == f.store);
                let each = size.map_or(0, |s| s.bytes / s.positions.max(1));
                format!(
                    "{} positions kept as {} instead of a compact store (about {each} bytes \
                     each: the same values, only more memory and slower passes); reason: {}",
                    f.positions, f.store, f.reason
                )
            })
            .collect()
    }
}
