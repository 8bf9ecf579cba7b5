//! [`Layout`]: how a set's positions are stored, the positions and bytes of each store and the
//! fallbacks by store and reason. Names only the leaves [`StoreKind`] and [`Reason`].

use serde::{Deserialize, Serialize};

use super::kind::StoreKind;
use super::reason::Reason;

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
