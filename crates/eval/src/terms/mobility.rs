//! Mobility: per knight, bishop, rook and queen, its number of moves to squares not held by own
//! pieces nor attacked by enemy pawns, one weight per count.

use super::{Context, ParamBuilder, Term};
use crate::features::Sink;
use crate::param_info::ROLE_NAMES;

/// Largest mobility count per piece (knight, bishop, rook, queen).
pub(crate) const MOBILITY_MAX: [usize; 4] = [8, 13, 14, 27];

/// `mobility.<piece>.<count>.<phase>`, knight 0-8, bishop 0-13, rook 0-14, queen 0-27.
///
/// Declared here, extracted by [`super::pieces`]: the counts come from the attacks its one walk
/// over the pieces computes (for the king-danger inputs and the attack maps too), in the order
/// the sums have always added them.
pub(crate) struct Mobility;

impl Term for Mobility {
    /// Index of `mobility.<piece>.0.mg` per piece: count `c` in phase `p` is `+ 2 c + p`.
    type Layout = [u32; 4];
    const GROUPS: &'static [&'static str] = &["mobility"];
    const ADDED_LATER: bool = false;

    fn declare(b: &mut ParamBuilder) -> [u32; 4] {
        let mut first = [0; 4];
        for (m, &max) in MOBILITY_MAX.iter().enumerate() {
            let role = ROLE_NAMES[m + 1];
            first[m] = b.next_index();
            for count in 0..=max {
                b.pair(&format!("mobility.{role}.{count}"), 0.0);
            }
        }
        first
    }

    /// Nothing: [`super::pieces`] adds the mobility terms.
    #[inline(always)]
    fn extract(_: &mut Context<'_>, _: &[u32; 4], _: &mut impl Sink) {}
}
