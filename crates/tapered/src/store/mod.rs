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
//!    [`CompiledSet::record_heads`](crate::CompiledSet::record_heads), any manifest's declared
//!    non-linear terms: twin groups of sums as the phased store packs them (over tapered pairs
//!    and untapered *singles* alike; a coefficient beyond the packing's range as up to 16
//!    features of its pair), weights picked per position (`u16` indices), per-position
//!    scalars (`f64`), one shared head program.
//! 5. **General programs** ([`Programs`], a [`tape::Program`] each, about 2,948 bytes for
//!    `full`): everything else. Same values, more memory and slower passes.
//!
//! # Fallbacks are counted with their reason
//!
//! A position that a faster store refuses is not lost: it is kept in a slower one, and that
//! store remembers why ([`Reason`], one byte a position, and the first refusal of each reason
//! with the parameter and coefficient of the term that did not fit: `reason.rs`'s `Refusal`).
//! [`Layout`] reports the positions and bytes of each store and the fallbacks by store and
//! reason with that parameter, so a caller can warn, naming the parameter and the fix (the
//! chess tuner's `setup::prepare` does, through [`Layout::warnings_named`]). Positions of a linear evaluation without pairs, and
//! non-linear evaluations recorded without a split, are plain sparse rows and programs: no
//! faster store was tried, so only the latter counts as a fallback
//! ([`Reason::NonLinearWithoutSplit`]).
//!
//! # How to add a store
//!
//! Write a type that implements [`Store`] (`interface.rs`; overriding [`Store::sweep`] if it
//! has a faster loop than one position at a time; a store replayed through one head program
//! implements `HeadRows` instead and calls `head_program.rs`'s `score`, `add_gradient` and
//! `sweep`), add it to [`AnyStore`], [`each_store!`] and [`StoreKind`] (`kind.rs`)
//! (and `AnyStore::append` and `shrink`, which `SetBuilder` uses),
//! decide where its section goes in the order above, and have the recording functions in
//! `set/record.rs` put positions into it. `tests/replay.rs` in the `texel` crate checks any
//! store against fresh recordings.

//!
//! # How the files depend on one another
//!
//! Imports run one way, down: this file (the list of stores, [`AnyStore`] and
//! [`each_store!`]) names the stores; each store names the leaves it shares with the others
//! (`interface.rs`: the [`Store`] trait; `arena.rs`, `kind.rs`, `reason.rs`, `pairs.rs`, `packing.rs`,
//! `unit.rs`, `phased.rs`'s `dot`) and never this file; `layout.rs` (the report) names only
//! the leaves.

mod arena;
mod head_program;
mod headed;
mod interface;
mod kind;
mod layout;
mod packing;
mod pairs;
pub(crate) mod phased;
mod programs;
pub(crate) mod reads;
mod reason;
mod scalar_head;
mod sparse;
mod twin;
mod unit;

pub use headed::HeadGradient;
pub(crate) use headed::Headed;
pub(crate) use interface::{Pass, Store};
pub use kind::StoreKind;
pub use layout::{Fallback, Layout, StoreSize};
#[cfg(test)]
pub(crate) use packing::MAX_PAIRS;
pub(crate) use phased::Phased;
pub(crate) use programs::Programs;
pub use reason::Reason;
pub(crate) use reason::Refusal;
pub use scalar_head::HeadRow;
pub(crate) use scalar_head::ScalarHead;
pub(crate) use sparse::Sparse;

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
