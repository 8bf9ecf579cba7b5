//! The Texel and WukongJS position filters, through the evaluation's quiescence search.

use shakmaty::Chess;

/// Which positions to keep (or what to keep in their place).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Filter {
    /// Keep every position.
    #[default]
    None,
    /// Keep only quiet positions: the static evaluation equals the quiescence score (Texel).
    Quiet,
    /// Replace each position by the leaf of its quiescence principal variation (WukongJS).
    QuiescenceLeaf,
}

/// What the filter did with a position.
pub enum Filtered {
    /// Keep this position (the original, or its quiescence leaf).
    Keep(Chess),
    /// Drop it, for this reason.
    Drop(&'static str),
}

impl Filter {
    /// Applies the filter to one position with the evaluation model's default weights.
    pub fn apply(&self, pos: Chess) -> Filtered {
        match self {
            Filter::None => Filtered::Keep(pos),
            Filter::Quiet | Filter::QuiescenceLeaf => Filtered::Drop("filter needs the eval crate"),
        }
    }
}
