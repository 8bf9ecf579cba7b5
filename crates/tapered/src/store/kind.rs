//! [`StoreKind`]: the stores, in section order. A leaf: it imports nothing of the crate.

use std::fmt;

use serde::{Deserialize, Serialize};

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
